//! The registered labels of a run and their per-label data.
//!
//! Memory layout: one 32-byte [`LabelRecord`] per label. A label whose text
//! is already a lower-case LDH label ("plain", the vast majority in a real
//! zone) has nothing else: its A-label, U-label and original text are the
//! same bytes, of the mapped file (borrowed) or of a shared text arena
//! (streams, and mapped files read with [`LabelText::Copy`]). Other labels
//! have a forms entry: an ASCII label that only needed case folding keeps
//! its folded text in the arena; a valid IDN keeps its A-label and U-label
//! in a shared text (lists); the rest (findings, escapes) have their forms
//! boxed.
//!
//! [`LabelText::Copy`]: super::LabelText::Copy

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::csv_fields::CsvFields;
use super::settle::SETTLED_KINDS;
use super::source::Data;
use super::{Accounting, InputFormat};
use crate::idna2008::Finding;

/// Sentinel: no entry.
pub(crate) const NONE: u32 = u32::MAX;

/// In [`LabelSet::csv_at`]: the label has no CSV row.
pub(crate) const NO_CSV_ROW: u64 = u64::MAX;

/// Where one registered label was first seen, and how to find its forms.
///
/// Kept small (16 bytes) because a zone may have 10^8 labels; use
/// [`LabelSet::get`] for a [`Label`] view with the text. Offsets have 48
/// bits (256 TiB). The source of a label is kept per run of labels from
/// one source ([`LabelSet`]), not per label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelRecord {
    /// The byte offset of the label in its source (low 48 bits) and its
    /// length in octets (high 16 bits).
    pub(crate) at: u64,
    pub(crate) line: u32,
    /// The label's forms entry (below [`ARENA`]); for a plain label,
    /// which has none, where its text is: [`NONE`], in its mapped source
    /// at its offset, or `ARENA | position` in the arena.
    pub(crate) forms: u32,
}

/// The low 48 bits of [`LabelRecord::at`].
const LOW48: u64 = (1 << 48) - 1;

/// The bit of [`LabelRecord::forms`] that marks a plain label (with
/// [`NONE`], which has it too): forms entries are fewer than 2^31.
pub(crate) const ARENA: u32 = 1 << 31;

/// The last arena position a record holds (`ARENA | position` must not
/// be [`NONE`]): plain labels with text past it get a forms entry
/// ([`FormsEntry::Arena`]), which has 64-bit positions. A read may stop
/// short of it (`Config::record_text_max`, which a test lowers so that
/// its small inputs pass it).
pub(crate) const MAX_RECORD_TEXT: u64 = (ARENA - 2) as u64;

impl LabelRecord {
    /// The record of a label of `len` octets at `offset` of its source,
    /// first seen on `line`, with the forms entry `forms` ([`NONE`] for a
    /// plain label whose text is in its mapped source).
    #[inline]
    pub(crate) fn pack(offset: u64, len: u16, line: u32, forms: u32) -> Self {
        LabelRecord { at: offset.min(LOW48) | u64::from(len) << 48, line, forms }
    }

    /// Length of the label's text in octets.
    pub(crate) fn len(&self) -> u16 {
        (self.at >> 48) as u16
    }

    /// Whether the label is plain (lower-case LDH text, no forms entry).
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        self.forms & ARENA != 0
    }

    /// Where a plain label's text is in the arena, or [`IN_SOURCE`].
    pub(crate) fn text(&self) -> u64 {
        if self.forms != NONE && self.forms & ARENA != 0 {
            u64::from(self.forms & !ARENA)
        } else {
            IN_SOURCE
        }
    }

    /// Puts the text of a plain label at `text` in the arena; false, and
    /// nothing changed, past [`MAX_RECORD_TEXT`].
    #[must_use]
    pub(crate) fn set_text(&mut self, text: u64) -> bool {
        debug_assert!(self.is_plain());
        if text > MAX_RECORD_TEXT {
            return false;
        }
        self.forms = ARENA | text as u32;
        true
    }

    /// Line (1-based) of the first record of the label (saturates at
    /// `u32::MAX`).
    pub fn line(&self) -> u32 {
        self.line
    }

    /// Byte offset of the label's text in its (decompressed) source.
    pub fn offset(&self) -> u64 {
        self.at & LOW48
    }
}

