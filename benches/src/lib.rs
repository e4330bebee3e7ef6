//! Shared fixtures of the criterion benchmarks and the profiling examples.
use mlsched_kernel::model::placement::{
    JpsParams, Method, PlacementJob, PlacementScenario, Worker,
};
use mlsched_kernel::rng::SplitMix64;
use std::path::PathBuf;

/// The repository's bundled `data/` folder (see `data/README.md`); panics if it is missing.
pub fn data_dir() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    assert!(
        p.join("README.md").is_file(),
        "the bundled data folder {} is missing",
        p.display()
    );
    p
}

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

/// Without a thread clock: NaN (a CPU-time line then reads NaN).
#[cfg(not(unix))]
pub fn thread_cpu_ms() -> f64 {
    f64::NAN
}

/// The placement benchmarks' instance: S jobs, K workers in nodes of 5 (GPU type (w / 5) mod 3),
/// throughputs rho_ik drawn per worker (`typed` false: every worker its own class, the market's
/// hardest case) or per GPU type (`typed` true: the paper's setting), sized like the paper's
/// (hundreds to thousands of samples/s). The typed columns are drawn either way, so both cases
/// share the random stream of the other fields.
pub fn placement_scenario(seed: u64, s: usize, k: usize, typed: bool) -> PlacementScenario {
    let mut r = SplitMix64::new(seed);
    let jobs = (0..s)
        .map(|_| {
            let per_type: Vec<f64> = (0..3).map(|_| r.range_f64(200.0, 2000.0)).collect();
            PlacementJob {
                samples: r.range_f64(3e4, 1e5),
                epochs: 100.0 + r.below(101) as f64,
                model_bytes: r.range_f64(4e7, 5.5e8),
                throughput: (0..k)
                    .map(|w| {
                        if typed {
                            per_type[(w / 5) % 3]
                        } else {
                            r.range_f64(200.0, 2000.0)
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    PlacementScenario {
        method: Method::Has,
        workers: (0..k)
            .map(|w| Worker {
                gpu_type: ((w / 5) % 3) as u32,
                node: (w / 5) as u32,
            })
            .collect(),
        intra_node: 37.5e9,
        inter_node: 1.25e9,
        jobs,
        include_comm: true,
        jps: JpsParams {
            samples: 40,
            alpha: 0.7,
            beta: 1.0,
        },
        seed: 1,
        solver: Default::default(),
    }
}
