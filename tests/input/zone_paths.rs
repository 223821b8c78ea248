//! The zone reader's two paths agree: an RFC 1035 master file read by the
//! careful parser alone (`Config::zone_fast_path(false)`) and by the fast
//! path, whole and cut into small parallel chunks, gives the same labels,
//! lines, offsets, NS targets, accounting and malformed lines.

use lgrscan::input::{self, Config, Input, LabelSet, NsTargets};

/// Everything a read gives that the paths must agree on.
fn outcome(set: &LabelSet) -> Vec<String> {
    let mut out: Vec<String> = set
        .iter()
        .map(|l| {
            format!(
                "{:?} {} {} line={} off={} ns={:?}",
                l.original_text(),
                l.alabel(),
                l.ulabel(),
                l.line(),
                l.offset(),
                l.ns_targets().collect::<Vec<_>>(),
            )
        })
        .collect();
    out.push(format!("{:?}", set.accounting()));
    out
}

fn read_with(text: &[u8], config: &Config, threads: usize) -> LabelSet {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let input = Input::Bytes { name: "m.zone".into(), data: text.to_vec() };
    let set = pool.install(|| input::read([input], config)).expect("reads");
    set.accounting().check().expect("accounting adds up");
    set
}

/// Reads `text` the careful way and every fast way; asserts they agree.
fn assert_paths_agree(text: &[u8], what: &str) {
    assert_paths_agree_in(text, what, &[(None, 2), (Some(61), 1), (Some(97), 3), (Some(4096), 2)]);
}

/// Reads `text` the careful way and the fast way in chunks of these sizes
/// (`None`: the default) on these numbers of threads; asserts they agree.
fn assert_paths_agree_in(text: &[u8], what: &str, ways: &[(Option<usize>, usize)]) {
    for ns in [NsTargets::Collect, NsTargets::Skip] {
        let base = Config::new().ns_targets(ns);
        let careful = outcome(&read_with(text, &base.clone().zone_fast_path(false), 1));
        for &(chunk, threads) in ways {
            let config = base.clone().chunk_bytes(chunk);
            let fast = outcome(&read_with(text, &config, threads));
            if fast != careful {
                let at = fast.iter().zip(&careful).take_while(|(a, b)| a == b).count();
                panic!(
                    "{what}: chunks {chunk:?} on {threads} threads, NS {ns:?}: differs at \
                     {at}:\n fast:    {:?}\n careful: {:?}",
                    fast.get(at),
                    careful.get(at)
                );
            }
        }
    }
}

/// A master file in the shape of `benches/formats.sh`'s `master-*` files.
fn master(n: usize, odd: &[&str]) -> String {
    let mut s = String::from("$ORIGIN tld.\n$TTL 86400\n");
    s.push_str("@\tIN\tSOA\ta.nic hostmaster.nic 1 1800 900 604800 86400\n");
    s.push_str("\t172800\tIN\tNS\ta.nic\n");
    for i in 0..n {
        let label = match i % 7 {
            0 => format!("xn--bcher{i}-kva"),
            1 => format!("Up{i}"),
            _ => format!("a{i:05}"),
        };
        s.push_str(&format!("{label}\tIN\tNS\tns1.dns{}.example.net.\n", i % 13));
        s.push_str(&format!("\tIN\tNS\tns2.dns{}.example.net.\n", i % 11));
        if i % 5 == 0 {
            s.push_str(&format!("ns1.{label}\tIN\tA\t192.0.2.{}\n", i % 250));
        }
        if i % 9 == 0 {
            s.push_str(&format!("{label}\t3600\tin\tds\t1 8 2 ABCD\n"));
        }
        if !odd.is_empty() && i % 40 == 20 {
            s.push_str(odd[(i / 40) % odd.len()]);
            s.push('\n');
        }
    }
    s
}

#[test]
fn master_file_read_the_same_by_both_paths() {
    assert_paths_agree(master(600, &[]).as_bytes(), "plain master file");
}

