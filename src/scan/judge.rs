//! Phase 1 of a scan: judge every label against the LGR set and compute
//! the index labels that must be kept.

use super::{
    Finding, FindingKind, Grouping, LgrSet, MEMO_MAX_LEN, PACK_ALPHA, PACK_CODE, PACK_CODE2,
    PACK_OTHER, PACK_TARGET, Packing, Progress, Shape, ldh_masks, octet_bits,
};
use crate::idna2008::Finding as IdnaFinding;
use crate::input::hash::{half, word};
use crate::input::{AheadLabel, Settle, SettleWorker, Settled};
use crate::input::{Label as InputLabel, LabelSet};
use crate::lgr::{IndexScratch, Label as EvalLabel, Lgr, Reason, Verdict};
use icu_properties::props::Script;
use icu_properties::{CodePointMapData, PropertyNamesShort};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<crate::lgr::CpHasher>>;

/// Labels per progress report.
const CHUNK: usize = 4096;

/// Labels per part of the first pass of [`judge_all`] (labels that are
/// not plain).
const OTHERS_PART: usize = 256;

/// Phase 1 results.
#[derive(Default)]
pub(crate) struct Judged {
    /// The invalid labels' rows, sorted by label (input position).
    pub invalid: Vec<Finding>,
    pub invalid_count: u64,
    pub idn: u64,
    pub indexed: u64,
    pub per_lgr: Vec<(String, u64)>,
    pub per_script: Vec<(String, u64)>,
    pub families: Vec<(String, u64)>,
    /// Index labels kept, one list per judging worker (see [`KeyParts`]).
    pub keys: KeyParts,
    /// ASCII labels whose text may be an IDN label's index label (they
    /// have a byte flagged [`PACK_TARGET`], and plain ones passed the
    /// filter of [`KeyFilter`]), with [`text_hash`] of it.
    pub ascii_cands: Vec<(u32, u32)>,
    /// With [`Grouping::Verified`]: the labels kept under two index labels
    /// (one per [`crate::lgr::IndexMode`]), sorted: the groups they are in
    /// are one candidate group.
    pub dual: Vec<u32>,
}

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
const PART_SHIFT: u32 = 40;

/// The index labels kept by the judging workers: each worker's list and
/// arena as it built them (copying them into one would fault in as much
/// new memory again, on one thread, at the end of the judging). A key's
/// part is in the high bits of its `start` ([`PART_SHIFT`]).
#[derive(Default)]
pub(crate) struct KeyParts {
    pub keyed: Vec<Vec<Keyed>>,
    arenas: Vec<Vec<u32>>,
}

impl KeyParts {
    /// Takes the workers' lists and arenas (offsets within their arena),
    /// marking each key with its part.
    fn new(parts: Vec<(Vec<Keyed>, Vec<u32>)>) -> KeyParts {
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
    use std::hash::Hasher;
    let mut h = crate::lgr::CpHasher::default();
    for &c in cps {
        h.write_u32(c);
    }
    h.write_u32(cps.len() as u32);
    h.finish()
}

/// Hash of an ASCII text (the same for an all-ASCII index label's code
/// points, see [`text_hash_cps`]): eight bytes per multiply, as
/// little-endian words (the last one padded with zeros), seeded with the
/// length. It only sorts candidates into buckets; matches are confirmed
/// by comparing the texts.
pub(crate) fn text_hash(b: &[u8]) -> u32 {
    let mut words = b.chunks_exact(8);
    let mut h = word_mix(0, b.len() as u64);
    for w in &mut words {
        h = word_mix(h, word(w, 0));
    }
    let rest = words.remainder();
    let r = rest.len();
    if r > 0 {
        // The last word padded with zeros, from loads that overlap rather
        // than a copy of a variable length (a call to `memcpy`).
        let last = if b.len() >= 8 {
            word(b, b.len() - 8) >> (8 * (8 - r))
        } else if r >= 4 {
            u64::from(half(rest, 0)) | (u64::from(half(rest, r - 4)) >> (8 * (8 - r))) << 32
        } else {
            rest.iter().rev().fold(0u64, |w, &x| w << 8 | u64::from(x))
        };
        h = word_mix(h, last);
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
fn word_mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(27)
}

/// The verdict of `lgr` on `label` when every code point of the label
/// starts one of its elements; `None` otherwise, since the label then
/// cannot be eligible under it (RFC 7940 §8.1). The table of matching
/// elements is left in `sc` ([`Lgr::judge_label_table`]).
fn judge_covered<'a>(
    lgr: &'a Lgr,
    label: &EvalLabel,
    sc: &mut IndexScratch,
) -> Option<Verdict<'a>> {
    label.cps().iter().all(|&c| lgr.starts_element(c)).then(|| lgr.judge_label_table(label, sc))
}

/// How one label was judged.
pub(crate) struct Judgement<'a> {
    /// Index of the judging LGR in the set (`None`: IDNA2008 or a bad pin).
    pub lgr: Option<usize>,
    /// The verdict when an LGR judged it.
    pub verdict: Option<Verdict<'a>>,
    /// The reason text when no LGR did.
    pub other: Option<String>,
    /// The reason family of an IDNA2008 finding, for the summary.
    pub idna_family: Option<&'static str>,
}

impl Judgement<'_> {
    pub fn eligible(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| v.eligible)
    }
}

