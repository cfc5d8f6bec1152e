//! The corpus: real output of real frameworks (`corpus/<framework>/<case>.log`, made by
//! `scripts/ci-corpus/`), each with the failures the framework's own machine-readable report
//! of the same run lists (`<case>.expected.json`); JUnit XML reports (`<case>.xml`) are read
//! with `parse_junit` instead of `parse_log`. A case is one configuration (flags, reporter,
//! wrapper) of one framework: the corpus is a matrix, not a sample.
//!
//! Scores precision and recall of failing-test identification per framework and per case,
//! and how often file and line are right where the report has them, and fails below the
//! floors: 0.99 precision and recall and 0.95 file/line per framework. A case whose report
//! lists no failure is a green job: any failure found in it fails the test outright, and
//! there must be at least [`GREEN_FLOOR`] of them. Tests the report lists as passing on a
//! retry (`"flaky"`) must come out as flaky, never as failures.

use std::collections::BTreeMap;
use std::path::Path;

use resolve_pr_ci::{Report, Scanner, parse_junit_report, parse_log};
use serde::Deserialize;

/// Floors per framework.
const PRECISION_FLOOR: f64 = 0.99;
const RECALL_FLOOR: f64 = 0.99;
const LOCATION_FLOOR: f64 = 0.95;
/// Green jobs (passing runs, noisy on purpose) the corpus must hold at least.
const GREEN_FLOOR: usize = 10;

#[derive(Deserialize)]
struct Expected {
    framework: String,
    failures: Vec<ExpectedFailure>,
    /// Tests that failed and then passed on a retry in the same run, by the report.
    #[serde(default)]
    flaky: Vec<ExpectedFlaky>,
}

#[derive(Deserialize)]
struct ExpectedFailure {
    test_name: String,
    #[serde(default)]
    file_path: Option<String>,
    #[serde(default)]
    line_number: Option<u64>,
}

#[derive(Deserialize)]
struct ExpectedFlaky {
    test_name: String,
}

#[derive(Default, Clone)]
struct Score {
    cases: usize,
    expected: usize,
    found: usize,
    matched: usize,
    located: usize,
    located_right: usize,
    flaky_expected: usize,
    flaky_found: usize,
    flaky_matched: usize,
}

impl Score {
    fn add(&mut self, o: &Score) {
        self.cases += o.cases;
        self.expected += o.expected;
        self.found += o.found;
        self.matched += o.matched;
        self.located += o.located;
        self.located_right += o.located_right;
        self.flaky_expected += o.flaky_expected;
        self.flaky_found += o.flaky_found;
        self.flaky_matched += o.flaky_matched;
    }
    fn precision(&self) -> f64 {
        ratio(self.matched, self.found)
    }
    fn recall(&self) -> f64 {
        ratio(self.matched, self.expected)
    }
    fn location(&self) -> f64 {
        ratio(self.located_right, self.located)
    }
    fn flaky(&self) -> f64 {
        ratio(
            self.flaky_matched,
            self.flaky_expected.max(self.flaky_found),
        )
    }
    fn row(&self, name: &str) -> String {
        format!(
            "{name:<44} {:>5} {:>8} {:>5}  {:>9.3} {:>6.3}  {:>9.3}  {:>3}/{:<3}\n",
            self.cases,
            self.expected,
            self.found,
            self.precision(),
            self.recall(),
            self.location(),
            self.flaky_matched,
            self.flaky_expected,
        )
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// Every case of the corpus: (path, expected, what the scanner or the JUnit reader found).
fn cases() -> Vec<(std::path::PathBuf, Expected, Report)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out = Vec::new();
    for framework_dir in sorted_dirs(&root) {
        let Ok(entries) = std::fs::read_dir(&framework_dir) else {
            continue;
        };
        let mut logs: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "log" || x == "xml"))
            .collect();
        logs.sort();
        for log in logs {
            let expected_path = log.with_extension("expected.json");
            let expected: Expected = serde_json::from_str(
                &std::fs::read_to_string(&expected_path)
                    .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display())),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
            let bytes = std::fs::read(&log).expect("log");
            let report = if log.extension().is_some_and(|x| x == "xml") {
                let junit =
                    parse_junit_report(&bytes).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
                Report {
                    flaky: junit.flaky,
                    found: junit
                        .failures
                        .into_iter()
                        .map(|failure| resolve_pr_ci::Found {
                            offset: 0,
                            step: None,
                            failure,
                        })
                        .collect(),
                    ..Report::default()
                }
            } else {
                let mut scanner = Scanner::new();
                scanner.feed(&bytes);
                scanner.finish()
            };
            out.push((log, expected, report));
        }
    }
    out
}

