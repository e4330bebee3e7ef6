//! Trace importers: readers on the real files of the bundled `data/` folder (read in place; a
//! missing folder is a failure), the documented mapping, determinism, and errors naming file/row/field.
use mlsched_lab::import::{
    import_json, read_gavel, read_openb_jobs, read_openb_nodes, read_pai_nodes, read_philly,
    ImportOptions, Source, TraceJob,
};
use mlsched_tests::data_dir as data;

#[test]
fn readers_see_every_documented_row() {
    let d = data();
    let philly =
        read_philly(&d.join("philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv")).unwrap();
    assert_eq!(philly.len(), 3794);
    assert_eq!(philly[0].duration, 66.0);
    assert_eq!(philly[0].workers, 1);
    // README: 1 GPU 3,677; 2: 42; 4: 38; 8: 28; 16: 9.
    assert_eq!(philly.iter().filter(|j| j.workers == 16).count(), 9);

    let openb =
        read_openb_jobs(&d.join("alibaba-openb-gpu-2023/openb_pod_list_default.csv")).unwrap();
    // README: num_gpu 1 -> 6,989, 2 -> 16, 4 -> 15, 8 -> 44 (CPU-only pods are not jobs).
    assert_eq!(openb.len(), 6989 + 16 + 15 + 44);
    assert_eq!(openb.iter().filter(|j| j.gpu < 1.0).count(), 3078);
    let big = ImportOptions {
        servers: mlsched_lab::import::ALL,
        ps_servers: mlsched_lab::import::ALL,
        ..ImportOptions::default()
    };
    let (w, p) = read_openb_nodes(
        &d.join("alibaba-openb-gpu-2023/openb_node_list_all_node.csv"),
        &big,
    )
    .unwrap();
    assert_eq!((w.len(), p.len()), (1523 - 310, 310));
    assert_eq!(w.iter().map(|s| s[0]).sum::<f64>(), 6212.0);
    let (w, p) =
        read_pai_nodes(&d.join("alibaba-pai-gpu-2020/pai_machine_spec.csv"), &big).unwrap();
    // The README says 1,896 rows, but its config counts sum to 1,897, as the file has.
    assert_eq!((w.len(), p.len()), (1897 - 83, 83));
    assert_eq!(w.iter().map(|s| s[0]).sum::<f64>(), 6742.0);
    let g = read_gavel(&d.join("gavel/throughputs_isolated.csv")).unwrap();
    assert_eq!(g.len(), 26);
    let r18 = g
        .iter()
        .find(|t| t.name == "ResNet-18 (batch size 16)")
        .unwrap();
    assert_eq!(r18.throughput[0], 4.795294551566172);
}