/// Judges one label (issue rules: the CSV `lgr` pin, else the first LGR of
/// the set under which it is eligible, else the one covering most of its
/// code points, ties to the first), with buffers reused across labels: the
/// judging LGR's table of matching elements is left in `sc` (see
/// [`Lgr::judge_label_table`]) when an LGR judged the label.
pub(crate) fn judge_one_in<'a>(
    set: &'a LgrSet,
    label: &InputLabel<'_>,
    prepared: &EvalLabel,
    sc: &mut IndexScratch,
) -> Judgement<'a> {
    let cps = prepared.cps();
    if let Some(f) = label.finding() {
        return Judgement {
            lgr: None,
            verdict: None,
            other: Some(f.to_string()),
            idna_family: Some(idna_family(f)),
        };
    }
    if let Some(pin) = label.csv().and_then(|c| c.lgr.as_deref()).filter(|p| !p.trim().is_empty()) {
        return match set.find(pin) {
            Some(i) => Judgement {
                lgr: Some(i),
                verdict: Some(set.judges[i].judge_label_table(prepared, sc)),
                other: None,
                idna_family: None,
            },
            None => Judgement {
                lgr: None,
                verdict: None,
                other: Some(format!("the lgr column names '{pin}', which is not in the LGR set")),
                idna_family: None,
            },
        };
    }
    // A label with a code point that starts no element of an LGR cannot be
    // eligible under it (RFC 7940 §8.1): judge only when every code point
    // starts one, and when no LGR makes the label eligible (rare), take the
    // best-covering one.
    for (i, lgr) in set.judges.iter().enumerate() {
        if let Some(v) = judge_covered(lgr, prepared, sc)
            && v.eligible
        {
            return Judgement { lgr: Some(i), verdict: Some(v), other: None, idna_family: None };
        }
    }
    let mut best: Option<(usize, usize)> = None;
    for (i, lgr) in set.judges.iter().enumerate() {
        let cover = cps.iter().filter(|&&c| lgr.starts_element(c)).count();
        if best.is_none_or(|b| cover > b.1) {
            best = Some((i, cover));
        }
    }
    let (i, _) = best.expect("the set is not empty");
    let v = set.judges[i].judge_label_table(prepared, sc);
    Judgement { lgr: Some(i), verdict: Some(v), other: None, idna_family: None }
}

/// The reason family of an IDNA2008 finding: its text without positions
/// and code points.
fn idna_family(f: &IdnaFinding) -> &'static str {
    match f {
        IdnaFinding::Empty => "empty label",
        IdnaFinding::TooLong { .. } => "label too long",
        IdnaFinding::NotUtf8 { .. } => "not UTF-8",
        IdnaFinding::NonLdh { byte: b'.', .. } => "escaped dot inside label",
        IdnaFinding::NonLdh { .. } => "non-LDH ASCII",
        IdnaFinding::LeadingHyphen => "hyphen at start",
        IdnaFinding::TrailingHyphen => "hyphen at end",
        IdnaFinding::HyphenPositions34 => "hyphens in positions 3 and 4",
        IdnaFinding::PunycodeDecode => "punycode does not decode",
        IdnaFinding::FakeALabel => "fake A-label: decodes to ASCII",
        IdnaFinding::RoundTrip => "A-label does not round-trip",
        IdnaFinding::NotNfc => "not NFC",
        IdnaFinding::LeadingCombiningMark { .. } => "leading combining mark",
        IdnaFinding::Disallowed { .. } => "DISALLOWED code point",
        IdnaFinding::Unassigned { .. } => "UNASSIGNED code point",
        IdnaFinding::ContextJ { .. } => "CONTEXTJ fails",
        IdnaFinding::ContextO { .. } => "CONTEXTO fails",
        IdnaFinding::Bidi { .. } => "Bidi rule fails (RFC 5893)",
    }
}

/// The reason family of a verdict, for the summary.
pub(crate) fn family(lgr: &Lgr, j: &Judgement<'_>) -> String {
    if let Some(f) = j.idna_family {
        return format!("IDNA2008: {f}");
    }
    if let Some(o) = &j.other {
        let words: Vec<&str> = o
            .split_whitespace()
            .filter(|w| !w.starts_with("U+") && !w.bytes().any(|b| b.is_ascii_digit()))
            .collect();
        return format!("IDNA2008: {}", words.join(" "));
    }
    match j.verdict.as_ref().map(|v| &v.reason) {
        Some(Reason::Failures(f)) => match f.iter().find(|f| !f.rules.is_empty()) {
            Some(x) if f.iter().all(|f| !f.rules.is_empty()) => {
                format!("context rule {}", x.rules.join(","))
            }
            _ => "code point not in repertoire".to_string(),
        },
        Some(Reason::Action(_)) => {
            let t = lgr.reason_text(&j.verdict.as_ref().expect("some").reason);
            let head = t.split(" \"").next().unwrap_or(&t);
            head.split_once(": ").map_or(head, |x| x.1).to_string()
        }
        Some(Reason::Empty) => "empty label".to_string(),
        None => "unknown".to_string(),
    }
}

