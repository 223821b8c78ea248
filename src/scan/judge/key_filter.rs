//! Which plain labels may be the key of some judged label: a filter built
//! from the keys the first pass found.

use super::keys::{text_hash, text_hash_cps};
use super::tally::Tally;

/// A filter of all-ASCII index labels: their lengths (a bit per length,
/// the last for 63 and more) and the low `bits` bits of their
/// [`text_hash_cps`] (a bit per value). A text with neither is surely none
/// of them; a test is two loads. The first pass of [`judge_all`] keeps the
/// index labels it found in one of 2^16 bits (8 KiB); the settler keeps
/// those of the IDN labels told ahead in one of 2^20 bits (128 KiB), since
/// it tests every plain label with a digit against it.
pub(super) struct KeyFilter {
    pub(super) lengths: u64,
    pub(super) mask: u32,
    pub(super) words: Box<[u64]>,
    /// Whether some key has a letter (a code point neither a digit nor
    /// the hyphen): else a text with one is surely none of them.
    pub(super) letters: bool,
}

/// A key as [`KeyFilter::add`] takes it: its length, its
/// [`text_hash_cps`], and whether it has a letter.
pub(super) type Key = (usize, u32, bool);

/// Whether an all-ASCII key has a letter (see [`KeyFilter::letters`]).
pub(super) fn key_has_letter(key: &[u32]) -> bool {
    key.iter().any(|&c| !(u32::from(b'0')..=u32::from(b'9')).contains(&c) && c != u32::from(b'-'))
}

impl KeyFilter {
    pub(super) fn new(bits: u32) -> KeyFilter {
        KeyFilter {
            lengths: 0,
            mask: (1 << bits) - 1,
            words: vec![0; 1 << (bits - 6)].into(),
            letters: false,
        }
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
            self.add((key.len(), text_hash_cps(key), key_has_letter(key)));
        }
    }

    /// Adds the key of `len` code points whose [`text_hash_cps`] is `h`.
    pub(super) fn add(&mut self, (len, h, letter): Key) {
        self.letters |= letter;
        self.lengths |= 1 << len.min(63);
        let bit = (h & self.mask) as usize;
        self.words[bit / 64] |= 1 << (bit % 64);
    }

    /// Whether the LDH text `u` is surely none of the keys; `alpha`:
    /// whether it has a letter (it is no key then when none has one).
    #[inline(always)]
    pub(super) fn surely_none(&self, u: &[u8], alpha: bool) -> bool {
        (alpha && !self.letters) || self.may_match(u).is_none()
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
