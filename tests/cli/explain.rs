//! The commands that explain (issue #5, part 5): `builtins`, `lgr info`
//! and `explain`, run as the built binary.

use crate::util::lgrscan;

use std::path::Path;

/// Runs lgrscan, asserts exit 0, returns stdout.
fn ok(args: &[&str]) -> String {
    let out = lgrscan(args);
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert_eq!(
        out.status.code(),
        Some(0),
        "lgrscan {args:?} failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lgr")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn builtins_lists_six_with_sizes() {
    let out = ok(&["builtins"]);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 6, "{out}");
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        names,
        [
            "builtin:ascii",
            "builtin:devanagari",
            "builtin:hindi",
            "builtin:khmer",
            "builtin:kashmiri",
            "builtin:common"
        ]
    );
    for r in &rows {
        let repertoire: usize = r[1].parse().expect("repertoire size");
        assert!(repertoire > 0, "{r:?}");
        assert!(!r[4].is_empty(), "no seed: {r:?}");
    }
    // Every built-in but ascii has variants.
    for r in &rows[1..] {
        assert!(r[3].parse::<usize>().unwrap() > 0, "{r:?}");
    }
    assert!(out.contains("default set: builtin:ascii, builtin:devanagari"), "{out}");
}

#[test]
fn lgr_info_on_a_builtin() {
    let out = ok(&["lgr", "info", "builtin:devanagari"]);
    assert!(out.contains("LGR: builtin:devanagari"), "{out}");
    assert!(out.contains("repertoire: 133 elements"), "{out}");
    assert!(out.contains("sequences: 29"), "{out}");
    assert!(out.contains("unicode version: 11.0.0"), "{out}");
    assert!(out.contains("blocked: "), "{out}");
    assert!(out.contains("rules: "), "{out}");
    assert!(out.contains("actions: 6"), "{out}");
    assert!(out.contains("variant relation is symmetric and transitive"), "{out}");
}

#[test]
fn lgr_info_runs_on_every_published_lgr() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let mut files: Vec<_> = std::fs::read_dir(dir.join("lgr"))
        .expect("lgr dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "expected ICANN's LGRs, found {files:?}");
    for f in &files {
        let out = ok(&["lgr", "info", &f.to_string_lossy()]);
        assert!(out.contains("repertoire: "), "{}:\n{out}", f.display());
        assert!(out.contains("RFC 8228 checks: "), "{}:\n{out}", f.display());
    }
}

#[test]
fn lgr_info_warns_about_an_asymmetric_relation() {
    let out = ok(&["lgr", "info", &data("asymmetric.xml")]);
    assert!(out.contains("RFC 8228 checks: 2 warning(s)"), "{out}");
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 2, "{out}");
    assert!(
        warnings[0].contains("asymmetric variant")
            && warnings[0].contains("U+0061 -> U+0062, but U+0062 does not list U+0061"),
        "{out}"
    );
    assert!(
        warnings[1].contains("asymmetric context")
            && warnings[1].contains("U+0063 -> U+0064 has when=\"at-start\""),
        "{out}"
    );
}

#[test]
fn lgr_info_warns_about_a_non_transitive_relation() {
    let out = ok(&["lgr", "info", &data("non-transitive.xml")]);
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(
        warnings,
        [
            "warning: non-transitive variants: U+0031 ~ U+0661 and U+0661 ~ U+06F1, \
             but U+0031 does not list U+06F1",
            "warning: non-transitive variants: U+06F1 ~ U+0661 and U+0661 ~ U+0031, \
             but U+06F1 does not list U+0031",
        ],
        "{out}"
    );
}

#[test]
fn lgr_info_reports_a_bad_file() {
    let out = lgrscan(&["lgr", "info", "no/such/file.xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.xml"));
}

/// The variant lines of `explain` output: (disposition, label).
fn variant_lines(out: &str) -> Vec<(String, String)> {
    out.lines()
        .skip_while(|l| !l.starts_with("variant labels"))
        .skip(1)
        .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with("..."))
        .map(|l| {
            let mut f = l.split_whitespace();
            (f.next().unwrap().to_string(), f.next().unwrap().to_string())
        })
        .collect()
}

