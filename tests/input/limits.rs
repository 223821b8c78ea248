//! Bounds and verdicts of the reader on hostile input (issue #28): entries
//! that stay open, a byte order mark, reads that find nothing, CSV records.

use lgrscan::input::{Config, ErrorKind, Input, InputFormat, MmapChoice, read};

use crate::util::*;

/// A `(` never closed is malformed at its own line once the entry passes
/// the bound; the lines after it are read as records.
#[test]
fn unclosed_parenthesis_is_bounded() {
    let mut zone = b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nbad TXT ( \"x\"\n".to_vec();
    for i in 0..3000 {
        zone.extend_from_slice(format!("n{i} NS x.\n").as_bytes());
    }
    let set = read_bytes("z", &zone, &Config::new());
    assert_eq!(set.len(), 3000);
    let m = &set.accounting().malformed_details;
    assert_eq!((m.len(), m[0].line), (1, 3));
    assert!(m[0].reason.starts_with("unbalanced parentheses: '(' not closed within"), "{m:?}");
    set.accounting().check().unwrap();
}

/// A UTF-8 byte order mark at the start of a zone file is skipped.
#[test]
fn byte_order_mark_is_skipped() {
    let zone = b"\xEF\xBB\xBF$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nshop NS x.\n";
    for name in ["z", "z.gz"] {
        let data = if name == "z" { zone.to_vec() } else { gzip(zone) };
        let set = read_bytes(name, &data, &Config::new());
        assert_eq!(alabels(&set), ["shop"], "{name}");
        assert_eq!(set.accounting().malformed, 0, "{name}");
    }
}

/// An `--origin` no record is at or below, and records without any
/// registered label, are errors with the reason.
#[test]
fn nothing_found_is_an_error() {
    let zone = b"$ORIGIN example.\nshop NS x.\n";
    let e = read(
        [Input::Bytes { name: "z".into(), data: zone.to_vec() }],
        &Config::new().origin(Some("tld.")),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::OriginMatchesNothing(_)), "{e}");
    assert!(e.to_string().contains("matches no record: all 1 records are outside it"), "{e}");
    // With the zone's SOA, the SOA names the zone it is.
    let zone = b"$ORIGIN example.\n@ SOA a. b. 1 2 3 4 5\nshop NS x.\n";
    let e = read(
        [Input::Bytes { name: "z".into(), data: zone.to_vec() }],
        &Config::new().origin(Some("tld.")),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::OtherZone(..)), "{e}");
    let zone = b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nns1.shop A 192.0.2.1\n";
    let e =
        read([Input::Bytes { name: "z".into(), data: zone.to_vec() }], &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::NoLabels(_)), "{e}");
    assert!(e.to_string().starts_with("z: no registered labels: 3 lines: 2 records"), "{e}");
    // Blank and comment lines only: an empty registry on purpose, not an
    // error.
    read_bytes("c.txt", b"# nothing yet\n\n", &Config::new());
    // No line at all, as a failed download leaves, beside a good input or
    // alone: an error naming the file (it read as a zone with no findings).
    let good = Input::Bytes { name: "a.txt".into(), data: b"foo\n".to_vec() };
    for inputs in [vec![], vec![good]] {
        let empty = Input::Bytes { name: "e.txt".into(), data: Vec::new() };
        let e = read(inputs.into_iter().chain([empty]), &Config::new()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::NoLabels(_)), "{e}");
        assert_eq!(e.to_string(), "e.txt: no registered labels: the input is empty (0 lines)");
    }
}

/// CSV records are found before fields are split: CRLF line numbers are
/// right, a quote left open is malformed at its own line (the rows after it
/// are read), in memory and streamed alike; `;` and tab are detected.
#[test]
fn csv_records_are_bounded_and_numbered() {
    let mut csv = b"label,registrant\r\nalpha,\"two\r\nlines\"\r\n\"open,r\r\n".to_vec();
    for i in 0..500 {
        csv.extend_from_slice(format!("row{i},r\r\n").as_bytes());
    }
    csv.extend_from_slice(b"bad..name,r\r\n");
    for (name, data) in [("l.csv", csv.clone()), ("l.csv.gz", gzip(&csv))] {
        let set = read_bytes(name, &data, &Config::new());
        assert_eq!(set.len(), 501, "{name}");
        assert_eq!(set.get(1).unwrap().line(), 5, "{name}");
        let m: Vec<(u64, &str)> = set
            .accounting()
            .malformed_details
            .iter()
            .map(|m| (m.line, m.reason.as_str()))
            .collect();
        assert_eq!(m.len(), 2, "{name}: {m:?}");
        assert_eq!(m[0].0, 4, "{name}");
        assert!(m[0].1.starts_with("quoted field not closed within 100 lines"), "{name}");
        assert_eq!(m[1], (505, "empty label in name"), "{name}");
    }
    for (data, delimiter) in [
        (&b"label;x\nalpha;1\n"[..], None),
        (b"label\tx\nalpha\t1\n", None),
        (b"label|x\nalpha|1\n", Some(b'|')),
    ] {
        let set = read_bytes(
            "d.csv",
            data,
            &Config::new().format(Some(InputFormat::Csv)).delimiter(delimiter),
        );
        assert_eq!(alabels(&set), ["alpha"]);
    }
}

