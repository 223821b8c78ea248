//! `lgrscan serve`: each endpoint, 4xx errors, stalled requests, SIGHUP reload
//! and SIGTERM, on a free loopback port.

use crate::util::{lgrscan, root};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One HTTP/1.1 request (connection closed after it): status and body.
fn request(addr: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    request_typed(addr, method, path, Some("application/json"), body)
}

/// [`request`] with that `Content-Type` (`None`: no such header).
fn request_typed(
    addr: &str,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Option<&str>,
) -> (u16, String) {
    let body = body.unwrap_or("");
    let content_type = content_type.map(|t| format!("Content-Type: {t}\r\n")).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{content_type}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    raw(addr, req.as_bytes())
}

/// Sends `bytes` and reads until the server closes the connection (20 s
/// at most): the status and body of its answer (status 0: no answer).
fn raw(addr: &str, bytes: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(bytes).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'-' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// A server started by a test, killed when dropped if still running: a
/// test that fails leaves no server behind (one would hold the test's
/// standard output open, and a run piped through `tail` would wait on it
/// forever).
struct Server(Child);

impl std::ops::Deref for Server {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Server {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Starts the server; returns it and its address (read from its first
/// line on standard error).
fn start(index: &str) -> (Server, String) {
    start_with(index, &[])
}

/// [`start`], with more flags.
fn start_with(index: &str, flags: &[&str]) -> (Server, String) {
    let mut child = Server(
        Command::new(env!("CARGO_BIN_EXE_lgrscan"))
            .args(["serve", "--index", index, "--listen", "127.0.0.1:0", "--max-batch", "3"])
            .args(flags)
            .current_dir(root())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start lgrscan serve"),
    );
    let mut line = String::new();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    err.read_line(&mut line).unwrap();
    let addr = line.trim().rsplit("http://").next().unwrap_or("").to_string();
    assert!(addr.starts_with("127.0.0.1:"), "{line}");
    // Keep reading standard error so that the server never blocks on it.
    std::thread::spawn(move || for _ in err.lines() {});
    (child, addr)
}

/// GETs `path` until `done` holds of its answer, for 20 s at most (a
/// SIGHUP's reload takes its time): the last status and body.
fn get_until(addr: &str, path: &str, done: impl Fn(&serde_json::Value) -> bool) -> (u16, String) {
    let start = Instant::now();
    loop {
        let (st, body) = request(addr, "GET", path, None);
        if done(&json(&body)) || start.elapsed() > Duration::from_secs(20) {
            return (st, body);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

#[test]
fn endpoints_errors_reload_and_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (mut child, addr) = start(idx_s);

    let (st, body) = request(&addr, "GET", "/v1/health", None);
    let health = json(&body);
    assert_eq!((st, health["status"].as_str()), (200, Some("ok")));
    assert!(health["reload_error"].is_null(), "{body}");
    let first_loaded = health["loaded_at"].as_str().unwrap().to_string();
    lgrscan::input::Timestamp::parse_rfc3339(&first_loaded).unwrap();
    let (st, body) = request(&addr, "GET", "/v1/index", None);
    assert_eq!(st, 200);
    assert_eq!(json(&body)["index_mode"], "verified");

    let (st, body) = request(&addr, "GET", "/v1/check?label=bluecloud", None);
    assert_eq!(st, 200, "{body}");
    let row = json(&body);
    assert_eq!(row["status"], "registered");
    assert_eq!(row["holder_line"], 7);
    let (st, body) = request(&addr, "GET", &format!("/v1/check?label={}", encode("آیٔینۃ")), None);
    assert_eq!((st, json(&body)["status"].as_str()), (200, Some("variant-blocked")));

    let batch = r#"["newbrand", {"label": "آیٔین", "registrant": "reg-9253"}, "-bad-"]"#;
    let (st, body) = request(&addr, "POST", "/v1/check", Some(batch));
    assert_eq!(st, 200, "{body}");
    let rows = json(&body);
    let statuses: Vec<&str> =
        rows.as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["available", "variant-allocatable", "invalid"]);
    assert_eq!(rows[1]["same_registrant"], "yes");
    assert!(rows[0]["holder"].is_null() && rows[0]["set"].is_null(), "absent values are null");

    // An empty or over-long label is an invalid row, as `check` gives it,
    // not a refusal of its batch; text past 4 KiB is no label, refused.
    let long = "a".repeat(300);
    let deva = "\u{915}".repeat(90);
    let batch = format!(r#"["", "{long}", "{deva}"]"#);
    let (st, b) = request(&addr, "POST", "/v1/check", Some(&batch));
    assert_eq!(st, 200, "{b}");
    let rows = json(&b);
    let statuses: Vec<&str> = (rows.as_array().unwrap().iter())
        .map(|r| r["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(statuses, ["invalid", "invalid", "invalid"], "{b}");
    assert!(b.contains("empty label") && b.contains("label too long: 300 octets"), "{b}");
    let (st, b) = request(&addr, "GET", "/v1/check?label=", None);
    assert_eq!((st, json(&b)["status"].as_str()), (200, Some("invalid")), "{b}");
    let (st, b) =
        request(&addr, "POST", "/v1/check", Some(&format!(r#"["{}"]"#, "a".repeat(5000))));
    assert_eq!((st, json(&b)["error"].as_str()), (400, Some("a label is at most 4096 bytes")));

    // 4xx, each with a JSON error.
    for (method, path, body, want) in [
        ("GET", "/v1/check", None, 400),
        ("GET", "/v1/nothing", None, 404),
        ("GET", "/v1/check?label=a&label=b", None, 400),
        ("PUT", "/v1/check", Some("[]"), 405),
        ("POST", "/v1/health", Some("[]"), 405),
        ("POST", "/v1/check", Some("[1,"), 400),
        ("POST", "/v1/check", Some(r#"{"label": "x"}"#), 400),
        ("POST", "/v1/check", Some(r#"["a","b","c","d"]"#), 413),
        ("POST", "/v1/check", Some(r#"[{"label": "a", "priority": "soon"}]"#), 400),
        // Octets that are not UTF-8, and fields that would be ignored.
        ("GET", "/v1/check?label=%FF", None, 400),
        ("GET", "/v1/check?label=%E0%A4", None, 400),
        ("POST", "/v1/check", Some(r#"[{"label": "a", "registrant": 7}]"#), 400),
        ("POST", "/v1/check", Some(r#"[{"label": "a", "registrnt": "r-1"}]"#), 400),
        ("POST", "/v1/check", Some(r#"[{"label": ["a"]}]"#), 400),
    ] {
        let (st, b) = request(&addr, method, path, body);
        assert_eq!(st, want, "{method} {path} {body:?}: {b}");
        assert!(json(&b)["error"].is_string(), "{b}");
    }
    // Answered from its `Content-Length` before the body is read: only the
    // body's first 64 KiB are sent (sending all 2 MiB raced the answer and
    // the close: the write could fail with a broken pipe).
    let big = format!(
        "POST /v1/check HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n\r\n[\"{}",
        2 << 20,
        "a".repeat(64 << 10)
    );
    let (st, b) = raw(&addr, big.as_bytes());
    assert_eq!(st, 413, "{b}");
    assert!(json(&b)["error"].is_string(), "{b}");

    // A new index renamed into place, then SIGHUP.
    let new = dir.path().join("new.idx");
    std::fs::write(dir.path().join("more.txt"), "newbrand\n").unwrap();
    let more = dir.path().join("more.txt");
    let o = lgrscan(&[
        "index",
        "samples/labels.csv",
        more.to_str().unwrap(),
        "-o",
        new.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    std::fs::rename(&new, idx_s).unwrap();
    signal(&child, "-HUP");
    let (_, body) = get_until(&addr, "/v1/check?label=newbrand", |r| r["status"] == "registered");
    assert_eq!(json(&body)["status"], "registered", "not reloaded: {body}");
    // A damaged file is not swapped in (renamed into place too: the one
    // mapped must not change).
    std::fs::write(&new, b"not an index").unwrap();
    std::fs::rename(&new, idx_s).unwrap();
    signal(&child, "-HUP");
    std::thread::sleep(Duration::from_millis(300));
    let (st, body) = request(&addr, "GET", "/v1/check?label=newbrand", None);
    assert_eq!((st, json(&body)["status"].as_str()), (200, Some("registered")));
    // Its health says so: the reload failed, the index before is served
    // (asked until the reload has been tried: a slow machine may take
    // longer than the wait above).
    let (st, body) = get_until(&addr, "/v1/health", |h| h["status"] != "ok");
    let health = json(&body);
    assert_eq!((st, health["status"].as_str()), (200, Some("reload-failed")), "{body}");
    let error = health["reload_error"]["error"].as_str().unwrap();
    assert!(error.contains("not an lgrscan index"), "{body}");
    lgrscan::input::Timestamp::parse_rfc3339(health["reload_error"]["at"].as_str().unwrap())
        .unwrap();
    assert_eq!(health["labels"], 83, "{body}");
    let reloaded_at = health["loaded_at"].as_str().unwrap().to_string();

    // Nor is one whose header is sound but a later block damaged: every
    // block is checked before the swap (an index of 6,000 labels has
    // several 64 KiB blocks; the byte flipped is in one that opening the
    // index and compiling its LGRs does not read).
    let many: String = (0..6000).map(|i| format!("zz{i:05}\n")).collect();
    let many_txt = dir.path().join("many.txt");
    std::fs::write(&many_txt, many).unwrap();
    let o = lgrscan(&["index", many_txt.to_str().unwrap(), "-o", new.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let mut bytes = std::fs::read(&new).unwrap();
    assert!(bytes.len() > 2 * 65536, "{} bytes", bytes.len());
    let at = bytes.len() / 6;
    bytes[at] ^= 0x55;
    std::fs::write(&new, &bytes).unwrap();
    let o = lgrscan(&["index", "info", new.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "opening does not read the damaged block");
    let o = lgrscan(&["index", "info", "--verify", new.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "the damage is in a block");
    std::fs::rename(&new, idx_s).unwrap();
    signal(&child, "-HUP");
    std::thread::sleep(Duration::from_millis(500));
    let (st, body) = request(&addr, "GET", "/v1/health", None);
    assert_eq!((st, json(&body)["labels"].as_u64()), (200, Some(83)), "the old index kept");
    assert_eq!(json(&body)["loaded_at"], reloaded_at.as_str());

    // A reload that succeeds clears the failure.
    let o = lgrscan(&["index", "samples/labels.csv", "-o", new.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    std::fs::rename(&new, idx_s).unwrap();
    signal(&child, "-HUP");
    let (_, body) = get_until(&addr, "/v1/health", |h| h["status"] == "ok");
    let health = json(&body);
    assert_eq!(health["status"], "ok", "not reloaded: {body}");
    assert!(health["reload_error"].is_null(), "{body}");
    assert_eq!(health["labels"], 82, "{body}");
    assert_eq!(health["index_file"], "loaded", "{body}");

    // A new file renamed into place and no SIGHUP yet: the one served is
    // whole. The same bytes written over the served file itself: its
    // health answers 503 until a SIGHUP loads it again.
    let bytes = std::fs::read(idx_s).unwrap();
    std::fs::write(&new, &bytes).unwrap();
    std::fs::rename(&new, idx_s).unwrap();
    let (st, body) = request(&addr, "GET", "/v1/health", None);
    assert_eq!((st, json(&body)["index_file"].as_str()), (200, Some("replaced")), "{body}");
    assert_eq!(json(&body)["status"], "ok", "{body}");
    signal(&child, "-HUP");
    get_until(&addr, "/v1/health", |h| h["index_file"] == "loaded");
    std::thread::sleep(Duration::from_millis(20));
    // Its modification time set back, as `cp -p` or `touch -r` would.
    let mtime = std::fs::metadata(idx_s).unwrap().modified().unwrap();
    let mut served = std::fs::OpenOptions::new().write(true).open(idx_s).unwrap();
    served.write_all(&bytes).unwrap();
    served.set_modified(mtime).unwrap();
    drop(served);
    let (st, body) = request(&addr, "GET", "/v1/health", None);
    let health = json(&body);
    assert_eq!((st, health["index_file"].as_str()), (503, Some("changed-in-place")), "{body}");
    assert_eq!(health["status"], "index-changed-in-place", "{body}");
    signal(&child, "-HUP");
    let (st, body) = get_until(&addr, "/v1/health", |h| h["index_file"] == "loaded");
    assert_eq!((st, json(&body)["status"].as_str()), (200, Some("ok")), "{body}");

    signal(&child, "-TERM");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// `--priority date` decides contention sets in a batch as `check
/// --priority date` does: the earlier date wins, whatever the order.
#[test]
fn priority_date_decides_contention() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let batch = r#"[{"label": "ក្ដារ", "priority": "2024-05-01"}, {"label": "ក្តារ", "priority": "2023-01-01"}]"#;
    for (flags, winner) in [(&[][..], 0), (&["--priority", "date"][..], 1)] {
        let (mut child, addr) = start_with(idx_s, flags);
        let (st, body) = request(&addr, "POST", "/v1/check", Some(batch));
        assert_eq!(st, 200, "{body}");
        let rows = json(&body);
        let statuses: Vec<&str> =
            rows.as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
        assert_eq!(statuses, ["contention", "contention"], "{flags:?}");
        let holder = rows[1 - winner]["holder"].as_str().unwrap_or_default();
        assert_eq!(holder, rows[winner]["ulabel"].as_str().unwrap(), "{flags:?}: {body}");
        signal(&child, "-TERM");
        assert!(child.wait().unwrap().success());
    }
}

/// SIGTERM stops the service within its grace period even while a client
/// holds a request half sent (it waited for the client to go).
#[test]
fn a_stalled_client_does_not_hold_off_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (mut child, addr) = start(idx_s);
    let mut s = TcpStream::connect(&addr).expect("connect");
    let head = "POST /v1/check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[\"a";
    s.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    signal(&child, "-TERM");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if t.elapsed() > Duration::from_secs(15) {
            child.kill().unwrap();
            panic!("still running 15 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    drop(s);
}

/// A batch is JSON whatever its `Content-Type` says: `curl -d`, as in the
/// README, sends `application/x-www-form-urlencoded`.
#[test]
fn a_batch_is_json_whatever_its_content_type() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start(idx_s);
    let batch = r#"["newbrand", {"label": "آیٔین", "registrant": "reg-9253"}]"#;
    for content_type in [Some("application/x-www-form-urlencoded"), Some("text/plain"), None] {
        let (st, body) = request_typed(&addr, "POST", "/v1/check", content_type, Some(batch));
        assert_eq!(st, 200, "{content_type:?}: {body}");
        let rows = json(&body);
        assert_eq!(rows[1]["status"], "variant-allocatable", "{content_type:?}: {body}");
        let (st, body) = request_typed(&addr, "POST", "/v1/check", content_type, Some("[1,"));
        assert_eq!(st, 400, "{content_type:?}: {body}");
        assert!(json(&body)["error"].is_string(), "{body}");
    }
}

/// A connection that sends nothing, or part of a request's head and then
/// nothing, is closed unanswered once `--header-timeout` has passed (it was
/// held open for ever); a head sent in parts within the time is answered.
#[test]
fn a_stalled_request_head_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start_with(idx_s, &["--header-timeout", "1"]);
    for sent in ["", "GET /v1/health HTTP/1.1\r\nHost: x\r\n"] {
        let t = Instant::now();
        let mut s = TcpStream::connect(&addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(sent.as_bytes()).unwrap();
        let mut out = Vec::new();
        let read = s.read_to_end(&mut out);
        assert!(read.is_ok(), "{sent:?}: not closed: {read:?}");
        assert!(out.is_empty(), "{sent:?}: {}", String::from_utf8_lossy(&out));
        let took = t.elapsed();
        assert!(took > Duration::from_millis(900) && took < Duration::from_secs(10), "{took:?}");
    }
    let mut s = TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(b"Connection: close\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200 "), "{out}");
}

/// A POST whose body stalls is answered 408 once `--body-timeout` has
/// passed (it was held open for ever); one whose `Content-Length` is over
/// 1 MiB, 413 at once, before any of its body (it waited for the body); a
/// body sent in parts within the time is read whole.
#[test]
fn a_stalled_or_oversized_body_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start_with(idx_s, &["--body-timeout", "1"]);
    let head = |length: u64| {
        format!("POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n")
    };
    let t = Instant::now();
    let (st, body) = raw(&addr, format!("{}[\"abc", head(100)).as_bytes());
    let took = t.elapsed();
    assert_eq!(st, 408, "{body}");
    assert!(json(&body)["error"].is_string(), "{body}");
    assert!(took > Duration::from_millis(900) && took < Duration::from_secs(10), "{took:?}");

    let t = Instant::now();
    let (st, body) = raw(&addr, head(99_999_999_999).as_bytes());
    let took = t.elapsed();
    assert_eq!(st, 413, "{body}");
    assert!(json(&body)["error"].is_string(), "{body}");
    assert!(took < Duration::from_millis(900), "{took:?}");

    let mut s = TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let batch = r#"["newbrand"]"#;
    s.write_all(format!("{}{}", head(batch.len() as u64), &batch[..5]).as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(&batch.as_bytes()[5..]).unwrap();
    let mut buf = [0; 4096];
    let n = s.read(&mut buf).unwrap();
    let out = String::from_utf8_lossy(&buf[..n]);
    assert!(out.starts_with("HTTP/1.1 200 "), "{out}");
}

/// Requests that hyper refuses before they reach the service get its bare
/// status and an empty body, not a JSON error (the README says which).
#[test]
fn hyper_refusals_are_bare_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start(idx_s);
    let many: String = (0..101).map(|i| format!("X-{i}: y\r\n")).collect();
    let uri = format!("/v1/check?label={}", "a".repeat(70_000));
    for (request, want) in [
        ("GARBAGE\r\n\r\n".to_string(), 400),
        ("GET /v1/health HTTP/1.1\r\nHost x\r\n\r\n".into(), 400),
        ("POST /v1/check HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n[]".into(), 400),
        (format!("GET /v1/health HTTP/1.1\r\n{many}\r\n"), 431),
        (format!("GET {uri} HTTP/1.1\r\nHost: x\r\n\r\n"), 414),
    ] {
        let (st, body) = raw(&addr, request.as_bytes());
        assert_eq!((st, body.as_str()), (want, ""), "{}", &request[..request.len().min(60)]);
    }
}

/// At most `--max-connections` are served at once: a connection past the
/// limit waits, unanswered, until one of them closes (connections were
/// unbounded, and each holds buffers and a task).
#[test]
fn connections_past_the_limit_wait() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start_with(idx_s, &["--max-connections", "2", "--header-timeout", "60"]);
    let first = TcpStream::connect(&addr).expect("connect");
    let _second = TcpStream::connect(&addr).expect("connect");
    // Both accepted before the third comes: a request on each is answered.
    for s in [&first, &_second] {
        let mut s = s.try_clone().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut buf = [0; 4096];
        let n = s.read(&mut buf).unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200 "), "{}", String::from_utf8_lossy(&buf[..n]));
    }
    let mut third = TcpStream::connect(&addr).expect("connect (the backlog takes it)");
    third.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    third.set_read_timeout(Some(Duration::from_millis(1500))).unwrap();
    let mut buf = [0; 4096];
    let waited = third.read(&mut buf);
    assert!(waited.is_err(), "answered past the limit: {waited:?}");
    drop(first);
    third.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut out = String::new();
    third.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200 "), "{out}");
}

/// A client that sends requests and never reads their answers has its
/// connection closed once a write has waited `--write-timeout` (it was
/// held for ever, with its buffers full).
#[test]
fn a_client_that_reads_no_answer_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start_with(idx_s, &["--write-timeout", "1"]);
    let (_, header) = request(&addr, "GET", "/v1/index", None);
    // Far more answers than a socket's buffers hold (4 MiB sent, a few
    // hundred KiB received, before either side's program reads).
    let requests = (64 << 20) / header.len().max(1) + 1;
    let s = TcpStream::connect(&addr).expect("connect");
    let mut writer = s.try_clone().unwrap();
    std::thread::spawn(move || {
        let one = b"GET /v1/index HTTP/1.1\r\nHost: x\r\n\r\n";
        // Fails once the server has closed the connection.
        for _ in 0..requests {
            if writer.write_all(one).is_err() {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_secs(4));
    let mut reader = s;
    reader.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let t = Instant::now();
    let mut out = Vec::new();
    // The end: EOF, or a reset (the requests left unread).
    let _ = reader.read_to_end(&mut out);
    let answers = out.windows(9).filter(|w| w == b"HTTP/1.1 ").count();
    assert!(answers < requests, "all {requests} requests were answered");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
}

/// A chunked body (no `Content-Length` to refuse at once) is refused 413
/// once more than 1 MiB of it has come.
#[test]
fn a_chunked_body_over_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let idx_s = &crate::util::sample_index(dir.path());
    let (_child, addr) = start(idx_s);
    let mut s = TcpStream::connect(&addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"POST /v1/check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    let chunk = format!("4000\r\n{}\r\n", " ".repeat(0x4000));
    // 1 MiB and one chunk; the server may close before the last ones.
    for _ in 0..(1 << 20) / 0x4000 + 1 {
        if s.write_all(chunk.as_bytes()).is_err() {
            break;
        }
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 413 "), "{text}");
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    assert!(json(body)["error"].is_string(), "{body}");
}

/// `serve --holder registered` with an index none of whose labels has a
/// `registered` date is refused at start, as `check` refuses it (it
/// served, holders in input order).
#[test]
fn holder_registered_needs_dates() {
    let dir = tempfile::tempdir().unwrap();
    let idx = &crate::util::index_of(dir.path(), "samples/zone.txt", "zone.idx");
    let mut child = Server(
        Command::new(env!("CARGO_BIN_EXE_lgrscan"))
            .args(["serve", "--index", idx, "--listen", "127.0.0.1:0", "--holder", "registered"])
            .current_dir(root())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start lgrscan serve"),
    );
    let start = Instant::now();
    while matches!(child.try_wait(), Ok(None)) && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.try_wait().unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(2), "still serving, or another exit");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.contains("--holder registered: no registered label has a registration"), "{err}");
}
