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
    // Its pins name LGRs not in this set (malformed lines, as in `scan`).
    let accept = ["--on-malformed", "ignore"];
    let o =
        lgrscan(&[&["index", "samples/labels.csv", "--lgr", a, "-o", k_idx][..], &accept].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = lgrscan(&["check", "--against", k_idx, "--label", "ក្ដារ", "--lgr", b]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A damaged block, found by a look-up long after the file was opened
    // (an index of several 64 KiB blocks, its first damaged): the error
    // names the file.
    let list = dir.path().join("many.txt");
    let names: String = (0..20_000).map(|i| format!("name{i}\n")).collect();
    std::fs::write(&list, names).unwrap();
    let flipped_idx = dir.path().join("flipped.idx");
    let o = lgrscan(&["index", list.to_str().unwrap(), "-o", flipped_idx.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info: serde_json::Value =
        serde_json::from_str(&stdout(&lgrscan(&["index", "info", flipped_idx.to_str().unwrap()])))
            .unwrap();
    let data_len = info["data_len"].as_u64().unwrap() as usize;
    let mut flipped = std::fs::read(&flipped_idx).unwrap();
    // The data region ends where its blocks' CRCs (4 bytes each) start;
    // its first bytes are the fingerprints, read by look-ups only.
    let data_start = flipped.len() - 4 * data_len.div_ceil(64 << 10) - data_len;
    assert!(data_len > 3 * (64 << 10), "{data_len}");
    flipped[data_start + 1] ^= 0x40;
    std::fs::write(&flipped_idx, &flipped).unwrap();
    let o = lgrscan(&["index", "info", flipped_idx.to_str().unwrap(), "--verify"]);
    assert_eq!(o.status.code(), Some(2));
    let named = format!("{}: damaged index: checksum mismatch in block", flipped_idx.display());
    assert!(stderr(&o).contains(&named), "{}", stderr(&o));
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

/// The inputs' digests are a job of the run's threads: with one thread
/// (the digest and the build take turns, and the run must not wait for a
/// job its one thread has not run) and with three, an index header and a
/// scan's meta record give the same facts of the input, written with the
/// file's and the pipe's way of writing the index.
#[test]
fn digests_are_the_same_at_any_thread_count() {
    let dir = temp();
    let zone = "samples/zone.txt";
    let mut seen = Vec::new();
    for threads in ["1", "3"] {
        let idx = dir.path().join(format!("zone-{threads}.idx"));
        let idx = idx.to_str().unwrap();
        let o = lgrscan(&["index", zone, "-o", idx, "--threads", threads]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let info: serde_json::Value =
            serde_json::from_str(&stdout(&lgrscan(&["index", "info", idx]))).unwrap();
        let piped = lgrscan(&["index", zone, "-o", "/dev/stdout", "--threads", threads]);
        assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
        let from_pipe = dir.path().join(format!("piped-{threads}.idx"));
        std::fs::write(&from_pipe, &piped.stdout).unwrap();
        let piped_info: serde_json::Value = serde_json::from_str(&stdout(&lgrscan(&[
            "index",
            "info",
            from_pipe.to_str().unwrap(),
        ])))
        .unwrap();
        assert_eq!(piped_info["inputs"], info["inputs"], "--threads {threads}");
        let scan = lgrscan(&["scan", zone, "--format", "jsonl", "--threads", threads]);
        let meta: serde_json::Value =
            serde_json::from_str(stdout(&scan).lines().next().unwrap()).unwrap();
        assert_eq!(info["inputs"], meta["inputs"], "--threads {threads}");
        assert_eq!(meta["inputs"][0]["sha256"].as_str().map(str::len), Some(64));
        seen.push(meta["inputs"].clone());
    }
    assert_eq!(seen[0], seen[1]);
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
    // Two files, then a `--label`: each row names its file.
    std::fs::write(p("more.txt"), "baz\n").unwrap();
    let args = ["check", "--against", &p("labels.idx"), &p("crlf.csv"), &p("more.txt")];
    let o = lgrscan(&[&args[..], &["--label", "qux", "--format", "csv"]].concat());
    assert_eq!(rows(&o, "source"), [p("crlf.csv"), p("crlf.csv"), p("more.txt"), String::new()]);
    assert_eq!(rows(&o, "line"), ["2", "4", "1", ""]);
    // A candidate holder in another file is named by its file (it read
    // `candidate`, line 1, the first file's line given as the second's).
    std::fs::write(p("c1.txt"), "ក្ដារ\n# c\n\nfoo\n").unwrap();
    std::fs::write(p("c2.txt"), "\n\nក្តារ\n").unwrap();
    let args = ["check", "--against", &p("labels.idx"), &p("c1.txt"), &p("c2.txt")];
    let o = lgrscan(&[&args[..], &["--format", "csv"]].concat());
    let contention: Vec<(String, String)> = crate::util::rows(&stdout(&o))
        .iter()
        .filter(|r| !r["holder"].is_empty())
        .map(|r| (r["holder_source"].clone(), r["holder_line"].clone()))
        .collect();
    assert_eq!(contention, [(p("c1.txt"), "1".to_string())], "{}", stdout(&o));
    let o = lgrscan(&[&args[..], &["--format", "text"]].concat());
    assert!(stdout(&o).contains(&format!("({}:1)", p("c1.txt"))), "{}", stdout(&o));
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

/// Every `available` row, and a contention set's winner, gives the
/// candidate's own disposition under the LGR that judges it, with that
/// LGR and its reason, as `scan` gives a variant set's holder; whichever
/// way the check reached it: a plain label sharing no key (no scan:
/// `newbrand`), a label holding a set of its own in the scan (`२०२५`, the
/// variant of `2025`, which its kashmiri pin makes invalid), one the scan
/// finds nothing to say of (`काला`), and a label given twice (`abc`).
/// Only the second of these had one.
#[test]
fn available_rows_give_the_labels_own_disposition() {
    let labels = ["newbrand", "९८७६", "काला", "abc", "abc"];
    let args: Vec<&str> = labels.iter().flat_map(|l| ["--label", l]).collect();
    let o = lgrscan(
        &[&["check", "--against", "samples/labels.csv", "--format", "jsonl"], &args[..]].concat(),
    );
    let rows: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let statuses: Vec<&str> = rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["available", "available", "available", "contention", "contention"]);
    let own =
        |r: &serde_json::Value| (r["lgr"].clone(), r["disposition"].clone(), r["reason"].clone());
    for r in &rows[..4] {
        assert_eq!(r["disposition"], "valid", "{r}");
        assert!(r["lgr"].as_str().is_some_and(|l| l.starts_with("builtin:")), "{r}");
        assert!(r["reason"].as_str().is_some_and(|t| t.contains("disp=valid")), "{r}");
        assert!(r["holder"].is_null(), "{r}");
    }
    // The plain label with no scan has the verdict the scan gives the one
    // it judged.
    assert_eq!(own(&rows[0]), own(&rows[3]));
    assert_eq!(rows[1]["lgr"], "builtin:devanagari");
    assert_eq!(rows[4]["disposition"], "blocked", "the second abc, as a variant of the first");
}

/// A registered label's CSV `lgr` pin judges it in `check` as in `scan`:
/// `2025` is pinned to kashmiri (`samples/labels.csv`), invalid there, so
/// it holds no set; it is still registered, and blocks its variant `२०२५`,
/// with a saved index and with the input, the reason naming the pin's
/// verdict. Likewise a pin naming no LGR of the set, which is a malformed
/// line as in `scan`: no index and no check under the default
/// `--on-malformed fail`; accepted, the label blocks its variants.
#[test]
fn a_registered_labels_lgr_pin_is_kept() {
    let dir = temp();
    let idx = dir.path().join("labels.idx");
    let idx = idx.to_str().unwrap();
    assert_eq!(lgrscan(&["index", "samples/labels.csv", "-o", idx]).status.code(), Some(0));
    let check = |against: &str, policy: &str| {
        let args = ["check", "--against", against, "--label", "२०२५", "--format", "jsonl"];
        lgrscan(&[&args[..], &["--on-malformed", policy]].concat())
    };
    let verdict = |against: &str, policy: &str| {
        let row: serde_json::Value =
            serde_json::from_str(stdout(&check(against, policy)).trim()).unwrap();
        let text = |k: &str| row[k].as_str().unwrap_or_default().to_string();
        (text("status"), text("holder"), text("reason"))
    };
    let kashmiri = "the registered label 2025, which is not valid (builtin:kashmiri: ";
    for against in ["samples/labels.csv", idx] {
        let (status, holder, reason) = verdict(against, "fail");
        assert_eq!((status.as_str(), holder.as_str()), ("variant-blocked", "2025"), "{reason}");
        assert!(reason.contains(kashmiri), "{reason}");
    }
    let unknown = dir.path().join("unknown.csv");
    std::fs::write(&unknown, "label,lgr\n2025,nosuch\n").unwrap();
    let unknown = unknown.to_str().unwrap();
    let refused = check(unknown, "fail");
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("unknown.csv:2 (byte 10): the lgr column names 'nosuch'"));
    assert!(stdout(&refused).is_empty());
    let nosuch = "the registered label 2025, which is not valid (its lgr column names no LGR";
    assert!(verdict(unknown, "ignore").2.contains(nosuch));
    let unknown_idx = dir.path().join("unknown.idx");
    let unknown_idx = unknown_idx.to_str().unwrap();
    let o = lgrscan(&["index", unknown, "-o", unknown_idx]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!std::path::Path::new(unknown_idx).exists());
    let o = lgrscan(&["index", unknown, "-o", unknown_idx, "--on-malformed", "warn"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: 1 row with an unknown lgr"), "{}", stderr(&o));
    assert!(verdict(unknown_idx, "fail").2.contains(nosuch));
    // Unpinned, `2025` is valid and holds the set: a plain blocked variant.
    let unpinned = dir.path().join("unpinned.csv");
    std::fs::write(&unpinned, "label,lgr\n2025,\n").unwrap();
    let (status, holder, reason) = verdict(unpinned.to_str().unwrap(), "fail");
    assert_eq!((status.as_str(), holder.as_str()), ("variant-blocked", "2025"), "{reason}");
    assert!(!reason.contains("not valid"), "{reason}");
}

/// A pin naming no LGR of the set is kept in an index as such, not its
/// text: such a label is invalid and holds no set whatever its pin says,
/// but it blocks its variants, whose reason quotes the pin (`scan` quotes
/// it in that label's own row; the label itself is `registered`). A saved
/// index and the input give the same rows, for the label, its variants
/// and another candidate.
#[test]
fn an_unknown_pin_gives_the_same_rows_from_an_index() {
    let dir = temp();
    let csv = dir.path().join("pins.csv");
    std::fs::write(&csv, "label,lgr\n2025,nosuch\nក្ដារ,builtin:hindu\nbluecloud,\n").unwrap();
    let (csv, idx) = (csv.to_str().unwrap(), dir.path().join("pins.idx"));
    let idx = idx.to_str().unwrap();
    let accept = ["--on-malformed", "ignore"];
    assert_eq!(lgrscan(&[&["index", csv, "-o", idx][..], &accept].concat()).status.code(), Some(0));
    let labels = ["2025", "२०२५", "ក្ដារ", "ក្តារ", "bluecloud", "newbrand"];
    let args: Vec<&str> = labels.iter().flat_map(|l| ["--label", l]).collect();
    let rows = |against: &str| {
        let check = ["check", "--against", against, "--format", "jsonl"];
        let o = lgrscan(&[&check[..], &accept, &args[..]].concat());
        assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
        let rows: Vec<serde_json::Value> =
            stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        rows
    };
    let from_input = rows(csv);
    assert_eq!(rows(idx), from_input);
    let status: Vec<&str> = from_input.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(
        status,
        [
            "registered",
            "variant-blocked",
            "registered",
            "variant-blocked",
            "registered",
            "available"
        ]
    );
    let scan = lgrscan(&["scan", "-q", "--on-malformed", "ignore", "--format", "csv", csv]);
    assert!(stdout(&scan).contains("the lgr column names 'nosuch'"), "{}", stdout(&scan));
    // The row is the pin's, not an IDNA2008 failure.
    let pinned = crate::util::rows(&stdout(&scan));
    let pinned = pinned.iter().find(|r| r["reason"].contains("'nosuch'")).unwrap();
    assert_eq!(pinned["lgr"], "nosuch");
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

/// `-` is standard input for `--against` and standard output for `-o`,
/// never a file of that name (a stale `./-`, which `index -o -` used to
/// create, answered instead of the registry piped in); standard input
/// named twice and an empty file as the registry are refused (every
/// candidate was `available`, exit 0); a registry of comment lines alone
/// is a registry with no label yet.
#[test]
fn dash_is_a_stream_and_an_empty_registry_is_refused() {
    use std::io::Write;
    let dir = temp();
    let idx = crate::util::sample_index(dir.path());
    let stale = dir.path().join("-");
    std::fs::copy(&idx, &stale).unwrap();
    let run = |args: &[&str], input: &[u8]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lgrscan"))
            .args(args)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input);
        child.wait_with_output().unwrap()
    };
    let args = ["check", "--against", "-", "--label", "zzz", "--label", "bluecloud"];
    let o = run(&[&args[..], &["--format", "csv"]].concat(), b"zzz\n");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains(",zzz,zzz,zzz,registered,"), "{}", stdout(&o));
    assert!(stdout(&o).contains(",bluecloud,bluecloud,bluecloud,available,"), "{}", stdout(&o));
    let args = ["check", "--against", &idx, "--label", "bluecloud", "--format", "csv", "-o", "-"];
    let o = run(&args, b"");
    assert!(stdout(&o).contains(",bluecloud,bluecloud,bluecloud,registered,"), "{}", stdout(&o));
    assert_eq!(std::fs::read(&stale).unwrap(), std::fs::read(&idx).unwrap(), "./- written");
    std::fs::write(dir.path().join("zero.idx"), b"").unwrap();
    let o = run(&["check", "--against", "zero.idx", "--label", "newbrand"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("zero.idx is empty"), "{}", stderr(&o));
    let o = run(&["check", "--against", "-", "-"], b"newbrand\n");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("standard input (-) is named twice"), "{}", stderr(&o));
    let o = run(&["check", "--against", &idx, "--against", &idx, "--label", "a"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a saved index: give it alone"), "{}", stderr(&o));
    std::fs::write(dir.path().join("none.txt"), b"# no names yet\n").unwrap();
    let o = run(&["check", "--against", "none.txt", "--label", "newbrand"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The flags of how inputs are read are refused with a saved index (they
/// were unused, and `--against INPUT` answered otherwise: `foo.example`
/// invalid from the index, `foo` from the input); `--origin` may name the
/// index's own apex, in either form and any case.
#[test]
fn input_flags_with_an_index_must_fit_it() {
    let dir = temp();
    let bare = crate::util::sample_index(dir.path());
    let zoned = dir.path().join("zoned.idx");
    let zoned = zoned.to_str().unwrap();
    let o = lgrscan(&["index", "samples/labels.csv", "--origin", "example.", "-o", zoned]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let check = |idx: &str, flags: &[&str]| {
        let args =
            [&["check", "--against", idx, "--label", "foo.example", "--format", "csv"], flags];
        lgrscan(&args.concat())
    };
    for (idx, flags, refusal) in [
        (&*bare, &["--origin", "example."][..], "the index was built with no apex"),
        (zoned, &["--origin", "other."], "the index was built for the zone example."),
        (&*bare, &["--input-format", "csv"], "--input-format and --delimiter say how inputs"),
        (zoned, &["--delimiter", ";"], "--input-format and --delimiter say how inputs"),
    ] {
        let o = check(idx, flags);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(refusal), "{flags:?}: {}", stderr(&o));
    }
    let input = ["check", "--against", "samples/labels.csv", "--origin", "example."];
    let from_input =
        lgrscan(&[&input[..], &["--label", "foo.example", "--format", "csv"]].concat());
    for flags in [&[][..], &["--origin", "EXAMPLE"]] {
        let o = check(zoned, flags);
        assert_eq!(o.status.code(), Some(0), "{flags:?}: {}", stderr(&o));
        assert!(stdout(&o).contains(",foo,foo,foo,available,"), "{}", stdout(&o));
        assert_eq!(stdout(&o), stdout(&from_input), "{flags:?}");
    }
}

/// A candidate still dotted once the zone's suffix is off is a name of
/// another zone (or below a label): invalid, and said so, not with the
/// zone reader's "escaped dot inside label"; from an index and an input.
#[test]
fn a_name_outside_the_zone_is_said_to_be_one() {
    let dir = temp();
    let idx = dir.path().join("zoned.idx");
    let idx = idx.to_str().unwrap();
    let o = lgrscan(&["index", "samples/labels.csv", "--origin", "example.", "-o", idx]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let labels = ["--label", "foo.other.", "--label", "www.bluecloud.example", "--format", "csv"];
    let from_index = lgrscan(&[&["check", "--against", idx][..], &labels].concat());
    let input = ["check", "--against", "samples/labels.csv", "--origin", "example."];
    let from_input = lgrscan(&[&input[..], &labels].concat());
    assert_eq!(from_index.status.code(), Some(1), "{}", stderr(&from_index));
    assert_eq!(stdout(&from_index), stdout(&from_input));
    let rows = stdout(&from_index);
    for name in ["foo.other", "www.bluecloud.example"] {
        let said = format!("\"\"{name}\"\" is a name, not a label (the zone's apex is example.)");
        assert!(rows.contains(&said), "{rows}");
    }
    assert!(!rows.contains("escaped dot"), "{rows}");
}

/// A valid candidate whose variant set holds only a registered label the
/// LGR finds invalid (`1२3` mixes digit sets) is blocked by it: the scan
/// makes the candidate the set's holder, with the registered label a
/// member in conflict, and exits 1. It was `available`, exit 0.
#[test]
fn a_registered_invalid_variant_blocks_a_candidate() {
    let dir = temp();
    let reg = dir.path().join("reg.csv");
    std::fs::write(&reg, "label,registrant\n1२3,r1\n").unwrap();
    let reg = reg.to_str().unwrap();
    let idx = dir.path().join("reg.idx");
    let idx = idx.to_str().unwrap();
    assert_eq!(lgrscan(&["index", reg, "-o", idx]).status.code(), Some(0));
    for against in [reg, idx] {
        let o = lgrscan(&["check", "--against", against, "--label", "123", "--format", "csv"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        let row = out.lines().nth(1).unwrap_or_default();
        assert!(row.starts_with(",,123,123,123,variant-blocked,,1२3,"), "{out}");
        assert!(
            row.contains(",r1,,blocked,U+0968 DEVANAGARI DIGIT TWO ↔ U+0032 DIGIT TWO,"),
            "{out}"
        );
        assert!(row.contains("the registered label 1२3 (xn--13-quf), which is not valid"), "{out}");
    }
    // The scan of the two: a conflict, exit 1.
    let all = dir.path().join("all.csv");
    std::fs::write(&all, "label,registrant\n1२3,r1\n123,r2\n").unwrap();
    let o = lgrscan(&["scan", all.to_str().unwrap(), "-q", "--format", "csv"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// Under `--priority date` a repeated candidate with the earlier date wins
/// its contention set, as another label of the set would: the first in
/// input order did, whatever the dates.
#[test]
fn a_repeated_candidate_with_the_earlier_date_wins() {
    let dir = temp();
    let cands = dir.path().join("cands.csv");
    std::fs::write(
        &cands,
        "label,registrant,priority\n९८७६,alice,2023-01-01\n९८७६,bob,2022-01-01\n9876,carol,2022-06-01\n",
    )
    .unwrap();
    let args = ["check", "--against", "samples/labels.csv", cands.to_str().unwrap()];
    let o = lgrscan(&[&args[..], &["--priority", "date", "--format", "csv"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = crate::util::rows(&stdout(&o));
    let who = |r: &std::collections::BTreeMap<String, String>| {
        (r["status"].clone(), r["holder_registrant"].clone(), r["holder_line"].clone())
    };
    let contention = |by: &str, line: &str| ("contention".into(), by.into(), line.into());
    assert_eq!(who(&rows[0]), contention("bob", "3"), "{rows:?}");
    assert_eq!(who(&rows[1]), contention("", ""), "bob's own row: the winner");
    assert_eq!(who(&rows[2]), contention("bob", "3"), "{rows:?}");
}

/// `--holder registered` on an input with no registration date, and
/// `--priority date` on candidates with no priority date, are errors: they
/// fell back to input order unsaid (a `created` column, a misspelt
/// `priorty`, a zone file).
#[test]
fn date_orders_without_dates_are_errors() {
    let dir = temp();
    let created = dir.path().join("created.csv");
    std::fs::write(
        &created,
        "domain,created,registrant\nxn--j2eso3r6c,2024-02-01,r1\nxn--j2e2aa2r6c,2016-08-15,r2\n",
    )
    .unwrap();
    for input in [created.to_str().unwrap(), "samples/zone.txt"] {
        let o = lgrscan(&["scan", input, "--holder", "registered", "-q"]);
        assert_eq!(o.status.code(), Some(2), "{input}: {}", stderr(&o));
        assert!(
            stderr(&o)
                .contains("--holder registered: no label of the input has a registration date")
        );
    }
    let o = lgrscan(&["scan", created.to_str().unwrap(), "--holder", "registered", "-q"]);
    assert!(stderr(&o).contains("(its columns: created)"), "{}", stderr(&o));
    let o = lgrscan(&["scan", "samples/labels.csv", "--holder", "registered", "-q", "-o", "-"]);
    assert_eq!(o.status.code(), Some(1), "dates in the samples: {}", stderr(&o));
    let typo = dir.path().join("typo.csv");
    std::fs::write(&typo, "label,priorty\n५६७८,2023-01-01\n5678,2022-01-01\n").unwrap();
    let check = ["check", "--against", "samples/labels.csv", typo.to_str().unwrap()];
    let o = lgrscan(&[&check[..], &["--priority", "date"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--priority date: no candidate has a priority date"));
    let o = lgrscan(&check);
    assert_eq!(o.status.code(), Some(1), "input order: {}", stderr(&o));
    // `check --holder registered` against a registry with no dates, saved
    // or read on the fly; the samples' CSV has dates.
    let idx = dir.path().join("created.idx");
    let idx = idx.to_str().unwrap();
    let o = lgrscan(&["index", created.to_str().unwrap(), "-o", idx]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for against in [idx, created.to_str().unwrap(), "samples/zone.txt"] {
        let args = ["check", "--against", against, "--label", "५६७८", "--holder", "registered"];
        let o = lgrscan(&args);
        assert_eq!(o.status.code(), Some(2), "{against}: {}", stderr(&o));
        assert!(stderr(&o).contains("--holder registered: no registered label has a registration"));
    }
    let args = ["check", "--against", "samples/labels.csv", "--label", "५६७८"];
    let o = lgrscan(&[&args[..], &["--holder", "registered"]].concat());
    assert!(matches!(o.status.code(), Some(0 | 1)), "dates in the samples: {}", stderr(&o));
}

/// An index built with `--on-malformed warn` records the lines it left
/// out (`index info`: `malformed_lines`), and `check` against it warns: it
/// answered `available` for a label on a dropped line with no word.
#[test]
fn an_index_that_left_lines_out_says_so() {
    let dir = temp();
    let csv = dir.path().join("dup.csv");
    std::fs::write(&csv, "label,registrant\nfoo,r1\nba..r,r2\n").unwrap();
    let idx = dir.path().join("dup.idx");
    let (csv, idx) = (csv.to_str().unwrap(), idx.to_str().unwrap());
    let o = lgrscan(&["index", csv, "-o", idx, "--on-malformed", "warn"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = lgrscan(&["index", "info", idx]);
    let header: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(header["malformed_lines"], 1, "{header}");
    let o = lgrscan(&["check", "--against", idx, "--label", "bar"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let warning = "dup.idx was built accepting 1 malformed input line";
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    // A row whose lgr pin names no LGR of the set counts with them (its
    // label is kept, invalid: its variants read as available).
    let pins = dir.path().join("pins.csv");
    std::fs::write(
        &pins,
        "label,lgr
foo,ascii
bar,klingon
ba..z,
",
    )
    .unwrap();
    let pins_idx = dir.path().join("pins.idx");
    let pins_idx = pins_idx.to_str().unwrap();
    let o = lgrscan(&["index", pins.to_str().unwrap(), "-o", pins_idx, "--on-malformed", "warn"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = lgrscan(&["index", "info", pins_idx]);
    let header: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(header["malformed_lines"], 2, "{header}");
    let o = lgrscan(&["check", "--against", pins_idx, "--label", "baz"]);
    assert!(stderr(&o).contains("built accepting 2 malformed input lines"), "{}", stderr(&o));
    let whole = dir.path().join("whole.idx");
    let o = lgrscan(&["index", "samples/labels.csv", "-o", whole.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = lgrscan(&["check", "--against", whole.to_str().unwrap(), "--label", "bar"]);
    assert!(!stderr(&o).contains("malformed"), "{}", stderr(&o));
}

/// A candidate that is the index's apex written as an absolute name
/// (`example.`, any case) is `invalid`, saying so; it was checked as the
/// label `example` (hunt h4). Without the dot it is a label.
#[test]
fn the_apex_is_no_candidate() {
    let dir = temp();
    let idx = &crate::util::index_of(dir.path(), "samples/zone.txt", "zone.idx");
    let args = ["check", "--against", idx, "--label", "example.", "--label", "EXAMPLE."];
    let o = lgrscan(&[&args[..], &["--label", "example", "--format", "csv"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = crate::util::rows(&stdout(&o));
    let status: Vec<&str> = rows.iter().map(|r| r["status"].as_str()).collect();
    assert_eq!(status, ["invalid", "invalid", "available"], "{}", stdout(&o));
    assert!(rows[0]["reason"].contains("\"example.\" is the zone's apex (example.), not a label"));
}

/// `index -o` over a file with other hard links is refused, the file as it
/// was: the report writer copies into such a file in place, which would
/// change an index under a `serve` that maps it (hunt h4).
#[test]
fn an_index_is_never_copied_into_a_hard_link() {
    let dir = temp();
    let idx = crate::util::index_of(dir.path(), "samples/labels.csv", "w.idx");
    let idx_s = idx.as_str();
    std::fs::hard_link(&idx, dir.path().join("w.link")).unwrap();
    let before = std::fs::read(&idx).unwrap();
    let o = lgrscan(&["index", "samples/zone.txt", "-o", idx_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("has 2 hard links"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&idx).unwrap(), before);
}
