//! Label lists and CSV, read every way as in `zone_paths`. The first byte
//! picks the format (list, CSV, detected) and the chunk size.
#![no_main]

use lgrscan::input::InputFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, rest)) = data.split_first() else { return };
    let format = match knobs % 3 {
        0 => Some(InputFormat::List),
        1 => Some(InputFormat::Csv),
        _ => None,
    };
    let chunk = usize::from(knobs >> 2) + 1;
    lgrscan_fuzz::read_every_way(rest, format, chunk);
});
