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

/// The last `r` bytes of `b` (`0 < r < 8`, `r <= b.len()`: the bytes past
/// its last whole word) as a little-endian word padded with zeros, from
/// loads that overlap rather than a copy of a variable length (a call to
/// `memcpy`).
#[inline(always)]
pub(crate) fn tail_word(b: &[u8], r: usize) -> u64 {
    let rest = &b[b.len() - r..];
    if b.len() >= 8 {
        word(b, b.len() - 8) >> (8 * (8 - r))
    } else if r >= 4 {
        u64::from(half(rest, 0)) | (u64::from(half(rest, r - 4)) >> (8 * (8 - r))) << 32
    } else {
        rest.iter().rev().fold(0u64, |w, &x| w << 8 | u64::from(x))
    }
}
