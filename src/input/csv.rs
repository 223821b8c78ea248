//! CSV label files: a header with a `label` (or `domain`) column, and
//! optional `registered` (RFC 3339 date or date-time), `registrant` (an
//! opaque id) and `lgr` (an LGR or language tag pinned for the row).
//! Other columns are carried through to the labels.
//!
//! The delimiter is [`Config::delimiter`](super::Config::delimiter), else
//! the first of `,`, `;` and tab that splits the header into a `label` or
//! `domain` column (else `,`). Records are found first (a newline outside
//! quotes ends one, so line numbers count `\n`, CRLF or not), then split
//! into fields: at the delimiters when the record holds no quote and no
//! CR but before its newline, else by `csv-core` (the same fields either
//! way, tested against the `csv` crate). A quoted field still open after
//! [`MAX_QUOTED_LINES`] lines or [`MAX_QUOTED_BYTES`] bytes is malformed at
//! the record's first line, and reading goes on at the next line.
//!
//! A row whose `registered` value does not parse is malformed (the label
//! is not taken). When a label appears in several rows, the first row's
//! fields are kept and the later rows are counted as duplicates; a later
//! row whose `registered`, `registrant` or `lgr` differs is malformed.

use std::ops::Range;

use memchr::{memchr, memchr2};

use super::collect::{Collector, KeyMode, LineKind, Loc};
use super::csv_fields::CsvRowWriter;
use super::list::{expected_lines, name_label, split_lines};
use super::list_forms::{ListFormsBatch, ListFormsChunk, compute_forms};
use super::sorted_run::{plain_mark, sorted_prefix};
use super::{Error, ErrorKind, Timestamp};

/// The most lines a quoted field may span.
pub(crate) const MAX_QUOTED_LINES: u64 = 100;

/// The most bytes a record with a quoted field over several lines may hold.
pub(crate) const MAX_QUOTED_BYTES: usize = 64 << 10;

enum Col {
    Label,
    Registered,
    Registrant,
    Lgr,
    Extra(u32),
}

/// Bytes of lines one task scans (see [`scan_chunk`]). Small, so that a
/// batch splits evenly over the threads while one of them merges the
/// batch before: 256 KiB -> 64 KiB (16 tasks a batch instead of 4, the
/// same 1 MiB): 10M-row CSV at 2 threads, 7 interleaved rounds, median
/// 1.56 -> 1.41 s (1.63 -> 1.41 s in a second run), the same at 1 thread.
/// A label list gains under 2% from the same change and keeps 256 KiB.
const TASK: usize = 64 << 10;

/// Tasks merged at a time: the next batch is scanned while one is merged.
/// A batch is 1 MiB, because the first batch of a window is scanned with
/// nothing to merge and its last merged with nothing to scan: at 1 MiB
/// that wait is a sixteenth of a 16 MiB window. 4 MiB -> 1 MiB batches:
/// 10M-row CSV at 2 threads, 7 interleaved rounds, median 1.67 -> 1.57 s
/// (1.67 -> 1.60 s in a second run), peak RSS 593 -> 582 MB. A label list
/// gains nothing.
const BATCH_TASKS: usize = 16;

/// Per-file state of the CSV parser.
pub(crate) struct CsvState {
    pub(crate) source: u32,
    pub(crate) line: u64,
    delimiter: Option<u8>,
    /// The columns, once the header is read.
    cols: Option<Vec<Col>>,
    /// The field splitter of the records read one by one.
    fields: Fields,
    /// The current row's columns beyond the label.
    row: CsvRowWriter,
}

impl CsvState {
    pub(crate) fn new(source: u32, delimiter: Option<u8>) -> CsvState {
        CsvState {
            source,
            line: 1,
            delimiter,
            cols: None,
            fields: Fields::default(),
            row: CsvRowWriter::default(),
        }
    }
}

/// Splits records into fields: a record without a quote or a CR (but a
/// CRLF's) by its delimiters, in place (most records: a CSV export quotes
/// only the fields that need it); any other with `csv-core`, into reused
/// buffers.
#[derive(Default)]
struct Fields {
    reader: Option<csv_core::Reader>,
    out: Vec<u8>,
    ends: Vec<usize>,
}

