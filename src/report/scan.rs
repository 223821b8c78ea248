//! The report of a scan ([`crate::scan::scan`]): a summary and the
//! findings, as text for people or as CSV / JSON Lines rows.

use super::findings::{RowContext, Status, TYPES};
use super::record::{RecordFormat, RecordWriter};
use super::terminal::escape_for_terminal as esc;
use crate::input::LabelSet;
use crate::scan::{Finding, FindingKind, LgrSet, Report, Role};
use rayon::prelude::*;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

/// Report rows formatted by one parallel task.
const ROWS_PER_TASK: usize = 2048;

pub use super::findings::FIELDS;

/// How a scan's report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanFormat {
    /// The summary, then the variant sets with conflicts (largest first),
    /// the contract findings and the invalid labels, for people. Text
    /// from the data is escaped ([`super::escape_for_terminal`]).
    Text,
    /// [`FIELDS`] as RFC 4180 CSV with a header row.
    Csv,
    /// A meta record, [`FIELDS`] as one JSON object per finding (typed by
    /// [`super::findings::TYPES`]), then the summary record.
    Jsonl,
}

/// What a report is written from: the findings and their rows' context,
/// the summary, and for JSON Lines the meta and summary records.
pub struct ReportParts<'a> {
    /// The scan's report.
    pub report: &'a Report,
    /// The rows' context (labels, ids, statuses).
    pub rows: RowContext<'a>,
    /// The text summary ([`summary`]).
    pub summary: &'a str,
    /// The meta record (JSON Lines: the first line).
    pub meta: Option<serde_json::Value>,
    /// The summary record ([`summary_record`]; JSON Lines: the last line).
    pub summary_record: Option<serde_json::Value>,
    /// Whether text output may use colour (ANSI SGR sequences).
    pub color: bool,
}

