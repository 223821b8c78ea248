//! `lgrscan index` (build and inspect a saved index) and `lgrscan check`
//! (candidates against an index or inputs): flags to library calls.

use anyhow::Context;
use lgrscan::index::{self, Index, LgrSpec, ScanMode};
use lgrscan::input::{self, Input};
use lgrscan::report::meta::InputMeta;
use lgrscan::report::{Durability, FieldType, OutputFile, RecordFormat, RecordWriter};
use lgrscan::scan::HolderPolicy;
use lgrscan::sunrise::{self, Candidate, CheckConfig, Priority, Status, Verdict};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct IndexArgs {
    #[command(subcommand)]
    command: Option<IndexCommand>,
    #[command(flatten)]
    build: BuildArgs,
}

#[derive(clap::Subcommand, Debug)]
enum IndexCommand {
    /// Print an index's header and counts.
    Info {
        /// The index file.
        file: PathBuf,
        /// Also check every block's checksum (reads the whole file).
        #[arg(long)]
        verify: bool,
    },
}

#[derive(clap::Args, Debug)]
struct BuildArgs {
    /// Zone files, label lists or CSV files of the registered labels.
    #[arg(required = true)]
    inputs: Vec<String>,
    /// An LGR of the set, in order (repeatable), as for `scan`.
    #[arg(long = "lgr")]
    lgrs: Vec<String>,
    /// The variant LGR, as for `scan`.
    #[arg(long)]
    variants: Option<String>,
    /// How labels are grouped into variant sets, as for `scan`.
    #[arg(long, value_enum, default_value = "verified")]
    index_mode: super::ScanIndexModeArg,
    /// The index file to write (atomically).
    #[arg(long, short, required = true)]
    output: Option<PathBuf>,
    /// Worker threads, at most 1024 (default or 0: one per core).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    #[command(flatten)]
    input: super::InputArgs,
}

impl From<super::ScanIndexModeArg> for ScanMode {
    fn from(m: super::ScanIndexModeArg) -> ScanMode {
        match m {
            super::ScanIndexModeArg::Verified => ScanMode::Verified,
            super::ScanIndexModeArg::Reference => ScanMode::Reference,
            super::ScanIndexModeArg::Rfc7940 => ScanMode::Rfc7940,
        }
    }
}

pub fn run_index(args: IndexArgs) -> anyhow::Result<std::process::ExitCode> {
    match args.command {
        Some(IndexCommand::Info { file, verify }) => info(&file, verify),
        None => build(args.build),
    }
}

/// Where an index is written: told about how long it is first, and
/// perhaps able to take its first bytes last.
trait IndexSink: Write {
    fn expect(&mut self, len: u64);
    /// Whether [`IndexSink::write_at_start`] can be used.
    fn can_write_at_start(&self) -> bool;
    /// Writes `bytes` over the first bytes written.
    fn write_at_start(&mut self, bytes: &[u8]) -> std::io::Result<()>;
}

/// A file reserves the blocks ([`OutputFile::reserve`]); a pipe cannot
/// take its first bytes last.
impl IndexSink for OutputFile {
    fn expect(&mut self, len: u64) {
        self.reserve(len);
    }
    fn can_write_at_start(&self) -> bool {
        OutputFile::can_write_at_start(self)
    }
    fn write_at_start(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        OutputFile::write_at_start(self, bytes)
    }
}

/// Memory, at once: not by doublings, each a copy of all so far.
impl IndexSink for Vec<u8> {
    fn expect(&mut self, len: u64) {
        self.reserve(usize::try_from(len).unwrap_or(0));
    }
    fn can_write_at_start(&self) -> bool {
        true
    }
    fn write_at_start(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let start = self
            .get_mut(..bytes.len())
            .ok_or_else(|| std::io::Error::other("fewer bytes written than to write over"))?;
        start.copy_from_slice(bytes);
        Ok(())
    }
}

