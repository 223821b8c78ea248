//! The verified grouping (issue #31) against the reference results: on
//! every golden corpus, every collision group of lgr-core (its index label,
//! `reference` mode) lies inside one verified group, as a collision; every
//! member of every verified group is a variant of its holder in the
//! direction its `relation` says, checked with the enumerator
//! ([`Lgr::variant_labels`]) rather than the scan's membership test; and
//! the pairs each index-label mode misses (ICANN's second-level Devanagari
//! LGR) are grouped.

mod util;

use lgrscan::input::LabelSet;
use lgrscan::lgr::{IndexMode, Lgr};
use lgrscan::scan::{self, Grouping, LgrSet, NoProgress, Relation, Report, Role, ScanConfig};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// Variant labels enumerated per label at most; beyond it a pair is
/// checked from the other side, or counted as not checked.
const ENUMERATION_LIMIT: usize = 2_000;

use util::{read_list, tsv};

fn cps(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

/// The golden corpus of `name` as a scan reads it (see `scan_golden.rs`:
/// labels a DNS reader takes otherwise are left out; they have no index
/// label).
fn corpus(dir: &Path, name: &str) -> Vec<String> {
    let dns_differs = |l: &str| {
        l.contains('.') || l.bytes().any(|b| b.is_ascii_uppercase()) || l.starts_with("xn--")
    };
    tsv(&dir.join(format!("golden/{name}.tsv")))
        .into_iter()
        .map(|r| r[0].clone())
        .filter(|l| !dns_differs(l))
        .collect()
}

fn scan_with(lgr: &Arc<Lgr>, grouping: Grouping, labels: &LabelSet) -> Report {
    let set = LgrSet::new(vec![lgr.clone()], None).expect("set").with_grouping(grouping);
    scan::scan(labels, &set, &ScanConfig::default(), &NoProgress)
}

/// One member row of a report: holder, member, role, relation.
struct Member {
    group: u32,
    holder: String,
    member: String,
    role: Role,
    relation: Relation,
}

fn members(report: &Report, labels: &LabelSet) -> Vec<Member> {
    let text = |i: usize| labels.get(i).expect("label").ulabel().to_string();
    report
        .findings
        .iter()
        .filter(|f| f.group.is_some() && f.role != Some(Role::Holder))
        .map(|f| Member {
            group: f.group.expect("filtered"),
            holder: text(f.holder.expect("collision rows have a holder")),
            member: text(f.label),
            role: f.role.expect("collision rows have a role"),
            relation: f.relation.expect("member rows have a relation"),
        })
        .collect()
}

/// Whether `b` is a variant label of `a` by enumeration; `None` when `a`
/// has too many.
fn enumerated(lgr: &Lgr, a: &str, b: &str) -> Option<bool> {
    let (a, b) = (cps(a), cps(b));
    if lgr.variant_estimate(&a) > ENUMERATION_LIMIT as u128 {
        return None;
    }
    lgr.variant_labels(&a, 4 * ENUMERATION_LIMIT).ok().map(|all| a == b || all.contains(&b))
}

fn check(dir: &Path, name: &str) {
    let lgr = Arc::new(Lgr::from_path(&dir.join(format!("lgr/{name}.xml"))).expect("LGR loads"));
    let labels = read_list(&corpus(dir, name));
    let report = scan_with(&lgr, Grouping::Verified, &labels);
    let rows = members(&report, &labels);
    let text = |i: usize| labels.get(i).expect("label").ulabel().to_string();
    let invalid: HashSet<String> =
        report.findings.iter().filter(|f| f.group.is_none()).map(|f| text(f.label)).collect();

    // No collision lost: each lgr-core group with a valid member (one
    // without has no holder) is inside one verified group, as holder or
    // as a collision (not `near`).
    let mut group_of: HashMap<String, u32> = HashMap::new();
    for f in report.findings.iter().filter(|f| f.role.is_some_and(|r| r != Role::Near)) {
        group_of.insert(text(f.label), f.group.expect("collision row"));
    }
    let mut lost = Vec::new();
    let reference = tsv(&dir.join(format!("golden/{name}.collisions.tsv")));
    for g in reference.iter().map(|r| &r[1..]) {
        if g.iter().all(|m| invalid.contains(m)) {
            continue;
        }
        let at: HashSet<Option<&u32>> = g.iter().map(|m| group_of.get(m)).collect();
        if at.len() != 1 || at.contains(&None) {
            lost.push(format!("{g:?} in verified groups {at:?}"));
        }
    }
    assert!(lost.is_empty(), "{name}: lgr-core groups not inside one verified group:\n{lost:#?}");

    // Every member tied to its holder as its relation says, by the
    // enumerator; `near` members in neither direction.
    let (mut checked, mut unchecked) = (0, 0);
    for m in &rows {
        let forward = enumerated(&lgr, &m.holder, &m.member);
        let backward = enumerated(&lgr, &m.member, &m.holder);
        let want = |fwd: bool, back: bool| match m.relation {
            Relation::Mutual => fwd && back,
            Relation::OfHolder => fwd && !back,
            Relation::OfMember => !fwd && back,
            Relation::None => !fwd && !back,
        };
        let ok = match (forward, backward) {
            (Some(f), Some(b)) => want(f, b),
            // One side enumerated: it must agree with the relation.
            (Some(f), None) => match m.relation {
                Relation::Mutual | Relation::OfHolder => f,
                Relation::OfMember | Relation::None => !f,
            },
            (None, Some(b)) => match m.relation {
                Relation::Mutual | Relation::OfMember => b,
                Relation::OfHolder | Relation::None => !b,
            },
            (None, None) => {
                unchecked += 1;
                continue;
            }
        };
        assert!(
            ok,
            "{name}: group {}: {} / {} is not {:?}",
            m.group, m.holder, m.member, m.relation
        );
        assert_eq!(m.relation == Relation::None, m.role == Role::Near, "{name}: {}", m.member);
        checked += 1;
    }
    println!(
        "{name}: {} member rows; {checked} checked by enumeration, {unchecked} too large",
        rows.len()
    );
    // Those left are long digit strings of the common LGRs.
    assert!(checked > unchecked, "{name}: {checked} checked, {unchecked} not");
}

#[test]
fn verified_groups_lose_no_reference_collision_and_confirm_every_member() {
    let Some(dir) = util::reference_dir() else { return };
    let mut n = 0;
    for e in std::fs::read_dir(dir.join("golden")).expect("golden") {
        let f = e.expect("entry").file_name().to_string_lossy().into_owned();
        if let Some(name) = f.strip_suffix(".collisions.tsv") {
            check(&dir, name);
            n += 1;
        }
    }
    assert!(n >= 7, "expected 7 golden LGRs, found {n}");
}

/// Under ICANN's second-level Devanagari LGR, lgr-core's index label splits
/// `भारत` / `भा़रत` and the nukta twins of the golden corpus (blocked
/// variants of each other), and the RFC 7940 reading of the context rule
/// splits `मांग` / `मांਗ` and `दांव` / `दांਕ`; the verified grouping groups
/// all of them, each pair variants of each other.
#[test]
fn pairs_each_index_mode_misses_are_grouped() {
    let Some(dir) = util::reference_dir() else { return };
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
