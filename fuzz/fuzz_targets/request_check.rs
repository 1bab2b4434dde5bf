//! Fuzz target: see `iikocloud_fuzz_checks::request_check` for the properties checked.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iikocloud_fuzz_checks::request_check(data));
