//! `lgrscan explain LABEL`: everything the LGRs say about one label: its
//! code points with their Unicode names and tags, the verdict of each LGR
//! of the set and why, which LGR judges it, its index label and its
//! variant labels with their dispositions.

use anyhow::{Context, bail};
use lgrscan::builtin;
use lgrscan::idna2008::{self, Finding, LabelForms, MAX_LABEL_OCTETS};
use lgrscan::lgr::{Lgr, VariantLabel, fmt_cps, hex_cps};
use lgrscan::report::escape_for_terminal as esc;
use lgrscan::report::terminal::is_unsafe_for_terminal;
use std::io::Write;

/// The name of the IDNA2008 checks (RFC 5891 §5.3–§5.4, RFC 5892, RFC
/// 5893) among the verdicts.
const IDNA: &str = "IDNA2008";

/// Why a label that fails IDNA2008 is judged by it.
const IDNA_WHY: &str =
    "a label that fails IDNA2008 is invalid whatever the LGRs say, as in scan and annotate";

/// Generation steps tried before a variant listing falls back to the
/// first `--limit` labels and the estimated size of the variant space.
const FULL_ENUMERATION_STEPS: usize = 100_000;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// For people.
    Text,
    /// One JSON object.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// An LGR of the set, in order: an RFC 7940 XML file, an RFC 3743
    /// table, or builtin:NAME; repeat for more. Default: the built-in set
    /// (see `lgrscan builtins`).
    #[arg(long)]
    lgr: Vec<String>,
    /// The LGR giving the index label and the variant labels. Default:
    /// builtin:common with the built-in set, the LGR itself when one
    /// --lgr is given, else their merge (as `scan`'s).
    #[arg(long)]
    variants: Option<String>,
    /// List at most this many variant labels (the count is always given).
    #[arg(long, default_value_t = 100)]
    limit: usize,
    /// How the index label tests variant context rules.
    #[arg(long, value_enum, default_value = "reference")]
    index_mode: super::IndexModeArg,
    /// `text` for people, or `json`: one JSON object with the code points,
    /// verdicts, index label and each listed variant's U-label, A-label,
    /// disposition and reason.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The label: a U-label, or an A-label (`xn--…`); ASCII letters are
    /// folded to lower case. One label: a name (with a dot) is refused.
    label: String,
}

/// The label's U-label, A-label and IDNA2008 finding, read as `annotate`
/// and `scan` read a label ([`idna2008::to_labels`], RFC 5891 §5): ASCII
/// letters folded to lower case, an `xn--` label decoded, both forms
/// checked. A name (a dot in it) is an error, and so is a label with no
/// code points to explain: an empty one, one longer than a DNS label (RFC 1035 §2.3.4), or an `xn--` label
/// that is no A-label (its Punycode does not decode, or decodes to ASCII).
fn decode(input: &str) -> anyhow::Result<LabelForms> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        bail!("empty label");
    }
    // A dot separates labels (RFC 1034 §3.1): `a.b` is a name, and read as
    // one label its dot would be judged as a code point.
    if trimmed.contains('.') {
        let example = match trimmed.split('.').find(|l| !l.is_empty()) {
            Some(first) => format!(" (e.g. {})", esc(first)),
            None => String::new(),
        };
        bail!(
            "{}: a name, not a label: explain takes one label, without dots{example}",
            esc(input)
        );
    }
    let forms = idna2008::to_labels(trimmed);
    match &forms.finding {
        Some(Finding::TooLong { octets }) => bail!(
            "the label is {} as an A-label; a DNS label holds at most {MAX_LABEL_OCTETS} octets \
             (RFC 1035 section 2.3.4), so it cannot be registered",
            if forms.alabel.is_ascii() { format!("{octets} octets") } else { "too long".into() }
        ),
        Some(f) if forms.ulabel.is_ascii() && forms.alabel.starts_with("xn--") => {
            bail!("{}: {f}: not an A-label, no code points to explain", esc(input))
        }
        _ => Ok(forms),
    }
}

/// The code points as text, escaped for the terminal.
fn text(cps: &[u32]) -> String {
    let t: String = cps.iter().map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}')).collect();
    esc(&t).into_owned()
}

