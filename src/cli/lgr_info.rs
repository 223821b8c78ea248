//! `lgrscan lgr info FILE|builtin:NAME`: what an LGR holds, and the
//! RFC 8228 checks of its variant relation.

use lgrscan::lgr::check;
use std::io::Write;

/// Commands about one LGR.
#[derive(clap::Subcommand, Debug)]
pub enum LgrCommand {
    /// Metadata, repertoire, variants by type, classes, rules, actions, and
    /// warnings for asymmetric or non-transitive variant relations (RFC 8228).
    Info(Args),
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The LGR: an RFC 7940 XML file, an RFC 3743 table, or builtin:NAME.
    lgr: String,
    /// List at most this many warnings (the count is always given).
    #[arg(long, default_value_t = 50)]
    max_warnings: usize,
}

pub fn run(cmd: LgrCommand) -> anyhow::Result<std::process::ExitCode> {
    let LgrCommand::Info(args) = cmd;
    let lgr = super::load_lgr(&args.lgr)?;
    let i = check::info(&lgr);
    // Composed first, then written with the LGR file's text (metadata,
    // tags, code point names in warnings) escaped for the terminal.
    let mut out: Vec<u8> = Vec::new();
    let report = check::check_bounded(lgr.doc(), args.max_warnings);
    let m = &i.meta;
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    writeln!(out, "LGR: {}", i.name)?;
    writeln!(
        out,
        "version: {}{}",
        opt(&m.version),
        m.version_comment.as_ref().map(|c| format!(" ({c})")).unwrap_or_default()
    )?;
    writeln!(out, "date: {}", opt(&m.date))?;
    writeln!(
        out,
        "language: {}",
        if m.languages.is_empty() { "-".into() } else { m.languages.join(", ") }
    )?;
    for (typ, scope) in &m.scopes {
        writeln!(out, "scope: {scope} ({typ})")?;
    }
    if m.validity_start.is_some() || m.validity_end.is_some() {
        writeln!(out, "validity: {} to {}", opt(&m.validity_start), opt(&m.validity_end))?;
    }
    writeln!(
        out,
        "unicode version: {} (engine data: {})",
        opt(&m.unicode_version),
        i.engine_unicode_version
    )?;
    writeln!(out, "references: {}", m.references.len())?;
    writeln!(out)?;
    writeln!(out, "repertoire: {} elements", i.repertoire())?;
    writeln!(
        out,
        "  code points: {} ({} in {} ranges)",
        i.code_points, i.range_code_points, i.ranges
    )?;
    writeln!(out, "  sequences: {} (longest: {})", i.sequences, i.longest_sequence)?;
    if i.out_of_repertoire_targets > 0 {
        writeln!(
            out,
            "  out-of-repertoire variant targets: {} (not counted above)",
            i.out_of_repertoire_targets
        )?;
    }
    writeln!(
        out,
        "variants: {} mappings ({} reflexive, {} conditional) on {} elements; largest set: {}",
        i.variant_mappings,
        i.reflexive_mappings,
        i.conditional_mappings,
        i.elements_with_variants,
        i.largest_variant_set
    )?;
    for (t, n) in &i.variants_by_type {
        writeln!(out, "  {}: {n}", if t.is_empty() { "(no type)" } else { t })?;
    }
    writeln!(out, "tags: {}", i.tags.len())?;
    for (t, n) in &i.tags {
        writeln!(out, "  {t}: {n}")?;
    }
    writeln!(out, "classes: {}", i.classes)?;
    writeln!(out, "rules: {}", i.rules)?;
    writeln!(out, "actions: {} (+5 default actions, RFC 7940 section 7.3)", i.actions)?;
    writeln!(out)?;
    if report.total == 0 && report.complete {
        writeln!(out, "RFC 8228 checks: variant relation is symmetric and transitive")?;
    } else {
        writeln!(
            out,
            "RFC 8228 checks: {}{} warning(s); index labels assume a symmetric, transitive relation",
            if report.complete { "" } else { "at least " },
            report.total
        )?;
        for w in &report.listed {
            writeln!(out, "warning: {w}")?;
        }
        let more = report.total - report.listed.len() as u64;
        if more > 0 || !report.complete {
            writeln!(
                out,
                "... {}{more} more warning(s) (--max-warnings{})",
                if report.complete { "" } else { "at least " },
                if report.complete {
                    String::new()
                } else {
                    format!("; counting stopped after {} steps", check::MAX_CHECK_STEPS)
                }
            )?;
        }
    }
    let mut stdout = super::stdout();
    for line in String::from_utf8_lossy(&out).lines() {
        writeln!(stdout, "{}", lgrscan::report::escape_for_terminal(line))?;
    }
    stdout.flush()?;
    Ok(std::process::ExitCode::SUCCESS)
}
