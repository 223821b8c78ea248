//! Generates benchmark inputs with a fixed seed (nothing large is committed).
//!
//! `gen_zone czds N IDN_PERCENT OUT [CORPUS]`: a CZDS-profile zone of N
//! registered names under `tld.`, IDN_PERCENT of them IDN labels built from
//! the Devanagari, Hindi and Khmer words and the digits of CORPUS (default
//! ../shared/golden/corpus.tsv), with ASCII, Devanagari and Khmer digit
//! strings so that cross-script collisions occur; each name has two NS
//! records (`GEN_ZONE_NS=K`: K) and some have glue, as real dumps do.
//!
//! `gen_zone idn N OUT [CORPUS]`: a label list of N IDN labels (Devanagari,
//! Hindi and Khmer words with digit and word suffixes).
//!
//! `gen_zone shapes N IDN_PERCENT DIR [CORPUS]`: the names of `czds` (same
//! seed, same names) in the six input shapes of `benches/formats.sh`:
//! `czds-sorted.zone`, `czds-random.zone` (owners shuffled),
//! `master-sorted.zone`, `master-random.zone` (RFC 1035 master files with
//! `$ORIGIN`, `$TTL`, relative owners, blank owners continuing the previous
//! one, upper-case `IN`/`NS`), `labels.list` (one A-label a line) and
//! `labels.csv` (`label,registered,registrant`), both in sorted order.

use fastrand::Rng;
use std::io::{BufWriter, Write};

fn words(corpus: &str) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(corpus).unwrap_or_else(|e| panic!("{corpus}: {e}"));
    let (mut deva, mut khmr) = (Vec::new(), Vec::new());
    for line in text.lines().skip(1) {
        let mut f = line.split('\t');
        let (Some(label), _, Some(cat)) = (f.next(), f.next(), f.next()) else { continue };
        if cat.starts_with("word:hi") && !cat.contains("raw") {
            deva.push(label.to_string());
        } else if cat.starts_with("word:km") || cat.starts_with("word:khm") {
            khmr.push(label.to_string());
        }
    }
    assert!(!deva.is_empty() && !khmr.is_empty(), "no Devanagari or Khmer words in {corpus}");
    (deva, khmr)
}

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";

fn ascii_label(r: &mut Rng, out: &mut String) {
    let len = 3 + r.usize(..12);
    for i in 0..len {
        let c = if i > 0 && i + 1 < len && r.usize(..30) == 0 {
            b'-'
        } else if r.usize(..12) == 0 {
            b'0' + r.usize(..10) as u8
        } else {
            LETTERS[r.usize(..26)]
        };
        out.push(c as char);
    }
    if out.as_bytes()[2..].starts_with(b"--") {
        out.replace_range(2..3, "a");
    }
}

fn digits(r: &mut Rng, script: usize, out: &mut String) {
    let base = [0x30u32, 0x966, 0x17E0][script];
    for _ in 0..2 + r.usize(..4) {
        out.push(char::from_u32(base + r.usize(..10) as u32).expect("digit"));
    }
}

fn idn_label(r: &mut Rng, deva: &[String], khmr: &[String], out: &mut String) {
    match r.usize(..10) {
        0 => {
            let s = 1 + r.usize(..2);
            digits(r, s, out)
        }
        1..=5 => {
            out.push_str(&deva[r.usize(..deva.len())]);
            if r.usize(..2) == 0 {
                out.push_str(&deva[r.usize(..deva.len())]);
            } else {
                let s = r.usize(..2);
                digits(r, s, out);
            }
        }
        _ => {
            out.push_str(&khmr[r.usize(..khmr.len())]);
            if r.usize(..2) == 0 {
                out.push_str(&khmr[r.usize(..khmr.len())]);
            } else {
                let s = if r.usize(..2) == 0 { 0 } else { 2 };
                digits(r, s, out);
            }
        }
    }
}

fn alabel(u: &str) -> String {
    if u.is_ascii() {
        u.to_string()
    } else {
        format!("xn--{}", idna::punycode::encode_str(u).expect("punycode"))
    }
}

/// N distinct A-labels, IDN_PERCENT of them IDN labels, in generation order.
/// Labels seen are kept as 64-bit hashes, not strings, so that a .com-sized
/// run (143.5M names) fits in memory; a label whose hash collides with an
/// earlier one's is skipped like a repeat (about one chance in 10^6 at 10M
/// names, so the W1 and shapes outputs are those of the string set).
fn gen_names(r: &mut Rng, n: usize, pct: usize, deva: &[String], khmr: &[String]) -> Vec<String> {
    use std::hash::BuildHasher;
    let hasher = foldhash::fast::FixedState::with_seed(0x2545_f491_4f6c_dd1d);
    let mut label = String::new();
    let mut seen = std::collections::HashSet::with_hasher(hasher.clone());
    let mut names = Vec::with_capacity(n);
    while names.len() < n {
        label.clear();
        if r.usize(..100) < pct {
            idn_label(r, deva, khmr, &mut label);
        } else if r.usize(..50) == 0 {
            digits(r, 0, &mut label);
        } else {
            ascii_label(r, &mut label);
        }
        let a = alabel(&label);
        if a.len() > 63 || !seen.insert(hasher.hash_one(&a)) {
            continue;
        }
        names.push(a);
    }
    names
}

/// One name's records: two NS and, for one name in 20, glue below it.
struct Records {
    ns: [usize; 2],
    glue: Option<usize>,
}

