//! The keys of judged labels (their index labels as code points) and the
//! hashes that find them.

use crate::input::hash::{tail_word, word};

/// An index label kept: `len` code points at `start` of its arena (see
/// [`KeyParts`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keyed {
    /// [`key_hash`] of the index label, its lowest bit replaced by whether
    /// the index label is all ASCII ([`Keyed::ascii`]; a function of the
    /// index label too, so equal index labels have equal hashes).
    pub hash: u64,
    pub label: u32,
    pub len: u32,
    /// The offset in its arena; above [`PART_SHIFT`], once the workers'
    /// keys are together ([`KeyParts`]), the part.
    pub start: u64,
}

impl Keyed {
    /// A kept index label's hash ([`Keyed::hash`]).
    pub fn hash_of(key: &[u32]) -> u64 {
        key_hash(key) & !1 | u64::from(key.iter().all(|&c| c < 0x80))
    }

    /// Whether the index label is all ASCII (known without reading it: the
    /// grouping reads the index labels in hash order, a cache miss each).
    #[inline]
    pub fn ascii(&self) -> bool {
        self.hash & 1 != 0
    }
}

/// Where the part of a [`Keyed`] is in its `start`: above this bit, the
/// offset in the part's arena below.
pub(super) const PART_SHIFT: u32 = 40;

/// The index labels kept by the judging workers: each worker's list and
/// arena as it built them (copying them into one would fault in as much
/// new memory again, on one thread, at the end of the judging). A key's
/// part is in the high bits of its `start` ([`PART_SHIFT`]).
#[derive(Default)]
pub(crate) struct KeyParts {
    pub keyed: Vec<Vec<Keyed>>,
    pub(super) arenas: Vec<Vec<u32>>,
}

impl KeyParts {
    /// Takes the workers' lists and arenas (offsets within their arena),
    /// marking each key with its part.
    pub(super) fn new(parts: Vec<(Vec<Keyed>, Vec<u32>)>) -> KeyParts {
        let (mut keyed, arenas): (Vec<Vec<Keyed>>, Vec<Vec<u32>>) = parts.into_iter().unzip();
        for (p, list) in keyed.iter_mut().enumerate() {
            for k in list {
                debug_assert!(k.start < 1 << PART_SHIFT);
                k.start |= (p as u64) << PART_SHIFT;
            }
        }
        KeyParts { keyed, arenas }
    }

    /// The code points of a kept index label.
    #[inline]
    pub fn key(&self, k: &Keyed) -> &[u32] {
        let at = (k.start & ((1 << PART_SHIFT) - 1)) as usize;
        &self.arenas[(k.start >> PART_SHIFT) as usize][at..at + k.len as usize]
    }
}

/// Hash of an index label, for grouping.
pub(crate) fn key_hash(cps: &[u32]) -> u64 {
    crate::hash::hash_cps(cps)
}

/// Hash of an ASCII text (the same for an all-ASCII index label's code
/// points, see [`text_hash_cps`]): eight bytes per multiply, as
/// little-endian words (the last one padded with zeros), seeded with the
/// length. It only sorts candidates into buckets; matches are confirmed
/// by comparing the texts. Not the crate's hasher ([`crate::hash`]): it
/// must give one value for a text's bytes and for its code points, which
/// a general hasher, fed bytes or `u32`s, does not.
pub(crate) fn text_hash(b: &[u8]) -> u32 {
    let mut words = b.chunks_exact(8);
    let mut h = word_mix(0, b.len() as u64);
    for w in &mut words {
        h = word_mix(h, word(w, 0));
    }
    let r = words.remainder().len();
    if r > 0 {
        h = word_mix(h, tail_word(b, r));
    }
    (h ^ h >> 32) as u32
}

/// [`text_hash`] of all-ASCII code points.
pub(crate) fn text_hash_cps(cps: &[u32]) -> u32 {
    let mut h = word_mix(0, cps.len() as u64);
    for w in cps.chunks(8) {
        let word = w.iter().rev().fold(0u64, |acc, &c| acc << 8 | u64::from(c & 0xff));
        h = word_mix(h, word);
    }
    (h ^ h >> 32) as u32
}

#[inline(always)]
pub(super) fn word_mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(27)
}