/// The full forms of a label that is not plain.
#[derive(Debug)]
pub(crate) struct Full {
    pub(crate) alabel: Box<str>,
    pub(crate) ulabel: Option<Box<str>>,
    pub(crate) finding: Option<Finding>,
    /// The original text when it is not in a mapped source at
    /// `offset..offset+len` (streams, labels from `$ORIGIN`, CSV…).
    pub(crate) original: Option<Box<[u8]>>,
    /// The deduplication key when it is not the A-label.
    pub(crate) key: Option<Box<[u8]>>,
    /// The label's octets while its forms wait to be computed (in
    /// parallel, when the read finishes); `None` once they are.
    pub(crate) pending: Option<Box<[u8]>>,
}

/// Sentinel for [`FormsEntry::Arena`] and [`LabelRecord`]'s text: the
/// text is in the mapped source.
pub(crate) const IN_SOURCE: u64 = u64::MAX;

/// Forms positions from `k * TEXT_PART` are in part `k - 1` of
/// [`LabelSet::text_parts`] (`LabelSet::text` for `k = 0`).
pub(crate) const TEXT_PART: u64 = 1 << 40;

#[derive(Debug)]
pub(crate) enum FormsEntry {
    /// A valid LDH label whose lower-case text (A-label = U-label) is
    /// `arena[lower..lower+len]` (`len` from the record). The original is
    /// `arena[original..original+len]`, or in the mapped source when
    /// `original` is [`IN_SOURCE`].
    Arena {
        original: u64,
        lower: u64,
    },
    Full(Box<Full>),
    /// A valid IDN: its A-label is `LabelSet::text[at..at+alen]` and its
    /// U-label follows (`ulen` octets). Where its original is: see
    /// [`IdnOriginal`].
    Idn {
        at: u64,
        alen: u16,
        ulen: u16,
        original: IdnOriginal,
    },
}

/// Where the original of a [`FormsEntry::Idn`] label is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdnOriginal {
    /// In the mapped source.
    InSource,
    /// In `LabelSet::text`, the `len` octets (`len` from the record)
    /// after the U-label.
    Follows,
    /// It is the A-label, octet for octet (an `xn--` label written in
    /// lower case, read from a source that is not kept mapped).
    IsALabel,
}

/// Facts about one source read in the run (a file given, an `$INCLUDE`
/// file, or standard input).
#[derive(Debug)]
pub struct SourceInfo {
    /// The path as given, or resolved for an include; `-` for stdin.
    pub path: PathBuf,
    /// The format it was read as.
    pub format: InputFormat,
    /// Whether it was read as a zone file in the CZDS profile.
    pub czds_profile: bool,
    /// Whether it was memory-mapped (labels borrow from it).
    pub mapped: bool,
    /// Whether it was gzip-compressed.
    pub gzip: bool,
    /// The source that included it, if it was read by `$INCLUDE`.
    pub included_by: Option<u32>,
    pub(crate) data: Option<Arc<Data>>,
}

/// The registered labels of a run, in the order first seen, with the
/// accounting, the NS target sets and the CSV columns.
///
/// It owns the memory maps its labels borrow from. It is `Send + Sync`: a
/// scan can index it from several threads (`(0..set.len())` with rayon).
#[derive(Debug)]
pub struct LabelSet {
    pub(crate) records: Vec<LabelRecord>,
    pub(crate) forms: Vec<FormsEntry>,
    /// The label of each entry of `forms` (entries are added with their
    /// labels, so this is in increasing order): the labels that are not
    /// plain, without a look at the others.
    pub(crate) forms_owner: Vec<u32>,
    /// The sources of the labels, by runs: (first label, source index),
    /// in increasing order of label.
    pub(crate) source_runs: Vec<(u32, u32)>,
    pub(crate) arena: Vec<u8>,
    /// The forms of [`FormsEntry::Idn`] entries, at positions below
    /// [`TEXT_PART`]…
    pub(crate) text: String,
    /// …and, at `(k + 1) * TEXT_PART + offset`, in the `k`-th of these
    /// texts, taken whole from the reader (see [`LabelSet::adopt_text`]).
    pub(crate) text_parts: Vec<Arc<String>>,
    pub(crate) sources: Vec<SourceInfo>,
    /// CSR offsets into `ns_targets`, `records.len() + 1` long, or empty.
    pub(crate) ns_index: Vec<u32>,
    pub(crate) ns_targets: Vec<u32>,
    pub(crate) ns_names: Vec<Box<str>>,
    /// Per label the offset of its row in `csv_data` ([`NO_CSV_ROW`] for
    /// none), or empty when no row had a column beyond the label.
    pub(crate) csv_at: Vec<u64>,
    /// The rows, packed (see [`super::csv_fields`]).
    pub(crate) csv_data: Vec<u8>,
    pub(crate) csv_columns: Vec<String>,
    /// Whether a CSV header had an `lgr` column (rows may pin an LGR).
    pub(crate) csv_pins: bool,
    /// Whether a CSV header had a `registrant` column.
    pub(crate) csv_registrants: bool,
    pub(crate) apex: Option<String>,
    pub(crate) accounting: Accounting,
    /// Labels counted under the rule while read, per category, and how
    /// many of them are not stored (see [`super::settle`]).
    pub(crate) settled: [u64; SETTLED_KINDS],
    pub(crate) settled_unstored: u64,
    /// Of those, labels settled on the strength of the labels told ahead.
    pub(crate) settled_assumed: u64,
    /// Ranges of labels whose plain labels were all read under the rule.
    pub(crate) settle_ranges: Vec<(u32, u32)>,
    /// Stored labels the rule tagged.
    pub(crate) settle_tags: Vec<u32>,
    /// Stored labels the rule kept for the caller.
    pub(crate) settle_kept: Vec<u32>,
}

