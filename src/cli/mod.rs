//! Command-line interface: argument parsing and dispatch. Everything that
//! judges labels lives in the library; this module turns flags into library
//! calls and results into output.

pub(crate) mod alloc;
mod annotate;
mod builtins;
mod explain;
mod lgr_info;
mod progress;
mod scan;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Exit status:
  0  success, no findings
  1  findings (scan: invalid labels or variant conflicts)
  2  error (bad arguments, unreadable or damaged input, malformed lines
     under --on-malformed fail, no registered label, bad LGR)";

/// Audit DNS zones for IDN problems against RFC 7940 Label Generation Rules.
#[derive(Parser, Debug)]
#[command(name = "lgrscan", version, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Judge each label of a list against one LGR: disposition, reason and index label.
    Annotate(annotate::Args),
    /// Audit a zone or label list: invalid labels and variant collisions.
    #[command(after_help = AFTER_HELP)]
    Scan(scan::Args),
    /// List the LGRs embedded in the binary.
    Builtins(builtins::Args),
    /// Inspect one LGR.
    #[command(subcommand)]
    Lgr(lgr_info::LgrCommand),
    /// Explain one label: code points, verdicts, index label, variants.
    Explain(explain::Args),
}

/// Parses the command line and runs the command.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return Ok(ExitCode::from(code));
        }
    };
    match cli.command {
        Command::Annotate(a) => annotate::run(a),
        Command::Scan(a) => scan::run(a),
        Command::Builtins(a) => builtins::run(a),
        Command::Lgr(c) => lgr_info::run(c),
        Command::Explain(a) => explain::run(a),
    }
}

/// How inputs are read (shared by `scan` and `annotate`).
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Input format (default: detected from the content of each file).
    #[arg(long, value_parser = ["zone", "list", "csv"])]
    input_format: Option<String>,
    /// The CSV delimiter, one ASCII character (default: `,`, `;` or tab,
    /// detected from the header).
    #[arg(long, value_parser = parse_delimiter)]
    delimiter: Option<u8>,
    /// The zone apex (default: the first $ORIGIN, else the SOA owner).
    #[arg(long)]
    origin: Option<String>,
    /// Stop at the first malformed input line (exit 2 naming it, no report).
    #[arg(long)]
    strict: bool,
    /// What malformed input lines (and CSV rows whose `lgr` names no LGR
    /// of the set) do to the exit status, once the report is written:
    /// `fail` (exit 2), `warn` (one line on standard error) or `ignore`.
    /// They are reported with their file and line in each case.
    #[arg(long, value_enum, default_value = "fail")]
    on_malformed: OnMalformed,
    /// Memory-map input files and copy the labels (`auto`), map them and
    /// let labels borrow from the map (`borrow`), or read them as streams
    /// (`never`).
    #[arg(long, value_enum, default_value = "auto")]
    mmap: Mmap,
}

fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s.as_bytes() {
        [b] if b.is_ascii() && !matches!(b, b'"' | b'\n' | b'\r') => Ok(*b),
        _ => Err(format!("{s:?}: the delimiter is one ASCII character (not a quote or newline)")),
    }
}

/// `--on-malformed` (as named-checkzone's `-k fail|warn|ignore`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnMalformed {
    /// Exit 2 once the report is written.
    Fail,
    /// One line on standard error; the exit status is that of the findings.
    Warn,
    /// Nothing more than the summary says.
    Ignore,
}

/// The malformed entries of a read, as `file:line (byte N): reason`, the
/// first `max` of them.
pub fn malformed_lines(labels: &lgrscan::input::LabelSet, max: usize) -> Vec<String> {
    labels
        .accounting()
        .malformed_details
        .iter()
        .take(max)
        .map(|m| {
            let src = labels.sources().get(m.source as usize);
            let src = src.map(|s| s.path.display().to_string()).unwrap_or_default();
            format!("{src}:{} (byte {}): {}", m.line, m.offset, m.reason)
        })
        .collect()
}

/// `--mmap`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mmap {
    /// Memory-map regular uncompressed files; copy the registered labels'
    /// text and release the pages read, so resident memory follows the
    /// labels, not the file.
    Auto,
    /// Memory-map regular uncompressed files; labels borrow from the map
    /// (the file's pages stay resident).
    Borrow,
    /// Read every input as a stream (labels are copied).
    Never,
}

