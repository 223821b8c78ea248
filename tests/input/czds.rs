//! Tests of `lgrscan::input` (issue #3): CZDS dumps, read by the fast path
//! (sequential and in parallel chunks) as by the general parser, mapped,
//! as a stream and gzip, several inputs and a second zone.

use crate::reader::{CONSTRUCTS, mmap};
use crate::util::*;
use lgrscan::idna2008;
use lgrscan::input::{
    Accounting, Config, ErrorKind, Input, InputFormat, LabelText, MmapChoice, NsTargets, read,
};

//------------ CZDS profile ----------------------------------------------

pub(crate) fn czds_sample() -> String {
    let mut s = String::from("tld.\t900\tin\tsoa\ta.nic.tld. hostmaster.nic.tld. 1 2 3 4 5\n");
    s.push_str("tld.\t172800\tin\tns\ta.nic.tld.\n");
    for name in ["aaa", "abc", "xn--bcher-kva", "zeta"] {
        s.push_str(&format!("{name}.tld.\t172800\tin\tns\tns1.{name}.tld.\n"));
        s.push_str(&format!("{name}.tld.\t172800\tin\tns\tns2.example.net.\n"));
        s.push_str(&format!("{name}.tld.\t86400\tin\tds\t1 8 2 ABCD\n"));
        s.push_str(&format!("ns1.{name}.tld.\t172800\tin\ta\t192.0.2.1\n"));
    }
    // Out of order and repeated: must still be deduplicated.
    s.push_str("abc.tld.\t172800\tin\tns\tns3.example.net.\n");
    s.push_str("bbb.tld.\t172800\tin\tns\tns1.example.net.\n");
    s.push_str("ns.other.\t172800\tin\ta\t192.0.2.1\n");
    s
}

#[test]
fn czds_fast_path_matches_general_parser() {
    let fast_text = czds_sample();
    // A leading comment line makes the file leave the CZDS profile.
    let slow_text = format!("; not CZDS\n{fast_text}");
    let fast = read_bytes("fast.zone", fast_text.as_bytes(), &Config::new());
    let slow = read_bytes("slow.zone", slow_text.as_bytes(), &Config::new());
    assert!(fast.sources()[0].czds_profile);
    assert!(!slow.sources()[0].czds_profile);
    assert_eq!(alabels(&fast), ["aaa", "abc", "xn--bcher-kva", "zeta", "bbb"]);
    assert_eq!(alabels(&fast), alabels(&slow));
    let ns = |s: &lgrscan::input::LabelSet| {
        s.iter().map(|l| l.ns_targets().collect::<Vec<_>>().join(",")).collect::<Vec<_>>()
    };
    assert_eq!(ns(&fast), ns(&slow));
    assert_eq!(ns(&fast)[1], "ns1.abc.tld.,ns2.example.net.,ns3.example.net.");
    let (a, b) = (fast.accounting(), slow.accounting());
    assert_eq!(a.records, b.records);
    assert_eq!(a.duplicate_records, b.duplicate_records);
    assert_eq!(a.deeper_records, 4);
    assert_eq!(a.outside_records, 1);
    assert_eq!(a.apex_records, 2);
    assert_eq!(a.registered_labels, 5);
    assert_eq!(a.duplicate_records, 4 * 2 + 1);
    // NS collection can be skipped.
    let skip =
        read_bytes("fast.zone", fast_text.as_bytes(), &Config::new().ns_targets(NsTargets::Skip));
    assert_eq!(alabels(&skip), alabels(&fast));
    assert_eq!(skip.get(0).unwrap().ns_targets().count(), 0);
}

