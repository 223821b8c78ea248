//! Baselines and diffs (issue #30, item 3): `scan --baseline` accepts
//! exactly the findings of its file and lists stale allowlist entries;
//! `lgrscan diff` finds exactly the findings added, removed and changed
//! between two generated zones; the root zone with its three accepted
//! variant bundles exits 0; an incomplete report, a malformed allowlist
//! are errors naming file and line.
#![cfg(feature = "cli")]

use crate::util::{assert_exit, lgrscan, stdout, temp_dir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const LGR: &str = "tests/data/lgr/allocatable.xml";
const CSV: &str = "tests/data/report/contract.csv";

fn records(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// Runs a JSON Lines scan into `out`; returns its records.
fn scan_to(args: &[&str], out: &Path, code: i32) -> Vec<Value> {
    let mut a = vec!["scan", "--format", "jsonl", "-o", out.to_str().unwrap()];
    a.extend_from_slice(args);
    let o = lgrscan(&a);
    assert_exit(&o, code, &format!("{a:?}"));
    records(&std::fs::read_to_string(out).unwrap())
}

fn rows(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["kind"] != "meta" && r["kind"] != "summary").collect()
}

#[test]
fn allowlist_accepts_exactly_its_findings_and_lists_stale_entries() {
    let dir = temp_dir("baseline-allow");
    let first = scan_to(&["--lgr", LGR, CSV], &dir.join("a.jsonl"), 1);
    let same_ba = rows(&first)
        .into_iter()
        .find(|r| r["kind"] == "same-entity" && r["alabel"] == "ba")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let allow = dir.join("allow.csv");
    std::fs::write(
        &allow,
        format!(
            "id,bundle,note\n{same_ba},,registrar transfer pending\n,ca;cb,\"one registrant, two brands\"\n,xx;xy,gone\nffffffffffffffff,,gone too\n"
        ),
    )
    .unwrap();
    let got = scan_to(
        &["--lgr", LGR, CSV, "--baseline", allow.to_str().unwrap()],
        &dir.join("b.jsonl"),
        1,
    );
    let accepted: BTreeSet<(String, String)> = rows(&got)
        .iter()
        .filter(|r| r["status"] == "accepted")
        .map(|r| (r["kind"].as_str().unwrap().into(), r["alabel"].as_str().unwrap().into()))
        .collect();
    // The holder `ca`'s row is context: no status.
    let want: BTreeSet<(String, String)> = [("same-entity", "ba"), ("collision", "cb")]
        .iter()
        .map(|(k, a)| (k.to_string(), a.to_string()))
        .collect();
    assert_eq!(accepted, want);
    // cb's same-entity row is not part of the bundle's collision: still open.
    let s = got.last().unwrap();
    assert_eq!(s["findings"]["accepted"], 2, "{s}");
    assert_eq!(s["findings"]["open"], 1, "{s}");
    let stale: Vec<&str> = s["stale_baseline_entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(stale.len(), 2, "{stale:?}");
    assert!(stale[0].ends_with(":4: bundle xx;xy (gone)"), "{stale:?}");
    assert!(stale[1].ends_with(":5: id ffffffffffffffff (gone too)"), "{stale:?}");

    // Everything on record: exit 0.
    let all = dir.join("all.csv");
    let cb =
        rows(&got).into_iter().find(|r| r["kind"] == "same-entity" && r["alabel"] == "cb").unwrap();
    std::fs::write(&all, format!("id,note\n{same_ba},a\n{},b\n", cb["id"].as_str().unwrap()))
        .unwrap();
    let o = lgrscan(&["scan", "--lgr", LGR, CSV, "--baseline", all.to_str().unwrap()]);
    assert_exit(&o, 1, "the ca/cb collision is still open");
    // A previous report as the baseline: all of it accepted.
    let o =
        lgrscan(&["scan", "--lgr", LGR, CSV, "--baseline", dir.join("a.jsonl").to_str().unwrap()]);
    assert_exit(&o, 0, "report baseline");
    // A malformed allowlist names its file and line.
    std::fs::write(&all, "id,note\n,nothing\n").unwrap();
    let o = lgrscan(&["scan", "--lgr", LGR, CSV, "--baseline", all.to_str().unwrap()]);
    assert_exit(&o, 2, "bad allowlist");
    assert!(
        crate::util::stderr(&o).contains("all.csv:2: neither an id nor a bundle"),
        "{}",
        crate::util::stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A zone under the allocatable LGR: `labels` as (owner, NS target).
fn zone(path: &Path, labels: &[(&str, &str)]) {
    let mut z = String::from("$ORIGIN test.\n@ SOA ns.test. host.test. 1 2 3 4 5\n@ NS ns.test.\n");
    for (l, ns) in labels {
        z.push_str(&format!("{l} NS {ns}\n"));
    }
    std::fs::write(path, z).unwrap();
}

#[test]
fn diff_finds_exactly_the_changes() {
    let dir = temp_dir("diff");
    // Unrelated labels (letters c..z only: no variants), many of them.
    let filler: Vec<String> = (0..200)
        .map(|i| {
            let s: String =
                format!("{i:03}").bytes().map(|d| char::from(b'k' + (d - b'0'))).collect();
            format!("zq{s}")
        })
        .collect();
    let mut old: Vec<(&str, &str)> = vec![
        ("aa", "n1.example."),
        ("ab", "n1.example."),
        ("ca", "n1.example."),
        ("cb", "n1.example."),
        ("x9", "n1.example."),
    ];
    old.extend(filler[..100].iter().map(|f| (f.as_str(), "n1.example.")));
    let mut new: Vec<(&str, &str)> = vec![
        ("y9", "n1.example."),
        ("aa", "n1.example."),
        ("ab", "n2.example."),
        ("ca", "n1.example."),
    ];
    new.extend(filler.iter().rev().map(|f| (f.as_str(), "n1.example.")));
    let (zo, zn) = (dir.join("old.zone"), dir.join("new.zone"));
    zone(&zo, &old);
    zone(&zn, &new);
    let (ro, rn) = (dir.join("old.jsonl"), dir.join("new.jsonl"));
    scan_to(&["--lgr", LGR, "--check-ns", zo.to_str().unwrap()], &ro, 1);
    scan_to(&["--lgr", LGR, "--check-ns", zn.to_str().unwrap()], &rn, 1);
    let o = lgrscan(&["diff", ro.to_str().unwrap(), rn.to_str().unwrap(), "--format", "jsonl"]);
    assert_exit(&o, 1, "new findings");
    let d = records(&stdout(&o));
    assert_eq!(d[0]["kind"], "diff-meta");
    assert_eq!(d[0]["old"]["inputs"][0]["path"], zo.to_str().unwrap());
    assert_eq!(d[0]["new"]["inputs"][0]["path"], zn.to_str().unwrap());
    let got: BTreeSet<(String, String, String, String)> = d[1..d.len() - 1]
        .iter()
        .map(|r| {
            let s = |k: &str| match &r[k] {
                Value::Array(a) => {
                    a.iter().map(|v| v.as_str().unwrap()).collect::<Vec<_>>().join(";")
                }
                v => v.as_str().unwrap_or("").to_string(),
            };
            (s("change"), s("kind"), s("alabel"), s("changed"))
        })
        .collect();
    let want: BTreeSet<(String, String, String, String)> = [
        ("new", "invalid", "y9", ""),
        ("new", "ns-mismatch", "ab", ""),
        ("changed", "collision", "ab", "ns"),
        ("resolved", "invalid", "x9", ""),
        // ca, cb's holder, is no finding: its row is context, not diffed.
        ("resolved", "collision", "cb", ""),
    ]
    .iter()
    .map(|(a, b, c, e)| (a.to_string(), b.to_string(), c.to_string(), e.to_string()))
    .collect();
    assert_eq!(got, want);
    let s = d.last().unwrap();
    assert_eq!(
        (s["new"].as_u64(), s["resolved"].as_u64(), s["changed"].as_u64()),
        (Some(2), Some(2), Some(1))
    );
    assert_eq!(s["unchanged"], 0, "aa's holder row is no finding");
    // CSV and text carry the same entries; no new finding: exit 0.
    let o = lgrscan(&["diff", ro.to_str().unwrap(), rn.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(crate::util::rows(&stdout(&o)).len(), 5);
    let o = lgrscan(&["diff", ro.to_str().unwrap(), rn.to_str().unwrap(), "--format", "text"]);
    assert!(
        stdout(&o).contains("findings: 2 new, 2 resolved, 1 changed, 0 unchanged"),
        "{}",
        stdout(&o)
    );
    let o = lgrscan(&["diff", rn.to_str().unwrap(), rn.to_str().unwrap()]);
    assert_exit(&o, 0, "a report against itself");
    // Not a JSON Lines report: an error naming the file and line.
    let o = lgrscan(&["diff", CSV, rn.to_str().unwrap()]);
    assert_exit(&o, 2, "a CSV file");
    assert!(crate::util::stderr(&o).contains("contract.csv:1:"), "{}", crate::util::stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The root zone of 2018 holds three variant bundles ICANN delegated on
/// purpose (ভারত / ভাৰত, 中国 / 中國, 台湾 / 台灣): with them on record,
/// the scan exits 0 and reports 3 accepted findings.
#[test]
fn root_zone_with_its_accepted_bundles_exits_0() {
    let Some(reference) = crate::util::reference_dir() else { return };
    let zone = reference.join("zones/root-2018-03-12.zone");
    if !zone.exists() {
        assert!(!crate::util::required(), "{} missing", zone.display());
        return;
    }
    let lgr = reference.join("lgr/lgr-5-common-26may22-en.xml");
    let dir = temp_dir("baseline-root");
    let allow = dir.join("root-allow.csv");
    std::fs::write(
        &allow,
        "bundle,note\n\"中国;中國\",CNNIC\n\"台湾;台灣\",TWNIC\n\"ভারত;ভাৰত\",NIXI\n",
    )
    .unwrap();
    let out = dir.join("root.jsonl");
    let r = scan_to(
        &[
            "--lgr",
            lgr.to_str().unwrap(),
            zone.to_str().unwrap(),
            "--baseline",
            allow.to_str().unwrap(),
        ],
        &out,
        0,
    );
    let s = r.last().unwrap();
    assert_eq!(s["findings"]["accepted"], 3, "{s}");
    assert_eq!(s["findings"]["open"], 0, "{s}");
    assert_eq!(s["stale_baseline_entries"].as_array().unwrap().len(), 0);
    assert_eq!(r[0]["inputs"][0]["soa_serial"], 2018031200u64);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report that is empty or cut short at a line end (a failed or
/// interrupted run's) is an error for `diff`, `report` and `--baseline`,
/// never a report whose findings all look resolved; a byte order mark
/// before a whole one is skipped.
#[test]
fn incomplete_reports_are_errors() {
    // The report with its first finding line edited by `f`.
    fn edited(lines: &[&str], f: impl Fn(&str) -> String) -> String {
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        out[1] = f(lines[1]);
        out.join("\n") + "\n"
    }
    let dir = temp_dir("incomplete");
    let whole = dir.join("whole.jsonl");
    let records = scan_to(&["--lgr", LGR, CSV], &whole, 1);
    assert!(records.len() > 3);
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cases = [
        ("empty.jsonl", String::new(), "empty: not a report"),
        ("cut.jsonl", lines[..lines.len() - 1].join("\n") + "\n", "without its summary"),
        ("headless.jsonl", lines[1..].join("\n") + "\n", "not a JSON Lines report"),
        ("twice.jsonl", format!("{text}{text}"), "after the summary record"),
        ("dup.jsonl", edited(&lines, |l| format!("{l}\n{l}")), "a second time"),
        (
            "kind.jsonl",
            edited(&lines, |l| l.replacen("\"kind\":\"", "\"kind\":\"x", 1)),
            "unknown kind",
        ),
        (
            "id.jsonl",
            edited(&lines, |l| l.replacen("\"id\":\"", "\"id\":\"zz", 1)),
            "16 lower-case hex digits",
        ),
        (
            "nokind.jsonl",
            edited(&lines, |l| l.replacen("\"kind\":", "\"kin\":", 1)),
            "a record with no kind",
        ),
    ];
    let w = whole.to_str().unwrap();
    for (name, body, why) in cases {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        let p = p.to_str().unwrap();
        for args in [
            vec!["diff", w, p],
            vec!["diff", p, w],
            vec!["report", w, p, "-o", "/dev/null"],
            vec!["scan", "--lgr", LGR, CSV, "-o", "/dev/null", "--baseline", p],
        ] {
            let o = lgrscan(&args);
            assert_exit(&o, 2, &format!("{args:?}"));
            let err = crate::util::stderr(&o);
            // An empty baseline is no allowlist either.
            let why = if args[0] == "scan" && name == "empty.jsonl" {
                "empty: neither a JSON Lines report nor an allowlist"
            } else {
                why
            };
            assert!(err.contains(&format!("{name}:")) && err.contains(why), "{args:?}: {err}");
        }
    }
    let bom = dir.join("bom.jsonl");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let o = lgrscan(&["diff", w, bom.to_str().unwrap()]);
    assert_exit(&o, 0, "a report with a byte order mark against itself");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `diff` compares findings, as the scans count them: a variant allocated
/// to its holder's registrant is no new finding, and a report's holder
/// rows are not counted unchanged.
#[test]
fn diff_counts_what_the_scans_count() {
    let dir = temp_dir("diff-counts");
    let (c1, c2) = (dir.join("m1.csv"), dir.join("m2.csv"));
    std::fs::write(&c1, "label,registrant\nآئینہ,reg-1\nآئینۃ,reg-2\n").unwrap();
    std::fs::write(&c2, "label,registrant\nآئینہ,reg-1\nآئینۃ,reg-2\nآیٔینہ,reg-1\n").unwrap();
    let (j1, j2) = (dir.join("m1.jsonl"), dir.join("m2.jsonl"));
    let r1 = scan_to(&[c1.to_str().unwrap()], &j1, 1);
    let r2 = scan_to(&[c2.to_str().unwrap()], &j2, 1);
    let total = |r: &[Value]| r.last().unwrap()["findings"]["total"].as_u64().unwrap();
    assert_eq!((total(&r1), total(&r2)), (1, 1));
    assert!(rows(&r2).iter().any(|r| r["role"] == "allocated"));
    let o = lgrscan(&["diff", j1.to_str().unwrap(), j2.to_str().unwrap(), "--format", "text"]);
    assert_exit(&o, 0, "an allocated variant is no new finding");
    assert!(
        stdout(&o).contains("findings: 0 new, 0 resolved, 0 changed, 1 unchanged"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A JSON Lines baseline accepts the findings on record only: a label that
/// was its set's holder (a row for context, not a finding) and has become
/// a blocked member since is open, as `diff` calls it new.
#[test]
fn a_baseline_accepts_no_former_holder() {
    let dir = temp_dir("baseline-holder");
    let (c1, c2) = (dir.join("h1.csv"), dir.join("h2.csv"));
    std::fs::write(&c1, "label,registered\n123,2020-01-01\n१२३,2021-01-01\n").unwrap();
    std::fs::write(&c2, "label,registered\n123,2022-01-01\n१२३,2021-01-01\n").unwrap();
    let (j1, j2) = (dir.join("h1.jsonl"), dir.join("h2.jsonl"));
    scan_to(&["--holder", "registered", c1.to_str().unwrap()], &j1, 1);
    let args = ["--holder", "registered", c2.to_str().unwrap(), "--baseline", j1.to_str().unwrap()];
    let got = scan_to(&args, &j2, 1);
    let ascii = rows(&got).into_iter().find(|r| r["ulabel"] == "123").unwrap();
    assert_eq!((&ascii["role"], &ascii["status"]), (&"blocked".into(), &"open".into()));
    let o = lgrscan(&["diff", j1.to_str().unwrap(), j2.to_str().unwrap(), "--format", "text"]);
    assert_exit(&o, 1, "the former holder's row is a new finding");
    // An allowlist id that names a holder's row accepts nothing: stale.
    let holder = rows(&got).into_iter().find(|r| r["role"] == "holder").unwrap();
    let allow = dir.join("allow.csv");
    std::fs::write(&allow, format!("id,note\n{},the holder\n", holder["id"].as_str().unwrap()))
        .unwrap();
    let args =
        ["--holder", "registered", c2.to_str().unwrap(), "--baseline", allow.to_str().unwrap()];
    let last = scan_to(&args, &dir.join("h3.jsonl"), 1);
    assert_eq!(last.last().unwrap()["stale_baseline_entries"].as_array().map(Vec::len), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The text diff's meta table puts the n-th input and LGR of one report
/// beside the n-th of the other: with more of them on one side, the other
/// side's rows are blank (the new report's values were shifted onto the
/// old one's rows, an LGR's name beside an input's serial).
#[test]
fn diff_meta_rows_line_up() {
    let dir = temp_dir("diff-meta");
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&a, "123\n१२३\n").unwrap();
    std::fs::write(&b, "abc\n").unwrap();
    let (one, two) = (dir.join("one.jsonl"), dir.join("two.jsonl"));
    scan_to(&[a.to_str().unwrap()], &one, 1);
    let args = [a.to_str().unwrap(), b.to_str().unwrap(), "--lgr", "builtin:ascii"];
    scan_to(&args, &two, 1);
    let o = lgrscan(&["diff", one.to_str().unwrap(), two.to_str().unwrap(), "--format", "text"]);
    let out = stdout(&o);
    let row = |what: &str| -> Vec<String> {
        let line = out.lines().find(|l| l.trim_start().starts_with(what)).unwrap_or("");
        line[what.len() + 2..].split_whitespace().map(String::from).collect()
    };
    assert_eq!(row("input 2"), [b.to_str().unwrap()], "{out}");
    assert_eq!(row("lgr 1"), ["builtin:ascii", "1", "builtin:ascii", "1"], "{out}");
    assert_eq!(row("lgr 2"), ["builtin:devanagari", "1"], "{out}");
    assert_eq!(row("variant lgr"), ["builtin:common", "builtin:ascii"], "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report made with `--check-ns` and one made without compare their
/// findings, not what one side did not collect: the same zone is no
/// change (it read as every collision changed, the ns-mismatch resolved),
/// with a warning.
#[test]
fn diff_across_check_ns_compares_no_name_servers() {
    let dir = temp_dir("diff-check-ns");
    let (plain, ns) = (dir.join("plain.jsonl"), dir.join("ns.jsonl"));
    scan_to(&["samples/zone.txt"], &plain, 1);
    scan_to(&["samples/zone.txt", "--check-ns"], &ns, 1);
    for (a, b) in [(&ns, &plain), (&plain, &ns)] {
        let o = lgrscan(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--format", "text"]);
        assert_exit(&o, 0, "the same zone");
        assert!(stdout(&o).contains("findings: 0 new, 0 resolved, 0 changed"), "{}", stdout(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--check-ns and the other without"), "{err}");
    }
    let o = lgrscan(&["diff", ns.to_str().unwrap(), ns.to_str().unwrap(), "--format", "text"]);
    assert_exit(&o, 0, "the same report");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("--check-ns"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An export that lost its `registrant` column has no same-entity
/// findings: `diff` read each as resolved. Reports whose inputs named
/// different entity columns (the meta record's `entity_columns`) compare
/// no same-entity findings, with a warning.
#[test]
fn diff_across_entity_columns_compares_no_same_entity_findings() {
    let dir = temp_dir("diff-entity");
    let csv = std::fs::read_to_string("samples/labels.csv").unwrap();
    // The same export without its registrant column (the third).
    let dropped: String = csv
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(2);
            f.join(",") + "\n"
        })
        .collect();
    let input = dir.join("dropped.csv");
    std::fs::write(&input, dropped).unwrap();
    let (full, less) = (dir.join("full.jsonl"), dir.join("less.jsonl"));
    let full_records = scan_to(&["samples/labels.csv"], &full, 1);
    let less_records = scan_to(&[input.to_str().unwrap()], &less, 1);
    assert_eq!(full_records[0]["options"]["entity_columns"], serde_json::json!(["registrant"]));
    assert_eq!(less_records[0]["options"]["entity_columns"], serde_json::json!([]));
    let same_entity = rows(&full_records).iter().filter(|r| r["kind"] == "same-entity").count();
    assert!(same_entity > 0);
    let o = lgrscan(&["diff", full.to_str().unwrap(), less.to_str().unwrap(), "--format", "jsonl"]);
    let out = records(&stdout(&o));
    let resolved: Vec<&Value> =
        out.iter().filter(|r| r["change"] == "resolved" && r["kind"] == "same-entity").collect();
    assert!(resolved.is_empty(), "{resolved:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("different entity columns (old: registrant; new: neither)"), "{err}");
    let o = lgrscan(&["diff", full.to_str().unwrap(), full.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("entity columns"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report of another zone or another variant LGR as the baseline can
/// accept nothing (finding ids hash both): the scan says so, as `diff`
/// does (it said nothing).
#[test]
fn a_baseline_of_another_zone_is_warned_of() {
    let dir = temp_dir("baseline-other");
    let (czds, other) = (dir.join("czds.jsonl"), dir.join("other.jsonl"));
    scan_to(&["samples/czds.txt"], &czds, 1);
    scan_to(&["samples/zone.txt", "--variants", "builtin:devanagari"], &other, 1);
    for (baseline, why) in
        [(&czds, "another zone (tld., this scan example.)"), (&other, "another variant LGR")]
    {
        let o = lgrscan(&[
            "scan",
            "samples/zone.txt",
            "-q",
            "-o",
            "/dev/null",
            "--baseline",
            baseline.to_str().unwrap(),
        ]);
        assert_exit(&o, 1, "nothing accepted");
        let err = crate::util::stderr(&o);
        assert!(err.contains(why) && err.contains("none of its findings can match"), "{err}");
    }
    let same = dir.join("same.jsonl");
    scan_to(&["samples/zone.txt"], &same, 1);
    let o = lgrscan(&[
        "scan",
        "samples/zone.txt",
        "-q",
        "-o",
        "/dev/null",
        "--baseline",
        same.to_str().unwrap(),
    ]);
    assert_exit(&o, 0, "everything accepted");
    assert!(!crate::util::stderr(&o).contains("warning"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The ids of a merged variant LGR's findings do not depend on the order
/// of the `--lgr` flags, which the merge does not depend on either.
#[test]
fn merged_ids_do_not_depend_on_flag_order() {
    let dir = temp_dir("merged-order");
    let zone = "samples/zone.txt";
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    let ra = scan_to(&["--lgr", "builtin:devanagari", "--lgr", "builtin:khmer", zone], &a, 1);
    let rb = scan_to(&["--lgr", "builtin:khmer", "--lgr", "builtin:devanagari", zone], &b, 1);
    assert_eq!(ra[0]["variant_lgr"], rb[0]["variant_lgr"]);
    let ids = |r: &[Value]| -> BTreeSet<String> {
        rows(r).iter().filter(|r| r["kind"] == "collision").map(|r| r["id"].to_string()).collect()
    };
    assert!(!ids(&ra).is_empty());
    assert_eq!(ids(&ra), ids(&rb));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A malformed allowlist is an error naming its line: a quote left open
/// (which swallows the rows after it), an id that is no finding id, an id
/// given twice; lines are counted as written, CRLF ends too.
#[test]
fn malformed_allowlists_are_errors_naming_the_line() {
    let dir = temp_dir("allow-bad");
    let cases = [
        (
            "quote.csv",
            "id,note\n\"a6e388cfc3207e8b,t1\n611ba4b7eef4420d,t2\n",
            "quote.csv:2: ",
            "not a finding id",
        ),
        (
            "word.csv",
            "id,note\na6e388cfc3207e8b,ok\nnot-an-id,x\n",
            "word.csv:3: ",
            "not a finding id",
        ),
        (
            "twice.csv",
            "id,note\na6e388cfc3207e8b,ok\n\na6e388cfc3207e8b,dup\n",
            "twice.csv:4: ",
            "again (first on line 2)",
        ),
        (
            "crlf.csv",
            "id,bundle,note\r\na6e388cfc3207e8b,,ok\r\n,only-one,bad\r\n",
            "crlf.csv:3: ",
            "two labels or more",
        ),
        ("bundle.csv", "bundle,note\n\"ab;cd,x\nef;gh,y\n", "bundle.csv:2: ", "a quote left open"),
        (
            "note.csv",
            "id,bundle,note\nf65ab9c8de7c4220,,\"ticket 4711, pending\n0000000000000000,,x\nzzzz,,y\n",
            "note.csv:2: ",
            "a field spans lines (a quote left open?",
        ),
        (
            "two-ids.csv",
            "id,note,id\na6e388cfc3207e8b,x,611ba4b7eef4420d\n",
            "two-ids.csv:1: ",
            "two `id` columns",
        ),
    ];
    for (name, body, at, why) in cases {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        let o = lgrscan(&[
            "scan",
            "--lgr",
            LGR,
            CSV,
            "-o",
            "/dev/null",
            "--baseline",
            p.to_str().unwrap(),
        ]);
        assert_exit(&o, 2, name);
        let err = crate::util::stderr(&o);
        assert!(err.contains(at) && err.contains(why), "{name}: {err}");
    }
    // Stale rows of a CRLF allowlist are named by their own lines.
    let p = dir.join("stale.csv");
    std::fs::write(&p, "id,bundle,note\r\nffffffffffffffff,,s1\r\neeeeeeeeeeeeeeee,,s2\r\n")
        .unwrap();
    let out = dir.join("s.jsonl");
    let r = scan_to(&["--lgr", LGR, CSV, "--baseline", p.to_str().unwrap()], &out, 1);
    let stale: Vec<String> = r.last().unwrap()["stale_baseline_entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(stale.len(), 2, "{stale:?}");
    assert!(
        stale[0].contains("stale.csv:2: id ffff") && stale[1].contains("stale.csv:3: id eeee"),
        "{stale:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report whose scan failed on malformed lines lacks the findings on
/// them: `diff` and `report` refuse it rather than call them resolved; a
/// scan that accepted them (`--on-malformed warn`) is compared with a
/// warning.
#[test]
fn reports_of_scans_that_dropped_lines() {
    let dir = temp_dir("dropped");
    let z = dir.join("z.txt");
    zone(&z, &[("aa", "n1.example."), ("ab", "n1.example."), ("zq", "n1.example.")]);
    let whole = dir.join("whole.jsonl");
    let before = scan_to(&["--lgr", LGR, z.to_str().unwrap()], &whole, 1);
    assert!(rows(&before).iter().any(|r| r["alabel"] == "ab"), "{before:?}");
    // `ab`'s line is now malformed.
    let text = std::fs::read_to_string(&z).unwrap().replace("ab NS n1.example.", "ab NS (");
    std::fs::write(&z, text).unwrap();
    let (failed, warned) = (dir.join("failed.jsonl"), dir.join("warned.jsonl"));
    // Under `fail`, `-o FILE` is left as it was (here: not made); the
    // report written to standard output is one `diff` must refuse.
    let scan = ["scan", "--format", "jsonl", "--lgr", LGR, z.to_str().unwrap()];
    let o = lgrscan(&[&scan[..], &["-o", failed.to_str().unwrap()]].concat());
    assert_exit(&o, 2, "-o under --on-malformed fail");
    assert!(crate::util::stderr(&o).contains("failed.jsonl not written (left as it was)"));
    assert!(!failed.exists(), "a failed run's report replaced -o FILE");
    std::fs::write(&failed, "kept\n").unwrap();
    let annotate = ["annotate", "--lgr", LGR, z.to_str().unwrap(), "-o", failed.to_str().unwrap()];
    assert_exit(&lgrscan(&annotate), 2, "annotate -o under --on-malformed fail");
    assert_eq!(std::fs::read_to_string(&failed).unwrap(), "kept\n", "annotate replaced -o FILE");
    let o = lgrscan(&scan);
    assert_exit(&o, 2, "standard output under --on-malformed fail");
    std::fs::write(&failed, stdout(&o)).unwrap();
    let args = ["--lgr", LGR, z.to_str().unwrap(), "--on-malformed", "warn"];
    let after = scan_to(&args, &warned, 0);
    assert_eq!(after[0]["options"]["on_malformed"], "warn");
    let (w, f, a) = (whole.to_str().unwrap(), failed.to_str().unwrap(), warned.to_str().unwrap());
    for args in [vec!["diff", w, f], vec!["diff", f, w], vec!["report", w, f, "-o", "/dev/null"]] {
        let o = lgrscan(&args);
        assert_exit(&o, 2, &format!("{args:?}"));
        let err = crate::util::stderr(&o);
        assert!(err.contains("failed.jsonl: its scan failed on 1 malformed line"), "{err}");
        assert!(err.contains("z.txt:5"), "{err}");
    }
    let o = lgrscan(&["diff", "--format", "csv", w, a]);
    assert_exit(&o, 0, "diff against a scan that accepted its malformed line");
    assert!(crate::util::stderr(&o).contains("warned.jsonl: its scan accepted 1 malformed line"));
    assert!(stdout(&o).lines().any(|l| l.starts_with("resolved,")), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The warnings of a comparison that may mislead (other zones, another
/// index mode) are in the HTML page, the text diff and the JSON Lines
/// summary, not only on standard error: a period page mailed by a cron
/// job showed "0 new findings" in green for two different zones.
#[test]
fn warnings_travel_with_the_diff_and_the_page() {
    let dir = temp_dir("diff-warnings");
    let (zone, czds, rfc) = (dir.join("zone.jsonl"), dir.join("czds.jsonl"), dir.join("rfc.jsonl"));
    scan_to(&["samples/zone.txt"], &zone, 1);
    scan_to(&["samples/czds.txt"], &czds, 1);
    scan_to(&["samples/zone.txt", "--index-mode", "rfc7940"], &rfc, 1);
    let (z, c, r) = (zone.to_str().unwrap(), czds.to_str().unwrap(), rfc.to_str().unwrap());
    let zones =
        "the reports audit different zones (example. and tld.): their findings cannot match";
    let page = dir.join("period.html");
    let o = lgrscan(&["report", z, c, "-o", page.to_str().unwrap()]);
    assert!(crate::util::stderr(&o).contains(zones), "{}", crate::util::stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"warnings\"") && html.contains(zones), "{html}");
    let o = lgrscan(&["diff", "--format", "text", z, c]);
    assert!(stdout(&o).contains(&format!("  warning: {zones}")), "{}", stdout(&o));
    let o = lgrscan(&["diff", "--format", "jsonl", z, r]);
    let summary: Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    let modes = "the reports were scanned in different index modes (verified and rfc7940)";
    assert!(summary["warnings"][0].as_str().unwrap().starts_with(modes), "{summary}");
    // Two reports of one run: no warning anywhere.
    let o = lgrscan(&["report", z, z, "-o", page.to_str().unwrap()]);
    assert_exit(&o, 0, "the same report twice");
    assert!(!std::fs::read_to_string(&page).unwrap().contains("id=\"warnings\""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report with a finding row taken out by hand is refused (the finding
/// read as resolved, exit 0), and text that is not UTF-8 is named by its
/// line.
#[test]
fn edited_and_undecodable_reports_are_refused() {
    let dir = temp_dir("diff-edited");
    let whole = dir.join("whole.jsonl");
    scan_to(&["samples/zone.txt"], &whole, 1);
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    let edited = dir.join("edited.jsonl");
    let invalid = lines.iter().position(|l| l.starts_with(r#"{"kind":"invalid""#)).unwrap();
    let kept: Vec<&str> =
        lines.iter().enumerate().filter(|&(i, _)| i != invalid).map(|(_, l)| *l).collect();
    std::fs::write(&edited, kept.join("\n") + "\n").unwrap();
    let (w, e) = (whole.to_str().unwrap(), edited.to_str().unwrap());
    let o = lgrscan(&["diff", w, e]);
    assert_exit(&o, 2, "a row taken out");
    let err = crate::util::stderr(&o);
    assert!(
        err.contains(&format!(
            "edited.jsonl:{}: the summary record counts 30 findings, the report holds 29",
            n - 1
        )),
        "{err}"
    );
    let mut bytes = text.into_bytes();
    let third = bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n').nth(1).unwrap().0;
    bytes[third + 3] = 0xff;
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, bytes).unwrap();
    let o = lgrscan(&["diff", w, bad.to_str().unwrap()]);
    assert_exit(&o, 2, "not UTF-8");
    assert!(
        crate::util::stderr(&o).contains("bad.jsonl:3: not UTF-8"),
        "{}",
        crate::util::stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Finding ids do not hash the zone: a baseline report of another zone
/// accepts nothing (it accepted the same label's finding, exit 0, while
/// warning that none could match), and `diff` of two zones' reports
/// matches nothing (it called a finding `changed`).
#[test]
fn reports_of_another_zone_match_nothing() {
    let dir = temp_dir("other-zone");
    let zone = |apex: &str| {
        format!(
            "$ORIGIN {apex}.\n@ 3600 IN SOA ns.{apex}. h.{apex}. 1 2 3 4 5\n123 IN NS ns.host.net.\n\
             xn--e4bcd IN NS ns.host.net.\n"
        )
    };
    let (a, b) = (dir.join("a.zone"), dir.join("b.zone"));
    std::fs::write(&a, zone("example")).unwrap();
    std::fs::write(&b, zone("other")).unwrap();
    let (ar, br) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    scan_to(&[a.to_str().unwrap()], &ar, 1);
    scan_to(&[b.to_str().unwrap()], &br, 1);
    let o = lgrscan(&["scan", b.to_str().unwrap(), "--baseline", ar.to_str().unwrap()]);
    assert_exit(&o, 1, "a baseline of another zone accepts nothing");
    let err = crate::util::stderr(&o);
    assert!(err.contains("so none of its findings can match"), "{err}");
    assert!(err.contains("0 accepted by the baseline"), "{err}");
    let o = lgrscan(&["diff", "--format", "jsonl", ar.to_str().unwrap(), br.to_str().unwrap()]);
    assert_exit(&o, 1, "new findings");
    let summary: Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert_eq!((summary["new"].as_u64(), summary["resolved"].as_u64()), (Some(1), Some(1)));
    assert_eq!(summary["changed"].as_u64(), Some(0), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
