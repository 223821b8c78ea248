//! The LGR against the reference results: one trial per golden file
//! (`<lgr>.tsv`, `.collisions.tsv`, `.collision-dispositions.tsv`); each
//! checks every row and reports all disagreements with their line numbers,
//! then prints the agreement counts.

use crate::util::parse_hex;
use lgrscan::lgr::{Lgr, hex_cps};
use libtest_mimic::Failed;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

type Cache = Mutex<HashMap<String, Arc<OnceLock<Result<Arc<Lgr>, String>>>>>;

fn cache() -> &'static Cache {
    static C: OnceLock<Cache> = OnceLock::new();
    C.get_or_init(Default::default)
}

fn load(dir: &Path, name: &str) -> Result<Arc<Lgr>, Failed> {
    let cell = cache().lock().unwrap().entry(name.to_string()).or_default().clone();
    cell.get_or_init(|| {
        Lgr::from_path(&dir.join("lgr").join(format!("{name}.xml")))
            .map(Arc::new)
            .map_err(|e| e.to_string())
    })
    .clone()
    .map_err(Failed::from)
}

fn rows(path: &Path) -> Result<Vec<(usize, Vec<String>)>, Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect())
}

fn label_of(row: &[String], col: usize) -> Vec<u32> {
    parse_hex(&row[col])
}

fn report(file: &str, total: usize, bad: Vec<String>) -> Result<(), Failed> {
    println!("{file}: {} of {total} rows agree", total - bad.len());
    if bad.is_empty() {
        Ok(())
    } else {
        let shown: Vec<_> = bad.iter().take(25).cloned().collect();
        Err(format!("{} of {total} rows disagree:\n{}", bad.len(), shown.join("\n")).into())
    }
}

/// `<lgr>.tsv`: eligibility, disposition, reason, index label per label.
pub fn check_labels(dir: &Path, name: &str) -> Result<(), Failed> {
    let lgr = load(dir, name)?;
    let file = format!("{name}.tsv");
    let rows = rows(&dir.join("golden").join(&file))?;
    let mut bad = Vec::new();
    for (line, r) in &rows {
        let cps = label_of(r, 1);
        let v = lgr.judge(&cps);
        let reason = lgr.reason_text(&v.reason);
        let index = lgr.index_label(&cps).map(|i| hex_cps(&i)).unwrap_or_default();
        let got = (v.eligible.to_string(), v.disposition.to_string(), reason, index);
        let want =
            (r[3].clone(), r[4].clone(), r[5].clone(), r.get(6).cloned().unwrap_or_default());
        if got != want {
            bad.push(format!(
                "{file}:{line}: {} [{}]\n   want {want:?}\n   got  {got:?}",
                r[0], r[1]
            ));
        }
    }
    report(&file, rows.len(), bad)
}

/// `<lgr>.collisions.tsv`: the same groups, from index labels of the corpus.
pub fn check_collisions(dir: &Path, name: &str) -> Result<(), Failed> {
    let lgr = load(dir, name)?;
    let labels = rows(&dir.join("golden").join(format!("{name}.tsv")))?;
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (_, r) in &labels {
        if let Some(i) = lgr.index_label(&label_of(r, 1)) {
            let key = hex_cps(&i);
            let g = *at.entry(key.clone()).or_insert_with(|| {
                groups.push((key, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(r[0].clone());
        }
    }
    let got: Vec<String> = groups
        .into_iter()
        .filter(|g| g.1.len() > 1)
        .map(|(k, m)| format!("{k}\t{}", m.join("\t")))
        .collect();
    let file = format!("{name}.collisions.tsv");
    let want = rows(&dir.join("golden").join(&file))?;
    let mut bad = Vec::new();
    for (i, (line, r)) in want.iter().enumerate() {
        let w = r.join("\t");
        match got.get(i) {
            Some(g) if *g == w => {}
            g => bad.push(format!(
                "{file}:{line}:\n   want {w}\n   got  {}",
                g.cloned().unwrap_or_default()
            )),
        }
    }
    if got.len() != want.len() {
        bad.push(format!("{file}: {} groups expected, {} found", want.len(), got.len()));
    }
    report(&file, want.len(), bad)
}

/// `<lgr>.collision-dispositions.tsv`: the disposition of each later member
/// as a variant of the group's first member.
pub fn check_dispositions(dir: &Path, name: &str) -> Result<(), Failed> {
    let lgr = load(dir, name)?;
    let file = format!("{name}.collision-dispositions.tsv");
    let rows = rows(&dir.join("golden").join(&file))?;
    let mut bad = Vec::new();
    for (line, r) in &rows {
        let first: Vec<u32> = r[1].chars().map(u32::from).collect();
        let other: Vec<u32> = r[3].chars().map(u32::from).collect();
        let fe = lgr.judge(&first).eligible.to_string();
        let oe = lgr.judge(&other).eligible.to_string();
        let (disp, reason) =
            if let Some(n) = r[6].strip_prefix("not computed (variant space of first label: ") {
                // The reference skipped labels whose variant space is over
                // 20,000; we check the estimate it used, then judge anyway.
                let est = lgr.variant_estimate(&first).to_string();
                let want_est = n.trim_end_matches(')');
                if est != want_est {
                    bad.push(format!("{file}:{line}: variant estimate {est}, want {want_est}"));
                }
                match lgr.variant_disposition(&first, &other) {
                    Some(_) => (String::new(), r[6].clone()),
                    None => ("not-a-variant".to_string(), r[6].clone()),
                }
            } else {
                match lgr.variant_disposition(&first, &other) {
                    Some(v) => (v.disposition.to_string(), lgr.variant_reason_text(&v)),
                    None => ("not-a-variant".to_string(), String::new()),
                }
            };
        let got = (fe, oe, disp, reason);
        let want = (r[2].clone(), r[4].clone(), r[5].clone(), r[6].clone());
        if got != want {
            bad.push(format!(
                "{file}:{line}: {} / {}\n   want {want:?}\n   got  {got:?}",
                r[1], r[3]
            ));
        }
    }
    report(&file, rows.len(), bad)
}
