//! The collector: turns owner names and label lines into registered
//! labels, deduplicated, with their forms, NS targets and counts.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

pub(crate) use super::apex::{Apex, Relation};
use super::dedup::{Dedup, Seen};
use super::distinct::DistinctNames;
use super::hash::{HashBuild, hash_bytes};
use super::list_forms::{ListForms, ListFormsBatch, ListFormsEntry};
use super::ns_table::ns_table;

use super::labels::{
    ARENA, FormsEntry, Full, IN_SOURCE, IdnOriginal, LabelRecord, LabelSet, NO_CSV_ROW, NONE,
};
use super::settle::{SETTLED, SETTLED_KINDS};
use super::{
    Config, Error, ErrorKind, MALFORMED_DETAILS_MAX, Malformed, NsTargets, Settling, Strictness,
};
use crate::idna2008::{self, Finding, Forms};

mod attached;
mod settled;

/// Where a record or line is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Loc {
    pub(crate) source: u32,
    pub(crate) line: u64,
    pub(crate) offset: u64,
}

/// Where the original text of a label is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Orig<'a> {
    /// In the mapped source at the label's offset, and equal to the octets
    /// given (no escapes).
    Mapped,
    /// Not in a mapped source (or escaped): these bytes.
    Text(&'a [u8]),
}

/// How labels are deduplicated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyMode {
    /// Zones: the lower-cased octets (DNS name equality, RFC 4343).
    Octets,
    /// Lists and CSV: the A-label, so a U-label and its A-label are one.
    ALabel,
}

/// What an entry of the input was, for the accounting: the parsers count
/// their lines through [`Collector::lines_read`] and [`Collector::count`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineKind {
    Blank,
    Comment,
    /// A directive (`$ORIGIN`, `$TTL`, `$INCLUDE`) or a CSV header.
    Directive,
    /// A resource record, or a label line or row.
    Record,
}

/// What an owner name is relative to the apex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Apex,
    Registered(u32),
    Deeper,
    /// An NSEC3 hashed owner (see `Accounting::nsec3_records`).
    Nsec3,
    Outside,
}

/// Records of a chunk of one-line records, by their owner: the apex, a
/// registered label seen before, a name below depth, an NSEC3 hashed
/// owner, a name outside the apex.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OwnerRecords {
    pub(crate) apex: u64,
    pub(crate) duplicate: u64,
    pub(crate) deeper: u64,
    pub(crate) nsec3: u64,
    pub(crate) outside: u64,
}

pub(crate) struct Collector {
    pub(crate) set: LabelSet,
    dedup: Dedup,
    apex: Option<Apex>,
    /// Where the name is whose suffix became the apex, when a list or CSV
    /// line gave it ([`Collector::infer_apex`]).
    apex_inferred_at: Option<Loc>,
    strict: bool,
    collect_ns: bool,
    /// See `Config::record_text_max`.
    pub(crate) record_text_max: u64,
    ns_pairs: Vec<(u32, u32)>,
    ns_intern: HashMap<Box<[u8]>, u32, HashBuild>,
    last_ns: Option<(u32, u32)>,
    deeper_seen: DistinctNames,
    nsec3_seen: DistinctNames,
    outside_seen: DistinctNames,
    csv_columns: HashMap<String, u32>,
    /// One bit a label: whether a CSV row was attached to it
    /// ([`Collector::set_csv`]), a row without columns included.
    csv_row_seen: Vec<u64>,
    /// Forms entries whose IDNA forms are computed when the read finishes.
    pending: Vec<u32>,
    /// IDNA forms of list labels computed beforehand, in parallel and in line
    /// order (see [`Collector::set_list_forms`]), taken by `register`.
    list_forms: ListForms,
    /// Whether the parallel zone reader settles plain labels (see
    /// [`super::settle`]).
    pub(crate) settle: bool,
    /// See [`Collector::unsettle`].
    unsettled: bool,
    /// Where the labels told ahead were found (see
    /// [`super::Settling::ahead_parts`]): in a source, those before an
    /// offset (read before the block was looked for) and those of a range.
    idn_block: Option<IdnBlock>,
}

/// Where the labels told ahead were found ([`Collector::tell_ahead`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdnBlock {
    pub(crate) source: u32,
    /// Labels before this offset.
    pub(crate) before: u64,
    /// Labels of this range.
    pub(crate) range: (u64, u64),
}

/// A-label, U-label and finding.
type SplitForms = (String, Option<String>, Option<crate::idna2008::Finding>);