/// Writes the report of a scan.
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
    parts: &ReportParts<'_>,
) -> io::Result<()> {
    let rf = match format {
        ScanFormat::Text => return write_text(out, parts),
        ScanFormat::Csv => RecordFormat::Csv,
        ScanFormat::Jsonl => RecordFormat::Jsonl,
    };
    if rf == RecordFormat::Jsonl
        && let Some(m) = &parts.meta
    {
        serde_json::to_writer(&mut *out, m)?;
        out.write_all(b"\n")?;
    }
    RecordWriter::typed(&mut *out, rf, FIELDS, TYPES, true)?.finish()?;
    let findings = &parts.report.findings;
    let batch_len = ROWS_PER_TASK * 64;
    for (b, batch) in findings.chunks(batch_len).enumerate() {
        let parts_out: Vec<io::Result<Vec<u8>>> = batch
            .par_chunks(ROWS_PER_TASK)
            .enumerate()
            .map(|(c, part)| {
                let mut buf = Vec::new();
                let mut rw = RecordWriter::typed(&mut buf, rf, FIELDS, TYPES, false)?;
                let first = b * batch_len + c * ROWS_PER_TASK;
                for (k, f) in part.iter().enumerate() {
                    let v = parts.rows.fields(first + k, f);
                    rw.write(&v.each_ref().map(|c| &**c))?;
                }
                rw.finish()?;
                Ok(buf)
            })
            .collect();
        for p in parts_out {
            out.write_all(&p?)?;
        }
    }
    if rf == RecordFormat::Jsonl
        && let Some(s) = &parts.summary_record
    {
        serde_json::to_writer(&mut *out, s)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// ANSI SGR: bold, red, yellow, green, dim, reset (used with colour only).
const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const GREEN: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";

/// `text` in SGR `style` when `color`.
fn paint(color: bool, style: &str, text: &str) -> String {
    if color && !text.is_empty() { format!("{style}{text}{RESET}") } else { text.to_string() }
}

fn write_text(w: &mut dyn Write, parts: &ReportParts<'_>) -> io::Result<()> {
    let (labels, report, color) = (parts.rows.labels(), parts.report, parts.color);
    write!(w, "{}", parts.summary)?;
    let accepted = |i: usize| {
        if parts.rows.status(i) == Status::Accepted { "  [accepted]" } else { "" }
    };
    let mut groups: Vec<(u32, Vec<(usize, &Finding)>)> = Vec::new();
    for (i, f) in report.findings.iter().enumerate() {
        let (Some(g), FindingKind::Collision) = (f.group, f.kind) else { continue };
        match groups.last_mut() {
            Some((n, v)) if *n == g => v.push((i, f)),
            _ => groups.push((g, vec![(i, f)])),
        }
    }
    groups.sort_by_key(|(n, v)| (std::cmp::Reverse(v.len()), *n));
    if !groups.is_empty() {
        let head = format!("Variant sets with conflicts ({}), largest first:", groups.len());
        writeln!(w, "\n{}", paint(color, BOLD, &head))?;
    }
    for (n, members) in &groups {
        // A verified group may join several index labels.
        let mut index: Vec<&str> = members.iter().map(|(_, f)| f.index.as_str()).collect();
        index.sort_unstable();
        index.dedup();
        let (s, list) =
            if index.len() > 1 { ("s", index.join(", ")) } else { ("", index.join("")) };
        writeln!(w, "\ngroup {n}: index label{s} {}", esc(&list))?;
        for &(i, f) in members {
            let l = labels.get(f.label).expect("label");
            let role = f.role.map_or("", |r| r.as_str());
            let style = match f.role {
                Some(Role::Holder | Role::Allocated | Role::Near) => GREEN,
                Some(Role::Allocatable) => YELLOW,
                _ => RED,
            };
            writeln!(
                w,
                "  {}{} {}  {}  ({}:{}){}{}\n              {}: {}",
                paint(color, style, role),
                " ".repeat(11usize.saturating_sub(role.len())),
                esc(l.ulabel()),
                esc(l.alabel()),
                esc(&l.source_path().to_string_lossy()),
                l.line(),
                f.relation.map_or(String::new(), |r| format!("  [{}]", r.as_str())),
                accepted(i),
                esc(&f.disposition),
                esc(&f.reason)
            )?;
        }
    }
    let contract: Vec<(usize, &Finding)> = report
        .findings
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.kind, FindingKind::NsMismatch | FindingKind::SameEntity))
        .collect();
    if !contract.is_empty() {
        let head = format!("Contract findings ({}):", contract.len());
        writeln!(w, "\n{}", paint(color, BOLD, &head))?;
        for (i, f) in contract {
            let l = labels.get(f.label).expect("label");
            let holder = f.holder.and_then(|h| labels.get(h)).map_or("", |h| h.alabel());
            writeln!(
                w,
                "  {}  {}  {}  ({}:{}), variant of {}{}\n              {}",
                paint(color, YELLOW, f.kind.as_str()),
                esc(l.ulabel()),
                esc(l.alabel()),
                esc(&l.source_path().to_string_lossy()),
                l.line(),
                esc(holder),
                accepted(i),
                esc(&f.reason)
            )?;
        }
    }
    label_rows(w, parts, FindingKind::Invalid, "Invalid labels")?;
    label_rows(w, parts, FindingKind::Blocked, "Blocked labels (own disposition blocked)")?;
    Ok(())
}