impl LabelSet {
    /// Number of registered labels stored: all of them, unless a read
    /// under a rule counted some without storing them ([`LabelSet::settled_unstored`]).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there is no label.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Registered labels counted under the rule while they were read (see
    /// [`Config::settle`](super::Config::settle)), per category: those it
    /// tagged, which are stored, and those not stored (counted in
    /// [`Accounting::registered_labels`], not in [`LabelSet::len`]).
    pub fn settled(&self) -> [u64; SETTLED_KINDS] {
        self.settled
    }

    /// Registered labels counted under the rule and not stored.
    pub fn settled_unstored(&self) -> u64 {
        self.settled_unstored
    }

    /// Ranges `start..end` of labels whose plain labels were all read
    /// under the rule, in increasing order: each of those is in
    /// [`LabelSet::settle_tags`] or [`LabelSet::settle_kept`].
    pub fn settle_ranges(&self) -> &[(u32, u32)] {
        &self.settle_ranges
    }

    /// The labels the rule counted and tagged ([`super::Settled::Tag`]),
    /// in increasing order.
    pub fn settle_tags(&self) -> &[u32] {
        &self.settle_tags
    }

    /// The labels the rule kept for the caller
    /// ([`super::Settled::Keep`]), in increasing order.
    pub fn settle_kept(&self) -> &[u32] {
        &self.settle_kept
    }

    /// The compact records, in order first seen.
    pub fn records(&self) -> &[LabelRecord] {
        &self.records
    }

    /// The index in [`LabelSet::sources`] of the source of label `i`.
    #[inline]
    pub(crate) fn source_of(&self, i: usize) -> usize {
        match self.source_runs.as_slice() {
            [(_, s)] => *s as usize,
            runs => {
                let k = runs.partition_point(|&(first, _)| first as usize <= i);
                runs.get(k.wrapping_sub(1)).map_or(0, |&(_, s)| s as usize)
            }
        }
    }

    /// The sources of the labels by runs, as `(first label, source index)`:
    /// a run starts at each label whose source is not the one before's.
    pub fn source_runs(&self) -> &[(u32, u32)] {
        &self.source_runs
    }

    /// Appends the records `recs` of labels from source `source`.
    #[inline]
    pub(crate) fn push_records(
        &mut self,
        source: u32,
        recs: impl IntoIterator<Item = LabelRecord>,
    ) {
        let first = self.records.len();
        self.records.extend(recs);
        // A run is pushed only with a label in it: `source_runs` gives
        // each run where its first label's source is not the one before's.
        if self.records.len() > first && self.source_runs.last().is_none_or(|&(_, s)| s != source) {
            // Label indices fit u32 (`next_index`).
            self.source_runs.push((first as u32, source));
        }
    }

    /// The indices of the labels that are not plain (IDN labels, labels
    /// with a finding or in upper case…), in increasing order.
    pub(crate) fn not_plain(&self) -> &[u32] {
        &self.forms_owner
    }

