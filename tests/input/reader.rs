//! Tests of `lgrscan::input` (issue #3): zone files in the master format
//! (constructs, the origin, the apex, `$INCLUDE`), with accounting (CZDS
//! dumps and the fast path: `czds.rs`; strictness, hostile input and
//! IDNA2008: `hostile.rs`; label lists and CSV: `lists.rs`).

use std::path::Path;

use crate::util::*;
use lgrscan::input::{Config, ErrorKind, Input, InputFormat, MmapChoice, read};

fn data_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/input"))
}

pub(crate) fn mmap() -> MmapChoice {
    // SAFETY: test files are not modified while mapped.
    unsafe { MmapChoice::auto() }
}

//------------ Zone constructs -------------------------------------------

pub(crate) const CONSTRUCTS: &[&str] = &[
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
    // malformed, with a reason that says what would place them; the
    // apex is then `sub.tld.`, and `last.tld.`'s NS record, outside it, is
    // malformed too (a delegation the zone cannot hold).
    let set = read_bytes("z", body.as_bytes(), &Config::new());
    let acc = set.accounting();
    assert_eq!((acc.registered_labels, acc.malformed, acc.outside_delegations), (1, 906, 1));
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

/// An NS record outside the apex is a malformed line naming the apex (a
/// mistyped `$ORIGIN` lost a whole variant set, exit 0), on the fast path
/// and the careful one, with a blank owner too; other records there are
/// out-of-zone data, counted as before.
#[test]
fn delegations_outside_the_apex_are_malformed() {
    let master = "$ORIGIN example.\n@ 3600 IN SOA ns h 1 2 3 4 5\n123 IN NS ns.host.net.\n\
                  $ORIGIN exmaple.\nxn--e4bcd IN NS ns.host.net.\n  IN NS ns2.host.net.\n\
                  glue.host.net. A 192.0.2.1\n";
    let czds = "example.\t3600\tin\tsoa\tns.example. h.example. 1 2 3 4 5\n\
                123.example.\t3600\tin\tns\tns.host.net.\n\
                xn--e4bcd.exmaple.\t3600\tin\tns\tns.host.net.\n\
                glue.host.net.\t3600\tin\ta\t192.0.2.1\n";
    for (text, malformed, lines) in [(master, 2, vec![5, 6]), (czds, 1, vec![3])] {
        for chunk in [None, Some(64)] {
            for fast in [true, false] {
                let config = Config::new().chunk_bytes(chunk).zone_fast_path(fast);
                let set = read_bytes("z", text.as_bytes(), &config);
                let acc = set.accounting();
                acc.check().unwrap();
                let at = format!("{chunk:?} {fast}: {text}");
                assert_eq!(alabels(&set), ["123"], "{at}");
                assert_eq!((acc.malformed, acc.outside_records), (malformed, 1), "{at}");
                assert_eq!(acc.outside_delegations, 1, "{at}");
                let got: Vec<u64> = acc.malformed_details.iter().map(|m| m.line).collect();
                assert_eq!(got, lines, "{at}");
                assert!(
                    acc.malformed_details[0]
                        .reason
                        .starts_with("NS record outside the zone (apex example.)"),
                    "{at}"
                );
            }
        }
    }
}
