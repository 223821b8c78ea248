//! Tests of `lgrscan::input` on label lists and CSV files: their lines,
//! columns and comments, read whole and in small chunks, with CRLF ends.

use crate::util::*;
use lgrscan::input::{Config, ErrorKind, Input, InputFormat, Strictness, Timestamp, read};

#[test]
fn label_lists() {
    let list = "# registry labels\n\
\n\
example\n\
Example.TLD.\n\
xn--bcher-kva\n\
bücher\n\
  spaced   # trailing comment\n\
www.example.tld\n\
foo.other\n\
xn--99999999999\n\
two words\n\
a..b\n";
    let set = read_bytes("labels.txt", list.as_bytes(), &Config::new().origin(Some("tld")));
    assert_eq!(set.apex(), Some("tld."));
    assert_eq!(alabels(&set), ["example", "xn--bcher-kva", "spaced", "xn--99999999999"]);
    assert_eq!(findings(&set)[3], "punycode does not decode");
    let acc = set.accounting();
    assert_eq!(acc.lines, 12);
    assert_eq!((acc.comment_lines, acc.blank_lines), (1, 1));
    assert_eq!(acc.records, 6);
    assert_eq!(acc.duplicate_records, 2);
    // A name below a registered one, or of another zone, is counted and
    // never judged in a zone file; a list names registered names only.
    assert_eq!((acc.deeper_records, acc.outside_records), (0, 0));
    assert_eq!(acc.malformed, 4);
    let why: Vec<(u64, &str)> =
        acc.malformed_details.iter().map(|m| (m.line, m.reason.as_str())).collect();
    assert_eq!(why[0].0, 8);
    assert!(why[0].1.starts_with("\"www.example.tld\" is below a registered name (apex tld.)"));
    assert_eq!(why[1].0, 9);
    assert!(why[1].1.starts_with("\"foo.other\" is outside the zone (apex tld.)"));
    assert_eq!(why[2], (11, "more than one field on a label line"));
    // Without --origin the suffix of the first dotted name is the apex.
    let set =
        read_bytes("l.txt", b"a.tld\nb\nc.tld.\n", &Config::new().format(Some(InputFormat::List)));
    assert_eq!(set.apex(), Some("tld."));
    assert_eq!(alabels(&set), ["a", "b", "c"]);
}

#[test]
fn csv_columns() {
    let csv = "label,registered,registrant,lgr,status\n\
bücher,2019-03-01,R1,und-Latn,ok\n\
\"xn--bcher-kva\",2019-03-01,R1,und-Latn,dup\n\
example,2018-05-06T10:00:00+02:00,R3,,\n\
bad,yesterday,R4,,\n\
\"multi\n\
line\",,,,\n";
    let set = read_bytes("labels.csv", csv.as_bytes(), &Config::new());
    assert_eq!(set.sources()[0].format, InputFormat::Csv);
    assert_eq!(alabels(&set), ["xn--bcher-kva", "example", "multi\nline"]);
    assert_eq!(findings(&set)[2], "non-LDH ASCII \\010 at byte offset 5");
    assert_eq!(set.csv_columns(), ["status"]);
    let b = set.get(0).unwrap();
    let f = b.csv().unwrap();
    assert_eq!(f.registered, Some(Timestamp::parse_rfc3339("2019-03-01").unwrap()));
    assert_eq!(f.registrant, Some("R1"));
    assert_eq!(f.lgr, Some("und-Latn"));
    assert_eq!((f.extra(0), f.extra(1)), (Some("ok"), None));
    assert_eq!(b.original(), "bücher".as_bytes());
    let e = set.get(1).unwrap().csv().unwrap().registered.unwrap();
    assert_eq!(e.to_string(), "2018-05-06T08:00:00Z");
    let acc = set.accounting();
    assert_eq!(acc.directive_lines, 1);
    assert_eq!(acc.records, 4);
    assert_eq!(acc.duplicate_records, 1);
    assert_eq!(acc.malformed, 1);
    assert_eq!(acc.continuation_lines, 1);
    assert_eq!(acc.lines, 7);
    assert!(acc.malformed_details[0].reason.starts_with("registered: "));
    assert_eq!(acc.malformed_details[0].line, 5);

    let e = read(
        [Input::Bytes { name: "x.csv".into(), data: b"name,date\nfoo,bar\n".to_vec() }],
        &Config::new().format(Some(InputFormat::Csv)),
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CsvHeader(_)), "{e}");
    assert_eq!(e.to_string(), "x.csv:1: CSV header: no `label` or `domain` column");
}

