//! The HTML report (issue #30, item 5) in a real browser: `scan --format
//! html` of the samples and a period report (`lgrscan report`) are opened
//! in headless Chromium; the rendered page must have run its script
//! without a console message, show the counts of the JSON Lines summary
//! (read back from `data-count` elements and chart bars), put
//! right-to-left labels in `dir="auto"` elements, and be saved as PNG
//! screenshots under `target/` for a person to look at.
//!
//! Without Chromium the tests skip, unless `LGRSCAN_REQUIRE_REFERENCE=1`
//! (CI, whose `.ci/run` installs it): then they fail.
#![cfg(feature = "cli")]

use crate::util::{assert_exit, lgrscan, required, root, stdout, temp_dir};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The browser: `$LGRSCAN_CHROMIUM` or `/usr/bin/chromium`.
fn chromium() -> Option<PathBuf> {
    let p = std::env::var_os("LGRSCAN_CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    if p.exists() {
        return Some(p);
    }
    assert!(!required(), "{} not found (LGRSCAN_REQUIRE_REFERENCE=1)", p.display());
    println!("skipped: {} not found", p.display());
    None
}

/// Runs headless Chromium on `page` with `extra` arguments: (stdout,
/// stderr).
fn browse(browser: &Path, page: &Path, extra: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().expect("profile dir");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.canonicalize().expect("page").display()))
        .output()
        .expect("run chromium");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Where a screenshot is left for a person to look at: the build's target
/// directory (`CARGO_TARGET_DIR` or `target/`).
fn screenshot(name: &str) -> std::path::PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join(name)
}

