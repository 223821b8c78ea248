//! A judging worker: judges labels one by one, with its caches.

use super::judged::{FastMap, Judgement, judge_one_in};
use super::key_filter::KeyFilter;
use super::keys::text_hash;
use super::memo::{FirstMemo, MEMO_MAX_ENTRIES, Memo, ScriptCache, recall, remember};
use super::pack::{pack, pack_tail};
use super::tally::Tally;
use crate::input::Label as InputLabel;
use crate::input::LabelSet;
use crate::lgr::IndexScratch;
use crate::lgr::Label as EvalLabel;
use crate::scan::Grouping;
use crate::scan::LgrSet;
use crate::scan::MEMO_MAX_LEN;
use crate::scan::PACK_ALPHA;
use crate::scan::PACK_OTHER;
use crate::scan::PACK_TARGET;
use std::sync::Mutex;

/// Memo entries workers share: they see mostly the same class strings, so
/// what one judged is shared (locked on local misses only, which are rare).
#[derive(Default)]
pub(super) struct Shared {
    /// See [`Worker::first`].
    pub(super) first: Mutex<FastMap<u128, bool>>,
    /// See [`Worker::memo`].
    pub(super) memo: Mutex<FastMap<u128, Memo>>,
}

/// A worker's state: its accumulator and buffers reused across labels.
pub(super) struct Worker {
    pub(super) acc: Tally,
    pub(super) prepared: EvalLabel,
    pub(super) scratch: IndexScratch,
    pub(super) index: Vec<u32>,
    /// The index label in the other mode, with [`Grouping::Verified`].
    pub(super) other: Vec<u32>,
    /// Eligibility of LDH labels under the first judging LGR, by packed
    /// class string under it ([`LgrSet::pack_first`]).
    pub(super) first: FirstMemo,
    /// Memo of LDH labels by packed class string.
    pub(super) memo: FastMap<u128, Memo>,
    /// Memo of other all-ASCII labels by class string.
    pub(super) memo_long: FastMap<Box<[u8]>, Memo>,
    pub(super) key: Vec<u8>,
    pub(super) scripts: ScriptCache,
}

impl Worker {
    pub(super) fn new(nl: usize) -> Worker {
        Worker {
            acc: Tally { per_lgr: vec![0; nl + 1], ..Tally::default() },
            prepared: EvalLabel::default(),
            scratch: IndexScratch::default(),
            index: Vec::new(),
            other: Vec::new(),
            first: FirstMemo::new(),
            memo: FastMap::default(),
            memo_long: FastMap::default(),
            key: Vec::new(),
            scripts: ScriptCache::new(),
        }
    }

    /// Whether an LDH label whose class string under the first judging
    /// LGR packs to `k` is quiet under it (eligible, and not own-blocked:
    /// see [`super::judged::quiet`]), judging it on a miss.
    #[inline]
    pub(super) fn first_quiet(&mut self, set: &LgrSet, shared: &Shared, u: &[u8], k: u128) -> bool {
        self.first.quiet(set, &shared.first, u, k)
    }

    /// The memo entry of an all-ASCII label, judging it on a miss.
    pub(super) fn memo_judge(
        &mut self,
        set: &LgrSet,
        shared: &Shared,
        label: &InputLabel<'_>,
        u: &[u8],
        packed: Option<u128>,
    ) -> Memo {
        if let Some(k) = packed {
            if let Some(m) = recall(&mut self.memo, &shared.memo, k) {
                return m;
            }
        } else {
            self.key.clear();
            self.key.extend(u.iter().map(|&b| set.ascii_class[usize::from(b & 0x7f)]));
            if let Some(m) = self.memo_long.get(&self.key[..]) {
                return *m;
            }
        }
        let nl = set.judges.len();
        self.prepared.set_text(std::str::from_utf8(u).unwrap_or(""));
        let j = judge_one_in(set, label, &self.prepared, &mut self.scratch);
        let eligible = j.eligible();
        let m = Memo {
            slot: if eligible { j.lgr.unwrap_or(nl) as u32 } else { nl as u32 },
            eligible,
            blocked: j.blocked(),
        };
        match packed {
            Some(k) => remember(&mut self.memo, &shared.memo, k, m),
            None => {
                if self.memo_long.len() >= MEMO_MAX_ENTRIES {
                    self.memo_long.clear();
                }
                self.memo_long.insert(self.key.clone().into_boxed_slice(), m);
            }
        }
        m
    }

