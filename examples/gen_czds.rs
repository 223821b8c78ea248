//! Writes a synthetic zone dump in the CZDS profile (sorted, lower case,
//! tab-separated, one record per line) for benchmarks.
//!
//! Usage: `gen_czds OUT [BYTES] [SEED]` (defaults: 1 GiB, seed 42).
//! The same arguments always give the same file.

use fastrand::Rng;
use std::io::{BufWriter, Write};

const LDH: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UNI: &[char] = &['ä', 'ö', 'ü', 'é', 'ñ', 'ç', 'ß', 'ø', 'å', '中', '国', '한', 'и', 'я'];

fn label(rng: &mut Rng) -> String {
    if rng.u64(..50) == 0 {
        // About 2% IDNs.
        let n = 3 + rng.usize(..8);
        let u: String = (0..n)
            .map(|_| {
                if rng.u64(..3) == 0 {
                    UNI[rng.usize(..UNI.len())]
                } else {
                    LDH[rng.usize(..26)] as char
                }
            })
            .collect();
        if let Ok(a) = lgrscan::idna2008::to_alabel(&u) {
            return a;
        }
    }
    let n = 3 + rng.usize(..14);
    let mut s: Vec<u8> = (0..n).map(|_| LDH[rng.usize(..36)]).collect();
    if n > 4 && rng.u64(..8) == 0 {
        s[1 + rng.usize(..n - 2)] = b'-';
        if s[2] == b'-' && s[3] == b'-' {
            s[3] = b'x';
        }
    }
    String::from_utf8(s).unwrap_or_default()
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let out = args.get(1).expect("usage: gen_czds OUT [BYTES] [SEED]");
    let bytes: u64 = args.get(2).map_or(1 << 30, |s| s.parse().expect("BYTES"));
    let seed: u64 = args.get(3).map_or(42, |s| s.parse().expect("SEED"));
    let mut rng = Rng::with_seed(seed);
    // About 150 bytes of records per domain on average. Every label is
    // written (so the late-sorting "xn--" labels are in); if the file is
    // still short, glue records are added at the end.
    let domains = (bytes / 150) as usize + 1;
    let mut labels: Vec<String> = (0..domains).map(|_| label(&mut rng)).collect();
    labels.sort_unstable();
    labels.dedup();
    let providers =
        ["ns.cloudflare.com.", "domaincontrol.com.", "registrar-servers.com.", "awsdns.net."];
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    let mut written = 0u64;
    let soa =
        "com.\t900\tin\tsoa\ta.gtld-servers.net. nstld.verisign-grs.com. 1 1800 900 604800 86400\n";
    w.write_all(soa.as_bytes())?;
    for l in &labels {
        let p = providers[rng.usize(..4)];
        let nns = 2 + rng.u64(..3);
        let mut block = String::new();
        for i in 1..=nns {
            block.push_str(&format!("{l}.com.\t172800\tin\tns\tns{i}.{p}\n"));
        }
        if rng.u64(..3) == 0 {
            let (tag, a, b) = (rng.u64(..65536), rng.u64(..), rng.u64(..));
            block.push_str(&format!("{l}.com.\t86400\tin\tds\t{tag} 13 2 {a:016x}{b:016x}\n"));
        }
        if rng.u64(..20) == 0 {
            block.push_str(&format!("ns1.{l}.com.\t172800\tin\ta\t192.0.2.{}\n", rng.u64(..256)));
        }
        w.write_all(block.as_bytes())?;
        written += block.len() as u64;
    }
    while written < bytes {
        let l = &labels[rng.usize(..labels.len())];
        let line = format!("ns9.{l}.com.\t172800\tin\ta\t192.0.2.{}\n", rng.u64(..256));
        w.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    w.flush()
}
