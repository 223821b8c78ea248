//! `Lgr::from_table`: RFC 3743 IDN tables and code point lists (issue #2).

use lgrscan::lgr::Lgr;
use regex_automata::meta::Regex;
use std::collections::BTreeSet;

fn table(text: &str) -> Lgr {
    Lgr::from_table("t", text).unwrap_or_else(|e| panic!("{e}"))
}

fn table_err(text: &str) -> String {
    match Lgr::from_table("t", text) {
        Ok(_) => panic!("expected an error for {text:?}"),
        Err(e) => e.to_string(),
    }
}

fn repertoire(lgr: &Lgr) -> BTreeSet<Vec<u32>> {
    lgr.doc().chars.iter().map(|c| c.cps.clone()).collect()
}

/// The variants of `cps`, as (code points, type) pairs.
fn vars(lgr: &Lgr, cps: &[u32]) -> Vec<(Vec<u32>, String)> {
    let c = lgr.doc().chars.iter().find(|c| c.cps == cps).expect("char listed");
    c.variants.iter().map(|v| (v.cps.clone(), v.typ.clone().unwrap_or_default())).collect()
}

/// Seed 001 of ../shared/seeds is a registry's RFC 3743 style Devanagari
/// table: prose, then `U+0915<TAB>क<TAB>DEVANAGARI LETTER KA` lines.
#[test]
fn rfc3743_seed_table() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let seeds = dir.join("seeds");
    let Some(path) = std::fs::read_dir(&seeds)
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("001_")))
    else {
        assert!(!crate::util::required(), "seed 001 not found in {}", seeds.display());
        println!("skipped: reference data not found");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    // Independent count: every line that starts with U+XXXX.
    let re = Regex::new(r"(?m)^U\+([0-9A-Fa-f]{4,6})\b").unwrap();
    let want: BTreeSet<Vec<u32>> = re
        .captures_iter(&text)
        .map(|c| vec![u32::from_str_radix(&text[c.get_group(1).unwrap().range()], 16).unwrap()])
        .collect();
    assert_eq!(want.len(), 140, "seed 001 lists 140 code points");
    let lgr = Lgr::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(repertoire(&lgr), want);
    assert!(lgr.judge(&[0x0915, 0x094D, 0x0937]).eligible);
    assert!(!lgr.judge(&[0x0041]).eligible);
    assert_eq!(lgr.index_label(&[0x0967, 0x0968]), Some(vec![0x0967, 0x0968]));
}

#[test]
fn rfc3743_entries_with_variant_columns() {
    let lgr = table(
        "Version 1 20020701 # July 2002\n\
         Reference 1 CP936 (commonly known as GBK)\n\
         56E2(1);56E2(1);5718(2)    # sign of blessings\n\
         5718(2);56E2(1);5718(2)\n\
         4E0E;4E0E;4E8E,5F0C\n",
    );
    assert_eq!(lgr.doc().meta.version.as_deref(), Some("1"));
    assert_eq!(lgr.doc().meta.date.as_deref(), Some("20020701"));
    assert_eq!(
        lgr.doc().meta.references[0],
        ("1".into(), "CP936 (commonly known as GBK)".into(), None)
    );
    // 56E2 is the preferred variant of 5718 (activated), 5718 a character
    // variant of 56E2 (blocked): each line's own direction keeps its type.
    assert_eq!(vars(&lgr, &[0x56E2]), vec![(vec![0x5718], "blocked".into())]);
    assert_eq!(vars(&lgr, &[0x5718]), vec![(vec![0x56E2], "activated".into())]);
    // Character variants are blocked, in both directions; the targets are
    // not listed, so they are out-of-repertoire variant targets.
    assert_eq!(
        vars(&lgr, &[0x4E0E]),
        vec![(vec![0x4E8E], "blocked".into()), (vec![0x5F0C], "blocked".into())]
    );
    assert_eq!(
        vars(&lgr, &[0x4E8E]),
        vec![(vec![0x4E8E], "out-of-repertoire-var".into()), (vec![0x4E0E], "blocked".into())]
    );
    assert_eq!(lgr.index_label(&[0x5718]), Some(vec![0x56E2]));
    assert_eq!(lgr.index_label(&[0x5F0C, 0x56E2]), lgr.index_label(&[0x4E0E, 0x5718]));
    assert_eq!(lgr.judge(&[0x4E8E]).disposition, "invalid");
    assert_eq!(lgr.judge(&[0x4E0E]).disposition, "valid");
}