/// The A-label, U-label and finding of computed forms (`lower` is the
/// lower-case text of a plain label).
fn split_forms(
    f: Forms,
    lower: &[u8],
) -> (String, Option<String>, Option<crate::idna2008::Finding>) {
    match f {
        Forms::Ldh => (String::from_utf8_lossy(lower).into_owned(), None, None),
        Forms::Owned { alabel, ulabel, finding } => (alabel, ulabel, finding),
    }
}

impl Collector {
    pub(crate) fn new(strictness: Strictness, ns: NsTargets) -> Collector {
        Collector {
            set: LabelSet {
                records: Vec::new(),
                forms: Vec::new(),
                forms_owner: Vec::new(),
                source_runs: Vec::new(),
                arena: Vec::new(),
                text: String::new(),
                text_parts: Vec::new(),
                sources: Vec::new(),
                ns_index: Vec::new(),
                ns_targets: Vec::new(),
                ns_names: Vec::new(),
                csv_at: Vec::new(),
                csv_data: Vec::new(),
                csv_columns: Vec::new(),
                csv_pins: false,
                csv_registrants: false,
                apex: None,
                accounting: Default::default(),
                settled: [0; SETTLED_KINDS],
                settled_unstored: 0,
                settled_assumed: 0,
                settle_ranges: Vec::new(),
                settle_tags: Vec::new(),
                settle_kept: Vec::new(),
            },
            dedup: Dedup::default(),
            apex: None,
            apex_inferred_at: None,
            strict: strictness == Strictness::Strict,
            collect_ns: ns == NsTargets::Collect,
            record_text_max: super::labels::MAX_RECORD_TEXT,
            ns_pairs: Vec::new(),
            ns_intern: HashMap::default(),
            last_ns: None,
            settle: false,
            unsettled: false,
            idn_block: None,
            deeper_seen: DistinctNames::default(),
            nsec3_seen: DistinctNames::default(),
            outside_seen: DistinctNames::default(),
            csv_columns: HashMap::new(),
            csv_row_seen: Vec::new(),
            pending: Vec::new(),
            list_forms: ListForms::default(),
        }
    }

    /// Counts `n` lines read.
    pub(crate) fn lines_read(&mut self, n: u64) {
        self.set.accounting.lines += n;
    }

    /// Counts `n` lines that continue an entry (in parentheses, RFC 1035
    /// §5.1; in a quoted CSV field).
    pub(crate) fn continuation_lines(&mut self, n: u64) {
        self.set.accounting.continuation_lines += n;
    }

    /// Counts an entry of `lines` lines (blank lines: each) of this kind.
    pub(crate) fn count(&mut self, kind: LineKind, lines: u64) {
        let acc = &mut self.set.accounting;
        match kind {
            LineKind::Blank => acc.blank_lines += lines,
            LineKind::Comment => acc.comment_lines += 1,
            LineKind::Directive => acc.directive_lines += 1,
            LineKind::Record => {
                acc.record_lines += 1;
                acc.records += 1;
            }
        }
    }

    /// Counts `n` records of one line each.
    pub(crate) fn count_records(&mut self, n: u64) {
        let acc = &mut self.set.accounting;
        acc.record_lines += n;
        acc.records += n;
    }

    /// The data of a source held whole (mapped or read), if it is.
    pub(crate) fn source_data(&self, source: u32) -> Option<&std::sync::Arc<super::source::Data>> {
        self.set.sources.get(source as usize).and_then(|s| s.data.as_ref())
    }

