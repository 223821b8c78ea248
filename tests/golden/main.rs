//! Agreement with the reference results in ../shared/golden (computed with
//! ICANN's lgr-core on ICANN's LGRs in ../shared/lgr): per golden LGR, the
//! LGR's verdicts, index labels and dispositions (`lgr::`), the scan's
//! groups (`scan::`) and the verified grouping (`verified::`), each a trial
//! of its own.

#[path = "../util/mod.rs"]
mod util;

mod lgr;
mod scan;
mod verified;

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};

/// A trial `kind::name` running `check(dir, name)`.
fn trial(
    kind: &str,
    dir: &Path,
    name: &str,
    check: fn(&Path, &str) -> Result<(), Failed>,
) -> Trial {
    let (dir, n): (PathBuf, String) = (dir.to_path_buf(), name.to_string());
    Trial::test(format!("{kind}::{name}"), move || check(&dir, &n))
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    if let Some(dir) = util::reference_dir() {
        for name in util::golden_names(&dir) {
            trials.push(trial("labels", &dir, &name, lgr::check_labels));
            trials.push(trial("collisions", &dir, &name, lgr::check_collisions));
            trials.push(trial("dispositions", &dir, &name, lgr::check_dispositions));
            trials.push(trial("scan", &dir, &name, scan::check));
            trials.push(trial("verified", &dir, &name, verified::check));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
