//! A registered label eligible under the LGR that judges it whose own
//! disposition is `blocked` (RFC 7940 §8.3; IANA: "a valid label but
//! should be blocked from registration") is a `blocked` finding, in every
//! report, count, id, baseline and diff; it still holds its variant set.
//! Under tests/data/lgr/own-blocked.xml every label of five code points
//! is blocked.
#![cfg(feature = "cli")]

use crate::util::{assert_exit, lgrscan, rows, stdout, temp_dir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

const LGR: &str = "tests/data/lgr/own-blocked.xml";
const REASON: &str = r#"action 0: disp=blocked match=five-long "reserved: five code points""#;

/// héllo holds the set of hèllo (both blocked on their own); abé holds
/// the set of abè; hello and world (plain labels) are blocked on their own.
const LABELS: &[&str] =
    &["xn--hllo-bpa", "xn--hllo-5oa", "xn--ab-cja", "xn--ab-8ia", "hello", "world", "shop"];

/// Writes `labels` (one per line) as a list file; returns its path.
fn list(dir: &Path, name: &str, labels: &[&str]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, labels.join("\n") + "\n").unwrap();
    p.to_string_lossy().into_owned()
}

/// The records of a JSON Lines scan of `input` (exit status `code`).
fn jsonl(input: &str, extra: &[&str], code: i32) -> Vec<Value> {
    let mut a = vec!["scan", "--lgr", LGR, "--format", "jsonl", input];
    a.extend_from_slice(extra);
    let o = lgrscan(&a);
    assert_exit(&o, code, &format!("{a:?}"));
    stdout(&o).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// The A-labels of the rows of `kind`, in report order.
fn of_kind<'a>(records: &'a [Value], kind: &str) -> Vec<&'a str> {
    records.iter().filter(|r| r["kind"] == kind).map(|r| r["alabel"].as_str().unwrap()).collect()
}

