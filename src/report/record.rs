//! Records of named string fields as TSV, CSV (RFC 4180) or JSON Lines:
//! the rows of `annotate` and of `scan`'s machine-readable reports.
//!
//! CSV is written here (`CsvSink`) rather than by the `csv` crate's
//! writer, to the crate's rules (a test compares the two on random
//! records): the crate's writer passes each byte through a state machine,
//! then copies it out of a buffer of its own. A `check` of a million
//! candidates (2 threads, CSV to a file) used 0.97 s of CPU with it, 0.91 s
//! with this one (means of 7 runs).

use std::io::{self, Write};

/// A format for records of named fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordFormat {
    /// Tab-separated values with a header row; tabs and line breaks in a
    /// value become spaces.
    Tsv,
    /// Comma-separated values ([RFC 4180]) with a header row.
    ///
    /// [RFC 4180]: https://www.rfc-editor.org/rfc/rfc4180
    Csv,
    /// One JSON object per line, keys in field order, values typed by
    /// each field's [`FieldType`] (by default a `line` field that holds a
    /// number is a number, the others strings).
    Jsonl,
}

/// How a field's value is written in JSON Lines (TSV and CSV write the
/// text as it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldType {
    /// A string, empty or not.
    Text,
    /// A string, or `null` when empty (an absent value).
    Optional,
    /// A number when the text is an unsigned integer, `null` when empty.
    Number,
    /// An array of the `;`-separated parts, `null` when empty.
    List,
}

impl FieldType {
    /// The JSON value of the text `v` of a field of this type.
    pub fn json(self, v: &str) -> serde_json::Value {
        use serde_json::Value;
        match self {
            FieldType::Text => Value::from(v),
            _ if v.is_empty() => Value::Null,
            FieldType::Optional => Value::from(v),
            FieldType::Number => v.parse::<u64>().map_or_else(|_| Value::from(v), Value::from),
            FieldType::List => Value::from(v.split(';').collect::<Vec<_>>()),
        }
    }
}

/// The default types: `line` a number, the rest text.
fn default_types(fields: &[&str]) -> Vec<FieldType> {
    fields.iter().map(|f| if *f == "line" { FieldType::Number } else { FieldType::Text }).collect()
}

/// Writes records of named string fields in one [`RecordFormat`].
///
/// # Example
/// ```
/// use lgrscan::report::{RecordFormat, RecordWriter};
/// let mut out = Vec::new();
/// let mut w = RecordWriter::new(&mut out, RecordFormat::Csv, &["line", "label"])?;
/// w.write(&["1", "a,b"])?;
/// w.finish()?;
/// assert_eq!(out, b"line,label\n1,\"a,b\"\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct RecordWriter<W: Write> {
    fields: &'static [&'static str],
    types: Vec<FieldType>,
    sink: Sink<W>,
}

enum Sink<W: Write> {
    Csv(CsvSink<W>),
    Tsv(W),
    Jsonl(W),
}

/// Writes CSV records as the `csv` crate's writer does with its defaults
/// (RFC 4180 §2): fields separated by `,`, records ended by `\n`; a field
/// that holds `,`, `"`, CR or LF quoted, its quotes doubled; a record with
/// no text at all (one empty field) written as `""`, so that it is read
/// back as a record. Buffered, as the crate's writer is: its output may
/// be a file.
struct CsvSink<W: Write> {
    out: W,
    buf: Vec<u8>,
}

/// Bytes a [`CsvSink`] holds before it writes them out.
const CSV_BUFFER: usize = 64 << 10;

impl<W: Write> CsvSink<W> {
    fn new(out: W) -> CsvSink<W> {
        CsvSink { out, buf: Vec::with_capacity(CSV_BUFFER + 1024) }
    }