/// The text report's section of the findings of `kind` about a label on
/// its own ([`FindingKind::Invalid`], [`FindingKind::Blocked`]): one line
/// each, with the LGR and the reason; nothing when there are none.
fn label_rows(
    w: &mut dyn Write,
    parts: &ReportParts<'_>,
    kind: FindingKind,
    title: &str,
) -> io::Result<()> {
    let (labels, color) = (parts.rows.labels(), parts.color);
    let rows: Vec<(usize, &Finding)> =
        parts.report.findings.iter().enumerate().filter(|(_, f)| f.kind == kind).collect();
    if rows.is_empty() {
        return Ok(());
    }
    let head = format!("{title} ({}):", rows.len());
    writeln!(w, "\n{}", paint(color, BOLD, &head))?;
    for (i, f) in rows {
        let l = labels.get(f.label).expect("label");
        let accepted = if parts.rows.status(i) == Status::Accepted { "  [accepted]" } else { "" };
        writeln!(
            w,
            "  {}  {}  ({}:{})  {}: {}{}",
            paint(color, RED, &esc(l.ulabel())),
            esc(l.alabel()),
            esc(&l.source_path().to_string_lossy()),
            l.line(),
            esc(&f.lgr),
            esc(&f.reason),
            accepted
        )?;
    }
    Ok(())
}

/// A dimension of `--group-by`: findings counted per value of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GroupBy {
    /// The label's `registrar` (CSV column).
    Registrar,
    /// The label's `registrant` (CSV column).
    Registrant,
    /// The LGR that gave the finding's disposition.
    Lgr,
    /// The label's script ([`crate::scan::label_script`]).
    Script,
    /// The finding's kind.
    Kind,
}

impl GroupBy {
    /// `registrar`, `registrant`, `lgr`, `script` or `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Registrar => "registrar",
            GroupBy::Registrant => "registrant",
            GroupBy::Lgr => "lgr",
            GroupBy::Script => "script",
            GroupBy::Kind => "kind",
        }
    }
}

/// The counts a report adds to the scan's [`crate::scan::Summary`]:
/// findings by kind and status, stale baseline entries and `--group-by`
/// tables. Counted are the rows that are problems ([`is_problem`]): not
/// the rows of holders, allocated or near members, which only show a
/// variant set whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Findings not matched by the baseline.
    pub open: u64,
    /// Findings the baseline accepts.
    pub accepted: u64,
    /// Per kind ([`FindingKind::ALL`] order): open and accepted findings.
    pub by_kind: Vec<(&'static str, u64, u64)>,
    /// Baseline entries that matched no finding, as text.
    pub stale: Vec<String>,
    /// Per `--group-by` dimension: (value, findings), most first, then by
    /// value; an absent value is `(none)`.
    pub breakdowns: Vec<(GroupBy, Vec<(String, u64)>)>,
}

/// Whether a row is a problem: an invalid label, a contract finding, or a
/// collision row of a conflicting member (not the holder, an allocated or
/// a near member).
pub fn is_problem(f: &Finding) -> bool {
    f.kind != FindingKind::Collision
        || !matches!(f.role, Some(Role::Holder | Role::Allocated | Role::Near))
}

/// Counts the findings of `report` ([`Totals`]).
pub fn totals(
    rows: &RowContext<'_>,
    report: &Report,
    group_by: &[GroupBy],
    stale: Vec<String>,
) -> Totals {
    let mut t = Totals { stale, ..Totals::default() };
    t.by_kind = FindingKind::ALL.iter().map(|k| (k.as_str(), 0, 0)).collect();
    let mut tables: Vec<BTreeMap<String, u64>> = vec![BTreeMap::new(); group_by.len()];
    let labels = rows.labels();
    for (i, f) in report.findings.iter().enumerate().filter(|(_, f)| is_problem(f)) {
        let k = FindingKind::ALL.iter().position(|x| *x == f.kind).expect("every kind");
        if rows.status(i) == Status::Accepted {
            t.accepted += 1;
            t.by_kind[k].2 += 1;
        } else {
            t.open += 1;
            t.by_kind[k].1 += 1;
        }
        let Some(l) = labels.get(f.label) else { continue };
        for (g, table) in group_by.iter().zip(&mut tables) {
            let key = match g {
                GroupBy::Registrar => rows.registrar(&l).map(str::to_string),
                GroupBy::Registrant => rows.registrant(&l).map(str::to_string),
                GroupBy::Lgr => Some(f.lgr.clone()),
                GroupBy::Script => Some(crate::scan::label_script(l.ulabel()).to_string()),
                GroupBy::Kind => Some(f.kind.as_str().to_string()),
            };
            *table.entry(key.unwrap_or_else(|| "(none)".into())).or_default() += 1;
        }
    }
    for (g, table) in group_by.iter().zip(tables) {
        let mut v: Vec<(String, u64)> = table.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        t.breakdowns.push((*g, v));
    }
    t
}

