//! The zone reader's two paths agree: an RFC 1035 master file read by the
//! careful parser alone (`Config::zone_fast_path(false)`) and by the fast
//! path, whole and cut into small parallel chunks, gives the same labels,
//! lines, offsets, NS targets, accounting and malformed lines.

use lgrscan::input::{self, Config, ErrorKind, Input, LabelSet, NsTargets};

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

/// [`master`]'s records of `n` names to follow another's: its SOA line
/// made an A record of `q0` (an SOA below the apex is another zone's).
fn more_of_master(n: usize) -> String {
    let m = master(n, &[]);
    let soa =
        "$ORIGIN tld.\n$TTL 86400\n@\tIN\tSOA\ta.nic hostmaster.nic 1 1800 900 604800 86400\n";
    assert!(m.starts_with(soa));
    m.replacen(soa, "q0\tIN\tA\t192.0.2.1\n", 1)
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
    s.push_str(&more_of_master(200));
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
    s.push_str(&more_of_master(2_000));
    assert!(s.len() > 2 << 20, "{}", s.len());
    assert_paths_agree_in(
        s.as_bytes(),
        "large chunks",
        &[(Some(1 << 20), 2), (Some(600 << 10), 1)],
    );
}

/// A line longer than 1 MiB is malformed whichever path meets it, in a
/// master file and in a CZDS dump, after lines the fast path reads (it
/// read such a line once it had gone fast, and the careful path refused
/// it: the exit status hung on the lines before).
#[test]
fn a_line_over_the_limit_is_malformed_on_both_paths() {
    let filler = "x".repeat(input::MAX_LINE_BYTES);
    let mut zone = master(3_000, &[]);
    zone.push_str(&format!("long\tIN\tTXT\t{filler}\nz\tIN\tNS\tns1.x.\n"));
    let mut czds = String::from("tld.\t86400\tin\tsoa\ta. b. 1 2 3 4 5\n");
    for i in 0..3_000 {
        czds.push_str(&format!("a{i:05}.tld.\t86400\tin\tns\tns1.x.\n"));
    }
    czds.push_str(&format!("long.tld.\t86400\tin\ttxt\t{filler}\nz.tld.\t1\tin\tns\tx.\n"));
    for (what, text) in [("master file", zone), ("CZDS dump", czds)] {
        assert_paths_agree_in(text.as_bytes(), what, &[(None, 2), (Some(1 << 20), 2)]);
        let set = read_with(text.as_bytes(), &Config::new(), 2);
        let m = &set.accounting().malformed_details;
        assert_eq!(m.len(), 1, "{what}: {m:?}");
        assert_eq!(m[0].reason, format!("line longer than {} bytes", input::MAX_LINE_BYTES));
        assert!(set.iter().any(|l| l.alabel() == "z"), "{what}");
    }
}

/// A name's stand-in NSEC3 hash: 32 base32hex digits (RFC 5155 §3.3).
fn fake_hash(i: usize, rng: &mut fastrand::Rng) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuv";
    let mut h: String = (0..32).map(|_| DIGITS[rng.usize(..32)] as char).collect();
    if i.is_multiple_of(17) {
        h.make_ascii_uppercase();
    }
    h
}

