//! Label lists: one label per line.
//!
//! A line holds a U-label or an A-label, optionally followed by the zone
//! suffix (stripped when it matches the apex); `#` starts a comment (at the
//! start of a line, or after white space); blank lines are skipped.
//! Without an apex, the suffix of the first name with dots becomes the
//! apex.

use memchr::memchr;

use super::collect::{Apex, Class, Collector, KeyMode, LineKind, Loc, Orig, Relation};
use super::list_forms::{ListFormsBatch, compute_forms};
use super::{Error, MAX_LINE_BYTES, name};
use crate::idna2008::MAX_NAME_OCTETS;

pub(crate) struct ListState {
    pub(crate) source: u32,
    pub(crate) line: u64,
    mapped: bool,
}

impl ListState {
    pub(crate) fn new(source: u32, mapped: bool) -> ListState {
        ListState { source, line: 1, mapped }
    }
}

/// Bytes of lines registered at a time: the forms of the next batch are
/// computed (in parallel) while one is registered.
const BATCH: usize = 1 << 20;

/// Bytes of lines whose forms one task computes.
const TASK: usize = 64 << 10;

/// White space around a label (and a CR).
fn is_ws(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// Parses the complete lines of `buf`; returns the bytes consumed.
pub(crate) fn parse(
    col: &mut Collector,
    st: &mut ListState,
    buf: &[u8],
    base: u64,
    eof: bool,
) -> Result<usize, Error> {
    let complete = if eof { buf.len() } else { memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1) };
    col.expect_labels(expected_lines(col, st.source, &buf[..complete], base));
    let batches = split_lines(&buf[..complete], BATCH);
    let source = st.source;
    let forms_of = |range: &std::ops::Range<usize>| {
        forms_of_lines(source, &buf[range.clone()], base + range.start as u64)
    };
    let mut next = batches.first().map(forms_of);
    for (i, range) in batches.iter().enumerate() {
        if let Some(batch) = next.take() {
            col.set_list_forms(batch);
        }
        // Register this batch while the next one's forms are computed.
        let (done, forms) = rayon::join(
            || lines(col, st, &buf[..range.end], range.start, base),
            || batches.get(i + 1).map(forms_of),
        );
        done?;
        next = forms;
    }
    Ok(complete)
}

/// How many more lines to expect: those of `lines` (at `base`), and for a
/// mapped source fed in windows, as many again in the rest of it (at most
/// 8 windows' worth), so that the deduplicator is sized once.
fn expected_lines(col: &Collector, source: u32, lines: &[u8], base: u64) -> usize {
    let here = memchr::memchr_iter(b'\n', lines).count();
    let size = col.source_data(source).map(|d| &**d);
    let rest = size.map_or(0, |d| d.bytes().len() as u64).saturating_sub(base);
    if lines.is_empty() || rest <= lines.len() as u64 {
        return here;
    }
    let scaled = here as u128 * u128::from(rest) / lines.len() as u128;
    usize::try_from(scaled).unwrap_or(usize::MAX).min(here.saturating_mul(8))
}

/// Splits `buf` (complete lines, the last one possibly without its
/// newline) into ranges of whole lines of about `size` bytes.
fn split_lines(buf: &[u8], size: usize) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut s = 0;
    while s < buf.len() {
        let e = match buf.get(s + size..) {
            Some(rest) => memchr(b'\n', rest).map_or(buf.len(), |k| s + size + k + 1),
            None => buf.len(),
        };
        ranges.push(s..e);
        s = e;
    }
    ranges
}

/// The forms of the IDN labels of `lines` (at `base` in `source`),
/// computed in parallel, for [`Collector::set_list_forms`].
///
/// [`Collector::set_list_forms`]: super::collect::Collector::set_list_forms
fn forms_of_lines(source: u32, lines: &[u8], base: u64) -> ListFormsBatch {
    use rayon::prelude::*;
    let tasks = split_lines(lines, TASK);
    let chunks = tasks
        .par_iter()
        .map(|range| {
            let labels = idn_labels(&lines[range.clone()], base + range.start as u64);
            compute_forms(&labels)
        })
        .collect();
    ListFormsBatch { source, chunks }
}

/// The labels of `lines` (at `base`) that need an IDNA conversion
/// (U-labels, A-labels), as (offset, label): where `register` will be
/// asked for them.
fn idn_labels(lines: &[u8], base: u64) -> Vec<(u64, &[u8])> {
    let mut labels = Vec::with_capacity(lines.len() / 16);
    let mut next = 0;
    let ends = memchr::memchr_iter(b'\n', lines).chain(std::iter::once(lines.len()));
    for end in ends {
        let line_at = next;
        let line = &lines[line_at..end];
        next = end + 1;
        let Some(s) = line.iter().position(|b| !is_ws(b)) else { continue };
        let e = line.iter().rposition(|b| !is_ws(b)).map_or(s, |i| i + 1);
        let t = &line[s..e];
        let t = t.strip_suffix(b".").unwrap_or(t);
        let idn = !t.is_ascii() || (t.len() > 4 && t[..4].eq_ignore_ascii_case(b"xn--"));
        if idn && t[0] != b'#' && !t.iter().any(|b| is_ws(b) || *b == b'.') {
            labels.push((base + (line_at + s) as u64, t));
        }
    }
    labels
}

