//! Phase 1 of a scan: judge every label against the LGR set and compute
//! the index labels that must be kept.

mod all;
mod judged;
mod key_filter;
mod keys;
mod memo;
mod pack;
mod settling;
mod tally;
#[cfg(test)]
mod tests;
mod worker;

pub(crate) use all::judge_all;
pub(crate) use judged::{
    Judged, index_text, judge_one_in, own_verdict, script_of_with, verdict_fields,
};
pub(crate) use keys::{Keyed, text_hash_cps};
pub(crate) use pack::PAD;
pub use settling::{plain_rule, settle_for};
