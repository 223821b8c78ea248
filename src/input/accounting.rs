//! Counts of what a run read, that add up.

use std::fmt;

/// How many malformed lines keep their details; the count stays exact.
pub const MALFORMED_DETAILS_MAX: usize = 100_000;

/// A line that could not be read as a record, with where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// Index of the source in [`LabelSet::sources`](super::LabelSet::sources).
    pub source: u32,
    /// Line number (1-based).
    pub line: u64,
    /// Byte offset of the start of the line in the (decompressed) source.
    pub offset: u64,
    /// Why, e.g. `unbalanced parentheses`.
    pub reason: String,
}

/// Counts of a run. Every physical line read is counted once in exactly one
/// of `blank_lines`, `comment_lines`, `directive_lines`, `record_lines`,
/// `continuation_lines` and `malformed`; every record once in exactly one of
/// `apex_records`, `registered_labels`, `duplicate_records`,
/// `deeper_records`, `nsec3_records` and `outside_records`. [`Accounting::check`] verifies
/// both sums.
///
/// For a zone, a record is a resource record ([RFC 1035 §5.1]); for a label
/// list a line with a label; for CSV a data row.
///
/// [RFC 1035 §5.1]: https://www.rfc-editor.org/rfc/rfc1035#section-5.1
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    /// Bytes read (decompressed).
    pub bytes: u64,
    /// Physical lines read.
    pub lines: u64,
    /// Blank lines (only white space).
    pub blank_lines: u64,
    /// Lines with only a comment.
    pub comment_lines: u64,
    /// Directive lines (`$ORIGIN`, `$TTL`, `$INCLUDE`) and CSV header rows.
    pub directive_lines: u64,
    /// First lines of records.
    pub record_lines: u64,
    /// Lines after the first of an entry that spans lines (parentheses,
    /// quoted CSV fields).
    pub continuation_lines: u64,
    /// Records read (equals `record_lines`).
    pub records: u64,
    /// Records whose owner is the apex.
    pub apex_records: u64,
    /// Distinct registered labels (the first record of each).
    pub registered_labels: u64,
    /// Records folded into a registered label already counted.
    pub duplicate_records: u64,
    /// Records whose owner is more than one label below the apex (glue…).
    pub deeper_records: u64,
    /// NSEC3 records and the RRSIGs covering them, at hashed owner names
    /// one label below the apex ([RFC 5155 §7.1]): DNSSEC data, not
    /// registered labels.
    ///
    /// [RFC 5155 §7.1]: https://www.rfc-editor.org/rfc/rfc5155#section-7.1
    pub nsec3_records: u64,
    /// Records whose owner is not at or below the apex.
    pub outside_records: u64,
    /// Distinct owner names: the apex, the registered labels, and the
    /// names below depth, NSEC3 hashed owners and names outside the apex
    /// (these three counted through 64-bit hashes of the names).
    pub owner_names: u64,
    /// Distinct owner names more than one label below the apex.
    pub deeper_names: u64,
    /// Distinct NSEC3 hashed owner names (see `nsec3_records`).
    pub nsec3_names: u64,
    /// Distinct owner names outside the apex.
    pub outside_names: u64,
    /// `$INCLUDE` files read.
    pub includes: u64,
    /// Malformed entries (each counted on its first line).
    pub malformed: u64,
    /// Of the malformed entries, NS records outside the apex: delegations
    /// the zone cannot hold (a mistyped `$ORIGIN`, another zone's file).
    pub outside_delegations: u64,
    /// Details of the first [`MALFORMED_DETAILS_MAX`] malformed entries.
    pub malformed_details: Vec<Malformed>,
}

impl Accounting {
    /// Lines that were skipped: blank, comment and directive lines.
    pub fn skipped_lines(&self) -> u64 {
        self.blank_lines + self.comment_lines + self.directive_lines
    }

    /// Checks that the parts add up to what was read.
    ///
    /// # Errors
    ///
    /// A description of the sum that does not hold.
    pub fn check(&self) -> Result<(), String> {
        let lines = self.blank_lines
            + self.comment_lines
            + self.directive_lines
            + self.record_lines
            + self.continuation_lines
            + self.malformed;
        if lines != self.lines {
            return Err(format!("lines: {} read but parts add up to {lines}", self.lines));
        }
        if self.records != self.record_lines {
            return Err(format!("{} records but {} record lines", self.records, self.record_lines));
        }
        let recs = self.apex_records
            + self.registered_labels
            + self.duplicate_records
            + self.deeper_records
            + self.nsec3_records
            + self.outside_records;
        if recs != self.records {
            return Err(format!("records: {} read but parts add up to {recs}", self.records));
        }
        let apex = u64::from(self.apex_records > 0);
        let names = apex
            + self.registered_labels
            + self.deeper_names
            + self.nsec3_names
            + self.outside_names;
        if names != self.owner_names {
            return Err(format!("owner names: {} but parts add up to {names}", self.owner_names));
        }
        let kept = self.malformed_details.len() as u64;
        if kept > self.malformed || (kept < self.malformed && kept < MALFORMED_DETAILS_MAX as u64) {
            return Err(format!("{} malformed but {kept} detailed", self.malformed));
        }
        Ok(())
    }
}

impl fmt::Display for Accounting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} lines ({} blank, {} comment, {} directive, {} record, {} continuation, \
             {} malformed); {} records ({} apex, {} registered labels, {} duplicates folded, \
             {} below depth, {} NSEC3, {} outside the apex); {} owner names",
            self.lines,
            self.blank_lines,
            self.comment_lines,
            self.directive_lines,
            self.record_lines,
            self.continuation_lines,
            self.malformed,
            self.records,
            self.apex_records,
            self.registered_labels,
            self.duplicate_records,
            self.deeper_records,
            self.nsec3_records,
            self.outside_records,
            self.owner_names,
        )
    }
}