impl Fields {
    /// The fields of `record` (one record, with its newline if it has one).
    fn split<'f>(&'f mut self, delimiter: u8, record: &'f [u8]) -> FieldIter<'f> {
        // Without a quote there is nothing to unquote, and without a CR
        // but one before the newline (or at the end), the record's only
        // terminator is its end, LF or CRLF: the fields are the bytes
        // between delimiters, as `csv-core` would give them.
        let line = record.strip_suffix(b"\n").unwrap_or(record);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if memchr2(b'"', b'\r', line).is_none() {
            return FieldIter::Bare { rest: Some(line), delimiter };
        }
        let rdr = self
            .reader
            .get_or_insert_with(|| csv_core::ReaderBuilder::new().delimiter(delimiter).build());
        rdr.reset();
        // A record of n bytes has at most n + 1 fields (sized once for the
        // longest record, without counting delimiters).
        if self.out.len() < record.len() + 1 {
            self.out.resize(record.len() + 1, 0);
        }
        if self.ends.len() < record.len() + 2 {
            self.ends.resize(record.len() + 2, 0);
        }
        let (mut input, mut nout, mut nend) = (record, 0, 0);
        loop {
            let (res, nin, o, e) =
                rdr.read_record(input, &mut self.out[nout..], &mut self.ends[nend..]);
            input = &input[nin..];
            nout += o;
            nend += e;
            // Input used up: the next call, with no input, ends the record
            // (a last line without a newline).
            if !matches!(res, csv_core::ReadRecordResult::InputEmpty) {
                break;
            }
        }
        FieldIter::Decoded { out: &self.out, ends: self.ends[..nend].iter(), start: 0 }
    }
}

/// The fields of a record ([`Fields::split`]).
enum FieldIter<'f> {
    /// Fields as they stand in the record: up to the next delimiter.
    Bare { rest: Option<&'f [u8]>, delimiter: u8 },
    /// Fields decoded by `csv-core`: each ends at the next of `ends` in
    /// `out`.
    Decoded { out: &'f [u8], ends: std::slice::Iter<'f, usize>, start: usize },
}

impl<'f> Iterator for FieldIter<'f> {
    type Item = &'f [u8];

    fn next(&mut self) -> Option<&'f [u8]> {
        match self {
            FieldIter::Bare { rest, delimiter } => {
                let line = (*rest)?;
                let end = memchr(*delimiter, line);
                *rest = end.map(|k| &line[k + 1..]);
                Some(&line[..end.unwrap_or(line.len())])
            }
            FieldIter::Decoded { out, ends, start } => {
                let end = *ends.next()?;
                let f = &out[*start..end];
                *start = end;
                Some(f)
            }
        }
    }
}

/// A field as UTF-8 text, trimmed of white space as [`str::trim`] does:
/// borrowed when it is ASCII (most fields), without the UTF-8 validation
/// that took about 100 of the 1,800 instructions a row of the benchmark
/// CSV cost end to end; else decoded, with U+FFFD for each bad sequence.
fn field_text(f: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    if f.is_ascii() {
        // `str::trim`'s white space among ASCII: tab to CR, and space.
        let ws = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
        let start = f.iter().position(|b| !ws(b)).unwrap_or(f.len());
        let end = f.iter().rposition(|b| !ws(b)).map_or(start, |e| e + 1);
        return Cow::Borrowed(&f[start..end]);
    }
    match String::from_utf8_lossy(f) {
        Cow::Borrowed(t) => Cow::Borrowed(t.trim().as_bytes()),
        Cow::Owned(t) => Cow::Owned(t.trim().as_bytes().to_vec()),
    }
}

/// Parses the complete records of `buf` (at `base` in the source);
/// returns the bytes consumed. The header is read first, record by
/// record; the records after it in parallel ([`parse_parallel`]), but for
/// one that a chunk of lines ends inside (a quoted field over several
/// lines), which is read alone. `chunk`: bytes a task scans
/// (`Config::chunk`), else [`TASK`].
pub(crate) fn parse(
    col: &mut Collector,
    st: &mut CsvState,
    buf: &[u8],
    base: u64,
    eof: bool,
    chunk: Option<usize>,
) -> Result<usize, Error> {
    let complete = if eof { buf.len() } else { memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1) };
    let mut pos = 0;
    let mut alone = false;
    while pos < buf.len() {
        if alone || st.cols.is_none() || pos >= complete {
            let Some(len) = one_record(col, st, buf, pos, base, eof)? else { break };
            pos += len;
            alone = false;
            continue;
        }
        let size = chunk.unwrap_or(TASK);
        pos = parse_parallel(col, st, &buf[..complete], pos, base, eof, size)?;
        // Where a chunk ended inside a record: that one alone.
        alone = true;
    }
    Ok(pos)
}

