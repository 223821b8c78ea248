//! `lgrscan scan`: the audit of a zone or label list.

use super::progress::Bar;
use anyhow::Context;
use lgrscan::builtin;
use lgrscan::input::{self, Input, LabelSet};
use lgrscan::lgr::{IndexMode, Lgr};
use lgrscan::scan::{self, Finding, HolderPolicy, LgrSet, Report, ScanConfig, ScanSettler};
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Report rows formatted by one parallel task.
const ROWS_PER_TASK: usize = 2048;

const FIELDS: &[&str] = &[
    "kind",
    "source",
    "line",
    "input",
    "ulabel",
    "alabel",
    "lgr",
    "disposition",
    "reason",
    "index",
    "group",
    "role",
    "holder",
];

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A summary and the findings, for people.
    Text,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object per finding.
    Jsonl,
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
    /// Write the findings here (atomically: a failed run leaves no file).
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
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bar and no summary on standard error.
    #[arg(long, short)]
    quiet: bool,
    /// Who holds a variant set.
    #[arg(long, value_enum, default_value = "input")]
    holder: Holder,
    #[command(flatten)]
    input: super::InputArgs,
    /// How index labels test variant context rules: `reference` (as ICANN's
    /// lgr-core, the default) or `rfc7940` (at the variant's own position;
    /// finds collisions the reference misses).
    #[arg(long, value_enum, default_value = "reference")]
    index_mode: super::IndexModeArg,
}

fn load(spec: &str, mode: IndexMode) -> anyhow::Result<Arc<Lgr>> {
    let lgr = builtin::load_spec(spec).with_context(|| format!("loading LGR {spec}"))?;
    Ok(Arc::new(lgr.with_index_mode(mode)))
}

/// Builds the LGR set from the flags.
pub fn lgr_set(lgrs: &[String], variants: Option<&str>, mode: IndexMode) -> anyhow::Result<LgrSet> {
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
    LgrSet::new(judges, variants).map_err(anyhow::Error::msg)
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
        if !spec.starts_with("builtin:") {
            std::fs::metadata(spec).with_context(|| format!("{spec}: cannot read the LGR"))?;
        }
    }
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
                let set = lgr_set(&args.lgrs, args.variants.as_deref(), args.index_mode.into())?;
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

    let bad_pins = unknown_pins(&labels, &set);
    let summary = summary_text(&labels, &set, &report, read_time, &bad_pins);
    match &args.output {
        Some(path) => write_atomic(path, args.sync, |w| {
            write_report(w, format, &labels, &report, &summary, &pool)
        })?,
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            write_report(&mut out, format, &labels, &report, &summary, &pool)?;
            out.flush()?;
        }
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

/// CSV rows whose `lgr` column names no LGR of the set, as malformed
/// entries (`file:line: reason`): the row's label is judged invalid, and
/// the row counts as malformed for `--on-malformed`.
fn unknown_pins(labels: &LabelSet, set: &LgrSet) -> Vec<String> {
    labels
        .iter()
        .filter_map(|l| {
            let pin = l.csv()?.lgr.as_deref()?.trim();
            (!pin.is_empty() && set.find(pin).is_none()).then(|| {
                format!(
                    "{}:{}: the lgr column names '{pin}', which is not in the LGR set",
                    l.source_path().display(),
                    l.line()
                )
            })
        })
        .collect()
}

