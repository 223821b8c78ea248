//! The zone reader, differential: the same bytes read in memory, as a
//! stream, and cut into small windows and parallel chunks on 1 and 3
//! threads give the same labels, accounting or error
//! (`lgrscan_fuzz::read_every_way`). The first byte picks the chunk size
//! and whether the format is forced to `zone` or detected.
#![no_main]

use lgrscan::input::InputFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&knobs, rest)) = data.split_first() else { return };
    let format = (knobs & 0x80 == 0).then_some(InputFormat::Zone);
    let chunk = usize::from(knobs & 0x3f) + 1;
    lgrscan_fuzz::read_every_way(rest, format, chunk);
});