/// A code point's reference list may name several references, comma-
/// separated as the variants are (RFC 3743 §5.1, `4E1F(1,2)`): the table
/// was refused ("'4E1F(1' is not a code point").
#[test]
fn references_lists_with_commas() {
    let lgr = table(
        "Reference 1 CP936\nReference 2 CP950\n\
         4E1F(1,2);4E1F(1,2);4E22(2)\n\
         4E22(2);4E22(1, 2);4E1F(1),4E8E(1,2)\n",
    );
    assert_eq!(vars(&lgr, &[0x4E1F]), vec![(vec![0x4E22], "blocked".into())]);
    assert_eq!(
        vars(&lgr, &[0x4E22]),
        vec![(vec![0x4E1F], "blocked".into()), (vec![0x4E8E], "blocked".into())]
    );
    // A list not closed, holding more than numbers, or with no code point.
    for (line, why) in [
        ("0958|(U+0915 U+093C", "a '(' not closed"),
        ("0958;;0915(x)", "a reference list holds numbers only"),
        ("0958;;0915)", "a ')' not opened"),
        ("0958;;(1)", "no code point"),
    ] {
        let e = table_err(&format!("{line}\n"));
        assert!(
            e.starts_with("<input>:1: <table>: bad variant") && e.ends_with(why),
            "{line}: {e}"
        );
    }
}

#[test]
fn pipe_columns_and_sequences() {
    let lgr = table(
        "# IANA-style table\n\
         U+0915|U+0915\n\
         U+0958|U+0915 U+093C\n\
         U+0915 U+093C|U+0958\n\
         U+093C\n",
    );
    let r = repertoire(&lgr);
    assert!(r.contains(&vec![0x0915, 0x093C]) && r.contains(&vec![0x0958]));
    assert!(vars(&lgr, &[0x0915]).is_empty(), "a reflexive preferred variant adds nothing");
    assert_eq!(vars(&lgr, &[0x0958]), vec![(vec![0x0915, 0x093C], "activated".into())]);
    assert_eq!(lgr.index_label(&[0x0958]), lgr.index_label(&[0x0915, 0x093C]));
}

#[test]
fn one_code_point_per_line_and_ranges() {
    let lgr = table("0915\nU+0916\n0966-096F\nU+0030..U+0039\n0915 094D 0937\n\n# done\n");
    let r = repertoire(&lgr);
    assert_eq!(r.len(), 2 + 10 + 10 + 1);
    assert!(r.contains(&vec![0x096F]) && r.contains(&vec![0x0030]) && r.contains(&vec![0x0916]));
    assert!(r.contains(&vec![0x0915, 0x094D, 0x0937]));
    assert!(lgr.judge(&[0x0915, 0x0966, 0x0031]).eligible);
    assert!(!lgr.judge(&[0x0917]).eligible);
}

#[test]
fn list_with_glyph_and_name_columns() {
    let lgr = table("U+002D\t-\tHYPHEN-MINUS\nU+0953\t\u{0953}\tDEVANAGARI GRAVE ACCENT\n");
    assert_eq!(repertoire(&lgr), [vec![0x2D], vec![0x0953]].into_iter().collect());
    // What follows the tab is not read, a `;` or `|` in the name included
    // (it was read as a variant column).
    let lgr = table("0915\t\u{0915}\tDEVANAGARI LETTER KA; used in Hindi\n0916\t|\tKHA\n");
    assert_eq!(repertoire(&lgr), [vec![0x0915], vec![0x0916]].into_iter().collect());
    assert!(vars(&lgr, &[0x0915]).is_empty());
}

#[test]
fn bad_lines_name_their_line() {
    assert_eq!(
        table_err("0915\nU+12G4\n"),
        "<input>:2: <table>: bad code point 'U+12G4' (4 to 6 hex digits)"
    );
    assert_eq!(
        table_err("0915\n\n110000\n"),
        "<input>:3: <table>: code point '110000' is beyond U+10FFFF"
    );
    assert_eq!(table_err("U+D800\n"), "<input>:1: <table>: code point 'U+D800' is a surrogate");
    assert_eq!(
        table_err("0915\n096F-0966\n"),
        "<input>:2: <table>: reversed range '096F-0966': first code point above last"
    );
    assert_eq!(
        table_err("0915\n0916\n0915\n"),
        "<input>:3: <table>: U+0915 is listed twice (first on line 1)"
    );
    assert_eq!(
        table_err("0915;0916;xyz\n"),
        "<input>:1: <table>: bad variant 'xyz': 'xyz' is not a code point"
    );
    assert_eq!(
        table_err("0915\nka|0916\n"),
        "<input>:2: <table>: bad table line 'ka|0916': no code point first"
    );
    assert_eq!(table_err("0966-096F;0030\n"), "<input>:1: <table>: a range may not have variants");
    assert_eq!(
        table_err("just prose\n"),
        "<input>:1: <table>: no code point found: neither an RFC 3743 table nor a code point list"
    );
}

