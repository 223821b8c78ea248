//! Label Generation Rules (RFC 7940): reading, compiling and judging labels.
//!
//! * [`Lgr::from_xml`] reads an RFC 7940 document; [`Lgr::from_table`] an
//!   RFC 3743 table or a one-code-point-per-line list.
//! * [`Lgr::judge`] applies RFC 7940 §8.1–§8.3 to a label: repertoire and
//!   context rules, then the actions, giving a [`Verdict`].
//! * [`Lgr::index_label`] computes the index label (RFC 7940 §8.5).
//! * [`merge`] merges several LGRs into one for cross-script collisions.
//! * [`Lgr::variants`] enumerates variant labels with their dispositions
//!   (RFC 7940 §8.2), and [`Lgr::variant_disposition`] judges one label as a
//!   variant of another.
//!
//! An [`Lgr`] is immutable once built, `Send + Sync`, and shared by threads.
//! Semantics follow ICANN's reference implementation (lgr-core) wherever the
//! RFC leaves a choice, so results agree with it row for row.

pub mod check;
mod compile;
mod context;
mod cpset;
mod eval;
mod index;
mod lookbehind;
mod merge;
pub mod model;
mod props;
mod refgraph;
mod rules;
mod table;
mod variants;
mod xml;

pub use cpset::CpSet;

pub use eval::{Failure, Label, Reason, Verdict};
pub use index::IndexMode;
pub(crate) use index::IndexScratch;
pub use merge::{merge, merge_order};
pub use model::{MAX_REPERTOIRE, MAX_VARIANT_MAPPINGS};
pub use props::UNICODE_VERSION;
pub use refgraph::{MAX_RULE_DEPTH, MAX_RULE_ELEMENTS};
pub use rules::MAX_AUTOMATA_BYTES;
pub use variants::{
    MAX_VARIANT_LABEL_CPS, Replacement, VariantEstimate, VariantLabel, VariantLimitError,
};
pub use xml::{MAX_XML_ATTRIBUTES, MAX_XML_DEPTH};

use crate::error::LgrError;
use compile::{AltMasks, ReqMasks};
use model::*;
use rules::CompiledRule;

/// A map keyed by code point (the crate's one hasher, [`crate::hash`]).
pub(crate) type CpMap<V> = crate::hash::FastMap<u32, V>;

/// A context condition on a repertoire element or variant (RFC 7940 §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ctx {
    None,
    When(u32),
    NotWhen(u32),
}

/// Bit set of variant types.
pub(crate) type TypeSet = u64;

#[derive(Debug)]
pub(crate) struct Var {
    pub cps: Box<[u32]>,
    /// Type bit, 0 when untyped.
    pub typ: TypeSet,
    pub ctx: Ctx,
}

#[derive(Debug)]
pub(crate) struct Char {
    pub cps: Box<[u32]>,
    pub ctx: Ctx,
    /// Variants sorted by code points (stable), as the reference does.
    pub vars: Vec<Var>,
    /// Indices in `vars` of the reflexive variants.
    pub reflexive: Vec<u16>,
    /// Number of variants smaller (in code point order) than the element:
    /// the first ones of `vars`, the candidates for an index label.
    pub smaller: usize,
}

/// What the evaluation reads of a [`Char`] at every position of a label,
/// kept apart in a dense array (`Lgr::meta`, by char index): reading it
/// through the `Char` (and its boxed code points) costs a cache miss or
/// two per position in a large LGR.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CharMeta {
    /// Code points of the element (saturated at `u16::MAX`: an element
    /// that long matches no label, whose code points are checked then).
    pub len: u16,
    /// Whether some variant is smaller than the element (`smaller > 0`).
    pub has_smaller: bool,
    /// Whether some smaller variant has a context rule: only then can the
    /// two [`IndexMode`]s replace the element differently.
    pub ctx_smaller: bool,
    pub ctx: Ctx,
}

#[derive(Debug)]
pub(crate) enum Cond {
    Any(TypeSet),
    All(TypeSet),
    Only(TypeSet),
}

#[derive(Debug)]
pub(crate) struct Action {
    pub disp: String,
    pub match_rule: Option<u32>,
    pub not_match_rule: Option<u32>,
    pub cond: Option<Cond>,
    /// Precomputed reason text (`action N: disp=… "comment"`).
    pub reason: String,
}