/// A signed zone's dump (RFC 5155): NSEC3 records and their RRSIGs at
/// hashed owners, one line each, between the delegations; and the
/// counts its accounting must give: (registered labels, NSEC3 records,
/// NSEC3 names).
fn signed_czds(n: usize, rng: &mut fastrand::Rng) -> (String, (u64, u64, u64)) {
    let mut s =
        String::from("tld.\t3600\tin\tsoa\ta.nic.tld. h.nic.tld. 1 1800 900 604800 86400\n");
    s.push_str("tld.\t3600\tin\tnsec3param\t1 0 0 -\n");
    let (mut nsec3, mut names) = (0, 0);
    for i in 0..n {
        s.push_str(&format!("d{i}.tld.\t86400\tin\tns\tns1.example.net.\n"));
        if i % 3 == 0 {
            s.push_str(&format!("d{i}.tld.\t86400\tin\tds\t1 8 2 ABCD\n"));
            s.push_str(&format!(
                "d{i}.tld.\t86400\tin\trrsig\tDS 8 2 86400 2026 2026 1 tld. AA==\n"
            ));
            let h = fake_hash(i, rng);
            s.push_str(&format!("{h}.tld.\t3600\tin\tnsec3\t1 1 0 - 2T7B4G4V NS DS RRSIG\n"));
            s.push_str(&format!(
                "{h}.tld.\t3600\tIN\tRRSIG\tNSEC3 8 2 3600 2026 2026 1 tld. AA==\n"
            ));
            (nsec3, names) = (nsec3 + 2, names + 1);
        }
    }
    // A hash-shaped label with a delegation, and NSEC3 data at a label
    // that is no hash: registered labels both.
    // The delegated one has NSEC3 data at its owner too (as RFC 5155
    // Appendix A's `2t7b4g4vsa5smi47k61mv5bv1a22bojr.example.`), counted
    // record by record.
    let d = fake_hash(1, rng);
    s.push_str(&format!("{d}.tld.\t86400\tin\tns\tns1.example.net.\n"));
    s.push_str(&format!("{d}.tld.\t3600\tin\tnsec3\t1 1 0 - 2T7B4G4V NS\n"));
    s.push_str(&format!("{d}.tld.\t3600\tin\trrsig\tNSEC3 8 2 3600 2026 2026 1 tld. AA==\n"));
    s.push_str(&format!("{d}.tld.\t86400\tin\tds\t1 8 2 ABCD\n"));
    s.push_str("nohash.tld.\t3600\tin\tnsec3\t1 1 0 - 2T7B4G4V NS\n");
    (s, (n as u64 + 2, nsec3 + 2, names + 1))
}

/// NSEC3 hashed owners are counted apart, not registered, by both paths,
/// in any order of the records (#27: a signed TLD's dump counted each as a
/// registered label).
#[test]
fn nsec3_hashed_owners_are_not_registered_labels() {
    let mut rng = fastrand::Rng::with_seed(5155);
    let (text, (registered, nsec3, names)) = signed_czds(3000, &mut rng);
    assert_paths_agree(text.as_bytes(), "signed CZDS dump");
    let mut lines: Vec<&str> = text.lines().collect();
    let sorted = read_with(text.as_bytes(), &Config::new(), 2);
    rng.shuffle(&mut lines[1..]);
    let shuffled = read_with(format!("{}\n", lines.join("\n")).as_bytes(), &Config::new(), 2);
    for set in [&sorted, &shuffled] {
        let a = set.accounting();
        assert_eq!(
            (a.registered_labels, a.nsec3_records, a.nsec3_names, a.malformed),
            (registered, nsec3, names, 0)
        );
        // The delegated hash-shaped label only.
        assert_eq!(set.iter().filter(|l| l.alabel().len() == 32).count(), 1);
    }
    assert_eq!(sorted.accounting(), shuffled.accounting());

    // A master file: a blank owner goes on with the hashed owner's class;
    // a record of another type there is malformed, as its label is not
    // kept.
    let h = fake_hash(2, &mut rng);
    let mut m = master(300, &[]);
    m.push_str(&format!("{h}\t3600\tIN\tNSEC3\t1 1 0 - 2T7B4G4V NS\n"));
    m.push_str("\t3600\tIN\tRRSIG\tNSEC3 8 2 3600 2026 2026 1 tld. AA==\n");
    m.push_str("\t3600\tIN\tNS\tns1.example.net.\n");
    m.push_str(&format!("{h}\t3600\tIN\tRRSIG\tNSEC3 8 2 3600 ( 2026 2026 1 tld.\n AA== )\n"));
    assert_paths_agree(m.as_bytes(), "signed master file");
    let a = read_with(m.as_bytes(), &Config::new(), 2).accounting().clone();
    assert_eq!((a.nsec3_records, a.nsec3_names, a.malformed), (3, 1, 1));
    let detail = &a.malformed_details[0].reason;
    assert!(detail.contains("NS record at an NSEC3 hashed owner"), "{detail}");
}

