//! `lgr::merge` (issue #4, `--variants` default): merging ICANN's
//! second-level Devanagari and Khmer LGRs as lgr-core's `merge_set` does.
//!
//! The label expectations below come from lgr-core 6.1.3 (`merge_lgrs` on
//! the same two files, then `test_label_eligible` and
//! `generate_index_label` on the merged LGR). Set `LGRSCAN_MERGE_ORACLE` to
//! a TSV of such results for the whole corpus (`label, codepoints,
//! eligible, disposition, action, index`) to compare every row.

use crate::util::parse_hex;
use lgrscan::lgr::{Lgr, Reason, hex_cps, merge};
use std::path::Path;

const DEVA: &str = "lgr-second-level-devanagari-script-31may22-en";
const KHMR: &str = "lgr-second-level-khmer-script-31may22-en";

fn load(dir: &Path, name: &str) -> Lgr {
    Lgr::from_path(&dir.join("lgr").join(format!("{name}.xml"))).unwrap_or_else(|e| panic!("{e}"))
}

fn merged(dir: &Path) -> Lgr {
    let (deva, khmr) = (load(dir, DEVA), load(dir, KHMR));
    // Member order does not matter: members are sorted by language tag.
    merge(&[&khmr, &deva]).unwrap_or_else(|e| panic!("{e}"))
}