/// What [`build_into`] read: the label set, and its CSV rows whose `lgr`
/// pin names no LGR of the set (`file:line: reason`), which count as
/// malformed lines as in `scan`: such a label is invalid and holds no
/// variant set, so its variants would be `available` in every check.
struct Built {
    labels: input::LabelSet,
    unknown_pins: Vec<String>,
}

/// Reads `inputs` and writes their index to `out`, on the current pool.
fn build_into(
    out: &mut (dyn IndexSink + Send),
    inputs: &[String],
    input_args: &super::InputArgs,
    spec: &LgrSpec,
) -> anyhow::Result<Built> {
    let config = input_args.config()?;
    // The inputs' sizes and digests (each regular file read once more)
    // are computed by one thread of the pool while the others build, and
    // are only needed for the header: which is written last where it can
    // be, so that the data is written whichever of the two ends first.
    // `join` gives the build to another thread when one is free, and runs
    // the two one after the other when the pool has one thread.
    let digests = || super::input_facts(inputs);
    let build = || {
        let (set, labels) = rayon::join(
            || spec.compile(),
            || input::read(inputs.iter().map(|a| Input::from_arg(a)), &config),
        );
        let set = set?;
        let labels = labels.context("reading input")?;
        // Known once read; most zones include nothing.
        let included = InputMeta::of_included(&labels)?;
        if !out.can_write_at_start() {
            return anyhow::Ok((labels, set, included, None));
        }
        let prepared = index::prepare(&labels, &set)?;
        out.expect(prepared.len_hint());
        let mut w = std::io::BufWriter::new(&mut *out);
        let unsealed = prepared.write_unsealed(&mut w, spec, inputs, &included)?;
        w.flush()?;
        drop(w);
        drop(prepared);
        Ok((labels, set, included, Some(unsealed)))
    };
    let (infos, built) = rayon::join(digests, build);
    let (mut infos, (labels, set, included, unsealed)) = (infos?, built?);
    infos.extend(included);
    match unsealed {
        Some(unsealed) => out.write_at_start(&unsealed.seal(&infos)?)?,
        None => {
            // A pipe takes the header first: the data is written now.
            let prepared = index::prepare(&labels, &set)?;
            out.expect(prepared.len_hint());
            let mut w = std::io::BufWriter::new(out);
            prepared.write(&mut w, spec, &infos)?;
            w.flush()?;
        }
    }
    let unknown_pins = lgrscan::report::scan::unknown_pins(&labels, &set);
    Ok(Built { labels, unknown_pins })
}

fn build(args: BuildArgs) -> anyhow::Result<std::process::ExitCode> {
    let output = args.output.as_deref().expect("required by clap");
    let reads = super::read_paths(&args.inputs, &args.lgrs, args.variants.as_deref());
    let mut file = super::ReportFile::create(output, &reads)?;
    // The writer copies into a file with other hard links in place, so
    // that every link sees it; an index is mapped by `serve` and `check`,
    // and written over in place it changes under them (renamed over, it
    // would leave the other links with the old index unsaid). The file
    // created so far is dropped unused.
    if let Some(links) = file.writer().copied_into_links() {
        anyhow::bail!(
            "{}: has {links} hard links; an index is never rewritten in place (a running serve \
             maps it): remove its other links, or write the index elsewhere and rename it",
            output.display()
        );
    }
    let spec = LgrSpec::from_flags(&args.lgrs, args.variants.as_deref(), args.index_mode.into())?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let built = pool.install(|| build_into(file.writer(), &args.inputs, &args.input, &spec))?;
    let labels = built.labels;
    file.spare_sources(&labels)?;
    // An index that lacks dropped lines is not put in place (the file
    // named keeps what it had): `check` and `serve` would answer from it
    // as if it were whole. `--on-malformed warn|ignore` accepts them.
    args.input
        .malformed_outcome(&labels, &built.unknown_pins)
        .map_err(|e| e.context(format!("{} was not written", output.display())))?;
    file.commit(Durability::Rename)?;
    std::mem::forget(labels);
    Ok(std::process::ExitCode::SUCCESS)
}

