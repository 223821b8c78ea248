//! `lgrscan diff OLD.jsonl NEW.jsonl`: what changed between two JSON Lines
//! reports of `scan`, matched on finding ids
//! ([`super::findings::finding_id`]): findings new, resolved, and changed
//! (role, holder, disposition or NS set), with counts and both meta
//! records.

use super::jsonl::{JsonlReport, ReportRow, is_problem_row};
use super::record::{FieldType, RecordFormat, RecordWriter};
use super::terminal::escape_for_terminal as esc;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{self, Write};

/// The fields of a finding compared by a diff.
pub const COMPARED: &[&str] = &["role", "holder", "disposition", "ns"];

/// The columns of a diff's CSV and JSON Lines rows.
pub const FIELDS: &[&str] = &[
    "change",
    "kind",
    "id",
    "ulabel",
    "alabel",
    "index",
    "role",
    "holder",
    "disposition",
    "ns",
    "old_role",
    "old_holder",
    "old_disposition",
    "old_ns",
    "changed",
];

const TYPES: &[FieldType] = {
    use FieldType::{List, Optional, Text};
    &[
        Text, Text, Text, Text, Text, Optional, Optional, Optional, Optional, List, Optional,
        Optional, Optional, List, List,
    ]
};

/// What happened to a finding between two reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Only in the new report.
    New,
    /// Only in the old report.
    Resolved,
    /// In both, with a different role, holder, disposition or NS set.
    Changed,
}

impl Change {
    /// `new`, `resolved` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Resolved => "resolved",
            Change::Changed => "changed",
        }
    }
}

/// One finding of a diff.
#[derive(Clone, Debug)]
pub struct Entry {
    /// What happened.
    pub change: Change,
    /// The finding in the old report, if there.
    pub old: Option<ReportRow>,
    /// The finding in the new report, if there.
    pub new: Option<ReportRow>,
    /// The [`COMPARED`] fields that differ (changed findings).
    pub changed: Vec<&'static str>,
}

/// The difference between two reports.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// The old report's meta record.
    pub old_meta: Option<Value>,
    /// The new report's meta record.
    pub new_meta: Option<Value>,
    /// New findings (new report order), then changed ones (new report
    /// order), then resolved ones (old report order).
    pub entries: Vec<Entry>,
    /// Findings in both reports with no change.
    pub unchanged: u64,
    /// The holders' rows of the new report, then those of the old one
    /// (context for the findings' sentences; no entries).
    pub holders: Vec<ReportRow>,
    /// False when one report was scanned with `--check-ns` and the other
    /// without (their meta records' `options.check_ns`): name servers were
    /// collected on one side only, so neither `ns` nor the `ns-mismatch`
    /// findings are compared (they would all read as changed, new or
    /// resolved).
    pub ns_compared: bool,
    /// Why the two reports' findings may not compare as they seem (other
    /// zones, variant LGRs, LGRs, index or holder modes, name servers
    /// collected on one side, dropped input lines), each a sentence: the
    /// CLI prints them on standard error, and the text, JSON Lines and
    /// HTML forms carry them, so that a page mailed on its own says so.
    pub warnings: Vec<String>,
}

impl Diff {
    /// How many entries have this change.
    pub fn count(&self, c: Change) -> u64 {
        self.entries.iter().filter(|e| e.change == c).count() as u64
    }
}

/// The CSV columns naming a label's entity (`registrant`, `registrar`)
/// that a report's input had, as its meta record says (`None` for a
/// report of an lgrscan that did not record them).
fn entity_columns(r: &JsonlReport) -> Option<Vec<String>> {
    let cols = r.meta.as_ref()?.pointer("/options/entity_columns")?.as_array()?;
    let mut cols: Vec<String> =
        cols.iter().filter_map(|c| c.as_str().map(str::to_string)).collect();
    cols.sort();
    Some(cols)
}

