//! The reader's hash ([`crate::hash`]) and the fixed-size word loads its
//! byte scanners share.

pub(crate) use crate::hash::{HashBuild, hash_bytes};

/// The 8 bytes of `b` from `i`, as a little-endian word (a fixed-size
/// copy: no call to `memcpy`).
#[inline(always)]
pub(crate) fn word(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// The 4 bytes of `b` from `i`, as a little-endian word.
#[inline(always)]
pub(crate) fn half(b: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[i..i + 4]);
    u32::from_le_bytes(w)
}
