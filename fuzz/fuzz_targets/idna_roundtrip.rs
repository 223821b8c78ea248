//! A-label / U-label conversion (RFC 5891, Punycode RFC 3492): any bytes
//! as a label, and as the Punycode of an A-label; a label without a
//! finding converts back and forth to the same forms.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lgrscan_fuzz::idna_roundtrip(data));
