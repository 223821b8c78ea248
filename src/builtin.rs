//! LGRs embedded in the binary, written by the project from the seed
//! documents (see `src/builtin/README.md`): `builtin:ascii`,
//! `builtin:devanagari`, `builtin:hindi`, `builtin:khmer`,
//! `builtin:kashmiri` and `builtin:common` (the variant relation joining
//! them). They are RFC 7940 XML, loaded by the same engine as any file.

use crate::error::LgrError;
use crate::lgr::Lgr;

/// One embedded LGR.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Its name, used as `builtin:NAME`.
    pub name: &'static str,
    /// The seed document it was written from.
    pub seed: &'static str,
    /// What it covers.
    pub summary: &'static str,
    /// The RFC 7940 XML text.
    pub xml: &'static str,
}

/// Every embedded LGR.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "ascii",
        seed: "RFC 5890-5892 (LDH labels)",
        summary: "ASCII letters, digits and hyphen with the RFC 5891 hyphen rules",
        xml: include_str!("builtin/ascii.xml"),
    },
    Builtin {
        name: "devanagari",
        seed: "seed 000 (2nd-level Devanagari script LGR), checked against seed 001",
        summary: "Devanagari script, 2nd level, in-script variants, WLE rules 1-7, digit mixing",
        xml: include_str!("builtin/devanagari.xml"),
    },
    Builtin {
        name: "hindi",
        seed: "seed 002 (Hindi language LGR)",
        summary: "Hindi language (Devanagari subset), 2nd level",
        xml: include_str!("builtin/hindi.xml"),
    },
    Builtin {
        name: "khmer",
        seed: "seed 004 (Khmer script LGR)",
        summary: "Khmer script, 2nd level, coeng TA/DA variant, subscript limit",
        xml: include_str!("builtin/khmer.xml"),
    },
    Builtin {
        name: "kashmiri",
        seed: "seed 003 (Kashmiri Perso-Arabic IDN policy)",
        summary: "Kashmiri in Perso-Arabic script, restriction rules, variant table",
        xml: include_str!("builtin/kashmiri.xml"),
    },
    Builtin {
        name: "common",
        seed: "seeds 000, 003, 004 (variants across the built-in repertoires)",
        summary: "the variant relation joining the built-ins (ASCII/Devanagari/Khmer digits ...)",
        xml: include_str!("builtin/common.xml"),
    },
];

/// The LGR set `scan` uses when none is given.
pub const DEFAULT_SET: [&str; 4] = ["ascii", "devanagari", "khmer", "kashmiri"];

/// The variant LGR `scan` uses with the default set.
pub const DEFAULT_VARIANTS: &str = "common";

/// Finds an embedded LGR by name (without the `builtin:` prefix).
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// The built-in LGR `name`, or an error naming `builtin:NAME` and listing
/// the built-ins.
///
/// # Errors
/// An unknown name.
pub fn find(name: &str) -> Result<&'static Builtin, LgrError> {
    get(name).ok_or_else(|| {
        let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        LgrError::new(format!("no built-in LGR '{name}' (there are: {})", names.join(", ")))
            .with_path(format!("builtin:{name}"))
    })
}

/// Loads an embedded LGR; it is named `builtin:NAME`.
///
/// # Errors
/// An unknown name.
pub fn load(name: &str) -> Result<Lgr, LgrError> {
    let b = find(name)?;
    Lgr::from_builtin_xml(&format!("builtin:{}", b.name), b.xml)
}

/// Loads `builtin:NAME` or an LGR file (RFC 7940 XML, RFC 3743 table or
/// code point list).
///
/// # Errors
/// An unknown built-in, an unreadable or malformed file.
pub fn load_spec(spec: &str) -> Result<Lgr, LgrError> {
    match spec.strip_prefix("builtin:") {
        Some(name) => load(name),
        None => Lgr::from_path(std::path::Path::new(spec)).map_err(|mut e| {
            if let Some(hint) = suggestion(spec) {
                e.message = format!("{}; {hint}", e.message);
            }
            e
        }),
    }
}

/// For a spec naming no file that is a built-in LGR's name without the
/// prefix (`devanagari`, any case): the spec meant, as a hint.
///
/// # Example
/// ```
/// assert_eq!(
///     lgrscan::builtin::suggestion("Devanagari").as_deref(),
///     Some("did you mean builtin:devanagari?")
/// );
/// assert_eq!(lgrscan::builtin::suggestion("my.xml"), None);
/// ```
pub fn suggestion(spec: &str) -> Option<String> {
    let b = get(&spec.to_ascii_lowercase())?;
    if std::path::Path::new(spec).exists() {
        return None;
    }
    Some(format!("did you mean builtin:{}?", b.name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_loads() {
        for b in super::BUILTINS {
            let l = super::load(b.name).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(l.element_count() > 0, "{}", b.name);
            // Their rules' automata are built on first use: all build.
            l.build_rules().unwrap_or_else(|e| panic!("{}: {e}", b.name));
        }
        assert!(super::load("nope").is_err());
    }
}
