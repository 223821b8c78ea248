//! Measures what each grouping of `lgrscan scan --index-mode` finds on
//! ICANN's golden label corpora (issue #31): for each LGR with golden
//! files in the reference directory, the corpus is scanned grouping by
//! lgr-core's index label (`reference`), by the RFC 7940 reading's
//! (`rfc7940`) and `verified`, and for each it prints the member rows
//! (holder / member pairs reported as collisions), how many of them are a
//! variant pair in one direction at least, the unordered pairs of labels
//! in one reported group, how many of those are variant pairs, and how many
//! pairs are not in a reference group.
//!
//! Usage: `cargo run --release --example grouping_pairs [-- NAME...]`
//! (default: every `golden/*.collisions.tsv`; `$LGRSCAN_REFERENCE_DIR`,
//! default `../shared`). Output: a Markdown table.
use lgrscan::input::{self, Input, InputFormat, LabelSet};
use lgrscan::lgr::{IndexMode, Lgr};
use lgrscan::scan::{self, Grouping, LgrSet, NoProgress, Relation, Role, ScanConfig};
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

type Pair = (usize, usize);

/// One mode's counts, and its co-grouped pairs.
struct Counts {
    rows: usize,
    mutual: usize,
    one_way: usize,
    near: usize,
    pairs: HashSet<Pair>,
}

fn measure(lgr: &Arc<Lgr>, grouping: Grouping, labels: &LabelSet) -> Counts {
    let set = LgrSet::new(vec![lgr.clone()], None).expect("set").with_grouping(grouping);
    let report = scan::scan(labels, &set, &ScanConfig::default(), &NoProgress);
    let mut c = Counts { rows: 0, mutual: 0, one_way: 0, near: 0, pairs: HashSet::new() };
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for f in report.findings.iter().filter(|f| f.group.is_some()) {
        if f.role == Some(Role::Near) {
            c.near += 1;
            continue;
        }
        groups.entry(f.group.unwrap_or(0)).or_default().push(f.label);
        if f.role != Some(Role::Holder) {
            c.rows += 1;
            match f.relation {
                Some(Relation::Mutual) => c.mutual += 1,
                Some(Relation::OfHolder | Relation::OfMember) => c.one_way += 1,
                _ => {}
            }
        }
    }
    for g in groups.values() {
        for (i, &a) in g.iter().enumerate() {
            for &b in &g[i + 1..] {
                c.pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    c
}

fn main() {
    let dir = std::env::var_os("LGRSCAN_REFERENCE_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"), PathBuf::from);
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        let golden = std::fs::read_dir(dir.join("golden")).expect("reference directory");
        names = golden
            .filter_map(|e| {
                let f = e.ok()?.file_name().to_string_lossy().into_owned();
                f.strip_suffix(".collisions.tsv").map(str::to_string)
            })
            .collect();
        names.sort();
    }
    println!(
        "| LGR | mode | member rows | mutual | one way | near | pairs | variants | mutual | not in reference | reference pairs missing |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for name in &names {
        let text = std::fs::read_to_string(dir.join(format!("golden/{name}.tsv"))).expect("golden");
        // As the tests (`dns_differs` in tests/util): labels a DNS reader takes otherwise are
        // left out (they have no index label).
        let corpus: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split('\t').next())
            .filter(|l| {
                !(l.contains('.')
                    || l.bytes().any(|b| b.is_ascii_uppercase())
                    || l.starts_with("xn--"))
            })
            .collect();
        let mut data = corpus.join("\n").into_bytes();
        data.push(b'\n');
        let config = input::Config::new().format(Some(InputFormat::List));
        let labels =
            input::read([Input::Bytes { name: name.into(), data }], &config).expect("list reads");
        let path = dir.join(format!("lgr/{name}.xml"));
        let reference = Arc::new(Lgr::from_path(&path).expect("LGR loads"));
        let rfc =
            Arc::new(Lgr::from_path(&path).expect("LGR loads").with_index_mode(IndexMode::Rfc7940));
        let runs = [
            ("reference", measure(&reference, Grouping::IndexLabel, &labels)),
            ("rfc7940", measure(&rfc, Grouping::IndexLabel, &labels)),
            ("verified", measure(&reference, Grouping::Verified, &labels)),
        ];
        let cps = |i: usize| -> Vec<u32> {
            labels.get(i).expect("label").ulabel().chars().map(u32::from).collect()
        };
        for (mode, c) in &runs {
            let (mut variants, mut mutual) = (0, 0);
            for &(a, b) in &c.pairs {
                let (a, b) = (cps(a), cps(b));
                let (fwd, back) = (reference.is_variant(&a, &b), reference.is_variant(&b, &a));
                variants += usize::from(fwd || back);
                mutual += usize::from(fwd && back);
            }
            let new = c.pairs.difference(&runs[0].1.pairs).count();
            let missing = runs[0].1.pairs.difference(&c.pairs).count();
            println!(
                "| {name} | {mode} | {} | {} | {} | {} | {} | {variants} | {mutual} | {new} | {missing} |",
                c.rows,
                c.mutual,
                c.one_way,
                c.near,
                c.pairs.len()
            );
        }
    }
}
