//! Reports: formatting findings and records, and writing them to a file.
//!
//! - [`findings`]: a scan's rows: stable finding ids, statuses, the
//!   input's columns.
//! - [`meta`]: the meta record (inputs, LGRs, options) of a report.
//! - [`baseline`]: findings accepted by a previous report or an allowlist.
//! - [`jsonl`]: a JSON Lines report read back, its rows kept compactly.
//! - [`diff`]: what changed between two JSON Lines reports.
//! - [`html`]: a scan's or a period's report as one self-contained HTML
//!   page.
//! - [`record`]: records of named fields as TSV, CSV or JSON Lines
//!   ([`RecordWriter`]), the rows of `annotate` and of a scan.
//! - [`scan`]: a scan's summary and findings, as text or rows.
//! - [`output`]: a report file that is replaced atomically and never
//!   clobbers a device, a FIFO or a symbolic link ([`OutputFile`]).
//! - [`terminal`]: text from the data made safe to show on a terminal.
//!
//! Writers take any [`std::io::Write`]; nothing here prints to standard
//! output or standard error, and nothing installs a signal handler.

pub mod baseline;
pub mod diff;
pub mod findings;
pub mod html;
pub mod jsonl;
pub mod meta;
pub mod output;
pub mod record;
pub mod scan;
pub mod terminal;

pub use output::{Durability, OutputFile};
pub use record::{FieldType, RecordFormat, RecordWriter};
pub use scan::ScanFormat;
pub use terminal::escape_for_terminal;
