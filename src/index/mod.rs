//! A saved index of registered labels (`lgrscan index`), read by memory
//! map for sunrise and pre-launch checks ([`crate::sunrise`]).
//!
//! Each registered label is stored under a 64-bit hash of each of its
//! *keys*: its index labels under the variant LGR (RFC 7940 §8.5, in both
//! [`IndexMode`]s, so that every grouping of [`crate::scan::Grouping`] finds
//! it), or its own U-label when it has none; an all-ASCII label under its
//! own text when the variant LGR maps every ASCII label to itself (its index
//! label is then that text or none, the same shortcut the scan takes). A
//! look-up may so return labels that do not collide with the candidate (a
//! second mode's index label, a hash collision): [`crate::sunrise`] passes
//! them to the scan, which decides; it must never miss one that does.
//!
//! The file ([`format`](mod@format)) records the lgrscan version, each LGR's name and
//! SHA-256 and its bytes (deflated), the variant LGR, the index mode and the
//! inputs (path, size, SHA-256, SOA serial), so that a check needs no
//! `--lgr` and answers exactly as a scan with the build's LGRs would. Its
//! sections:
//!
//! - `fingerprints` and `positions`: per (key, label) entry, 32 bits of
//!   the key's hash below the directory's (u32) and the label's input
//!   position (u32), in two arrays, by directory bucket (a counting sort:
//!   within a bucket, in input order);
//! - `dir`: `2^dir_bits + 1` entry numbers (u64), where the entries whose
//!   hash starts with each `dir_bits`-bit prefix begin (about 32 entries a
//!   bucket: the directory stays in cache, a bucket's fingerprints are two
//!   cache lines);
//! - `labels`: 12 bytes per label, by input position: its A-label text
//!   reference (offset: 48 bits, length: 16 bits, into `text`) and its
//!   line (u32);
//! - `meta`: 32 bytes per label with CSV columns, by input position:
//!   position (u32), its `lgr` pin (u32: 0 none, else the judging LGR's
//!   position in the header + 1, [`PIN_UNKNOWN`] for a pin naming none),
//!   then the `registered` date (RFC 3339 text), `registrant` and
//!   `registrar` as text references (u64, `u64::MAX`: none);
//! - `sources`: runs of labels by source, (first position, source number)
//!   as two u32, the paths in the header;
//! - `text`: the A-labels and CSV values;
//! - `lgr.N`: the deflated bytes of each LGR.

mod build;
pub mod format;

pub use build::{Prepared, Unsealed, prepare, write};

use crate::input::Timestamp;
use crate::lgr::{IndexMode, IndexScratch, Label as EvalLabel, Lgr};
use crate::scan::{Grouping, LgrSet};
use format::{Backing, Checked, get_u32, get_u64};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// An index that cannot be built, opened or read, or an LGR that does not
/// match it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub message: String,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error { message: message.into() }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The grouping of a scan (`--index-mode` of `scan`, `index` and `check`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScanMode {
    /// [`Grouping::Verified`] on [`IndexMode::Reference`] index labels.
    #[default]
    Verified,
    /// [`Grouping::IndexLabel`] in [`IndexMode::Reference`].
    Reference,
    /// [`Grouping::IndexLabel`] in [`IndexMode::Rfc7940`].
    Rfc7940,
}

impl ScanMode {
    /// The variant LGR's index-label mode and the grouping.
    pub fn modes(self) -> (IndexMode, Grouping) {
        match self {
            ScanMode::Verified => (IndexMode::Reference, Grouping::Verified),
            ScanMode::Reference => (IndexMode::Reference, Grouping::IndexLabel),
            ScanMode::Rfc7940 => (IndexMode::Rfc7940, Grouping::IndexLabel),
        }
    }

