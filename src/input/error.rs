//! Errors that stop a run of the input reader.
//!
//! Problems with single lines are not errors: they are
//! [`Malformed`](super::Malformed) entries in the
//! [`Accounting`](super::Accounting), unless the run is
//! [`Strictness::Strict`](super::Strictness::Strict).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error that stops reading the inputs: an unreadable file, an
/// `$INCLUDE` loop or missing include ([RFC 1035 §5.1]), a corrupt gzip
/// stream, or a malformed line under [`Strictness::Strict`].
///
/// It carries the file, line and byte offset where it happened and, for
/// includes, the include chain. `Display` gives
/// `zone.txt:12: $INCLUDE loop: a.zone -> b.zone -> a.zone`.
///
/// [RFC 1035 §5.1]: https://www.rfc-editor.org/rfc/rfc1035#section-5.1
/// [`Strictness::Strict`]: super::Strictness::Strict
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    line: u64,
    offset: Option<u64>,
    chain: Vec<PathBuf>,
}

/// What kind of [`Error`] happened.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be opened, mapped or read.
    Io(io::Error),
    /// An `$INCLUDE` names a file that is already being read: the chain
    /// ([`Error::include_chain`]) ends with it.
    IncludeLoop,
    /// An `$INCLUDE` names a file that cannot be opened.
    IncludeMissing(io::Error),
    /// `$INCLUDE`s nest deeper than the configured limit.
    IncludeDepth(usize),
    /// More `$INCLUDE` files than this limit in one run.
    IncludeCount(u64),
    /// `--origin` was given but no record is at or below it: the message
    /// says what the records were.
    OriginMatchesNothing(String),
    /// The input held records or malformed lines but no registered label:
    /// the message says what was read instead.
    NoLabels(String),
    /// The gzip stream is truncated or corrupt (a bad CRC, bad deflate
    /// data, bytes after the last member that are not a gzip member):
    /// [`Error::offset`] is the number of decompressed bytes read before.
    Gzip(io::Error),
    /// A malformed line under [`Strictness::Strict`](super::Strictness::Strict);
    /// the reason as in [`Malformed`](super::Malformed).
    Malformed(String),
    /// A CSV input whose header has no `label` or `domain` column.
    CsvHeader(String),
    /// Zone records were read but the apex could not be determined: no
    /// `--origin`, no `$ORIGIN` and no SOA record.
    NoApex,
    /// The `--origin` given is not a valid domain name.
    BadOrigin(String),
    /// An SOA record whose owner is outside the run's apex: a second
    /// zone, whose names would all be outside the apex (RFC 1035 §5.2: an SOA
    /// is at the top of its zone). The SOA's owner and the apex.
    OtherZone(String, String),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind, path: None, line: 0, offset: None, chain: Vec::new() }
    }

    pub(crate) fn at(mut self, path: &Path, line: u64, offset: Option<u64>) -> Error {
        self.path = Some(path.to_path_buf());
        self.line = line;
        self.offset = offset;
        self
    }

    pub(crate) fn with_path(mut self, path: &Path) -> Error {
        self.path = Some(path.to_path_buf());
        self
    }

    pub(crate) fn with_chain(mut self, chain: Vec<PathBuf>) -> Error {
        self.chain = chain;
        self
    }

    /// What happened.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The file where it happened, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The line (1-based) where it happened, or 0 when it concerns the whole
    /// file.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The byte offset in the file, when known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The `$INCLUDE` chain, outermost file first, when the error concerns
    /// an include ([RFC 1035 §5.1]).
    ///
    /// [RFC 1035 §5.1]: https://www.rfc-editor.org/rfc/rfc1035#section-5.1
    pub fn include_chain(&self) -> &[PathBuf] {
        &self.chain
    }
}

fn chain(f: &mut fmt::Formatter<'_>, chain: &[PathBuf]) -> fmt::Result {
    for (i, p) in chain.iter().enumerate() {
        if i > 0 {
            f.write_str(" -> ")?;
        }
        write!(f, "{}", p.display())?;
    }
    Ok(())
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(p), 0) => write!(f, "{}: ", p.display())?,
            (Some(p), n) => write!(f, "{}:{n}: ", p.display())?,
            (None, _) => {}
        }
        match &self.kind {
            ErrorKind::Io(e) => write!(f, "cannot read: {e}"),
            ErrorKind::IncludeLoop => {
                f.write_str("$INCLUDE loop: ")?;
                chain(f, &self.chain)
            }
            ErrorKind::IncludeMissing(e) => {
                write!(f, "$INCLUDE file cannot be read ({e}): ")?;
                chain(f, &self.chain)
            }
            ErrorKind::IncludeDepth(n) => {
                write!(f, "$INCLUDE nested deeper than {n}: ")?;
                chain(f, &self.chain)
            }
            ErrorKind::IncludeCount(n) => write!(f, "more than {n} $INCLUDE files"),
            ErrorKind::OriginMatchesNothing(r) => write!(f, "--origin {r}"),
            ErrorKind::NoLabels(r) => write!(f, "no registered labels: {r}"),
            ErrorKind::Gzip(e) => match self.offset {
                Some(n) => write!(f, "gzip stream truncated or corrupt after {n} bytes: {e}"),
                None => write!(f, "gzip stream truncated or corrupt: {e}"),
            },
            ErrorKind::Malformed(r) => write!(f, "malformed: {r}"),
            ErrorKind::CsvHeader(r) => write!(f, "CSV header: {r}"),
            ErrorKind::NoApex => {
                f.write_str("cannot tell the zone apex: give --origin, or a $ORIGIN or SOA record")
            }
            ErrorKind::BadOrigin(r) => write!(f, "bad origin: {r}"),
            ErrorKind::OtherZone(soa, apex) => write!(
                f,
                "an SOA record for {soa}, but the apex is {apex}: one zone a run (scan each \
                 zone on its own)"
            ),
        }
    }
}

/// The message of an underlying I/O error is part of `Display` (so the
/// error reads whole when printed alone), and so not also a `source`:
/// printing the chain would say it twice. [`Error::kind`] gives it.
impl std::error::Error for Error {}
