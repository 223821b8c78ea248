//! Input format detection from the first bytes of a file.

use super::InputFormat;

/// Record types and classes whose presence marks a line as a zone record.
const ZONE_WORDS: &[&str] = &[
    "IN",
    "CH",
    "HS",
    "A",
    "AAAA",
    "NS",
    "SOA",
    "CNAME",
    "MX",
    "TXT",
    "DS",
    "DNSKEY",
    "RRSIG",
    "NSEC",
    "NSEC3",
    "NSEC3PARAM",
    "PTR",
    "SRV",
    "CAA",
    "HINFO",
    "TLSA",
    "SVCB",
    "HTTPS",
    "CDS",
    "CDNSKEY",
    "ZONEMD",
    "SPF",
    "NAPTR",
    "DNAME",
    "LOC",
    "SSHFP",
    "URI",
    "OPENPGPKEY",
    "SMIMEA",
];

/// Detects the format of an input from its first lines.
///
/// * CSV: the first non-blank line has a comma (a header, with or without
///   a label column), or is split by `;` or tab into fields of which one
///   is named `label` or `domain`; or, in a file named `*.csv` or
///   `*.csv.gz` (`csv_name`), is that one field alone (a one-column
///   export's header), or has a `;` or a tab there. Elsewhere such a
///   line is a list's first label:
///   `domain` and `label` are names a registry may hold, and a header
///   taken for one would drop it unseen.
/// * Zone: a line starts with `$ORIGIN`, `$TTL` or `$INCLUDE`, or a line
///   has three or more fields of which one after the first is a class or a
///   record type ([RFC 1035 §5.1]), or a line starts with `;`.
/// * List: anything else (including empty and binary input).
///
/// Lines that start with `#` (a list's comments) are passed over: their
/// words are not fields, and `# a list of labels` has the type `A`, `#
/// exported 2026-12-05, registry X` a comma.
///
/// [RFC 1035 §5.1]: https://www.rfc-editor.org/rfc/rfc1035#section-5.1
pub(crate) fn detect(head: &[u8], csv_name: bool) -> InputFormat {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut lines = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
        .filter(|l| l.trim_ascii_start().first() != Some(&b'#'))
        .take(50)
        .peekable();
    if let Some(first) = lines.peek() {
        // A comma is in no name or zone directive: a first line with one is
        // a CSV header, so that one without a label column is reported as
        // such rather than read as a list of odd names.
        // A zone record is no header (`domain IN A 192.0.2.1`, tab-separated,
        // or a TXT record with a comma).
        let directive = matches!(first.first(), Some(b';' | b'$')) || is_record(first);
        // In a file named as a CSV, a `;` or a tab (in no name either)
        // marks a header too: `name;registrant` was read as a list of
        // invalid names rather than refused for its missing label column.
        let csv_named_header = csv_name && (first.contains(&b';') || first.contains(&b'\t'));
        if !directive
            && (first.contains(&b',')
                || csv_named_header
                || header_delimiter(first, csv_name).is_some())
        {
            return InputFormat::Csv;
        }
    }
    for line in lines {
        if line.first() == Some(&b';') {
            return InputFormat::Zone;
        }
        let upper = line.to_ascii_uppercase();
        if ["$ORIGIN", "$TTL", "$INCLUDE"].iter().any(|d| upper.starts_with(d.as_bytes())) {
            return InputFormat::Zone;
        }
        if is_record(line) {
            return InputFormat::Zone;
        }
    }
    InputFormat::List
}

/// The delimiter of `first`, a CSV header's line naming a label column:
/// `,`, `;` or tab when the line split by it has a field `label` or
/// `domain`; `,` for that field alone in a file named as a CSV
/// (`csv_name`). `None`: no such header (a list's first line). The
/// readers of inputs and of candidates tell headers by it.
pub(crate) fn header_delimiter(first: &[u8], csv_name: bool) -> Option<u8> {
    let is_label_column = |f: &[u8]| {
        let f = String::from_utf8_lossy(f);
        let f = f.trim().trim_matches('"').to_ascii_lowercase();
        f == "label" || f == "domain"
    };
    [b',', b';', b'\t']
        .into_iter()
        .find(|&d| first.contains(&d) && first.split(|&b| b == d).any(is_label_column))
        .or_else(|| (csv_name && is_label_column(first)).then_some(b','))
}

