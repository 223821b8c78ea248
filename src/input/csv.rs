//! CSV label files: a header with a `label` (or `domain`) column, and
//! optional `registered` (RFC 3339 date or date-time), `registrant` (an
//! opaque id) and `lgr` (an LGR or language tag pinned for the row).
//! Other columns are carried through to the labels.
//!
//! A row whose `registered` value does not parse is malformed (the label
//! is not taken). When a label appears in several rows, the first row's
//! fields are kept and the later rows are counted as duplicates.

use std::io::Read;

use super::collect::{KeyMode, Loc};
use super::labels::CsvFields;
use super::list::name_label;
use super::reader::{CountingReader, Reader};
use super::{Error, ErrorKind, Timestamp};

enum Col {
    Label,
    Registered,
    Registrant,
    Lgr,
    Extra(u32),
}

/// Parses CSV held in memory (labels' original text is copied: CSV
/// fields may be quoted).
pub(crate) fn parse(r: &mut Reader<'_>, source: u32, bytes: &[u8]) -> Result<(), Error> {
    run(r, source, bytes).map(|_| ())
}

/// Parses CSV from a stream.
pub(crate) fn parse_stream<R: Read>(
    r: &mut Reader<'_>,
    source: u32,
    reader: CountingReader<R>,
) -> Result<(), Error> {
    let reader = run(r, source, reader)?;
    r.c.set.accounting.bytes += reader.bytes;
    if let Some(e) = reader.error {
        let offset = reader.bytes;
        return Err(r.stream_error(source, e, offset));
    }
    Ok(())
}

fn run<R: Read>(r: &mut Reader<'_>, source: u32, reader: R) -> Result<R, Error> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(reader);
    let path = r.c.path(source).to_path_buf();
    let mut record = csv::ByteRecord::new();
    let mut cols: Vec<Col> = Vec::new();
    let mut label_col = None;
    let mut header = true;
    let mut lines_before = 1u64;
    loop {
        let more = match rdr.read_byte_record(&mut record) {
            Ok(m) => m,
            Err(e) => {
                // csv reports I/O errors this way; other errors do not occur
                // with `flexible` and byte records.
                return Err(Error::new(ErrorKind::Io(std::io::Error::other(e.to_string())))
                    .with_path(&path));
            }
        };
        let start = record.position().map_or(lines_before, |p| p.line());
        let offset = record.position().map_or(0, |p| p.byte());
        let after = rdr.position().line();
        let acc = &mut r.c.set.accounting;
        if !more {
            // Trailing blank lines, and a last line without a newline.
            let end_lines = after.saturating_sub(lines_before);
            acc.lines += end_lines;
            acc.blank_lines += end_lines;
            break;
        }
        // Blank lines the csv reader skipped before this record.
        let blank = start.saturating_sub(lines_before);
        // A record that ends the file without a newline still is a line.
        let spanned = after.saturating_sub(start).max(1);
        acc.lines += blank + spanned;
        acc.blank_lines += blank;
        acc.continuation_lines += spanned - 1;
        lines_before = start + spanned;
        let loc = Loc { source, line: start, offset };
        if header {
            header = false;
            acc.directive_lines += 1;
            for (i, f) in record.iter().enumerate() {
                let f = String::from_utf8_lossy(f);
                let f = if i == 0 { f.trim_start_matches('\u{FEFF}') } else { &f };
                let name = f.trim().to_ascii_lowercase();
                let col = match name.as_str() {
                    "label" | "domain" if label_col.is_none() => {
                        label_col = Some(i);
                        Col::Label
                    }
                    "registered" => Col::Registered,
                    "registrant" => Col::Registrant,
                    "lgr" => Col::Lgr,
                    _ => Col::Extra(r.c.csv_column(f.trim())),
                };
                cols.push(col);
            }
            if label_col.is_none() {
                return Err(Error::new(ErrorKind::CsvHeader(
                    "no `label` or `domain` column".into(),
                ))
                .at(&path, start, Some(offset)));
            }
            continue;
        }
        let mut fields = CsvFields::default();
        let mut label: &[u8] = b"";
        let mut bad = None;
        for (i, f) in record.iter().enumerate() {
            let text = || String::from_utf8_lossy(f).trim().to_string();
            match cols.get(i) {
                Some(Col::Label) => label = f,
                Some(Col::Registered) => {
                    let t = text();
                    if !t.is_empty() {
                        match Timestamp::parse_rfc3339(&t) {
                            Ok(ts) => fields.registered = Some(ts),
                            Err(e) => bad = Some(format!("registered: {e}")),
                        }
                    }
                }
                Some(Col::Registrant) => {
                    let t = text();
                    fields.registrant = (!t.is_empty()).then(|| t.into_boxed_str());
                }
                Some(Col::Lgr) => {
                    let t = text();
                    fields.lgr = (!t.is_empty()).then(|| t.into_boxed_str());
                }
                Some(Col::Extra(c)) => {
                    let t = text();
                    if !t.is_empty() {
                        fields.extra.push((*c, t.into_boxed_str()));
                    }
                }
                None => bad = Some(format!("more fields than the header ({})", cols.len())),
            }
        }
        if let Some(reason) = bad {
            r.c.malformed(loc, reason)?;
            continue;
        }
        let trimmed = label.trim_ascii();
        if trimmed.is_empty() {
            r.c.malformed(loc, "empty label field")?;
            continue;
        }
        if let Some(i) = name_label(r, loc, trimmed, false, KeyMode::ALabel)? {
            r.c.set_csv(i, fields);
        }
    }
    Ok(rdr.into_inner())
}
