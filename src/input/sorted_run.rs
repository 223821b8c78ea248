//! Sorted runs of plain labels in lists and CSV files, registered at
//! once.
//!
//! A chunk scanner marks each label that is its own deduplication key
//! ([`plain_mark`]) with [`PLAIN`] and the key orders under which it follows
//! the label before it (see [`super::key_order`]); the merge then hands the
//! collector whole runs of such labels ([`sorted_prefix`]), which it counts
//! and stores without looking each up, as long as they keep the keys so
//! far sorted ([`Collector::register_sorted_run`]). A sorted list is mostly
//! such runs; anything else is registered label by label, with the same
//! outcome.

use super::Error;
use super::collect::{Collector, Loc};
use super::key_order::{ORDERS_ALL, orders_increasing};
use super::labels::{LabelRecord, NONE};
use crate::idna2008;

/// The bit set, beside the orders, for a label that is its own key.
pub(crate) const PLAIN: u8 = 0b100;

/// The mark of a label: [`PLAIN`] with the key orders under which it
/// follows `prev` (the label before it, when that one was marked) when it
/// is its own deduplication key and needs no forms (lower-case LDH, RFC
/// 5891 §4.2.3.1: its A-label is its text, with no dot or suffix to
/// strip); 0 otherwise.
pub(crate) fn plain_mark(prev: Option<&[u8]>, token: &[u8]) -> u8 {
    if !idna2008::is_plain_ldh(token) {
        return 0;
    }
    plain_ldh_mark(prev, token)
}

/// [`plain_mark`] of a token known to be lower-case LDH
/// ([`idna2008::is_plain_ldh`]).
pub(crate) fn plain_ldh_mark(prev: Option<&[u8]>, token: &[u8]) -> u8 {
    PLAIN | prev.map_or(0, |p| orders_increasing(ORDERS_ALL, p, token))
}

/// The length of the run of labels that are their own keys at the start
/// of a sequence of such marks (whose first has [`PLAIN`]) and
/// increase under some key order, and those orders.
pub(crate) fn sorted_prefix(mut plain: impl Iterator<Item = u8>) -> (usize, u8) {
    let mut orders = ORDERS_ALL;
    let mut n = usize::from(plain.next().is_some());
    for p in plain {
        let o = orders & p;
        if p & PLAIN == 0 || o == 0 {
            break;
        }
        orders = o;
        n += 1;
    }
    (n, orders)
}

impl Collector {
    /// Registers a run of labels that are their own keys ([`plain_mark`]),
    /// in increasing order under `orders` (`ends`: the first and the
    /// last), at once, when they keep the keys so far sorted and are all
    /// new: what [`name_label`](super::list::name_label) does for each,
    /// without looking them up one by one (a sorted list is mostly such
    /// runs). `copy`: their text is copied into the set's arena (else it is
    /// in a mapped source at each label's offset). Returns the index of the
    /// last label, or `None`, having changed nothing, when the run must be
    /// registered label by label.
    pub(crate) fn register_sorted_run<'t, I>(
        &mut self,
        (first, last): (&[u8], &[u8]),
        orders: u8,
        labels: I,
        copy: bool,
    ) -> Result<Option<u32>, Error>
    where
        I: ExactSizeIterator<Item = (Loc, &'t [u8])> + Clone,
    {
        let n = labels.len();
        let Some((loc0, _)) = labels.clone().next() else { return Ok(None) };
        let arena_at = self.set.arena.len() as u64;
        let bytes: usize = if copy { labels.clone().map(|(_, t)| t.len()).sum() } else { 0 };
        // Records hold arena positions up to `record_text_max`: past it,
        // labels go one by one (and get forms entries).
        if copy && arena_at + bytes as u64 > self.record_text_max {
            return Ok(None);
        }
        let dedup = self.dedup_mut();
        // A first label that repeats the last key is a duplicate: one by one.
        let Ok(n32) = u32::try_from(n) else { return Ok(None) };
        if dedup.is_last(first).is_some()
            || !dedup.append_sorted((first, last), n32, orders, (false, false))
        {
            return Ok(None);
        }
        self.count_records(n as u64);
        if copy {
            let arena = &mut self.set.arena;
            arena.reserve(bytes);
            for (_, t) in labels.clone() {
                arena.extend_from_slice(t);
            }
        }
        let mut text_at = arena_at;
        let recs = labels.map(|(loc, t)| {
            let mut rec = LabelRecord::at(loc, t.len() as u16, NONE);
            if copy {
                let fits = rec.set_text(text_at);
                debug_assert!(fits, "checked against `record_text_max`");
                text_at += t.len() as u64;
            }
            rec
        });
        self.push_plain_run(loc0, recs).map(Some)
    }
}
