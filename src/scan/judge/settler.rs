//! The scan's [`Settle`]: plain labels judged while the input is read
//! (see [`crate::input::Settle`]).

use super::judged::FastMap;
use super::key_filter::{Key, KeyFilter, key_has_letter};
use super::keys::text_hash_cps;
use super::memo::FirstMemo;
use super::pack::pack_tail;
use crate::input::AheadLabel;
use crate::input::Settle;
use crate::input::SettleWorker;
use crate::input::Settled;
use crate::lgr::IndexScratch;
use crate::lgr::Label as EvalLabel;
use crate::scan::Grouping;
use crate::scan::LgrSet;
use crate::scan::PACK_ALPHA;
use crate::scan::PACK_OTHER;
use crate::scan::PACK_TARGET;
use crate::scan::Shape;
use crate::scan::ldh_masks;
use crate::scan::octet_bits;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::OnceLock;

/// Settles plain labels while the input is read ([`crate::input::Settle`]),
/// for a scan with one [`LgrSet`] (RFC 7940 §8.1 eligibility, §8.5 index
/// labels): a lower-case LDH label eligible under the set's first judging
/// LGR is counted there and then, as the scan would count it, and is not
/// stored unless it has a byte that some IDN label's all-ASCII index label
/// may contain (then it is stored and tagged: it may join a group by its
/// text); one that is not eligible is kept for the scan to judge in full.
/// It settles nothing unless the set's variant LGR maps ASCII labels to
/// themselves.
///
/// Until the set is given ([`ScanSettler::provide`]) it settles nothing,
/// so the LGRs can load while the reading starts; the scan's results are
/// the same whichever labels it settled. A [`crate::input::LabelSet`]
/// read with a settler must be scanned with the set given to it.
#[derive(Default)]
pub struct ScanSettler {
    pub(super) inner: Arc<SettlerInner>,
}

/// What a [`ScanSettler`] and its workers share.
#[derive(Default)]
pub(super) struct SettlerInner {
    pub(super) set: OnceLock<LgrSet>,
    /// Eligibility under the first judging LGR by [`Shape::key`], and by
    /// packed class string.
    pub(super) shapes: Mutex<FastMap<u128, bool>>,
    pub(super) packed: Mutex<FastMap<u128, bool>>,
    /// The keys of the IDN labels told ahead ([`Settle::ahead_parts`]).
    pub(super) ahead: Mutex<AheadState>,
}

/// An IDN label told ahead, kept: as written, and its U-label when the
/// reader computed it.
pub(super) type OwnedAhead = (Box<[u8]>, Option<Box<str>>);

/// The IDN labels told ahead for the current read and their keys.
#[derive(Default)]
pub(super) struct AheadState {
    /// Parts announced (none: the labels are not told ahead), and told
    /// so far.
    pub(super) parts: Option<usize>,
    pub(super) told: usize,
    /// Some part was not read to its end.
    pub(super) incomplete: bool,
    /// Labels told before the set was known, until it is.
    pub(super) pending: Vec<OwnedAhead>,
    pub(super) keys: Option<KeyFilter>,
    /// The keys once every part is told and they are all in.
    pub(super) done: Option<Arc<KeyFilter>>,
}

impl AheadState {
    /// Adds the keys of a part, and publishes them when it was the last.
    pub(super) fn add(&mut self, keys: &[Key]) {
        self.told += 1;
        self.add_keys(keys);
    }

    /// Adds keys, and publishes them when every part is in.
    pub(super) fn add_keys(&mut self, keys: &[Key]) {
        let k = self.keys.get_or_insert_with(|| KeyFilter::new(AHEAD_BITS));
        for &key in keys {
            k.add(key);
        }
        self.publish();
    }

    pub(super) fn publish(&mut self) {
        if self.parts == Some(self.told) && !self.incomplete && self.pending.is_empty() {
            let keys = self.keys.take().unwrap_or_else(|| KeyFilter::new(AHEAD_BITS));
            self.done = Some(Arc::new(keys));
        }
    }
}

/// Bits of the hash in the filter of the IDN labels told ahead.
pub(super) const AHEAD_BITS: u32 = 20;

/// A worker's buffers for the keys of labels told ahead.
#[derive(Default)]
pub(super) struct AheadScratch {
    pub(super) label: EvalLabel,
    pub(super) scratch: IndexScratch,
    pub(super) index: Vec<u32>,
    pub(super) other: Vec<u32>,
    pub(super) keys: Vec<Key>,
}

