//! Throughput of the streaming scanner on a large job log read from a file, against
//! `grep -c FAIL` on the same file in the same run (a reference, since the machine is shared
//! and noisy), and peak memory.
//!
//!     cargo bench -p resolve-pr-ci --bench throughput [-- SIZE_MB] [CASE...]
//!
//! CASE picks logs by name (`sparse corpus green dense pytest`; all by default). Logs of
//! SIZE_MB (default 100; 40 for `pytest`), written to a temporary file in pieces (the bench never holds a log
//! in memory, so peak RSS is the scanner's):
//! - `sparse`: what a large failed CI job log looks like, the issue's "mostly passing output
//!   with a few failures": build output and passing tests of several frameworks, with one
//!   real failing run of each framework (the first corpus log of each that has failures)
//!   buried in it once per 10 MB (and at the start).
//! - `corpus`: the same noise with every corpus log (1.7 MB of real runs, 1,200 failures)
//!   buried once per 40 MB.
//! - `green`: the same build output and passing tests, no failure at all.
//! - `dense`: the corpus logs back to back with little noise: failures everywhere, the
//!   worst case for a scanner that skips what no parser needs.
//! - `pytest`: one large `pytest -v` run, as a big suite's job log holds it: the progress
//!   lines of a real run (the corpus's `pytest/verbose.log`) repeated for many test files,
//!   the passing ones only after the first, then that run's failures and summary once
//!   (`RESOLVE_PR_BENCH_LOG=FILE` reads a log of one's own instead).
//!
//! Releases side by side: with `RESOLVE_PR_BASELINE` set to an earlier `resolve-pr` binary,
//! the `pytest` log is also parsed by `resolve-pr ci parse --json` of that binary and of
//! this tree's (`RESOLVE_PR_BIN`, default `target/release/resolve-pr`; build it first with
//! `cargo build --release -p resolve-pr`), alternating between the two for `ROUNDS` rounds
//! (default 9) so that the machine's load falls on both alike; the medians and their ratio
//! are printed.

#![allow(clippy::print_stdout, reason = "a benchmark prints its figures")]

use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size_given: Option<u64> = args.iter().find_map(|a| a.parse().ok());
    let size_mb = size_given.unwrap_or(100);
    let cases: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-') && a.parse::<u64>().is_err())
        .map(String::as_str)
        .collect();
    let wanted = |name: &str| cases.is_empty() || cases.contains(&name);
    let seed = corpus_seed();
    let sparse_noise = sparse_noise();
    let dense_noise: String = (0..200)
        .map(|i| {
            format!(
                "2024-05-01T10:00:00.0000000Z tests/test_noise.py::test_case_{i} PASSED  [ 50%]\n"
            )
        })
        .collect();
    let target = size_mb * 1024 * 1024;
    let few = few_failures();
    for (name, noise, seed) in [
        (
            "sparse",
            sparse_noise.as_bytes(),
            Some((&few, 10 * 1024 * 1024)),
        ),
        (
            "corpus",
            sparse_noise.as_bytes(),
            Some((&seed, 40 * 1024 * 1024)),
        ),
        ("green", sparse_noise.as_bytes(), None),
        ("dense", dense_noise.as_bytes(), Some((&seed, 0))),
    ] {
        if !wanted(name) {
            continue;
        }
        let (seed, seed_every): (&[u8], u64) = match seed {
            Some((s, every)) => (s.as_slice(), every),
            None => (&[], u64::MAX),
        };
        let path = write_log(name, target, noise, seed, seed_every);
        let mb = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1048576.0;
        let start = Instant::now();
        let file = std::fs::File::open(&path).expect("open log");
        let report = resolve_pr_ci::Scanner::new()
            .read_from(file)
            .expect("read log");
        let ours = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let grep = Command::new("grep")
            .arg("-c")
            .arg("FAIL")
            .arg(&path)
            .output()
            .expect("grep runs");
        let reference = start.elapsed().as_secs_f64();
        let breakdown = if name == "dense" {
            breakdown(&path)
        } else {
            String::new()
        };
        let _ = std::fs::remove_file(&path);
        println!(
            "{name}: {mb:.0} MB in {ours:.2} s = {:.0} MB/s, {} failures; grep -c FAIL {reference:.2} s ({} lines); \
             ours / grep = {:.2}; peak RSS so far {}",
            mb / ours,
            report.found.len(),
            String::from_utf8_lossy(&grep.stdout).trim(),
            ours / reference,
            peak_rss(),
        );
        if !breakdown.is_empty() {
            println!("  each parser alone on the {name} log: {breakdown}");
        }
    }
    if wanted("pytest") {
        // The real pytest log was 41.7 MB.
        pytest_case(size_given.unwrap_or(40) * 1024 * 1024);
    }
}

