//! `lgrscan serve`: `check` over HTTP (axum on tokio), against a saved
//! index that SIGHUP reloads atomically.
//!
//! - `GET /v1/check?label=L`: one row, the fields of `check --format jsonl`;
//! - `POST /v1/check`: a JSON array of labels, or of objects with `label`
//!   and optional `registrant`, `registrar`, `priority`; at most
//!   `--max-batch` of them and 1 MiB of body; an array of rows;
//! - `GET /v1/health`: the labels served, when their index was loaded and,
//!   when the last SIGHUP's reload failed, its error (`status`
//!   `reload-failed`: the index loaded before is still served); and
//!   whether the file at the index's path is still the one loaded
//!   (`index_file`: `loaded`, `replaced` by a rename, `missing`, or
//!   `changed-in-place`, answered 503: the mapped index was written over,
//!   or at least its change time moved: `touch` alone says so too);
//! - `GET /v1/index` (the header).
//!
//! The service's errors are JSON `{"error": …}` with a 4xx status;
//! requests that hyper refuses before they reach it (a malformed head:
//! 400, 414, 431) get hyper's bare status, hyper having no hook for them.
//! SIGHUP opens the index file again (a new file renamed into place) and
//! swaps it in once it has opened and its LGRs compiled; requests in
//! flight keep the one they started with. SIGTERM and SIGINT stop
//! accepting and finish the requests in flight, waiting at most
//! [`connections::SHUTDOWN_GRACE`] for them. A connection that stalls in a request's
//! head is closed after `--header-timeout`, a POST whose body stalls
//! answered 408 after `--body-timeout`, and one that stops reading its
//! answers closed after `--write-timeout`; at most `--max-connections`
//! are served at once ([`connections`]).
// Handlers return their error responses: built once per failed request,
// never on a hot path, so boxing them buys nothing.
#![allow(clippy::result_large_err)]

mod connections;

use anyhow::Context;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use lgrscan::index::Index;
use lgrscan::input::Timestamp;
use lgrscan::scan::LgrSet;
use lgrscan::sunrise::{self, Applicant, Candidate, CheckConfig, PlainJudge};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The saved index (`lgrscan index`); SIGHUP opens it again.
    #[arg(long)]
    index: PathBuf,
    /// Address to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8053")]
    listen: String,
    /// Most labels in one POST /v1/check.
    #[arg(long, default_value_t = 1000)]
    max_batch: usize,
    /// Which candidate of a batch wins a contention set, as for `check`.
    #[arg(long, value_enum, default_value = "input")]
    priority: super::sunrise::PriorityArg,
    /// Which registered label holds a variant set, as for `check`.
    #[arg(long, value_enum, default_value = "input")]
    holder: super::scan::Holder,
    /// Seconds a connection has to send a request's head (a new one, or
    /// one kept alive after an answer); then it is closed unanswered.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout: u64,
    /// Seconds a POST has to send its whole body once its head is in; then
    /// it is answered 408.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,
    /// Seconds an answer's write may make no progress (a client that stops
    /// reading); then the connection is closed.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    write_timeout: u64,
    /// Most connections served at once; more wait to be accepted.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,
}

/// An index, its compiled LGR set and the judge of plain labels, and when
/// it was loaded (RFC 3339, UTC).
struct Loaded {
    index: Index,
    set: LgrSet,
    plain: PlainJudge,
    at: String,
    /// The file as it was when loaded, which health compares with the
    /// file at the path now.
    file: FileState,
}

/// What tells one state of an index file from another: its inode, and
/// its size and change time (which any write sets, and no user can set
/// back, as `touch -r` or `cp -p` set the modification time).
#[derive(Clone, Copy, PartialEq, Eq)]
struct FileState {
    dev: u64,
    ino: u64,
    len: u64,
    ctime: (i64, i64),
}