/// (label code points, disposition, action index or -1 for a repertoire
/// failure, index label) from lgr-core's merged LGR.
const ORACLE: &[(&str, &str, i32, &str)] = &[
    ("0031 0032 0033", "valid", 13, "0031 0032 0033"),
    ("0967 0968 0969", "valid", 13, "0031 0032 0033"),
    ("17E1 17E2 17E3", "valid", 13, "0031 0032 0033"),
    ("0031 0968 0033", "invalid", 1, "0031 0032 0033"),
    ("0967 0032 0969", "invalid", 1, "0031 0032 0033"),
    ("0031 0032 0969", "invalid", 1, "0031 0032 0033"),
    ("0031 0032 17E3", "invalid", 5, "0031 0032 0033"),
    ("0967 0968 17E3", "valid", 13, "0031 0032 0033"),
    ("0031 0032 0033 0034", "valid", 13, "0031 0032 0033 0034"),
    ("0967 0968 0969 096A", "valid", 13, "0031 0032 0033 0034"),
    ("17E1 17E2 17E3 17E4", "valid", 13, "0031 0032 0033 0034"),
    ("0661 0662 0663", "invalid", -1, ""),
    ("0926 094B 0928 094B 093A", "invalid", -1, ""),
    ("092C 095D 093E", "invalid", -1, ""),
    ("0917 094B 0932 0036 096D 096C 0967", "invalid", 1, "0917 094B 0932 0036 0037 0036 0031"),
    (
        "092E 0947 0930 0940 0038 096A 096E 096B 096B 096E 096F 096F",
        "invalid",
        1,
        "092E 0946 0930 0940 0038 0034 0038 0035 0035 0038 0039 0039",
    ),
    (
        "0976 091C 093C 094D 0923 0947 0903 0927 094D 0935",
        "valid",
        13,
        "0976 091C 093C 094D 0923 0946 0903 0927 094D 0935",
    ),
    (
        "0915 0942 0902 0938 094D 0922 0927 094D 0922 094B",
        "valid",
        13,
        "0915 0942 0902 0938 094D 0922 0927 094D 0922 094B",
    ),
    ("0ED8 0ED4 0ED8 0ED5 0ED5 0ED8 0ED9 0ED9", "invalid", -1, ""),
    ("0661 0663 0667", "invalid", -1, ""),
    ("0033 096C 17E9", "invalid", 1, "0033 0036 0039"),
    ("0036 0969 17E7", "invalid", 1, "0036 0033 0037"),
    ("0967 0967 0969", "valid", 13, "0031 0031 0033"),
    (
        "17E9 17E8 17E7 17E9 17E2 17E4 17E2 17E6",
        "valid",
        13,
        "0039 0038 0037 0039 0032 0034 0032 0036",
    ),
    ("0063 006F 006F 006C 002D 002D 0063 0061 0073 0065 0073", "invalid", -1, ""),
    (
        "006D 0069 0063 0068 0061 0065 006C 002D 002D 0061 0064 0076 0069 0063 0065",
        "invalid",
        -1,
        "",
    ),
    ("092A 002D 002D 091F 0948 0901", "valid", 13, "092A 002D 002D 091F 0948 0901"),
    ("0920 0946 0901 002D 002D 0928", "valid", 13, "0920 0946 0901 002D 002D 0928"),
    ("17D2 1784 17C4", "invalid", -1, ""),
    ("1790 17C3 17C7 1787 17D2 1787 17D2 178C 17C5 1788 17BB", "invalid", -1, ""),
    (
        "178E 17D2 1784 17D2 178E 17D2 1782 17BF",
        "invalid",
        7,
        "178E 17D2 1784 17D2 178E 17D2 1782 17BF",
    ),
    ("178F 17D2 178E 17D2 1783 17D2 1799", "invalid", 7, "178F 17D2 178E 17D2 1783 17D2 1799"),
    ("178F 17D2 178F 17C4", "valid", 13, "178F 17D2 178A 17C4"),
    ("1799 1793 17D2 178A", "valid", 13, "1799 1793 17D2 178A"),
    ("0062 006F 0033 0039 0037 0030 0079 0073", "invalid", -1, ""),
    ("0078 006E 002D 002D 0070 0031 0061 0069", "invalid", -1, ""),
    ("0906 0A3C 0930 094D 0925 093F 0915", "blocked", 10, "0906 093C 0930 094D 0925 093F 0915"),
    ("092C 0A3C 0928 093E 092F 093E", "blocked", 10, "092C 093C 0928 093E 092F 093E"),
    ("09B8 09C7 09AC 09BE 0936 0915", "invalid", -1, ""),
    ("0062 006F 0079 0073 1795 17C1 1784", "invalid", -1, ""),
    (
        "179B 17BE 1780 179B 17C2 1784 1791 17C4 179F 0917 092F 0940",
        "valid",
        13,
        "179B 17BE 1780 179B 17C2 1784 1791 17C4 179F 0917 092F 0940",
    ),
    (
        "17A2 17D2 1793 1780 1794 17BE 1780 1794 179A 0917 0932 0947",
        "valid",
        13,
        "17A2 17D2 1793 1780 1794 17BE 1780 1794 179A 0917 0932 0946",
    ),
    ("093C 0915", "invalid", -1, ""),
    ("09E7 09E8 09E9", "invalid", -1, ""),
    ("092D 093E 0930 0924 0967 0968 0969", "valid", 13, "092D 093E 0930 0924 0031 0032 0033"),
    ("0915 0902", "valid", 13, "0915 0902"),
    ("0939 0A02", "blocked", 10, "0939 0902"),
    (
        "092A 094D 0930 093E 0907 0935 0947 0A1F",
        "blocked",
        10,
        "092A 094D 0930 093E 0907 0935 0946 091F",
    ),
    ("067E 0623 0633", "invalid", -1, ""),
    ("091D 0903 0920 094D 0936 0A17 094A", "invalid", -1, ""),
    (
        "0928 092E 0928 0938 0939 093E 093C 092F 0924 093E 093C",
        "valid",
        13,
        "0928 092E 0928 0938 0939 093E 093C 092F 0924 093E 093C",
    ),
    ("092A 093A 0916", "valid", 13, "092A 0902 0916"),
    ("0073 0074 0069 0063 006B", "invalid", -1, ""),
    ("0E40 0E15 0E47 0E21", "invalid", -1, ""),
    ("0926 0930 092C 093E 0930", "valid", 13, "0926 0930 092C 093E 0930"),
    (
        "091C 093F 092E 094D 092E 0947 0926 093E 0930",
        "valid",
        13,
        "091C 093F 092E 094D 092E 0946 0926 093E 0930",
    ),
];

fn action_of(r: &Reason) -> i32 {
    match r {
        Reason::Action(i) => *i as i32,
        _ => -1,
    }
}