    /// Judges label `i` in `pass` (see [`Pass`]).
    pub(super) fn label(
        &mut self,
        set: &LgrSet,
        shared: &Shared,
        labels: &LabelSet,
        i: usize,
        pass: &Pass,
    ) {
        self.label_packed(set, shared, labels, i, pass, None);
    }

    /// Judges the plain labels of `labels.records()[start..end]` in the
    /// second pass (`pass`, a [`Pass::Plain`]); returns how many. Most are
    /// eligible under the first judging LGR by their class string, which
    /// [`Worker::label`] finds through more checks: that case is taken
    /// here, on the record alone; every other label goes to it (with its
    /// packed class string).
    pub(super) fn plain_chunk(
        &mut self,
        set: &LgrSet,
        shared: &Shared,
        labels: &LabelSet,
        (start, end): (usize, usize),
        pass: &Pass,
    ) -> u64 {
        debug_assert!(matches!(pass, Pass::Plain(_)));
        // CSV rows may pin an LGR: the general path reads them.
        let direct = set.ascii_identity && !labels.has_pins();
        let mut done = 0;
        for (i, rec) in (start..end).zip(&labels.records()[start..end]) {
            if !rec.is_plain() {
                continue;
            }
            done += 1;
            if !direct {
                self.label(set, shared, labels, i, pass);
                continue;
            }
            let (u, tail) = labels.plain_bytes_tail(i, rec);
            let (k0, flags) = pack_tail(&set.pack_first, u, tail);
            if flags & PACK_OTHER != 0
                || u.len() > set.pack_first.max
                || !self.first_quiet(set, shared, u, k0)
            {
                self.label_packed(set, shared, labels, i, pass, Some((k0, flags)));
                continue;
            }
            self.note_candidate(i, u, flags, pass);
            self.count_ascii(0, flags);
        }
        done
    }

    /// Keeps an all-ASCII label as a group candidate when its text may be
    /// an IDN label's index label (see [`Pass::may_be_ascii_key`]).
    #[inline(always)]
    pub(super) fn note_candidate(&mut self, i: usize, u: &[u8], flags: u16, pass: &Pass) {
        if flags & PACK_TARGET != 0
            && let Some(h) = pass.may_be_ascii_key(u)
        {
            self.acc.ascii_cands.push((i as u32, h));
        }
    }

    /// Counts an all-ASCII label judged through the memo: under `per_lgr`
    /// slot `slot`, and as `Latn` when it has a letter, else `Zyyy`.
    #[inline(always)]
    pub(super) fn count_ascii(&mut self, slot: u32, flags: u16) {
        self.acc.per_lgr[slot as usize] += 1;
        if flags & PACK_ALPHA != 0 {
            self.acc.latn += 1;
        } else {
            self.acc.zyyy += 1;
        }
    }