    /// `verified`, `reference` or `rfc7940`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScanMode::Verified => "verified",
            ScanMode::Reference => "reference",
            ScanMode::Rfc7940 => "rfc7940",
        }
    }

    fn parse(s: &str) -> Option<ScanMode> {
        [ScanMode::Verified, ScanMode::Reference, ScanMode::Rfc7940]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

/// One LGR as given: `builtin:NAME` or a file, with its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LgrSource {
    /// The LGR's name in reports (`builtin:NAME` or the file name).
    pub name: String,
    /// Whether it is a built-in LGR.
    pub builtin: bool,
    /// Its bytes (RFC 7940 XML, or a table).
    pub bytes: Vec<u8>,
    /// The file it was read from, as given (for messages; `None` for a
    /// built-in LGR or one embedded in an index).
    pub path: Option<std::path::PathBuf>,
}

impl LgrSource {
    /// Reads `builtin:NAME` or a file (at most [`crate::lgr::MAX_LGR_BYTES`]).
    ///
    /// # Errors
    /// An unknown built-in, an unreadable or too large file.
    pub fn load(spec: &str) -> Result<LgrSource, Error> {
        if let Some(name) = spec.strip_prefix("builtin:") {
            let b = crate::builtin::find(name).map_err(|e| Error::new(format!("LGR {e}")))?;
            return Ok(LgrSource {
                name: spec.to_string(),
                builtin: true,
                bytes: b.xml.as_bytes().to_vec(),
                path: None,
            });
        }
        let path = Path::new(spec);
        let bytes = Lgr::read_file(path).map_err(|e| {
            let hint = crate::builtin::suggestion(spec).map(|h| format!("; {h}"));
            Error::new(format!("LGR {e}{}", hint.unwrap_or_default()))
        })?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(LgrSource { name, builtin: false, bytes, path: Some(path.to_path_buf()) })
    }

    /// The SHA-256 of its bytes, in hex: the LGR's identity in a scan's
    /// meta record, in finding ids ([`crate::report::findings::finding_id`])
    /// and in an index header.
    pub fn sha256(&self) -> String {
        crate::report::meta::hex(&Sha256::digest(&self.bytes))
    }

    fn compile(&self, mode: IndexMode) -> Result<Arc<Lgr>, Error> {
        let lgr = if self.builtin {
            let text = std::str::from_utf8(&self.bytes)
                .map_err(|_| Error::new(format!("LGR {}: not UTF-8", self.name)))?;
            Lgr::from_builtin_xml(&self.name, text)
        } else {
            Lgr::from_bytes(&self.name, &self.bytes)
        };
        let lgr = lgr.map_err(|e| match &self.path {
            Some(p) => Error::new(format!("LGR {}", e.with_path(p))),
            None => Error::new(format!("LGR {}: {e}", self.name)),
        })?;
        Ok(Arc::new(lgr.with_index_mode(mode)))
    }
}

/// The variant LGR of a set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantSource {
    /// The single judging LGR is its own variant LGR.
    Same,
    /// An LGR of its own (`--variants`).
    Lgr(LgrSource),
    /// The merge of the judging LGRs ([`crate::lgr::merge`]).
    Merged,
}

/// An LGR set as given (the sources, not the compiled LGRs): what an index
/// embeds and what `scan`'s flags name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LgrSpec {
    /// The judging LGRs, in order.
    pub judges: Vec<LgrSource>,
    /// The variant LGR.
    pub variants: VariantSource,
    /// The grouping.
    pub mode: ScanMode,
}

