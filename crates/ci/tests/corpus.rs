//! The corpus: real output of real frameworks (`corpus/<framework>/<case>.log`, made by
//! `scripts/ci-corpus/`), each with the failures the framework's own machine-readable report
//! of the same run lists (`<case>.expected.json`); JUnit XML reports (`<case>.xml`) are read
//! with `parse_junit` instead of `parse_log`. Scores precision and recall of failing-test
//! identification per framework, and how often file and line are right where the report
//! has them, and fails below the floors (0.98 and 0.9).

use std::collections::BTreeMap;
use std::path::Path;

use resolve_pr_ci::{Scanner, parse_junit, parse_log};
use serde::Deserialize;

#[derive(Deserialize)]
struct Expected {
    framework: String,
    failures: Vec<ExpectedFailure>,
}

#[derive(Deserialize)]
struct ExpectedFailure {
    test_name: String,
    #[serde(default)]
    file_path: Option<String>,
    #[serde(default)]
    line_number: Option<u64>,
}

#[derive(Default)]
struct Score {
    expected: usize,
    found: usize,
    matched: usize,
    located: usize,
    located_right: usize,
}

#[test]
#[allow(clippy::print_stdout, reason = "prints the score table it checks")]
fn corpus_precision_recall_and_locations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut scores: BTreeMap<String, Score> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut cases = 0;
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
            cases += 1;
            let bytes = std::fs::read(&log).expect("log");
            let found = if log.extension().is_some_and(|x| x == "xml") {
                parse_junit(&bytes).unwrap_or_else(|e| panic!("{}: {e}", log.display()))
            } else {
                parse_log(&bytes)
            };
            let score = scores.entry(expected.framework.clone()).or_default();
            score.expected += expected.failures.len();
            score.found += found.len();
            for want in &expected.failures {
                match found.iter().find(|f| f.test_name == want.test_name) {
                    Some(got) => {
                        score.matched += 1;
                        if want.file_path.is_some() || want.line_number.is_some() {
                            score.located += 1;
                            let file_ok =
                                want.file_path.is_none() || got.file_path == want.file_path;
                            let line_ok =
                                want.line_number.is_none() || got.line_number == want.line_number;
                            if file_ok && line_ok {
                                score.located_right += 1;
                            } else {
                                problems.push(format!(
                                    "{}: {}: location {:?}:{:?}, want {:?}:{:?}",
                                    log.display(),
                                    want.test_name,
                                    got.file_path,
                                    got.line_number,
                                    want.file_path,
                                    want.line_number
                                ));
                            }
                        }
                    }
                    None => problems.push(format!("{}: missed {}", log.display(), want.test_name)),
                }
            }
            for got in &found {
                if !expected
                    .failures
                    .iter()
                    .any(|w| w.test_name == got.test_name)
                {
                    problems.push(format!(
                        "{}: not a failure: {} ({:?})",
                        log.display(),
                        got.test_name,
                        got.framework
                    ));
                }
            }
        }
    }
    let mut report = format!(
        "{cases} corpus logs\nframework      expected found  precision recall  file/line\n"
    );
    let mut below = Vec::new();
    for (name, s) in &scores {
        let precision = if s.found == 0 {
            1.0
        } else {
            s.matched as f64 / s.found as f64
        };
        let recall = if s.expected == 0 {
            1.0
        } else {
            s.matched as f64 / s.expected as f64
        };
        let location = if s.located == 0 {
            1.0
        } else {
            s.located_right as f64 / s.located as f64
        };
        report.push_str(&format!(
            "{name:<14} {:>8} {:>5}  {precision:>9.3} {recall:>6.3}  {location:>9.3}\n",
            s.expected, s.found
        ));
        if precision < 0.98 || recall < 0.98 || location < 0.9 {
            below.push(name.clone());
        }
    }
    let total = scores.values().fold(Score::default(), |mut t, s| {
        t.expected += s.expected;
        t.found += s.found;
        t.matched += s.matched;
        t.located += s.located;
        t.located_right += s.located_right;
        t
    });
    report.push_str(&format!(
        "{:<14} {:>8} {:>5}  {:>9.3} {:>6.3}  {:>9.3}\n",
        "overall",
        total.expected,
        total.found,
        total.matched as f64 / total.found.max(1) as f64,
        total.matched as f64 / total.expected.max(1) as f64,
        total.located_right as f64 / total.located.max(1) as f64,
    ));
    println!("{report}");
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