#[test]
fn own_blocked_labels_are_findings_in_csv_jsonl_text_and_html() {
    let dir = temp_dir("blocked-rows");
    let input = list(&dir, "labels.txt", LABELS);
    let o = lgrscan(&["scan", "--lgr", LGR, "--format", "csv", &input]);
    assert_exit(&o, 1, "csv");
    let csv = rows(&stdout(&o));
    let blocked: Vec<_> = csv.iter().filter(|r| r["kind"] == "blocked").collect();
    let got: Vec<(&str, &str, &str, &str, &str)> = blocked
        .iter()
        .map(|r| {
            let f = |k: &str| r[k].as_str();
            (f("alabel"), f("ulabel"), f("lgr"), f("disposition"), f("index"))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("xn--hllo-bpa", "héllo", "own-blocked.xml", "blocked", "hèllo"),
            ("xn--hllo-5oa", "hèllo", "own-blocked.xml", "blocked", "hèllo"),
            ("hello", "hello", "own-blocked.xml", "blocked", "hello"),
            ("world", "world", "own-blocked.xml", "blocked", "world"),
        ]
    );
    assert!(blocked.iter().all(|r| r["reason"] == REASON), "{blocked:?}");
    assert!(blocked.iter().all(|r| r["group"].is_empty() && r["role"].is_empty()));
    // The label stays eligible: héllo still holds its set, hèllo is still
    // its blocked variant; abé and abè as before.
    let collisions: Vec<(&str, &str, &str)> = csv
        .iter()
        .filter(|r| r["kind"] == "collision")
        .map(|r| (r["alabel"].as_str(), r["role"].as_str(), r["holder"].as_str()))
        .collect();
    assert_eq!(
        collisions,
        [
            ("xn--hllo-bpa", "holder", "xn--hllo-bpa"),
            ("xn--hllo-5oa", "blocked", "xn--hllo-bpa"),
            ("xn--ab-cja", "holder", "xn--ab-cja"),
            ("xn--ab-8ia", "allocatable", "xn--ab-cja"),
        ]
    );

    let records = jsonl(&input, &[], 1);
    let kinds: Vec<&str> = records.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(of_kind(&records, "blocked"), ["xn--hllo-bpa", "xn--hllo-5oa", "hello", "world"]);
    assert!(
        kinds.iter().rposition(|k| *k == "collision") < kinds.iter().position(|k| *k == "blocked"),
        "blocked rows after the collision rows: {kinds:?}"
    );
    let s = records.last().unwrap();
    assert_eq!(s["blocked"], 4, "{s}");
    assert_eq!(s["invalid"], 0, "{s}");
    assert_eq!(s["findings"]["by_kind"]["blocked"], serde_json::json!({"open": 4, "accepted": 0}));
    // 2 conflicting collision rows, 4 blocked rows.
    assert_eq!(s["findings"]["open"], 6, "{s}");
    let by_kind: Vec<&String> = s["findings"]["by_kind"].as_object().unwrap().keys().collect();
    assert_eq!(by_kind, ["collision", "invalid", "blocked", "ns-mismatch", "same-entity"]);

    let o = lgrscan(&["scan", "--lgr", LGR, "--format", "text", &input]);
    assert_exit(&o, 1, "text");
    let text = stdout(&o) + &crate::util::stderr(&o);
    assert!(text.contains("blocked (own disposition): 4"), "{text}");
    assert!(text.contains("Blocked labels (own disposition blocked) (4):"), "{text}");

    let page = dir.join("r.html");
    let o = lgrscan(&[
        "scan",
        "--lgr",
        LGR,
        "-q",
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
        &input,
    ]);
    assert_exit(&o, 1, "html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(r#"data-count="blocked">4<"#), "blocked card");
    assert!(html.contains(r#"data-count="blocked-rows">4<"#), "blocked table");
    assert_eq!(html.matches(r#"<tr data-row="blocked">"#).count(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_blocked_label_alone_makes_the_run_exit_1() {
    let dir = temp_dir("blocked-exit");
    let clean = list(&dir, "clean.txt", &["shop", "abc", "xn--ab-cja"]);
    let records = jsonl(&clean, &[], 0);
    assert_eq!(records.last().unwrap()["blocked"], 0);
    let one = list(&dir, "one.txt", &["shop", "hello"]);
    let records = jsonl(&one, &[], 1);
    assert_eq!(of_kind(&records, "blocked"), ["hello"]);
    assert_eq!(records.last().unwrap()["findings"]["open"], 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plain labels of a zone, which the reader settles (counts without
/// storing) or the scan judges through its memo of ASCII class strings:
/// those of five letters, or letters and digits, are still blocked.
#[test]
fn plain_zone_labels_of_the_memo_and_the_reader_are_judged_blocked() {
    let dir = temp_dir("blocked-zone");
    let mut zone = String::from(
        "$ORIGIN test.\n@ 3600 IN SOA ns.test. host.test. 1 7200 3600 1209600 3600\n@ NS ns.test.\n",
    );
    let names = ["hello", "shop", "world", "ab-cd", "abc12", "zz", "longer", "12345", "HELLO2"];
    for n in names {
        zone.push_str(&format!("{n} NS ns1.example.\n"));
    }
    let path = dir.join("test.zone");
    std::fs::write(&path, zone).unwrap();
    let records = jsonl(path.to_str().unwrap(), &[], 1);
    let mut got = of_kind(&records, "blocked");
    got.sort_unstable();
    assert_eq!(got, ["12345", "ab-cd", "abc12", "hello", "world"]);
    assert_eq!(records.last().unwrap()["blocked"], 5);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The id of each finding, by kind and A-label.
fn ids(records: &[Value]) -> BTreeMap<(String, String), String> {
    records
        .iter()
        .filter(|r| r["id"].is_string())
        .map(|r| {
            let k = (r["kind"].as_str().unwrap().into(), r["alabel"].as_str().unwrap().into());
            (k, r["id"].as_str().unwrap().into())
        })
        .collect()
}

#[test]
fn blocked_ids_are_stable_and_baselines_and_diffs_see_them() {
    let dir = temp_dir("blocked-ids");
    let a = list(&dir, "a.txt", LABELS);
    let mut shuffled: Vec<&str> = LABELS.iter().rev().copied().collect();
    shuffled.splice(2..2, ["unrelated", "xn--ab-8ia", "cc"]);
    let b = list(&dir, "b.txt", &shuffled);
    let (ra, rb) = (jsonl(&a, &[], 1), jsonl(&b, &[], 1));
    let (ia, ib) = (ids(&ra), ids(&rb));
    let blocked: Vec<_> = ia.iter().filter(|((k, _), _)| k == "blocked").collect();
    assert_eq!(blocked.len(), 4, "{ia:?}");
    for ((k, al), id) in blocked {
        assert_eq!(ib.get(&(k.clone(), al.clone())), Some(id), "{al}: same id");
        let collision = ia.get(&("collision".to_string(), al.clone()));
        assert_ne!(collision, Some(id), "{al}: its own id, not its collision row's");
    }
    assert_eq!(ids(&jsonl(&a, &[], 1)), ia, "the same ids run after run");

    // A baseline that accepts hello's blocked row: accepted, and a run
    // with no other finding exits 0.
    let hello = &ia[&("blocked".to_string(), "hello".to_string())];
    let allow = dir.join("allow.csv");
    std::fs::write(&allow, format!("id,bundle,note\n{hello},,reserved name\n")).unwrap();
    let only = list(&dir, "only.txt", &["shop", "hello"]);
    let got = jsonl(&only, &["--baseline", allow.to_str().unwrap()], 0);
    let row = got.iter().find(|r| r["kind"] == "blocked").unwrap();
    assert_eq!(row["status"], "accepted");
    let s = got.last().unwrap();
    assert_eq!(s["findings"]["by_kind"]["blocked"], serde_json::json!({"open": 0, "accepted": 1}));
    assert_eq!(s["stale_baseline_entries"], serde_json::json!([]));

    // A diff sees hello's blocked row come and go.
    let (old, new) = (dir.join("old.jsonl"), dir.join("new.jsonl"));
    let without = list(&dir, "without.txt", &["shop", "abc"]);
    for (input, out, code) in [(&without, &old, 0), (&only, &new, 1)] {
        let o = lgrscan(&[
            "scan",
            "--lgr",
            LGR,
            "--format",
            "jsonl",
            "-o",
            out.to_str().unwrap(),
            input,
        ]);
        assert_exit(&o, code, input);
    }
    let entries = |o: &std::process::Output| -> Vec<(String, String, String)> {
        stdout(o)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["change"].is_string())
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap().to_string();
                (s("change"), s("kind"), s("alabel"))
            })
            .collect()
    };
    let (o_s, n_s) = (old.to_str().unwrap(), new.to_str().unwrap());
    let o = lgrscan(&["diff", o_s, n_s, "--format", "jsonl"]);
    assert_exit(&o, 1, "a new blocked finding");
    assert_eq!(entries(&o), [("new".into(), "blocked".into(), "hello".into())]);
    let o = lgrscan(&["diff", n_s, o_s, "--format", "jsonl"]);
    assert_exit(&o, 0, "a resolved one");
    assert_eq!(entries(&o), [("resolved".into(), "blocked".into(), "hello".into())]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A candidate blocked by the LGR itself is not `available`: `check`
/// calls it `invalid` with the disposition `blocked` and the rule's
/// reason, and exits 1, as `scan` would report a `blocked` finding for it
/// appended to the zone. Against the input and against a saved index
/// alike; a plain candidate (no scan needed) and a U-label one.
#[test]
fn check_calls_a_candidate_blocked_on_its_own_invalid() {
    let dir = temp_dir("blocked-check");
    let zone = list(&dir, "zone.txt", &["shop"]);
    let idx = dir.join("zone.idx").to_string_lossy().into_owned();
    assert_exit(&lgrscan(&["index", "--lgr", LGR, &zone, "-o", &idx]), 0, "index");
    for against in [&zone, &idx] {
        let mut a = vec!["check", "--against", against.as_str(), "--format", "csv"];
        if against == &zone {
            a.extend(["--lgr", LGR]);
        }
        a.extend(["--label", "hello", "--label", "héllo", "--label", "abc"]);
        let o = lgrscan(&a);
        assert_exit(&o, 1, &format!("{a:?}"));
        let got: Vec<(String, String, String, String)> = rows(&stdout(&o))
            .iter()
            .map(|r| {
                let f = |k: &str| r[k].as_str().to_string();
                (f("ulabel"), f("status"), f("disposition"), f("reason"))
            })
            .collect();
        let blocked = |u: &str| (u.into(), "invalid".into(), "blocked".into(), REASON.into());
        assert_eq!(got[..2], [blocked("hello"), blocked("héllo")], "{a:?}");
        assert_eq!((got[2].1.as_str(), got[2].2.as_str()), ("available", "valid"), "{a:?}");
        // Only the valid candidate: exit 0.
        let a: Vec<&str> = a.iter().take_while(|s| **s != "--label").copied().collect();
        let o = lgrscan(&[&a[..], &["--label", "abc"]].concat());
        assert_exit(&o, 0, "abc alone");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
