//! `lgrscan annotate`: one record per input label line.

use super::{RecordFormat, RecordWriter};
use anyhow::Context;
use lgrscan::builtin;
use lgrscan::lgr::{Label, Lgr};
use rayon::prelude::*;
use std::io::Read;
use std::path::PathBuf;

const FIELDS: &[&str] =
    &["line", "input", "ulabel", "alabel", "lgr", "disposition", "reason", "index"];

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The LGR: an RFC 7940 XML file, an RFC 3743 table, or builtin:NAME.
    #[arg(long)]
    lgr: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "tsv")]
    format: RecordFormat,
    /// Take each line as its code points exactly: no A-label decoding, no
    /// case folding, no normalisation (as the reference results do).
    #[arg(long)]
    literal: bool,
    /// Write here instead of stdout.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// How index labels test variant context rules: `reference` (as ICANN's
    /// lgr-core, the default) or `rfc7940`.
    #[arg(long, value_enum, default_value = "reference")]
    index_mode: super::IndexModeArg,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// A file of labels, one per line (U-labels or A-labels); `-` or none
    /// reads standard input. Blank lines and `#` comments give no record.
    labels: Option<PathBuf>,
}

/// The forms of one input label.
struct Forms {
    ulabel: String,
    alabel: String,
    /// A problem converting it; the label is then invalid.
    problem: Option<String>,
}

fn forms(input: &str, literal: bool) -> Forms {
    if literal {
        let alabel = if input.is_ascii() {
            input.to_string()
        } else {
            idna::punycode::encode_str(input).map(|p| format!("xn--{p}")).unwrap_or_default()
        };
        return Forms { ulabel: input.to_string(), alabel, problem: None };
    }
    let folded = if input.is_ascii() { input.to_ascii_lowercase() } else { input.to_string() };
    if let Some(p) = folded.strip_prefix("xn--") {
        return match idna::punycode::decode_to_string(p) {
            Some(u) if !u.is_ascii() => Forms { ulabel: u, alabel: folded, problem: None },
            Some(_) => Forms {
                ulabel: String::new(),
                alabel: folded,
                problem: Some("fake A-label: decodes to ASCII".into()),
            },
            None => Forms {
                ulabel: String::new(),
                alabel: folded,
                problem: Some("punycode does not decode".into()),
            },
        };
    }
    let alabel = if folded.is_ascii() {
        folded.clone()
    } else {
        idna::punycode::encode_str(&folded).map(|p| format!("xn--{p}")).unwrap_or_default()
    };
    Forms { ulabel: folded, alabel, problem: None }
}

fn judge_line(lgr: &Lgr, line: usize, input: &str, literal: bool) -> [String; 8] {
    let f = forms(input, literal);
    let (disp, reason, index) = match &f.problem {
        Some(p) => ("invalid".to_string(), p.clone(), String::new()),
        None => {
            let label = Label::from_text(&f.ulabel);
            let v = lgr.judge_label(&label);
            let index = lgr
                .index_of(&label)
                .map(|i| i.iter().map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}')).collect())
                .unwrap_or_default();
            (v.disposition.to_string(), lgr.reason_text(&v.reason), index)
        }
    };
    [
        line.to_string(),
        input.to_string(),
        f.ulabel,
        f.alabel,
        lgr.name().to_string(),
        disp,
        reason,
        index,
    ]
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let lgr = builtin::load_spec(&args.lgr)
        .with_context(|| format!("loading LGR {}", args.lgr))?
        .with_index_mode(args.index_mode.into());
    let mut text = String::new();
    match args.labels.as_deref() {
        None => {
            std::io::stdin().read_to_string(&mut text).context("reading standard input")?;
        }
        Some(p) if p.as_os_str() == "-" => {
            std::io::stdin().read_to_string(&mut text).context("reading standard input")?;
        }
        Some(p) => {
            let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            text = String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not UTF-8 at byte offset {}",
                    p.display(),
                    e.utf8_error().valid_up_to()
                )
            })?;
        }
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r').trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let records: Vec<[String; 8]> = pool
        .install(|| lines.par_iter().map(|&(n, l)| judge_line(&lgr, n, l, args.literal)).collect());
    let mut w = RecordWriter::new(super::output(args.output.as_deref())?, args.format, FIELDS)?;
    for r in &records {
        let v: Vec<&str> = r.iter().map(String::as_str).collect();
        w.write(&v)?;
    }
    w.finish()?;
    Ok(std::process::ExitCode::SUCCESS)
}