/// Owners, fields and NS targets a CZDS-profile dump should not have, each
/// between well-formed lines (found by fuzzing): the fast path must leave them to the general
/// parser, so the labels, counts, malformed lines and NS targets are those
/// of the general parser reading the whole file.
#[test]
fn czds_fast_path_leaves_odd_lines_to_the_general_parser() {
    let long_owner = format!("{}.tld.", "a.".repeat(130));
    let long_target = format!("ns.{}.net.", "a".repeat(300));
    let odd: Vec<String> = [
        "..tld.\t1\tin\tns\tx.",
        ".x.tld.\t1\tin\tns\tx.",
        "x..tld.\t1\tin\tns\tx.",
        "0;.tld.\t1\tin\tns\tx.",
        "x(.tld.\t1\tin\tns\tx.",
        "x).tld.\t1\tin\tns\tx.",
        "a\"b.tld.\t1\tin\tns\tx.",
        "..\t1\tin\tns\tx.",
        ".\t1\tin\tns\tx.",
        &format!("{long_owner}\t1\tin\tns\tx."),
        // NS targets that the presentation format escapes or lowers.
        "x.tld.\t1\tin\tns\t$.",
        "x.tld.\t1\tin\tns\t@.",
        "x.tld.\t1\tin\tns\t\u{f8}.",
        "x.tld.\t1\tin\tns\tNS1.X.NET.",
        // Fields after the owner that are missing or not names.
        "x.tld.\t1\tin\tns",
        "x.tld.\t1",
        "x.tld.\t1\tin",
        "x.tld.\t1 ; in ns x.",
        &format!("x.tld.\t1\tin\tns\t{long_target}"),
        "x.tld.\t1\tin\tns\ta..b.",
        "x.tld.\t1\tin\tns\t.a.",
        "x.tld.\t1\tin\tns\tns1",
        "x.tld.\t1\tin\tns\t@",
        "x.tld.\t1\tin\tns\ta\\.b.",
        "x.tld.\t1\tin\tns\t(a.)",
        "x.tld.\t1\tin\tns\t;no target",
        "x.tld.\t1\tin\tns\t(",
        "x.tld.\t1\tin\tns\tx.;c",
        "x.tld.\t1\tin\ttxt\t\"a;b\"",
        // RDATA with a quote or a parenthesis left open (found by fuzzing
        // `zone_paths`): malformed, or the start of a bounded entry, as
        // the general parser reads it, in the CZDS profile too.
        "x.tld.\t1\tin\tds\t30055 13 2 e60b3a5d\"af",
        "x.tld.\t1\tin\tds\t30055 13 ( 2 e60b3a5d",
        "x.tld.\t1\tin\ttxt\ta)b",
        "x.tld.\t\rns\t.",
        "x.tld.\tns\r.",
        "x.tld.\tns\tx.\r\u{8a}",
        "x.tld.\tns\tx. ; comment",
        "x.tld.\tns\t.",
        "x.tld.\t1\tin\tns\tns1.x.tld.\tns2.x.tld.",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    // The line as an owner's first (its owner may be registered by the
    // next line) and as a later one; NS targets collected or not.
    let good = "x.tld.\t1\tin\tns\tns9.example.net.\n";
    let configs = [Config::new(), Config::new().ns_targets(NsTargets::Skip)];
    for (line, later, config) in odd
        .iter()
        .flat_map(|l| [(l, false), (l, true)])
        .flat_map(|(l, later)| configs.iter().map(move |c| (l, later, c)))
    {
        let mut text = String::from("tld.\t900\tin\tsoa\ta.nic.tld. h.nic.tld. 1 2 3 4 5\n");
        for i in 0..200 {
            text.push_str(&format!("a{i}.tld.\t1\tin\tns\tns1.example.net.\n"));
            if i == 100 {
                let pair = if later { [good, line] } else { [line, good] };
                for l in pair {
                    text.push_str(l.trim_end_matches('\n'));
                    text.push('\n');
                }
            }
        }
        let fast = read_bytes("fast.zone", text.as_bytes(), config);
        let slow = read_bytes("slow.zone", format!("$TTL 1\n{text}").as_bytes(), config);
        assert!(fast.sources()[0].czds_profile && !slow.sources()[0].czds_profile);
        let (a, b) = (fast.accounting(), slow.accounting());
        let what = format!("{} (later: {later})", line.escape_debug());
        assert_eq!(alabels(&fast), alabels(&slow), "{what}");
        assert_eq!(
            (a.records, a.malformed, a.registered_labels, a.deeper_records, a.outside_records),
            (b.records, b.malformed, b.registered_labels, b.deeper_records, b.outside_records),
            "{what}"
        );
        let lines = |d: &[lgrscan::input::Malformed], shift| {
            d.iter().map(|m| (m.line - shift, m.reason.clone())).collect::<Vec<_>>()
        };
        assert_eq!(lines(&a.malformed_details, 0), lines(&b.malformed_details, 1), "{what}");
        let ns = |s: &lgrscan::input::LabelSet| {
            s.iter().map(|l| l.ns_targets().collect::<Vec<_>>().join(",")).collect::<Vec<_>>()
        };
        assert_eq!(ns(&fast), ns(&slow), "{what}");
        a.check().unwrap();
    }
}

/// An owner whose name the presentation format escapes (`$`, non-ASCII
/// octets), read by both paths (a record in parentheses between its records
/// is the general parser's): one name, as the general parser counts.
#[test]
fn czds_names_counted_as_the_general_parser_writes_them() {
    for owner in ["a$b.x.tld.", "a\u{fc}.x.tld.", "a@b.other.", "UP.X.TLD."] {
        let mut text = String::from("tld.\t900\tin\tsoa\ta.nic.tld. h.nic.tld. 1 2 3 4 5\n");
        for i in 0..150 {
            text.push_str(&format!("a{i}.tld.\t1\tin\tns\tns1.example.net.\n"));
        }
        text.push_str(&format!("{owner}\t1\tin\ta\t192.0.2.1\n"));
        text.push_str(&format!("{owner}\t( 1 in a 192.0.2.3 )\n"));
        text.push_str(&format!("{owner}\t1\tin\ta\t192.0.2.2\n"));
        let fast = read_bytes("fast.zone", text.as_bytes(), &Config::new());
        let slow = read_bytes("slow.zone", format!("$TTL 1\n{text}").as_bytes(), &Config::new());
        assert!(fast.sources()[0].czds_profile);
        let (a, b) = (fast.accounting(), slow.accounting());
        assert_eq!(a.owner_names, b.owner_names, "{owner}");
        assert_eq!(a.owner_names, 152, "{owner}");
        a.check().unwrap();
    }
}

/// A last line that ends where an NS target would start, with no newline:
/// the general parser's `NS record without target`, not a record (and the
/// fast path reads no further than the data).
#[test]
fn czds_last_line_without_target() {
    let mut text = String::from("tld.\t900\tin\tsoa\ta.nic.tld. h.nic.tld. 1 2 3 4 5\n");
    text.push_str("x.tld.\t1\tin\tns\tns1.example.net.\n");
    for last in ["x.tld.\t1\tin\tns\t", "x.tld.\t1\tin\tns", "y.tld.\t1\tin\tns\t"] {
        for config in [Config::new(), Config::new().ns_targets(NsTargets::Skip)] {
            let text = format!("{text}{last}");
            let fast = read_bytes("fast.zone", text.as_bytes(), &config);
            let slow = read_bytes("slow.zone", format!("$TTL 1\n{text}").as_bytes(), &config);
            assert!(fast.sources()[0].czds_profile);
            let (a, b) = (fast.accounting(), slow.accounting());
            assert_eq!((a.records, a.malformed), (b.records, b.malformed), "{last:?}");
            assert_eq!((a.records, a.malformed), (2, 1), "{last:?}");
            assert_eq!(alabels(&fast), ["x"]);
        }
    }
}

/// A-labels of Devanagari strings: valid IDNs, and some that are not (not
/// NFC: nukta after virama; a combining mark first), encoded without
/// checks; and A-labels that do not decode or decode to ASCII. The fast
/// path computes the forms of the valid ones.
fn idn_labels() -> Vec<String> {
    let mut out: Vec<String> = (0..400u32)
        .map(|i| {
            let cps = [0x915 + i % 37, 0x93E + (i / 37) % 12, 0x915 + (i * 7) % 37];
            let mut u: String = cps.iter().filter_map(|&c| char::from_u32(c)).collect();
            match i % 50 {
                0 => u.insert(0, '\u{93F}'),
                1 => u.push_str("\u{94D}\u{93C}"),
                _ => {}
            }
            format!("xn--{}", idna::punycode::encode_str(&u).expect("short"))
        })
        .collect();
    out.extend(["xn--99999999999", "xn--abc-", "xn--a-ecp"].map(String::from));
    out.sort();
    out.dedup();
    out
}

/// A CZDS-profile zone of a few MB (several chunks of the parallel fast
/// path): `order` 0 sorts labels by octets, 1 by owner name (`a-b` before
/// `a`), 2 leaves them unsorted with repeats far apart (in upper case,
/// and IDNs in lower case), 3 adds hostile lines (NUL, CRLF, bad UTF-8,
/// escapes, an unclosed parenthesis, a 3 MB line, no final newline).
/// Glue, outside names, IDNs ([`idn_labels`]), a comment line and a
/// blank-owner line in the middle (the general parser takes them, then
/// the fast path again).
fn big_czds(order: u8) -> String {
    let mut labels: Vec<String> = (0..30_000u32)
        .map(|i| match i % 7 {
            0 => format!("a{i}"),
            1 => format!("a{i}-b"),
            _ => format!("l{:05}", i * 7919 % 30_000),
        })
        .collect();
    labels.extend(["xn--bcher-kva", "xn--zz", "xn--mnchen-3ya", "-bad", "x--y"].map(String::from));
    labels.extend(idn_labels());
    match order {
        0 => labels.sort(),
        1 => labels.sort_by_key(|l| format!("{l}.")),
        _ => {
            for i in (0..labels.len()).step_by(1000) {
                let again = labels[i].to_uppercase();
                labels.push(again);
            }
            // IDNs again, in lower case: deduplicated on the IDN path.
            let idns: Vec<String> = idn_labels().into_iter().step_by(40).collect();
            labels.extend(idns);
        }
    }
    let mut s = String::from("tld.\t900\tin\tsoa\ta.nic.tld. h.nic.tld. 1 2 3 4 5\n");
    for (i, l) in labels.iter().enumerate() {
        s.push_str(&format!("{l}.tld.\t172800\tin\tns\tns1.{}.tld.\n", l.to_lowercase()));
        if i % 3 == 0 {
            s.push_str(&format!("{l}.tld.\t172800\tin\tns\tns{}.example.net.\n", i % 5));
            s.push_str(&format!("ns1.{l}.tld.\t172800\tin\ta\t192.0.2.1\n"));
        }
        if i % 11 == 0 {
            s.push_str(&format!("{l}.tld.\t86400\tin\tds\t1 8 2 ABCD\n"));
            s.push_str(&format!("h{}.other.\t60\tin\ta\t192.0.2.2\n", i % 13));
        }
        if i == labels.len() / 2 {
            s.push_str("; a comment in the middle\n\t172800\tin\tns\tns9.example.net.\n");
        }
        if order == 3 && i % 997 == 5 {
            // Hostile lines between chunks: the general parser takes them.
            let junk: &[&str] = &[
                "\r\n",
                "crlf.tld.\t1\tin\tns\tx.\r\n",
                "nul\0.tld.\t1\tin\tns\tx.\n",
                "not\u{e9}utf8.tld.\t1\tin\tns\tx.\n",
                "no-tab-at-all\n",
                "rel.tld\t1\tin\tns\tx.\n",
                "a\\.b.tld.\t1\tin\tns\tx.\n",
                "sp ace.tld.\t1\tin\tns\tx.\n",
                ".tld.\t1\tin\tns\tx.\n",
                "open.tld.\t1\tin\ttxt\t( \"unclosed\n",
                "$TTL 300\n",
                "UPPER.TLD.\t1\tIN\tNS\tNS1.UPPER.TLD.\n",
            ];
            s.push_str(junk[(i / 997) % junk.len()]);
        }
    }
    if order == 3 {
        s.push_str(&"x".repeat(3 << 20));
        s.push_str("\nlast.tld.\t1\tin\tns\tx.");
    }
    s
}

/// Equal lists, or a panic that shows where they differ.
fn same_list(a: &[String], b: &[String], order: u8) {
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        panic!("order {order}: differ at {i}: {:?} / {:?}", a.get(i..i + 3), b.get(i..i + 3));
    }
}