    /// What settles plain labels in this read, if anything (see
    /// [`super::settle`]).
    pub(crate) fn settling<'c>(&self, config: &'c Config) -> Option<&'c Settling> {
        config.settle.as_deref().filter(|_| self.settle)
    }

    pub(crate) fn path(&self, source: u32) -> &Path {
        self.set.sources.get(source as usize).map_or(Path::new("-"), |s| s.path.as_path())
    }

    /// The zone's apex, once a parser found it ([`Collector::set_apex`]).
    pub(crate) fn apex(&self) -> Option<&Apex> {
        self.apex.as_ref()
    }

    /// Whether NS targets are collected ([`NsTargets::Collect`]).
    pub(crate) fn collects_ns(&self) -> bool {
        self.collect_ns
    }

    /// Sets the zone's apex (the owner of its SOA record, RFC 1035 §5.2),
    /// unless one was set before.
    pub(crate) fn set_apex(&mut self, labels: Vec<Vec<u8>>) {
        if self.apex.is_none() {
            let apex = Apex::new(labels);
            self.set.apex = Some(apex.text.clone());
            self.apex = Some(apex);
        }
    }

    /// Sets the apex to the suffix (`labels`) of a list or CSV name at
    /// `loc`, unless one was set before; the reason of a line outside it
    /// then says where it came from ([`Collector::apex_inferred_at`]).
    pub(crate) fn infer_apex(&mut self, labels: Vec<Vec<u8>>, loc: Loc) {
        if self.apex.is_none() {
            self.set_apex(labels);
            self.apex_inferred_at = Some(loc);
        }
    }

    /// Where the name is whose suffix became the apex, if a list or CSV
    /// line gave it (no `--origin`, no zone file before).
    pub(crate) fn apex_inferred_at(&self) -> Option<Loc> {
        self.apex_inferred_at
    }

    /// Records a malformed entry; an error under `--strict`.
    pub(crate) fn malformed(&mut self, loc: Loc, reason: impl Into<String>) -> Result<(), Error> {
        let reason = reason.into();
        if self.strict {
            let path = self.path(loc.source).to_path_buf();
            return Err(Error::new(ErrorKind::Malformed(reason)).at(
                &path,
                loc.line,
                Some(loc.offset),
            ));
        }
        let acc = &mut self.set.accounting;
        acc.malformed += 1;
        if acc.malformed_details.len() < MALFORMED_DETAILS_MAX {
            acc.malformed_details.push(Malformed {
                source: loc.source,
                line: loc.line,
                offset: loc.offset,
                reason,
            });
        }
        Ok(())
    }

    /// Registers one label (counting the record as registered or
    /// duplicate) and returns its index.
    pub(crate) fn register(
        &mut self,
        loc: Loc,
        octets: &[u8],
        orig: Orig<'_>,
        mode: KeyMode,
    ) -> Result<u32, Error> {
        if mode == KeyMode::ALabel
            && let Some((text, e)) = self.list_forms.take(loc.source, loc.offset, octets.len())
        {
            let id = register_with_forms(
                &mut self.set,
                &mut self.dedup,
                loc,
                octets,
                orig,
                &text[e.at as usize..],
                e,
            );
            self.still_settled()?;
            return id;
        }
        let lower: Cow<'_, [u8]> = if octets.iter().any(u8::is_ascii_uppercase) {
            Cow::Owned(octets.to_ascii_lowercase())
        } else {
            Cow::Borrowed(octets)
        };
        let plain = idna2008::is_plain_ldh(&lower);
        // For lists the key is the A-label, so compute the forms first
        // unless the label is plain (A-label = lower-case text).
        let mut forms = None;
        let key: Cow<'_, [u8]> = if mode == KeyMode::ALabel && !plain {
            let f = idna2008::forms_bytes(octets);
            let k = match &f {
                Forms::Ldh => lower.clone(),
                Forms::Owned { alabel, .. } => Cow::Owned(alabel.as_bytes().to_vec()),
            };
            forms = Some(f);
            k
        } else {
            lower.clone()
        };
        if !self.dedup.hashed() {
            self.expect_labels_after(loc);
        }
        let set = &self.set;
        let seen = self.dedup.insert(&key, |i| set.key_of(i));
        self.still_settled()?;
        if let Seen::Existing(i) = seen {
            self.set.accounting.duplicate_records += 1;
            return Ok(i);
        }
        self.push_label(loc, octets, orig, mode, lower, plain, forms, key)
    }

    /// Deduplicates the keys (lower-case octets) of a run of zone labels
    /// before they are registered, loading table slots ahead (see
    /// [`Dedup::insert_run`]; `hashes`: the keys' [`hash_bytes`], when
    /// computed ahead): for each, the index of the label it repeats
    /// (its record counted as a duplicate), or `None` when it is new; the
    /// new ones must then be registered in order, as known new
    /// ([`Collector::register_new`], [`Collector::register_idn`]).
    /// `loc`: where the first is.
    pub(crate) fn dedup_run(
        &mut self,
        loc: Loc,
        keys: &[&[u8]],
        hashes: Option<&[u64]>,
    ) -> Result<Vec<Option<u32>>, Error> {
        if !self.dedup.hashed() {
            self.expect_labels_after(loc);
        }
        let set = &self.set;
        let seen = self.dedup.insert_run(keys, hashes, |i| set.key_of(i));
        self.still_settled()?;
        let found: Vec<Option<u32>> = seen
            .into_iter()
            .map(|s| match s {
                Seen::Existing(i) => Some(i),
                Seen::New => None,
            })
            .collect();
        self.set.accounting.duplicate_records += found.iter().flatten().count() as u64;
        Ok(found)
    }

    /// Before a key that may be the first out of order: in a source held
    /// whole, expects as many more labels in the rest of it as there were
    /// in the part read (at most one per 32 octets), so that the table the
    /// deduplicator switches to, and the label store, are sized once
    /// (each growth of either copies it into new memory the kernel must
    /// zero: a fifth of an unsorted 10M-name CZDS read).
    fn expect_labels_after(&mut self, loc: Loc) {
        let Some(total) = self.source_data(loc.source).map(|d| d.bytes().len() as u64) else {
            return;
        };
        let so_far = self.set.accounting.registered_labels + 1;
        let rest = total.saturating_sub(loc.offset);
        let more = (so_far.saturating_mul(rest) / loc.offset.max(1)).min(rest / 32);
        let more = usize::try_from(more).unwrap_or(usize::MAX);
        self.dedup.reserve(more);
        if self.set.records.capacity() - self.set.records.len() < more {
            self.set.records.reserve(more);
        }
    }

    /// [`Collector::register`] for a label of a list or CSV row, whose
    /// index is needed (a settled label's is not known: the read is then
    /// done again without settling, see [`super::settle`]).
    pub(crate) fn register_row(
        &mut self,
        loc: Loc,
        octets: &[u8],
        orig: Orig<'_>,
        mode: KeyMode,
    ) -> Result<u32, Error> {
        let i = self.register(loc, octets, orig, mode)?;
        if i == SETTLED {
            return Err(self.unsettle());
        }
        Ok(i)
    }

    /// Registers a label known to be new (the deduplicator has counted it
    /// already, see [`Dedup::append_sorted`]), from a zone (octets keys).
    pub(crate) fn register_new(
        &mut self,
        loc: Loc,
        octets: &[u8],
        orig: Orig<'_>,
    ) -> Result<u32, Error> {
        // The common case first: a plain lower-case label in a mapped
        // source borrows everything from the map.
        if matches!(orig, Orig::Mapped)
            && idna2008::is_plain_ldh(octets)
            && self.set.sources.get(loc.source as usize).is_some_and(|s| s.data.is_some())
        {
            return self.push_plain(loc, octets.len() as u16);
        }
        let lower: Cow<'_, [u8]> = if octets.iter().any(u8::is_ascii_uppercase) {
            Cow::Owned(octets.to_ascii_lowercase())
        } else {
            Cow::Borrowed(octets)
        };
        let plain = idna2008::is_plain_ldh(&lower);
        let key = lower.clone();
        self.push_label(loc, octets, orig, KeyMode::Octets, lower, plain, None, key)
    }

    /// Registers a label known to be new and plain (lower-case LDH) whose
    /// text is in a mapped source at `loc.offset` (see
    /// [`Collector::register_new`]).
    #[inline]
    pub(crate) fn push_plain(&mut self, loc: Loc, len: u16) -> Result<u32, Error> {
        let index = self.next_index(loc)?;
        self.set.push_records(loc.source, [LabelRecord::at(loc, len, NONE)]);
        self.set.accounting.registered_labels += 1;
        Ok(index)
    }

    /// Adds new plain labels (see [`Collector::push_plain`]) at once;
    /// returns the index of the last. `loc`: where the first is, for the
    /// error past 2^32 labels.
    pub(crate) fn push_plain_run(
        &mut self,
        loc: Loc,
        recs: impl ExactSizeIterator<Item = LabelRecord>,
    ) -> Result<u32, Error> {
        let n = recs.len();
        let set = &mut self.set;
        let Ok(last) = u32::try_from(set.records.len() + n.saturating_sub(1)) else {
            return Err(set.too_many_labels(loc));
        };
        set.push_records(loc.source, recs);
        set.accounting.registered_labels += n as u64;
        Ok(last)
    }

    /// The index the next new label gets; an error past 2^32 labels.
    #[inline]
    fn next_index(&self, loc: Loc) -> Result<u32, Error> {
        self.set.next_index(loc)
    }

    /// Whether the keys so far are out of order (the deduplicator uses
    /// its table): labels settled from now on could not be merged.
    pub(crate) fn keys_unsorted(&self) -> bool {
        self.dedup.hashed()
    }

    /// The deduplicator, for callers that register sorted runs of labels.
    pub(crate) fn dedup_mut(&mut self) -> &mut Dedup {
        &mut self.dedup
    }

    /// Registers a valid lower-case IDN of a zone whose forms were
    /// computed by the fast path (`alabel` equals `octets`, the key):
    /// deduplicated, unless `known_new`, then kept as a compact entry.
    pub(crate) fn register_idn(
        &mut self,
        loc: Loc,
        octets: &[u8],
        orig: Orig<'_>,
        ulabel: &str,
        known_new: bool,
        adopted: Option<u64>,
    ) -> Result<u32, Error> {
        // A-labels are ASCII (`ascii_str` is quicker than UTF-8
        // validation on short text).
        let Some(alabel) = idna2008::ascii_str(octets) else {
            if known_new {
                return self.register_new(loc, octets, orig);
            }
            return self.register(loc, octets, orig, KeyMode::Octets);
        };
        if !known_new {
            let set = &self.set;
            let seen = self.dedup.insert(octets, |i| set.key_of(i));
            self.still_settled()?;
            if let Seen::Existing(i) = seen {
                self.set.accounting.duplicate_records += 1;
                return Ok(i);
            }
        }
        push_formed(&mut self.set, loc, octets, orig, (alabel, Some(ulabel), adopted), None)
    }

    /// Adds a new label (after deduplication) and returns its index.
    #[allow(clippy::too_many_arguments)]
    fn push_label(
        &mut self,
        loc: Loc,
        octets: &[u8],
        orig: Orig<'_>,
        mode: KeyMode,
        lower: Cow<'_, [u8]>,
        plain: bool,
        forms: Option<Forms>,
        key: Cow<'_, [u8]>,
    ) -> Result<u32, Error> {
        let index = self.next_index(loc)?;
        let source_mapped =
            self.set.sources.get(loc.source as usize).is_some_and(|s| s.data.is_some());
        let len16 = u16::try_from(octets.len()).ok();
        let mut rec = LabelRecord::at(loc, len16.unwrap_or(0), NONE);
        let in_source = matches!(orig, Orig::Mapped) && source_mapped && len16.is_some();
        // The arena entry needs the original to be the octets (no escapes).
        let same_text = match orig {
            Orig::Mapped => true,
            Orig::Text(t) => t == octets,
        };
        if plain && len16.is_some() && same_text {
            let folded = matches!(lower, Cow::Owned(_));
            if in_source && !folded {
                // Plain: borrow everything from the map.
            } else if !folded
                && self.set.arena.len() as u64 <= self.record_text_max
                && rec.set_text(self.set.arena.len() as u64)
            {
                // Plain: the text once, in the arena (as a forms entry
                // below when the arena is past what a record holds).
                self.set.arena.extend_from_slice(octets);
            } else {
                let arena = &mut self.set.arena;
                let original = if in_source {
                    IN_SOURCE
                } else {
                    let o = arena.len() as u64;
                    arena.extend_from_slice(match orig {
                        Orig::Text(t) => t,
                        Orig::Mapped => octets,
                    });
                    o
                };
                let lower_at = if !folded && original != IN_SOURCE {
                    original
                } else {
                    let l = arena.len() as u64;
                    arena.extend_from_slice(&lower);
                    l
                };
                rec.forms = self.push_forms(FormsEntry::Arena { original, lower: lower_at })?;
            }
        } else {
            let original = match orig {
                Orig::Mapped if in_source => None,
                Orig::Mapped => Some(octets.to_vec().into_boxed_slice()),
                Orig::Text(t) => Some(t.to_vec().into_boxed_slice()),
            };
            let full = match forms {
                Some(f) => {
                    let (alabel, ulabel, finding) = split_forms(f, &lower);
                    let key = (mode == KeyMode::Octets && *key != *alabel.as_bytes())
                        .then(|| key.to_vec().into_boxed_slice());
                    Full {
                        alabel: alabel.into_boxed_str(),
                        ulabel: ulabel.map(String::into_boxed_str),
                        finding,
                        original,
                        key,
                        pending: None,
                    }
                }
                // The key is the octets (zones): the forms are not needed
                // to deduplicate, so they are computed in parallel when
                // the read finishes (see `finish`).
                None => Full {
                    alabel: String::from_utf8_lossy(&lower).into(),
                    ulabel: None,
                    finding: None,
                    original,
                    key: Some(key.to_vec().into_boxed_slice()),
                    pending: Some(octets.to_vec().into_boxed_slice()),
                },
            };
            let pending = full.pending.is_some();
            rec.forms = self.push_forms(FormsEntry::Full(Box::new(full)))?;
            if pending {
                self.pending.push(rec.forms);
            }
        }
        self.set.push_records(loc.source, [rec]);
        self.set.accounting.registered_labels += 1;
        Ok(index)
    }

    /// Hands `register` the forms of the labels about to be registered in
    /// A-label key mode (lists), computed beforehand by [`compute_forms`], and
    /// makes room for them.
    pub(crate) fn set_list_forms(&mut self, batch: ListFormsBatch) {
        let n: usize = batch.chunks.iter().map(|c| c.entries.len()).sum();
        let text: usize = batch.chunks.iter().map(|c| c.text.len()).sum();
        self.list_forms = ListForms { source: batch.source, chunks: batch.chunks, next: (0, 0) };
        self.set.records.reserve(n);
        self.set.forms.reserve(n);
        self.set.forms_owner.reserve(n);
        self.set.text.reserve(text);
    }

    /// Expects about `n` more labels (a list's lines, a CSV file's): the
    /// deduplicator sizes its table once, and the label store grows once.
    pub(crate) fn expect_labels(&mut self, n: usize) {
        self.dedup.reserve(n);
        let records = &mut self.set.records;
        if records.capacity() - records.len() < n {
            records.reserve(n);
        }
    }

    /// Computes the IDNA forms (RFC 5891 §5.3–5.4 checks) of the zone
    /// labels registered without them, on the current rayon pool: each label's
    /// conversion is independent of the others.
    fn compute_pending_forms(&mut self) {
        use rayon::prelude::*;
        let pending = std::mem::take(&mut self.pending);
        let forms = &self.set.forms;
        let computed: Vec<Option<SplitForms>> = pending
            .par_iter()
            .with_min_len(256)
            .map(|&i| match forms.get(i as usize) {
                Some(FormsEntry::Full(f)) => f.pending.as_deref().map(|octets| {
                    let lower = octets.to_ascii_lowercase();
                    let (alabel, ulabel, finding) =
                        split_forms(idna2008::forms_bytes(octets), &lower);
                    // A zone owner is octets: one that is not ASCII is a
                    // U-label where the A-label belongs.
                    let finding = finding.or_else(|| {
                        (!octets.is_ascii()).then_some(idna2008::Finding::ULabelInZone)
                    });
                    (alabel, ulabel, finding)
                }),
                _ => None,
            })
            .collect();
        for (&i, c) in pending.iter().zip(computed) {
            if let (Some(FormsEntry::Full(f)), Some((alabel, ulabel, finding))) =
                (self.set.forms.get_mut(i as usize), c)
            {
                if f.key.as_deref() == Some(alabel.as_bytes()) {
                    f.key = None;
                }
                f.alabel = alabel.into_boxed_str();
                f.ulabel = ulabel.map(String::into_boxed_str);
                f.finding = finding;
                f.pending = None;
            }
        }
    }

    fn push_forms(&mut self, e: FormsEntry) -> Result<u32, Error> {
        self.set.push_forms(e)
    }

    /// Counts a record whose owner was classified by an earlier record.
    #[inline]
    pub(crate) fn same_owner(&mut self, class: Class) {
        let acc = &mut self.set.accounting;
        match class {
            Class::Apex => acc.apex_records += 1,
            Class::Registered(_) => acc.duplicate_records += 1,
            Class::Deeper => acc.deeper_records += 1,
            Class::Nsec3 => acc.nsec3_records += 1,
            Class::Outside => acc.outside_records += 1,
        }
    }

    /// Counts a record of a deeper or outside owner, counting the name if
    /// it was not seen before (`name` is its lower-case text).
    pub(crate) fn other_owner(&mut self, rel: Relation, name: &[u8]) -> Class {
        let h = hash_bytes(name);
        let acc = &mut self.set.accounting;
        match rel {
            Relation::Deeper => {
                acc.deeper_records += 1;
                self.deeper_seen.push(h);
                Class::Deeper
            }
            Relation::Outside => {
                acc.outside_records += 1;
                self.outside_seen.push(h);
                Class::Outside
            }
            Relation::Apex => {
                acc.apex_records += 1;
                Class::Apex
            }
            Relation::Registered => Class::Outside,
        }
    }

    /// Counts a record of an NSEC3 hashed owner (`name`: its lower-case
    /// text), counting the name if it was not seen before.
    pub(crate) fn nsec3_owner(&mut self, name: &[u8]) -> Class {
        self.set.accounting.nsec3_records += 1;
        self.nsec3_seen.push(hash_bytes(name));
        Class::Nsec3
    }

    /// Notes the deeper, NSEC3 hashed and outside owner names of a chunk,
    /// given as the hashes of their lower-case text (their records are
    /// counted by the caller); distinct names are counted by
    /// [`Collector::finish`].
    pub(crate) fn count_names(&mut self, deeper: &[u64], nsec3: &[u64], outside: &[u64]) {
        self.deeper_seen.extend(deeper);
        self.nsec3_seen.extend(nsec3);
        self.outside_seen.extend(outside);
    }

    /// Counts the records of a chunk of one-line records by their owner
    /// (see [`OwnerRecords`]; [`Collector::count_names`] notes the
    /// names).
    pub(crate) fn count_owner_records(&mut self, n: OwnerRecords) {
        let acc = &mut self.set.accounting;
        acc.apex_records += n.apex;
        acc.duplicate_records += n.duplicate;
        acc.deeper_records += n.deeper;
        acc.nsec3_records += n.nsec3;
        acc.outside_records += n.outside;
    }

    /// Makes `text` a part of the set's text, as it is (no copy), and
    /// returns the position of its first byte.
    pub(crate) fn adopt_text(&mut self, text: std::sync::Arc<String>) -> u64 {
        self.set.adopt_text(text)
    }

    /// Bytes in the arena of copied label text: where the next copied
    /// text starts.
    pub(crate) fn arena_len(&self) -> u64 {
        self.set.arena.len() as u64
    }

    /// Copies `text` to the end of the arena and returns where it starts;
    /// `None`, copying nothing, when records could not hold positions past
    /// it (`Config::record_text_max`: such labels go one by one and get
    /// forms entries).
    pub(crate) fn copy_text(&mut self, text: &[u8]) -> Option<u64> {
        let at = self.arena_len();
        if at + text.len() as u64 > self.record_text_max {
            return None;
        }
        self.set.arena.extend_from_slice(text);
        Some(at)
    }

    /// Labels registered so far.
    pub(crate) fn label_count(&self) -> usize {
        self.set.records.len()
    }

    /// Room for `n` more labels.
    pub(crate) fn reserve_labels(&mut self, n: usize) {
        self.set.records.reserve(n);
    }

    /// Finishes: NS target sets, CSV index, owner names.
    pub(crate) fn finish(mut self) -> LabelSet {
        self.compute_pending_forms();
        let n = self.set.records.len();
        if !self.ns_pairs.is_empty() {
            let (index, targets) =
                ns_table(n, &std::mem::take(&mut self.ns_pairs), &self.set.ns_names);
            self.set.ns_index = index;
            self.set.ns_targets = targets;
        }
        if !self.set.csv_at.is_empty() {
            self.set.csv_at.resize(n, NO_CSV_ROW);
        }
        let acc = &mut self.set.accounting;
        acc.deeper_names = self.deeper_seen.distinct();
        acc.nsec3_names = self.nsec3_seen.distinct();
        acc.outside_names = self.outside_seen.distinct();
        acc.owner_names = u64::from(acc.apex_records > 0)
            + acc.registered_labels
            + acc.deeper_names
            + acc.nsec3_names
            + acc.outside_names;
        self.set
    }
}

