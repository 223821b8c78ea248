//! Look-behinds with an unbounded count (RFC 7940 §5.3.3 `count="n+"`
//! inside §6.4's `look-behind`): legal, but their automaton, with the
//! count capped at 63 as the reference implementation writes it, was over
//! the size limit and the whole LGR was refused.
//!
//! Expected verdicts are the reference's: lgr-core writes such a count as
//! `{n,63}` (matcher.py, `CountMatcher`), so on a label whose anchor has
//! more than 63 code points before it a look-behind needing more than 63
//! repeats fails, where RFC 7940 alone would let it hold. They were
//! checked with the reference's patterns (`(?<=x(?:\p{L}){0,63})-` …)
//! under Python's `regex` module, which has variable-length look-behind.

use lgrscan::lgr::{Lgr, Reason};

/// `-` only after `x` and letters; `0` not after `y` and at least one
/// letter; a label with `z` after `q` and letters is blocked.
const LGR: &str = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">
<data>
<range first-cp="0061" last-cp="007A"/>
<char cp="002D" when="after-x"/>
<char cp="0030" not-when="after-y"/>
</data>
<rules>
<rule name="after-x"><look-behind><char cp="0078"/><class property="gc:L" count="0+"/></look-behind><anchor/></rule>
<rule name="after-y"><look-behind><char cp="0079"/><class property="gc:L" count="1+"/></look-behind><anchor/></rule>
<rule name="z-after-q"><look-behind><char cp="0071"/><class property="gc:L" count="0+"/></look-behind><char cp="007A"/></rule>
<action disp="blocked" match="z-after-q"/>
</rules>
</lgr>"#;

fn lgr() -> Lgr {
    Lgr::from_xml("lb.xml", LGR).unwrap_or_else(|e| panic!("{e}"))
}

/// The disposition of `label`, and the failures (RFC 7940 §8.1) as the
/// reference states them, if any.
fn judge(lgr: &Lgr, label: &str) -> (String, String) {
    let cps: Vec<u32> = label.chars().map(u32::from).collect();
    let v = lgr.judge(&cps);
    let failures = match &v.reason {
        Reason::Failures(_) => lgr.reason_text(&v.reason),
        _ => String::new(),
    };
    (v.disposition.to_string(), failures)
}

/// `c` repeated `n` times.
fn rep(c: char, n: usize) -> String {
    std::iter::repeat_n(c, n).collect()
}

const HYPHEN: &str = "U+002D does not comply with rules 'after-x'";
const ZERO: &str = "U+0030 does not comply with rules 'after-y'";

#[track_caller]
fn expect(lgr: &Lgr, label: &str, disposition: &str, failures: &str) {
    assert_eq!(
        judge(lgr, label),
        (disposition.to_string(), failures.to_string()),
        "{label} ({} code points)",
        label.chars().count()
    );
}

#[test]
fn unbounded_look_behind_loads_and_judges_as_the_reference() {
    let l = lgr();
    // when: the context char just before, far before, absent.
    expect(&l, "xab-c", "valid", "");
    expect(&l, &format!("x{}-c", rep('b', 40)), "valid", "");
    expect(&l, &format!("x{}-c", rep('b', 62)), "valid", "");
    expect(&l, "ab-c", "invalid", HYPHEN);
    // The second hyphen is not after `x` and letters only; the first is.
    expect(&l, "xa-b-c", "invalid", HYPHEN);
    expect(&l, "xa-b-xc-d", "invalid", HYPHEN);
    // not-when, with a count of at least one.
    expect(&l, "yab0", "invalid", ZERO);
    expect(&l, "ya0", "invalid", ZERO);
    expect(&l, "y0", "valid", "");
    expect(&l, "ab0", "valid", "");
    expect(&l, &format!("y{}0", rep('a', 50)), "invalid", ZERO);
    expect(&l, &format!("y{}0", rep('a', 62)), "invalid", ZERO);
    // An action's rule, searched anywhere in the label (RFC 7940 §7.2).
    expect(&l, "qaz", "blocked", "");
    expect(&l, "az", "valid", "");
    expect(&l, &format!("q{}z", rep('a', 40)), "blocked", "");
}

#[test]
fn unbounded_look_behind_is_capped_at_63_repeats_as_the_reference() {
    // Labels longer than a DNS label, as the library judges them: the
    // anchor has more than 63 code points before it.
    let l = lgr();
    expect(&l, &format!("x{}-c", rep('b', 63)), "valid", "");
    expect(&l, &format!("x{}-c", rep('b', 64)), "invalid", HYPHEN);
    expect(&l, &format!("cccccx{}-c", rep('b', 63)), "valid", "");
    expect(&l, &format!("xb-{}", rep('c', 80)), "valid", "");
    expect(&l, &format!("y{}0", rep('a', 63)), "invalid", ZERO);
    expect(&l, &format!("y{}0", rep('a', 64)), "valid", "");
    expect(&l, &format!("q{}z", rep('a', 63)), "blocked", "");
    expect(&l, &format!("q{}z", rep('a', 64)), "valid", "");
}

