//! The hostile corpus: every case under `tests/hostile/<case>/` is run once.
//!
//! A case is a directory holding:
//! - `cmd`: one line, the arguments of `lgrscan` (split on white space),
//!   run in a scratch copy of the case directory;
//! - `gen` (optional): a `sh` script run first in that copy, to make inputs
//!   too large or too binary to commit (damaged gzip streams, long lines);
//! - `expect`: the exit status on the first line; each further line is the
//!   start of a line that standard error must contain (leading white space
//!   of the stderr line ignored);
//! - any input files the command names.
//!
//! Every case runs even when one fails; the failures are listed together.
//! Directories without `cmd` (the fuzz reproducers of `fuzz/` and
//! `fuzz-open/`, see tests/cli/fuzz_replay.rs) are not cases.

use std::path::Path;
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create scratch dir");
    for e in std::fs::read_dir(from).expect("read case dir") {
        let e = e.expect("dir entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy case file");
    }
}

/// Runs one case; `Err` says how it failed.
fn run_case(case: &Path, scratch: &Path) -> Result<(), String> {
    copy_dir(case, scratch);
    if scratch.join("gen").exists() {
        let st = Command::new("sh")
            .arg("gen")
            .current_dir(scratch)
            .status()
            .map_err(|e| format!("gen: {e}"))?;
        if !st.success() {
            return Err(format!("gen failed: {st}"));
        }
    }
    let cmd = std::fs::read_to_string(scratch.join("cmd")).map_err(|e| format!("cmd: {e}"))?;
    let expect =
        std::fs::read_to_string(scratch.join("expect")).map_err(|e| format!("expect: {e}"))?;
    let mut lines = expect.lines();
    let code: i32 = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .ok_or("expect: first line is not an exit status")?;
    let prefixes: Vec<&str> = lines.map(str::trim_end).filter(|p| !p.is_empty()).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_lgrscan"))
        .args(cmd.split_whitespace())
        .current_dir(scratch)
        .output()
        .map_err(|e| format!("run: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let shown = || {
        let mut s: String = stderr.lines().take(8).collect::<Vec<_>>().join("\n    ");
        s.truncate(2000);
        s
    };
    if out.status.code() != Some(code) {
        return Err(format!(
            "exit {:?}, expected {code}; stderr:\n    {}",
            out.status.code(),
            shown()
        ));
    }
    for p in prefixes {
        if !stderr.lines().any(|l| l.trim_start().starts_with(p)) {
            return Err(format!("no stderr line starts with {p:?}; stderr:\n    {}", shown()));
        }
    }
    Ok(())
}

#[test]
fn hostile_cases() {
    let dir = crate::util::root().join("tests/hostile");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/hostile")
        .map(|e| e.expect("entry").path())
        // A case has a `cmd`; `fuzz/` and `fuzz-open/` hold the fuzz
        // targets' reproducers, replayed by tests/cli/fuzz_replay.rs.
        .filter(|p| p.join("cmd").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    let only = std::env::var("HOSTILE_CASE").ok();
    let scratch_base = crate::util::temp_dir("hostile");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().expect("name").to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        if let Err(e) = run_case(case, &scratch_base.join(&name)) {
            failures.push(format!("{name}: {e}"));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch_base);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