/// A repertoire is bounded (`lgr::MAX_REPERTOIRE`): a range past it is
/// refused before it is expanded, one element past it too (the fuzz case
/// `tests/hostile/fuzz/lgr_table/table-range-590k-code-points` asked for
/// 590,000 elements in 77 bytes); the XML
/// `<range>` too.
#[test]
fn repertoire_is_bounded() {
    use lgrscan::lgr::MAX_REPERTOIRE;
    assert_eq!(
        table_err("0061\n0915-09094D 0937\n"),
        "<input>:2: <table>: range 0915-09094D: the repertoire would hold 587834 elements, \
         more than the limit of 200000"
    );
    assert!(table_err("0000-10FFFF\n").contains("more than the limit of 200000"));
    // One element past the limit (building a repertoire at the limit takes
    // seconds in a debug build, so that side is not built here).
    let past = format!("0061\n10000-{:X}\n", 0x10000 + MAX_REPERTOIRE - 1);
    assert!(table_err(&past).contains("would hold 200001 elements"), "{}", table_err(&past));
    let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
        <range first-cp="0000" last-cp="10FFFF"/></data></lgr>"#;
    let e = Lgr::from_xml("t.xml", xml).expect_err("refused").to_string();
    assert!(e.contains("<range>") && e.contains("more than the limit of 200000"), "{e}");
}

/// Variant targets that are not listed become elements, and count toward
/// the repertoire's limit (a 1.4 MB table of one line held 247,953
/// elements, a 5.9 MB one took 1.6 GB); variant mappings are bounded too
/// (`lgr::MAX_VARIANT_MAPPINGS`), in tables and in XML alike.
#[test]
fn variant_targets_and_mappings_are_bounded() {
    use lgrscan::lgr::{MAX_REPERTOIRE, MAX_VARIANT_MAPPINGS};
    let targets = |n: usize| (0..n).map(|i| format!("{:X}", 0x10000 + i)).collect::<Vec<_>>();
    let table = format!("# targets only\n0061;;{}\n", targets(MAX_REPERTOIRE).join(","));
    let e = table_err(&table);
    assert!(e.starts_with("<input>:2: <table>: variant target U+"), "{e}");
    assert!(e.ends_with("would hold 200001 elements, more than the limit of 200000"), "{e}");
    let table = format!("0061;;{}\n", targets(MAX_VARIANT_MAPPINGS + 1).join(","));
    assert_eq!(
        table_err(&table),
        "<input>:1: <table>: more than 1000000 variant mappings (the limit of one LGR)"
    );
    let vars: String = (0..=MAX_VARIANT_MAPPINGS).map(|_| r#"<var cp="0062"/>"#).collect();
    let xml = format!(
        r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data><char cp="0061">{vars}</char></data></lgr>"#
    );
    let e = Lgr::from_xml("t.xml", &xml).expect_err("refused").to_string();
    assert!(e.contains("<var>") && e.contains("more than 1000000 variant mappings"), "{e}");
}

/// Fixed-seed byte mutations of the seed table: each loads or fails with
/// an error, none panics.
#[test]
fn mutated_tables_never_panic() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let Some(path) = std::fs::read_dir(dir.join("seeds"))
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("001_")))
    else {
        return;
    };
    let src = std::fs::read(&path).unwrap();
    let mut x: u64 = 0x7AB1_E5EE_D000_0001;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    const BYTES: &[u8] = b"U+-.;|,#()0123456789ABCDEFabcdef \t\n\xFF";
    let mut panics = Vec::new();
    for i in 0..3000 {
        let mut m = src.clone();
        let at = (next() as usize) % m.len();
        let what = match next() % 3 {
            0 => {
                let n = (1 + next() as usize % 8).min(m.len() - at);
                m.drain(at..at + n);
                format!("delete {n} at {at}")
            }
            1 => {
                let b = BYTES[next() as usize % BYTES.len()];
                m[at] = b;
                format!("replace {at} by {b:#04x}")
            }
            _ => {
                let b = BYTES[next() as usize % BYTES.len()];
                m.insert(at, b);
                format!("insert {b:#04x} at {at}")
            }
        };
        if std::panic::catch_unwind(|| Lgr::from_bytes("t", &m).is_ok()).is_err() {
            panics.push(format!("mutation {i}: {what}"));
        }
    }
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}
