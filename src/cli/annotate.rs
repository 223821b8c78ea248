//! `lgrscan annotate`: one record per input label, judged by one LGR.

use super::RecordFormat;
use anyhow::Context;
use lgrscan::input::{self, Input, InputFormat};
use lgrscan::lgr::{Label, Lgr};
use lgrscan::report::{Durability, FieldType, RecordWriter};
use rayon::prelude::*;

const FIELDS: &[&str] =
    &["source", "line", "input", "ulabel", "alabel", "lgr", "disposition", "reason", "index"];

/// How each of [`FIELDS`] is written in JSON Lines: as `scan` types the
/// same columns of its rows (`line` a number, an absent index `null`).
const TYPES: &[FieldType] = {
    use FieldType::{Number, Optional, Text};
    &[Text, Number, Text, Text, Text, Text, Optional, Text, Optional]
};

/// The `lgr` of a label that fails IDNA2008: those checks judged it, not
/// the LGR (as `scan`, `check` and `explain` name them).
const IDNA: &str = "IDNA2008";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The LGR: an RFC 7940 XML file, an RFC 3743 table, or builtin:NAME.
    #[arg(long)]
    lgr: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "tsv")]
    format: RecordFormat,
    /// Take each line as its code points exactly: no A-label decoding, no
    /// case folding, no normalisation, no IDNA2008 checks (as the reference
    /// results do). Reads plain text lines.
    #[arg(long)]
    literal: bool,
    /// Write here instead of stdout (atomically, as `scan --output`).
    #[arg(long, short)]
    output: Option<std::path::PathBuf>,
    /// Worker threads, at most 1024 (default or 0: one per core).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    /// How index labels test variant context rules: `reference` (as ICANN's
    /// lgr-core, the default) or `rfc7940`.
    #[arg(long, value_enum, default_value = "reference")]
    index_mode: super::IndexModeArg,
    #[command(flatten)]
    input: super::InputArgs,
    /// Label lists (U-labels or A-labels, one per line), zone files, CSV
    /// files, `.gz`; `-` or none reads standard input. Blank lines and `#`
    /// comments give no record.
    inputs: Vec<String>,
}

/// Judges one label; `finding` is an IDNA2008 problem that makes it
/// invalid. Its index label is given either way when the LGR has one, as
/// `scan` gives an invalid label's (a label one octet too long still has
/// the index label of its code points).
fn record(
    lgr: &Lgr,
    source: &str,
    line: u64,
    input: &str,
    ulabel: &str,
    alabel: &str,
    finding: Option<String>,
) -> [String; 9] {
    let label = Label::from_text(ulabel);
    let index = lgr
        .index_of(&label)
        .map(|i| i.iter().map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}')).collect())
        .unwrap_or_default();
    let (judge, disp, reason) = match finding {
        Some(f) => (IDNA, "invalid".to_string(), f),
        None => {
            let v = lgr.judge_label(&label);
            (lgr.name(), v.disposition.to_string(), lgr.reason_text(&v.reason))
        }
    };
    [
        source.to_string(),
        line.to_string(),
        input.to_string(),
        ulabel.to_string(),
        alabel.to_string(),
        judge.to_string(),
        disp,
        reason,
        index,
    ]
}

/// The longest line `--literal` takes, in bytes: 25 times the longest
/// label of ICANN's reference corpora (162 characters), far past any
/// DNS label (63 octets). The index label of a label of n code points
/// takes time in n² (its variants in context are tried at each
/// position): a 300 KB line took 7.3 s, a 1 MiB line (the limit before)
/// about 90 s; 4 KiB take milliseconds.
pub const LITERAL_LINE_MAX: usize = 4096;

