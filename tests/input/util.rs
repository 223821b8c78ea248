//! Helpers for the input tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use lgrscan::input::{Config, Input, LabelSet, read};

/// A temporary directory removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("lgrscan-input-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, data).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Reads bytes with a config; checks the accounting adds up.
pub fn read_bytes(name: &str, data: &[u8], config: &Config) -> LabelSet {
    let set = read([Input::Bytes { name: name.into(), data: data.to_vec() }], config)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    set.accounting().check().unwrap_or_else(|e| panic!("{name}: {e}"));
    set
}

/// A-labels in order.
pub fn alabels(set: &LabelSet) -> Vec<String> {
    set.iter().map(|l| l.alabel().to_string()).collect()
}

/// U-labels in order.
pub fn ulabels(set: &LabelSet) -> Vec<String> {
    set.iter().map(|l| l.ulabel().to_string()).collect()
}

/// Findings in order (None as "").
pub fn findings(set: &LabelSet) -> Vec<String> {
    set.iter().map(|l| l.finding().map(|f| f.to_string()).unwrap_or_default()).collect()
}

/// A summary that two ways of reading the same content must agree on.
pub fn summary(set: &LabelSet) -> Vec<String> {
    set.iter()
        .map(|l| {
            format!(
                "{} {} {} {:?} line={} off={} ns={:?} finding={:?}",
                l.original_text(),
                l.alabel(),
                l.ulabel(),
                l.csv(),
                l.line(),
                l.offset(),
                l.ns_targets().collect::<Vec<_>>(),
                l.finding().map(|f| f.to_string())
            )
        })
        .collect()
}

/// Where the reference data (`../shared` by default) is, or `None` when
/// it is missing and not required.
pub fn reference_file(rel: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("LGRSCAN_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let p = dir.join(rel);
    if p.is_file() {
        return Some(p);
    }
    if std::env::var("LGRSCAN_REQUIRE_REFERENCE").is_ok_and(|v| v == "1") {
        panic!("reference data not found: {} (LGRSCAN_REQUIRE_REFERENCE=1)", p.display());
    }
    println!("skipped: reference data not found");
    None
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}
