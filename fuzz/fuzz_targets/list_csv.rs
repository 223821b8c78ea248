//! Label lists and CSV, read every way as in `zone_paths`. The first byte
//! picks the format (list, CSV, detected) and the chunk size.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::list_csv(data));
