//! Shared by the `online_*` test files: small random instances and a decision runner.
#![allow(dead_code)]
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::online::{Architecture, OnlineJob, OnlineScenario, TaskType};
use mlsched_kernel::online::{log_decision, run_scenario, OnlineJobDecision, Search};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::ResourceVec;

/// A small random instance from `seed` (sizes chosen so the literal search stays fast).
pub fn small_instance(seed: u64, arch: Architecture) -> OnlineScenario {
    let mut g = SplitMix64::new(seed);
    let r = 1 + g.below(3) as usize;
    let h = 1 + g.below(4) as usize;
    let mm = 1 + g.below(3) as usize;
    let pp = if arch == Architecture::Ps {
        1 + g.below(3) as usize
    } else {
        0
    };
    let slots = 20 + g.below(21) as u32;
    let demand = |g: &mut SplitMix64, lo: u64| -> ResourceVec {
        let mut v: Vec<f64> = (0..r)
            .map(|_| (g.below(4) as f64) * 0.5 + lo as f64)
            .collect();
        if v.iter().all(|&x| x == 0.0) {
            v[0] = 1.0;
        }
        ResourceVec::from_slice(&v).unwrap()
    };
    let servers = (0..h)
        .map(|_| {
            let v: Vec<f64> = (0..r).map(|_| 1.0 + g.below(5) as f64).collect();
            ResourceVec::from_slice(&v).unwrap()
        })
        .collect();
    let worker_types = (0..mm)
        .map(|_| TaskType {
            demand: demand(&mut g, 0),
            bw: 0.5 + g.below(4) as f64 * 0.5,
        })
        .collect();
    let ps_types = (0..pp)
        .map(|_| TaskType {
            demand: demand(&mut g, 0),
            bw: 1.0 + g.below(6) as f64,
        })
        .collect();
    let updates = if arch == Architecture::Ps { pp } else { 1 };
    let jobs = (0..3 + g.below(6))
        .map(|_| OnlineJob {
            arrival: g.below(3) as u32,
            weight: 1.0 + g.below(300) as f64,
            epochs: 1 + g.below(3) as u32,
            chunks: 1 + g.below(8) as u32,
            minibatches_per_chunk: 1 + g.below(4) as u32,
            minibatch_time: (0..mm).map(|_| 0.02 + g.below(10) as f64 * 0.02).collect(),
            update_time: (0..updates).map(|_| g.below(4) as f64 * 0.02).collect(),
            gradient_size: g.below(5) as f64 * 0.05,
        })
        .collect();
    OnlineScenario {
        slots,
        architecture: arch,
        resources: r as u32,
        servers,
        worker_types,
        ps_types,
        f: 0.25 + g.below(8) as f64 * 0.5,
        alpha: 1 + g.below(2) as u32,
        rounds_past_horizon: false,
        jobs,
        throughput: None,
    }
}

pub fn decisions(scn: &OnlineScenario, mode: Search) -> (Vec<OnlineJobDecision>, String) {
    let mut v = Vec::new();
    let mut sink = HashSink::new();
    run_scenario(scn, mode, &mut |d| {
        log_decision(&mut sink, d).unwrap();
        v.push(d.clone());
    })
    .unwrap();
    (v, sink.hash().hex().to_string())
}

/// [`small_instance`] on a wider cluster of few server shapes: 8 to 20 servers drawn from two
/// capacity vectors, and jobs of at most 3 workers, so the fast search's virtual server set
/// (busy servers plus the first K_s idle servers of each shape) really leaves servers out.
pub fn many_servers_instance(seed: u64, arch: Architecture) -> OnlineScenario {
    let mut scn = small_instance(seed, arch);
    let mut g = SplitMix64::new(seed ^ 0x5eed_5eed);
    let r = scn.resources as usize;
    let shapes: Vec<ResourceVec> = (0..2)
        .map(|_| {
            let v: Vec<f64> = (0..r).map(|_| 1.0 + g.below(5) as f64).collect();
            ResourceVec::from_slice(&v).unwrap()
        })
        .collect();
    let h = 8 + g.below(13) as usize;
    scn.servers = (0..h).map(|_| shapes[g.below(2) as usize]).collect();
    for j in &mut scn.jobs {
        j.chunks = 1 + g.below(3) as u32;
    }
    scn
}

/// [`small_instance`] with windows of 512 slots: every job arrives in slots 257..=356, so the
/// first round that batches it has tau = 512, and the horizon holds its alpha windows. Windows
/// longer than the fast PS search's sliding-minima limit (256 slots) take its runs-of-equal-usage
/// path; the jobs are the small instance's, so the literal listings stay affordable.
pub fn long_window_instance(seed: u64, arch: Architecture) -> OnlineScenario {
    let mut scn = small_instance(seed, arch);
    let mut g = SplitMix64::new(seed ^ 0x10a6_3a11);
    scn.slots = 2 * scn.alpha * 512;
    for j in &mut scn.jobs {
        j.arrival = 257 + g.below(100) as u32;
    }
    scn
}