fn info(path: &Path, verify: bool) -> anyhow::Result<std::process::ExitCode> {
    let index = Index::open(path)?;
    if verify {
        index.verify()?;
    }
    let mut header = index.header().clone();
    header.remove("sections");
    header.insert("file_bytes".into(), index.file_len().into());
    if verify {
        header.insert("verified".into(), true.into());
    }
    let mut out = super::stdout();
    super::output_done((|| {
        serde_json::to_writer_pretty(&mut out, &header)?;
        writeln!(out)?;
        out.flush()?;
        anyhow::Ok(())
    })())?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Refuses `--holder registered` with an index none of whose labels has a
/// `registered` date (`check`, `serve`): every set's holder would be its
/// first registered label in input order, as without the option, unsaid
/// (as `scan` refuses it).
pub fn holder_fits(holder: super::scan::Holder, index: &Index) -> anyhow::Result<()> {
    if holder == super::scan::Holder::Registered && index.dated_labels() == Some(0) {
        anyhow::bail!(
            "--holder registered: no registered label has a registration date, in a CSV \
             `registered` column; drop it to let input order decide"
        );
    }
    Ok(())
}

/// The options of a check (`check`, `serve`).
pub fn check_config(holder: super::scan::Holder, priority: PriorityArg) -> CheckConfig {
    CheckConfig {
        holder: match holder {
            super::scan::Holder::Input => HolderPolicy::Input,
            super::scan::Holder::Registered => HolderPolicy::Registered,
        },
        priority: match priority {
            PriorityArg::Input => Priority::Input,
            PriorityArg::Date => Priority::Date,
        },
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorityArg {
    /// The first candidate in input order wins a contention set.
    Input,
    /// The earliest `priority` date wins (candidates without one last).
    Date,
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Candidate files: a label list, or a CSV with a `label` column and
    /// optional `registrant`, `registrar` and `priority` columns.
    candidates: Vec<PathBuf>,
    /// A candidate label (repeatable), after those of the files.
    #[arg(long = "label")]
    labels: Vec<String>,
    /// The registered labels: one saved index, or inputs (repeatable) to
    /// index in memory.
    #[arg(long, required = true)]
    against: Vec<String>,
    /// LGRs (repeatable): with an index, they must be the ones it was
    /// built with; with inputs, as for `scan`.
    #[arg(long = "lgr")]
    lgrs: Vec<String>,
    /// The variant LGR, as for `scan` (checked against an index's).
    #[arg(long)]
    variants: Option<String>,
    /// The grouping, as for `scan` (default: verified, or the index's).
    #[arg(long, value_enum)]
    index_mode: Option<super::ScanIndexModeArg>,
    /// Which candidate wins a contention set.
    #[arg(long, value_enum, default_value = "input")]
    priority: PriorityArg,
    /// Which registered label holds a variant set, as for `scan`.
    #[arg(long, value_enum, default_value = "input")]
    holder: super::scan::Holder,
    /// Output format (default: text on a terminal, csv otherwise).
    #[arg(long, value_enum)]
    format: Option<CheckFormat>,
    /// Write the rows here (atomically).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Worker threads, at most 1024 (default or 0: one per core).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    #[command(flatten)]
    input: super::InputArgs,
}

const FIELDS: &[&str] = &[
    "source",
    "line",
    "label",
    "alabel",
    "ulabel",
    "status",
    "set",
    "holder",
    "holder_source",
    "holder_line",
    "holder_registrant",
    "same_registrant",
    "disposition",
    "mapping",
    "lgr",
    "reason",
];

/// How each of [`FIELDS`] is written in JSON Lines: numbers as numbers and
/// absent values as `null`, as `scan` writes its rows (#30 item 6).
const TYPES: &[FieldType] = &[
    FieldType::Optional, // source
    FieldType::Number,   // line
    FieldType::Text,     // label
    FieldType::Text,     // alabel
    FieldType::Text,     // ulabel
    FieldType::Text,     // status
    FieldType::Number,   // set
    FieldType::Optional, // holder
    FieldType::Optional, // holder_source
    FieldType::Number,   // holder_line
    FieldType::Optional, // holder_registrant
    FieldType::Optional, // same_registrant
    FieldType::Optional, // disposition
    FieldType::Optional, // mapping
    FieldType::Optional, // lgr
    FieldType::Optional, // reason
];

/// Whether `path` is a saved index: a regular file that starts with its
/// magic bytes, or with a part of them (an index cut that short is then
/// refused as truncated, not read as a list of one label). Only a regular
/// file is looked at: the bytes of a pipe read here would be lost to the
/// input reader (and an index is mapped, so it is a regular file).
fn is_index(path: &str) -> bool {
    let mut head = Vec::with_capacity(8);
    // `-` is standard input, never a file of that name.
    path != "-"
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 8), &mut head))
            .is_ok_and(|n| n > 0 && index::format::MAGIC.starts_with(&head))
}