#[test]
#[allow(clippy::print_stdout, reason = "prints the score table it checks")]
fn corpus_precision_recall_and_locations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut frameworks: BTreeMap<String, Score> = BTreeMap::new();
    let mut per_case: Vec<(String, Score)> = Vec::new();
    let mut problems = Vec::new();
    let mut green = 0;
    let mut green_false = Vec::new();
    for (log, expected, report) in cases() {
        let found: Vec<_> = report.failures();
        let name = log
            .strip_prefix(&root)
            .unwrap_or(&log)
            .with_extension("")
            .display()
            .to_string();
        let mut score = Score {
            cases: 1,
            expected: expected.failures.len(),
            found: found.len(),
            flaky_expected: expected.flaky.len(),
            flaky_found: report.flaky.len(),
            ..Score::default()
        };
        if expected.failures.is_empty() {
            green += 1;
            if !found.is_empty() {
                green_false.push(format!(
                    "{name}: a green job, yet {:?}",
                    found.iter().map(|f| &f.test_name).collect::<Vec<_>>()
                ));
            }
        }
        for want in &expected.failures {
            match found.iter().find(|f| f.test_name == want.test_name) {
                Some(got) => {
                    score.matched += 1;
                    if want.file_path.is_some() || want.line_number.is_some() {
                        score.located += 1;
                        let file_ok = want.file_path.is_none() || got.file_path == want.file_path;
                        let line_ok =
                            want.line_number.is_none() || got.line_number == want.line_number;
                        if file_ok && line_ok {
                            score.located_right += 1;
                        } else {
                            problems.push(format!(
                                "{name}: {}: location {:?}:{:?}, want {:?}:{:?}",
                                want.test_name,
                                got.file_path,
                                got.line_number,
                                want.file_path,
                                want.line_number
                            ));
                        }
                    }
                }
                None => problems.push(format!("{name}: missed {}", want.test_name)),
            }
        }
        for got in &found {
            if !expected
                .failures
                .iter()
                .any(|w| w.test_name == got.test_name)
            {
                problems.push(format!(
                    "{name}: not a failure: {} ({:?})",
                    got.test_name, got.framework
                ));
            }
        }
        for want in &expected.flaky {
            if report.flaky.iter().any(|f| f.test_name == want.test_name) {
                score.flaky_matched += 1;
            } else {
                problems.push(format!(
                    "{name}: flaky test not reported: {}",
                    want.test_name
                ));
            }
        }
        for got in &report.flaky {
            if !expected.flaky.iter().any(|w| w.test_name == got.test_name) {
                problems.push(format!("{name}: not flaky: {}", got.test_name));
            }
        }
        frameworks
            .entry(expected.framework.clone())
            .or_default()
            .add(&score);
        per_case.push((name, score));
    }
    let header = format!(
        "{:<44} {:>5} {:>8} {:>5}  {:>9} {:>6}  {:>9}  {}\n",
        "case", "cases", "expected", "found", "precision", "recall", "file/line", "flaky"
    );
    let mut report = format!("per configuration\n{header}");
    for (name, s) in &per_case {
        report.push_str(&s.row(name));
    }
    report.push_str(&format!("\nper framework ({green} green jobs)\n{header}"));
    let mut below = Vec::new();
    let mut total = Score::default();
    for (name, s) in &frameworks {
        report.push_str(&s.row(name));
        total.add(s);
        if s.precision() < PRECISION_FLOOR
            || s.recall() < RECALL_FLOOR
            || s.location() < LOCATION_FLOOR
            || s.flaky() < 1.0
        {
            below.push(name.clone());
        }
    }
    report.push_str(&total.row("overall"));
    println!("{report}");
    assert!(
        green_false.is_empty(),
        "false failures on green jobs:\n{}",
        green_false.join("\n")
    );
    assert!(
        green >= GREEN_FLOOR,
        "only {green} green jobs in the corpus"
    );
    assert!(
        below.is_empty(),
        "below the floors: {below:?}\n{report}\n{}",
        problems.join("\n")
    );
}

