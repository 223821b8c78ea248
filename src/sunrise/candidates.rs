//! Candidates of a check: what one is (a label and, from a CSV row, its
//! applicant) and how a list or a CSV of them is read.

use super::Error;
use crate::idna2008::suffix_alabel;
use crate::index::Index;
use crate::input::{MAX_LINE_BYTES, Timestamp};
use rayon::prelude::*;
use std::borrow::Cow;

/// One candidate label, its text borrowed from the list it was read from
/// where it can be (a million candidates are read in a check).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Candidate<'a> {
    /// The label as given (U-label or A-label).
    pub text: Cow<'a, str>,
    /// Where it was given (its line, 0 for a command-line label).
    pub line: u64,
    /// Who applies for it, when the candidates say (boxed: a list of
    /// labels says nothing, and a million candidates stay small).
    pub applicant: Option<Box<Applicant>>,
}

/// What a candidate's row says of its application.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applicant {
    /// The applicant's registrant id, if known.
    pub registrant: Option<String>,
    /// The registrar, if known.
    pub registrar: Option<String>,
    /// The priority date (`--priority date`).
    pub priority: Option<Timestamp>,
}

impl Applicant {
    /// `self` boxed, or none when it says nothing.
    pub fn boxed(self) -> Option<Box<Applicant>> {
        (self != Applicant::default()).then(|| Box::new(self))
    }
}

impl Candidate<'_> {
    /// The applicant's registrant id, if known.
    pub fn registrant(&self) -> Option<&str> {
        self.applicant.as_ref().and_then(|a| a.registrant.as_deref())
    }

    /// The priority date, if known.
    pub fn priority(&self) -> Option<Timestamp> {
        self.applicant.as_ref().and_then(|a| a.priority)
    }

    /// This candidate with the zone's suffix taken off its text, as a
    /// scan reads a name in a list or a `domain` column: `apex`
    /// (`example.`, any case and either IDNA form, the root's dot
    /// optional), or a trailing dot alone. A name under another suffix,
    /// and the apex itself written with its dot, are left as they are
    /// (and judged invalid).
    pub fn without_suffix(mut self, apex: Option<&str>) -> Self {
        let lead = self.text.len() - self.text.trim_start().len();
        let text = self.text.trim();
        let body = text.strip_suffix('.').unwrap_or(text);
        // The suffix in either IDNA form (`१२३.рф` under `xn--p1ai.`), as
        // the list reader compares it.
        let in_apex = |a: &str| {
            let (label, suffix) = body.split_once('.')?;
            let apex_labels = a.split('.').map(str::to_ascii_lowercase);
            let under = !label.is_empty() && suffix.split('.').map(alabel_of).eq(apex_labels);
            under.then_some(label)
        };
        let apex = apex.map(|a| a.trim_end_matches('.')).filter(|a| !a.is_empty());
        // The apex itself as an absolute name (`example.` of `example.`)
        // is no label under it: kept whole, it is judged invalid.
        let whole_apex = text.ends_with('.') && apex.is_some_and(|a| same_apex(body, a));
        let label = if whole_apex { text } else { apex.and_then(in_apex).unwrap_or(body) };
        let range = lead..lead + label.len();
        if range.len() == self.text.len() {
            return self;
        }
        self.text = match self.text {
            Cow::Borrowed(t) => Cow::Borrowed(&t[range]),
            Cow::Owned(t) => Cow::Owned(t[range].to_string()),
        };
        self
    }

    /// This candidate with its text owned, to outlive the list it was
    /// read from.
    pub fn into_owned(self) -> Candidate<'static> {
        Candidate { text: Cow::Owned(self.text.into_owned()), ..self }
    }
}

/// Whether `a` and `b` name the same zone apex: label by label in A-label
/// form and any case, a trailing dot optional (`РФ`, `xn--p1ai.`).
pub fn same_apex(a: &str, b: &str) -> bool {
    let labels = |n: &str| -> Vec<String> {
        let n = n.strip_suffix('.').unwrap_or(n);
        if n.is_empty() { Vec::new() } else { n.split('.').map(alabel_of).collect() }
    };
    labels(a) == labels(b)
}