/// The [`Diff::warnings`] of two reports.
fn warnings(
    old: &JsonlReport,
    new: &JsonlReport,
    ns_compared: bool,
    entities_compared: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let meta = |r: &JsonlReport, path: &str| -> Option<String> {
        let v = r.meta.as_ref()?.pointer(path)?;
        Some(v.as_str().map_or_else(|| v.to_string(), str::to_string))
    };
    let differ = |path: &str| match (meta(old, path), meta(new, path)) {
        (Some(a), Some(b)) if a != b => Some((a, b)),
        _ => None,
    };
    // Ids hash the label, its index label and the variant LGR's identity
    // (`report::findings::finding_id`): across zones or variant LGRs
    // findings cannot match.
    if let (Some(a), Some(b)) = (old.apex(), new.apex())
        && a != b
    {
        out.push(format!(
            "the reports audit different zones ({a} and {b}): their findings cannot match"
        ));
    }
    if let (Some(a), Some(b)) = (old.variant_digest(), new.variant_digest())
        && a != b
    {
        out.push(
            "the reports were scanned with different variant LGRs: finding ids include the \
             variant LGR, so every finding reads as new or resolved"
                .into(),
        );
    }
    let digests = |r: &JsonlReport| -> Option<Vec<String>> {
        let lgrs = r.meta.as_ref()?.get("lgrs")?.as_array()?;
        Some(lgrs.iter().map(|l| l["sha256"].as_str().unwrap_or_default().to_string()).collect())
    };
    if let (Some(a), Some(b)) = (digests(old), digests(new))
        && a != b
    {
        out.push(
            "the reports were scanned with different LGRs: a finding may change with them, \
             not with the zone"
                .into(),
        );
    }
    if let Some((a, b)) = differ("/index_mode") {
        out.push(format!(
            "the reports were scanned in different index modes ({a} and {b}): variant sets, \
             and the ids of their findings, may differ"
        ));
    }
    if let Some((a, b)) = differ("/options/holder") {
        out.push(format!(
            "the reports were scanned with different --holder ({a} and {b}): a set's holder, \
             and so its members' findings, may differ"
        ));
    }
    if !ns_compared {
        out.push(
            "one report was scanned with --check-ns and the other without: name servers and \
             ns-mismatch findings are not compared"
                .into(),
        );
    }
    if !entities_compared {
        let cols = |r: &JsonlReport| match entity_columns(r).unwrap_or_default().join(" and ") {
            c if c.is_empty() => "neither".to_string(),
            c => c,
        };
        out.push(format!(
            "the reports' inputs had different entity columns (old: {}; new: {}): same-entity \
             findings are not compared",
            cols(old),
            cols(new)
        ));
    }
    for r in [old, new] {
        let n = r.dropped_lines();
        if n > 0 {
            let s = if n == 1 { "" } else { "s" };
            out.push(format!(
                "{}: its scan accepted {n} malformed line{s} (--on-malformed): the findings on \
                 them are missing",
                r.name
            ));
        }
    }
    out
}

fn findings(r: &JsonlReport) -> Vec<&ReportRow> {
    r.rows.iter().filter(|m| is_problem_row(m)).collect()
}