/// NSEC3 data written by type number (RFC 3597 §5, as a tool that does
/// not know the type writes it) is NSEC3 data as `NSEC3` is, on both
/// paths: `TYPE50` in any case, an RRSIG covering `TYPE50`, and an RRSIG
/// written `TYPE46` with its RDATA in the generic form (`\# len hex`,
/// the type covered its first two octets).
#[test]
fn nsec3_data_by_type_number_is_nsec3_data() {
    let mut rng = fastrand::Rng::with_seed(3597);
    let (text, (registered, nsec3, names)) = signed_czds(3000, &mut rng);
    // The record of `line` from `field` on (its type and RDATA) written
    // `by`: RDATA in the generic form is all of it.
    let respell = |line: &str, field: &str, by: &str| match line.find(field) {
        Some(k) => format!("{}{by}", &line[..k]),
        None => line.to_string(),
    };
    let spell = |(j, line): (usize, &str)| {
        let line = match j % 3 {
            0 => line.replace("\tnsec3\t", "\tTYPE50\t"),
            1 => respell(line, "\tnsec3\t", "\ttype50\t\\# 5 01 01 0000 00"),
            _ => line.to_string(),
        };
        let rrsig = ["\tRRSIG\tNSEC3 8 2 3600", "\trrsig\tNSEC3 8 2 3600"];
        let by = match j % 4 {
            0 => "\tRRSIG\tTYPE50 8 2 3600",
            1 => "\trrsig\tType50 8 2 3600",
            2 => {
                let generic = "\tTYPE46\t\\# 8 00 32 0802 00000E10";
                return rrsig.iter().fold(line, |l, r| respell(&l, r, generic));
            }
            _ => return line,
        };
        rrsig.iter().fold(line, |l, r| l.replace(r, by))
    };
    let text: String = text.lines().enumerate().map(|l| spell(l) + "\n").collect();
    for spelled in ["\tTYPE50\t", "\ttype50\t\\# ", "\tTYPE50 ", "\tType50 ", "\tTYPE46\t"] {
        assert!(text.matches(spelled).count() > 200, "{spelled:?}");
    }
    assert_paths_agree(text.as_bytes(), "signed CZDS dump by type number");
    let a = read_with(text.as_bytes(), &Config::new(), 2).accounting().clone();
    assert_eq!(
        (a.registered_labels, a.nsec3_records, a.nsec3_names, a.malformed),
        (registered, nsec3, names, 0)
    );

    // A master file: a blank owner after `TYPE50` goes on with the hashed
    // owner's class, as after `NSEC3`.
    let h = fake_hash(2, &mut rng);
    let mut m = master(300, &[]);
    m.push_str(&format!("{h}\t3600\tIN\tTYPE50\t\\# 9 01010000 0000000000\n"));
    m.push_str("\t3600\tIN\tRRSIG\tTYPE50 8 2 3600 2026 2026 1 tld. AA==\n");
    m.push_str("\t3600\tIN\tTYPE46\t\\# 12 0032 0802 00000E10 ( 0000\n 0000 )\n");
    m.push_str("\t3600\tIN\tNS\tns1.example.net.\n");
    assert_paths_agree(m.as_bytes(), "signed master file by type number");
    let a = read_with(m.as_bytes(), &Config::new(), 2).accounting().clone();
    assert_eq!((a.nsec3_records, a.nsec3_names, a.malformed), (3, 1, 1));
    let detail = &a.malformed_details[0].reason;
    assert!(detail.contains("NS record at an NSEC3 hashed owner"), "{detail}");
}

