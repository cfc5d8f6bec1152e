//! `analyze_batch` (quality + dead code + cycles) over a 140,000-line tree of six languages,
//! cold and warm, beside the tools people run for each of those on the same tree, in one
//! run: lizard (complexity, every language), ruff (unused imports and variables, Python) and
//! madge (cycles, TypeScript/JavaScript).
//!
//! ```text
//! cargo bench -p resolve-pr-tools --bench analysis_batch [-- TREE]
//! ```
//!
//! Default tree: the analysis corpus (`tests/analysis/corpus.json`: 11 projects from
//! crates.io, PyPI, npm and Go's standard library), fetched by `tests/analysis/fetch.py`
//! into `$RESOLVE_PR_CORPUS` (else `~/.cache/resolve-pr/corpus`). The references are
//! installed where they are missing: lizard and ruff into `target/bench-tools/venv`, madge
//! into `target/bench-tools/npm` (pinned as in `tests/analysis/NOTES.md`).
//!
//! Measured, in order:
//! - parse throughput per language: every file read and parsed by tree-sitter, MB/s;
//! - cold: the first `analyze_batch` call in this process (file contents possibly in the
//!   OS cache already: nothing of ours is);
//! - warm: the median of three more calls;
//! - lizard, ruff and madge on the same tree, each the median of three runs;
//! - the process's peak resident memory after the calls.
//!
//! It prints each time and the ratios batch / each reference and batch / their sum.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use resolve_pr_analysis::{Walk, load};
use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{Config, Forges};
use resolve_pr_tools::Context;
use serde_json::json;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus() -> PathBuf {
    let dest = std::env::var_os("RESOLVE_PR_CORPUS").map_or_else(
        || {
            Path::new(&std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/resolve-pr/corpus")
        },
        PathBuf::from,
    );
    let status = Command::new("python3")
        .arg(repo().join("tests/analysis/fetch.py"))
        .arg("--dest")
        .arg(&dest)
        .stdout(std::process::Stdio::null())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!(
            "tests/analysis/fetch.py could not fetch every project into {}",
            dest.display()
        );
    }
    dest
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn time<F: FnMut() -> bool>(runs: usize, mut f: F) -> Option<Duration> {
    let mut xs = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        if !f() {
            return None;
        }
        xs.push(t.elapsed());
    }
    Some(median(xs))
}

/// Installs a reference tool where it is missing; its path.
fn tool(name: &str) -> Option<PathBuf> {
    let dir = repo().join("target/bench-tools");
    let (path, install): (PathBuf, Vec<Vec<String>>) = match name {
        "lizard" | "ruff" => {
            let venv = dir.join("venv");
            let pip = venv.join("bin/pip").display().to_string();
            (
                venv.join("bin").join(name),
                vec![
                    vec![
                        "python3".into(),
                        "-m".into(),
                        "venv".into(),
                        venv.display().to_string(),
                    ],
                    vec![
                        pip,
                        "install".into(),
                        "-q".into(),
                        "lizard==1.24.3".into(),
                        "ruff==0.17.6".into(),
                    ],
                ],
            )
        }
        _ => {
            let npm = dir.join("npm");
            (
                npm.join("node_modules/.bin/madge"),
                vec![vec![
                    "npm".into(),
                    "install".into(),
                    "--silent".into(),
                    "--no-audit".into(),
                    "--no-fund".into(),
                    "--prefix".into(),
                    npm.display().to_string(),
                    "madge@8.0.0".into(),
                ]],
            )
        }
    };
    if !path.exists() {
        std::fs::create_dir_all(&dir).ok()?;
        for step in install {
            let ok = Command::new(&step[0])
                .args(&step[1..])
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                eprintln!("{name}: `{}` failed; left out", step.join(" "));
                return None;
            }
        }
    }
    path.exists().then_some(path)
}