#[test]
fn explain_cross_script_digits() {
    let out = ok(&["explain", "123"]);
    assert!(out.contains("U+0031  1  DIGIT ONE"), "{out}");
    assert!(out.contains("judged by: builtin:ascii"), "{out}");
    assert!(out.contains("index label (builtin:common): 123  [0031 0032 0033]"), "{out}");
    let vars = variant_lines(&out);
    // Three digit scripts, three positions: 27 labels, the original aside.
    assert!(out.contains("variant labels (builtin:common): 26 (2 blocked, 24 invalid)"), "{out}");
    // Blocked labels are listed before invalid ones.
    assert_eq!(vars[0].0, "blocked", "{out}");
    assert_eq!(vars.len(), 26, "{out}");
    let find = |s: &str| vars.iter().find(|(_, l)| l == s).map(|(d, _)| d.as_str());
    assert_eq!(find("१२३"), Some("blocked"), "{out}");
    assert_eq!(find("១២៣"), Some("blocked"), "{out}");
    // Mixed digit sets are invalid (digit-mixing).
    assert_eq!(find("1२៣"), Some("invalid"), "{out}");
}

#[test]
fn explain_a_label_from_another_script_and_as_a_label() {
    let a = ok(&["explain", "१२३"]);
    assert!(a.contains("U+0967  १  DEVANAGARI DIGIT ONE"), "{a}");
    assert!(a.contains("judged by: builtin:devanagari"), "{a}");
    let vars = variant_lines(&a);
    assert!(vars.iter().any(|(_, l)| l == "123"), "{a}");
    assert!(vars.iter().any(|(_, l)| l == "១២៣"), "{a}");
    // The same label as an A-label, upper case.
    let alabel = format!("XN--{}", idna::punycode::encode_str("१२३").unwrap().to_uppercase());
    let b = ok(&["explain", &alabel]);
    assert_eq!(a.lines().skip(1).collect::<Vec<_>>(), b.lines().skip(1).collect::<Vec<_>>());
}

#[test]
fn explain_names_the_failing_rule_and_cuts_the_list() {
    // A nukta after a consonant that takes none: invalid under every LGR of
    // the set (and valid under IDNA2008); the judging LGR is the one
    // covering most code points.
    let out = ok(&["explain", "कम\u{093c}ल"]);
    assert!(out.contains("judged by: builtin:devanagari"), "{out}");
    assert!(out.contains("not eligible"), "{out}");
    let out = ok(&["explain", "--limit", "3", "123"]);
    assert_eq!(variant_lines(&out).len(), 3, "{out}");
    assert!(out.contains("... 23 more (--limit 3; 26 in all)"), "{out}");
}

