//! Comparisons and scans of the fast path's bytes built on the vector
//! kernels of [`crate::simd::zone`] (the crate's one home of
//! the architecture intrinsics), with the byte loops they fall back to.

use crate::input::hash::half;
use crate::input::hash::word;
use crate::input::key_order::orders_increasing;
use crate::simd::zone::{block_mask, eq_mask32, low_bits, target_masks};
use memchr::memchr;

/// Whether `buf[a..a + n]` equals `buf[b..b + n]` (false when either is
/// past the end). Owners are short: up to 32 bytes are compared at once
/// ([`eq_mask32`]); longer ones by [`same_bytes`].
#[inline(always)]
pub(super) fn same_at<const W: bool, const Z: bool>(
    buf: &[u8],
    a: usize,
    b: usize,
    n: usize,
) -> bool {
    if n <= 32
        && let Some(eq) = eq_mask32::<W, Z>(buf, a, b)
    {
        let need = low_bits(n);
        return eq & need == need;
    }
    match (buf.get(a..a.saturating_add(n)), buf.get(b..b.saturating_add(n))) {
        (Some(x), Some(y)) => same_bytes(x, y),
        _ => false,
    }
}

/// [`orders_increasing`] of the labels `buf[a..a + la]` and
/// `buf[b..b + lb]` (none for the same label twice).
#[inline(always)]
pub(super) fn orders_increasing_at<const W: bool>(
    orders: u8,
    buf: &[u8],
    a: (usize, usize),
    b: (usize, usize),
) -> u8 {
    orders_unless_same::<W, false>(orders, buf, a, b).unwrap_or(0)
}

/// [`orders_increasing`] of the labels `buf[a..a + la]` and
/// `buf[b..b + lb]`, or `None` when they are the same: the first
/// difference of short labels is found at once ([`eq_mask32`]), and says
/// both (the loop of usual lines asks both of each new label and the last
/// one).
#[inline(always)]
pub(super) fn orders_unless_same<const W: bool, const Z: bool>(
    orders: u8,
    buf: &[u8],
    (a, la): (usize, usize),
    (b, lb): (usize, usize),
) -> Option<u8> {
    let n = la.min(lb);
    if n < 32
        && let Some(eq) = eq_mask32::<W, Z>(buf, a, b)
    {
        let differ = !eq & low_bits(n);
        if differ != 0 {
            let d = differ.trailing_zeros() as usize;
            return Some(if buf[a + d] < buf[b + d] { orders } else { 0 });
        }
        if la == lb {
            return None;
        }
    } else if la == lb && same_bytes(&buf[a..a + la], &buf[b..b + lb]) {
        return None;
    }
    Some(orders_increasing(orders, &buf[a..a + la], &buf[b..b + lb]))
}

/// Whether the dots `dots` of a name of `n` octets (n ≤ 32; bit i: octet
/// i) leave no label empty: none first, no two in a row (the root, `.`
/// alone, is a name).
#[inline(always)]
pub(super) fn no_empty_label(dots: u32, n: usize) -> bool {
    n == 1 || (dots & 1 == 0 && dots & (dots >> 1) == 0)
}

/// The position of the first newline of `buf[pos..end]`, if any.
///
/// Lines of a zone dump are short (50 bytes or so): the 64 bytes from
/// `pos` are compared at once ([`block_mask`]), so the branch that finds
/// the newline is taken on almost every line (a newline mask per 64-byte
/// block, consumed line by line, left one mispredicted refill per line or
/// two); then the next 64 (DS records are a little longer). Longer lines
/// go on with `memchr`.
#[inline(always)]
pub(super) fn next_newline<const W: bool, const Z: bool>(
    buf: &[u8],
    pos: usize,
    end: usize,
) -> Option<usize> {
    for at in [pos, pos + 64] {
        let m = block_mask::<W, Z>(buf, at);
        if m != 0 {
            let k = at + m.trailing_zeros() as usize;
            return (k < end).then_some(k);
        }
        if at + 64 >= end {
            return None;
        }
    }
    let from = pos + 128;
    memchr(b'\n', &buf[from..end]).map(|k| from + k)
}

/// Whether `buf[at..end]` is, as a whole, one NS target in the form the
/// general parser gives it ([`as_written`](super::fields::as_written)), found for a target of at
/// most 32 bytes that 32 bytes can be loaded from in one SSE2 pass: only
/// lower-case LDH octets, dots, slashes and underscores, a final dot, no
/// empty label. False sends the line to
/// [`check_after_owner_fields`](super::fields::check_after_owner_fields),
/// which decides.
#[inline(always)]
pub(super) fn target_fast<const W: bool, const Z: bool>(buf: &[u8], at: usize, end: usize) -> bool {
    if !(end > at && end - at <= 32 && buf[end - 1] == b'.') {
        return false;
    }
    let Some((ok, dots)) = target_masks::<W, Z>(buf, at) else { return false };
    let live = low_bits(end - at);
    ok & live == live && no_empty_label(dots & live, end - at)
}

/// Equality of two short byte strings without a call to `memcmp`: words
/// of 8 bytes, the last one overlapping the one before (4 and 1 bytes
/// for shorter strings).
#[inline(always)]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word(a, i) != word(b, i) {
                return false;
            }
            i += 8;
        }
        return word(a, n - 8) == word(b, n - 8);
    }
    if n >= 4 {
        return half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}
