//! Baselines (`scan --baseline FILE`): findings on record, reported with
//! status `accepted`, counted apart and no cause for exit status 1.
//!
//! A baseline is either
//! - a previous JSON Lines report of `scan` (its first octet is `{`),
//!   whole (as [`super::jsonl::JsonlReport::parse`] reads it): every
//!   finding id in it is accepted; or
//! - an allowlist CSV with a header naming `id`, `bundle` and `note`
//!   columns (in any order, other columns ignored). Each row accepts one
//!   finding id, or one variant bundle: labels (A-labels or U-labels)
//!   separated by `;` or spaces. A bundle accepts the collision rows of
//!   every variant set all of whose members (but `near` ones) are in it
//!   (a set that gains a member outside the bundle is open again). The note says why the
//!   exception is on record; an allowlist row that matches nothing is
//!   reported as stale.

use super::findings::{RowContext, Status};
use crate::scan::{FindingKind, Report, Role};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::path::Path;

/// One allowlist row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its line in the file.
    pub line: u64,
    /// A finding id, or empty.
    pub id: String,
    /// The bundle's labels (lower case), or empty.
    pub bundle: Vec<String>,
    /// Why it is on record.
    pub note: String,
}

impl Entry {
    /// The entry as text, for the list of stale entries.
    pub fn describe(&self, path: &Path) -> String {
        let what = if self.id.is_empty() {
            format!("bundle {}", self.bundle.join(";"))
        } else {
            format!("id {}", self.id)
        };
        let note = if self.note.is_empty() { String::new() } else { format!(" ({})", self.note) };
        format!("{}:{}: {what}{note}", path.display(), self.line)
    }
}

/// A baseline read from a file.
#[derive(Clone, Debug, Default)]
pub struct Baseline {
    path: std::path::PathBuf,
    /// Ids from a previous report (not reported as stale).
    report_ids: HashSet<String>,
    /// Allowlist rows.
    entries: Vec<Entry>,
    /// A previous report's apex (its summary's) and variant LGR digest (its
    /// meta record's): finding ids hash the variant LGR, and a report of
    /// another zone is taken to accept nothing (see [`Baseline::apply`]).
    report_apex: Option<String>,
    report_variants: Option<String>,
}

/// An error naming `path:line`.
fn bad(path: &Path, line: u64, msg: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{}:{line}: {msg}", path.display()))
}

impl Baseline {
    /// Reads a baseline (see the module documentation).
    ///
    /// # Errors
    /// Reading the file; a line that is not a JSON object or a CSV row
    /// without an id or bundle, naming the file and line.
    pub fn read(path: &Path) -> io::Result<Baseline> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let mut b = Baseline { path: path.to_path_buf(), ..Baseline::default() };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        if text.trim().is_empty() {
            return Err(bad(path, 1, "empty: neither a JSON Lines report nor an allowlist"));
        }
        if text.trim_start().starts_with('{') {
            let report = super::jsonl::JsonlReport::parse(text, &path.display().to_string())?;
            b.report_apex = report.apex().map(String::from);
            b.report_variants = report.variant_digest().map(String::from);
            // Only the findings on record: a holder's or an allocated
            // member's row is context, and its id must not accept the
            // same label once it is a conflicting member (as `diff`, which
            // calls that finding new).
            b.report_ids = report
                .rows
                .iter()
                .filter(|m| super::jsonl::is_problem_row(m))
                .map(|m| m.get("id").to_string())
                .collect();
            return Ok(b);
        }
        b.entries = read_allowlist(path, text)?;
        Ok(b)
    }

    /// The status of each finding of `report` and the allowlist rows that
    /// matched none, as text ([`Entry::describe`]). A previous report of
    /// another zone (apex) accepts nothing: finding ids do not hash the
    /// zone, and `example.`'s `123` is not `other.`'s.
    pub fn apply(&self, rows: &RowContext<'_>, report: &Report) -> (Vec<Status>, Vec<String>) {
        let labels = rows.labels();
        let other_zone = matches!(
            (self.report_apex.as_deref(), labels.apex()),
            (Some(a), Some(b)) if a != b
        );
        let report_ids = if other_zone { &HashSet::new() } else { &self.report_ids };
        let mut status = vec![Status::Open; report.findings.len()];
        let mut used = vec![false; self.entries.len()];
        let ids: HashMap<&str, usize> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.id.is_empty())
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        // The collision rows of each group, by group number.
        let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, f) in report.findings.iter().enumerate() {
            // A holder's, an allocated or a near member's row is context:
            // an id that names one accepts nothing (and is stale).
            if super::scan::is_problem(f) {
                let id = rows.id(f);
                if report_ids.contains(&id) {
                    status[i] = Status::Accepted;
                }
                if let Some(&e) = ids.get(id.as_str()) {
                    status[i] = Status::Accepted;
                    used[e] = true;
                }
            }
            if let (FindingKind::Collision, Some(g)) = (f.kind, f.group) {
                groups.entry(g).or_default().push(i);
            }
        }
        let bundles: Vec<(usize, HashSet<&str>)> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.bundle.is_empty())
            .map(|(i, e)| (i, e.bundle.iter().map(String::as_str).collect()))
            .collect();
        for members in groups.values() {
            // A near member (a variant of the holder in neither
            // direction) need not be in the bundle.
            let names: Vec<(String, String)> = members
                .iter()
                .filter(|&&i| report.findings[i].role != Some(Role::Near))
                .filter_map(|&i| labels.get(report.findings[i].label))
                .map(|l| (l.alabel().to_lowercase(), l.ulabel().to_lowercase()))
                .collect();
            for (e, set) in &bundles {
                if names.iter().all(|(a, u)| set.contains(a.as_str()) || set.contains(u.as_str())) {
                    used[*e] = true;
                    for &i in members {
                        status[i] = Status::Accepted;
                    }
                }
            }
        }
        let stale = self
            .entries
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(e, _)| e.describe(&self.path))
            .collect();
        (status, stale)
    }

    /// Why a previous report cannot match the findings of a scan of zone
    /// `apex` with the variant LGR of SHA-256 `variants` (none, when it
    /// can, or either side does not say): as `diff` warns.
    pub fn mismatches(&self, apex: Option<&str>, variants: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(a), Some(b)) = (self.report_apex.as_deref(), apex)
            && a != b
        {
            out.push(format!("it audits another zone ({a}, this scan {b})"));
        }
        if let (Some(a), Some(b)) = (self.report_variants.as_deref(), variants)
            && a != b
        {
            out.push("it was scanned with another variant LGR".to_string());
        }
        out
    }

    /// The allowlist rows (empty for a report baseline).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
}