/// Writes `path` through a temporary file in its directory, renamed over
/// it once complete (and flushed to disk first with `sync`): a failed run
/// leaves no partial report and keeps the file that was there.
fn write_atomic(
    path: &Path,
    sync: bool,
    f: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().context("--output needs a file name")?;
    let tmp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let file =
            std::fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = std::io::BufWriter::new(file);
        f(&mut w)?;
        w.flush()?;
        if sync {
            w.get_ref().sync_all()?;
        }
        Ok::<(), anyhow::Error>(())
    })();
    match result {
        Ok(()) => {
            std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The report fields of a finding, borrowed where the label set or the
/// finding holds them (a report may have millions of rows).
fn fields<'a>(labels: &'a LabelSet, f: &'a Finding) -> [Cow<'a, str>; 13] {
    let l = labels.get(f.label).expect("finding refers to a label");
    let holder = f.holder.and_then(|h| labels.get(h)).map(|h| h.alabel()).unwrap_or_default();
    [
        Cow::Borrowed(f.kind.as_str()),
        l.source_path().to_string_lossy(),
        Cow::Owned(l.line().to_string()),
        l.original_text(),
        Cow::Borrowed(l.ulabel()),
        Cow::Borrowed(l.alabel()),
        Cow::Borrowed(&f.lgr),
        Cow::Borrowed(&f.disposition),
        Cow::Borrowed(&f.reason),
        Cow::Borrowed(&f.index),
        f.group.map_or(Cow::Borrowed(""), |g| Cow::Owned(g.to_string())),
        Cow::Borrowed(f.role.map_or("", |r| r.as_str())),
        Cow::Borrowed(holder),
    ]
}

fn write_report(
    w: &mut dyn Write,
    format: Format,
    labels: &LabelSet,
    report: &Report,
    summary: &str,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<()> {
    use rayon::prelude::*;
    match format {
        Format::Csv | Format::Jsonl => {
            let rf = if format == Format::Csv {
                super::RecordFormat::Csv
            } else {
                super::RecordFormat::Jsonl
            };
            super::RecordWriter::new(&mut *w, rf, FIELDS)?.finish()?;
            // Rows are formatted in parallel, a batch at a time, and written
            // in order: the same bytes as one writer would write.
            for batch in report.findings.chunks(ROWS_PER_TASK * 64) {
                let parts: Vec<anyhow::Result<Vec<u8>>> = pool.install(|| {
                    batch
                        .par_chunks(ROWS_PER_TASK)
                        .map(|part| {
                            let mut buf = Vec::new();
                            let mut rw = super::RecordWriter::continuing(&mut buf, rf, FIELDS);
                            for f in part {
                                let v = fields(labels, f);
                                rw.write(&v.each_ref().map(|c| &**c))?;
                            }
                            rw.finish()?;
                            Ok(buf)
                        })
                        .collect()
                });
                for p in parts {
                    w.write_all(&p?)?;
                }
            }
            Ok(())
        }
        Format::Text => write_text(w, labels, report, summary),
    }
}

fn write_text(
    w: &mut dyn Write,
    labels: &LabelSet,
    report: &Report,
    summary: &str,
) -> anyhow::Result<()> {
    write!(w, "{summary}")?;
    let mut groups: Vec<(u32, Vec<&Finding>)> = Vec::new();
    for f in report.findings.iter().filter(|f| f.group.is_some()) {
        let g = f.group.expect("filtered");
        match groups.last_mut() {
            Some((n, v)) if *n == g => v.push(f),
            _ => groups.push((g, vec![f])),
        }
    }
    groups.sort_by_key(|(n, v)| (std::cmp::Reverse(v.len()), *n));
    if !groups.is_empty() {
        writeln!(w, "\nVariant sets with conflicts ({}), largest first:", groups.len())?;
    }
    for (n, members) in &groups {
        writeln!(w, "\ngroup {n}: index label {}", members[0].index)?;
        for f in members {
            let l = labels.get(f.label).expect("label");
            writeln!(
                w,
                "  {:<11} {}  {}  ({}:{})\n              {}: {}",
                f.role.map_or("", |r| r.as_str()),
                l.ulabel(),
                l.alabel(),
                l.source_path().display(),
                l.line(),
                f.disposition,
                f.reason
            )?;
        }
    }
    let invalid: Vec<&Finding> = report.findings.iter().filter(|f| f.group.is_none()).collect();
    if !invalid.is_empty() {
        writeln!(w, "\nInvalid labels ({}):", invalid.len())?;
        for f in invalid {
            let l = labels.get(f.label).expect("label");
            writeln!(
                w,
                "  {}  {}  ({}:{})  {}: {}",
                l.ulabel(),
                l.alabel(),
                l.source_path().display(),
                l.line(),
                f.lgr,
                f.reason
            )?;
        }
    }
    Ok(())
}

fn summary_text(
    labels: &LabelSet,
    set: &LgrSet,
    report: &Report,
    read: std::time::Duration,
    bad_pins: &[String],
) -> String {
    use std::fmt::Write as _;
    let a = labels.accounting();
    let s = &report.summary;
    let mut t = String::new();
    let _ = writeln!(t, "lgrscan scan summary");
    let _ = writeln!(
        t,
        "  input: {} bytes, {} lines ({} records, {} blank, {} comments, {} directives, {} continuation, {} malformed)",
        a.bytes,
        a.lines,
        a.record_lines,
        a.blank_lines,
        a.comment_lines,
        a.directive_lines,
        a.continuation_lines,
        a.malformed
    );
    let _ = writeln!(
        t,
        "  records: {} = {} at the apex + {} registered labels + {} duplicate records folded + {} below depth + {} outside the apex",
        a.records,
        a.apex_records,
        a.registered_labels,
        a.duplicate_records,
        a.deeper_records,
        a.outside_records
    );
    if let Some(apex) = labels.apex() {
        let _ = writeln!(t, "  apex: {apex}");
    }
    for m in super::malformed_lines(labels, 20).iter().chain(bad_pins.iter().take(20)) {
        let _ = writeln!(t, "  malformed: {m}");
    }
    if a.malformed > 20 {
        let _ = writeln!(t, "  … {} more malformed lines", a.malformed - 20);
    }
    if bad_pins.len() > 20 {
        let _ = writeln!(t, "  … {} more rows with an unknown lgr", bad_pins.len() - 20);
    }
    let _ = writeln!(t, "  labels judged: {} ({} IDN)", s.labels, s.idn_labels);
    for (name, n) in &s.per_lgr {
        let _ = writeln!(t, "    {name}: {n}");
    }
    let scripts: Vec<String> = s.per_script.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(t, "  scripts: {}", scripts.join(", "));
    let _ = writeln!(t, "  invalid: {}", s.invalid);
    for (fam, n) in &s.invalid_by_family {
        let _ = writeln!(t, "    {n:>8}  {fam}");
    }
    let _ = writeln!(
        t,
        "  variant LGR: {}; groups sharing an index label: {}; with conflicts: {} ({} conflicting labels, {} allocated to the holder's registrant)",
        set.variants().name(),
        s.groups,
        s.conflict_groups,
        s.conflicts,
        s.allocated
    );
    let secs = s.elapsed.as_secs_f64();
    let r = read.as_secs_f64();
    let _ = writeln!(
        t,
        "  time: reading {r:.3} s, judging and grouping {secs:.3} s ({:.0} labels/s overall)",
        s.labels as f64 / (secs + r).max(1e-9)
    );
    t
}