/// A list and a CSV file of varied lines (CRLF, comments, blank lines,
/// duplicates as U-label and A-label, upper case, names with the apex,
/// malformed lines, quoted CSV fields over several lines, one past the
/// limit) read in chunks of any size, on 1 or 3 threads, give the labels
/// (with their line numbers and CSV columns), the accounting and the
/// malformed reports of a read in one chunk; and under `--strict` the same
/// first error.
#[test]
fn lists_and_csv_in_small_chunks_read_as_whole() {
    let mut list = String::from("# labels\r\n\r\n");
    let mut csv = String::from("label;registered;registrant;note\r\n");
    for i in 0..400 {
        let label = match i % 9 {
            0 => format!("Label{i}"),
            1 => format!("xn--bcher-kva{}", if i % 2 == 0 { "" } else { "." }),
            2 => "bücher".to_string(),
            3 => format!("n{i}.tld."),
            4 => format!("w{i}.deep.tld"),
            5 => format!("two fields{i}"),
            6 => "a..b".to_string(),
            7 => format!("  spaced{i}  # comment"),
            _ => format!("l{}", i / 3),
        };
        list += &label;
        list += if i % 4 == 0 { "\r\n" } else { "\n" };
        let field = match i % 7 {
            0 => format!("\"multi{i}\n;line\""),
            1 => format!("\"q{i}\"\"x\""),
            _ => label.clone(),
        };
        let registered = if i % 11 == 0 { "soon" } else { "2020-01-02" };
        csv += &format!("{field};{registered};r{i};\"n;{i}\"\r\n");
        if i % 50 == 0 {
            csv += "\n";
        }
    }
    // A quoted field open past `MAX_QUOTED_LINES`: malformed at its line.
    csv += "\"open\n";
    csv += &"x\n".repeat(120);
    csv += "after;2021-01-01;r;n\n";
    let pools: Vec<_> = [1, 3]
        .iter()
        .map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect();
    for (name, text) in [("l.txt", list), ("l.csv", csv)] {
        let outcome = |config: &Config, data: &[u8]| {
            let set = read_bytes(name, data, config);
            (label_lines(&set), format!("{:?}", set.accounting()))
        };
        let strict = |config: Config, data: &[u8]| {
            let input = Input::Bytes { name: name.into(), data: data.to_vec() };
            read([input], &config.strictness(Strictness::Strict)).unwrap_err().to_string()
        };
        let whole = Config::new().chunk_bytes(Some(1 << 30));
        let want = outcome(&whole, text.as_bytes());
        let want_err = strict(whole, text.as_bytes());
        assert!(!want.1.contains("malformed: 0,"), "{name}: {}", want.1);
        for chunk in [1, 7, 64, 300, 4096] {
            for pool in &pools {
                let config = Config::new().chunk_bytes(Some(chunk));
                for data in [text.as_bytes().to_vec(), gzip(text.as_bytes())] {
                    let got = pool.install(|| outcome(&config, &data));
                    let threads = pool.current_num_threads();
                    assert_eq!(got, want, "{name}: chunk {chunk}, {threads} threads");
                    let err = pool.install(|| strict(config.clone(), &data));
                    assert_eq!(err, want_err, "{name}: chunk {chunk}, {threads} threads");
                }
            }
        }
    }
}