fn run(cmd: &mut Command) -> bool {
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

fn main() -> ExitCode {
    let tree = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map_or_else(corpus, PathBuf::from);
    let Ok(tree) = tree.canonicalize() else {
        eprintln!("no tree at {}", tree.display());
        return ExitCode::FAILURE;
    };

    // Parse throughput, per language.
    let t = Instant::now();
    let loaded = load(&tree, &Walk::sources(&tree), 200_000).expect("walk");
    let load_time = t.elapsed();
    let mut per: BTreeMap<&str, (usize, usize, Duration)> = BTreeMap::new();
    for f in &loaded.files {
        let t = Instant::now();
        let again =
            resolve_pr_analysis::SourceFile::parse(f.path.clone(), f.dialect, f.text.clone());
        let took = t.elapsed();
        if again.is_ok() {
            let e = per.entry(f.dialect.language().as_str()).or_default();
            e.0 += f.text.len();
            e.1 += f.text.lines().count();
            e.2 += took;
        }
    }
    let lines: usize = per.values().map(|v| v.1).sum();
    println!(
        "tree: {} ({} files, {lines} lines; read and parsed in {:.2} s with {} threads)",
        tree.display(),
        loaded.files.len(),
        load_time.as_secs_f64(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("parse throughput (one thread):");
    for (lang, (bytes, lines, took)) in &per {
        println!(
            "  {lang:11} {:7.1} MB/s  ({lines} lines, {:.1} MB)",
            *bytes as f64 / 1e6 / took.as_secs_f64().max(1e-9),
            *bytes as f64 / 1e6
        );
    }
    drop(loaded);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let config = Config::from_parts(None, None, &|_: &str| None).expect("config");
    let ctx = Context::new(Arc::new(Forges::new(config)), CursorCodec::new([7; 32]));
    let args = json!({
        "directory": tree,
        "analyses": [
            {"category": "quality", "kind": "complexity"},
            {"category": "dead_code", "kind": "unused_imports"},
            {"category": "dependencies", "kind": "circular"}
        ],
        "options": {"limit": 100}
    });
    let mut findings = 0;
    let mut batch = || {
        let out = rt.block_on(resolve_pr_tools::call(&ctx, "analyze_batch", args.clone()));
        match out {
            Ok(o) => {
                findings = o.structured["summary"]["total_findings"]
                    .as_u64()
                    .unwrap_or(0);
                true
            }
            Err(e) => {
                eprintln!("analyze_batch: {e:?}");
                false
            }
        }
    };
    let Some(cold) = time(1, &mut batch) else {
        return ExitCode::FAILURE;
    };
    let warm = time(3, &mut batch).unwrap();
    let rss = peak_rss_mb();
    println!(
        "analyze_batch (quality + dead_code + cycles): cold {:.2} s, warm {:.2} s, {findings} findings; peak memory {}",
        cold.as_secs_f64(),
        warm.as_secs_f64(),
        rss.map_or_else(|| "unknown".to_owned(), |m| format!("{m:.0} MB"))
    );

    // Each analysis alone (warm), to see where the batch's time goes.
    for (what, analysis) in [
        (
            "quality (complexity), every language",
            json!({"category": "quality", "kind": "complexity"}),
        ),
        (
            "dead_code (unused imports), every language",
            json!({"category": "dead_code", "kind": "unused_imports"}),
        ),
        (
            "dependencies (cycles), every language",
            json!({"category": "dependencies", "kind": "circular"}),
        ),
    ] {
        let one = json!({"directory": tree, "analyses": [analysis], "options": {"limit": 100}});
        let took = time(3, || {
            rt.block_on(resolve_pr_tools::call(&ctx, "analyze_batch", one.clone()))
                .is_ok()
        });
        if let Some(t) = took {
            println!("  alone: {what:42} {:.2} s", t.as_secs_f64());
        }
    }

    let mut references = Vec::new();
    if let Some(lizard) = tool("lizard") {
        let took = time(3, || {
            run(Command::new(&lizard)
                .arg("--csv")
                .arg("-l")
                .arg("rust")
                .arg("-l")
                .arg("python")
                .arg("-l")
                .arg("typescript")
                .arg("-l")
                .arg("javascript")
                .arg("-l")
                .arg("go")
                .arg("-l")
                .arg("cpp")
                .arg(&tree))
        });
        references.extend(took.map(|t| ("lizard (complexity, every language)", t)));
    }
    if let Some(ruff) = tool("ruff") {
        let took = time(3, || {
            run(Command::new(&ruff)
                .args([
                    "check",
                    "--isolated",
                    "--no-cache",
                    "--exit-zero",
                    "--select",
                    "F401,F841",
                ])
                .arg(&tree))
        });
        references.extend(took.map(|t| ("ruff (F401, F841; Python)", t)));
    }
    if let Some(madge) = tool("madge") {
        let took = time(3, || {
            run(Command::new(&madge)
                .args([
                    "--circular",
                    "--extensions",
                    "ts,tsx,js,mjs,cjs",
                    "--no-spinner",
                    "--no-color",
                ])
                .arg(&tree))
        });
        references.extend(took.map(|t| ("madge --circular (TypeScript/JavaScript)", t)));
    }
    let mut sum = Duration::ZERO;
    for (name, t) in &references {
        sum += *t;
        println!(
            "  {name:42} {:.2} s   batch warm / it: {:.2}",
            t.as_secs_f64(),
            warm.as_secs_f64() / t.as_secs_f64()
        );
    }
    if !references.is_empty() {
        println!(
            "  {:42} {:.2} s   batch warm / sum: {:.2}, cold / sum: {:.2}",
            "the three together",
            sum.as_secs_f64(),
            warm.as_secs_f64() / sum.as_secs_f64(),
            cold.as_secs_f64() / sum.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}