/// Registers the lines of `buf[pos..]` (complete; the last one may lack
/// its newline). `base` is the offset of `buf` in the source.
fn lines(
    col: &mut Collector,
    st: &mut ListState,
    buf: &[u8],
    mut pos: usize,
    base: u64,
) -> Result<(), Error> {
    while pos < buf.len() {
        let (end, next) = match memchr(b'\n', &buf[pos..]) {
            Some(k) => (pos + k, pos + k + 1),
            None => (buf.len(), buf.len()),
        };
        let line = &buf[pos..end];
        let loc = Loc { source: st.source, line: st.line, offset: base + pos as u64 };
        col.lines_read(1);
        st.line += 1;
        pos = next;
        if line.len() > MAX_LINE_BYTES {
            col.malformed(loc, format!("line longer than {MAX_LINE_BYTES} bytes"))?;
            continue;
        }
        // Trim white space (and a CR) around the label.
        let Some(s) = line.iter().position(|b| !is_ws(b)) else {
            col.count(LineKind::Blank, 1);
            continue;
        };
        if line[s] == b'#' {
            col.count(LineKind::Comment, 1);
            continue;
        }
        let mut e = line.iter().rposition(|b| !is_ws(b)).map_or(s, |i| i + 1);
        // White space inside: a comment after it, or a second field.
        if line[s..e].iter().any(is_ws) {
            if let Some(h) = line[s..e].windows(2).position(|w| is_ws(&w[0]) && w[1] == b'#') {
                e = s + h;
                while e > s && is_ws(&line[e - 1]) {
                    e -= 1;
                }
            }
            if line[s..e].iter().any(is_ws) {
                col.malformed(loc, "more than one field on a label line")?;
                continue;
            }
        }
        let token = &line[s..e];
        let loc = Loc { offset: loc.offset + s as u64, ..loc };
        name_label(col, loc, token, st.mapped, KeyMode::ALabel)?;
    }
    Ok(())
}

/// Handles one name given in a list or CSV row: counts the record and
/// registers the label. Returns the label index when it is a registered
/// label. `mapped`: the token is in a mapped source at `loc.offset`.
pub(crate) fn name_label(
    col: &mut Collector,
    loc: Loc,
    token: &[u8],
    mapped: bool,
    mode: KeyMode,
) -> Result<Option<u32>, Error> {
    let body = token.strip_suffix(b".").unwrap_or(token);
    // Every character takes at least one octet of the name on the wire
    // (RFC 1035 §2.3.4), so more characters than that cannot be a name.
    let chars = || body.iter().filter(|&&b| !(0x80..0xC0).contains(&b)).count();
    if body.len() > MAX_NAME_OCTETS && chars() > MAX_NAME_OCTETS {
        let reason = format!("name longer than {MAX_NAME_OCTETS} octets");
        return col.malformed(loc, reason).map(|()| None);
    }
    let Some(dot) = memchr(b'.', body) else {
        if body.is_empty() {
            // "." alone: the root, or an empty field.
            return col.malformed(loc, "empty label").map(|()| None);
        }
        count_record(col);
        let orig = if mapped { Orig::Mapped } else { Orig::Text(body) };
        return col.register_row(loc, body, orig, mode).map(Some);
    };
    let labels: Vec<Vec<u8>> = body.split(|&b| b == b'.').map(<[u8]>::to_vec).collect();
    if labels.iter().any(Vec::is_empty) {
        return col.malformed(loc, "empty label in name").map(|()| None);
    }
    if col.apex.is_none() {
        col.set_apex(labels[1..].to_vec());
    }
    let mut lower = labels.clone();
    name::lower(&mut lower);
    let rel = col.apex.as_ref().map_or(Relation::Outside, |a: &Apex| a.relation(&lower));
    count_record(col);
    if rel == Relation::Registered {
        let label = &body[..dot];
        let orig = if mapped { Orig::Mapped } else { Orig::Text(label) };
        return col.register_row(loc, label, orig, mode).map(Some);
    }
    let class = col.other_owner(rel, &body.to_ascii_lowercase());
    debug_assert!(!matches!(class, Class::Registered(_)));
    Ok(None)
}

fn count_record(col: &mut Collector) {
    col.count(LineKind::Record, 1);
}
