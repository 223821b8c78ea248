//! Candidates of a check: what one is (a label and, from a CSV row, its
//! applicant) and how a list or a CSV of them is read.

use super::Error;
use crate::idna2008::suffix_alabel;
use crate::index::Index;
use crate::input::Timestamp;
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
    /// optional), or a trailing dot alone. A name under another suffix is
    /// left as it is (and judged invalid).
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
        let label = apex.and_then(in_apex).unwrap_or(body);
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
/// lines skipped). `name` is used in errors.
///
/// # Errors
/// A CSV row without its label or whose label spans lines (a quote left
/// open), a bad priority date, or text that is not UTF-8, each naming
/// `name:line` (lines as written, CRLF ends and blank lines counted).
pub fn read_candidates<'a>(name: &str, bytes: &'a [u8]) -> Result<Vec<Candidate<'a>>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::new(format!("{name}:{line}: not UTF-8"))
    })?;
    let text = text.trim_start_matches('\u{feff}');
    let first = text.lines().next().unwrap_or("");
    let delimiter = [b',', b';', b'\t'].into_iter().find(|&d| {
        first.split(d as char).any(|f| {
            let f = f.trim().trim_matches('"').to_ascii_lowercase();
            f == "label" || f == "domain"
        })
    });
    let Some(delimiter) = delimiter else {
        // Sized once: a list of a million candidates is not moved as it grows.
        let mut out = Vec::with_capacity(memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1);
        out.extend(text.lines().enumerate().filter_map(|(n, l)| {
            let l = l.split_once(" #").map_or(l, |(a, _)| a).trim();
            (!l.is_empty() && !l.starts_with('#')).then(|| Candidate {
                text: Cow::Borrowed(l),
                line: n as u64 + 1,
                ..Candidate::default()
            })
        }));
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
    let mut out = Vec::new();
    let mut lines = crate::csv_lines::CsvLines::new(text.as_bytes());
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| lines.at(p.byte()));
            Error::new(format!("{name}:{line}: {e}"))
        })?;
        let line = rec.position().map_or(0, |p| lines.at(p.byte()));
        let get = |c: Option<usize>| {
            c.and_then(|c| rec.get(c)).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
        };
        let Some(text) = get(Some(label)) else {
            return Err(Error::new(format!("{name}:{line}: no label in this row")));
        };
        if text.contains(['\n', '\r']) {
            // Which swallows the rows after it into one candidate.
            let msg = "the label spans lines (a quote left open?)";
            return Err(Error::new(format!("{name}:{line}: {msg}")));
        }
        let priority = get(priority)
            .map(|p| Timestamp::parse_rfc3339(&p))
            .transpose()
            .map_err(|e| Error::new(format!("{name}:{line}: priority: {e}")))?;
        out.push(Candidate {
            text: Cow::Owned(text),
            line,
            applicant: Applicant {
                registrant: get(registrant),
                registrar: get(registrar),
                priority,
            }
            .boxed(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
