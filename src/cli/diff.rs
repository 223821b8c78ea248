//! `lgrscan diff OLD.jsonl NEW.jsonl`: findings new, resolved and changed
//! between two JSON Lines reports of `scan`; `lgrscan report OLD.jsonl
//! NEW.jsonl`: the same as an HTML page.

use lgrscan::report::Durability;
use lgrscan::report::diff::{self, Change, DiffFormat, JsonlReport};
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
    warn_ns(&d);
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
    warn_ns(&d);
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

/// Says so when the two reports' name servers are not compared
/// ([`diff::Diff::ns_compared`]).
fn warn_ns(d: &diff::Diff) {
    if !d.ns_compared {
        eprintln!(
            "lgrscan: warning: one report was scanned with --check-ns and the other without: \
             name servers and ns-mismatch findings are not compared"
        );
    }
}

/// The two reports compared; a report whose run accepted dropped lines
/// (`--on-malformed warn`) is read with a warning, as its findings on them
/// are missing.
fn read_pair(
    old: &std::path::Path,
    new: &std::path::Path,
) -> anyhow::Result<(JsonlReport, JsonlReport)> {
    let pair = (JsonlReport::read(old)?, JsonlReport::read(new)?);
    // Ids hash the label, its index label and the variant LGR's identity
    // (`report::findings::finding_id`): across zones or variant LGRs
    // findings cannot match.
    if let (Some(a), Some(b)) = (pair.0.apex(), pair.1.apex())
        && a != b
    {
        eprintln!(
            "lgrscan: warning: the reports audit different zones ({a} and {b}): their findings \
             cannot match"
        );
    }
    if let (Some(a), Some(b)) = (pair.0.variant_digest(), pair.1.variant_digest())
        && a != b
    {
        eprintln!(
            "lgrscan: warning: the reports were scanned with different variant LGRs: finding \
             ids include the variant LGR, so every finding reads as new or resolved"
        );
    }
    for (path, r) in [(old, &pair.0), (new, &pair.1)] {
        let n = r.dropped_lines();
        if n > 0 {
            eprintln!(
                "lgrscan: warning: {}: its scan accepted {n} malformed line{} (--on-malformed): \
                 the findings on them are missing",
                path.display(),
                if n == 1 { "" } else { "s" }
            );
        }
    }
    Ok(pair)
}
