//! RFC 3743 tables and one-code-point-per-line lists (`Lgr::from_table`),
//! then the same checks as `lgr_xml`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::lgr_table(data));
