//! Writes a synthetic zone dump in the CZDS profile (sorted, lower case,
//! tab-separated, one record per line) for benchmarks.
//!
//! Usage: `gen_czds OUT [BYTES] [SEED]` (defaults: 1 GiB, seed 42).
//! The same arguments always give the same file.

use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const LDH: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UNI: &[char] = &['ä', 'ö', 'ü', 'é', 'ñ', 'ç', 'ß', 'ø', 'å', '中', '国', '한', 'и', 'я'];

fn label(rng: &mut Rng) -> String {
    if rng.below(50) == 0 {
        // About 2% IDNs.
        let n = 3 + rng.below(8) as usize;
        let u: String = (0..n)
            .map(|_| {
                if rng.below(3) == 0 {
                    UNI[rng.below(UNI.len() as u64) as usize]
                } else {
                    LDH[rng.below(26) as usize] as char
                }
            })
            .collect();
        if let Ok(a) = lgrscan::idna2008::to_alabel(&u) {
            return a;
        }
    }
    let n = 3 + rng.below(14) as usize;
    let mut s: Vec<u8> = (0..n).map(|_| LDH[rng.below(36) as usize]).collect();
    if n > 4 && rng.below(8) == 0 {
        s[1 + rng.below(n as u64 - 2) as usize] = b'-';
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
    let mut rng = Rng(seed.max(1));
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
        let p = providers[rng.below(4) as usize];
        let nns = 2 + rng.below(3);
        let mut block = String::new();
        for i in 1..=nns {
            block.push_str(&format!("{l}.com.\t172800\tin\tns\tns{i}.{p}\n"));
        }
        if rng.below(3) == 0 {
            let (tag, a, b) = (rng.below(65536), rng.next(), rng.next());
            block.push_str(&format!("{l}.com.\t86400\tin\tds\t{tag} 13 2 {a:016x}{b:016x}\n"));
        }
        if rng.below(20) == 0 {
            block.push_str(&format!("ns1.{l}.com.\t172800\tin\ta\t192.0.2.{}\n", rng.below(256)));
        }
        w.write_all(block.as_bytes())?;
        written += block.len() as u64;
    }
    while written < bytes {
        let l = &labels[rng.below(labels.len() as u64) as usize];
        let line = format!("ns9.{l}.com.\t172800\tin\ta\t192.0.2.{}\n", rng.below(256));
        w.write_all(line.as_bytes())?;
        written += line.len() as u64;
    }
    w.flush()
}