#[test]
fn parallel_fast_path_matches_sequential_reads() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    for order in 0..4 {
        let text = big_czds(order);
        assert!(text.len() > 2 << 20, "{}", text.len());
        let dir = TempDir::new();
        let plain = dir.write("z.zone", text.as_bytes());
        let gz = dir.write("z.zone.gz", &gzip(text.as_bytes()));
        // Mapped and in memory: the parallel path; a stream: sequential.
        let mapped = pool
            .install(|| read([Input::Path(plain.clone())], &Config::new().mmap(mmap())))
            .unwrap();
        let copied = pool
            .install(|| {
                let config = Config::new().mmap(mmap()).label_text(LabelText::Copy);
                read([Input::Path(plain.clone())], &config)
            })
            .unwrap();
        let bytes = pool.install(|| read_bytes("z.zone", text.as_bytes(), &Config::new()));
        let stream = read([Input::Path(gz)], &Config::new()).unwrap();
        // The general parser on the same records (lines shift by one).
        let slow = read_bytes("slow.zone", format!("; slow\n{text}").as_bytes(), &Config::new());
        assert!(mapped.sources()[0].czds_profile && !slow.sources()[0].czds_profile);
        let ns = |s: &lgrscan::input::LabelSet| {
            s.iter().map(|l| l.ns_targets().collect::<Vec<_>>().join(",")).collect::<Vec<_>>()
        };
        let base = label_lines(&stream);
        assert_eq!(label_lines(&mapped), base, "order {order}");
        assert_eq!(label_lines(&copied), base, "order {order}");
        assert_eq!(label_lines(&bytes), base, "order {order}");
        same_list(&ns(&mapped), &ns(&stream), order);
        // Order 3 has a `(` never closed: every path reads it as the
        // general parser does (malformed at its line, the entry bounded by
        // `MAX_PAREN_LINES`), a CZDS dump too.
        same_list(&alabels(&slow), &alabels(&stream), order);
        // The forms and findings too (the fast path computes valid
        // IDNs' forms in its chunks; the general parser when the set is
        // finished).
        let forms = |s: &lgrscan::input::LabelSet| {
            s.iter()
                .map(|l| {
                    let f = l.finding().map(|f| f.to_string());
                    format!("{} {} {} {f:?}", l.original_text(), l.alabel(), l.ulabel())
                })
                .collect::<Vec<_>>()
        };
        same_list(&forms(&slow), &forms(&stream), order);
        same_list(&forms(&slow), &forms(&mapped), order);
        same_list(&forms(&slow), &forms(&copied), order);
        same_list(&ns(&slow), &ns(&stream), order);
        let lines: Vec<u32> = slow.iter().map(|l| l.line() - 1).collect();
        assert_eq!(lines, stream.iter().map(|l| l.line()).collect::<Vec<_>>());
        for set in [&mapped, &bytes, &stream, &slow] {
            set.accounting().check().unwrap();
        }
        let counts = |a: &Accounting| {
            [
                a.records,
                a.registered_labels,
                a.duplicate_records,
                a.apex_records,
                a.deeper_records,
                a.deeper_names,
                a.outside_records,
                a.outside_names,
                a.owner_names,
                a.malformed,
            ]
        };
        let c = counts(stream.accounting());
        assert_eq!(counts(mapped.accounting()), c, "order {order}");
        assert_eq!(counts(copied.accounting()), c, "order {order}");
        assert_eq!(counts(bytes.accounting()), c, "order {order}");
        assert_eq!(counts(slow.accounting()), c, "order {order}");
        assert_eq!(format!("{:?}", mapped.accounting()), format!("{:?}", stream.accounting()));
        // Order 2 repeats labels in upper case: folded into the first.
        let idns = idn_labels().len();
        assert!(idns > 300, "{idns}");
        assert_eq!(mapped.len(), idns + if order == 3 { 30_011 } else { 30_005 }, "order {order}");
        let valid = mapped.iter().filter(|l| l.is_idn() && l.finding().is_none()).count();
        let want = idn_labels().iter().filter(|a| idna2008::to_ulabel(a).is_ok()).count() + 2;
        assert!(want > 300 && want < idns, "{want} valid IDNs");
        // Order 3's `not\u{e9}utf8` owner is UTF-8, a U-label where the
        // zone should hold its A-label: invalid.
        assert_eq!(valid, want, "order {order}: valid IDNs (with xn--bcher-kva, xn--mnchen-3ya)");
        let xn = mapped.iter().find(|l| l.alabel() == "xn--bcher-kva").unwrap();
        assert_eq!(xn.ulabel(), "bücher");
        assert!(mapped.iter().any(|l| l.finding().is_some()));
    }
}