/// A CSV file with CRLF line ends reads as the same file with LF ends: the
/// same labels, lines and CSV columns, apart from the offsets (the records
/// without quotes are split in place either way, the CR dropped with the
/// newline, not kept in the last field).
#[test]
fn crlf_csv_reads_as_lf_csv() {
    let mut lf = String::from("label,registered,registrant,note\n");
    for i in 0..3000 {
        let registered = match i % 5 {
            0 => String::new(),
            1 => "2020-02-29T12:00:00Z".to_string(),
            _ => format!("20{:02}-0{}-1{}", i % 30, 1 + i % 9, i % 10),
        };
        lf += &format!("l{i},{registered},reg-{},n{i}\n", i % 97);
    }
    let crlf = lf.replace('\n', "\r\n");
    let lines = |name: &str, text: &str| -> Vec<String> {
        let set = read_bytes(name, text.as_bytes(), &Config::new());
        assert_eq!(set.len(), 3000, "{name}");
        let csv = set.iter().nth(7).and_then(|l| l.csv()).expect("a row");
        assert_eq!((csv.registrant, csv.extra(0)), (Some("reg-7"), Some("n7")), "{name}");
        let without_offset = |l: &String| {
            l.split(' ').filter(|t| !t.starts_with("off=")).collect::<Vec<_>>().join(" ")
        };
        label_lines(&set).iter().map(without_offset).collect()
    };
    assert_eq!(lines("lf.csv", &lf), lines("crlf.csv", &crlf));
}

/// A zone suffix is compared with the apex whatever its case: `bar.РФ`
/// is under `xn--p1ai.` (IDNA2008 maps no case, so `РФ` has no A-label
/// as it is), in a list with or without `--origin`, in a CSV `domain`
/// column, and `--origin РФ` is that apex. The registered label keeps its
/// case: `БАР.рф` registers `БАР`, judged as written (DISALLOWED).
/// A first line that is `domain` or `label` alone is a list's first
/// label, a registered name like any other (it was taken for a one-column
/// CSV's header and dropped, counted as a directive, and the run exited
/// 0); in a file named `*.csv` it is that CSV's header.
#[test]
fn a_lone_label_column_is_a_label_unless_the_file_is_a_csv() {
    for (name, want) in [
        ("l.txt", &["domain", "shop", "news"][..]),
        ("-", &["domain", "shop", "news"]),
        ("l.csv", &["shop", "news"]),
        ("l.CSV.gz", &["shop", "news"]),
    ] {
        let data = b"domain\nshop\nnews\n";
        let data = if name.ends_with(".gz") { gzip(data) } else { data.to_vec() };
        let set = read_bytes(name, &data, &Config::new());
        assert_eq!(alabels(&set), want, "{name}");
        set.accounting().check().unwrap();
    }
}

#[test]
fn an_upper_case_suffix_is_the_apex() {
    let list = Config::new().format(Some(InputFormat::List));
    let text = "bar.\u{0420}\u{0424}\nfoo.xn--p1ai\n\u{0411}\u{0410}\u{0420}.\u{0440}\u{0444}\n";
    for config in [list.clone(), list.origin(Some("xn--p1ai."))] {
        let set = read_bytes("l.txt", text.as_bytes(), &config);
        let acc = set.accounting();
        assert_eq!(acc.malformed, 0, "{:?}", acc.malformed_details);
        assert_eq!(set.apex(), Some("xn--p1ai."));
        assert_eq!(ulabels(&set), ["bar", "foo", "\u{0411}\u{0410}\u{0420}"]);
        assert_eq!(findings(&set)[..2], ["", ""]);
        assert_eq!(findings(&set)[2], "U+0411 DISALLOWED");
    }
    let csv = "domain,registrant\nbar.\u{0420}\u{0424}.,r1\nfoo.XN--P1AI,r2\n";
    for origin in [None, Some("\u{0420}\u{0424}")] {
        let set = read_bytes("l.csv", csv.as_bytes(), &Config::new().origin(origin));
        assert_eq!(set.accounting().malformed, 0, "{:?}", set.accounting().malformed_details);
        assert_eq!(
            (set.apex(), alabels(&set)),
            (Some("xn--p1ai."), vec!["bar".into(), "foo".into()])
        );
    }
}