/// A suffix label in A-label form, lower case: a U-label in any case
/// converted (`РФ` too, as the list reader reads it), any other text as
/// it is.
fn alabel_of(label: &str) -> String {
    let alabel = (!label.is_ascii()).then(|| suffix_alabel(label)).flatten();
    alabel.unwrap_or_else(|| label.to_ascii_lowercase())
}

/// `candidates` as the index's zone names them: each by its label
/// ([`Candidate::without_suffix`] with the index's apex), as `scan` reads a
/// name in a list.
pub fn without_suffixes<'a>(index: &Index, candidates: Vec<Candidate<'a>>) -> Vec<Candidate<'a>> {
    let apex = index.apex();
    candidates.into_iter().map(|c| c.without_suffix(apex)).collect()
}

/// Reads candidates: a CSV with a header naming a `label` (or `domain`)
/// column and optionally `registrant`, `registrar` and `priority` (an RFC
/// 3339 date), or a list of one label per line (`#` comments and blank
/// lines skipped). The header is told from a list's first label as a
/// scan tells it: split by `,`, `;` or tab into fields, one of them
/// `label` or `domain`; that field alone only in a file named `*.csv`.
/// `name` is used in errors.
///
/// # Errors
/// A CSV row without its label, with more fields than the header or
/// whose label spans lines (a quote left open), a bad priority date, a
/// line (or row) longer than [`MAX_LINE_BYTES`], or text that is not
/// UTF-8, each naming `name:line` (lines as written, CRLF ends and blank
/// lines counted).
pub fn read_candidates<'a>(name: &str, bytes: &'a [u8]) -> Result<Vec<Candidate<'a>>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::new(format!("{name}:{line}: not UTF-8"))
    })?;
    let text = text.trim_start_matches('\u{feff}');
    let first = text.lines().next().unwrap_or("");
    let csv_name = crate::input::csv_name(std::path::Path::new(name));
    let delimiter = crate::input::header_delimiter(first.as_bytes(), csv_name);
    let Some(delimiter) = delimiter else {
        // A first line that `scan` takes for a CSV header (it has a comma)
        // but that names no label column: an error there, and here, not a
        // list whose header and rows are all odd labels.
        let head = &text.as_bytes()[..text.len().min(64 << 10)];
        if crate::input::detect_format(head, csv_name) == crate::input::InputFormat::Csv {
            return Err(Error::new(format!("{name}:1: CSV header: no `label` or `domain` column")));
        }
        // Sized once: a list of a million candidates is not moved as it grows.
        let mut out = Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
        for (n, l) in text.lines().enumerate() {
            if l.len() > MAX_LINE_BYTES {
                let n = n + 1;
                return Err(Error::new(format!(
                    "{name}:{n}: line longer than {MAX_LINE_BYTES} bytes"
                )));
            }
            let l = l.split_once(" #").map_or(l, |(a, _)| a).trim();
            if !l.is_empty() && !l.starts_with('#') {
                let line = n as u64 + 1;
                out.push(Candidate { text: Cow::Borrowed(l), line, ..Candidate::default() });
            }
        }
        return Ok(out);
    };
    let mut rdr =
        csv::ReaderBuilder::new().delimiter(delimiter).flexible(true).from_reader(text.as_bytes());
    let headers = rdr.headers().map_err(|e| Error::new(format!("{name}:1: {e}")))?.clone();
    let col = |names: &[&str]| {
        headers.iter().position(|h| names.iter().any(|n| h.trim().eq_ignore_ascii_case(n)))
    };
    let (label, registrant, registrar, priority) = (
        col(&["label", "domain"]),
        col(&["registrant"]),
        col(&["registrar"]),
        col(&["priority", "priority_date"]),
    );
    let label = label.ok_or_else(|| Error::new(format!("{name}:1: no label column")))?;
    for names in
        [&["label", "domain"][..], &["registrant"], &["registrar"], &["priority", "priority_date"]]
    {
        let n = headers.iter().filter(|h| names.iter().any(|n| h.trim().eq_ignore_ascii_case(n)));
        if n.count() > 1 {
            return Err(Error::new(format!("{name}:1: two columns for the {}", names[0])));
        }
    }
    let cols = Columns { label, registrant, registrar, priority, fields: headers.len() };
    let body = &text[usize::try_from(rdr.position().byte()).unwrap_or(text.len())..];
    let one_thread = rayon::current_num_threads() == 1;
    if one_thread || body.len() < 2 * CSV_PIECE || memchr::memchr(b'"', body.as_bytes()).is_some() {
        // Quoted fields may hold newlines: the records are found in order
        // (as they are on one thread, where pieces would only cost more).
        let mut lines = crate::csv_lines::CsvLines::new(text.as_bytes());
        return rdr.records().map(|rec| cols.candidate(name, rec, &mut lines, 0)).collect();
    }
    // No quote: every record is one line, and pieces of whole lines are
    // read in parallel (a million candidates with their applicants: see
    // CHANGELOG), each line numbered from the newlines before its piece.
    let header_lines =
        memchr::memchr_iter(b'\n', &text.as_bytes()[..text.len() - body.len()]).count();
    let mut first_line = header_lines as u64;
    let pieces: Vec<(u64, &str)> = crate::input::split_lines(body.as_bytes(), CSV_PIECE)
        .into_iter()
        .map(|r| {
            let piece = &body[r];
            let before = first_line;
            first_line += memchr::memchr_iter(b'\n', piece.as_bytes()).count() as u64;
            (before, piece)
        })
        .collect();
    let read: Vec<Result<Vec<Candidate<'a>>, Error>> = pieces
        .par_iter()
        .map(|&(before, piece)| {
            let mut rdr = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .flexible(true)
                .has_headers(false)
                .from_reader(piece.as_bytes());
            let mut lines = crate::csv_lines::CsvLines::new(piece.as_bytes());
            rdr.records().map(|rec| cols.candidate(name, rec, &mut lines, before)).collect()
        })
        .collect();
    let mut out = Vec::with_capacity(read.iter().map(|r| r.as_ref().map_or(0, Vec::len)).sum());
    for r in read {
        out.extend(r?);
    }
    Ok(out)
}

