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
mod signals;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Exit status:
  0  success, no findings
  1  findings (scan: invalid labels or variant conflicts)
  2  error (bad arguments, unreadable input, bad LGR)";

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
    /// The zone apex (default: the first $ORIGIN, else the SOA owner).
    #[arg(long)]
    origin: Option<String>,
    /// Stop at the first malformed input line.
    #[arg(long)]
    strict: bool,
    /// Memory-map input files and copy the labels (`auto`), map them and
    /// let labels borrow from the map (`borrow`), or read them as streams
    /// (`never`).
    #[arg(long, value_enum, default_value = "auto")]
    mmap: Mmap,
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

impl From<RecordFormat> for lgrscan::report::RecordFormat {
    fn from(f: RecordFormat) -> Self {
        match f {
            RecordFormat::Tsv => lgrscan::report::RecordFormat::Tsv,
            RecordFormat::Csv => lgrscan::report::RecordFormat::Csv,
            RecordFormat::Jsonl => lgrscan::report::RecordFormat::Jsonl,
        }
    }
}

/// The most worker threads `--threads` accepts: more than any machine
/// lgrscan runs on has cores, and few enough that a typo cannot ask for
/// millions of threads.
pub const MAX_THREADS: usize = 1024;

/// Parses `--threads`: 0 (one per core, as no flag) up to [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if n > MAX_THREADS {
        return Err(format!("at most {MAX_THREADS} (0 or no --threads: one per core)"));
    }
    Ok(n)
}

/// Loads `--lgr`/`--variants` SPEC (`builtin:NAME` or a file); the error
/// names it once.
pub fn load_lgr(spec: &str) -> anyhow::Result<lgrscan::lgr::Lgr> {
    lgrscan::builtin::load_spec(spec).map_err(|e| anyhow::anyhow!("LGR {e}"))
}

/// Standard output, buffered.
pub fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::new(std::io::stdout().lock())
}

/// Whether `err` comes from writing to a pipe whose reader has gone
/// (`lgrscan ... | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The result of writing a command's output, where a reader that stopped
/// reading (a closed pipe) is not an error: the output ends quietly and
/// the exit status is the command's verdict (see README, "Exit status").
pub fn output_done(written: anyhow::Result<()>) -> anyhow::Result<()> {
    match written {
        Err(e) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

/// `--output FILE` opened for a report (see [`lgrscan::report::output`]),
/// its temporary file removed if a signal ends the process.
pub struct ReportFile {
    // Declared first: dropped first, so the temporary file is gone before
    // it leaves the signal handler's list.
    file: lgrscan::report::OutputFile,
    protected: signals::Protected,
}

impl ReportFile {
    /// Opens `path`; the error names it.
    pub fn create(path: &std::path::Path) -> anyhow::Result<ReportFile> {
        let (file, protected) = signals::create_protected(path)?;
        Ok(ReportFile { file, protected })
    }

    /// Where the report is written.
    pub fn writer(&mut self) -> &mut lgrscan::report::OutputFile {
        &mut self.file
    }

    /// Puts the finished report in place.
    pub fn commit(self, durability: lgrscan::report::Durability) -> anyhow::Result<()> {
        let ReportFile { file, protected } = self;
        file.commit(durability)?;
        drop(protected);
        Ok(())
    }
}
