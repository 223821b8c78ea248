//! Label lists: one label per line.
//!
//! A line holds a U-label or an A-label, optionally followed by the zone
//! suffix (stripped when it matches the apex, in either IDNA form); `#`
//! starts a comment (at the start of a line, or after white space); blank
//! lines are skipped.
//! Without an apex, the suffix of the first name with dots becomes the
//! apex, and a line outside it names that name's line in its reason.
//!
//! The lines are read in parallel: a buffer is cut into chunks of whole
//! lines, and each chunk is scanned on rayon's current pool into its
//! items (the label of each label line, its malformed lines) and line
//! counts, with the IDNA forms of its IDN labels ([`compute_forms`]). The
//! chunks are then merged into the collector in line order, batch after
//! batch, while the next batch is scanned: the labels, their indexes, the
//! accounting and the malformed reports are those of a read line by line.

use memchr::memchr;

use super::collect::{Apex, Collector, KeyMode, LineKind, Loc, Orig, Relation};
use super::list_forms::{ListFormsBatch, ListFormsChunk, compute_forms};
use super::sorted_run::{plain_ldh_mark, plain_mark, sorted_prefix};
use super::{Error, MAX_LINE_BYTES, name};
use crate::idna2008::{self, MAX_NAME_OCTETS, suffix_alabel};

pub(crate) struct ListState {
    pub(crate) source: u32,
    pub(crate) line: u64,
    mapped: bool,
    /// Whether the source was searched for the name that gives the apex
    /// ([`infer_apex_ahead`]).
    apex_searched: bool,
}

impl ListState {
    pub(crate) fn new(source: u32, mapped: bool) -> ListState {
        ListState { source, line: 1, mapped, apex_searched: false }
    }
}

/// Bytes of lines one task scans (see [`scan_chunk`]).
const TASK: usize = 256 << 10;

/// Tasks merged at a time: the next batch is scanned while one is merged.
const BATCH_TASKS: usize = 16;

/// White space around a label (and a CR).
fn is_ws(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// What a line that is neither blank nor a comment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    /// A label (or name): the token `at..at + len`.
    Label,
    /// A line longer than [`MAX_LINE_BYTES`].
    TooLong,
    /// White space inside the token, not before a comment.
    TwoFields,
}

/// A line of a chunk to merge: `line` counts from the chunk's first line
/// (0), `at` is the offset in the source (of the token, for a label; of
/// the line otherwise).
#[derive(Clone, Copy, Debug)]
struct Item {
    at: u64,
    line: u64,
    len: u32,
    what: What,
    /// Its [`plain_mark`]: for a label that is its own key, `PLAIN` with
    /// the key orders under which it follows the item before it when that
    /// one is such a label too; 0 for any other item.
    plain: u8,
}

/// What [`scan_chunk`] found in a chunk of lines.
struct ListChunk {
    lines: u64,
    blank: u64,
    comment: u64,
    items: Vec<Item>,
    /// The IDNA forms of its IDN labels, in line order.
    forms: ListFormsChunk,
}

/// Parses the complete lines of `buf` (at `base` in the source); returns
/// the bytes consumed. `chunk`: bytes a task scans (`Config::chunk`), else
/// [`TASK`].
pub(crate) fn parse(
    col: &mut Collector,
    st: &mut ListState,
    buf: &[u8],
    base: u64,
    eof: bool,
    chunk: Option<usize>,
) -> Result<usize, Error> {
    let complete = if eof { buf.len() } else { memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1) };
    let lines = &buf[..complete];
    col.expect_labels(expected_lines(col, st.source, lines, base));
    let tasks = split_lines(lines, chunk.unwrap_or(TASK));
    let batches: Vec<&[std::ops::Range<usize>]> = tasks.chunks(BATCH_TASKS).collect();
    let scan = |batch: &&[std::ops::Range<usize>]| -> Vec<ListChunk> {
        use rayon::prelude::*;
        batch.par_iter().map(|r| scan_chunk(&lines[r.clone()], base + r.start as u64)).collect()
    };
    let mut next = batches.first().map(scan);
    for i in 0..batches.len() {
        let Some(chunks) = next.take() else { break };
        // Merge this batch while the next one is scanned.
        let (done, scanned) =
            rayon::join(|| merge(col, st, lines, base, chunks), || batches.get(i + 1).map(scan));
        done?;
        next = scanned;
    }
    Ok(complete)
}

