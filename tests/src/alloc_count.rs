//! One counting global allocator for every "decision paths allocate nothing" test.
//!
//! A test binary installs it with
//! `#[global_allocator] static GLOBAL: CountingAlloc = CountingAlloc;` and measures a region with
//! [`allocations`]. Counting is per thread, so allocations made by other test threads running
//! concurrently in the same binary are never attributed to the region under test.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// Forwards to [`System`] and counts `alloc`, `alloc_zeroed` and `realloc` on armed threads.
pub struct CountingAlloc;

fn note() {
    // `try_with`: the allocator may run while thread-local storage is being torn down.
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the wrapper only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note();
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note();
        System.alloc_zeroed(l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note();
        System.realloc(p, l, n)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

/// Runs `f` and returns its result with the number of allocations it made on this thread
/// (meaningful only in a binary whose global allocator is [`CountingAlloc`]).
pub fn allocations<R>(f: impl FnOnce() -> R) -> (R, u64) {
    COUNT.with(|c| c.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, COUNT.with(Cell::get))
}