/// Refuses what would check the candidates against less than the registry
/// named: standard input named twice (the candidates, read first, leave
/// the registry nothing), or an empty file as the registry (a failed copy
/// of an index or an export; `serve` refuses it too), which would make
/// every candidate `available`. A registry with no label yet (pre-launch)
/// is a list of comment lines.
fn registry_given(args: &CheckArgs) -> anyhow::Result<()> {
    let stdin = args.against.iter().map(String::as_str);
    let stdin = stdin.chain(args.candidates.iter().filter_map(|p| p.to_str()));
    if stdin.filter(|p| *p == "-").count() > 1 {
        anyhow::bail!("standard input (-) is named twice: it can be read once");
    }
    if args.against.len() > 1
        && let Some(idx) = args.against.iter().find(|p| is_index(p))
    {
        // It would be read as a list of odd names.
        anyhow::bail!("{idx} is a saved index: give it alone to --against");
    }
    for path in args.against.iter().filter(|p| *p != "-") {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            anyhow::bail!(
                "{path} is empty: neither an index nor a registry (a registry with no label \
                 yet is a list with a comment line, e.g. `# no names yet`)"
            );
        }
    }
    Ok(())
}

/// Refuses the flags of how inputs are read when the registry is a saved
/// index, which was read as it was built: they would be silently unused,
/// and `--against INPUT` would answer otherwise. `--origin` may name the
/// index's apex (its candidates' names are read under it).
fn input_flags_fit(input: &super::InputArgs, index: &Index) -> anyhow::Result<()> {
    if input.input_format.is_some() || input.delimiter.is_some() {
        anyhow::bail!(
            "--input-format and --delimiter say how inputs are read, not a saved index: give \
             them to `index` (or with --against INPUT)"
        );
    }
    match (&input.origin, index.apex()) {
        (Some(origin), Some(apex)) if !sunrise::same_apex(origin, apex) => {
            anyhow::bail!("--origin {origin} given, the index was built for the zone {apex}")
        }
        (Some(origin), None) => anyhow::bail!(
            "--origin {origin} given, the index was built with no apex (from bare labels): \
             build it with --origin {origin}"
        ),
        _ => Ok(()),
    }
}

/// `check --format`: `scan`'s formats but HTML (one row per candidate).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFormat {
    /// One line per candidate, for people.
    Text,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON object per candidate.
    Jsonl,
}

