//! Wang et al. (kind "preempt"): one chunk dispatch with 100 edge servers x 8 workers and long
//! queues (about 20 pending chunks per worker), and Q (eq. 5) on all 800 workers: the fast
//! segment pass and the per-worker summaries against the paper-literal slot scan (same group,
//! so the report shows the ratio).
use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::index::NONE;
use mlsched_kernel::model::preempt::{PreemptJob, PreemptScenario, PreemptServer};
use mlsched_kernel::preempt::reference::{RefChunk, SlotPlan};
use mlsched_kernel::preempt::{Policy, PreemptScheduler};

const EDGES: usize = 100;
const WORKERS: u32 = 8;
/// Jobs of 80 chunks before the probe: 200 x 80 / 800 = 20 chunks per worker (few jobs keep
/// the per-iteration clone of the scheduler cheap).
const JOBS: usize = 200;
const PER_SLOT: usize = 20;

fn job(k: usize, arrival: u32, chunks: u32) -> PreemptJob {
    let mut rate: Vec<Vec<f64>> = (0..EDGES)
        .map(|s| {
            (0..WORKERS as usize)
                .map(|w| 20.0 + ((k * 7 + s * 13 + w * 29) % 80) as f64)
                .collect()
        })
        .collect();
    rate.push(vec![40.0]);
    let mut delay: Vec<u32> = (0..EDGES).map(|s| 1 + ((k + s) % 4) as u32).collect();
    delay.push(2000);
    let mut ps: Vec<Vec<bool>> = (0..EDGES).map(|_| vec![true; 2]).collect();
    ps.push(vec![true; 8]);
    PreemptJob {
        arrival,
        epochs: 20,
        chunks,
        minibatches_per_chunk: 58,
        rate_colocated: rate.clone(),
        rate,
        upload_delay: delay,
        ps_eligible: ps,
    }
}

/// The loaded scheduler (every job but the last dispatched) and the probe job's index.
fn loaded() -> (PreemptScheduler, u32, u32) {
    let mut servers: Vec<PreemptServer> = (0..EDGES)
        .map(|_| PreemptServer {
            workers: WORKERS,
            ps: 2,
            cloud: false,
        })
        .collect();
    servers.push(PreemptServer {
        workers: 0,
        ps: 8,
        cloud: true,
    });
    let last = (JOBS / PER_SLOT) as u32;
    let mut jobs: Vec<PreemptJob> = (0..JOBS)
        .map(|k| job(k, (k / PER_SLOT) as u32, 80))
        .collect();
    jobs.push(job(JOBS, last, 1));
    jobs.push(job(JOBS + 1, last, 1));
    let scn = PreemptScenario {
        slots: 4096,
        seed: 1,
        servers,
        jobs,
    };
    let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    for k in 0..JOBS {
        let t = (k / PER_SLOT) as u32;
        s.on_event(t, Event::JobArrived(k as u32), &mut |_| {})
            .unwrap();
        if (k + 1) % PER_SLOT == 0 {
            s.on_event(t, Event::SlotAdvanced, &mut |_| {}).unwrap();
        }
    }
    (s, JOBS as u32, last)
}

fn dispatch(c: &mut Criterion) {
    let (s, probe, now) = loaded();
    let pending: usize = (0..s.plans().workers_len())
        .map(|w| s.plans().segments(w).filter(|g| g.end > now).count())
        .sum();
    eprintln!(
        "preempt bench: {} edge workers, {pending} pending segments ({:.1} per worker)",
        s.plans().workers_len(),
        pending as f64 / s.plans().workers_len() as f64
    );
    let mut g = c.benchmark_group("preempt/dispatch one chunk, 100 edge x 8 workers");
    g.bench_function("fast A_greedy (C_j + argmin + insert)", |b| {
        b.iter_batched_ref(
            || {
                // A fresh copy with its reservations, warmed by a first arrival in the slot;
                // the timed dispatch is the second arrival (the summaries of every worker but
                // the first arrival's are valid, as for any later arrival of a slot).
                let mut x = s.clone();
                x.reserve();
                x.on_event(now, Event::JobArrived(probe), &mut |d| {
                    black_box(d);
                })
                .unwrap();
                x
            },
            |x| {
                x.on_event(now, Event::JobArrived(probe + 1), &mut |d| {
                    black_box(d);
                })
                .unwrap()
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();

    // Q on all 800 workers for the probe chunk: fast vs slot-scan reference.
    let plans = s.plans();
    let nw = plans.workers_len();
    let mut slow = SlotPlan::new(nw);
    for w in 0..nw {
        let end = plans.segments(w).map(|g| g.end).max().unwrap_or(0) as usize;
        let mut ys = vec![NONE; end];
        for g in plans.segments(w) {
            for t in g.start..g.end {
                ys[t as usize] = g.chunk;
            }
        }
        slow.slots[w] = ys;
    }
    let meta: Vec<RefChunk> = plans
        .chunks
        .iter()
        .map(|c| RefChunk {
            gamma: c.gamma,
            inv_d: c.inv_d,
            arrival: 0,
            p: 1.0,
        })
        .collect();
    let probe_job = &s.scenario().jobs[probe as usize];
    let args: Vec<(f64, u32, f64, u32)> = (0..nw)
        .map(|w| {
            let (sv, wi) = (w / WORKERS as usize, w % WORKERS as usize);
            let n = probe_job.rate[sv][wi];
            let delta = probe_job.upload_delay[sv];
            (
                probe_job.gamma(n),
                now + delta,
                probe_job.processing(n),
                delta,
            )
        })
        .collect();
    let mut g = c.benchmark_group("preempt/Q eq.5 on 800 workers");
    g.bench_function("reference slot scan", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for (w, &(gm, t0, p, d)) in args.iter().enumerate() {
                acc += slow.q(w, &meta, gm, t0, p, d, 1.0).q;
            }
            black_box(acc)
        })
    });
    g.bench_function("fast segment pass", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for (w, &(gm, t0, p, d)) in args.iter().enumerate() {
                acc += plans.q_scan(w, gm, t0, p, d, 1.0).q;
            }
            black_box(acc)
        })
    });
    // The dispatch path: the per-worker summaries rebuilt between slots.
    let mut at_now = plans.clone();
    at_now.advance(now);
    g.bench_function("fast summary (binary search)", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            for (w, &(gm, t0, p, d)) in args.iter().enumerate() {
                acc += at_now.q_edge(w, gm, t0, p, d, 1.0).q;
            }
            black_box(acc)
        })
    });
    for (w, &(gm, t0, p, d)) in args.iter().enumerate() {
        // The reference computes eq. (5) itself in plain f64: equal up to rounding.
        let (f, r) = (
            at_now.q_edge(w, gm, t0, p, d, 1.0),
            slow.q(w, &meta, gm, t0, p, d, 1.0),
        );
        assert_eq!((f.t_star, f.a1_slots), (r.t_star, r.a1_slots));
        assert!((f.q - r.q).abs() <= 1e-9 * (1.0 + r.q.abs()));
    }
    g.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