impl FileState {
    fn of(path: &std::path::Path) -> std::io::Result<FileState> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path)?;
        Ok(FileState {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// Opens the index at `path`, every block checked (a damaged block is
/// refused here, at start or on SIGHUP, rather than found by a request),
/// and one that cannot serve `holder` refused.
fn load(path: &std::path::Path, holder: super::scan::Holder) -> anyhow::Result<Loaded> {
    let index = Index::open(path)?;
    index.verify().with_context(|| path.display().to_string())?;
    super::sunrise::holder_fits(holder, &index).with_context(|| path.display().to_string())?;
    // After the open: a file renamed into place in between reads as
    // replaced, and the next SIGHUP loads it.
    let file = FileState::of(path).with_context(|| path.display().to_string())?;
    let set = index.spec().compile()?;
    let plain = PlainJudge::new(&set);
    Ok(Loaded { index, set, plain, at: super::now_rfc3339(), file })
}

#[derive(Clone)]
struct AppState {
    loaded: Arc<RwLock<Arc<Loaded>>>,
    /// The last reload's error and when it failed, while no reload has
    /// succeeded since: the service then answers from the index loaded
    /// before, which its health tells.
    reload_failed: Arc<Mutex<Option<(String, String)>>>,
    /// The index's path, whose file health compares with the one loaded.
    index_path: Arc<PathBuf>,
    max_batch: usize,
    /// How long a POST has to send its whole body once its head is in.
    body_timeout: Duration,
    config: CheckConfig,
}

impl AppState {
    fn current(&self) -> Arc<Loaded> {
        match self.loaded.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// Bytes of a request body accepted.
const MAX_BODY: usize = 1 << 20;

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

pub fn run(args: Args) -> anyhow::Result<std::process::ExitCode> {
    let loaded = load(&args.index, args.holder)?;
    let config = super::sunrise::check_config(args.holder, args.priority);
    let loaded = Arc::new(RwLock::new(Arc::new(loaded)));
    let reload_failed = Arc::new(Mutex::new(None));
    let body_timeout = Duration::from_secs(args.body_timeout);
    let index_path = Arc::new(args.index.clone());
    let state = AppState {
        loaded,
        reload_failed,
        index_path,
        max_batch: args.max_batch,
        body_timeout,
        config,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(serve(args, state))?;
    Ok(std::process::ExitCode::SUCCESS)
}

async fn serve(args: Args, state: AppState) -> anyhow::Result<()> {
    let app = Router::new()
        .route("/v1/check", get(check_one).post(check_batch))
        .route("/v1/health", get(health))
        .route("/v1/index", get(index_header))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed on this endpoint")
        })
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    eprintln!("lgrscan: serving {} on http://{}", args.index.display(), listener.local_addr()?);
    let (path, holder) = (args.index.clone(), args.holder);
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let reload_state = state.clone();
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            let p = path.clone();
            let failed = match tokio::task::spawn_blocking(move || load(&p, holder)).await {
                Ok(Ok(new)) => {
                    let labels = new.index.labels();
                    match reload_state.loaded.write() {
                        Ok(mut g) => *g = Arc::new(new),
                        Err(p) => *p.into_inner() = Arc::new(new),
                    }
                    eprintln!("lgrscan: reloaded {} ({labels} labels)", path.display());
                    None
                }
                Ok(Err(e)) => Some(format!("{e:#}")),
                Err(e) => Some(e.to_string()),
            };
            if let Some(e) = &failed {
                eprintln!("lgrscan: reload failed, keeping the index: {e}");
            }
            let mut last = reload_state.reload_failed.lock().unwrap_or_else(|p| p.into_inner());
            *last = failed.map(|e| (super::now_rfc3339(), e));
        }
    });
    let limits = connections::Limits {
        header_timeout: Duration::from_secs(args.header_timeout),
        write_timeout: Duration::from_secs(args.write_timeout),
        max_connections: args.max_connections,
    };
    connections::serve(listener, app, limits).await
}

