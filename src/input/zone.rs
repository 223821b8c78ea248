//! Zone files in the master file format of [RFC 1035 §5], with a fast path
//! for dumps in the CZDS profile.
//!
//! The general parser reads one entry at a time: a directive (`$ORIGIN`,
//! `$TTL`, `$INCLUDE`) or a resource record, possibly spanning lines inside
//! parentheses, with comments, quoted strings and `\X` / `\DDD` escapes.
//! Only the owner name, the TTL/class/type fields and, for NS records, the
//! first RDATA field are interpreted; the rest of the RDATA is skipped.
//!
//! The CZDS profile (ICANN Registry Agreement, Specification 4 §2.1: one
//! record per line, absolute names, tab-separated fields, no directives) is
//! recognised from the first lines. Lines that fit it are read without
//! tokenising: the owner is the bytes up to the first tab, compared with the
//! previous owner, and only a new owner is classified. A line that does not
//! fit (a parenthesis or a quote, leading white space, an escape in the
//! owner…) goes through the general parser, so the result is the same.
//!
//! Recovery: an entry in parentheses may span at most
//! [`MAX_PAREN_LINES`] lines and [`MAX_PAREN_BYTES`] bytes, and a line
//! starting with `$` ends it. A `(` left open past that is malformed at the
//! line of the `(` (that line alone), and reading goes on at the next line,
//! so one stray character does not swallow the rest of the file.
//!
//! [RFC 1035 §5]: https://www.rfc-editor.org/rfc/rfc1035#section-5

use std::path::{Path, PathBuf};

use memchr::memchr;

use super::collect::Collector;
use super::collect::{Class, KeyMode, Loc, Orig, Relation};
use super::czds::{self, FastOpts, Stop};
use super::name::{self, Parsed};
use super::{Config, Error, MAX_LINE_BYTES};
use crate::idna2008::MAX_NAME_OCTETS;

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
    /// Whether the CZDS fast path may be used.
    pub(crate) fast: bool,
    fast_checked: bool,
    pub(crate) apex_plain: Option<Vec<u8>>,
    pub(crate) prev_raw: Vec<u8>,
    pub(crate) prev_class: Option<Class>,
    toks: Vec<Tok>,
    pub(crate) mapped: bool,
    /// Whether the file was searched for an SOA record (see
    /// [`find_soa_apex`]).
    soa_searched: bool,
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

#[derive(Clone, Copy, Debug)]
struct Tok {
    start: usize,
    end: usize,
}

impl ZoneState {
    /// Decides from the head of the source (its first 64 KiB) whether
    /// the CZDS fast path may be used, as [`parse`] otherwise does from
    /// the first buffer it is fed: the decision must not depend on how
    /// the source is cut (see `Config::chunk_bytes`).
    pub(crate) fn detect_fast(&mut self, head: &[u8]) {
        self.fast_checked = true;
        self.fast = looks_czds(head);
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
            fast_checked: false,
            apex_plain: None,
            prev_raw: Vec::new(),
            prev_class: None,
            toks: Vec::new(),
            mapped,
            soa_searched: false,
            include: None,
        }
    }
}