    /// [`Worker::label`], with the class string of an ASCII label under
    /// the first judging LGR already packed (`packed`).
    pub(super) fn label_packed(
        &mut self,
        set: &LgrSet,
        shared: &Shared,
        labels: &LabelSet,
        i: usize,
        pass: &Pass,
        packed: Option<(u128, u16)>,
    ) {
        let Some(label) = labels.get(i) else { return };
        let rec = label.record();
        // A plain label (lower-case LDH text in a mapped source, no finding)
        // is its own original text; others go through their U-label.
        let plain = rec.is_plain();
        let nl = set.judges.len();
        let ulabel = (!plain).then(|| label.ulabel());
        let u: &[u8] = ulabel.map_or_else(|| labels.plain_bytes(i, rec), str::as_bytes);
        // Plain labels are LDH text.
        let ascii = plain || u.is_ascii();
        if ascii && set.ascii_identity {
            // Pack the class string; note the script and whether the text
            // may equal an IDN label's index label.
            let (k0, flags) = packed.unwrap_or_else(|| pack(&set.pack_first, u));
            let ldh = flags & PACK_OTHER == 0;
            self.note_candidate(i, u, flags, pass);
            let fast = u.len() <= MEMO_MAX_LEN
                && (plain || label.finding().is_none())
                && (!labels.has_pins()
                    || label.csv().is_none_or(|c| c.lgr.is_none_or(|p| p.trim().is_empty())));
            if fast {
                let m =
                    if ldh && u.len() <= set.pack_first.max && self.first_quiet(set, shared, u, k0)
                    {
                        Memo { slot: 0, eligible: true, blocked: false }
                    } else {
                        let k = (ldh && u.len() <= set.pack.max).then(|| pack(&set.pack, u).0);
                        self.memo_judge(set, shared, &label, u, k)
                    };
                self.count_ascii(m.slot, flags);
                if !m.eligible || m.blocked {
                    // Rare: judge again for the reason's text.
                    self.prepared.set_text(std::str::from_utf8(u).unwrap_or(""));
                    let j = judge_one_in(set, &label, &self.prepared, &mut self.scratch);
                    let has =
                        set.variants.index_into(&self.prepared, &mut self.scratch, &mut self.index);
                    let index = has.then_some(&self.index[..]);
                    if m.eligible {
                        self.acc.push_blocked(set, i, &j, index);
                    } else {
                        self.acc.push_invalid(set, i, &j, index);
                    }
                }
                return;
            }
        }
        self.prepared.set_text(ulabel.unwrap_or_else(|| label.ulabel()));
        if label.is_idn() {
            self.acc.idn += 1;
        }
        let j = judge_one_in(set, &label, &self.prepared, &mut self.scratch);
        let eligible = j.eligible();
        self.acc.per_lgr[if eligible { j.lgr.unwrap_or(nl) } else { nl }] += 1;
        *self.acc.per_script.entry(self.scripts.script_of(self.prepared.cps())).or_default() += 1;
        let keep = !(self.prepared.is_empty() || ascii && set.ascii_identity);
        let has = (keep || (!eligible && ascii && set.ascii_identity))
            && index_judged(set, &j, &self.prepared, &mut self.scratch, &mut self.index);
        if !eligible {
            self.acc.push_invalid(set, i, &j, has.then_some(&self.index[..]));
        }
        if eligible && j.blocked() {
            // Rare (an action of the LGR gave it): its row needs the index
            // label, which an ASCII label's judgement does not compute.
            let has = has
                || (!keep
                    && set.variants.index_into(&self.prepared, &mut self.scratch, &mut self.index));
            self.acc.push_blocked(set, i, &j, has.then_some(&self.index[..]));
        }
        if keep && has {
            self.acc.indexed += 1;
            self.acc.keep(i, &self.index);
            // Verified grouping: the label is also kept under its index
            // label in the other mode, when that differs.
            if set.grouping == Grouping::Verified
                && set.variants.other_mode_index(&self.prepared, &mut self.scratch, &mut self.other)
                && self.other != self.index
            {
                self.acc.keep(i, &self.other);
                self.acc.dual.push(i as u32);
            }
        }
    }
}

/// The two passes of [`judge_all`]. Labels with forms (IDN labels, and
/// any label with a finding or in upper case) come first: their index
/// labels tell which texts an ASCII label must have to join a group by its
/// text. Then the plain labels, most of a zone, of which only such
/// candidates are kept (see [`KeyFilter`]).
pub(super) enum Pass {
    Others,
    Plain(KeyFilter),
}

impl Pass {
    /// The [`text_hash`] of an ASCII label's text when it may be an IDN
    /// label's all-ASCII index label (always, in the first pass: plain
    /// labels are judged once those index labels are known).
    #[inline(always)]
    pub(super) fn may_be_ascii_key(&self, u: &[u8]) -> Option<u32> {
        match self {
            Pass::Others => Some(text_hash(u)),
            Pass::Plain(k) => k.may_match(u),
        }
    }
}

/// The index label under the variant LGR of a label judged as `j` by
/// [`judge_one_in`] with `sc`, into `out` (see [`Lgr::index_into`]). When
/// every code point is in the judging LGR's [`LgrSet::same`] set, its table
/// of matching elements, left in `sc`, is the variant LGR's too
/// ([`Lgr::index_into_shared`]).
pub(super) fn index_judged(
    set: &LgrSet,
    j: &Judgement<'_>,
    label: &EvalLabel,
    sc: &mut IndexScratch,
    out: &mut Vec<u32>,
) -> bool {
    if j.verdict.is_some()
        && let Some(li) = j.lgr
        && let (Some(same), Some(judge)) = (set.same.get(li), set.judges.get(li))
        && label.cps().iter().all(|&c| same.contains(c))
    {
        return set.variants.index_into_shared(judge, label, sc, out);
    }
    set.variants.index_into(label, sc, out)
}
