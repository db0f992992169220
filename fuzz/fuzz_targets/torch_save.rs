#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| cudash::fuzz::torch_save(data));
