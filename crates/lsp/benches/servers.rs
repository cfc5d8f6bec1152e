//! The language servers as the code tools drive them (this crate's `Pool` and `Server`),
//! beside the same server driven by a bare LSP client (`scripts/lsp_bare.py bench`), on the
//! same sample project and the same query, in the same command:
//!
//!     cargo bench -p resolve-pr-lsp --bench servers [-- --runs 20 --only rust,python]
//!
//! Per installed server (found as the product finds them: `RESOLVE_PR_LSP_PATH`, then `PATH`),
//! with the query taken from `tests/fixtures/code/<language>.expected.json` (its first
//! `find_definition` at a position):
//! - cold: seconds from `Pool::server` in a fresh pool (which starts the server and
//!   initializes it; its version command runs only when a start fails) to the first `definition` answer equal to the expected
//!   locations, asking again after the bare client's retry pause while the answer is wrong;
//!   and to the first answer naming any location, which is what the bare client counts (its
//!   figure is seconds from spawn to its first non-empty answer: clangd names the header's
//!   declaration before its index has seen the definition);
//! - warm: median `definition` and `references` latency over `--runs` questions, once the
//!   server says it is no longer indexing;
//! - peak resident memory of the server's process group, sampled every 50 ms
//!   (`Client::resident_bytes`) from the moment the pool hands the server out until the last
//!   warm question.
//!
//! Then the bare client runs the same server binary with the same arguments on a fresh copy
//! of the project, at the same position, and the table shows ours, bare and ours/bare per
//! figure. One JSON line per server follows, with every figure. Times are single runs on a
//! shared machine; only the ratios are meant to be read, and those loosely.
//!
//! Options: `--runs N` (default 20), `--only LANG[,LANG]` (rust, typescript, python, c, go),
//! `--timeout SECONDS` (default 120, for each server to give the expected answer),
//! `--no-bare` (ours only), `--verbose` (each cold attempt of ours on stderr). Exit status 1
//! when a server was installed but a measurement failed, 2 on bad arguments.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints its figures"
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use resolve_pr_lsp::client::Client;
use resolve_pr_lsp::servers::{self, Installed};
use resolve_pr_lsp::{Language, Loc, Pool, PoolConfig, Pos};
use serde_json::{Value, json};

/// How long the bare client waits before asking again (`time.sleep(0.1)` in its bench loop);
/// ours waits the same, so neither gains by polling faster.
const RETRY_PAUSE: Duration = Duration::from_millis(100);
/// Memory is sampled this often, as the bare client samples it.
const SAMPLE_EVERY: Duration = Duration::from_millis(50);
/// Before the warm questions, the bare client waits until no progress is open and nothing
/// changed for this long; ours waits for the server to say it is ready, then as long.
const QUIET: Duration = Duration::from_millis(500);