/// A quote inside an unquoted field is a character (RFC 4180 §2, as
/// `csv-core` reads it), not the start of a quoted field that would join
/// the rows up to the next quote; `""` inside a quoted field is a quote.
#[test]
fn csv_quote_inside_a_field_is_literal() {
    let csv = b"label,note\nalpha,o\"reilly\nbravo,\"a \"\"b\"\"\nc\"\ncharlie,x\"y\n";
    let set = read_bytes("q.csv", csv, &Config::new());
    assert_eq!(alabels(&set), ["alpha", "bravo", "charlie"]);
    assert_eq!(set.get(2).unwrap().line(), 5);
    assert_eq!(set.accounting().malformed, 0);
}

/// A `(` or a CSV quote still open at the end of the input, fewer lines
/// before it than the bounds: malformed at its own line as past the bounds,
/// and the lines after it read as records (they were swallowed, and a
/// `-bad` label after them never judged); every line accounted for. Zone
/// files on the careful path and as a CZDS dump in parallel chunks, CSV in
/// memory and streamed.
#[test]
fn open_at_the_end_of_the_input_swallows_nothing() {
    let zone =
        b"$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\nok NS x.\nbad TXT ( \"x\"\n-bad NS x.\nz NS x.\n";
    let mut czds = b"tld.\t1\tin\tsoa\ta. b. 1 2 3 4 5\n".to_vec();
    for i in 0..20_000 {
        czds.extend_from_slice(format!("n{i:05}.tld.\t1\tin\tns\tx.\n").as_bytes());
    }
    czds.extend_from_slice(
        b"open.tld.\t1\tin\ttxt\t( \"x\"\n-bad.tld.\t1\tin\tns\tx.\nz.tld.\t1\tin\tns\tx.\n",
    );
    let csv = b"label\nok\n\"x\n-bad\nz\n";
    for (name, data, labels, line) in [
        ("z", &zone[..], 3, 4),
        ("z.gz", &gzip(zone)[..], 3, 4),
        ("c.txt", &czds[..], 20_002, 20_002),
        ("l.csv", &csv[..], 3, 3),
        ("l.csv.gz", &gzip(csv)[..], 3, 3),
    ] {
        let configs = [
            Config::new(),
            Config::new().chunk_bytes(Some(1 << 12)),
            Config::new().zone_fast_path(false),
        ];
        for config in configs {
            let set = read_bytes(name, data, &config);
            assert_eq!(set.len(), labels, "{name}");
            assert!(alabels(&set).contains(&"-bad".to_string()), "{name}");
            assert!(alabels(&set).contains(&"z".to_string()), "{name}");
            let m = &set.accounting().malformed_details;
            assert_eq!((m.len(), m[0].line), (1, line), "{name}: {m:?}");
            assert!(m[0].reason.contains("not closed before the end of the"), "{name}: {m:?}");
            set.accounting().check().unwrap();
        }
    }
}