/// Whether `id` is a finding id: 16 lower-case hex digits
/// ([`super::findings::finding_id`]).
fn is_finding_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn read_allowlist(path: &Path, text: &str) -> io::Result<Vec<Entry>> {
    let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let header = r.headers().map_err(|e| bad(path, 1, e))?.clone();
    let named = |name: &str| header.iter().filter(|h| h.trim().eq_ignore_ascii_case(name)).count();
    if let Some(twice) = ["id", "bundle", "note"].into_iter().find(|&n| named(n) > 1) {
        return Err(bad(path, 1, format!("two `{twice}` columns in the header")));
    }
    let col = |name: &str| header.iter().position(|h| h.trim().eq_ignore_ascii_case(name));
    let (id, bundle, note) = (col("id"), col("bundle"), col("note"));
    if note.is_none() || (id.is_none() && bundle.is_none()) {
        return Err(bad(
            path,
            1,
            "an allowlist needs a `note` column and an `id` or `bundle` column (or is a JSON Lines report)",
        ));
    }
    let mut lines = crate::csv_lines::CsvLines::new(text.as_bytes());
    let mut entries: Vec<Entry> = Vec::new();
    let mut ids: HashMap<String, u64> = HashMap::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| bad(path, e.position().map_or(0, |p| lines.at(p.byte())), &e))?;
        let line = rec.position().map_or(0, |p| lines.at(p.byte()));
        let get = |c: Option<usize>| c.and_then(|c| rec.get(c)).unwrap_or_default().trim();
        let e = Entry {
            line,
            id: get(id).to_ascii_lowercase(),
            bundle: get(bundle)
                .split(|c: char| c == ';' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|s| s.trim_end_matches('.').to_lowercase())
                .collect(),
            note: get(note).to_string(),
        };
        if e.id.is_empty() && e.bundle.is_empty() {
            if rec.iter().all(|f| f.trim().is_empty()) {
                continue;
            }
            return Err(bad(path, line, "neither an id nor a bundle"));
        }
        if !e.id.is_empty() && !e.bundle.is_empty() {
            return Err(bad(path, line, "both an id and a bundle: one per row"));
        }
        if get(bundle).contains(['\n', '\r', '"', ',']) {
            let msg = "a bundle spans lines or holds a quote or comma (a quote left open?)";
            return Err(bad(path, line, msg));
        }
        if e.bundle.len() == 1 {
            return Err(bad(path, line, "a bundle names two labels or more"));
        }
        if !e.id.is_empty() && !is_finding_id(&e.id) {
            let shown = super::terminal::escape_for_terminal(&e.id);
            let msg = format!("{shown:?} is not a finding id (16 hex digits; a quote left open?)");
            return Err(bad(path, line, msg));
        }
        // A quote left open swallows the rows after it into one field,
        // to the end of the file: no row of an allowlist spans lines.
        if rec.iter().any(|f| f.contains(['\n', '\r'])) {
            let msg = "a field spans lines (a quote left open? a note is one line)";
            return Err(bad(path, line, msg));
        }
        if !e.id.is_empty()
            && let Some(first) = ids.insert(e.id.clone(), line)
        {
            return Err(bad(path, line, format!("id {} again (first on line {first})", e.id)));
        }
        entries.push(e);
    }
    Ok(entries)
}
