//! `lgrscan scan`: the audit of a zone or label list.

use super::progress::Bar;
use anyhow::Context;
use lgrscan::builtin;
use lgrscan::input::{self, Input};
use lgrscan::lgr::{IndexMode, Lgr};
use lgrscan::report::{self, Durability, ScanFormat};
use lgrscan::scan::{self, HolderPolicy, LgrSet, ScanConfig, ScanSettler};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A summary and the findings, for people.
    Text,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object per finding.
    Jsonl,
}

impl From<Format> for ScanFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Text => ScanFormat::Text,
            Format::Csv => ScanFormat::Csv,
            Format::Jsonl => ScanFormat::Jsonl,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The first member in input order holds a variant set.
    Input,
    /// The earliest `registered` date (CSV column) holds it.
    Registered,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Zone files (RFC 1035 master format, CZDS dumps, .gz), label lists or
    /// CSV files; `-` reads standard input.
    #[arg(required = true)]
    inputs: Vec<String>,
    /// An LGR of the zone's set, in order (repeatable): an RFC 7940 file, an
    /// RFC 3743 table or builtin:NAME. Default: the built-in set
    /// (ascii, devanagari, khmer, kashmiri).
    #[arg(long = "lgr")]
    lgrs: Vec<String>,
    /// The LGR whose variant relation defines collisions across the set.
    /// Default: builtin:common with the built-in set; with one LGR, that
    /// LGR; with several, their merge.
    #[arg(long)]
    variants: Option<String>,
    /// Write the findings here (atomically: a failed or interrupted run
    /// leaves the file as it was; a device or FIFO is written in place, a
    /// symbolic link is followed; see README).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// With --output: flush the report to disk (fsync) before it replaces
    /// the file, so that it also survives a crash of the machine (a failed
    /// run leaves no partial report either way).
    #[arg(long, requires = "output")]
    sync: bool,
    /// Output format (default: text on a terminal, csv otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Worker threads, at most 1024 (default or 0: one per core).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    /// No progress bar and no summary on standard error.
    #[arg(long, short)]
    quiet: bool,
    /// Who holds a variant set.
    #[arg(long, value_enum, default_value = "input")]
    holder: Holder,
    #[command(flatten)]
    input: super::InputArgs,
    /// How labels are grouped into variant sets: `verified` (labels
    /// sharing either index label, each confirmed as a variant of the
    /// holder), `reference` (lgr-core's index label, ICANN's groups) or
    /// `rfc7940` (the index label of the RZ-LGR overview's reading).
    #[arg(long, value_enum, default_value = "verified")]
    index_mode: super::ScanIndexModeArg,
}

fn load(spec: &str, mode: IndexMode) -> anyhow::Result<Arc<Lgr>> {
    Ok(Arc::new(super::load_lgr(spec)?.with_index_mode(mode)))
}

/// Builds the LGR set from the flags.
pub fn lgr_set(
    lgrs: &[String],
    variants: Option<&str>,
    mode: super::ScanIndexModeArg,
) -> anyhow::Result<LgrSet> {
    let (mode, grouping) = mode.modes();
    let default = lgrs.is_empty();
    let specs: Vec<String> = if default {
        builtin::DEFAULT_SET.iter().map(|n| format!("builtin:{n}")).collect()
    } else {
        lgrs.to_vec()
    };
    let judges = specs.iter().map(|s| load(s, mode)).collect::<anyhow::Result<Vec<_>>>()?;
    let variants = match variants {
        Some(v) => Some(load(v, mode)?),
        None if default => Some(load(&format!("builtin:{}", builtin::DEFAULT_VARIANTS), mode)?),
        None if judges.len() == 1 => None,
        None => {
            let refs: Vec<&Lgr> = judges.iter().map(|l| &**l).collect();
            Some(Arc::new(
                lgrscan::lgr::merge(&refs).context("merging the LGR set")?.with_index_mode(mode),
            ))
        }
    };
    Ok(LgrSet::new(judges, variants).map_err(anyhow::Error::msg)?.with_grouping(grouping))
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let stderr_tty = std::io::stderr().is_terminal();
    let format =
        args.format.unwrap_or(if args.output.is_none() && std::io::stdout().is_terminal() {
            Format::Text
        } else {
            Format::Csv
        });
    // LGR files that cannot be opened are reported before the input is
    // read; the LGRs are then parsed while the input is read.
    for spec in args.lgrs.iter().chain(&args.variants) {
        if !spec.starts_with("builtin:")
            && let Err(e) = std::fs::metadata(spec)
        {
            let hint = builtin::suggestion(spec).map(|s| format!("; {s}")).unwrap_or_default();
            anyhow::bail!("LGR {spec}: cannot read: {e}{hint}");
        }
    }
    // The output file is opened before the input is read: a path that
    // cannot be written is an error at once, not after the scan.
    let mut output = args.output.as_deref().map(super::ReportFile::create).transpose()?;
    let bar = Bar::new(!args.quiet && stderr_tty);
    // Plain labels the scan would only count are counted as they are
    // read, once the LGR set is known (see `ScanSettler`).
    let settler = ScanSettler::new();
    let config =
        args.input.config()?.progress(bar.reading(&args.inputs)).settle(Some(settler.settler()));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let read_start = std::time::Instant::now();
    // Inside the pool: the reader converts IDN labels on rayon's current
    // pool, so --threads bounds the whole run.
    let (set, labels) = pool.install(|| {
        rayon::join(
            || {
                let set = lgr_set(&args.lgrs, args.variants.as_deref(), args.index_mode)?;
                settler.provide(&set);
                anyhow::Ok(set)
            },
            || input::read(args.inputs.iter().map(|a| Input::from_arg(a)), &config),
        )
    });
    let set = set?;
    let labels = labels.context("reading input")?;
    let read_time = read_start.elapsed();
    let scan_config = ScanConfig {
        holder: match args.holder {
            Holder::Input => HolderPolicy::Input,
            Holder::Registered => HolderPolicy::Registered,
        },
    };
    let report = pool.install(|| scan::scan(&labels, &set, &scan_config, &bar));
    bar.finish();

    let bad_pins = report::scan::unknown_pins(&labels, &set);
    let summary = report::scan::summary(&labels, &set, &report, read_time, &bad_pins);
    let write = |w: &mut (dyn Write + Send)| {
        pool.install(|| report::scan::write(w, format.into(), &labels, &report, &summary))
    };
    match output.take() {
        Some(mut file) => {
            write(file.writer())?;
            file.commit(if args.sync { Durability::Sync } else { Durability::Rename })?;
        }
        None => super::output_done((|| {
            // Not the locked handle: the report is written from the pool.
            let mut out = std::io::BufWriter::new(std::io::stdout());
            write(&mut out)?;
            out.flush()?;
            anyhow::Ok(())
        })())?,
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let summary_in_output = to_terminal && format == Format::Text;
    if !args.quiet && !summary_in_output {
        eprint!("{summary}");
    }
    args.input.malformed_outcome(&labels, &bad_pins)?;
    let code = std::process::ExitCode::from(if report.has_findings() { 1 } else { 0 });
    // The process ends here: freeing millions of small allocations one by
    // one takes longer than the system reclaiming the whole address space.
    // So do the LGRs (large ones hold tens of thousands of elements and
    // automata; the settler's copy of the set shares them).
    std::mem::forget(labels);
    std::mem::forget(report);
    std::mem::forget(set);
    Ok(code)
}
