//! Plain labels settled while they are read, and never stored.
//!
//! Most labels of a zone are plain lower-case LDH labels that a scan finds
//! eligible under its first LGR and that can collide with no other label
//! (RFC 7940 §8.5: an LGR that maps every ASCII code point to itself makes
//! an all-ASCII label its own index label). The caller says which ones
//! those are as data, a [`PlainRule`] given to a [`Settling`]
//! ([`Config::settle`]): the chunk workers of the parallel zone reader
//! apply it to each plain label while the label's bytes are in cache, and
//! a settled label is only counted under its category
//! ([`LabelSet::settled`]): no record, no copy of its text, no second look.
//! A label that may take part in what the caller does next is kept as well
//! as counted (tagged), and one the rule does not decide is kept for the
//! caller to judge ([`Settled`]); the labels of the parts of the input
//! read under a rule are listed in [`LabelSet::settle_ranges`]. The reader
//! calls nothing of the caller's: it reads the rule, and later the keys
//! below, from the [`Settling`] the caller fills.
//!
//! A label that may be some IDN label's index label (with the built-in
//! set: one with a digit, since Devanagari and Khmer digits are variants
//! of ASCII ones) is settled only when the reader knows the all-ASCII index
//! labels ([`AsciiKeys`]) of every IDN label of the input. In a sorted zone
//! the IDN labels are one block, of owners starting with `xn--`: the
//! memory-mapped reader finds it by a binary search and reads it first,
//! and hands its labels to the [`Settling`] ([`Settling::wait_ahead`]);
//! the caller, on a thread of its own, computes their keys and gives them
//! back ([`Settling::provide_keys`]), and the chunks read after that test
//! such labels against them. At the end of the read the reader checks that
//! no label with a non-ASCII U-label was outside that block, and else reads
//! again without settling.
//!
//! Deduplication still sees every label: settling needs the registered
//! labels in increasing order (sorted zones, such as CZDS dumps, the case
//! it is for). An unsorted input is not read twice: once its keys are out
//! of order (the deduplicator uses its table), a chunk that settled labels
//! is extracted again without the rule, and the chunks after it are
//! extracted without it. Only a read that settled labels and then needs one
//! of their keys (sorted parts, then a key out of order; a list or CSV row
//! that repeats a settled label; an IDN label outside the block told
//! ahead) is done again: [`read`] then reads every input again without
//! settling, so the result is the same either way; it settles only inputs
//! it can read twice (regular files, not a pipe behind a path).
//!
//! [`Config::settle`]: super::Config::settle
//! [`LabelSet::settled`]: super::LabelSet::settled
//! [`LabelSet::settle_ranges`]: super::LabelSet::settle_ranges
//! [`read`]: super::read

use crate::hash::HashBuild;
use std::sync::Arc;
use std::sync::Condvar;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::OnceLock;
use std::sync::PoisonError;

/// Categories a settled label can be counted under: 0 for a label with
/// no letter (script `Zyyy`), 1 for one with a letter (`Latn`).
pub const SETTLED_KINDS: usize = 2;

/// Which plain labels (lower-case LDH, at most 63 octets, hyphens where
/// RFC 5891 §4.2.3.1 allows them) the reader may count without storing:
/// data the caller derives from the LGR that judges them first (RFC 7940
/// §8.1 eligibility) and from its variant LGR (§8.5 index labels). A
/// label the rule does not decide is kept for the caller.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlainRule {
    /// Bit n (1 ≤ n ≤ 63): every label of n letters is eligible.
    pub letters: u64,
    /// Bit n: every label of n digits is eligible.
    pub digits: u64,
    /// A label with a letter and digits is judged as the label of as many
    /// letters.
    pub digits_as_letters: bool,
    /// A label with a letter and hyphens is judged as the label of as many
    /// letters.
    pub hyphens_as_letters: bool,
    /// Bit b: the ASCII byte b is a variant of some non-ASCII element, so
    /// that every all-ASCII index label of an IDN label holds at least one
    /// of these bytes. A label with none of them shares no index label
    /// with an IDN label and is counted; one with some is counted only when
    /// it is none of the [`AsciiKeys`] given, else counted and kept
    /// (tagged).
    pub targets: u128,
    /// The code points, in increasing order, through which a label with a
    /// non-ASCII code point can have an all-ASCII index label (those with
    /// an all-ASCII variant): an IDN label whose U-label has another
    /// non-ASCII code point has no such key, and is not told
    /// ([`Settling::wait_ahead`]). `None`: every IDN label may have one.
    pub ascii_sources: Option<Arc<[u32]>>,
}

/// What becomes of a plain label under a [`PlainRule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Counted under this category (below [`SETTLED_KINDS`]) and not
    /// stored.
    Count(usize),
    /// Likewise, on the strength of the keys of the labels told ahead
    /// ([`AsciiKeys`]).
    Assume(usize),
    /// Counted under this category and stored too, listed in
    /// [`LabelSet::settle_tags`](super::LabelSet::settle_tags) (a label
    /// that may share its index label with an IDN label).
    Tag(usize),
    /// Stored, listed in
    /// [`LabelSet::settle_kept`](super::LabelSet::settle_kept): for the
    /// caller to judge.
    Keep,
}