/// Compiled Label Generation Rules (RFC 7940).
#[derive(Debug)]
pub struct Lgr {
    name: String,
    doc: LgrDoc,
    pub(crate) chars: Vec<Char>,
    /// Per char, what the evaluation reads at every position (see
    /// [`CharMeta`]).
    pub(crate) meta: Vec<CharMeta>,
    /// For each first code point, the chars starting with it, longest
    /// first, as a two-level table: `first_pages[cp >> 8]` is 0 or one
    /// more than the page of 256 entries of `first_tab` for `cp`, whose
    /// entry `cp & 0xff` is a range of `first_flat`.
    first_pages: Vec<u32>,
    first_tab: Vec<(u32, u32)>,
    first_flat: Vec<u32>,
    pub(crate) rules: Vec<CompiledRule>,
    /// Per rule, its key (see `rules::compile`).
    pub(crate) rule_keys: Vec<String>,
    /// Per rule, code points a match needs one of (`rules::one_set` of its
    /// terms).
    pub(crate) rule_required: Vec<Option<CpSet>>,
    /// `rule_required` by code point.
    pub(crate) req_masks: ReqMasks,
    /// The distinct sets of the rules' [`rules::Terms`], by code point
    /// (when `usable`: at most 64 sets; `rule_required` is used otherwise)…
    pub(crate) term_masks: ReqMasks,
    pub(crate) term_sets: Vec<Option<CpSet>>,
    /// …and per rule with terms, the mask of the sets of each alternative.
    pub(crate) rule_alts: AltMasks,
    /// Whether some element has a reflexive variant (else no label has a
    /// reflexive variant type, RFC 7940 §5.3.4).
    pub(crate) has_reflexive: bool,
    pub(crate) rule_names: Vec<String>,
    pub(crate) types: Vec<String>,
    pub(crate) actions: Vec<Action>,
    pub(crate) n_doc_actions: usize,
    pub(crate) index_mode: IndexMode,
    ascii_classes: [u16; 128],
}

/// The largest LGR file [`Lgr::from_path`] reads: 64 MiB. ICANN's largest
/// published LGR (the second-level common one) is 2.9 MB.
pub const MAX_LGR_BYTES: u64 = 64 << 20;

impl Lgr {
    /// Reads and compiles an RFC 7940 XML document. `name` identifies the LGR
    /// in reports (usually the file name).
    ///
    /// # Errors
    /// Malformed XML or RFC 7940 structure, undefined or cyclic references,
    /// rules that do not compile; each names line:column and element.
    ///
    /// # Example
    /// ```
    /// let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
    ///   <char cp="0061"/><char cp="0062"><var cp="0061" type="blocked"/></char>
    ///   </data></lgr>"#;
    /// let lgr = lgrscan::lgr::Lgr::from_xml("demo", xml)?;
    /// assert_eq!(lgr.index_label(&['b' as u32]), Some(vec!['a' as u32]));
    /// # Ok::<(), lgrscan::LgrError>(())
    /// ```
    pub fn from_xml(name: &str, text: &str) -> Result<Lgr, LgrError> {
        let doc = xml::parse(text)?;
        Lgr::compile(name, doc)
    }

    /// Reads a file as RFC 7940 XML (or, for a file not starting with `<`,
    /// as an RFC 3743 table / code point list, see [`Lgr::from_table`]).
    ///
    /// # Errors
    /// I/O errors, a file of more than [`MAX_LGR_BYTES`] (read no further,
    /// so `/dev/zero` is refused), and everything [`Lgr::from_xml`]
    /// reports, with the path.
    pub fn from_path(path: &std::path::Path) -> Result<Lgr, LgrError> {
        let bytes = Lgr::read_file(path)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Lgr::from_bytes(&name, &bytes).map_err(|e| e.with_path(path))
    }