/// Where the record at the start of `b` ends: `(end, lines, error)`, or
/// `None` when more data is needed. As in RFC 4180 §2 (and `csv-core`), a
/// quote opens a quoted field only at the start of a field (after
/// `delimiter`, or any of `,;\t` while it is unknown); inside one, `""` is
/// a quote and a lone `"` closes it.
fn record_end(b: &[u8], eof: bool, delimiter: Option<u8>) -> Option<(usize, u64, Option<String>)> {
    let field_start = |i: usize| {
        i == 0 || delimiter.map_or(matches!(b[i - 1], b',' | b';' | b'\t'), |d| b[i - 1] == d)
    };
    let (mut i, mut lines, mut quoted) = (0usize, 0u64, false);
    // The record's first line alone, malformed: the lines after it are
    // read again as records of their own, not swallowed.
    let unclosed = |when: &str| {
        let end = memchr(b'\n', b).map_or(b.len(), |k| k + 1);
        Some((end, 1, Some(format!("quoted field not closed {when}"))))
    };
    let bounds = || format!("within {MAX_QUOTED_LINES} lines or {MAX_QUOTED_BYTES} bytes");
    while let Some(k) = memchr2(b'"', b'\n', &b[i..]) {
        i += k;
        if b[i] == b'"' {
            if quoted && b.get(i + 1) == Some(&b'"') {
                i += 2;
            } else if quoted && i + 1 == b.len() && !eof {
                return None;
            } else {
                quoted = if quoted { false } else { field_start(i) };
                i += 1;
            }
            continue;
        }
        lines += 1;
        i += 1;
        if !quoted {
            return Some((i, lines, None));
        }
        if lines >= MAX_QUOTED_LINES || i > MAX_QUOTED_BYTES {
            return unclosed(&bounds());
        }
    }
    if quoted && lines > 0 && b.len() > MAX_QUOTED_BYTES {
        return unclosed(&bounds());
    }
    if !eof {
        return None;
    }
    if quoted && lines > 0 {
        return unclosed("before the end of the file");
    }
    // The last line, without its newline.
    let lines = lines + u64::from(b.last().is_some_and(|&c| c != b'\n'));
    let error = quoted.then(|| "quoted field not closed at the end of the file".to_string());
    Some((b.len(), lines, error))
}

/// The delimiter of a header line: the first of `,`, `;` and tab that gives
/// a `label` or `domain` field.
fn detect_delimiter(header: &[u8]) -> u8 {
    let has_label = |d: u8| {
        header.split(|&b| b == d).any(|f| {
            let f = String::from_utf8_lossy(f);
            let f = f.trim().trim_matches('"').to_ascii_lowercase();
            f == "label" || f == "domain"
        })
    };
    [b',', b';', b'\t'].into_iter().find(|&d| has_label(d)).unwrap_or(b',')
}

/// Reads the record at `buf[pos..]` (`buf[0]` at `base`) on its own;
/// returns its length, or `None` when more data is needed.
fn one_record(
    col: &mut Collector,
    st: &mut CsvState,
    buf: &[u8],
    pos: usize,
    base: u64,
    eof: bool,
) -> Result<Option<usize>, Error> {
    let Some((len, lines, error)) = record_end(&buf[pos..], eof, st.delimiter) else {
        return Ok(None);
    };
    let record = &buf[pos..pos + len];
    let loc = Loc { source: st.source, line: st.line, offset: base + pos as u64 };
    st.line += lines;
    col.lines_read(lines);
    if let Some(e) = error {
        col.malformed(loc, e)?;
        return Ok(Some(len));
    }
    if record.iter().all(u8::is_ascii_whitespace) {
        col.count(LineKind::Blank, lines);
        return Ok(Some(len));
    }
    col.continuation_lines(lines - 1);
    let delimiter = *st.delimiter.get_or_insert_with(|| detect_delimiter(record));
    let fields = st.fields.split(delimiter, record);
    let Some(cols) = &st.cols else {
        let fields: Vec<&[u8]> = fields.collect();
        let cols = header(col, &fields, loc)?;
        col.count(LineKind::Directive, 1);
        st.cols = Some(cols);
        return Ok(Some(len));
    };
    match read_row(cols, fields, &mut st.row) {
        Err(reason) => col.malformed(loc, reason)?,
        Ok(label) => {
            if let Some(i) = name_label(col, loc, label, false, KeyMode::ALabel)? {
                let mut packed = Vec::new();
                st.row.pack_into(&mut packed);
                col.set_csv(i, &packed, loc)?;
            }
        }
    }
    Ok(Some(len))
}