impl LgrSpec {
    /// The set `scan` uses for these flags: `lgrs` (none: the built-in
    /// set with `builtin:common`), `variants` (none: the single LGR itself,
    /// or the merge of several).
    ///
    /// # Errors
    /// An LGR that cannot be read.
    pub fn from_flags(
        lgrs: &[String],
        variants: Option<&str>,
        mode: ScanMode,
    ) -> Result<LgrSpec, Error> {
        let default = lgrs.is_empty();
        let specs: Vec<String> = if default {
            crate::builtin::DEFAULT_SET.iter().map(|n| format!("builtin:{n}")).collect()
        } else {
            lgrs.to_vec()
        };
        let judges = specs.iter().map(|s| LgrSource::load(s)).collect::<Result<Vec<_>, _>>()?;
        let variants = match variants {
            Some(v) => VariantSource::Lgr(LgrSource::load(v)?),
            None if default => VariantSource::Lgr(LgrSource::load(&format!(
                "builtin:{}",
                crate::builtin::DEFAULT_VARIANTS
            ))?),
            None if judges.len() == 1 => VariantSource::Same,
            None => VariantSource::Merged,
        };
        Ok(LgrSpec { judges, variants, mode })
    }

    /// Compiles the set, as `scan` does for the same flags.
    ///
    /// # Errors
    /// An LGR that does not compile or merge.
    pub fn compile(&self) -> Result<LgrSet, Error> {
        let (mode, grouping) = self.mode.modes();
        let judges =
            self.judges.iter().map(|s| s.compile(mode)).collect::<Result<Vec<_>, Error>>()?;
        let variants = match &self.variants {
            VariantSource::Same => None,
            VariantSource::Lgr(s) => Some(s.compile(mode)?),
            VariantSource::Merged => {
                let refs: Vec<&Lgr> = judges.iter().map(|l| &**l).collect();
                let merged = crate::lgr::merge(&refs)
                    .map_err(|e| Error::new(format!("merging the LGR set: {e}")))?;
                Some(Arc::new(merged.with_index_mode(mode)))
            }
        };
        Ok(LgrSet::new(judges, variants).map_err(Error::new)?.with_grouping(grouping))
    }

    /// Checks that `other` (LGRs given with an index) names the same LGRs:
    /// same bytes (SHA-256, whatever the file names), same variant LGR,
    /// same mode.
    ///
    /// # Errors
    /// The first difference, named.
    pub fn must_match(&self, other: &LgrSpec) -> Result<(), Error> {
        let list = |s: &LgrSpec| -> Vec<String> {
            s.judges.iter().map(|l| format!("{} (sha256 {})", l.name, l.sha256())).collect()
        };
        // By content: the same bytes under another file name are the same
        // LGR (the index's own, with the names it was built with, is used).
        let digests =
            |s: &LgrSpec| -> Vec<String> { s.judges.iter().map(|l| l.sha256()).collect() };
        if digests(self) != digests(other) {
            return Err(Error::new(format!(
                "the LGRs given ({}) are not those the index was built with ({}); \
                 leave out --lgr to use the index's own",
                list(other).join(", "),
                list(self).join(", ")
            )));
        }
        let variant = |s: &LgrSpec| match &s.variants {
            VariantSource::Same => "the single LGR".to_string(),
            VariantSource::Merged => "the merge of the set".to_string(),
            VariantSource::Lgr(l) => format!("{} (sha256 {})", l.name, l.sha256()),
        };
        let variant_digest = |s: &LgrSpec| match &s.variants {
            VariantSource::Lgr(l) => l.sha256(),
            _ => variant(s),
        };
        if variant_digest(self) != variant_digest(other) {
            return Err(Error::new(format!(
                "the variant LGR given ({}) is not the index's ({})",
                variant(other),
                variant(self)
            )));
        }
        if self.mode != other.mode {
            return Err(Error::new(format!(
                "--index-mode {} given, the index was built with {}",
                other.mode.as_str(),
                self.mode.as_str()
            )));
        }
        Ok(())
    }
}

/// The hash of a key (a sequence of code points) in the index: the hash of
/// its UTF-8 text ([`key_hash_utf8`]). Fixed by the format (it is stored),
/// so not a std or foldhash hasher.
pub fn key_hash(cps: impl IntoIterator<Item = u32>) -> u64 {
    key_hash_in(cps, &mut String::new())
}

/// [`key_hash`], the text made in `text`.
fn key_hash_in(cps: impl IntoIterator<Item = u32>, text: &mut String) -> u64 {
    text.clear();
    text.extend(cps.into_iter().map(|c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER)));
    key_hash_utf8(text.as_bytes())
}

