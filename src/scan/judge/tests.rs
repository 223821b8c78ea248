use super::all::{CHUNK, plain_parts};

use super::keys::{text_hash, text_hash_cps};
use super::pack::{pack, pack_tail};
use crate::scan::PACK_ALPHA;
use crate::scan::PACK_CODE;
use crate::scan::PACK_OTHER;
use crate::scan::PACK_TARGET;
use crate::scan::Packing;
use std::collections::HashMap;

/// An ASCII label's text hash is its index label's, whatever the
/// length (whole words, a padded last word, none).
#[test]
pub(super) fn text_hash_of_bytes_and_code_points_agree() {
    let mut next = crate::testutil::random_u64s(0x2545_f491_4f6c_dd1d);
    let mut seen = std::collections::HashSet::new();
    for len in 0..=40usize {
        for _ in 0..20 {
            let b: Vec<u8> = (0..len).map(|_| b"abz09-"[(next() % 6) as usize]).collect();
            let cps: Vec<u32> = b.iter().map(|&x| u32::from(x)).collect();
            assert_eq!(text_hash(&b), text_hash_cps(&cps), "{:?}", String::from_utf8_lossy(&b));
            seen.insert(text_hash(&b));
        }
    }
    // Texts differing in length only (trailing zero bytes never occur
    // in labels, but the length seeds the hash anyway) hash apart.
    assert_ne!(text_hash(b"a"), text_hash(b"a\0"));
    assert!(seen.len() > 700, "{}", seen.len());
}

/// Packed class strings are equal exactly when the class strings are,
/// across the padded window and longer labels, whatever follows the
/// label in its buffer; the flags are those of the label's bytes.
#[test]
pub(super) fn plain_parts_leave_out_the_settled_ranges() {
    assert_eq!(plain_parts(10, &[]), vec![(0, 10)]);
    assert_eq!(plain_parts(0, &[]), vec![]);
    assert_eq!(plain_parts(10, &[(0, 4), (6, 10)]), vec![(4, 6)]);
    assert_eq!(plain_parts(10, &[(2, 2), (3, 5)]), vec![(0, 3), (5, 10)]);
    let n = 3 * CHUNK + 7;
    let parts = plain_parts(n, &[(5, CHUNK as u32 + 9)]);
    assert_eq!(parts[0], (0, 5));
    assert_eq!(parts[1], (CHUNK + 9, 2 * CHUNK + 9));
    assert_eq!(parts.last(), Some(&(2 * CHUNK + 9, n)));
    assert!(parts.iter().all(|&(a, b)| a < b && b - a <= CHUNK));
}

#[test]
pub(super) fn packing_keeps_class_strings_apart() {
    let mut targets = [false; 128];
    targets[usize::from(b'1')] = true;
    // Few classes (3 bits) and many (one per LDH byte, 6 bits): the
    // window packs in 64 bits, then in 128.
    let few = |b: u8| match b {
        b'0'..=b'9' => 1,
        b'-' => 2,
        b'q' => 3,
        _ => 0,
    };
    for p in [Packing::new(few, &targets), Packing::new(u16::from, &targets)] {
        let class = |u: &[u8]| -> Vec<u16> {
            u.iter().map(|&b| p.one[usize::from(b)] & PACK_CODE).collect()
        };
        let mut next = crate::testutil::random_u64s(0x9e37_79b9_7f4a_7c15);
        let mut seen: HashMap<u128, Vec<u16>> = HashMap::new();
        let mut keys: HashMap<Vec<u16>, u128> = HashMap::new();
        for len in 0..=p.max {
            for _ in 0..200 {
                let mut buf: Vec<u8> = (0..len + (next() % 24) as usize)
                    .map(|_| b"ab-q019z"[(next() % 8) as usize])
                    .collect();
                // Anything may follow the label.
                for b in &mut buf[len..] {
                    *b = next() as u8;
                }
                let u = &buf[..len];
                let (k, f) = pack_tail(&p, u, &buf);
                assert_eq!((k, f), pack(&p, u), "{u:?}");
                let want = u.iter().fold(0u16, |f, &b| f | p.one[usize::from(b)]);
                let flag_bits = PACK_ALPHA | PACK_TARGET | PACK_OTHER;
                assert_eq!(f & flag_bits, want & flag_bits, "{u:?}");
                let c = class(u);
                if let Some(old) = seen.insert(k, c.clone()) {
                    assert_eq!(old, c, "{u:?}");
                }
                if let Some(old) = keys.insert(c, k) {
                    assert_eq!(old, k, "{u:?}");
                }
            }
        }
        // Distinct class strings were drawn, and kept apart.
        assert!(seen.len() > 1000, "{}", seen.len());
    }
}