/// RDATA in the generic form (`\\# len hex`, RFC 3597 §5) is exactly
/// `len` octets: a record whose data is shorter, longer or not hex is a
/// malformed line on both paths, whatever its type and owner (dnspython
/// and BIND refuse it), also after lines of the same fields, which the
/// fast path knows; an RRSIG so written is no NSEC3 data (`TYPE46 \\# 22
/// 0032…` with 8 octets was).
#[test]
fn generic_rdata_of_the_wrong_length_is_malformed() {
    let good = [
        "g1\tIN\tA\t\\# 4 c0000201",
        "g2\tIN\tTXT\t\\# 0",
        "g3\t3600\tin\tds\t\\# 4 0108 02ab",
        "ns1.g4\tIN\tA\t\\# 4 c0 00 02 01",
        "g5\tIN\tA\t\\# 4 c0000201 ; a comment",
        "g6\tIN\tA\t\\# 2 c000 ; 01",
        "g7\tIN\tA\t\\#x",
        "g8\tIN\tCNAME\t\\065.example.",
        "g9\tIN\tNS\t\\# 3 01 61 00",
    ];
    let bad = [
        "b1\tIN\tA\t\\# 3 c0000201",
        "b2\tIN\tA\t\\# 5 c0000201",
        "b3\tIN\tTXT\t\\# 0 00",
        "b4\t3600\tin\tds\t\\# 22 0108 02ab",
        "b5\t3600\tin\tds\t  \\# 22 0108 02ab",
        "ns1.b6\tIN\tA\t\\# 3 c0 00 02 01",
        "\tIN\tA\t\\# 4 c00002",
        "b8\tIN\tNS\t\\# 4 01 61 00",
        "b9\tIN\tTYPE65280\t\\# 2 0g00",
        "b10\tIN\tA\t\\#",
        "b11\tIN\tA\t\\#;x",
        "b12\tIN\tA\t\\# -4 c0000201",
        "@\tIN\tTXT\t\\# 1 0",
        "b13\tIN\tNS\t\\# 4 01 61 00 00",
    ];
    let odd: Vec<&str> = good.iter().chain(&bad).copied().collect();
    let text = master(80 * odd.len(), &odd);
    assert_paths_agree(text.as_bytes(), "generic RDATA in a master file");
    let a = read_with(text.as_bytes(), &Config::new(), 2).accounting().clone();
    assert_eq!(a.malformed, 2 * bad.len() as u64);
    for m in &a.malformed_details {
        let reason = &m.reason;
        let generic = reason.starts_with("RDATA: ") && reason.contains("\\#");
        assert!(generic || reason == "NS target: data after the name in RDATA", "{reason}");
    }

    // The RRSIG of every other NSEC3 record written `TYPE46` with 8 of
    // the 22 octets its length says.
    let mut rng = fastrand::Rng::with_seed(35975);
    let (text, (registered, nsec3, names)) = signed_czds(3000, &mut rng);
    let rrsig = "\tIN\tRRSIG\tNSEC3 8 2 3600 2026 2026 1 tld. AA==";
    let short = "\tIN\tTYPE46\t\\# 22 0032 0802 00000e10";
    let mut n = 0;
    let text: String = text
        .lines()
        .map(|line| {
            let line = if line.ends_with(rrsig) {
                n += 1;
                if n % 2 == 0 { line.replace(rrsig, short) } else { line.to_string() }
            } else {
                line.to_string()
            };
            line + "\n"
        })
        .collect();
    assert_eq!(n, 1000);
    assert_paths_agree(text.as_bytes(), "signed CZDS dump with short generic RRSIGs");
    let a = read_with(text.as_bytes(), &Config::new(), 2).accounting().clone();
    assert_eq!(
        (a.registered_labels, a.nsec3_records, a.nsec3_names, a.malformed),
        (registered, nsec3 - 500, names, 500)
    );
}

/// `name` (absolute, in presentation form) in wire format, in hex.
fn wire_hex(name: &str) -> String {
    let mut hex = String::new();
    for label in name.trim_end_matches('.').split('.') {
        hex += &format!("{:02x}", label.len());
        hex.extend(label.bytes().map(|b| format!("{b:02x}")));
    }
    hex + "00"
}

/// A sorted CZDS dump of `n` delegations, its SOA and NS records spelled
/// by `spell(i)` (the type and RDATA of the record of line `i`).
fn dump_spelled(n: usize, spell: impl Fn(usize, &str, &str) -> String) -> String {
    let mut s = format!("tld.\t3600\tin\t{}\n", spell(0, "soa", "a.nic.tld. h.nic.tld. 1 2 3 4 5"));
    for i in 1..=n {
        let target = format!("ns{}.dns{}.example.net.", i % 2, i % 13);
        s += &format!("d{i}.tld.\t86400\tin\t{}\n", spell(i, "ns", &target));
        if i % 4 == 0 {
            s += &format!("d{i}.tld.\t86400\tin\t{}\n", spell(i + n, "ns", "ns9.example.net."));
        }
        if i % 5 == 0 {
            s += &format!("ns1.d{i}.tld.\t86400\tin\ta\t192.0.2.1\n");
        }
    }
    s
}

