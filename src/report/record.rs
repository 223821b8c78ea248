//! Records of named string fields as TSV, CSV (RFC 4180) or JSON Lines:
//! the rows of `annotate` and of `scan`'s machine-readable reports.

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
    /// One JSON object per line, keys in field order; a `line` field that
    /// holds a number is written as a number.
    Jsonl,
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
    sink: Sink<W>,
}

enum Sink<W: Write> {
    Csv(Box<csv::Writer<W>>),
    Tsv(W),
    Jsonl(W),
}

/// The I/O error inside a CSV writer's error, so that its kind (a closed
/// pipe, a full disk) reaches the caller unchanged.
fn csv_io(e: csv::Error) -> io::Error {
    if !e.is_io_error() {
        return io::Error::other(e);
    }
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        other => io::Error::other(format!("{other:?}")),
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
                let mut c = csv::WriterBuilder::new().from_writer(out);
                if header {
                    c.write_record(fields).map_err(csv_io)?;
                }
                Sink::Csv(Box::new(c))
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
        Ok(RecordWriter { fields, sink })
    }

    /// Writes one record; `values` are in the order of the fields.
    ///
    /// # Errors
    /// Writing to the output.
    pub fn write(&mut self, values: &[&str]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Csv(c) => c.write_record(values).map_err(csv_io)?,
            Sink::Tsv(o) => {
                let clean: Vec<String> =
                    values.iter().map(|v| v.replace(['\t', '\n', '\r'], " ")).collect();
                writeln!(o, "{}", clean.join("\t"))?;
            }
            Sink::Jsonl(o) => {
                let mut m = serde_json::Map::new();
                for (k, v) in self.fields.iter().zip(values) {
                    let val = if *k == "line" {
                        v.parse::<u64>()
                            .map(serde_json::Value::from)
                            .unwrap_or_else(|_| (*v).into())
                    } else {
                        serde_json::Value::from(*v)
                    };
                    m.insert((*k).to_string(), val);
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
