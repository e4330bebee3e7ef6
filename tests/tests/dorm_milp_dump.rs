//! Dumps every Dorm event of the OASiS experiment's scenarios for the external MILP probe
//! (`scripts/dorm-milp-probe.py`, `docs/oasis.md` "Proving optimality"). Ignored: run it with
//! `DORM_DUMP_DIR=DIR DORM_DUMP_SEEDS=1,2 DORM_DUMP_JOBS=10 DORM_DUMP_NODES=5 cargo test -p
//! mlsched-tests --test dorm_milp_dump -- --ignored`. Per seed and setting (`p` paper, `f`
//! feasible: E_i / 10 rounded up, as `scripts/exp-oasis.py`) it writes the scenario
//! (`DIR/p-J-N-S.json`) and one line per event (`.jsonl`): the slot, whether Dorm proved it
//! optimal, its nodes, and per active job [index, hi_j, old count, f_j, Dorm's count].
use mlsched_kernel::baseline::oasis::OasisBaseline;
use mlsched_kernel::baseline::Policy;
use mlsched_kernel::log::HashSink;
use mlsched_lab::gen::{generate_json, GenOptions};
use mlsched_scenario::doc::{self, ScenarioDoc};
use serde_json::{json, Value};
use std::io::Write;

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("set {name}"))
}

#[test]
#[ignore]
fn dump_dorm_events() {
    let dir = var("DORM_DUMP_DIR");
    let jobs: u32 = var("DORM_DUMP_JOBS").parse().unwrap();
    let nodes: u32 = var("DORM_DUMP_NODES").parse().unwrap();
    for seed in var("DORM_DUMP_SEEDS").split(',') {
        let seed: u64 = seed.parse().unwrap();
        for feasible in [false, true] {
            let opts = GenOptions {
                seed,
                jobs: Some(jobs),
                nodes: Some(nodes),
                ..GenOptions::default()
            };
            let mut d: Value =
                serde_json::from_str(&generate_json("oasis", &opts).unwrap()).unwrap();
            if feasible {
                for j in d["jobs"].as_array_mut().unwrap() {
                    let e = j["epochs"].as_f64().unwrap();
                    j["epochs"] = json!((e / 10.0).ceil().max(1.0));
                }
            }
            let tag = if feasible { "f" } else { "p" };
            let name = format!("{dir}/{tag}-{jobs}-{nodes}-{seed}");
            std::fs::write(format!("{name}.json"), d.to_string()).unwrap();
            let scn = match doc::parse(&d.to_string()).unwrap() {
                ScenarioDoc::Oasis(o) => o.validate().unwrap(),
                _ => unreachable!(),
            };
            let mut r = OasisBaseline::new(Policy::Dorm, &scn).unwrap();
            let mut sink = HashSink::new();
            let mut f = std::fs::File::create(format!("{name}.jsonl")).unwrap();
            let mut last = r.dorm_stats();
            for t in 0..scn.slots {
                r.step(t, &mut sink, &mut |_| {}).unwrap();
                let st = r.dorm_stats();
                if st.events > last.events {
                    let ev = r.dorm_last_event();
                    let x = r.dorm_allocation();
                    let rows: Vec<Value> = ev
                        .active
                        .iter()
                        .map(|&j| {
                            let j = j as usize;
                            json!([j, ev.hi[j], ev.old[j], ev.fair[j], x[j]])
                        })
                        .collect();
                    let line = json!({"t": t, "optimal": st.optimal > last.optimal,
                        "nodes": st.nodes - last.nodes, "jobs": rows});
                    writeln!(f, "{line}").unwrap();
                }
                last = st;
            }
        }
    }
}
