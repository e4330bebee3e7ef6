//! OASiS against the exact offline optimum of problem (1) on tiny instances (<= 6 jobs,
//! T <= 6): the empirical competitive ratio OPT / OASiS over 100 seeds (the paper reports
//! 1.1-1.5 on its simulations; Theorem 4 bounds it by 2 alpha).
//!
//! The optimum is exhaustive: per job, every schedule that places exactly ceil(E N m) worker-
//! slots (more only uses capacity) with at most N workers per slot and ceil(y b / B) parameter
//! servers (more only uses capacity; (7) caps them at y); then a depth-first search over
//! "reject, or one of its schedules" per job, under the per-slot capacities, with a
//! utility upper bound for pruning. One worker server and one PS server, one resource, so a
//! schedule is a per-slot count. Utility of a schedule = f_i(last used slot - a_i).
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, Utility};
use mlsched_kernel::num::ceil_eps;
use mlsched_kernel::oasis::OasisScheduler;
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::ResourceVec;

struct Tiny {
    scn: OasisScenario,
    cap_w: u32,
    cap_p: u32,
}

fn rv(x: f64) -> ResourceVec {
    ResourceVec::from_slice(&[x]).unwrap()
}

fn tiny(seed: u64) -> Tiny {
    let mut g = SplitMix64::new(seed);
    let slots = 3 + g.below(4) as u32;
    let (cap_w, cap_p) = (3 + g.below(4) as u32, 2 + g.below(3) as u32);
    let jobs = (0..3 + g.below(4))
        .map(|_| {
            let mut v = g.range_f64(5.0, 50.0);
            OasisJob {
                arrival: g.below(slots as u64 - 1) as u32,
                epochs: 1 + g.below(3) as u32,
                chunks: 1 + g.below(3) as u32,
                minibatches_per_chunk: 1,
                minibatch_time: [0.5, 1.0][g.below(2) as usize],
                comm_time: 0.0,
                worker_bw: 1.0,
                ps_bw: [1.0, 2.0][g.below(2) as usize],
                worker_demand: rv((1 + g.below(2)) as f64),
                ps_demand: rv(1.0),
                utility: Utility::Table(
                    (0..slots)
                        .map(|_| {
                            v *= g.range_f64(0.4, 1.0);
                            v
                        })
                        .collect(),
                ),
            }
        })
        .collect();
    let mut scn = OasisScenario {
        slots,
        resources: 1,
        worker_servers: vec![rv(cap_w as f64)],
        ps_servers: vec![rv(cap_p as f64)],
        prices: None,
        jobs,
        throughput: None,
    };
    scn.prices = Some(mlsched_kernel::price::oasis_bounds(&scn).unwrap());
    Tiny { scn, cap_w, cap_p }
}

/// Every per-slot worker vector over a..T with the exact total `need`, at most `n` per slot.
fn schedules(a: usize, t: usize, need: u32, n: u32, out: &mut Vec<Vec<u32>>, cur: &mut Vec<u32>) {
    if cur.len() == t - a {
        if cur.iter().sum::<u32>() == need {
            out.push(cur.clone());
        }
        return;
    }
    let used: u32 = cur.iter().sum();
    for y in 0..=n.min(need - used) {
        cur.push(y);
        schedules(a, t, need, n, out, cur);
        cur.pop();
    }
}

struct Opt<'a> {
    t: &'a Tiny,
    options: Vec<Vec<(Vec<u32>, f64)>>,
    max_u: Vec<f64>,
    best: f64,
}

impl Opt<'_> {
    fn dfs(&mut self, i: usize, val: f64, free_w: &mut [u32], free_p: &mut [u32]) {
        if i == self.options.len() {
            self.best = self.best.max(val);
            return;
        }
        if val + self.max_u[i..].iter().sum::<f64>() <= self.best {
            return;
        }
        let job = &self.t.scn.jobs[i];
        let (w, rho) = (job.worker_demand.get(0) as u32, job.worker_bw / job.ps_bw);
        let a = job.arrival as usize;
        for k in 0..self.options[i].len() {
            let (ys, u) = (self.options[i][k].0.clone(), self.options[i][k].1);
            let fits = ys.iter().enumerate().all(|(j, &y)| {
                y * w <= free_w[a + j] && ceil_eps(y as f64 * rho) as u32 <= free_p[a + j]
            });
            if !fits {
                continue;
            }
            for (j, &y) in ys.iter().enumerate() {
                free_w[a + j] -= y * w;
                free_p[a + j] -= ceil_eps(y as f64 * rho) as u32;
            }
            self.dfs(i + 1, val + u, free_w, free_p);
            for (j, &y) in ys.iter().enumerate() {
                free_w[a + j] += y * w;
                free_p[a + j] += ceil_eps(y as f64 * rho) as u32;
            }
        }
        self.dfs(i + 1, val, free_w, free_p);
    }
}

fn offline_optimum(t: &Tiny) -> f64 {
    let slots = t.scn.slots as usize;
    let mut options = Vec::new();
    let mut max_u = Vec::new();
    for j in &t.scn.jobs {
        let need = ceil_eps(j.workload() as f64 * j.chunk_time()) as u32;
        let mut all = Vec::new();
        schedules(
            j.arrival as usize,
            slots,
            need,
            j.chunks,
            &mut all,
            &mut Vec::new(),
        );
        let opts: Vec<(Vec<u32>, f64)> = all
            .into_iter()
            .map(|ys| {
                let last = ys.iter().rposition(|&y| y > 0).unwrap_or(0) as u32;
                let u = j.utility.at(last);
                (ys, u)
            })
            .collect();
        max_u.push(opts.iter().map(|o| o.1).fold(0.0, f64::max));
        options.push(opts);
    }
    let mut o = Opt {
        t,
        options,
        max_u,
        best: 0.0,
    };
    o.dfs(0, 0.0, &mut vec![t.cap_w; slots], &mut vec![t.cap_p; slots]);
    o.best
}

fn oasis_utility(t: &Tiny) -> f64 {
    let mut s = OasisScheduler::new(&t.scn).unwrap();
    let mut total = 0.0;
    for idx in s.arrival_order() {
        let d = s.decide(t.scn.jobs[idx as usize].arrival, idx).unwrap();
        if d.admitted {
            total += d.utility;
        }
    }
    total
}

#[test]
fn empirical_competitive_ratio_over_100_seeds() {
    let mut ratios = Vec::new();
    let mut oasis_zero = 0;
    for seed in 0..100 {
        let t = tiny(seed);
        let (opt, on) = (offline_optimum(&t), oasis_utility(&t));
        assert!(
            on <= opt + 1e-9 * opt.max(1.0),
            "seed {seed}: OASiS {on} beats the optimum {opt}"
        );
        if on > 0.0 {
            ratios.push(opt / on);
        } else if opt > 0.0 {
            oasis_zero += 1;
        }
    }
    ratios.sort_by(f64::total_cmp);
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    eprintln!(
        "OPT / OASiS over {} seeds with OASiS > 0: mean {mean:.3}, median {:.3}, max {:.3}; \
         OASiS admitted nothing while OPT > 0 on {oasis_zero} seeds",
        ratios.len(),
        ratios[ratios.len() / 2],
        ratios[ratios.len() - 1]
    );
    assert!(ratios.len() >= 90);
    assert!(ratios[0] >= 1.0 - 1e-9);
}
