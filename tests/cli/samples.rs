//! The samples (issue #5, part 3): `lgrscan scan samples/FILE` with no
//! other argument finds exactly what `samples/README.md` says is planted,
//! and exactly the rows of `tests/expected/samples-FILE.csv`.
//!
//! `BLESS=1 cargo test --test cli samples` rewrites the expected files; review
//! the diff against the README like code.
#![cfg(feature = "cli")]

use crate::util::{assert_exit, check_against_rows, lgrscan, root, rows, stderr, stdout};
use std::collections::BTreeMap;

const SAMPLES: &[&str] = &["zone.txt", "czds.txt", "labels.csv"];

/// Runs the zero-config scan of one sample (CSV, since stdout is a pipe).
fn scan(name: &str) -> (String, String) {
    let path = format!("samples/{name}");
    let out = lgrscan(&["scan", &path]);
    assert_exit(&out, 1, &path);
    (stdout(&out), stderr(&out))
}

fn expected_path(name: &str) -> std::path::PathBuf {
    let stem = name.split('.').next().expect("file name");
    root().join("tests/expected").join(format!("samples-{stem}.csv"))
}

#[test]
fn samples_match_expected_output() {
    let bless = std::env::var("BLESS").is_ok_and(|v| v == "1");
    let mut failed = Vec::new();
    for name in SAMPLES {
        let (got, err) = scan(name);
        let path = expected_path(name);
        if bless {
            std::fs::write(&path, &got).expect("write expected file");
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
        if got != want {
            let diff: Vec<String> = want
                .lines()
                .zip(got.lines())
                .enumerate()
                .filter(|(_, (w, g))| w != g)
                .take(5)
                .map(|(i, (w, g))| format!("line {}:\n  want {w}\n  got  {g}", i + 1))
                .collect();
            failed.push(format!(
                "{name}: output differs from {} ({} vs {} lines)\n{}\n--- summary:\n{err}",
                path.display(),
                want.lines().count(),
                got.lines().count(),
                diff.join("\n")
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn samples_summary_adds_up() {
    for name in SAMPLES {
        let (out, err) = scan(name);
        let s = crate::util::summary(&err);
        check_against_rows(&s, &rows(&out), &err);
    }
}

/// Rows as (kind, role) pairs, sorted.
type Promise = Vec<(String, String)>;

/// What the README's table promises for one line: `none`, `invalid`,
/// `collision ROLE` or `collision ROLE + invalid`.
fn parse_promise(s: &str) -> Promise {
    let s = s.trim().trim_matches('`');
    if s == "none" {
        return Vec::new();
    }
    let mut v: Vec<(String, String)> = s
        .split(" + ")
        .map(|p| match p.trim().split_once(' ') {
            Some((k, role)) => (k.to_string(), role.to_string()),
            None => (p.trim().to_string(), String::new()),
        })
        .collect();
    v.sort();
    v
}

#[test]
fn samples_find_exactly_what_the_readme_plants() {
    let readme = std::fs::read_to_string(root().join("samples/README.md")).expect("README");
    // | file | line | label | A-label | finding | planted |
    let mut promised: BTreeMap<(String, u64), (String, Promise)> = BTreeMap::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 7 || !SAMPLES.contains(&cells[1].trim_matches('`')) {
            continue;
        }
        let Ok(n) = cells[2].parse::<u64>() else { continue };
        let key = (cells[1].trim_matches('`').to_string(), n);
        // Invisible characters are written as \u200D in the table.
        let label = cells[3].trim_matches('`').replace("\\u200D", "\u{200D}");
        assert!(
            promised.insert(key.clone(), (label, parse_promise(cells[5]))).is_none(),
            "{key:?} twice"
        );
    }
    assert!(promised.len() > 50, "README table not found ({} rows)", promised.len());
    let mut problems = Vec::new();
    for name in SAMPLES {
        let (out, _) = scan(name);
        let mut found: BTreeMap<u64, (String, Promise)> = BTreeMap::new();
        for r in rows(&out) {
            let e = found
                .entry(r["line"].parse().expect("line"))
                .or_insert_with(|| (r["ulabel"].clone(), Vec::new()));
            e.1.push((r["kind"].clone(), r["role"].clone()));
        }
        for (line, (label, mut got)) in found.clone() {
            got.sort();
            match promised.get(&(name.to_string(), line)) {
                None => problems.push(format!("{name}:{line} {label}: unplanned finding {got:?}")),
                Some((want_label, want)) => {
                    if *want_label != label || *want != got {
                        problems.push(format!(
                            "{name}:{line}: README says {want_label} {want:?}, scan gives {label} {got:?}"
                        ));
                    }
                }
            }
        }
        for ((file, line), (label, want)) in &promised {
            if file == name && !want.is_empty() && !found.contains_key(line) {
                problems.push(format!("{name}:{line} {label}: planted {want:?}, not found"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
