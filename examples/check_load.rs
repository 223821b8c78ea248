//! Load generator for `lgrscan serve` (benches/check.sh): CLIENTS
//! keep-alive HTTP/1.1 connections, driven by one thread (tokio's
//! current-thread runtime, so that the generator takes as little as it can
//! of the cores it shares with the server), each sending
//! `GET /v1/check?label=…` (labels taken in turn from a file) and waiting
//! for the answer, for SECONDS; prints requests/s and the p50/p99/max
//! latency.
//!
//! Usage: check_load ADDR CLIENTS SECONDS LABELS_FILE

use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One client: requests one after the other on one connection until `end`;
/// the latency of each.
async fn client(
    addr: String,
    labels: std::sync::Arc<Vec<String>>,
    first: usize,
    step: usize,
    end: Instant,
) -> Vec<Duration> {
    let s = TcpStream::connect(&addr).await.expect("connect");
    s.set_nodelay(true).ok();
    let (r, mut w) = s.into_split();
    let mut r = BufReader::new(r);
    let (mut lat, mut line, mut request, mut body) =
        (Vec::new(), String::new(), Vec::new(), Vec::new());
    let mut i = first;
    while Instant::now() < end {
        let label = &labels[i % labels.len()];
        i += step;
        // One write a request, as an HTTP client sends it.
        request.clear();
        request.extend_from_slice(
            format!("GET /v1/check?label={label} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
        );
        let t0 = Instant::now();
        w.write_all(&request).await.expect("write");
        let (mut len, mut status) = (0usize, String::new());
        loop {
            line.clear();
            r.read_line(&mut line).await.expect("read");
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
        body.resize(len, 0);
        r.read_exact(&mut body).await.expect("body");
        assert!(status.contains(" 200 "), "{status}");
        lat.push(t0.elapsed());
    }
    lat
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
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
    let tasks: Vec<_> = (0..clients)
        .map(|t| tokio::spawn(client(addr.clone(), labels.clone(), t, clients, end)))
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("client"));
    }
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
