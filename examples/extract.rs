//! Extracts the registered labels of zone files and reports the speed.
//! Uses only the public API; `benches/extract.sh` runs it.
//!
//! Usage: `extract [--ns] [--copy] FILE...` (memory-mapped; `--ns` also
//! collects NS target sets; `--copy` copies label text instead of
//! borrowing it from the map). Threads: rayon's global pool
//! (`RAYON_NUM_THREADS`).

use std::time::Instant;

use lgrscan::input::{Config, Input, LabelText, MmapChoice, NsTargets, read};

fn main() {
    let mut ns = NsTargets::Skip;
    let mut text = LabelText::Borrow;
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--ns" {
            ns = NsTargets::Collect;
        } else if a == "--copy" {
            text = LabelText::Copy;
        } else {
            files.push(Input::from_arg(&a));
        }
    }
    // SAFETY: the benchmark files are not modified while mapped.
    let config = Config::new().mmap(unsafe { MmapChoice::auto() }).ns_targets(ns).label_text(text);
    let t = Instant::now();
    let set = match read(files, &config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("extract: {e}");
            std::process::exit(2);
        }
    };
    let secs = t.elapsed().as_secs_f64();
    let acc = set.accounting();
    let idn = if std::env::var_os("EXTRACT_STATS").is_some() {
        set.iter().filter(|l| l.is_idn()).count().to_string()
    } else {
        "-".to_string()
    };
    println!(
        "labels={} idn={} records={} bytes={} seconds={secs:.3} gb_per_s={:.3}",
        set.len(),
        idn,
        acc.records,
        acc.bytes,
        acc.bytes as f64 / secs / 1e9
    );
    if let Err(e) = acc.check() {
        eprintln!("extract: accounting does not add up: {e}");
        std::process::exit(1);
    }
}