pub fn run_check(args: CheckArgs) -> anyhow::Result<std::process::ExitCode> {
    registry_given(&args)?;
    // The output first: a path that cannot be written is an error before
    // anything is read (a candidate FIFO or standard input may wait).
    let mut reads = super::read_paths(&args.against, &args.lgrs, args.variants.as_deref());
    reads.extend(args.candidates.iter().map(PathBuf::as_path));
    let mut output =
        args.output.as_deref().map(|p| super::ReportFile::create(p, &reads)).transpose()?;
    // Read whole first: the candidates borrow their text from them.
    let files = (args.candidates.iter())
        .map(|path| super::read_whole(path))
        .collect::<anyhow::Result<Vec<Vec<u8>>>>()?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let mut candidates = Vec::new();
    let mut sources = CandidateSources::default();
    for (path, bytes) in args.candidates.iter().zip(&files) {
        let name = path.display().to_string();
        let read = pool.install(|| sunrise::read_candidates(&name, bytes))?;
        if candidates.is_empty() {
            candidates = read;
        } else {
            candidates.extend(read);
        }
        sources.ends.push((candidates.len(), name));
    }
    candidates
        .extend(args.labels.iter().map(|l| Candidate { text: l.into(), ..Candidate::default() }));
    if candidates.is_empty() {
        if args.candidates.is_empty() {
            anyhow::bail!("no candidate: give candidate files or --label");
        }
        let files: Vec<String> = args.candidates.iter().map(|p| p.display().to_string()).collect();
        anyhow::bail!("no candidate in {}: a check needs at least one", files.join(", "));
    }
    if args.priority == PriorityArg::Date
        && candidates.len() > 1
        && candidates.iter().all(|c| c.priority().is_none())
    {
        // Every contention set would fall back to input order unsaid.
        anyhow::bail!(
            "--priority date: no candidate has a priority date (a `priority` or `priority_date` \
             column of a candidate CSV); drop it to let input order decide"
        );
    }
    let given = (!args.lgrs.is_empty() || args.variants.is_some()).then(|| {
        let m = args.index_mode.unwrap_or_default();
        LgrSpec::from_flags(&args.lgrs, args.variants.as_deref(), m.into())
    });
    let index = if args.against.len() == 1 && is_index(&args.against[0]) {
        let index = Index::open(Path::new(&args.against[0]))?;
        input_flags_fit(&args.input, &index)?;
        if let Some(given) = given {
            index.spec().must_match(&given?).context("--lgr or --variants with an index")?;
        }
        if let Some(m) = args.index_mode.map(ScanMode::from)
            && m != index.spec().mode
        {
            anyhow::bail!(
                "--index-mode {} given, the index was built with {}",
                m.as_str(),
                index.spec().mode.as_str()
            );
        }
        let n = index.malformed_lines();
        if n > 0 {
            // As a scan that accepted them warns (`--on-malformed warn`).
            eprintln!(
                "lgrscan: warning: {} was built accepting {n} malformed input line{} (left out, \
                 or rows whose lgr pin names no LGR, kept as invalid): a label registered on one \
                 may not hold its variant set, and its variants may read as available",
                args.against[0],
                if n == 1 { "" } else { "s" }
            );
        }
        index
    } else {
        let spec = match given {
            Some(s) => s?,
            None => LgrSpec::from_flags(&[], None, args.index_mode.unwrap_or_default().into())?,
        };
        let mut bytes = Vec::new();
        let built = pool.install(|| build_into(&mut bytes, &args.against, &args.input, &spec))?;
        if let Some(file) = &output {
            file.spare_sources(&built.labels)?;
        }
        args.input.malformed_outcome(&built.labels, &built.unknown_pins)?;
        Index::from_bytes(bytes)?
    };
    holder_fits(args.holder, &index)?;
    let set = index.spec().compile()?;
    let config = check_config(args.holder, args.priority);
    // Names in the zone's form (`newbrand.example.`) are checked as the
    // scan reads them: by their label.
    let candidates = sunrise::without_suffixes(&index, candidates);
    let verdicts = pool.install(|| sunrise::check(&index, &set, &candidates, &config))?;
    let format =
        args.format.unwrap_or(if args.output.is_none() && std::io::stdout().is_terminal() {
            CheckFormat::Text
        } else {
            CheckFormat::Csv
        });
    let write = |w: &mut dyn Write| write_rows(w, format, &candidates, &sources, &verdicts, &pool);
    match output.take() {
        Some(mut file) => {
            write(file.writer())?;
            file.commit(Durability::Rename)?;
        }
        None => super::output_done((|| {
            let mut out = super::stdout();
            write(&mut out)?;
            out.flush()?;
            anyhow::Ok(())
        })())?,
    }
    let all_available = verdicts.iter().all(|v| v.status == Status::Available);
    // The process ends here: freeing a million candidates and verdicts
    // string by string takes longer than the system reclaiming the whole.
    std::mem::forget(verdicts);
    std::mem::forget(candidates);
    Ok(std::process::ExitCode::from(if all_available { 0 } else { 1 }))
}