    /// A view of label `i`.
    pub fn get(&self, i: usize) -> Option<Label<'_>> {
        let rec = self.records.get(i)?;
        Some(Label { set: self, index: i, rec })
    }

    /// All labels in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Label<'_>> + '_ {
        self.records.iter().enumerate().map(move |(index, rec)| Label { set: self, index, rec })
    }

    /// The sources read, including `$INCLUDE` files, indexed by
    /// [`Label::source`].
    pub fn sources(&self) -> &[SourceInfo] {
        &self.sources
    }

    /// The apex, in lower-case presentation format with a trailing dot
    /// (`.` for the root), when one was given or found.
    pub fn apex(&self) -> Option<&str> {
        self.apex.as_deref()
    }

    /// The counts of the run.
    pub fn accounting(&self) -> &Accounting {
        &self.accounting
    }

    /// Names of the unknown CSV columns carried through, in order first
    /// seen.
    pub fn csv_columns(&self) -> &[String] {
        &self.csv_columns
    }

    /// The number of the unknown CSV column named `name` (ASCII case
    /// insensitive), for [`CsvFields::extra`].
    pub fn csv_column(&self, name: &str) -> Option<u32> {
        self.csv_columns.iter().position(|c| c.eq_ignore_ascii_case(name)).map(|i| i as u32)
    }

    /// Consumes the set, returning the accounting.
    pub fn into_accounting(self) -> Accounting {
        self.accounting
    }

    /// Which of the columns that name a label's entity, `registrant` and
    /// `registrar`, a CSV header of the input had: what same-entity
    /// findings compare (`scan::contract`).
    pub fn entity_columns(&self) -> Vec<&'static str> {
        let registrar = self.csv_column("registrar").is_some();
        [(self.csv_registrants, "registrant"), (registrar, "registrar")]
            .into_iter()
            .filter_map(|(had, name)| had.then_some(name))
            .collect()
    }

    /// Whether some label may have an LGR pinned by its CSV row (a CSV
    /// header had an `lgr` column): without one, no row's fields need
    /// reading to judge its label.
    pub(crate) fn has_pins(&self) -> bool {
        self.csv_pins
    }

    /// The text of label `i`, with record `rec`, when it has no forms
    /// entry (a plain label, see [`Label::original`]): in the arena, or in
    /// its mapped source.
    #[inline]
    pub(crate) fn plain_bytes(&self, i: usize, rec: &LabelRecord) -> &[u8] {
        if rec.text() != IN_SOURCE {
            return self.arena_slice(rec.text(), rec.len());
        }
        self.source_bytes(i, rec)
    }

    /// [`LabelSet::plain_bytes`] and the bytes from the label's start to
    /// the end of the buffer it is in (the label, then whatever follows
    /// it), so that a fixed number of bytes can be read at once.
    #[inline]
    pub(crate) fn plain_bytes_tail(&self, i: usize, rec: &LabelRecord) -> (&[u8], &[u8]) {
        let (buf, start) = if rec.text() != IN_SOURCE {
            (&self.arena[..], rec.text())
        } else {
            match self.sources.get(self.source_of(i)).and_then(|s| s.data.as_deref()) {
                Some(d) => (d.bytes(), rec.offset()),
                None => return (b"", b""),
            }
        };
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        let tail = buf.get(start..).unwrap_or(b"");
        (tail.get(..usize::from(rec.len())).unwrap_or(b""), tail)
    }

    #[inline]
    fn source_bytes(&self, i: usize, rec: &LabelRecord) -> &[u8] {
        let Some(data) = self.sources.get(self.source_of(i)).and_then(|s| s.data.as_deref()) else {
            return b"";
        };
        let start = usize::try_from(rec.offset()).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::from(rec.len()));
        data.bytes().get(start..end).unwrap_or(b"")
    }

    /// The deduplication key of label `i` (empty past the last).
    pub(crate) fn key_of(&self, i: u32) -> &[u8] {
        let Some(rec) = self.records.get(i as usize) else { return b"" };
        match self.forms.get(rec.forms as usize) {
            None => self.plain_bytes(i as usize, rec),
            Some(FormsEntry::Arena { lower, .. }) => self.arena_slice(*lower, rec.len()),
            Some(FormsEntry::Full(f)) => f.key.as_deref().unwrap_or(f.alabel.as_bytes()),
            Some(&FormsEntry::Idn { at, alen, .. }) => self.text_slice(at, alen).as_bytes(),
        }
    }

    /// Asks the processor to bring label `i`'s record and forms entry
    /// into cache (`text` false), or, once they are there, its IDN text
    /// (`text` true): for a pass over scattered labels, which otherwise
    /// waits for each of them on memory. Only a hint.
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize, text: bool) {
        let Some(rec) = self.records.get(i) else { return };
        let Some(f) = self.forms.get(rec.forms as usize) else { return };
        if !text {
            prefetch(std::ptr::from_ref(f).cast());
        } else if let &FormsEntry::Idn { at, alen, .. } = f
            && let (text, s) = self.text_at(at)
            && let Some(t) = text.as_bytes().get(s + usize::from(alen))
        {
            prefetch(std::ptr::from_ref(t));
        }
    }

    fn text_slice(&self, start: u64, len: u16) -> &str {
        let (text, s) = self.text_at(start);
        text.get(s..s + usize::from(len)).unwrap_or("")
    }

    /// The text that forms position `start` is in, and the offset there.
    #[inline]
    fn text_at(&self, start: u64) -> (&str, usize) {
        let part = start / TEXT_PART;
        let s = (start % TEXT_PART) as usize;
        if part == 0 {
            (&self.text, s)
        } else {
            (self.text_parts.get(part as usize - 1).map_or("", |t| t.as_str()), s)
        }
    }

    /// Keeps `text` as a part of the forms text, whole, and returns the
    /// forms position of its start: the reader's own buffer of IDN forms
    /// becomes the set's, with no copy into memory of its own (the reader
    /// reads the forms from it while it registers their labels).
    pub(crate) fn adopt_text(&mut self, text: Arc<String>) -> u64 {
        self.text_parts.push(text);
        self.text_parts.len() as u64 * TEXT_PART
    }

    fn arena_slice(&self, start: u64, len: u16) -> &[u8] {
        let s = start as usize;
        self.arena.get(s..s + usize::from(len)).unwrap_or(b"")
    }
}

