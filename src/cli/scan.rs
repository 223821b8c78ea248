//! `lgrscan scan`: the audit of a zone or label list.

use super::progress::Bar;
use anyhow::Context;
use lgrscan::index::{LgrSource, LgrSpec, VariantSource};
use lgrscan::input::{self, Input};
use lgrscan::report::findings::RowContext;
use lgrscan::report::meta::{self, InputMeta, LgrMeta, Meta};
use lgrscan::report::scan::{GroupBy, ReportParts};
use lgrscan::report::{self, Durability, ScanFormat};
use lgrscan::scan::{self, HolderPolicy, LgrSet, ScanConfig};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A summary and the findings, for people.
    Text,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object per finding.
    Jsonl,
    /// One self-contained HTML page (summary, charts, tables): with -o,
    /// or standard output that is not a terminal.
    Html,
}

impl From<Format> for ScanFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Text => ScanFormat::Text,
            Format::Csv => ScanFormat::Csv,
            // The HTML page is rendered from the JSON Lines records.
            Format::Jsonl | Format::Html => ScanFormat::Jsonl,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupByArg {
    /// The `registrar` CSV column.
    Registrar,
    /// The `registrant` CSV column.
    Registrant,
    /// The LGR that gave the disposition.
    Lgr,
    /// The label's Unicode script.
    Script,
    /// The finding's kind.
    Kind,
}

