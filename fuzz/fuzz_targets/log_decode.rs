//! cargo-fuzz target `log_decode`: the body is [`mlsched_tests::fuzz::log_decode`].
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mlsched_tests::fuzz::log_decode(data));
