//! Criterion bench of label extraction on an in-memory CZDS-profile dump
//! (small and fixed-seed; `benches/extract.sh` measures the 1 GB file).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lgrscan::input::{Config, Input, NsTargets, read};

fn dump(domains: usize) -> Vec<u8> {
    let mut s = String::from("com.\t900\tin\tsoa\ta.gtld-servers.net. n.com. 1 2 3 4 5\n");
    let mut x = 42u64;
    for i in 0..domains {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let name = format!("d{i:08}{:x}", x % 4096);
        for n in 1..=2 + (x % 3) {
            s.push_str(&format!("{name}.com.\t172800\tin\tns\tns{n}.host{}.net.\n", x % 7));
        }
        if x.is_multiple_of(3) {
            s.push_str(&format!("{name}.com.\t86400\tin\tds\t1 13 2 {x:016x}\n"));
        }
    }
    s.into_bytes()
}

fn bench(c: &mut Criterion) {
    let data = dump(100_000);
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(10);
    for (name, ns) in [("labels", NsTargets::Skip), ("labels+ns", NsTargets::Collect)] {
        let config = Config::new().ns_targets(ns);
        g.bench_function(name, |b| {
            b.iter(|| {
                let input = Input::Bytes { name: "bench".into(), data: data.clone() };
                read([input], &config).map(|s| s.len()).unwrap_or(0)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
