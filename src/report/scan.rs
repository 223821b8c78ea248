//! The report of a scan ([`crate::scan::scan`]): a summary and the
//! findings, as text for people or as CSV / JSON Lines rows.

use super::record::{RecordFormat, RecordWriter};
use super::terminal::escape_for_terminal as esc;
use crate::input::LabelSet;
use crate::scan::{Finding, LgrSet, Report};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{self, Write};
use std::time::Duration;

/// Report rows formatted by one parallel task.
const ROWS_PER_TASK: usize = 2048;

/// The columns of a scan's CSV and JSON Lines rows, in order.
pub const FIELDS: &[&str] = &[
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
    "relation",
];

/// How a scan's report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanFormat {
    /// The summary, then the variant sets with conflicts (largest first)
    /// and the invalid labels, for people. Text from the data is escaped
    /// ([`super::escape_for_terminal`]).
    Text,
    /// [`FIELDS`] as RFC 4180 CSV with a header row.
    Csv,
    /// [`FIELDS`] as one JSON object per line.
    Jsonl,
}

/// Writes the report of a scan: `summary` (from [`summary`]) and the
/// findings.
///
/// CSV and JSON Lines rows are formatted in parallel on the current rayon
/// pool (the caller's `install` chooses it), a batch at a time, and written
/// in order: the same bytes whatever the number of threads.
///
/// # Errors
/// Writing to `out`.
pub fn write(
    out: &mut (dyn Write + Send),
    format: ScanFormat,
    labels: &LabelSet,
    report: &Report,
    summary: &str,
) -> io::Result<()> {
    let rf = match format {
        ScanFormat::Text => return write_text(out, labels, report, summary),
        ScanFormat::Csv => RecordFormat::Csv,
        ScanFormat::Jsonl => RecordFormat::Jsonl,
    };
    RecordWriter::new(&mut *out, rf, FIELDS)?.finish()?;
    for batch in report.findings.chunks(ROWS_PER_TASK * 64) {
        let parts: Vec<io::Result<Vec<u8>>> = batch
            .par_chunks(ROWS_PER_TASK)
            .map(|part| {
                let mut buf = Vec::new();
                let mut rw = RecordWriter::continuing(&mut buf, rf, FIELDS);
                for f in part {
                    let v = fields(labels, f);
                    rw.write(&v.each_ref().map(|c| &**c))?;
                }
                rw.finish()?;
                Ok(buf)
            })
            .collect();
        for p in parts {
            out.write_all(&p?)?;
        }
    }
    Ok(())
}

/// The report fields of a finding, borrowed where the label set or the
/// finding holds them (a report may have millions of rows).
fn fields<'a>(labels: &'a LabelSet, f: &'a Finding) -> [Cow<'a, str>; 14] {
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
        Cow::Borrowed(f.relation.map_or("", |r| r.as_str())),
    ]
}

fn write_text(
    w: &mut dyn Write,
    labels: &LabelSet,
    report: &Report,
    summary: &str,
) -> io::Result<()> {
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
        // A verified group may join several index labels.
        let mut index: Vec<&str> = members.iter().map(|f| f.index.as_str()).collect();
        index.sort_unstable();
        index.dedup();
        let (s, list) =
            if index.len() > 1 { ("s", index.join(", ")) } else { ("", index.join("")) };
        writeln!(w, "\ngroup {n}: index label{s} {}", esc(&list))?;
        for f in members {
            let l = labels.get(f.label).expect("label");
            writeln!(
                w,
                "  {:<11} {}  {}  ({}:{}){}\n              {}: {}",
                f.role.map_or("", |r| r.as_str()),
                esc(l.ulabel()),
                esc(l.alabel()),
                esc(&l.source_path().to_string_lossy()),
                l.line(),
                f.relation.map_or(String::new(), |r| format!("  [{}]", r.as_str())),
                esc(&f.disposition),
                esc(&f.reason)
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
                esc(l.ulabel()),
                esc(l.alabel()),
                esc(&l.source_path().to_string_lossy()),
                l.line(),
                esc(&f.lgr),
                esc(&f.reason)
            )?;
        }
    }
    Ok(())
}

/// The summary of a scan, for people: the input's accounting, the apex,
/// the first malformed lines, labels judged per LGR and script, invalid
/// labels by reason family, groups and conflicts, and the time `read`
/// (reading) and the scan took. Text from the data is escaped
/// ([`super::escape_for_terminal`]).
///
/// `bad_pins` are the rows [`unknown_pins`] found: listed with the
/// malformed lines of the read.
pub fn summary(
    labels: &LabelSet,
    set: &LgrSet,
    report: &Report,
    read: Duration,
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
        let _ = writeln!(t, "  apex: {}", esc(apex));
    }
    for m in malformed_lines(labels, 20).iter().chain(bad_pins.iter().take(20)) {
        let _ = writeln!(t, "  malformed: {}", esc(m));
    }
    if a.malformed > 20 {
        let _ = writeln!(t, "  … {} more malformed lines", a.malformed - 20);
    }
    if bad_pins.len() > 20 {
        let _ = writeln!(t, "  … {} more rows with an unknown lgr", bad_pins.len() - 20);
    }
    let _ = writeln!(t, "  labels judged: {} ({} IDN)", s.labels, s.idn_labels);
    for (name, n) in &s.per_lgr {
        let _ = writeln!(t, "    {}: {n}", esc(name));
    }
    let scripts: Vec<String> = s.per_script.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(t, "  scripts: {}", scripts.join(", "));
    let _ = writeln!(t, "  invalid: {}", s.invalid);
    for (fam, n) in &s.invalid_by_family {
        let _ = writeln!(t, "    {n:>8}  {}", esc(fam));
    }
    let (mode, near) = match set.grouping() {
        crate::scan::Grouping::Verified => {
            ("verified", format!(", {} near (variants of the holder in neither direction)", s.near))
        }
        _ => match set.variants().index_mode() {
            crate::lgr::IndexMode::Rfc7940 => ("rfc7940", String::new()),
            _ => ("reference", String::new()),
        },
    };
    let _ = writeln!(
        t,
        "  variant LGR: {} (index mode {mode}); groups sharing an index label: {}; with conflicts: {} ({} conflicting labels, {} allocated to the holder's registrant{near})",
        esc(set.variants().name()),
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

/// The malformed entries of a read, as `file:line (byte N): reason`, the
/// first `max` of them.
pub fn malformed_lines(labels: &LabelSet, max: usize) -> Vec<String> {
    labels
        .accounting()
        .malformed_details
        .iter()
        .take(max)
        .map(|m| {
            let src = labels.sources().get(m.source as usize);
            let src = src.map(|s| s.path.display().to_string()).unwrap_or_default();
            format!("{src}:{} (byte {}): {}", m.line, m.offset, m.reason)
        })
        .collect()
}

/// CSV rows whose `lgr` column names no LGR of the set, as malformed
/// entries (`file:line: reason`): the row's label is judged invalid, and
/// the row counts as malformed for the caller's policy.
pub fn unknown_pins(labels: &LabelSet, set: &LgrSet) -> Vec<String> {
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