/// The hash of a key given as its UTF-8 text: eight bytes a folded
/// multiply (the last word padded with zeros, the length in the seed),
/// then splitmix64's finaliser, as the directory reads the top bits. An
/// ASCII label is its own text, so it is hashed without decoding.
pub fn key_hash_utf8(text: &[u8]) -> u64 {
    let fold = |a: u64, b: u64| {
        let p = u128::from(a).wrapping_mul(u128::from(b));
        (p as u64) ^ (p >> 64) as u64
    };
    let mut h = 0x243f_6a88_85a3_08d3 ^ (text.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut words = text.chunks_exact(8);
    for w in &mut words {
        h = fold(h ^ crate::input::hash::word(w, 0), 0x517c_c1b7_2722_0a95);
    }
    let r = words.remainder().len();
    if r > 0 {
        h = fold(h ^ crate::input::hash::tail_word(text, r), 0x517c_c1b7_2722_0a95);
    }
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Reused buffers of [`Keys::of`].
#[derive(Default)]
pub(crate) struct KeyScratch {
    label: EvalLabel,
    sc: IndexScratch,
    index: Vec<u32>,
    other: Vec<u32>,
    text: String,
}

/// Computes the keys of labels under a set's variant LGR (see the module
/// documentation).
pub(crate) struct Keys<'a> {
    variants: &'a Lgr,
    ascii_identity: bool,
}

impl<'a> Keys<'a> {
    pub(crate) fn new(set: &'a LgrSet) -> Keys<'a> {
        let variants = set.variants();
        Keys { variants, ascii_identity: variants.ascii_is_own_index() }
    }

    /// The key hashes of a label given as its U-label (one or two).
    pub(crate) fn of(&self, ulabel: &str, sc: &mut KeyScratch, out: &mut Vec<u64>) {
        if ulabel.is_ascii() {
            return self.of_ascii(ulabel.as_bytes(), sc, out);
        }
        self.of_other(ulabel, sc, out);
    }

    /// [`Keys::of`] an all-ASCII label.
    #[inline]
    pub(crate) fn of_ascii(&self, label: &[u8], sc: &mut KeyScratch, out: &mut Vec<u64>) {
        if self.ascii_identity {
            out.clear();
            out.push(key_hash_utf8(label));
            return;
        }
        // ASCII, hence UTF-8.
        self.of_other(std::str::from_utf8(label).unwrap_or(""), sc, out);
    }

    /// [`Keys::of`] through the variant LGR's index labels.
    fn of_other(&self, ulabel: &str, sc: &mut KeyScratch, out: &mut Vec<u64>) {
        out.clear();
        sc.label.set_text(ulabel);
        if !sc.label.is_empty() && self.variants.index_into(&sc.label, &mut sc.sc, &mut sc.index) {
            out.push(key_hash_in(sc.index.iter().copied(), &mut sc.text));
            if self.variants.other_mode_index(&sc.label, &mut sc.sc, &mut sc.other)
                && sc.other != sc.index
            {
                out.push(key_hash_in(sc.other.iter().copied(), &mut sc.text));
            }
        } else {
            out.push(key_hash_utf8(ulabel.as_bytes()));
        }
    }
}

/// Bytes per label record.
const LABEL: usize = 12;
/// Bytes per meta record.
const META: usize = 32;
/// A text reference for no text.
const NO_TEXT: u64 = u64::MAX;

/// The directory bucket of a hash: its top `bits` bits.
fn bucket(h: u64, bits: u32) -> u64 {
    if bits == 0 { 0 } else { h >> (64 - bits) }
}

/// What an entry keeps of its hash: the 32 bits below the bucket's.
fn fingerprint(h: u64, bits: u32) -> u32 {
    ((h << bits) >> 32) as u32
}

/// A registered label found in an index (its text is read with
/// [`Index::alabel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Where its A-label (or LDH text) is.
    text: u64,
    /// Its position in the input (the order labels were first seen).
    pub position: u32,
    /// The line where it was first seen.
    pub line: u32,
}

/// A `meta` record's pin naming no LGR of the index's set.
pub const PIN_UNKNOWN: u32 = u32::MAX;

/// The `lgr` column of a registered label (which LGR of the set judges
/// it), as an index keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pin {
    /// The judging LGR at this position of the set.
    Lgr(usize),
    /// A pin that names no LGR of the set: the label is invalid.
    Unknown,
}

