//! One contract, one driver: every kind and every policy (algorithm and baselines) driven from
//! events alone — a hand-written control loop feeding `Driver::on_event` in the documented
//! order (per slot: arrivals in (arrival, index) order, then `SlotAdvanced`; next slot =
//! min(next arrival, `next_wakeup`); then `finish`) — writes the same log as the CLI
//! (`run_doc` with a `VecSink`, what `mlsched run --log` writes): byte-identical records
//! (events and decisions) and the same `log_hash`, for every bundled scenario.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::baseline::oasis::OasisBaseline;
use mlsched_kernel::baseline::online::OnlineBaseline;
use mlsched_kernel::driver::Driver;
use mlsched_kernel::log::{is_event_tag, LogSink, VecSink};
use mlsched_kernel::oasis::OasisScheduler;
use mlsched_kernel::online::{OnlineScheduler, Search};
use mlsched_kernel::placement::{PlacementScheduler, Placer};
use mlsched_kernel::{preempt, route};
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_scenario::run::{policies, run_doc, RunOptions};

fn earliest(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    a.into_iter().chain(b).min()
}

/// The control loop of a host: no `Driver::run`, only events.
/// `None` when the scheduler refuses an event (the CLI reports the same run as an error).
fn drive<S: Scheduler<Job = u32>>(sched: S, arrivals: &[u32]) -> Option<VecSink> {
    let mut order: Vec<(u32, u32)> = arrivals
        .iter()
        .enumerate()
        .map(|(j, &a)| (a, j as u32))
        .collect();
    order.sort();
    let mut d = Driver::new(sched);
    let mut sink = VecSink::new();
    let mut next = 0;
    let mut t = earliest(order.first().map(|a| a.0), d.scheduler().next_wakeup(None));
    while let Some(now) = t {
        while let Some(&(_, j)) = order.get(next).filter(|a| a.0 == now) {
            d.on_event(
                now,
                Event::JobArrived(j),
                &mut sink,
                &mut |_: &S::Decision<'_>| {},
            )
            .ok()?;
            next += 1;
        }
        d.on_event(
            now,
            Event::SlotAdvanced,
            &mut sink,
            &mut |_: &S::Decision<'_>| {},
        )
        .ok()?;
        let wake = d.scheduler().next_wakeup(Some(now)).map(|w| w.max(now + 1));
        t = earliest(order.get(next).map(|a| a.0), wake);
    }
    d.finish(&mut sink, &mut |_: &S::Decision<'_>| {}).ok()?;
    Some(sink)
}

/// The events-only run of `doc` under `policy`, or `None` for a scenario the kernel refuses.
fn events_only(doc: &ScenarioDoc, policy: &str, literal: bool) -> Option<VecSink> {
    match doc {
        ScenarioDoc::Oasis(d) => {
            let scn = d.validate().ok()?;
            let arr: Vec<u32> = scn.jobs.iter().map(|j| j.arrival).collect();
            match mlsched_scenario::kinds::baseline::policy_from_name(policy) {
                None => drive(OasisScheduler::new(&scn).ok()?, &arr),
                Some(p) => drive(OasisBaseline::new(p, &scn).ok()?, &arr),
            }
        }
        ScenarioDoc::Online(d) => {
            let scn = d.validate().ok()?;
            let arr: Vec<u32> = scn.jobs.iter().map(|j| j.arrival).collect();
            let mode = if literal {
                Search::Reference
            } else {
                Search::Fast
            };
            match mlsched_scenario::kinds::baseline::policy_from_name(policy) {
                None => drive(OnlineScheduler::new(&scn, mode).ok()?, &arr),
                Some(p) => drive(OnlineBaseline::new(p, &scn).ok()?, &arr),
            }
        }
        ScenarioDoc::Placement(d) => {
            let scn = d.validate().ok()?;
            let method = mlsched_scenario::kinds::placement::exec::METHODS
                .iter()
                .find(|(n, _)| *n == policy)
                .map_or(scn.method, |(_, m)| *m);
            let arr = vec![0; scn.jobs.len()];
            drive(
                PlacementScheduler::new(Placer::new(&scn).ok()?, method),
                &arr,
            )
        }
        ScenarioDoc::Preempt(d) => {
            let scn = d.validate().ok()?;
            let p = match policy {
                "all-cloud" => preempt::Policy::AllCloud,
                "edge-fifo" => preempt::Policy::EdgeFifo,
                "random" => preempt::Policy::Random,
                _ => preempt::Policy::Greedy,
            };
            let arr: Vec<u32> = scn.jobs.iter().map(|j| j.arrival).collect();
            drive(preempt::PreemptScheduler::new(&scn, p).ok()?, &arr)
        }
        ScenarioDoc::Route(d) => {
            let scn = d.validate().ok()?;
            let p = match policy {
                "fifo" => route::Policy::Fifo,
                "fair" => route::Policy::Fair,
                "capacity" => route::Policy::Capacity,
                "deadline" => route::Policy::Deadline,
                "deadline-preemptive" => route::Policy::DeadlinePreemptive,
                _ => route::Policy::Csrp,
            };
            let arr: Vec<u32> = scn.jobs.iter().map(|j| j.release).collect();
            drive(route::RouteScheduler::new(&scn, p).ok()?, &arr)
        }
    }
}

#[test]
fn every_kind_and_policy_from_events_alone_logs_what_the_cli_logs() {
    let mut checked = 0;
    for (name, text) in SCENARIOS {
        let d = doc::parse(text).unwrap();
        let kind = match &d {
            ScenarioDoc::Oasis(_) => "oasis",
            ScenarioDoc::Online(_) => "online",
            ScenarioDoc::Placement(_) => "placement",
            ScenarioDoc::Preempt(_) => "preempt",
            ScenarioDoc::Route(_) => "route",
        };
        for (k, policy) in policies(kind).iter().enumerate() {
            let opts = RunOptions {
                policy: (k > 0).then(|| policy.to_string()),
                all_categories: false,
            };
            let mut cli = VecSink::new();
            let result = run_doc(&d, &opts, &mut cli);
            let literal_too = kind == "online" && k == 0;
            for literal in [false, true].into_iter().take(1 + literal_too as usize) {
                let events = events_only(&d, policy, literal);
                match (&result, events) {
                    (Ok(r), Some(ev)) => {
                        assert_eq!(ev.hash(), cli.hash(), "{name} {policy} literal {literal}");
                        assert_eq!(r.log_hash(), ev.hash().hex().as_str(), "{name} {policy}");
                        assert!(
                            ev.records == cli.records,
                            "{name} {policy} literal {literal}: logs differ"
                        );
                        assert!(
                            ev.records.iter().any(|(t, _)| is_event_tag(*t)),
                            "{name} {policy}: no event records"
                        );
                        checked += 1;
                    }
                    (Err(_), None) => {}
                    (Err(e), Some(_)) => {
                        // The CLI refused at validation or a later kernel error: the events
                        // path must not have produced a complete run silently.
                        panic!("{name} {policy}: CLI failed ({e}) but events ran")
                    }
                    (Ok(_), None) => panic!("{name} {policy}: events path refused"),
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} runs compared");
}

#[test]
fn the_log_file_holds_the_events_and_replays() {
    for (name, text) in SCENARIOS {
        let Ok((_, log)) = mlsched_scenario::replay::record(text, &RunOptions::default()) else {
            continue;
        };
        let mut r = mlsched_kernel::logfile::LogReader::open(&log).unwrap();
        let (mut events, mut decisions) = (0u64, 0u64);
        while let Some(rec) = r.next_record().unwrap() {
            if rec.is_event() {
                events += 1;
            } else {
                decisions += 1;
            }
        }
        assert!(events > 0, "{name}: no events in the log");
        assert_eq!(r.hash().records(), decisions, "{name}");
        assert_eq!(r.frames(), events + decisions, "{name}");
        mlsched_scenario::replay::replay(&log).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
