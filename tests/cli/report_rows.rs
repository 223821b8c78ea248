//! Stable, self-describing reports (issue #30, items 1, 2 and 6): finding
//! ids that survive reordering and unrelated labels, byte-identical rows,
//! meta and summary records that agree with the rows, the input's columns
//! in the rows, and the contract checks `ns-mismatch` and `same-entity`.
#![cfg(feature = "cli")]

use crate::util::{
    assert_exit, lgrscan, lgrscan_piped, rows, sha256_hex, stderr, stdout, temp_dir,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const LGR: &str = "tests/data/lgr/allocatable.xml";
const ZONE: &str = "tests/data/report/contract.zone";
const CSV: &str = "tests/data/report/contract.csv";

/// The JSON Lines output of `lgrscan ARGS` (exit status `code`).
fn jsonl(args: &[&str], code: i32) -> Vec<Value> {
    let mut a = vec!["scan", "--format", "jsonl"];
    a.extend_from_slice(args);
    let out = lgrscan(&a);
    assert_exit(&out, code, &format!("{a:?}"));
    stdout(&out).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// The finding records (neither meta nor summary).
fn findings(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r["kind"] != "meta" && r["kind"] != "summary").collect()
}

/// Writes `labels` (one per line) as a list file.
fn list(dir: &std::path::Path, name: &str, labels: &[&str]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, labels.join("\n") + "\n").unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn ids_survive_reordering_and_unrelated_labels() {
    let dir = temp_dir("report-ids");
    // Under the built-in set: a variant set (123 / १२३ / ១២៣) and invalid labels.
    let base = ["123", "xn--e4bcd", "xn--94ecd", "bad_label", "-lead", "shop"];
    let a = list(&dir, "a.txt", &base);
    let mut shuffled: Vec<&str> = base.iter().rev().copied().collect();
    shuffled.splice(2..2, ["unrelated", "another-one", "xn--h1b7b1e8a"]);
    let b = list(&dir, "b.txt", &shuffled);
    let ids = |path: &str| -> BTreeMap<(String, String), String> {
        findings(&jsonl(&[path], 1))
            .iter()
            .map(|r| {
                let key = (
                    r["kind"].as_str().unwrap().to_string(),
                    r["alabel"].as_str().unwrap().to_string(),
                );
                (key, r["id"].as_str().unwrap().to_string())
            })
            .collect()
    };
    let (ia, ib) = (ids(&a), ids(&b));
    assert!(ia.len() >= 5, "{ia:?}");
    // Line numbers and group numbers moved; the ids did not.
    for (k, id) in &ia {
        assert_eq!(ib.get(k), Some(id), "{k:?}");
    }
    // The holder changed too (input order): ids do not depend on roles.
    let all: BTreeSet<&String> = ia.values().collect();
    assert_eq!(all.len(), ia.len(), "ids are distinct");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_runs_give_byte_identical_rows() {
    let dir = temp_dir("report-bytes");
    for (format, skip) in [("csv", 0), ("jsonl", 1), ("text", 0)] {
        let run = |n: usize| {
            let out = dir.join(format!("{n}.{format}"));
            let o = lgrscan(&[
                "scan",
                "samples/zone.txt",
                "--format",
                format,
                "-o",
                out.to_str().unwrap(),
            ]);
            assert_exit(&o, 1, format);
            std::fs::read_to_string(&out).unwrap()
        };
        let (one, two) = (run(1), run(2));
        assert!(!one.contains("time:"), "no timing in a report file");
        // The meta record (JSON Lines) carries the start time; every other
        // line is the same.
        let tail = |s: &str| s.lines().skip(skip).collect::<Vec<_>>().join("\n");
        assert_eq!(tail(&one), tail(&two), "{format}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn meta_and_summary_agree_with_rows() {
    let records = jsonl(&["--lgr", LGR, "--check-ns", "--group-by", "kind,script", ZONE], 1);
    let meta = &records[0];
    assert_eq!(meta["kind"], "meta");
    let summary = records.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(records.iter().filter(|r| r["kind"] == "summary").count(), 1);
    // Inputs: path, size, SHA-256, SOA serial.
    let bytes = std::fs::read(crate::util::root().join(ZONE)).unwrap();
    let input = &meta["inputs"][0];
    assert_eq!(input["path"], ZONE);
    assert_eq!(input["size"], bytes.len() as u64);
    assert_eq!(input["sha256"], sha256_hex(&bytes));
    assert_eq!(input["soa_serial"], 2024060101u64);
    assert_eq!(meta["lgrs"][0]["version"], "1");
    assert_eq!(meta["index_mode"], "verified");
    assert_eq!(meta["options"]["check_ns"], true);
    let rows = findings(&records);
    // Typed fields: numbers as numbers, absent as null, ns an array.
    for r in &rows {
        assert!(r["line"].is_u64() && r["group"].is_u64(), "{r}");
        assert!(r["registrant"].is_null() && r["registered"].is_null(), "{r}");
        assert!(r["ns"].is_array(), "{r}");
    }
    let problem = |r: &&&Value| {
        r["kind"] != "collision"
            || !["holder", "allocated", "near"].contains(&r["role"].as_str().unwrap())
    };
    // A finding is `open`; a holder's, an allocated or a near member's row
    // is context, with no status.
    for r in &rows {
        let want = if problem(&r) { Value::from("open") } else { Value::Null };
        assert_eq!(r["status"], want, "{r}");
    }
    let count =
        |kind: &str| rows.iter().filter(problem).filter(|r| r["kind"] == kind).count() as u64;
    let s = summary;
    assert_eq!(s["findings"]["total"], rows.iter().filter(problem).count() as u64);
    for kind in ["collision", "invalid", "ns-mismatch", "same-entity"] {
        assert_eq!(s["findings"]["by_kind"][kind]["open"], count(kind), "{kind}");
    }
    assert_eq!(s["ns_mismatch"], count("ns-mismatch"));
    assert_eq!(s["conflicts"], count("collision"));
    assert_eq!(s["labels"], 6);
    let kinds = &s["group_by"]["kind"];
    assert_eq!(kinds[0], serde_json::json!({"key": "collision", "findings": 3}));
    assert_eq!(kinds[1], serde_json::json!({"key": "ns-mismatch", "findings": 1}));
    assert_eq!(s["group_by"]["script"][0]["key"], "Latn");
}

/// `ns-mismatch`: ba is delegated to other name servers than its holder
/// aa; ab has the same set in another order, cb the same as ca.
#[test]
fn ns_mismatch_positive_and_negative() {
    let records = jsonl(&["--lgr", LGR, "--check-ns", ZONE], 1);
    let ns: Vec<(&str, &str, &str)> = findings(&records)
        .iter()
        .filter(|r| r["kind"] == "ns-mismatch")
        .map(|r| {
            (
                r["alabel"].as_str().unwrap(),
                r["holder"].as_str().unwrap(),
                r["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ns,
        [(
            "ba",
            "aa",
            "NS {ns9.other.example.} differs from the holder's {ns1.dns.example.;ns2.dns.example.}"
        )]
    );
    let ab = findings(&records).into_iter().find(|r| r["alabel"] == "ab").unwrap();
    assert_eq!(ab["ns"], serde_json::json!(["ns1.dns.example.", "ns2.dns.example."]));
    // Without --check-ns no NS targets are read: no ns column, no check.
    let records = jsonl(&["--lgr", LGR, ZONE], 1);
    assert!(findings(&records).iter().all(|r| r["kind"] != "ns-mismatch" && r["ns"].is_null()));
}

/// `same-entity`: ba has another registrar than aa, cb another registrant
/// than ca; ab matches aa, and db's holder da has no registrar.
#[test]
fn same_entity_positive_and_negative() {
    let out = lgrscan(&["scan", "--lgr", LGR, CSV]);
    assert_exit(&out, 1, "contract.csv");
    let r = rows(&stdout(&out));
    let same: Vec<(&str, &str, &str)> = r
        .iter()
        .filter(|r| r["kind"] == "same-entity")
        .map(|r| (r["alabel"].as_str(), r["role"].as_str(), r["reason"].as_str()))
        .collect();
    assert_eq!(
        same,
        [
            ("ba", "allocated", "registrar rr2 differs from the holder's rr1"),
            ("cb", "allocatable", "registrant r2 differs from the holder's r1"),
        ]
    );
    // The rows carry the input's columns.
    let ba = r.iter().find(|r| r["alabel"] == "ba").unwrap();
    assert_eq!((ba["registrant"].as_str(), ba["registrar"].as_str()), ("r1", "rr2"));
    let s = crate::util::summary(&stderr(&out));
    crate::util::check_against_rows(&s, &r, &stderr(&out));
    assert!(stderr(&out).contains("contract findings: 0 ns-mismatch, 2 same-entity"));
    // Problems by registrar: ba's same-entity row (rr2), cb's collision and
    // same-entity rows (rr1).
    let records = jsonl(&["--lgr", LGR, CSV, "--group-by", "registrar"], 1);
    let table = &records.last().unwrap()["group_by"]["registrar"];
    assert_eq!(
        table,
        &serde_json::json!([{"key": "rr1", "findings": 2}, {"key": "rr2", "findings": 1}])
    );
}

/// The summary is printed once: in a text or JSON Lines report on
/// standard output, else on standard error.
#[test]
fn summary_printed_once() {
    for (format, in_stdout) in [("text", true), ("jsonl", true), ("csv", false)] {
        let out = lgrscan(&["scan", "--lgr", LGR, CSV, "--format", format]);
        let (o, e) = (stdout(&out), stderr(&out));
        let n =
            |s: &str| s.matches("scan summary").count() + s.matches(r#""kind":"summary""#).count();
        assert_eq!((n(&o), n(&e)), if in_stdout { (1, 0) } else { (0, 1) }, "{format}");
    }
    let out = lgrscan(&["scan", "--lgr", LGR, CSV, "--format", "text", "--color", "always"]);
    assert!(stdout(&out).contains("\x1b[1mVariant sets"), "{}", stdout(&out));
    let out = lgrscan(&["scan", "--lgr", LGR, CSV, "--format", "text"]);
    assert!(!stdout(&out).contains('\x1b'), "no colour when piped");
}

#[test]
fn meta_file_beside_a_csv_report() {
    let dir = temp_dir("report-meta");
    let (csv, meta) = (dir.join("r.csv"), dir.join("r.meta.json"));
    let out = lgrscan(&[
        "scan",
        "--lgr",
        LGR,
        CSV,
        "-o",
        csv.to_str().unwrap(),
        "--meta",
        meta.to_str().unwrap(),
    ]);
    assert_exit(&out, 1, "--meta");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
    assert_eq!(doc["meta"]["kind"], "meta");
    assert_eq!(doc["summary"]["same_entity"], 2);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("kind,id,status,"), "CSV stays rows only");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_json_lists_variants_with_alabels() {
    let out = lgrscan(&["explain", "123", "--format", "json", "--index-mode", "rfc7940"]);
    assert_exit(&out, 0, "explain --format json");
    let v: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    assert_eq!(v["index_mode"], "rfc7940");
    let listed = v["variants"]["listed"].as_array().unwrap();
    assert!(
        listed.iter().any(|x| x["alabel"] == "xn--e4bcd" && x["disposition"] == "blocked"),
        "{v}"
    );
    assert_eq!(v["variants"]["count"], listed.len() as u64);
}

/// Standard input is read once, by the scan: its meta has no size,
/// digest or serial, and the rows are those of the file.
#[test]
fn stdin_is_not_read_twice_for_the_meta_record() {
    let zone = std::fs::read(crate::util::root().join("samples/zone.txt")).unwrap();
    let out = lgrscan_piped(&["scan", "-", "--format", "jsonl"], &zone);
    assert_exit(&out, 1, "scan -");
    let got: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let input = &got[0]["inputs"][0];
    assert_eq!((input["path"].as_str(), input["sha256"].is_null()), (Some("-"), true));
    let want = jsonl(&["samples/zone.txt"], 1);
    let alabels = |v: &[Value]| -> Vec<String> {
        findings(v).iter().map(|r| format!("{}{}", r["kind"], r["alabel"])).collect()
    };
    assert_eq!(alabels(&got), alabels(&want));
}

/// An LGR given as a pipe (`--lgr /dev/stdin`) is read once: the set is
/// compiled from the bytes the meta record's digest is of, so the rows and
/// the digest are those of the same LGR given as a file.
#[cfg(target_os = "linux")]
#[test]
fn a_piped_lgr_is_read_once() {
    let lgr = "src/builtin/devanagari.xml";
    let xml = std::fs::read(crate::util::root().join(lgr)).unwrap();
    let args = ["scan", "samples/zone.txt", "--lgr", "/dev/stdin", "--format", "jsonl"];
    let out = lgrscan_piped(&args, &xml);
    assert_exit(&out, 1, "scan --lgr /dev/stdin");
    let piped: Vec<Value> =
        stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let file = jsonl(&["--lgr", lgr, "samples/zone.txt"], 1);
    let sha = sha256_hex(&xml);
    assert_eq!(piped[0]["lgrs"][0]["sha256"], sha);
    assert_eq!(file[0]["lgrs"][0]["sha256"], sha);
    let ids = |v: &[Value]| -> Vec<String> {
        findings(v).iter().map(|r| format!("{}{}{}", r["kind"], r["alabel"], r["id"])).collect()
    };
    assert_eq!(ids(&piped), ids(&file));
}

/// The SOA serial is read from a zone's SOA record, with relative MNAME
/// and RNAME too; a CSV row with the words of one is no SOA.
#[test]
fn soa_serial_of_zones_only() {
    let dir = crate::util::temp_dir("soa-serial");
    let zone = dir.join("z.txt");
    std::fs::write(
        &zone,
        "$ORIGIN example.\n@ 3600 IN SOA ns1 hostmaster ( 2024010101 1 2 3 4 )\nfoo NS ns1\n",
    )
    .unwrap();
    let csv = dir.join("c.csv");
    std::fs::write(&csv, "domain\tregistrant\nfoo.example\tSOA ns. h. 42\n").unwrap();
    for (path, serial) in [(&zone, Value::from(2024010101u64)), (&csv, Value::Null)] {
        let records = jsonl(&[path.to_str().unwrap()], 0);
        assert_eq!(records[0]["inputs"][0]["soa_serial"], serial, "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
