//! What the collector attaches to registered labels beside their text:
//! their NS targets (interned names, paired with labels) and their CSV
//! rows and columns.

use super::Collector;
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
    pub(crate) fn set_csv(&mut self, label: u32, packed: &[u8]) {
        let (word, bit) = (label as usize / 64, 1u64 << (label % 64));
        if self.csv_row_seen.len() <= word {
            self.csv_row_seen.resize(word + 1, 0);
        }
        let seen = self.csv_row_seen[word] & bit != 0;
        self.csv_row_seen[word] |= bit;
        if seen || packed.is_empty() {
            return;
        }
        let n = self.set.records.len();
        if self.set.csv_at.len() < n {
            self.set.csv_at.resize(n, NO_CSV_ROW);
        }
        self.set.csv_at[label as usize] = self.set.csv_data.len() as u64;
        self.set.csv_data.extend_from_slice(packed);
    }
}
