//! Load generator for `lgrscan serve` (benches/check.sh): CLIENTS threads,
//! each with one keep-alive HTTP/1.1 connection, send
//! `GET /v1/check?label=…` (labels taken in turn from a file) for SECONDS;
//! prints requests/s and the p50/p99/max latency.
//!
//! Usage: check_load ADDR CLIENTS SECONDS LABELS_FILE

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: check_load ADDR CLIENTS SECONDS LABELS_FILE");
        std::process::exit(2);
    }
    let addr = args[1].clone();
    let clients: usize = args[2].parse().expect("CLIENTS");
    let seconds: u64 = args[3].parse().expect("SECONDS");
    let labels: Vec<String> = std::fs::read_to_string(&args[4])
        .expect("labels file")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b == b'-' {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect()
        })
        .collect();
    let labels = std::sync::Arc::new(labels);
    let end = Instant::now() + Duration::from_secs(seconds);
    let threads: Vec<_> = (0..clients)
        .map(|t| {
            let (addr, labels) = (addr.clone(), labels.clone());
            std::thread::spawn(move || {
                let s = TcpStream::connect(&addr).expect("connect");
                s.set_nodelay(true).ok();
                let mut w = s.try_clone().expect("clone");
                let mut r = BufReader::new(s);
                let mut lat = Vec::new();
                let mut i = t;
                let mut line = String::new();
                let mut request = Vec::new();
                while Instant::now() < end {
                    let label = &labels[i % labels.len()];
                    i += clients;
                    // One write a request, as an HTTP client sends it (a
                    // `write!` to the socket is a system call, and with
                    // TCP_NODELAY a segment, per piece of the format).
                    request.clear();
                    write!(request, "GET /v1/check?label={label} HTTP/1.1\r\nHost: x\r\n\r\n")
                        .expect("format");
                    let t0 = Instant::now();
                    w.write_all(&request).expect("write");
                    let mut len = 0usize;
                    let mut status = String::new();
                    loop {
                        line.clear();
                        r.read_line(&mut line).expect("read");
                        if status.is_empty() {
                            status = line.clone();
                        }
                        if line == "\r\n" || line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            len = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).expect("body");
                    assert!(status.contains(" 200 "), "{status}");
                    lat.push(t0.elapsed());
                }
                lat
            })
        })
        .collect();
    let mut all: Vec<Duration> =
        threads.into_iter().flat_map(|t| t.join().expect("client")).collect();
    all.sort_unstable();
    let n = all.len().max(1);
    let pct = |p: f64| all[((n as f64 * p) as usize).min(n - 1)].as_secs_f64() * 1000.0;
    println!(
        "{} requests in {seconds}s by {clients} clients: {:.0} requests/s, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        all.len(),
        all.len() as f64 / seconds as f64,
        pct(0.50),
        pct(0.99),
        all.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    );
}