/// The `pytest` case: in-process throughput, each parser alone, and the two releases' CLIs
/// side by side.
fn pytest_case(target: u64) {
    // A real log of one's own instead: RESOLVE_PR_BENCH_LOG=path (kept).
    let given = std::env::var_os("RESOLVE_PR_BENCH_LOG").map(PathBuf::from);
    let path = given.clone().unwrap_or_else(|| {
        let path = std::env::temp_dir().join(format!(
            "resolve-pr-bench-pytest-{}.log",
            std::process::id()
        ));
        write_pytest_log(&path, target);
        path
    });
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let mb = bytes as f64 / 1048576.0;
    let mut best = f64::MAX;
    let mut found = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let file = std::fs::File::open(&path).expect("open log");
        let report = resolve_pr_ci::Scanner::new()
            .read_from(file)
            .expect("read log");
        best = best.min(start.elapsed().as_secs_f64());
        found = report.found.len();
    }
    println!(
        "pytest: {mb:.1} MB in {best:.3} s = {:.0} MB/s (best of 3), {found} failures",
        mb / best
    );
    println!(
        "  each parser alone on the pytest log: {}",
        breakdown(&path)
    );
    side_by_side(&path, mb);
    if given.is_none() {
        let _ = std::fs::remove_file(&path);
    }
}

