//! Trace importers: readers on the real files of the bundled `data/` folder (read in place; a
//! missing folder is a failure), the documented mapping, determinism, and errors naming file/row/field.
use mlsched_cli::import::{
    import_json, read_gavel, read_openb_jobs, read_openb_nodes, read_pai_nodes, read_philly,
    ImportOptions, Source,
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
        servers: mlsched_cli::import::ALL,
        ps_servers: mlsched_cli::import::ALL,
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
            mlsched_cli::compare::parse(&text).unwrap_or_else(|e| panic!("{src:?} {kind}: {e}"));
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
