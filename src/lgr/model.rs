//! The parsed form of an LGR document (RFC 7940 §4–§7), before compilation.
//!
//! These types mirror the XML closely; [`crate::lgr::Lgr`] compiles them into
//! look-up tables and automata.

/// A Unicode code point (RFC 7940 §7.1 writes them as 4–6 hex digits).
pub type Cp = u32;

/// `<meta>` (RFC 7940 §4.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// `<version>` text.
    pub version: Option<String>,
    /// `<version comment=…>`.
    pub version_comment: Option<String>,
    /// `<date>`.
    pub date: Option<String>,
    /// `<language>` tags, in document order.
    pub languages: Vec<String>,
    /// `<scope>` values with their `type` attribute.
    pub scopes: Vec<(String, String)>,
    /// `<unicode-version>`.
    pub unicode_version: Option<String>,
    /// `<validity-start>`.
    pub validity_start: Option<String>,
    /// `<validity-end>`.
    pub validity_end: Option<String>,
    /// `<description>` text.
    pub description: Option<String>,
    /// `<description type=…>`.
    pub description_type: Option<String>,
    /// `<references>`: (id, text, comment).
    pub references: Vec<(String, String, Option<String>)>,
}

/// A `<var>` element (RFC 7940 §5.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDef {
    /// The variant code point or sequence.
    pub cps: Vec<Cp>,
    /// The variant type (`type` attribute), e.g. `blocked`.
    pub typ: Option<String>,
    /// `when` context rule name.
    pub when: Option<String>,
    /// `not-when` context rule name.
    pub not_when: Option<String>,
    /// `comment` attribute.
    pub comment: Option<String>,
    /// Source line.
    pub line: u32,
}

/// A `<char>` element, or one code point of a `<range>` (RFC 7940 §5.1–§5.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CharDef {
    /// The code point or sequence.
    pub cps: Vec<Cp>,
    /// `when` context rule name.
    pub when: Option<String>,
    /// `not-when` context rule name.
    pub not_when: Option<String>,
    /// Tags (RFC 7940 §5.5).
    pub tags: Vec<String>,
    /// `comment` attribute.
    pub comment: Option<String>,
    /// Variants, in document order.
    pub variants: Vec<VarDef>,
    /// True when the char came from a `<range>`.
    pub from_range: bool,
    /// Source line.
    pub line: u32,
}

/// The `count` attribute of a matcher (RFC 7940 §6.3.7): `n`, `n+` or `n:m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Minimum repetitions.
    pub min: u32,
    /// Maximum repetitions, `None` for unbounded (`n+`).
    pub max: Option<u32>,
}

/// A class expression (RFC 7940 §6.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassExpr {
    /// `<class by-ref="…"/>`.
    Ref(String),
    /// `<class from-tag="…"/>`.
    Tag(String),
    /// `<class property="name:value"/>`.
    Property(String, String),
    /// Literal code points and ranges (inclusive).
    Ranges(Vec<(Cp, Cp)>),
    /// `<union>`.
    Union(Vec<ClassExpr>),
    /// `<complement>`.
    Complement(Box<ClassExpr>),
    /// `<intersection>`.
    Intersection(Vec<ClassExpr>),
    /// `<difference>`.
    Difference(Vec<ClassExpr>),
    /// `<symmetric-difference>`.
    SymmetricDifference(Vec<ClassExpr>),
}

impl ClassExpr {
    /// The XML element that writes this expression (`class`, `union`, …).
    pub fn element_name(&self) -> &'static str {
        match self {
            ClassExpr::Ref(_)
            | ClassExpr::Tag(_)
            | ClassExpr::Property(..)
            | ClassExpr::Ranges(_) => "class",
            ClassExpr::Union(_) => "union",
            ClassExpr::Complement(_) => "complement",
            ClassExpr::Intersection(_) => "intersection",
            ClassExpr::Difference(_) => "difference",
            ClassExpr::SymmetricDifference(_) => "symmetric-difference",
        }
    }
}

/// A named class definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassDef {
    /// Its name.
    pub name: String,
    /// Its definition.
    pub expr: ClassExpr,
    /// Source line.
    pub line: u32,
}

