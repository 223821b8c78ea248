//! The verified grouping (issue #31) on small cases: the pairs each
//! index-label mode misses (ICANN's second-level Devanagari LGR) are
//! grouped, and members that are no variants are `near`. Against the
//! golden corpora: tests/golden/verified.rs.

use crate::util::{members, read_list, scan_with};
use lgrscan::lgr::{IndexMode, Lgr};
use lgrscan::scan::{Grouping, Relation, Role};
use std::sync::Arc;

/// Under ICANN's second-level Devanagari LGR, lgr-core's index label splits
/// `भारत` / `भा़रत` and the nukta twins of the golden corpus (blocked
/// variants of each other), and the RFC 7940 reading of the context rule
/// splits `मांग` / `मांਗ` and `दांव` / `दांਕ`; the verified grouping groups
/// all of them, each pair variants of each other.
#[test]
fn pairs_each_index_mode_misses_are_grouped() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let path = dir.join("lgr/lgr-second-level-devanagari-script-31may22-en.xml");
    let reference = Arc::new(Lgr::from_path(&path).expect("LGR loads"));
    let rfc =
        Arc::new(Lgr::from_path(&path).expect("LGR loads").with_index_mode(IndexMode::Rfc7940));
    let rfc_only = [
        ("भारत", "भा\u{93C}रत"),
        ("जवा\u{93C}ब", "जवाब"),
        ("का\u{93C}ला", "काला"),
        ("ला\u{93C}ल", "लाल"),
    ];
    let reference_only = [("मांग", "मांਗ"), ("दांव", "दांਕ")];
    let grouped = |lgr: &Arc<Lgr>, grouping: Grouping, (a, b): (&str, &str)| {
        let labels = read_list(&[a.to_string(), b.to_string()]);
        let report = scan_with(lgr, grouping, &labels);
        let rows = members(&report, &labels);
        match &rows[..] {
            [m] if m.role != Role::Near => {
                assert_eq!(m.relation, Relation::Mutual, "{a} / {b}");
                true
            }
            _ => false,
        }
    };
    for pair in rfc_only {
        assert!(!grouped(&reference, Grouping::IndexLabel, pair), "reference groups {pair:?}");
        assert!(grouped(&rfc, Grouping::IndexLabel, pair), "rfc7940 misses {pair:?}");
        assert!(grouped(&reference, Grouping::Verified, pair), "verified misses {pair:?}");
    }
    for pair in reference_only {
        assert!(grouped(&reference, Grouping::IndexLabel, pair), "reference misses {pair:?}");
        assert!(!grouped(&rfc, Grouping::IndexLabel, pair), "rfc7940 groups {pair:?}");
        assert!(grouped(&reference, Grouping::Verified, pair), "verified misses {pair:?}");
    }
}

/// Two labels sharing an index label that are variants of each other in
/// neither direction (a non-transitive variant relation: `b` → `a` and
/// `c` → `a`, untyped, hence allocatable): `reference` reports `c` as
/// blocked, `verified` as `near` (no conflict), next to `a`, which only the
/// holder `b` lists as a variant (`of-holder`); held by `a`, `b` is tied
/// the other way (`of-member`).
#[test]
fn members_that_are_no_variants_are_near() {
    let lgr = Arc::new(
        Lgr::from_xml(
            "t",
            r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061"/>
              <char cp="0062"><var cp="0061"/></char>
              <char cp="0063"><var cp="0061"/></char>
            </data></lgr>"#,
        )
        .expect("compiles"),
    );
    let labels = read_list(&["b".into(), "c".into(), "a".into()]);
    let roles = |grouping| {
        let report = scan_with(&lgr, grouping, &labels);
        let rows = members(&report, &labels);
        let summary = report.summary;
        let rows: Vec<(String, String, Role, Relation)> =
            rows.into_iter().map(|m| (m.holder, m.member, m.role, m.relation)).collect();
        (rows, summary.conflicts, summary.near)
    };
    let b = |m: &str, role, relation| ("b".to_string(), m.to_string(), role, relation);
    assert_eq!(
        roles(Grouping::IndexLabel),
        (
            vec![
                b("c", Role::Blocked, Relation::None),
                b("a", Role::Allocatable, Relation::OfHolder)
            ],
            2,
            0
        )
    );
    assert_eq!(
        roles(Grouping::Verified),
        (
            vec![b("c", Role::Near, Relation::None), b("a", Role::Allocatable, Relation::OfHolder)],
            1,
            1
        )
    );
    // Held by `a`: both others list it as a variant, it lists neither.
    let labels = read_list(&["a".into(), "b".into()]);
    let report = scan_with(&lgr, Grouping::Verified, &labels);
    let rows = members(&report, &labels);
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].role, rows[0].relation), (Role::Allocatable, Relation::OfMember));
}
