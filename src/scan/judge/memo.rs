//! Caches of a judging worker: scripts of code points, and verdicts of
//! labels seen before.

use super::judged::{FastMap, judge_covered, quiet, script_of_with};
use crate::lgr::IndexScratch;
use crate::lgr::Label as EvalLabel;
use crate::scan::LgrSet;
use icu_properties::CodePointMapData;
use icu_properties::props::Script;
use std::sync::Mutex;

/// Log2 of the entries of a [`ScriptCache`].
pub(super) const SCRIPT_BITS: u32 = 10;

/// A worker's cache of the Unicode script of code points, one entry per
/// value of their low bits: the labels of a zone use few code points, and
/// a probe here is a fraction of a look-up in the property's trie.
pub(super) struct ScriptCache {
    pub(super) slots: Box<[(u32, Script)]>,
}

impl ScriptCache {
    pub(super) fn new() -> ScriptCache {
        // `u32::MAX` is no code point: every entry starts empty.
        ScriptCache { slots: vec![(u32::MAX, Script::Common); 1 << SCRIPT_BITS].into_boxed_slice() }
    }

    /// The script of the label of code points `cps` (see
    /// [`script_of_with`]).
    pub(super) fn script_of(&mut self, cps: &[u32]) -> &'static str {
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
/// `per_lgr` it counts in, whether it is eligible, and whether it is
/// eligible with the own disposition `blocked` (RFC 7940 §8.3; a function
/// of the class string too, see [`crate::lgr::Lgr::ascii_classes`]).
#[derive(Clone, Copy)]
pub(super) struct Memo {
    pub(super) slot: u32,
    pub(super) eligible: bool,
    pub(super) blocked: bool,
}

/// Entries after which a worker's memo is emptied.
pub(super) const MEMO_MAX_ENTRIES: usize = 200_000;

/// Log2 of the entries of a worker's [`Recent`] cache.
pub(super) const RECENT_BITS: u32 = 13;

/// A direct-mapped cache of [`Worker::first`] by packed class string, in
/// front of the hash map: most labels repeat a recent class string, and
/// one probe with no hashing of the key's halves and no control bytes is
/// cheaper than a hash map look-up.
pub(super) struct Recent {
    /// `(key's low half, key's high half, tag)`: tag 0 for an empty entry,
    /// 1 when not eligible, 2 when eligible.
    pub(super) slots: Box<[(u64, u64, u64)]>,
}

impl Recent {
    pub(super) fn new() -> Recent {
        Recent { slots: vec![(0, 0, 0); 1 << RECENT_BITS].into_boxed_slice() }
    }

    #[inline]
    pub(super) fn at(k: u128) -> usize {
        let h = (k as u64 ^ ((k >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> (64 - RECENT_BITS)) as usize
    }

    #[inline]
    pub(super) fn get(&self, k: u128) -> Option<bool> {
        let (lo, hi, tag) = self.slots[Recent::at(k)];
        (tag != 0 && lo == k as u64 && hi == (k >> 64) as u64).then_some(tag == 2)
    }

    #[inline]
    pub(super) fn put(&mut self, k: u128, eligible: bool) {
        self.slots[Recent::at(k)] = (k as u64, (k >> 64) as u64, 1 + u64::from(eligible));
    }
}

/// A worker's memo of whether all-ASCII labels are quiet under the first
/// judging LGR ([`quiet`]: eligible, RFC 7940 §8.1, with a disposition
/// other than `blocked`, §8.3, which makes a label a finding judged in
/// full), by a key that fixes their class string under it (the packed
/// class string, or [`Shape::key`]): recent entries in front, then the
/// worker's map, then the map the workers share.
pub(super) struct FirstMemo {
    pub(super) recent: Recent,
    pub(super) seen: FastMap<u128, bool>,
    pub(super) prepared: EvalLabel,
    pub(super) scratch: IndexScratch,
}

impl FirstMemo {
    pub(super) fn new() -> FirstMemo {
        FirstMemo {
            recent: Recent::new(),
            seen: FastMap::default(),
            prepared: EvalLabel::default(),
            scratch: IndexScratch::default(),
        }
    }

    /// Whether `u`, whose key is `k`, is [`quiet`] under the first judging
    /// LGR of `set`, judging it on a miss (`shared`: the memo the workers
    /// share for these keys).
    #[inline]
    pub(super) fn quiet(
        &mut self,
        set: &LgrSet,
        shared: &Mutex<FastMap<u128, bool>>,
        u: &[u8],
        k: u128,
    ) -> bool {
        if let Some(e) = self.recent.get(k) {
            return e;
        }
        let e = self.quiet_slow(set, shared, u, k);
        self.recent.put(k, e);
        e
    }

    /// [`FirstMemo::quiet`] past the recent entries.
    #[inline(never)]
    pub(super) fn quiet_slow(
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
            .is_some_and(|v| quiet(&v));
        remember(&mut self.seen, shared, k, e);
        e
    }
}

/// The value for `k` in a worker's memo, else in the memo the workers
/// share (copied to the worker's). Workers see mostly the same keys: the
/// shared memo is locked on local misses only, which are rare.
pub(super) fn recall<V: Copy>(
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
pub(super) fn remember<V: Copy>(
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