/// Record types written by number (RFC 3597 §5) are read as by name, by
/// both paths, as dnspython reads them: `TYPE6` is the SOA that gives a
/// dump its apex, `TYPE2` an NS record whose target is collected, also
/// from RDATA in the generic form (`\# 17 036e73…`, a name in wire
/// format; `NS \# …` was read as a target named `#`).
#[test]
fn types_by_number_are_read_as_by_name() {
    let by_name = dump_spelled(3000, |_, ty, rdata| format!("{ty}\t{rdata}"));
    let by_number = dump_spelled(3000, |i, ty, rdata| {
        let number = if ty == "soa" { "TYPE6" } else { ["TYPE2", "type2", "Type2"][i % 3] };
        match i % 4 {
            0 if ty == "ns" => format!("ns\t\\# {} {}", rdata.len() + 1, wire_hex(rdata)),
            1 | 2 if ty == "ns" => format!("{number}\t{rdata}"),
            3 if ty == "ns" => format!("{number}\t\\# {} {}", rdata.len() + 1, wire_hex(rdata)),
            _ if ty == "soa" => format!("{number}\t{rdata}"),
            _ => format!("{ty}\t{rdata}"),
        }
    });
    assert!(by_number.contains("\tTYPE6\t") && by_number.contains("\tType2\t\\# 2"));
    assert_paths_agree(by_number.as_bytes(), "CZDS dump by type number");
    // The labels, their NS targets and counts of the dump by name (the
    // offsets and bytes differ).
    let read = |text: &str| {
        let set = read_with(text.as_bytes(), &Config::new().ns_targets(NsTargets::Collect), 2);
        let labels: Vec<String> = set
            .iter()
            .map(|l| {
                format!("{} {} {:?}", l.alabel(), l.line(), l.ns_targets().collect::<Vec<_>>())
            })
            .collect();
        let a = set.accounting();
        (labels, (a.records, a.apex_records, a.registered_labels, a.deeper_records, a.malformed))
    };
    let (want, got) = (read(&by_name), read(&by_number));
    assert_eq!(want.1, (3000 + 750 + 600 + 1, 1, 3000, 600, 0));
    assert_eq!(got.1, want.1);
    let differ = want.0.iter().zip(&got.0).find(|(w, g)| w != g);
    assert_eq!((differ, got.0.len()), (None, want.0.len()));
}

/// A type number with leading zeros (`TYPE050`, `type0002`) is the
/// number, of any count of digits, as dnspython reads it
/// (`dns.rdatatype.from_text("TYPE000050")` is 50), on both paths; one
/// over 65535 is no type number.
#[test]
fn type_numbers_with_leading_zeros() {
    let counts = |text: &str| {
        let set = read_with(text.as_bytes(), &Config::new().ns_targets(NsTargets::Collect), 2);
        let ns: Vec<usize> = set.iter().map(|l| l.ns_targets().count()).collect();
        let a = set.accounting();
        (ns, (a.registered_labels, a.apex_records, a.nsec3_records, a.nsec3_names, a.malformed))
    };
    let by_name = dump_spelled(2000, |_, ty, rdata| format!("{ty}\t{rdata}"));
    let zeros = ["TYPE02", "type0002", "Type0000000002"];
    let by_number = dump_spelled(2000, |i, ty, rdata| match ty {
        "soa" => format!("TYPE000006\t{rdata}"),
        _ => format!("{}\t{rdata}", zeros[i % 3]),
    });
    assert_paths_agree(by_number.as_bytes(), "CZDS dump by type number with leading zeros");
    assert_eq!(counts(&by_number), counts(&by_name));
    // NSEC3 data: `TYPE050`, and an RRSIG covering `TYPE0050`.
    let mut rng = fastrand::Rng::with_seed(50);
    let (by_name, (registered, nsec3, names)) = signed_czds(900, &mut rng);
    let signed = by_name
        .replace("\tnsec3\t", "\tTYPE050\t")
        .replace("\tRRSIG\tNSEC3 ", "\tRRSIG\ttype0050 ");
    assert_paths_agree(signed.as_bytes(), "signed CZDS dump by type number with leading zeros");
    let (want, got) = (counts(&by_name), counts(&signed));
    assert_eq!((got.1.0, got.1.2, got.1.3, got.1.4), (registered, nsec3, names, 0));
    assert_eq!(got, want);
    // Over 65535: no type, so `TYPE065538` (65538 = 65536 + 2) is no NS.
    let over =
        dump_spelled(2000, |_, ty, rdata| format!("{}\t{rdata}", ty.replace("ns", "TYPE065538")));
    assert_paths_agree(over.as_bytes(), "type numbers over 65535");
    assert!(counts(&over).0.iter().all(|&n| n == 0));
}