async fn health(State(state): State<AppState>) -> Response {
    let l = state.current();
    let last = state.reload_failed.lock().unwrap_or_else(|p| p.into_inner());
    let failed = last.as_ref().map(|(at, e)| json!({ "at": at, "error": e }));
    // The file loaded is mapped: a file renamed over its path leaves it
    // whole (SIGHUP loads the new one), but one written over in place
    // changes the answers under the service, or cuts them short.
    let index_file = match FileState::of(&state.index_path) {
        Ok(now) if now == l.file => "loaded",
        Ok(now) if (now.dev, now.ino) == (l.file.dev, l.file.ino) => "changed-in-place",
        Ok(_) => "replaced",
        Err(_) => "missing",
    };
    let status = match (index_file, failed.is_some()) {
        ("changed-in-place", _) => "index-changed-in-place",
        (_, true) => "reload-failed",
        _ => "ok",
    };
    let code = if index_file == "changed-in-place" {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    let body = json!({
        "status": status,
        "labels": l.index.labels(),
        "loaded_at": l.at,
        "index_file": index_file,
        "reload_error": failed,
    });
    (code, Json(body)).into_response()
}

async fn index_header(State(state): State<AppState>) -> Response {
    let l = state.current();
    let mut h = l.index.header().clone();
    h.insert("file_bytes".into(), l.index.file_len().into());
    Json(Value::Object(h)).into_response()
}

fn rows(candidates: &[Candidate<'_>], verdicts: &[sunrise::Verdict<'_>]) -> Vec<Value> {
    candidates.iter().zip(verdicts).map(|(c, v)| super::sunrise::row_json(c, v)).collect()
}

/// Checks candidates: on the spot when none needs a scan (most single
/// labels: a few look-ups in the mapped index), else on a blocking thread;
/// the rows as JSON.
async fn run_check(
    state: &AppState,
    candidates: Vec<Candidate<'static>>,
) -> Result<Vec<Value>, Response> {
    let (loaded, config) = (state.current(), state.config);
    let candidates = sunrise::without_suffixes(&loaded.index, candidates);
    let failed = |e: lgrscan::index::Error| error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string());
    if candidates.len() == 1 {
        let quick =
            sunrise::check_without_scan(&loaded.index, &loaded.set, &loaded.plain, &candidates);
        if let Some(verdicts) = quick.map_err(failed)? {
            return Ok(rows(&candidates, &verdicts));
        }
    }
    tokio::task::spawn_blocking(move || {
        let l = &*loaded;
        let verdicts = sunrise::check_with(&l.index, &l.set, &l.plain, &candidates, &config)
            .map_err(failed)?;
        Ok(rows(&candidates, &verdicts))
    })
    .await
    .map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

/// The longest label text a request may give, in bytes: an empty or
/// over-long label (one of 300 octets, or 90 Devanagari letters) is an
/// `invalid` row, as `check` gives it, not a refusal of its whole batch;
/// past this bound the text is no label of any zone, and refused.
const MAX_LABEL_TEXT: usize = 4096;

fn candidate(text: &str) -> Result<Candidate<'static>, Response> {
    let text = text.trim();
    if text.len() > MAX_LABEL_TEXT {
        let why = format!("a label is at most {MAX_LABEL_TEXT} bytes");
        return Err(error(StatusCode::BAD_REQUEST, why));
    }
    Ok(Candidate { text: text.to_string().into(), ..Candidate::default() })
}

async fn check_one(State(state): State<AppState>, RawQuery(query): RawQuery) -> Response {
    let labels = match query_labels(query.as_deref().unwrap_or("")) {
        Ok(l) => l,
        Err(r) => return r,
    };
    let [label] = labels.as_slice() else {
        let why = if labels.is_empty() {
            "missing label parameter"
        } else {
            "one label parameter (POST checks several)"
        };
        return error(StatusCode::BAD_REQUEST, why);
    };
    let c = match candidate(label) {
        Ok(c) => c,
        Err(r) => return r,
    };
    match run_check(&state, vec![c]).await {
        Ok(mut rows) => Json(rows.pop().unwrap_or(Value::Null)).into_response(),
        Err(r) => r,
    }
}