impl AheadScratch {
    /// The keys of the IDN labels `labels` (as written; the U-label when
    /// the reader computed it) under the variant LGR of `set`, into
    /// `self.keys`, as the first pass of [`judge_all`] finds them: the index
    /// labels of their U-labels when these are not ASCII (of the label as
    /// written and in lower case, whichever the reader takes), when all
    /// ASCII. Only a label whose code points are ASCII or have an all-ASCII
    /// variant ([`LgrSet::ascii_sources`]) can have one: the others are
    /// passed over once their U-label is known.
    pub(super) fn keys_of<'a>(
        &mut self,
        set: &LgrSet,
        labels: impl Iterator<Item = (&'a [u8], Option<&'a str>)>,
    ) {
        let may_be_ascii = |u: &str| {
            set.ascii_sources
                .as_ref()
                .is_none_or(|m| u.chars().all(|c| c.is_ascii() || m.contains(u32::from(c))))
        };
        self.keys.clear();
        let key = |me: &mut AheadScratch, u: &str| {
            if u.is_ascii() || !may_be_ascii(u) {
                return;
            }
            me.label.set_text(u);
            if !set.variants.index_into(&me.label, &mut me.scratch, &mut me.index) {
                return;
            }
            let other = set.grouping == Grouping::Verified
                && set.variants.other_mode_index(&me.label, &mut me.scratch, &mut me.other);
            for key in [&me.index[..], if other { &me.other[..] } else { &[] }] {
                if !key.is_empty() && key.iter().all(|&c| c < 0x80) {
                    me.keys.push((key.len(), text_hash_cps(key), key_has_letter(key)));
                }
            }
        };
        for (a, given) in labels {
            if let Some(u) = given {
                key(self, u);
                continue;
            }
            let lower = a.to_ascii_lowercase();
            let forms = [Some(a), (lower[..] != a[..]).then_some(&lower[..])];
            for octets in forms.into_iter().flatten() {
                if let crate::idna2008::Forms::Owned { ulabel: Some(u), .. } =
                    crate::idna2008::forms_bytes(octets)
                {
                    key(self, &u);
                }
            }
        }
    }
}

impl SettlerInner {
    pub(super) fn lock_ahead(&self) -> std::sync::MutexGuard<'_, AheadState> {
        self.ahead.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The keys of the labels told before the set was known (computed
    /// with the lock held, so that no part told since publishes the keys
    /// without them; few labels wait so: the set is usually known first).
    pub(super) fn pending_keys(&self) {
        let Some(set) = self.set.get() else { return };
        let mut ahead = self.lock_ahead();
        if ahead.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut ahead.pending);
        let mut sc = AheadScratch::default();
        sc.keys_of(set, pending.iter().map(|(a, u)| (&a[..], u.as_deref())));
        ahead.add_keys(&sc.keys);
    }
}

impl ScanSettler {
    /// A settler that settles nothing until [`ScanSettler::provide`].
    pub fn new() -> Arc<ScanSettler> {
        Arc::new(ScanSettler::default())
    }

    /// Gives the LGR set the scan will use (the first one given stays).
    pub fn provide(&self, set: &LgrSet) {
        let _ = self.inner.set.set(set.clone());
        self.inner.pending_keys();
    }

    /// This settler, for [`crate::input::Config::settle`].
    pub fn settler(self: &Arc<Self>) -> crate::input::Settler {
        crate::input::Settler(Arc::clone(self) as Arc<dyn Settle>)
    }
}

impl Settle for ScanSettler {
    fn start(&self) {
        *self.inner.lock_ahead() = AheadState::default();
    }

    /// The keys of the IDN labels told ahead are their all-ASCII index
    /// labels under the variant LGR (RFC 7940 §8.5; computed once the set
    /// is given, see [`ScanSettler::provide`]): a label with a byte that
    /// such an index label may hold (a digit, with the built-in set) and
    /// that is none of them is then counted rather than tagged.
    fn ahead_parts(&self, parts: usize) {
        let mut ahead = self.inner.lock_ahead();
        *ahead = AheadState { parts: Some(parts), ..AheadState::default() };
        ahead.publish();
    }

    fn worker(&self) -> Box<dyn SettleWorker> {
        Box::new(ScanSettleWorker {
            inner: Arc::clone(&self.inner),
            shapes: FirstMemo::new(),
            packed: None,
            keys: None,
            shape: None,
            letters: None,
            ahead: AheadScratch::default(),
        })
    }
}