/// `--literal`: every non-blank, non-comment line as its code points.
fn literal(args: &Args, lgr: &Lgr) -> anyhow::Result<Vec<[String; 9]>> {
    let inputs: Vec<&str> = if args.inputs.is_empty() {
        vec!["-"]
    } else {
        args.inputs.iter().map(String::as_str).collect()
    };
    let mut out = Vec::new();
    for name in inputs {
        // Read whole, as a file or standard input alike: at most
        // `WHOLE_FILE_MAX` bytes, each line at most `LITERAL_LINE_MAX`.
        let bytes = super::read_whole(std::path::Path::new(name))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            anyhow::anyhow!("{name}:{line}: not UTF-8 at byte offset {at}")
        })?;
        let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let lines: Vec<(u64, &str)> = body
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u64 + 1, l.trim_end_matches('\r').trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
            .collect();
        if let Some((n, _)) = lines.iter().find(|(_, l)| l.len() > LITERAL_LINE_MAX) {
            anyhow::bail!("{name}:{n}: line longer than {LITERAL_LINE_MAX} bytes");
        }
        out.par_extend(lines.par_iter().map(|&(n, l)| {
            let alabel = if l.is_ascii() {
                l.to_string()
            } else {
                idna::punycode::encode_str(l).map(|p| format!("xn--{p}")).unwrap_or_default()
            };
            record(lgr, name, n, l, l, &alabel, None)
        }));
    }
    Ok(out)
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let lgr = super::load_lgr(&args.lgr)?.with_index_mode(args.index_mode.into());
    // Opened before the input is read: a path that cannot be written is an
    // error at once.
    let reads = super::read_paths(&args.inputs, std::slice::from_ref(&args.lgr), None);
    let mut output =
        args.output.as_deref().map(|p| super::ReportFile::create(p, &reads)).transpose()?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    // The labels read, for the malformed lines the read dropped.
    let mut read_set = None;
    let records = if args.literal {
        pool.install(|| literal(&args, &lgr))?
    } else {
        let config = args.input.config()?;
        let inputs: Vec<Input> = if args.inputs.is_empty() {
            vec![Input::Stdin]
        } else {
            args.inputs.iter().map(|a| Input::from_arg(a)).collect()
        };
        let labels = pool.install(|| input::read(inputs, &config)).context("reading input")?;
        if let Some(file) = &output {
            file.spare_sources(&labels)?;
        }
        let records = pool.install(|| {
            (0..labels.len())
                .into_par_iter()
                .filter_map(|i| labels.get(i))
                .map(|l| {
                    let f = l.finding().map(ToString::to_string);
                    record(
                        &lgr,
                        &l.source_path().to_string_lossy(),
                        u64::from(l.line()),
                        &l.original_text(),
                        l.ulabel(),
                        l.alabel(),
                        f,
                    )
                })
                .collect()
        });
        read_set = Some(labels);
        records
    };
    let write = |out: &mut dyn std::io::Write| {
        let mut w = RecordWriter::typed(out, args.format.into(), FIELDS, TYPES, true)?;
        for r in &records {
            let v: Vec<&str> = r.iter().map(String::as_str).collect();
            w.write(&v)?;
        }
        w.finish()
    };
    // As `scan`: a run that fails on malformed lines leaves `-o FILE` as
    // it was.
    let failed = read_set.as_ref().is_some_and(|l| args.input.fails_on_malformed(l, &[]));
    match output.take() {
        Some(_) if failed => {}
        Some(mut file) => {
            write(file.writer())?;
            file.commit(Durability::Rename)?;
        }
        None => super::output_done(write(&mut super::stdout()).map_err(Into::into))?,
    }
    if let Some(labels) = &read_set {
        // Name what was dropped: annotate has no summary to show it.
        if args.input.list_malformed() {
            for l in super::malformed_lines(labels, 20) {
                eprintln!("  malformed: {l}");
            }
            let n = labels.accounting().malformed;
            if n > 20 {
                eprintln!("  … {} more malformed lines", n - 20);
            }
        }
        // A list's or CSV's repeated label has the row of its first line
        // only: say so, since annotate has no summary to count it (a
        // zone's owner has one record a type, which is no news).
        let repeated = labels.accounting().duplicate_records;
        if repeated > 0 && labels.sources().iter().any(|s| s.format != InputFormat::Zone) {
            eprintln!(
                "lgrscan: {repeated} record{} repeat{} a label read before: one row per label \
                 (--literal writes a row for every line)",
                if repeated == 1 { "" } else { "s" },
                if repeated == 1 { "s" } else { "" },
            );
        }
        if let Some(path) = args.output.as_ref().filter(|_| failed) {
            eprintln!("lgrscan: {} not written (left as it was)", path.display());
        }
        args.input.malformed_outcome(labels, &[])?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