/// Whether the first lines of `head` fit the CZDS profile.
pub(crate) fn looks_czds(head: &[u8]) -> bool {
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

const CLASSES: [&[u8]; 4] = [b"IN", b"CH", b"HS", b"CS"];

#[inline]
pub(crate) fn is_class(t: &[u8]) -> bool {
    match *t {
        // The two letters in upper case (`| 0x20` lowers a letter; only
        // letters can give a class name's letters so).
        [a, b] => CLASSES.contains(&&[a & !0x20, b & !0x20][..]),
        _ if t.len() <= 5 => false,
        _ => t[..5].eq_ignore_ascii_case(b"CLASS") && t[5..].iter().all(u8::is_ascii_digit),
    }
}

pub(crate) fn is_ttl(t: &[u8]) -> bool {
    t.first().is_some_and(u8::is_ascii_digit)
}

/// The most lines an entry in parentheses may span (a DNSKEY or a long TXT
/// record takes a few dozen).
pub(crate) const MAX_PAREN_LINES: u64 = 1000;

/// The most bytes an entry in parentheses may span (64 KiB of RDATA in
/// base64 with white space fits).
pub(crate) const MAX_PAREN_BYTES: usize = 128 << 10;

/// The most `$INCLUDE` files one run reads (each is a source of its own,
/// and a file of includes should not make a run open files without end).
pub(crate) const MAX_INCLUDES: u64 = 10_000;

/// Result of scanning one entry.
enum Scan {
    /// Need more data.
    Incomplete,
    Entry {
        end: usize,
        lines: u64,
        error: Option<String>,
        leading_ws: bool,
        comment: bool,
    },
}

/// Splits one entry starting at `pos` into tokens.
fn scan_entry(buf: &[u8], pos: usize, eof: bool, toks: &mut Vec<Tok>) -> Scan {
    toks.clear();
    let leading_ws = matches!(buf.get(pos), Some(b' ' | b'\t'));
    let mut i = pos;
    let mut depth = 0u32;
    let mut lines = 0u64;
    let mut error: Option<String> = None;
    let mut comment = false;
    let mut line_start = pos;
    loop {
        if i >= buf.len() {
            if depth > 0 && lines > 0 && i - pos > MAX_PAREN_BYTES {
                return unclosed_paren(buf, pos, leading_ws);
            }
            if !eof {
                return Scan::Incomplete;
            }
            if i > line_start {
                lines += 1;
            }
            if depth > 0 && error.is_none() {
                error = Some("unbalanced parentheses: '(' not closed".to_string());
            }
            return Scan::Entry { end: buf.len(), lines, error, leading_ws, comment };
        }
        match buf[i] {
            b'\n' => {
                if lines == 0 && i - pos > MAX_LINE_BYTES {
                    let error = Some(format!("line longer than {MAX_LINE_BYTES} bytes"));
                    return Scan::Entry { end: i + 1, lines: 1, error, leading_ws, comment };
                }
                lines += 1;
                i += 1;
                line_start = i;
                if depth > 0 && (lines >= MAX_PAREN_LINES || i - pos > MAX_PAREN_BYTES) {
                    return unclosed_paren(buf, pos, leading_ws);
                }
                if depth == 0 {
                    return Scan::Entry { end: i, lines, error, leading_ws, comment };
                }
                if buf.get(i) == Some(&b'$') {
                    // Recovery: a directive cannot be inside parentheses.
                    let e =
                        error.unwrap_or_else(|| "unbalanced parentheses: '(' not closed".into());
                    return Scan::Entry { end: i, lines, error: Some(e), leading_ws, comment };
                }
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b';' => {
                comment = true;
                i = memchr(b'\n', &buf[i..]).map_or(buf.len(), |k| i + k);
            }
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    error.get_or_insert_with(|| "unbalanced parentheses: ')' without '('".into());
                } else {
                    depth -= 1;
                }
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    match buf.get(j) {
                        None => {
                            if !eof {
                                return Scan::Incomplete;
                            }
                            error.get_or_insert_with(|| "unterminated quoted string".into());
                            break;
                        }
                        Some(b'\\') => j += 2,
                        Some(b'"') => break,
                        Some(b'\n') => {
                            error.get_or_insert_with(|| "unterminated quoted string".into());
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                let end = j.min(buf.len());
                toks.push(Tok { start, end });
                i = if buf.get(j) == Some(&b'"') { j + 1 } else { end };
            }
            _ => {
                let start = i;
                let mut j = i;
                while let Some(&c) = buf.get(j) {
                    match c {
                        b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b')' | b'"' => break,
                        b'\\' if buf.get(j + 1).is_some_and(|&n| n != b'\n') => j += 2,
                        _ => j += 1,
                    }
                }
                let end = j.min(buf.len());
                if end == buf.len() && !eof {
                    return Scan::Incomplete;
                }
                toks.push(Tok { start, end });
                i = end;
            }
        }
    }
}

/// The entry at `pos` when its `(` is still open past the bounds: its first
/// line alone, malformed; the next line is read as a new entry.
fn unclosed_paren(buf: &[u8], pos: usize, leading_ws: bool) -> Scan {
    let end = memchr(b'\n', &buf[pos..]).map_or(buf.len(), |k| pos + k + 1);
    let error = Some(format!(
        "unbalanced parentheses: '(' not closed within {MAX_PAREN_LINES} lines or \
         {MAX_PAREN_BYTES} bytes"
    ));
    Scan::Entry { end, lines: 1, error, leading_ws, comment: false }
}

/// The apex for the fast path, when the source fits the CZDS profile and
/// the apex is known (plain presentation text).
pub(crate) fn fast_apex(col: &Collector, st: &mut ZoneState) -> Option<Vec<u8>> {
    if !st.fast {
        return None;
    }
    if st.apex_plain.is_none() {
        st.apex_plain = col.apex.as_ref().and_then(|a| a.plain.clone());
    }
    st.apex_plain.clone()
}

/// Parses as many complete entries of `buf` as possible; returns the
/// number of bytes consumed. `base` is the offset of `buf[0]` in the
/// source.
pub(crate) fn parse(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    eof: bool,
) -> Result<usize, Error> {
    if !st.fast_checked {
        st.fast_checked = true;
        let head = &buf[..buf.len().min(64 * 1024)];
        st.fast = looks_czds(head);
    }
    let mut pos = 0;
    while pos < buf.len() {
        if st.fast {
            if st.apex_plain.is_none() {
                st.apex_plain = col.apex.as_ref().and_then(|a| a.plain.clone());
            }
            if let Some(apex) = st.apex_plain.take() {
                let origin = st.origin.take();
                let copy = !st.mapped || config.label_text == super::LabelText::Copy;
                let opts = FastOpts {
                    apex: &apex,
                    origin: origin.as_deref(),
                    ns: col.collect_ns,
                    copy,
                    settle: col.settler(config),
                };
                let res = czds::run(
                    col,
                    config,
                    st,
                    buf,
                    base,
                    pos,
                    eof,
                    &opts,
                    &|_, _| {},
                    None,
                    |_, _| {},
                );
                st.origin = origin;
                st.apex_plain = Some(apex);
                let (next, stop) = res?;
                match stop {
                    Stop::NeedMore => return Ok(next),
                    Stop::End => return Ok(buf.len()),
                    Stop::Slow => pos = next,
                }
            }
        }
        match general_entry(col, st, buf, pos, base, eof)? {
            Some(next) if st.include.is_some() => return Ok(next),
            Some(next) => pos = next,
            None => return Ok(pos),
        }
    }
    Ok(pos)
}

/// Resolves a name token against the origin: absolute labels, case kept.
fn resolve(st: &ZoneState, tok: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    resolve_in(st.origin.as_deref(), tok)
}

/// [`resolve`] under `origin` (the CZDS fast path resolves NS targets so).
pub(crate) fn resolve_in(origin: Option<&[Vec<u8>]>, tok: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    if tok == b"@" {
        return origin.map(<[Vec<u8>]>::to_vec).ok_or_else(|| "'@' without $ORIGIN".to_string());
    }
    let p = name::parse(tok)?;
    resolve_parsed_in(origin, p)
}

fn resolve_parsed(st: &ZoneState, p: Parsed) -> Result<Vec<Vec<u8>>, String> {
    resolve_parsed_in(st.origin.as_deref(), p)
}

fn resolve_parsed_in(origin: Option<&[Vec<u8>]>, p: Parsed) -> Result<Vec<Vec<u8>>, String> {
    let mut labels = p.labels;
    if !p.absolute {
        let Some(origin) = origin else {
            return Err("relative name without $ORIGIN".to_string());
        };
        labels.extend(origin.iter().cloned());
    }
    if name::wire_len(&labels) > MAX_NAME_OCTETS {
        return Err(format!("name longer than {MAX_NAME_OCTETS} octets"));
    }
    Ok(labels)
}

/// Parses one entry with the general parser. `None`: need more data.
fn general_entry(
    col: &mut Collector,
    st: &mut ZoneState,
    buf: &[u8],
    pos: usize,
    base: u64,
    eof: bool,
) -> Result<Option<usize>, Error> {
    let mut toks = std::mem::take(&mut st.toks);
    let scan = scan_entry(buf, pos, eof, &mut toks);
    let res = match scan {
        Scan::Incomplete => Ok(None),
        Scan::Entry { end, lines, error, leading_ws, comment } => {
            let loc = Loc { source: st.source, line: st.line, offset: base + pos as u64 };
            let r2 = entry(col, st, buf, base, &toks, loc, lines, error, leading_ws, comment);
            st.line += lines;
            r2.map(|()| Some(end))
        }
    };
    st.toks = toks;
    res
}

#[allow(clippy::too_many_arguments)]
fn entry(
    col: &mut Collector,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    toks: &[Tok],
    loc: Loc,
    lines: u64,
    error: Option<String>,
    leading_ws: bool,
    comment: bool,
) -> Result<(), Error> {
    let acc = &mut col.set.accounting;
    acc.lines += lines;
    acc.continuation_lines += lines.saturating_sub(1);
    if lines == 0 {
        // An empty tail at end of file: nothing was read.
        return Ok(());
    }
    if let Some(e) = error {
        return col.malformed(loc, e);
    }
    if toks.is_empty() {
        if comment {
            acc.comment_lines += 1;
        } else {
            acc.blank_lines += 1;
        }
        return Ok(());
    }
    let text = |t: &Tok| &buf[t.start..t.end];
    let first = text(&toks[0]);
    if !leading_ws && first.first() == Some(&b'$') {
        return directive(col, st, toks.iter().map(text).collect(), loc);
    }
    // Owner.
    let (owner_tok, mut k) = if leading_ws { (None, 0) } else { (Some(toks[0]), 1) };
    while k < toks.len() && (is_ttl(text(&toks[k])) || is_class(text(&toks[k]))) {
        k += 1;
    }
    let Some(ty) = toks.get(k).map(text) else {
        return col.malformed(loc, "missing record type");
    };
    let is_ns = ty.eq_ignore_ascii_case(b"NS");
    let is_soa = ty.eq_ignore_ascii_case(b"SOA");
    let ns_target = if is_ns {
        let Some(t) = toks.get(k + 1) else {
            return col.malformed(loc, "NS record without target");
        };
        match resolve(st, text(t)) {
            Ok(labels) => Some(name::present(&labels)),
            Err(e) => return col.malformed(loc, format!("NS target: {e}")),
        }
    } else {
        None
    };
    let class = match owner_tok {
        None => {
            let Some(class) = st.prev_class else {
                return col.malformed(loc, "blank owner with no previous owner");
            };
            col.same_owner(class);
            class
        }
        Some(t) => {
            let raw = text(&t);
            let (labels, first_label): (Vec<Vec<u8>>, Option<(usize, usize)>) = if raw == b"@" {
                match &st.origin {
                    Some(o) => (o.clone(), None),
                    None => return col.malformed(loc, "'@' without $ORIGIN"),
                }
            } else {
                let p = match name::parse(raw) {
                    Ok(p) => p,
                    Err(e) => return col.malformed(loc, format!("owner: {e}")),
                };
                let span = p.spans.first().copied();
                match resolve_parsed(st, p) {
                    Ok(l) => (l, span),
                    Err(e) => return col.malformed(loc, format!("owner: {e}")),
                }
            };
            if col.apex.is_none() && !is_soa && !st.soa_searched {
                // Owners in any order: the SOA may come later.
                st.soa_searched = true;
                let data = col.set.sources[st.source as usize].data.clone();
                if let Some(apex) = find_soa_apex(data.as_deref().map_or(buf, |d| d.bytes())) {
                    col.set_apex(apex);
                    st.apex_plain = None;
                }
            }
            if col.apex.is_none() {
                if is_soa {
                    col.set_apex(labels.clone());
                    st.apex_plain = None;
                } else {
                    return col.malformed(
                        loc,
                        "record before the apex is known (no --origin, $ORIGIN or SOA with an \
                         absolute owner)",
                    );
                }
            }
            let class = classify(col, st, buf, base, t, &labels, first_label, loc)?;
            st.prev_raw.clear();
            st.prev_raw.extend_from_slice(raw);
            st.prev_class = Some(class);
            class
        }
    };
    let acc = &mut col.set.accounting;
    acc.record_lines += 1;
    acc.records += 1;
    if let (Class::Registered(i), Some(t)) = (class, ns_target) {
        col.add_ns(i, t.as_bytes());
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn classify(
    col: &mut Collector,
    st: &ZoneState,
    buf: &[u8],
    base: u64,
    tok: Tok,
    labels: &[Vec<u8>],
    first_label: Option<(usize, usize)>,
    loc: Loc,
) -> Result<Class, Error> {
    let mut lower = labels.to_vec();
    name::lower(&mut lower);
    let Some(apex) = col.apex.as_ref() else { return Ok(Class::Outside) };
    let rel = apex.relation(&lower);
    if rel != Relation::Registered {
        let text = name::present(&lower);
        return Ok(col.other_owner(rel, text.as_bytes()));
    }
    let octets = &labels[0];
    // The label's original text is the first label of the owner token,
    // or, for `@` or a name that is the origin itself, the origin.
    let (offset, orig_text): (u64, &[u8]) = match first_label {
        Some((s, e)) => (base + (tok.start + s) as u64, &buf[tok.start + s..tok.start + e]),
        None => (loc.offset, octets.as_slice()),
    };
    let loc = Loc { offset, ..loc };
    let orig = if st.mapped && first_label.is_some() && orig_text == octets.as_slice() {
        Orig::Mapped
    } else {
        Orig::Text(orig_text)
    };
    Ok(Class::Registered(col.register(loc, octets, orig, KeyMode::Octets)?))
}

/// The owner of the first SOA record of `data` written with an absolute
/// owner name at the start of its line (`tld. 900 IN SOA …`), for a zone
/// whose first records come before its SOA. The search runs once per file
/// and only for such a zone: over the whole of a mapped file, over the
/// buffer read so far of a stream.
fn find_soa_apex(data: &[u8]) -> Option<Vec<Vec<u8>>> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t');
    let mut best: Option<(usize, Vec<Vec<u8>>)> = None;
    for pat in [&b"SOA"[..], b"soa", b"Soa"] {
        for at in memchr::memmem::find_iter(data, pat) {
            if best.as_ref().is_some_and(|(b, _)| *b < at) {
                break;
            }
            let before = at.checked_sub(1).map(|k| data[k]);
            let after = data.get(at + 3).copied();
            if !before.is_some_and(is_space)
                || !after.is_none_or(|b| is_space(b) || matches!(b, b'\r' | b'\n' | b'('))
            {
                continue;
            }
            let start = memchr::memrchr(b'\n', &data[..at]).map_or(0, |k| k + 1);
            let mut fields = data[start..at].split(|&b| is_space(b)).filter(|f| !f.is_empty());
            let Some(owner) = fields.next() else { continue };
            if is_space(data[start]) || !fields.all(|f| is_ttl(f) || is_class(f)) {
                continue;
            }
            if let Ok(p) = name::parse(owner)
                && p.absolute
            {
                best = Some((at, p.labels));
                break;
            }
        }
    }
    best.map(|(_, labels)| labels)
}

fn directive(
    col: &mut Collector,
    st: &mut ZoneState,
    args: Vec<&[u8]>,
    loc: Loc,
) -> Result<(), Error> {
    let name = args[0];
    if name.eq_ignore_ascii_case(b"$ORIGIN") {
        let Some(arg) = args.get(1) else {
            return col.malformed(loc, "$ORIGIN without a name");
        };
        let labels = match resolve(st, arg) {
            Ok(l) => l,
            Err(e) => return col.malformed(loc, format!("$ORIGIN: {e}")),
        };
        if col.apex.is_none() {
            col.set_apex(labels.clone());
        }
        st.origin = Some(labels);
        st.prev_raw.clear();
        col.set.accounting.directive_lines += 1;
        Ok(())
    } else if name.eq_ignore_ascii_case(b"$TTL") {
        if args.len() < 2 {
            return col.malformed(loc, "$TTL without a value");
        }
        col.set.accounting.directive_lines += 1;
        Ok(())
    } else if name.eq_ignore_ascii_case(b"$INCLUDE") {
        let Some(file) = args.get(1) else {
            return col.malformed(loc, "$INCLUDE without a file name");
        };
        let origin = match args.get(2) {
            Some(o) => match resolve(st, o) {
                Ok(l) => Some(l),
                Err(e) => return col.malformed(loc, format!("$INCLUDE origin: {e}")),
            },
            None => st.origin.clone(),
        };
        col.set.accounting.directive_lines += 1;
        let file = PathBuf::from(String::from_utf8_lossy(file).into_owned());
        let path = if file.is_absolute() {
            file
        } else {
            st.path.parent().unwrap_or(Path::new("")).join(file)
        };
        st.include = Some(Include { path, origin, loc });
        Ok(())
    } else {
        col.malformed(loc, format!("unknown directive {}", String::from_utf8_lossy(name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn czds_profile_detection() {
        assert!(looks_czds(
            b"com.\t900\tin\tsoa\ta. b. 1 2 3 4 5\nx.com.\t172800\tin\tns\tns1.x.net.\n"
        ));
        assert!(!looks_czds(b"$ORIGIN com.\nx NS ns1\n"));
        assert!(!looks_czds(b"x.com. 172800 in ns ns1.x.net.\n"));
        assert!(!looks_czds(b""));
    }

    #[test]
    fn scanning() {
        let mut toks = Vec::new();
        let buf = b"a ( b ; c\n \"d;(\" )\nnext\n";
        match scan_entry(buf, 0, true, &mut toks) {
            Scan::Entry { end, lines, error, .. } => {
                assert_eq!((end, lines, error), (19, 2, None));
            }
            Scan::Incomplete => panic!(),
        }
        let t: Vec<&[u8]> = toks.iter().map(|t| &buf[t.start..t.end]).collect();
        assert_eq!(t, vec![&b"a"[..], b"b", b"d;("]);
        assert!(matches!(scan_entry(b"a ( b\n", 0, false, &mut toks), Scan::Incomplete));
    }
}
