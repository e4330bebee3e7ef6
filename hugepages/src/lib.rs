//! [`HugePages`]: the system allocator, with every new allocation of at least [`FROM`] bytes
//! advised to the kernel as transparent-huge-page memory (`madvise(MADV_HUGEPAGE)`, Linux
//! only; elsewhere it is the system allocator unchanged). Zeroed ones are also mapped at once,
//! and blocks grown by `realloc` are left alone (see there).
//!
//! Why: the OASiS slot trees of a 100,000-GPU cluster are about 600 MB of arrays that a
//! decision reads at random (`docs/oasis.md`, "The slot trees"). On 4 KiB pages nearly every
//! such read also misses the TLB, and in a virtual machine a page walk is two-dimensional; 2 MiB
//! pages cover the same memory with 512 times fewer entries. Many Linux machines (this
//! project's CI among them) set `/sys/kernel/mm/transparent_hugepage/enabled` to `madvise`, so
//! only advised memory gets huge pages. The kernel crate cannot advise anything itself
//! (`no_std`, no unsafe code) and must not care where its memory comes from, so the hosts that
//! run large scenarios install this allocator: the `mlsched` CLI, the Python package and the
//! benchmarks. An embedder chooses its own allocator; `docs/scale.md` ("Huge pages") has the
//! measurements.
//!
//! Nothing a decision computes depends on the allocator: the decision-log hashes are the same.
//! [`disable`] turns the advice off (`MLSCHED_HUGEPAGES=0`, [`from_env`]), to compare.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// Allocations of at least this many bytes are advised; smaller ones hold no large
/// random-access arrays, and their huge pages would mostly hold other allocations.
pub const FROM: usize = 4 << 20;

/// A base page: `madvise` takes whole pages.
const PAGE: usize = 4096;

/// The environment variable [`from_env`] reads.
pub const ENV: &str = "MLSCHED_HUGEPAGES";

static OFF: AtomicBool = AtomicBool::new(false);

/// Stops advising allocations made from now on (already advised memory keeps its pages).
pub fn disable() {
    OFF.store(true, Ordering::Relaxed);
}

/// Is the advice on (not [`disable`]d, and on Linux)?
pub fn enabled() -> bool {
    cfg!(target_os = "linux") && !OFF.load(Ordering::Relaxed)
}

/// Applies `MLSCHED_HUGEPAGES` ([`ENV`]): `0` [`disable`]s the advice, `1` or unset keeps it;
/// anything else is an error naming the variable (nothing is guessed). Hosts call it first
/// thing, before the large allocations.
pub fn from_env() -> Result<(), String> {
    if !advice_wanted(std::env::var_os(ENV).as_deref())? {
        disable();
    }
    Ok(())
}

/// The value of [`ENV`] read: unset or `1` yes, `0` no, anything else an error naming it.
fn advice_wanted(v: Option<&std::ffi::OsStr>) -> Result<bool, String> {
    match v {
        None => Ok(true),
        Some(v) if v == "1" => Ok(true),
        Some(v) if v == "0" => Ok(false),
        Some(v) => Err(format!(
            "{ENV} must be 0 (no huge pages) or 1 (the default), not {v:?}"
        )),
    }
}

/// The system allocator with large allocations on transparent huge pages (module docs).
#[derive(Debug, Clone, Copy, Default)]
pub struct HugePages;

