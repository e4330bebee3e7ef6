//! cargo-fuzz target `scenario_json`: the body is [`mlsched_tests::fuzz::scenario_json`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mlsched_tests::fuzz::scenario_json(data));