#[test]
fn oasis_mapping_preserves_gpu_time() {
    let d = data();
    let o = ImportOptions {
        data_dir: d,
        jobs: 50,
        start: Some(100),
        slot_seconds: 600.0,
        slots: 2000,
        ..ImportOptions::default()
    };
    let text = import_json(Source::Philly, &o).unwrap();
    assert_eq!(
        text,
        import_json(Source::Philly, &o).unwrap(),
        "deterministic"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let all = read_philly(
        &o.data_dir
            .join("philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv"),
    )
    .unwrap();
    let mut sorted = all.clone();
    sorted.sort_by(|a, b| a.submit.total_cmp(&b.submit));
    for (j, t) in v["jobs"].as_array().unwrap().iter().zip(&sorted[100..150]) {
        let d = (t.duration / 600.0).ceil().max(1.0);
        let g = t.workers as f64;
        let n = j["chunks"].as_f64().unwrap();
        assert_eq!(n, g * 2.0, "N_i = GPUs x max_scale");
        let e = j["epochs"].as_f64().unwrap();
        let m = j["minibatch_time"].as_f64().unwrap() + 2.0 * j["comm_time"].as_f64().unwrap();
        // E N m = g d worker-slots (up to the 6-digit rounding of tau and comm).
        assert!((e * n * m - g * d).abs() <= 1e-5 * e * n + 1e-9, "{j}");
        assert!(m <= 1.0 + 1e-9);
        assert_eq!(j["worker_demand"][0].as_f64().unwrap(), 1.0);
    }
    assert_eq!(v["worker_servers"].as_array().unwrap().len(), 8);
}

#[test]
fn every_source_builds_a_valid_scenario() {
    let d = data();
    for (src, kind) in [
        (Source::Philly, "oasis"),
        (Source::Openb, "oasis"),
        (Source::PaiNodes, "oasis"),
        (Source::Philly, "online"),
        (Source::Openb, "online"),
        (Source::Gavel, "online"),
    ] {
        let o = ImportOptions {
            kind: kind.into(),
            data_dir: d.clone(),
            jobs: 60,
            start: None,
            seed: 7,
            ..ImportOptions::default()
        };
        let text = import_json(src, &o).unwrap();
        let doc =
            mlsched_lab::compare::parse(&text).unwrap_or_else(|e| panic!("{src:?} {kind}: {e}"));
        assert_eq!(doc.kind(), kind);
    }
}

#[test]
fn bad_rows_name_file_row_and_field() {
    let dir = std::env::temp_dir().join(format!("mlsched-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("philly.csv");
    std::fs::write(
        &f,
        "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09 07:02:00,abc,1,1,a\n",
    )
    .unwrap();
    let e = read_philly(&f).unwrap_err().to_string();
    assert!(
        e.contains("philly.csv row 3") && e.contains("`duration`") && e.contains("abc"),
        "{e}"
    );
    std::fs::write(&f, "nope\n").unwrap();
    let e = read_philly(&f).unwrap_err().to_string();
    assert!(e.contains("row 1") && e.contains("header"), "{e}");
}

/// Every trace job by id (sorted by submit time, ties by file order, as the importer sorts).
fn trace_by_id(
    d: &std::path::Path,
    jobs_from: Source,
) -> std::collections::HashMap<String, TraceJob> {
    let all = match jobs_from {
        Source::Openb => {
            read_openb_jobs(&d.join("alibaba-openb-gpu-2023/openb_pod_list_default.csv")).unwrap()
        }
        _ => {
            read_philly(&d.join("philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv")).unwrap()
        }
    };
    all.into_iter().map(|j| (j.id.clone(), j)).collect()
}

/// The chunk time m of kind "oasis" (g d / (E N), rounded to 6 decimals) and the per-mini-batch
/// time g d / (E D) of kind "online", recomputed from the trace: the window's submit span fixes
/// the slot length (default `--slot-seconds 0`: arrivals span T/2 slots, or T/(2 alpha)).
#[test]
fn chunk_time_split_never_exceeds_the_traced_chunk_time() {
    let d = data();
    let sources = [
        (Source::Philly, Source::Philly),
        (Source::Openb, Source::Openb),
        (Source::PaiNodes, Source::Philly),
        (Source::PaiNodes, Source::Openb),
        (Source::Gavel, Source::Philly),
        (Source::Gavel, Source::Openb),
    ];
    let mut checked = 0;
    for (src, from) in sources {
        let trace = trace_by_id(&d, from);
        for kind in ["oasis", "online"] {
            if src == Source::Gavel && kind == "oasis" {
                continue; // refused: Gavel gives worker types kind "oasis" does not have
            }
            for seed in [1, 2, 3, 7, 11] {
                let o = ImportOptions {
                    kind: kind.into(),
                    data_dir: d.clone(),
                    jobs: 200,
                    start: None,
                    seed,
                    jobs_from: from,
                    ..ImportOptions::default()
                };
                let v: serde_json::Value =
                    serde_json::from_str(&import_json(src, &o).unwrap()).unwrap();
                let jobs = v["jobs"].as_array().unwrap();
                let tj: Vec<&TraceJob> = jobs
                    .iter()
                    .map(|j| &trace[j["id"].as_str().unwrap()])
                    .collect();
                assert_eq!(tj.len(), 200, "{src:?} {kind} seed {seed}: every job kept");
                let span = tj[tj.len() - 1].submit - tj[0].submit;
                let span_slots = if kind == "oasis" { 100.0 } else { 25.0 };
                let sec = if span > 0.0 { span / span_slots } else { 60.0 };
                let c = o.comm_ratio;
                for (j, t) in jobs.iter().zip(&tj) {
                    let f = |k: &str| j[k].as_f64().unwrap();
                    let g = t.workers.max(1) as f64;
                    let dur = (t.duration / sec).ceil().max(1.0);
                    let what = format!("{src:?}/{from:?} {kind} seed {seed}: {j}");
                    if kind == "oasis" {
                        let (e, n) = (f("epochs"), f("chunks"));
                        let m = ((g * dur / (e * n)).max(1e-6) * 1e6).round() / 1e6;
                        let (tau, comm) = (f("minibatch_time"), f("comm_time"));
                        assert!(tau + 2.0 * comm <= m, "tau + 2 comm > m = {m}: {what}");
                        assert!(f("minibatches_per_chunk") == 1.0, "{what}");
                        // Rounding down loses at most a few 1e-6 of the chunk time.
                        assert!(m - (tau + 2.0 * comm) <= 4e-6, "m = {m}: {what}");
                    } else {
                        let (e, n) = (f("epochs"), f("chunks"));
                        let m = (g * dur / (e * n)).max(1e-6);
                        let times = j["minibatch_time"].as_array().unwrap();
                        let tau = times[times.len() - 1].as_f64().unwrap();
                        let u = j["update_time"][0].as_f64().unwrap();
                        let comm = 2.0 * f("gradient_size") / o.worker_bw;
                        // Kind "online" puts communication on top of the traced time (U = c v,
                        // 2 pi / b = c v): eq. (1) off one server takes v + U + 2 pi / b. None of
                        // the three rounds above its exact value: v <= g d / (E D), U <= c v and
                        // 2 pi / b <= U, each exactly in f64.
                        assert!(tau <= m, "v = {tau} > g d / (E D) = {m}: {what}");
                        assert!(u <= c * tau && comm <= u, "{what}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(
        checked,
        (4 + 6) * 5 * 200,
        "oasis on 4 sources, online on 6"
    );
}

/// Every job of the bundled openb trace on every node of its cluster, at `slot_seconds`.
fn whole_openb(slot_seconds: f64) -> ImportOptions {
    use mlsched_lab::import::ALL;
    ImportOptions {
        data_dir: data(),
        jobs: ALL,
        servers: ALL,
        ps_servers: ALL,
        slots: 0,
        slot_seconds,
        ..ImportOptions::default()
    }
}

/// The whole openb trace on the whole cluster: every GPU pod, every GPU node as a worker
/// server, every CPU-only node as a PS server; the report says the slot length and horizon.
#[test]
fn whole_openb_on_the_whole_cluster() {
    use mlsched_lab::import::import_with_report;
    let opts = whole_openb(600.0);
    let (v, r) = import_with_report(Source::Openb, &opts).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 7064);
    assert_eq!(v["worker_servers"].as_array().unwrap().len(), 1213);
    assert_eq!(v["ps_servers"].as_array().unwrap().len(), 310);
    assert_eq!((r.jobs, r.trace_jobs, r.gpus), (7064, 7064, 6212.0));
    // --slot-seconds alone: T = 2 x (last arrival slot + 1), so every arrival is in [0, T/2].
    assert_eq!(r.horizon.slot_seconds, 600.0);
    assert_eq!(r.horizon.slots, 2 * (r.horizon.last_arrival + 1));
    assert_eq!(v["slots"].as_f64().unwrap(), r.horizon.slots as f64);
    let last = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["arrival"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(last, r.horizon.last_arrival as f64);
    assert!(r.to_string().contains("slot 600 s, horizon T = "), "{r}");

    // Online, Ring-AllReduce: no PS types, one update time per job; T = 2 alpha (last + 1).
    let ring = ImportOptions {
        kind: "online".into(),
        architecture: "ring".into(),
        slot_seconds: 3600.0,
        ..opts.clone()
    };
    let (v, r) = import_with_report(Source::Openb, &ring).unwrap();
    assert_eq!(v["architecture"], "ring");
    assert!(v.get("ps_types").is_none_or(|p| p.is_null()));
    assert_eq!(v["servers"].as_array().unwrap().len(), 1213);
    assert_eq!(r.horizon.slots, 8 * (r.horizon.last_arrival + 1));
    import_json(Source::Openb, &ring).unwrap();

    // Online, PS: `--servers all` is the whole cluster, the 310 CPU-only nodes (0 GPUs: they
    // can hold parameter servers, never a worker) after the 1,213 GPU nodes.
    let ps = ImportOptions {
        kind: "online".into(),
        ps_servers: mlsched_lab::import::PS_AUTO,
        slot_seconds: 3600.0,
        ..opts.clone()
    };
    let (v, r) = import_with_report(Source::Openb, &ps).unwrap();
    let servers = v["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 1523);
    let gpus = |s: &serde_json::Value| s[0].as_f64().unwrap();
    assert_eq!(servers.iter().filter(|s| gpus(s) == 0.0).count(), 310);
    assert!(servers[..1213].iter().all(|s| gpus(s) > 0.0));
    assert_eq!((r.worker_servers, r.ps_servers), (1213, 310));
    import_json(Source::Openb, &ps).unwrap();
}

/// The whole openb trace at one-hour slots (T = 7,168) goes through OASiS: its largest DP
/// table, 18.3 million cells, is within `OASIS_DP_CELLS_MAX` and over the 2^24 the limit used
/// to be, and the scheduler builds.
#[test]
fn whole_openb_at_one_hour_slots_builds_for_oasis() {
    use mlsched_kernel::oasis::fast::FastDp;
    use mlsched_kernel::oasis::{JobParams, OasisScheduler};
    use mlsched_lab::import::import_with_report;
    let opts = whole_openb(3600.0);
    let (v, r) = import_with_report(Source::Openb, &opts).unwrap();
    assert_eq!((r.jobs, r.horizon.slots), (7064, 7168));
    let mlsched_scenario::doc::ScenarioDoc::Oasis(d) =
        mlsched_scenario::doc::parse(&v.to_string()).unwrap()
    else {
        panic!("kind oasis")
    };
    let scn = d.validate().unwrap();
    let s = OasisScheduler::new(&scn).unwrap();
    let largest = scn
        .jobs
        .iter()
        .filter_map(|j| FastDp::size_of(s.market(), &JobParams::of(j), &j.utility))
        .map(|z| z.cells)
        .max()
        .unwrap();
    assert!(
        largest > 16 << 20 && largest <= mlsched_kernel::limits::OASIS_DP_CELLS_MAX,
        "{largest}"
    );
}

/// No job is ever dropped: a horizon too short for the arrivals, a slot too short for the
/// build's horizon, and an architecture the kind does not have are errors naming the option.
#[test]
fn horizons_and_architectures_are_checked_not_clamped() {
    use mlsched_lab::import::ALL;
    let base = ImportOptions {
        data_dir: data(),
        jobs: ALL,
        slot_seconds: 600.0,
        slots: 1000,
        ..ImportOptions::default()
    };
    let e = import_json(Source::Openb, &base).unwrap_err().to_string();
    assert!(
        e.contains("`slots`") && e.contains("arrive at or after the horizon T = 1000"),
        "{e}"
    );
    let tiny = ImportOptions {
        slots: 0,
        slot_seconds: 1.0,
        ..base.clone()
    };
    let e = import_json(Source::Openb, &tiny).unwrap_err().to_string();
    assert!(
        e.contains("`slot-seconds`") && e.contains("SLOTS_MAX"),
        "{e}"
    );
    let ring_oasis = ImportOptions {
        architecture: "ring".into(),
        ..ImportOptions::default()
    };
    let e = import_json(Source::Openb, &ring_oasis)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`architecture`"), "{e}");
}