/// The `label` parameters of a query string (`application/x-www-form-
/// urlencoded`): percent-decoded strictly, so that octets that are not
/// UTF-8 are a 400, never a label with U+FFFD in their place (which
/// `axum`'s `Query` decodes them to).
fn query_labels(query: &str) -> Result<Vec<String>, Response> {
    let decode = |s: &str| {
        let s = s.replace('+', " ");
        percent_encoding::percent_decode_str(&s).decode_utf8().map(|d| d.into_owned()).map_err(
            |_| {
                error(StatusCode::BAD_REQUEST, "the query string is not UTF-8 once percent-decoded")
            },
        )
    };
    let mut labels = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if decode(key)? == "label" {
            labels.push(decode(value)?);
        }
    }
    Ok(labels)
}

/// The label and applicant of a batch item given as an object: its
/// fields are strings (or null) and known, so that a misspelt or mistyped
/// field is an error rather than a field ignored.
fn batch_item(fields: &serde_json::Map<String, Value>) -> Result<(String, Applicant), String> {
    let mut label = None;
    let mut applicant = Applicant::default();
    for (key, value) in fields {
        let text = match value {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            _ => return Err(format!("{key} is not a string")),
        };
        match key.as_str() {
            "label" => label = text,
            "registrant" => applicant.registrant = text,
            "registrar" => applicant.registrar = text,
            "priority" => {
                applicant.priority = text
                    .map(|p| Timestamp::parse_rfc3339(&p))
                    .transpose()
                    .map_err(|e| e.to_string())?;
            }
            _ => {
                return Err(format!(
                    "unknown field {key:?} (label, registrant, registrar, priority)"
                ));
            }
        }
    }
    Ok((label.ok_or("no label")?, applicant))
}

/// A request's body, whole: 413 at once when its `Content-Length` says
/// more than [`MAX_BODY`] (or once more has come), 408 when it has not all
/// come within `timeout` (a client that sends part of it, then nothing).
/// hyper closes the connection after either answer, the rest unread.
async fn read_body(body: axum::body::Body, timeout: Duration) -> Result<Bytes, Response> {
    use axum::body::HttpBody;
    use http_body_util::BodyExt;
    let too_large =
        || error(StatusCode::PAYLOAD_TOO_LARGE, format!("a body is at most {MAX_BODY} bytes"));
    if body.size_hint().lower() > MAX_BODY as u64 {
        return Err(too_large());
    }
    let whole = http_body_util::Limited::new(body, MAX_BODY).collect();
    match tokio::time::timeout(timeout, whole).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err(error(StatusCode::BAD_REQUEST, format!("the body was cut short: {e}"))),
        Err(_) => Err(error(
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not all come within {} s", timeout.as_secs()),
        )),
    }
}

/// `POST /v1/check`. The body is read as JSON whatever its `Content-Type`
/// says: `curl -d` sends `application/x-www-form-urlencoded`, and a JSON
/// body is the only one this endpoint takes.
async fn check_batch(State(state): State<AppState>, body: axum::body::Body) -> Response {
    let body = match read_body(body, state.body_timeout).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let items = match serde_json::from_slice(&body) {
        Ok(Value::Array(a)) => a,
        Ok(_) => return error(StatusCode::BAD_REQUEST, "the body is a JSON array of labels"),
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("the body is not JSON: {e}")),
    };
    if items.len() > state.max_batch {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("{} labels, at most {} in one request", items.len(), state.max_batch),
        );
    }
    let mut candidates = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let c = match item {
            Value::String(s) => candidate(s),
            Value::Object(fields) => batch_item(fields)
                .map_err(|e| error(StatusCode::BAD_REQUEST, format!("item {i}: {e}")))
                .and_then(|(label, applicant)| {
                    candidate(&label).map(|mut c| {
                        c.applicant = applicant.boxed();
                        c
                    })
                }),
            _ => Err(error(StatusCode::BAD_REQUEST, format!("item {i}: not a label"))),
        };
        match c {
            Ok(mut c) => {
                c.line = i as u64 + 1;
                candidates.push(c);
            }
            Err(r) => return r,
        }
    }
    match run_check(&state, candidates).await {
        Ok(rows) => Json(Value::Array(rows)).into_response(),
        Err(r) => r,
    }
}
