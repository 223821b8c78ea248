//! `lgrscan diff OLD.jsonl NEW.jsonl`: what changed between two JSON Lines
//! reports of `scan`, matched on finding ids
//! ([`super::findings::finding_id`]): findings new, resolved, and changed
//! (role, holder, disposition or NS set), with counts and both meta
//! records.

use super::record::{FieldType, RecordFormat, RecordWriter};
use super::terminal::escape_for_terminal as esc;
use crate::scan::FindingKind;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;

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

/// A JSON Lines report read back.
#[derive(Clone, Debug, Default)]
pub struct JsonlReport {
    /// Its meta record.
    pub meta: Option<Value>,
    /// Its summary record.
    pub summary: Option<Value>,
    /// Its findings, in order.
    pub rows: Vec<Map<String, Value>>,
    /// The name it was read under (its path), for warnings.
    pub name: String,
}

impl JsonlReport {
    /// The zone it audits (its summary's `apex`), if it says. Finding ids
    /// of two zones cannot match.
    pub fn apex(&self) -> Option<&str> {
        self.summary.as_ref()?.pointer("/apex")?.as_str()
    }

    /// Its variant LGR's SHA-256 (its meta record's), if it says. Finding
    /// ids hash the variant LGR: those of two cannot match.
    pub fn variant_digest(&self) -> Option<&str> {
        self.meta.as_ref()?.pointer("/variant_lgr/sha256")?.as_str()
    }

