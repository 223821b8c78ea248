//! Hostile LGRs and labels (issue #28 §3): each is refused with a clear
//! error, or answered, within a few seconds of CPU and a bounded address
//! space. The command runs under `ulimit -t` and `ulimit -v`, so the old
//! failure modes (minutes of work, gigabytes, a stack overflow) show up
//! as a killed or aborted process instead of a stuck test run.

mod cli_util;

use cli_util::{root, stderr};
use std::path::PathBuf;
use std::process::{Command, Output};

const NS: &str = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">"#;

/// CPU seconds a command may use; the debug build does each case in well
/// under one.
const CPU_SECONDS: u32 = 10;

/// Address space a command may use, in KiB (2 GiB).
const ADDRESS_SPACE_KIB: u32 = 2 << 20;

/// Runs `lgrscan ARGS` under the CPU and address-space limits.
/// `LGRSCAN_BOUNDS_BIN` names another binary to run instead (to show that
/// an older build fails these tests).
fn bounded(args: &[&str]) -> Output {
    let bin = std::env::var_os("LGRSCAN_BOUNDS_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lgrscan")), PathBuf::from);
    let script = format!("ulimit -t {CPU_SECONDS} -v {ADDRESS_SPACE_KIB}; exec \"$0\" \"$@\"");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin)
        .args(args)
        .current_dir(root())
        .output()
        .expect("run lgrscan")
}

/// Asserts exit status 2 and an error containing `want`.
fn assert_refused(o: &Output, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit status (killed: None)\nstderr:\n{err}");
    assert!(err.contains(want), "expected {want:?} in:\n{err}");
}

/// A temporary file, removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes `text` to a temporary file named after `name` and this process.
fn file(name: &str, text: &str) -> (TempFile, PathBuf) {
    let path = std::env::temp_dir().join(format!("lgrscan-bounds-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("write");
    (TempFile(path.clone()), path)
}

fn lgr_info(path: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec!["lgr", "info", path.to_str().expect("UTF-8 path")];
    args.extend_from_slice(extra);
    bounded(&args)
}

// ------------------------------------------------------------------ XML

#[test]
fn xml_nested_20000_deep_is_refused() {
    let d = 20_000;
    let text = format!(
        "{NS}<data><char cp=\"0061\"/></data><rules><rule name=\"x\">{}<char cp=\"0061\"/>{}</rule></rules></lgr>",
        "<rule>".repeat(d),
        "</rule>".repeat(d)
    );
    let (_d, path) = file("deep.xml", &text);
    assert_refused(&lgr_info(&path, &[]), "elements nested more than 64 deep");
}

#[test]
fn xml_100k_attributes_are_refused_at_once() {
    let attrs: Vec<String> = (0..100_000).map(|i| format!("a{i}=\"x\"")).collect();
    let text = format!("{NS}<data><char cp=\"0061\" {}/></data></lgr>", attrs.join(" "));
    let (_d, path) = file("attrs.xml", &text);
    assert_refused(&lgr_info(&path, &[]), "an element with more than 64 attributes");
}

#[test]
fn lgr_file_size_is_capped() {
    assert_refused(
        &bounded(&["lgr", "info", "/dev/zero"]),
        "larger than 64 MiB, the most an LGR file may hold",
    );
}