/// The CSV columns of a registered label.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// `lgr`, when the label was pinned to one.
    pub pin: Option<Pin>,
    /// `registered`.
    pub registered: Option<Timestamp>,
    /// `registrant`.
    pub registrant: Option<String>,
    /// `registrar`.
    pub registrar: Option<String>,
}

/// An index opened for reading.
#[derive(Debug)]
pub struct Index {
    file: Checked,
    fingerprints: (u64, u64),
    positions: (u64, u64),
    dir: (u64, u64),
    dir_bits: u32,
    labels: (u64, u64),
    meta: (u64, u64),
    text: (u64, u64),
    runs: Vec<(u32, u32)>,
    sources: Vec<String>,
    spec: LgrSpec,
}

impl Index {
    /// Maps and opens the index file at `path`.
    ///
    /// # Errors
    /// An unreadable, truncated or damaged file, or one that is not an
    /// index.
    pub fn open(path: &Path) -> Result<Index, Error> {
        let file = std::fs::File::open(path)
            .map_err(|e| Error::new(format!("{}: cannot open: {e}", path.display())))?;
        // SAFETY: the index is read-only and replaced by rename, never
        // rewritten in place (the README says so); a reader keeps the
        // file it mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|e| Error::new(format!("{}: cannot map: {e}", path.display())))?;
        let mut index = Index::from_backing(Backing::Map(map))
            .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
        index.file.path = path.display().to_string();
        Ok(index)
    }

    /// Opens an index held in memory.
    ///
    /// # Errors
    /// As [`Index::open`].
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Index, Error> {
        Index::from_backing(Backing::Owned(bytes))
    }

