//! Label evaluation under the built-in LGRs and, when the reference data
//! is there at run time (`LGRSCAN_REFERENCE_DIR`, default: `shared` beside
//! the project), two ICANN LGRs (not copied into the project): the
//! verdict, index label, variant labels and their dispositions
//! (`lgrscan_fuzz::judge_all`). The first byte picks the LGR; the rest is
//! the label (`lgrscan_fuzz::label_from`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::label_eval(data));