fn header(col: &mut Collector, fields: &[&[u8]], loc: Loc) -> Result<Vec<Col>, Error> {
    let bad = |col: &Collector, why: String| {
        let path = col.path(loc.source).to_path_buf();
        Error::new(ErrorKind::CsvHeader(why)).at(&path, loc.line, Some(loc.offset))
    };
    // The column of each known name, once: a second one would be read or
    // dropped silently (`label,label` kept only the first label of a row).
    let mut seen: Vec<(&str, String)> = Vec::new();
    let mut cols = Vec::with_capacity(fields.len());
    for f in fields {
        let f = String::from_utf8_lossy(f);
        let name = f.trim().to_ascii_lowercase();
        let (kind, known) = match name.as_str() {
            "label" | "domain" => (Col::Label, Some("label")),
            "registered" => (Col::Registered, Some("registered")),
            "registrant" => (Col::Registrant, Some("registrant")),
            "lgr" => (Col::Lgr, Some("lgr")),
            _ => (Col::Extra(col.csv_column(f.trim())), None),
        };
        if let Some(k) = known {
            if let Some((_, first)) = seen.iter().find(|(s, _)| *s == k) {
                let why = format!("two columns for the {k}: `{first}` and `{}`", f.trim());
                return Err(bad(col, why));
            }
            seen.push((k, f.trim().to_string()));
        }
        match kind {
            Col::Lgr => col.csv_pins(),
            Col::Registrant => col.csv_registrants(),
            _ => {}
        }
        cols.push(kind);
    }
    if !seen.iter().any(|(k, _)| *k == "label") {
        return Err(bad(col, "no `label` or `domain` column".into()));
    }
    Ok(cols)
}

/// The label of a row (trimmed, not empty), its other columns written to
/// `row`; or why the row is malformed.
fn read_row<'f>(
    cols: &[Col],
    record: impl Iterator<Item = &'f [u8]>,
    row: &mut CsvRowWriter,
) -> Result<&'f [u8], String> {
    row.clear();
    let mut label: &[u8] = b"";
    let mut bad = None;
    for (i, f) in record.enumerate() {
        match cols.get(i) {
            Some(Col::Label) => label = f,
            Some(Col::Registered) => {
                if let Some(ts) = Timestamp::of_bare_date(f) {
                    row.registered(ts);
                    continue;
                }
                let t = field_text(f);
                if !t.is_empty() {
                    match Timestamp::parse_rfc3339(&String::from_utf8_lossy(&t)) {
                        Ok(ts) => row.registered(ts),
                        Err(e) => bad = Some(format!("registered: {e}")),
                    }
                }
            }
            Some(Col::Registrant) => row.registrant(&field_text(f)),
            Some(Col::Lgr) => row.lgr(&field_text(f)),
            Some(Col::Extra(c)) => {
                let t = field_text(f);
                if !t.is_empty() {
                    row.extra(*c, &t);
                }
            }
            None => bad = Some(format!("more fields than the header ({})", cols.len())),
        }
    }
    if let Some(reason) = bad {
        return Err(reason);
    }
    let trimmed = label.trim_ascii();
    if trimmed.is_empty() {
        return Err("empty label field".into());
    }
    Ok(trimmed)
}

/// A record of a chunk to merge: `line` counts from the chunk's first
/// line (0), `at` is its offset in the source.
struct Item {
    at: u64,
    line: u64,
    what: What,
    /// As [`super::list`]'s: the [`plain_mark`] of the row's label, after
    /// the row before it.
    plain: u8,
}

enum What {
    /// A malformed record, and why.
    Malformed(String),
    /// A row: its label in [`CsvChunk::labels`], its other columns packed
    /// ([`CsvRowWriter::pack_into`]) in [`CsvChunk::rows`].
    Row { label: Range<usize>, row: Range<usize> },
}

