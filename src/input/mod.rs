//! Reading real inputs into registered labels.
//!
//! # Brief overview
//!
//! [`read`] takes one or more [`Input`]s (files, `-` for standard input,
//! or bytes) and a [`Config`], and returns a [`LabelSet`]: the registered
//! labels, each with its source, line, byte offset, original text, A-label,
//! U-label and IDNA2008 [`Finding`](crate::idna2008::Finding), its NS
//! targets (zones) or CSV fields, plus the [`Accounting`] of the run.
//!
//! * **Sources.** A regular file is memory-mapped when the [`MmapChoice`]
//!   allows it; `-`, pipes and gzip files (multi-member too) are read as
//!   streams, a few MiB at a time. Labels of a mapped file borrow from the
//!   map; labels of a stream keep a copy of their text only.
//! * **Formats** ([`InputFormat`]) are detected from the content of each
//!   file, or forced: zone files in the master format of [RFC 1035 §5]
//!   (with a fast path for CZDS dumps), plain label lists, and CSV with a
//!   header.
//! * **Registered labels** are the leftmost labels of the owner names
//!   exactly one label below the apex. The apex is [`Config::origin`], else
//!   the first `$ORIGIN`, else the owner of the first SOA record. Deeper
//!   names (glue) and names outside the apex are counted, not kept.
//! * **Problems** with a line are [`Malformed`] entries in the accounting;
//!   problems with a label are findings on the label. Only what makes the
//!   run meaningless is an [`Error`]: an unreadable file, a truncated or
//!   corrupt gzip stream, an `$INCLUDE` loop or missing include, an
//!   `--origin` that no record is at or below, and, under
//!   [`Strictness::Strict`], the first malformed line.
//!
//! The module never prints, never exits and never creates threads.
//!
//! # Example
//!
//! ```
//! use lgrscan::input::{read, Config, Input};
//!
//! let zone = b"$ORIGIN example.\n@ SOA ns. host. 1 2 3 4 5\n\
//!              shop NS ns1.shop\nns1.shop A 192.0.2.1\nXN--BCHER-KVA NS ns1.shop\n";
//! let set = read([Input::Bytes { name: "z".into(), data: zone.to_vec() }], &Config::new())?;
//! assert_eq!(set.apex(), Some("example."));
//! let labels: Vec<&str> = set.iter().map(|l| l.ulabel()).collect();
//! assert_eq!(labels, ["shop", "bücher"]);
//! assert_eq!(set.get(0).unwrap().ns_targets().collect::<Vec<_>>(), ["ns1.shop.example."]);
//! assert_eq!(set.accounting().deeper_records, 1);
//! set.accounting().check().unwrap();
//! # Ok::<(), lgrscan::input::Error>(())
//! ```
//!
//! [RFC 1035 §5]: https://www.rfc-editor.org/rfc/rfc1035#section-5

mod accounting;
mod apex;
mod collect;
mod csv;
mod csv_fields;
pub(crate) mod dedup;
mod detect;
pub(crate) use detect::{csv_name, detect as detect_format, header_delimiter};
mod distinct;
mod error;
pub(crate) mod hash;
mod key_order;
mod labels;
mod list;
mod list_forms;
mod name;
mod ns_table;
pub(crate) mod rdata;
mod reader;
mod settle;
mod sorted_run;
mod source;
mod time;
mod zone;
pub(crate) use zone::{is_class as is_zone_class, is_ttl as is_zone_ttl, is_type as is_zone_type};

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use accounting::{Accounting, MALFORMED_DETAILS_MAX, Malformed};
pub use csv_fields::CsvFields;
pub use error::{Error, ErrorKind};
pub use labels::{Label, LabelRecord, LabelSet, SourceInfo};
pub(crate) use list::split_lines;
pub use settle::{AheadLabel, AsciiKeys, PlainRule, SETTLED_KINDS, Settled, Settling};
pub(crate) use source::advise_map;
pub use source::{Input, MmapChoice};

pub use time::Timestamp;

