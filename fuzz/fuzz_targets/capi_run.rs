//! cargo-fuzz target `capi_run`: `mlsched_run` through the C ABI over arbitrary bytes. The
//! input is split at its first NUL byte into the scenario and the policy (no NUL: all scenario,
//! the kind's own algorithm). Every return code is 0, 1 or 2 with a message; on 0 the bytes are
//! those of `run_json`. Inputs above the harness bound (`too_large_to_fuzz`) are only parsed.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (scenario, policy) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    if let Ok(text) = std::str::from_utf8(scenario) {
        if let Ok(doc) = mlsched_scenario::doc::parse(text) {
            if !matches!(mlsched_tests::fuzz::too_large_to_fuzz(&doc), Ok(false)) {
                return;
            }
        }
    }
    let (code, out) = mlsched::run_via_abi(scenario, policy);
    assert!(matches!(code, 0..=2), "return code {code}");
    assert!(!out.is_empty(), "no result and no message (code {code})");
    // The ABI turns a panic into code 1 with this message: still a bug.
    assert!(
        !out.starts_with(b"internal error"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    if code == 0 {
        let opts = mlsched_scenario::run::RunOptions {
            policy: std::str::from_utf8(policy)
                .ok()
                .filter(|p| !p.is_empty())
                .map(str::to_string),
            all_categories: false,
        };
        let text = std::str::from_utf8(scenario).expect("accepted input is UTF-8");
        let direct = mlsched_scenario::run::run_json(text, &opts).expect("run_json agrees");
        assert_eq!(out, direct.into_bytes());
    }
});
