//! Unicode property classes (RFC 7940 §6.2.3, `<class property="gc:Mn"/>`).
//!
//! Property data comes from ICU4X `icu_properties` 2.0.1, pinned in
//! Cargo.toml: ICU 77, Unicode 16.0.0, the same data as the reference results.

use super::cpset::CpSet;
use icu_properties::props::{
    BidiClass, CanonicalCombiningClass, EastAsianWidth, GeneralCategory, GeneralCategoryGroup,
    IndicSyllabicCategory, JoiningType, Script,
};
use icu_properties::{
    CodePointMapData, CodePointSetData, PropertyParser, script::ScriptWithExtensions,
};

/// The Unicode version the property data reflects.
pub const UNICODE_VERSION: &str = "16.0.0";

fn ranges<I: Iterator<Item = std::ops::RangeInclusive<u32>>>(it: I) -> CpSet {
    CpSet::from_ranges(it.map(|r| (*r.start(), *r.end())).collect())
}

/// Resolves `name:value` to its code point set; `None` for an unknown
/// property or value.
///
/// Sets are kept for the process once computed: walking a property's
/// ranges is most of the time to load an LGR, and the same few
/// properties (`gc:Mn`, `gc:Mc` of the leading-combining-mark rule) come
/// back in every LGR and for every form a rule is compiled to.
pub fn property_set(name: &str, value: &str) -> Option<CpSet> {
    type Kept = std::collections::HashMap<(String, String), Option<CpSet>>;
    static KEPT: std::sync::Mutex<Option<Kept>> = std::sync::Mutex::new(None);
    let key = (name.to_string(), value.to_string());
    if let Ok(kept) = KEPT.lock()
        && let Some(s) = kept.as_ref().and_then(|k| k.get(&key))
    {
        return s.clone();
    }
    let s = compute_set(name, value);
    if let Ok(mut kept) = KEPT.lock() {
        kept.get_or_insert_with(Kept::new).insert(key, s.clone());
    }
    s
}

/// [`property_set`], computed.
fn compute_set(name: &str, value: &str) -> Option<CpSet> {
    Some(match name {
        "gc" | "General_Category" => {
            if let Some(v) = PropertyParser::<GeneralCategory>::new().get_loose(value) {
                ranges(CodePointMapData::<GeneralCategory>::new().iter_ranges_for_value(v))
            } else {
                let g = PropertyParser::<GeneralCategoryGroup>::new().get_loose(value)?;
                ranges(CodePointMapData::<GeneralCategory>::new().iter_ranges_for_group(g))
            }
        }
        "sc" | "Script" => {
            let v = PropertyParser::<Script>::new().get_loose(value)?;
            ranges(CodePointMapData::<Script>::new().iter_ranges_for_value(v))
        }
        "scx" | "Script_Extensions" => {
            let v = PropertyParser::<Script>::new().get_loose(value)?;
            ranges(ScriptWithExtensions::new().get_script_extensions_ranges(v))
        }
        "jt" | "Joining_Type" => {
            let v = PropertyParser::<JoiningType>::new().get_loose(value)?;
            ranges(CodePointMapData::<JoiningType>::new().iter_ranges_for_value(v))
        }
        "bc" | "Bidi_Class" => {
            let v = PropertyParser::<BidiClass>::new().get_loose(value)?;
            ranges(CodePointMapData::<BidiClass>::new().iter_ranges_for_value(v))
        }
        "ccc" | "Canonical_Combining_Class" => {
            let v = match value.parse::<u8>() {
                Ok(n) => CanonicalCombiningClass::from_icu4c_value(n),
                Err(_) => PropertyParser::<CanonicalCombiningClass>::new().get_loose(value)?,
            };
            ranges(CodePointMapData::<CanonicalCombiningClass>::new().iter_ranges_for_value(v))
        }
        "InSC" | "Indic_Syllabic_Category" => {
            let v = PropertyParser::<IndicSyllabicCategory>::new().get_loose(value)?;
            ranges(CodePointMapData::<IndicSyllabicCategory>::new().iter_ranges_for_value(v))
        }
        "ea" | "East_Asian_Width" => {
            let v = PropertyParser::<EastAsianWidth>::new().get_loose(value)?;
            ranges(CodePointMapData::<EastAsianWidth>::new().iter_ranges_for_value(v))
        }
        _ => {
            // A binary property, `name:Y` / `name:N`.
            let set = CodePointSetData::new_for_ecma262(name.as_bytes())?;
            let yes = ranges(set.iter_ranges());
            match value {
                "Y" | "Yes" | "T" | "True" | "y" | "yes" | "true" => yes,
                "N" | "No" | "F" | "False" | "n" | "no" | "false" => yes.complement(),
                _ => return None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_properties() {
        let mn = property_set("gc", "Mn").unwrap();
        assert!(mn.contains(0x093C) && !mn.contains(0x0915));
        let deva = property_set("sc", "Deva").unwrap();
        assert!(deva.contains(0x0915) && !deva.contains(0x0041));
        let d = property_set("jt", "D").unwrap();
        assert!(d.contains(0x0628) && !d.contains(0x0627));
        assert!(property_set("gc", "L").unwrap().contains(0x41));
        assert!(property_set("xx", "Y").is_none());
        assert!(property_set("gc", "Nope").is_none());
    }
}
