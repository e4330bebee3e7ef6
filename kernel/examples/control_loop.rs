//! A control plane driving the OASiS scheduler through the embedding API
//! ([`mlsched_kernel::api::Scheduler`] behind [`mlsched_kernel::driver::Driver`]): the loop
//! owns the clock, feeds `JobArrived` and then `SlotAdvanced` events in the documented order,
//! and receives each admission decision through a callback; the driver logs every event and
//! every decision record (the same bytes as `Driver::run`, i.e. `mlsched run --log`).
//!
//! The scenario is built in code (the kernel reads no files): 12 slots, 3 GPU worker servers,
//! 2 parameter-server hosts, 8 jobs with seeded random shapes. Run with
//! `cargo run -p mlsched-kernel --example control_loop`.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::driver::{arrival_order, Driver};
use mlsched_kernel::log::{LogSink, VecSink};
use mlsched_kernel::model::oasis::{OasisJob, OasisScenario, PriceBounds, Utility};
use mlsched_kernel::oasis::{OasisDecision, OasisScheduler};
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
        throughput: None,
    }
}

fn main() {
    let scn = scenario(42);
    // Built once: every buffer a decision needs is allocated here.
    let sched = OasisScheduler::new(&scn).expect("scenario fits the build's limits");
    let mut driver = Driver::new(sched);
    let order = driver.scheduler().arrival_order();
    let mut sink = VecSink::new();
    let mut show = |d: &OasisDecision<'_>| {
        match d {
        OasisDecision::Decision(d) => match d.completion_slot.filter(|_| d.admitted) {
            Some(t) => println!(
                "slot {:>2}: job {} admitted, completes in slot {t}, utility {:.2} - cost {:.2} = payoff {:.2}",
                d.arrival, d.job, d.utility, d.cost, d.payoff
            ),
            None => println!("slot {:>2}: job {} rejected: {}", d.arrival, d.job, d.reason.text()),
        },
        OasisDecision::Slot(sp) => println!(
            "          slot {:>2}: {} chunks, workers {:?}, ps {:?}, cost {:.3}",
            sp.slot, sp.chunks, sp.workers, sp.ps, sp.cost
        ),
    }
    };
    let arrival = |k: usize| order.get(k).map(|&i| scn.jobs[i as usize].arrival);
    let earliest = |a: Option<u32>, b: Option<u32>| a.into_iter().chain(b).min();
    let mut next = 0;
    let mut t = earliest(arrival(0), driver.scheduler().next_wakeup(None));
    while let Some(now) = t {
        // The documented order: this slot's arrivals (arrival, index), then SlotAdvanced;
        // the next slot is the next arrival or the scheduler's next wake-up.
        while let Some(&idx) = order.get(next).filter(|_| arrival(next) == Some(now)) {
            next += 1;
            driver
                .on_event(now, Event::JobArrived(idx), &mut sink, &mut show)
                .expect("job fed at its arrival");
        }
        driver
            .on_event(now, Event::SlotAdvanced, &mut sink, &mut show)
            .expect("time moves forward");
        t = earliest(arrival(next), driver.scheduler().next_wakeup(Some(now)));
    }
    driver.finish(&mut sink, &mut show).expect("finished");
    println!("decision log hash {}", sink.hash().hex());

    // The same scenario through `Driver::run`: the same log, byte for byte.
    let mut again = VecSink::new();
    Driver::new(OasisScheduler::new(&scn).expect("builds"))
        .run(
            &arrival_order(scn.jobs.iter().map(|j| j.arrival)),
            &mut again,
            &mut |_: &OasisDecision<'_>| {},
        )
        .expect("runs");
    assert_eq!(again.records, sink.records);
    assert_eq!(again.hash(), sink.hash());
}
