//! Shared fixtures of the criterion benchmarks and the profiling examples.
/// The repository's bundled `data/` folder (see `data/README.md`); panics if it is missing.
pub use mlsched_tests::data_dir;

/// CPU time of the calling thread in ms (NaN without a thread clock). On a shared machine a
/// niced process waits for a core much of the time, and that wait would otherwise count as
/// decision time.
#[cfg(unix)]
pub fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid, exclusive pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// The C allocator's view of the heap, in MB: (bytes in use by live allocations, bytes it holds
/// free, bytes in its own mmapped chunks), from glibc's `mallinfo2`; `None` elsewhere. Set
/// beside the peak RSS it tells live data from memory the allocator keeps (fragmentation).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn heap_mb() -> Option<(f64, f64, f64)> {
    // SAFETY: mallinfo2 takes no arguments and returns a struct by value.
    let m = unsafe { libc::mallinfo2() };
    let mb = |b: usize| b as f64 / (1024.0 * 1024.0);
    Some((mb(m.uordblks + m.hblkhd), mb(m.fordblks), mb(m.hblkhd)))
}

/// Not glibc: no allocator statistics.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn heap_mb() -> Option<(f64, f64, f64)> {
    None
}

/// Without a thread clock: NaN (a CPU-time line then reads NaN).
#[cfg(not(unix))]
pub fn thread_cpu_ms() -> f64 {
    f64::NAN
}

/// The placement benchmarks' instance, the one whose decision-log hashes
/// `tests/tests/placement_distinct.rs` pins: S jobs, K workers in nodes of 5, throughputs rho_ik
/// per worker (`typed` false: every worker its own class, the market's hardest case) or per GPU
/// type (`typed` true: the paper's setting).
pub use mlsched_tests::placement_instances::distinct_scenario as placement_scenario;
