//! The engine façade (`mlsched_scenario::engine::Engine`): every kind and every policy, driven
//! from events alone by a host loop, gives the result document and the log of `mlsched run`
//! byte for byte; snapshots taken anywhere restore to the same run; bad events are typed errors
//! naming the field.
use mlsched_kernel::api::Event;
use mlsched_kernel::log::{HashSink, LogSink, VecSink};
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::doc;
use mlsched_scenario::engine::{Decision, Engine};
use mlsched_scenario::run::{policies, run_doc, run_json, RunOptions};
use mlsched_scenario::RunError;

fn opts(k: usize, policy: &str) -> RunOptions {
    RunOptions {
        policy: (k > 0).then(|| policy.to_string()),
        all_categories: false,
    }
}

/// A host's control loop: only `on_event`, with the slots the host computes from the
/// scenario's arrivals and the engine's wake-ups; stops after `limit` events (`None`: all).
fn drive<L: LogSink>(
    e: &mut Engine<L>,
    limit: Option<usize>,
    decisions: &mut Vec<Decision>,
) -> Result<bool, RunError> {
    let order = e.arrival_order().to_vec();
    let mut fed = 0usize;
    let mut next = 0usize;
    let mut t = match (order.first().map(|a| a.0), e.next_wakeup()) {
        (Some(a), Some(w)) => Some(a.min(w)),
        (a, w) => a.or(w),
    };
    while let Some(now) = t {
        while let Some(&(_, j)) = order.get(next).filter(|a| a.0 <= now) {
            if limit.is_some_and(|l| fed >= l) {
                return Ok(false);
            }
            e.on_event(now, Event::JobArrived(j), &mut |d| decisions.push(d))?;
            fed += 1;
            next += 1;
        }
        if limit.is_some_and(|l| fed >= l) {
            return Ok(false);
        }
        e.on_event(now, Event::SlotAdvanced, &mut |d| decisions.push(d))?;
        fed += 1;
        let wake = e.next_wakeup().map(|w| w.max(now + 1));
        let arr = order.get(next).map(|a| a.0.max(now));
        t = match (arr, wake) {
            (Some(a), Some(w)) => Some(a.min(w)),
            (a, w) => a.or(w),
        };
    }
    Ok(true)
}

#[test]
fn every_kind_and_policy_through_the_facade_equals_mlsched_run() {
    let mut checked = 0;
    for (name, text) in SCENARIOS {
        let kind = doc::parse(text).unwrap().kind();
        for (k, policy) in policies(kind).iter().enumerate() {
            let o = opts(k, policy);
            let d = doc::parse(text).unwrap();
            let mut cli = VecSink::new();
            let want = run_doc(&d, &o, &mut cli);
            let mut e = match Engine::with_sink(text, &o, VecSink::new()) {
                Ok(e) => e,
                Err(err) => {
                    assert_eq!(want.unwrap_err(), err, "{name} {policy}");
                    continue;
                }
            };
            let mut decisions = Vec::new();
            let got = drive(&mut e, None, &mut decisions)
                .and_then(|_| e.finish(&mut |d| decisions.push(d)));
            match (want, got) {
                (Ok(w), Ok(g)) => {
                    assert_eq!(
                        w.to_json(),
                        g.to_json(),
                        "{name} {policy}: result documents"
                    );
                    assert_eq!(
                        run_json(text, &o).unwrap(),
                        g.to_json(),
                        "{name} {policy}: run_json"
                    );
                    assert!(
                        e.sink().records == cli.records,
                        "{name} {policy}: logs differ"
                    );
                    assert_eq!(e.sink().hash().hex().as_str(), g.log_hash());
                    assert!(!decisions.is_empty(), "{name} {policy}: no decisions");
                    assert!(decisions
                        .iter()
                        .all(|d| d.record.contains('.') && !d.data.is_null()));
                    checked += 1;
                }
                (Err(w), Err(g)) => assert_eq!(w, g, "{name} {policy}"),
                (w, g) => panic!(
                    "{name} {policy}: run {:?} but façade {:?}",
                    w.err(),
                    g.err()
                ),
            }
        }
    }
    assert!(checked >= 25, "only {checked} runs compared");
}

