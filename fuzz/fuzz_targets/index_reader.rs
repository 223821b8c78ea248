//! Saved index files (`lgrscan index`): the checked reader and a check
//! against whatever opens.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::index_reader(data));
