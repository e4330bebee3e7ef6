//! Shared helpers of the preempt test files (included with `#[path]`; no tests of its own).
use mlsched_kernel::model::preempt::{PreemptJob, PreemptScenario, PreemptServer};
use mlsched_kernel::rng::SplitMix64;

/// A small random scenario: 1-3 edge servers (1-3 workers), maybe a cloud at a random index,
/// 1-6 jobs; rates from a small set (ties are common), some workers ineligible.
pub fn random_scenario(seed: u64) -> PreemptScenario {
    let mut r = SplitMix64::new(seed);
    let edges = 1 + r.below(3) as usize;
    let mut servers: Vec<PreemptServer> = (0..edges)
        .map(|_| PreemptServer {
            workers: 1 + r.below(3) as u32,
            ps: r.below(3) as u32,
            cloud: false,
        })
        .collect();
    if r.below(4) != 0 {
        let at = r.below(edges as u64 + 1) as usize;
        servers.insert(
            at,
            PreemptServer {
                workers: 0,
                ps: 1 + r.below(3) as u32,
                cloud: true,
            },
        );
    }
    let rates = [0.0, 1.0, 2.0, 3.0, 4.0, 6.0];
    let jobs = (0..1 + r.below(6))
        .map(|_| {
            let mut rate: Vec<Vec<f64>> = servers
                .iter()
                .map(|s| {
                    let n = if s.cloud { 1 } else { s.workers as usize };
                    (0..n)
                        .map(|_| rates[r.below(rates.len() as u64) as usize])
                        .collect()
                })
                .collect();
            if rate.iter().flatten().all(|&x| x == 0.0) {
                rate[0][0] = 2.0;
            }
            let rate_colocated = rate
                .iter()
                .zip(&servers)
                .map(|(row, s)| {
                    if s.cloud {
                        row.iter().map(|&x| x + r.below(3) as f64).collect()
                    } else {
                        row.clone()
                    }
                })
                .collect();
            PreemptJob {
                arrival: r.below(8) as u32,
                epochs: 1 + r.below(4) as u32,
                chunks: 1 + r.below(4) as u32,
                minibatches_per_chunk: 1 + r.below(6) as u32,
                rate,
                rate_colocated,
                upload_delay: servers
                    .iter()
                    .map(|s| {
                        if s.cloud {
                            2 + r.below(7) as u32
                        } else {
                            r.below(5) as u32
                        }
                    })
                    .collect(),
                ps_eligible: servers
                    .iter()
                    .map(|s| (0..s.ps).map(|_| r.below(4) != 0).collect())
                    .collect(),
            }
        })
        .collect();
    PreemptScenario {
        slots: 16,
        seed,
        servers,
        jobs,
    }
}

/// The outcome shape of `reference::greedy` read from the fast scheduler (after `run_all`):
/// per global chunk (server, worker, cloud, every slot it runs in).
#[allow(dead_code)]
pub fn fast_outcome(
    s: &mlsched_kernel::preempt::PreemptScheduler,
) -> Vec<mlsched_kernel::preempt::reference::ChunkOutcome> {
    let scn = s.scenario();
    let nc: usize = scn.jobs.iter().map(|j| j.chunks as usize).sum();
    let mut out = vec![(0, 0, false, Vec::new()); nc];
    for (c, o) in out.iter_mut().enumerate() {
        if let Some(p) = s.placement(c as u32) {
            *o = (p.server, p.worker, p.cloud, Vec::new());
            if p.cloud {
                o.3 = (p.start..p.end).collect();
            }
        }
    }
    for w in 0..s.plans().workers_len() {
        for seg in s.plans().segments(w) {
            out[seg.chunk as usize].3.extend(seg.start..seg.end);
        }
    }
    out
}