/// The script of a label: the one Unicode script of its code points other
/// than Common and Inherited, `Zyyy` when none, `Mixed` when several.
/// The script of each code point comes from `script`.
fn script_of_with(cps: &[u32], mut script: impl FnMut(u32) -> Script) -> &'static str {
    let mut found: Option<Script> = None;
    for &c in cps {
        let s = script(c);
        if s == Script::Common || s == Script::Inherited {
            continue;
        }
        match found {
            None => found = Some(s),
            Some(f) if f == s => {}
            Some(_) => return "Mixed",
        }
    }
    match found {
        None => "Zyyy",
        Some(s) => PropertyNamesShort::<Script>::new().get(s).unwrap_or("Zzzz"),
    }
}

/// Log2 of the entries of a [`ScriptCache`].
const SCRIPT_BITS: u32 = 10;

/// A worker's cache of the Unicode script of code points, one entry per
/// value of their low bits: the labels of a zone use few code points, and
/// a probe here is a fraction of a look-up in the property's trie.
struct ScriptCache {
    slots: Box<[(u32, Script)]>,
}

impl ScriptCache {
    fn new() -> ScriptCache {
        // `u32::MAX` is no code point: every entry starts empty.
        ScriptCache { slots: vec![(u32::MAX, Script::Common); 1 << SCRIPT_BITS].into_boxed_slice() }
    }

    /// The script of the label of code points `cps` (see
    /// [`script_of_with`]).
    fn script_of(&mut self, cps: &[u32]) -> &'static str {
        let map = CodePointMapData::<Script>::new();
        script_of_with(cps, |c| {
            let slot = &mut self.slots[(c & ((1 << SCRIPT_BITS) - 1)) as usize];
            if slot.0 != c {
                *slot = (c, map.get32(c));
            }
            slot.1
        })
    }
}

/// What the memo keeps of an all-ASCII label's judgement: the slot of
/// `per_lgr` it counts in, and whether it is eligible.
#[derive(Clone, Copy)]
struct Memo {
    slot: u32,
    eligible: bool,
}

/// Entries after which a worker's memo is emptied.
const MEMO_MAX_ENTRIES: usize = 200_000;

/// Log2 of the entries of a worker's [`Recent`] cache.
const RECENT_BITS: u32 = 13;

/// A direct-mapped cache of [`Worker::first`] by packed class string, in
/// front of the hash map: most labels repeat a recent class string, and
/// one probe with no hashing of the key's halves and no control bytes is
/// cheaper than a hash map look-up.
struct Recent {
    /// `(key's low half, key's high half, tag)`: tag 0 for an empty entry,
    /// 1 when not eligible, 2 when eligible.
    slots: Box<[(u64, u64, u64)]>,
}

impl Recent {
    fn new() -> Recent {
        Recent { slots: vec![(0, 0, 0); 1 << RECENT_BITS].into_boxed_slice() }
    }

