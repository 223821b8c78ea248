//! Command-line interface: argument parsing and dispatch. Everything that
//! judges labels lives in the library; this module turns flags into library
//! calls and results into output.

mod annotate;
mod builtins;
mod diff;
mod explain;
mod lgr_info;
mod progress;
mod scan;
mod serve;
mod signals;
mod sunrise;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Exit status:
  0  success, no findings
  1  findings (scan: invalid labels, blocked labels, variant conflicts or
     contract findings not accepted by --baseline; diff, report: new
     findings)
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
    /// Compare two JSON Lines reports of `scan`: findings new, resolved, changed.
    #[command(after_help = AFTER_HELP)]
    Diff(diff::Args),
    /// A period report as one HTML page: findings new, resolved and changed
    /// between two JSON Lines reports of `scan`.
    #[command(after_help = AFTER_HELP)]
    Report(diff::ReportArgs),
    /// Save an index of registered labels for `check`, or inspect one (`index info FILE`).
    Index(sunrise::IndexArgs),
    /// Check candidate labels (sunrise, pre-launch) against an index or inputs.
    #[command(after_help = CHECK_AFTER_HELP)]
    Check(sunrise::CheckArgs),
    /// Answer checks over HTTP (JSON) against a saved index; SIGHUP reloads it.
    Serve(serve::Args),
}

const CHECK_AFTER_HELP: &str = "\
Statuses: available, registered, variant-blocked, variant-allocatable,
invalid, contention.
Exit status:
  0  every candidate is available
  1  some candidate is not
  2  error (bad arguments, unreadable or damaged index, LGR mismatch)";

/// Parses the command line and runs the command.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // `--help` and `--version` go to standard output: one that
            // cannot be written is an error, as for any command (a reader
            // that stopped reading is not).
            let printed = e.print();
            if let Err(w) = printed.as_ref()
                && w.kind() != std::io::ErrorKind::BrokenPipe
                && !e.use_stderr()
            {
                anyhow::bail!("cannot write standard output: {w}");
            }
            return Ok(ExitCode::from(if e.use_stderr() { 2 } else { 0 }));
        }
    };
    match cli.command {
        Command::Annotate(a) => annotate::run(a),
        Command::Scan(a) => scan::run(a),
        Command::Builtins(a) => builtins::run(a),
        Command::Lgr(c) => lgr_info::run(c),
        Command::Explain(a) => explain::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Report(a) => diff::run_report(a),
        Command::Index(a) => sunrise::run_index(a),
        Command::Check(a) => sunrise::run_check(a),
        Command::Serve(a) => serve::run(a),
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
    /// The zone apex (default: the SOA owner, else the first $ORIGIN); also
    /// the origin of relative names and `@` before a zone file's first
    /// $ORIGIN, as named's zone statement gives it.
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
    /// Exit 2: the report is written to standard output, but not to `-o
    /// FILE`, which is left as it was.
    Fail,
    /// One line on standard error; the exit status is that of the findings.
    Warn,
    /// Nothing more than the summary says.
    Ignore,
}

