//! Tests of `lgrscan::input` (issue #3): zone files, CZDS dumps, gzip and
//! every format's hostile input, with IDNA2008 findings and accounting
//! (label lists and CSV on their own: `lists.rs`).

use std::path::Path;

use crate::util::*;
use lgrscan::idna2008::{self, Finding};
use lgrscan::input::{
    Accounting, Config, ErrorKind, Input, InputFormat, LabelText, MmapChoice, NsTargets,
    ProgressFn, Strictness, read,
};

fn data_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/input"))
}

fn mmap() -> MmapChoice {
    // SAFETY: test files are not modified while mapped.
    unsafe { MmapChoice::auto() }
}

//------------ Zone constructs -------------------------------------------

const CONSTRUCTS: &[&str] = &[
    "; a comment line",
    "$ORIGIN Example.",
    "$TTL 1h",
    "@   IN  SOA ns1 hostmaster (",
    "        2024010101 ; serial",
    "        3600 900 604800 300 )",
    "\tIN NS ns1",
    "",
    "ALPHA  3600 IN NS ns1.alpha",
    "       IN  TXT \"semi; colon ( paren\"",
    "alpha.example. NS ns2.alpha.EXAMPLE.",
    "b\\097r NS ns1.bar",
    "bar  TXT \"x\"",
    "\\066\\065Z A 192.0.2.3",
    "xn--bcher-kva NS ns.example.",
    "ns1 A 192.0.2.1",
    "www.alpha A 192.0.2.2",
    "other.test. A 192.0.2.9",
    "a\\.b NS x.",
    "under_score TXT \"x\"",
    "sp\\032ace TXT \"x\"",
    "XN--ABC- NS x.",
];

#[test]
fn zone_constructs() {
    for crlf in [false, true] {
        let text = CONSTRUCTS.join(if crlf { "\r\n" } else { "\n" }) + "\n";
        let set = read_bytes("constructs.zone", text.as_bytes(), &Config::new());
        assert_eq!(set.apex(), Some("example."));
        assert_eq!(
            alabels(&set),
            [
                "alpha",
                "bar",
                "baz",
                "xn--bcher-kva",
                "ns1",
                "a.b",
                "under_score",
                "sp ace",
                "xn--abc-"
            ]
        );
        assert_eq!(ulabels(&set)[3], "bücher");
        let originals: Vec<String> = set.iter().map(|l| l.original_text().into_owned()).collect();
        assert_eq!(originals[0], "ALPHA");
        assert_eq!(originals[1], "b\\097r");
        assert_eq!(originals[2], "\\066\\065Z");
        assert_eq!(originals[8], "XN--ABC-");
        assert_eq!(
            findings(&set),
            [
                "",
                "",
                "",
                "",
                "",
                "escaped dot inside label at byte offset 1",
                "non-LDH ASCII '_' at byte offset 5",
                "non-LDH ASCII \\032 at byte offset 2",
                "fake A-label: decodes to ASCII",
            ]
        );
        let alpha = set.get(0).unwrap();
        assert_eq!(alpha.line(), 9);
        assert_eq!(
            alpha.ns_targets().collect::<Vec<_>>(),
            ["ns1.alpha.example.", "ns2.alpha.example."]
        );
        let acc = set.accounting();
        assert_eq!(acc.lines, 22);
        assert_eq!(acc.comment_lines, 1);
        assert_eq!(acc.blank_lines, 1);
        assert_eq!(acc.directive_lines, 2);
        assert_eq!(acc.continuation_lines, 2);
        assert_eq!(acc.records, 16);
        assert_eq!(acc.apex_records, 2);
        assert_eq!(acc.registered_labels, 9);
        assert_eq!(acc.duplicate_records, 3);
        assert_eq!(acc.deeper_records, 1);
        assert_eq!(acc.outside_records, 1);
        assert_eq!(acc.owner_names, 1 + 9 + 1 + 1);
        assert_eq!(acc.malformed, 0);
        // Offsets point at the original text.
        for l in set.iter() {
            let start = l.offset() as usize;
            assert!(text.as_bytes()[start..].starts_with(l.original()), "{}", l.original_text());
        }
    }
}