#[test]
fn master_file_shapes_read_the_same_by_both_paths() {
    let odd = [
        "; a comment line",
        "",
        "   ",
        "\t; an indented comment",
        "b1 IN NS ns1.example.net.",
        "b2\tNS\tns1.example.net.\t; a comment after the target",
        "b3\tIN\t300\tNS\tns1",
        "b4\t300\tIN\tNS\tns1.b4",
        "B5\tin\tns\tNS1.EXAMPLE.NET.",
        "b6.tld.\tIN\tNS\tns1.example.net.",
        "b7.TLD.\tIN\tNS\tns1.example.net.",
        "deep.b8\tIN\tA\t192.0.2.1",
        "@\tIN\tNS\tb.nic",
        "b9\tIN\tTXT\t\"a;b(\"",
        "b10\tIN\tTXT\t( \"x\"\n\t\"y\" )",
        "b11\tIN\tMX\t( 10\n mx.b11 )",
        "b12\\.x\tIN\tNS\tns1.example.net.",
        "b13\\065\tIN\tNS\tns1.example.net.",
        "b14\tIN\tNS",
        "b15\tIN\tNS\ta..b",
        "b16\tIN",
        "\tIN\tNS\tns3.example.net.",
        "\tIN\tNS\t@",
        "\tIN\tNS\tbad..name.",
        "$TTL 300",
        "$ORIGIN sub.tld.",
        "c1\tIN\tNS\tns1.example.net.",
        "$ORIGIN tld.",
        "$ORIGIN other.",
        "d1\tIN\tNS\tns1.example.net.",
        "$ORIGIN TLD.",
        "out.side.\tIN\tA\t192.0.2.9",
        "b17\tIN\tNS\tns1.example.net.\r",
        "b18\t)\tIN\tNS\tx.",
        "b19 ( IN NS x. )",
        "$UNKNOWN x",
        "b20\tIN\tA\t192.0.2.1 \\( x",
        "xn--bcher0-kva\tIN\tNS\tdup.example.net.",
    ];
    assert_paths_agree(master(1200, &odd).as_bytes(), "master file with odd lines");
}

/// A line that opens parentheses past a chunk's end, and an unclosed one.
#[test]
fn parentheses_across_chunks() {
    let mut s = master(200, &[]);
    s.push_str("p1\tIN\tTXT\t(\n\"a\"\n\"b\"\n)\n");
    s.push_str(&master(200, &[]).replace("$ORIGIN tld.\n$TTL 86400\n@", "q0"));
    s.push_str("p2\tIN\tTXT\t( never closed\n");
    s.push_str("p3\tIN\tNS\tns1.example.net.\n");
    assert_paths_agree(s.as_bytes(), "parentheses");
}

/// Chunks larger than the window the fast path looks for parentheses and
/// quotes in (256 KiB at a time, ahead of the lines it extracts): careful
/// lines in a chunk's first window, in a later one and across a window's
/// end, and a line longer than a window, with none.
#[test]
fn careful_lines_in_later_windows_of_a_chunk() {
    let odd = [
        "b9\tIN\tTXT\t\"a;b(\"",
        "b10\tIN\tTXT\t( \"x\"\n\t\"y\" )",
        "b19 ( IN NS x. )",
        "$TTL 300",
    ];
    let mut s = master(30_000, &[]);
    // Odd lines far apart: each 1 MiB chunk has some past its first window.
    for (k, at) in [300_000usize, 700_000, 1_100_000, 1_900_000].into_iter().enumerate() {
        let line_start = s[..at].rfind('\n').map_or(0, |i| i + 1);
        s.insert_str(line_start, &format!("{}\n", odd[k % odd.len()]));
    }
    s.push_str(&format!("long\tIN\tTXT\t{}\n", "x".repeat(300 << 10)));
    s.push_str(&master(2_000, &[]).replace("$ORIGIN tld.\n$TTL 86400\n@", "q0"));
    assert!(s.len() > 2 << 20, "{}", s.len());
    assert_paths_agree_in(
        s.as_bytes(),
        "large chunks",
        &[(Some(1 << 20), 2), (Some(600 << 10), 1)],
    );
}