    fn from_backing(bytes: Backing) -> Result<Index, Error> {
        let file = Checked::new(bytes)?;
        let h = &file.header;
        let bad = |what: &str| Error::new(format!("damaged index: bad {what} in the header"));
        let num = |k: &str| h.get(k).and_then(Value::as_u64).ok_or_else(|| bad(k));
        let dir_bits = num("dir_bits")?;
        if dir_bits > 32 {
            return Err(bad("dir_bits"));
        }
        let dir_bits = dir_bits as u32;
        let fingerprints = file.section_range("fingerprints")?;
        let positions = file.section_range("positions")?;
        let dir = file.section_range("dir")?;
        let labels = file.section_range("labels")?;
        let meta = file.section_range("meta")?;
        let text = file.section_range("text")?;
        let entries = num("entries")?;
        if fingerprints.1 != 4 * entries || positions.1 != 4 * entries {
            return Err(bad("entries"));
        }
        if labels.1 != LABEL as u64 * num("labels")? {
            return Err(bad("labels"));
        }
        if dir.1 != 8 * ((1u64 << dir_bits) + 1) || meta.1 % META as u64 != 0 {
            return Err(bad("dir or meta"));
        }
        let runs_bytes = file.section("sources")?;
        let runs: Vec<(u32, u32)> =
            runs_bytes.chunks_exact(8).map(|c| (get_u32(c, 0), get_u32(c, 4))).collect();
        let sources: Vec<String> = h
            .get("sources")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("sources"))?
            .iter()
            .map(|s| s.as_str().map(str::to_string).ok_or_else(|| bad("sources")))
            .collect::<Result<_, _>>()?;
        if runs_bytes.len() % 8 != 0 || runs.iter().any(|&(_, s)| s as usize >= sources.len()) {
            return Err(bad("sources"));
        }
        let mode = h
            .get("index_mode")
            .and_then(Value::as_str)
            .and_then(ScanMode::parse)
            .ok_or_else(|| bad("index_mode"))?;
        let judges = h
            .get("lgrs")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("lgrs"))?
            .iter()
            .map(|l| embedded_lgr(&file, l))
            .collect::<Result<Vec<_>, _>>()?;
        if judges.is_empty() {
            return Err(bad("lgrs"));
        }
        let variants = match h.get("variants") {
            Some(Value::String(s)) if s == "same" => VariantSource::Same,
            Some(Value::String(s)) if s == "merged" => VariantSource::Merged,
            Some(v @ Value::Object(_)) => VariantSource::Lgr(embedded_lgr(&file, v)?),
            _ => return Err(bad("variants")),
        };
        let spec = LgrSpec { judges, variants, mode };
        Ok(Index {
            file,
            fingerprints,
            positions,
            dir,
            dir_bits,
            labels,
            meta,
            text,
            runs,
            sources,
            spec,
        })
    }

    /// The LGR set the index was built with (bytes and mode).
    pub fn spec(&self) -> &LgrSpec {
        &self.spec
    }

    /// The header, as JSON.
    pub fn header(&self) -> &Map<String, Value> {
        &self.file.header
    }

    /// The apex of the registered labels (`example.`), as the read found
    /// it ([`crate::input::LabelSet::apex`]); `None` for a list of bare
    /// labels, or an index of an lgrscan that did not record it.
    pub fn apex(&self) -> Option<&str> {
        self.file.header.get("apex").and_then(Value::as_str)
    }

    /// The malformed input lines its build accepted (`--on-malformed
    /// warn` or `ignore`): lines left out, whose label is not in the
    /// index, and CSV rows whose `lgr` pin names no LGR of the set, whose
    /// label is kept but invalid. 0 for an index of an lgrscan that did
    /// not record them.
    pub fn malformed_lines(&self) -> u64 {
        self.file.header.get("malformed_lines").and_then(Value::as_u64).unwrap_or(0)
    }

    /// The number of labels with a `registered` date (a CSV column), which
    /// `--holder registered` orders by; `None` for an index of an lgrscan
    /// that did not record it.
    pub fn dated_labels(&self) -> Option<u64> {
        self.file.header.get("dated_labels").and_then(Value::as_u64)
    }

    /// The number of labels in the index.
    pub fn labels(&self) -> u64 {
        self.file.header.get("labels").and_then(Value::as_u64).unwrap_or(0)
    }

    /// The size of the index file.
    pub fn file_len(&self) -> u64 {
        self.file.file_len()
    }

    /// Checks every block's checksum.
    ///
    /// # Errors
    /// A damaged block.
    pub fn verify(&self) -> Result<(), Error> {
        self.file.verify_all()
    }

    /// Tells the index that `lookups` look-ups follow (a hint: see
    /// [`format::Checked::expect_lookups`]), so that a large batch reads
    /// the file from disk ahead, in large requests.
    pub fn expect_lookups(&self, lookups: usize) {
        self.file.expect_lookups(lookups);
    }

    /// Starts loading the directory entry that [`Self::lookup`] of `hash`
    /// reads first into the cache. A batch of look-ups calls this, then
    /// [`Self::prefetch_fingerprints`], some look-ups ahead, so that their
    /// cache misses overlap instead of following one another.
    pub fn prefetch_bucket(&self, hash: u64) {
        self.file.prefetch(self.dir.0 + 8 * bucket(hash, self.dir_bits));
    }

    /// Starts loading the fingerprints that [`Self::lookup`] of `hash`
    /// compares (reading its directory entry: see
    /// [`Self::prefetch_bucket`]).
    pub fn prefetch_fingerprints(&self, hash: u64) {
        let b = bucket(hash, self.dir_bits);
        if let Ok(d) = self.file.data(self.dir.0 + 8 * b, 8) {
            self.file.prefetch(self.fingerprints.0.saturating_add(get_u64(d, 0).saturating_mul(4)));
        }
    }

    /// Every label stored under the key hash `hash`, appended to `out`
    /// (and, rarely, one under another key with the same bucket and
    /// fingerprint: the caller compares what it needs to).
    ///
    /// # Errors
    /// A damaged index.
    pub fn lookup(&self, hash: u64, out: &mut Vec<Entry>) -> Result<(), Error> {
        let b = bucket(hash, self.dir_bits);
        let d = self.file.data(self.dir.0 + 8 * b, 16)?;
        let (start, end) = (get_u64(d, 0), get_u64(d, 8));
        let n = self.fingerprints.1 / 4;
        if start > end || end > n {
            return Err(Error::new("damaged index: bad directory entry"));
        }
        let fp = fingerprint(hash, self.dir_bits);
        let fps = self.file.data(self.fingerprints.0 + 4 * start, 4 * (end - start))?;
        for (k, f) in fps.chunks_exact(4).enumerate() {
            if get_u32(f, 0) != fp {
                continue;
            }
            let p = self.file.data(self.positions.0 + 4 * (start + k as u64), 4)?;
            out.push(self.entry(get_u32(p, 0))?);
        }
        Ok(())
    }

    /// The label at input position `position`.
    fn entry(&self, position: u32) -> Result<Entry, Error> {
        let at = LABEL as u64 * u64::from(position);
        if at >= self.labels.1 {
            return Err(Error::new("damaged index: label position out of range"));
        }
        let r = self.file.data(self.labels.0 + at, LABEL as u64)?;
        Ok(Entry { text: get_u64(r, 0), position, line: get_u32(r, 8) })
    }

    fn text_bytes(&self, r: u64) -> Result<Option<&[u8]>, Error> {
        if r == NO_TEXT {
            return Ok(None);
        }
        let (off, len) = (r & ((1 << 48) - 1), r >> 48);
        if off.checked_add(len).is_none_or(|e| e > self.text.1) {
            return Err(Error::new("damaged index: text reference out of range"));
        }
        self.file.data(self.text.0 + off, len).map(Some)
    }

    fn text(&self, r: u64) -> Result<Option<String>, Error> {
        Ok(self.text_bytes(r)?.map(|b| String::from_utf8_lossy(b).into_owned()))
    }

    /// The A-label (or LDH text) of an entry.
    ///
    /// # Errors
    /// A damaged index.
    pub fn alabel(&self, e: &Entry) -> Result<String, Error> {
        Ok(self.text(e.text)?.unwrap_or_default())
    }

    /// The A-label (or LDH text) of an entry, as the index holds it.
    ///
    /// # Errors
    /// A damaged index.
    pub fn alabel_bytes(&self, e: &Entry) -> Result<&[u8], Error> {
        Ok(self.text_bytes(e.text)?.unwrap_or_default())
    }

    /// Whether an entry's A-label is `alabel`, without a copy.
    ///
    /// # Errors
    /// A damaged index.
    pub fn alabel_is(&self, e: &Entry, alabel: &str) -> Result<bool, Error> {
        Ok(self.text_bytes(e.text)?.unwrap_or_default() == alabel.as_bytes())
    }

    /// The CSV columns of the label at input position `position`.
    ///
    /// # Errors
    /// A damaged index.
    pub fn meta(&self, position: u32) -> Result<Meta, Error> {
        let (mut lo, mut hi) = (0u64, self.meta.1 / META as u64);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let m = self.file.data(self.meta.0 + mid * META as u64, META as u64)?;
            match get_u32(m, 0).cmp(&position) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let registered = match self.text(get_u64(m, 8))? {
                        Some(t) => Some(
                            Timestamp::parse_rfc3339(&t)
                                .map_err(|_| Error::new("damaged index: bad registered date"))?,
                        ),
                        None => None,
                    };
                    let pin = match get_u32(m, 4) {
                        0 => None,
                        PIN_UNKNOWN => Some(Pin::Unknown),
                        k => Some(Pin::Lgr(k as usize - 1)),
                    };
                    return Ok(Meta {
                        pin,
                        registered,
                        registrant: self.text(get_u64(m, 16))?,
                        registrar: self.text(get_u64(m, 24))?,
                    });
                }
            }
        }
        Ok(Meta::default())
    }

    /// The source path of the label at input position `position`.
    pub fn source(&self, position: u32) -> &str {
        let run = self.runs.partition_point(|&(first, _)| first <= position);
        run.checked_sub(1)
            .and_then(|r| self.sources.get(self.runs[r].1 as usize))
            .map_or("", String::as_str)
    }
}