/// One registered label: where it was seen, its original text, both IDNA
/// forms and its finding, its NS targets and its CSV fields.
#[derive(Clone, Copy, Debug)]
pub struct Label<'a> {
    set: &'a LabelSet,
    index: usize,
    rec: &'a LabelRecord,
}

impl<'a> Label<'a> {
    /// Index in the set.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The compact record.
    pub fn record(&self) -> &'a LabelRecord {
        self.rec
    }

    /// Index of the source file.
    pub fn source(&self) -> usize {
        self.set.source_of(self.index)
    }

    /// Path of the source file.
    pub fn source_path(&self) -> &'a Path {
        self.set.sources.get(self.source()).map_or(Path::new(""), |s| s.path.as_path())
    }

    /// Line (1-based) of the first record of the label.
    pub fn line(&self) -> u32 {
        self.rec.line
    }

    /// Byte offset of the label text in the source.
    pub fn offset(&self) -> u64 {
        self.rec.offset()
    }

    fn full(&self) -> Option<&'a Full> {
        match self.set.forms.get(self.rec.forms as usize) {
            Some(FormsEntry::Full(f)) => Some(f),
            _ => None,
        }
    }

    /// The label as written in the input (escapes and case kept; it may be
    /// any bytes).
    pub fn original(&self) -> &'a [u8] {
        match self.set.forms.get(self.rec.forms as usize) {
            Some(FormsEntry::Full(f)) if f.original.is_some() => {
                f.original.as_deref().unwrap_or(b"")
            }
            Some(FormsEntry::Arena { original, .. }) if *original != IN_SOURCE => {
                self.set.arena_slice(*original, self.rec.len())
            }
            None => self.set.plain_bytes(self.index, self.rec),
            Some(&FormsEntry::Idn { at, alen, ulen, original: IdnOriginal::Follows }) => {
                let at = at + u64::from(alen) + u64::from(ulen);
                self.set.text_slice(at, self.rec.len()).as_bytes()
            }
            Some(&FormsEntry::Idn { at, alen, original: IdnOriginal::IsALabel, .. }) => {
                self.set.text_slice(at, alen).as_bytes()
            }
            _ => self.set.source_bytes(self.index, self.rec),
        }
    }

    /// The original text for a report (invalid UTF-8 replaced).
    pub fn original_text(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.original())
    }

    /// The A-label (or LDH label), lower case. Best effort when there is a
    /// [`finding`](Self::finding).
    pub fn alabel(&self) -> &'a str {
        let bytes = match self.set.forms.get(self.rec.forms as usize) {
            None => self.set.plain_bytes(self.index, self.rec),
            Some(FormsEntry::Arena { lower, .. }) => self.set.arena_slice(*lower, self.rec.len()),
            Some(FormsEntry::Full(f)) => return &f.alabel,
            Some(&FormsEntry::Idn { at, alen, .. }) => return self.set.text_slice(at, alen),
        };
        // Plain and folded labels are ASCII by construction.
        std::str::from_utf8(bytes).unwrap_or("")
    }

    /// The text of a plain label (lower-case LDH, its own U-label and
    /// A-label), `None` for any other.
    #[inline]
    pub(crate) fn plain_text(&self) -> Option<&'a [u8]> {
        self.rec.is_plain().then(|| self.set.plain_bytes(self.index, self.rec))
    }

    /// The U-label (equal to the A-label for an LDH label).
    pub fn ulabel(&self) -> &'a str {
        match self.set.forms.get(self.rec.forms as usize) {
            Some(FormsEntry::Full(f)) => f.ulabel.as_deref().unwrap_or(&f.alabel),
            Some(&FormsEntry::Idn { at, alen, ulen, .. }) => {
                self.set.text_slice(at + u64::from(alen), ulen)
            }
            _ => self.alabel(),
        }
    }

    /// Whether the label is an IDN (its A-label starts with `xn--`).
    pub fn is_idn(&self) -> bool {
        self.alabel().starts_with(crate::idna2008::ACE_PREFIX)
    }

    /// Why the label is not a valid IDNA2008 / LDH label, if it is not.
    pub fn finding(&self) -> Option<&'a Finding> {
        self.full().and_then(|f| f.finding.as_ref())
    }

    /// The NS targets of the label in the zone (lower case, absolute, with
    /// a trailing dot), sorted and without duplicates. Empty for lists and
    /// CSV, and when NS targets were not collected.
    pub fn ns_targets(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let set = self.set;
        let range = match (set.ns_index.get(self.index), set.ns_index.get(self.index + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        };
        set.ns_targets[range].iter().map(move |&t| set.ns_names[t as usize].as_ref())
    }

    /// The CSV fields of the row, for a label read from CSV.
    pub fn csv(&self) -> Option<CsvFields<'a>> {
        let at = *self.set.csv_at.get(self.index)?;
        CsvFields::unpack(self.set.csv_data.get(usize::try_from(at).ok()?..)?)
    }
}

