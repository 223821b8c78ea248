//! `lgrscan index` and `lgrscan check`: exit statuses, a saved index and
//! `--against INPUT` give the same rows, LGR mismatch and damaged files.

use crate::util::{lgrscan, lgrscan_piped, stderr, stdout};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary directory")
}

#[test]
fn saved_index_and_inputs_give_the_same_rows() {
    let dir = temp();
    let idx = dir.path().join("labels.idx");
    let idx = idx.to_str().unwrap();
    let o = lgrscan(&["index", "samples/labels.csv", "-o", idx]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info = lgrscan(&["index", "info", idx, "--verify"]);
    assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
    assert!(stdout(&info).contains("\"index_mode\": \"verified\""));
    assert!(stdout(&info).contains("builtin:common"));
    for format in ["csv", "jsonl", "text"] {
        let a = lgrscan(&["check", "--against", idx, "samples/candidates.csv", "--format", format]);
        let b = lgrscan(&[
            "check",
            "--against",
            "samples/labels.csv",
            "samples/candidates.csv",
            "--format",
            format,
        ]);
        assert_eq!(a.status.code(), Some(1), "{}", stderr(&a));
        assert_eq!(b.status.code(), Some(1), "{}", stderr(&b));
        assert_eq!(stdout(&a), stdout(&b), "{format}");
    }
    let csv =
        stdout(&lgrscan(&["check", "--against", idx, "samples/candidates.csv", "--format", "csv"]));
    for status in [
        "available",
        "registered",
        "variant-blocked",
        "variant-allocatable",
        "invalid",
        "contention",
    ] {
        assert!(csv.contains(&format!(",{status},")), "{status} in {csv}");
    }
    assert!(csv.contains("U+0626 ARABIC LETTER YEH WITH HAMZA ABOVE ↔ U+06CC ARABIC LETTER FARSI YEH U+0654 ARABIC HAMZA ABOVE"));
    // Every candidate available: exit 0.
    let ok =
        lgrscan(&["check", "--against", idx, "--label", "brandnewname", "--label", "another-one"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
}

#[test]
fn lgr_mismatch_and_damage_are_errors() {
    let dir = temp();
    let idx = dir.path().join("labels.idx");
    let idx_s = idx.to_str().unwrap();
    assert_eq!(lgrscan(&["index", "samples/labels.csv", "-o", idx_s]).status.code(), Some(0));
    let o = lgrscan(&["check", "--against", idx_s, "--label", "x", "--lgr", "builtin:ascii"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not those the index was built with"), "{}", stderr(&o));
    let o = lgrscan(&["check", "--against", idx_s, "--label", "x", "--index-mode", "reference"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // The same LGRs, named: accepted.
    let mut args = vec!["check", "--against", idx_s, "--label", "brandnewname"];
    let flags: Vec<String> =
        lgrscan::builtin::DEFAULT_SET.iter().map(|n| format!("builtin:{n}")).collect();
    for f in &flags {
        args.extend(["--lgr", f]);
    }
    args.extend(["--variants", "builtin:common"]);
    let o = lgrscan(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut bytes = std::fs::read(&idx).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&idx, &bytes).unwrap();
    let o = lgrscan(&["check", "--against", idx_s, "--label", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("truncated index"), "{}", stderr(&o));
}

#[test]
fn html_is_refused_before_any_work() {
    // A missing index would be the error if the work were started first.
    let o = lgrscan(&["check", "--against", "no-such.idx", "--label", "x", "--format", "html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("check has no HTML report"), "{}", stderr(&o));
}

/// An index header records each input as a scan's meta record does (one
/// function computes both): path, size, SHA-256 and SOA serial.
#[test]
fn index_header_records_inputs_as_the_scan_meta_does() {
    let dir = temp();
    let idx = dir.path().join("zone.idx");
    let idx = idx.to_str().unwrap();
    let zone = "samples/zone.txt";
    let o = lgrscan(&["index", zone, "-o", idx]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info: serde_json::Value =
        serde_json::from_str(&stdout(&lgrscan(&["index", "info", idx]))).unwrap();
    let scan = lgrscan(&["scan", zone, "--format", "jsonl"]);
    let meta: serde_json::Value =
        serde_json::from_str(stdout(&scan).lines().next().unwrap()).unwrap();
    assert_eq!(info["inputs"], meta["inputs"]);
    let input = &info["inputs"][0];
    assert_eq!(input["path"], zone);
    assert_eq!(input["sha256"].as_str().map(str::len), Some(64));
    assert!(input["soa_serial"].is_u64(), "{input}");
}

/// A pipe given by path (`/dev/stdin`) is read once, by the index: the
/// digest thread leaves it alone, so every label reaches the index.
#[cfg(target_os = "linux")]
#[test]
fn a_piped_input_is_indexed_whole() {
    let dir = temp();
    let (piped, file) = (dir.path().join("piped.idx"), dir.path().join("file.idx"));
    let list = std::fs::read(crate::util::root().join("samples/labels.csv")).unwrap();
    let out = lgrscan_piped(&["index", "/dev/stdin", "-o", piped.to_str().unwrap()], &list);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let o = lgrscan(&["index", "samples/labels.csv", "-o", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let header = |p: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&stdout(&lgrscan(&["index", "info", p.to_str().unwrap()]))).unwrap()
    };
    let (piped, file) = (header(&piped), header(&file));
    assert_eq!(piped["labels"], file["labels"]);
    assert!(piped["inputs"][0]["sha256"].is_null(), "{}", piped["inputs"]);
}

/// `--against` a pipe given by path reads it as input, whole: asking
/// whether it is a saved index takes none of its bytes.
#[cfg(target_os = "linux")]
#[test]
fn against_a_piped_input_loses_no_bytes() {
    let args = ["check", "--against", "/dev/stdin", "--label", "abcdefghijkl", "--format", "csv"];
    let out = lgrscan_piped(&args, b"abcdefghijkl\nother\n");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains(",registered,"), "{}", stdout(&out));
}