#[test]
fn verisign_upper_case_relative_names() {
    let zone = b"$ORIGIN COM.\n\
COM. 900 IN SOA A.GTLD-SERVERS.NET. NSTLD.VERISIGN-GRS.COM. 1 2 3 4 5\n\
EXAMPLE NS NS1.EXAMPLE\n\
EXAMPLE NS NS2.EXAMPLE\n\
NS1.EXAMPLE A 192.0.2.1\n\
XN--BCHER-KVA NS NS1.EXAMPLE\n\
OTHER NS NS1.EXAMPLE.NET.\n";
    let set = read_bytes("com.zone", zone, &Config::new());
    assert_eq!(set.apex(), Some("com."));
    assert_eq!(alabels(&set), ["example", "xn--bcher-kva", "other"]);
    assert_eq!(ulabels(&set), ["example", "bücher", "other"]);
    let l = set.get(0).unwrap();
    assert_eq!(l.original(), b"EXAMPLE");
    assert_eq!(l.ns_targets().collect::<Vec<_>>(), ["ns1.example.com.", "ns2.example.com."]);
    assert_eq!(set.get(2).unwrap().ns_targets().collect::<Vec<_>>(), ["ns1.example.net."]);
    let acc = set.accounting();
    assert_eq!((acc.registered_labels, acc.duplicate_records, acc.deeper_records), (3, 1, 1));
}

/// A zone file as named loads it: no `$ORIGIN`, the origin given by the
/// zone statement (`--origin`), relative owners and `@` (RFC 1035 §5.1).
/// Read as the same file with the `$ORIGIN` line written out, in any
/// chunks, on any path.
#[test]
fn origin_option_is_the_initial_origin() {
    let mut body = String::from(
        "$TTL 86400\n@ IN SOA ns1 hostmaster ( 1 1800 900\n 604800 86400 )\n IN NS ns1\n\
         ns1 IN A 192.0.2.1\n",
    );
    for i in 0..300 {
        body +=
            &format!("name{i} IN NS ns1.name{i}\n\tIN NS ns.example.\nns1.name{i} A 192.0.2.2\n");
    }
    body +=
        "Upper IN NS ns1\n@ IN NS ns2\n$ORIGIN sub.tld.\nunder NS ns1\n$ORIGIN tld.\nlast NS ns1\n";
    let explicit = read_bytes("z", format!("$ORIGIN tld.\n{body}").as_bytes(), &Config::new());
    let want = alabels(&explicit);
    assert_eq!(want.len(), 303);
    assert_eq!(want[..2], ["ns1", "name0"]);
    assert_eq!(want[301..], ["upper", "last"]);
    let acc = explicit.accounting();
    let want_counts = (acc.apex_records, acc.deeper_records, acc.malformed);
    assert_eq!(want_counts, (3, 301, 0));
    let pools: Vec<_> = [1, 3]
        .iter()
        .map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect();
    for origin in ["tld", "tld.", "TLD."] {
        for chunk in [None, Some(64), Some(1000)] {
            for fast in [true, false] {
                let config =
                    Config::new().origin(Some(origin)).chunk_bytes(chunk).zone_fast_path(fast);
                for data in [body.as_bytes().to_vec(), gzip(body.as_bytes())] {
                    for pool in &pools {
                        let set = pool.install(|| read_bytes("z", &data, &config));
                        // In input order: the first of a variant set holds it.
                        assert_eq!(alabels(&set), want, "{origin} {chunk:?} {fast}");
                        let acc = set.accounting();
                        assert_eq!(
                            (acc.apex_records, acc.deeper_records, acc.malformed),
                            want_counts
                        );
                        assert_eq!(set.apex(), Some("tld."));
                    }
                }
            }
        }
    }
    // Without --origin, the records before the `$ORIGIN` line are
    // malformed, with a reason that says what would place them.
    let set = read_bytes("z", body.as_bytes(), &Config::new());
    let acc = set.accounting();
    assert_eq!((acc.registered_labels, acc.malformed), (1, 905));
    let first = &acc.malformed_details[0];
    assert_eq!((first.line, first.reason.as_str()), (2, "'@' without $ORIGIN or --origin"));
}

