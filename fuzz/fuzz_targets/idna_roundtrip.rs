//! A-label / U-label conversion (RFC 5891, Punycode RFC 3492): any bytes
//! as a label, and as the Punycode of an A-label; a label without a
//! finding converts back and forth to the same forms.
#![no_main]

use lgrscan::idna2008::{self, LabelForms};
use libfuzzer_sys::fuzz_target;

fn valid_forms_round_trip(f: &LabelForms) {
    if f.finding.is_some() {
        return;
    }
    assert!(f.alabel.is_ascii(), "{f:?}");
    assert!(f.alabel.len() <= idna2008::MAX_LABEL_OCTETS, "{f:?}");
    assert!(!f.alabel.bytes().any(|b| b.is_ascii_uppercase()), "{f:?}");
    for text in [&f.alabel, &f.ulabel] {
        let again = idna2008::to_labels(text);
        assert_eq!(&again, f, "from {text:?}");
    }
    assert_eq!(idna2008::to_alabel(&f.ulabel).as_ref(), Ok(&f.alabel));
    assert_eq!(idna2008::to_ulabel(&f.alabel).as_ref(), Ok(&f.ulabel));
    if !f.ulabel.is_ascii() {
        assert_eq!(idna2008::check_ulabel(&f.ulabel), Ok(()), "{f:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    valid_forms_round_trip(&idna2008::to_labels_bytes(data));
    let mut ace = b"xn--".to_vec();
    ace.extend_from_slice(data);
    valid_forms_round_trip(&idna2008::to_labels_bytes(&ace));
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = idna2008::check_ulabel(text);
        let _ = idna2008::check_ltr_label_in_bidi_name(text);
        if let Ok(a) = idna2008::to_alabel(text) {
            assert_eq!(idna2008::to_alabel(&idna2008::to_ulabel(&a).unwrap()).as_ref(), Ok(&a));
        }
    }
});
