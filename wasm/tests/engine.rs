//! The event-driven engine behind the JS class `Engine` ([`mlsched_wasm::EventEngine`]): fed
//! event by event (arrivals in the scenario's order, slot advances at arrivals and wake-ups)
//! every bundled scenario gives `run`'s bytes; a snapshot taken half-way restores to the same
//! run; bad events are refused naming the field. Runs natively and, under
//! wasm-bindgen-test-runner, on wasm32 (`tests/wasm.rs` drives the JS class itself).
use mlsched_wasm::events::JobRef;
use mlsched_wasm::{run_scenario, EventEngine};

/// Drives `e` as a control plane would: per slot, the arrivals due, then `advance`; the next
/// slot is the earliest pending arrival or wake-up. Stops after `limit` advances (`None`: to
/// the end) and returns the number of decisions seen.
fn drive(e: &mut EventEngine, limit: Option<usize>) -> usize {
    let order = e.arrival_order();
    // After a restore: the arrivals up to `now` were fed, the next slot is after it.
    let after = e.now().map_or(0, |n| n + 1);
    let mut next = order
        .iter()
        .position(|a| e.now().is_none_or(|n| a.slot > n))
        .unwrap_or(order.len());
    let (mut seen, mut advances) = (0, 0);
    let wake = e.next_wakeup().map(|w| w.max(after));
    let mut t = match (order.get(next).map(|a| a.slot.max(after)), wake) {
        (Some(a), Some(w)) => Some(a.min(w)),
        (a, w) => a.or(w),
    };
    while let Some(now) = t {
        if limit.is_some_and(|l| advances >= l) {
            break;
        }
        while let Some(a) = order.get(next).filter(|a| a.slot <= now) {
            seen += e.arrive(JobRef::Index(a.job), now).unwrap().len();
            next += 1;
        }
        seen += e.advance(now).unwrap().len();
        advances += 1;
        let wake = e.next_wakeup().map(|w| w.max(now + 1));
        let arr = order.get(next).map(|a| a.slot.max(now + 1));
        t = match (arr, wake) {
            (Some(a), Some(w)) => Some(a.min(w)),
            (a, w) => a.or(w),
        };
    }
    seen
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn event_by_event_gives_run_bytes_on_every_bundled_scenario() {
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let Ok(want) = run_scenario(text, None, false) else {
            assert!(EventEngine::new(text, None).is_err(), "{name}");
            continue;
        };
        let mut e = EventEngine::new(text, None).unwrap();
        assert_eq!(e.now(), None);
        let seen = drive(&mut e, None);
        assert!(seen > 0, "{name}: decisions");
        assert_eq!(e.finish().unwrap(), want, "{name}");
        // Finished: later events are refused.
        assert!(
            e.advance(u32::MAX).unwrap_err().contains("finished"),
            "{name}"
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn snapshots_restore_half_way_and_finish_alike() {
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let Ok(want) = run_scenario(text, None, false) else {
            continue;
        };
        let mut e = EventEngine::new(text, None).unwrap();
        drive(&mut e, Some(2));
        let bytes = e.snapshot();
        // The engine's own policy name and the default restore alike.
        let policy = e.policy().to_string();
        for p in [None, Some(policy.as_str())] {
            let mut r = EventEngine::restore(text, p, &bytes).unwrap();
            assert_eq!(r.now(), e.now(), "{name}");
            assert_eq!(r.snapshot(), bytes, "{name}");
            drive(&mut r, None);
            assert_eq!(r.finish().unwrap(), want, "{name}: restored");
        }
        assert_eq!(e.run_to_end().unwrap(), want, "{name}: original");
        let other = mlsched_scenario::bundled::SCENARIOS
            .iter()
            .find(|(n, _)| n != name)
            .unwrap()
            .1;
        assert!(EventEngine::restore(other, None, &bytes).is_err(), "{name}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn jobs_by_id_and_bad_events() {
    let text = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == "oasis-small")
        .unwrap()
        .1;
    let mut e = EventEngine::new(text, None).unwrap();
    assert_eq!((e.kind(), e.policy(), e.jobs()), ("oasis", "oasis", 8));
    let id = e.job_id(0).unwrap().to_string();
    let first = e.arrival_order()[0];
    let d = e.arrive(JobRef::Id(&id), first.slot).unwrap();
    assert_eq!(d[0].record, "oasis.decision");
    assert_eq!(d[0].job, Some(0));
    let err = e.arrive(JobRef::Index(0), first.slot).unwrap_err();
    assert!(
        err.contains("job") && err.contains("already arrived"),
        "{err}"
    );
    let err = e.arrive(JobRef::Id("nope"), first.slot).unwrap_err();
    assert!(err.contains("job") && err.contains("nope"), "{err}");
    let err = e.arrive(JobRef::Index(99), first.slot).unwrap_err();
    assert!(err.contains("no job 99"), "{err}");
    e.advance(first.slot + 1).unwrap();
    let err = e.advance(first.slot).unwrap_err();
    assert!(err.contains("now"), "{err}");
    assert!(EventEngine::new(text, Some("nope")).is_err());
}