/// A zone's apex is its SOA's owner, not the first `$ORIGIN`: BIND writes
/// dumps that start at `$ORIGIN .` with the SOA's owner relative to the
/// root; with no SOA, the `$ORIGIN` in force at the first record. In a
/// list, the suffix counts in either IDNA form: `bar.рф` is under the apex
/// `xn--p1ai.` that `foo.xn--p1ai` set.
#[test]
fn the_apex_is_the_soa_owner_in_either_form() {
    let bind = "$ORIGIN .\n$TTL 3600\nexample\t\tIN SOA\tns1.example. h.example. ( 1 2 3 4 5 )\n\
                \t\t\tNS\tns1.example.\n$ORIGIN example.\nfoo\t\t\tNS\tns1.other.\n\
                bar\t\t\tNS\tns1.other.\nns1\t\t\tA\t192.0.2.1\n";
    for fast in [true, false] {
        let set = read_bytes("bind", bind.as_bytes(), &Config::new().zone_fast_path(fast));
        assert_eq!(set.apex(), Some("example."), "fast path {fast}");
        assert_eq!(alabels(&set), ["foo", "bar", "ns1"]);
        assert_eq!(set.accounting().apex_records, 2);
    }
    // The SOA found after the first records: not one in a comment, in any
    // case.
    let late = b";old.example. IN SOA a. b. 1 2 3 4 5\nfoo.ex. 3600 IN A 192.0.2.1\n\
                 ex. 3600 IN sOa a. b. 1 2 3 4 5\n";
    let set = read_bytes("late", late, &Config::new());
    assert_eq!((set.apex(), alabels(&set)), (Some("ex."), vec!["foo".to_string()]));
    // `--origin` as a U-label is the zone of its A-label.
    let rf = b"@ 3600 IN SOA ns. h. 1 2 3 4 5\n123 3600 IN NS ns1.dns.net.\n";
    let set = read_bytes("rf", rf, &Config::new().origin(Some("\u{0440}\u{0444}")));
    assert_eq!((set.apex(), alabels(&set)), (Some("xn--p1ai."), vec!["123".to_string()]));
    let no_soa = read_bytes("z", b"$ORIGIN tld.\nfoo NS ns1.other.\n", &Config::new());
    assert_eq!(no_soa.apex(), Some("tld."));
    let list = Config::new().format(Some(InputFormat::List));
    for text in ["foo.xn--p1ai\nbar.\u{0440}\u{0444}\n", "bar.\u{0440}\u{0444}.\nfoo.XN--P1AI\n"] {
        let set = read_bytes("list", text.as_bytes(), &list);
        assert_eq!(set.apex(), Some("xn--p1ai."), "{text:?}");
        assert_eq!(set.accounting().registered_labels, 2, "{text:?}");
        assert_eq!(set.accounting().outside_records, 0, "{text:?}");
    }
}

#[test]
fn include_with_own_origin_does_not_leak() {
    let path = data_dir().join("parent.zone");
    for mm in [MmapChoice::never(), mmap()] {
        let set = read([Input::Path(path.clone())], &Config::new().mmap(mm)).unwrap();
        set.accounting().check().unwrap();
        assert_eq!(set.apex(), Some("tld."));
        assert_eq!(alabels(&set), ["alpha", "delta", "beta", "sub", "gamma"]);
        let acc = set.accounting();
        assert_eq!(acc.includes, 2);
        assert_eq!(acc.lines, 18);
        assert_eq!(acc.directive_lines, 7);
        assert_eq!(acc.comment_lines, 1);
        assert_eq!(acc.records, 10);
        assert_eq!(acc.apex_records, 1);
        assert_eq!(acc.deeper_records, 3);
        assert_eq!(acc.outside_records, 1);
        assert_eq!(set.sources().len(), 3);
        let delta = set.get(1).unwrap();
        assert!(delta.source_path().ends_with("inc/child.zone"));
        assert_eq!(delta.line(), 5);
        assert_eq!(set.sources()[delta.source()].included_by, Some(0));
        // "sub" comes from the include's origin argument.
        let sub = set.get(3).unwrap();
        assert_eq!(sub.ns_targets().collect::<Vec<_>>(), ["ns.sub.tld."]);
        assert_eq!(set.get(2).unwrap().ns_targets().collect::<Vec<_>>(), ["ns1.beta.tld."]);
    }
}

