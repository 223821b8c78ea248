//! Helpers for the tests that run the `lgrscan` binary: running it from
//! the package root, and reading the summary it prints on standard error.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The package root; commands run there, so `samples/zone.txt` and
/// `tests/data/...` are valid relative paths and appear as such in the
/// `source` column.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `lgrscan ARGS` in the package root.
pub fn lgrscan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lgrscan"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run lgrscan")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the exit code, showing both streams when it differs.
pub fn assert_exit(o: &Output, code: i32, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{what}: exit status\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(o)
    );
}

/// One row of the CSV output, by column name.
pub type Row = std::collections::BTreeMap<String, String>;

/// Parses the CSV output of `scan`.
pub fn rows(csv_text: &str) -> Vec<Row> {
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("CSV record");
            headers.iter().zip(rec.iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect()
        })
        .collect()
}

/// The counts of the summary `scan` prints on standard error.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub lines: u64,
    pub line_parts: Vec<u64>,
    pub records: u64,
    pub record_parts: Vec<u64>,
    pub labels: u64,
    pub per_lgr: Vec<u64>,
    pub invalid: u64,
    pub families: Vec<(u64, String)>,
    pub groups: u64,
    pub conflict_groups: u64,
    pub conflicts: u64,
    pub allocated: u64,
    /// Near members (verified grouping only; 0 otherwise).
    pub near: u64,
}

/// All the numbers in `s`, in order.
fn numbers(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect()
}

/// Parses the summary and checks that its parts add up: lines, records
/// (apex + registered + duplicates + deeper + outside), labels per LGR,
/// invalid labels per family.
///
/// # Panics
/// When a line is missing or a sum does not hold.
pub fn summary(stderr: &str) -> Summary {
    let mut s = Summary::default();
    let mut section = "";
    let mut seen = 0;
    for line in stderr.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("input: ") {
            // "N bytes, L lines (R records, B blank, C comments, D directives, K continuation, M malformed)"
            let n = numbers(rest);
            s.lines = n[1];
            s.line_parts = n[2..].to_vec();
            seen |= 1;
        } else if let Some(rest) = t.strip_prefix("records: ") {
            let n = numbers(rest);
            s.records = n[0];
            s.record_parts = n[1..].to_vec();
            seen |= 2;
        } else if let Some(rest) = t.strip_prefix("labels judged: ") {
            s.labels = numbers(rest)[0];
            section = "lgr";
            seen |= 4;
        } else if t.starts_with("scripts: ") {
            section = "";
        } else if let Some(rest) = t.strip_prefix("invalid: ") {
            s.invalid = numbers(rest)[0];
            section = "family";
            seen |= 8;
        } else if let Some(rest) = t.strip_prefix("variant LGR: ") {
            let rest = rest.split_once("; ").expect("variant LGR name").1;
            let n = numbers(rest);
            (s.groups, s.conflict_groups, s.conflicts, s.allocated) = (n[0], n[1], n[2], n[3]);
            s.near = n.get(4).copied().unwrap_or(0);
            section = "";
            seen |= 16;
        } else if section == "lgr" {
            let n = t.rsplit_once(": ").expect("LGR count line").1;
            s.per_lgr.push(n.parse().expect("LGR count"));
        } else if section == "family" {
            let (n, fam) = t.split_once("  ").expect("family line");
            s.families.push((n.trim().parse().expect("family count"), fam.trim().to_string()));
        }
    }
    assert_eq!(seen, 31, "summary lines missing:\n{stderr}");
    let sum = |v: &[u64]| v.iter().sum::<u64>();
    // record lines + blank + comments + directives + continuation + malformed
    assert_eq!(sum(&s.line_parts), s.lines, "line parts do not add up:\n{stderr}");
    assert_eq!(s.record_parts.len(), 5, "{stderr}");
    assert_eq!(sum(&s.record_parts), s.records, "record parts do not add up:\n{stderr}");
    assert_eq!(s.record_parts[1], s.labels, "registered labels = labels judged:\n{stderr}");
    assert_eq!(sum(&s.per_lgr), s.labels, "labels per LGR do not add up:\n{stderr}");
    assert_eq!(*s.per_lgr.last().unwrap(), s.invalid, "(none: invalid) = invalid:\n{stderr}");
    let fam: u64 = s.families.iter().map(|f| f.0).sum();
    assert_eq!(fam, s.invalid, "invalid families do not add up:\n{stderr}");
    assert!(s.conflict_groups <= s.groups, "{stderr}");
    s
}

/// Checks the summary against the CSV findings: invalid rows, conflict
/// groups, conflicting members (rows that are neither holder nor
/// allocated).
pub fn check_against_rows(s: &Summary, rows: &[Row], stderr: &str) {
    let invalid = rows.iter().filter(|r| r["kind"] == "invalid").count() as u64;
    assert_eq!(invalid, s.invalid, "invalid rows vs summary:\n{stderr}");
    let mut groups: Vec<&str> =
        rows.iter().filter(|r| r["kind"] == "collision").map(|r| r["group"].as_str()).collect();
    groups.dedup();
    assert_eq!(groups.len() as u64, s.conflict_groups, "groups vs summary:\n{stderr}");
    let conflicts = rows
        .iter()
        .filter(|r| r["kind"] == "collision")
        .filter(|r| !["holder", "allocated", "near"].contains(&r["role"].as_str()))
        .count() as u64;
    assert_eq!(conflicts, s.conflicts, "conflicting rows vs summary:\n{stderr}");
    let near = rows.iter().filter(|r| r["role"] == "near").count() as u64;
    assert_eq!(near, s.near, "near rows vs summary:\n{stderr}");
    let holders = rows.iter().filter(|r| r["role"] == "holder").count() as u64;
    assert_eq!(holders, s.conflict_groups, "one holder per group:\n{stderr}");
}

/// A fresh empty directory under the target directory.
pub fn temp_dir(name: &str) -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = base.join(format!("lgrscan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}