/// Whether `path` is named as a CSV file: `*.csv` or `*.csv.gz`, in any
/// case.
pub(crate) fn csv_name(path: &std::path::Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase());
    name.is_some_and(|n| n.ends_with(".csv") || n.ends_with(".csv.gz"))
}

/// Whether `line` has three or more fields of which one of the four after
/// the first is a class or a record type (`TYPE` and a number, RFC 3597).
fn is_record(line: &[u8]) -> bool {
    let upper = String::from_utf8_lossy(line).to_ascii_uppercase();
    let fields: Vec<&str> = upper.split_ascii_whitespace().collect();
    let is_type_number = |f: &str| {
        f.strip_prefix("TYPE")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    fields.len() >= 3
        && fields[1..].iter().take(4).any(|f| ZONE_WORDS.contains(f) || is_type_number(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(detect(b"label,registered\nfoo,2019-01-01\n", false), InputFormat::Csv);
        assert_eq!(detect(b"\"Domain\",x\n", false), InputFormat::Csv);
        assert_eq!(detect(b"label;registered\nfoo;2019-01-01\n", false), InputFormat::Csv);
        assert_eq!(detect(b"domain\tregistrant\nfoo\tr\n", false), InputFormat::Csv);
        // Zone records whose owner is a column name, or with a comma.
        assert_eq!(
            detect(b"domain\tIN\tA\t192.0.2.1\nwww\tIN\tA\t192.0.2.2\n", false),
            InputFormat::Zone
        );
        assert_eq!(detect(b"label IN TXT \"a,b\"\n", false), InputFormat::Zone);
        assert_eq!(detect(b"label, type, class\nfoo, a, b\n", false), InputFormat::Csv);
        assert_eq!(detect(b"name,registered\nfoo,2019-01-01\n", false), InputFormat::Csv);
        assert_eq!(detect(b"$ORIGIN com.\n", false), InputFormat::Zone);
        assert_eq!(
            detect(b"example.com.\t172800\tin\tns\tns1.example.com.\n", false),
            InputFormat::Zone
        );
        assert_eq!(detect(b"EXAMPLE NS NS1.EXAMPLE\n", false), InputFormat::Zone);
        assert_eq!(detect(b"example two\n", false), InputFormat::List);
        assert_eq!(detect(b"EXAMPLE 3600 NS NS1.EXAMPLE\n", false), InputFormat::Zone);
        assert_eq!(detect(b"# labels\nexample\nxn--bcher-kva\n", false), InputFormat::List);
        assert_eq!(detect(b"# a list of labels\nexample\n", false), InputFormat::List);
        assert_eq!(detect(b"  # IN NS A\nexample\n", false), InputFormat::List);
        assert_eq!(
            detect(b"# exported 2026-12-05, registry X\nexample\n", false),
            InputFormat::List
        );
        assert_eq!(detect(b"#label,registrant\nfoo,r\n", false), InputFormat::Csv);
        assert_eq!(detect(b"", false), InputFormat::List);
        assert_eq!(detect(b"\x00\xff\xfe", false), InputFormat::List);
    }

    /// A first line that is `label` or `domain` alone is a one-column
    /// CSV's header only in a file named so; elsewhere it is a label.
    #[test]
    fn a_lone_label_column_is_a_header_in_a_csv_file_only() {
        for head in [&b"domain\nshop\nnews\n"[..], b"label\r\nfoo\n", b"\"Domain\"\nfoo\n"] {
            assert_eq!(detect(head, false), InputFormat::List);
            assert_eq!(detect(head, true), InputFormat::Csv);
        }
        assert_eq!(detect(b"shop\ndomain\n", true), InputFormat::List);
        assert_eq!(detect(b"label;registrant\nfoo;r\n", false), InputFormat::Csv);
        // A header with no label column, by `;` or tab, in a CSV file.
        for head in [&b"name;registrant\nfoo;r\n"[..], b"name\tregistrant\nfoo\tr\n"] {
            assert_eq!(detect(head, true), InputFormat::Csv);
            assert_eq!(detect(head, false), InputFormat::List);
        }
    }
}
