//! The scan against the reference results: scanning each golden label
//! corpus with the LGR of each file yields exactly the groups of
//! `<lgr>.collisions.tsv` and the dispositions of
//! `<lgr>.collision-dispositions.tsv` (grouping by lgr-core's index label,
//! `reference` mode), whatever the thread count, except that an invalid
//! label never holds a group.

use lgrscan::input::LabelSet;
use lgrscan::scan::{self, Grouping, LgrSet, NoProgress, Report, Role, ScanConfig};
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::util::{golden_corpus, golden_lgr, read_list, tsv};
use libtest_mimic::Failed;

fn run(set: &LgrSet, labels: &LabelSet, threads: usize) -> Report {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
    pool.install(|| scan::scan(labels, set, &ScanConfig::default(), &NoProgress))
}

/// The scan of `name`'s golden corpus against its golden groups and
/// dispositions.
pub fn check(dir: &Path, name: &str) -> Result<(), Failed> {
    let golden = dir.join("golden");
    let corpus = golden_corpus(dir, name);
    let labels = read_list(&corpus);
    assert_eq!(labels.len(), corpus.len(), "{name}: every corpus label is kept");
    let lgr = golden_lgr(dir, name);
    // lgr-core's groups are those of its index label: `reference` mode.
    let set = LgrSet::new(vec![lgr], None).expect("set").with_grouping(Grouping::IndexLabel);
    let report = run(&set, &labels, 1);
    let text = |i: usize| labels.get(i).unwrap().original_text().into_owned();
    let invalid: HashSet<String> =
        report.findings.iter().filter(|f| f.group.is_none()).map(|f| text(f.label)).collect();

    // Groups: members (U-labels) in input order, grouped by group number,
    // with each member's role, disposition and reason.
    let mut got: Vec<Vec<(String, Role, String, String)>> = Vec::new();
    for f in report.findings.iter().filter(|f| f.group.is_some()) {
        let g = f.group.unwrap() as usize;
        if got.len() < g {
            got.push(Vec::new());
        }
        got[g - 1].push((text(f.label), f.role.unwrap(), f.disposition.clone(), f.reason.clone()));
    }
    // A group none of whose members is valid has no holder and is not
    // reported (an invalid label never holds a variant set).
    let all: Vec<Vec<String>> = tsv(&golden.join(format!("{name}.collisions.tsv")))
        .into_iter()
        .map(|r| r[1..].to_vec())
        .collect();
    let want: Vec<&Vec<String>> =
        all.iter().filter(|g| g.iter().any(|m| !invalid.contains(m))).collect();
    let labels_of = |g: &[(String, Role, String, String)]| -> Vec<String> {
        g.iter().map(|m| m.0.clone()).collect()
    };
    let bad_groups = want.iter().zip(&got).filter(|(w, g)| **w != &labels_of(g)).count();
    assert_eq!(got.len(), want.len(), "{name}: number of groups");
    assert_eq!(bad_groups, 0, "{name}: {bad_groups} groups differ");

    // Dispositions as variants of the holder: the reference gives them as
    // variants of each group's first member, which holds the group unless
    // it is invalid; the holder is then the first valid member.
    let want_disp: HashMap<(String, String), (String, String)> =
        tsv(&golden.join(format!("{name}.collision-dispositions.tsv")))
            .into_iter()
            .map(|w| ((w[1].clone(), w[3].clone()), (w[5].clone(), w[6].clone())))
            .collect();
    let (mut compared, mut computed_only, mut other_holder) = (0, 0, 0);
    for g in &got {
        let holder = &g.iter().find(|m| m.1 == Role::Holder).expect("a holder").0;
        let first_valid = g.iter().find(|m| !invalid.contains(&m.0)).expect("a valid member");
        assert_eq!(holder, &first_valid.0, "{name}: the holder is the first valid member");
        if *holder != g[0].0 {
            other_holder += 1;
            continue;
        }
        for m in g.iter().filter(|m| m.1 != Role::Holder) {
            let w = want_disp.get(&(holder.clone(), m.0.clone())).expect("a golden row");
            if w.0.is_empty() {
                // Not computed by the reference (variant space > 20,000);
                // ours must still be a real disposition.
                assert!(matches!(m.2.as_str(), "blocked" | "invalid"), "{name}: {m:?}");
                computed_only += 1;
            } else {
                assert_eq!((&w.0, &w.1), (&m.2, &m.3), "{name}: {holder} / {}", m.0);
                compared += 1;
            }
        }
    }
    println!(
        "{name}: {} groups agree ({} left out: no valid member); {compared} dispositions agree \
         ({computed_only} the reference did not compute; {other_holder} groups held by a later, \
         valid member)",
        got.len(),
        all.len() - want.len(),
    );
    assert!(compared > 0, "{name}: dispositions compared");

    // Byte-identical findings whatever the thread count.
    let four = run(&set, &labels, 4);
    assert_eq!(report.findings, four.findings, "{name}: 1 and 4 threads differ");
    Ok(())
}