/// What [`scan_chunk`] found in a chunk of lines.
struct CsvChunk {
    /// Lines of its records, of blank records, and continuation lines.
    lines: u64,
    blank: u64,
    continuation: u64,
    items: Vec<Item>,
    labels: Vec<u8>,
    rows: Vec<u8>,
    /// Where the record that the chunk ends inside starts, if one does.
    stop: Option<usize>,
}

/// Reads the records of `buf[pos..]` (complete lines, after the header;
/// `buf[0]` at `base`) in chunks of lines scanned in parallel and merged
/// in order (see [`super::list`]). Returns `buf.len()`, or where a
/// record starts that a chunk ends inside.
fn parse_parallel(
    col: &mut Collector,
    st: &mut CsvState,
    buf: &[u8],
    pos: usize,
    base: u64,
    eof: bool,
    size: usize,
) -> Result<usize, Error> {
    let (Some(delimiter), Some(cols)) = (st.delimiter, st.cols.take()) else {
        return Ok(pos);
    };
    col.expect_labels(expected_lines(col, st.source, &buf[pos..], base + pos as u64));
    let tasks: Vec<Range<usize>> =
        split_lines(&buf[pos..], size).into_iter().map(|r| r.start + pos..r.end + pos).collect();
    let batches: Vec<&[Range<usize>]> = tasks.chunks(BATCH_TASKS).collect();
    let scan = |batch: &&[Range<usize>]| -> Vec<(CsvChunk, ListFormsChunk)> {
        use rayon::prelude::*;
        batch
            .par_iter()
            .map(|r| {
                let last = eof && r.end == buf.len();
                scan_chunk(buf, r.clone(), base, last, delimiter, &cols)
            })
            .collect()
    };
    let mut outcome = Ok(buf.len());
    let mut next = batches.first().map(scan);
    for i in 0..batches.len() {
        let Some(chunks) = next.take() else { break };
        // Merge this batch while the next one is scanned.
        let (merged, scanned) =
            rayon::join(|| merge(col, st, chunks), || batches.get(i + 1).map(scan));
        match merged {
            Ok(None) => next = scanned,
            Ok(Some(stop)) => {
                outcome = Ok(stop);
                break;
            }
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    st.cols = Some(cols);
    outcome
}

/// Scans the records of `buf[range]` (whole lines; `buf[0]` at `base`),
/// as [`one_record`] reads them, into a chunk to merge, with the IDNA
/// forms of its IDN labels. `eof`: the data ends with the range.
fn scan_chunk(
    buf: &[u8],
    range: Range<usize>,
    base: u64,
    eof: bool,
    delimiter: u8,
    cols: &[Col],
) -> (CsvChunk, ListFormsChunk) {
    let mut c = CsvChunk {
        lines: 0,
        blank: 0,
        continuation: 0,
        items: Vec::with_capacity(range.len() / 24),
        labels: Vec::with_capacity(range.len() / 2),
        rows: Vec::with_capacity(range.len() / 2),
        stop: None,
    };
    let (mut fields, mut row) = (Fields::default(), CsvRowWriter::default());
    let mut idn: Vec<(u64, Range<usize>)> = Vec::new();
    // The label of the row before, when it is its own key.
    let mut prev_plain: Option<Range<usize>> = None;
    let mut pos = range.start;
    while pos < range.end {
        let Some((len, lines, error)) = record_end(&buf[pos..range.end], eof, Some(delimiter))
        else {
            c.stop = Some(pos);
            break;
        };
        let record = &buf[pos..pos + len];
        let (at, line) = (base + pos as u64, c.lines);
        pos += len;
        c.lines += lines;
        if let Some(e) = error {
            c.items.push(Item { at, line, what: What::Malformed(e), plain: 0 });
            prev_plain = None;
            continue;
        }
        if record.iter().all(u8::is_ascii_whitespace) {
            c.blank += lines;
            continue;
        }
        c.continuation += lines - 1;
        let f = fields.split(delimiter, record);
        let mut plain = 0;
        let what = match read_row(cols, f, &mut row) {
            Err(reason) => What::Malformed(reason),
            Ok(label) => {
                plain = plain_mark(prev_plain.map(|p| &c.labels[p]), label);
                let l = c.labels.len()..c.labels.len() + label.len();
                c.labels.extend_from_slice(label);
                let r = c.rows.len();
                row.pack_into(&mut c.rows);
                let body = label.strip_suffix(b".").unwrap_or(label);
                let is_idn =
                    !body.is_ascii() || (body.len() > 4 && body[..4].eq_ignore_ascii_case(b"xn--"));
                if is_idn && memchr(b'.', body).is_none() {
                    idn.push((at, l.start..l.start + body.len()));
                }
                prev_plain = (plain != 0).then(|| l.clone());
                What::Row { label: l, row: r..c.rows.len() }
            }
        };
        if plain == 0 {
            prev_plain = None;
        }
        c.items.push(Item { at, line, what, plain });
    }
    let idn: Vec<(u64, &[u8])> = idn.into_iter().map(|(at, r)| (at, &c.labels[r])).collect();
    let forms = compute_forms(&idn);
    (c, forms)
}

/// Merges scanned chunks (in order) into the collector: counts their
/// lines, reports their malformed records and registers their rows.
/// Returns where the first chunk that ends inside a record stopped (the
/// chunks after it are not merged).
fn merge(
    col: &mut Collector,
    st: &mut CsvState,
    chunks: Vec<(CsvChunk, ListFormsChunk)>,
) -> Result<Option<usize>, Error> {
    let (chunks, forms): (Vec<CsvChunk>, Vec<ListFormsChunk>) = chunks.into_iter().unzip();
    col.set_list_forms(ListFormsBatch { source: st.source, chunks: forms });
    for c in chunks {
        col.lines_read(c.lines);
        col.count(LineKind::Blank, c.blank);
        col.continuation_lines(c.continuation);
        let mut k = 0;
        while k < c.items.len() {
            if c.items[k].plain != 0 {
                let (n, orders) = sorted_prefix(c.items[k..].iter().map(|it| it.plain));
                if push_sorted_rows(col, st, &c, &c.items[k..k + n], orders)? {
                    k += n;
                    continue;
                }
            }
            let it = &c.items[k];
            k += 1;
            let loc = Loc { source: st.source, line: st.line + it.line, offset: it.at };
            match &it.what {
                What::Malformed(reason) => col.malformed(loc, reason.clone())?,
                What::Row { label, row } => {
                    let label = &c.labels[label.clone()];
                    if let Some(i) = name_label(col, loc, label, false, KeyMode::ALabel)? {
                        col.set_csv(i, &c.rows[row.clone()], loc)?;
                    }
                }
            }
        }
        st.line += c.lines;
        if c.stop.is_some() {
            return Ok(c.stop);
        }
    }
    Ok(None)
}

/// Registers a run of rows whose labels are their own keys, in increasing
/// order under `orders`, at once (see [`Collector::register_sorted_run`]), with their
/// other columns. Returns false, having changed nothing, when they must be
/// registered one by one.
fn push_sorted_rows(
    col: &mut Collector,
    st: &CsvState,
    c: &CsvChunk,
    run: &[Item],
    orders: u8,
) -> Result<bool, Error> {
    let label = |it: &Item| {
        let loc = Loc { source: st.source, line: st.line + it.line, offset: it.at };
        match &it.what {
            What::Row { label, .. } => (loc, &c.labels[label.clone()]),
            What::Malformed(_) => (loc, &[][..]),
        }
    };
    let ends = (label(&run[0]).1, label(&run[run.len() - 1]).1);
    let Some(last) = col.register_sorted_run(ends, orders, run.iter().map(label), true)? else {
        return Ok(false);
    };
    for (i, it) in (last + 1 - run.len() as u32..).zip(run) {
        if let What::Row { row, .. } = &it.what {
            col.set_csv(i, &c.rows[row.clone()], label(it).0)?;
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of a record as the `csv` crate reads them: the reference
    /// [`Fields::split`] must agree with, by its `csv-core` path or not.
    fn csv_crate_fields(delimiter: u8, record: &[u8]) -> Vec<Vec<u8>> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(record);
        let mut fields = csv::ByteRecord::new();
        assert!(rdr.read_byte_record(&mut fields).unwrap(), "{record:?}");
        fields.iter().map(<[u8]>::to_vec).collect()
    }

    /// A label's first row is its row, one without columns beyond the
    /// label too: a later row with the same fields is a duplicate, one
    /// with another `registered`, `registrant` or `lgr` is malformed
    /// (its fields not taken); rows without columns keep nothing, not even
    /// row offsets.
    #[test]
    fn rows_without_columns_come_first_and_keep_nothing() {
        use crate::input::{Config, Input, InputFormat, read};
        let read_csv = |text: &[u8]| {
            let input = Input::Bytes { name: "x.csv".into(), data: text.to_vec() };
            read([input], &Config::new().format(Some(InputFormat::Csv))).unwrap()
        };
        let text = "label,registrant,registered,lgr\na,,,\nb,reg-b,2020-01-01,\na,reg-a,,\nc,,,\n\
                    b, reg-b ,2020-01-01,\nc,,2021-02-03,x\nb,reg-b,2020-01-01,\n";
        let set = read_csv(text.as_bytes());
        let registrant = |name: &str| {
            let label = set.iter().find(|l| l.ulabel() == name).unwrap();
            label.csv().and_then(|c| c.registrant).map(str::to_string)
        };
        assert_eq!(registrant("a"), None);
        assert_eq!(registrant("b").as_deref(), Some("reg-b"));
        assert_eq!(registrant("c"), None);
        let acc = set.accounting();
        acc.check().unwrap();
        assert_eq!((acc.duplicate_records, acc.malformed), (2, 2));
        let bad: Vec<(u64, &str)> =
            acc.malformed_details.iter().map(|m| (m.line, m.reason.as_str())).collect();
        assert_eq!(
            bad,
            [
                (4, "repeats the label of x.csv:2 with another registrant: a label has one row"),
                (
                    7,
                    "repeats the label of x.csv:5 with another registered, lgr: a label has one row"
                ),
            ]
        );
        let only = read_csv(b"label,registrant\na,\nb, \n");
        assert_eq!(only.len(), 2);
        assert!(only.csv_at.is_empty() && only.csv_data.is_empty());
    }

    /// `field_text` gives what `str::trim` gives of the field decoded
    /// (lossily), on its ASCII path and its other one: every ASCII white
    /// space and control character, non-ASCII white space, other
    /// characters and bad UTF-8 at either end and inside.
    #[test]
    fn fields_trim_as_str_trim() {
        let mut next = crate::testutil::random_u64s(12);
        let pieces: [&[u8]; 12] = [
            b" ",
            b"\t",
            b"\n",
            b"\x0b",
            b"\x0c",
            b"\r",
            b"\x1f",
            b"a",
            b"-",
            "\u{a0}".as_bytes(),
            "\u{3000}".as_bytes(),
            b"\xff",
        ];
        let mut ascii = 0;
        for _ in 0..50_000 {
            let n = next() % 6;
            let mut f = Vec::new();
            for _ in 0..n {
                // Mostly ASCII, so that both paths are taken often.
                let k = (next() % if next().is_multiple_of(4) { 12 } else { 9 }) as usize;
                f.extend_from_slice(pieces[k]);
            }
            ascii += usize::from(f.is_ascii());
            let want = String::from_utf8_lossy(&f).trim().as_bytes().to_vec();
            assert_eq!(&*field_text(&f), &want[..], "{:?}", f.escape_ascii());
        }
        assert!((20_000..45_000).contains(&ascii), "{ascii}");
    }

    #[test]
    fn records_split_as_the_csv_crate_splits_them() {
        let mut next = crate::testutil::random_u64s(11);
        let alphabet = b"ab,,;\t \"\"\r.-";
        // One splitter a delimiter, as one a file: its `csv-core` reader
        // keeps the delimiter it was built with.
        let mut splitters: [Fields; 3] = Default::default();
        let mut bare = 0;
        for _ in 0..60_000 {
            let d = (next() % 3) as usize;
            let (delimiter, fields) = ([b',', b';', b'\t'][d], &mut splitters[d]);
            let len = 1 + next() % 12;
            let mut record: Vec<u8> =
                (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            // Records as `record_end` cuts them: the first byte visible,
            // no newline but the last (LF or CRLF), which a last line may
            // lack.
            record[0] = b'x';
            match next() % 4 {
                0 => {}
                1 => record.extend_from_slice(b"\r\n"),
                _ => record.push(b'\n'),
            }
            let split = fields.split(delimiter, &record);
            bare += usize::from(matches!(split, FieldIter::Bare { .. }));
            let got: Vec<Vec<u8>> = split.map(<[u8]>::to_vec).collect();
            assert_eq!(got, csv_crate_fields(delimiter, &record), "{:?}", record.escape_ascii());
        }
        // Both paths are taken.
        assert!((10_000..50_000).contains(&bare), "{bare}");
    }
}
