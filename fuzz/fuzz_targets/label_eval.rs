//! Label evaluation under the built-in LGRs and, when the reference data
//! is there at run time (`LGRSCAN_REFERENCE_DIR`, default `../../shared`
//! from this crate), two ICANN LGRs (not copied into the project): the
//! verdict, index label, variant labels and their dispositions
//! (`lgrscan_fuzz::judge_all`). The first byte picks the LGR; the rest is
//! the label (`lgrscan_fuzz::label_from`).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use lgrscan::lgr::Lgr;
use libfuzzer_sys::fuzz_target;

/// ICANN LGRs read at run time when present.
const ICANN: [&str; 2] =
    ["lgr/lgr-second-level-arabic-script-31may22-en.xml", "lgr/lgr-5-latin-script-26may22-en.xml"];

fn lgrs() -> &'static [Lgr] {
    static LGRS: OnceLock<Vec<Lgr>> = OnceLock::new();
    LGRS.get_or_init(|| {
        let mut all: Vec<Lgr> = lgrscan::builtin::BUILTINS
            .iter()
            .map(|b| lgrscan::builtin::load(b.name).expect("built-in LGR loads"))
            .collect();
        let dir = std::env::var_os("LGRSCAN_REFERENCE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")));
        for rel in ICANN {
            if let Ok(lgr) = Lgr::from_path(&dir.join(rel)) {
                all.push(lgr);
            }
        }
        all
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let lgrs = lgrs();
    let lgr = &lgrs[usize::from(pick) % lgrs.len()];
    lgrscan_fuzz::judge_all(lgr, &lgrscan_fuzz::label_from(lgr, rest));
});
