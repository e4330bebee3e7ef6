//! cargo-fuzz target `world_events`: the body is [`mlsched_tests::fuzz::world_events`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mlsched_tests::fuzz::world_events(data));