#[test]
fn snapshots_restore_to_the_same_run_at_every_cut() {
    let mut cuts = 0;
    for (name, text) in SCENARIOS {
        let kind = doc::parse(text).unwrap().kind();
        for (k, policy) in policies(kind).iter().enumerate() {
            let o = opts(k, policy);
            let Ok(want) = run_json(text, &o) else {
                continue;
            };
            // The number of events of the whole run.
            let mut full = Engine::new(text, &o).unwrap();
            let mut sink = Vec::new();
            drive(&mut full, None, &mut sink).unwrap();
            let events = full.snapshot().len();
            let _ = events;
            for cut in [0usize, 1, 2, 3, 5, 8, 13, 40] {
                let mut e = Engine::new(text, &o).unwrap();
                let mut ds = Vec::new();
                let done = drive(&mut e, Some(cut), &mut ds).unwrap();
                let snap = e.snapshot();
                let mut r = Engine::restore(text, &o, HashSink::new(), &snap).unwrap();
                assert_eq!(r.now(), e.now(), "{name} {policy} cut {cut}");
                let res = r.run_to_end(&mut |_| {}).unwrap();
                assert_eq!(res.to_json(), want, "{name} {policy} cut {cut}");
                cuts += 1;
                if done {
                    break;
                }
            }
        }
    }
    assert!(cuts >= 60, "only {cuts} cuts");
}

#[test]
fn a_snapshot_of_another_scenario_or_corrupted_is_refused() {
    let (_, a) = SCENARIOS[0];
    let (_, b) = SCENARIOS[1];
    let o = RunOptions::default();
    let mut e = Engine::new(a, &o).unwrap();
    e.run_to_end(&mut |_| {}).unwrap();
    let snap = e.snapshot();
    let err = Engine::restore(b, &o, HashSink::new(), &snap)
        .err()
        .unwrap();
    assert!(err.to_string().contains("fingerprint"), "{err}");
    let mut bad = snap.clone();
    bad[5] ^= 1;
    let err = Engine::restore(a, &o, HashSink::new(), &bad).err().unwrap();
    assert!(err.to_string().contains("checksum"), "{err}");
    let err = Engine::restore(a, &o, HashSink::new(), &snap[..3])
        .err()
        .unwrap();
    assert_eq!(err.exit_code(), 2, "{err}");
    // A finished engine restores finished: its result, and no more events.
    let mut r = Engine::restore(a, &o, HashSink::new(), &snap).unwrap();
    assert!(r.result().is_some());
    assert!(r.feed(1_000_000, Event::SlotAdvanced).is_err());
}

#[test]
fn bad_events_are_typed_errors_naming_the_field() {
    let text = SCENARIOS
        .iter()
        .find(|(n, _)| *n == "online-ps-small")
        .unwrap()
        .1;
    let o = RunOptions::default();
    let mut e = Engine::new(text, &o).unwrap();
    let (a, j) = e.arrival_order()[0];
    let n = e.jobs();
    let field = |r: Result<Vec<Decision>, RunError>| match r {
        Err(RunError::Input(i)) => i.field,
        other => panic!("expected an input error, got {other:?}"),
    };
    assert_eq!(field(e.feed(a, Event::JobArrived(n))), "job");
    assert_eq!(field(e.feed(a, Event::JobFinished(j))), "job");
    if a > 0 {
        assert_eq!(field(e.feed(a - 1, Event::JobArrived(j))), "now");
    }
    e.feed(a, Event::JobArrived(j)).unwrap();
    assert_eq!(field(e.feed(a, Event::JobArrived(j))), "job");
    e.feed(a + 1, Event::SlotAdvanced).unwrap();
    assert_eq!(field(e.feed(a, Event::SlotAdvanced)), "now");
    e.finish(&mut |_| {}).unwrap();
    assert_eq!(field(e.feed(a + 2, Event::SlotAdvanced)), "event");
}