/// The rendered DOM of `page`, after asserting that the page's script ran
/// and that nothing was written to the console (a script error is logged
/// there as "Uncaught …"); and a screenshot of it at `png`.
fn render(browser: &Path, page: &Path, png: &Path) -> String {
    let (dom, log) = browse(browser, page, &["--dump-dom"]);
    let console: Vec<&str> =
        log.lines().filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught")).collect();
    assert!(console.is_empty(), "console messages of {}: {console:#?}", page.display());
    assert!(
        dom.contains(r#"<div id="script-status" hidden="">ok</div>"#),
        "the script did not run"
    );
    let _ = std::fs::remove_file(png);
    if let Some(dir) = png.parent() {
        std::fs::create_dir_all(dir).expect("screenshot directory");
    }
    let shot = format!("--screenshot={}", png.display());
    browse(browser, page, &[&shot, "--window-size=1280,2000", "--hide-scrollbars"]);
    assert!(
        std::fs::metadata(png).is_ok_and(|m| m.len() > 10_000),
        "no screenshot {}",
        png.display()
    );
    dom
}

/// The number shown in the element with `data-count="name"`.
fn shown(dom: &str, name: &str) -> u64 {
    let key = format!(r#"data-count="{name}">"#);
    let at = dom.find(&key).unwrap_or_else(|| panic!("no data-count={name}")) + key.len();
    let digits: String = dom[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or_else(|_| panic!("data-count={name} is not a number"))
}

/// The bars of the chart `data-chart="name"`: their values.
fn bars(dom: &str, name: &str) -> Vec<u64> {
    let key = format!(r#"data-chart="{name}""#);
    let at = dom.find(&key).unwrap_or_else(|| panic!("no chart {name}"));
    let svg = &dom[at..at + dom[at..].find("</svg>").expect("end of svg")];
    svg.split(r#"data-value=""#)
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].parse().expect("a bar value"))
        .collect()
}

/// The records of a JSON Lines report: (summary, finding rows).
fn records(text: &str) -> (Value, Vec<Value>) {
    let all: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let summary = all.iter().find(|r| r["kind"] == "summary").expect("summary").clone();
    let rows = all.into_iter().filter(|r| r["kind"] != "meta" && r["kind"] != "summary").collect();
    (summary, rows)
}

fn is_rtl(s: &str) -> bool {
    s.chars().any(|c| matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}'))
}

/// Scans `inputs` as JSON Lines and as HTML, renders the page, and checks
/// it against the JSON Lines records; returns the DOM.
fn check_scan_page(browser: &Path, inputs: &[&str], png: &str) -> String {
    let dir = temp_dir(&format!("html-{png}"));
    let page = dir.join("report.html");
    let page_s = page.to_string_lossy().into_owned();
    let mut args = vec!["scan", "-q", "--format", "jsonl"];
    args.extend_from_slice(inputs);
    let jsonl = lgrscan(&args);
    assert_exit(&jsonl, 1, "scan --format jsonl");
    args[3] = "html";
    args.extend(["-o", &page_s]);
    assert_exit(&lgrscan(&args), 1, "scan --format html");
    let (summary, rows) = records(&stdout(&jsonl));
    let dom = render(browser, &page, &screenshot(&format!("{png}.png")));

    for (name, path) in [
        ("labels", &["labels"][..]),
        ("idn-labels", &["idn_labels"]),
        ("findings-total", &["findings", "total"]),
        ("findings-open", &["findings", "open"]),
        ("findings-accepted", &["findings", "accepted"]),
        ("invalid", &["invalid"]),
        ("blocked", &["blocked"]),
        ("conflict-groups", &["conflict_groups"]),
        ("conflicts", &["conflicts"]),
        ("ns-mismatch", &["ns_mismatch"]),
        ("same-entity", &["same_entity"]),
        ("malformed", &["input", "malformed"]),
    ] {
        let want = path.iter().fold(&summary, |v, k| &v[k]).as_u64().expect("a count");
        assert_eq!(shown(&dom, name), want, "{name}");
    }
    let total = summary["findings"]["total"].as_u64().unwrap();
    let kinds: Vec<u64> = summary["findings"]["by_kind"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v["open"].as_u64().unwrap() + v["accepted"].as_u64().unwrap())
        .collect();
    assert_eq!(bars(&dom, "by-kind"), kinds, "findings by kind");
    for chart in ["by-script", "by-lgr"] {
        assert_eq!(bars(&dom, chart).iter().sum::<u64>(), total, "{chart} adds up to the findings");
    }
    let kind_rows = |k: &str| rows.iter().filter(|r| r["kind"] == k).count() as u64;
    assert_eq!(shown(&dom, "invalid-rows"), kind_rows("invalid"));
    assert_eq!(shown(&dom, "blocked-rows"), kind_rows("blocked"));
    assert_eq!(shown(&dom, "contract"), kind_rows("ns-mismatch") + kind_rows("same-entity"));
    let mut groups: Vec<u64> = rows
        .iter()
        .filter(|r| r["kind"] == "collision")
        .map(|r| r["group"].as_u64().unwrap())
        .collect();
    groups.dedup();
    assert_eq!(shown(&dom, "variant-sets"), groups.len() as u64);
    assert_eq!(
        dom.matches(r#"<tr data-row="collision">"#).count(),
        kind_rows("collision") as usize
    );

    // Every right-to-left label is shown, and each time in a dir="auto" cell.
    let rtl: Vec<&str> =
        rows.iter().filter_map(|r| r["ulabel"].as_str()).filter(|u| is_rtl(u)).collect();
    assert!(!rtl.is_empty(), "the samples have right-to-left labels");
    for u in rtl {
        let cell = format!(r#"<td class="label" dir="auto"><bdi>{u}</bdi></td>"#);
        assert!(dom.contains(&cell), "{u} not in a dir=auto cell");
        assert_eq!(
            dom.matches(&format!(">{u}<")).count(),
            dom.matches(&cell).count() + dom.matches(&format!(r#"dir="auto">{u}<"#)).count(),
            "{u} outside dir=auto"
        );
    }
    dom
}

#[test]
fn scan_report_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let dom = check_scan_page(&browser, &["samples/zone.txt"], "html-report");
    assert!(dom.contains("blocked: a variant of `"), "a plain sentence per reason");
    assert!(!dom.contains("data-chart=\"by-registrar\""), "the zone has no registrar");

    // A label list with a registrar column: the chart by registrar.
    let dir = temp_dir("html-registrar");
    let csv = std::fs::read_to_string(root().join("samples/labels.csv")).unwrap();
    let with_registrar: String =
        csv.lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    format!("{l},registrar\n")
                } else {
                    format!("{l},R-{}\n", 1000 + i % 3)
                }
            })
            .collect();
    let file = dir.join("labels.csv");
    std::fs::write(&file, with_registrar).unwrap();
    let dom = check_scan_page(&browser, &[&file.to_string_lossy()], "html-report-registrar");
    let total = shown(&dom, "findings-total");
    assert_eq!(bars(&dom, "by-registrar").iter().sum::<u64>(), total);
    assert!(dom.contains("(held by reg-"), "the holder's registrant and date: {dom}");
}

/// `page` with `script` run after its own, and what that script writes
/// into a `#measured` element it adds, read from the rendered DOM: what a
/// test needs of the layout (sizes) or of the page's script (a sort after
/// clicks), which the DOM alone does not show.
fn measure(browser: &Path, page: &Path, script: &str) -> String {
    let html = std::fs::read_to_string(page).expect("page");
    let probe = page.with_extension("probe.html");
    let tail = format!(
        "<pre id=\"measured\"></pre><script>(function(){{var m=document.getElementById('measured');\
         try{{m.textContent=(function(){{{script}}})();}}catch(e){{m.textContent='error: '+e;}}}})();</script></body>"
    );
    std::fs::write(&probe, html.replace("</body>", &tail)).expect("probe page");
    let (dom, _) = browse(browser, &probe, &["--dump-dom", "--window-size=1280,2000"]);
    let at =
        dom.find(r#"<pre id="measured">"#).expect("#measured") + r#"<pre id="measured">"#.len();
    let text = &dom[at..at + dom[at..].find("</pre>").expect("end of #measured")];
    assert!(!text.starts_with("error: "), "{text}");
    text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
}

/// Chart labels are fitted to their column by rendered width: registrar
/// names in wide scripts (CJK, Arabic, Khmer, Devanagari, and a run of
/// `W`) stay inside the chart, left of their bar, and the ones too wide
/// are cut with an ellipsis, their whole text in `title`. They were cut at
/// 22 characters, and 22 such characters spilled past the chart's edge.
#[test]
fn chart_labels_fit_their_column_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let dir = temp_dir("html-wide");
    let names = [
        "Short Reg",
        "देवनागरी रजिस्ट्रार प्राइवेट लिमिटेड कंपनी",
        "ក្រុមហ៊ុនចុះឈ្មោះដែនខ្មែរ ឯកជន",
        "شركة تسجيل النطاقات العربية المحدودة",
        "中文域名注册服务有限公司北京分公司第一部",
        "A very long Latin registrar name, Incorporated and Partners",
        "WWWWWWWWWWWWWWWWWWWWWWWW",
    ];
    let csv = std::fs::read_to_string(root().join("samples/labels.csv")).unwrap();
    let rows: String = csv
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l},registrar\n")
            } else {
                format!("{l},\"{}\"\n", names[(i - 1) % names.len()])
            }
        })
        .collect();
    let file = dir.join("wide.csv");
    std::fs::write(&file, rows).unwrap();
    let dom = check_scan_page(&browser, &[&file.to_string_lossy()], "html-report-wide");
    let page = dir.join("wide.html");
    let o = lgrscan(&[
        "scan",
        "-q",
        "--format",
        "html",
        "-o",
        &page.to_string_lossy(),
        &file.to_string_lossy(),
    ]);
    assert_exit(&o, 1, "scan --format html");
    // Per chart bar: its chart, key, the key's box left of the chart's
    // edge or right of its bar, whether the key is cut, and its title.
    let measured = measure(
        &browser,
        &page,
        "var out=[];document.querySelectorAll('svg[data-chart] g[data-key]').forEach(function(g){\
         var svg=g.closest('svg'),edge=svg.getBoundingClientRect(),bar=g.querySelector('rect').getBoundingClientRect();\
         var l=g.firstElementChild,t=l.querySelector('div')||l,r=t.getBoundingClientRect();\
         var spill=r.left<edge.left-0.5||r.right>bar.left+0.5;\
         var cut=t.scrollWidth>t.clientWidth+1;\
         out.push([svg.dataset.chart,g.dataset.key,spill,cut,t.title||''].join('\\t'));});\
         return out.join('\\n');",
    );
    let bars: Vec<Vec<&str>> = measured.lines().map(|l| l.split('\t').collect()).collect();
    let registrars: Vec<&Vec<&str>> = bars.iter().filter(|b| b[0] == "by-registrar").collect();
    assert!(registrars.len() >= 4, "{measured}");
    let spilled: Vec<&Vec<&str>> = bars.iter().filter(|b| b[2] != "false").collect();
    assert!(spilled.is_empty(), "chart labels outside their column: {spilled:?}");
    for b in &bars {
        assert_eq!(b[4], b[1], "the whole key in its title: {b:?}");
    }
    let cut: Vec<&str> = bars.iter().filter(|b| b[3] == "true").map(|b| b[1]).collect();
    assert!(cut.contains(&names[6]) && cut.contains(&names[3]), "cut: {cut:?}");
    assert!(!cut.iter().any(|k| k.len() < 12), "short keys are whole: {cut:?}");
    assert!(dom.contains(r#"class="bar-label" dir="auto""#), "{dom}");
}

/// The source column sorts by file, then line as a number (as text,
/// `a.txt:10` came before `a.txt:9`), whatever order the table was in;
/// the `label` column sorts as text.
#[test]
fn source_column_sorts_naturally_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let dir = temp_dir("html-sort");
    // Invalid labels (a leading hyphen), their text in the reverse order
    // of their lines, in two files.
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    let labels = |tag: &str| -> String {
        (0..12u8).map(|i| format!("-{tag}{}\n", char::from(b'z' - i))).collect()
    };
    std::fs::write(&a, labels("a")).unwrap();
    std::fs::write(&b, labels("b")).unwrap();
    let page = dir.join("sort.html");
    let (a, b, p) = (a.to_string_lossy(), b.to_string_lossy(), page.to_string_lossy());
    assert_exit(&lgrscan(&["scan", "-q", "--format", "html", "-o", &p, &b, &a]), 1, "scan");
    let order = |clicks: &str| -> Vec<String> {
        let script = format!(
            "var t=document.querySelector('[data-count=\"invalid-rows\"]').closest('h2').nextElementSibling;\
             var th=t.tHead.rows[0].cells;[{clicks}].forEach(function(i){{th[i].click();}});\
             return Array.prototype.map.call(t.tBodies[0].rows,function(r){{\
             return r.cells[0].textContent+' '+r.cells[5].textContent;}}).join('\\n');"
        );
        measure(&browser, &page, &script).lines().map(str::to_string).collect()
    };
    let file = |f: &str| Path::new(f).file_name().unwrap().to_string_lossy().into_owned();
    let want: Vec<String> = [("a", &a), ("b", &b)]
        .iter()
        .flat_map(|(tag, f)| {
            (1..=12u8).map(move |n| format!("-{tag}{} {f}:{n}", char::from(b'z' + 1 - n)))
        })
        .collect();
    // By label (text), then by source: files by name, lines by number.
    assert_eq!(order("0, 5"), want, "{}", file(&a));
    let mut by_label = want.clone();
    by_label.sort();
    assert_eq!(order("0"), by_label);
    let mut down = want.clone();
    down.reverse();
    assert_eq!(order("5, 5"), down);
}