/// Without `--origin`, the apex is the suffix of a list's first name with
/// a dot; when that name is deeper than the rest (`www.shop.example`
/// first), the correct lines are the ones reported, so their reason says
/// which name the apex came from and that `--origin` sets it (in a later
/// file too, a CSV's `domain` column alike); with `--origin` it names none.
#[test]
fn an_inferred_apex_says_where_it_came_from() {
    let list = b"# shop\nwww.shop.example\nfoo.example\nbar\n";
    let set = read_bytes("l.txt", list, &Config::new().format(Some(InputFormat::List)));
    assert_eq!(
        (set.apex(), alabels(&set)),
        (Some("shop.example."), vec!["www".into(), "bar".into()])
    );
    let why: Vec<(u64, &str)> =
        set.accounting().malformed_details.iter().map(|m| (m.line, m.reason.as_str())).collect();
    let tail = "a list holds one zone's registered names: scan each zone on its own";
    let want = format!(
        "\"foo.example\" is outside the zone (apex shop.example., the suffix of the name at \
         l.txt:2; --origin sets it); {tail}"
    );
    assert_eq!(why, [(3, want.as_str())]);

    let config = Config::new().format(Some(InputFormat::List)).origin(Some("example"));
    let set = read_bytes("l.txt", list, &config);
    let why = &set.accounting().malformed_details;
    let want = format!("\"www.shop.example\" is below a registered name (apex example.); {tail}");
    assert_eq!((why.len(), why[0].line, why[0].reason.as_str()), (1, 2, want.as_str()));

    let inputs = [
        Input::Bytes { name: "a.txt".into(), data: b"x\ny.shop.example.\n".to_vec() },
        Input::Bytes {
            name: "b.csv".into(),
            data: b"domain\nfoo.example\nz.shop.example\n".to_vec(),
        },
    ];
    let set = read(inputs, &Config::new()).unwrap();
    assert_eq!(alabels(&set), ["x", "y", "z"]);
    let why = &set.accounting().malformed_details;
    let want = format!(
        "\"foo.example\" is outside the zone (apex shop.example., the suffix of the name at \
         a.txt:2; --origin sets it); {tail}"
    );
    assert_eq!(
        (why.len(), why[0].source, why[0].line, why[0].reason.as_str()),
        (1, 1, 2, want.as_str())
    );
}

/// A one-label apex written as an absolute name (`example.` in the list
/// of the zone `example.`, or `РФ.` of `xn--p1ai.`) is the apex line, not
/// a label registered under it; without the dot it is a label.
#[test]
fn a_one_label_apex_is_not_a_label() {
    let list = Config::new().format(Some(InputFormat::List));
    for (origin, text, apex) in [
        ("example", "example.\nfoo\nExample.\nexample\n", "example"),
        ("xn--p1ai", "\u{0420}\u{0424}.\nfoo\nxn--p1ai.\nexample\n", "xn--p1ai"),
    ] {
        let set = read_bytes("l.txt", text.as_bytes(), &list.clone().origin(Some(origin)));
        assert_eq!(alabels(&set), ["foo", "example"], "{origin}");
        let why = &set.accounting().malformed_details;
        assert_eq!(why.iter().map(|m| m.line).collect::<Vec<_>>(), [1, 3], "{origin}");
        assert!(why[0].reason.contains(&format!("is the zone's apex (apex {apex}.)")), "{why:?}");
        set.accounting().check().unwrap();
    }
    // The root's apex line of a list of top-level labels (it said "empty
    // label": hunt h4).
    let set = read_bytes("l.txt", b".\ncom\n", &list.clone().origin(Some(".")));
    assert_eq!(alabels(&set), ["com"]);
    let why = &set.accounting().malformed_details;
    assert_eq!(why.len(), 1);
    assert!(why[0].reason.starts_with("\".\" is the zone's apex (the root)"), "{why:?}");
    // Without an apex, a dotted one-label name is still a label.
    let set = read_bytes("l.txt", b"example.\nfoo\n", &list);
    assert_eq!(alabels(&set), ["example", "foo"]);
    // The apex taken from a dotted name after it (hunt h4: it was read as
    // a label above `bar.example`, and as the apex below it), in small
    // chunks too.
    for text in ["example.\nfoo\nbar.example\n", "foo\nbar.example\nexample.\n"] {
        for chunk in [None, Some(4)] {
            let config = list.clone().chunk_bytes(chunk);
            let set = read_bytes("l.txt", text.as_bytes(), &config);
            assert_eq!(set.apex(), Some("example."), "{text:?}");
            assert_eq!(alabels(&set), ["foo", "bar"], "{text:?} {chunk:?}");
            let why = &set.accounting().malformed_details;
            assert_eq!(why.len(), 1, "{why:?}");
            assert!(
                why[0].reason.contains(
                    "is the zone's apex (apex example., the suffix of the name at l.txt:"
                ),
                "{why:?}"
            );
            set.accounting().check().unwrap();
        }
    }
}
