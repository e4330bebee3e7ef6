//! cargo-fuzz target `engine_events`: the body is [`mlsched_tests::fuzz::engine_events`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mlsched_tests::fuzz::engine_events(data));