fn name(cp: u32) -> String {
    char::from_u32(cp)
        .and_then(unicode_names2::name)
        .map(|n| n.to_string())
        .unwrap_or_else(|| "(no name)".into())
}

/// The LGR that judges the label: the first under which it is eligible;
/// if none, the one whose repertoire covers most of its code points
/// (the first of equals).
fn judging(lgrs: &[Lgr], cps: &[u32]) -> (usize, &'static str) {
    if let Some(i) = lgrs.iter().position(|l| l.judge(cps).eligible) {
        return (i, "the first LGR of the set under which the label is eligible");
    }
    let cover = |l: &Lgr| cps.iter().filter(|&&c| l.starts_element(c)).count();
    let mut best = 0;
    for (i, l) in lgrs.iter().enumerate() {
        if cover(l) > cover(&lgrs[best]) {
            best = i;
        }
    }
    (best, "eligible under none; its repertoire covers most of the label's code points")
}

fn write_variant(out: &mut dyn Write, lgr: &Lgr, v: &VariantLabel<'_>) -> std::io::Result<()> {
    writeln!(
        out,
        "  {:<11} {}  [{}]  {}",
        esc(v.disposition),
        text(&v.cps),
        hex_cps(&v.cps),
        esc(&lgr.variant_reason_text(v))
    )
}

/// The A-label of a label's code points (itself when all ASCII; empty
/// when it cannot be encoded).
fn alabel_of(cps: &[u32]) -> String {
    let t: String = cps.iter().filter_map(|&c| char::from_u32(c)).collect();
    if t.is_ascii() {
        return t;
    }
    idna::punycode::encode_str(&t).map(|p| format!("xn--{p}")).unwrap_or_default()
}

/// The variant labels of the label: all of them (generation order, those
/// that are not invalid first), or when the space is too large its
/// estimated size and the first `limit`.
enum Variants<'a> {
    All(Vec<VariantLabel<'a>>),
    Estimated(String, Vec<VariantLabel<'a>>),
}

fn variants<'a>(vlgr: &'a Lgr, cps: &[u32], limit: usize) -> Variants<'a> {
    match vlgr.variants(cps, FULL_ENUMERATION_STEPS) {
        Ok(mut all) => {
            all.pop(); // the original label comes last
            // Labels that could be registered or that block come first;
            // generation order otherwise.
            all.sort_by_key(|v| v.disposition == "invalid");
            Variants::All(all)
        }
        Err(_) => {
            // The largest product over the label's splits (lgr-core's
            // estimate takes one split, and can say 1 of a huge space), and
            // never fewer than the labels listed and the original.
            let first = vlgr.first_variants(cps, limit);
            let shown = first.len() as u128 + 1;
            // One pass over the label gives the number and its text.
            let space = vlgr.variant_space_max(cps);
            let estimate = if space.count < shown { shown.to_string() } else { space.text };
            Variants::Estimated(estimate, first)
        }
    }
}

/// An estimate as text (`31381059609`, or `about 10^18` past 10^15, as
/// [`Lgr::variant_estimate_text`] writes it), with one `about` before it.
fn about(estimate: &str) -> String {
    if estimate.starts_with("about ") { estimate.to_string() } else { format!("about {estimate}") }
}

/// Counts per disposition, in order of first appearance.
fn by_disposition<'a>(all: &[VariantLabel<'a>]) -> Vec<(&'a str, usize)> {
    let mut by_disp: Vec<(&str, usize)> = Vec::new();
    for v in all {
        match by_disp.iter_mut().find(|(d, _)| *d == v.disposition) {
            Some((_, n)) => *n += 1,
            None => by_disp.push((v.disposition, 1)),
        }
    }
    by_disp
}

