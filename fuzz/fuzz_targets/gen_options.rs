//! cargo-fuzz target `gen_options`: the body is [`mlsched_tests::fuzz::gen_options`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mlsched_tests::fuzz::gen_options(data));
