//! The HTML report: one self-contained page for a registry manager, of a
//! scan (`scan --format html`) or of a period (`report OLD.jsonl
//! NEW.jsonl`).
//!
//! The page is rendered from the records of a JSON Lines report
//! ([`JsonlReport`]: meta, finding rows, summary), the same records
//! `--format jsonl` writes, so every count it shows is the summary
//! record's or a count of its rows. It has no network reference: the CSS
//! is inline, the charts are inline SVG, and a small inline script only
//! sorts tables (the page reads the same without it). Built with the
//! `maud` template crate, which escapes all text from the data.
//!
//! Counts are in elements with `data-count="NAME"` and chart bars carry
//! `data-key`/`data-value`, so a test (or a person's script) can read them
//! back from the rendered page. Labels are in `dir="auto"` elements: a
//! right-to-left label (Arabic, Hebrew, …) is laid out by its own first
//! strong character (HTML §3.2.6.4), not by the page's direction.

use super::diff::{Change, Diff, Entry};
use super::jsonl::{JsonlReport, ReportRow, is_problem_row};
use super::terminal::escape_for_terminal;
use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// Rows shown per table; the rest are counted and left to the JSON Lines
/// or CSV report, so that a zone with a million findings still gives a
/// page a browser opens.
pub const MAX_TABLE_ROWS: usize = 2000;

type Row = ReportRow;

/// A field of a row as text ([`ReportRow`]), shown as the text report
/// shows it ([`shown`]).
fn field(m: &Row, k: &str) -> String {
    shown(m.get(k))
}

/// Text from the data with its control characters and bidirectional
/// overrides and isolates written as escapes, as on a terminal
/// ([`escape_for_terminal`]): HTML escaping keeps markup out, not these,
/// and an override inside a value (a registrar `U+202E evil`) would show
/// it reversed (`live`), even inside `<bdi>`. No valid label has any.
fn shown(text: &str) -> String {
    escape_for_terminal(text).into_owned()
}

/// A count of a record, 0 when absent.
fn count(v: &Value, path: &[&str]) -> u64 {
    path.iter().try_fold(v, |v, k| v.get(k)).and_then(Value::as_u64).unwrap_or(0)
}