#[test]
fn mapped_stream_and_gzip_agree() {
    let text = czds_sample();
    let dir = TempDir::new();
    let plain = dir.write("z.zone", text.as_bytes());
    let mut multi = gzip(&text.as_bytes()[..100]);
    multi.extend(gzip(&text.as_bytes()[100..]));
    let gz = dir.write("z.zone.gz", &multi);
    let base = label_lines(&read_bytes("z", text.as_bytes(), &Config::new()));
    for (path, mm) in [(&plain, mmap()), (&plain, MmapChoice::never()), (&gz, mmap())] {
        let set = read([Input::Path(path.clone())], &Config::new().mmap(mm)).unwrap();
        set.accounting().check().unwrap();
        assert_eq!(label_lines(&set), base, "{}", path.display());
        assert_eq!(set.accounting().bytes, text.len() as u64);
    }
    let set = read([Input::Path(plain.clone())], &Config::new().mmap(mmap())).unwrap();
    assert!(set.sources()[0].mapped);
    let set = read([Input::Path(gz)], &Config::new().mmap(mmap())).unwrap();
    assert!(set.sources()[0].gzip && !set.sources()[0].mapped);
    // Gzip given as bytes (like stdin) is detected by its magic.
    let set = read_bytes("stdin", &multi, &Config::new());
    assert_eq!(label_lines(&set), base);
}