fn write_shapes(r: &mut Rng, mut names: Vec<String>, dir: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    names.sort_unstable();
    let recs: Vec<Records> = names
        .iter()
        .map(|_| Records {
            ns: [r.usize(..500), r.usize(..500)],
            glue: (r.usize(..20) == 0).then(|| r.usize(..250)),
        })
        .collect();
    let sorted: Vec<usize> = (0..names.len()).collect();
    let mut random = sorted.clone();
    r.shuffle(&mut random);
    let file = |name: &str| -> std::io::Result<BufWriter<std::fs::File>> {
        Ok(BufWriter::with_capacity(1 << 20, std::fs::File::create(format!("{dir}/{name}"))?))
    };
    for (name, order) in [("czds-sorted.zone", &sorted), ("czds-random.zone", &random)] {
        let mut w = file(name)?;
        writeln!(
            w,
            "tld.\t86400\tin\tsoa\ta.nic.tld. hostmaster.nic.tld. 1 1800 900 604800 86400"
        )?;
        writeln!(w, "tld.\t172800\tin\tns\ta.nic.tld.")?;
        for &i in order {
            let (a, rec) = (&names[i], &recs[i]);
            for (k, ns) in rec.ns.iter().enumerate() {
                writeln!(w, "{a}.tld.\t86400\tin\tns\tns{}.dns{ns}.example.net.", k + 1)?;
            }
            if let Some(g) = rec.glue {
                writeln!(w, "ns1.{a}.tld.\t86400\tin\ta\t192.0.2.{g}")?;
            }
        }
        w.flush()?;
    }
    for (name, order) in [("master-sorted.zone", &sorted), ("master-random.zone", &random)] {
        let mut w = file(name)?;
        writeln!(w, "$ORIGIN tld.\n$TTL 86400")?;
        writeln!(w, "@\tIN\tSOA\ta.nic hostmaster.nic 1 1800 900 604800 86400")?;
        writeln!(w, "\t172800\tIN\tNS\ta.nic")?;
        for &i in order {
            let (a, rec) = (&names[i], &recs[i]);
            writeln!(w, "{a}\tIN\tNS\tns1.dns{}.example.net.", rec.ns[0])?;
            writeln!(w, "\tIN\tNS\tns2.dns{}.example.net.", rec.ns[1])?;
            if let Some(g) = rec.glue {
                writeln!(w, "ns1.{a}\tIN\tA\t192.0.2.{g}")?;
            }
        }
        w.flush()?;
    }
    let (mut list, mut csv) = (file("labels.list")?, file("labels.csv")?);
    writeln!(csv, "label,registered,registrant")?;
    // Sorted like the sorted zones, so that the holders (first in input
    // order) and the reports agree.
    for &i in &sorted {
        writeln!(list, "{}", names[i])?;
        let (y, m, d) = (2000 + r.usize(..26), 1 + r.usize(..12), 1 + r.usize(..28));
        writeln!(csv, "{},{y}-{m:02}-{d:02},reg-{}", names[i], r.usize(..100_000))?;
    }
    list.flush()?;
    csv.flush()
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gen_zone czds N IDN_PERCENT OUT [CORPUS] | gen_zone idn N OUT [CORPUS] \
                 | gen_zone shapes N IDN_PERCENT DIR [CORPUS]";
    let mode = args.get(1).expect(usage).as_str();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).expect(usage);
    let mut r = Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    let mut label = String::new();
    match mode {
        "czds" => {
            let pct: usize = args.get(3).and_then(|s| s.parse().ok()).expect(usage);
            let out = args.get(4).expect(usage);
            let corpus = args.get(5).map_or("../shared/golden/corpus.tsv", String::as_str);
            let (deva, khmr) = words(corpus);
            let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
            writeln!(
                w,
                "tld.\t86400\tin\tsoa\ta.nic.tld. hostmaster.nic.tld. 1 1800 900 604800 86400"
            )?;
            writeln!(w, "tld.\t172800\tin\tns\ta.nic.tld.")?;
            // NS records per name (`GEN_ZONE_NS`, default 2): the .com dump
            // has more per name than the W1 zone, so its size needs more.
            let ns_per_name: usize =
                std::env::var("GEN_ZONE_NS").ok().and_then(|v| v.parse().ok()).unwrap_or(2);
            let mut names = gen_names(&mut r, n, pct, &deva, &khmr);
            // CZDS dumps are sorted by owner name.
            names.sort_unstable();
            for a in names {
                for k in 1..=ns_per_name {
                    writeln!(
                        w,
                        "{a}.tld.\t86400\tin\tns\tns{k}.dns{}.example.net.",
                        r.usize(..500)
                    )?;
                }
                if r.usize(..20) == 0 {
                    writeln!(w, "ns1.{a}.tld.\t86400\tin\ta\t192.0.2.{}", r.usize(..250))?;
                }
            }
            w.flush()
        }
        "shapes" => {
            let pct: usize = args.get(3).and_then(|s| s.parse().ok()).expect(usage);
            let dir = args.get(4).expect(usage);
            let corpus = args.get(5).map_or("../shared/golden/corpus.tsv", String::as_str);
            let (deva, khmr) = words(corpus);
            let names = gen_names(&mut r, n, pct, &deva, &khmr);
            write_shapes(&mut r, names, dir)
        }
        "idn" => {
            let out = args.get(3).expect(usage);
            let corpus = args.get(4).map_or("../shared/golden/corpus.tsv", String::as_str);
            let (deva, khmr) = words(corpus);
            let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
            let mut seen = std::collections::HashSet::new();
            while seen.len() < n {
                label.clear();
                idn_label(&mut r, &deva, &khmr, &mut label);
                if alabel(&label).len() <= 63 && seen.insert(label.clone()) {
                    writeln!(w, "{label}")?;
                }
            }
            w.flush()
        }
        _ => panic!("{usage}"),
    }
}
