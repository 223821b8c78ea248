//! Plain labels packed into integers (a few bits per octet) for the
//! verdict caches.

use crate::scan::PACK_CODE;
use crate::scan::PACK_CODE2;
use crate::scan::Packing;

/// The class string of an ASCII label packed `p.bits` bits per byte
/// (meaningful when it has no [`PACK_OTHER`] byte and at most `p.max`
/// bytes), with the flags of its bytes or-ed together.
///
/// A label of at most [`WINDOW`] bytes is read as that many bytes padded
/// with [`PAD`], whose code is 0, in eight look-ups of [`Packing::pair`]
/// whatever its length (no branch on the length: a zone's label lengths
/// vary from one label to the next, and each such branch was mispredicted
/// half the time). The codes of LDH bytes are not 0, so labels of
/// different lengths still pack apart, and below `2^(WINDOW·bits)`; a
/// longer label packs its own bytes only (four per step), which puts its
/// first code at or above that bit.
#[inline(always)]
pub(super) fn pack(p: &Packing, u: &[u8]) -> (u128, u16) {
    pack_tail(p, u, u)
}

/// Bytes of a label packed at once by [`pack`].
pub(super) const WINDOW: usize = 16;

/// The octet that pads a label to [`WINDOW`] bytes: not ASCII, so never
/// in a label that is packed; its code is 0 and it has no flag.
pub(crate) const PAD: u8 = 0xff;

/// [`pack`] of `u`, which `tail` starts with (the bytes after the label
/// in its buffer, when there are [`WINDOW`] of them, are read and masked
/// rather than the label copied).
#[inline(always)]
pub(super) fn pack_tail(p: &Packing, u: &[u8], tail: &[u8]) -> (u128, u16) {
    let n = u.len();
    if n <= WINDOW {
        let w = match tail.get(..WINDOW) {
            Some(t) => {
                let mut b = [0u8; WINDOW];
                b.copy_from_slice(t);
                u128::from_le_bytes(b)
            }
            None => {
                let mut b = [PAD; WINDOW];
                b[..n].copy_from_slice(u);
                u128::from_le_bytes(b)
            }
        };
        // The label's bytes, then PAD.
        let keep = u128::MAX.checked_shr(8 * (WINDOW - n) as u32).unwrap_or(0);
        let w = w | !keep;
        return if WINDOW * p.bits as usize <= 64 {
            let (k, f) = pack_window::<u64>(p, w);
            (u128::from(k), f)
        } else {
            pack_window::<u128>(p, w)
        };
    }
    if n * p.bits as usize <= 64 {
        let (k, f) = pack_in::<u64>(p, u);
        (u128::from(k), f)
    } else {
        pack_in::<u128>(p, u)
    }
}

/// [`pack`] of a label padded to [`WINDOW`] bytes, `w` (little-endian),
/// in `K`: eight pairs of bytes, two codes each.
#[inline(always)]
pub(super) fn pack_window<K>(p: &Packing, w: u128) -> (K, u16)
where
    K: Copy + From<u16> + std::ops::Shl<u32, Output = K> + std::ops::BitOr<Output = K> + Default,
{
    let bits = p.bits;
    let mut k = K::default();
    let mut flags = 0u16;
    for i in 0..WINDOW / 2 {
        let e = p.pair[(w >> (16 * i)) as u16 as usize];
        k = (k << (2 * bits)) | K::from(e & PACK_CODE2);
        flags |= e;
    }
    (k, flags)
}

/// [`pack`] of a label longer than [`WINDOW`] in `K`: four bytes per step,
/// through two look-ups of [`Packing::pair`].
#[inline(always)]
pub(super) fn pack_in<K>(p: &Packing, u: &[u8]) -> (K, u16)
where
    K: Copy + From<u16> + std::ops::Shl<u32, Output = K> + std::ops::BitOr<Output = K> + Default,
{
    let bits = p.bits;
    let pair = |a: u8, b: u8| p.pair[usize::from(u16::from_le_bytes([a, b]))];
    let mut k = K::default();
    let mut flags = 0u16;
    let quads = u.chunks_exact(4);
    let rest = quads.remainder();
    for w in quads {
        let (e0, e1) = (pair(w[0], w[1]), pair(w[2], w[3]));
        k = (k << (4 * bits)) | (K::from(e0 & PACK_CODE2) << (2 * bits)) | K::from(e1 & PACK_CODE2);
        flags |= e0 | e1;
    }
    if rest.len() >= 2 {
        let e = pair(rest[0], rest[1]);
        k = (k << (2 * bits)) | K::from(e & PACK_CODE2);
        flags |= e;
    }
    if rest.len() % 2 == 1 {
        let e = p.one[usize::from(rest[rest.len() - 1])];
        k = (k << bits) | K::from(e & PACK_CODE);
        flags |= e;
    }
    (k, flags)
}