/// The summary of a scan, for people: the input's accounting, the apex,
/// the first malformed lines, labels judged per LGR and script, invalid
/// labels by reason family, groups and conflicts, contract findings,
/// findings open and accepted, stale baseline entries and the
/// `--group-by` tables. No timing ([`timing`]): the same input gives the
/// same summary. Text from the data is escaped
/// ([`super::escape_for_terminal`]).
///
/// `bad_pins` are the rows [`unknown_pins`] found: listed with the
/// malformed lines of the read.
pub fn summary(
    labels: &LabelSet,
    set: &LgrSet,
    report: &Report,
    totals: &Totals,
    bad_pins: &[String],
) -> String {
    use std::fmt::Write as _;
    let a = labels.accounting();
    let s = &report.summary;
    let mut t = String::new();
    let _ = writeln!(t, "lgrscan scan summary");
    // A CSV's header row is counted with the directives of zone files.
    let csv = |s: &crate::input::SourceInfo| s.format == crate::input::InputFormat::Csv;
    let directives = match (labels.sources().iter().any(csv), labels.sources().iter().all(csv)) {
        (false, _) => "directives",
        (true, true) => "header rows",
        (true, false) => "directives or header rows",
    };
    let _ = writeln!(
        t,
        "  input: {} bytes, {} lines ({} records, {} blank, {} comments, {} {directives}, {} continuation, {} malformed)",
        a.bytes,
        a.lines,
        a.record_lines,
        a.blank_lines,
        a.comment_lines,
        a.directive_lines,
        a.continuation_lines,
        a.malformed
    );
    // NSEC3 records are named only in a zone that has them.
    let nsec3 = match a.nsec3_records {
        0 => String::new(),
        n => format!(" + {n} NSEC3 records at hashed owners"),
    };
    let _ = writeln!(
        t,
        "  records: {} = {} at the apex + {} registered labels + {} duplicate records folded + {} below depth{nsec3} + {} outside the apex",
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
    for m in malformed_lines(labels, 20) {
        let _ = writeln!(t, "  malformed: {}", esc(&m));
    }
    // Records (judged invalid, counted above), not malformed lines; the
    // caller's `--on-malformed` policy counts them with those.
    for m in bad_pins.iter().take(20) {
        let _ = writeln!(t, "  unknown lgr: {}", esc(m));
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
    let mode = index_mode(set);
    let near = if mode == "verified" {
        format!(", {} near (variants of the holder in neither direction)", s.near)
    } else {
        String::new()
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
    let _ = writeln!(t, "  blocked (own disposition): {}", s.blocked);
    let _ = writeln!(
        t,
        "  contract findings: {} ns-mismatch, {} same-entity",
        s.ns_mismatch, s.same_entity
    );
    let _ = writeln!(
        t,
        "  findings: {} ({} open, {} accepted by the baseline)",
        totals.open + totals.accepted,
        totals.open,
        totals.accepted
    );
    if !totals.stale.is_empty() {
        let _ = writeln!(t, "  stale baseline entries (match no finding): {}", totals.stale.len());
        for e in totals.stale.iter().take(20) {
            let _ = writeln!(t, "    {}", esc(e));
        }
    }
    for (g, table) in &totals.breakdowns {
        let _ = writeln!(t, "  findings by {}:", g.as_str());
        for (k, n) in table {
            let _ = writeln!(t, "    {n:>8}  {}", esc(k));
        }
    }
    t
}

/// The index mode of a set as `--index-mode` names it.
pub fn index_mode(set: &LgrSet) -> &'static str {
    match set.grouping() {
        crate::scan::Grouping::Verified => "verified",
        _ => match set.variants().index_mode() {
            crate::lgr::IndexMode::Rfc7940 => "rfc7940",
            _ => "reference",
        },
    }
}

/// The time a scan took, for standard error (never in a report file):
/// `read` is the time reading took.
pub fn timing(report: &Report, read: Duration) -> String {
    let secs = report.summary.elapsed.as_secs_f64();
    let r = read.as_secs_f64();
    format!(
        "  time: reading {r:.3} s, judging and grouping {secs:.3} s ({:.0} labels/s overall)\n",
        report.summary.labels as f64 / (secs + r).max(1e-9)
    )
}

/// The `{"kind":"summary",…}` record: every count of [`summary`].
pub fn summary_record(
    labels: &LabelSet,
    set: &LgrSet,
    report: &Report,
    totals: &Totals,
    bad_pins: &[String],
) -> Value {
    let a = labels.accounting();
    let s = &report.summary;
    let pairs = |v: &[(String, u64)]| -> Map<String, Value> {
        v.iter().map(|(k, n)| (k.clone(), Value::from(*n))).collect()
    };
    let by_kind: Map<String, Value> = totals
        .by_kind
        .iter()
        .map(|(k, o, acc)| ((*k).to_string(), json!({"open": o, "accepted": acc})))
        .collect();
    let group_by: Map<String, Value> = totals
        .breakdowns
        .iter()
        .map(|(g, v)| {
            let rows: Vec<Value> =
                v.iter().map(|(k, n)| json!({"key": k, "findings": n})).collect();
            (g.as_str().to_string(), Value::from(rows))
        })
        .collect();
    let malformed: Vec<String> =
        malformed_lines(labels, 20).into_iter().chain(bad_pins.iter().take(20).cloned()).collect();
    json!({
        "kind": "summary",
        "input": {
            "bytes": a.bytes, "lines": a.lines, "record_lines": a.record_lines,
            "blank_lines": a.blank_lines, "comment_lines": a.comment_lines,
            "directive_lines": a.directive_lines, "continuation_lines": a.continuation_lines,
            "malformed": a.malformed, "unknown_lgr_pins": bad_pins.len(),
        },
        "records": {
            "total": a.records, "apex": a.apex_records, "registered_labels": a.registered_labels,
            "duplicates_folded": a.duplicate_records, "below_depth": a.deeper_records,
            "nsec3": a.nsec3_records, "outside_apex": a.outside_records,
        },
        "apex": labels.apex(),
        "malformed_lines": malformed,
        "labels": s.labels,
        "idn_labels": s.idn_labels,
        "per_lgr": pairs(&s.per_lgr),
        "per_script": pairs(&s.per_script),
        "invalid": s.invalid,
        "invalid_by_family": pairs(&s.invalid_by_family),
        "blocked": s.blocked,
        "variant_lgr": set.variants().name(),
        "index_mode": index_mode(set),
        "groups": s.groups,
        "conflict_groups": s.conflict_groups,
        "conflicts": s.conflicts,
        "allocated": s.allocated,
        "near": s.near,
        "ns_mismatch": s.ns_mismatch,
        "same_entity": s.same_entity,
        "findings": {
            "total": totals.open + totals.accepted,
            "open": totals.open,
            "accepted": totals.accepted,
            "by_kind": by_kind,
        },
        "stale_baseline_entries": totals.stale,
        "group_by": group_by,
    })
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
    if !labels.has_pins() {
        return Vec::new();
    }
    labels
        .iter()
        .filter_map(|l| {
            let pin = l.csv()?.lgr?.trim();
            (!pin.is_empty() && set.find(pin).is_none()).then(|| {
                format!(
                    "{}:{} (byte {}): the lgr column names '{pin}', which is not in the LGR set",
                    l.source_path().display(),
                    l.line(),
                    l.offset()
                )
            })
        })
        .collect()
}
