//! The zone reader, differential: the same bytes read in memory, as a
//! stream, and cut into small windows and parallel chunks on 1 and 3
//! threads give the same labels, accounting or error
//! (`lgrscan_fuzz::read_every_way`). The first byte picks the chunk size,
//! whether `--origin` is given and whether the format is forced to `zone`
//! or detected.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::zone_paths(data));