/// The format of an input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputFormat {
    /// A zone file in master file format ([RFC 1035 §5]), or a CZDS dump.
    ///
    /// [RFC 1035 §5]: https://www.rfc-editor.org/rfc/rfc1035#section-5
    Zone,
    /// One label per line (U-label or A-label, optionally with the zone
    /// suffix); `#` comments and blank lines are skipped.
    List,
    /// CSV ([RFC 4180], `,`, `;` or tab delimited) with a header that has a
    /// `label` or `domain` column, and optionally `registered`,
    /// `registrant` and `lgr`.
    ///
    /// [RFC 4180]: https://www.rfc-editor.org/rfc/rfc4180
    Csv,
}

impl FromStr for InputFormat {
    type Err = String;

    /// Parses `zone`, `list` or `csv` (the values of `--input-format`).
    fn from_str(s: &str) -> Result<InputFormat, String> {
        match s.to_ascii_lowercase().as_str() {
            "zone" => Ok(InputFormat::Zone),
            "list" => Ok(InputFormat::List),
            "csv" => Ok(InputFormat::Csv),
            _ => Err(format!("unknown input format {s:?}: expected zone, list or csv")),
        }
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputFormat::Zone => "zone",
            InputFormat::List => "list",
            InputFormat::Csv => "csv",
        })
    }
}

/// Whether a malformed line stops the run (`--strict`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Strictness {
    /// Malformed lines are counted and reported; the run goes on.
    #[default]
    Lenient,
    /// The first malformed line is an error (the run stops there).
    Strict,
}

/// Whether the NS targets of registered labels are collected from zones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum NsTargets {
    /// Collect them (needed to check that variants share NS records).
    #[default]
    Collect,
    /// Skip them: labels only (slightly faster).
    Skip,
}

/// Where the text of plain labels of a memory-mapped file is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LabelText {
    /// Borrowed from the map: no copy, but the map's pages stay part of
    /// the process's resident memory as long as labels are used.
    #[default]
    Borrow,
    /// Copied into the label set's arena as the file is read, and the
    /// pages read are released (`madvise(MADV_DONTNEED)`) after each part:
    /// resident memory stays proportional to the registered labels, not to
    /// the file. This applies to zone files in the CZDS profile, where
    /// records outnumber labels; other mapped inputs still borrow.
    Copy,
}

/// A callback told how many more input bytes were parsed (for a progress
/// display). It is called from the reading thread, a few times per 16 MiB.
#[derive(Clone)]
pub struct ProgressFn(pub std::sync::Arc<dyn Fn(u64) + Send + Sync>);

impl fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressFn")
    }
}

/// Configuration of a read.
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) format: Option<InputFormat>,
    pub(crate) delimiter: Option<u8>,
    pub(crate) origin: Option<String>,
    pub(crate) strictness: Strictness,
    pub(crate) mmap: MmapChoice,
    pub(crate) include_depth: usize,
    pub(crate) ns: NsTargets,
    pub(crate) label_text: LabelText,
    pub(crate) progress: Option<ProgressFn>,
    pub(crate) settle: Option<Arc<Settling>>,
    /// See [`Config::chunk_bytes`]; `None`: the defaults.
    pub(crate) chunk: Option<usize>,
    /// See [`Config::zone_fast_path`].
    pub(crate) zone_fast_path: bool,
    /// Copied label text a record holds the position of, at most
    /// [`labels::MAX_RECORD_TEXT`]; past it, labels get forms entries.
    pub(crate) record_text_max: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

/// The longest line read, in bytes (a zone record of 64 KiB of RDATA in
/// `\DDD` escapes is 256 KiB). A longer line is malformed and skipped
/// without being held in memory: a file of one 2 GB line, or a gzip
/// stream of 1 GB of NULs, costs this much memory, not its size.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The default limit of nested `$INCLUDE`s.
pub const DEFAULT_INCLUDE_DEPTH: usize = 16;

impl Config {
    /// Defaults: detect the format, apex from the input, lenient, no mmap,
    /// include depth [`DEFAULT_INCLUDE_DEPTH`], NS targets collected,
    /// label text borrowed from maps.
    pub fn new() -> Config {
        Config {
            format: None,
            delimiter: None,
            origin: None,
            strictness: Strictness::Lenient,
            mmap: MmapChoice::never(),
            include_depth: DEFAULT_INCLUDE_DEPTH,
            ns: NsTargets::Collect,
            label_text: LabelText::Borrow,
            progress: None,
            settle: None,
            chunk: None,
            zone_fast_path: true,
            record_text_max: labels::MAX_RECORD_TEXT,
        }
    }

