//! Malformed LGRs (issue #2): every case is refused with a message naming
//! line:column, element and what is wrong; nothing panics.

use lgrscan::lgr::Lgr;

const NS: &str = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">"#;

/// An LGR with `data` and `rules` spliced in; line 1 is `<lgr>`, line 2
/// `<data>`, `data` starts on line 3.
fn lgr(data: &str, rules: &str) -> String {
    format!("{NS}\n<data>\n{data}\n</data>\n<rules>\n{rules}\n</rules>\n</lgr>\n")
}

fn err(text: &str) -> String {
    match Lgr::from_xml("t.xml", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn err_bytes(bytes: &[u8]) -> String {
    match Lgr::from_bytes("t.xml", bytes) {
        Ok(_) => panic!("expected an error for {bytes:?}"),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------- structure

#[test]
fn unknown_element() {
    assert_eq!(
        err(&lgr(
            r#"<char cp="0061"/>
<chr cp="0062"/>"#,
            ""
        )),
        "<input>:4:1: <chr>: unknown element <chr> in <data>"
    );
}

#[test]
fn unknown_attribute() {
    assert_eq!(
        err(&lgr(r#"<char cp="0061" colour="red"/>"#, "")),
        "<input>:3:1: <char>: unknown attribute 'colour'"
    );
}

#[test]
fn missing_namespace() {
    assert_eq!(
        err("<lgr>\n<data><char cp=\"0061\"/></data>\n</lgr>"),
        "<input>:1:1: <lgr>: the <lgr> element must be in namespace urn:ietf:params:xml:ns:lgr-1.0"
    );
}

#[test]
fn wrong_root() {
    assert_eq!(err("<lgrx/>"), "<input>:1:1: <lgrx>: the root element must be <lgr>");
}

// ---------------------------------------------------------------- code points

#[test]
fn bad_code_point_not_hex() {
    assert_eq!(
        err(&lgr(r#"<char cp="00G1"/>"#, "")),
        "<input>:3:1: <char>: bad code point '00G1' (4 to 6 hex digits, a Unicode scalar value)"
    );
}

#[test]
fn bad_code_point_too_long() {
    assert_eq!(
        err(&lgr(r#"<char cp="0000061"/>"#, "")),
        "<input>:3:1: <char>: bad code point '0000061' (4 to 6 hex digits, a Unicode scalar value)"
    );
}

#[test]
fn bad_code_point_too_short() {
    assert_eq!(
        err(&lgr(r#"<char cp="061"/>"#, "")),
        "<input>:3:1: <char>: bad code point '061' (4 to 6 hex digits, a Unicode scalar value)"
    );
}

#[test]
fn bad_code_point_surrogate() {
    assert_eq!(
        err(&lgr(r#"<char cp="0061"><var cp="D800"/></char>"#, "")),
        "<input>:3:17: <var>: bad code point 'D800': a surrogate is not a Unicode scalar value"
    );
}

#[test]
fn bad_code_point_beyond_10ffff() {
    assert_eq!(
        err(&lgr(r#"<char cp="110000"/>"#, "")),
        "<input>:3:1: <char>: bad code point '110000': beyond U+10FFFF"
    );
}

#[test]
fn bad_code_point_in_class_text() {
    assert_eq!(
        err(&lgr(r#"<char cp="0061"/>"#, r#"<class name="c">0061 xyz</class>"#)),
        "<input>:6:1: <class>: bad code point 'xyz' (4 to 6 hex digits, a Unicode scalar value)"
    );
}

#[test]
fn reversed_range_element() {
    assert_eq!(
        err(&lgr(r#"<range first-cp="0062" last-cp="0061"/>"#, "")),
        "<input>:3:1: <range>: reversed range 0062..0061: first-cp is above last-cp"
    );
}

#[test]
fn reversed_range_in_class() {
    assert_eq!(
        err(&lgr(r#"<char cp="0061"/>"#, r#"<class name="c">0062-0061</class>"#)),
        "<input>:6:1: <class>: reversed range 0062-0061 in class: first code point above last"
    );
}

#[test]
fn duplicate_char() {
    assert_eq!(
        err(&lgr("<char cp=\"0061\"/>\n<char cp=\"0061\"/>", "")),
        "<input>:4: <char>: code point U+0061 is defined twice (first on line 3)"
    );
}

#[test]
fn duplicate_char_from_range() {
    assert_eq!(
        err(&lgr("<char cp=\"0062\"/>\n<range first-cp=\"0061\" last-cp=\"0063\"/>", "")),
        "<input>:4: <range>: code point U+0062 is defined twice (first on line 3)"
    );
}

// ---------------------------------------------------------------- references

#[test]
fn undefined_class_reference() {
    let text =
        lgr(r#"<char cp="0061" when="r"/>"#, r#"<rule name="r"><class by-ref="nope"/></rule>"#);
    assert_eq!(err(&text), "<input>:6: <rule>: rule 'r': reference to undefined class 'nope'");
}

#[test]
fn undefined_class_reference_in_class() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<union name="u"><class by-ref="nope"/></union>"#);
    assert_eq!(err(&text), "<input>:6: <union>: class 'u': reference to undefined class 'nope'");
}

#[test]
fn undefined_rule_reference_by_ref() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<rule name="r"><rule by-ref="nope"/></rule>"#);
    assert_eq!(err(&text), "<input>:6: <rule>: rule 'r': reference to undefined rule 'nope'");
}

#[test]
fn undefined_rule_reference_when() {
    let text = lgr("<char cp=\"0061\"/>\n<char cp=\"0062\" when=\"nope\"/>", "");
    assert_eq!(err(&text), "<input>:4: <char>: context rule 'nope' (when) is not defined");
}

#[test]
fn undefined_rule_reference_not_when_on_var() {
    let text = lgr(r#"<char cp="0061"><var cp="0062" not-when="nope"/></char>"#, "");
    assert_eq!(err(&text), "<input>:3: <var>: context rule 'nope' (not-when) is not defined");
}

#[test]
fn undefined_rule_reference_action_match() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<action disp="invalid" match="nope"/>"#);
    assert_eq!(err(&text), "<input>:6: <action>: action refers to undefined rule 'nope' (match)");
}

#[test]
fn undefined_rule_reference_action_not_match() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<action disp="invalid" not-match="nope"/>"#);
    assert_eq!(
        err(&text),
        "<input>:6: <action>: action refers to undefined rule 'nope' (not-match)"
    );
}

#[test]
fn cyclic_class_references() {
    let text = lgr(
        r#"<char cp="0061"/>"#,
        "<union name=\"a\"><class by-ref=\"b\"/><class>0061</class></union>\n\
         <union name=\"b\"><class by-ref=\"a\"/><class>0062</class></union>",
    );
    // A cycle refers to a definition not yet seen (RFC 7940 §6.3.4).
    assert_eq!(
        err(&text),
        "<input>:6:17: <class>: class 'b' is referenced before its definition (line 7); \
          RFC 7940 section 6.3.4 allows references to earlier definitions only"
    );
}

#[test]
fn cyclic_rule_references() {
    let text = lgr(
        r#"<char cp="0061"/>"#,
        "<rule name=\"a\"><char cp=\"0061\"/><rule by-ref=\"b\"/></rule>\n\
         <rule name=\"b\"><rule by-ref=\"a\"/></rule>",
    );
    // A cycle refers to a definition not yet seen (RFC 7940 §6.3.4).
    assert_eq!(
        err(&text),
        "<input>:6:33: <rule>: rule 'b' is referenced before its definition (line 7); \
          RFC 7940 section 6.3.4 allows references to earlier definitions only"
    );
}

#[test]
fn self_referencing_rule() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<rule name="a"><rule by-ref="a"/></rule>"#);
    // The rule's own definition is not complete where it refers to it.
    assert_eq!(
        err(&text),
        "<input>:6:16: <rule>: rule 'a' is referenced before its definition (line 6); \
          RFC 7940 section 6.3.4 allows references to earlier definitions only"
    );
}

#[test]
fn duplicate_rule_name() {
    let text = lgr(
        r#"<char cp="0061"/>"#,
        "<rule name=\"a\"><start/></rule>\n<rule name=\"a\"><end/></rule>",
    );
    assert_eq!(err(&text), "<input>:7: <rule>: duplicate rule name 'a' (first on line 6)");
}

// ---------------------------------------------------------------- rule syntax

#[test]
fn bad_count_letter() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<rule name="r"><any count="x"/></rule>"#);
    assert_eq!(err(&text), "<input>:6:16: <any>: bad count 'x' (expected n, n+ or n:m)");
}

#[test]
fn bad_count_reversed() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<rule name="r"><any count="3:1"/></rule>"#);
    assert_eq!(err(&text), "<input>:6:16: <any>: bad count '3:1': minimum above maximum");
}

#[test]
fn choice_with_one_child() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<rule name="r"><choice><start/></choice></rule>"#);
    assert_eq!(err(&text), "<input>:6:16: <choice>: a <choice> needs at least two alternatives");
}

#[test]
fn count_on_element_containing_anchor() {
    let text = lgr(
        r#"<char cp="0061" when="r"/>"#,
        r#"<rule name="r"><rule count="2"><anchor/></rule></rule>"#,
    );
    assert_eq!(
        err(&text),
        "<input>:6: <rule>: rule 'r': a 'count' may not apply to an element containing an anchor or look-around"
    );
}

#[test]
fn unknown_property() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<class name="c" property="gc:Xx"/>"#);
    assert_eq!(err(&text), "<input>:6: <class>: class 'c': unknown Unicode property 'gc:Xx'");
}

#[test]
fn unknown_property_in_rule() {
    let text = lgr(r#"<char cp="0061"/>"#, r#"<rule name="r"><class property="nosuch:Y"/></rule>"#);
    assert_eq!(err(&text), "<input>:6: <rule>: rule 'r': unknown Unicode property 'nosuch:Y'");
}

#[test]
fn rule_too_large_is_refused_quickly() {
    // Regression: this compiled for minutes before the automata had size
    // limits.
    let text = lgr(
        r#"<char cp="0061" when="r"/>"#,
        r#"<rule name="r"><class property="gc:L" count="9999"/></rule>"#,
    );
    let t = std::time::Instant::now();
    let e = err(&text);
    assert!(
        e.starts_with("<input>:6: <rule>: rule 'r': does not compile to an automaton: "),
        "{e}"
    );
    assert!(e.contains("exceeded limit of 4194304"), "{e}");
    assert!(t.elapsed().as_secs() < 30);
}

#[test]
fn rules_whose_automata_together_pass_the_budget_are_refused() {
    // Each rule (some letter 11 code points from the end) builds a 7.3 MB
    // automaton, under the 16 MiB one may take; ten of them pass the 64 MiB
    // all of an LGR's may take. Before that budget, 104 such rules (12 KB)
    // took 13 s and 975 MB to load.
    let with_rules = |n: u32| {
        let mut rules = String::new();
        for k in 0..n {
            let cp = 0x61 + k;
            rules += &format!("<rule name=\"r{k}\"><any count=\"0+\"/><char cp=\"{cp:04X}\"/>");
            rules += "<any count=\"11\"/></rule>\n";
        }
        for k in 0..n {
            rules += &format!("<action disp=\"invalid\" match=\"r{k}\"/>\n");
        }
        lgr(r#"<range first-cp="0061" last-cp="007A"/>"#, &rules)
    };
    let e = err(&with_rules(12));
    assert!(
        e.starts_with("<input>:15: <rule>: rule 'r9': does not compile to an automaton: "),
        "{e}"
    );
    let budget = lgrscan::lgr::MAX_AUTOMATA_BYTES;
    assert!(e.ends_with(&format!("of the {budget} bytes an LGR's automata may take")), "{e}");
    Lgr::from_xml("t.xml", &with_rules(9)).unwrap();
}

// ---------------------------------------------------------------- XML level

#[test]
fn doctype_and_entity_rejected() {
    let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lgr [<!ENTITY x \"0061\">]>\n\
                <lgr xmlns=\"urn:ietf:params:xml:ns:lgr-1.0\"><data><char cp=\"&x;\"/></data></lgr>";
    assert_eq!(err(text), "<input>:2:1: a DOCTYPE is not accepted in an LGR (no DTD, no entities)");
}

#[test]
fn external_entity_rejected() {
    let text = "<!DOCTYPE lgr SYSTEM \"file:///etc/passwd\">\n<lgr/>";
    assert_eq!(err(text), "<input>:1:1: a DOCTYPE is not accepted in an LGR (no DTD, no entities)");
}

#[test]
fn bom_is_accepted() {
    let text = format!("\u{feff}{}", lgr(r#"<char cp="0061"/>"#, ""));
    let l = Lgr::from_xml("t", &text).unwrap();
    assert_eq!(l.element_count(), 1);
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend_from_slice(lgr(r#"<char cp="0061"/>"#, "").as_bytes());
    assert_eq!(Lgr::from_bytes("t", &bytes).unwrap().element_count(), 1);
}

#[test]
fn not_utf8() {
    let mut bytes = lgr("<char cp=\"0061\" comment=\"caf", "").into_bytes();
    let at = bytes.windows(3).position(|w| w == b"caf").unwrap() + 3;
    bytes.insert(at, 0xE9);
    assert_eq!(err_bytes(&bytes), "<input>:3:29: not UTF-8: invalid byte 0xE9 at byte offset 80");
}

#[test]
fn not_utf8_from_path() {
    let dir = std::env::temp_dir().join(format!("lgrscan-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.xml");
    std::fs::write(&path, b"<lgr>\xff</lgr>").unwrap();
    let e = Lgr::from_path(&path).unwrap_err().to_string();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(e, format!("{}:1:6: not UTF-8: invalid byte 0xFF at byte offset 5", path.display()));
}

#[test]
fn empty_input() {
    assert_eq!(err(""), "<input>:1:1: empty input: no LGR document");
    assert_eq!(err_bytes(b"\xEF\xBB\xBF  \n"), "<input>:1:1: empty input: no LGR document");
}

#[test]
fn random_bytes() {
    assert!(err_bytes(&[0x9A, 0x00, 0x13, 0xFE]).contains("not UTF-8: invalid byte 0x9A"));
    assert_eq!(err("<\u{1}\u{7}zz"), "<input>:1:2: malformed XML: invalid name token");
}

#[test]
fn truncated_xml() {
    let full = lgr(r#"<char cp="0061"/>"#, "");
    let cut = &full[..full.find("</data>").unwrap() + 3];
    assert_eq!(
        err(cut),
        "<input>:4:4: malformed XML: unexpected end of input (truncated document?)"
    );
}

#[test]
fn missing_data() {
    assert_eq!(err(&format!("{NS}</lgr>")), "<input>:1:1: <lgr>: missing <data> element");
}

// ---------------------------------------------------------------- fuzz-style

/// Fragments that stress the parser and the rule compiler when spliced in.
const SPLICES: &[&[u8]] = &[
    b"<",
    b">",
    b"\"",
    b"/>",
    b"</rule>",
    b"<anchor/>",
    b"<start/>",
    b"<end/>",
    b"<any/>",
    b"<look-ahead><any/></look-ahead>",
    b"<look-behind><anchor/></look-behind>",
    b" count=\"0+\"",
    b" count=\"9999:9999\"",
    b" count=\"3:1\"",
    b"<choice><anchor/><any/></choice>",
    b"<rule by-ref=\"coeng-context\"/>",
    b"<class by-ref=\"consonant\"/>",
    b"<class>17D2-1780</class>",
    b"<class property=\"gc:Mn\"/>",
    b"<complement><class>0000-10FFFF</class></complement>",
    b" when=\"follows-consonant\"",
    b" not-when=\"nope\"",
    b"<var cp=\"1780\"/>",
    b"&amp;",
    b"&#x0;",
    b"<!DOCTYPE x>",
    b"\xEF\xBB\xBF",
    b"\xFF",
    b"10FFFF",
    b"D800",
];

/// One mutation of `src`, and a description of it.
fn mutate(src: &[u8], rng: &mut fastrand::Rng) -> (Vec<u8>, String) {
    let mut v = src.to_vec();
    // Half of the mutations go into <rules>, where the compiler works.
    let rules_at = src.windows(7).position(|w| w == b"<rules>").unwrap_or(0);
    let at = if rng.usize(..2) == 0 {
        rules_at + rng.usize(..src.len() - rules_at)
    } else {
        rng.usize(..src.len())
    };
    let len = 1 + rng.usize(..16).min(src.len() - at - 1);
    let what = match rng.usize(..4) {
        0 => {
            v.drain(at..at + len);
            format!("delete {len} bytes at {at}")
        }
        1 => {
            let dup = v[at..at + len].to_vec();
            v.splice(at..at, dup);
            format!("duplicate {len} bytes at {at}")
        }
        2 => {
            let b = rng.u8(..);
            v[at] = b;
            format!("replace byte {at} by 0x{b:02X}")
        }
        _ => {
            let s = SPLICES[rng.usize(..SPLICES.len())];
            v.splice(at..at, s.iter().copied());
            format!("insert {:?} at {at}", String::from_utf8_lossy(s))
        }
    };
    (v, what)
}

#[test]
fn mutated_lgrs_never_panic() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let path = dir.join("lgr").join("lgr-second-level-khmer-script-31may22-en.xml");
    let src = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Debug builds compile rules ~10x slower; keep `cargo test` quick.
    // LGRSCAN_FUZZ_N and LGRSCAN_FUZZ_SEED run more or other mutations.
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let n = env("LGRSCAN_FUZZ_N").unwrap_or(if cfg!(debug_assertions) { 500 } else { 4000 });
    let mut rng =
        fastrand::Rng::with_seed(env("LGRSCAN_FUZZ_SEED").unwrap_or(0x5EED_1234_ABCD_0001));
    let (mut ok, mut err, mut panics) = (0, 0, Vec::new());
    for i in 0..n {
        let (m, what) = mutate(&src, &mut rng);
        match std::panic::catch_unwind(|| {
            Lgr::from_bytes("mutant", &m).map(|l| l.judge(&[0x1780]).eligible)
        }) {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(_)) => err += 1,
            Err(_) => panics.push(format!("mutation {i}: {what}")),
        }
    }
    println!("{n} mutations: {ok} loaded, {err} refused, {} panicked", panics.len());
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}

/// "It is an error to reference a rule or class for which the definition
/// has not been seen" (RFC 7940 §6.3.4): such an LGR loaded (lgr-core
/// refuses it: "cannot reference inexisting class 'B'").
#[test]
fn forward_references_are_errors() {
    let class = lgr(
        r#"<char cp="0061" when="after-b"/><char cp="0062"/>"#,
        "<rule name=\"after-b\"><look-behind><class by-ref=\"B\"/></look-behind><anchor/></rule>\n\
         <class name=\"B\">0062</class>",
    );
    assert_eq!(
        err(&class),
        "<input>:6:35: <class>: class 'B' is referenced before its definition (line 7); \
         RFC 7940 section 6.3.4 allows references to earlier definitions only"
    );
    let rule = lgr(
        r#"<char cp="0061"/>"#,
        "<rule name=\"a\"><rule by-ref=\"b\"/></rule>\n<rule name=\"b\"><char cp=\"0061\"/></rule>",
    );
    assert!(err(&rule).starts_with(
        "<input>:6:16: <rule>: rule 'b' is referenced before its definition (line 7)"
    ));
    let in_class = lgr(
        r#"<char cp="0061"/>"#,
        "<union name=\"u\"><class by-ref=\"k\"/><class>0062</class></union>\n<class name=\"k\">0061</class>",
    );
    assert!(err(&in_class).contains("class 'k' is referenced before its definition (line 7)"));
    // A `when` on a <char> and an action's `match` name rules, not by
    // reference: they may come before the rule (data precedes rules).
    let later = lgr(
        r#"<char cp="0061" when="r"/><char cp="0062"/>"#,
        "<action disp=\"invalid\" match=\"r\"/>\n<class name=\"B\">0062</class>\n\
         <rule name=\"r\"><look-behind><class by-ref=\"B\"/></look-behind><anchor/></rule>",
    );
    Lgr::from_xml("t.xml", &later).expect("backward references load");
}
