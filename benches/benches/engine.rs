//! The engine façade against the kernel's driver, per bundled scenario: the same run
//! (a) through `Driver::run` on the kernel scheduler alone (the floor), (b) through
//! `run_doc` (the façade fed the scenario's own arrivals, result document built: what `mlsched
//! run` does), and (c) event by event through `Engine::feed` with every decision turned into
//! JSON (what a control plane, the wasm `Engine` and the bindings do). Same group per scenario,
//! so the report shows the façade's cost as a ratio to the driver.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use mlsched_kernel::api::Event;
use mlsched_kernel::driver::{arrival_order, Driver};
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::engine::{Engine, Kind, Oasis, Online, Placement, Preempt, Route};
use mlsched_scenario::run::{run_doc, RunOptions};

/// The kernel-only run of the kind's own algorithm (the floor the façade is measured against):
/// each kind builds its kernel scheduler from its validated document and runs the driver.
trait DriverOnly: Kind {
    /// Runs the kind's algorithm alone into `sink`; `None` when the document or the scheduler
    /// is refused.
    fn driver_only(d: &Self::Doc, sink: &mut HashSink) -> Option<()>;
}

/// Runs `s` on `order` through the kernel's driver.
fn drive<S: mlsched_kernel::api::Scheduler<Job = u32>>(
    s: S,
    order: &[(u32, u32)],
    sink: &mut HashSink,
) -> Option<()> {
    Driver::new(s).run(order, sink, &mut |_: &_| {}).ok()?;
    Some(())
}

impl DriverOnly for Oasis {
    fn driver_only(x: &Self::Doc, sink: &mut HashSink) -> Option<()> {
        let scn = x.validate().ok()?;
        let order = arrival_order(scn.jobs.iter().map(|j| j.arrival));
        let s = mlsched_kernel::oasis::OasisScheduler::new(&scn).ok()?;
        drive(s, &order, sink)
    }
}

impl DriverOnly for Online {
    fn driver_only(x: &Self::Doc, sink: &mut HashSink) -> Option<()> {
        let scn = x.validate().ok()?;
        let order = arrival_order(scn.jobs.iter().map(|j| j.arrival));
        let s = mlsched_kernel::online::OnlineScheduler::new(
            &scn,
            mlsched_kernel::online::Search::Fast,
        )
        .ok()?;
        drive(s, &order, sink)
    }
}

impl DriverOnly for Preempt {
    fn driver_only(x: &Self::Doc, sink: &mut HashSink) -> Option<()> {
        let scn = x.validate().ok()?;
        let order = arrival_order(scn.jobs.iter().map(|j| j.arrival));
        let s = mlsched_kernel::preempt::PreemptScheduler::new(
            &scn,
            mlsched_kernel::preempt::Policy::Greedy,
        )
        .ok()?;
        drive(s, &order, sink)
    }
}

impl DriverOnly for Route {
    fn driver_only(x: &Self::Doc, sink: &mut HashSink) -> Option<()> {
        let scn = x.validate().ok()?;
        let order = arrival_order(scn.jobs.iter().map(|j| j.release));
        let s =
            mlsched_kernel::route::RouteScheduler::new(&scn, mlsched_kernel::route::Policy::Csrp)
                .ok()?;
        drive(s, &order, sink)
    }
}

impl DriverOnly for Placement {
    fn driver_only(x: &Self::Doc, sink: &mut HashSink) -> Option<()> {
        let scn = x.validate().ok()?;
        let p = mlsched_kernel::placement::Placer::new(&scn).ok()?;
        let s = mlsched_kernel::placement::PlacementScheduler::new(p, scn.method);
        let order: Vec<(u32, u32)> = (0..scn.jobs.len() as u32).map(|j| (0, j)).collect();
        drive(s, &order, sink)
    }
}

/// [`DriverOnly`] of `d`: the records its kernel-only run logs.
fn driver_only(d: &ScenarioDoc) -> Option<u64> {
    let mut sink = HashSink::new();
    mlsched_scenario::dispatch!(d, x, K => K::driver_only(x, &mut sink))?;
    Some(sink.hash().records())
}

/// Event by event through the façade, every decision as JSON.
fn events(text: &str, opts: &RunOptions) -> usize {
    let mut e = Engine::new(text, opts).expect("builds");
    let order = e.arrival_order().to_vec();
    let mut n = 0usize;
    let mut next = 0usize;
    let mut t = match (order.first().map(|a| a.0), e.next_wakeup()) {
        (Some(a), Some(w)) => Some(a.min(w)),
        (a, w) => a.or(w),
    };
    while let Some(now) = t {
        while let Some(&(_, j)) = order.get(next).filter(|a| a.0 <= now) {
            n += e.feed(now, Event::JobArrived(j)).expect("event").len();
            next += 1;
        }
        n += e.feed(now, Event::SlotAdvanced).expect("event").len();
        let wake = e.next_wakeup().map(|w| w.max(now + 1));
        let arr = order.get(next).map(|a| a.0.max(now));
        t = match (arr, wake) {
            (Some(a), Some(w)) => Some(a.min(w)),
            (a, w) => a.or(w),
        };
    }
    e.finish(&mut |_| {}).expect("finishes");
    n
}

fn facade(c: &mut Criterion) {
    let opts = RunOptions::default();
    for (name, text) in SCENARIOS {
        let d = doc::parse(text).expect("bundled scenario parses");
        if driver_only(&d).is_none() {
            continue;
        }
        let mut g = c.benchmark_group(format!("engine/{name}"));
        g.bench_function("driver", |b| b.iter(|| black_box(driver_only(&d))));
        g.bench_function("run_doc", |b| {
            b.iter(|| black_box(run_doc(&d, &opts, &mut HashSink::new()).is_ok()))
        });
        g.bench_function("events_json", |b| b.iter(|| black_box(events(text, &opts))));
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = facade
}
criterion_main!(benches);
