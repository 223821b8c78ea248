//! The orders of registered labels' keys that a sorted zone follows: the
//! octets, and the octets followed by a dot (the order of owner names under
//! one apex). [`super::dedup::Dedup`] needs only a comparison with the last
//! key while the keys increase under one of them.

/// Key orders under which a sequence of keys can be strictly increasing
/// (see [`crate::input::dedup::Dedup`]): bit 0 the octets, bit 1 the octets
/// followed by a dot (the order of owner names under one apex).
pub(crate) const ORDERS_ALL: u8 = 0b11;

/// Compares two byte strings, 8 bytes at a time (labels are short, and
/// a call to `memcmp` costs more than the comparison).
#[inline(always)]
pub(crate) fn cmp_bytes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
        x.copy_from_slice(&a[i..i + 8]);
        y.copy_from_slice(&b[i..i + 8]);
        if x != y {
            return u64::from_be_bytes(x).cmp(&u64::from_be_bytes(y));
        }
        i += 8;
    }
    while i < n {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
        i += 1;
    }
    a.len().cmp(&b.len())
}

/// Compares `a.` with `b.` (each followed by a dot) without copying: the
/// order [`orders_increasing`] computes in one pass (kept for its tests).
#[cfg(test)]
pub(crate) fn cmp_dotted(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    match cmp_bytes(&a[..n], &b[..n]) {
        std::cmp::Ordering::Equal => {
            let x = a.get(n).copied().unwrap_or(b'.');
            let y = b.get(n).copied().unwrap_or(b'.');
            x.cmp(&y).then(a.len().cmp(&b.len()))
        }
        o => o,
    }
}

/// The orders of `orders` under which `a < b` strictly.
#[inline]
pub(crate) fn orders_increasing(orders: u8, a: &[u8], b: &[u8]) -> u8 {
    use std::cmp::Ordering::{Greater, Less};
    // Both orders agree unless one key is a prefix of the other: compare
    // the common prefix once.
    let n = a.len().min(b.len());
    match cmp_bytes(&a[..n], &b[..n]) {
        Less => orders,
        Greater => 0,
        _ => {
            let octets = a.len() < b.len();
            let x = a.get(n).copied().unwrap_or(b'.');
            let y = b.get(n).copied().unwrap_or(b'.');
            let dotted = x < y || (x == y && a.len() < b.len());
            orders & (u8::from(octets) | u8::from(dotted) << 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn dotted_order_is_owner_order() {
        // "a-b.com." sorts before "a.com." although "a" < "a-b".
        assert_eq!(cmp_dotted(b"a-b", b"a"), Ordering::Less);
        assert_eq!(cmp_dotted(b"a", b"a-b"), Ordering::Greater);
        assert_eq!(cmp_dotted(b"a", b"a"), Ordering::Equal);
        assert_eq!(cmp_dotted(b"a", b"a0"), Ordering::Less);
        assert_eq!(cmp_dotted(b"ab", b"b"), Ordering::Less);
        assert_eq!(orders_increasing(ORDERS_ALL, b"a", b"a-b"), 0b01);
        assert_eq!(orders_increasing(ORDERS_ALL, b"a-b", b"a"), 0b10);
        assert_eq!(orders_increasing(ORDERS_ALL, b"a", b"b"), 0b11);
        assert_eq!(orders_increasing(ORDERS_ALL, b"b", b"b"), 0);
        // Against both comparisons, on every pair of short keys.
        let keys: Vec<Vec<u8>> = ["", "a", "-", "a-", "a-b", "a0", "ab", "b", "a.", "-a", "z9"]
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        for a in keys.iter().filter(|k| !k.is_empty()) {
            for b in keys.iter().filter(|k| !k.is_empty()) {
                let want = u8::from(a < b) | u8::from(cmp_dotted(a, b) == Ordering::Less) << 1;
                assert_eq!(orders_increasing(ORDERS_ALL, a, b), want, "{a:?} {b:?}");
            }
        }
    }
}