/// The LGR of a header entry, its bytes inflated and their hash checked.
fn embedded_lgr(file: &Checked, v: &Value) -> Result<LgrSource, Error> {
    let bad = || Error::new("damaged index: bad LGR entry in the header");
    let name = v.get("name").and_then(Value::as_str).ok_or_else(bad)?;
    let section = v.get("section").and_then(Value::as_str).ok_or_else(bad)?;
    let size = v.get("bytes").and_then(Value::as_u64).ok_or_else(bad)?;
    if size > crate::lgr::MAX_LGR_BYTES {
        return Err(bad());
    }
    let z = file.section(section)?;
    let mut bytes = Vec::with_capacity(size as usize);
    flate2::read::DeflateDecoder::new(z)
        .take(size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(format!("damaged index: LGR {name}: {e}")))?;
    let src = LgrSource {
        name: name.to_string(),
        builtin: v.get("builtin").and_then(Value::as_bool).ok_or_else(bad)?,
        bytes,
        path: None,
    };
    if Some(src.sha256().as_str()) != v.get("sha256").and_then(Value::as_str) {
        return Err(Error::new(format!("damaged index: LGR {name} does not match its SHA-256")));
    }
    Ok(src)
}

#[cfg(test)]
mod tests {
    use super::{key_hash, key_hash_utf8};