/// `U+0967 DEVANAGARI DIGIT ONE ↔ U+0031 DIGIT ONE`, the replacements
/// joined by `; `, or `identical`.
fn mapping_text(v: &Verdict) -> String {
    let Some(pairs) = v.detail().mapping.as_ref() else { return String::new() };
    let side = |cps: &[u32]| {
        cps.iter()
            .map(|&c| {
                let name = char::from_u32(c)
                    .and_then(unicode_names2::name)
                    .map(|n| format!(" {n}"))
                    .unwrap_or_default();
                format!("U+{c:04X}{name}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    if pairs.is_empty() {
        return "identical".into();
    }
    let pairs: Vec<String> =
        pairs.iter().map(|(a, b)| format!("{} ↔ {}", side(a), side(b))).collect();
    pairs.join("; ")
}

/// The candidate files of a check: each file's name, after the position
/// of its last candidate, in order (the candidates of `--label` follow
/// the last, from no file).
#[derive(Default)]
struct CandidateSources {
    ends: Vec<(usize, String)>,
}

impl CandidateSources {
    /// The file of the candidate at `position`, or `""`.
    fn of(&self, position: usize) -> &str {
        let k = self.ends.partition_point(|(end, _)| *end <= position);
        self.ends.get(k).map_or("", |(_, name)| name)
    }
}

/// A row's values, borrowed where they can be (a million rows are
/// written in a fraction of a second), of the candidate at `position`
/// (its file, and a candidate holder's, from `sources`).
fn fields<'a>(
    sources: &'a CandidateSources,
    position: usize,
    c: &'a Candidate<'_>,
    v: &'a Verdict<'_>,
) -> [Cow<'a, str>; 16] {
    let (h, d) = (v.holder.as_deref(), v.detail());
    let text = |s: Option<&'a str>| Cow::Borrowed(s.unwrap_or(""));
    let number = |n: Option<u64>| n.map_or(Cow::Borrowed(""), |n| Cow::Owned(n.to_string()));
    // A candidate holder's file, or `candidate` for one of `--label` (or
    // of a request to `serve`), which has no file.
    let holder_source = |h: &'a sunrise::Holder<'_>| match h.candidate {
        Some(k) => Some(sources.of(k)).filter(|s| !s.is_empty()).unwrap_or("candidate"),
        None => &*h.source,
    };
    [
        Cow::Borrowed(sources.of(position)),
        number((c.line != 0).then_some(c.line)),
        Cow::Borrowed(&c.text),
        Cow::Borrowed(&v.alabel),
        Cow::Borrowed(&v.ulabel),
        Cow::Borrowed(v.status.as_str()),
        number(v.set.map(u64::from)),
        text(h.map(|h| &*h.ulabel)),
        text(h.map(holder_source)),
        number(h.map(|h| h.line).filter(|&n| n != 0)),
        text(h.and_then(|h| h.registrant.as_deref())),
        text(d.same_registrant.map(|s| s.as_str())),
        Cow::Borrowed(&d.disposition),
        if d.mapping.is_some() { Cow::Owned(mapping_text(v)) } else { Cow::Borrowed("") },
        Cow::Borrowed(&d.lgr),
        Cow::Borrowed(&d.reason),
    ]
}

/// A row as a JSON object, as `--format jsonl` writes it, of a candidate
/// from no file (`source` null).
pub fn row_json(c: &Candidate<'_>, v: &Verdict<'_>) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    let no_files = CandidateSources::default();
    for ((k, t), val) in FIELDS.iter().zip(TYPES).zip(fields(&no_files, 0, c, v)) {
        m.insert((*k).to_string(), t.json(&val));
    }
    serde_json::Value::Object(m)
}

/// Rows per block formatted by one task of [`write_records`].
const ROW_BLOCK: usize = 4096;
/// Blocks formatted at a time (and held, formatted, until written).
const ROW_BLOCKS_HELD: usize = 64;

/// Writes the rows as CSV or JSON Lines: formatted block by block on the
/// pool's threads, written in order (a million rows are as many as the
/// check takes to find).
fn write_records(
    w: &mut dyn Write,
    format: RecordFormat,
    candidates: &[Candidate<'_>],
    sources: &CandidateSources,
    verdicts: &[Verdict],
    pool: &rayon::ThreadPool,
) -> std::io::Result<()> {
    RecordWriter::typed(&mut *w, format, FIELDS, TYPES, true)?.finish()?;
    let held = ROW_BLOCK * ROW_BLOCKS_HELD;
    for (k, (cs, vs)) in candidates.chunks(held).zip(verdicts.chunks(held)).enumerate() {
        let blocks: Vec<std::io::Result<Vec<u8>>> = pool.install(|| {
            cs.par_chunks(ROW_BLOCK)
                .zip(vs.par_chunks(ROW_BLOCK))
                .enumerate()
                .map(|(b, (cs, vs))| {
                    let first = k * held + b * ROW_BLOCK;
                    let mut out = Vec::new();
                    let mut rw = RecordWriter::typed(&mut out, format, FIELDS, TYPES, false)?;
                    for (i, (c, v)) in cs.iter().zip(vs).enumerate() {
                        let row = fields(sources, first + i, c, v);
                        rw.write(&row.each_ref().map(|f| &**f))?;
                    }
                    rw.finish()?;
                    Ok(out)
                })
                .collect()
        });
        for block in blocks {
            w.write_all(&block?)?;
        }
    }
    Ok(())
}

fn write_rows(
    w: &mut dyn Write,
    format: CheckFormat,
    candidates: &[Candidate<'_>],
    sources: &CandidateSources,
    verdicts: &[Verdict],
    pool: &rayon::ThreadPool,
) -> anyhow::Result<()> {
    let record = match format {
        CheckFormat::Text => None,
        CheckFormat::Csv => Some(RecordFormat::Csv),
        CheckFormat::Jsonl => Some(RecordFormat::Jsonl),
    };
    match record {
        Some(f) => write_records(w, f, candidates, sources, verdicts, pool)?,
        None => {
            for (k, (c, v)) in candidates.iter().zip(verdicts).enumerate() {
                // The text names neither the candidate's file nor its
                // line: rows follow the candidates in order.
                let f = fields(sources, k, c, v);
                let f = &f[1..];
                let mut line = format!("{}  {}", f[1], f[4]);
                if !f[5].is_empty() {
                    line += &format!(" (set {})", f[5]);
                }
                if !f[6].is_empty() {
                    line += &format!("  holder {} ({}", f[6], f[7]);
                    if !f[8].is_empty() {
                        line += &format!(":{}", f[8]);
                    }
                    if !f[9].is_empty() {
                        line += &format!(", registrant {}", f[9]);
                    }
                    line += ")";
                }
                if !f[10].is_empty() {
                    line += &format!("  same registrant: {}", f[10]);
                }
                if !f[12].is_empty() {
                    line += &format!("  {}", f[12]);
                }
                if v.status == Status::Invalid || v.status == Status::VariantBlocked {
                    line += &format!("  {}", f[14]);
                }
                writeln!(w, "{}", lgrscan::report::escape_for_terminal(&line))?;
            }
        }
    }
    Ok(())
}