/// The malformed entries of a read, as `file:line (byte N): reason`, the
/// first `max` of them.
pub fn malformed_lines(labels: &lgrscan::input::LabelSet, max: usize) -> Vec<String> {
    lgrscan::report::scan::malformed_lines(labels, max)
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
    /// Under `--strict`, a CSV row whose `lgr` names no LGR of the set
    /// (`more`, found once the input is read and the set compiled) stops
    /// the run as a malformed line does: an error naming the first, with
    /// no report or index written.
    pub fn strict_outcome(&self, more: &[String]) -> anyhow::Result<()> {
        match more.first() {
            Some(first) if self.strict => {
                anyhow::bail!("{first} (--strict: stopped at the first, no report written)")
            }
            _ => Ok(()),
        }
    }

    /// Applies `--on-malformed` once the report is written: `more` are
    /// malformed entries found after the read (e.g. unknown `lgr` pins).
    /// With any, `fail` is an error (exit 2) and `warn` prints one line;
    /// `--quiet` hides neither.
    pub fn malformed_outcome(
        &self,
        labels: &lgrscan::input::LabelSet,
        more: &[String],
    ) -> anyhow::Result<()> {
        self.strict_outcome(more)?;
        let Some(first) = malformed_lines(labels, 1).pop().or_else(|| more.first().cloned()) else {
            return Ok(());
        };
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let (m, p) = (labels.accounting().malformed, more.len() as u64);
        let what = match (m, p) {
            (_, 0) => format!("{m} malformed line{}", plural(m)),
            (0, _) => format!("{p} row{} with an unknown lgr", plural(p)),
            _ => format!(
                "{m} malformed line{} and {p} row{} with an unknown lgr",
                plural(m),
                plural(p)
            ),
        };
        let what = format!("{what} (first: {first})");
        match self.on_malformed {
            OnMalformed::Fail => {
                anyhow::bail!("{what}; --on-malformed warn or ignore accepts them")
            }
            OnMalformed::Warn => eprintln!("lgrscan: warning: {what}"),
            OnMalformed::Ignore => {}
        }
        Ok(())
    }

    /// Whether [`InputArgs::malformed_outcome`] will be an error.
    pub fn fails_on_malformed(&self, labels: &lgrscan::input::LabelSet, more: &[String]) -> bool {
        self.on_malformed == OnMalformed::Fail
            && labels.accounting().malformed + more.len() as u64 > 0
    }

    /// `--on-malformed` as given (`fail`, `warn` or `ignore`), for the
    /// meta record.
    pub fn on_malformed_name(&self) -> &'static str {
        match self.on_malformed {
            OnMalformed::Fail => "fail",
            OnMalformed::Warn => "warn",
            OnMalformed::Ignore => "ignore",
        }
    }

    /// Whether malformed entries are to be listed on standard error.
    pub fn list_malformed(&self) -> bool {
        self.on_malformed != OnMalformed::Ignore
    }
}

/// How index labels test variant context rules (`annotate --index-mode`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexModeArg {
    /// As ICANN's lgr-core computes them (agrees with its published results).
    #[default]
    Reference,
    /// As the RZ-LGR overview §5.5.4 step 2.c reads: a variant's context
    /// rule is tested on the input label at the variant's own position.
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

/// How `scan` groups labels into variant sets (`scan --index-mode`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScanIndexModeArg {
    /// Labels sharing either index label (reference or rfc7940), each
    /// member confirmed as a variant of the holder in one direction at
    /// least; the others are `near`, not collisions.
    #[default]
    Verified,
    /// Labels sharing lgr-core's index label: ICANN's groups.
    Reference,
    /// Labels sharing the index label of the RZ-LGR overview §5.5.4 reading.
    Rfc7940,
}

impl ScanIndexModeArg {
    /// The variant LGR's index-label mode (the `index` column) and the
    /// grouping.
    pub fn modes(self) -> (lgrscan::lgr::IndexMode, lgrscan::scan::Grouping) {
        use lgrscan::lgr::IndexMode;
        use lgrscan::scan::Grouping;
        match self {
            ScanIndexModeArg::Verified => (IndexMode::Reference, Grouping::Verified),
            ScanIndexModeArg::Reference => (IndexMode::Reference, Grouping::IndexLabel),
            ScanIndexModeArg::Rfc7940 => (IndexMode::Rfc7940, Grouping::IndexLabel),
        }
    }
}

/// `--color`, as ripgrep's.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and NO_COLOR is unset.
    #[default]
    Auto,
    /// Always colour (ANSI escape sequences).
    Always,
    /// Never colour.
    Never,
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

/// The most a file read whole by a command (a candidates file, an
/// `annotate --literal` file) may hold: about 15 million candidates.
pub const WHOLE_FILE_MAX: u64 = 256 << 20;

