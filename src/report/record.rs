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
        Ok(RecordWriter { fields, types: default_types(fields), sink })
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
