//! Per-label cost of `annotate`: judge (RFC 7940 §8.1–§8.3) plus index label
//! (§8.5) for every golden label, one thread, in labels per second; and the
//! load time of the 2.9 MB common LGR. See benches/README.md.
//!
//! ICANN's LGRs and the golden labels are read from the reference directory
//! (`$LGRSCAN_REFERENCE_DIR`, default `../shared`) at run time.

#[path = "../tests/util/mod.rs"]
mod util;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lgrscan::lgr::{Label, Lgr};
use std::hint::black_box;
use std::path::Path;

const LGRS: [(&str, &str); 3] = [
    ("devanagari", "lgr-second-level-devanagari-script-31may22-en"),
    ("khmer", "lgr-second-level-khmer-script-31may22-en"),
    ("common", "lgr-second-level-common-31may22-en"),
];

/// The labels of a golden file (column 2, hex code points).
fn golden_labels(dir: &Path, name: &str) -> Vec<String> {
    let path = dir.join("golden").join(format!("{name}.tsv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split('\t').nth(1))
        .map(|hex| {
            util::parse_hex(hex)
                .into_iter()
                .map(|c| char::from_u32(c).unwrap_or('\u{FFFD}'))
                .collect()
        })
        .collect()
}

/// What the annotate command does per label: prepare, judge, index.
fn annotate_one(lgr: &Lgr, text: &str) -> usize {
    let label = Label::from_text(text);
    let v = lgr.judge_label(&label);
    let idx = lgr.index_of(&label);
    usize::from(v.eligible) + idx.map_or(0, |i| i.len())
}

fn bench(c: &mut Criterion) {
    // Prints "skipped: reference data not found" when it is absent.
    let Some(dir) = util::reference_dir() else { return };
    let mut g = c.benchmark_group("annotate");
    for (short, name) in LGRS {
        let path = dir.join("lgr").join(format!("{name}.xml"));
        let lgr = Lgr::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let labels = golden_labels(&dir, name);
        g.throughput(Throughput::Elements(labels.len() as u64));
        g.bench_function(short, |b| {
            b.iter(|| labels.iter().map(|l| annotate_one(&lgr, black_box(l))).sum::<usize>())
        });
    }
    g.finish();

    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    let path = dir.join("lgr").join(format!("{}.xml", LGRS[2].1));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    g.bench_function("common", |b| b.iter(|| Lgr::from_xml("common", black_box(&text)).is_ok()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
