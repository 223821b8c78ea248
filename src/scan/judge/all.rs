//! Judging every label of a set: [`judge_all`].

use super::judged::Judged;
use super::key_filter::KeyFilter;
use super::keys::KeyParts;
use super::tally::Tally;
use super::worker::{Pass, Shared, Worker};
use crate::input::LabelSet;
use crate::scan::LgrSet;
use crate::scan::Progress;
use rayon::prelude::*;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;

/// Labels per progress report.
pub(super) const CHUNK: usize = 4096;

/// Labels per part of the first pass of [`judge_all`] (labels that are
/// not plain).
pub(super) const OTHERS_PART: usize = 256;

/// The parts of the plain pass of [`judge_all`]: `0..n` without the
/// `ranges` (increasing), in parts of at most [`CHUNK`] labels.
pub(super) fn plain_parts(n: usize, ranges: &[(u32, u32)]) -> Vec<(usize, usize)> {
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
            .reduce(|| Tally { per_lgr: vec![0; nl + 1], ..Tally::default() }, Tally::merge)
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
        // Plain labels the rule kept are judged in full here too.
        merged = labels.not_plain().iter().chain(kept).copied().collect();
        &merged
    };
    let first = run(others.len().div_ceil(OTHERS_PART), &|w, part| {
        let end = ((part + 1) * OTHERS_PART).min(others.len());
        // Labels a few places on are brought into cache in two steps (record
        // and forms entry, then text): each label's memory is cold after
        // the read, and the judge of one label is too short for the
        // processor to find the next on its own.
        let label_at = |k: usize| others.get(k).filter(|_| k < end).map(|&i| i as usize);
        for (k, &i) in (part * OTHERS_PART..end).zip(&others[part * OTHERS_PART..end]) {
            if let Some(j) = label_at(k + 8) {
                labels.prefetch(j, false);
            }
            if let Some(j) = label_at(k + 4) {
                labels.prefetch(j, true);
            }
            w.label(set, &shared, labels, i as usize, &Pass::Others);
        }
        (end - part * OTHERS_PART) as u64
    });
    let keys = KeyFilter::of(&first);
    // The labels in the rule's ranges were counted while read.
    let parts = plain_parts(n, labels.settle_ranges());
    let keys = Pass::Plain(keys);
    let second =
        run(parts.len(), &|w, part| w.plain_chunk(set, &shared, labels, parts[part], &keys));
    let mut acc = first.merge(second);
    // Labels counted under the rule (see `plain_rule`), and those it tagged
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
    acc.blocked.sort_by_key(|f| f.label);
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
        blocked: acc.blocked,
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