/// Bytes of a quote-free CSV of candidates one task reads.
const CSV_PIECE: usize = 1 << 20;

/// Where a candidates CSV has its columns.
struct Columns {
    label: usize,
    registrant: Option<usize>,
    registrar: Option<usize>,
    priority: Option<usize>,
    /// The header's fields: a row with more is an error (a comma left
    /// unquoted in a registrant would shift the columns after it).
    fields: usize,
}

impl Columns {
    /// The candidate of a record read from text whose first line is line
    /// `before + 1` of the file (`lines` counts the lines of that text).
    fn candidate<'a>(
        &self,
        name: &str,
        rec: csv::Result<csv::StringRecord>,
        lines: &mut crate::csv_lines::CsvLines<'_>,
        before: u64,
    ) -> Result<Candidate<'a>, Error> {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| before + lines.at(p.byte()));
            Error::new(format!("{name}:{line}: {e}"))
        })?;
        let line = rec.position().map_or(0, |p| before + lines.at(p.byte()));
        if rec.len() > self.fields {
            let n = self.fields;
            return Err(Error::new(format!("{name}:{line}: more fields than the header ({n})")));
        }
        if rec.as_slice().len() > MAX_LINE_BYTES {
            let msg = format!("row longer than {MAX_LINE_BYTES} bytes");
            return Err(Error::new(format!("{name}:{line}: {msg}")));
        }
        let get = |c: Option<usize>| {
            c.and_then(|c| rec.get(c)).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
        };
        let Some(text) = get(Some(self.label)) else {
            return Err(Error::new(format!("{name}:{line}: no label in this row")));
        };
        if text.contains(['\n', '\r']) {
            // Which swallows the rows after it into one candidate.
            let msg = "the label spans lines (a quote left open?)";
            return Err(Error::new(format!("{name}:{line}: {msg}")));
        }
        let priority = get(self.priority)
            .map(|p| Timestamp::parse_rfc3339(&p))
            .transpose()
            .map_err(|e| Error::new(format!("{name}:{line}: priority: {e}")))?;
        Ok(Candidate {
            text: Cow::Owned(text),
            line,
            applicant: Applicant {
                registrant: get(self.registrant),
                registrar: get(self.registrar),
                priority,
            }
            .boxed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quote-free CSV larger than two pieces is read in parallel pieces:
    /// every candidate with its applicant and its line as written (blank
    /// lines and CRLF ends counted), and of two bad rows the first named.
    /// (On one thread, or with the pieces turned off, the same answers: the
    /// records read in order.)
    #[test]
    fn a_large_csv_is_read_in_pieces_with_its_lines() {
        let mut text = String::from("label;registrant;priority\r\n");
        let mut want = Vec::new();
        let mut line = 1;
        for i in 0..120_000u64 {
            line += 1;
            if i % 997 == 0 {
                text.push('\n');
                line += 1;
            }
            let end = if i % 3 == 0 { "\r\n" } else { "\n" };
            text.push_str(&format!("l{i};r{};2026-01-0{}{end}", i % 7, 1 + i % 9));
            want.push((format!("l{i}"), line, format!("r{}", i % 7)));
        }
        assert!(text.len() > 2 * CSV_PIECE);
        // Pieces are read only when the pool has two threads or more.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        fn read_in<'t>(
            pool: &rayon::ThreadPool,
            text: &'t str,
        ) -> Result<Vec<Candidate<'t>>, Error> {
            pool.install(|| read_candidates("c.csv", text.as_bytes()))
        }
        let got = read_in(&pool, &text).unwrap();
        let got: Vec<(String, u64, String)> = got
            .iter()
            .map(|c| (c.text.to_string(), c.line, c.registrant().unwrap_or("").to_string()))
            .collect();
        assert_eq!(got.len(), want.len());
        assert!(got == want, "first difference: {:?}", got.iter().zip(&want).find(|(g, w)| g != w));
        let bad = |text: &str, at: usize| {
            let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
            let l = lines[at].replacen("2026-01-0", "2026-13-0", 1);
            lines[at] = &l;
            read_in(&pool, &lines.concat()).unwrap_err().to_string()
        };
        let twice = {
            let mut lines: Vec<String> = text.split_inclusive('\n').map(String::from).collect();
            for at in [90_000, 100] {
                lines[at] = lines[at].replacen("2026-01-0", "2026-13-0", 1);
            }
            lines.concat()
        };
        assert!(bad(&text, 90_000).starts_with("c.csv:90001: priority"), "{}", bad(&text, 90_000));
        let e = read_in(&pool, &twice).unwrap_err().to_string();
        assert!(e.starts_with("c.csv:101: priority"), "{e}");
    }

    fn texts(name: &str, text: &str) -> Result<Vec<(String, u64)>, String> {
        let read = read_candidates(name, text.as_bytes()).map_err(|e| e.to_string())?;
        Ok(read.into_iter().map(|c| (c.text.into_owned(), c.line)).collect())
    }

    /// A first line that is `label` or `domain` alone is a candidate of a
    /// list (it was taken for a one-column CSV's header and dropped), and
    /// a header only in a file named `*.csv`.
    #[test]
    fn a_lone_label_column_is_a_header_in_a_csv_file_only() {
        let text = "label\nnewbrand\n";
        let list = vec![("label".to_string(), 1), ("newbrand".to_string(), 2)];
        assert_eq!(texts("c.txt", text), Ok(list));
        assert_eq!(texts("C.CSV", text), Ok(vec![("newbrand".to_string(), 2)]));
        assert_eq!(texts("c.txt", "domain;registrant\nnewbrand;r\n").unwrap().len(), 1);
    }

    /// A first line with a comma but no label column is a CSV header
    /// without one, an error as in a scan: the file was read as a list,
    /// its header and every row an invalid candidate.
    #[test]
    fn a_csv_header_without_a_label_column_is_an_error() {
        let e = texts("export.csv", "Domain Name,Registrant\nbluecloud,r1\n").unwrap_err();
        assert_eq!(e, "export.csv:1: CSV header: no `label` or `domain` column");
        assert!(texts("c.txt", "registrant,priority\nr1,2024-01-01\n").is_err());
        assert_eq!(texts("c.txt", "newbrand\n# a list\n").unwrap().len(), 1);
    }

    /// A row with more fields than the header is an error naming its line,
    /// as in a scan (an unquoted comma in a registrant shifted the columns
    /// after it), and so is a line longer than 1 MiB (held several times
    /// over as it was judged).
    #[test]
    fn rows_and_lines_are_bounded() {
        let shifted = "label,priority,registrant\nab,2024-05-01,r1\ncd,2023-01-01,Acme, Inc\n";
        let e = texts("c.csv", shifted).unwrap_err();
        assert_eq!(e, "c.csv:3: more fields than the header (3)");
        assert!(texts("c.csv", "label,registrant\nab\n").is_ok(), "fewer fields are fine");
        let long = format!("ok\n{}\n", "a".repeat(MAX_LINE_BYTES + 1));
        let e = texts("c.txt", &long).unwrap_err();
        assert_eq!(e, format!("c.txt:2: line longer than {MAX_LINE_BYTES} bytes"));
        let long = format!("label\n{}\n", "a".repeat(MAX_LINE_BYTES + 1));
        assert!(texts("c.csv", &long).unwrap_err().starts_with("c.csv:2: row longer than"));
    }

    #[test]
    fn apexes_compare_in_either_form() {
        assert!(same_apex("xn--p1ai.", "РФ"));
        assert!(same_apex("Example", "example."));
        assert!(same_apex(".", ""));
        assert!(!same_apex("example.", "sub.example."));
        assert!(!same_apex("example.", "."));
    }

    fn stripped(text: &str, apex: Option<&str>) -> String {
        let c = Candidate { text: text.into(), ..Candidate::default() };
        c.without_suffix(apex).text.into_owned()
    }

    /// The apex in either form and any case (`РФ` too: IDNA2008 gives it
    /// no A-label as it is; the label keeps its case); multi-byte characters
    /// anywhere (a byte offset into `naïve` panicked); other suffixes kept.
    #[test]
    fn the_suffix_is_taken_off_in_either_form() {
        let cases = [
            ("naïve", Some("tld."), "naïve"),
            ("naïve.tld.", Some("tld."), "naïve"),
            ("aébcdefg", Some("example."), "aébcdefg"),
            ("१२३.рф", Some("xn--p1ai."), "१२३"),
            ("१२३.XN--P1AI.", Some("xn--p1ai."), "१२३"),
            ("१२३.РФ", Some("xn--p1ai."), "१२३"),
            ("ДОМ.Рф.", Some("xn--p1ai."), "ДОМ"),
            ("foo.bar.example", Some("example."), "foo.bar.example"),
            ("foo.other", Some("example."), "foo.other"),
            (".example", Some("example."), ".example"),
            ("newbrand.", None, "newbrand"),
            (" ab.Example ", Some("example."), "ab"),
        ];
        for (text, apex, want) in cases {
            assert_eq!(stripped(text, apex), want, "{text:?} under {apex:?}");
        }
    }
}
