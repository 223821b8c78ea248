//! A JSON Lines report of `scan` read back ([`JsonlReport`]): its meta
//! record, its finding rows and its summary record, for `diff`, `report`,
//! `--baseline` and the HTML page.
//!
//! Each finding row is kept as the text of its [`FIELDS`] in one string
//! ([`ReportRow`]), not as a JSON object: a report of 300,000 rows took
//! 2 GB held as `serde_json` maps, 20 times its size on disk, where one
//! string per row takes little more than the line. A file is read a line
//! at a time, so it is never held whole either.

use super::findings::FIELDS;
use crate::scan::FindingKind;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::io::{self, BufRead};
use std::path::Path;

/// One finding row of a report: the text of each of [`FIELDS`], as the
/// text report shows it: a string as it is, `null` or absent empty, a
/// list (`ns`) `;`-joined, a number in decimal. A field the row does not
/// have, or that is not one of [`FIELDS`], is empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportRow {
    /// The values of [`FIELDS`], one after another.
    text: Box<str>,
    /// Where each value of [`FIELDS`] ends in `text`.
    ends: [u32; FIELDS.len()],
}

impl ReportRow {
    /// The row of a finding record (the values of [`FIELDS`] taken as
    /// [`ReportRow`] says); `None` if their text is over 4 GiB.
    pub fn from_record(m: &Map<String, Value>) -> Option<ReportRow> {
        let mut text = String::new();
        let mut ends = [0; FIELDS.len()];
        for (end, k) in ends.iter_mut().zip(FIELDS) {
            match m.get(*k) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => text.push_str(s),
                Some(Value::Array(a)) => {
                    for (i, v) in a.iter().enumerate() {
                        if i > 0 {
                            text.push(';');
                        }
                        text.push_str(v.as_str().unwrap_or_default());
                    }
                }
                Some(v) => text.push_str(&v.to_string()),
            }
            *end = u32::try_from(text.len()).ok()?;
        }
        Some(ReportRow { text: text.into_boxed_str(), ends })
    }

    /// The text of a field ([`ReportRow`] says how it is written).
    pub fn get(&self, field: &str) -> &str {
        let Some(i) = FIELDS.iter().position(|f| *f == field) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
}

/// Whether a row of a report is a finding that counts (as
/// [`super::scan::is_problem`] counts them): not the holder, an allocated
/// or a near member of a variant set, which are listed for context.
pub fn is_problem_row(row: &ReportRow) -> bool {
    row.get("kind") != "collision" || !matches!(row.get("role"), "holder" | "allocated" | "near")
}

/// A JSON Lines report read back.
#[derive(Clone, Debug, Default)]
pub struct JsonlReport {
    /// Its meta record.
    pub meta: Option<Value>,
    /// Its summary record.
    pub summary: Option<Value>,
    /// Its findings, in order.
    pub rows: Vec<ReportRow>,
    /// The name it was read under (its path), for warnings.
    pub name: String,
}

/// Why a file is not a JSON Lines report of `scan`.
const NOT_A_REPORT: &str =
    "not a JSON Lines report of lgrscan scan (it starts with its meta record)";

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

    /// Reads a JSON Lines report of `scan`, a line at a time.
    ///
    /// # Errors
    /// Reading the file; what [`JsonlReport::parse`] refuses; a report of
    /// a run that failed on dropped lines
    /// ([`JsonlReport::must_be_accepted`]).
    pub fn read(path: &Path) -> io::Result<JsonlReport> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        let report = parse_lines(io::BufReader::with_capacity(1 << 16, file), &name)?;
        report.must_be_accepted(&name)?;
        Ok(report)
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
    /// record that is not last, or either missing, or finding rows other
    /// than the summary counts, naming `name` and the line.
    pub fn parse(text: &str, name: &str) -> io::Result<JsonlReport> {
        parse_lines(text.as_bytes(), name)
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
}