/// [`ScanSettler`]'s worker: its memos of eligibility by [`Shape::key`]
/// and (for labels without a shape key, made on first use) by packed class
/// string.
pub(super) struct ScanSettleWorker {
    pub(super) inner: Arc<SettlerInner>,
    pub(super) shapes: FirstMemo,
    pub(super) packed: Option<FirstMemo>,
    /// The keys of the labels told ahead, as of the part being read.
    pub(super) keys: Option<Arc<KeyFilter>>,
    /// The set's [`Shape`] once the set is known and maps ASCII labels to
    /// themselves (as of [`SettleWorker::ready`]): the key of the recent
    /// entries of `shapes`.
    pub(super) shape: Option<Shape>,
    /// [`SettleWorker::letters`], found at the first [`SettleWorker::ready`]
    /// with a shape.
    pub(super) letters: Option<u64>,
    /// Buffers for the keys of labels told ahead.
    pub(super) ahead: AheadScratch,
}

impl SettleWorker for ScanSettleWorker {
    /// Once the set is known, and when its variant LGR maps ASCII labels
    /// to themselves ([`LgrSet::ascii_identity`]).
    fn ready(&mut self) -> bool {
        self.keys = self.inner.lock_ahead().done.clone();
        let set = self.inner.set.get().filter(|s| s.ascii_identity);
        self.shape = set.and_then(|s| s.shape);
        if let (Some(set), Some(shape), None) = (set, self.shape, self.letters) {
            self.letters = Some(letters_counted(&mut self.shapes, &self.inner.shapes, set, shape));
        }
        set.is_some()
    }

    /// The lengths at which a label of letters only is counted under
    /// category 1 (see [`letters_counted`]).
    fn letters(&self) -> (u64, usize) {
        match (self.shape, self.letters) {
            (Some(_), Some(mask)) => (mask, 1),
            _ => (0, 0),
        }
    }

    /// When the first judging LGR judges a label with hyphens as the
    /// label of as many letters ([`Shape::hyphens_as_letters`]) and the
    /// hyphen is not a [`PACK_TARGET`] byte: a label with a hyphen then
    /// settles as the same label without its hyphens would
    /// ([`ScanSettleWorker::verdict`]: the flags do not change).
    fn hyphens_as_letters(&self) -> bool {
        self.letters.is_some()
            && self
                .shape
                .is_some_and(|s| s.hyphens_as_letters && !s.hyphen_target && !s.letter_target)
    }

    /// When the digits are in the letters' class, a label of letters and
    /// digits has the key of the letters-only label of its length
    /// ([`Shape::key`]), hence its eligibility; it has a letter, and a
    /// [`PACK_TARGET`] byte when the digits are such bytes: then it is
    /// assumed none of the keys told ahead when none of them has a letter
    /// ([`KeyFilter::surely_none`]), as [`ScanSettleWorker::verdict`]
    /// finds.
    fn letters_and_digits(&self) -> Option<bool> {
        let shape = self.shape?;
        self.letters?;
        if !shape.digits_as_letters() || shape.letter_target {
            return None;
        }
        if !shape.digit_target {
            return Some(false);
        }
        match &self.keys {
            Some(keys) if !keys.letters => Some(true),
            _ => None,
        }
    }