struct Options {
    runs: usize,
    only: Option<Vec<Language>>,
    timeout: Duration,
    bare: bool,
    /// Each cold attempt on stderr: when it was asked, how long it took, what it answered.
    verbose: bool,
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut options = Options {
        runs: 20,
        only: None,
        timeout: Duration::from_secs(120),
        bare: true,
        verbose: false,
    };
    let mut benching = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (arg, None),
        };
        let mut value = || -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name {
            // cargo bench passes --bench; cargo test --benches does not.
            "--bench" => benching = true,
            "--runs" => {
                let v = value()?;
                options.runs = v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    format!("--runs must be a whole number of at least 1, not {v:?}")
                })?;
            }
            "--only" => {
                let v = value()?;
                let mut langs = options.only.take().unwrap_or_default();
                for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let lang = Language::from_name(part).ok_or_else(|| {
                        format!("--only: unknown language {part:?}; one of rust, typescript, python, c, go")
                    })?;
                    if !langs.contains(&lang) {
                        langs.push(lang);
                    }
                }
                if langs.is_empty() {
                    return Err("--only names no language".to_owned());
                }
                options.only = Some(langs);
            }
            "--timeout" => {
                let v = value()?;
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| {
                        format!("--timeout must be a positive number of seconds, not {v:?}")
                    })?;
                options.timeout = Duration::from_secs_f64(secs);
            }
            "--no-bare" => options.bare = false,
            "--verbose" => options.verbose = true,
            "-h" | "--help" => {
                println!(
                    "cargo bench -p resolve-pr-lsp --bench servers [-- --runs N] [--only LANG[,LANG]] [--timeout SECONDS] [--no-bare] [--verbose]"
                );
                return Ok(None);
            }
            _ => return Err(format!("unknown argument {arg:?} (try --help)")),
        }
        i += 1;
    }
    if !benching {
        println!(
            "servers: not measured outside `cargo bench` (it starts every installed language server); run `cargo bench -p resolve-pr-lsp --bench servers`"
        );
        return Ok(None);
    }
    Ok(Some(options))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse_args(&args) {
        Ok(Some(o)) => o,
        Ok(None) => return,
        Err(e) => {
            eprintln!("servers bench: {e}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("servers bench: no tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let failed = runtime.block_on(run(&options));
    if failed {
        std::process::exit(1);
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The query of one language: its file, position and expected answer.
struct Query {
    name: String,
    file: String,
    pos: Pos,
    expected: BTreeSet<(String, u32)>,
}

/// The first `find_definition` with a position in a language's expectations file.
fn load_query(language: Language) -> Result<Query, String> {
    let path = repo_root()
        .join("tests/fixtures/code")
        .join(format!("{}.expected.json", language.as_str()));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let queries = doc["queries"]
        .as_array()
        .ok_or_else(|| format!("{} has no \"queries\" list", path.display()))?;
    let q = queries
        .iter()
        .find(|q| q["tool"] == "find_definition" && q["args"]["position"].is_object())
        .ok_or_else(|| {
            format!(
                "{} has no find_definition query with a position",
                path.display()
            )
        })?;
    let number = |v: &Value, what: &str| -> Result<u32, String> {
        v.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("{}: {what} is not a line or column number", path.display()))
    };
    let file = q["args"]["file_path"]
        .as_str()
        .ok_or_else(|| format!("{}: the query has no file_path", path.display()))?
        .to_owned();
    let pos = Pos {
        line: number(&q["args"]["position"]["line"], "position.line")?,
        character: number(&q["args"]["position"]["character"], "position.character")?,
    };
    let mut expected = BTreeSet::new();
    for loc in q["expect"]["locations"].as_array().into_iter().flatten() {
        let f = loc["file_path"]
            .as_str()
            .ok_or_else(|| format!("{}: an expected location has no file_path", path.display()))?;
        expected.insert((f.to_owned(), number(&loc["line"], "expected line")?));
    }
    if expected.is_empty() {
        return Err(format!(
            "{}: the query {:?} expects no location",
            path.display(),
            q["name"]
        ));
    }
    Ok(Query {
        name: q["name"].as_str().unwrap_or("").to_owned(),
        file,
        pos,
        expected,
    })
}

/// A fresh copy of a sample project in a temporary directory, with C's compile database
/// written for the copy's absolute path; the copy's canonical path.
fn copy_project(language: Language) -> Result<(tempfile::TempDir, PathBuf), String> {
    let src = repo_root()
        .join("tests/fixtures/code")
        .join(language.as_str());
    if !src.is_dir() {
        return Err(format!("no sample project at {}", src.display()));
    }
    let dir = tempfile::Builder::new()
        .prefix("lsp-bench-")
        .tempdir()
        .map_err(|e| format!("no temporary directory: {e}"))?;
    let root = dir
        .path()
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.path().display()))?;
    copy_dir(&src, &root).map_err(|e| format!("copying {}: {e}", src.display()))?;
    let template = root.join("compile_commands.json.in");
    if template.is_file() {
        let text = std::fs::read_to_string(&template)
            .map_err(|e| format!("{}: {e}", template.display()))?;
        let db = root.join("compile_commands.json");
        std::fs::write(&db, text.replace("@DIR@", &root.display().to_string()))
            .map_err(|e| format!("{}: {e}", db.display()))?;
    }
    Ok((dir, root))
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        // What servers and builds leave in a project (a fixture run in place may have them).
        if [
            "target",
            ".cache",
            "node_modules",
            "__pycache__",
            "compile_commands.json",
        ]
        .iter()
        .any(|n| name == *n)
        {
            continue;
        }
        let dest = to.join(&name);
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&dest)?;
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

/// Peak resident memory of a server's process group, sampled on its own thread.
struct Sampler {
    peak: Arc<AtomicU64>,
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Sampler {
    fn start(client: Client) -> Sampler {
        let peak = Arc::new(AtomicU64::new(0));
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let seen = peak.clone();
        let thread = std::thread::spawn(move || {
            loop {
                seen.fetch_max(client.resident_bytes(), Ordering::Relaxed);
                match stopped.recv_timeout(SAMPLE_EVERY) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
        });
        Sampler { peak, stop, thread }
    }

    /// Stops sampling; the peak in bytes.
    fn finish(self) -> u64 {
        let _ = self.stop.send(());
        let _ = self.thread.join();
        self.peak.load(Ordering::Relaxed)
    }
}

/// The figures of one run through our pool.
struct Ours {
    /// `Pool::server` returned: started and initialized (part of `cold`).
    started_s: f64,
    /// The first answer that named any location, right or wrong.
    first_answer_s: Option<f64>,
    /// What the first answer named, when it was not the expected one.
    first_wrong: Option<BTreeSet<(String, u32)>>,
    cold_s: f64,
    definition_ms: f64,
    references_ms: f64,
    references_found: usize,
    peak_rss_mib: f64,
    /// What the server was still indexing when the warm questions began, if the wait for
    /// readiness ran out.
    still_indexing: Option<String>,
}

fn relative(root: &Path, locs: &[Loc]) -> BTreeSet<(String, u32)> {
    locs.iter()
        .map(|l| {
            let p = l
                .path
                .strip_prefix(root)
                .map(|r| {
                    r.components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join("/")
                })
                .unwrap_or_else(|_| l.path.display().to_string());
            (p, l.range.start.line)
        })
        .collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn show(set: &BTreeSet<(String, u32)>) -> String {
    if set.is_empty() {
        return "nothing".to_owned();
    }
    set.iter()
        .map(|(f, l)| format!("{f}:{l}"))
        .collect::<Vec<_>>()
        .join(", ")
}

async fn measure_ours(
    language: Language,
    query: &Query,
    options: &Options,
) -> Result<Ours, String> {
    let (_dir, root) = copy_project(language)?;
    let file = root.join(&query.file);
    let pool = Pool::new(PoolConfig::default());
    let result = measure_in(&pool, language, &root, &file, query, options).await;
    pool.shutdown_all().await;
    result
}

async fn measure_in(
    pool: &Pool,
    language: Language,
    root: &Path,
    file: &Path,
    query: &Query,
    options: &Options,
) -> Result<Ours, String> {
    let t0 = Instant::now();
    let deadline = t0 + options.timeout;
    let server = pool
        .server(language, root)
        .await
        .map_err(|e| format!("the server did not start: {e}"))?;
    let started_s = t0.elapsed().as_secs_f64();
    let sampler = Sampler::start(server.client.clone());
    let mut first_answer_s = None;
    let mut first_wrong = None;
    let mut last;
    let cold_s = loop {
        let asked = t0.elapsed().as_secs_f64();
        let attempt = server.definition(file, query.pos).await;
        if options.verbose {
            let took = t0.elapsed().as_secs_f64() - asked;
            let said = match &attempt {
                Ok(a) => format!(
                    "{} (indexing: {:?})",
                    show(&relative(root, &a.value)),
                    a.indexing
                ),
                Err(e) => format!("error: {e}"),
            };
            eprintln!("  cold attempt at {asked:.3} s took {took:.3} s: {said}");
        }
        match attempt {
            Ok(answer) => {
                let got = relative(root, &answer.value);
                if !got.is_empty() && first_answer_s.is_none() {
                    first_answer_s = Some(t0.elapsed().as_secs_f64());
                    if got != query.expected {
                        first_wrong = Some(got.clone());
                    }
                }
                if got == query.expected {
                    break t0.elapsed().as_secs_f64();
                }
                last = format!("answered {}", show(&got));
            }
            Err(e) => {
                if server.client.exited() {
                    sampler.finish();
                    return Err(format!("the server exited: {e}"));
                }
                last = format!("error: {e}");
            }
        }
        if Instant::now() >= deadline {
            sampler.finish();
            return Err(format!(
                "no expected answer ({}) within {:.1} s; last: {last}",
                show(&query.expected),
                options.timeout.as_secs_f64()
            ));
        }
        tokio::time::sleep(RETRY_PAUSE).await;
    };
    let still_indexing = server
        .client
        .wait_ready(deadline.max(Instant::now() + Duration::from_secs(1)))
        .await;
    tokio::time::sleep(QUIET).await;

    let mut definition = Vec::with_capacity(options.runs);
    for run in 0..options.runs {
        let started = Instant::now();
        let answer = server
            .definition(file, query.pos)
            .await
            .map_err(|e| format!("warm definition {run}: {e}"))?;
        definition.push(started.elapsed().as_secs_f64() * 1000.0);
        let got = relative(root, &answer.value);
        if got != query.expected {
            sampler.finish();
            return Err(format!(
                "warm definition {run} answered {} instead of {}",
                show(&got),
                show(&query.expected)
            ));
        }
    }
    let mut references = Vec::with_capacity(options.runs);
    let mut references_found = 0;
    for run in 0..options.runs {
        let started = Instant::now();
        let answer = server
            .references(file, query.pos, true)
            .await
            .map_err(|e| format!("warm references {run}: {e}"))?;
        references.push(started.elapsed().as_secs_f64() * 1000.0);
        references_found = answer.value.len();
    }
    let peak = sampler.finish();
    Ok(Ours {
        started_s,
        first_answer_s,
        first_wrong,
        cold_s,
        definition_ms: median(definition),
        references_ms: median(references),
        references_found,
        peak_rss_mib: peak as f64 / (1024.0 * 1024.0),
        still_indexing,
    })
}

/// A word quoted for a POSIX shell (the bare client splits `--command` with shlex).
fn sh_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The bare client on a fresh copy of the project, with the same server binary and
/// arguments as ours; its JSON object.
async fn measure_bare(
    language: Language,
    installed: &Installed,
    query: &Query,
    options: &Options,
) -> Result<Value, String> {
    let script = repo_root().join("scripts/lsp_bare.py");
    if !script.is_file() {
        return Err(format!("the bare client {} is missing", script.display()));
    }
    let (_dir, root) = copy_project(language)?;
    let command = std::iter::once(installed.path.display().to_string())
        .chain(installed.spec.args.iter().map(|a| (*a).to_owned()))
        .map(|w| sh_quote(&w))
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = tokio::process::Command::new("python3");
    child
        .arg(&script)
        .arg("bench")
        .args(["--server", language.as_str()])
        .arg("--project")
        .arg(&root)
        .args(["--file", &query.file])
        .args(["--line", &query.pos.line.to_string()])
        .args(["--character", &query.pos.character.to_string()])
        .args(["--runs", &options.runs.to_string()])
        .args(["--timeout", &options.timeout.as_secs_f64().to_string()])
        .args(["--command", &command])
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let limit = options.timeout * 2 + Duration::from_secs(60);
    let output = match tokio::time::timeout(limit, child.output()).await {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => return Err(format!("python3 {} cannot run: {e}", script.display())),
        Err(_) => return Err(format!("the bare client did not finish in {limit:?}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        return Err(format!(
            "the bare client failed ({}): {}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ));
    }
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .ok_or_else(|| format!("the bare client printed no JSON object: {stdout:?}"))?;
    let report: Value = serde_json::from_str(line)
        .map_err(|e| format!("the bare client's output is not JSON ({e}): {line}"))?;
    for key in [
        "cold_first_correct_s",
        "warm_definition_ms_p50",
        "warm_references_ms_p50",
        "peak_rss_mib",
    ] {
        if !report[key].is_number() {
            return Err(format!(
                "the bare client's output has no number {key}: {line}"
            ));
        }
    }
    Ok(report)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_owned())
}

fn cores() -> String {
    std::thread::available_parallelism()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

fn ratio(ours: f64, bare: Option<f64>) -> Option<f64> {
    let bare = bare?;
    (bare > 0.0 && ours.is_finite()).then(|| ours / bare)
}

fn fmt(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "n/a".to_owned(),
    }
}

fn round(v: f64, decimals: i32) -> Value {
    if !v.is_finite() {
        return Value::Null;
    }
    let f = 10f64.powi(decimals);
    json!((v * f).round() / f)
}

/// One server's outcome.
enum Outcome {
    Skipped(String),
    Failed(String),
    Measured(Box<Measured>),
}

struct Measured {
    installed: Installed,
    query: Query,
    ours: Ours,
    bare: Result<Value, String>,
    /// Finding the server and running its version command, timed on its own.
    probe_s: f64,
}

async fn run(options: &Options) -> bool {
    let languages: Vec<Language> = options
        .only
        .clone()
        .unwrap_or_else(|| Language::ALL.to_vec());
    println!(
        "Language servers: resolve-pr-lsp (Pool, Server::definition/references) vs the bare client scripts/lsp_bare.py"
    );
    println!(
        "same sample project (a fresh copy each), same query, same server binary and arguments, {} warm runs each; ours runs first",
        options.runs
    );
    println!(
        "Each client sends its own settings: ours the product's (crates/lsp/src/servers.rs), the bare client its minimal ones (rust-analyzer: checkOnSave off in both)."
    );
    println!(
        "Times are single runs on a shared machine ({} cores, load average {} at the start): read them as ±30 %; compare the ratios, not the absolute times.",
        cores(),
        load_average()
    );
    let mut outcomes = Vec::new();
    for language in languages {
        let query = match load_query(language) {
            Ok(q) => q,
            Err(e) => {
                outcomes.push((language, Outcome::Failed(e)));
                continue;
            }
        };
        // The server the pool will start: the first installed candidate. Its version command
        // is timed here alone; the measured pool does not run it (only after a failed start).
        let probed_at = Instant::now();
        let mut missing = Vec::new();
        let mut found = None;
        for spec in servers::candidates(language) {
            match servers::probe(spec).await {
                Ok(installed) => {
                    found = Some(installed);
                    break;
                }
                Err(m) => missing.push(format!("{} ({})", m.spec.name, m.reason)),
            }
        }
        let probe_s = probed_at.elapsed().as_secs_f64();
        let Some(installed) = found else {
            outcomes.push((
                language,
                Outcome::Skipped(format!("not installed: {}", missing.join("; "))),
            ));
            continue;
        };
        eprintln!("servers bench: {language}: ours ...");
        let ours = match measure_ours(language, &query, options).await {
            Ok(m) => m,
            Err(e) => {
                outcomes.push((language, Outcome::Failed(format!("ours: {e}"))));
                continue;
            }
        };
        let bare = if options.bare {
            eprintln!("servers bench: {language}: bare ...");
            measure_bare(language, &installed, &query, options).await
        } else {
            Err("not run (--no-bare)".to_owned())
        };
        outcomes.push((
            language,
            Outcome::Measured(Box::new(Measured {
                installed,
                query,
                ours,
                bare,
                probe_s,
            })),
        ));
    }
    report(&outcomes, options)
}

/// Prints the table and the JSON lines; whether anything failed.
fn report(outcomes: &[(Language, Outcome)], options: &Options) -> bool {
    let mut failed = false;
    let label_of = |language: &Language, installed: &Installed| {
        format!("{} ({})", installed.spec.name, language.as_str())
    };
    let width = outcomes
        .iter()
        .map(|(language, outcome)| match outcome {
            Outcome::Measured(m) => label_of(language, &m.installed).len(),
            _ => language.as_str().len(),
        })
        .max()
        .unwrap_or(0)
        .max("server".len());
    println!();
    println!(
        "{:<width$} {:<28} {:>10} {:>10} {:>10}",
        "server", "figure", "ours", "bare", "ours/bare"
    );
    let mut json_lines = Vec::new();
    let mut notes = Vec::new();
    for (language, outcome) in outcomes {
        match outcome {
            Outcome::Skipped(why) => {
                println!("{:<width$} skipped: {why}", language.as_str());
            }
            Outcome::Failed(why) => {
                failed = true;
                println!("{:<width$} FAILED: {why}", language.as_str());
            }
            Outcome::Measured(m) => {
                let Measured {
                    installed,
                    query,
                    ours,
                    bare,
                    probe_s,
                } = &**m;
                let label = label_of(language, installed);
                let b = bare.as_ref().ok();
                let num = |k: &str| b.and_then(|v| v[k].as_f64());
                // The bare client stops at its first non-empty definition answer; when ours'
                // first answer was not the expected one, its figure may stop earlier than a
                // first correct answer would, so the like-for-like row is "first answer".
                let cold_mark = if ours.first_wrong.is_some() { "*" } else { "" };
                let bare_cold = num("cold_first_correct_s");
                let rows = [
                    (
                        "cold to first answer (s)",
                        ours.first_answer_s.unwrap_or(f64::NAN),
                        bare_cold,
                        String::new(),
                        2,
                    ),
                    (
                        "cold to first correct (s)",
                        ours.cold_s,
                        bare_cold,
                        cold_mark.to_owned(),
                        2,
                    ),
                    (
                        "warm definition p50 (ms)",
                        ours.definition_ms,
                        num("warm_definition_ms_p50"),
                        String::new(),
                        2,
                    ),
                    (
                        "warm references p50 (ms)",
                        ours.references_ms,
                        num("warm_references_ms_p50"),
                        String::new(),
                        2,
                    ),
                    (
                        "peak RSS (MiB)",
                        ours.peak_rss_mib,
                        num("peak_rss_mib"),
                        String::new(),
                        1,
                    ),
                ];
                for (i, (figure, o, bv, mark, d)) in rows.iter().enumerate() {
                    println!(
                        "{:<width$} {:<28} {:>10} {:>10} {:>10}",
                        if i == 0 { label.as_str() } else { "" },
                        figure,
                        fmt(Some(*o), *d),
                        format!("{}{mark}", fmt(*bv, *d)),
                        format!("{}{mark}", fmt(ratio(*o, *bv), 2)),
                    );
                }
                if !cold_mark.is_empty() && bare.is_ok() {
                    notes.push(format!(
                        "{label}: * the bare client's cold figure is its first non-empty answer, right or wrong; ours' first answer was wrong, so compare the first-answer row"
                    ));
                }
                if let (Err(e), true) = (bare, options.bare) {
                    failed = true;
                    notes.push(format!("{label}: bare: {e}"));
                }
                notes.push(format!(
                    "{label}: {} at {}:{}:{}; the server's version command takes {:.2} s alone (the pool runs it only when a start fails); Pool::server returned (started, initialized) after {:.2} s",
                    query.name,
                    query.file,
                    query.pos.line,
                    query.pos.character,
                    probe_s,
                    ours.started_s,
                ));
                if let (Some(at), Some(wrong)) = (ours.first_answer_s, &ours.first_wrong) {
                    notes.push(format!(
                        "{label}: ours' first answer ({at:.2} s) named {} before the expected {}",
                        show(wrong),
                        show(&query.expected)
                    ));
                }
                if let Some(busy) = &ours.still_indexing {
                    notes.push(format!(
                        "{label}: ours' warm questions began while the server still said {busy:?}"
                    ));
                }
                json_lines.push(json!({
                    "language": language.as_str(),
                    "server": installed.spec.name,
                    "version": installed.version,
                    "path": installed.path,
                    "query": {
                        "name": query.name,
                        "file": query.file,
                        "line": query.pos.line,
                        "character": query.pos.character,
                    },
                    "runs": options.runs,
                    "ours": {
                        "probe_s": round(*probe_s, 3),
                        "started_s": round(ours.started_s, 3),
                        "first_answer_s": ours.first_answer_s.map(|v| round(v, 3)),
                        "cold_first_correct_s": round(ours.cold_s, 3),
                        "warm_definition_ms_p50": round(ours.definition_ms, 2),
                        "warm_references_ms_p50": round(ours.references_ms, 2),
                        "references_found": ours.references_found,
                        "peak_rss_mib": round(ours.peak_rss_mib, 1),
                    },
                    "bare": match bare {
                        Ok(v) => v.clone(),
                        Err(e) => json!({"error": e}),
                    },
                    "ratio": {
                        "cold_first_answer": ours.first_answer_s.and_then(|a| ratio(a, num("cold_first_correct_s"))).map(|r| round(r, 3)),
                        "cold_first_correct": ratio(ours.cold_s, num("cold_first_correct_s")).map(|r| round(r, 3)),
                        "warm_definition": ratio(ours.definition_ms, num("warm_definition_ms_p50")).map(|r| round(r, 3)),
                        "warm_references": ratio(ours.references_ms, num("warm_references_ms_p50")).map(|r| round(r, 3)),
                        "peak_rss": ratio(ours.peak_rss_mib, num("peak_rss_mib")).map(|r| round(r, 3)),
                    },
                    "load_average_after": load_average(),
                }));
            }
        }
    }
    if !notes.is_empty() {
        println!();
        for note in &notes {
            println!("note: {note}");
        }
    }
    println!();
    println!("load average at the end: {}", load_average());
    for line in json_lines {
        println!("{line}");
    }
    failed
}