#[test]
fn digits_share_an_index_label_across_scripts() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let m = merged(&dir);
    let ascii = vec![0x31, 0x32, 0x33];
    for label in [&[0x0967, 0x0968, 0x0969][..], &[0x17E1, 0x17E2, 0x17E3], &ascii] {
        assert_eq!(m.index_label(label), Some(ascii.clone()), "{}", hex_cps(label));
        assert_eq!(m.judge(label).disposition, "valid");
    }
    // Separately, neither member relates Devanagari and Khmer digits.
    let (deva, khmr) = (load(&dir, DEVA), load(&dir, KHMR));
    assert_eq!(deva.index_label(&[0x17E1]), None);
    assert_eq!(khmr.index_label(&[0x0967]), None);
    // Merged variants are all blocked, and transitive: १ ↔ ១.
    assert_eq!(
        m.variant_disposition(&[0x0967, 0x0968, 0x0969], &[0x17E1, 0x17E2, 0x17E3])
            .map(|v| (v.disposition, v.types)),
        Some(("blocked", vec!["blocked"]))
    );
}

#[test]
fn rules_and_actions_are_kept_apart_per_member() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let m = merged(&dir);
    let names: Vec<&str> = m.doc().rules.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"Deva--digit-mixing"), "{names:?}");
    assert!(names.contains(&"Khmr--digit-mixing"));
    assert!(names.contains(&"Khmr--subscript-consonant-limit"));
    assert_eq!(names.iter().filter(|n| **n == "Common--leading-combining-mark").count(), 1);
    let classes: Vec<&str> = m.doc().classes.iter().map(|c| c.name.as_str()).collect();
    assert!(
        classes.contains(&"Deva--devanagari-digits") && classes.contains(&"Khmr--khmer-digits")
    );
    // Devanagari's actions first (und-Deva < und-Khmr), then Khmer's.
    assert_eq!(m.action_count(), 9);
    assert_eq!(m.doc().actions[1].match_rule.as_deref(), Some("Deva--digit-mixing"));
    assert_eq!(m.doc().actions[5].match_rule.as_deref(), Some("Khmr--digit-mixing"));
    // Mixing ASCII with one script's digits is invalid by that member's
    // rule; mixing Devanagari with Khmer digits is not (as in ICANN's
    // common LGR).
    let reason = |l: &[u32]| m.reason_text(&m.judge(l).reason);
    assert!(reason(&[0x31, 0x0968, 0x33]).contains("match=Deva--digit-mixing"));
    assert!(reason(&[0x31, 0x32, 0x17E3]).contains("match=Khmr--digit-mixing"));
    assert_eq!(m.judge(&[0x0967, 0x0968, 0x17E3]).disposition, "valid");
}

#[test]
fn labels_agree_with_lgr_core_merge() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let m = merged(&dir);
    let mut bad = Vec::new();
    for &(hex, disp, action, index) in ORACLE {
        let cps = parse_hex(hex);
        let v = m.judge(&cps);
        let got = (v.disposition, action_of(&v.reason), m.index_label(&cps).map(|i| hex_cps(&i)));
        let want = (disp, action, (!index.is_empty()).then(|| index.to_string()));
        if got != want {
            bad.push(format!("{hex}: want {want:?}, got {got:?}"));
        }
    }
    assert!(bad.is_empty(), "{} of {} disagree:\n{}", bad.len(), ORACLE.len(), bad.join("\n"));
}

/// With `LGRSCAN_MERGE_ORACLE=<tsv>`: every row of lgr-core's results for
/// the merge of Devanagari and Khmer, or of the LGRs named (without `.xml`,
/// comma-separated) in `LGRSCAN_MERGE_SET`.
#[test]
fn whole_corpus_against_oracle_file() {
    let Some(path) = std::env::var_os("LGRSCAN_MERGE_ORACLE") else { return };
    let Some(dir) = crate::util::reference_dir() else { return };
    let m = match std::env::var("LGRSCAN_MERGE_SET") {
        Ok(names) => {
            let set: Vec<Lgr> = names.split(',').map(|n| load(&dir, n.trim())).collect();
            merge(&set.iter().collect::<Vec<_>>()).unwrap_or_else(|e| panic!("{e}"))
        }
        Err(_) => merged(&dir),
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut n, mut idx_ok, mut disp_ok, mut all_ok) = (0, 0, 0, 0);
    let mut bad = Vec::new();
    for line in text.lines().skip(1) {
        let r: Vec<&str> = line.split('\t').collect();
        let cps = parse_hex(r[1]);
        let v = m.judge(&cps);
        let index = m.index_label(&cps).map(|i| hex_cps(&i)).unwrap_or_default();
        let act: i32 = r[4].parse().unwrap();
        n += 1;
        let i_ok = index == r[5];
        let d_ok = v.eligible.to_string() == r[2] && v.disposition == r[3];
        idx_ok += usize::from(i_ok);
        disp_ok += usize::from(d_ok);
        if i_ok && d_ok && action_of(&v.reason) == act {
            all_ok += 1;
        } else if bad.len() < 20 {
            bad.push(format!(
                "{line}\n   got {} {} {:?} {index}",
                v.eligible, v.disposition, v.reason
            ));
        }
    }
    println!(
        "merge vs lgr-core: {n} labels; index labels agree {idx_ok}, dispositions agree {disp_ok}, all (incl. action) agree {all_ok}"
    );
    assert_eq!(all_ok, n, "disagreements:\n{}", bad.join("\n"));
}

