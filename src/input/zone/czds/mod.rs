//! The fast path of the zone reader, in independent chunks.
//!
//! One-line records of a master file (RFC 1035 §5.1) are read without
//! tokenising: the owner is the bytes up to the first tab or space (a
//! relative one made absolute under the origin; a blank one, in a master
//! file, the previous line's), compared with the previous line's owner,
//! and only a new owner is classified against the apex. [`extract_in`]
//! does this for a range of lines and needs nothing but the bytes, the
//! apex and the origin, so the chunks of a mapped file (cut at lines that
//! start an owner) are extracted in parallel (on rayon's current pool) and
//! then merged in file order ([`merge`]): line numbers, deduplication and
//! counts come out exactly as a sequential read would give them.
//!
//! A line the fast path does not read stops the chunk; the careful parser
//! reads it, in the merging thread, and the rest of the chunk is extracted
//! again there, so the other chunks go on (a directive ends the run: it may
//! change the origin). That is: each line with a parenthesis or a quote (a
//! `memchr` pre-pass finds the first of a chunk), in a CZDS dump as in any
//! master file; in a master file, a blank owner first in its chunk; in any
//! file, a directive, a comment, an empty line; an owner with an escape,
//! `;`, `(`, `)`, `"`, `@` alone or an empty label; or fields after the
//! owner that the careful parser reports malformed or reads apart
//! ([`fields::check_after_owner`]: no record type; `;`, `(`, `)`, `"` or `\` before
//! the type; an NS record without a target, or with one that does not
//! resolve; RDATA in the generic form, `\# len hex`, whose data is not
//! `len` octets, RFC 3597 §5). So a file gives the same labels, counts, malformed lines and
//! NS targets whichever path reads a line, a dump in the CZDS profile
//! (absolute owners, tabs: `looks_czds`) as a master file
//! (tests/input/czds.rs, fuzz target `zone_paths`); the profile only
//! means that no owner is blank or relative.

mod bytes;
mod chunk;
mod extract;
mod fields;
mod merge;
mod parallel;
mod quick;
#[cfg(test)]
mod tests;

pub(crate) use chunk::{FastOpts, Stop};
pub(crate) use parallel::{parallel, run};