    /// Forces the format of every input (`--input-format`); `None`
    /// detects it per file.
    pub fn format(mut self, format: Option<InputFormat>) -> Config {
        self.format = format;
        self
    }

    /// Sets the CSV delimiter (`--delimiter`); `None` detects it from the
    /// header: the first of `,`, `;` and tab that gives a `label` or
    /// `domain` column.
    pub fn delimiter(mut self, delimiter: Option<u8>) -> Config {
        self.delimiter = delimiter;
        self
    }

    /// Sets the apex (`--origin`), in presentation format; a missing
    /// trailing dot is implied, and a U-label stands for its A-label.
    pub fn origin(mut self, origin: Option<&str>) -> Config {
        self.origin = origin.map(str::to_string);
        self
    }

    /// Sets the strictness (`--strict`).
    pub fn strictness(mut self, s: Strictness) -> Config {
        self.strictness = s;
        self
    }

    /// Sets the memory-map policy.
    pub fn mmap(mut self, m: MmapChoice) -> Config {
        self.mmap = m;
        self
    }

    /// Sets where the text of plain labels of mapped files is kept.
    pub fn label_text(mut self, t: LabelText) -> Config {
        self.label_text = t;
        self
    }

    /// Sets a callback told how many more bytes were parsed (progress).
    pub fn progress(mut self, f: Option<ProgressFn>) -> Config {
        self.progress = f;
        self
    }

    pub(crate) fn report(&self, bytes: usize) {
        if let Some(p) = &self.progress {
            (p.0)(bytes as u64);
        }
    }

    /// Settles plain labels as they are read, under the rule the caller
    /// gives `s` (see [`Settling`]): those settled are counted
    /// ([`LabelSet::settled`]), not kept. Only files read through the
    /// parallel zone reader with NS targets skipped are settled. A
    /// [`Settling`] serves one [`read`], which finishes it
    /// ([`Settling::finish`]) when it returns.
    pub fn settle(mut self, s: Option<Arc<Settling>>) -> Config {
        self.settle = s;
        self
    }

    /// Sets how deep `$INCLUDE`s may nest.
    pub fn include_depth(mut self, depth: usize) -> Config {
        self.include_depth = depth;
        self
    }

    /// Sets how many bytes the reader takes at a time (at least 1): the
    /// windows of in-memory data fed to the parsers (the first one of a
    /// zone too, which finds the apex), the buffer of a stream (past its
    /// first 64 KiB, on which the format is detected), and the
    /// chunks of a CZDS dump read in parallel. The defaults (16 MiB
    /// windows and buffers, a first zone window of 64 KiB, chunks of 64 KiB
    /// to 4 MiB) suit real files; small values make small inputs cross
    /// every boundary, so tests and fuzzing can check that the result does
    /// not depend on where the data is cut.
    pub fn chunk_bytes(mut self, bytes: Option<usize>) -> Config {
        self.chunk = bytes.map(|b| b.max(1));
        self
    }

    /// Whether zone files are read by the fast path where it applies (the
    /// default), or by the careful parser alone. Both give the same
    /// labels, accounting and errors; the careful parser alone is for
    /// checking that (differential tests and fuzzing).
    pub fn zone_fast_path(mut self, on: bool) -> Config {
        self.zone_fast_path = on;
        self
    }

    /// Sets whether NS targets are collected.
    pub fn ns_targets(mut self, ns: NsTargets) -> Config {
        self.ns = ns;
        self
    }
}