/// How many more lines to expect: those of `lines` (at `base`), and for a
/// mapped source fed in windows, as many again in the rest of it (at most
/// 8 windows' worth), so that the deduplicator is sized once.
pub(crate) fn expected_lines(col: &Collector, source: u32, lines: &[u8], base: u64) -> usize {
    use rayon::prelude::*;
    // Counted in parallel: counted on one thread, each window's count
    // left the other threads idle (2.6-4.7% of a 10M-label list or CSV
    // scan at 2 threads: CHANGELOG).
    let here = lines.par_chunks(TASK).map(|c| memchr::memchr_iter(b'\n', c).count()).sum();
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
pub(crate) fn split_lines(buf: &[u8], size: usize) -> Vec<std::ops::Range<usize>> {
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

/// Scans the lines of a chunk at `base` in its source: counts them, finds
/// the token of each label line and the malformed lines, and computes the
/// IDNA forms of the tokens that need a conversion (U-labels, A-labels).
fn scan_chunk(lines: &[u8], base: u64) -> ListChunk {
    let mut c = ListChunk {
        lines: 0,
        blank: 0,
        comment: 0,
        items: Vec::with_capacity(lines.len() / 12),
        forms: ListFormsChunk { text: String::new(), entries: Vec::new() },
    };
    let mut idn: Vec<(u64, &[u8])> = Vec::new();
    // The token of the item before, when it is a label that is its own key.
    let mut prev_plain: Option<&[u8]> = None;
    let mut pos = 0;
    while pos < lines.len() {
        let (end, next) = match memchr(b'\n', &lines[pos..]) {
            Some(k) => (pos + k, pos + k + 1),
            None => (lines.len(), lines.len()),
        };
        let line = &lines[pos..end];
        let (at, line_no) = (base + pos as u64, c.lines);
        c.lines += 1;
        pos = next;
        let item = |what, at, len| Item { at, line: line_no, len, what, plain: 0 };
        if line.len() > MAX_LINE_BYTES {
            c.items.push(item(What::TooLong, at, 0));
            prev_plain = None;
            continue;
        }
        // The common line, a plain label alone, needs no trimming.
        let plain_line = idna2008::is_plain_ldh(line);
        let (s, e) = if plain_line {
            (0, line.len())
        } else {
            match token_span(line) {
                Line::Token(s, e) => (s, e),
                Line::Blank => {
                    c.blank += 1;
                    continue;
                }
                Line::Comment => {
                    c.comment += 1;
                    continue;
                }
                Line::TwoFields => {
                    c.items.push(item(What::TwoFields, at, 0));
                    prev_plain = None;
                    continue;
                }
            }
        };
        let token = &line[s..e];
        // A line is at most `MAX_LINE_BYTES` long.
        let mut label = item(What::Label, at + s as u64, token.len() as u32);
        label.plain = if plain_line {
            plain_ldh_mark(prev_plain, token)
        } else {
            plain_mark(prev_plain, token)
        };
        prev_plain = (label.plain != 0).then_some(token);
        c.items.push(label);
        let t = token.strip_suffix(b".").unwrap_or(token);
        let is_idn = !t.is_ascii() || (t.len() > 4 && t[..4].eq_ignore_ascii_case(b"xn--"));
        if is_idn && memchr(b'.', t).is_none() {
            idn.push((at + s as u64, t));
        }
    }
    c.forms = compute_forms(&idn);
    c
}

/// What a line holds once trimmed ([`token_span`]; a plain label alone
/// is taken without it).
enum Line {
    Blank,
    Comment,
    /// White space inside the token, not before a comment.
    TwoFields,
    /// The token `s..e` of the line: white space (and a CR) around it and
    /// a comment after it left out.
    Token(usize, usize),
}

/// The token of a line, or why it has none.
fn token_span(line: &[u8]) -> Line {
    let Some(s) = line.iter().position(|b| !is_ws(b)) else { return Line::Blank };
    if line[s] == b'#' {
        return Line::Comment;
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
            return Line::TwoFields;
        }
    }
    Line::Token(s, e)
}

/// Merges scanned chunks (in line order) into the collector: counts their
/// lines, reports their malformed lines and registers their labels.
fn merge(
    col: &mut Collector,
    st: &mut ListState,
    lines: &[u8],
    base: u64,
    chunks: Vec<ListChunk>,
) -> Result<(), Error> {
    let source = st.source;
    let mut items = Vec::with_capacity(chunks.len());
    let mut forms = Vec::with_capacity(chunks.len());
    for c in chunks {
        items.push((c.lines, c.blank, c.comment, c.items));
        forms.push(c.forms);
    }
    col.set_list_forms(ListFormsBatch { source, chunks: forms });
    if col.apex().is_none() && !st.apex_searched && has_one_label_name(lines, base, &items) {
        st.apex_searched = true;
        infer_apex_ahead(col, st, lines, base);
    }
    for (n, blank, comment, items) in items {
        col.lines_read(n);
        col.count(LineKind::Blank, blank);
        for _ in 0..comment {
            col.count(LineKind::Comment, 1);
        }
        let mut k = 0;
        while k < items.len() {
            if items[k].plain != 0 {
                let (n, orders) = sorted_prefix(items[k..].iter().map(|it| it.plain));
                if push_sorted_items(col, st, lines, base, &items[k..k + n], orders)? {
                    k += n;
                    continue;
                }
            }
            let it = items[k];
            k += 1;
            let loc = Loc { source, line: st.line + it.line, offset: it.at };
            match it.what {
                What::TooLong => {
                    col.malformed(loc, format!("line longer than {MAX_LINE_BYTES} bytes"))?;
                }
                What::TwoFields => col.malformed(loc, "more than one field on a label line")?,
                What::Label => {
                    let at = (it.at - base) as usize;
                    let token = &lines[at..at + it.len as usize];
                    name_label(col, loc, token, st.mapped, KeyMode::ALabel)?;
                }
            }
        }
        st.line += n;
    }
    Ok(())
}

/// Registers a run of labels that are their own keys, in increasing order
/// under `orders` (see [`Collector::register_sorted_run`]): their text is
/// borrowed from a mapped source, copied from a stream's buffer.
fn push_sorted_items(
    col: &mut Collector,
    st: &ListState,
    lines: &[u8],
    base: u64,
    run: &[Item],
    orders: u8,
) -> Result<bool, Error> {
    let label = |it: &Item| {
        let at = (it.at - base) as usize;
        let loc = Loc { source: st.source, line: st.line + it.line, offset: it.at };
        (loc, &lines[at..at + it.len as usize])
    };
    let ends = (label(&run[0]).1, label(&run[run.len() - 1]).1);
    let copy = !st.mapped;
    Ok(col.register_sorted_run(ends, orders, run.iter().map(label), copy)?.is_some())
}

/// Whether a batch holds a one-label name written as an absolute name
/// (`example.`), which is the apex or a label depending on the apex.
fn has_one_label_name(lines: &[u8], base: u64, items: &[(u64, u64, u64, Vec<Item>)]) -> bool {
    items.iter().flat_map(|(_, _, _, items)| items).any(|it| {
        let at = (it.at - base) as usize;
        let token = &lines[at..at + it.len as usize];
        matches!(it.what, What::Label)
            && token.strip_suffix(b".").is_some_and(|body| memchr(b'.', body).is_none())
    })
}

/// Infers the apex, when none is known yet, from the first name with a
/// dot from the batch on (in the whole rest of a source held whole, as
/// the zone reader finds a later SOA), before a label of the batch is
/// registered: so that a one-label name written as an absolute name
/// above it (`example.` above `foo.example`) is compared with the apex,
/// as it is below it, rather than registered as a label.
fn infer_apex_ahead(col: &mut Collector, st: &ListState, lines: &[u8], base: u64) {
    let data = col.source_data(st.source).cloned();
    let rest = data.as_deref().and_then(|d| d.bytes().get(base as usize..)).unwrap_or(lines);
    let mut at = 0;
    for (k, line) in rest.split(|&b| b == b'\n').enumerate() {
        if let Line::Token(s, e) = token_span(line) {
            let token = &line[s..e];
            let body = token.strip_suffix(b".").unwrap_or(token);
            if memchr(b'.', body).is_some()
                && !too_long(body)
                && let Some(labels) = dotted_labels(body)
            {
                let offset = base + (at + s) as u64;
                let loc = Loc { source: st.source, line: st.line + k as u64, offset };
                col.infer_apex(labels[1..].to_vec(), loc);
                return;
            }
        }
        at += line.len() + 1;
    }
}

/// Whether a name (`body`, its trailing dot taken off) is longer than a
/// name can be: every character takes at least one octet of the name on
/// the wire (RFC 1035 §2.3.4), so more characters than that cannot be a
/// name.
fn too_long(body: &[u8]) -> bool {
    let chars = || body.iter().filter(|&&b| !(0x80..0xC0).contains(&b)).count();
    body.len() > MAX_NAME_OCTETS && chars() > MAX_NAME_OCTETS
}

/// The labels of a name with a dot (`body`, its trailing dot taken
/// off), those after the first in A-label form (a list names its zone in
/// either form, `bar.рф` and `foo.xn--p1ai`, and in any case, `bar.РФ`;
/// the registered label keeps its form and case: it is judged); `None`
/// when it has an empty label.
fn dotted_labels(body: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut labels: Vec<Vec<u8>> = body.split(|&b| b == b'.').map(<[u8]>::to_vec).collect();
    if labels.iter().any(Vec::is_empty) {
        return None;
    }
    for l in labels.iter_mut().skip(1) {
        to_suffix_form(l);
    }
    Some(labels)
}

/// A label of the zone's suffix in A-label form, as the apex holds it
/// (`рф` as `xn--p1ai`; any other text as it is).
fn to_suffix_form(label: &mut Vec<u8>) {
    if !label.is_ascii()
        && let Some(alabel) = std::str::from_utf8(label).ok().and_then(suffix_alabel)
    {
        *label = alabel.into_bytes();
    }
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
    if too_long(body) {
        let reason = format!("name longer than {MAX_NAME_OCTETS} octets");
        return col.malformed(loc, reason).map(|()| None);
    }
    let Some(dot) = memchr(b'.', body) else {
        if body.is_empty() {
            // "." alone: the root, the apex of a list of top-level labels
            // (`--origin .`), or an empty field.
            let root_apex = token == b"." && col.apex().is_some_and(|a| a.text == ".");
            let reason = if root_apex {
                "\".\" is the zone's apex (the root); a list holds the zone's registered names"
            } else {
                "empty label"
            };
            return col.malformed(loc, reason).map(|()| None);
        }
        if token.ends_with(b".") && is_one_label_apex(col, body) {
            // `example.` in the list of the zone `example.`: the apex as
            // an absolute name, not a label registered under it.
            let apex = col.apex().map(|a| a.text.clone()).unwrap_or_default();
            let reason = format!(
                "{:?} is the zone's apex (apex {apex}{}); a list holds the zone's registered names",
                String::from_utf8_lossy(token),
                apex_from(col)
            );
            return col.malformed(loc, reason).map(|()| None);
        }
        count_record(col);
        let orig = if mapped { Orig::Mapped } else { Orig::Text(body) };
        return col.register_row(loc, body, orig, mode).map(Some);
    };
    let Some(labels) = dotted_labels(body) else {
        return col.malformed(loc, "empty label in name").map(|()| None);
    };
    if col.apex().is_none() {
        col.infer_apex(labels[1..].to_vec(), loc);
    }
    let mut lower = labels.clone();
    name::lower(&mut lower);
    let rel = col.apex().map_or(Relation::Outside, |a: &Apex| a.relation(&lower));
    // A list names one zone's registered names: a name of another zone,
    // the apex itself or a name below a registered one would be counted
    // and never judged, so it is malformed, never dropped quietly.
    let not_registered = match rel {
        Relation::Registered => None,
        Relation::Outside => Some("outside the zone"),
        Relation::Apex => Some("the zone's apex"),
        Relation::Deeper => Some("below a registered name"),
    };
    if let Some(what) = not_registered {
        let apex = col.apex().map(|a| a.text.clone()).unwrap_or_default();
        // An apex taken from the first name with a dot is wrong when that
        // name is deeper than the rest (`www.shop.example` first): the
        // correct lines are then these, so say where it came from.
        let name = String::from_utf8_lossy(body);
        let reason = format!(
            "{name:?} is {what} (apex {apex}{}); a list holds one zone's registered names: \
             scan each zone on its own",
            apex_from(col)
        );
        return col.malformed(loc, reason).map(|()| None);
    }
    count_record(col);
    let label = &body[..dot];
    let orig = if mapped { Orig::Mapped } else { Orig::Text(label) };
    col.register_row(loc, label, orig, mode).map(Some)
}

/// Where an apex taken from a list's first name with a dot came from (`,
/// the suffix of the name at l.txt:2; --origin sets it`), or nothing.
fn apex_from(col: &Collector) -> String {
    col.apex_inferred_at().map_or_else(String::new, |at| {
        let path = col.path(at.source).display();
        format!(", the suffix of the name at {path}:{}; --origin sets it", at.line)
    })
}

/// Whether `label`, in any case and either IDNA form, is the whole apex
/// (a one-label apex such as `example.` or `рф.`).
fn is_one_label_apex(col: &Collector, label: &[u8]) -> bool {
    let Some(apex) = col.apex() else { return false };
    let mut labels = vec![label.to_vec()];
    to_suffix_form(&mut labels[0]);
    name::lower(&mut labels);
    apex.relation(&labels) == Relation::Apex
}

fn count_record(col: &mut Collector) {
    col.count(LineKind::Record, 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{NsTargets, Strictness};

    /// A line that is a plain label alone (read without trimming) gives
    /// the label, line and offset that the same label with white space and
    /// a comment around it gives, or with white space after it: each of
    /// labels of every length and a few that are not plain, and the same
    /// count of records.
    #[test]
    fn a_plain_line_reads_as_its_trimmed_label() {
        use crate::input::{Config, Input, InputFormat, read};
        let read_list = |text: &str| {
            let input = Input::Bytes { name: "l.txt".into(), data: text.as_bytes().to_vec() };
            read([input], &Config::new().format(Some(InputFormat::List))).unwrap()
        };
        let labels: Vec<String> = (1..=63)
            .map(|n| (0..n).map(|i| char::from(b'a' + ((i * 7 + n) % 26) as u8)).collect())
            .chain(["b-2", "0", "9z", "a", "Upper", "xn--bcher-kva"].map(String::from))
            .collect();
        let bare: String = labels.iter().map(|l| format!("{l}\n")).collect();
        let padded: String = labels.iter().map(|l| format!(" \t{l} # note\r\n")).collect();
        let trailing: String = labels.iter().map(|l| format!("{l} \r\n")).collect();
        let a = read_list(&bare);
        assert_eq!(a.len(), labels.len());
        // Each padded line is 10 bytes longer, its label 2 in; each line
        // with trailing white space 2 bytes longer.
        for (text, longer, start) in [(padded, 10, 2), (trailing, 2, 0)] {
            let b = read_list(&text);
            assert_eq!(a.len(), b.len());
            for (k, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                assert_eq!(x.original_text(), labels[k].as_str());
                assert_eq!((x.original_text(), x.line()), (y.original_text(), y.line()));
                assert_eq!(x.offset() + longer * k as u64 + start, y.offset(), "{}", labels[k]);
            }
            assert_eq!(a.accounting().records, b.accounting().records);
        }
    }

    /// The lines of a window are counted in pieces: every newline once,
    /// whatever pieces the lines straddle.
    #[test]
    fn a_window_is_counted_whole_in_pieces() {
        let col = Collector::new(Strictness::default(), NsTargets::default());
        let (mut buf, mut lines) = (Vec::new(), 0);
        while buf.len() < 3 * TASK + 100 {
            buf.extend(std::iter::repeat_n(b'a', lines % 37));
            buf.push(b'\n');
            lines += 1;
        }
        buf.extend_from_slice(b"last line, no newline");
        assert_eq!(expected_lines(&col, 0, &buf, 0), lines);
    }
}
