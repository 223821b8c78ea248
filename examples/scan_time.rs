//! Times the two phases of `lgrscan scan` separately: reading the inputs
//! into a label set, then the scan itself (judging, index labels, grouping,
//! findings). Inputs and LGRs are read as the CLI reads them (memory-mapped
//! when possible, NS targets skipped, the built-in set by default).
//!
//! Usage:
//! `cargo run --release --example scan_time -- [--input-format F]
//!  [--lgr FILE|builtin:NAME]... [--variants FILE|builtin:NAME] INPUT...`
//!
//! Threads: rayon's global pool (`RAYON_NUM_THREADS`). `SCAN_TIME_REPEAT=N`
//! runs the scan N times on the same label set and reports the fastest.
//! `SCAN_TIME_PHASES=1` also prints when each phase of the scan starts
//! (seconds since the start of the scan), through the progress reports.
use lgrscan::builtin;
use lgrscan::input::{
    self, Config, Input, InputFormat, LabelText, MmapChoice, NsTargets, Strictness,
};
use lgrscan::lgr::Lgr;
use lgrscan::scan::{self, LgrSet, NoProgress, ScanConfig};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Records when each phase starts.
struct Phases {
    start: Mutex<Instant>,
    log: Mutex<Vec<(String, f64)>>,
}

impl scan::Progress for Phases {
    fn phase(&self, name: &str, _total: u64) {
        let t = self.start.lock().map(|s| s.elapsed().as_secs_f64()).unwrap_or(0.0);
        if let Ok(mut l) = self.log.lock() {
            l.push((name.to_string(), t));
        }
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn load(spec: &str) -> Res<Arc<Lgr>> {
    Ok(Arc::new(builtin::load_spec(spec)?))
}

/// The LGR set as `lgrscan scan` builds it from `--lgr` and `--variants`.
fn lgr_set(lgrs: &[String], variants: Option<&str>) -> Res<LgrSet> {
    let default = lgrs.is_empty();
    let specs: Vec<String> = if default {
        builtin::DEFAULT_SET.iter().map(|n| format!("builtin:{n}")).collect()
    } else {
        lgrs.to_vec()
    };
    let judges = specs.iter().map(|s| load(s)).collect::<Res<Vec<_>>>()?;
    let variants = match variants {
        Some(v) => Some(load(v)?),
        None if default => Some(load(&format!("builtin:{}", builtin::DEFAULT_VARIANTS))?),
        None if judges.len() == 1 => None,
        None => {
            let refs: Vec<&Lgr> = judges.iter().map(|l| &**l).collect();
            Some(Arc::new(lgrscan::lgr::merge(&refs)?))
        }
    };
    Ok(LgrSet::new(judges, variants)?)
}

fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let (mut lgrs, mut variants, mut format, mut inputs) = (Vec::new(), None, None, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--lgr" => lgrs.push(args.next().ok_or("--lgr needs a value")?),
            "--variants" => variants = Some(args.next().ok_or("--variants needs a value")?),
            "--input-format" => {
                let f = args.next().ok_or("--input-format needs a value")?;
                format = Some(f.parse::<InputFormat>()?);
            }
            _ => inputs.push(a),
        }
    }
    if inputs.is_empty() {
        return Err(
            "usage: scan_time [--input-format F] [--lgr L]... [--variants V] INPUT...".into()
        );
    }
    let set = lgr_set(&lgrs, variants.as_deref())?;
    // SAFETY: the benchmark inputs are not changed while this runs.
    let mmap = unsafe { MmapChoice::auto() };
    let config = Config::new()
        .format(format)
        .strictness(Strictness::Lenient)
        .ns_targets(NsTargets::Skip)
        .mmap(mmap)
        // As `lgrscan scan --mmap auto` (the default).
        .label_text(LabelText::Copy);
    let t = Instant::now();
    let labels = input::read(inputs.iter().map(|a| Input::from_arg(a)), &config)?;
    let read = t.elapsed().as_secs_f64();
    let repeat: usize =
        std::env::var("SCAN_TIME_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut scan_s = f64::INFINITY;
    let mut report = None;
    let phases = std::env::var_os("SCAN_TIME_PHASES").is_some();
    for _ in 0..repeat.max(1) {
        let p = Phases { start: Mutex::new(Instant::now()), log: Mutex::new(Vec::new()) };
        let progress: &dyn scan::Progress = if phases { &p } else { &NoProgress };
        let t = Instant::now();
        let r = scan::scan(&labels, &set, &ScanConfig::default(), progress);
        let s = t.elapsed().as_secs_f64();
        scan_s = scan_s.min(s);
        report = Some(r);
        if phases {
            for (name, at) in p.log.lock().map(|l| l.clone()).unwrap_or_default() {
                println!("  {at:7.3} s  {name}");
            }
            println!("  {s:7.3} s  end");
        }
    }
    let report = report.ok_or("no scan")?;
    let n = labels.len();
    println!("threads  {}", rayon::current_num_threads());
    println!("read     {read:.3} s");
    println!("scan     {scan_s:.3} s");
    println!("labels   {n}");
    println!("scan/s   {:.0} labels/s", n as f64 / scan_s);
    println!("findings {}", report.findings.len());
    Ok(())
}
