//! Loads an LGR and judges the labels of a file (one per line), timing both.
//! Usage: cargo run --release --example load_time LGR.xml [LABELS]
use lgrscan::lgr::Lgr;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let t = Instant::now();
    let lgr = Lgr::from_path(std::path::Path::new(&args[1]))?;
    println!("loaded {} elements in {:.3}s", lgr.element_count(), t.elapsed().as_secs_f64());
    if let Some(p) = args.get(2) {
        let text = std::fs::read_to_string(p)?;
        let labels: Vec<Vec<u32>> =
            text.lines().map(|l| l.chars().map(u32::from).collect()).collect();
        let t = Instant::now();
        let mut n = 0usize;
        for _ in 0..5 {
            for l in &labels {
                let v = lgr.judge(l);
                let i = lgr.index_label(l);
                n += usize::from(v.eligible) + i.map_or(0, |x| x.len());
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{} labels x5 in {s:.3}s: {:.0} labels/s ({n})",
            labels.len(),
            5.0 * labels.len() as f64 / s
        );
    }
    Ok(())
}