const CSS: &str = r#"
body{font:15px/1.45 system-ui,"Noto Sans",sans-serif;margin:0;color:#1d2430;background:#f5f6f8}
header{background:#1f3a5f;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;opacity:.85}main{padding:12px 28px 40px;max-width:1200px}
h2{font-size:18px;margin:28px 0 10px;border-bottom:2px solid #d5dae1;padding-bottom:4px}
.cards{display:flex;flex-wrap:wrap;gap:12px}.card{background:#fff;border-radius:8px;padding:10px 16px;
min-width:130px;box-shadow:0 1px 3px #0002}.card .n{font-size:26px;font-weight:600}.card .t{color:#556;font-size:13px}
.card.bad .n{color:#b3261e}.card.ok .n{color:#1e7b34}.charts{display:flex;flex-wrap:wrap;gap:16px}
.chart{background:#fff;border-radius:8px;padding:10px;box-shadow:0 1px 3px #0002}
table{border-collapse:collapse;background:#fff;width:100%;font-size:14px;box-shadow:0 1px 3px #0002}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{background:#e9edf2;cursor:pointer;white-space:nowrap}td.mono,.mono{font-family:ui-monospace,monospace;font-size:12.5px}
tr.group td{background:#f0f3f7;font-weight:600}.role-holder,.role-allocated,.role-near{color:#1e7b34}
.role-blocked,.role-invalid{color:#b3261e}.role-allocatable{color:#9a6700}.accepted{color:#667;font-style:italic}
.label{font-size:16px}dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;background:#fff;
padding:10px 16px;border-radius:8px;box-shadow:0 1px 3px #0002}dl.meta dt{color:#556}dl.meta dd{margin:0}
.note{color:#556;font-size:13px}.cards+.charts{margin-top:16px}
.warnings{background:#fff4d6;border:1px solid #e0b400;border-radius:8px;padding:8px 16px;margin-top:16px}
.warnings h2{border:0;margin:4px 0;color:#7a5200}.warnings li{margin:2px 0}
.runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:16px}.runs>div{min-width:0}
.bar-label{font-size:13px;line-height:20px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;text-align:right}
"#;

/// Sorts a table by the clicked column: numbers numerically (a cell that
/// is a number as a whole: `parseFloat` took `10.txt:5` for 10), a source
/// cell by file (digit runs as numbers) then line as a number (its
/// `data-file` and `data-line`: as text, `zone.txt:10` came before
/// `zone.txt:9`), other text as text. The sort is stable, so a second
/// column breaks ties of the one sorted before. Errors are written into
/// `#script-status` so that a headless browser's DOM shows them.
const SCRIPT: &str = r#"
(function(){var s=document.getElementById('script-status');try{
var num=/^\s*-?\d+(\.\d+)?\s*$/;
function cmp(a,b){if(a&&b&&a.dataset.line!==undefined&&b.dataset.line!==undefined){
var f=a.dataset.file.localeCompare(b.dataset.file,undefined,{numeric:true});
return f||(Number(a.dataset.line||-1)-Number(b.dataset.line||-1));}
var x=a?a.textContent:'',y=b?b.textContent:'';
return (num.test(x)&&num.test(y))?parseFloat(x)-parseFloat(y):x.localeCompare(y);}
document.querySelectorAll('table.sortable th').forEach(function(th,i){th.addEventListener('click',function(){
var tb=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(tb.rows),asc=th.dataset.asc!=='1';
rows.sort(function(a,b){var c=cmp(a.cells[i],b.cells[i]);return asc?c:-c;});
rows.forEach(function(r){tb.appendChild(r);});th.dataset.asc=asc?'1':'0';});});
s.textContent='ok';}catch(e){s.textContent='error: '+e;}})();
"#;

fn page(title: &str, subtitle: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header { h1 { (title) } p { (subtitle) } }
                main { (body) }
                div #script-status hidden {}
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
    .into_string()
}

/// A summary card: a number with `data-count="name"`.
fn card(name: &str, n: u64, text: &str, class: &str) -> Markup {
    html! { div class={"card " (class)} { div.n data-count=(name) { (n) } div.t { (text) } } }
}

const BAR_COLORS: &[&str] = &["#3d6fb6", "#c0504d", "#9bbb59", "#8064a2", "#4bacc6", "#f79646"];

/// A horizontal bar chart as inline SVG: one bar per (key, value), largest
/// first as given; at most 15 bars, the rest summed as "(others)". Bar `i`
/// has color `colors[i]`, the last color for the bars past them.
///
/// A key is laid out by the browser in a box of the label column
/// (`foreignObject`), cut with an ellipsis where the rendered text
/// overflows it (CSS `text-overflow`), its whole text in `title`: a count
/// of characters says nothing of their width (22 Khmer or CJK characters
/// spilled past the chart's left edge; 22 Latin ones fit with room), and
/// could cut a cluster after its base, before its marks. `dir="auto"`
/// sets a right-to-left key from its end, so that the ellipsis ends it.
fn bar_chart(name: &str, title: &str, data: &[(String, u64)], colors: &[&str]) -> Markup {
    let mut bars: Vec<(String, u64)> = data.iter().take(15).cloned().collect();
    if data.len() > 15 {
        bars.push(("(others)".into(), data[15..].iter().map(|(_, n)| n).sum()));
    }
    let max = bars.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let (label_w, bar_w, row_h) = (190.0, 250.0, 22.0);
    let height = 30.0 + row_h * bars.len().max(1) as f64;
    html! {
        div.chart {
            svg xmlns="http://www.w3.org/2000/svg" width=(label_w + bar_w + 60.0) height=(height)
                role="img" aria-label=(title) data-chart=(name) {
                text x="4" y="16" font-weight="600" font-size="14" { (title) }
                @if bars.is_empty() {
                    text x="4" y="42" font-size="13" fill="#667" { "none" }
                }
                @for (i, (k, n)) in bars.iter().enumerate() {
                    @let y = 26.0 + row_h * i as f64;
                    @let w = bar_w * *n as f64 / max as f64;
                    g data-key=(k) data-value=(n) {
                        foreignObject x="0" y=(y) width=(label_w - 6.0) height=(row_h - 2.0) {
                            div.bar-label dir="auto" title=(k) { (k) }
                        }
                        rect x=(label_w) y=(y + 2.0) width=(w.max(1.0)) height=(row_h - 6.0)
                            fill=(colors.get(i).or(colors.last()).unwrap_or(&"#667")) {}
                        text x=(label_w + w + 5.0) y=(y + 14.0) font-size="12" { (n) }
                    }
                }
            }
        }
    }
}

/// The first `n - 1` characters of `s` and `…`, when it has more than `n`
/// (for ASCII text, such as a digest).
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}

/// An ISO 15924 script code by its Unicode long name (`Deva`:
/// `Devanagari`, `Zyyy`: `Common`); `Mixed` and unknown codes as they are.
fn script_name(code: &'static str) -> &'static str {
    use icu_properties::props::Script;
    use icu_properties::{PropertyNamesLong, PropertyParser};
    PropertyParser::<Script>::new()
        .get_strict(code)
        .and_then(|s| PropertyNamesLong::<Script>::new().get(s))
        .unwrap_or(code)
}

/// A label's script by name.
fn script_of(label: &str) -> &'static str {
    script_name(crate::scan::label_script(label))
}

/// Counts of `key(row)` over the problem rows, most first, then by key.
fn tally(rows: &[&Row], key: impl Fn(&Row) -> String) -> Vec<(String, u64)> {
    let mut t: BTreeMap<String, u64> = BTreeMap::new();
    for r in rows {
        let k = key(r);
        *t.entry(if k.is_empty() { "(none)".into() } else { k }).or_default() += 1;
    }
    let mut v: Vec<(String, u64)> = t.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// A code point named in a reason (`U+093C`) with the character itself,
/// a combining mark shown on a dotted circle (U+25CC).
fn show_code_points(reason: &str) -> String {
    let mut out = String::new();
    let mut rest = reason;
    while let Some(p) = rest.find("U+") {
        let hex: String =
            rest[p + 2..].chars().take_while(char::is_ascii_hexdigit).take(6).collect();
        out.push_str(&rest[..p + 2 + hex.len()]);
        rest = &rest[p + 2 + hex.len()..];
        let Some(c) =
            u32::from_str_radix(&hex, 16).ok().filter(|_| hex.len() >= 4).and_then(char::from_u32)
        else {
            continue;
        };
        if c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        {
            continue;
        }
        let gc = icu_properties::CodePointMapData::<icu_properties::props::GeneralCategory>::new()
            .get(c);
        let mark = icu_properties::props::GeneralCategoryGroup::Mark.contains(gc);
        let _ = write!(out, " ‘{}{c}’", if mark { "\u{25CC}" } else { "" });
    }
    out.push_str(rest);
    out
}

/// A reason in plain words: an LGR action's own comment when it has one
/// (`action 4: disp=blocked … "comment"`), the common judge reasons
/// reworded, code points shown with their character; otherwise the reason
/// as it is.
pub fn plain_reason(reason: &str) -> String {
    let main = reason.split(" | variant types").next().unwrap_or(reason);
    let main = match (main.starts_with("action "), main.find('"'), main.rfind('"')) {
        (true, Some(a), Some(b)) if b > a => &main[a + 1..b],
        _ => main,
    };
    let main = main
        .replace("does not comply with rules", "is not allowed here by the LGR's context rule")
        .replace("not in repertoire", "is not in the LGR's repertoire");
    let main = match main.as_str() {
        "not NFC" => "not in Unicode Normalization Form C, which IDNA2008 requires".to_string(),
        _ => main,
    };
    show_code_points(&main)
}

/// The facts of a holder: "held by R since D", the parts the data has.
fn held(holder: Option<&Row>) -> String {
    let Some(h) = holder else { return String::new() };
    let who = [field(h, "registrant"), field(h, "registrar")].into_iter().find(|s| !s.is_empty());
    let since: String = field(h, "registered").chars().take(10).collect();
    match (who, since.is_empty()) {
        (Some(w), false) => format!(" (held by {w} since {since})"),
        (Some(w), true) => format!(" (held by {w})"),
        (None, false) => format!(" (held since {since})"),
        (None, true) => String::new(),
    }
}

/// A label inside a sentence, between FIRST STRONG ISOLATE and POP
/// DIRECTIONAL ISOLATE (UAX #9 §2.7): a right-to-left label keeps its own
/// order and does not reorder the words around it.
fn isolate(label: String) -> String {
    format!("\u{2068}{label}\u{2069}")
}

/// One plain-language sentence for a finding row: what it is and why,
/// from the row's fields and its holder's row (`holder`) when the report
/// has it. Nothing is said that the data does not hold.
pub fn sentence(m: &Row, holder: Option<&Row>) -> String {
    let reason = field(m, "reason");
    let h_label = isolate(holder.map(|h| field(h, "ulabel")).unwrap_or_else(|| field(m, "holder")));
    let of = format!("a variant of `{h_label}`{}", held(holder));
    let scripts = holder
        .map(|h| (script_of(&field(m, "ulabel")), script_of(&field(h, "ulabel"))))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!(": {a} ↔ {b}"))
        .unwrap_or_default();
    match (field(m, "kind").as_str(), field(m, "role").as_str()) {
        ("invalid", _) => format!("invalid: {}", plain_reason(&reason)),
        ("blocked", _) => format!(
            "blocked: a valid label whose own disposition is blocked from registration: {}",
            plain_reason(&reason)
        ),
        ("ns-mismatch", _) => format!(
            "ns-mismatch: {of} is delegated to other name servers than its holder: {reason}"
        ),
        ("same-entity", _) => format!("same-entity: {of} is held by another entity: {reason}"),
        ("collision", "holder") => {
            format!(
                "holder: holds the variant set of index label `{}`{}",
                isolate(field(m, "index")),
                held(Some(m))
            )
        }
        ("collision", "allocated") => {
            format!("allocated: {of}, allocated to the holder's registrant")
        }
        ("collision", "near") => {
            format!(
                "near: shares the index label of `{h_label}` but is a variant of it in neither direction"
            )
        }
        ("collision", "blocked") => format!("blocked: {of}{scripts}"),
        ("collision", "allocatable") => {
            format!("allocatable: {of}{scripts}; only the holder's registrant may have it")
        }
        ("collision", "invalid") => {
            format!("invalid variant: {of}{scripts}; {}", plain_reason(&reason))
        }
        (kind, role) => format!("{kind} {role}: {}", plain_reason(&reason)),
    }
}

/// The meta record as a definition list.
fn meta_list(meta: Option<&Value>) -> Markup {
    let Some(m) = meta else { return html! { p.note { "No meta record." } } };
    let s = |v: &Value| match v {
        Value::String(s) => shown(s),
        Value::Null => "—".into(),
        v => v.to_string(),
    };
    html! {
        dl.meta {
            dt { "lgrscan" } dd { (s(&m["lgrscan"])) }
            dt { "started" } dd { (s(&m["started"])) }
            @for inp in m["inputs"].as_array().into_iter().flatten() {
                dt { "input" }
                dd { span.mono { (s(&inp["path"])) } ", serial " span data-meta="soa-serial" { (s(&inp["soa_serial"])) }
                     ", " (s(&inp["size"])) " bytes, SHA-256 " span.mono { (clip(&s(&inp["sha256"]), 17)) } }
            }
            @for l in m["lgrs"].as_array().into_iter().flatten() {
                dt { "LGR" } dd { (s(&l["name"])) " version " (s(&l["version"])) ", " (s(&l["date"])) }
            }
            dt { "variant LGR" } dd { (s(&m["variant_lgr"]["name"])) }
            dt { "index mode" } dd { (s(&m["index_mode"])) }
        }
    }
}

fn label_cells(m: &Row) -> Markup {
    html! {
        td.label dir="auto" { bdi { (field(m, "ulabel")) } }
        td.mono { (field(m, "alabel")) }
    }
}

fn status_cell(m: &Row) -> Markup {
    let st = field(m, "status");
    html! { td class=(if st == "accepted" { "accepted" } else { "" }) { (st) } }
}

/// `file:line`, with the file and the line apart for the sort (a line
/// sorts as a number).
fn source_cell(m: &Row) -> Markup {
    let (file, line) = (field(m, "source"), field(m, "line"));
    html! { td.mono data-file=(file) data-line=(line) { (file) ":" (line) } }
}

/// Where a table's rows past [`MAX_TABLE_ROWS`] are to be found.
#[derive(Clone, Copy)]
enum FullList {
    /// A scan's page: its own JSON Lines or CSV report.
    Scan,
    /// A period report: `lgrscan diff` of the same two reports.
    Diff,
}

fn more_note(shown: usize, total: usize, full: FullList) -> Markup {
    let where_ = match full {
        FullList::Scan => "the full list is in the JSON Lines or CSV report",
        FullList::Diff => "the full list is in `lgrscan diff` of the same two reports",
    };
    html! {
        @if total > shown {
            p.note { "Showing " (shown) " of " (total) "; " (where_) "." }
        }
    }
}

/// The variant sets with a conflict: each group's members, with their
/// sentences.
fn groups_table(rows: &[Row], by_alabel: &HashMap<String, &Row>) -> Markup {
    let mut groups: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in rows.iter().filter(|r| field(r, "kind") == "collision") {
        let g = field(r, "group");
        match groups.last_mut() {
            Some((n, v)) if *n == g => v.push(r),
            _ => groups.push((g, vec![r])),
        }
    }
    let total = groups.len();
    html! {
        h2 { "Variant sets with conflicts (" span data-count="variant-sets" { (total) } ")" }
        @if groups.is_empty() { p.note { "None." } } @else {
            table {
                thead { tr { th { "role" } th { "label" } th { "A-label" } th { "what it means" } th { "disposition" } th { "status" } th { "source" } } }
                tbody {
                    @for (g, members) in groups.iter().take(MAX_TABLE_ROWS) {
                        tr.group { td colspan="7" { "group " (g) ", index label " span dir="auto" { (field(members[0], "index")) } } }
                        @for m in members {
                            @let role = field(m, "role");
                            tr data-row="collision" {
                                td class={"role-" (role)} { (role) }
                                (label_cells(m))
                                td { (sentence(m, by_alabel.get(&field(m, "holder")).copied())) }
                                td { (field(m, "disposition")) }
                                (status_cell(m))
                                (source_cell(m))
                            }
                        }
                    }
                }
            }
            (more_note(total.min(MAX_TABLE_ROWS), total, FullList::Scan))
        }
    }
}

/// A sortable table of rows of some kinds, with their sentences.
fn findings_table(
    title: &str,
    name: &str,
    rows: &[&Row],
    by_alabel: &HashMap<String, &Row>,
    full: FullList,
) -> Markup {
    html! {
        h2 { (title) " (" span data-count=(name) { (rows.len()) } ")" }
        @if rows.is_empty() { p.note { "None." } } @else {
            table.sortable {
                thead { tr { th { "label" } th { "A-label" } th { "what it means" } th { "LGR" } th { "status" } th { "source" } } }
                tbody {
                    @for m in rows.iter().take(MAX_TABLE_ROWS) {
                        tr data-row=(field(m, "kind")) {
                            (label_cells(m))
                            td { (sentence(m, by_alabel.get(&field(m, "holder")).copied())) }
                            td { (field(m, "lgr")) }
                            (status_cell(m))
                            (source_cell(m))
                        }
                    }
                }
            }
            (more_note(rows.len().min(MAX_TABLE_ROWS), rows.len(), full))
        }
    }
}

/// The holders' rows by A-label, for the sentences of their variants.
fn holders(rows: &[Row]) -> HashMap<String, &Row> {
    rows.iter().filter(|r| field(r, "role") == "holder").map(|r| (field(r, "alabel"), r)).collect()
}

/// Renders the report of one scan: meta, summary cards, charts (findings
/// by kind, script, LGR, and registrar when the input has one), the
/// variant sets with conflicts, the contract findings and the invalid
/// labels.
pub fn render_scan(report: &JsonlReport) -> String {
    let summary = report.summary.clone().unwrap_or(Value::Null);
    let problems: Vec<&Row> = report.rows.iter().filter(|r| is_problem_row(r)).collect();
    let by_kind: Vec<(String, u64)> = summary["findings"]["by_kind"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), count(v, &["open"]) + count(v, &["accepted"])))
        .collect();
    let by_script = tally(&problems, |r| script_of(&field(r, "ulabel")).to_string());
    let by_lgr = tally(&problems, |r| field(r, "lgr"));
    let has_registrar = report.rows.iter().any(|r| !field(r, "registrar").is_empty());
    let by_registrar = tally(&problems, |r| field(r, "registrar"));
    let by_alabel = holders(&report.rows);
    let contract: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| matches!(field(r, "kind").as_str(), "ns-mismatch" | "same-entity"))
        .collect();
    let invalid: Vec<&Row> = report.rows.iter().filter(|r| field(r, "kind") == "invalid").collect();
    let blocked: Vec<&Row> = report.rows.iter().filter(|r| field(r, "kind") == "blocked").collect();
    let s = |p: &[&str]| count(&summary, p);
    let zone =
        report.meta.as_ref().and_then(|m| m["inputs"][0]["path"].as_str()).unwrap_or("(input)");
    let zone = shown(zone);
    let apex =
        summary["apex"].as_str().map(|a| format!(" (apex {})", shown(a))).unwrap_or_default();
    let body = html! {
        h2 { "Run" }
        (meta_list(report.meta.as_ref()))
        h2 { "Summary" }
        div.cards {
            (card("labels", s(&["labels"]), "labels judged", ""))
            (card("idn-labels", s(&["idn_labels"]), "IDN labels", ""))
            (card("findings-total", s(&["findings", "total"]), "findings", ""))
            (card("findings-open", s(&["findings", "open"]), "open", if s(&["findings", "open"]) > 0 { "bad" } else { "ok" }))
            (card("findings-accepted", s(&["findings", "accepted"]), "accepted by the baseline", ""))
            (card("invalid", s(&["invalid"]), "invalid labels", ""))
            (card("blocked", s(&["blocked"]), "blocked labels (own disposition)", ""))
            (card("conflict-groups", s(&["conflict_groups"]), "variant sets with conflicts", ""))
            (card("conflicts", s(&["conflicts"]), "conflicting labels", ""))
            (card("ns-mismatch", s(&["ns_mismatch"]), "ns-mismatch", ""))
            (card("same-entity", s(&["same_entity"]), "same-entity", ""))
            (card("malformed", s(&["input", "malformed"]), "malformed lines", ""))
        }
        @if let Some(stale) = summary["stale_baseline_entries"].as_array().filter(|a| !a.is_empty()) {
            p { "Stale baseline entries (match no finding): " span data-count="stale" { (stale.len()) } }
        }
        h2 { "Findings" }
        div.charts {
            (bar_chart("by-kind", "Findings by kind", &by_kind, &[BAR_COLORS[1]]))
            (bar_chart("by-script", "Findings by script", &by_script, &[BAR_COLORS[0]]))
            (bar_chart("by-lgr", "Findings by LGR", &by_lgr, &[BAR_COLORS[3]]))
            @if has_registrar { (bar_chart("by-registrar", "Findings by registrar", &by_registrar, &[BAR_COLORS[4]])) }
        }
        (groups_table(&report.rows, &by_alabel))
        (findings_table("Contract findings", "contract", &contract, &by_alabel, FullList::Scan))
        (findings_table("Invalid labels", "invalid-rows", &invalid, &by_alabel, FullList::Scan))
        (findings_table("Blocked labels (own disposition)", "blocked-rows", &blocked, &by_alabel, FullList::Scan))
    };
    page("lgrscan compliance report", &format!("{zone}{apex}"), body)
}

/// Renders a period report: the two runs side by side, counts of new,
/// resolved and changed findings, a chart of new against resolved by kind,
/// and the tables of each.
pub fn render_period(d: &Diff) -> String {
    let side = |e: &Entry| e.new.clone().or_else(|| e.old.clone()).unwrap_or_default();
    let list =
        |c: Change| d.entries.iter().filter(|e| e.change == c).map(side).collect::<Vec<Row>>();
    let (new, resolved, changed) =
        (list(Change::New), list(Change::Resolved), list(Change::Changed));
    let mut kinds: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in &new {
        kinds.entry(field(r, "kind")).or_default().0 += 1;
    }
    for r in &resolved {
        kinds.entry(field(r, "kind")).or_default().1 += 1;
    }
    let new_by_kind: Vec<(String, u64)> =
        kinds.iter().map(|(k, v)| (format!("{k} new"), v.0)).collect();
    let resolved_by_kind: Vec<(String, u64)> =
        kinds.iter().map(|(k, v)| (format!("{k} resolved"), v.1)).collect();
    let totals = vec![
        ("new".to_string(), new.len() as u64),
        ("resolved".to_string(), resolved.len() as u64),
    ];
    let by_alabel = holders(&d.holders);
    let when = |m: &Option<Value>| {
        m.as_ref().and_then(|m| m["started"].as_str()).unwrap_or("?").to_string()
    };
    let body = html! {
        @if !d.warnings.is_empty() {
            div.warnings id="warnings" {
                h2 { "Warnings: these findings may not compare as they seem" }
                ul { @for w in &d.warnings { li { (w) } } }
            }
        }
        h2 { "Runs" }
        div.runs {
            div { h3 { "Earlier" } (meta_list(d.old_meta.as_ref())) }
            div { h3 { "Later" } (meta_list(d.new_meta.as_ref())) }
        }
        h2 { "Summary" }
        div.cards {
            (card("new", new.len() as u64, "new findings", if new.is_empty() { "ok" } else { "bad" }))
            (card("resolved", resolved.len() as u64, "resolved", "ok"))
            (card("changed", changed.len() as u64, "changed", ""))
            (card("unchanged", d.unchanged, "unchanged", ""))
        }
        div.charts {
            (bar_chart("new-vs-resolved", "New vs resolved", &totals, &[BAR_COLORS[1], BAR_COLORS[2]]))
            (bar_chart("new-by-kind", "New by kind", &new_by_kind, &[BAR_COLORS[1]]))
            (bar_chart("resolved-by-kind", "Resolved by kind", &resolved_by_kind, &[BAR_COLORS[2]]))
        }
        (findings_table("New findings", "new-rows", &new.iter().collect::<Vec<&Row>>(), &by_alabel, FullList::Diff))
        (findings_table("Resolved findings", "resolved-rows", &resolved.iter().collect::<Vec<&Row>>(), &by_alabel, FullList::Diff))
        (changed_table(d))
    };
    page("lgrscan period report", &format!("{} → {}", when(&d.old_meta), when(&d.new_meta)), body)
}

/// The changed findings: each changed field, old → new.
fn changed_table(d: &Diff) -> Markup {
    let changed: Vec<&Entry> = d.entries.iter().filter(|e| e.change == Change::Changed).collect();
    let get = |m: &Option<Row>, k: &str| m.as_ref().map(|m| field(m, k)).unwrap_or_default();
    html! {
        h2 { "Changed findings (" span data-count="changed-rows" { (changed.len()) } ")" }
        @if changed.is_empty() { p.note { "None." } } @else {
            table.sortable {
                thead { tr { th { "label" } th { "A-label" } th { "kind" } th { "what changed" } } }
                tbody {
                    @for e in changed.iter().take(MAX_TABLE_ROWS) {
                        tr data-row="changed" {
                            td.label dir="auto" { bdi { (get(&e.new, "ulabel")) } }
                            td.mono { (get(&e.new, "alabel")) }
                            td { (get(&e.new, "kind")) }
                            td { @for k in &e.changed { (k) ": " (get(&e.old, k)) " → " (get(&e.new, k)) br; } }
                        }
                    }
                }
            }
            (more_note(changed.len().min(MAX_TABLE_ROWS), changed.len(), FullList::Diff))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A period page's full list is `diff`'s, not a report's.
    #[test]
    fn a_cut_table_says_where_the_rest_is() {
        assert_eq!(more_note(5, 5, FullList::Diff).into_string(), "");
        let scan = more_note(2000, 2001, FullList::Scan).into_string();
        assert!(
            scan.contains("Showing 2000 of 2001; the full list is in the JSON Lines"),
            "{scan}"
        );
        let period = more_note(2000, 2001, FullList::Diff).into_string();
        assert!(period.contains("in `lgrscan diff` of the same two reports"), "{period}");
    }

    #[test]
    fn reasons_read_plainly() {
        assert_eq!(
            plain_reason("U+093C does not comply with rules 'follows-either-C1-V1-or-M1'"),
            "U+093C ‘\u{25CC}\u{93C}’ is not allowed here by the LGR's context rule 'follows-either-C1-V1-or-M1'"
        );
        assert_eq!(
            plain_reason(
                "action 1: disp=invalid match=digit-mixing \"a label mixing digits is invalid\""
            ),
            "a label mixing digits is invalid"
        );
        assert_eq!(plain_reason("U+200D CONTEXTJ fails"), "U+200D CONTEXTJ fails");
    }

    #[test]
    fn blocked_sentence_names_holder_and_scripts() {
        let row = |v: Value| ReportRow::from_record(v.as_object().unwrap()).unwrap();
        let h = row(
            serde_json::json!({"kind":"collision","role":"holder","ulabel":"123","alabel":"123",
            "registrant":"R-1001","registered":"2019-04-02T00:00:00Z"}),
        );
        let b = row(
            serde_json::json!({"kind":"collision","role":"blocked","ulabel":"१२३","holder":"123"}),
        );
        assert_eq!(
            sentence(&b, Some(&h)),
            "blocked: a variant of `\u{2068}123\u{2069}` (held by R-1001 since 2019-04-02): Devanagari ↔ Common"
        );
    }

    #[test]
    fn tables_stop_at_max_rows_and_say_so() {
        let n = MAX_TABLE_ROWS + 3;
        let rows = (0..n)
            .map(|i| {
                let v = serde_json::json!({"kind":"invalid","ulabel":format!("a_{i}"),"reason":"hyphen at end"});
                ReportRow::from_record(v.as_object().unwrap()).unwrap()
            })
            .collect();
        let page = render_scan(&JsonlReport { rows, ..JsonlReport::default() });
        assert_eq!(page.matches(r#"<tr data-row="invalid">"#).count(), MAX_TABLE_ROWS);
        assert!(page.contains(&format!(r#"data-count="invalid-rows">{n}<"#)));
        assert!(page.contains(&format!("Showing {MAX_TABLE_ROWS} of {n};")));
    }

    /// Bidirectional overrides and controls from the data are shown as
    /// escapes, as on a terminal: a registrar `U+202E evil` does not read
    /// `live`, and an invalid label with an override is not reordered.
    #[test]
    fn overrides_from_the_data_are_shown_escaped() {
        let row = |v: Value| ReportRow::from_record(v.as_object().unwrap()).unwrap();
        let rows = vec![
            row(serde_json::json!({"kind":"collision","role":"holder","ulabel":"123",
                "alabel":"123","group":1,"registrar":"\u{202e}evil\u{202c}"})),
            row(serde_json::json!({"kind":"collision","role":"blocked","ulabel":"१२३",
                "alabel":"xn--d4bpq","holder":"123","group":1,"registrar":"\u{202e}evil"})),
            row(serde_json::json!({"kind":"invalid","ulabel":"abc\u{202e}def\u{1b}[2J",
                "alabel":"abc\u{202e}def","reason":"x"})),
        ];
        let page = render_scan(&JsonlReport { rows, ..JsonlReport::default() });
        for c in ['\u{202e}', '\u{202c}', '\u{1b}'] {
            assert!(!page.contains(c), "{c:?} in the page");
        }
        assert!(page.contains("\\u{202e}evil"), "the registrar, escaped");
        assert!(page.contains("abc\\u{202e}def\\u{1b}[2J"), "the label, escaped");
    }
}
