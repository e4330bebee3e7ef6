//! A baseline slot decision (FIFO, DRF, LAS, Optimus; kinds "oasis" and "online") on a built
//! runner allocates nothing: a counting global allocator, armed only on this thread around each
//! `step`, must see zero allocations.
use mlsched_kernel::baseline::oasis::OasisBaseline;
use mlsched_kernel::baseline::online::OnlineBaseline;
use mlsched_kernel::baseline::Policy;
use mlsched_kernel::log::HashSink;
use mlsched_scenario::doc::{self, ScenarioDoc};
use mlsched_tests::alloc_count::{allocations, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn counted<F: FnOnce()>(f: F) -> u64 {
    allocations(f).1
}

fn bundled(name: &str) -> ScenarioDoc {
    let (_, text) = mlsched_scenario::bundled::SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("bundled");
    doc::parse(text).expect("parses")
}

#[test]
fn oasis_baseline_slots_allocate_nothing() {
    let ScenarioDoc::Oasis(d) = bundled("oasis-small") else {
        unreachable!()
    };
    let scn = d.validate().unwrap();
    // With and without the cost of preemption (docs/restart.md): its bookkeeping is sized
    // when the runner is built.
    let cost = mlsched_kernel::restart::RestartCost::slots(0.5).unwrap();
    for (p, restart) in Policy::OASIS
        .into_iter()
        .flat_map(|p| [(p, false), (p, true)])
    {
        let r = OasisBaseline::new(p, &scn).unwrap();
        let mut r = if restart { r.with_restart(cost) } else { r };
        let mut sink = HashSink::new();
        let mut units = 0u64;
        for t in 0..scn.slots {
            let n = counted(|| r.step(t, &mut sink, &mut |_| units += 1).unwrap());
            assert_eq!(n, 0, "{p:?} (restart {restart}) slot {t}");
        }
        assert!(units > 0, "{p:?} placed nothing");
    }
}

#[test]
fn online_baseline_slots_allocate_nothing() {
    for name in ["online-ps-small", "online-ring-small"] {
        let ScenarioDoc::Online(d) = bundled(name) else {
            unreachable!()
        };
        let scn = d.validate().unwrap();
        for p in Policy::ONLINE {
            let mut r = OnlineBaseline::new(p, &scn).unwrap();
            let mut sink = HashSink::new();
            for t in 0..scn.slots {
                let n = counted(|| r.step(t, &mut sink, &mut |_| {}).unwrap());
                assert_eq!(n, 0, "{name} {p:?} slot {t}");
            }
        }
    }
}

/// The same with the placement-aware speed-up table on (`import pollux`, docs/throughput.md):
/// the per-job server spans are scratch sized when the runner is built.
#[test]
fn baseline_slots_with_a_speedup_table_allocate_nothing() {
    use mlsched_lab::import::{import_json, ImportOptions, Source};
    for kind in ["oasis", "online"] {
        let o = ImportOptions {
            kind: kind.into(),
            data_dir: mlsched_tests::repo_root().join("data"),
            jobs: 30,
            servers: 4,
            slot_seconds: 600.0,
            slots: 60,
            ..ImportOptions::default()
        };
        let doc = doc::parse(&import_json(Source::Pollux, &o).unwrap()).unwrap();
        match doc {
            ScenarioDoc::Oasis(d) => {
                let scn = d.validate().unwrap();
                assert!(scn.throughput.is_some());
                for p in Policy::OASIS {
                    let mut r = OasisBaseline::new(p, &scn).unwrap();
                    let mut sink = HashSink::new();
                    for t in 0..scn.slots {
                        let n = counted(|| r.step(t, &mut sink, &mut |_| {}).unwrap());
                        assert_eq!(n, 0, "oasis {p:?} slot {t}");
                    }
                }
            }
            ScenarioDoc::Online(d) => {
                let scn = d.validate().unwrap();
                assert!(scn.throughput.is_some());
                for p in Policy::ONLINE {
                    let mut r = OnlineBaseline::new(p, &scn).unwrap();
                    let mut sink = HashSink::new();
                    for t in 0..scn.slots {
                        let n = counted(|| r.step(t, &mut sink, &mut |_| {}).unwrap());
                        assert_eq!(n, 0, "online {p:?} slot {t}");
                    }
                }
            }
            _ => unreachable!(),
        }
    }
}