/// Reads the file at `path` whole, at most [`WHOLE_FILE_MAX`] bytes: a
/// larger or endless one (`/dev/zero`) is an error naming it, not a process
/// that grows until memory runs out.
pub fn read_whole(path: &std::path::Path) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if path == std::path::Path::new("-") {
        std::io::stdin().lock().take(WHOLE_FILE_MAX + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(WHOLE_FILE_MAX + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > WHOLE_FILE_MAX {
        anyhow::bail!(
            "{}: larger than {} MiB, the most this command reads of a file; split it",
            path.display(),
            WHOLE_FILE_MAX >> 20
        );
    }
    Ok(bytes)
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

/// The facts of the inputs at `paths` (size and SHA-256 of each regular
/// file, [`lgrscan::report::meta::InputMeta::of`]), each error naming its
/// path: what `scan`'s meta record and an index's header record.
pub fn input_facts(paths: &[String]) -> anyhow::Result<Vec<lgrscan::report::meta::InputMeta>> {
    use anyhow::Context;
    paths
        .iter()
        .map(|p| lgrscan::report::meta::InputMeta::of(p).with_context(|| p.clone()))
        .collect()
}

/// The files a command reads that an output must not replace: its inputs
/// and LGR files (`-` standing for the file standard input is redirected
/// from, if it is one; not `builtin:` LGRs).
pub fn read_paths<'a>(
    inputs: &'a [String],
    lgrs: &'a [String],
    variants: Option<&'a str>,
) -> Vec<&'a std::path::Path> {
    let named = inputs.iter().chain(lgrs).map(String::as_str).chain(variants);
    let files = named.filter(|n| !n.starts_with("builtin:"));
    files.map(std::path::Path::new).collect()
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
    /// Opens `path`, unless it is one of `spared` (the files the command
    /// reads, its other outputs: see [`lgrscan::report::OutputFile::create_sparing`]);
    /// the error names it.
    pub fn create(
        path: &std::path::Path,
        spared: &[&std::path::Path],
    ) -> anyhow::Result<ReportFile> {
        let (file, protected) = signals::create_protected(path, spared)?;
        Ok(ReportFile { file, protected })
    }

    /// Refuses a path that names one of the files `labels` was read
    /// from: the command line's inputs are refused when the file is
    /// opened, and a zone's `$INCLUDE` files are known only once read.
    pub fn spare_sources(&self, labels: &lgrscan::input::LabelSet) -> anyhow::Result<()> {
        let paths: Vec<&std::path::Path> =
            labels.sources().iter().map(|s| s.path.as_path()).collect();
        Ok(self.file.spare(&paths)?)
    }

    /// Where the report is written.
    pub fn writer(&mut self) -> &mut lgrscan::report::OutputFile {
        &mut self.file
    }

    /// Puts the finished report in place; a signal from then on no longer
    /// ends the run ([`signals::commit`]).
    pub fn commit(self, durability: lgrscan::report::Durability) -> anyhow::Result<()> {
        let ReportFile { file, protected } = self;
        signals::commit(file, durability)?;
        drop(protected);
        Ok(())
    }
}

/// Whether a report for `output` (`-o`, if given) goes to a terminal:
/// standard output (none or `-`) that is one, or a path that names one
/// as the report writer reads it (`/dev/stdout`, `/dev/fd/01`,
/// `/dev/tty`, `/dev/pts/N`: [`lgrscan::report::output::is_terminal`]).
pub fn to_terminal(output: Option<&std::path::Path>) -> bool {
    use std::io::IsTerminal;
    match output {
        None => std::io::stdout().is_terminal(),
        Some(p) => lgrscan::report::output::is_terminal(p),
    }
}

/// Now, as an RFC 3339 UTC date-time.
pub(crate) fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    lgrscan::input::Timestamp::from_unix_seconds(secs).to_string()
}
