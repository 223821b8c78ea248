//! Shared test helpers: finding the reference data in ../shared.
#![allow(dead_code)]

use std::path::PathBuf;

/// The reference directory (`$LGRSCAN_REFERENCE_DIR`, else `../shared` next
/// to the checkout), or `None` when it is absent and not required.
///
/// # Panics
/// When `LGRSCAN_REQUIRE_REFERENCE=1` and the directory is missing.
pub fn reference_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("LGRSCAN_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("shared"));
    if dir.join("lgr").is_dir() && dir.join("golden").is_dir() {
        return Some(dir);
    }
    if required() {
        panic!("reference data not found at {} and LGRSCAN_REQUIRE_REFERENCE=1", dir.display());
    }
    println!("skipped: reference data not found");
    None
}

/// True when `LGRSCAN_REQUIRE_REFERENCE=1`.
pub fn required() -> bool {
    std::env::var("LGRSCAN_REQUIRE_REFERENCE").is_ok_and(|v| v == "1")
}

/// Parses `0915 093C` into code points.
pub fn parse_hex(s: &str) -> Vec<u32> {
    s.split_ascii_whitespace()
        .map(|h| u32::from_str_radix(h, 16).expect("hex code point"))
        .collect()
}

/// The labels as a label list read by the library (one input named
/// `list`).
pub fn read_list(labels: &[String]) -> lgrscan::input::LabelSet {
    use lgrscan::input::{self, Input, InputFormat};
    let mut data = labels.join("\n").into_bytes();
    data.push(b'\n');
    let config = input::Config::new().format(Some(InputFormat::List));
    input::read([Input::Bytes { name: "list".into(), data }], &config).expect("list reads")
}

/// The rows of a golden TSV file, its header left out.
pub fn tsv(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}
