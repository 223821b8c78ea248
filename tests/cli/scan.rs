//! `lgrscan scan` as a program (issue #4): thread-count independence, the
//! roles, `--holder registered`, allocatable variants with registrants,
//! multi-LGR sets, exit codes and atomic output. Every run that prints a
//! summary has its accounting checked.
#![cfg(feature = "cli")]

use crate::util::{Row, assert_exit, check_against_rows, lgrscan, rows, stderr, stdout, summary};

const SAMPLES: &[&str] = &["samples/zone.txt", "samples/czds.txt", "samples/labels.csv"];
const ALLOC_LGR: &str = "tests/data/lgr/allocatable.xml";
const ALLOC_CSV: &str = "tests/data/scan/allocatable.csv";

/// Runs a scan expected to exit with `code`, checks its summary against
/// its rows, returns the rows.
fn scan_rows(args: &[&str], code: i32) -> Vec<Row> {
    let mut a = vec!["scan", "--format", "csv"];
    a.extend_from_slice(args);
    let out = lgrscan(&a);
    assert_exit(&out, code, &format!("{a:?}"));
    let (text, err) = (stdout(&out), stderr(&out));
    let r = rows(&text);
    check_against_rows(&summary(&err), &r, &err);
    r
}

/// The role of the collision row of `ulabel`, and its holder's A-label.
fn role(rows: &[Row], ulabel: &str) -> (String, String) {
    let r = rows
        .iter()
        .find(|r| r["kind"] == "collision" && r["ulabel"] == ulabel)
        .unwrap_or_else(|| panic!("no collision row for {ulabel}"));
    (r["role"].clone(), r["holder"].clone())
}

