//! What the collector attaches to registered labels beside their text:
//! their NS targets (interned names, paired with labels) and their CSV
//! rows and columns.

use super::Collector;
use super::Loc;
use crate::input::Error;
use crate::input::csv_fields::CsvFields;
use crate::input::labels::NO_CSV_ROW;

impl Collector {
    /// The id of an NS target name (lower-case presentation, absolute).
    pub(crate) fn ns_id(&mut self, target: &[u8]) -> u32 {
        match self.ns_intern.get(target) {
            Some(&t) => t,
            None => {
                let t = self.set.ns_names.len() as u32;
                self.set.ns_names.push(String::from_utf8_lossy(target).into());
                self.ns_intern.insert(target.into(), t);
                t
            }
        }
    }

    /// Adds the NS target `t` (from [`Collector::ns_id`]) to a label.
    pub(crate) fn add_ns_id(&mut self, label: u32, t: u32) {
        self.ns_pairs.push((label, t));
    }

    /// Adds an NS target (lower-case presentation, absolute) to a label.
    pub(crate) fn add_ns(&mut self, label: u32, target: &[u8]) {
        if !self.collect_ns {
            return;
        }
        if let Some((l, t)) = self.last_ns
            && self.set.ns_names.get(t as usize).is_some_and(|n| n.as_bytes() == target)
        {
            if l != label {
                self.ns_pairs.push((label, t));
                self.last_ns = Some((label, t));
            }
            return;
        }
        let t = self.ns_id(target);
        self.ns_pairs.push((label, t));
        self.last_ns = Some((label, t));
    }

    /// A CSV header has an `lgr` column: its rows may pin an LGR
    /// ([`LabelSet::has_pins`](crate::input::LabelSet::has_pins)).
    pub(crate) fn csv_pins(&mut self) {
        self.set.csv_pins = true;
    }

    /// A CSV header has a `registrant` column
    /// ([`LabelSet::entity_columns`](crate::input::LabelSet::entity_columns)).
    pub(crate) fn csv_registrants(&mut self) {
        self.set.csv_registrants = true;
    }

    /// Index of a CSV column name, adding it.
    pub(crate) fn csv_column(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.csv_columns.get(name) {
            return i;
        }
        let i = self.set.csv_columns.len() as u32;
        self.set.csv_columns.push(name.to_string());
        self.csv_columns.insert(name.to_string(), i);
        i
    }

    /// Attaches CSV fields (a row packed by
    /// [`CsvRowWriter::pack_into`](super::super::csv_fields::CsvRowWriter::pack_into))
    /// to a label, unless a row was attached to it before: the first row
    /// of a label is its row, one without columns beyond the label too.
    /// Such a row is kept as none at all (`Label::csv` is `None`, which
    /// every reader takes as empty fields): a label-only CSV of 10M rows
    /// kept 100 MB of row offsets and empty rows before (CHANGELOG, #27).
    ///
    /// A later row of the label (at `loc`, counted as a duplicate) whose
    /// `registered`, `registrant` or `lgr` differs from the first row's is
    /// malformed instead: which row is right is not the reader's to guess,
    /// and the first would decide the holder, the registrant check or the
    /// LGR alone, by row order.
    ///
    /// # Errors
    /// Such a row, under `--strict`.
    pub(crate) fn set_csv(&mut self, label: u32, packed: &[u8], loc: Loc) -> Result<(), Error> {
        let (word, bit) = (label as usize / 64, 1u64 << (label % 64));
        if self.csv_row_seen.len() <= word {
            self.csv_row_seen.resize(word + 1, 0);
        }
        let seen = self.csv_row_seen[word] & bit != 0;
        self.csv_row_seen[word] |= bit;
        if seen {
            return self.repeated_row(label, packed, loc);
        }
        if packed.is_empty() {
            return Ok(());
        }
        let n = self.set.records.len();
        if self.set.csv_at.len() < n {
            self.set.csv_at.resize(n, NO_CSV_ROW);
        }
        self.set.csv_at[label as usize] = self.set.csv_data.len() as u64;
        self.set.csv_data.extend_from_slice(packed);
        Ok(())
    }

    /// A later row of `label` (see [`Self::set_csv`]).
    fn repeated_row(&mut self, label: u32, packed: &[u8], loc: Loc) -> Result<(), Error> {
        let Some(first) = self.set.get(label as usize) else { return Ok(()) };
        let (a, b) =
            (first.csv().unwrap_or_default(), CsvFields::unpack(packed).unwrap_or_default());
        let differs = [
            (a.registered != b.registered, "registered"),
            (a.registrant != b.registrant, "registrant"),
            (a.lgr != b.lgr, "lgr"),
        ];
        let columns: Vec<&str> = differs.iter().filter(|d| d.0).map(|d| d.1).collect();
        if columns.is_empty() {
            return Ok(());
        }
        let reason = format!(
            "repeats the label of {}:{} with another {}: a label has one row",
            first.source_path().display(),
            first.line(),
            columns.join(", "),
        );
        // A malformed line, not a record (counted as a duplicate one).
        let acc = &mut self.set.accounting;
        acc.duplicate_records -= 1;
        acc.records -= 1;
        acc.record_lines -= 1;
        self.malformed(loc, reason)
    }
}
