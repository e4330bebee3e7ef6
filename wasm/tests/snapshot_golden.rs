//! Golden snapshot bytes: each algorithm's scheduler is driven half-way through a bundled
//! scenario (the HAS/JPS placer through its whole run) and snapshotted
//! ([`mlsched_kernel::snapshot::Snapshot`]); the `(bytes, hash)` of every snapshot must equal
//! the pair recorded natively in `tests/golden/snapshots.json`. Runs natively and, under
//! wasm-bindgen-test-runner, on wasm32 — where `usize` is 32 bits, so a `usize` that crept
//! back into a snapshot body (or any target-dependent encoding) shows up as a mismatch.
//!
//! Re-record deliberately (after an intended change of a snapshot layout, with a bump of
//! `SNAPSHOT_FORMAT_VERSION`) with
//! `MLSCHED_RECORD_GOLDEN=1 cargo test -p mlsched-wasm --test snapshot_golden`, and commit
//! `tests/golden/snapshots.json`.
use mlsched_kernel::api::{Event, Scheduler};
use mlsched_kernel::log::{HashSink, LogHash};
use mlsched_kernel::oasis::OasisScheduler;
use mlsched_kernel::online::{OnlineScheduler, Search};
use mlsched_kernel::placement::Placer;
use mlsched_kernel::preempt::{Policy, PreemptScheduler};
use mlsched_kernel::route::{self, RouteScheduler};
use mlsched_kernel::snapshot::Snapshot;
use mlsched_scenario::doc::{self, ScenarioDoc};
use std::collections::BTreeMap;

const GOLDEN: &str = include_str!("../../tests/golden/snapshots.json");
const RERECORD: &str = "MLSCHED_RECORD_GOLDEN=1 cargo test -p mlsched-wasm --test snapshot_golden";

/// Bundled scenarios of the corpus (small ones: the wasm32 run is a debug build under node).
const CORPUS: [&str; 8] = [
    "oasis-small",
    "online-ps-small",
    "online-ring-small",
    "placement-gavel",
    "placement-jps",
    "placement-table2",
    "preempt-small",
    "route-small",
];

fn text(name: &str) -> &'static str {
    mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("no bundled scenario {name}"))
}

/// `order` (job indices) by key, ties by index.
fn sorted(n: usize, key: impl Fn(u32) -> u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    v.sort_by_key(|&j| (key(j), j));
    v
}

/// Feeds `events` (slot, event) until half of them have run.
fn half<S: Scheduler<Job = u32>>(s: &mut S, events: &[(u32, Event<u32>)])
where
    S::Error: core::fmt::Debug,
{
    for &(t, ev) in &events[..events.len() / 2] {
        s.on_event(t, ev, &mut |_| {}).unwrap();
    }
}

/// Arrivals (in `order`) and a `SlotAdvanced` per slot in `0..slots`, arrivals first.
fn slot_events(order: &[u32], arrival: impl Fn(u32) -> u32, slots: u32) -> Vec<(u32, Event<u32>)> {
    let mut ev = Vec::new();
    let mut next = 0;
    for t in 0..slots {
        while let Some(&j) = order.get(next) {
            if arrival(j) != t {
                break;
            }
            ev.push((t, Event::JobArrived(j)));
            next += 1;
        }
        ev.push((t, Event::SlotAdvanced));
    }
    ev
}

/// The snapshot of `name`'s scheduler half-way through its run.
fn snapshot_of(name: &str) -> Vec<u8> {
    match doc::parse(text(name)).unwrap() {
        ScenarioDoc::Oasis(d) => {
            let scn = d.validate().unwrap();
            let mut s = OasisScheduler::new(&scn).unwrap();
            let order = s.arrival_order();
            let last = order
                .iter()
                .map(|&i| scn.jobs[i as usize].arrival)
                .max()
                .unwrap_or(0);
            let ev = slot_events(&order, |i| scn.jobs[i as usize].arrival, last + 1);
            half(&mut s, &ev);
            s.snapshot().unwrap()
        }
        ScenarioDoc::Online(d) => {
            let scn = d.validate().unwrap();
            let mut s = OnlineScheduler::new(&scn, Search::Fast).unwrap();
            let order = sorted(scn.jobs.len(), |j| scn.jobs[j as usize].arrival);
            // `online::run_scenario` advances the slot before its arrivals.
            let mut ev = Vec::new();
            let mut next = 0;
            for t in 0..scn.slots {
                ev.push((t, Event::SlotAdvanced));
                while let Some(&j) = order.get(next) {
                    if scn.jobs[j as usize].arrival != t {
                        break;
                    }
                    ev.push((t, Event::JobArrived(j)));
                    next += 1;
                }
            }
            half(&mut s, &ev);
            s.snapshot().unwrap()
        }
        ScenarioDoc::Preempt(d) => {
            let scn = d.validate().unwrap();
            let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
            let order = sorted(scn.jobs.len(), |j| scn.jobs[j as usize].arrival);
            let last = scn.jobs.iter().map(|j| j.arrival).max().unwrap_or(0);
            let ev = slot_events(&order, |j| scn.jobs[j as usize].arrival, 2 * last + 2);
            half(&mut s, &ev);
            s.snapshot().unwrap()
        }
        ScenarioDoc::Route(d) => {
            let scn = d.validate().unwrap();
            let mut r = RouteScheduler::new(&scn, route::Policy::Csrp).unwrap();
            let order = r.release_order().to_vec();
            let release = |i: usize| scn.jobs[order[i] as usize].release;
            // `RouteScheduler::run`'s loop: releases, then `SlotAdvanced`, at each event time; stops
            // once half of the jobs are released.
            let (mut next, mut t) = (0, release(0));
            while next < order.len() / 2 {
                while next < order.len() && release(next) <= t {
                    r.on_event(t, Event::JobArrived(order[next]), &mut |_| {})
                        .unwrap();
                    next += 1;
                }
                r.on_event(t, Event::SlotAdvanced, &mut |_| {}).unwrap();
                let mut nt = r.next_event().unwrap_or(u32::MAX);
                if next < order.len() {
                    nt = nt.min(release(next));
                }
                t = nt.max(t + 1);
            }
            r.snapshot().unwrap()
        }
        ScenarioDoc::Placement(d) => {
            let scn = d.validate().unwrap();
            let mut p = Placer::new(&scn).unwrap();
            p.run(scn.method, &mut HashSink::new(), |_| {}).unwrap();
            p.snapshot().unwrap()
        }
    }
}

/// `{name: {"bytes": n, "hash": "16 hex digits"}}` of the corpus in this build.
fn measured() -> BTreeMap<String, serde_json::Value> {
    CORPUS
        .iter()
        .map(|&name| {
            let b = snapshot_of(name);
            let mut h = LogHash::new();
            h.bytes(&b);
            let v = serde_json::json!({"bytes": b.len(), "hash": format!("{:016x}", h.value())});
            (name.to_string(), v)
        })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn snapshots_match_the_golden_bytes() {
    let got = measured();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("MLSCHED_RECORD_GOLDEN").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/golden/snapshots.json"
        );
        let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
        std::fs::write(path, text).unwrap();
        return;
    }
    let want: BTreeMap<String, serde_json::Value> = serde_json::from_str(GOLDEN).unwrap();
    for (name, g) in &got {
        assert_eq!(
            Some(g),
            want.get(name),
            "snapshot of {name} differs from tests/golden/snapshots.json \
             (re-record deliberately, with a snapshot version bump: {RERECORD})"
        );
    }
    assert_eq!(got.len(), want.len(), "corpus changed: {RERECORD}");
}
