//! A control plane driving the OASiS scheduler through the embedding API
//! ([`mlsched_kernel::api::Scheduler`]): the loop owns the clock, feeds `SlotAdvanced` and
//! `JobArrived` events in time order, and receives each admission decision through a callback.
//!
//! The scenario is built in code (the kernel reads no files): 12 slots, 3 GPU worker servers,
//! 2 parameter-server hosts, 8 jobs with seeded random shapes. Run with
//! `cargo run -p mlsched-kernel --example control_loop`.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use mlsched_kernel::oasis::{OasisRecord, OasisScheduler, TAG_OASIS_DECISION};
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::ResourceVec;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).expect("R <= RESOURCES_MAX")
}

fn scenario(seed: u64) -> OasisScenario {
    let mut g = SplitMix64::new(seed);
    let jobs = (0..8)
        .map(|_| OasisJob {
            arrival: g.below(10) as u32,
            epochs: 10 + g.below(30) as u32,
            chunks: 4 + g.below(12) as u32,
            minibatches_per_chunk: 10 + g.below(20) as u32,
            minibatch_time: g.range_f64(0.002, 0.01),
            comm_time: 0.0005,
            worker_bw: 1.0,
            ps_bw: 4.0,
            worker_demand: rv(&[1.0, 4.0, 16.0]),
            ps_demand: rv(&[0.0, 4.0, 8.0]),
            utility: Utility::Sigmoid {
                priority: g.range_f64(5.0, 60.0),
                decay: g.range_f64(0.1, 1.0),
                target: g.range_f64(1.0, 5.0),
            },
        })
        .collect();
    OasisScenario {
        slots: 12,
        resources: 3,
        worker_servers: vec![
            rv(&[4.0, 32.0, 244.0]),
            rv(&[8.0, 64.0, 488.0]),
            rv(&[2.0, 16.0, 122.0]),
        ],
        ps_servers: vec![rv(&[0.0, 36.0, 60.0]), rv(&[0.0, 16.0, 30.0])],
        prices: Some(PriceBounds {
            u_worker: rv(&[40.0, 10.0, 2.0]),
            u_ps: rv(&[40.0, 10.0, 2.0]),
            l_worker: 0.01,
            l_ps: 0.01,
        }),
        jobs,
    }
}

fn main() {
    let scn = scenario(42);
    // Built once: every buffer a decision needs is allocated here.
    let mut sched = OasisScheduler::new(&scn).expect("scenario fits the build's limits");
    let order = sched.arrival_order();
    let mut sink = HashSink::new();
    let mut next = 0;
    for now in 0..scn.slots {
        sched
            .on_event(now, Event::SlotAdvanced, &mut |_| {})
            .expect("time moves forward");
        while let Some(&idx) = order
            .get(next)
            .filter(|&&i| scn.jobs[i as usize].arrival == now)
        {
            next += 1;
            let mut log_err = None;
            sched
                .on_event(now, Event::JobArrived(idx), &mut |d| {
                    match d.completion_slot {
                        Some(t) => println!(
                            "slot {now:>2}: job {idx} admitted, completes in slot {t}, utility {:.2} - cost {:.2} = payoff {:.2}",
                            d.utility, d.cost, d.payoff
                        ),
                        None => println!("slot {now:>2}: job {idx} rejected: {}", d.reason.text()),
                    }
                    log_err = sink.record(TAG_OASIS_DECISION, &OasisRecord::from(d)).err();
                })
                .expect("job fed at its arrival");
            assert!(log_err.is_none());
            for sp in sched.last_schedule().iter() {
                println!(
                    "          slot {:>2}: {} chunks, workers {:?}, ps {:?}, cost {:.3}",
                    sp.slot, sp.chunks, sp.worker_pairs, sp.ps_pairs, sp.cost
                );
            }
        }
    }
    println!("decision log hash {}", sink.hash().hex());
}
