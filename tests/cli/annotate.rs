//! `lgrscan annotate` through the binary: the golden rows with `--literal`,
//! and every input kind (list, zone file, CSV, gzip, stdin) without it.

use crate::util::{assert_exit, lgrscan, stdout, temp_dir};
use std::io::Write;

/// The binary agrees with the reference on every row of a golden file.
#[test]
fn literal_matches_golden_rows() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let name = "lgr-second-level-khmer-script-31may22-en";
    let golden = std::fs::read_to_string(dir.join(format!("golden/{name}.tsv"))).unwrap();
    let rows: Vec<Vec<&str>> = golden.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    let tmp = temp_dir("annotate-golden");
    let list = tmp.join("labels.txt");
    let labels: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    std::fs::write(&list, labels.join("\n")).unwrap();
    let lgr = dir.join(format!("lgr/{name}.xml"));
    let o =
        lgrscan(&["annotate", "--literal", "--lgr", lgr.to_str().unwrap(), list.to_str().unwrap()]);
    assert_exit(&o, 0, "annotate --literal");
    let out = stdout(&o);
    let got: Vec<Vec<&str>> = out.lines().skip(1).map(|l| l.split('\t').collect()).collect();
    assert_eq!(got.len(), rows.len());
    for (g, w) in got.iter().zip(&rows) {
        // source, line, input, ulabel, alabel, lgr, disposition, reason, index
        assert_eq!((g[2], g[6], g[7]), (w[0], w[4], w[5]), "{}", w[0]);
        let index: String = w
            .get(6)
            .unwrap_or(&"")
            .split_whitespace()
            .map(|h| char::from_u32(u32::from_str_radix(h, 16).unwrap()).unwrap())
            .collect();
        assert_eq!(g[8], index, "{}", w[0]);
    }
}

/// A label that fails IDNA2008 gets the row `scan` gives it: `lgr`
/// `IDNA2008` (annotate named the LGR, which did not judge it), the index
/// label the LGR has for it (annotate gave none, scan the one of a label
/// too long), and JSON Lines typed as scan types it (an absent index
/// `null`, not `""`).
#[test]
fn idna_invalid_rows_are_the_scans() {
    let tmp = temp_dir("annotate-idna-invalid");
    let list = tmp.join("labels.txt");
    let labels = [
        "-abc".to_string(),
        "ab--cd".into(),
        "a".repeat(64),
        "cafe\u{301}".into(),
        "abc-".into(),
        "a_b".into(),
        "xn--abc".into(),
        "क".repeat(60),
    ];
    std::fs::write(&list, labels.join("\n")).unwrap();
    let list = list.to_str().unwrap();
    let json = |o: &std::process::Output| -> Vec<serde_json::Value> {
        stdout(o).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect()
    };
    for lgr in ["builtin:ascii", "builtin:devanagari"] {
        let o = lgrscan(&["annotate", "--lgr", lgr, "--format", "jsonl", list]);
        assert_exit(&o, 0, "annotate");
        let annotated = json(&o);
        let o = lgrscan(&["scan", "-q", "--lgr", lgr, "--format", "jsonl", list]);
        assert_exit(&o, 1, "scan");
        let scanned: Vec<serde_json::Value> =
            json(&o).into_iter().filter(|r| r["kind"] == "invalid").collect();
        assert_eq!((annotated.len(), scanned.len()), (labels.len(), labels.len()), "{lgr}");
        for (a, s) in annotated.iter().zip(&scanned) {
            assert_eq!(a["lgr"], "IDNA2008", "{lgr}: {a}");
            for (k, v) in a.as_object().unwrap() {
                assert_eq!(v, &s[k], "{lgr}: {k} of {a}\nscan: {s}");
            }
        }
        // The labels too long have their index labels where the LGR has
        // their code points; the others none.
        let index = |i: usize| annotated[i]["index"].as_str().map(str::to_string);
        assert_eq!(index(2), (lgr == "builtin:ascii").then(|| labels[2].clone()), "{lgr}");
        assert_eq!(index(7), (lgr == "builtin:devanagari").then(|| labels[7].clone()), "{lgr}");
        assert!(annotated[0]["index"].is_null(), "{lgr}");
    }
}

