//! Counting the distinct deeper and outside owner names of a read, by
//! their hashes.

use crate::hash::FastSet;

/// The hashes of the lower-case deeper (or outside) owner names met, one
/// per run of records of a name, whose distinct values are counted at the
/// end of the read: a hash set took a cache miss per name in the ordered
/// merge of the chunks, while appending is sequential and the sort at the
/// end runs on all threads. Sorted and deduplicated whenever it doubles
/// past 2^20 hashes, so that it holds at most about twice the distinct
/// names whatever the order of the input.
#[derive(Default)]
pub(crate) struct DistinctNames {
    hashes: Vec<u64>,
    compact_at: usize,
}

impl DistinctNames {
    #[inline]
    pub(crate) fn push(&mut self, h: u64) {
        self.extend(&[h]);
    }

    pub(crate) fn extend(&mut self, hs: &[u64]) {
        self.hashes.extend_from_slice(hs);
        if self.hashes.len() >= self.compact_at.max(1 << 20) {
            self.compact();
        }
    }

    pub(crate) fn compact(&mut self) {
        dedup_hashes(&mut self.hashes);
        self.compact_at = 2 * self.hashes.len();
    }

    /// The number of distinct hashes.
    pub(crate) fn distinct(&mut self) -> u64 {
        self.compact();
        self.hashes.len() as u64
    }
}

/// Removes the repeated values of `v`, whose order is not kept: one pass
/// spreads the values into 256 buckets by their top byte (hashes: about
/// equal buckets), then the buckets, a few thousand values each for a
/// zone's names, are deduplicated on their own in parallel, each through a
/// hash set that stays in the cache ([`dedup_bucket`]), and their distinct
/// values gathered. On the 500,000 deeper names of W1 this replaced a sort
/// of each bucket (#4).
fn dedup_hashes(v: &mut Vec<u64>) {
    use rayon::prelude::*;
    if v.len() < 1 << 16 {
        v.sort_unstable();
        v.dedup();
        return;
    }
    let bucket = |h: u64| (h >> 56) as usize;
    let mut ends = [0usize; 256];
    for &h in v.iter() {
        ends[bucket(h)] += 1;
    }
    let mut at = [0usize; 256];
    let mut sum = 0;
    for (a, e) in at.iter_mut().zip(ends.iter_mut()) {
        *a = sum;
        sum += *e;
        *e = sum;
    }
    let mut out = vec![0u64; v.len()];
    for &h in v.iter() {
        let b = bucket(h);
        out[at[b]] = h;
        at[b] += 1;
    }
    let mut parts: Vec<&mut [u64]> = Vec::with_capacity(256);
    let mut rest = &mut out[..];
    let mut start = 0;
    for &end in &ends {
        let (part, tail) = rest.split_at_mut(end - start);
        parts.push(part);
        rest = tail;
        start = end;
    }
    let kept: Vec<usize> =
        parts.into_par_iter().map_init(FastSet::default, |seen, p| dedup_bucket(p, seen)).collect();
    // Each bucket's distinct values lead its part: close the gaps.
    let (mut w, mut start) = (0, 0);
    for (&end, &k) in ends.iter().zip(&kept) {
        out.copy_within(start..start + k, w);
        w += k;
        start = end;
    }
    out.truncate(w);
    *v = out;
}

/// Moves the distinct values of `p` to its front, in the order they
/// first come, and returns how many there are. `seen` is reused from
/// bucket to bucket.
fn dedup_bucket(p: &mut [u64], seen: &mut FastSet<u64>) -> usize {
    seen.clear();
    seen.reserve(p.len());
    let mut kept = 0;
    for i in 0..p.len() {
        let h = p[i];
        if seen.insert(h) {
            p[kept] = h;
            kept += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct names are counted exactly whatever the order and however
    /// often the list is compacted on the way (past 2^20 hashes), and the
    /// list holds at most about twice the distinct hashes.
    #[test]
    fn name_hashes_count_distinct_values() {
        for (n, distinct) in [(0u64, 1u64), (10, 3), (1_500_000, 50_000), (2_500_000, 1_500_000)] {
            let mut next = crate::testutil::random_u64s(0x2545_f491_4f6c_dd1d ^ n ^ distinct);
            let mut h = DistinctNames::default();
            let mut seen = std::collections::HashSet::new();
            let mut peak = 0;
            for i in 0..n {
                let v = next() % distinct;
                if i % 2 == 0 {
                    h.push(v);
                } else {
                    h.extend(&[v, v]);
                }
                seen.insert(v);
                peak = peak.max(h.hashes.len());
            }
            assert_eq!(h.distinct(), seen.len() as u64, "{n} {distinct}");
            assert!(peak <= (2 * seen.len()).max(1 << 20) + 2, "{peak} held for {}", seen.len());
        }
    }

    /// [`dedup_hashes`] keeps each value once, as `sort_unstable`
    /// and `dedup` do (in another order), with hashes spread over the top
    /// byte or crowded into a few values of it, distinct or repeated.
    #[test]
    fn hashes_dedup_as_sort_and_dedup() {
        for (n, mask) in [
            (10usize, u64::MAX),
            (70_000, u64::MAX),
            (300_000, u64::MAX),
            (200_000, 0x03ff_ffff_0000_00ff),
            (200_000, 0x0300_0000_0000_3fff),
            (100_000, 0xff00_0000_0000_0001),
        ] {
            let mut next = crate::testutil::random_u64s(0x2545_f491_4f6c_dd1d ^ n as u64);
            let v: Vec<u64> = (0..n).map(|_| next() & mask).collect();
            let mut want = v.clone();
            want.sort_unstable();
            want.dedup();
            let mut got = v;
            dedup_hashes(&mut got);
            got.sort_unstable();
            assert_eq!(got, want, "{n} values, mask {mask:#x}");
        }
    }
}