/// See [`crate::simd::prefetch`].
pub(crate) use crate::simd::prefetch;

#[cfg(test)]
mod tests {
    use super::{IN_SOURCE, LabelRecord, NONE};

    /// `source_runs` starts a run exactly where a label's source is not the
    /// one before's: sources that add no label (empty, or only labels seen
    /// before) leave no run.
    #[test]
    fn source_runs_start_where_the_source_changes() {
        use crate::input::{Config, Input, read};
        let inputs = [
            ("a.list", "a\nb\n"),
            ("empty.list", "# no label\n"),
            ("again.list", "b\na\n"),
            ("c.list", "c\nd\n"),
            ("seen.list", "d\n"),
            ("e.list", "e\n"),
        ];
        let set = read(
            inputs.map(|(name, text)| Input::Bytes { name: name.into(), data: text.into() }),
            &Config::new(),
        )
        .unwrap();
        let source = |name: &str| {
            set.sources().iter().position(|s| s.path.to_str() == Some(name)).unwrap() as u32
        };
        let expected = [(0, source("a.list")), (2, source("c.list")), (4, source("e.list"))];
        assert_eq!(set.len(), 5);
        for l in set.iter() {
            let run = expected.iter().rev().find(|&&(first, _)| first as usize <= l.index());
            assert_eq!(run.map(|&(_, s)| s as usize), Some(l.source()), "{}", l.ulabel());
        }
        assert_eq!(set.source_runs(), expected);
    }