impl LabelSet {
    /// The index the next new label gets; an error past 2^32 labels.
    #[inline]
    pub(crate) fn next_index(&self, loc: Loc) -> Result<u32, Error> {
        match u32::try_from(self.records.len()) {
            Ok(i) => Ok(i),
            Err(_) => Err(self.too_many_labels(loc)),
        }
    }

    #[cold]
    pub(crate) fn too_many_labels(&self, loc: Loc) -> Error {
        let path = self.sources.get(loc.source as usize).map_or(Path::new("-"), |s| &s.path);
        Error::new(ErrorKind::Malformed("more than 2^32 labels".into())).at(
            path,
            loc.line,
            Some(loc.offset),
        )
    }

    /// Adds a forms entry for the label about to be added (the next
    /// record) and returns its index.
    pub(crate) fn push_forms(&mut self, e: FormsEntry) -> Result<u32, Error> {
        let too_many = |what: &str| Error::new(ErrorKind::Malformed(format!("more than {what}")));
        // Entries are fewer than 2^31 (see `LabelRecord::forms`).
        let i = u32::try_from(self.forms.len())
            .ok()
            .filter(|&i| i < ARENA)
            .ok_or_else(|| too_many("2^31 labels that are not plain LDH labels"))?;
        let owner = u32::try_from(self.records.len()).map_err(|_| too_many("2^32 labels"))?;
        self.forms.push(e);
        self.forms_owner.push(owner);
        Ok(i)
    }
}