/// Advises the whole base pages inside `p..p + len` as huge-page memory when the block is
/// large ([`FROM`]), and with `populate` maps them at once. The kernel backs each 2 MiB-aligned
/// range inside an advised mapping with one huge page, so the block keeps the system
/// allocator's layout: at most the 2 MiB at each end stay on base pages. A refusal (an old
/// kernel, THP compiled out, MADV_POPULATE_WRITE before Linux 5.14) only leaves the memory on
/// base pages or mapped later, so it is ignored.
fn advise(p: *mut u8, len: usize, populate: bool) {
    #[cfg(target_os = "linux")]
    if !p.is_null() && len >= FROM && enabled() {
        let start = (p as usize).next_multiple_of(PAGE);
        let end = (p as usize + len) / PAGE * PAGE;
        if end > start {
            let at = start as *mut libc::c_void;
            // SAFETY: `start..end` lies inside one live allocation of ours; MADV_HUGEPAGE
            // changes how the kernel backs it, MADV_POPULATE_WRITE maps its (zero) pages
            // now, as writing to them would; neither changes its contents or validity.
            unsafe {
                libc::madvise(at, end - start, libc::MADV_HUGEPAGE);
                if populate {
                    libc::madvise(at, end - start, libc::MADV_POPULATE_WRITE);
                }
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, len, populate, PAGE);
}

// SAFETY: every method forwards to `System` with the caller's layout; the advice only changes
// how the kernel backs the memory.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, as the caller guarantees it.
        let p = unsafe { System.alloc(l) };
        advise(p, l.size(), false);
        p
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`. A large zeroed block is freshly mapped and not yet touched,
        // so the advice comes before its pages are. Its pages are then mapped at once: a
        // large zeroed array (the slot trees' cells, a DP table) is written a little at a time
        // by later decisions, and each first write of a huge page would zero 2 MiB inside a
        // decision (first 3,000 decisions of the 100,000-GPU run: max 162-194 ms, against 27
        // ms on base pages and with the pages mapped here).
        let p = unsafe { System.alloc_zeroed(l) };
        advise(p, l.size(), true);
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: `p` was allocated by `System` (through us) with this layout.
        unsafe { System.dealloc(p, l) }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: the caller's pointer, layout and size, as the caller guarantees them.
        // Not advised: a block grown by realloc (the breakpoint arena, doubled inside
        // decisions) on huge pages put stalls of 160-250 ms into a few early decisions of the
        // 100,000-GPU run (not pinned down further: glibc moves a grown block by remapping
        // it); the arrays that decisions read at random are allocated at their size once.
        unsafe { System.realloc(p, l, new) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_keep_their_contents_through_realloc() {
        let h = HugePages;
        let l = Layout::from_size_align(FROM + 12_345, 8).unwrap();
        // SAFETY: valid non-zero layouts; each block is freed with the layout of its size.
        unsafe {
            let p = h.alloc_zeroed(l);
            assert!(!p.is_null());
            assert!((0..l.size()).step_by(PAGE).all(|i| *p.add(i) == 0));
            *p.add(7) = 42;
            *p.add(FROM) = 43;
            // grow within the large class, then shrink into the small one
            let q = h.realloc(p, l, 3 * FROM);
            assert_eq!((*q.add(7), *q.add(FROM)), (42, 43));
            let r = h.realloc(q, Layout::from_size_align(3 * FROM, 8).unwrap(), 100);
            assert_eq!(*r.add(7), 42);
            h.dealloc(r, Layout::from_size_align(100, 8).unwrap());
        }
    }

    #[test]
    fn small_blocks_grow_into_large_ones() {
        let h = HugePages;
        let l = Layout::from_size_align(64, 8).unwrap();
        // SAFETY: a valid layout, freed with the layout of its last size.
        unsafe {
            let p = h.alloc(l);
            assert!(!p.is_null());
            *p = 9;
            let q = h.realloc(p, l, FROM);
            assert_eq!(*q, 9);
            h.dealloc(q, Layout::from_size_align(FROM, 8).unwrap());
        }
    }

    #[test]
    fn the_environment_switch_takes_0_or_1_and_names_itself_otherwise() {
        use std::ffi::OsStr;
        assert_eq!(advice_wanted(None), Ok(true));
        assert_eq!(advice_wanted(Some(OsStr::new("1"))), Ok(true));
        assert_eq!(advice_wanted(Some(OsStr::new("0"))), Ok(false));
        for bad in ["", "yes", "2", " 1"] {
            let e = advice_wanted(Some(OsStr::new(bad))).unwrap_err();
            assert!(e.contains("MLSCHED_HUGEPAGES"), "{e}");
        }
    }
}
