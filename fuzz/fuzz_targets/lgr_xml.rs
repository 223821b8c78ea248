//! RFC 7940 XML: parse and compile any bytes as an LGR
//! (`Lgr::from_bytes`); when it loads, run the RFC 8228 checks and judge
//! labels made of its elements.
#![no_main]

use lgrscan::lgr::Lgr;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    lgrscan_fuzz::exercise_lgr(Lgr::from_bytes("fuzz.xml", data), &[0x61, 0x2d, 0x30]);
});