/// `resolve-pr ci parse --json` of an earlier release and of this tree on the same log, in
/// alternation; medians and their ratio.
fn side_by_side(path: &Path, mb: f64) {
    let Some(baseline) = std::env::var_os("RESOLVE_PR_BASELINE").map(PathBuf::from) else {
        println!("  (set RESOLVE_PR_BASELINE to an earlier resolve-pr binary to compare releases)");
        return;
    };
    let current = std::env::var_os("RESOLVE_PR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/resolve-pr")
        });
    if !current.is_file() {
        println!(
            "  no {} (cargo build --release -p resolve-pr, or set RESOLVE_PR_BIN)",
            current.display()
        );
        return;
    }
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9);
    let run = |bin: &Path| {
        let start = Instant::now();
        let out = Command::new(bin)
            .args(["ci", "parse", "--json"])
            .arg(path)
            .output()
            .expect("resolve-pr runs");
        let secs = start.elapsed().as_secs_f64();
        // Exit status 1 says failures were found; anything else is a broken run.
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{} failed: {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        (secs, out.stdout.len())
    };
    let (mut old, mut new) = (Vec::new(), Vec::new());
    let (mut old_out, mut new_out) = (0, 0);
    for i in 0..rounds {
        // ABBA order: neither binary always runs first (page cache, frequency ramps).
        let order: [bool; 2] = if i % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for is_old in order {
            if is_old {
                let (t, n) = run(&baseline);
                old.push(t);
                old_out = n;
            } else {
                let (t, n) = run(&current);
                new.push(t);
                new_out = n;
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (o, n) = (median(&mut old), median(&mut new));
    println!(
        "  ci parse --json, median of {rounds} alternating runs: baseline {o:.3} s = {:.0} MB/s \
         ({old_out} bytes of JSON), this tree {n:.3} s = {:.0} MB/s ({new_out} bytes); \
         this tree / baseline time = {:.2}",
        mb / o,
        mb / n,
        n / o,
    );
}

/// A large `pytest -v` log from the corpus's real verbose run: its header, its progress
/// lines once as they are and then, renamed to other test files, only the passing ones
/// until the log is `target` bytes, then its failures and summary.
fn write_pytest_log(path: &Path, target: u64) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/pytest/verbose.log");
    let text = std::fs::read_to_string(corpus).expect("pytest corpus log");
    let lines: Vec<&str> = text.lines().collect();
    let is_progress = |l: &str| l.contains("tests/") && l.contains("::") && l.ends_with("%]");
    let first = lines
        .iter()
        .position(|l| is_progress(l))
        .expect("progress lines");
    let last = lines
        .iter()
        .rposition(|l| is_progress(l))
        .expect("progress lines");
    let mut w = BufWriter::new(std::fs::File::create(path).expect("create log"));
    let mut written = 0u64;
    let put = |w: &mut BufWriter<std::fs::File>, written: &mut u64, line: &str| {
        w.write_all(line.as_bytes()).expect("write");
        w.write_all(b"\n").expect("write");
        *written += line.len() as u64 + 1;
    };
    for line in &lines[..=last] {
        put(&mut w, &mut written, line);
    }
    let passing: Vec<&str> = lines[first..=last]
        .iter()
        .copied()
        .filter(|l| l.contains(" PASSED ") || l.contains(" SKIPPED ") || l.contains(" XPASS "))
        .collect();
    let mut shard = 0;
    while written < target {
        shard += 1;
        for line in &passing {
            put(
                &mut w,
                &mut written,
                &line.replacen("tests/", &format!("tests/shard_{shard}/"), 1),
            );
        }
    }
    for line in &lines[last + 1..] {
        put(&mut w, &mut written, line);
    }
    w.flush().expect("flush");
}

/// Seconds each parser takes alone on the log (with the segmenter and the skip).
fn breakdown(path: &Path) -> String {
    use resolve_pr_ci::Framework::*;
    let mut out = Vec::new();
    for framework in [
        Pytest, Unittest, CargoTest, Nextest, Jest, Vitest, Mocha, GoTest, Rspec, Phpunit, Generic,
    ] {
        let file = std::fs::File::open(path).expect("open log");
        let start = Instant::now();
        let found = resolve_pr_ci::Scanner::only(&[framework])
            .read_from(file)
            .expect("read log")
            .found
            .len();
        out.push(format!(
            "{framework:?} {:.2} s ({found})",
            start.elapsed().as_secs_f64()
        ));
    }
    let file = std::fs::File::open(path).expect("open log");
    let start = Instant::now();
    resolve_pr_ci::Scanner::only(&[])
        .read_from(file)
        .expect("read log");
    out.push(format!("none {:.2} s", start.elapsed().as_secs_f64()));
    out.join(", ")
}

/// Each framework directory's corpus logs, sorted, directories in order.
fn corpus_logs() -> Vec<Vec<PathBuf>> {
    let sorted = |dir: &Path, keep: &dyn Fn(&Path) -> bool| {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("corpus dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| keep(p))
            .collect();
        paths.sort();
        paths
    };
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    sorted(&corpus, &|p| p.is_dir())
        .iter()
        .map(|dir| sorted(dir, &|p| p.extension().is_some_and(|x| x == "log")))
        .collect()
}

/// One real failing run of each framework (the first corpus log of each whose report lists
/// failures), concatenated: a few failures, as a failed job's log holds them.
fn few_failures() -> Vec<u8> {
    let mut seed = Vec::new();
    for logs in corpus_logs() {
        if let Some(log) = logs.iter().find(|log| {
            std::fs::read_to_string(log.with_extension("expected.json"))
                .is_ok_and(|e| !e.contains("\"failures\": []"))
        }) {
            seed.extend(std::fs::read(log).expect("log"));
        }
    }
    seed
}

/// Every corpus log, concatenated.
fn corpus_seed() -> Vec<u8> {
    corpus_logs()
        .iter()
        .flatten()
        .flat_map(|log| std::fs::read(log).expect("log"))
        .collect()
}

/// Build output and passing tests from several tool chains, as a job log serves them.
fn sparse_noise() -> String {
    let mut out = String::new();
    for i in 0..400 {
        let ts = format!(
            "2024-05-01T10:{:02}:{:02}.{:07}Z ",
            i / 60 % 60,
            i % 60,
            i * 7919
        );
        out.push_str(&format!("{ts}   Compiling serde_derive v1.0.{i}\n"));
        out.push_str(&format!("{ts}test noise::module_{i}::case ... ok\n"));
        out.push_str(&format!(
            "{ts}tests/test_noise.py::test_case_{i} PASSED                        [ {:>2}%]\n",
            i % 100
        ));
        out.push_str(&format!("{ts}  \u{2713} renders row {i} (3 ms)\n"));
        out.push_str(&format!(
            "{ts}npm WARN deprecated inflight@1.0.{i}: This module is not supported\n"
        ));
        out.push_str(&format!("{ts}ok  \texample.com/service/pkg{i}\t0.0{i}s\n"));
        out.push_str(&format!(
            "{ts}[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/x/{i}.jar (12 kB at 40 kB/s)\n"
        ));
    }
    out
}

fn write_log(name: &str, target: u64, noise: &[u8], seed: &[u8], seed_every: u64) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "resolve-pr-bench-{name}-{}.log",
        std::process::id()
    ));
    let mut w = BufWriter::new(std::fs::File::create(&path).expect("create log"));
    let mut written = 0u64;
    let mut next_seed = 0u64;
    while written < target {
        if written >= next_seed {
            w.write_all(seed).expect("write");
            written += seed.len() as u64;
            next_seed = if seed_every == 0 {
                written
            } else {
                written + seed_every
            };
        }
        w.write_all(noise).expect("write");
        written += noise.len() as u64;
    }
    w.flush().expect("flush");
    path
}

fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}
