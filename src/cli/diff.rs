//! `lgrscan diff OLD.jsonl NEW.jsonl`: findings new, resolved and changed
//! between two JSON Lines reports of `scan`; `lgrscan report OLD.jsonl
//! NEW.jsonl`: the same as an HTML page.

use lgrscan::report::Durability;
use lgrscan::report::diff::{self, Change, DiffFormat};
use lgrscan::report::jsonl::JsonlReport;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Counts, the two meta records side by side, and the findings.
    Text,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// A diff-meta record, one JSON object per finding, a diff-summary.
    Jsonl,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The earlier report (`scan --format jsonl`).
    old: PathBuf,
    /// The later report.
    new: PathBuf,
    /// Output format (default: text on a terminal, csv otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the diff here (atomically, as `scan -o`).
    #[arg(long, short)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let format =
        args.format.unwrap_or(if args.output.is_none() && std::io::stdout().is_terminal() {
            Format::Text
        } else {
            Format::Csv
        });
    let format = match format {
        Format::Text => DiffFormat::Text,
        Format::Csv => DiffFormat::Csv,
        Format::Jsonl => DiffFormat::Jsonl,
    };
    let reads = [args.old.as_path(), args.new.as_path()];
    let mut output =
        args.output.as_deref().map(|p| super::ReportFile::create(p, &reads)).transpose()?;
    let (old, new) = read_pair(&args.old, &args.new)?;
    let d = diff::diff(old, new);
    warn(&d);
    match output.take() {
        Some(mut file) => {
            diff::write(file.writer(), format, &d)?;
            file.commit(Durability::Rename)?;
        }
        None => super::output_done((|| {
            let mut out = super::stdout();
            diff::write(&mut out, format, &d)?;
            out.flush()?;
            anyhow::Ok(())
        })())?,
    }
    Ok(std::process::ExitCode::from(if d.count(Change::New) > 0 { 1 } else { 0 }))
}

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The earlier report (`scan --format jsonl`).
    old: PathBuf,
    /// The later report.
    new: PathBuf,
    /// Write the HTML page here (atomically, as `scan -o`); without it,
    /// standard output, which must not be a terminal.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

pub fn run_report(args: ReportArgs) -> anyhow::Result<std::process::ExitCode> {
    if super::to_terminal(args.output.as_deref()) {
        anyhow::bail!(
            "report writes a whole HTML page: give -o FILE (or redirect standard output)"
        );
    }
    let reads = [args.old.as_path(), args.new.as_path()];
    let mut output =
        args.output.as_deref().map(|p| super::ReportFile::create(p, &reads)).transpose()?;
    let (old, new) = read_pair(&args.old, &args.new)?;
    let d = diff::diff(old, new);
    warn(&d);
    let page = lgrscan::report::html::render_period(&d);
    match output.take() {
        Some(mut file) => {
            file.writer().write_all(page.as_bytes())?;
            file.commit(Durability::Rename)?;
        }
        None => super::output_done((|| {
            let mut out = super::stdout();
            out.write_all(page.as_bytes())?;
            out.flush()?;
            anyhow::Ok(())
        })())?,
    }
    Ok(std::process::ExitCode::from(if d.count(Change::New) > 0 { 1 } else { 0 }))
}

/// Prints the diff's warnings ([`diff::Diff::warnings`]) on standard
/// error.
fn warn(d: &diff::Diff) {
    for w in &d.warnings {
        eprintln!("lgrscan: warning: {w}");
    }
}

/// The two reports compared.
fn read_pair(
    old: &std::path::Path,
    new: &std::path::Path,
) -> anyhow::Result<(JsonlReport, JsonlReport)> {
    Ok((JsonlReport::read(old)?, JsonlReport::read(new)?))
}
