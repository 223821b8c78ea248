//! The rows of a scan's report: each finding with a stable id, its status
//! against a baseline, and the input's columns for its label.
//!
//! A finding's id ([`finding_id`]) depends only on what the finding is
//! about (its kind, the label's A-label, its index label and the identity
//! of the variant LGR), never on line numbers, group numbers or the other
//! labels of the input: two monthly reports name the same problem the
//! same way, which is what baselines ([`super::baseline`]) and diffs
//! ([`super::diff`]) match on.

use super::record::FieldType;
use crate::input::{Label, LabelSet};
use crate::scan::Finding;
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// The columns of a scan's CSV and JSON Lines rows, in order.
pub const FIELDS: &[&str] = &[
    "kind",
    "id",
    "status",
    "source",
    "line",
    "input",
    "ulabel",
    "alabel",
    "lgr",
    "disposition",
    "reason",
    "index",
    "group",
    "role",
    "holder",
    "relation",
    "registered",
    "registrant",
    "registrar",
    "ns",
];

/// How each of [`FIELDS`] is typed in JSON Lines: `line` and `group` are
/// numbers, `ns` an array, absent values `null`.
pub const TYPES: &[FieldType] = {
    use FieldType::{List, Number, Optional, Text};
    &[
        Text, Text, Optional, Text, Number, Text, Text, Text, Text, Optional, Text, Optional,
        Number, Optional, Optional, Optional, Optional, Optional, Optional, List,
    ]
};

/// Whether a finding is new to the report's reader or on record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// Not in the baseline: it makes the exit status 1.
    #[default]
    Open,
    /// Matched by the baseline: reported, counted apart, and no cause
    /// for exit status 1.
    Accepted,
}

impl Status {
    /// `open` or `accepted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Accepted => "accepted",
        }
    }
}

/// A finding's stable id: the first 16 hex digits of the SHA-256 of its
/// kind, A-label (a zone owner's own octets where they are not its
/// A-label, see [`RowContext::id`]), index label and the variant LGR's
/// identity (see [`crate::index::LgrSource::sha256`]), separated by NUL.
///
/// # Example
/// ```
/// use lgrscan::report::findings::finding_id;
/// let a = finding_id("collision", "xn--fiqz9s", "中囯", "abc");
/// assert_eq!(a.len(), 16);
/// assert_eq!(a, finding_id("collision", "xn--fiqz9s", "中囯", "abc"));
/// assert_ne!(a, finding_id("invalid", "xn--fiqz9s", "中囯", "abc"));
/// ```
pub fn finding_id(kind: &str, alabel: &str, index: &str, variant_identity: &str) -> String {
    id_of_parts([kind.as_bytes(), alabel.as_bytes(), index.as_bytes(), variant_identity.as_bytes()])
}

/// [`finding_id`] of its parts as octets.
fn id_of_parts(parts: [&[u8]; 4]) -> String {
    let mut h = Sha256::new();
    for part in parts {
        h.update(part);
        h.update([0]);
    }
    let d = h.finalize();
    d[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// What the rows of one report need beside the findings: the labels, the
/// variant LGR's identity and each finding's status.
#[derive(Clone, Copy, Debug)]
pub struct RowContext<'a> {
    labels: &'a LabelSet,
    variant_identity: &'a str,
    registrar: Option<u32>,
    status: &'a [Status],
}

impl<'a> RowContext<'a> {
    /// The context of a report on `labels`; every finding open.
    pub fn new(labels: &'a LabelSet, variant_identity: &'a str) -> RowContext<'a> {
        RowContext {
            labels,
            variant_identity,
            registrar: labels.csv_column("registrar"),
            status: &[],
        }
    }

    /// The same, with the status of each finding, by its position in the
    /// report (missing entries are open).
    pub fn with_status(self, status: &'a [Status]) -> RowContext<'a> {
        RowContext { status, ..self }
    }

    /// The labels.
    pub fn labels(&self) -> &'a LabelSet {
        self.labels
    }

    /// The status of the finding at position `i` of the report.
    pub fn status(&self, i: usize) -> Status {
        self.status.get(i).copied().unwrap_or_default()
    }

    /// The id of `f` ([`finding_id`]). A zone owner whose octets are not
    /// its A-label (a raw U-label, octets that are not UTF-8) is a name
    /// of its own in the DNS, so the octets stand for the A-label: its
    /// findings never share an id with those of the A-label's owner.
    pub fn id(&self, f: &Finding) -> String {
        let kind = f.kind.as_str().as_bytes();
        let (index, identity) = (f.index.as_bytes(), self.variant_identity.as_bytes());
        let key = u32::try_from(f.label).map_or(&b""[..], |i| self.labels.key_of(i));
        id_of_parts([kind, key, index, identity])
    }

    /// The `registrant` column of a label's row (CSV input).
    pub fn registrant(&self, l: &Label<'a>) -> Option<&'a str> {
        l.csv()?.registrant
    }

    /// The `registrar` column of a label's row (CSV input).
    pub fn registrar(&self, l: &Label<'a>) -> Option<&'a str> {
        l.csv()?.extra(self.registrar?)
    }

    /// The values of [`FIELDS`] for the finding at position `i`, borrowed
    /// where the label set or the finding holds them (a report may have
    /// millions of rows).
    pub fn fields(&self, i: usize, f: &'a Finding) -> [Cow<'a, str>; 20] {
        let labels = self.labels;
        let l = labels.get(f.label).expect("finding refers to a label");
        let holder = f.holder.and_then(|h| labels.get(h)).map(|h| h.alabel()).unwrap_or_default();
        let registered = l.csv().and_then(|c| c.registered).map(|t| t.to_string());
        let ns: Vec<&str> = l.ns_targets().collect();
        [
            Cow::Borrowed(f.kind.as_str()),
            Cow::Owned(self.id(f)),
            // A holder's, an allocated or a near member's row is context,
            // not a finding: it has no status (`open` rows outnumbered the
            // summary's open findings).
            Cow::Borrowed(if super::scan::is_problem(f) { self.status(i).as_str() } else { "" }),
            l.source_path().to_string_lossy(),
            Cow::Owned(l.line().to_string()),
            l.original_text(),
            Cow::Borrowed(l.ulabel()),
            Cow::Borrowed(l.alabel()),
            Cow::Borrowed(&f.lgr),
            Cow::Borrowed(&f.disposition),
            Cow::Borrowed(&f.reason),
            Cow::Borrowed(&f.index),
            f.group.map_or(Cow::Borrowed(""), |g| Cow::Owned(g.to_string())),
            Cow::Borrowed(f.role.map_or("", |r| r.as_str())),
            Cow::Borrowed(holder),
            Cow::Borrowed(f.relation.map_or("", |r| r.as_str())),
            registered.map_or(Cow::Borrowed(""), Cow::Owned),
            Cow::Borrowed(self.registrant(&l).unwrap_or_default()),
            Cow::Borrowed(self.registrar(&l).unwrap_or_default()),
            if ns.is_empty() { Cow::Borrowed("") } else { Cow::Owned(ns.join(";")) },
        ]
    }
}