impl LabelRecord {
    /// The record of a label of `len` octets seen at `loc` with the forms
    /// entry `forms` ([`NONE`]: plain, its text in its mapped source; see
    /// [`LabelRecord::set_text`]).
    pub(crate) fn at(loc: Loc, len: u16, forms: u32) -> LabelRecord {
        LabelRecord::pack(loc.offset, len, u32::try_from(loc.line).unwrap_or(u32::MAX), forms)
    }
}

/// Registers a label whose forms were computed beforehand (lists: A-label key
/// mode; `text` starts with the entry's forms). A valid IDN keeps its forms
/// in the set's shared text; others get a [`Full`] entry.
fn register_with_forms(
    set: &mut LabelSet,
    dedup: &mut Dedup,
    loc: Loc,
    octets: &[u8],
    orig: Orig<'_>,
    text: &str,
    e: &ListFormsEntry,
) -> Result<u32, Error> {
    let alen = e.alen as usize;
    let alabel = &text[..alen];
    let ulabel = (e.ulen != NONE).then(|| &text[alen..alen + e.ulen as usize]);
    let seen = {
        let set = &*set;
        dedup.insert_hashed(alabel.as_bytes(), e.hash, |i| set.key_of(i))
    };
    if let Seen::Existing(i) = seen {
        set.accounting.duplicate_records += 1;
        return Ok(i);
    }
    push_formed(set, loc, octets, orig, (alabel, ulabel, None), e.finding.as_deref())
}

