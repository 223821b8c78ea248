//! Where reports go (issue #28 §2): `--output` never clobbers a device, a
//! FIFO, a symbolic link, a file's mode or its other hard links, never
//! leaves a partial file (errors, a full disk, SIGTERM), and follows no
//! link planted at its temporary name, never replaces a file the run
//! reads; a closed pipe ends every command
//! quietly with its documented status; text output escapes control
//! characters from the data.
//!
//! `LGRSCAN_TEST_BIN` runs these tests against another build of lgrscan
//! (to see which of them an older build fails).
#![cfg(all(feature = "cli", unix))]

use crate::util::{root, stderr, temp_dir};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const ZONE: &str = "samples/zone.txt";

fn bin() -> PathBuf {
    std::env::var_os("LGRSCAN_TEST_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lgrscan")), PathBuf::from)
}

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args).current_dir(root());
    c
}

fn run(args: &[&str]) -> Output {
    command(args).output().expect("run lgrscan")
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// What `scan --format csv ZONE` prints on standard output.
fn zone_csv() -> Vec<u8> {
    let o = run(&["scan", "-q", "--format", "csv", ZONE]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    o.stdout
}

/// A character device behaving as /dev/MINOR_NAME: a node made in `dir`
/// when the tests run as root (so that a build that replaces its output
/// never touches the real /dev), else the real one (which such a build
/// cannot replace without root either).
fn char_device(dir: &Path, name: &str, minor: &str) -> PathBuf {
    let node = dir.join(name);
    let made = Command::new("mknod")
        .args([path_str(&node), "c", "1", minor])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    // A file system mounted `nodev` refuses to open it.
    if made && fs::OpenOptions::new().write(true).open(&node).is_ok() {
        node
    } else {
        let _ = fs::remove_file(&node);
        PathBuf::from(format!("/dev/{name}"))
    }
}

fn is_char_device(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn devices_are_written_in_place() {
    let dir = temp_dir("out-devices");
    let null = char_device(&dir, "null", "3");
    let o = run(&["scan", "-q", "-o", path_str(&null), ZONE]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(is_char_device(&null), "{} is still a device", null.display());

    // A full device: exit 2, the device named once, and still a device.
    let full = char_device(&dir, "full", "7");
    let o = run(&["scan", "-q", "--format", "csv", "-o", path_str(&full), ZONE]);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&full.display().to_string()), "{err}");
    assert_eq!(err.matches("No space left on device").count(), 1, "{err}");
    assert!(!err.contains(".tmp"), "{err}");
    assert!(is_char_device(&full));
    assert_eq!(entries(&dir).iter().filter(|e| e.ends_with(".tmp")).count(), 0);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_fifo_is_written_in_place() {
    let dir = temp_dir("out-fifo");
    let fifo = dir.join("report.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let got = dir.join("got.csv");
    let mut reader = Command::new("sh")
        .args(["-c", "exec cat \"$0\" > \"$1\"", path_str(&fifo), path_str(&got)])
        .spawn()
        .expect("cat");
    let o = run(&["scan", "-q", "--format", "csv", "-o", path_str(&fifo), ZONE]);
    // A build that replaced the FIFO never opened it: release the reader.
    let deadline = Instant::now() + Duration::from_secs(10);
    while reader.try_wait().expect("wait").is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let reader_done = reader.try_wait().expect("wait").is_some();
    if !reader_done {
        let _ = reader.kill();
        let _ = reader.wait();
    }
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(reader_done, "the reader of the FIFO got no end of file");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
    assert_eq!(fs::read(&got).unwrap(), zone_csv());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_symlink_is_followed_and_modes_kept() {
    let dir = temp_dir("out-symlink");
    let real = dir.join("real.csv");
    fs::write(&real, "old\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let o = run(&["scan", "-q", "--format", "csv", "-o", path_str(&link), ZONE]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
    assert_eq!(fs::read(&real).unwrap(), zone_csv());
    assert_eq!(fs::metadata(&real).unwrap().mode() & 0o7777, 0o600, "mode kept");
    assert_eq!(entries(&dir), ["link.csv", "real.csv"]);

    // annotate: the same, and a new file gets the usual mode (umask).
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let o = run(&["annotate", "--lgr", "builtin:ascii", "-o", path_str(&link), ZONE]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(fs::read_to_string(&real).unwrap().starts_with("source\tline\tinput\t"));
    assert_eq!(fs::metadata(&real).unwrap().mode() & 0o7777, 0o640);
    let fresh = dir.join("fresh.csv");
    let o = run(&["annotate", "--lgr", "builtin:ascii", "-o", path_str(&fresh), ZONE]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let umask_applied = fs::metadata(&fresh).unwrap().mode() & 0o7777;
    assert_eq!(umask_applied & 0o7000, 0);
    assert_ne!(umask_applied & 0o600, 0, "readable and writable by the owner");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn hard_links_all_see_the_report() {
    let dir = temp_dir("out-links");
    let a = dir.join("a.csv");
    let b = dir.join("b.csv");
    fs::write(&a, "old\n").unwrap();
    fs::hard_link(&a, &b).unwrap();
    let o = run(&["scan", "-q", "--format", "csv", "-o", path_str(&a), ZONE]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert_eq!(fs::read(&b).unwrap(), zone_csv());
    assert_eq!(fs::metadata(&a).unwrap().nlink(), 2);
    assert_eq!(entries(&dir), ["a.csv", "b.csv"]);
    let _ = fs::remove_dir_all(&dir);
}

/// A symbolic link planted where an older build put its temporary file
/// (`.NAME.PID.tmp`) redirected the report to the link's target.
#[test]
fn a_planted_symlink_does_not_redirect_the_report() {
    let dir = temp_dir("out-planted");
    let target = dir.join("findings.csv");
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious\n").unwrap();
    let mut child = command(&["scan", "-q", "--format", "csv", "-o", path_str(&target), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let planted = dir.join(format!(".findings.csv.{}.tmp", child.id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"good\nbad_label\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    let m = fs::symlink_metadata(&target).unwrap();
    assert!(m.file_type().is_file(), "the report is a regular file");
    assert!(fs::read_to_string(&target).unwrap().contains("bad_label"));
    let _ = fs::remove_dir_all(&dir);
}

/// SIGTERM while the input is read: the temporary file is removed, the old
/// report kept, and the process ends by the signal.
#[test]
fn a_signal_removes_the_temporary_file() {
    for cmd in [&["scan", "-q"][..], &["annotate", "--lgr", "builtin:ascii"][..]] {
        let dir = temp_dir(&format!("out-signal-{}", cmd[0]));
        let target = dir.join("report.csv");
        fs::write(&target, "old\n").unwrap();
        let mut args = cmd.to_vec();
        args.extend(["-o", path_str(&target), "-"]);
        let mut child = command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        // The temporary file appears once the output is open.
        let deadline = Instant::now() + Duration::from_secs(20);
        while entries(&dir).len() < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let appeared = entries(&dir).len() == 2;
        let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
        // Standard input stays open until the process is gone: the run
        // cannot finish on its own (or, in a build without a handler, is
        // released after a while).
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(child.stdin.take());
        let status = child.wait().unwrap();
        assert!(appeared, "{cmd:?}: the output is opened before the input is read");
        assert_eq!(status.signal(), Some(15), "{cmd:?}: ended by SIGTERM ({status:?})");
        assert_eq!(entries(&dir), ["report.csv"], "{cmd:?}");
        assert_eq!(fs::read_to_string(&target).unwrap(), "old\n", "{cmd:?}");
        let _ = fs::remove_dir_all(&dir);
    }
}

/// A signal that comes once the run has put its report in place is let
/// go: the run ends on its own, with its own status, never by the signal
/// after replacing the file (which would tell a script the old report was
/// kept). Here the report is in place and `--meta`, a FIFO, blocks on a
/// full pipe (600 inputs: over 64 KiB of JSON) when SIGTERM comes; once
/// the FIFO is read, the run exits 0. A second signal ends it anyway.
#[test]
fn a_signal_after_the_report_is_in_place_is_let_go() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    for second_signal in [false, true] {
        let dir = temp_dir(&format!("out-finishing-{second_signal}"));
        let mut args = vec!["scan".to_string(), "-q".into()];
        for i in 0..600 {
            let p = dir.join(format!("in{i}.txt"));
            fs::write(&p, format!("a{i}.example.\n")).unwrap();
            args.push(p.to_string_lossy().into_owned());
        }
        let (report, meta) = (dir.join("report.csv"), dir.join("meta.fifo"));
        fs::write(&report, "old\n").unwrap();
        let c = std::ffi::CString::new(meta.to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo touches nothing else.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Opened for reading first (without waiting for a writer), so that
        // lgrscan's open of it for writing does not wait.
        let mut fifo =
            fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&meta).unwrap();
        args.extend([
            "-o".into(),
            path_str(&report).into(),
            "--meta".into(),
            path_str(&meta).into(),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = command(&args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while fs::read_to_string(&report).unwrap() == "old\n" && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let pid = child.id().to_string();
        let kill = || Command::new("kill").args(["-TERM", &pid]).status();
        let _ = kill();
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().unwrap().is_none(),
            "the signal ended a run whose report was in place"
        );
        if second_signal {
            let _ = kill();
            assert_eq!(child.wait().unwrap().signal(), Some(15), "ended by the second SIGTERM");
        } else {
            let mut text = Vec::new();
            while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
                let mut buf = [0u8; 65536];
                match fifo.read(&mut buf) {
                    Ok(n) => text.extend_from_slice(&buf[..n]),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            assert_eq!(child.wait().unwrap().code(), Some(0), "the run's own status");
        }
        let text = fs::read_to_string(&report).unwrap();
        assert!(text.starts_with("kind,"), "the whole new report: {text:.80}");
        let _ = fs::remove_dir_all(&dir);
    }
}

/// A write that fails midway (here: past a file size limit, as a full
/// disk would) leaves the old report as it was and no temporary file.
#[test]
fn a_failed_write_keeps_the_old_report() {
    let dir = temp_dir("out-fsize");
    let target = dir.join("report.tsv");
    let labels = dir.join("labels.txt");
    // Invalid labels: scan has a report to write, longer than the limit.
    let list: String = (0..2000).map(|i| format!("bad_{i}\n")).collect();
    fs::write(&labels, list).unwrap();
    for cmd in [&["scan", "-q", "--format", "csv"][..], &["annotate", "--lgr", "builtin:ascii"][..]]
    {
        fs::write(&target, "old\n").unwrap();
        let mut args = cmd.to_vec();
        args.extend(["-o", path_str(&target), "--input-format", "list", path_str(&labels)]);
        let mut c = command(&args);
        // SAFETY: between fork and exec only async-signal-safe calls
        // (signal, setrlimit) are made.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let limit = libc::rlimit { rlim_cur: 4096, rlim_max: 4096 };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let o = c.output().unwrap();
        assert_eq!(code(&o), Some(2), "{cmd:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&target.display().to_string()), "{cmd:?}: {err}");
        assert_eq!(fs::read_to_string(&target).unwrap(), "old\n", "{cmd:?}");
        assert_eq!(entries(&dir), ["labels.txt", "report.tsv"], "{cmd:?}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Runs lgrscan with its standard output a pipe whose reader has already
/// gone: every write fails with EPIPE.
/// No command writes its output over a file it reads (an input, a
/// candidate file, an index, an LGR, a baseline), under any name that
/// reaches it, nor `scan`'s two outputs over each other: each is exit 2
/// naming both, with every file as it was and nothing created.
#[test]
fn outputs_never_replace_what_the_run_reads() {
    let dir = temp_dir("spare");
    let zone = dir.join("zone.txt");
    fs::copy(root().join(ZONE), &zone).unwrap();
    let lgr = dir.join("khmer.xml");
    fs::copy(root().join("src/builtin/khmer.xml"), &lgr).unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink("zone.txt", &link).unwrap();
    let hard = dir.join("hard.txt");
    fs::hard_link(&zone, &hard).unwrap();
    let (z, l, h, k) = (path_str(&zone), path_str(&link), path_str(&hard), path_str(&lgr));
    let report = dir.join("report.jsonl");
    let o = run(&["scan", "-q", "--format", "jsonl", "-o", path_str(&report), z]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    let idx = dir.join("zone.idx");
    let o = run(&["index", z, "-o", path_str(&idx)]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let (r, i) = (path_str(&report), path_str(&idx));
    let meta = dir.join("meta.json");
    let before: Vec<(String, Vec<u8>)> =
        entries(&dir).into_iter().map(|e| (e.clone(), fs::read(dir.join(&e)).unwrap())).collect();
    let cases: [(&str, &str, Vec<&str>); 16] = [
        ("scan input", z, vec!["scan", "-q", z, "-o", z]),
        ("scan input by a symbolic link", z, vec!["scan", "-q", z, "-o", l]),
        ("scan input by a hard link", h, vec!["scan", "-q", h, "-o", z]),
        ("scan LGR", k, vec!["scan", "-q", "--lgr", k, z, "-o", k]),
        ("scan baseline", r, vec!["scan", "-q", "--baseline", r, z, "-o", r]),
        ("scan meta over output", "meta", vec!["scan", "-q", z, "-o", r, "--meta", r]),
        ("scan both to standard output", "meta", vec!["scan", "-q", z, "-o", "-", "--meta", "-"]),
        (
            "scan both to /dev/stdout",
            "meta",
            vec!["scan", "-q", z, "-o", "/dev/stdout", "--meta", "/dev/stdout"],
        ),
        (
            "scan both to descriptor 1",
            "meta",
            vec!["scan", "-q", z, "-o", "-", "--meta", "/dev/fd/1"],
        ),
        ("annotate", z, vec!["annotate", "--lgr", "builtin:khmer", z, "-o", z]),
        ("diff", r, vec!["diff", r, r, "-o", r]),
        ("report", r, vec!["report", r, r, "-o", r]),
        ("index", z, vec!["index", z, "-o", l]),
        ("check index", i, vec!["check", "--against", i, "--label", "a", "-o", i]),
        ("check input", z, vec!["check", "--against", z, "--label", "a", "-o", z]),
        ("check candidates", z, vec!["check", "--against", i, z, "-o", z]),
    ];
    for (what, named, args) in cases {
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(code(&o), Some(2), "{what}: {err}");
        assert!(err.contains("refusing to write"), "{what}: {err}");
        if named != "meta" {
            assert!(err.contains(&format!("same file as {named}")), "{what}: {err}");
        }
        for (e, bytes) in &before {
            assert_eq!(&fs::read(dir.join(e)).unwrap(), bytes, "{what}: {e} changed");
        }
        assert_eq!(entries(&dir).len(), before.len(), "{what}: {:?}", entries(&dir));
        assert!(!meta.exists());
    }
    // Another file is written.
    let o = run(&["scan", "-q", z, "-o", path_str(&dir.join("other.csv"))]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
}

/// `check` opens its `-o` before it reads a candidate: a path that
/// cannot be written is an error at once, though the candidates come from
/// standard input that never ends (or a FIFO with no writer).
#[test]
fn check_refuses_a_bad_output_before_reading_candidates() {
    let mut child = command(&["check", "--against", ZONE, "-", "-o", "no-such-dir/out.csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let waited = child.try_wait().unwrap().is_some();
    drop(child.stdin.take());
    let o = child.wait_with_output().unwrap();
    assert!(waited, "check read its candidates before opening its output");
    assert_eq!(code(&o), Some(2));
    assert!(stderr(&o).contains("no-such-dir/out.csv"), "{}", stderr(&o));
}

/// A page of HTML is refused on a terminal, `-o -`, `-o /dev/stdout`,
/// `-o /dev/fd/1` (`/dev/fd/01`, which the report writer reads as fd 1
/// though no such file exists) and `-o /dev/tty` included (`script` gives the run a
/// terminal); `-o /dev/null`, a character device too, is written.
#[test]
fn html_is_refused_on_a_terminal_whatever_the_spelling() {
    let bin = bin();
    let cmd = format!("{} scan -q --format html -o /dev/null {ZONE}; echo rc=$?", bin.display());
    let o = Command::new("script").args(["-qec", &cmd, "/dev/null"]).current_dir(root()).output();
    let text = String::from_utf8_lossy(&o.expect("`script` (util-linux)").stdout).to_string();
    assert!(text.contains("rc=1"), "/dev/null: {text}");
    for out in ["", "-o -", "-o /dev/stdout", "-o /dev/fd/1", "-o /dev/fd/01", "-o /dev/tty"] {
        let cmd = format!("{} scan -q --format html {out} {ZONE}; echo rc=$?", bin.display());
        let o =
            Command::new("script").args(["-qec", &cmd, "/dev/null"]).current_dir(root()).output();
        let Ok(o) = o else { panic!("`script` (util-linux) is needed for this test") };
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("rc=2"), "{out}: {text}");
        assert!(text.contains("--format html writes a whole HTML page"), "{out}: {text}");
    }
}

/// `--help` and `--version` written to a full device are an error (exit
/// 2, naming standard output), as any command's output is; to a reader
/// that stopped reading, not.
#[test]
fn help_that_cannot_be_written_is_an_error() {
    for args in [&["--help"][..], &["scan", "--help"], &["--version"]] {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = command(args).stdout(full).stderr(Stdio::piped()).output().unwrap();
        assert_eq!(code(&o), Some(2), "{args:?}");
        assert!(stderr(&o).contains("cannot write standard output"), "{args:?}: {}", stderr(&o));
        assert_eq!(code(&closed_pipe(args)), Some(0), "{args:?}");
    }
}

fn closed_pipe(args: &[&str]) -> Output {
    let mut child =
        command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait")
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let dir = temp_dir("out-pipe");
    let clean = dir.join("clean.txt");
    fs::write(&clean, "example\n").unwrap();
    let clean = path_str(&clean);
    for (args, want) in [
        (&["scan", "--format", "csv", ZONE][..], 1),
        (&["scan", "--format", "text", ZONE][..], 1),
        (&["scan", "--format", "jsonl", "--input-format", "list", clean][..], 0),
        (&["annotate", "--format", "csv", "--lgr", "builtin:ascii", ZONE][..], 0),
        (&["annotate", "--lgr", "builtin:ascii", ZONE][..], 0),
        (&["explain", "भारत"][..], 0),
        (&["lgr", "info", "builtin:devanagari"][..], 0),
        (&["builtins"][..], 0),
    ] {
        for _ in 0..3 {
            let o = closed_pipe(args);
            assert_eq!(code(&o), Some(want), "{args:?}: {}", stderr(&o));
            assert!(!stderr(&o).contains("error"), "{args:?}: {}", stderr(&o));
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn text_output_escapes_control_characters() {
    let dir = temp_dir("out-escape");
    let list = dir.join("evil\u{1b}[2J.txt");
    fs::write(&list, "a\u{1b}]0;pwned\u{7}b\nx\u{202e}y\nc\u{9b}31md\n").unwrap();
    let o = run(&["scan", "--format", "text", "--input-format", "list", path_str(&list)]);
    assert_eq!(code(&o), Some(1), "{}", stderr(&o));
    for (stream, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains(['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}']), "{stream}: {text:?}");
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("\\u{1b}]0;pwned\\u{7}b"), "{out}");
    assert!(out.contains("evil\\u{1b}[2J.txt"), "{out}");

    let o = run(&["explain", "--lgr", "builtin:ascii", "a\u{1b}[31mb\u{202e}"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains(['\u{1b}', '\u{202e}']), "{out:?}");
    assert!(out.contains("\\u{1b}[31mb\\u{202e}"), "{out}");

    // An LGR's metadata, as `lgr info` shows it (XML 1.0 allows C1
    // controls and bidi overrides in attribute values).
    let lgr = dir.join("evil.xml");
    fs::write(
        &lgr,
        "<?xml version=\"1.0\"?>\n<lgr xmlns=\"urn:ietf:params:xml:ns:lgr-1.0\"><meta>\
         <version comment=\"x&#x9b;2J&#x202e;y\">1</version></meta>\
         <data><char cp=\"0061\"/></data></lgr>\n",
    )
    .unwrap();
    let o = run(&["lgr", "info", path_str(&lgr)]);
    assert_eq!(code(&o), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains(['\u{9b}', '\u{202e}']), "{out:?}");
    assert!(out.contains("version: 1 (x\\u{9b}2J\\u{202e}y)"), "{out}");

    // An error naming a file whose name holds a newline is one line: the
    // name cannot forge a second error.
    let forged = dir.join("a\nlgrscan: error: forged.txt");
    fs::write(&forged, "ok\nbad label\n").unwrap();
    let o = run(&["scan", "-q", "--input-format", "list", path_str(&forged)]);
    assert_eq!(code(&o), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("a\\u{a}lgrscan: error: forged.txt:2"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

/// A zone's `$INCLUDE` file, found only as the zone is read, is spared
/// too: every command that writes a file refuses it before anything is
/// replaced.
#[test]
fn outputs_never_replace_an_included_file() {
    let dir = temp_dir("spare-include");
    let main = dir.join("main.zone");
    fs::write(
        &main,
        "$ORIGIN example.\n@ 3600 IN SOA ns1 h 1 2 3 4 5\n$INCLUDE part.txt\nfoo NS ns1\n",
    )
    .unwrap();
    let part = dir.join("part.txt");
    let part_text = "bar NS ns1\nxn--caf-dma NS ns1\n";
    fs::write(&part, part_text).unwrap();
    let (m, p) = (path_str(&main), path_str(&part));
    let out = dir.join("out.csv");
    let o = path_str(&out);
    let cases: [(&str, Vec<&str>); 5] = [
        ("scan", vec!["scan", "-q", m, "-o", p]),
        ("scan --meta", vec!["scan", "-q", m, "-o", o, "--meta", p]),
        ("annotate", vec!["annotate", "--lgr", "builtin:ascii", m, "-o", p]),
        ("index", vec!["index", m, "-o", p]),
        ("check", vec!["check", "--against", m, "--label", "foo", "-o", p]),
    ];
    for (what, args) in cases {
        let r = run(&args);
        let err = stderr(&r);
        assert_eq!(code(&r), Some(2), "{what}: {err}");
        assert!(err.contains("refusing to write") && err.contains("same file as"), "{what}: {err}");
        assert_eq!(fs::read_to_string(&part).unwrap(), part_text, "{what}");
        assert_eq!(entries(&dir), ["main.zone", "part.txt"], "{what}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// `-o /dev/stdout` (or `/dev/fd/N`) writes through the descriptor the
/// shell gave: appended after `>>`, between the lines of the commands
/// that share it, into a pipe; never a file renamed over the one behind
/// it.
#[test]
fn a_descriptor_is_written_through() {
    let dir = temp_dir("out-descriptor");
    let log = dir.join("app.log");
    let sh = |script: &str| {
        let o = Command::new("sh")
            .arg("-c")
            .arg(script)
            .env("LGRSCAN", bin())
            .env("ZONE", root().join(ZONE))
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{script}: {}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    let report = sh("\"$LGRSCAN\" scan -q \"$ZONE\" -o /dev/stdout; true");
    assert!(report.starts_with("kind,id,"), "{report}");
    fs::write(&log, "# kept\n").unwrap();
    sh("\"$LGRSCAN\" scan -q \"$ZONE\" -o /dev/stdout >> app.log; true");
    assert_eq!(fs::read_to_string(&log).unwrap(), format!("# kept\n{report}"));
    sh("{ echo header; \"$LGRSCAN\" scan -q \"$ZONE\" -o /dev/fd/1; echo footer; } > app.log");
    assert_eq!(fs::read_to_string(&log).unwrap(), format!("header\n{report}footer\n"));
    let piped = sh("\"$LGRSCAN\" scan -q \"$ZONE\" -o /dev/stdout | cat");
    assert_eq!(piped, report);
    // A descriptor that is not open is an error naming the path; so is
    // one lgrscan opened itself (its signal handlers' socket is 3 and 4),
    // which was written into, with exit 0.
    for fd in ["/dev/fd/97", "/dev/fd/3", "/dev/fd/4"] {
        let o = run(&["scan", "-q", ZONE, "-o", fd]);
        assert_eq!(code(&o), Some(2), "{fd}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("cannot write {fd}: Bad file descriptor")),
            "{}",
            stderr(&o)
        );
    }
    // Another process's descriptor (here the shell's standard output) is
    // refused before anything is read: its link names `pipe:[…]` or a
    // file that process writes at its own offset.
    let out = sh("\"$LGRSCAN\" scan -q \"$ZONE\" -o /proc/$$/fd/1 2>&1; echo \"rc=$?\"");
    assert!(out.contains("another process's descriptor") && out.ends_with("rc=2\n"), "{out}");
    let out = sh("\"$LGRSCAN\" scan -q \"$ZONE\" -o /proc/$$/task/$$/fd/1 2>&1; echo \"rc=$?\"");
    assert!(out.contains("another process's descriptor") && out.ends_with("rc=2\n"), "{out}");
    // A file behind it was replaced by a rename (exit 0): the shell then
    // wrote on into the old, unlinked file.
    let script = "exec 3> shell.txt; \"$LGRSCAN\" scan -q \"$ZONE\" -o /proc/$$/fd/3 2>&1; \
                  echo \"rc=$?\"; echo after >&3";
    let out = sh(script);
    assert!(out.contains("another process's descriptor") && out.ends_with("rc=2\n"), "{out}");
    assert_eq!(fs::read_to_string(dir.join("shell.txt")).unwrap(), "after\n");
    // A file behind the descriptor is spared as the file itself is: the
    // other output, an input. (With `-o out.txt` opened first, the file
    // behind `--meta /dev/stdout` is what `-o` is refused over.)
    fs::write(dir.join("zone.txt"), fs::read(root().join(ZONE)).unwrap()).unwrap();
    for (script, refused) in [
        (
            "\"$LGRSCAN\" scan -q --format jsonl -o /dev/stdout --meta out.txt zone.txt > out.txt",
            "refusing to write /dev/stdout: it is the same file as out.txt",
        ),
        (
            "\"$LGRSCAN\" scan -q --format jsonl -o out.txt --meta /dev/stdout zone.txt > out.txt",
            "refusing to write out.txt: it is the same file as /dev/stdout",
        ),
        (
            "\"$LGRSCAN\" scan -q -o /dev/stdout zone.txt >> zone.txt",
            "refusing to write /dev/stdout: it is the same file as zone.txt",
        ),
    ] {
        let err = sh(&format!("( {script} ) 2> err.txt; echo \"rc=$?\"; cat err.txt"));
        assert!(err.contains(refused), "{script}: {err}");
        assert!(err.starts_with("rc=2\n"), "{script}: {err}");
    }
    let zone_now = fs::read(dir.join("zone.txt")).unwrap();
    assert_eq!(zone_now, fs::read(root().join(ZONE)).unwrap(), "zone.txt changed");
    let _ = fs::remove_dir_all(&dir);
}

/// Standard input redirected from a file (`-`, `/dev/stdin`) is that file:
/// no output replaces it (it did, with the report, exit 1), in any command
/// that reads standard input; a pipe is read as before.
#[test]
fn standard_input_from_a_file_is_spared() {
    let dir = temp_dir("spare-stdin");
    let zone = fs::read(root().join(ZONE)).unwrap();
    fs::write(dir.join("zone.txt"), &zone).unwrap();
    let sh = |script: &str| {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("( {script} ) 2> err.txt; echo \"rc=$?\"; cat err.txt"))
            .env("LGRSCAN", bin())
            .current_dir(&dir)
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    let out = sh("\"$LGRSCAN\" scan -q --format jsonl zone.txt -o r.jsonl");
    assert!(out.starts_with("rc=1\n"), "{out}");
    let out = sh("\"$LGRSCAN\" index zone.txt -o z.idx");
    assert!(out.starts_with("rc=0\n"), "{out}");
    let report = fs::read(dir.join("r.jsonl")).unwrap();
    for (script, named) in [
        ("scan -q - -o zone.txt < zone.txt", "-"),
        ("scan -q /dev/stdin -o zone.txt < zone.txt", "/dev/stdin"),
        ("annotate --lgr builtin:khmer - -o zone.txt < zone.txt", "-"),
        ("index - -o zone.txt < zone.txt", "-"),
        ("check --against z.idx - -o zone.txt < zone.txt", "-"),
        ("diff - r.jsonl -o r.jsonl < r.jsonl", "-"),
        ("report /dev/stdin r.jsonl -o r.jsonl < r.jsonl", "/dev/stdin"),
    ] {
        let out = sh(&format!("\"$LGRSCAN\" {script}"));
        assert!(out.starts_with("rc=2\n"), "{script}: {out}");
        assert!(out.contains(&format!("it is the same file as {named}")), "{script}: {out}");
        assert_eq!(fs::read(dir.join("zone.txt")).unwrap(), zone, "{script}");
        assert_eq!(fs::read(dir.join("r.jsonl")).unwrap(), report, "{script}");
    }
    let out = sh("\"$LGRSCAN\" scan -q - -o other.csv < zone.txt");
    assert!(out.starts_with("rc=1\n"), "{out}");
    let out = sh("cat zone.txt | \"$LGRSCAN\" scan -q - -o other.csv");
    assert!(out.starts_with("rc=1\n"), "{out}");
    let _ = fs::remove_dir_all(&dir);
}
