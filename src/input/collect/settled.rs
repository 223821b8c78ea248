//! What the collector keeps of the labels the zone reader's workers
//! settled (see [`super::super::settle`]): their counts, the ranges and
//! indexes listed for the scan, and whether the read must be done again
//! without settling.

use super::super::settle::SETTLED_KINDS;
use super::{Collector, Error, ErrorKind, IdnBlock};

impl Collector {
    /// Marks the read as one to do again without settling (see
    /// [`super::super::settle`]) and returns the error that stops it.
    pub(crate) fn unsettle(&mut self) -> Error {
        self.unsettled = true;
        Error::new(ErrorKind::Io(std::io::Error::other("read again without settling")))
    }

    /// Stops the read when the deduplicator lost settled keys (see
    /// [`Dedup::lost`]): it must be done again without settling.
    pub(super) fn still_settled(&mut self) -> Result<(), Error> {
        if self.dedup.lost() { Err(self.unsettle()) } else { Ok(()) }
    }

    /// Whether the read must be done again without settling.
    pub(crate) fn unsettled(&self) -> bool {
        self.unsettled || self.dedup.lost()
    }

    /// Checks, when labels were settled on the strength of the labels told
    /// ahead, that every label with a non-ASCII U-label was among them
    /// (found where they were); else marks the read to be done again.
    pub(crate) fn check_told_ahead(&mut self) {
        if self.set.settled_assumed == 0 {
            return;
        }
        let Some(b) = self.idn_block else {
            self.unsettled = true;
            return;
        };
        let set = &self.set;
        let told = |source: usize, at: u64| {
            source == b.source as usize && (at < b.before || (b.range.0..b.range.1).contains(&at))
        };
        // On all threads: a zone's IDN labels are hundreds of thousands,
        // and this runs between the read and the judging.
        use rayon::prelude::*;
        let missed = set.forms_owner.par_iter().with_min_len(4096).any(|&i| {
            set.get(i as usize)
                .is_some_and(|l| !l.ulabel().is_ascii() && !told(l.source(), l.offset()))
        });
        self.unsettled |= missed;
    }

    /// Counts labels a chunk's workers settled and did not store (`settled`:
    /// by kind), `assumed` of them on the strength of the labels told
    /// ahead.
    pub(crate) fn count_settled(&mut self, assumed: u64, settled: [u64; SETTLED_KINDS]) {
        let n: u64 = settled.iter().sum();
        let set = &mut self.set;
        set.settled_assumed += assumed;
        set.accounting.registered_labels += n;
        set.settled_unstored += n;
        for (t, n) in set.settled.iter_mut().zip(settled) {
            *t += n;
        }
    }

    /// Lists the labels of a chunk read under the rule, registered
    /// from `first_index` to the last label: the indexes of those it
    /// tagged and kept, and its counts (`counted`, by kind).
    pub(crate) fn list_settled(
        &mut self,
        first_index: u32,
        tagged: impl Iterator<Item = u32>,
        kept: impl Iterator<Item = u32>,
        counted: [u64; SETTLED_KINDS],
    ) {
        let set = &mut self.set;
        set.settle_tags.extend(tagged);
        set.settle_kept.extend(kept);
        for (t, n) in set.settled.iter_mut().zip(counted) {
            *t += n;
        }
        let end = set.records.len() as u32;
        match set.settle_ranges.last_mut() {
            Some((_, e)) if *e == first_index => *e = end,
            _ => set.settle_ranges.push((first_index, end)),
        }
    }

    /// Notes where the labels told ahead are found (`block`), and returns
    /// the labels of its source read before `block.before` that are not
    /// plain, to be told too: each label's original text, and its U-label
    /// when that is not ASCII.
    pub(crate) fn tell_ahead(&mut self, block: IdnBlock) -> Vec<(Vec<u8>, Option<String>)> {
        let set = &self.set;
        let before = set
            .forms_owner
            .iter()
            .filter_map(|&i| set.get(i as usize))
            .filter(|l| l.source() == block.source as usize && l.offset() < block.before)
            .map(|l| {
                let u = l.ulabel();
                (l.original_text().as_bytes().to_vec(), (!u.is_ascii()).then(|| u.to_string()))
            })
            .collect();
        self.idn_block = Some(block);
        before
    }

    /// Whether labels were told ahead in this read ([`Collector::tell_ahead`]).
    pub(crate) fn told_ahead(&self) -> bool {
        self.idn_block.is_some()
    }
}