    /// `not_plain` lists exactly the labels with a forms entry, in order,
    /// whatever read them: a CZDS dump (mapped, in parallel chunks, with
    /// labels borrowed or copied; streamed), a master file, a list, a CSV.
    #[test]
    fn not_plain_lists_the_labels_with_forms() {
        use crate::input::{Config, Input, InputFormat, LabelText, MmapChoice, read};
        let mut next = crate::testutil::random_u64s(0x5DEE_CE66_D1CE_4E5B);
        let heads =
            ["plain", "xn--p1ai", "Upper", "xn--zz", "a--b", "-bad", "xn--mgbh0fb", "d1g1t"];
        let mut dump = String::from("tld.\t86400\tin\tsoa\ta. b. 1 2 3 4 5\n");
        let mut list = String::new();
        let mut csv = String::from("label,registrant\n");
        for i in 0..20_000u64 {
            let head = heads[(next() % heads.len() as u64) as usize];
            let label = format!("{head}{i}");
            let label = if head.starts_with("xn--") { head.to_string() } else { label };
            dump.push_str(&format!("{label}.tld.\t86400\tin\tns\tns1.example.net.\n"));
            list.push_str(&format!("{label}\n"));
            csv.push_str(&format!("{label},r{}\n", i % 7));
        }
        let dir = std::env::temp_dir().join(format!("lgrscan-not-plain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let zone = "$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nplain NS a.\nUPPER NS a.\n\
                    xn--p1ai NS a.\nxn--zz NS a.\nplain NS b.\n";
        let files = [
            ("dump.zone", dump.as_str()),
            ("zone.zone", zone),
            ("list.txt", &list),
            ("l.csv", &csv),
        ];
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            // SAFETY: the test's own file, not changed while mapped.
            let mapped = unsafe { MmapChoice::auto() };
            for (mmap, text) in [
                (mapped, LabelText::Borrow),
                (mapped, LabelText::Copy),
                (MmapChoice::never(), LabelText::Borrow),
            ] {
                let format = name.ends_with(".txt").then_some(InputFormat::List);
                let mut config = Config::new().format(format).mmap(mmap).label_text(text);
                // Past 64 KiB of copied text, labels get forms entries.
                config.record_text_max = 1 << 16;
                let set = read([Input::from_arg(path.to_str().unwrap())], &config).unwrap();
                // Every way of keeping the text gives the same labels (the
                // copies past `record_text_max` get forms entries).
                let view = |set: &super::LabelSet| -> Vec<String> {
                    set.iter()
                        .map(|l| {
                            format!(
                                "{} {} {} {} {:?} {} {}",
                                l.source(),
                                l.line(),
                                l.offset(),
                                l.original_text(),
                                l.finding(),
                                l.alabel(),
                                l.ulabel()
                            )
                        })
                        .collect()
                };
                let borrowed = Config::new().format(format).mmap(mapped);
                let reference = read([Input::from_arg(path.to_str().unwrap())], &borrowed).unwrap();
                assert_eq!(view(&set), view(&reference), "{name}");
                if name == "dump.zone" && (text == LabelText::Copy || !mmap.is_enabled()) {
                    // The arena passed `record_text_max`.
                    assert!(set.not_plain().len() > reference.not_plain().len() + 1000);
                }
                let want: Vec<u32> = (0..set.len() as u32)
                    .filter(|&i| !set.records()[i as usize].is_plain())
                    .collect();
                assert!(!want.is_empty() && want.len() < set.len(), "{name}");
                assert_eq!(set.not_plain(), &want[..], "{name}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn records_pack_into_16_bytes() {
        use super::{ARENA, MAX_RECORD_TEXT};
        assert_eq!(std::mem::size_of::<LabelRecord>(), 16);
        let big = (1u64 << 48) - 2;
        for (offset, len, line, forms) in [
            (0, 0, 0, NONE),
            (big, u16::MAX, u32::MAX, NONE),
            (12_345, 63, 7, 9),
            (1, 2, 3, ARENA - 1),
        ] {
            let mut r = LabelRecord::pack(offset, len, line, forms);
            assert_eq!((r.offset(), r.len(), r.line(), r.forms), (offset, len, line, forms));
            assert_eq!(r.is_plain(), forms == NONE);
            assert_eq!(r.text(), IN_SOURCE);
            if r.is_plain() {
                for text in [0, 5, MAX_RECORD_TEXT] {
                    assert!(r.set_text(text));
                    assert_eq!((r.text(), r.offset(), r.len()), (text, offset, len));
                    assert!(r.is_plain() && r.forms != NONE);
                }
                // Past the last position, the record is left as it was.
                assert!(!r.set_text(MAX_RECORD_TEXT + 1));
                assert_eq!(r.text(), MAX_RECORD_TEXT);
            }
        }
    }
}