    /// The bytes of an LGR file, at most [`MAX_LGR_BYTES`] (read no
    /// further, so `/dev/zero` is refused): what [`Lgr::from_path`] parses.
    ///
    /// # Errors
    /// I/O errors and a larger file, with the path.
    pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, LgrError> {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_LGR_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| LgrError::new(format!("cannot read: {e}")).with_path(path))?;
        if bytes.len() as u64 > MAX_LGR_BYTES {
            return Err(LgrError::new(format!(
                "larger than {} MiB, the most an LGR file may hold",
                MAX_LGR_BYTES >> 20
            ))
            .with_path(path));
        }
        Ok(bytes)
    }

    /// Reads an LGR from raw bytes: UTF-8 (a byte order mark is skipped),
    /// RFC 7940 XML when the text starts with `<`, otherwise an RFC 3743
    /// table or code point list (see [`Lgr::from_table`]).
    ///
    /// # Errors
    /// Bytes that are not UTF-8 (with the line:column of the first bad
    /// byte), empty input, and everything [`Lgr::from_xml`] and
    /// [`Lgr::from_table`] report.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Lgr, LgrError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let ok = &bytes[..e.valid_up_to()];
            let line_start = ok.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line = ok.iter().filter(|&&b| b == b'\n').count() + 1;
            // `ok` is valid UTF-8, so this slice is too.
            let col = std::str::from_utf8(&ok[line_start..]).map_or(0, |s| s.chars().count()) + 1;
            LgrError::new(format!(
                "not UTF-8: invalid byte 0x{:02X} at byte offset {}",
                bytes[e.valid_up_to()],
                e.valid_up_to()
            ))
            .at(line as u32, col as u32)
        })?;
        let trimmed = text.trim_start_matches('\u{feff}').trim_start();
        if trimmed.starts_with('<') || trimmed.is_empty() {
            Lgr::from_xml(name, text)
        } else {
            Lgr::from_table(name, text)
        }
    }

    /// Reads an RFC 3743 IDN table (`U+XXXX|U+YYYY…` lines with optional
    /// variant columns) or a plain list of one code point per line.
    ///
    /// # Errors
    /// Lines that are neither, with their line number.
    pub fn from_table(name: &str, text: &str) -> Result<Lgr, LgrError> {
        Lgr::compile(name, table::parse(text)?)
    }

    /// Compiles a parsed document.
    ///
    /// # Errors
    /// Undefined or cyclic references, duplicate definitions, rules that do
    /// not compile.
    pub fn compile(name: &str, doc: LgrDoc) -> Result<Lgr, LgrError> {
        Lgr::compile_with(name, doc, false)
    }

    /// Reads and compiles a built-in LGR's XML, its rules' automata built on
    /// first use (they build: `builtin::tests` builds them all).
    pub(crate) fn from_builtin_xml(name: &str, text: &str) -> Result<Lgr, LgrError> {
        Lgr::compile_with(name, xml::parse(text)?, true)
    }

    /// Builds the automata of the rules that are built on first use.
    ///
    /// # Errors
    /// A rule whose automaton does not build.
    #[cfg(test)]
    pub(crate) fn build_rules(&self) -> Result<(), LgrError> {
        self.rules.iter().try_for_each(CompiledRule::build_all)
    }

    /// Chooses how index labels test variant context rules (default:
    /// [`IndexMode::Reference`]).
    pub fn with_index_mode(mut self, mode: IndexMode) -> Lgr {
        self.index_mode = mode;
        self
    }

    /// The index-label mode in force.
    pub fn index_mode(&self) -> IndexMode {
        self.index_mode
    }

    /// Number of actions the document defines (the five default actions of
    /// RFC 7940 §7.3 follow them).
    pub fn action_count(&self) -> usize {
        self.n_doc_actions
    }

    /// The name given when the LGR was loaded.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parsed document (metadata, classes, rules, actions as written).
    pub fn doc(&self) -> &LgrDoc {
        &self.doc
    }

    /// The chars (repertoire elements) starting with `cp`, longest first.
    #[inline]
    pub(crate) fn chars_from(&self, cp: u32) -> &[u32] {
        let page = match self.first_pages.get((cp >> 8) as usize) {
            Some(&p) if p > 0 => p - 1,
            _ => return &[],
        };
        match self.first_tab.get(((page << 8) | (cp & 0xff)) as usize) {
            Some(&(a, b)) => self.first_flat.get(a as usize..b as usize).unwrap_or(&[]),
            None => &[],
        }
    }

    /// Does the LGR list `cp` as the first code point of any element?
    pub fn starts_element(&self, cp: u32) -> bool {
        !self.chars_from(cp).is_empty()
    }

    /// True when every element made only of ASCII code points is a single
    /// code point with no variant smaller than itself, so that the index
    /// label (RFC 7940 §8.5) of an all-ASCII label is the label itself or
    /// none (elements with non-ASCII code points cannot match in it).
    pub fn ascii_is_own_index(&self) -> bool {
        (0u32..0x80).all(|cp| {
            self.chars_from(cp).iter().all(|&ci| {
                let c = &self.chars[ci as usize];
                !c.cps.iter().all(|&x| x < 0x80)
                    || (c.cps.len() == 1 && c.vars.iter().all(|v| v.cps[..] >= c.cps[..]))
            })
        })
    }

    /// The elements with a non-ASCII code point that have an all-ASCII
    /// variant, through which an index label (RFC 7940 §8.5) of a label
    /// with a non-ASCII code point can be all ASCII: the ASCII code points
    /// of those variants (such an index label contains at least one of
    /// them), and the code points of those elements (a label has such an
    /// index label only if each of its code points is ASCII or one of
    /// them). `None` when some variant is empty: any label may then have an
    /// all-ASCII index label, with any ASCII code point.
    pub(crate) fn ascii_variants(&self) -> Option<AsciiVariants> {
        let mut out = AsciiVariants { targets: [false; 128], sources: Vec::new() };
        for c in &self.chars {
            if c.cps.iter().all(|&x| x < 0x80) {
                continue;
            }
            for v in &c.vars {
                if v.cps.is_empty() {
                    return None;
                }
                if v.cps.iter().all(|&x| x < 0x80) {
                    for &x in &v.cps[..] {
                        out.targets[x as usize] = true;
                    }
                    out.sources.extend_from_slice(&c.cps);
                }
            }
        }
        Some(out)
    }

    /// Equivalence classes of the ASCII code points for judging (RFC 7940
    /// §8.1, §8.3): two code points share a class (a value ≥ 128) when each
    /// is a single-code-point element with the same context rule, no
    /// reflexive variant, in no sequence element, and the same membership
    /// in every class and
    /// literal any rule uses, so no rule or action can tell them apart;
    /// code points that start no element share [`ABSENT`]; any other code
    /// point is its own class (its own value). The eligibility, disposition
    /// and deciding action of an all-ASCII label are therefore a function
    /// of its string of classes (a repertoire failure's text still names
    /// the code points).
    pub fn ascii_classes(&self) -> &[u16; 128] {
        &self.ascii_classes
    }

    /// Number of repertoire elements (code points and sequences, ranges
    /// expanded), including out-of-repertoire variant targets.
    pub fn element_count(&self) -> usize {
        self.chars.len()
    }

    /// Names of the variant types in a type set, sorted.
    pub(crate) fn type_names(&self, set: TypeSet) -> Vec<&str> {
        let mut v: Vec<&str> = (0..64)
            .filter(|i| set & (1u64 << i) != 0)
            .map(|i| if i == 0 { "None" } else { self.types[i].as_str() })
            .collect();
        v.sort_unstable();
        v
    }
}

/// What [`Lgr::ascii_variants`] finds.
#[derive(Clone, Debug)]
pub(crate) struct AsciiVariants {
    /// ASCII code points of the all-ASCII variants.
    pub(crate) targets: [bool; 128],
    /// Code points of the elements that have them (a code point once per
    /// such variant).
    pub(crate) sources: Vec<u32>,
}

/// The class [`Lgr::ascii_classes`] gives code points that start no element.
pub const ABSENT: u16 = u16::MAX;

/// Formats code points as `U+XXXX U+YYYY`.
pub fn fmt_cps(cps: &[u32]) -> String {
    cps.iter().map(|c| format!("U+{c:04X}")).collect::<Vec<_>>().join(" ")
}

/// Formats code points as upper-case hex separated by spaces (`0915 093C`),
/// the form the golden files and reports use.
pub fn hex_cps(cps: &[u32]) -> String {
    cps.iter().map(|c| format!("{c:04X}")).collect::<Vec<_>>().join(" ")
}
