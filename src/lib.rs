//! lgrscan: audit DNS zones for internationalized domain name problems.
#![warn(missing_docs)]
#![deny(clippy::print_stdout, clippy::print_stderr)]
pub mod idna2008;
pub mod input;