    /// Writes one record.
    fn record<'v>(&mut self, values: impl IntoIterator<Item = &'v str>) -> io::Result<()> {
        let start = self.buf.len();
        for (k, v) in values.into_iter().enumerate() {
            if k > 0 {
                self.buf.push(b',');
            }
            let v = v.as_bytes();
            if v.iter().any(|&b| matches!(b, b',' | b'"' | b'\r' | b'\n')) {
                self.buf.push(b'"');
                for (n, part) in v.split(|&b| b == b'"').enumerate() {
                    if n > 0 {
                        self.buf.extend_from_slice(b"\"\"");
                    }
                    self.buf.extend_from_slice(part);
                }
                self.buf.push(b'"');
            } else {
                self.buf.extend_from_slice(v);
            }
        }
        if self.buf.len() == start {
            self.buf.extend_from_slice(b"\"\"");
        }
        self.buf.push(b'\n');
        if self.buf.len() >= CSV_BUFFER {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes out what is held, and flushes the output.
    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// What is held is written out (as the `csv` crate's writer does when
/// dropped), an error ignored: [`RecordWriter::finish`] reports one.
impl<W: Write> Drop for CsvSink<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

impl<W: Write> RecordWriter<W> {
    /// A writer; TSV and CSV write the header row now.
    ///
    /// # Errors
    /// Writing the header.
    pub fn new(out: W, format: RecordFormat, fields: &'static [&'static str]) -> io::Result<Self> {
        Self::with_header(out, format, fields, true)
    }

    /// A writer whose JSON Lines values are typed by `types` (one per
    /// field); `header`: whether TSV and CSV write the header row now
    /// (false for records following others, see [`Self::continuing`]).
    ///
    /// # Errors
    /// Writing the header.
    pub fn typed(
        out: W,
        format: RecordFormat,
        fields: &'static [&'static str],
        types: &[FieldType],
        header: bool,
    ) -> io::Result<Self> {
        let mut w = Self::with_header(out, format, fields, header)?;
        w.types = types.to_vec();
        Ok(w)
    }

    /// A writer of records that follow others written with the same
    /// format and fields: no header row (parts of one report formatted in
    /// parallel).
    pub fn continuing(out: W, format: RecordFormat, fields: &'static [&'static str]) -> Self {
        Self::with_header(out, format, fields, false)
            .unwrap_or_else(|_| unreachable!("nothing is written without a header"))
    }

    fn with_header(
        out: W,
        format: RecordFormat,
        fields: &'static [&'static str],
        header: bool,
    ) -> io::Result<Self> {
        let sink = match format {
            RecordFormat::Csv => {
                let mut c = CsvSink::new(out);
                if header {
                    c.record(fields.iter().copied())?;
                }
                Sink::Csv(c)
            }
            RecordFormat::Tsv => {
                let mut o = out;
                if header {
                    writeln!(o, "{}", fields.join("\t"))?;
                }
                Sink::Tsv(o)
            }
            RecordFormat::Jsonl => Sink::Jsonl(out),
        };
        Ok(RecordWriter { fields, types: default_types(fields), sink })
    }

    /// Writes one record; `values` are in the order of the fields.
    ///
    /// # Errors
    /// Writing to the output.
    pub fn write(&mut self, values: &[&str]) -> io::Result<()> {
        match &mut self.sink {
            // As the `csv` crate's writer refuses a record that does not
            // have as many fields as those before it.
            Sink::Csv(_) if values.len() != self.fields.len() => {
                return Err(io::Error::other(format!(
                    "a record of {} fields, the header has {}",
                    values.len(),
                    self.fields.len()
                )));
            }
            Sink::Csv(c) => c.record(values.iter().copied())?,
            Sink::Tsv(o) => {
                let clean: Vec<String> =
                    values.iter().map(|v| v.replace(['\t', '\n', '\r'], " ")).collect();
                writeln!(o, "{}", clean.join("\t"))?;
            }
            Sink::Jsonl(o) => {
                let mut m = serde_json::Map::new();
                for ((k, v), t) in self.fields.iter().zip(values).zip(&self.types) {
                    m.insert((*k).to_string(), t.json(v));
                }
                serde_json::to_writer(&mut *o, &m)?;
                o.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    /// Flushes the output.
    ///
    /// # Errors
    /// Writing to the output.
    pub fn finish(self) -> io::Result<()> {
        match self.sink {
            Sink::Csv(mut c) => c.flush(),
            Sink::Tsv(mut o) | Sink::Jsonl(mut o) => o.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `csv` crate's writer with its defaults, the rules [`CsvSink`]
    /// follows.
    fn by_the_crate(records: &[Vec<String>]) -> Vec<u8> {
        let mut w = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
        for r in records {
            w.write_record(r).expect("in memory");
        }
        w.into_inner().expect("in memory")
    }

    #[test]
    fn csv_is_written_as_the_csv_crate_writes_it() {
        let mut next = crate::testutil::random_u64s(11);
        // Bytes that matter to CSV, and some that do not.
        let alphabet = ["a", ",", "\"", "\r", "\n", " ", "\t", "#", "ä", "क", ";", "'"];
        let mut records: Vec<Vec<String>> = vec![vec![String::new()], vec![], vec!["".into(); 2]];
        for _ in 0..20_000 {
            let fields = (next() % 5) as usize + 1;
            let record = (0..fields)
                .map(|_| {
                    let len = (next() % 6) as usize;
                    (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect()
                })
                .collect();
            records.push(record);
        }
        let mut ours = CsvSink::new(Vec::new());
        for r in &records {
            ours.record(r.iter().map(String::as_str)).expect("in memory");
        }
        ours.flush().expect("in memory");
        assert_eq!(
            String::from_utf8_lossy(&ours.out),
            String::from_utf8_lossy(&by_the_crate(&records))
        );
        // A long field is written out as it comes, not held whole.
        let mut long = CsvSink::new(Vec::new());
        long.record(["x".repeat(3 * CSV_BUFFER).as_str()]).expect("in memory");
        assert_eq!(long.out.len(), 3 * CSV_BUFFER + 1);
    }

    #[test]
    fn a_record_of_another_width_is_an_error() {
        let mut w = RecordWriter::new(Vec::new(), RecordFormat::Csv, &["a", "b"]).expect("header");
        assert!(w.write(&["1"]).is_err());
        w.write(&["1", "2"]).expect("as wide as the header");
    }
}