/// The bits of the letters a-z, and of the digits, in a
/// [`PlainRule::targets`].
pub(crate) const LETTERS: u128 = ((1 << 26) - 1) << b'a';
pub(crate) const DIGITS: u128 = ((1 << 10) - 1) << b'0';

impl PlainRule {
    /// The verdict for the plain label `text`, which has a letter when
    /// `alpha`, a digit when `digit`, a hyphen when `hyphen`; `keys`: the
    /// keys of every IDN label of the input, when known.
    #[inline(always)]
    pub(crate) fn verdict_with(
        &self,
        text: &[u8],
        (alpha, digit, hyphen): (bool, bool, bool),
        keys: Option<&AsciiKeys>,
    ) -> Settled {
        let n = text.len().min(63);
        let eligible = if alpha {
            self.letters >> n & 1 != 0
                && (!digit || self.digits_as_letters)
                && (!hyphen || self.hyphens_as_letters)
        } else {
            !hyphen && self.digits >> n & 1 != 0
        };
        if !eligible {
            return Settled::Keep;
        }
        let cat = usize::from(alpha);
        let target = ((alpha && self.targets & LETTERS != 0)
            || (digit && self.targets & DIGITS != 0)
            || (hyphen && self.targets >> b'-' & 1 != 0))
            && text.iter().any(|&b| self.targets >> (b & 0x7f) & 1 != 0);
        match keys {
            _ if !target => Settled::Count(cat),
            Some(k) if k.surely_none(text, alpha) => Settled::Assume(cat),
            _ => Settled::Tag(cat),
        }
    }

    /// The verdict on the plain label `text` (lower-case LDH, at most 63
    /// octets, hyphens where RFC 5891 §4.2.3.1 allows them); `keys`: the
    /// all-ASCII index labels of every IDN label of the input, when known.
    /// A label of letters (a letter at least, and digits and hyphens as
    /// the rule allows) or of digits only, of a length the rule counts, is
    /// counted under [`SETTLED_KINDS`]' category of whether it has a
    /// letter, or tagged when it has a target byte and may be one of the
    /// keys; any other is kept.
    pub fn verdict(&self, text: &[u8], keys: Option<&AsciiKeys>) -> Settled {
        let digit = text.iter().any(u8::is_ascii_digit);
        let hyphen = text.contains(&b'-');
        let alpha = text.iter().any(u8::is_ascii_alphabetic);
        self.verdict_with(text, (alpha, digit, hyphen), keys)
    }
}

/// The all-ASCII index labels (RFC 7940 §8.5) of a set of IDN labels, as
/// the caller computed them: a plain label that is none of them shares no
/// index label with those IDN labels.
#[derive(Clone, Debug, Default)]
pub struct AsciiKeys {
    /// Bit n: some key has n octets (the last bit for 63 and more).
    lengths: u64,
    /// Whether some key has a letter (a byte neither a digit nor the
    /// hyphen).
    letters: bool,
    keys: hashbrown::HashSet<Box<[u8]>, HashBuild>,
}

impl AsciiKeys {
    /// Adds a key (ASCII bytes).
    pub fn add(&mut self, key: &[u8]) {
        self.lengths |= 1 << key.len().min(63);
        self.letters |= key.iter().any(|&b| !b.is_ascii_digit() && b != b'-');
        self.keys.insert(key.into());
    }

    /// Whether some key has a letter.
    pub(crate) fn has_letters(&self) -> bool {
        self.letters
    }

    /// Whether the LDH text `u`, which has a letter when `alpha`, is none
    /// of the keys.
    #[inline(always)]
    pub(crate) fn surely_none(&self, u: &[u8], alpha: bool) -> bool {
        (alpha && !self.letters)
            || self.lengths & (1 << u.len().min(63)) == 0
            || !self.keys.contains(u)
    }
}

/// An IDN label told ahead: as written (it starts with `xn--`, in any
/// case), and its U-label when the reader computed it (a valid IDN whose
/// A-label is its text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AheadLabel {
    /// As written.
    pub alabel: Box<[u8]>,
    /// Its U-label, when the reader computed it.
    pub ulabel: Option<Box<str>>,
}

/// What a settling reader and its caller share (see the module
/// documentation): the rule, which the caller gives once its LGRs are
/// known (the reader settles nothing before), and the IDN labels told
/// ahead, which the reader hands over and whose keys the caller gives back.
#[derive(Default)]
pub struct Settling {
    rule: OnceLock<Option<PlainRule>>,
    ahead: Mutex<Ahead>,
    changed: Condvar,
}