#[test]
fn explain_with_one_lgr() {
    let out = ok(&["explain", "--lgr", &data("non-transitive.xml"), "1"]);
    let vars = variant_lines(&out);
    assert_eq!(vars.len(), 1, "{out}");
    assert_eq!(vars[0].1, "\u{0661}");
    let bad = lgrscan(&["explain", "xn--zz!"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn explain_a_huge_variant_space_gives_the_estimate() {
    // 22 digits, three digit scripts: 3^22 variant labels, the original
    // included; too many to enumerate, so the first --limit are listed.
    let out = ok(&["explain", "--limit", "5", &"1".repeat(22)]);
    assert!(
        out.contains(
            "variant labels (builtin:common): about 31381059609 (estimated variant space); \
             the first 5 shown"
        ),
        "{out}"
    );
    assert_eq!(variant_lines(&out).len(), 5, "{out}");
}

#[test]
fn explain_with_another_variant_lgr() {
    let out = ok(&["explain", "--variants", "builtin:devanagari", "123"]);
    // Devanagari knows only the European/Devanagari digit pairs.
    assert!(out.contains("variant labels (builtin:devanagari): 7 (1 blocked, 6 invalid)"), "{out}");
    let vars = variant_lines(&out);
    assert!(vars.iter().any(|(d, l)| d == "blocked" && l == "१२३"), "{out}");
    assert!(!vars.iter().any(|(_, l)| l == "១២៣"), "{out}");
}

/// With several `--lgr` and no `--variants`, `explain` lists the variants
/// of their merge, as `scan` groups by it: ១២៣ and १२३ collide in a scan
/// of the two, so each is a variant of the other here (the judging LGR,
/// Khmer alone, has no Devanagari digit).
#[test]
fn explain_with_several_lgrs_uses_their_merge_as_scan_does() {
    let lgrs = ["--lgr", "builtin:devanagari", "--lgr", "builtin:khmer"];
    let out = ok(&[&["explain", "១២៣"][..], &lgrs].concat());
    let merged = "merged(builtin:devanagari+builtin:khmer)";
    assert!(out.contains(&format!("index label ({merged}): 123  [0031 0032 0033]")), "{out}");
    let vars = variant_lines(&out);
    assert!(vars.iter().any(|(d, l)| d == "blocked" && l == "१२३"), "{out}");
    let dir = crate::util::temp_dir("explain-merge");
    let zone = dir.join("labels.txt");
    std::fs::write(&zone, "१२३\n១២៣\n").unwrap();
    let o = lgrscan(&[&["scan", "--format", "csv", zone.to_str().unwrap()][..], &lgrs].concat());
    let rows = crate::util::rows(&String::from_utf8_lossy(&o.stdout));
    let row = rows.iter().find(|r| r["ulabel"] == "១២៣").expect("a row of ១២៣");
    assert_eq!((row["index"].as_str(), row["disposition"].as_str()), ("123", "blocked"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The IDNA2008 line of `explain`'s verdicts, its words joined by one space.
fn idna_line(out: &str) -> String {
    let line = out.lines().find(|l| l.starts_with("  IDNA2008 ")).unwrap_or_default();
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `explain` gives the IDNA2008 verdict and reason `annotate` gives (it
/// read `ab-` and friends as Punycode only, and called them valid).
#[test]
fn explain_judges_idna2008_as_annotate_does() {
    let labels = ["ab-", "e\u{301}a", "a\u{200d}b", "xn--abc", "\u{c9}a", "1\u{628}"];
    let o = crate::util::lgrscan_piped(
        &["annotate", "--lgr", "builtin:ascii", "-"],
        labels.join("\n").as_bytes(),
    );
    let rows = String::from_utf8(o.stdout).expect("UTF-8");
    let reasons: Vec<(String, String)> = rows
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[6].to_string(), f[7].to_string())
        })
        .collect();
    assert_eq!(reasons.len(), labels.len(), "{rows}");
    for (label, (disp, reason)) in labels.iter().zip(&reasons) {
        assert_eq!(disp, "invalid", "{label:?}: {rows}");
        let out = ok(&["explain", "--lgr", "builtin:ascii", label]);
        let want = format!("IDNA2008 fails invalid {reason}");
        assert_eq!(idna_line(&out), want, "{label:?}\n{out}");
        assert!(out.contains(&format!("judged by: IDNA2008: invalid, {reason} (")), "{out}");
        let json = ok(&["explain", "--lgr", "builtin:ascii", "--format", "json", label]);
        let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(
            (&v["disposition"], &v["reason"]),
            (&(disp.as_str().into()), &(reason.as_str().into()))
        );
        assert_eq!(v["idna2008"]["valid"], false, "{json}");
    }
    // A valid label passes, and its LGR judges it.
    let out = ok(&["explain", "--lgr", "builtin:ascii", "ab"]);
    assert_eq!(idna_line(&out), "IDNA2008 passes", "{out}");
    assert!(out.contains("judged by: builtin:ascii ("), "{out}");
}

/// A dotted input is a name, refused (exit 2): `a.b` was judged as one
/// label holding U+002E.
#[test]
fn explain_refuses_a_name() {
    for name in ["a.b", "ab.", ".ab", "xn--h2brj9c.example", ".", ".."] {
        let o = lgrscan(&["explain", "--lgr", "builtin:ascii", name]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("a name, not a label: explain takes one label"), "{name}: {err}");
        // An example only where there is a label to give ("(e.g. )" was).
        assert_eq!(err.contains("(e.g. "), !name.trim_matches('.').is_empty(), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}");
    }
}

/// Past 10^15 the estimate is written `about 10^N`: one `about`, not the
/// `about about 10^19` explain printed.
#[test]
fn explain_writes_a_huge_estimate_once() {
    let out = ok(&["explain", "--limit", "2", &"1".repeat(40)]);
    assert!(
        out.contains(
            "variant labels (builtin:common): about 10^19 (estimated variant space); \
             the first 2 shown"
        ),
        "{out}"
    );
    assert!(!out.contains("about about"), "{out}");
}

/// The estimate takes every split of the label: 63 `a`, whose longest
/// elements (`a a a`) have no variant, were "about 1 (estimated variant
/// space)" above the 3 variant labels listed.
#[test]
fn explain_estimates_over_every_split() {
    let label = "a".repeat(63);
    let out = ok(&["explain", "--lgr", &data("long-element.xml"), "--limit", "3", &label]);
    assert!(
        out.contains(
            "variant labels (long-element.xml): about 10^18 (estimated variant space); \
             the first 3 shown"
        ),
        "{out}"
    );
    assert_eq!(variant_lines(&out).len(), 3, "{out}");
}