#[test]
fn reads_every_input_kind() {
    let tmp = temp_dir("annotate-inputs");
    let zone = tmp.join("z.zone");
    std::fs::write(
        &zone,
        "$ORIGIN example.\n@ SOA ns host 1 2 3 4 5\nXN--E4BCD NS ns1.shop\n123 NS ns1.shop\nns1.shop A 192.0.2.1\n",
    )
    .unwrap();
    let csv = tmp.join("l.csv");
    std::fs::write(&csv, "label,registrant\nxn--e4bcd,r1\nkaa,r2\n").unwrap();
    let gz = tmp.join("l.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all("१२३\nxn--zz\n".as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();

    let o = lgrscan(&[
        "annotate",
        "--lgr",
        "builtin:devanagari",
        "--format",
        "csv",
        zone.to_str().unwrap(),
    ]);
    assert_exit(&o, 0, "zone");
    let out = stdout(&o);
    assert!(out.contains("3,XN--E4BCD,१२३,xn--e4bcd,builtin:devanagari,valid"), "{out}");
    assert!(out.contains("4,123,123,123,builtin:devanagari,valid"), "{out}");
    assert!(!out.contains("ns1"), "glue is not a registered label: {out}");
    assert_eq!(out.lines().count(), 3, "{out}");

    let o = lgrscan(&[
        "annotate",
        "--lgr",
        "builtin:devanagari",
        "--format",
        "jsonl",
        csv.to_str().unwrap(),
    ]);
    assert_exit(&o, 0, "csv");
    assert!(stdout(&o).contains(r#""ulabel":"१२३""#), "{}", stdout(&o));

    let o = lgrscan(&["annotate", "--lgr", "builtin:devanagari", gz.to_str().unwrap()]);
    assert_exit(&o, 0, "gzip");
    let out = stdout(&o);
    assert!(out.contains("1\t१२३\t१२३\txn--e4bcd\tbuiltin:devanagari\tvalid"), "{out}");
    assert!(out.contains("2\txn--zz\t"), "{out}");
    assert!(out.contains("invalid\tpunycode does not decode"), "{out}");

    let o = lgrscan(&["annotate", "--lgr", "nope.xml", zone.to_str().unwrap()]);
    assert_exit(&o, 2, "bad LGR");
}

/// A `--literal` file that is not UTF-8 is an error naming its file and
/// line.
#[test]
fn literal_not_utf8_names_file_and_line() {
    let dir = crate::util::TempDir::new();
    let bad = dir.write("bad.txt", b"abc\nd\xffe\n");
    let o = lgrscan(&["annotate", "--literal", "--lgr", "builtin:ascii", bad.to_str().unwrap()]);
    assert_exit(&o, 2, "annotate --literal of bytes that are not UTF-8");
    let err = crate::util::stderr(&o);
    assert!(err.contains("bad.txt:2: not UTF-8 at byte offset 5"), "{err}");
}

/// `--literal` reads standard input as it reads a file: its byte order mark
/// skipped, a line over 4 KiB an error naming it (a 20 MB line of NULs
/// took 3 GB before, and standard input had no bound at all; a 300 KB line
/// of Devanagari took 7.3 s, its index label quadratic in its length).
#[test]
fn literal_input_is_bounded() {
    let o = crate::util::lgrscan_piped(
        &["annotate", "--literal", "--lgr", "builtin:devanagari", "-"],
        "\u{feff}भारत\n".as_bytes(),
    );
    assert_exit(&o, 0, "a byte order mark");
    assert!(stdout(&o).contains("-\t1\tभारत\tभारत\txn--h2brj9c\t"), "{}", stdout(&o));
    let mut long = b"abc\n".to_vec();
    long.resize(long.len() + (2 << 20), 0);
    let o = crate::util::lgrscan_piped(
        &["annotate", "--literal", "--lgr", "builtin:ascii", "-"],
        &long,
    );
    assert_exit(&o, 2, "a 2 MiB line");
    assert!(crate::util::stderr(&o).contains("-:2: line longer than 4096 bytes"));
    // The longest line taken, and one byte more.
    for (n, code) in [(4096, 0), (4097, 2)] {
        let line = "कऱ्या".repeat(n / 15) + &"a".repeat(n % 15);
        let o = crate::util::lgrscan_piped(
            &["annotate", "--literal", "--lgr", "builtin:devanagari", "-"],
            format!("{line}\n").as_bytes(),
        );
        assert_exit(&o, code, &format!("a line of {n} bytes"));
    }
}

/// A list's repeated label (another case, its A-label form) has the row of
/// its first line only, and standard error counts the lines folded (they
/// vanished unseen); `--literal` writes every line.
#[test]
fn repeated_labels_are_counted() {
    let dir = crate::util::TempDir::new();
    let list = dir.write("dup.txt", "abc\nabc\nABC\nभारत\nxn--h2brj9c\n".as_bytes());
    let o = lgrscan(&["annotate", "--lgr", "builtin:devanagari", list.to_str().unwrap()]);
    assert_exit(&o, 0, "annotate of a list with repeats");
    assert_eq!(stdout(&o).lines().count(), 1 + 2, "{}", stdout(&o));
    let err = crate::util::stderr(&o);
    assert!(err.contains("3 records repeat a label read before"), "{err}");
    let o = lgrscan(&["annotate", "--literal", "--lgr", "builtin:ascii", list.to_str().unwrap()]);
    assert_eq!(stdout(&o).lines().count(), 1 + 5, "{}", stdout(&o));
    let o = lgrscan(&["annotate", "--lgr", "builtin:ascii", "samples/zone.txt"]);
    assert!(!crate::util::stderr(&o).contains("repeat"), "a zone's records of one owner");
}