/// Skipping lines while every parser is idle, and the chunk sizes the log arrives in,
/// change nothing: every corpus log gives the same report fed whole with skipping, line by
/// line without skipping, and in odd-sized chunks.
#[test]
fn skipping_and_chunking_change_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut checked = 0;
    for framework_dir in sorted_dirs(&root) {
        for entry in std::fs::read_dir(&framework_dir).expect("dir").flatten() {
            let path = entry.path();
            if !path.extension().is_some_and(|x| x == "log" || x == "xml") {
                continue;
            }
            let log = std::fs::read(&path).expect("log");
            let mut whole = Scanner::new();
            whole.feed(&log);
            let whole = whole.finish();
            let mut every_line = Scanner::without_skipping();
            every_line.feed(&log);
            let every_line = every_line.finish();
            assert_eq!(
                whole,
                every_line,
                "{}: skipping changed the result",
                path.display()
            );
            for size in [1, 7, 4096] {
                let mut chunked = Scanner::new();
                for chunk in log.chunks(size) {
                    chunked.feed(chunk);
                }
                assert_eq!(
                    whole,
                    chunked.finish(),
                    "{}: {size}-byte chunks changed the result",
                    path.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} logs");
}

/// A monorepo job runs several frameworks in one log: one Actions log of every framework,
/// back to back, gives every failure of each (by framework and name), and nothing else.
#[test]
fn several_frameworks_in_one_log_all_come_out() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut log = Vec::new();
    let mut want: Vec<(String, String)> = Vec::new();
    for framework_dir in sorted_dirs(&root) {
        let mut logs: Vec<_> = std::fs::read_dir(&framework_dir)
            .expect("dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        logs.sort();
        // The first log served as an Actions job log (its steps are `##[group]Run …`).
        let Some(path) = logs
            .iter()
            .find(|p| std::fs::read(p).is_ok_and(|b| b.windows(13).any(|w| w == b"##[group]Run ")))
        else {
            continue;
        };
        let expected: Expected = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).expect("expected"),
        )
        .expect("expected json");
        if expected.framework == "generic" {
            // The fallback speaks only when no framework parser found anything.
            continue;
        }
        log.extend(std::fs::read(path).expect("log"));
        want.extend(
            expected
                .failures
                .into_iter()
                .map(|f| (expected.framework.clone(), f.test_name)),
        );
    }
    let frameworks: std::collections::BTreeSet<&str> =
        want.iter().map(|(f, _)| f.as_str()).collect();
    assert!(frameworks.len() >= 8, "only {frameworks:?}");
    let mut got: Vec<(String, String)> = parse_log(&log)
        .into_iter()
        .map(|f| {
            let framework = serde_json::to_value(f.framework).expect("framework");
            (
                framework.as_str().unwrap_or_default().to_owned(),
                f.test_name,
            )
        })
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// A tens-of-MB log with a few failures buried in it: real passing runs (jest, mocha, and the
/// Rust/pytest build noise of real logs) repeated to 24 MB, with one real failing pytest run
/// in the middle. Exactly that run's failures come out.
#[test]
fn a_few_failures_buried_in_a_large_log() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut noise = Vec::new();
    for passing in ["jest/passing.log", "mocha/passing.log"] {
        noise.extend(std::fs::read(root.join(passing)).expect("passing log"));
    }
    let buried = root.join("pytest/tb_short.log");
    let expected: Expected = serde_json::from_str(
        &std::fs::read_to_string(buried.with_extension("expected.json")).expect("expected"),
    )
    .expect("expected json");
    let target = 24 * 1024 * 1024;
    let mut scanner = Scanner::new();
    let mut fed = 0;
    let mut placed = false;
    while fed < target {
        if !placed && fed >= target / 2 {
            scanner.feed(&std::fs::read(&buried).expect("log"));
            placed = true;
        }
        scanner.feed(&noise);
        fed += noise.len();
    }
    let report = scanner.finish();
    assert!(report.bytes > 20 * 1024 * 1024);
    let mut got: Vec<String> = report
        .found
        .iter()
        .map(|f| f.failure.test_name.clone())
        .collect();
    let mut want: Vec<String> = expected.failures.into_iter().map(|f| f.test_name).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

fn sorted_dirs(root: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root)
        .map(|it| {
            it.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}