#[test]
fn one_and_four_threads_give_identical_bytes() {
    for path in SAMPLES {
        for format in ["csv", "jsonl"] {
            let run = |threads: &str| {
                let out = lgrscan(&["scan", path, "--format", format, "--threads", threads]);
                assert_exit(&out, 1, path);
                if format == "csv" {
                    summary(&stderr(&out));
                    return out.stdout;
                }
                // JSON Lines: the summary is the last record, not on
                // standard error; the meta record (first) has the start
                // time, the rows after it are the same bytes.
                assert!(!stderr(&out).contains("scan summary"), "summary printed twice");
                let text = stdout(&out);
                let (meta, rest) = text.split_once('\n').expect("meta line");
                assert!(meta.starts_with(r#"{"kind":"meta""#), "{meta}");
                rest.as_bytes().to_vec()
            };
            let one = run("1");
            assert!(!one.is_empty());
            assert!(one == run("4"), "{path} --format {format}: 1 and 4 threads differ");
        }
    }
}

#[test]
fn every_role_appears_with_its_label() {
    let csv = scan_rows(&["samples/labels.csv"], 1);
    assert_eq!(role(&csv, "آئینہ").0, "holder");
    assert_eq!(role(&csv, "آیٔینہ"), ("allocated".into(), "xn--hgbi0h4vvb".into()));
    assert_eq!(role(&csv, "آئینۃ").0, "blocked");
    assert_eq!(role(&csv, "قایٔم").0, "allocatable");
    let czds = scan_rows(&["samples/czds.txt"], 1);
    // Not NFC: an allocatable variant of آزاد, but invalid on its own.
    assert_eq!(role(&czds, "\u{0627}\u{0653}زاد"), ("invalid".into(), "xn--hgbkyk".into()));
    assert_eq!(role(&czds, "२०२4").0, "invalid");
    let invalid: Vec<&str> =
        czds.iter().filter(|r| r["kind"] == "invalid").map(|r| r["ulabel"].as_str()).collect();
    assert!(invalid.contains(&"\u{0627}\u{0653}زاد") && invalid.contains(&"२०२4"), "{invalid:?}");
}

#[test]
fn idna_reason_families_have_no_positions() {
    let out = lgrscan(&["scan", "samples/czds.txt"]);
    let s = summary(&stderr(&out));
    let fams: Vec<&str> = s.families.iter().map(|f| f.1.as_str()).collect();
    for want in ["IDNA2008: Bidi rule fails (RFC 5893)", "IDNA2008: non-LDH ASCII"] {
        assert!(fams.contains(&want), "{want} not in {fams:?}");
    }
}

#[test]
fn holder_registered_picks_the_earliest_date() {
    // ខេត្ដ (COENG DA, 2024) comes first in the file, ខេត្ត (2016) later.
    let (da, ta) = ("ខេត\u{17D2}\u{178A}", "ខេត\u{17D2}\u{178F}");
    let by_input = scan_rows(&["samples/labels.csv"], 1);
    assert_eq!(role(&by_input, da).0, "holder");
    assert_eq!(role(&by_input, ta).0, "blocked");
    let by_date = scan_rows(&["samples/labels.csv", "--holder", "registered"], 1);
    assert_eq!(role(&by_date, ta).0, "holder");
    assert_eq!(role(&by_date, da).0, "blocked");
}

#[test]
fn allocatable_variants_and_registrants() {
    // aa (r1, 2020), ab (r1, 2021), ba (r2, 2019); tab / tbb both r3.
    let r = scan_rows(&["--lgr", ALLOC_LGR, ALLOC_CSV], 1);
    let got: Vec<(&str, &str, &str)> =
        r.iter().map(|r| (r["kind"].as_str(), r["ulabel"].as_str(), r["role"].as_str())).collect();
    // ba's registrant differs from the holder's: also a same-entity row.
    assert_eq!(
        got,
        [
            ("collision", "aa", "holder"),
            ("collision", "ab", "allocated"),
            ("collision", "ba", "allocatable"),
            ("same-entity", "ba", "allocatable")
        ]
    );
    let out = lgrscan(&["scan", "--lgr", ALLOC_LGR, ALLOC_CSV]);
    let s = summary(&stderr(&out));
    assert_eq!((s.groups, s.conflict_groups, s.conflicts, s.allocated), (2, 1, 1, 2));

    // By date ba (r2) holds: both r1 labels are allocatable to someone else.
    let r = scan_rows(&["--lgr", ALLOC_LGR, "--holder", "registered", ALLOC_CSV], 1);
    let got: Vec<(&str, &str, &str)> = r
        .iter()
        .filter(|r| r["kind"] == "collision")
        .map(|r| (r["ulabel"].as_str(), r["role"].as_str(), r["holder"].as_str()))
        .collect();
    assert_eq!(
        got,
        [("aa", "allocatable", "ba"), ("ab", "allocatable", "ba"), ("ba", "holder", "ba")]
    );
    let same: Vec<&str> =
        r.iter().filter(|r| r["kind"] == "same-entity").map(|r| r["ulabel"].as_str()).collect();
    assert_eq!(same, ["aa", "ab"]);
}

#[test]
fn multi_lgr_set_with_variants() {
    let r = scan_rows(
        &[
            "--lgr",
            "builtin:ascii",
            "--lgr",
            "builtin:devanagari",
            "--lgr",
            "builtin:khmer",
            "--variants",
            "builtin:common",
            "samples/zone.txt",
        ],
        1,
    );
    assert_eq!(role(&r, "123").0, "holder");
    assert_eq!(role(&r, "१२३").0, "blocked");
    assert_eq!(role(&r, "១២៣").0, "blocked");
    // Kashmiri is not in this set: شکارہ is invalid, judged by the LGR
    // covering most of it.
    assert!(r.iter().any(|r| r["kind"] == "invalid" && r["ulabel"] == "شکارہ"));
}

#[test]
fn multi_lgr_set_without_variants() {
    // Without --variants, several LGRs are merged as lgr-core's merge_set
    // does, so variants of both members (here ASCII / Devanagari / Khmer
    // digits) collide across the set.
    let out = lgrscan(&[
        "scan",
        "--lgr",
        "builtin:devanagari",
        "--lgr",
        "builtin:khmer",
        "--format",
        "csv",
        "samples/zone.txt",
    ]);
    assert_exit(&out, 1, "merged set");
    let text = stdout(&out);
    let rows = crate::util::rows(&text);
    let group_of = |u: &str| {
        rows.iter()
            .find(|r| r["ulabel"] == u && r["kind"] == "collision")
            .map(|r| r["group"].clone())
    };
    let g = group_of("१२३").expect("१२३ collides");
    assert_eq!(group_of("១២៣"), Some(g.clone()), "{text}");
    assert_eq!(group_of("123"), Some(g), "{text}");
    assert!(text.contains("merged(builtin:devanagari+builtin:khmer)"), "{text}");
}

#[test]
fn exit_codes() {
    let clean = scan_rows(&["tests/data/scan/clean.txt"], 0);
    assert!(clean.is_empty());
    scan_rows(&["samples/zone.txt"], 1);
    for (args, what) in [
        (&["scan", "--lgr", "tests/data/lgr/missing.xml", "samples/zone.txt"][..], "bad LGR path"),
        (&["scan", "samples/missing.txt"][..], "bad input path"),
        (&["scan", "--no-such-flag", "samples/zone.txt"][..], "bad flag"),
        (&["scan", "--holder", "whoever", "samples/zone.txt"][..], "bad flag value"),
    ] {
        let out = lgrscan(args);
        assert_exit(&out, 2, what);
        assert!(out.stdout.is_empty(), "{what}: no output on stdout");
    }
}

fn dir_entries(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn output_is_atomic() {
    let dir = crate::util::temp_dir("atomic");
    let target = dir.join("findings.csv");
    let t = target.to_str().expect("UTF-8 path");

    // A run that fails after --output was given leaves nothing.
    let out = lgrscan(&["scan", "--output", t, "samples/missing.txt"]);
    assert_exit(&out, 2, "missing input");
    assert!(dir_entries(&dir).is_empty(), "{:?}", dir_entries(&dir));

    // An output path in a missing directory: an error, nothing created.
    let nested = dir.join("no/such/dir/findings.csv");
    let out = lgrscan(&["scan", "-o", nested.to_str().unwrap(), "samples/zone.txt"]);
    assert_exit(&out, 2, "missing output directory");
    assert!(dir_entries(&dir).is_empty(), "{:?}", dir_entries(&dir));

    // A successful run writes the file, and only it; same bytes as stdout.
    let out = lgrscan(&["scan", "--output", t, "--format", "csv", "samples/zone.txt"]);
    assert_exit(&out, 1, "scan to a file");
    assert!(out.stdout.is_empty());
    summary(&stderr(&out));
    assert_eq!(dir_entries(&dir), ["findings.csv"]);
    let piped = lgrscan(&["scan", "--format", "csv", "samples/zone.txt"]);
    assert_eq!(std::fs::read(&target).expect("output file"), piped.stdout);

    // A failing run keeps the previous file as it was.
    let before = std::fs::read(&target).unwrap();
    let out = lgrscan(&[
        "scan",
        "--output",
        t,
        "--lgr",
        "tests/data/lgr/missing.xml",
        "samples/zone.txt",
    ]);
    assert_exit(&out, 2, "bad LGR with an existing output");
    assert_eq!(std::fs::read(&target).unwrap(), before);
    assert_eq!(dir_entries(&dir), ["findings.csv"]);

    // --sync (flushed to disk before the rename) writes the same file, and
    // needs --output.
    let _ = std::fs::remove_file(&target);
    let out = lgrscan(&["scan", "--output", t, "--sync", "--format", "csv", "samples/zone.txt"]);
    assert_exit(&out, 1, "scan to a file with --sync");
    assert_eq!(dir_entries(&dir), ["findings.csv"]);
    assert_eq!(std::fs::read(&target).expect("output file"), piped.stdout);
    let out = lgrscan(&["scan", "--sync", "samples/zone.txt"]);
    assert_exit(&out, 2, "--sync without --output");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reports are formatted in parallel parts (2048 rows each): with more
/// rows than that, every row is written once, in order, in CSV and in
/// JSON Lines alike.
#[test]
fn long_reports_keep_every_row_in_order() {
    let n = 5000;
    let list: String = (0..n).map(|i| format!("bad_{i}\n")).collect();
    let path = std::env::temp_dir().join(format!("lgrscan-long-{}.txt", std::process::id()));
    std::fs::write(&path, list).unwrap();
    let p = path.to_str().unwrap();
    let r = scan_rows(&["--input-format", "list", "--threads", "2", p], 1);
    let out = lgrscan(&["scan", "--format", "jsonl", "--input-format", "list", p]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(r.len(), n);
    for (i, row) in r.iter().enumerate() {
        assert_eq!(
            (row["line"].as_str(), row["input"].as_str()),
            (&*(i + 1).to_string(), &*format!("bad_{i}"))
        );
        assert_eq!(row["kind"], "invalid");
    }
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .filter(|v: &serde_json::Value| v["kind"] != "meta" && v["kind"] != "summary")
        .collect();
    assert_eq!(lines.len(), n);
    for (i, v) in lines.iter().enumerate() {
        assert_eq!(v["line"], i as u64 + 1);
        assert_eq!(v["input"], format!("bad_{i}"));
    }
}

/// Error messages say each thing once, name the user's file (not a
/// temporary one) and suggest `builtin:NAME` for a bare built-in name
/// (issue #28 §3).
#[test]
fn error_messages_say_each_thing_once() {
    let out = lgrscan(&["scan", "samples/missing.txt"]);
    assert_exit(&out, 2, "missing input");
    let err = stderr(&out);
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
    assert_eq!(err.matches("samples/missing.txt").count(), 1, "{err}");

    for (args, name) in [
        (&["scan", "--lgr", "devanagari", "samples/zone.txt"][..], "devanagari"),
        (&["scan", "--variants", "common", "samples/zone.txt"][..], "common"),
        (&["annotate", "--lgr", "devanagari", "samples/zone.txt"][..], "devanagari"),
        (&["explain", "--lgr", "Khmer", "x"][..], "khmer"),
        (&["lgr", "info", "kashmiri"][..], "kashmiri"),
    ] {
        let out = lgrscan(args);
        assert_exit(&out, 2, &format!("{args:?}"));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert_eq!(err.matches("No such file or directory").count(), 1, "{args:?}: {err}");
        assert!(err.contains(&format!("did you mean builtin:{name}?")), "{args:?}: {err}");
    }
    let out = lgrscan(&["lgr", "info", "tests/data/lgr/missing.xml"]);
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));

    let dir = crate::util::temp_dir("messages");
    let target = dir.join("no/such/dir/findings.csv");
    let out = lgrscan(&["scan", "-o", target.to_str().unwrap(), "samples/zone.txt"]);
    assert_exit(&out, 2, "missing output directory");
    let err = stderr(&out);
    assert!(err.contains(&target.display().to_string()), "{err}");
    assert!(!err.contains(".tmp"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--threads` above 1024 is refused when the flags are parsed, before
/// any thread is made (issue #28 §3).
#[test]
fn threads_above_the_maximum_are_refused() {
    for args in [
        &["scan", "--threads", "1025", "samples/zone.txt"][..],
        &["scan", "--threads", "100000000", "samples/zone.txt"][..],
        &["annotate", "--lgr", "builtin:ascii", "--threads", "5000", "samples/zone.txt"][..],
    ] {
        let out = lgrscan(args);
        assert_exit(&out, 2, &format!("{args:?}"));
        assert!(out.stdout.is_empty());
        assert!(stderr(&out).contains("at most 1024"), "{}", stderr(&out));
    }
    scan_rows(&["--threads", "1024", "samples/zone.txt"], 1);
    scan_rows(&["--threads", "0", "samples/zone.txt"], 1);
}

/// Issue #28: an invalid label never holds a variant set. `1२3` (digit
/// mixing) comes first, but the first valid member, `१२३`, holds the set
/// and `123` is its blocked variant; with `--holder registered` the
/// earliest valid registration holds, however early the invalid one is.
#[test]
fn an_invalid_label_never_holds_a_variant_set() {
    let dir = crate::util::temp_dir("invalid-holder");
    let list = dir.join("digits.txt");
    std::fs::write(&list, "1२3\n१२३\n123\n").expect("write list");
    for mode in ["verified", "reference"] {
        let csv = scan_rows(&[list.to_str().unwrap(), "--index-mode", mode], 1);
        assert_eq!(role(&csv, "१२३"), ("holder".into(), "xn--e4bcd".into()), "{mode}");
        assert_eq!(role(&csv, "123"), ("blocked".into(), "xn--e4bcd".into()), "{mode}");
        assert_eq!(role(&csv, "1२3"), ("invalid".into(), "xn--e4bcd".into()), "{mode}");
    }
    let reg = dir.join("digits.csv");
    std::fs::write(&reg, "label,registered\n1२3,2001-01-01\n१२३,2020-01-01\n123,2010-01-01\n")
        .expect("write csv");
    let csv = scan_rows(&[reg.to_str().unwrap(), "--holder", "registered"], 1);
    assert_eq!(role(&csv, "123"), ("holder".into(), "123".into()));
    assert_eq!(role(&csv, "१२३"), ("blocked".into(), "123".into()));
    assert_eq!(role(&csv, "1२3"), ("invalid".into(), "123".into()));
    // A set of invalid labels only has no holder: no collision rows.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "1२3\n१2३\n").expect("write list");
    let csv = scan_rows(&[bad.to_str().unwrap()], 1);
    assert!(csv.iter().all(|r| r["kind"] == "invalid"), "{csv:?}");
    assert_eq!(csv.len(), 2);
}

/// A zone owner written as raw UTF-8 is a DNS name of its own, not the
/// A-label's: it is invalid (RFC 5891 §4.5, the zone holds A-labels), and
/// its rows never share a finding id with the A-label owner's, in a
/// master file and a CZDS dump, at one and two threads.
#[test]
fn a_u_label_owner_is_invalid_and_keeps_its_own_ids() {
    let dir = crate::util::temp_dir("ulabel-owner");
    let master = dir.join("u.zone");
    std::fs::write(
        &master,
        "$ORIGIN example.\n@ IN SOA ns1 h 1 2 3 4 5\n@ IN NS ns1\n\
         भारत IN NS ns1.other.\nxn--h2brj9c IN NS ns1.other.\n",
    )
    .expect("write zone");
    let czds = dir.join("u.czds");
    std::fs::write(
        &czds,
        "example.\t3600\tin\tsoa\tns1 h 1 2 3 4 5\n\
         xn--h2brj9c.example.\t3600\tin\tns\tns1.other.\n\
         भारत.example.\t3600\tin\tns\tns1.other.\n",
    )
    .expect("write dump");
    for path in [&master, &czds] {
        for threads in ["1", "2"] {
            let csv = scan_rows(&[path.to_str().unwrap(), "--threads", threads], 1);
            let invalid: Vec<&Row> = csv.iter().filter(|r| r["kind"] == "invalid").collect();
            assert_eq!(invalid.len(), 1, "{path:?}: {csv:?}");
            assert_eq!(invalid[0]["input"], "भारत");
            assert!(invalid[0]["reason"].contains("RFC 5891 §4.5"), "{:?}", invalid[0]);
            let role_of = |input: &str| {
                csv.iter()
                    .find(|r| r["kind"] == "collision" && r["input"] == input)
                    .map(|r| &r["role"])
            };
            assert_eq!(role_of("xn--h2brj9c").map(String::as_str), Some("holder"), "{csv:?}");
            assert_eq!(role_of("भारत").map(String::as_str), Some("invalid"), "{csv:?}");
            let mut ids: Vec<&str> = csv.iter().map(|r| r["id"].as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), csv.len(), "{path:?}: {csv:?}");
        }
    }
}

/// A pipe behind a path (`/dev/stdin`, `<(zcat …)`) is read once: a sorted
/// dump whose last owner repeats an earlier one is not settled (which
/// would read the input again and find it empty, exit 0).
#[test]
fn a_pipe_behind_a_path_is_read_once() {
    let mut dump = String::from("tld.\t86400\tin\tsoa\ta.nic.tld. h.nic.tld. 1 2 3 4 5\n");
    // Letters only: labels with a digit are not settled (see `settle`).
    let letters =
        |i: usize| (0..4).rev().map(move |k| (b'a' + (i / 26usize.pow(k) % 26) as u8) as char);
    let names: Vec<String> = (0..100_000).map(|i| letters(i).collect()).collect();
    for n in &names {
        dump += &format!("{n}.tld.\t3600\tin\tns\tns1.x.net.\n");
    }
    dump += &format!("{}.tld.\t3600\tin\tns\tns2.x.net.\n", names[1]);
    let out =
        crate::util::lgrscan_piped(&["scan", "/dev/stdin", "--format", "csv"], dump.as_bytes());
    assert_exit(&out, 0, "scan /dev/stdin");
    let s = summary(&stderr(&out));
    assert_eq!(s.lines, 100_002);
    assert_eq!(s.record_parts[..3], [1, 100_000, 1]);
}

/// `--check-ns` on a label list or CSV file is an error: they have no NS
/// records, so every label read as delegated to no name server, and a diff
/// against the zone's report called its `ns-mismatch` findings resolved.
#[test]
fn check_ns_needs_zone_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let list = dir.path().join("labels.txt");
    std::fs::write(&list, "bluecloud\n123\n").unwrap();
    for (input, what) in
        [("samples/labels.csv", "a CSV file"), (list.to_str().unwrap(), "a label list")]
    {
        let o = lgrscan(&[
            "scan",
            input,
            "--check-ns",
            "--format",
            "jsonl",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!(
                "--check-ns reads the NS records of zone input: {input} was read as {what}"
            )),
            "{e}"
        );
        assert!(!out.exists());
    }
    let o = lgrscan(&["scan", "samples/zone.txt", "--check-ns", "-q", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A CSV `lgr` pin names an LGR in any case, as a language tag does:
/// `KASHMIRI` was an unknown pin (a malformed row, exit 2) where `ks-ARAB`
/// was taken.
#[test]
fn lgr_pins_are_names_in_any_case() {
    let dir = crate::util::temp_dir("pin-case");
    let csv = dir.join("pins.csv");
    std::fs::write(&csv, "label,lgr\nabc,KASHMIRI\nabd,Builtin:Kashmiri\nabe,ks-ARAB\n").unwrap();
    let o = lgrscan(&["scan", csv.to_str().unwrap(), "-q", "--format", "csv"]);
    assert_exit(&o, 1, "three invalid rows, no unknown pin");
    let got: Vec<String> = rows(&stdout(&o)).iter().map(|r| r["lgr"].clone()).collect();
    assert_eq!(got, ["builtin:kashmiri"; 3]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summary's input line calls a CSV's header row a header row, not a
/// directive; a zone's `$ORIGIN` stays a directive.
#[test]
fn a_csv_header_is_counted_as_a_header_row() {
    let o = lgrscan(&["scan", "--format", "csv", "samples/labels.csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains(" comments, 1 header rows, "), "{}", stderr(&o));
    let o = lgrscan(&["scan", "--format", "csv", "samples/zone.txt"]);
    assert!(stderr(&o).contains(" directives, "), "{}", stderr(&o));
    let o = lgrscan(&["scan", "--format", "csv", "samples/zone.txt", "samples/labels.csv"]);
    assert!(stderr(&o).contains(" directives or header rows, "), "{}", stderr(&o));
}

/// The files a zone `$INCLUDE`s are inputs of the run too: the meta
/// record and an index header list each, with its size, digest and the
/// file that included it, after the named inputs.
#[test]
fn included_files_are_in_the_meta_record() {
    let zone = "tests/data/input/parent.zone";
    let o = lgrscan(&["scan", "-q", "--format", "jsonl", zone]);
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
    let meta: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("z.idx");
    let o = lgrscan(&["index", zone, "-o", idx.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info = lgrscan(&["index", "info", idx.to_str().unwrap()]);
    let header: serde_json::Value = serde_json::from_str(&stdout(&info)).unwrap();
    for inputs in [&meta["inputs"], &header["inputs"]] {
        let inputs = inputs.as_array().unwrap();
        let paths: Vec<&str> = inputs.iter().map(|i| i["path"].as_str().unwrap()).collect();
        assert_eq!(paths.len(), 3, "{inputs:?}");
        assert_eq!(paths[0], zone);
        assert!(paths[1].ends_with("inc/child.zone") && paths[2].ends_with("inc/sub.zone"));
        assert!(inputs[0].get("included_by").is_none());
        for i in &inputs[1..] {
            assert_eq!(i["included_by"], zone, "{i}");
            let bytes = std::fs::read(i["path"].as_str().unwrap()).unwrap();
            assert_eq!(i["size"], bytes.len() as u64);
            assert_eq!(i["sha256"].as_str().unwrap().len(), 64);
        }
    }
}

/// Under `--strict`, a CSV row whose `lgr` names no LGR of the set stops
/// the run with no report, as a malformed line does (the whole report was
/// written, then the error: hunt h4).
#[test]
fn strict_stops_at_an_unknown_pin_with_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    std::fs::write(&csv, "label,lgr\nfoo,ascii\nbar,klingon\n").unwrap();
    let csv = csv.to_str().unwrap();
    for policy in ["fail", "warn"] {
        let o = lgrscan(&["scan", csv, "--strict", "--format", "csv", "--on-malformed", policy]);
        assert_eq!(o.status.code(), Some(2), "{policy}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{policy}: {}", stdout(&o));
        assert!(stderr(&o).contains("p.csv:3"), "{}", stderr(&o));
        assert!(stderr(&o).contains("--strict"), "{}", stderr(&o));
    }
    let idx = dir.path().join("p.idx");
    let o =
        lgrscan(&["index", csv, "--strict", "--on-malformed", "warn", "-o", idx.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!idx.exists());
}