/// Adds a new label (after deduplication) whose forms are known: a valid
/// IDN keeps them in the set's shared text ([`FormsEntry::Idn`]), others
/// get a [`Full`] entry. `adopted`: the forms position where the A-label
/// and the U-label already are, one after the other, in a part of the
/// text the set holds (see [`LabelSet::adopt_text`]).
fn push_formed(
    set: &mut LabelSet,
    loc: Loc,
    octets: &[u8],
    orig: Orig<'_>,
    (alabel, ulabel, adopted): (&str, Option<&str>, Option<u64>),
    finding: Option<&Finding>,
) -> Result<u32, Error> {
    let index = set.next_index(loc)?;
    let source_mapped = set.sources.get(loc.source as usize).is_some_and(|s| s.data.is_some());
    let len16 = u16::try_from(octets.len()).ok();
    let in_source = matches!(orig, Orig::Mapped) && source_mapped && len16.is_some();
    // The original when it is not in the source.
    let original = match orig {
        Orig::Mapped if in_source => None,
        Orig::Mapped => Some(octets),
        Orig::Text(t) => Some(t),
    };
    let ulabel_text = ulabel.unwrap_or(alabel);
    let compact = finding.is_none()
        && len16.is_some()
        && original.is_none_or(|o| o == octets)
        && u16::try_from(alabel.len()).is_ok()
        && u16::try_from(ulabel_text.len()).is_ok();
    // Where the original is, and its text when it must be stored: an
    // original equal to the A-label (an `xn--` label written in lower
    // case) is not stored again, nor validated.
    let entry = match original {
        _ if !compact => None,
        None => Some((IdnOriginal::InSource, None)),
        Some(o) if o == alabel.as_bytes() => Some((IdnOriginal::IsALabel, None)),
        Some(o) => std::str::from_utf8(o).ok().map(|t| (IdnOriginal::Follows, Some(t))),
    };
    let forms = match (entry, adopted) {
        (Some((original, None)), Some(at)) => FormsEntry::Idn {
            at,
            alen: alabel.len() as u16,
            ulen: ulabel_text.len() as u16,
            original,
        },
        (Some((original, text)), _) => {
            let at = set.text.len() as u64;
            set.text.push_str(alabel);
            set.text.push_str(ulabel_text);
            if let Some(o) = text {
                set.text.push_str(o);
            }
            FormsEntry::Idn {
                at,
                alen: alabel.len() as u16,
                ulen: ulabel_text.len() as u16,
                original,
            }
        }
        (None, _) => FormsEntry::Full(Box::new(Full {
            alabel: alabel.into(),
            ulabel: ulabel.map(Into::into),
            finding: finding.cloned(),
            original: original.map(Into::into),
            key: None,
            pending: None,
        })),
    };
    let forms_index = set.push_forms(forms)?;
    set.push_records(loc.source, [LabelRecord::at(loc, len16.unwrap_or(0), forms_index)]);
    set.accounting.registered_labels += 1;
    Ok(index)
}
