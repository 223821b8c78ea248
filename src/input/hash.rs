//! The hash of the reader's tables (labels, owner names, NS targets).

use std::hash::{BuildHasherDefault, Hasher};

/// A small, fast, non-cryptographic hash (FxHash's multiply-rotate over
/// 8-byte words). Inputs come from zone files, which an attacker could
/// shape to collide; the cost is only slower probing.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    /// Words of 8 bytes; the bytes after the last whole word as one more
    /// word: the last 8 bytes (overlapping the word before) when there
    /// are 8, else read in two overlapping halves, or three bytes (no
    /// copy of a variable length, which would call `memcpy`); then the
    /// length.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let half = |b: &[u8], i| u64::from(half(b, i));
        let n = bytes.len();
        let mut h = self.0;
        let mut i = 0;
        while i + 8 <= n {
            h = (h.rotate_left(5) ^ word(bytes, i)).wrapping_mul(SEED);
            i += 8;
        }
        if i < n {
            let w = if n >= 8 {
                word(bytes, n - 8)
            } else if n >= 4 {
                half(bytes, 0) | half(bytes, n - 4) << 32
            } else {
                u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16
            };
            h = (h.rotate_left(5) ^ w).wrapping_mul(SEED);
        }
        h = (h.rotate_left(5) ^ n as u64).wrapping_mul(SEED);
        self.0 = h;
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(SEED);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Final avalanche so the low bits are usable as a table index.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

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

pub(crate) fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(b);
    h.finish()
}