/// Reads the inputs into registered labels.
///
/// Labels are deduplicated across all inputs, which share one apex.
///
/// # Errors
///
/// See [`Error`]: an unreadable file or a damaged gzip stream, an
/// `$INCLUDE` problem, a CSV header without a label column, a bad
/// `--origin` or one that matches no record, input with records but no
/// registered label, or, under [`Strictness::Strict`], the first malformed
/// line.
pub fn read(inputs: impl IntoIterator<Item = Input>, config: &Config) -> Result<LabelSet, Error> {
    // However the read ends, a caller waiting for labels told ahead
    // (`Settling::wait_ahead`) stops waiting.
    struct Finish<'a>(Option<&'a Settling>);
    impl Drop for Finish<'_> {
        fn drop(&mut self) {
            if let Some(s) = self.0 {
                s.finish();
            }
        }
    }
    let _finish = Finish(config.settle.as_deref());
    let inputs: Vec<Input> = inputs.into_iter().collect();
    // Settling needs inputs that can be read again (see `settle`): regular
    // files, not a pipe or FIFO behind a path (`/dev/stdin`, `<(zcat …)`),
    // whose second read would find nothing or block.
    let paths: Option<Vec<std::path::PathBuf>> = inputs
        .iter()
        .map(|i| match i {
            Input::Path(p) if std::fs::metadata(p).is_ok_and(|m| m.is_file()) => Some(p.clone()),
            _ => None,
        })
        .collect();
    let Some(paths) = paths.filter(|_| config.settle.is_some() && config.ns == NsTargets::Skip)
    else {
        return read_all(inputs, config);
    };
    // Progress counted in the first read, which the second one does not
    // report again.
    let done = Arc::new(AtomicU64::new(0));
    let first = Config {
        progress: config.progress.clone().map(|p| {
            let done = Arc::clone(&done);
            ProgressFn(Arc::new(move |n| {
                done.fetch_add(n, Ordering::Relaxed);
                (p.0)(n);
            }))
        }),
        ..config.clone()
    };
    if let Some(s) = &config.settle {
        s.start();
    }
    let mut r = reader::Reader::new(&first)?;
    r.c.settle = true;
    let mut outcome = Ok(());
    for path in paths {
        outcome = r.read_input(Input::Path(path));
        if outcome.is_err() || r.c.unsettled() {
            break;
        }
    }
    if outcome.is_ok() {
        r.c.check_told_ahead();
    }
    if !r.c.unsettled() {
        return outcome.and_then(|()| check_found(r.finish(), config));
    }
    drop(r);
    let again = Config {
        progress: config.progress.clone().map(|p| {
            ProgressFn(Arc::new(move |n| {
                // The part of `n` past what the first read reported.
                let left = done.load(Ordering::Relaxed);
                let skip = n.min(left);
                done.fetch_sub(skip, Ordering::Relaxed);
                if n > skip {
                    (p.0)(n - skip);
                }
            }))
        }),
        ..config.clone()
    };
    read_all(inputs, &again)
}

/// [`read`] without settling.
fn read_all(inputs: Vec<Input>, config: &Config) -> Result<LabelSet, Error> {
    let mut r = reader::Reader::new(config)?;
    for input in inputs {
        r.read_input(input)?;
    }
    check_found(r.finish(), config)
}

/// A read that found nothing to audit is an error, not a clean audit: an
/// `--origin` that no record is at or below (every record outside it), or
/// records or malformed lines but no registered label. An input of blank
/// and comment lines only is not an error (a registry with no names yet);
/// an empty one is ([`reader::Reader::read_input`]).
fn check_found(set: LabelSet, config: &Config) -> Result<LabelSet, Error> {
    let a = set.accounting();
    // NS records outside the apex are malformed lines (see
    // `Accounting::outside_delegations`), but records all the same.
    let records = a.records + a.outside_delegations;
    if let Some(origin) = &config.origin
        && records > 0
        && a.outside_records + a.outside_delegations == records
    {
        let reason = format!("{origin} matches no record: all {records} records are outside it");
        return Err(Error::new(ErrorKind::OriginMatchesNothing(reason)));
    }
    if a.registered_labels > 0 || (a.records == 0 && a.malformed == 0) {
        return Ok(set);
    }
    let mut reason = format!(
        "{} lines: {} records ({} at the apex, {} below depth, {} outside the apex), {} malformed",
        a.lines, a.records, a.apex_records, a.deeper_records, a.outside_records, a.malformed
    );
    if let Some(m) = a.malformed_details.first() {
        let path = set.sources().get(m.source as usize).map(|s| s.path.display().to_string());
        let path = path.unwrap_or_default();
        reason += &format!(" (first: {path}:{} (byte {}): {})", m.line, m.offset, m.reason);
    }
    let tops: Vec<&SourceInfo> = set.sources().iter().filter(|s| s.included_by.is_none()).collect();
    let e = Error::new(ErrorKind::NoLabels(reason));
    Err(match tops.as_slice() {
        [one] => e.with_path(&one.path),
        _ => e,
    })
}
