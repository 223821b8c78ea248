//! Tests of `lgrscan::lgr` and the built-in LGRs: loading (RFC 7940 XML,
//! RFC 3743 tables), errors, merging, index labels.

#[path = "../util/mod.rs"]
mod util;

mod builtin;
mod errors;
mod index_mode;
mod look_behind;
mod merge;
mod tables;
