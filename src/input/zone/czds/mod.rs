//! The CZDS fast path of the zone reader, in independent chunks.
//!
//! A dump in the CZDS profile (ICANN Registry Agreement, Specification 4
//! §2.1: one record per line, absolute names, tab-separated fields, no
//! directives) is read without tokenising: the owner is the bytes up to
//! the first tab, compared with the previous line's owner, and only a new
//! owner is classified against the apex. [`extract_in`] does this for a range
//! of lines and needs nothing but the bytes and the apex, so the chunks of
//! a mapped file are extracted in parallel (on rayon's current pool) and
//! then merged in file order ([`merge`]): line numbers, deduplication and
//! counts come out exactly as a sequential read would give them.
//!
//! A line that does not fit the profile stops the chunk; the general
//! parser reads it, and the fast path takes over again after it. That is a
//! line with leading white space, a directive, a comment, an empty line; an
//! owner with an escape, a space, `;`, `(`, `)`, `"`, an empty label or no
//! final dot; or fields after the owner that the general parser reports
//! malformed or reads apart ([`check_after_owner`]: no record type; `;`, `(`, `)`,
//! `"` or `\` before the type; an NS record without a target, or with one
//! that does not resolve). So a file gives the same labels, counts,
//! malformed lines and NS targets whichever path reads a line, with two
//! exceptions: the RDATA is not read (the profile has one record per line:
//! a `(` or a quote there is data, where the general parser would look for
//! the closing one), and without NS targets to collect, the target of an
//! owner's later lines is only checked to be there (tests/input.rs).

mod chunk;
mod extract;
mod fields;
mod merge;
mod parallel;
mod quick;
mod simd;
#[cfg(test)]
mod tests;

pub(crate) use chunk::{FastOpts, Stop};
pub(crate) use parallel::{parallel, run};