#[test]
fn unbounded_look_behind_judges_alike_on_threads() {
    // The automaton of the long labels' look-behinds keeps a cache per
    // search; threads judging at once get the same answers.
    let l = lgr();
    let labels: Vec<(String, &str)> = (0..120)
        .map(|n| {
            let label = format!("x{}-c", rep('b', n));
            (label, if n <= 63 { "valid" } else { "invalid" })
        })
        .collect();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for (label, want) in &labels {
                    assert_eq!(judge(&l, label).0, *want, "{label}");
                }
            });
        }
    });
}

#[test]
fn a_huge_count_in_a_look_behind_is_still_refused_quickly() {
    // Capped at 9999 repeats (the count's minimum): the NFA is over its
    // size limit, as for the same count outside a look-behind
    // (errors::rule_too_large_is_refused_quickly).
    let text = LGR.replace(
        r#"count="0+"/></look-behind><anchor/>"#,
        r#"count="9999+"/></look-behind><anchor/>"#,
    );
    let t = std::time::Instant::now();
    let e = Lgr::from_xml("lb.xml", &text).expect_err("refused").to_string();
    assert!(e.contains("rule 'after-x': does not compile to an automaton: "), "{e}");
    assert!(e.contains("exceeded limit of 4194304"), "{e}");
    assert!(t.elapsed().as_secs() < 30);
}

#[test]
fn an_unused_rule_with_a_huge_look_behind_count_is_not_built() {
    // As cli::bounds::unused_rule_automaton_is_not_built: no context or
    // action uses the rule, so neither of its automata is built.
    let text = LGR.replace(
        "<rules>\n",
        "<rules>\n<rule name=\"unused\"><look-behind><class property=\"gc:L\" count=\"9999+\"/></look-behind><anchor/></rule>\n",
    );
    let l = Lgr::from_xml("lb.xml", &text).unwrap_or_else(|e| panic!("{e}"));
    expect(&l, "xab-c", "valid", "");
}

/// An action's reason quotes its comment when it has one, and says
/// nothing more when it has none (not `""`).
#[test]
fn an_action_without_a_comment_gives_no_empty_quotes() {
    let l = lgr();
    let v = l.judge(&"qaz".chars().map(u32::from).collect::<Vec<_>>());
    assert_eq!(l.reason_text(&v.reason), "action 0: disp=blocked match=z-after-q");
    let commented = Lgr::from_xml(
        "c.xml",
        &LGR.replace(r#"match="z-after-q"/>"#, r#"match="z-after-q" comment="q then z"/>"#),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let v = commented.judge(&"qaz".chars().map(u32::from).collect::<Vec<_>>());
    assert_eq!(
        commented.reason_text(&v.reason),
        r#"action 0: disp=blocked match=z-after-q "q then z""#
    );
}

/// Two unbounded counts of a large class in one look-behind: legal (RFC
/// 7940 §5.3.3), and refused whole while the reference's capped form
/// (`\p{L}{1,63}x\p{L}{0,63}`, over the automaton size limit) was needed.
/// It loads; up to 63 code points before the anchor (every DNS label) it
/// answers as the reference; past them, as RFC 7940 reads the count
/// (unbounded), where the reference's 63 would fail it.
#[test]
fn two_unbounded_counts_of_a_large_class_load() {
    let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">
<data><range first-cp="0061" last-cp="007A"/><char cp="002D" when="x-inside-letters"/></data>
<rules>
<rule name="x-inside-letters"><look-behind><class property="gc:L" count="1+"/><char cp="0078"/><class property="gc:L" count="0+"/></look-behind><anchor/></rule>
</rules>
</lgr>"#;
    let l = Lgr::from_xml("two.xml", xml).unwrap_or_else(|e| panic!("{e}"));
    const HYPHEN: &str = "U+002D does not comply with rules 'x-inside-letters'";
    expect(&l, "abxab-c", "valid", "");
    expect(&l, "ax-c", "valid", "");
    expect(&l, "xab-c", "invalid", HYPHEN);
    expect(&l, "ab-c", "invalid", HYPHEN);
    expect(&l, &format!("ax{}-c", rep('b', 60)), "valid", "");
    expect(&l, &format!("ax{}-c", rep('b', 70)), "valid", "");
}
