//! `lgrscan index` and `lgrscan check`: exit statuses, a saved index and
//! `--against INPUT` give the same rows, LGR mismatch and damaged files.

use crate::util::{lgrscan, lgrscan_piped, root, stderr, stdout};

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
    let idx_s = &crate::util::sample_index(dir.path());
    let idx = std::path::Path::new(idx_s);
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
    // An LGR file's bytes under another name: the same LGR.
    let (a, b) = (dir.path().join("a.xml"), dir.path().join("b.xml"));
    std::fs::copy(root().join("src/builtin/khmer.xml"), &a).unwrap();
    std::fs::copy(&a, &b).unwrap();
    let k_idx = dir.path().join("k.idx");
    let (a, b, k_idx) = (a.to_str().unwrap(), b.to_str().unwrap(), k_idx.to_str().unwrap());
    let o = lgrscan(&["index", "samples/labels.csv", "--lgr", a, "-o", k_idx]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = lgrscan(&["check", "--against", k_idx, "--label", "ក្ដារ", "--lgr", b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut bytes = std::fs::read(idx).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(idx, &bytes).unwrap();
    let o = lgrscan(&["check", "--against", idx_s, "--label", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("truncated index"), "{}", stderr(&o));
}

#[test]
fn html_is_refused_before_any_work() {
    // A missing index would be the error if the work were started first.
    let o = lgrscan(&["check", "--against", "no-such.idx", "--label", "x", "--format", "html"]);
    assert_eq!(o.status.code(), Some(2));
    // clap refuses it: `check --format` has no `html` value.
    assert!(stderr(&o).contains("invalid value 'html'"), "{}", stderr(&o));
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
    // A file takes its header last, a pipe first (`-o /dev/stdout`): the
    // same header either way, but for the file's padding.
    let piped = lgrscan(&["index", zone, "-o", "/dev/stdout"]);
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    let from_pipe = dir.path().join("piped.idx");
    std::fs::write(&from_pipe, &piped.stdout).unwrap();
    let mut piped_info: serde_json::Value = serde_json::from_str(&stdout(&lgrscan(&[
        "index",
        "info",
        "--verify",
        from_pipe.to_str().unwrap(),
    ])))
    .unwrap();
    let verified = piped_info.as_object_mut().unwrap().remove("verified");
    assert_eq!(verified, Some(true.into()));
    let file_len = std::fs::metadata(idx).unwrap().len();
    assert!(piped_info["file_bytes"].as_u64().unwrap() < file_len);
    piped_info["file_bytes"] = file_len.into();
    assert_eq!(piped_info, info);
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

/// Candidates as a registry's files give them: CRLF ends and blank lines
/// (lines named as written), a quote left open (an error, not one
/// candidate swallowing the rest), names with the zone's suffix (checked
/// by their label, as `scan` reads them), a label over 255 octets (an
/// invalid row, not a failed check), and a label given twice by two
/// registrants (each its own `same_registrant`).
#[test]
fn candidates_as_registries_write_them() {
    let dir = temp();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    crate::util::sample_index(dir.path());
    let check = |file: &str, body: &str| {
        std::fs::write(p(file), body).unwrap();
        lgrscan(&["check", "--against", &p("labels.idx"), &p(file), "--format", "csv"])
    };
    let rows = |o: &std::process::Output, col: &str| -> Vec<String> {
        crate::util::rows(&stdout(o)).iter().map(|r| r[col].clone()).collect()
    };
    let o = check("crlf.csv", "label,registrant\r\nfoo,r1\r\n\r\nbar,r2\r\n");
    assert_eq!(rows(&o, "line"), ["2", "4"]);
    let o = check("bad.csv", "label,priority\r\nfoo,2024-01-01\r\n\r\nbaz,bad\r\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.csv:4: priority"), "{}", stderr(&o));
    let o = check("two.csv", "domain,label\nfoo,bar\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("two.csv:1: two columns for the label"), "{}", stderr(&o));
    let o = check("quote.csv", "label,registrant\n\"newbrand,r1\nfoo,r2\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("quote.csv:2: the label spans lines"), "{}", stderr(&o));

    // The suffix: the index's apex, in any case, the root's dot optional.
    let o = lgrscan(&["index", "samples/zone.txt", "-o", &p("zone.idx")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(
        p("names.txt"),
        "eastnews.example.\nnic.EXAMPLE\nEASTNEWS\nnewbrand.\nx.other\n",
    )
    .unwrap();
    let o = lgrscan(&["check", "--against", &p("zone.idx"), &p("names.txt"), "--format", "csv"]);
    let want = ["registered", "registered", "registered", "available", "invalid"];
    assert_eq!(rows(&o, "status"), want, "{}", stdout(&o));

    let long = format!("newbrand\n{}\nbluecloud\n", "b".repeat(256));
    let o = check("long.txt", &long);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(rows(&o, "status"), ["available", "invalid", "registered"]);

    // آیٔین is an allocatable variant of a label of reg-9253.
    for (body, same) in [
        ("label,registrant\nآیٔین,reg-9253\nآیٔین,other\n", ["yes", "no"]),
        ("label,registrant\nآیٔین,other\nآیٔین,reg-9253\n", ["no", "yes"]),
    ] {
        let o = check("twice.csv", body);
        assert_eq!(rows(&o, "status"), ["variant-allocatable"; 2], "{body}");
        assert_eq!(rows(&o, "same_registrant"), same, "{body}");
    }
}

/// An index cut short of its magic bytes is refused as an index, never
/// read as a list of candidates; a failed `index` run (a malformed line
/// under `--on-malformed fail`) leaves the index named as it was.
#[test]
fn damaged_or_failed_indexes_are_never_used() {
    let dir = temp();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    crate::util::sample_index(dir.path());
    let whole = std::fs::read(p("labels.idx")).unwrap();
    for n in 1..8 {
        std::fs::write(p("cut.idx"), &whole[..n]).unwrap();
        let o = lgrscan(&["check", "--against", &p("cut.idx"), "--label", "bluecloud"]);
        assert_eq!(o.status.code(), Some(2), "{n} bytes: {}", stdout(&o));
        assert!(stderr(&o).contains("not an lgrscan index"), "{n}: {}", stderr(&o));
    }
    std::fs::write(p("mal.csv"), "label,registered\ngoodone,2020-01-01\nbadone,notadate\n")
        .unwrap();
    let o = lgrscan(&["index", &p("mal.csv"), "-o", &p("labels.idx")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("was not written") && stderr(&o).contains("mal.csv:3"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(p("labels.idx")).unwrap(), whole, "the index named is as it was");
    let o = lgrscan(&["index", &p("mal.csv"), "-o", &p("labels.idx"), "--on-malformed", "warn"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(std::fs::read(p("labels.idx")).unwrap(), whole, "warn writes it");
}

/// A candidate given with `--label` has no line: a row it holds says so
/// (`holder_line` null, `(candidate)` in text), not line 0.
#[test]
fn a_command_line_holder_has_no_line() {
    let args = ["check", "--against", "samples/labels.csv", "--label", "ក្ដារ", "--label", "ក្តារ"];
    let o = lgrscan(&[&args[..], &["--format", "jsonl"]].concat());
    let rows: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2, "{}", stdout(&o));
    assert_eq!(rows[1]["holder_source"], "candidate");
    assert!(rows.iter().all(|r| r["holder_line"].is_null()), "{rows:?}");
    let o = lgrscan(&[&args[..], &["--format", "text"]].concat());
    assert!(stdout(&o).contains("holder ក្ដារ (candidate)"), "{}", stdout(&o));
}

/// A registered label's CSV `lgr` pin judges it in `check` as in `scan`:
/// `2025` is pinned to kashmiri (`samples/labels.csv`), invalid there, so
/// it holds no set and `२०२५` is available, with a saved index and with
/// the input; likewise a pin naming no LGR of the set.
#[test]
fn a_registered_labels_lgr_pin_is_kept() {
    let dir = temp();
    let idx = dir.path().join("labels.idx");
    let idx = idx.to_str().unwrap();
    assert_eq!(lgrscan(&["index", "samples/labels.csv", "-o", idx]).status.code(), Some(0));
    let status = |against: &str| {
        let o = lgrscan(&["check", "--against", against, "--label", "२०२५", "--format", "jsonl"]);
        let row: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        row["status"].as_str().unwrap().to_string()
    };
    assert_eq!(status("samples/labels.csv"), "available");
    assert_eq!(status(idx), "available");
    let unknown = dir.path().join("unknown.csv");
    std::fs::write(&unknown, "label,lgr\n2025,nosuch\n").unwrap();
    assert_eq!(status(unknown.to_str().unwrap()), "available");
    let unpinned = dir.path().join("unpinned.csv");
    std::fs::write(&unpinned, "label,lgr\n2025,\n").unwrap();
    assert_eq!(status(unpinned.to_str().unwrap()), "variant-blocked");
}

/// A zone suffix in upper case is the apex, as the list reader reads it:
/// `--origin РФ` is `xn--p1ai.`, and a candidate `foo.РФ` is checked by
/// its label `foo` (IDNA2008 gives `РФ` no A-label as it is, so it was
/// checked whole, an invalid label), against an index and against inputs.
#[test]
fn an_upper_case_suffix_is_the_apex() {
    let dir = temp();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(path("zone.txt"), "foo.\u{0440}\u{0444}\nbar\n").unwrap();
    let o = lgrscan(&[
        "index",
        &path("zone.txt"),
        "--origin",
        "\u{0420}\u{0424}",
        "-o",
        &path("z.idx"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for against in [path("z.idx"), path("zone.txt")] {
        let o = lgrscan(&[
            "check",
            "--against",
            &against,
            "--label",
            "foo.\u{0420}\u{0424}",
            "--label",
            "newbrand.\u{0420}\u{0444}.",
            "--format",
            "csv",
        ]);
        let rows = crate::util::rows(&stdout(&o));
        let got: Vec<(&str, &str)> =
            rows.iter().map(|r| (r["label"].as_str(), r["status"].as_str())).collect();
        assert_eq!(got, [("foo", "registered"), ("newbrand", "available")], "{against}");
    }
}