impl InputArgs {
    /// The input configuration (NS targets are not collected: no command
    /// reports them yet).
    pub fn config(&self) -> anyhow::Result<lgrscan::input::Config> {
        use lgrscan::input::{Config, InputFormat, LabelText, MmapChoice, NsTargets, Strictness};
        let format = self
            .input_format
            .as_deref()
            .map(|f| f.parse::<InputFormat>())
            .transpose()
            .map_err(anyhow::Error::msg)?;
        Ok(Config::new()
            .format(format)
            .delimiter(self.delimiter)
            .origin(self.origin.as_deref())
            .strictness(if self.strict { Strictness::Strict } else { Strictness::Lenient })
            .ns_targets(NsTargets::Skip)
            .mmap(match self.mmap {
                // SAFETY: the contract of `MmapChoice::auto` is that mapped
                // files are not changed while lgrscan runs; audited zone
                // files are snapshots, and the README documents this.
                Mmap::Auto | Mmap::Borrow => unsafe { MmapChoice::auto() },
                Mmap::Never => MmapChoice::never(),
            })
            .label_text(if self.mmap == Mmap::Borrow {
                LabelText::Borrow
            } else {
                LabelText::Copy
            }))
    }
}

impl InputArgs {
    /// Applies `--on-malformed` once the report is written: `more` are
    /// malformed entries found after the read (e.g. unknown `lgr` pins).
    /// With any, `fail` is an error (exit 2) and `warn` prints one line;
    /// `--quiet` hides neither.
    pub fn malformed_outcome(
        &self,
        labels: &lgrscan::input::LabelSet,
        more: &[String],
    ) -> anyhow::Result<()> {
        let n = labels.accounting().malformed + more.len() as u64;
        let Some(first) = malformed_lines(labels, 1).pop().or_else(|| more.first().cloned()) else {
            return Ok(());
        };
        let what = format!("{n} malformed line{} (first: {first})", if n == 1 { "" } else { "s" });
        match self.on_malformed {
            OnMalformed::Fail => {
                anyhow::bail!("{what}; --on-malformed warn or ignore accepts them")
            }
            OnMalformed::Warn => eprintln!("lgrscan: warning: {what}"),
            OnMalformed::Ignore => {}
        }
        Ok(())
    }

    /// Whether malformed entries are to be listed on standard error.
    pub fn list_malformed(&self) -> bool {
        self.on_malformed != OnMalformed::Ignore
    }
}

/// How index labels test variant context rules (`--index-mode`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexModeArg {
    /// As ICANN's lgr-core computes them (agrees with its published results).
    #[default]
    Reference,
    /// As RFC 7940 §8.5 / RZ-LGR §5.5.4 read: a variant's context rule is
    /// tested on the input label at the variant's own position. Finds
    /// collisions the reference misses (e.g. भारत / भा़रत).
    Rfc7940,
}

impl From<IndexModeArg> for lgrscan::lgr::IndexMode {
    fn from(m: IndexModeArg) -> Self {
        match m {
            IndexModeArg::Reference => lgrscan::lgr::IndexMode::Reference,
            IndexModeArg::Rfc7940 => lgrscan::lgr::IndexMode::Rfc7940,
        }
    }
}

/// Output formats for per-label records.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// Tab-separated values with a header row.
    Tsv,
    /// Comma-separated values (RFC 4180) with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// Opens the output: a file, or stdout.
pub fn output(path: Option<&std::path::Path>) -> anyhow::Result<Box<dyn std::io::Write>> {
    use anyhow::Context;
    Ok(match path {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}

/// Writes records of named string fields in the chosen format.
pub struct RecordWriter<W: std::io::Write> {
    fields: &'static [&'static str],
    sink: Sink<W>,
}

enum Sink<W: std::io::Write> {
    Csv(Box<csv::Writer<W>>),
    Tsv(W),
    Jsonl(W),
}

impl<W: std::io::Write> RecordWriter<W> {
    /// A writer; TSV and CSV write the header row now.
    pub fn new(
        out: W,
        format: RecordFormat,
        fields: &'static [&'static str],
    ) -> anyhow::Result<Self> {
        Self::with_header(out, format, fields, true)
    }

    /// A writer of records that follow others written with the same
    /// format and fields: no header row.
    pub fn continuing(out: W, format: RecordFormat, fields: &'static [&'static str]) -> Self {
        Self::with_header(out, format, fields, false)
            .unwrap_or_else(|_| unreachable!("nothing is written without a header"))
    }

    fn with_header(
        out: W,
        format: RecordFormat,
        fields: &'static [&'static str],
        header: bool,
    ) -> anyhow::Result<Self> {
        let sink = match format {
            RecordFormat::Csv => {
                let mut c = csv::WriterBuilder::new().from_writer(out);
                if header {
                    c.write_record(fields)?;
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
    pub fn write(&mut self, values: &[&str]) -> anyhow::Result<()> {
        match &mut self.sink {
            Sink::Csv(c) => c.write_record(values)?,
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
    pub fn finish(self) -> anyhow::Result<()> {
        match self.sink {
            Sink::Csv(mut c) => c.flush()?,
            Sink::Tsv(mut o) | Sink::Jsonl(mut o) => o.flush()?,
        }
        Ok(())
    }
}
