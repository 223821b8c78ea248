//! Tests of `lgrscan::input` (issue #3): strictness and every format's
//! hostile input, IDNA2008 findings, the root zone and progress.

use crate::czds::czds_sample;
use crate::reader::mmap;
use crate::util::*;
use lgrscan::idna2008::{self, Finding};
use lgrscan::input::{
    Accounting, Config, ErrorKind, Input, InputFormat, MmapChoice, ProgressFn, Strictness, read,
};

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
    // The open line alone is malformed: `x`, after it, is read.
    assert_eq!(alabels(&set), ["x", "z"]);
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
