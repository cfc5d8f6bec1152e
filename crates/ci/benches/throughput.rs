//! Throughput of `parse_log` on a large job log, against `grep -c FAIL` on the same file in
//! the same run (a reference, since the machine is shared and noisy), and peak memory.
//!
//!     cargo bench -p resolve-pr-ci --bench throughput [-- SIZE_MB]
//!
//! The log is the corpus logs repeated, with passing-test noise between them, up to SIZE_MB
//! (default 100), so every parser has work to do.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn main() {
    let size_mb: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut seed = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut logs: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        logs.sort();
        for log in logs {
            seed.extend(std::fs::read(&log).expect("log"));
        }
    }
    let noise: String = (0..2000)
        .map(|i| {
            format!(
                "2024-05-01T10:00:00.0000000Z tests/test_noise.py::test_case_{i} PASSED  [ 50%]\n"
            )
        })
        .collect();
    let target = size_mb * 1024 * 1024;
    let mut log = Vec::with_capacity(target + seed.len());
    while log.len() < target {
        log.extend_from_slice(noise.as_bytes());
        log.extend_from_slice(&seed);
    }
    let path = std::env::temp_dir().join(format!("resolve-pr-bench-{}.log", std::process::id()));
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(&log))
        .expect("write log");
    let mb = log.len() as f64 / (1024.0 * 1024.0);

    let start = Instant::now();
    let failures = resolve_pr_ci::parse_log(&log);
    let ours = start.elapsed().as_secs_f64();

    // Where the time goes: cleaning, then each parser on the cleaned text.
    let start = Instant::now();
    let text = resolve_pr_ci::log::clean(&log);
    let mut breakdown = format!("clean {:.2} s", start.elapsed().as_secs_f64());
    use resolve_pr_ci::parsers as p;
    let parsers: [(&str, p::Parser); 7] = [
        ("pytest", p::pytest::parse),
        ("unittest", p::unittest::parse),
        ("cargo_test", p::cargo_test::parse),
        ("nextest", p::nextest::parse),
        ("jest", p::jest::parse),
        ("vitest", p::vitest::parse),
        ("mocha", p::mocha::parse),
    ];
    for (name, parse) in parsers {
        let start = Instant::now();
        let n = parse(&text).len();
        breakdown.push_str(&format!(
            ", {name} {:.2} s ({n})",
            start.elapsed().as_secs_f64()
        ));
    }
    drop(text);

    let start = Instant::now();
    let grep = Command::new("grep")
        .arg("-c")
        .arg("FAIL")
        .arg(&path)
        .output()
        .expect("grep runs");
    let reference = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&path);

    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    println!(
        "parse_log: {mb:.0} MB in {ours:.2} s = {:.0} MB/s, {} failures; grep -c FAIL: {reference:.2} s ({} matches); \
         ratio {:.1}x grep's time; peak RSS {hwm} (log held in memory: {mb:.0} MB)",
        mb / ours,
        failures.len(),
        String::from_utf8_lossy(&grep.stdout).trim(),
        ours / reference,
    );
    println!("breakdown: {breakdown}");
}
