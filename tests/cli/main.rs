//! Tests that run the `lgrscan` binary: its commands, output files, bounds
//! on hostile input, the samples and the hostile corpus (with the fuzz
//! reproducers, replayed through the library).

#[path = "../util/mod.rs"]
mod util;

mod annotate;
mod blocked;
mod bounds;
mod explain;
mod fuzz_replay;
mod hostile;
mod html;
mod output;
mod report_baseline;
mod report_rows;
mod samples;
mod scan;
mod serve;
mod shapes;
mod sunrise;
