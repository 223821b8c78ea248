//! What the zone reader knows of one file as it goes: its place in the
//! `$INCLUDE` chain, the origin, the line, the previous owner.

use std::path::PathBuf;

use memchr::memchr;

use super::tokens::Tok;
use crate::input::collect::{Class, Loc};

/// Per-file state of the zone parser.
pub(crate) struct ZoneState {
    pub(crate) source: u32,
    pub(crate) path: PathBuf,
    /// Include chain, outermost first, ending with this file.
    pub(crate) chain: Vec<PathBuf>,
    /// Canonical paths of the chain, for loop detection.
    pub(crate) canon_chain: Vec<PathBuf>,
    /// Current origin: labels as written (case kept).
    pub(crate) origin: Option<Vec<Vec<u8>>>,
    /// Line number of the next line (1-based).
    pub(crate) line: u64,
    /// Whether the fast path reads the lines it can (see [`detect_fast`]).
    ///
    /// [`detect_fast`]: ZoneState::detect_fast
    pub(crate) fast: bool,
    /// Whether the source is in the CZDS profile (see `czds::FastOpts`).
    pub(crate) czds: bool,
    pub(crate) apex_plain: Option<Vec<u8>>,
    pub(crate) prev_class: Option<Class>,
    /// The line of the last owner stated, when that line was malformed
    /// (its owner unreadable, or not classified): a blank owner after it
    /// is that owner's (RFC 1035 §5.1), so it is malformed too, not the
    /// owner's before it.
    pub(crate) prev_owner_malformed: Option<u64>,
    pub(super) toks: Vec<Tok>,
    pub(crate) mapped: bool,
    /// Whether the file was searched for an SOA record (see
    /// [`find_soa_apex`]).
    pub(super) soa_searched: bool,
    /// Bytes scanned for a `)` that never came (see
    /// [`super::tokens::FAILED_PAREN_BUDGET`]).
    pub(super) failed_paren_bytes: u64,
    /// An `$INCLUDE` just read, for the reader to open ([`parse`] returns
    /// after it).
    pub(crate) include: Option<Include>,
}

/// An `$INCLUDE` directive (RFC 1035 §5.1): the file (relative to the
/// including file's directory) and the origin it is read under. The parser
/// opens no file: the reader opens this one and reads it before the rest
/// of the including file.
pub(crate) struct Include {
    pub(crate) path: PathBuf,
    pub(crate) origin: Option<Vec<Vec<u8>>>,
    /// The directive's line, where errors opening the file are reported.
    pub(crate) loc: Loc,
}

impl ZoneState {
    /// Decides from the head of the source (its first 64 KiB) whether
    /// it is in the CZDS profile, and whether the fast path reads it
    /// (`allowed`: see `Config::zone_fast_path`): a CZDS dump, or a master
    /// file of mostly one-line entries. The decision must not depend on how
    /// the source is cut (see `Config::chunk_bytes`).
    pub(crate) fn detect_fast(&mut self, head: &[u8], allowed: bool) {
        self.czds = looks_czds(head);
        self.fast = allowed && (self.czds || mostly_one_line(head));
    }

    pub(crate) fn new(
        source: u32,
        path: PathBuf,
        chain: Vec<PathBuf>,
        canon_chain: Vec<PathBuf>,
        origin: Option<Vec<Vec<u8>>>,
        mapped: bool,
    ) -> ZoneState {
        ZoneState {
            source,
            path,
            chain,
            canon_chain,
            origin,
            line: 1,
            fast: false,
            czds: false,
            apex_plain: None,
            prev_class: None,
            prev_owner_malformed: None,
            toks: Vec::new(),
            mapped,
            soa_searched: false,
            failed_paren_bytes: 0,
            include: None,
        }
    }
}

/// The most `$INCLUDE` files one run reads (each is a source of its own,
/// and a file of includes should not make a run open files without end).
pub(crate) const MAX_INCLUDES: u64 = 10_000;

/// Whether the first lines of `head` are mostly lines the fast path reads
/// in a master file: the lines it leaves to the careful parser (a comment
/// or empty line, a parenthesis or a quote) are read in the merging
/// thread, and a directive ends a parallel run (the chunks after it may
/// need another origin), so a file with many of them (a signed zone: its
/// RRSIGs in parentheses; a dump with an `$ORIGIN` per delegation) is
/// read by the careful parser alone.
pub(super) fn mostly_one_line(head: &[u8]) -> bool {
    let (mut lines, mut careful, mut directives) = (0usize, 0usize, 0usize);
    for line in head.split(|&b| b == b'\n').take(1000) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        lines += 1;
        directives += usize::from(line.first() == Some(&b'$'));
        let other = line.is_empty()
            || matches!(line[0], b';' | b'$')
            || memchr::memchr3(b'(', b')', b'"', line).is_some();
        careful += usize::from(other);
    }
    lines > 0 && careful * 8 <= lines && directives <= MAX_HEAD_DIRECTIVES
}

/// The most directives in the head of a master file that the fast path
/// reads (see [`mostly_one_line`]): `$ORIGIN` and `$TTL` at the top, and a
/// few more.
const MAX_HEAD_DIRECTIVES: usize = 4;

/// Whether the first lines of `head` fit the CZDS profile.
pub(super) fn looks_czds(head: &[u8]) -> bool {
    let mut n = 0;
    for line in head.split(|&b| b == b'\n').take(100) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        if matches!(line[0], b' ' | b'\t' | b';' | b'$') {
            return false;
        }
        let Some(tab) = memchr(b'\t', line) else { return false };
        let owner = &line[..tab];
        if !owner.ends_with(b".") || owner.iter().any(|&b| b == b'\\' || b == b' ') {
            return false;
        }
        if line.iter().any(|&b| b == b'(' || b == b'"') {
            return false;
        }
        n += 1;
    }
    n > 0
}
