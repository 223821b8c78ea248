//! Tests of `lgrscan::scan`: settling labels while a zone is read, and the
//! verified grouping.

#[path = "../util/mod.rs"]
mod util;

mod blocked;
mod settle;
mod sunrise;
mod verified;