/// Compares the findings of two reports: their rows that count
/// ([`is_problem_row`]), so that its counts are those of the two scans'
/// summaries. A member that becomes `allocated` (or a holder) is a
/// resolved finding; one that stops being one, a new finding.
pub fn diff(old: JsonlReport, new: JsonlReport) -> Diff {
    let holders = new.rows.iter().chain(&old.rows).filter(|m| m.get("role") == "holder");
    let holders = holders.cloned().collect();
    let check_ns = |r: &JsonlReport| r.meta.as_ref()?.pointer("/options/check_ns")?.as_bool();
    let ns_compared = match (check_ns(&old), check_ns(&new)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    let (mut old_rows, mut new_rows) = (findings(&old), findings(&new));
    if !ns_compared {
        for rows in [&mut old_rows, &mut new_rows] {
            rows.retain(|m| m.get("kind") != "ns-mismatch");
        }
    }
    let entities_compared = match (entity_columns(&old), entity_columns(&new)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    if !entities_compared {
        for rows in [&mut old_rows, &mut new_rows] {
            rows.retain(|m| m.get("kind") != "same-entity");
        }
    }
    let compared: Vec<&'static str> =
        COMPARED.iter().copied().filter(|&k| ns_compared || k != "ns").collect();
    // Ids do not hash the zone: the findings of two zones match nothing,
    // as the warning says.
    let other_zone = matches!((old.apex(), new.apex()), (Some(a), Some(b)) if a != b);
    let old_by_id: HashMap<&str, &ReportRow> =
        old_rows.iter().filter(|_| !other_zone).map(|m| (m.get("id"), *m)).collect();
    let new_ids: std::collections::HashSet<&str> =
        new_rows.iter().filter(|_| !other_zone).map(|m| m.get("id")).collect();
    let mut d = Diff {
        old_meta: old.meta.clone(),
        new_meta: new.meta.clone(),
        holders,
        ns_compared,
        warnings: warnings(&old, &new, ns_compared, entities_compared),
        ..Diff::default()
    };
    let mut changed = Vec::new();
    for &m in &new_rows {
        match old_by_id.get(m.get("id")) {
            None => d.entries.push(Entry {
                change: Change::New,
                old: None,
                new: Some(m.clone()),
                changed: Vec::new(),
            }),
            Some(o) => {
                let fields: Vec<&'static str> =
                    compared.iter().copied().filter(|k| o.get(k) != m.get(k)).collect();
                if fields.is_empty() {
                    d.unchanged += 1;
                } else {
                    changed.push(Entry {
                        change: Change::Changed,
                        old: Some((*o).clone()),
                        new: Some(m.clone()),
                        changed: fields,
                    });
                }
            }
        }
    }
    d.entries.append(&mut changed);
    for &o in &old_rows {
        if !new_ids.contains(o.get("id")) {
            d.entries.push(Entry {
                change: Change::Resolved,
                old: Some(o.clone()),
                new: None,
                changed: Vec::new(),
            });
        }
    }
    d
}

/// A diff's output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiffFormat {
    /// Counts, the two meta records side by side and the entries, for
    /// people.
    Text,
    /// [`FIELDS`] as CSV with a header row.
    Csv,
    /// `{"kind":"diff-meta","old":…,"new":…}`, one record per entry with
    /// [`FIELDS`], then `{"kind":"diff-summary",…}`.
    Jsonl,
}

/// The [`FIELDS`] of an entry.
fn values(e: &Entry) -> Vec<String> {
    let any = e.new.as_ref().or(e.old.as_ref()).expect("an entry has a side");
    let side = |m: &Option<ReportRow>, k: &str| {
        m.as_ref().map(|m| m.get(k).to_string()).unwrap_or_default()
    };
    vec![
        e.change.as_str().to_string(),
        any.get("kind").to_string(),
        any.get("id").to_string(),
        any.get("ulabel").to_string(),
        any.get("alabel").to_string(),
        any.get("index").to_string(),
        side(&e.new, "role"),
        side(&e.new, "holder"),
        side(&e.new, "disposition"),
        side(&e.new, "ns"),
        side(&e.old, "role"),
        side(&e.old, "holder"),
        side(&e.old, "disposition"),
        side(&e.old, "ns"),
        e.changed.join(";"),
    ]
}

/// The `{"kind":"diff-summary",…}` counts.
pub fn summary_record(d: &Diff) -> Value {
    json!({
        "kind": "diff-summary",
        "new": d.count(Change::New),
        "resolved": d.count(Change::Resolved),
        "changed": d.count(Change::Changed),
        "unchanged": d.unchanged,
        "warnings": d.warnings,
    })
}

/// Writes a diff.
///
/// # Errors
/// Writing to `out`.
pub fn write(out: &mut dyn Write, format: DiffFormat, d: &Diff) -> io::Result<()> {
    let rf = match format {
        DiffFormat::Text => return write_text(out, d),
        DiffFormat::Csv => RecordFormat::Csv,
        DiffFormat::Jsonl => RecordFormat::Jsonl,
    };
    if rf == RecordFormat::Jsonl {
        let meta = json!({"kind": "diff-meta", "old": d.old_meta, "new": d.new_meta});
        serde_json::to_writer(&mut *out, &meta)?;
        out.write_all(b"\n")?;
    }
    let mut w = RecordWriter::typed(&mut *out, rf, FIELDS, TYPES, true)?;
    for e in &d.entries {
        let v = values(e);
        w.write(&v.iter().map(String::as_str).collect::<Vec<_>>())?;
    }
    w.finish()?;
    if rf == RecordFormat::Jsonl {
        serde_json::to_writer(&mut *out, &summary_record(d))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A meta record's facts for the side-by-side table: the run's, then per
/// input its path, serial and SHA-256, per LGR its name and version, and
/// the variant LGR. A missing record's are `(none)`.
struct MetaFacts {
    head: [String; 3],
    inputs: Vec<[String; 3]>,
    lgrs: Vec<String>,
    variant_lgr: String,
}

impl MetaFacts {
    fn of(m: &Option<Value>) -> MetaFacts {
        let Some(m) = m else {
            let none = || "(none)".to_string();
            return MetaFacts {
                head: [none(), none(), none()],
                inputs: Vec::new(),
                lgrs: Vec::new(),
                variant_lgr: none(),
            };
        };
        let s = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Null => "-".into(),
            v => v.to_string(),
        };
        let list = |k: &str| m[k].as_array().cloned().unwrap_or_default();
        MetaFacts {
            head: [s(&m["lgrscan"]), s(&m["started"]), s(&m["index_mode"])],
            inputs: list("inputs")
                .iter()
                .map(|i| [s(&i["path"]), s(&i["soa_serial"]), s(&i["sha256"])])
                .collect(),
            lgrs: list("lgrs")
                .iter()
                .map(|l| format!("{} {}", s(&l["name"]), s(&l["version"])))
                .collect(),
            variant_lgr: s(&m["variant_lgr"]["name"]),
        }
    }
}

/// The two meta records side by side: (what, old, new), the n-th input
/// or LGR of one beside the n-th of the other (blank where one has fewer).
fn meta_rows(old: &Option<Value>, new: &Option<Value>) -> Vec<(String, String, String)> {
    let (o, n) = (MetaFacts::of(old), MetaFacts::of(new));
    let mut rows: Vec<(String, String, String)> = ["lgrscan", "started", "index mode"]
        .iter()
        .zip(o.head.iter().zip(&n.head))
        .map(|(k, (a, b))| (k.to_string(), a.clone(), b.clone()))
        .collect();
    let blank = [String::new(), String::new(), String::new()];
    for i in 0..o.inputs.len().max(n.inputs.len()) {
        let (a, b) = (o.inputs.get(i).unwrap_or(&blank), n.inputs.get(i).unwrap_or(&blank));
        for (j, k) in [format!("input {}", i + 1), "  serial".into(), "  sha256".into()]
            .into_iter()
            .enumerate()
        {
            rows.push((k, a[j].clone(), b[j].clone()));
        }
    }
    for i in 0..o.lgrs.len().max(n.lgrs.len()) {
        let side = |f: &MetaFacts| f.lgrs.get(i).cloned().unwrap_or_default();
        rows.push((format!("lgr {}", i + 1), side(&o), side(&n)));
    }
    rows.push(("variant lgr".into(), o.variant_lgr, n.variant_lgr));
    rows
}

fn write_text(w: &mut dyn Write, d: &Diff) -> io::Result<()> {
    writeln!(w, "lgrscan diff")?;
    writeln!(
        w,
        "  findings: {} new, {} resolved, {} changed, {} unchanged",
        d.count(Change::New),
        d.count(Change::Resolved),
        d.count(Change::Changed),
        d.unchanged
    )?;
    for warning in &d.warnings {
        writeln!(w, "  warning: {}", esc(warning))?;
    }
    let rows = meta_rows(&d.old_meta, &d.new_meta);
    let width = rows.iter().map(|(_, v, _)| v.chars().count()).max().unwrap_or(0).min(64);
    writeln!(w, "  {:<12} {:<width$}  new", "", "old")?;
    for (k, o, n) in &rows {
        writeln!(w, "  {:<12} {:<width$}  {}", esc(k), esc(o), esc(n))?;
    }
    for c in [Change::New, Change::Changed, Change::Resolved] {
        let list: Vec<&Entry> = d.entries.iter().filter(|e| e.change == c).collect();
        if list.is_empty() {
            continue;
        }
        writeln!(w, "\n{} ({}):", c.as_str(), list.len())?;
        for e in list {
            let v = values(e);
            let detail = match c {
                Change::Changed => e
                    .changed
                    .iter()
                    .map(|k| {
                        let (o, n) = (
                            e.old.as_ref().map_or("", |m| m.get(k)),
                            e.new.as_ref().map_or("", |m| m.get(k)),
                        );
                        format!("{k}: {o} -> {n}")
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => {
                    // One side is empty: the other's role, disposition, holder.
                    let pick = |n: usize| if v[n].is_empty() { &v[n + 4] } else { &v[n] };
                    [("role", pick(6)), ("disposition", pick(8)), ("holder", pick(7))]
                        .iter()
                        .filter(|(_, x)| !x.is_empty())
                        .map(|(k, x)| format!("{k} {x}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            writeln!(
                w,
                "  {}  {}  {}  [{}]  {}",
                esc(&v[1]),
                esc(&v[3]),
                esc(&v[4]),
                v[2],
                esc(detail.trim())
            )?;
        }
    }
    Ok(())
}