/// [`JsonlReport::parse`] of the lines of `input`.
fn parse_lines(mut input: impl BufRead, name: &str) -> io::Result<JsonlReport> {
    let bad = |n: usize, m: &str| {
        io::Error::new(io::ErrorKind::InvalidData, format!("{name}:{}: {m}", n + 1))
    };
    let mut r = JsonlReport { name: name.to_string(), ..JsonlReport::default() };
    let mut ids = HashSet::new();
    let (mut buf, mut n, mut last) = (Vec::new(), 0, 0);
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf).map_err(|e| bad(n, &e.to_string()))? == 0 {
            break;
        }
        let mut bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
        bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if n == 0 {
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        let Ok(line) = std::str::from_utf8(bytes) else {
            let gzip =
                if n == 0 && bytes.starts_with(&[0x1f, 0x8b]) { " (a gzip file?)" } else { "" };
            return Err(bad(n, &format!("not UTF-8{gzip}")));
        };
        n += 1;
        if line.trim().is_empty() {
            continue;
        }
        last = n - 1;
        record(&mut r, &mut ids, line).map_err(|m| bad(n - 1, &m))?;
    }
    if r.meta.is_none() {
        let why = if n == 0 {
            "empty: not a report (its scan failed, or was not run?)"
        } else {
            NOT_A_REPORT
        };
        return Err(bad(0, why));
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

/// Takes one line of a report into `r`; `ids` are the finding ids seen.
/// The error is what is wrong with the line.
fn record(r: &mut JsonlReport, ids: &mut HashSet<u64>, line: &str) -> Result<(), String> {
    if r.summary.is_some() {
        return Err("a record after the summary record, which ends a report".into());
    }
    let Value::Object(m) = serde_json::from_str(line).map_err(|e| e.to_string())? else {
        return Err("not a JSON object".into());
    };
    let kind = m.get("kind").and_then(Value::as_str);
    if r.meta.is_none() && kind != Some("meta") {
        return Err(NOT_A_REPORT.into());
    }
    match kind {
        Some("meta") if r.meta.is_some() => {
            return Err("a second meta record (two reports joined?)".into());
        }
        Some("meta") => r.meta = Some(Value::Object(m)),
        Some("summary") => r.summary = Some(Value::Object(m)),
        _ => {
            let Some(id) = m.get("id").and_then(Value::as_str) else {
                return Err(
                    "a finding without an id (not a JSON Lines report of lgrscan scan)".into()
                );
            };
            // Findings are matched by id: an unknown kind, an id that no
            // scan writes or one given twice would be miscounted, not
            // compared.
            let Some(kind) = kind.filter(|&k| FindingKind::ALL.iter().any(|f| f.as_str() == k))
            else {
                return Err(kind.map_or("a record with no kind".to_string(), |k| {
                    format!("a record of unknown kind {k:?}")
                }));
            };
            let hex = id.len() == 16 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            let Some(number) = hex.then(|| u64::from_str_radix(id, 16).ok()).flatten() else {
                return Err(format!(
                    "{kind} finding id {id:?} is not 16 lower-case hex digits (as scan writes them)"
                ));
            };
            if !ids.insert(number) {
                return Err(format!("finding id {id} a second time"));
            }
            r.rows.push(ReportRow::from_record(&m).ok_or("a finding over 4 GiB")?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: Value) -> ReportRow {
        ReportRow::from_record(v.as_object().unwrap()).unwrap()
    }

    #[test]
    fn a_row_keeps_each_field_as_the_text_report_shows_it() {
        let r = row(serde_json::json!({"kind":"collision","id":"0123456789abcdef","line":7,
            "ulabel":"१२३","holder":null,"ns":["a.example.","b.example."],"other":"x"}));
        assert_eq!(r.get("kind"), "collision");
        assert_eq!(r.get("line"), "7");
        assert_eq!(r.get("ulabel"), "१२३");
        assert_eq!(r.get("holder"), "", "null");
        assert_eq!(r.get("registrar"), "", "absent");
        assert_eq!(r.get("ns"), "a.example.;b.example.");
        assert_eq!(r.get("other"), "", "not one of FIELDS");
        assert_eq!(r.get("no such field"), "");
        assert_eq!(ReportRow::default().get("id"), "");
    }

    #[test]
    fn lines_are_named_as_read() {
        let meta = r#"{"kind":"meta"}"#;
        let finding = r#"{"kind":"invalid","id":"0123456789abcdef","ulabel":"a-"}"#;
        let summary = r#"{"kind":"summary","findings":{"total":1}}"#;
        let text = format!("\u{feff}{meta}\r\n\n{finding}\n{summary}\n");
        let r = JsonlReport::parse(&text, "r.jsonl").unwrap();
        assert_eq!(r.rows.len(), 1);
        assert_eq!(r.rows[0].get("ulabel"), "a-");
        let twice = format!("{meta}\n{finding}\n{finding}\n{summary}\n");
        let e = JsonlReport::parse(&twice, "r.jsonl").unwrap_err().to_string();
        assert_eq!(e, "r.jsonl:3: finding id 0123456789abcdef a second time");
        let e = JsonlReport::parse("", "r.jsonl").unwrap_err().to_string();
        assert!(e.starts_with("r.jsonl:1: empty: not a report"), "{e}");
        let bytes = [meta.as_bytes(), b"\n", finding.as_bytes(), b"\n\xff\n"].concat();
        let e = parse_lines(&bytes[..], "r.jsonl").unwrap_err().to_string();
        assert_eq!(e, "r.jsonl:3: not UTF-8");
    }
}