impl From<GroupByArg> for GroupBy {
    fn from(g: GroupByArg) -> Self {
        match g {
            GroupByArg::Registrar => GroupBy::Registrar,
            GroupByArg::Registrant => GroupBy::Registrant,
            GroupByArg::Lgr => GroupBy::Lgr,
            GroupByArg::Script => GroupBy::Script,
            GroupByArg::Kind => GroupBy::Kind,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The first valid member in input order holds a variant set.
    Input,
    /// The valid member with the earliest `registered` date (CSV column)
    /// holds it.
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
    /// A previous JSON Lines report, or an allowlist CSV (`id` or `bundle`,
    /// and `note` columns): the findings in it are reported as accepted
    /// and do not make the exit status 1; allowlist rows that match
    /// nothing are listed as stale.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// With --output: also write the meta and summary records (JSON) to
    /// this file (atomically).
    #[arg(long, requires = "output")]
    meta: Option<PathBuf>,
    /// Count findings by registrar, registrant, lgr, script or kind in the
    /// summary (repeatable, or comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    group_by: Vec<GroupByArg>,
    /// Collect the NS targets of zone input: the `ns` column and the
    /// ns-mismatch check (an activated variant delegated to other name
    /// servers than its holder). Off by default: on a large zone it keeps
    /// every plain label in memory (see README).
    #[arg(long)]
    check_ns: bool,
    /// Colour in the text report: `auto` (when standard output is a
    /// terminal and NO_COLOR is unset), `always` or `never`.
    #[arg(long, value_enum, default_value = "auto")]
    color: super::ColorChoice,
    /// How labels are grouped into variant sets: `verified` (labels
    /// sharing either index label, each confirmed as a variant of the
    /// holder), `reference` (lgr-core's index label, ICANN's groups) or
    /// `rfc7940` (the index label of the RZ-LGR overview's reading).
    #[arg(long, value_enum, default_value = "verified")]
    index_mode: super::ScanIndexModeArg,
}

/// `--output` and `--meta`, opened: neither replaces a file the scan
/// reads, nor the other.
fn open_outputs<'a>(
    args: &'a Args,
) -> anyhow::Result<(Option<super::ReportFile>, Option<super::ReportFile>)> {
    let mut reads = super::read_paths(&args.inputs, &args.lgrs, args.variants.as_deref());
    reads.extend(args.baseline.as_deref());
    // Among the spared paths `-` is standard input; as an output it is
    // standard output.
    let as_output = |p: &'a Path| if p == Path::new("-") { Path::new("/dev/stdout") } else { p };
    let (mut spare_output, mut spare_meta) = (reads.clone(), reads);
    spare_output.extend(args.meta.as_deref().map(as_output));
    spare_meta.extend(args.output.as_deref().map(as_output));
    let output =
        args.output.as_deref().map(|p| super::ReportFile::create(p, &spare_output)).transpose()?;
    let meta =
        args.meta.as_deref().map(|p| super::ReportFile::create(p, &spare_meta)).transpose()?;
    Ok((output, meta))
}

/// The meta record of the run: the LGRs' digests are those of the bytes
/// the set was compiled from (`spec`); the inputs' (`inputs`, computed
/// while the scan ran) are given.
fn meta_record(
    args: &Args,
    spec: &LgrSpec,
    set: &LgrSet,
    started: String,
    inputs: Vec<InputMeta>,
    labels: &input::LabelSet,
) -> anyhow::Result<(Meta, String)> {
    let digests: Vec<String> = spec.judges.iter().map(LgrSource::sha256).collect();
    let lgrs = set.judges().iter().zip(&digests).map(|(l, d)| LgrMeta::of(l, d.clone())).collect();
    let vdigest = match &spec.variants {
        VariantSource::Lgr(l) => l.sha256(),
        VariantSource::Same => digests.first().cloned().unwrap_or_default(),
        VariantSource::Merged => {
            let order =
                lgrscan::lgr::merge_order(&set.judges().iter().map(|l| &**l).collect::<Vec<_>>());
            meta::merged_digest(&order.into_iter().map(|i| digests[i].clone()).collect::<Vec<_>>())
        }
    };
    let mut options = serde_json::Map::new();
    let holder = match args.holder {
        Holder::Input => "input",
        Holder::Registered => "registered",
    };
    options.insert("holder".into(), holder.into());
    options.insert("check_ns".into(), args.check_ns.into());
    // What same-entity findings were compared on: a later report whose
    // input lost a column would read them all as resolved (`diff`).
    options.insert("entity_columns".into(), labels.entity_columns().into());
    options.insert("on_malformed".into(), args.input.on_malformed_name().into());
    options
        .insert("baseline".into(), args.baseline.as_ref().map(|b| b.display().to_string()).into());
    options.insert(
        "group_by".into(),
        args.group_by.iter().map(|g| GroupBy::from(*g).as_str()).collect::<Vec<_>>().into(),
    );
    let m = Meta {
        version: env!("CARGO_PKG_VERSION").to_string(),
        started,
        inputs,
        lgrs,
        variants: LgrMeta::of(set.variants(), vdigest.clone()),
        index_mode: report::scan::index_mode(set).to_string(),
        options,
    };
    Ok((m, vdigest))
}

/// Writes the report (to `-o` or standard output) and the `--meta` file.
fn write_outputs(
    args: &Args,
    format: Format,
    pool: &rayon::ThreadPool,
    (output, meta_file): (Option<super::ReportFile>, Option<super::ReportFile>),
    parts: &ReportParts<'_>,
    meta_doc: &serde_json::Value,
) -> anyhow::Result<()> {
    let durability = if args.sync { Durability::Sync } else { Durability::Rename };
    let write = |w: &mut (dyn Write + Send)| {
        if format != Format::Html {
            return pool.install(|| report::scan::write(w, format.into(), parts));
        }
        // The page shows the records `--format jsonl` writes: they are
        // written to memory and read back, so its counts are theirs.
        let mut jsonl = Vec::new();
        pool.install(|| report::scan::write(&mut jsonl, ScanFormat::Jsonl, parts))?;
        let text = String::from_utf8(jsonl).map_err(std::io::Error::other)?;
        let records = report::jsonl::JsonlReport::parse(&text, "report")?;
        drop(text);
        w.write_all(report::html::render_scan(&records).as_bytes())
    };
    match output {
        Some(mut file) => {
            write(file.writer())?;
            file.commit(durability)?;
        }
        None => super::output_done((|| {
            // Not the locked handle: the report is written from the pool.
            let mut out = std::io::BufWriter::new(std::io::stdout());
            write(&mut out)?;
            out.flush()?;
            anyhow::Ok(())
        })())?,
    }
    if let Some(mut file) = meta_file {
        serde_json::to_writer_pretty(&mut *file.writer(), meta_doc)?;
        file.writer().write_all(b"\n")?;
        file.commit(durability)?;
    }
    Ok(())
}

/// The facts of the inputs at `paths` ([`InputMeta::of`]), computed as a
/// job of `pool` given before any other: one of its threads digests while
/// the others read, and joins them when it is done. On a thread of its own
/// beside the pool's, three threads shared two cores and the digest, the
/// longest single piece of work, finished last: a JSON Lines scan of the
/// 10M-name W1 zone took 0.86-1.04 s at 2 threads and 0.75-0.77 s at 1
/// (the digest alone is about 0.55 s). Called from outside the pool, whose
/// threads take its jobs in the order given; the answer is waited for
/// outside it too (a thread of the pool waiting for it would wait forever
/// on a pool of one).
fn digest_on(
    pool: &rayon::ThreadPool,
    paths: Vec<String>,
) -> std::sync::mpsc::Receiver<anyhow::Result<Vec<InputMeta>>> {
    let (tx, rx) = std::sync::mpsc::channel();
    pool.spawn(move || {
        // A panic in a job of the pool would end the process: it is an
        // error of the run instead.
        let facts = std::panic::catch_unwind(|| super::input_facts(&paths));
        let _ = tx.send(
            facts.unwrap_or_else(|_| Err(anyhow::anyhow!("computing the inputs' digests failed"))),
        );
    });
    rx
}

/// Refuses options the input cannot serve, which would otherwise be
/// dropped unsaid: `--check-ns` on a list or CSV (no NS records), and
/// `--holder registered` on an input with no registration date.
fn options_fit_input(args: &Args, labels: &input::LabelSet) -> anyhow::Result<()> {
    if args.check_ns
        && let Some(s) = labels.sources().iter().find(|s| s.format != input::InputFormat::Zone)
    {
        // Its labels would read as delegated to no name server: a report
        // compared with one of the zone would call every `ns-mismatch`
        // finding resolved.
        anyhow::bail!(
            "--check-ns reads the NS records of zone input: {} was read as a {}, which has none \
             (drop --check-ns, or scan the zone file)",
            s.path.display(),
            if s.format == input::InputFormat::Csv { "CSV file" } else { "label list" }
        );
    }
    if args.holder == Holder::Registered
        && !labels.iter().any(|l| l.csv().is_some_and(|c| c.registered.is_some()))
    {
        // Every set's holder would be its first valid member in input
        // order, as without the option, unsaid.
        let others = labels.csv_columns().join(", ");
        let others =
            if others.is_empty() { String::new() } else { format!(" (its columns: {others})") };
        anyhow::bail!(
            "--holder registered: no label of the input has a registration date, in a CSV \
             `registered` column{others}; drop it to let input order decide"
        );
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let started = super::now_rfc3339();
    let stderr_tty = std::io::stderr().is_terminal();
    let stdout_tty = std::io::stdout().is_terminal();
    let format = args.format.unwrap_or(if args.output.is_none() && stdout_tty {
        Format::Text
    } else {
        Format::Csv
    });
    if format == Format::Html && super::to_terminal(args.output.as_deref()) {
        anyhow::bail!(
            "--format html writes a whole HTML page: give -o FILE (or redirect standard output)"
        );
    }
    // The LGR files are read before the input (one that cannot be read is
    // an error at once), and once: the set is compiled from these bytes
    // beside the input read, and the meta record's digests are theirs.
    let spec = LgrSpec::from_flags(&args.lgrs, args.variants.as_deref(), args.index_mode.into())?;
    let baseline = args
        .baseline
        .as_deref()
        .map(report::baseline::Baseline::read)
        .transpose()
        .context("reading the baseline")?;
    // The output files are opened before the input is read: a path that
    // cannot be written is an error at once, not after the scan.
    let (mut output, mut meta_file) = open_outputs(&args)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    // The inputs' sizes and digests are computed beside the scan (reading
    // each file once more) when a meta record is written.
    let want_meta = matches!(format, Format::Jsonl | Format::Html) || args.meta.is_some();
    let input_meta = want_meta.then(|| digest_on(&pool, args.inputs.clone()));
    let bar = Bar::new(!args.quiet && stderr_tty);
    // Plain labels the scan would only count are counted as they are
    // read, under the rule of the LGR set once it is known; the keys of
    // the IDN labels the reader tells ahead are computed on a thread of
    // their own, which waits for the reader (see `scan::settle_for`).
    let settling = input::Settling::new();
    let config = args
        .input
        .config()?
        .ns_targets(if args.check_ns { input::NsTargets::Collect } else { input::NsTargets::Skip })
        .progress(bar.reading(&args.inputs))
        .settle(Some(std::sync::Arc::clone(&settling)));
    let read_start = std::time::Instant::now();
    let (set, labels) = std::thread::scope(|s| {
        // Off the pool: the set compiles while the pool's threads read
        // (compiling takes no thread of the pool's).
        let stage = s.spawn(|| {
            let set = spec.compile()?;
            scan::settle_for(&set, &settling);
            anyhow::Ok(set)
        });
        // Inside the pool: the reader converts IDN labels on rayon's
        // current pool, so --threads bounds the whole run.
        let labels =
            pool.install(|| input::read(args.inputs.iter().map(|a| Input::from_arg(a)), &config));
        let set = stage.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (set, labels)
    });
    let set = set?;
    let labels = labels.context("reading input")?;
    options_fit_input(&args, &labels)?;
    for file in output.iter().chain(&meta_file) {
        file.spare_sources(&labels)?;
    }
    let read_time = read_start.elapsed();
    let scan_config = ScanConfig {
        holder: match args.holder {
            Holder::Input => HolderPolicy::Input,
            Holder::Registered => HolderPolicy::Registered,
        },
    };
    let report = pool.install(|| scan::scan(&labels, &set, &scan_config, &bar));
    bar.finish();

    let inputs = match input_meta {
        Some(digests) => {
            let mut named = digests
                .recv()
                .map_err(|_| anyhow::anyhow!("computing the inputs' digests failed"))??;
            named.extend(InputMeta::of_included(&labels)?);
            named
        }
        None => Vec::new(),
    };
    let (meta, identity) = meta_record(&args, &spec, &set, started, inputs, &labels)?;
    if let (Some(b), Some(path)) = (&baseline, &args.baseline) {
        for why in b.mismatches(labels.apex(), Some(&meta.variants.sha256)) {
            eprintln!(
                "lgrscan: warning: the baseline {}: {why}, so none of its findings can match",
                path.display()
            );
        }
    }
    let rows = RowContext::new(&labels, &identity);
    let (status, stale) = match &baseline {
        Some(b) => b.apply(&rows, &report),
        None => (Vec::new(), Vec::new()),
    };
    let rows = rows.with_status(&status);
    let group_by: Vec<GroupBy> = args.group_by.iter().map(|g| (*g).into()).collect();
    let totals = report::scan::totals(&rows, &report, &group_by, stale);
    let bad_pins = report::scan::unknown_pins(&labels, &set);
    args.input.strict_outcome(&bad_pins)?;
    let summary = report::scan::summary(&labels, &set, &report, &totals, &bad_pins);
    let summary_record = report::scan::summary_record(&labels, &set, &report, &totals, &bad_pins);
    let color = match args.color {
        super::ColorChoice::Always => true,
        super::ColorChoice::Never => false,
        super::ColorChoice::Auto => {
            args.output.is_none() && stdout_tty && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let parts = ReportParts {
        report: &report,
        rows,
        summary: &summary,
        meta: Some(meta.to_json()),
        summary_record: Some(summary_record.clone()),
        color,
    };
    let meta_doc = serde_json::json!({"meta": meta.to_json(), "summary": summary_record});
    // A run that fails on malformed lines (`--on-malformed fail`) leaves
    // `-o FILE` and `--meta FILE` as they were: its report would replace
    // a good one, and `diff` refuses it. On standard output it is written.
    let kept = args.output.as_ref().filter(|_| args.input.fails_on_malformed(&labels, &bad_pins));
    if kept.is_none() {
        write_outputs(&args, format, &pool, (output.take(), meta_file.take()), &parts, &meta_doc)?;
    }
    // The summary is shown once: a text or JSON Lines report written to
    // standard output holds it, and it goes to standard error as well only
    // for a person watching a terminal while standard output goes
    // elsewhere.
    let summary_in_stdout = args.output.is_none() && matches!(format, Format::Text | Format::Jsonl);
    let summary_on_stderr = !summary_in_stdout || (stderr_tty && !stdout_tty);
    if !args.quiet {
        if summary_on_stderr {
            eprint!("{summary}");
        }
        eprint!("{}", report::scan::timing(&report, read_time));
    }
    if let Some(path) = kept {
        eprintln!("lgrscan: {} not written (left as it was)", path.display());
    }
    args.input.malformed_outcome(&labels, &bad_pins)?;
    let code = std::process::ExitCode::from(if totals.open > 0 { 1 } else { 0 });
    // The process ends here: freeing millions of small allocations one by
    // one takes longer than the system reclaiming the whole address space.
    // So do the LGRs (large ones hold tens of thousands of elements and
    // automata).
    std::mem::forget(parts);
    std::mem::forget(status);
    std::mem::forget(labels);
    std::mem::forget(report);
    std::mem::forget(set);
    Ok(code)
}