    /// Reads a JSON Lines report of `scan`.
    ///
    /// # Errors
    /// Reading the file; what [`JsonlReport::parse`] refuses.
    pub fn read(path: &Path) -> io::Result<JsonlReport> {
        let bytes = std::fs::read(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let bytes = e.as_bytes();
            let at = e.utf8_error().valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let gzip = if bytes.starts_with(&[0x1f, 0x8b]) { " (a gzip file?)" } else { "" };
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}:{line}: not UTF-8{gzip}", path.display()),
            )
        })?;
        let report = JsonlReport::parse(&text, &path.display().to_string())?;
        report.must_be_accepted(&path.display().to_string())?;
        Ok(report)
    }

    /// Input lines the report's run could not read: its summary's
    /// malformed lines and CSV rows whose `lgr` named no LGR of the set.
    /// A finding on such a line is missing from the report.
    pub fn dropped_lines(&self) -> u64 {
        let input = self.summary.as_ref().and_then(|s| s.get("input"));
        let count = |k: &str| input.and_then(|i| i.get(k)).and_then(Value::as_u64).unwrap_or(0);
        count("malformed") + count("unknown_lgr_pins")
    }

    /// Whether the run accepted its dropped lines (`--on-malformed warn`
    /// or `ignore`, kept in the meta record's options); a report that
    /// does not say ran under the default, `fail`.
    pub fn accepted_dropped_lines(&self) -> bool {
        let policy = self.meta.as_ref().and_then(|m| m.pointer("/options/on_malformed"));
        matches!(policy.and_then(Value::as_str), Some("warn" | "ignore"))
    }

    /// Refuses the report of a run that dropped input lines and failed
    /// for it (exit 2 under `--on-malformed fail`): compared with another
    /// report, its findings on those lines would read as resolved.
    ///
    /// # Errors
    /// [`io::ErrorKind::InvalidData`] naming `name`, the count and the
    /// first line.
    pub fn must_be_accepted(&self, name: &str) -> io::Result<()> {
        let n = self.dropped_lines();
        if n == 0 || self.accepted_dropped_lines() {
            return Ok(());
        }
        let first = (self.summary.as_ref())
            .and_then(|s| s.get("malformed_lines")?.get(0)?.as_str())
            .map_or(String::new(), |f| format!(" (first: {f})"));
        let s = if n == 1 { "" } else { "s" };
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{name}: its scan failed on {n} malformed line{s}{first}: the findings on them \
                 are missing and would read as resolved or new. Mend the input and scan again \
                 (or scan with --on-malformed warn to accept them)"
            ),
        ))
    }

    /// Parses the text of a JSON Lines report of `scan` (a UTF-8 byte
    /// order mark at its start skipped); `name` names it in errors.
    ///
    /// A report is whole or refused: its first record is its meta record
    /// and its last its summary record, so an empty file, or one cut
    /// short at a line end (a failed or interrupted run's), is an error
    /// rather than a report whose findings all look resolved.
    ///
    /// # Errors
    /// A line that is not a JSON object, a finding without an id (a report
    /// of an older lgrscan), a meta record that is not first or a summary
    /// record that is not last, or either missing, naming `name` and the
    /// line.
    pub fn parse(text: &str, name: &str) -> io::Result<JsonlReport> {
        let bad = |n: usize, m: &str| {
            io::Error::new(io::ErrorKind::InvalidData, format!("{name}:{}: {m}", n + 1))
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut r = JsonlReport { name: name.to_string(), ..JsonlReport::default() };
        let mut ids = HashSet::new();
        let mut last = 0;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            last = n;
            if r.summary.is_some() {
                return Err(bad(n, "a record after the summary record, which ends a report"));
            }
            let Value::Object(m) =
                serde_json::from_str(line).map_err(|e| bad(n, &e.to_string()))?
            else {
                return Err(bad(n, "not a JSON object"));
            };
            let kind = m.get("kind").and_then(Value::as_str);
            if r.meta.is_none() && kind != Some("meta") {
                return Err(bad(n, NOT_A_REPORT));
            }
            match kind {
                Some("meta") if r.meta.is_some() => {
                    return Err(bad(n, "a second meta record (two reports joined?)"));
                }
                Some("meta") => r.meta = Some(Value::Object(m)),
                Some("summary") => r.summary = Some(Value::Object(m)),
                _ => {
                    let Some(id) = m.get("id").and_then(Value::as_str) else {
                        return Err(bad(
                            n,
                            "a finding without an id (not a JSON Lines report of lgrscan scan)",
                        ));
                    };
                    // Findings are matched by id: an unknown kind, an id
                    // that no scan writes or one given twice would be
                    // miscounted, not compared.
                    let Some(kind) =
                        kind.filter(|&k| FindingKind::ALL.iter().any(|f| f.as_str() == k))
                    else {
                        let what = kind.map_or("a record with no kind".to_string(), |k| {
                            format!("a record of unknown kind {k:?}")
                        });
                        return Err(bad(n, &what));
                    };
                    if id.len() != 16 || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                    {
                        return Err(bad(
                            n,
                            &format!(
                                "{kind} finding id {id:?} is not 16 lower-case hex digits (as scan writes them)"
                            ),
                        ));
                    }
                    if !ids.insert(id.to_string()) {
                        return Err(bad(n, &format!("finding id {id} a second time")));
                    }
                    r.rows.push(m);
                }
            }
        }
        if r.meta.is_none() {
            return Err(bad(0, NOT_A_REPORT));
        }
        let Some(summary) = &r.summary else {
            return Err(bad(
                last,
                "the report ends without its summary record: it is incomplete (cut short, or its run failed)",
            ));
        };
        // A finding row taken out (or put in) by hand would read as
        // resolved (or new): the summary counts the rows the scan wrote.
        if let Some(total) = summary.pointer("/findings/total").and_then(Value::as_u64) {
            let held = r.rows.iter().filter(|m| is_problem_row(m)).count() as u64;
            if held != total {
                return Err(bad(
                    last,
                    &format!(
                        "the summary record counts {total} findings, the report holds {held}: it \
                         was edited, and would compare wrongly"
                    ),
                ));
            }
        }
        Ok(r)
    }
}

