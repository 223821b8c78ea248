//! `lgrscan builtins`: the LGRs embedded in the binary.

use anyhow::Context;
use lgrscan::builtin;
use lgrscan::lgr::check;
use std::io::Write;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<std::process::ExitCode> {
    let mut out = super::stdout();
    writeln!(out, "name\trepertoire\tsequences\tvariants\tseed")?;
    for b in builtin::BUILTINS {
        let lgr = builtin::load(b.name).with_context(|| format!("loading builtin:{}", b.name))?;
        let i = check::info(&lgr);
        writeln!(
            out,
            "builtin:{}\t{}\t{}\t{}\t{}",
            b.name,
            i.repertoire(),
            i.sequences,
            i.non_reflexive_mappings(),
            b.seed
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "default set: {}; variants: builtin:{}",
        builtin::DEFAULT_SET.map(|n| format!("builtin:{n}")).join(", "),
        builtin::DEFAULT_VARIANTS
    )?;
    out.flush()?;
    Ok(std::process::ExitCode::SUCCESS)
}
