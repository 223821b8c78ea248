//! The helpers of every test target (lgr, input, scan, cli, golden): the
//! reference data in ../shared and its golden files, reading labels with
//! the library, scanning them, and running the `lgrscan` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use lgrscan::input::{self, Config, Input, InputFormat, LabelSet};
use lgrscan::lgr::Lgr;
use lgrscan::scan::{self, Grouping, LgrSet, NoProgress, Relation, Report, Role, ScanConfig};

/// What the fuzz targets run (`fuzz/src/lib.rs`): `cli::fuzz_replay`
/// replays the saved reproducers through it, and the input tests compare
/// reads with its [`label_lines`](fuzz_checks::label_lines).
#[path = "../../fuzz/src/lib.rs"]
pub mod fuzz_checks;

#[allow(unused_imports)]
pub use fuzz_checks::{gzip, label_lines};

// ---- Reference data ----

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

/// The file `rel` of the reference directory, or `None` when it is missing
/// and not required.
///
/// # Panics
/// When `LGRSCAN_REQUIRE_REFERENCE=1` and the file is missing.
pub fn reference_file(rel: &str) -> Option<PathBuf> {
    let p = reference_dir()?.join(rel);
    if p.is_file() {
        return Some(p);
    }
    if required() {
        panic!("reference data not found: {} (LGRSCAN_REQUIRE_REFERENCE=1)", p.display());
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

/// The rows of a golden TSV file, its header left out.
pub fn tsv(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// The LGRs with golden results in `dir/golden` (each has a
/// `<name>.collisions.tsv`), sorted.
///
/// # Panics
/// When fewer than the 7 expected are found and the reference is required.
pub fn golden_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("golden"))
        .expect("golden dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name().to_string_lossy().strip_suffix(".collisions.tsv").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 7 || !required(), "expected the 7 golden LGRs, found {names:?}");
    names
}

/// Whether a DNS reader takes the corpus label `l` otherwise than the
/// reference does: the reference takes each label literally; a scan reads
/// DNS names, where a dot separates labels (`उ.प्र` is a two-label name),
/// ASCII upper case is folded (`Keep` is `keep`) and `xn--` labels are
/// decoded.
pub fn dns_differs(l: &str) -> bool {
    l.contains('.') || l.bytes().any(|b| b.is_ascii_uppercase()) || l.starts_with("xn--")
}

/// The golden corpus of `name` (column 1 of `golden/<name>.tsv`) as a scan
/// reads it: the labels for which [`dns_differs`] are left out (the
/// reference gives them no index label, so they are in no group).
pub fn golden_corpus(dir: &Path, name: &str) -> Vec<String> {
    let rows = tsv(&dir.join(format!("golden/{name}.tsv")));
    for r in rows.iter().filter(|r| dns_differs(&r[0])) {
        assert!(r.get(6).is_none_or(|i| i.is_empty()), "{name}: {} has an index label", r[0]);
    }
    rows.into_iter().map(|mut r| r.swap_remove(0)).filter(|l| !dns_differs(l)).collect()
}

/// The LGR of the golden results `name` (`lgr/<name>.xml`).
pub fn golden_lgr(dir: &Path, name: &str) -> Arc<Lgr> {
    Arc::new(Lgr::from_path(&dir.join(format!("lgr/{name}.xml"))).expect("LGR loads"))
}

// ---- Reading ----

/// The labels as a label list read by the library (one input named
/// `list`).
pub fn read_list(labels: &[String]) -> LabelSet {
    let mut data = labels.join("\n").into_bytes();
    data.push(b'\n');
    let config = Config::new().format(Some(InputFormat::List));
    input::read([Input::Bytes { name: "list".into(), data }], &config).expect("list reads")
}

/// Reads bytes with a config; checks the accounting adds up.
pub fn read_bytes(name: &str, data: &[u8], config: &Config) -> LabelSet {
    let set = input::read([Input::Bytes { name: name.into(), data: data.to_vec() }], config)
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

/// A fresh empty directory under the target directory (kept after the
/// run, to look at).
pub fn temp_dir(name: &str) -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = base.join(format!("lgrscan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// `n` random bytes from `rng` (the tests' one generator, `fastrand`,
/// seeded so that every run is the same).
pub fn random_bytes(rng: &mut fastrand::Rng, n: usize) -> Vec<u8> {
    std::iter::repeat_with(|| rng.u8(..)).take(n).collect()
}

// ---- Scanning ----

/// Scans `labels` with the one LGR `lgr`, grouped by `grouping`.
pub fn scan_with(lgr: &Arc<Lgr>, grouping: Grouping, labels: &LabelSet) -> Report {
    let set = LgrSet::new(vec![lgr.clone()], None).expect("set").with_grouping(grouping);
    scan::scan(labels, &set, &ScanConfig::default(), &NoProgress)
}

/// One member row of a report: holder, member, role, relation.
pub struct Member {
    pub group: u32,
    pub holder: String,
    pub member: String,
    pub role: Role,
    pub relation: Relation,
}

/// The member rows (collision rows other than the holder's) of `report`.
pub fn members(report: &Report, labels: &LabelSet) -> Vec<Member> {
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

// ---- The binary ----

/// The package root; commands run there, so `samples/zone.txt` and
/// `tests/data/...` are valid relative paths and appear as such in the
/// `source` column.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `lgrscan ARGS` in the package root.
#[cfg(feature = "cli")]
pub fn lgrscan(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_lgrscan"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run lgrscan")
}

/// Saves the index of `samples/labels.csv` in `dir` (as `labels.idx`);
/// returns its path.
pub fn sample_index(dir: &Path) -> String {
    index_of(dir, "samples/labels.csv", "labels.idx")
}

/// Writes the index of `input` to `dir/name` (`lgrscan index`, exit 0);
/// returns its path.
pub fn index_of(dir: &Path, input: &str, name: &str) -> String {
    let idx = dir.join(name).to_str().expect("UTF-8 path").to_string();
    let o = lgrscan(&["index", input, "-o", &idx]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    idx
}

/// Runs `lgrscan ARGS` in the package root with `input` on a pipe as its
/// standard input (also readable as `/dev/stdin`).
#[cfg(feature = "cli")]
pub fn lgrscan_piped(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lgrscan"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lgrscan");
    // A command that fails early closes its end: the error is in the output.
    let _ = child.stdin.take().expect("piped").write_all(input);
    child.wait_with_output().expect("run lgrscan")
}

/// The SHA-256 of `bytes` in lower-case hex, as reports and index headers
/// write it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Standard output as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

/// Standard error as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the exit code, showing both streams when it differs.
pub fn assert_exit(o: &std::process::Output, code: i32, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{what}: exit status\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(o)
    );
}

/// One row of the CSV output, by column name.
pub type Row = std::collections::BTreeMap<String, String>;

/// Parses the CSV output of `scan`.
pub fn rows(csv_text: &str) -> Vec<Row> {
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("CSV record");
            headers.iter().zip(rec.iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect()
        })
        .collect()
}

// ---- The summary `scan` prints ----

/// The counts of the summary `scan` prints on standard error.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub lines: u64,
    pub line_parts: Vec<u64>,
    pub records: u64,
    pub record_parts: Vec<u64>,
    pub labels: u64,
    pub per_lgr: Vec<u64>,
    pub invalid: u64,
    pub families: Vec<(u64, String)>,
    pub groups: u64,
    pub conflict_groups: u64,
    pub conflicts: u64,
    pub allocated: u64,
    /// Near members (verified grouping only; 0 otherwise).
    pub near: u64,
}

/// All the numbers in `s`, in order.
fn numbers(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect()
}

/// Parses the summary and checks that its parts add up: lines, records
/// (apex + registered + duplicates + deeper + outside), labels per LGR,
/// invalid labels per family.
///
/// # Panics
/// When a line is missing or a sum does not hold.
pub fn summary(stderr: &str) -> Summary {
    let mut s = Summary::default();
    let mut section = "";
    let mut seen = 0;
    for line in stderr.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("input: ") {
            // "N bytes, L lines (R records, B blank, C comments, D directives, K continuation, M malformed)"
            let n = numbers(rest);
            s.lines = n[1];
            s.line_parts = n[2..].to_vec();
            seen |= 1;
        } else if let Some(rest) = t.strip_prefix("records: ") {
            let n = numbers(rest);
            s.records = n[0];
            s.record_parts = n[1..].to_vec();
            seen |= 2;
        } else if let Some(rest) = t.strip_prefix("labels judged: ") {
            s.labels = numbers(rest)[0];
            section = "lgr";
            seen |= 4;
        } else if t.starts_with("scripts: ") {
            section = "";
        } else if let Some(rest) = t.strip_prefix("invalid: ") {
            s.invalid = numbers(rest)[0];
            section = "family";
            seen |= 8;
        } else if let Some(rest) = t.strip_prefix("variant LGR: ") {
            let rest = rest.split_once("; ").expect("variant LGR name").1;
            let n = numbers(rest);
            (s.groups, s.conflict_groups, s.conflicts, s.allocated) = (n[0], n[1], n[2], n[3]);
            s.near = n.get(4).copied().unwrap_or(0);
            section = "";
            seen |= 16;
        } else if section == "lgr" {
            let n = t.rsplit_once(": ").expect("LGR count line").1;
            s.per_lgr.push(n.parse().expect("LGR count"));
        } else if section == "family" {
            let (n, fam) = t.split_once("  ").expect("family line");
            s.families.push((n.trim().parse().expect("family count"), fam.trim().to_string()));
        }
    }
    assert_eq!(seen, 31, "summary lines missing:\n{stderr}");
    let sum = |v: &[u64]| v.iter().sum::<u64>();
    // record lines + blank + comments + directives + continuation + malformed
    assert_eq!(sum(&s.line_parts), s.lines, "line parts do not add up:\n{stderr}");
    assert_eq!(s.record_parts.len(), 5, "{stderr}");
    assert_eq!(sum(&s.record_parts), s.records, "record parts do not add up:\n{stderr}");
    assert_eq!(s.record_parts[1], s.labels, "registered labels = labels judged:\n{stderr}");
    assert_eq!(sum(&s.per_lgr), s.labels, "labels per LGR do not add up:\n{stderr}");
    assert_eq!(*s.per_lgr.last().unwrap(), s.invalid, "(none: invalid) = invalid:\n{stderr}");
    let fam: u64 = s.families.iter().map(|f| f.0).sum();
    assert_eq!(fam, s.invalid, "invalid families do not add up:\n{stderr}");
    assert!(s.conflict_groups <= s.groups, "{stderr}");
    s
}

/// Checks the summary against the CSV findings: invalid rows, conflict
/// groups, conflicting members (rows that are neither holder nor
/// allocated).
pub fn check_against_rows(s: &Summary, rows: &[Row], stderr: &str) {
    let invalid = rows.iter().filter(|r| r["kind"] == "invalid").count() as u64;
    assert_eq!(invalid, s.invalid, "invalid rows vs summary:\n{stderr}");
    let mut groups: Vec<&str> =
        rows.iter().filter(|r| r["kind"] == "collision").map(|r| r["group"].as_str()).collect();
    groups.dedup();
    assert_eq!(groups.len() as u64, s.conflict_groups, "groups vs summary:\n{stderr}");
    let conflicts = rows
        .iter()
        .filter(|r| r["kind"] == "collision")
        .filter(|r| !["holder", "allocated", "near"].contains(&r["role"].as_str()))
        .count() as u64;
    assert_eq!(conflicts, s.conflicts, "conflicting rows vs summary:\n{stderr}");
    let near = rows.iter().filter(|r| r["role"] == "near").count() as u64;
    assert_eq!(near, s.near, "near rows vs summary:\n{stderr}");
    let holders = rows.iter().filter(|r| r["role"] == "holder").count() as u64;
    assert_eq!(holders, s.conflict_groups, "one holder per group:\n{stderr}");
}
