//! Every input the fuzzers ever crashed on (or that we seeded them with) stays a test:
//! `tests/fuzz-regressions/<target>/<file>` runs through the same body as the cargo-fuzz target
//! (`mlsched_tests::fuzz`). To keep a new crash: copy `fuzz/artifacts/<target>/crash-*` there.
use mlsched_tests::fuzz::{run_target, TARGETS};

#[test]
fn every_kept_input_runs_clean() {
    let dir = mlsched_tests::repo_root().join("tests/fuzz-regressions");
    let mut n = 0;
    for target in TARGETS {
        let Ok(entries) = std::fs::read_dir(dir.join(target)) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.is_file()) {
            let data = std::fs::read(f).unwrap();
            eprintln!("{target}: {}", f.display());
            run_target(target, &data);
            n += 1;
        }
    }
    eprintln!("{n} kept fuzz inputs ran clean");
}

/// The fuzz bodies themselves on a few built-in inputs (so they run even with no kept files).
#[test]
fn fuzz_bodies_accept_builtin_inputs() {
    for (_, text) in mlsched_scenario::bundled::SCENARIOS {
        run_target("scenario_json", text.as_bytes());
    }
    run_target("scenario_json", b"{\"kind\": \"oasis\"");
    run_target("log_decode", b"MLSCHLOG\x01\x00");
    run_target("log_decode", &[0, 0, 5, 0, 7, 3, 0, 1, 0]);
    run_target("log_decode", &[0]);
    run_target(
        "kernel_events",
        &[7, 0, 1, 2, 3, 4, 5, 6, 4, 2, 9, 1, 1, 0, 0, 0, 3],
    );
    for seed in ["engine_events", "gen_options", "world_events"] {
        let dir = mlsched_tests::repo_root().join("fuzz/seeds").join(seed);
        for f in std::fs::read_dir(&dir).unwrap() {
            run_target(seed, &std::fs::read(f.unwrap().path()).unwrap());
        }
    }
}

/// The two newest bodies on a few thousand pseudo-random inputs each (a deterministic
/// SplitMix64 stream), so the suite exercises what the campaigns explore.
#[test]
fn engine_and_option_bodies_on_random_inputs() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for target in ["engine_events", "gen_options", "world_events"] {
        for _ in 0..1500 {
            let len = (next() % 48) as usize;
            let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            run_target(target, &data);
        }
    }
}
