//! Hostile LGRs and labels (issue #28 §3): each is refused with a clear
//! error, or answered, within a few seconds of CPU and a bounded address
//! space. The command runs under `ulimit -t` and `ulimit -v`, so the old
//! failure modes (minutes of work, gigabytes, a stack overflow) show up
//! as a killed or aborted process instead of a stuck test run.

use crate::util::{root, stderr};
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

/// Files a command reads whole (candidates, `annotate --literal`) are
/// capped: an endless one is refused, not read until memory runs out.
#[test]
fn whole_file_reads_are_capped() {
    let want = "/dev/zero: larger than 256 MiB, the most this command reads of a file";
    assert_refused(&bounded(&["check", "--against", "samples/labels.csv", "/dev/zero"]), want);
    assert_refused(
        &bounded(&["annotate", "--literal", "--lgr", "builtin:ascii", "/dev/zero"]),
        want,
    );
}

// ---------------------------------------------------------------- rules

/// An LGR whose rules `r0`…`r{levels-1}` each refer to the next twice, so
/// that `r0` expands to about 2^levels elements; `extra` is spliced into
/// `<rules>`.
fn doubling_rules(levels: usize, extra: &str) -> String {
    let mut rules: Vec<String> = (0..levels)
        .map(|i| {
            format!(
                "<rule name=\"r{i}\"><rule by-ref=\"r{j}\"/><rule by-ref=\"r{j}\"/></rule>",
                j = i + 1
            )
        })
        .collect();
    rules.push(format!("<rule name=\"r{levels}\"><char cp=\"0061\"/></rule>"));
    // Each definition before its references (RFC 7940 §6.3.4).
    rules.reverse();
    format!("{NS}<data><char cp=\"0061\"/></data><rules>{}{extra}</rules></lgr>", rules.concat())
}

#[test]
fn rule_expanding_to_2_to_the_30_is_refused_even_unused() {
    for extra in ["", "<action disp=\"invalid\" match=\"r0\"/>"] {
        let (_d, path) = file("double.xml", &doubling_rules(30, extra));
        assert_refused(
            &lgr_info(&path, &[]),
            "<rule>: rule 'r18': expands to 12286 elements with its rule references inlined, more than 10000",
        );
    }
}

#[test]
fn chain_of_20000_rule_references_is_refused() {
    let n = 20_000;
    // Each definition before its references (RFC 7940 §6.3.4).
    let rules: String = (0..n)
        .rev()
        .map(|i| format!("<rule name=\"c{i}\"><rule by-ref=\"c{}\"/></rule>", i + 1))
        .collect();
    let text = format!(
        "{NS}<data><char cp=\"0061\"/></data><rules><rule name=\"c{n}\"><char cp=\"0061\"/></rule>{rules}<action disp=\"invalid\" match=\"c0\"/></rules></lgr>"
    );
    let (_d, path) = file("chain.xml", &text);
    assert_refused(
        &lgr_info(&path, &[]),
        "nests 129 deep with its rule references inlined, more than 128",
    );
}

#[test]
fn chain_of_20000_class_references_loads() {
    let n = 20_000;
    let classes: String = (0..n)
        .rev()
        .map(|i| format!("<union name=\"k{i}\"><class by-ref=\"k{}\"/></union>", i + 1))
        .collect();
    let text = format!(
        "{NS}<data><char cp=\"0061\"/></data><rules><class name=\"k{n}\">0061</class>{classes}</rules></lgr>"
    );
    let (_d, path) = file("classes.xml", &text);
    let o = lgr_info(&path, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(crate::util::stdout(&o).contains("classes: 20001"), "{}", crate::util::stdout(&o));
}

#[test]
fn unused_rule_automaton_is_not_built() {
    // Its automaton is over the size limit (see lgr_errors.rs,
    // rule_too_large_is_refused_quickly), but no action or context uses
    // it: the LGR loads.
    let text = format!(
        "{NS}<data><char cp=\"0061\"/></data><rules><rule name=\"r\"><class property=\"gc:L\" count=\"9999\"/></rule></rules></lgr>"
    );
    let (_d, path) = file("unused.xml", &text);
    let o = lgr_info(&path, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// ---------------------------------------------------------------- explain

#[test]
fn explain_of_a_30000_code_point_label_is_refused() {
    let label = "a".repeat(30_000);
    assert_refused(
        &bounded(&["explain", "--lgr", "builtin:common", &label]),
        "the label is 30000 octets as an A-label; a DNS label holds at most 63 octets",
    );
}

#[test]
fn explain_does_not_search_completions_that_do_not_exist() {
    // `é` is outside the common LGR's repertoire; every digit has variants.
    let o = bounded(&["explain", "--lgr", "builtin:common", "12345678901234567890é"]);
    assert_eq!(o.status.code(), Some(0), "exit status (killed: None)\n{}", stderr(&o));
    assert!(
        crate::util::stdout(&o).contains("variant labels (builtin:common): 0"),
        "{}",
        crate::util::stdout(&o)
    );
}

// ---------------------------------------------------------------- lgr info

#[test]
fn lgr_info_counts_10_to_the_8_warnings_without_building_them() {
    // 70 KB: one code point with 10,000 variants, each of which lacks the
    // 9,999 others (RFC 8228 transitivity).
    let vars: Vec<String> = (0..10_000).map(|i| format!("U+{:04X}", 0x4E00 + i)).collect();
    let (_d, path) = file("star.txt", &format!("U+0061|U+0061|{}\n", vars.join(",")));
    let o = lgr_info(&path, &["--max-warnings", "2"]);
    assert_eq!(o.status.code(), Some(0), "exit status (killed: None)\n{}", stderr(&o));
    let out = crate::util::stdout(&o);
    assert!(out.contains("RFC 8228 checks: 99990000 warning(s)"), "{out}");
    assert!(out.contains("... 99989998 more warning(s) (--max-warnings)"), "{out}");
    assert_eq!(out.matches("\nwarning: ").count(), 2, "{out}");
}
