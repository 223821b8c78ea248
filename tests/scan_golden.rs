//! The scan against the reference results: scanning each golden label
//! corpus with the LGR of each file yields exactly the groups of
//! `<lgr>.collisions.tsv` and the dispositions of
//! `<lgr>.collision-dispositions.tsv`, whatever the thread count.

mod util;

use lgrscan::input::{self, Input, InputFormat, LabelSet};
use lgrscan::lgr::Lgr;
use lgrscan::scan::{self, LgrSet, NoProgress, Report, Role, ScanConfig};
use std::path::Path;
use std::sync::Arc;

fn read_list(labels: &[String]) -> LabelSet {
    let mut data = labels.join("\n").into_bytes();
    data.push(b'\n');
    let config = input::Config::new().format(Some(InputFormat::List));
    input::read([Input::Bytes { name: "corpus".into(), data }], &config).expect("list reads")
}

fn tsv(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn run(set: &LgrSet, labels: &LabelSet, threads: usize) -> Report {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
    pool.install(|| scan::scan(labels, set, &ScanConfig::default(), &NoProgress))
}

fn check(dir: &Path, name: &str) {
    let golden = dir.join("golden");
    let rows = tsv(&golden.join(format!("{name}.tsv")));
    // The reference takes each label literally; a scan reads DNS names: a
    // dot separates labels (`उ.प्र` is a two-label name), ASCII upper case
    // is folded (`Keep` is `keep`) and `xn--` labels are decoded. Such
    // corpus labels are left out of the list, after checking that the
    // reference gave them no index label, so they are in no group.
    let dns_differs = |l: &str| {
        l.contains('.') || l.bytes().any(|b| b.is_ascii_uppercase()) || l.starts_with("xn--")
    };
    for r in rows.iter().filter(|r| dns_differs(&r[0])) {
        assert!(r.get(6).is_none_or(|i| i.is_empty()), "{name}: {} has an index label", r[0]);
    }
    let corpus: Vec<String> =
        rows.iter().map(|r| r[0].clone()).filter(|l| !dns_differs(l)).collect();
    let labels = read_list(&corpus);
    assert_eq!(labels.len(), corpus.len(), "{name}: every corpus label is kept");
    let lgr =
        Arc::new(Lgr::from_path(&dir.join("lgr").join(format!("{name}.xml"))).expect("LGR loads"));
    let set = LgrSet::new(vec![lgr], None).expect("set");
    let report = run(&set, &labels, 1);

    // Groups: members (U-labels) in input order, grouped by group number.
    let mut got: Vec<Vec<String>> = Vec::new();
    let mut disp: Vec<(String, String, String, String)> = Vec::new();
    let mut holder_label = String::new();
    for f in report.findings.iter().filter(|f| f.group.is_some()) {
        let g = f.group.unwrap() as usize;
        if got.len() < g {
            got.push(Vec::new());
        }
        let u = labels.get(f.label).unwrap().original_text().into_owned();
        if f.role == Some(Role::Holder) {
            holder_label = u.clone();
        } else {
            disp.push((holder_label.clone(), u.clone(), f.disposition.clone(), f.reason.clone()));
        }
        got[g - 1].push(u);
    }
    let want: Vec<Vec<String>> = tsv(&golden.join(format!("{name}.collisions.tsv")))
        .into_iter()
        .map(|r| r[1..].to_vec())
        .collect();
    let bad_groups = want.iter().zip(&got).filter(|(w, g)| w != g).count();
    assert_eq!(got.len(), want.len(), "{name}: number of groups");
    assert_eq!(bad_groups, 0, "{name}: {bad_groups} groups differ");

    let want_disp = tsv(&golden.join(format!("{name}.collision-dispositions.tsv")));
    assert_eq!(disp.len(), want_disp.len(), "{name}: number of disposition rows");
    let mut computed_only = 0;
    for (i, (w, g)) in want_disp.iter().zip(&disp).enumerate() {
        assert_eq!((&w[1], &w[3]), (&g.0, &g.1), "{name}: disposition row {}", i + 2);
        if w[5].is_empty() {
            // Not computed by the reference (variant space > 20,000); ours
            // must still be a real disposition.
            assert!(matches!(g.2.as_str(), "blocked" | "invalid"), "{name}: row {}: {g:?}", i + 2);
            computed_only += 1;
        } else {
            assert_eq!((&w[5], &w[6]), (&g.2, &g.3), "{name}: disposition row {}", i + 2);
        }
    }
    println!(
        "{name}: {} groups and {} dispositions agree ({computed_only} the reference did not compute)",
        got.len(),
        disp.len() - computed_only
    );

    // Byte-identical findings whatever the thread count.
    let four = run(&set, &labels, 4);
    assert_eq!(report.findings, four.findings, "{name}: 1 and 4 threads differ");
}

#[test]
fn golden_groups_and_dispositions() {
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
