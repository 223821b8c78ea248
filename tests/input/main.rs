//! Tests of `lgrscan::input`: zone files, CZDS dumps, gzip, label lists and
//! CSV, with IDNA2008 findings, accounting and limits.

#[path = "../util/mod.rs"]
mod util;

mod czds;
mod dedup;
mod hostile;
mod limits;
mod lists;
mod reader;
mod zone_paths;