#[test]
fn period_report_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let dir = temp_dir("html-period");
    // The earlier month lacks three labels, registered since: variants of
    // labels it has (new findings, two of them right-to-left); and it had
    // two invalid labels since removed (resolved findings).
    let csv = std::fs::read_to_string(root().join("samples/labels.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let later = ["آئینۃ,", "قایٔم,", "ខេត្ត,"];
    let kept = |keep: bool| -> String {
        let rows = lines[1..].iter().filter(|l| later.iter().any(|p| l.starts_with(p)) != keep);
        rows.map(|l| format!("{l}\n")).collect()
    };
    let old = format!("{}\n{}", lines[0], kept(true))
        + "bad_label,2019-01-01,reg-1,\n-lead,2019-01-01,reg-2,\n";
    let new = format!("{}\n{}{}", lines[0], kept(true), kept(false));
    let (old_csv, new_csv) = (dir.join("old.csv"), dir.join("new.csv"));
    std::fs::write(&old_csv, old).unwrap();
    std::fs::write(&new_csv, new).unwrap();
    let (old_j, new_j, page) =
        (dir.join("old.jsonl"), dir.join("new.jsonl"), dir.join("period.html"));
    for (input, out) in [(&old_csv, &old_j), (&new_csv, &new_j)] {
        let o = lgrscan(&[
            "scan",
            "-q",
            "--format",
            "jsonl",
            "-o",
            &out.to_string_lossy(),
            &input.to_string_lossy(),
        ]);
        assert_exit(&o, 1, "scan");
    }
    let (old_s, new_s) = (old_j.to_string_lossy(), new_j.to_string_lossy());
    let diff = lgrscan(&["diff", "--format", "jsonl", &old_s, &new_s]);
    assert_exit(&diff, 1, "diff");
    let summary: Value = serde_json::from_str(stdout(&diff).lines().last().unwrap()).unwrap();
    assert_eq!(summary["kind"], "diff-summary");
    let report = lgrscan(&["report", &old_s, &new_s, "-o", &page.to_string_lossy()]);
    assert_exit(&report, 1, "report (new findings)");

    let dom = render(&browser, &page, &screenshot("html-period.png"));
    for name in ["new", "resolved", "changed", "unchanged"] {
        assert_eq!(shown(&dom, name), summary[name].as_u64().unwrap(), "{name}");
    }
    assert!(summary["new"].as_u64().unwrap() > 0 && summary["resolved"].as_u64().unwrap() >= 2);
    assert_eq!(shown(&dom, "new-rows"), summary["new"].as_u64().unwrap());
    assert_eq!(shown(&dom, "resolved-rows"), summary["resolved"].as_u64().unwrap());
    assert_eq!(
        bars(&dom, "new-vs-resolved"),
        [summary["new"].as_u64().unwrap(), summary["resolved"].as_u64().unwrap()]
    );
    assert_eq!(bars(&dom, "new-by-kind").iter().sum::<u64>(), summary["new"].as_u64().unwrap());
    // New and resolved in two colors (both were green).
    let html = std::fs::read_to_string(&page).unwrap();
    let chart = html.split(r#"data-chart="new-vs-resolved""#).nth(1).unwrap();
    let chart = &chart[..chart.find("</svg>").unwrap()];
    let fills: BTreeSet<&str> = chart
        .split(r#"<rect "#)
        .skip(1)
        .filter_map(|r| r.split(r#"fill=""#).nth(1)?.split('"').next())
        .collect();
    assert_eq!(fills.len(), 2, "{fills:?}");
    assert!(dom.contains("invalid: non-LDH ASCII"), "the resolved invalid label's sentence");
    let rtl: Vec<Value> = stdout(&diff)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["change"].is_string() && r["change"] != "changed")
        .filter(|r| r["ulabel"].as_str().is_some_and(is_rtl))
        .collect();
    assert!(!rtl.is_empty(), "right-to-left labels among the new and resolved findings");
    for r in rtl {
        let cell = format!(
            r#"<td class="label" dir="auto"><bdi>{}</bdi></td>"#,
            r["ulabel"].as_str().unwrap()
        );
        assert!(dom.contains(&cell), "{cell}");
    }
}

#[test]
fn html_to_a_terminal_is_refused_and_check_has_no_html() {
    // Standard output here is a pipe, so the page is written to it.
    let o = lgrscan(&["scan", "-q", "--format", "html", "samples/zone.txt"]);
    assert_exit(&o, 1, "scan --format html to a pipe");
    assert!(stdout(&o).starts_with("<!DOCTYPE html>"));
    assert!(stdout(&o).ends_with("</html>"));
    let o = lgrscan(&[
        "check",
        "--format",
        "html",
        "--against",
        "samples/zone.txt",
        "--label",
        "xn--h1b7b1e8a",
    ]);
    assert_exit(&o, 2, "check --format html");
    assert!(
        crate::util::stderr(&o).contains("invalid value 'html'"),
        "{}",
        crate::util::stderr(&o)
    );
    let help = stdout(&lgrscan(&["check", "--help"]));
    assert!(help.contains("jsonl") && !help.contains("html"), "{help}");
}