#[test]
fn include_loop_and_missing_are_errors_with_chain() {
    let e = read([Input::Path(data_dir().join("loop-a.zone"))], &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::IncludeLoop), "{e}");
    let d = data_dir().display().to_string();
    assert_eq!(
        e.to_string(),
        format!(
            "{d}/loop-b.zone:2: $INCLUDE loop: {d}/loop-a.zone -> {d}/loop-b.zone -> {d}/loop-a.zone"
        )
    );
    assert_eq!(e.include_chain().len(), 3);
    assert_eq!(e.line(), 2);

    let e = read([Input::Path(data_dir().join("self.zone"))], &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::IncludeLoop), "{e}");

    let e = read([Input::Path(data_dir().join("missing.zone"))], &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::IncludeMissing(_)), "{e}");
    assert!(e.to_string().contains("missing.zone:3: $INCLUDE file cannot be read"), "{e}");
    assert!(e.to_string().contains("does-not-exist.zone"), "{e}");

    // A device (endless) or a directory is not a zone file to include.
    #[cfg(unix)]
    for target in ["/dev/zero", "/"] {
        let dir = TempDir::new();
        let zone = dir.write("dev.zone", format!("$ORIGIN tld.\n$INCLUDE {target}\n").as_bytes());
        let e = read([Input::Path(zone)], &Config::new()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::IncludeMissing(_)), "{e}");
        assert!(e.to_string().contains("dev.zone:2: $INCLUDE file cannot be read"), "{e}");
    }

    // Depth limit.
    let e = read([Input::Path(data_dir().join("parent.zone"))], &Config::new().include_depth(0))
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::IncludeDepth(0)), "{e}");
}

//------------ CZDS profile ----------------------------------------------

fn czds_sample() -> String {
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

//------------ Strictness and hostile input ------------------------------

#[test]
fn strict_stops_at_first_malformed_line() {
    let zone = b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nok NS x.\nbad\\999 NS x.\n";
    let set = read_bytes("z", zone, &Config::new());
    assert_eq!(set.accounting().malformed, 1);
    assert_eq!(set.accounting().malformed_details[0].reason, "owner: bad escape \\999");
    let e = read(
        [Input::Bytes { name: "z".into(), data: zone.to_vec() }],
        &Config::new().strictness(Strictness::Strict),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "z:4: malformed: owner: bad escape \\999");
}

/// A damaged gzip stream is an error that names the file and the offset,
/// with or without `--strict`: the partial last line is never a label.
#[test]
fn truncated_gzip() {
    let text = czds_sample();
    let gz = gzip(text.as_bytes());
    let cut = &gz[..gz.len() / 2];
    for config in [Config::new(), Config::new().strictness(Strictness::Strict)] {
        let e =
            read([Input::Bytes { name: "t.gz".into(), data: cut.to_vec() }], &config).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Gzip(_)), "{e}");
        assert_eq!(e.path(), Some(std::path::Path::new("t.gz")));
        let offset = e.offset().expect("offset");
        assert!(offset < text.len() as u64, "{offset}");
        assert!(
            e.to_string().starts_with(&format!(
                "t.gz: gzip stream truncated or corrupt after {offset} bytes"
            )),
            "{e}"
        );
    }
}

fn all_formats() -> [Config; 4] {
    [
        Config::new(),
        Config::new().format(Some(InputFormat::Zone)).origin(Some("tld.")),
        Config::new().format(Some(InputFormat::List)),
        Config::new().format(Some(InputFormat::Csv)),
    ]
}