/// Why a file is not a JSON Lines report of `scan`.
const NOT_A_REPORT: &str =
    "not a JSON Lines report of lgrscan scan (it starts with its meta record)";

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
    pub old: Option<Map<String, Value>>,
    /// The finding in the new report, if there.
    pub new: Option<Map<String, Value>>,
    /// The [`COMPARED`] fields that differ (changed findings).
    pub changed: Vec<&'static str>,
}

/// Whether a row of a report is a finding that counts (as
/// [`super::scan::is_problem`] counts them): not the holder, an allocated
/// or a near member of a variant set, which are listed for context.
pub fn is_problem_row(m: &Map<String, Value>) -> bool {
    text(m, "kind") != "collision"
        || !matches!(text(m, "role").as_str(), "holder" | "allocated" | "near")
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
    pub holders: Vec<Map<String, Value>>,
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

/// The [`Diff::warnings`] of two reports.
fn warnings(old: &JsonlReport, new: &JsonlReport, ns_compared: bool) -> Vec<String> {
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

fn text(m: &Map<String, Value>, k: &str) -> String {
    match m.get(k) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => {
            a.iter().map(|v| v.as_str().unwrap_or_default()).collect::<Vec<_>>().join(";")
        }
        Some(v) => v.to_string(),
    }
}

fn id(m: &Map<String, Value>) -> &str {
    m.get("id").and_then(Value::as_str).unwrap_or_default()
}

/// The rows of a report that count ([`is_problem_row`]).
fn findings(r: &JsonlReport) -> Vec<&Map<String, Value>> {
    r.rows.iter().filter(|m| is_problem_row(m)).collect()
}

/// Compares the findings of two reports: their rows that count
/// ([`is_problem_row`]), so that its counts are those of the two scans'
/// summaries. A member that becomes `allocated` (or a holder) is a
/// resolved finding; one that stops being one, a new finding.
pub fn diff(old: JsonlReport, new: JsonlReport) -> Diff {
    let holders = new.rows.iter().chain(&old.rows).filter(|m| text(m, "role") == "holder");
    let holders = holders.cloned().collect();
    let check_ns = |r: &JsonlReport| r.meta.as_ref()?.pointer("/options/check_ns")?.as_bool();
    let ns_compared = match (check_ns(&old), check_ns(&new)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    let (mut old_rows, mut new_rows) = (findings(&old), findings(&new));
    if !ns_compared {
        for rows in [&mut old_rows, &mut new_rows] {
            rows.retain(|m| text(m, "kind") != "ns-mismatch");
        }
    }
    let compared: Vec<&'static str> =
        COMPARED.iter().copied().filter(|&k| ns_compared || k != "ns").collect();
    let old_by_id: HashMap<&str, &Map<String, Value>> =
        old_rows.iter().map(|m| (id(m), *m)).collect();
    let new_ids: std::collections::HashSet<&str> = new_rows.iter().map(|m| id(m)).collect();
    let mut d = Diff {
        old_meta: old.meta.clone(),
        new_meta: new.meta.clone(),
        holders,
        ns_compared,
        warnings: warnings(&old, &new, ns_compared),
        ..Diff::default()
    };
    let mut changed = Vec::new();
    for &m in &new_rows {
        match old_by_id.get(id(m)) {
            None => d.entries.push(Entry {
                change: Change::New,
                old: None,
                new: Some(m.clone()),
                changed: Vec::new(),
            }),
            Some(o) => {
                let fields: Vec<&'static str> =
                    compared.iter().copied().filter(|k| text(o, k) != text(m, k)).collect();
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
        if !new_ids.contains(id(o)) {
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
    let side = |m: &Option<Map<String, Value>>, k: &str| {
        m.as_ref().map(|m| text(m, k)).unwrap_or_default()
    };
    vec![
        e.change.as_str().to_string(),
        text(any, "kind"),
        text(any, "id"),
        text(any, "ulabel"),
        text(any, "alabel"),
        text(any, "index"),
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
                            e.old.as_ref().map(|m| text(m, k)).unwrap_or_default(),
                            e.new.as_ref().map(|m| text(m, k)).unwrap_or_default(),
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