fn small(lang: &str, body: &str) -> Lgr {
    let xml = format!(
        r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><meta><language>{lang}</language></meta>
{body}
</lgr>"#
    );
    Lgr::from_xml(&format!("{lang}.xml"), &xml).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn conflicting_context_rules_are_refused() {
    let a = small(
        "und-Aaaa",
        r#"<data><char cp="0061" when="r1"/></data><rules><rule name="r1"><start/></rule></rules>"#,
    );
    let b = small(
        "und-Bbbb",
        r#"<data>
<char cp="0061" when="r2"/></data><rules><rule name="r2"><end/></rule></rules>"#,
    );
    assert_eq!(
        merge(&[&b, &a]).unwrap_err().to_string(),
        "und-Bbbb.xml:3: <char>: cannot merge: U+0061 has when rule 'r2' here and 'r1' in und-Aaaa.xml"
    );
    assert_eq!(merge(&[]).unwrap_err().to_string(), "<input>: cannot merge an empty set of LGRs");
}

#[test]
fn small_merge_prefixes_and_transitivity() {
    let a = small(
        "und-Aaaa",
        r#"<data><char cp="0061" tag="x"><var cp="0062" type="allocatable"/></char>
<char cp="0062" tag="x"><var cp="0061"/></char><char cp="0063" when="after-x"/></data>
<rules><class name="x" from-tag="x"/>
<rule name="after-x"><look-behind><class by-ref="x"/></look-behind><anchor/></rule>
<action disp="invalid" match="after-x"/><action disp="blocked" any-variant="blocked"/></rules>"#,
    );
    let b = small(
        "hi",
        r#"<data><char cp="0061"><var cp="0064"/></char><char cp="0064"><var cp="0061"/></char>
<char cp="0063"/></data>"#,
    );
    let m = merge(&[&a, &b]).unwrap_or_else(|e| panic!("{e}"));
    // `hi` sorts before `und-…`; the default-action copy is dropped.
    assert_eq!(m.doc().meta.languages, ["hi", "und-Aaaa"]);
    assert_eq!(m.action_count(), 1);
    assert_eq!(m.doc().actions[0].match_rule.as_deref(), Some("Aaaa--after-x"));
    assert_eq!(m.doc().rules[0].name, "Aaaa--after-x");
    assert_eq!(m.doc().classes[0].name, "Aaaa--x");
    let c = m.doc().chars.iter().find(|c| c.cps == [0x63]).unwrap();
    assert_eq!(c.when.as_deref(), Some("Aaaa--after-x"));
    // b (variant of a in Aaaa) and d (variant of a in hi) become variants.
    assert_eq!(m.index_label(&[0x64]), Some(vec![0x61]));
    assert_eq!(m.index_label(&[0x62]), m.index_label(&[0x64]));
    let b_vars: Vec<u32> = m
        .doc()
        .chars
        .iter()
        .find(|c| c.cps == [0x62])
        .unwrap()
        .variants
        .iter()
        .map(|v| v.cps[0])
        .collect();
    assert_eq!(b_vars, [0x61, 0x64]);
    assert!(
        m.doc().chars.iter().flat_map(|c| &c.variants).all(|v| v.typ.as_deref() == Some("blocked"))
    );
    // The context rule still works under its new name: c only after a or
    // b (class from the prefixed tag x).
    assert!(m.judge(&[0x62, 0x63]).eligible);
    assert!(!m.judge(&[0x64, 0x63]).eligible);
    assert!(!m.judge(&[0x63]).eligible);
}

/// An all-ASCII sequence element tells its code points apart from others
/// that share their single-code-point facts: `ab` is an element, `ac` is
/// not, so the memo of ASCII labels must not judge them alike.
#[test]
fn ascii_memo_tells_sequence_members_apart() {
    use lgrscan::input::{Config, Input, InputFormat, read};
    use lgrscan::scan::{self, LgrSet, NoProgress, ScanConfig};
    use std::sync::Arc;
    let seq = Arc::new(small(
        "und-Latn",
        r#"<data><char cp="0061 0062"/><char cp="0062"/><char cp="0063"/></data>"#,
    ));
    // The variant LGR has no sequence: ASCII labels are their own index
    // labels, so the scan takes its ASCII memo.
    let plain = Arc::new(small(
        "und-Latn",
        r#"<data><char cp="0061"/><char cp="0062"/><char cp="0063"/></data>"#,
    ));
    let set = LgrSet::new(vec![seq], Some(plain)).unwrap();
    for text in ["ab\nac\n", "ac\nab\n"] {
        let labels = read(
            [Input::Bytes { name: "l.txt".into(), data: text.as_bytes().to_vec() }],
            &Config::new().format(Some(InputFormat::List)),
        )
        .unwrap();
        let report = scan::scan(&labels, &set, &ScanConfig::default(), &NoProgress);
        let invalid: Vec<&str> = report
            .findings
            .iter()
            .filter_map(|f| labels.get(f.label).map(|l| l.alabel()))
            .collect();
        assert_eq!(invalid, ["ac"], "{text:?}");
    }
}

/// The summary counts each label once, under the LGR that judged it and
/// its script, whichever path judged it: plain labels eligible under the
/// first LGR (the scan's shortcut), plain labels that need a later LGR or
/// none, and labels with forms (upper case, a finding).
#[test]
fn summary_counts_labels_per_lgr_and_script() {
    use lgrscan::input::{Config, Input, read};
    use lgrscan::scan::{self, LgrSet, NoProgress, ScanConfig};
    use std::sync::Arc;
    let letters: String = (0x61..=0x7a).map(|c| format!(r#"<char cp="{c:04X}"/>"#)).collect();
    let digits: String = (0x30..=0x39).map(|c| format!(r#"<char cp="{c:04X}"/>"#)).collect();
    let first = Arc::new(small("und-Latn", &format!("<data>{letters}</data>")));
    let second =
        Arc::new(small("und-Zyyy", &format!(r#"<data>{letters}{digits}<char cp="002D"/></data>"#)));
    let set = LgrSet::new(vec![first, second.clone()], Some(second)).unwrap();
    // Eligible under the first: abc, xyz, Qrs (upper case: has forms);
    // under the second: abc1, 123, 4-5; none: a_b (not LDH). A mapped zone
    // file, so that the LDH labels are plain.
    let mut zone = String::from("tld.\t86400\tin\tsoa\ta.tld. h.tld. 1 2 3 4 5\n");
    for l in ["abc", "abc1", "123", "xyz", "4-5", "Qrs", "a_b"] {
        zone.push_str(&format!("{l}.tld.\t86400\tin\tns\tns1.example.net.\n"));
    }
    let path = std::env::temp_dir().join(format!("lgrscan-counts-{}.zone", std::process::id()));
    std::fs::write(&path, zone).unwrap();
    // SAFETY: the file is not changed while mapped.
    let config = Config::new().mmap(unsafe { lgrscan::input::MmapChoice::auto() });
    let labels = read([Input::from_arg(path.to_str().unwrap())], &config);
    std::fs::remove_file(&path).unwrap();
    let labels = labels.unwrap();
    assert_eq!(labels.len(), 7);
    let report = scan::scan(&labels, &set, &ScanConfig::default(), &NoProgress);
    let s = &report.summary;
    let counts: Vec<u64> = s.per_lgr.iter().map(|(_, n)| *n).collect();
    assert_eq!(counts, [3, 3, 1], "{:?}", s.per_lgr);
    let script = |k: &str| s.per_script.iter().find(|(n, _)| n == k).map_or(0, |(_, n)| *n);
    assert_eq!((script("Latn"), script("Zyyy")), (5, 2), "{:?}", s.per_script);
    assert_eq!(s.invalid, 1);
}