/// Reads hostile bytes in every format: no panic, and either a clear error
/// or an accounting that adds up.
fn hostile(name: &str, data: &[u8]) -> Vec<Accounting> {
    let mut out = Vec::new();
    for config in all_formats() {
        match read([Input::Bytes { name: name.into(), data: data.to_vec() }], &config) {
            Ok(set) => {
                set.accounting().check().unwrap_or_else(|e| panic!("{name}: {e}"));
                for l in set.iter() {
                    let _ = (l.alabel(), l.ulabel(), l.original_text(), l.finding());
                }
                out.push(set.accounting().clone());
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    out
}

#[test]
fn hostile_inputs_never_panic() {
    hostile("empty", b"");
    hostile("nul", b"\0\0\0\nabc\0def\n\0");
    hostile("invalid-utf8", b"\xff\xfe\xfd\nok\n\xc3\x28\n");
    hostile("unbalanced-open", b"$ORIGIN tld.\n@ SOA a. b. ( 1 2 3\nx NS y.\n");
    hostile("unbalanced-close", b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5 )\nx NS y.\n");
    hostile("quote", b"$ORIGIN tld.\nx TXT \"unterminated\ny NS z.\n");
    hostile("escapes", b"$ORIGIN tld.\n\\\n\\1 NS x.\na\\ NS x.\n@ SOA a. b. 1 2 3 4 5\n");
    hostile("dots", b"$ORIGIN tld.\n. NS x.\n.. NS x.\n@ NS\n$INCLUDE\n$ORIGIN\n$BOGUS x\n");
    hostile("gzip-junk", b"\x1f\x8b\x08\x00garbage");
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for i in 0..20 {
        let n = rng.usize(..4096);
        hostile(&format!("random-{i}"), &random_bytes(&mut rng, n));
    }
    // A 10 MB line.
    let mut big = b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\n".to_vec();
    big.extend(std::iter::repeat_n(b'a', 10 << 20));
    big.extend_from_slice(b" NS x.\nok NS x.\n");
    for acc in hostile("long-line", &big) {
        assert!(acc.lines >= 3);
    }
    // A line longer than the limit is malformed and skipped, in a zone and
    // in a list, mapped or streamed (gzip); the next line is read.
    let mut list = vec![b'a'; 10 << 20];
    list.extend_from_slice(b"\nok\n");
    for (name, data) in
        [("long", big.clone()), ("long.txt", list.clone()), ("long.gz", gzip(&list))]
    {
        let set = read_bytes(name, &data, &Config::new());
        assert_eq!(alabels(&set), ["ok"], "{name}");
        let m = &set.accounting().malformed_details;
        assert_eq!(m.len(), 1, "{name}");
        assert_eq!(m[0].reason, "line longer than 1048576 bytes", "{name}");
        set.accounting().check().unwrap();
    }
    // A name of more than 255 characters in a list is malformed, not a label.
    let set = read_bytes("name.txt", &[&[b'a'; 300][..], b"\nok\n"].concat(), &Config::new());
    assert_eq!(alabels(&set), ["ok"]);
    assert_eq!(set.accounting().malformed_details[0].reason, "name longer than 255 octets");
}

#[test]
fn unbalanced_parentheses_recover_at_directive() {
    let zone = b"$ORIGIN tld.\n@ SOA a. b. ( 1 2 3\nx NS y.\n$ORIGIN tld.\nz NS y.\n";
    let set = read_bytes("z", zone, &Config::new());
    assert_eq!(alabels(&set), ["z"]);
    let acc = set.accounting();
    assert_eq!(acc.malformed, 1);
    assert_eq!(acc.malformed_details[0].line, 2);
    assert!(acc.malformed_details[0].reason.contains("unbalanced parentheses"));
    // The SOA gives the apex wherever it is (owners in any order).
    let set =
        read_bytes("z", b"a.tld. NS x.\ntld. SOA a. b. 1 2 3 4 5\nb.tld. NS x.\n", &Config::new());
    assert_eq!(alabels(&set), ["a", "b"]);
    assert_eq!(set.accounting().malformed, 0);
    // Without an SOA with an absolute owner, such records are malformed.
    let set =
        read_bytes("z", b"a.tld. NS x.\nb.tld. NS x.\n$ORIGIN tld.\nc NS x.\n", &Config::new());
    assert_eq!(alabels(&set), ["c"]);
    assert_eq!(set.accounting().malformed, 2);
}

//------------ IDNA2008 --------------------------------------------------

#[test]
fn idna2008_reasons() {
    let cases: &[(&str, Option<Finding>)] = &[
        ("xn--bcher-kva", None),
        ("xn--99999999999", Some(Finding::PunycodeDecode)),
        ("xn--abc-", Some(Finding::FakeALabel)),
        ("e\u{0301}", Some(Finding::NotNfc)),
        ("a\u{200D}b", Some(Finding::ContextJ { cp: '\u{200D}' })),
        ("a\u{00B7}b", Some(Finding::ContextO { cp: '\u{00B7}' })),
        ("a\u{0640}", Some(Finding::Disallowed { cp: '\u{0640}' })),
        ("a\u{0378}", Some(Finding::Unassigned { cp: '\u{0378}' })),
        ("\u{05D0}a", Some(Finding::Bidi { rule: 2 })),
        ("ab--cd", Some(Finding::HyphenPositions34)),
        ("-ab", Some(Finding::LeadingHyphen)),
        ("ab-", Some(Finding::TrailingHyphen)),
        ("_x", Some(Finding::NonLdh { byte: b'_', offset: 0 })),
    ];
    for (label, want) in cases {
        assert_eq!(&idna2008::to_labels(label).finding, want, "{label}");
    }
    assert_eq!(
        idna2008::to_labels("a\u{200D}b").finding.unwrap().to_string(),
        "U+200D CONTEXTJ fails"
    );
    let long = format!("xn--{}", "a".repeat(60));
    assert!(matches!(idna2008::to_labels(&long).finding, Some(Finding::TooLong { .. })));
    let u: String = (0..30u32).filter_map(|i| char::from_u32(0x4E00 + i * 97)).collect();
    assert!(matches!(idna2008::to_labels(&u).finding, Some(Finding::TooLong { .. })));
    // Not UTF-8, from a zone escape.
    let set =
        read_bytes("z", b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nab\\255 NS x.\n", &Config::new());
    assert_eq!(findings(&set), ["not UTF-8 at byte offset 2"]);
}

#[test]
fn corpus_round_trip() {
    let Some(path) = reference_file("golden/corpus.tsv") else { return };
    let text = std::fs::read_to_string(path).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for line in text.lines().skip(1) {
        let Some(label) = line.split('\t').next() else { continue };
        if label.is_empty() || label.starts_with('#') {
            continue;
        }
        let forms = idna2008::to_labels(label);
        if forms.finding.is_some() {
            invalid += 1;
            continue;
        }
        valid += 1;
        // U-label -> A-label -> U-label, and A-label -> U-label -> A-label.
        let back = idna2008::to_labels(&forms.alabel);
        assert_eq!((&back.ulabel, &back.finding), (&forms.ulabel, &None), "{label}");
        let again = idna2008::to_labels(&forms.ulabel);
        assert_eq!((&again.alabel, &again.finding), (&forms.alabel, &None), "{label}");
        let upper = idna2008::to_labels(&forms.alabel.to_ascii_uppercase());
        assert_eq!(upper.alabel, forms.alabel);
    }
    assert!(valid > 10_000, "{valid} valid, {invalid} invalid");
}

#[test]
fn root_zone() {
    let Some(path) = reference_file("zones/root-2018-03-12.zone") else { return };
    for mm in [mmap(), MmapChoice::never()] {
        let set = read([Input::Path(path.clone())], &Config::new().mmap(mm)).unwrap();
        set.accounting().check().unwrap();
        assert_eq!(set.apex(), Some("."));
        assert_eq!(set.len(), 1544);
        assert_eq!(set.iter().filter(|l| l.alabel().starts_with("xn--")).count(), 151);
        assert!(set.iter().all(|l| l.finding().is_none()), "all TLDs are valid");
        assert_eq!(set.accounting().records, 19_598);
        let com = set.iter().find(|l| l.alabel() == "com").unwrap();
        assert_eq!(com.ns_targets().count(), 13);
        assert!(set.iter().any(|l| l.ulabel() == "中国"));
    }
}

/// The progress callback is told every byte parsed, once, whether the file
/// is mapped (fed in windows) or streamed.
#[test]
fn progress_reports_every_byte() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let dir = std::env::temp_dir().join(format!("lgrscan-progress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.zone");
    let mut text = String::from("$ORIGIN example.\n@ SOA ns host 1 2 3 4 5\n");
    // Over 16 MiB, so the mapped file is fed in more than one window.
    for i in 0..700_000 {
        text.push_str(&format!("label{i} NS ns1.example.net.\n"));
    }
    std::fs::write(&path, &text).unwrap();
    for choice in [mmap(), MmapChoice::never()] {
        let seen = Arc::new(AtomicU64::new(0));
        let s = Arc::clone(&seen);
        let f = ProgressFn(Arc::new(move |n| {
            s.fetch_add(n, Ordering::Relaxed);
        }));
        let config = Config::new().mmap(choice).progress(Some(f));
        let set = read([Input::Path(path.clone())], &config).unwrap();
        assert_eq!(set.len(), 700_000);
        assert_eq!(
            seen.load(Ordering::Relaxed),
            text.len() as u64,
            "mapped: {}",
            choice.is_enabled()
        );
        assert_eq!(set.accounting().bytes, text.len() as u64);
        set.accounting().check().unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
