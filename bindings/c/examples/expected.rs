//! Writes what the C test (`bindings/c/tests/c/test.c`) compares against, into the folder given
//! as the first argument: for every bundled scenario `<name>.scenario.json` (its text),
//! `<name>.arrivals` (`slot job` lines in the order a run feeds them) and, for every policy of
//! its kind, `<name>.<policy>.json` (`run_json`'s bytes, or the error message); then `cases.txt`
//! with one `name policy code` line per run. For the open-world events: `events.scenario.json`
//! and `events.jsonl` (the bindings' sample, `bindings/events/`), `events.result.json` (the
//! bytes of `mlsched run --events`) and `events.fed.jsonl`, the same run as one host event per
//! line (the scenario's arrivals as `arrive` events, in the order a run feeds them) for
//! `mlsched_engine_event`, followed by `mlsched_engine_run_to_end`.
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::event::{self, Feeder, HostEvent};
use mlsched_scenario::run::{policies, run_json, RunOptions};
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: expected DIR")?);
    std::fs::create_dir_all(&dir)?;
    let mut cases = String::new();
    for (name, text) in SCENARIOS {
        std::fs::write(dir.join(format!("{name}.scenario.json")), text)?;
        let e = Engine::new(text, &RunOptions::default())?;
        let arrivals: String = e
            .arrival_order()
            .iter()
            .map(|(s, j)| format!("{s} {j}\n"))
            .collect();
        std::fs::write(dir.join(format!("{name}.arrivals")), arrivals)?;
        for policy in policies(e.kind()) {
            let opts = RunOptions {
                policy: Some(policy.to_string()),
                all_categories: false,
            };
            let (code, bytes) = match run_json(text, &opts) {
                Ok(s) => (0, s),
                Err(e) => (e.exit_code(), e.to_string()),
            };
            std::fs::write(dir.join(format!("{name}.{policy}.json")), bytes)?;
            writeln!(cases, "{name} {policy} {code}")?;
        }
    }
    std::fs::write(dir.join("cases.txt"), cases)?;
    events(&dir)
}

/// The sample scenario and host events of every binding (`bindings/events/README.md`).
const EVENTS_SCENARIO: &str = include_str!("../../../scenarios/online-ps-small.json");
const EVENTS: &str = include_str!("../../events/online-ps-small.jsonl");

fn events(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let evs = event::parse_lines(EVENTS)?;
    let opts = RunOptions::default();
    let result = Engine::new(EVENTS_SCENARIO, &opts)?.run_events(&evs, &mut |_| {})?;
    std::fs::write(dir.join("events.scenario.json"), EVENTS_SCENARIO)?;
    std::fs::write(dir.join("events.jsonl"), EVENTS)?;
    std::fs::write(dir.join("events.result.json"), result.to_json())?;
    let fed = fed(EVENTS_SCENARIO, &evs)?;
    // The host-event form of the run gives the same bytes (what the C test relies on).
    let mut e = Engine::new(EVENTS_SCENARIO, &opts)?;
    for ev in &fed {
        Feeder::new(&e).apply(&mut e, ev, None)?;
    }
    let again = e.run_to_end(&mut |_| {})?;
    if again.to_json() != result.to_json() {
        return Err("the host-event form of the sample run gives other bytes".into());
    }
    let lines: String = fed.iter().map(|e| e.to_json() + "\n").collect();
    std::fs::write(dir.join("events.fed.jsonl"), lines)?;
    Ok(())
}

/// `evs` with the scenario's arrivals as `arrive` events, per slot after the other events of the
/// slot (the order of `Engine::run_events`; the sample has no submissions).
fn fed(scenario: &str, evs: &[HostEvent]) -> Result<Vec<HostEvent>, Box<dyn std::error::Error>> {
    let e = Engine::new(scenario, &RunOptions::default())?;
    let mut arrivals = e.arrival_order().iter().peekable();
    let mut out = Vec::new();
    for ev in evs {
        while let Some(&&(s, j)) = arrivals.peek().filter(|a| a.0 < ev.at()) {
            let job = e.job_id(j).ok_or("no job id")?.to_string();
            out.push(HostEvent::Arrive { at: s, job });
            arrivals.next();
        }
        out.push(ev.clone());
    }
    for &(s, j) in arrivals {
        let job = e.job_id(j).ok_or("no job id")?.to_string();
        out.push(HostEvent::Arrive { at: s, job });
    }
    Ok(out)
}