/// `tail` (lines of a zone under `$ORIGIN tld.`) as a master file, the
/// same gzipped, and after the 20,000 records of a CZDS dump (read on its
/// fast path): each with the line number of `tail`'s second line.
fn zone_shapes(tail: &str) -> [(&'static str, Vec<u8>, u64); 3] {
    let zone = format!("$ORIGIN tld.\n@ SOA a. b. 1 2 3 4 5\n{tail}");
    let mut czds = "tld.\t1\tin\tsoa\ta. b. 1 2 3 4 5\n".to_string();
    for i in 0..20_000 {
        czds.push_str(&format!("n{i:05}.tld.\t1\tin\tns\tx.\n"));
    }
    czds.push_str(&format!("$ORIGIN tld.\n{tail}"));
    [
        ("z", zone.as_bytes().to_vec(), 4),
        ("z.gz", gzip(zone.as_bytes()), 4),
        ("c.txt", czds.into_bytes(), 20_004),
    ]
}

/// The reader's paths: whole, in 4 KiB chunks, and without the fast path.
fn read_paths() -> [Config; 3] {
    [Config::new(), Config::new().chunk_bytes(Some(1 << 12)), Config::new().zone_fast_path(false)]
}

/// A `(` still open at a directive's line ends its entry there as at the
/// end of the input: its first line alone is malformed, and the records
/// between it and the directive are read, not counted as continuation
/// lines of it (they were, and vanished under `--on-malformed warn`).
#[test]
fn open_before_a_directive_swallows_nothing() {
    let tail = "ok NS x.\nopen TXT ( \"x\"\n-bad NS x.\nz NS x.\n$TTL 300\nafter NS x.\n";
    for ((name, data, line), labels) in zone_shapes(tail).into_iter().zip([4, 4, 20_004]) {
        for config in read_paths() {
            let set = read_bytes(name, &data, &config);
            let names = alabels(&set);
            assert_eq!(set.len(), labels, "{name}");
            for l in ["-bad", "z", "after"] {
                assert!(names.contains(&l.to_string()), "{name}: {l} missing");
            }
            let m = &set.accounting().malformed_details;
            assert_eq!((m.len(), m[0].line), (1, line), "{name}: {m:?}");
            assert!(m[0].reason.contains("not closed before a directive"), "{name}: {m:?}");
            set.accounting().check().unwrap();
        }
    }
}

/// A blank owner is the owner stated last (RFC 1035 §5.1): after a line
/// whose owner is malformed it is malformed too, not the owner's before
/// that line (whose NS set it joined, making an `ns-mismatch` the input
/// does not have). On every read path.
#[test]
fn a_blank_owner_after_a_malformed_owner_is_malformed() {
    let tail = "good NS ns1.x.\nbad..owner NS x.\n NS evil.example.net.\nz NS x.\n NS y.\n";
    for (name, data, line) in zone_shapes(tail) {
        for config in read_paths() {
            let set = read_bytes(name, &data, &config);
            let good = set.iter().find(|l| l.alabel() == "good").expect("good");
            assert_eq!(good.ns_targets().collect::<Vec<_>>(), ["ns1.x."], "{name}");
            let m: Vec<(u64, &str)> = (set.accounting().malformed_details.iter())
                .map(|m| (m.line, m.reason.as_str()))
                .collect();
            let blank = format!("blank owner: the owner before it (line {line}) is malformed");
            assert_eq!(
                m,
                [(line, "owner: empty label in name"), (line + 1, blank.as_str())],
                "{name}"
            );
            assert!(alabels(&set).contains(&"z".to_string()), "{name}");
            set.accounting().check().unwrap();
        }
    }
}

/// A backslash before a line end inside a quoted string does not carry
/// the string onto the next line: every line is counted, and the labels
/// after it keep their line numbers, on every read path (the string was
/// read on as one, and mapped and streamed reads disagreed).
#[test]
fn an_escaped_line_end_in_a_quote_keeps_the_lines() {
    let mut zone = b"$ORIGIN ex.\n@ SOA a. b. 1 2 3 4 5\nfoo TXT \"a\\\nb\"\n".to_vec();
    for i in 0..2000 {
        zone.extend_from_slice(format!("n{i} A 192.0.2.1\n").as_bytes());
    }
    let dir = TempDir::new();
    let path = dir.write("q.zone", &zone);
    let stream = Config::new().mmap(MmapChoice::never());
    // SAFETY: the file is not changed while it is mapped.
    let mapped = Config::new().mmap(unsafe { MmapChoice::auto() });
    for (config, what) in [(&stream, "stream"), (&mapped, "mapped")] {
        let set = read([Input::Path(path.clone())], config).expect("reads");
        set.accounting().check().unwrap();
        assert_eq!(set.accounting().lines, 2004, "{what}");
        assert_eq!(set.len(), 2000, "{what}");
        assert_eq!(set.get(0).unwrap().line(), 5, "{what}");
        let m = &set.accounting().malformed_details;
        assert_eq!(m.iter().map(|m| m.line).collect::<Vec<_>>(), [3, 4], "{what}: {m:?}");
    }
    let set = read_bytes("q.zone.gz", &gzip(&zone), &Config::new());
    assert_eq!((set.accounting().lines, set.get(0).unwrap().line()), (2004, 5));
}

/// A CSV header with two columns for one field (`label,label`,
/// `domain,label`, `registrant` twice) is an error naming it: one of the
/// two would be read and the other dropped without a word.
#[test]
fn csv_columns_given_twice_are_errors() {
    for (header, why) in [
        ("label,label,registrant", "two columns for the label: `label` and `label`"),
        ("domain,x,Label", "two columns for the label: `domain` and `Label`"),
        ("label,registrant,registrant", "two columns for the registrant"),
    ] {
        let data = format!("{header}\nfoo,bar,r1\n");
        let e =
            read([Input::Bytes { name: "d.csv".into(), data: data.into_bytes() }], &Config::new())
                .unwrap_err();
        assert!(e.to_string().contains(why) && e.to_string().contains("d.csv:1"), "{header}: {e}");
    }
}

/// A directive with more arguments than it takes, or a `$TTL` that is not
/// a TTL, is malformed: the text would be ignored (RFC 1035 §5.1 allows
/// only a comment after the arguments). A comment after them is fine.
#[test]
fn directives_take_their_arguments_only() {
    let zone = b"$ORIGIN ex.\n$ORIGIN ex. junk\n$TTL 300 junk\n$TTL abc\n$TTL 1h30M\n\
                 @ SOA a. b. 1 2 3 4 5\nfoo A 1\n$ORIGIN ex. ; comment\n\
                 $INCLUDE f.inc sub.ex. extra\n";
    let set = read_bytes("x.zone", zone, &Config::new());
    let m: Vec<(u64, &str)> =
        set.accounting().malformed_details.iter().map(|m| (m.line, m.reason.as_str())).collect();
    assert_eq!(
        m,
        [
            (2, "$ORIGIN: unexpected \"junk\""),
            (3, "$TTL: unexpected \"junk\""),
            (4, "$TTL: \"abc\" is not a TTL"),
            (9, "$INCLUDE: unexpected \"extra\""),
        ]
    );
    assert_eq!(set.accounting().directive_lines, 3);
}

/// A file whose every line opens a `(` is read in linear time: each line
/// is malformed alone, and once a source has scanned 64 MiB for a `)` that
/// never came, its bounds shrink to 32 lines and 4 KiB (the reason says
/// which), instead of each line being scanned 128 KiB ahead.
#[test]
fn a_file_of_open_parentheses_is_read_in_linear_time() {
    let mut zone = b"$ORIGIN ex.\n@ SOA a. b. 1 2 3 4 5\n".to_vec();
    let n = 2000;
    for _ in 0..n {
        zone.extend_from_slice(format!("x ( {}\n", "a".repeat(120)).as_bytes());
    }
    zone.extend_from_slice(b"bar A 192.0.2.1\n");
    for config in [Config::new(), Config::new().zone_fast_path(false)] {
        let set = read_bytes("p.zone", &zone, &config);
        assert_eq!(alabels(&set), ["bar"]);
        let acc = set.accounting();
        assert_eq!(acc.malformed, n);
        let reasons: Vec<&str> = acc.malformed_details.iter().map(|m| m.reason.as_str()).collect();
        assert!(reasons[0].ends_with("within 1000 lines or 131072 bytes"), "{reasons:?}");
        // Near the end, the end of the input comes first.
        let late = reasons[n as usize - 100];
        assert!(late.ends_with("within 32 lines or 4096 bytes"), "{late:?}");
    }
}

/// A label over 63 octets (RFC 1035 §2.3.4) in a name below the apex or
/// outside it is malformed, on the fast path and the careful one: no
/// server loads the zone. A registered label that long is judged instead
/// (IDNA2008: label too long).
#[test]
fn labels_over_63_octets_are_malformed_below_the_registered_label() {
    let long = "a".repeat(64);
    let master = format!(
        "$ORIGIN ex.\n@ SOA a. b. 1 2 3 4 5\nfoo A 1\n{long}.foo A 1\n{long} A 1\nx.{long}.other. A 1\n"
    );
    let czds = format!(
        "ex.\t1\tin\tsoa\ta. b. 1 2 3 4 5\nfoo.ex.\t1\tin\ta\t1\n{long}.foo.ex.\t1\tin\ta\t1\n\
         {long}.ex.\t1\tin\ta\t1\nx.{long}.other.\t1\tin\ta\t1\n"
    );
    for (name, data, lines) in [("l.zone", &master, [4, 6]), ("l.czds", &czds, [3, 5])] {
        for fast in [true, false] {
            let set = read_bytes(name, data.as_bytes(), &Config::new().zone_fast_path(fast));
            assert_eq!(alabels(&set), ["foo", long.as_str()], "{name} {fast}");
            let m = &set.accounting().malformed_details;
            assert_eq!(m.iter().map(|m| m.line).collect::<Vec<_>>(), lines, "{name} {fast}");
            assert!(
                m.iter().all(|m| m.reason == "owner: label of 64 octets (at most 63)"),
                "{m:?}"
            );
        }
    }
}