    fn ahead(&mut self, labels: &[AheadLabel<'_>], complete: bool) {
        if !complete {
            let mut ahead = self.inner.lock_ahead();
            ahead.incomplete = true;
            ahead.told += 1;
            return;
        }
        let set = match self.inner.set.get() {
            Some(set) => set,
            None => {
                let mut ahead = self.inner.lock_ahead();
                // Given since: computed here after all.
                if self.inner.set.get().is_none() {
                    ahead.pending.extend(
                        labels.iter().map(|l| (Box::from(l.alabel), l.ulabel.map(Box::from))),
                    );
                    ahead.told += 1;
                    return;
                }
                drop(ahead);
                let Some(set) = self.inner.set.get() else { return };
                set
            }
        };
        self.ahead.keys_of(set, labels.iter().map(|l| (l.alabel, l.ulabel)));
        self.inner.lock_ahead().add(&self.ahead.keys);
    }

    /// A label that [`Worker::plain_chunk`] would count at once, under
    /// the first judging LGR, is counted: category 1 with a letter
    /// (`Latn`), 0 without (`Zyyy`), as [`Worker::count_ascii`] counts
    /// them. With a [`PACK_TARGET`] byte it may be a group candidate: it
    /// is tagged. Others are kept, for [`judge_all`] to judge in full.
    #[inline]
    fn settle(&mut self, text: &[u8], tail: &[u8]) -> Settled {
        self.settle_with(text, tail, || ldh_masks(text, tail))
    }

    /// As [`ScanSettleWorker::settle`], without finding the masks again;
    /// when the shape's key is among the recent ones, from a path short
    /// enough to be cheap to call (most labels: a zone repeats few shapes).
    #[inline]
    fn settle_ldh(&mut self, text: &[u8], digits: u32, hyphens: u32) -> Settled {
        let all = octet_bits(text.len());
        debug_assert!(text.len() > 32 || ldh_masks(text, text) == (digits, hyphens, all));
        if let Some(shape) = self.shape
            && text.len() <= 32
            && let Some(eligible) = self.shapes.recent.get(shape.key(text.len(), digits, hyphens))
        {
            return self.verdict(text, eligible.then(|| shape.flags(all, digits, hyphens)));
        }
        self.settle_ldh_slow(text, digits, hyphens, all)
    }
}

/// Bit n set when every plain label of n octets (n ≤ 32) of letters only
/// settles as [`Settled::Count`]`(1)`: the shape gives all such labels of
/// one length one key, hence one class string and one judgement, found
/// here for `a` repeated (`shapes`, `shared`: the worker's memo and the
/// one the workers share). A label with a letter and no [`PACK_TARGET`]
/// byte is counted when eligible ([`ScanSettleWorker::verdict`]); when
/// the letters are such bytes, none is counted so.
pub(super) fn letters_counted(
    shapes: &mut FirstMemo,
    shared: &Mutex<FastMap<u128, bool>>,
    set: &LgrSet,
    shape: Shape,
) -> u64 {
    if shape.letter_target {
        return 0;
    }
    let text = [b'a'; 32];
    (1..=32).fold(0u64, |mask, n| {
        debug_assert_eq!(shape.flags(octet_bits(n), 0, 0), (true, false));
        let counted = shapes.eligible(set, shared, &text[..n], shape.key(n, 0, 0));
        mask | u64::from(counted) << n
    })
}

impl ScanSettleWorker {
    /// [`SettleWorker::settle_ldh`] past the recent keys.
    #[inline(never)]
    pub(super) fn settle_ldh_slow(
        &mut self,
        text: &[u8],
        digits: u32,
        hyphens: u32,
        all: u32,
    ) -> Settled {
        self.settle_with(text, text, || (digits, hyphens, all))
    }

    /// The answer for a label whose verdict is `verdict`: `None` when not
    /// eligible, else whether it has a letter and whether a target byte.
    #[inline(always)]
    pub(super) fn verdict(&self, text: &[u8], verdict: Option<(bool, bool)>) -> Settled {
        match verdict {
            None => Settled::Keep,
            Some((alpha, true)) => match &self.keys {
                Some(keys) if keys.surely_none(text, alpha) => Settled::Assume(usize::from(alpha)),
                _ => Settled::Tag(usize::from(alpha)),
            },
            Some((alpha, false)) => Settled::Count(usize::from(alpha)),
        }
    }

    /// [`SettleWorker::settle`], with [`ldh_masks`] of `text` from `masks`
    /// (called only when the label is short enough for a [`Shape`] key).
    #[inline(always)]
    pub(super) fn settle_with(
        &mut self,
        text: &[u8],
        tail: &[u8],
        masks: impl FnOnce() -> (u32, u32, u32),
    ) -> Settled {
        let Some(set) = self.inner.set.get().filter(|s| s.ascii_identity) else {
            return Settled::Keep;
        };
        // Eligible: whether with a letter, whether with a target byte.
        let verdict = match set.shape {
            Some(shape) if text.len() <= 32 => {
                let (d, h, all) = masks();
                let k = shape.key(text.len(), d, h);
                self.shapes
                    .eligible(set, &self.inner.shapes, text, k)
                    .then(|| shape.flags(all, d, h))
            }
            _ => packed_verdict(&mut self.packed, &self.inner.packed, set, text, tail),
        };
        self.verdict(text, verdict)
    }
}

/// [`ScanSettleWorker::settle`]'s verdict through the packed class string
/// (`memo`: made on first use): when eligible, whether the label has a
/// letter and whether it has a [`PACK_TARGET`] byte.
#[inline(never)]
pub(super) fn packed_verdict(
    memo: &mut Option<FirstMemo>,
    shared: &Mutex<FastMap<u128, bool>>,
    set: &LgrSet,
    text: &[u8],
    tail: &[u8],
) -> Option<(bool, bool)> {
    if text.len() > set.pack_first.max {
        return None;
    }
    let (k, flags) = pack_tail(&set.pack_first, text, tail);
    if flags & PACK_OTHER != 0 {
        return None;
    }
    memo.get_or_insert_with(FirstMemo::new)
        .eligible(set, shared, text, k)
        .then_some((flags & PACK_ALPHA != 0, flags & PACK_TARGET != 0))
}