/// A matching element inside a rule (RFC 7940 §6.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Matcher {
    /// `<start/>`.
    Start,
    /// `<end/>`.
    End,
    /// `<anchor/>`: stands for the code point (sequence) whose context is tested.
    Anchor,
    /// `<any/>`.
    Any(Option<Count>),
    /// `<char cp="…"/>`.
    Char(Vec<Cp>, Option<Count>),
    /// `<class …/>` (by reference or inline).
    Class(ClassExpr, Option<Count>),
    /// `<rule by-ref="…"/>`.
    RuleRef(String, Option<Count>),
    /// An anonymous nested `<rule>`.
    Seq(Vec<Matcher>, Option<Count>),
    /// `<choice>`.
    Choice(Vec<Matcher>, Option<Count>),
    /// `<look-ahead>`.
    LookAhead(Vec<Matcher>),
    /// `<look-behind>`.
    LookBehind(Vec<Matcher>),
}

/// A named rule (RFC 7940 §6.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleDef {
    /// Its name.
    pub name: String,
    /// Its body (a sequence).
    pub body: Vec<Matcher>,
    /// `comment` attribute.
    pub comment: Option<String>,
    /// Source line.
    pub line: u32,
}

/// How an action's variant condition reads (RFC 7940 §7.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantCond {
    /// `any-variant`.
    Any(Vec<String>),
    /// `all-variants`.
    All(Vec<String>),
    /// `only-variants`.
    Only(Vec<String>),
}

/// An `<action>` (RFC 7940 §7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionDef {
    /// The disposition it assigns.
    pub disp: String,
    /// `match` rule name.
    pub match_rule: Option<String>,
    /// `not-match` rule name.
    pub not_match_rule: Option<String>,
    /// Variant-type condition.
    pub variants: Option<VariantCond>,
    /// `comment` attribute.
    pub comment: Option<String>,
    /// Source line (0 for the implicit default actions).
    pub line: u32,
}

/// Most elements a repertoire may hold (RFC 7940 §5: `<char>` elements,
/// each code point of a `<range>` counted; in a table, each listed code
/// point, sequence or code point of a range). Unicode 16.0, the version of
/// the property data, assigns 154,998 characters, so no real repertoire
/// comes near; a longer one is refused
/// before it is built (a 77-byte list with the range `0915-09094D` asked
/// for 590,000 elements).
pub const MAX_REPERTOIRE: usize = 200_000;

/// The most variant mappings (`<var>` entries, RFC 7940 §5) one LGR may
/// hold. ICANN's largest, the second-level common LGR, has 14,452; each
/// costs memory when compiled, and a 64 MiB table of variant sets could
/// otherwise ask for tens of millions (a 5.9 MB RFC 3743 table took
/// 1.6 GB).
pub const MAX_VARIANT_MAPPINGS: usize = 1_000_000;

/// The error for variant mappings that would pass
/// [`MAX_VARIANT_MAPPINGS`] with one more after `held`; `None` within it.
pub fn variant_limit(held: usize) -> Option<String> {
    (held >= MAX_VARIANT_MAPPINGS).then(|| {
        format!("more than {MAX_VARIANT_MAPPINGS} variant mappings (the limit of one LGR)")
    })
}

/// The code points of `first..=last` that are not surrogates (which a
/// range skips).
pub fn range_len(first: Cp, last: Cp) -> usize {
    let surrogates = last.min(0xDFFF).saturating_add(1).saturating_sub(first.max(0xD800));
    (last - first + 1 - surrogates) as usize
}

/// The error for a repertoire that would pass [`MAX_REPERTOIRE`] with
/// `adding` more elements after `held`; `None` within it.
pub fn repertoire_limit(held: usize, adding: usize) -> Option<String> {
    (held + adding > MAX_REPERTOIRE).then(|| {
        format!(
            "the repertoire would hold {} elements, more than the limit of {MAX_REPERTOIRE}",
            held + adding
        )
    })
}

/// A whole LGR document as parsed (RFC 7940 §4).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LgrDoc {
    /// `<meta>`.
    pub meta: Meta,
    /// Repertoire, in document order (ranges expanded per code point).
    pub chars: Vec<CharDef>,
    /// Named classes.
    pub classes: Vec<ClassDef>,
    /// Named rules.
    pub rules: Vec<RuleDef>,
    /// Actions, in order.
    pub actions: Vec<ActionDef>,
}