/// An SOA below the apex is another zone's (a child's, or `--origin`
/// naming a parent): an error on both paths, as one outside it is. It
/// was read as a record of a registered label, or of a name below depth,
/// and a scan under a parent's apex audited almost nothing, exit 0.
#[test]
fn an_soa_below_the_apex_is_another_zones() {
    let mut dump = String::from("aa.\t86400\tin\tsoa\ta.nic.aa. h.nic.aa. 1 2 3 4 5\n");
    for i in 0..3_000 {
        dump.push_str(&format!("d{i:05}.aa.\t86400\tin\tns\tns1.x.net.\n"));
    }
    for soa in
        ["sub.aa.\t86400\tin\tsoa\ta. h. 1 2 3 4 5", "deep.sub.aa.\t1\tIN\tTYPE6\ta. h. 1 2 3 4 5"]
    {
        let child = format!("{dump}{soa}\nz.aa.\t1\tin\tns\tx.\n");
        let owner = soa.split('\t').next().unwrap();
        for (fast, chunk) in [(true, None), (true, Some(4096)), (false, None)] {
            let config = Config::new().zone_fast_path(fast).chunk_bytes(chunk);
            let input = Input::Bytes { name: "aa".into(), data: child.clone().into_bytes() };
            let e = input::read([input], &config).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::OtherZone(soa, apex) if soa == owner && apex == "aa."),
                "{owner}, fast path {fast}, chunks {chunk:?}: {e}"
            );
        }
    }
    for fast in [true, false] {
        let config = Config::new().zone_fast_path(fast).origin(Some("."));
        let input = Input::Bytes { name: "aa".into(), data: dump.clone().into_bytes() };
        let e = input::read([input], &config).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::OtherZone(soa, apex) if soa == "aa." && apex == "."),
            "{e}"
        );
    }
}

/// An SOA written by type number (`TYPE6`, RFC 3597 §5) is an SOA on
/// both paths: the apex when it comes after the first records, and
/// another zone's is an error.
#[test]
fn an_soa_by_type_number_is_an_soa() {
    let late = b"foo.ex. 3600 IN A 192.0.2.1\nex. 3600 IN type6 a. b. 1 2 3 4 5\n";
    let aa = b"aa.\t86400\tin\tTYPE6\ta. h. 1 2 3 4 5\nfoo.aa.\t3600\tin\tns\tx.\n";
    let bb = b"bar.bb.\t3600\tin\tns\tx.\nbb.\t86400\tIN\tTYPE6\ta. h. 1 2 3 4 5\n";
    let bytes = |name: &str, data: &[u8]| Input::Bytes { name: name.into(), data: data.to_vec() };
    for fast in [true, false] {
        let config = Config::new().zone_fast_path(fast);
        for (name, text, apex) in [("late", &late[..], "ex."), ("aa", aa, "aa.")] {
            let set = read_with(text, &config, 1);
            let labels: Vec<&str> = set.iter().map(|l| l.alabel()).collect();
            assert_eq!((set.apex(), labels), (Some(apex), vec!["foo"]), "{name}, fast path {fast}");
        }
        let e = input::read([bytes("aa", aa), bytes("bb", bb)], &config).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::OtherZone(soa, apex) if soa == "bb." && apex == "aa."),
            "fast path {fast}: {e}"
        );
    }
}
