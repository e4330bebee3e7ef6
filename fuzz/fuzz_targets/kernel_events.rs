//! cargo-fuzz target `kernel_events`: the body is [`mlsched_tests::fuzz::kernel_events`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mlsched_tests::fuzz::kernel_events(data));
