//! The verified grouping (issue #31) against the reference results: on
//! every golden corpus, every collision group of lgr-core (its index label,
//! `reference` mode) lies inside one verified group, as a collision; every
//! member of every verified group is a variant of its holder in the
//! direction its `relation` says, checked with the enumerator
//! ([`Lgr::variant_labels`]) rather than the scan's membership test; and
//! the pairs each index-label mode misses are grouped (tests/scan/verified.rs).

use lgrscan::lgr::Lgr;
use lgrscan::scan::{Grouping, Relation, Role};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Variant labels enumerated per label at most; beyond it a pair is
/// checked from the other side, or counted as not checked.
const ENUMERATION_LIMIT: usize = 2_000;

use crate::util::{golden_corpus, golden_lgr, members, read_list, scan_with, tsv};
use libtest_mimic::Failed;

fn cps(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
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

/// The verified grouping of `name`'s golden corpus against its golden
/// groups, each member checked by enumeration.
pub fn check(dir: &Path, name: &str) -> Result<(), Failed> {
    let lgr = golden_lgr(dir, name);
    let labels = read_list(&golden_corpus(dir, name));
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
    Ok(())
}
