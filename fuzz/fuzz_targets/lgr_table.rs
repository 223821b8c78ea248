//! RFC 3743 tables and one-code-point-per-line lists (`Lgr::from_table`),
//! then the same checks as `lgr_xml`.
#![no_main]

use lgrscan::lgr::Lgr;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    lgrscan_fuzz::exercise_lgr(Lgr::from_table("fuzz.txt", &text), &[0x61, 0x2d, 0x30]);
});
