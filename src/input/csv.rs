//! CSV label files: a header with a `label` (or `domain`) column, and
//! optional `registered` (RFC 3339 date or date-time), `registrant` (an
//! opaque id) and `lgr` (an LGR or language tag pinned for the row).
//! Other columns are carried through to the labels.
//!
//! The delimiter is [`Config::delimiter`](super::Config::delimiter), else
//! the first of `,`, `;` and tab that splits the header into a `label` or
//! `domain` column (else `,`). Records are found first (a newline outside
//! quotes ends one, so line numbers count `\n`, CRLF or not), then split
//! into fields by `csv-core`. A quoted field still open after
//! [`MAX_QUOTED_LINES`] lines or [`MAX_QUOTED_BYTES`] bytes is malformed at
//! the record's first line, and reading goes on at the next line.
//!
//! A row whose `registered` value does not parse is malformed (the label
//! is not taken). When a label appears in several rows, the first row's
//! fields are kept and the later rows are counted as duplicates.

use memchr::{memchr, memchr2};

use super::collect::{Collector, KeyMode, LineKind, Loc};
use super::csv_fields::CsvRowWriter;
use super::list::name_label;
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

/// Per-file state of the CSV parser.
pub(crate) struct CsvState {
    pub(crate) source: u32,
    pub(crate) line: u64,
    delimiter: Option<u8>,
    /// The columns, once the header is read.
    cols: Option<Vec<Col>>,
    /// The field splitter, once the delimiter is known.
    fields: Option<csv_core::Reader>,
    out: Vec<u8>,
    ends: Vec<usize>,
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
            fields: None,
            out: Vec::new(),
            ends: Vec::new(),
            row: CsvRowWriter::default(),
        }
    }
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
    let unclosed = || {
        let end = memchr(b'\n', b).map_or(b.len(), |k| k + 1);
        let e = format!(
            "quoted field not closed within {MAX_QUOTED_LINES} lines or {MAX_QUOTED_BYTES} bytes"
        );
        Some((end, 1, Some(e)))
    };
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
            return unclosed();
        }
    }
    if quoted && lines > 0 && b.len() > MAX_QUOTED_BYTES {
        return unclosed();
    }
    if !eof {
        return None;
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

/// Splits `record` into fields (in `st.out`, ending at `st.ends`);
/// returns the number of fields.
fn split_fields(st: &mut CsvState, record: &[u8]) -> usize {
    let delimiter = st.delimiter.unwrap_or(b',');
    let rdr = st
        .fields
        .get_or_insert_with(|| csv_core::ReaderBuilder::new().delimiter(delimiter).build());
    rdr.reset();
    st.out.resize(record.len() + 1, 0);
    st.ends.resize(record.iter().filter(|&&b| b == delimiter).count() + 2, 0);
    let (mut input, mut nout, mut nend) = (record, 0, 0);
    loop {
        let (res, nin, o, e) = rdr.read_record(input, &mut st.out[nout..], &mut st.ends[nend..]);
        input = &input[nin..];
        nout += o;
        nend += e;
        // Input used up: the next call, with no input, ends the record
        // (a last line without a newline).
        if !matches!(res, csv_core::ReadRecordResult::InputEmpty) {
            return nend;
        }
    }
}

/// Parses the complete records of `buf` (at `base` in the source);
/// returns the bytes consumed.
pub(crate) fn parse(
    col: &mut Collector,
    st: &mut CsvState,
    buf: &[u8],
    base: u64,
    eof: bool,
) -> Result<usize, Error> {
    let mut pos = 0;
    while pos < buf.len() {
        let Some((len, lines, error)) = record_end(&buf[pos..], eof, st.delimiter) else { break };
        let record = &buf[pos..pos + len];
        let loc = Loc { source: st.source, line: st.line, offset: base + pos as u64 };
        pos += len;
        st.line += lines;
        col.lines_read(lines);
        if let Some(e) = error {
            col.malformed(loc, e)?;
            continue;
        }
        if record.iter().all(u8::is_ascii_whitespace) {
            col.count(LineKind::Blank, lines);
            continue;
        }
        col.continuation_lines(lines - 1);
        if st.delimiter.is_none() {
            st.delimiter = Some(detect_delimiter(record));
        }
        let n = split_fields(st, record);
        let mut fields = Vec::with_capacity(n);
        let mut start = 0;
        for &end in &st.ends[..n] {
            fields.push(&st.out[start..end]);
            start = end;
        }
        match &st.cols {
            None => {
                let cols = header(col, &fields, loc)?;
                col.count(LineKind::Directive, 1);
                st.cols = Some(cols);
            }
            Some(cols) => row(col, cols, &fields, &mut st.row, loc)?,
        }
    }
    Ok(pos)
}

fn header(col: &mut Collector, fields: &[&[u8]], loc: Loc) -> Result<Vec<Col>, Error> {
    let mut label = false;
    let mut cols = Vec::with_capacity(fields.len());
    for f in fields {
        let f = String::from_utf8_lossy(f);
        let name = f.trim().to_ascii_lowercase();
        cols.push(match name.as_str() {
            "label" | "domain" if !label => {
                label = true;
                Col::Label
            }
            "registered" => Col::Registered,
            "registrant" => Col::Registrant,
            "lgr" => Col::Lgr,
            _ => Col::Extra(col.csv_column(f.trim())),
        });
    }
    if !label {
        let path = col.path(loc.source).to_path_buf();
        let e = Error::new(ErrorKind::CsvHeader("no `label` or `domain` column".into()));
        return Err(e.at(&path, loc.line, Some(loc.offset)));
    }
    Ok(cols)
}

fn row(
    col: &mut Collector,
    cols: &[Col],
    record: &[&[u8]],
    row: &mut CsvRowWriter,
    loc: Loc,
) -> Result<(), Error> {
    row.clear();
    let mut label: &[u8] = b"";
    let mut bad = None;
    for (i, f) in record.iter().enumerate() {
        let text = String::from_utf8_lossy(f);
        let t = text.trim();
        match cols.get(i) {
            Some(Col::Label) => label = f,
            Some(Col::Registered) if !t.is_empty() => match Timestamp::parse_rfc3339(t) {
                Ok(ts) => row.registered(ts),
                Err(e) => bad = Some(format!("registered: {e}")),
            },
            Some(Col::Registered) => {}
            Some(Col::Registrant) => row.registrant(t),
            Some(Col::Lgr) => row.lgr(t),
            Some(Col::Extra(c)) if !t.is_empty() => row.extra(*c, t),
            Some(Col::Extra(_)) => {}
            None => bad = Some(format!("more fields than the header ({})", cols.len())),
        }
    }
    if let Some(reason) = bad {
        return col.malformed(loc, reason);
    }
    let trimmed = label.trim_ascii();
    if trimmed.is_empty() {
        return col.malformed(loc, "empty label field");
    }
    if let Some(i) = name_label(col, loc, trimmed, false, KeyMode::ALabel)? {
        col.set_csv(i, row);
    }
    Ok(())
}