/// `Config::chunk_bytes`: the same bytes cut into windows, stream buffers
/// and parallel chunks of any size (down to one byte, on 1 or 3 threads)
/// give the labels and accounting of a read with the default sizes. The
/// fuzz target `zone_paths` checks this on arbitrary bytes.
#[test]
fn small_chunks_read_as_the_defaults() {
    let zone = CONSTRUCTS.join("\n") + "\n";
    let list = "shop\nXN--BCHER-KVA\nbücher\n\nfoo-\n";
    let pools: Vec<_> = [1, 3]
        .iter()
        .map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect();
    for text in [czds_sample(), zone, list.to_string()] {
        let base = read_bytes("z", text.as_bytes(), &Config::new());
        let want = (label_lines(&base), format!("{:?}", base.accounting()));
        for chunk in [1, 7, 64, 200] {
            for pool in &pools {
                let config = Config::new().chunk_bytes(Some(chunk));
                for data in [text.as_bytes().to_vec(), gzip(text.as_bytes())] {
                    let set = pool.install(|| read_bytes("z", &data, &config));
                    let got = (label_lines(&set), format!("{:?}", set.accounting()));
                    assert_eq!(got, want, "chunk {chunk}, {} threads", pool.current_num_threads());
                }
            }
        }
    }
}