    /// The key hash read plainly: the text's bytes as little-endian words,
    /// the last one padded with zeros, each folded in, then the finaliser.
    fn plain_key_hash(text: &[u8]) -> u64 {
        let fold = |a: u64, b: u64| {
            let p = u128::from(a) * u128::from(b);
            (p as u64) ^ (p >> 64) as u64
        };
        let mut h = 0x243f_6a88_85a3_08d3 ^ (text.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for w in text.chunks(8) {
            let mut word = [0u8; 8];
            word[..w.len()].copy_from_slice(w);
            h = fold(h ^ u64::from_le_bytes(word), 0x517c_c1b7_2722_0a95);
        }
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The key hash is fixed by the index format: its word loads (whole,
    /// overlapping the word before, or in halves) read what the plain
    /// definition reads at every length, a text and its code points hash
    /// alike, and known values stay what they were (computed apart, in
    /// Python, from the plain definition; a change is a new
    /// `FORMAT_VERSION`).
    #[test]
    fn the_key_hash_is_the_formats() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789-वनऩ१ខ្មែរ";
        for end in 0..=text.len() {
            let Some(t) = text.get(..end) else { continue };
            assert_eq!(key_hash_utf8(t.as_bytes()), plain_key_hash(t.as_bytes()), "{t:?}");
            assert_eq!(key_hash(t.chars().map(u32::from)), key_hash_utf8(t.as_bytes()), "{t:?}");
        }
        assert_eq!(key_hash_utf8(b""), 0xe9e0_033e_3bad_af36);
        assert_eq!(key_hash_utf8(b"example"), 0xa93e_26a1_28e0_bd05);
        assert_eq!(key_hash_utf8("१२३".as_bytes()), 0x1dc8_991e_8aec_062d);
    }
}
