//! lgrscan: audit DNS zones for internationalized domain name problems.
#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod csv_lines;
pub mod error;
mod hash;
pub mod lgr;

pub use error::LgrError;
pub mod builtin;
pub mod idna2008;
pub mod index;
pub mod input;
pub mod report;
pub mod scan;
mod simd;
pub mod sunrise;
#[cfg(test)]
mod testutil;
