//! What the judging workers count, merged at the end.

use super::judged::{Judgement, index_text, verdict_fields};
use super::keys::Keyed;
use crate::scan::Finding;
use crate::scan::FindingKind;
use crate::scan::LgrSet;
use std::collections::BTreeMap;

/// Per-worker accumulator.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) invalid: Vec<Finding>,
    /// See [`super::Judged::blocked`].
    pub(super) blocked: Vec<Finding>,
    pub(super) idn: u64,
    pub(super) indexed: u64,
    pub(super) per_lgr: Vec<u64>,
    /// All-ASCII labels counted apart (`Latn`, `Zyyy`).
    pub(super) latn: u64,
    pub(super) zyyy: u64,
    pub(super) per_script: BTreeMap<&'static str, u64>,
    pub(super) families: BTreeMap<String, u64>,
    /// Index labels kept by this worker: `arena[start..start + len]`.
    pub(super) keyed: Vec<Keyed>,
    pub(super) arena: Vec<u32>,
    /// Those of the workers merged into this one (see [`KeyParts`]).
    pub(super) more: Vec<(Vec<Keyed>, Vec<u32>)>,
    pub(super) ascii_cands: Vec<(u32, u32)>,
    /// See [`Judged::dual`].
    pub(super) dual: Vec<u32>,
}

/// The finding of `kind` about a label on its own (no variant set), from
/// its judgement, and the reason family of that judgement.
fn label_finding(
    kind: FindingKind,
    set: &LgrSet,
    label: usize,
    j: &Judgement<'_>,
    index: Option<&[u32]>,
) -> (Finding, String) {
    let [lgr, disposition, reason, family] = verdict_fields(set, j);
    let finding = Finding {
        kind,
        label,
        lgr,
        disposition,
        reason,
        index: index.map(index_text).unwrap_or_default(),
        group: None,
        role: None,
        relation: None,
        holder: None,
    };
    (finding, family)
}

impl Tally {
    /// Records a label that is not eligible, with its index label if any.
    pub(super) fn push_invalid(
        &mut self,
        set: &LgrSet,
        label: usize,
        j: &Judgement<'_>,
        index: Option<&[u32]>,
    ) {
        let (finding, family) = label_finding(FindingKind::Invalid, set, label, j, index);
        *self.families.entry(family).or_default() += 1;
        self.invalid.push(finding);
    }

    /// Records an eligible label whose own disposition is `blocked`
    /// ([`Judgement::blocked`]), with its index label if any.
    pub(super) fn push_blocked(
        &mut self,
        set: &LgrSet,
        label: usize,
        j: &Judgement<'_>,
        index: Option<&[u32]>,
    ) {
        self.blocked.push(label_finding(FindingKind::Blocked, set, label, j, index).0);
    }

    pub(super) fn merge(mut self, mut o: Tally) -> Tally {
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
        self.blocked.append(&mut o.blocked);
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
    pub(super) fn keep(&mut self, i: usize, index: &[u32]) {
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
    pub(super) fn keys(&self) -> impl Iterator<Item = &[u32]> {
        std::iter::once((&self.keyed, &self.arena))
            .chain(self.more.iter().map(|(k, a)| (k, a)))
            .flat_map(|(keyed, arena)| {
                keyed.iter().map(|e| &arena[e.start as usize..][..e.len as usize])
            })
    }
}