/// The IDN labels told ahead in the current read of a [`Settling`].
#[derive(Default)]
struct Ahead {
    /// The read they belong to (one more at each [`Settling::start`]).
    read: u64,
    /// Parts announced (none: the labels are not told ahead), told so
    /// far, and whether some part was not read to its end.
    parts: Option<usize>,
    told: usize,
    incomplete: bool,
    labels: Vec<AheadLabel>,
    /// Whether the labels were handed to the caller.
    handed: bool,
    keys: Option<Arc<AsciiKeys>>,
    /// The reads are over: nothing more will be told.
    finished: bool,
}

/// What a chunk is read under: the rule, and the keys of the labels told
/// ahead once they are known.
#[derive(Clone, Debug)]
pub(crate) struct RuleSnapshot {
    pub(crate) rule: PlainRule,
    pub(crate) keys: Option<Arc<AsciiKeys>>,
}

impl RuleSnapshot {
    /// [`PlainRule::verdict_with`] under these keys.
    #[inline(always)]
    pub(crate) fn verdict_with(&self, text: &[u8], has: (bool, bool, bool)) -> Settled {
        self.rule.verdict_with(text, has, self.keys.as_deref())
    }

    /// [`PlainRule::verdict`] under these keys.
    pub(crate) fn verdict(&self, text: &[u8]) -> Settled {
        self.rule.verdict(text, self.keys.as_deref())
    }
}

impl Settling {
    /// A new one, for [`Config::settle`](super::Config::settle).
    pub fn new() -> Arc<Settling> {
        Arc::new(Settling::default())
    }

    /// Gives the rule (the first one given stays); `None`: settle nothing.
    pub fn provide(&self, rule: Option<PlainRule>) {
        let _ = self.rule.set(rule);
    }

    /// Waits until the reader has told the IDN labels of the read it is
    /// in, and returns them with the read's number, for
    /// [`Settling::provide_keys`]; `None` once the reads are over
    /// ([`Settling::finish`]). The caller calls it on a thread of its own,
    /// in a loop, while the reading goes on.
    pub fn wait_ahead(&self) -> Option<(u64, Vec<AheadLabel>)> {
        let mut a = self.lock();
        loop {
            if a.finished {
                return None;
            }
            if a.parts == Some(a.told) && !a.incomplete && !a.handed {
                a.handed = true;
                return Some((a.read, std::mem::take(&mut a.labels)));
            }
            a = self.changed.wait(a).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Gives the keys of the labels [`Settling::wait_ahead`] returned for
    /// read `read` (ignored when another read started since).
    pub fn provide_keys(&self, read: u64, keys: AsciiKeys) {
        let mut a = self.lock();
        if a.read == read && !a.incomplete {
            a.keys = Some(Arc::new(keys));
        }
    }

    /// No more reads: a caller waiting in [`Settling::wait_ahead`] returns.
    pub fn finish(&self) {
        self.lock().finished = true;
        self.changed.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, Ahead> {
        self.ahead.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A read starts: what was told for another read no longer holds.
    pub(crate) fn start(&self) {
        let mut a = self.lock();
        let read = a.read + 1;
        let finished = a.finished;
        *a = Ahead { read, finished, ..Ahead::default() };
    }

    /// The IDN labels of the input will be told in `parts` parts
    /// ([`Settling::tell`]), before most of its plain labels. The read
    /// checks at its end that every label with a non-ASCII U-label was
    /// among them, else it is done again without settling, so
    /// [`Settled::Assume`] may rely on their keys.
    pub(crate) fn ahead_parts(&self, parts: usize) {
        let mut a = self.lock();
        a.parts = Some(parts);
        drop(a);
        self.changed.notify_all();
    }

    /// One of the parts announced: its IDN labels, in order. `complete`:
    /// whether the part was read to its end (when not, nothing told may be
    /// relied on).
    pub(crate) fn tell(&self, labels: impl Iterator<Item = AheadLabel>, complete: bool) {
        let mut a = self.lock();
        a.told += 1;
        a.incomplete |= !complete;
        if complete {
            a.labels.extend(labels);
        }
        drop(a);
        self.changed.notify_all();
    }

    /// What a chunk read now is read under: `None` while there is no rule.
    pub(crate) fn snapshot(&self) -> Option<RuleSnapshot> {
        let rule = self.rule.get()?.as_ref()?.clone();
        Some(RuleSnapshot { rule, keys: self.lock().keys.clone() })
    }

    /// Whether the IDN label with U-label `ulabel` (when the reader
    /// computed it) is to be told: whether it may have an all-ASCII index
    /// label ([`PlainRule::ascii_sources`]).
    pub(crate) fn may_have_ascii_key(&self, ulabel: Option<&str>) -> bool {
        let sources = self.rule.get().and_then(Option::as_ref).map(|r| r.ascii_sources.as_deref());
        match (ulabel, sources) {
            (Some(u), Some(Some(cps))) => {
                u.chars().all(|c| c.is_ascii() || cps.binary_search(&u32::from(c)).is_ok())
            }
            _ => true,
        }
    }
}

impl std::fmt::Debug for Settling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settling").field("rule", &self.rule.get()).finish_non_exhaustive()
    }
}

/// The label index given for a settled label (it has none).
pub(crate) const SETTLED: u32 = u32::MAX;