/// The explanation as one JSON object.
fn json(
    args: &Args,
    (ulabel, alabel, idna): (&str, &str, Option<&str>),
    lgrs: &[Lgr],
    (judge, why): (usize, &str),
    vlgr: &Lgr,
    cps: &[u32],
) -> serde_json::Value {
    use serde_json::{Value, json};
    let chars = &lgrs[judge].doc().chars;
    let points: Vec<Value> = cps
        .iter()
        .map(|&cp| {
            let c = chars.iter().find(|c| c.cps == [cp]);
            json!({
                "cp": fmt_cps(&[cp]),
                "name": name(cp),
                "tags": c.map(|c| c.tags.clone()).unwrap_or_default(),
                "in_repertoire": lgrs[judge].starts_element(cp),
            })
        })
        .collect();
    let verdicts: Vec<Value> = lgrs
        .iter()
        .map(|l| {
            let v = l.judge(cps);
            json!({"lgr": l.name(), "eligible": v.eligible, "disposition": v.disposition,
                   "reason": l.reason_text(&v.reason)})
        })
        .collect();
    let index = vlgr.index_label(cps).map(|i| {
        let t: String = i.iter().filter_map(|&c| char::from_u32(c)).collect();
        json!({"ulabel": t, "alabel": alabel_of(&i)})
    });
    let variant = |v: &VariantLabel<'_>| {
        let t: String = v.cps.iter().filter_map(|&c| char::from_u32(c)).collect();
        json!({"ulabel": t, "alabel": alabel_of(&v.cps), "disposition": v.disposition,
               "reason": vlgr.variant_reason_text(v)})
    };
    let (count, estimate, listed, counts) = match variants(vlgr, cps, args.limit) {
        Variants::All(all) => {
            let counts: serde_json::Map<String, Value> =
                by_disposition(&all).into_iter().map(|(d, n)| (d.to_string(), n.into())).collect();
            let listed: Vec<Value> = all.iter().take(args.limit).map(variant).collect();
            (Some(all.len()), None, listed, Some(counts))
        }
        Variants::Estimated(e, first) => (None, Some(e), first.iter().map(variant).collect(), None),
    };
    // The label's verdict, as `annotate` gives it: IDNA2008's when the
    // label fails it, else the judging LGR's.
    let (judged_by, why, disposition, reason) = match idna {
        Some(f) => (IDNA, IDNA_WHY, "invalid", f.to_string()),
        None => {
            let v = lgrs[judge].judge(cps);
            (lgrs[judge].name(), why, v.disposition, lgrs[judge].reason_text(&v.reason))
        }
    };
    json!({
        "label": ulabel,
        "alabel": alabel,
        "disposition": disposition,
        "reason": reason,
        "idna2008": {"valid": idna.is_none(), "reason": idna},
        "code_points": points,
        "verdicts": verdicts,
        "judged_by": judged_by,
        "judged_because": why,
        "variant_lgr": vlgr.name(),
        "index_mode": match args.index_mode {
            super::IndexModeArg::Reference => "reference",
            super::IndexModeArg::Rfc7940 => "rfc7940",
        },
        "index_label": index,
        "variants": {"count": count, "estimate": estimate, "by_disposition": counts, "listed": listed},
    })
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let forms = decode(&args.label)?;
    let (ulabel, alabel) = (forms.ulabel.as_str(), forms.alabel.as_str());
    // Why the label fails IDNA2008, as `annotate` and `scan` say it: such
    // a label is invalid whatever the LGRs say of its code points.
    let idna = forms.finding.as_ref().map(ToString::to_string);
    let cps: Vec<u32> = ulabel.chars().map(u32::from).collect();
    let default_set = args.lgr.is_empty();
    let specs: Vec<String> = if default_set {
        builtin::DEFAULT_SET.iter().map(|n| format!("builtin:{n}")).collect()
    } else {
        args.lgr.clone()
    };
    let mode = args.index_mode.into();
    let load = |s: &str| super::load_lgr(s).map(|l| l.with_index_mode(mode));
    let lgrs = specs.iter().map(|s| load(s)).collect::<anyhow::Result<Vec<Lgr>>>()?;
    let (judge, why) = judging(&lgrs, &cps);
    let variant_spec = match (&args.variants, default_set) {
        (Some(v), _) => Some(v.clone()),
        (None, true) => Some(format!("builtin:{}", builtin::DEFAULT_VARIANTS)),
        (None, false) => None,
    };
    let loaded;
    let vlgr: &Lgr = match &variant_spec {
        Some(s) => {
            loaded = load(s)?;
            &loaded
        }
        None if lgrs.len() == 1 => &lgrs[0],
        // Several LGRs: their merge, as `scan` groups by it.
        None => {
            let refs: Vec<&Lgr> = lgrs.iter().collect();
            let merged = lgrscan::lgr::merge(&refs).context("merging the LGR set")?;
            loaded = merged.with_index_mode(mode);
            &loaded
        }
    };

    let mut out = super::stdout();
    if args.format == Format::Json {
        let v = json(&args, (ulabel, alabel, idna.as_deref()), &lgrs, (judge, why), vlgr, &cps);
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    writeln!(out, "label: {}  (A-label: {})", esc(ulabel), esc(alabel))?;
    writeln!(out)?;
    writeln!(out, "code points (tags from {}):", esc(lgrs[judge].name()))?;
    let chars = &lgrs[judge].doc().chars;
    for &cp in &cps {
        let tags = match chars.iter().find(|c| c.cps == [cp]) {
            Some(c) if c.tags.is_empty() => String::new(),
            Some(c) => format!("  tags: {}", esc(&c.tags.join(" "))),
            None if lgrs[judge].starts_element(cp) => "  (only in sequences)".into(),
            None => "  (not in repertoire)".into(),
        };
        let shown = char::from_u32(cp)
            .filter(|c| !is_unsafe_for_terminal(*c) && !matches!(u32::from(*c), 0x200C | 0x200D))
            .map(String::from)
            .unwrap_or_else(|| " ".into());
        writeln!(out, "  {}  {shown}  {}{tags}", fmt_cps(&[cp]), name(cp))?;
    }
    writeln!(out)?;
    writeln!(out, "verdicts:")?;
    let width = lgrs.iter().map(|l| esc(l.name()).len()).max().unwrap_or(0).max(IDNA.len());
    let (idna_result, idna_disp) =
        if idna.is_some() { ("fails", "invalid") } else { ("passes", "") };
    let idna_reason = esc(idna.as_deref().unwrap_or(""));
    let idna_line = format!("  {IDNA:<width$}  {idna_result:<13} {idna_disp:<11} {idna_reason}");
    writeln!(out, "{}", idna_line.trim_end())?;
    for l in &lgrs {
        let v = l.judge(&cps);
        writeln!(
            out,
            "  {:<width$}  {:<13} {:<11} {}",
            esc(l.name()),
            if v.eligible { "eligible" } else { "not eligible" },
            esc(v.disposition),
            esc(&l.reason_text(&v.reason))
        )?;
    }
    match &idna {
        Some(f) => writeln!(out, "judged by: {IDNA}: invalid, {} ({IDNA_WHY})", esc(f))?,
        None => writeln!(out, "judged by: {} ({why})", esc(lgrs[judge].name()))?,
    }
    writeln!(out)?;
    match vlgr.index_label(&cps) {
        Some(i) => {
            writeln!(out, "index label ({}): {}  [{}]", esc(vlgr.name()), text(&i), hex_cps(&i))?
        }
        None => writeln!(out, "index label ({}): none, not in its repertoire", esc(vlgr.name()))?,
    }
    match variants(vlgr, &cps, args.limit) {
        Variants::All(all) => {
            let counts: Vec<String> =
                by_disposition(&all).iter().map(|(d, n)| format!("{n} {}", esc(d))).collect();
            writeln!(
                out,
                "variant labels ({}): {}{}",
                esc(vlgr.name()),
                all.len(),
                if counts.is_empty() { String::new() } else { format!(" ({})", counts.join(", ")) }
            )?;
            for v in all.iter().take(args.limit) {
                write_variant(&mut out, vlgr, v)?;
            }
            if all.len() > args.limit {
                writeln!(
                    out,
                    "  ... {} more (--limit {}; {} in all)",
                    all.len() - args.limit,
                    args.limit,
                    all.len()
                )?;
            }
        }
        Variants::Estimated(estimate, first) => {
            writeln!(
                out,
                "variant labels ({}): {} (estimated variant space); the first {} shown",
                esc(vlgr.name()),
                about(&estimate),
                first.len()
            )?;
            for v in &first {
                write_variant(&mut out, vlgr, v)?;
            }
        }
    }
    out.flush()?;
    Ok(std::process::ExitCode::SUCCESS)
}