#[test]
fn several_inputs_share_apex_and_dedupe() {
    let dir = TempDir::new();
    let a = dir.write("a.zone", czds_sample().as_bytes());
    let b =
        dir.write("b.txt", "# more labels\nzeta\nnew.tld\nxn--bcher-kva.tld.\nBücher\n".as_bytes());
    let set = read([Input::Path(a), Input::Path(b)], &Config::new()).unwrap();
    set.accounting().check().unwrap();
    assert_eq!(alabels(&set), ["aaa", "abc", "xn--bcher-kva", "zeta", "bbb", "new"]);
    assert_eq!(set.sources()[1].format, InputFormat::List);
    assert_eq!(set.get(5).unwrap().source(), 1);
    assert_eq!(set.accounting().duplicate_records, 9 + 3);
}

/// A second zone in one run is an error, not names "outside the apex"
/// (exit 0 with none of them judged): its SOA's owner is not the apex.
/// On the fast path and the careful one, mapped and as a stream, and in
/// a master file; `--origin` for another zone likewise.
#[test]
fn a_second_zone_is_an_error() {
    let dir = TempDir::new();
    let aa = dir.write(
        "aa.czds",
        b"aa.\t86400\tin\tsoa\ta.nic.aa. h.nic.aa. 1 2 3 4 5\nfoo.aa.\t3600\tin\tns\tns1.x.net.\n",
    );
    let bb = dir.write(
        "bb.czds",
        b"bar.bb.\t3600\tin\tns\tns1.x.net.\nbb.\t86400\tIN\tSOA\ta. h. 1 2 3 4 5\n",
    );
    let master =
        dir.write("bb.zone", b"$ORIGIN bb.\n@ 3600 IN SOA a. h. 1 2 3 4 5\nbar NS ns1.x.net.\n");
    // Its SOA after another record of its apex (found by fuzzing: the fast
    // path counted the line in the owner's run without its type).
    let later = dir.write(
        "bb-later.czds",
        b"bb.\t86400\tin\tns\ta.nic.bb.\nbb.\t86400\tin\tsoa\ta.nic.bb. h. 1 2 3 4 5\n",
    );
    for second in [&bb, &master, &later] {
        for fast in [true, false] {
            for mm in [MmapChoice::never(), mmap()] {
                let config = Config::new().zone_fast_path(fast).mmap(mm);
                let e = read([Input::Path(aa.clone()), Input::Path(second.clone())], &config)
                    .unwrap_err();
                assert!(
                    matches!(e.kind(), ErrorKind::OtherZone(soa, apex) if soa == "bb." && apex == "aa."),
                    "{e}"
                );
                assert_eq!(e.path(), Some(second.as_path()), "{e}");
            }
        }
    }
    let e = read([Input::Path(aa.clone())], &Config::new().origin(Some("bb."))).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::OtherZone(..)), "{e}");
}
