#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ace_fuzz::read_and_lint(ace_registry::Format::MARKDOWN, data));
