//! Baselines and diffs (issue #30, item 3): `scan --baseline` accepts
//! exactly the findings of its file and lists stale allowlist entries;
//! `lgrscan diff` finds exactly the findings added, removed and changed
//! between two generated zones; the root zone with its three accepted
//! variant bundles exits 0.
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
    let want: BTreeSet<(String, String)> =
        [("same-entity", "ba"), ("collision", "ca"), ("collision", "cb")]
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
        ("resolved", "collision", "ca", ""),
        ("resolved", "collision", "cb", ""),
    ]
    .iter()
    .map(|(a, b, c, e)| (a.to_string(), b.to_string(), c.to_string(), e.to_string()))
    .collect();
    assert_eq!(got, want);
    let s = d.last().unwrap();
    assert_eq!(
        (s["new"].as_u64(), s["resolved"].as_u64(), s["changed"].as_u64()),
        (Some(2), Some(3), Some(1))
    );
    assert_eq!(s["unchanged"], 1, "aa's holder row");
    // CSV and text carry the same entries; no new finding: exit 0.
    let o = lgrscan(&["diff", ro.to_str().unwrap(), rn.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(crate::util::rows(&stdout(&o)).len(), 6);
    let o = lgrscan(&["diff", ro.to_str().unwrap(), rn.to_str().unwrap(), "--format", "text"]);
    assert!(
        stdout(&o).contains("findings: 2 new, 3 resolved, 1 changed, 1 unchanged"),
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
