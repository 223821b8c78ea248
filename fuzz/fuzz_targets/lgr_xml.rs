//! RFC 7940 XML: parse and compile any bytes as an LGR
//! (`Lgr::from_bytes`); when it loads, run the RFC 8228 checks and judge
//! labels made of its elements.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::lgr_xml(data));