    #[inline]
    fn at(k: u128) -> usize {
        let h = (k as u64 ^ ((k >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> (64 - RECENT_BITS)) as usize
    }

    #[inline]
    fn get(&self, k: u128) -> Option<bool> {
        let (lo, hi, tag) = self.slots[Recent::at(k)];
        (tag != 0 && lo == k as u64 && hi == (k >> 64) as u64).then_some(tag == 2)
    }

    #[inline]
    fn put(&mut self, k: u128, eligible: bool) {
        self.slots[Recent::at(k)] = (k as u64, (k >> 64) as u64, 1 + u64::from(eligible));
    }
}

/// A worker's memo of the eligibility of all-ASCII labels under the first
/// judging LGR (RFC 7940 §8.1), by a key that fixes their class string
/// under it (the packed class string, or [`Shape::key`]): recent entries
/// in front, then the worker's map, then the map the workers share.
struct FirstMemo {
    recent: Recent,
    seen: FastMap<u128, bool>,
    prepared: EvalLabel,
    scratch: IndexScratch,
}

impl FirstMemo {
    fn new() -> FirstMemo {
        FirstMemo {
            recent: Recent::new(),
            seen: FastMap::default(),
            prepared: EvalLabel::default(),
            scratch: IndexScratch::default(),
        }
    }

    /// Whether `u`, whose key is `k`, is eligible under the first judging
    /// LGR of `set`, judging it on a miss (`shared`: the memo the workers
    /// share for these keys).
    #[inline]
    fn eligible(
        &mut self,
        set: &LgrSet,
        shared: &Mutex<FastMap<u128, bool>>,
        u: &[u8],
        k: u128,
    ) -> bool {
        if let Some(e) = self.recent.get(k) {
            return e;
        }
        let e = self.eligible_slow(set, shared, u, k);
        self.recent.put(k, e);
        e
    }

    /// [`FirstMemo::eligible`] past the recent entries.
    #[inline(never)]
    fn eligible_slow(
        &mut self,
        set: &LgrSet,
        shared: &Mutex<FastMap<u128, bool>>,
        u: &[u8],
        k: u128,
    ) -> bool {
        if let Some(e) = recall(&mut self.seen, shared, k) {
            return e;
        }
        self.prepared.set_text(std::str::from_utf8(u).unwrap_or(""));
        // As `judge_one_in` takes the first LGR.
        let e = judge_covered(&set.judges[0], &self.prepared, &mut self.scratch)
            .is_some_and(|v| v.eligible);
        remember(&mut self.seen, shared, k, e);
        e
    }
}

/// The value for `k` in a worker's memo, else in the memo the workers
/// share (copied to the worker's). Workers see mostly the same keys: the
/// shared memo is locked on local misses only, which are rare.
fn recall<V: Copy>(
    local: &mut FastMap<u128, V>,
    shared: &Mutex<FastMap<u128, V>>,
    k: u128,
) -> Option<V> {
    if let Some(&v) = local.get(&k) {
        return Some(v);
    }
    let v = shared.lock().ok().and_then(|s| s.get(&k).copied())?;
    if local.len() >= MEMO_MAX_ENTRIES {
        local.clear();
    }
    local.insert(k, v);
    Some(v)
}

/// Keeps `v` for `k` in a worker's memo (emptied when full) and in the
/// memo the workers share (while it has room).
fn remember<V: Copy>(
    local: &mut FastMap<u128, V>,
    shared: &Mutex<FastMap<u128, V>>,
    k: u128,
    v: V,
) {
    if local.len() >= MEMO_MAX_ENTRIES {
        local.clear();
    }
    local.insert(k, v);
    if let Ok(mut s) = shared.lock()
        && s.len() < MEMO_MAX_ENTRIES
    {
        s.insert(k, v);
    }
}

/// Per-worker accumulator.
#[derive(Default)]
struct Acc {
    invalid: Vec<Finding>,
    idn: u64,
    indexed: u64,
    per_lgr: Vec<u64>,
    /// All-ASCII labels counted apart (`Latn`, `Zyyy`).
    latn: u64,
    zyyy: u64,
    per_script: BTreeMap<&'static str, u64>,
    families: BTreeMap<String, u64>,
    /// Index labels kept by this worker: `arena[start..start + len]`.
    keyed: Vec<Keyed>,
    arena: Vec<u32>,
    /// Those of the workers merged into this one (see [`KeyParts`]).
    more: Vec<(Vec<Keyed>, Vec<u32>)>,
    ascii_cands: Vec<(u32, u32)>,
    /// See [`Judged::dual`].
    dual: Vec<u32>,
}

impl Acc {
    /// Records a label that is not eligible, with its index label if any.
    fn push_invalid(
        &mut self,
        set: &LgrSet,
        label: usize,
        j: &Judgement<'_>,
        index: Option<&[u32]>,
    ) {
        let [lgr, disposition, reason, fam] = verdict_fields(set, j);
        *self.families.entry(fam).or_default() += 1;
        self.invalid.push(Finding {
            kind: FindingKind::Invalid,
            label,
            lgr,
            disposition,
            reason,
            index: index.map(index_text).unwrap_or_default(),
            group: None,
            role: None,
            relation: None,
            holder: None,
        });
    }

    fn merge(mut self, mut o: Acc) -> Acc {
        // Append the smaller to the larger: the reduction starts from an
        // empty accumulator, and copying a worker's whole arrays into it
        // would fault in as much new memory again. Only the order of the
        // arrays changes, which no reader of them depends on (invalid rows
        // are sorted by label, candidates are grouped by hash). The kept
        // keys are not copied at all (see [`KeyParts`]).
        if self.invalid.len() + self.ascii_cands.len() < o.invalid.len() + o.ascii_cands.len() {
            std::mem::swap(&mut self, &mut o);
        }
        self.invalid.append(&mut o.invalid);
        self.idn += o.idn;
        self.indexed += o.indexed;
        if self.per_lgr.len() < o.per_lgr.len() {
            self.per_lgr.resize(o.per_lgr.len(), 0);
        }
        for (i, n) in o.per_lgr.into_iter().enumerate() {
            self.per_lgr[i] += n;
        }
        self.latn += o.latn;
        self.zyyy += o.zyyy;
        for (k, n) in o.per_script {
            *self.per_script.entry(k).or_default() += n;
        }
        for (k, n) in o.families {
            *self.families.entry(k).or_default() += n;
        }
        if !o.keyed.is_empty() {
            self.more.push((o.keyed, o.arena));
        }
        self.more.append(&mut o.more);
        self.ascii_cands.append(&mut o.ascii_cands);
        self.dual.append(&mut o.dual);
        self
    }

    /// Keeps `index` as the index label of label `i`.
    fn keep(&mut self, i: usize, index: &[u32]) {
        let start = self.arena.len() as u64;
        self.arena.extend_from_slice(index);
        self.keyed.push(Keyed {
            hash: Keyed::hash_of(index),
            label: i as u32,
            len: index.len() as u32,
            start,
        });
    }

    /// Each kept index label, of every worker merged in.
    fn keys(&self) -> impl Iterator<Item = &[u32]> {
        std::iter::once((&self.keyed, &self.arena))
            .chain(self.more.iter().map(|(k, a)| (k, a)))
            .flat_map(|(keyed, arena)| {
                keyed.iter().map(|e| &arena[e.start as usize..][..e.len as usize])
            })
    }
}

/// Memo entries workers share: they see mostly the same class strings, so
/// what one judged is shared (locked on local misses only, which are rare).
#[derive(Default)]
struct Shared {
    /// See [`Worker::first`].
    first: Mutex<FastMap<u128, bool>>,
    /// See [`Worker::memo`].
    memo: Mutex<FastMap<u128, Memo>>,
}

/// A worker's state: its accumulator and buffers reused across labels.
struct Worker {
    acc: Acc,
    prepared: EvalLabel,
    scratch: IndexScratch,
    index: Vec<u32>,
    /// The index label in the other mode, with [`Grouping::Verified`].
    other: Vec<u32>,
    /// Eligibility of LDH labels under the first judging LGR, by packed
    /// class string under it ([`LgrSet::pack_first`]).
    first: FirstMemo,
    /// Memo of LDH labels by packed class string.
    memo: FastMap<u128, Memo>,
    /// Memo of other all-ASCII labels by class string.
    memo_long: FastMap<Box<[u8]>, Memo>,
    key: Vec<u8>,
    scripts: ScriptCache,
}

impl Worker {
    fn new(nl: usize) -> Worker {
        Worker {
            acc: Acc { per_lgr: vec![0; nl + 1], ..Acc::default() },
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
    /// LGR packs to `k` is eligible under it, judging it on a miss.
    #[inline]
    fn first_eligible(&mut self, set: &LgrSet, shared: &Shared, u: &[u8], k: u128) -> bool {
        self.first.eligible(set, &shared.first, u, k)
    }

    /// The memo entry of an all-ASCII label, judging it on a miss.
    fn memo_judge(
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
        let m =
            Memo { slot: if eligible { j.lgr.unwrap_or(nl) as u32 } else { nl as u32 }, eligible };
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
    fn label(&mut self, set: &LgrSet, shared: &Shared, labels: &LabelSet, i: usize, pass: &Pass) {
        self.label_packed(set, shared, labels, i, pass, None);
    }

    /// Judges the plain labels of `labels.records()[start..end]` in the
    /// second pass (`pass`, a [`Pass::Plain`]); returns how many. Most are
    /// eligible under the first judging LGR by their class string, which
    /// [`Worker::label`] finds through more checks: that case is taken
    /// here, on the record alone; every other label goes to it (with its
    /// packed class string).
    fn plain_chunk(
        &mut self,
        set: &LgrSet,
        shared: &Shared,
        labels: &LabelSet,
        (start, end): (usize, usize),
        pass: &Pass,
    ) -> u64 {
        debug_assert!(matches!(pass, Pass::Plain(_)));
        // CSV rows may pin an LGR: the general path reads them.
        let direct = set.ascii_identity && !labels.has_csv();
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
                || !self.first_eligible(set, shared, u, k0)
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
    fn note_candidate(&mut self, i: usize, u: &[u8], flags: u16, pass: &Pass) {
        if flags & PACK_TARGET != 0
            && let Some(h) = pass.may_be_ascii_key(u)
        {
            self.acc.ascii_cands.push((i as u32, h));
        }
    }

    /// Counts an all-ASCII label judged through the memo: under `per_lgr`
    /// slot `slot`, and as `Latn` when it has a letter, else `Zyyy`.
    #[inline(always)]
    fn count_ascii(&mut self, slot: u32, flags: u16) {
        self.acc.per_lgr[slot as usize] += 1;
        if flags & PACK_ALPHA != 0 {
            self.acc.latn += 1;
        } else {
            self.acc.zyyy += 1;
        }
    }

    /// [`Worker::label`], with the class string of an ASCII label under
    /// the first judging LGR already packed (`packed`).
    fn label_packed(
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
                && label.csv().is_none_or(|c| c.lgr.as_deref().is_none_or(|p| p.trim().is_empty()));
            if fast {
                let m = if ldh
                    && u.len() <= set.pack_first.max
                    && self.first_eligible(set, shared, u, k0)
                {
                    Memo { slot: 0, eligible: true }
                } else {
                    let k = (ldh && u.len() <= set.pack.max).then(|| pack(&set.pack, u).0);
                    self.memo_judge(set, shared, &label, u, k)
                };
                self.count_ascii(m.slot, flags);
                if !m.eligible {
                    // Rare: judge again for the reason's text.
                    self.prepared.set_text(std::str::from_utf8(u).unwrap_or(""));
                    let j = judge_one_in(set, &label, &self.prepared, &mut self.scratch);
                    let has =
                        set.variants.index_into(&self.prepared, &mut self.scratch, &mut self.index);
                    self.acc.push_invalid(set, i, &j, has.then_some(&self.index[..]));
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
enum Pass {
    Others,
    Plain(KeyFilter),
}

impl Pass {
    /// The [`text_hash`] of an ASCII label's text when it may be an IDN
    /// label's all-ASCII index label (always, in the first pass: plain
    /// labels are judged once those index labels are known).
    #[inline(always)]
    fn may_be_ascii_key(&self, u: &[u8]) -> Option<u32> {
        match self {
            Pass::Others => Some(text_hash(u)),
            Pass::Plain(k) => k.may_match(u),
        }
    }
}

/// A filter of all-ASCII index labels: their lengths (a bit per length,
/// the last for 63 and more) and the low `bits` bits of their
/// [`text_hash_cps`] (a bit per value). A text with neither is surely none
/// of them; a test is two loads. The first pass of [`judge_all`] keeps the
/// index labels it found in one of 2^16 bits (8 KiB); the settler keeps
/// those of the IDN labels told ahead in one of 2^20 bits (128 KiB), since
/// it tests every plain label with a digit against it.
struct KeyFilter {
    lengths: u64,
    mask: u32,
    words: Box<[u64]>,
    /// Whether some key has a letter (a code point neither a digit nor
    /// the hyphen): else a text with one is surely none of them.
    letters: bool,
}

/// A key as [`KeyFilter::add`] takes it: its length, its
/// [`text_hash_cps`], and whether it has a letter.
type Key = (usize, u32, bool);

/// Whether an all-ASCII key has a letter (see [`KeyFilter::letters`]).
fn key_has_letter(key: &[u32]) -> bool {
    key.iter().any(|&c| !(u32::from(b'0')..=u32::from(b'9')).contains(&c) && c != u32::from(b'-'))
}

impl KeyFilter {
    fn new(bits: u32) -> KeyFilter {
        KeyFilter {
            lengths: 0,
            mask: (1 << bits) - 1,
            words: vec![0; 1 << (bits - 6)].into(),
            letters: false,
        }
    }

    /// The keys of the index labels the first pass of [`judge_all`] kept.
    fn of(acc: &Acc) -> KeyFilter {
        let mut k = KeyFilter::new(16);
        for key in acc.keys() {
            k.add_cps(key);
        }
        k
    }

    /// Adds an index label, when it is all ASCII.
    fn add_cps(&mut self, key: &[u32]) {
        if key.iter().all(|&c| c < 0x80) {
            self.add((key.len(), text_hash_cps(key), key_has_letter(key)));
        }
    }

    /// Adds the key of `len` code points whose [`text_hash_cps`] is `h`.
    fn add(&mut self, (len, h, letter): Key) {
        self.letters |= letter;
        self.lengths |= 1 << len.min(63);
        let bit = (h & self.mask) as usize;
        self.words[bit / 64] |= 1 << (bit % 64);
    }

    /// Whether the LDH text `u` is surely none of the keys; `alpha`:
    /// whether it has a letter (it is no key then when none has one).
    #[inline(always)]
    fn surely_none(&self, u: &[u8], alpha: bool) -> bool {
        (alpha && !self.letters) || self.may_match(u).is_none()
    }

    /// The [`text_hash`] of `u` when its length and hash are those of
    /// some key (else, surely none).
    #[inline(always)]
    fn may_match(&self, u: &[u8]) -> Option<u32> {
        if self.lengths & (1 << u.len().min(63)) == 0 {
            return None;
        }
        let h = text_hash(u);
        self.may_match_hash(u.len(), h).then_some(h)
    }

    /// Whether a text of `len` octets whose [`text_hash`] is `h` may be a
    /// key.
    #[inline(always)]
    fn may_match_hash(&self, len: usize, h: u32) -> bool {
        let bit = (h & self.mask) as usize;
        self.lengths & (1 << len.min(63)) != 0
            && self.words.get(bit / 64).is_some_and(|w| w & 1 << (bit % 64) != 0)
    }
}

/// The index label under the variant LGR of a label judged as `j` by
/// [`judge_one_in`] with `sc`, into `out` (see [`Lgr::index_into`]). When
/// every code point is in the judging LGR's [`LgrSet::same`] set, its table
/// of matching elements, left in `sc`, is the variant LGR's too
/// ([`Lgr::index_into_shared`]).
fn index_judged(
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
fn pack(p: &Packing, u: &[u8]) -> (u128, u16) {
    pack_tail(p, u, u)
}

/// Bytes of a label packed at once by [`pack`].
const WINDOW: usize = 16;

/// The octet that pads a label to [`WINDOW`] bytes: not ASCII, so never
/// in a label that is packed; its code is 0 and it has no flag.
pub(crate) const PAD: u8 = 0xff;

/// [`pack`] of `u`, which `tail` starts with (the bytes after the label
/// in its buffer, when there are [`WINDOW`] of them, are read and masked
/// rather than the label copied).
#[inline(always)]
fn pack_tail(p: &Packing, u: &[u8], tail: &[u8]) -> (u128, u16) {
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
fn pack_window<K>(p: &Packing, w: u128) -> (K, u16)
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
fn pack_in<K>(p: &Packing, u: &[u8]) -> (K, u16)
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

/// LGR name (or `IDNA2008`), disposition, reason text and reason family
/// of a judgement.
pub(crate) fn verdict_fields(set: &LgrSet, j: &Judgement<'_>) -> [String; 4] {
    let lgr = j.lgr.map(|l| &*set.judges[l]);
    let fam = lgr.map_or_else(|| family(set.variants(), j), |l| family(l, j));
    match (&j.verdict, lgr) {
        (Some(v), Some(l)) => {
            [l.name().to_string(), v.disposition.to_string(), l.reason_text(&v.reason), fam]
        }
        _ => [
            "IDNA2008".to_string(),
            "invalid".to_string(),
            j.other.clone().unwrap_or_default(),
            fam,
        ],
    }
}

/// The parts of the plain pass of [`judge_all`]: `0..n` without the
/// `ranges` (increasing), in parts of at most [`CHUNK`] labels.
fn plain_parts(n: usize, ranges: &[(u32, u32)]) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut split = |a: usize, b: usize| {
        let mut s = a;
        while s < b {
            let e = (s + CHUNK).min(b);
            parts.push((s, e));
            s = e;
        }
    };
    let mut at = 0;
    for &(a, b) in ranges {
        let (a, b) = ((a as usize).min(n), (b as usize).min(n));
        if b <= a {
            continue;
        }
        if a > at {
            split(at, a);
        }
        at = at.max(b);
    }
    split(at, n);
    parts
}

/// Text of an index label.
pub(crate) fn index_text(cps: &[u32]) -> String {
    cps.iter().map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}')).collect()
}

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
    inner: Arc<SettlerInner>,
}

/// What a [`ScanSettler`] and its workers share.
#[derive(Default)]
struct SettlerInner {
    set: OnceLock<LgrSet>,
    /// Eligibility under the first judging LGR by [`Shape::key`], and by
    /// packed class string.
    shapes: Mutex<FastMap<u128, bool>>,
    packed: Mutex<FastMap<u128, bool>>,
    /// The keys of the IDN labels told ahead ([`Settle::ahead_parts`]).
    ahead: Mutex<AheadState>,
}

/// An IDN label told ahead, kept: as written, and its U-label when the
/// reader computed it.
type OwnedAhead = (Box<[u8]>, Option<Box<str>>);

/// The IDN labels told ahead for the current read and their keys.
#[derive(Default)]
struct AheadState {
    /// Parts announced (none: the labels are not told ahead), and told
    /// so far.
    parts: Option<usize>,
    told: usize,
    /// Some part was not read to its end.
    incomplete: bool,
    /// Labels told before the set was known, until it is.
    pending: Vec<OwnedAhead>,
    keys: Option<KeyFilter>,
    /// The keys once every part is told and they are all in.
    done: Option<Arc<KeyFilter>>,
}

impl AheadState {
    /// Adds the keys of a part, and publishes them when it was the last.
    fn add(&mut self, keys: &[Key]) {
        self.told += 1;
        self.add_keys(keys);
    }

    /// Adds keys, and publishes them when every part is in.
    fn add_keys(&mut self, keys: &[Key]) {
        let k = self.keys.get_or_insert_with(|| KeyFilter::new(AHEAD_BITS));
        for &key in keys {
            k.add(key);
        }
        self.publish();
    }

    fn publish(&mut self) {
        if self.parts == Some(self.told) && !self.incomplete && self.pending.is_empty() {
            let keys = self.keys.take().unwrap_or_else(|| KeyFilter::new(AHEAD_BITS));
            self.done = Some(Arc::new(keys));
        }
    }
}

/// Bits of the hash in the filter of the IDN labels told ahead.
const AHEAD_BITS: u32 = 20;

/// A worker's buffers for the keys of labels told ahead.
#[derive(Default)]
struct AheadScratch {
    label: EvalLabel,
    scratch: IndexScratch,
    index: Vec<u32>,
    other: Vec<u32>,
    keys: Vec<Key>,
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
    fn keys_of<'a>(
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
    fn lock_ahead(&self) -> std::sync::MutexGuard<'_, AheadState> {
        self.ahead.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The keys of the labels told before the set was known (computed
    /// with the lock held, so that no part told since publishes the keys
    /// without them; few labels wait so: the set is usually known first).
    fn pending_keys(&self) {
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
struct ScanSettleWorker {
    inner: Arc<SettlerInner>,
    shapes: FirstMemo,
    packed: Option<FirstMemo>,
    /// The keys of the labels told ahead, as of the part being read.
    keys: Option<Arc<KeyFilter>>,
    /// The set's [`Shape`] once the set is known and maps ASCII labels to
    /// themselves (as of [`SettleWorker::ready`]): the key of the recent
    /// entries of `shapes`.
    shape: Option<Shape>,
    /// [`SettleWorker::letters`], found at the first [`SettleWorker::ready`]
    /// with a shape.
    letters: Option<u64>,
    /// Buffers for the keys of labels told ahead.
    ahead: AheadScratch,
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
fn letters_counted(
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
    fn settle_ldh_slow(&mut self, text: &[u8], digits: u32, hyphens: u32, all: u32) -> Settled {
        self.settle_with(text, text, || (digits, hyphens, all))
    }

    /// The answer for a label whose verdict is `verdict`: `None` when not
    /// eligible, else whether it has a letter and whether a target byte.
    #[inline(always)]
    fn verdict(&self, text: &[u8], verdict: Option<(bool, bool)>) -> Settled {
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
    fn settle_with(
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
fn packed_verdict(
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

pub(crate) fn judge_all(labels: &LabelSet, set: &LgrSet, progress: &dyn Progress) -> Judged {
    let n = labels.len();
    progress.phase("judging labels", n as u64);
    let nl = set.judges.len();
    let shared = Shared::default();
    // One worker per thread claims chunks in turn: the cost of a label
    // varies a hundredfold (an IDN label against an LDH one), and IDN
    // labels cluster in a sorted zone (`xn--` sorts late), so a static
    // split of the range would leave one thread judging them alone.
    let chunks = n.div_ceil(CHUNK);
    let workers = rayon::current_num_threads().clamp(1, chunks.max(1));
    // `work(w, k)` judges part `k` of a pass and says how many labels.
    let run = |parts: usize, work: &(dyn Fn(&mut Worker, usize) -> u64 + Sync)| {
        let next = AtomicUsize::new(0);
        (0..workers)
            .into_par_iter()
            .with_max_len(1)
            .map(|_| {
                let mut w = Worker::new(nl);
                loop {
                    let part = next.fetch_add(1, Ordering::Relaxed);
                    if part >= parts {
                        break;
                    }
                    progress.advance(work(&mut w, part));
                }
                w.acc
            })
            .reduce(|| Acc { per_lgr: vec![0; nl + 1], ..Acc::default() }, Acc::merge)
    };
    // The first pass takes the labels that are not plain from their list
    // (a few in a hundred of a zone; each costs about as much as a
    // thousand plain ones, hence the smaller parts), without reading the
    // records of the others.
    let kept = labels.settle_kept();
    let merged: Vec<u32>;
    let others = if kept.is_empty() {
        labels.not_plain()
    } else {
        // Plain labels the settler kept are judged in full here too.
        merged = labels.not_plain().iter().chain(kept).copied().collect();
        &merged
    };
    let first = run(others.len().div_ceil(OTHERS_PART), &|w, part| {
        let end = ((part + 1) * OTHERS_PART).min(others.len());
        // Labels a few ahead are brought into cache in two steps (record
        // and forms entry, then text): each label's memory is cold after
        // the read, and the judge of one label is too short for the
        // processor to find the next on its own.
        let ahead = |k: usize| others.get(k).filter(|_| k < end).map(|&i| i as usize);
        for (k, &i) in (part * OTHERS_PART..end).zip(&others[part * OTHERS_PART..end]) {
            if let Some(j) = ahead(k + 8) {
                labels.prefetch(j, false);
            }
            if let Some(j) = ahead(k + 4) {
                labels.prefetch(j, true);
            }
            w.label(set, &shared, labels, i as usize, &Pass::Others);
        }
        (end - part * OTHERS_PART) as u64
    });
    let keys = KeyFilter::of(&first);
    // The labels in the settler's ranges were judged while read.
    let parts = plain_parts(n, labels.settle_ranges());
    let keys = Pass::Plain(keys);
    let second =
        run(parts.len(), &|w, part| w.plain_chunk(set, &shared, labels, parts[part], &keys));
    let mut acc = first.merge(second);
    // Labels the settler counted (see `ScanSettler`), and those it tagged
    // that may be candidates.
    let [zyyy, latn] = labels.settled();
    acc.per_lgr[0] += zyyy + latn;
    acc.zyyy += zyyy;
    acc.latn += latn;
    if let Pass::Plain(keys) = &keys {
        let tags = labels.settle_tags();
        let found: Vec<Vec<(u32, u32)>> = tags
            .par_chunks(1 << 16)
            .map(|part| {
                part.iter()
                    .filter_map(|&i| {
                        let rec = labels.records().get(i as usize)?;
                        if keys.lengths & (1 << usize::from(rec.len()).min(63)) == 0 {
                            return None;
                        }
                        keys.may_match(labels.plain_bytes(i as usize, rec)).map(|h| (i, h))
                    })
                    .collect()
            })
            .collect();
        for f in found {
            acc.ascii_cands.extend(f);
        }
        progress.advance(tags.len() as u64);
    }
    let mut per_lgr: Vec<(String, u64)> =
        set.judges.iter().zip(&acc.per_lgr).map(|(l, &n)| (l.name().to_string(), n)).collect();
    per_lgr.push(("(none: invalid)".to_string(), acc.per_lgr.get(nl).copied().unwrap_or(0)));
    // `group::resolve` looks invalid labels up by label.
    acc.invalid.sort_by_key(|f| f.label);
    let invalid_count = acc.invalid.len() as u64;
    acc.dual.sort_unstable();
    let mut per_script = acc.per_script;
    for (k, v) in [("Latn", acc.latn), ("Zyyy", acc.zyyy)] {
        if v > 0 {
            *per_script.entry(k).or_default() += v;
        }
    }
    Judged {
        invalid: acc.invalid,
        invalid_count,
        idn: acc.idn,
        indexed: acc.indexed,
        per_lgr,
        per_script: per_script.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        families: acc.families.into_iter().collect(),
        keys: KeyParts::new(std::iter::once((acc.keyed, acc.arena)).chain(acc.more).collect()),
        ascii_cands: acc.ascii_cands,
        dual: acc.dual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key filter knows whether some key has a letter: a label with a
    /// letter is surely no key when none has (the settler's verdict).
    #[test]
    fn key_filter_knows_whether_keys_have_letters() {
        let cps = |t: &str| t.chars().map(u32::from).collect::<Vec<u32>>();
        assert!(!key_has_letter(&cps("0123456789")));
        assert!(!key_has_letter(&cps("1-2")));
        assert!(key_has_letter(&cps("1a")));
        assert!(key_has_letter(&cps("z")));
        let mut k = KeyFilter::new(16);
        k.add_cps(&cps("123"));
        assert!(!k.letters);
        assert!(!k.surely_none(b"123", false));
        assert!(k.surely_none(b"12a", true));
        // A length no key has.
        assert!(k.surely_none(b"1234", false));
        k.add_cps(&cps("a12"));
        assert!(k.letters);
        assert!(!k.surely_none(b"a12", true));
        assert!(!k.surely_none(b"123", false));
    }

    /// An ASCII label's text hash is its index label's, whatever the
    /// length (whole words, a padded last word, none).
    #[test]
    fn text_hash_of_bytes_and_code_points_agree() {
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
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
    fn plain_parts_leave_out_the_settled_ranges() {
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
    fn packing_keeps_class_strings_apart() {
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
            let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15);
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
}
