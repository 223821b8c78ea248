//! Which plain labels may be the key of some judged label: a filter built
//! from the keys the first pass found.

use super::keys::{text_hash, text_hash_cps};
use super::tally::Tally;

/// A filter of all-ASCII index labels: their lengths (a bit per length,
/// the last for 63 and more) and the low `bits` bits of their
/// [`text_hash_cps`] (a bit per value). A text with neither is surely none
/// of them; a test is two loads. The first pass of [`judge_all`] keeps the
/// index labels it found in one of 2^16 bits (8 KiB).
pub(super) struct KeyFilter {
    pub(super) lengths: u64,
    pub(super) mask: u32,
    pub(super) words: Box<[u64]>,
}

impl KeyFilter {
    pub(super) fn new(bits: u32) -> KeyFilter {
        KeyFilter { lengths: 0, mask: (1 << bits) - 1, words: vec![0; 1 << (bits - 6)].into() }
    }

    /// The keys of the index labels the first pass of [`judge_all`] kept.
    pub(super) fn of(acc: &Tally) -> KeyFilter {
        let mut k = KeyFilter::new(16);
        for key in acc.keys() {
            k.add_cps(key);
        }
        k
    }

    /// Adds an index label, when it is all ASCII.
    pub(super) fn add_cps(&mut self, key: &[u32]) {
        if key.iter().all(|&c| c < 0x80) {
            self.add(key.len(), text_hash_cps(key));
        }
    }

    /// Adds the key of `len` code points whose [`text_hash_cps`] is `h`.
    pub(super) fn add(&mut self, len: usize, h: u32) {
        self.lengths |= 1 << len.min(63);
        let bit = (h & self.mask) as usize;
        self.words[bit / 64] |= 1 << (bit % 64);
    }

    /// The [`text_hash`] of `u` when its length and hash are those of
    /// some key (else, surely none).
    #[inline(always)]
    pub(super) fn may_match(&self, u: &[u8]) -> Option<u32> {
        if self.lengths & (1 << u.len().min(63)) == 0 {
            return None;
        }
        let h = text_hash(u);
        self.may_match_hash(u.len(), h).then_some(h)
    }

    /// Whether a text of `len` octets whose [`text_hash`] is `h` may be a
    /// key.
    #[inline(always)]
    pub(super) fn may_match_hash(&self, len: usize, h: u32) -> bool {
        let bit = (h & self.mask) as usize;
        self.lengths & (1 << len.min(63)) != 0
            && self.words.get(bit / 64).is_some_and(|w| w & 1 << (bit % 64) != 0)
    }
}
