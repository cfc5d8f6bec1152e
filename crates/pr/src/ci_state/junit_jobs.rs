//! Which failed job of a workflow run a JUnit report belongs to. Artifacts belong to the
//! run, not to a job, and a run with several failed jobs often has a report per job: each
//! report file goes to the one job that what both say points to, and to none when that is
//! not clear (its failures then stay out, with a note, rather than land on the wrong job).
//!
//! What counts, strongest first: a test the report fails that the job's log also named; a
//! file of the report's failures that the job's log named; words shared by the artifact's
//! name, the file's path, the report's tool and suite names on one side and the job's name,
//! its steps (names, and the titles and scripts its log shows) and the frameworks its log
//! was read with on the other (`junit-nextest` and `test / nextest`). Words every report or
//! job has (`test`, `junit`, `results`, `xml`, …) say nothing and are left out.

use std::collections::HashSet;

use resolve_pr_ci::{Failure, Framework};

/// One XML file of a run's test-report artifact.
#[derive(Debug, Clone)]
pub(crate) struct ReportFile {
    pub artifact: String,
    /// Its path inside the artifact.
    pub path: String,
    pub tool: Option<&'static str>,
    pub suites: Vec<String>,
    pub failures: Vec<Failure>,
    /// Tests it records as passed on a retry.
    pub flaky: Vec<resolve_pr_ci::FlakyTest>,
}

impl ReportFile {
    /// `artifact: path`, as notes name it.
    pub fn label(&self) -> String {
        format!("{}: {}", self.artifact, self.path)
    }
}

/// What one failed job says about itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobEvidence {
    pub name: String,
    /// Step names from the forge, step titles and scripts from the log.
    pub steps: Vec<String>,
    /// Tests the log named.
    pub tests: Vec<String>,
    /// Files the log's failures are in.
    pub files: Vec<String>,
    pub frameworks: Vec<Framework>,
}

/// Points for each piece of evidence.
const SAME_TEST: u32 = 10;
const SAME_FILE: u32 = 5;
const SHARED_WORD: u32 = 2;

/// Words that name no job in particular.
const GENERIC: &[&str] = &[
    "test",
    "tests",
    "testing",
    "junit",
    "xml",
    "result",
    "results",
    "report",
    "reports",
    "reporter",
    "target",
    "ci",
    "run",
    "runs",
    "job",
    "jobs",
    "artifact",
    "artifacts",
    "out",
    "output",
    "build",
    "suite",
    "suites",
    "spec",
    "specs",
    "src",
    "lib",
    "home",
    "runner",
    "work",
    "usr",
    "bin",
    "tmp",
    "the",
    "and",
    "of",
    "with",
    "set",
    "up",
    "complete",
    "post",
    "checkout",
    "actions",
    "setup",
    "step",
    "shell",
    "bash",
    "py",
    "js",
    "ts",
    "rs",
    "python",
    "python3",
    "node",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "exec",
    "bundle",
    "root",
    "all",
];

/// The lower-case words of `text`, split at anything not a letter or digit, without
/// generic words, single letters and numbers.
fn words(text: &str, into: &mut HashSet<String>) {
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.chars().count() > 1
            && !w.chars().all(|c| c.is_ascii_digit())
            && !GENERIC.contains(&w.as_str())
        {
            into.insert(w);
        }
    }
}

fn framework_word(f: Framework) -> Option<&'static str> {
    Some(match f {
        Framework::Pytest => "pytest",
        Framework::Unittest => "unittest",
        Framework::CargoTest => "cargo",
        Framework::Nextest => "nextest",
        Framework::Jest => "jest",
        Framework::Vitest => "vitest",
        Framework::Mocha => "mocha",
        Framework::GoTest => "go",
        Framework::Rspec => "rspec",
        Framework::Phpunit => "phpunit",
        Framework::Junit | Framework::Generic => return None,
    })
}

/// Whether a report's test is one the log named: the same name, or nextest's report name
/// (`binary::test`) of the log's `test`.
pub(crate) fn same_name(log: &str, report: &str) -> bool {
    log == report
        || report
            .strip_suffix(log)
            .is_some_and(|binary| binary.ends_with("::"))
}

fn score(report: &ReportFile, report_words: &HashSet<String>, job: &JobEvidence) -> u32 {
    let tests = report
        .failures
        .iter()
        .filter(|f| job.tests.iter().any(|t| same_name(t, &f.test_name)))
        .count() as u32;
    let files: HashSet<&str> = report
        .failures
        .iter()
        .filter_map(|f| f.file_path.as_deref())
        .filter(|p| job.files.iter().any(|j| j == p))
        .collect();
    let mut job_words = HashSet::new();
    words(&job.name, &mut job_words);
    for s in &job.steps {
        words(s, &mut job_words);
    }
    for w in job.frameworks.iter().filter_map(|f| framework_word(*f)) {
        job_words.insert(w.to_owned());
    }
    let shared = report_words.intersection(&job_words).count() as u32;
    tests * SAME_TEST + files.len() as u32 * SAME_FILE + shared * SHARED_WORD
}

/// For each report, the index of the job it belongs to: the one job with the highest score,
/// when that is above zero and above every other job's; the only job when the run has one.
/// `None`: unclear, so merged nowhere.
pub(crate) fn assign(reports: &[ReportFile], jobs: &[JobEvidence]) -> Vec<Option<usize>> {
    reports
        .iter()
        .map(|report| {
            if jobs.len() == 1 {
                return Some(0);
            }
            let mut report_words = HashSet::new();
            words(&report.artifact, &mut report_words);
            words(&report.path, &mut report_words);
            for s in &report.suites {
                words(s, &mut report_words);
            }
            if let Some(tool) = report.tool {
                words(tool, &mut report_words);
            }
            let scores: Vec<u32> = jobs
                .iter()
                .map(|job| score(report, &report_words, job))
                .collect();
            let best = *scores.iter().max()?;
            let mut at_best = scores.iter().enumerate().filter(|(_, s)| **s == best);
            match (at_best.next(), at_best.next()) {
                (Some((i, _)), None) if best > 0 => Some(i),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_ci::Confidence;

    fn failure(name: &str, file: Option<&str>) -> Failure {
        Failure {
            test_name: name.to_owned(),
            file_path: file.map(str::to_owned),
            line_number: None,
            error_type: None,
            error_message: "boom".to_owned(),
            stack_trace: None,
            confidence: Confidence::High,
            framework: Framework::Junit,
            reproduce_command: None,
        }
    }

    fn report(artifact: &str, path: &str, suites: &[&str], failures: Vec<Failure>) -> ReportFile {
        ReportFile {
            artifact: artifact.to_owned(),
            path: path.to_owned(),
            tool: None,
            suites: suites.iter().map(|s| s.to_string()).collect(),
            failures,
            flaky: Vec::new(),
        }
    }

    fn job(name: &str, steps: &[&str], frameworks: &[Framework]) -> JobEvidence {
        JobEvidence {
            name: name.to_owned(),
            steps: steps.iter().map(|s| s.to_string()).collect(),
            frameworks: frameworks.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn each_report_goes_to_the_job_it_names() {
        let jobs = vec![
            job(
                "test / nextest",
                &["Run cargo nextest run --profile ci"],
                &[Framework::Nextest],
            ),
            job("test / mocha", &["Run npx mocha"], &[Framework::Mocha]),
            JobEvidence {
                files: vec!["tests/test_cart.py".into()],
                tests: vec!["tests.test_cart.CartTest.test_total".into()],
                ..job(
                    "test / unittest",
                    &["Run python -m xmlrunner"],
                    &[Framework::Unittest],
                )
            },
        ];
        let reports = vec![
            report(
                "test-results",
                "reports/TEST-x.xml",
                &["tests.test_cart.CartTest-2024"],
                vec![failure(
                    "tests.test_cart.CartTest.test_total",
                    Some("tests/test_cart.py"),
                )],
            ),
            report(
                "test-results-mocha",
                "results.xml",
                &["Mocha Tests", "cart"],
                vec![failure("sums.cart sums", Some("test/cart.spec.js"))],
            ),
            ReportFile {
                tool: Some("cargo-nextest"),
                ..report(
                    "junit",
                    "target/nextest/ci/junit.xml",
                    &["nextest-run", "alpha"],
                    vec![failure("alpha::tests::adds", None)],
                )
            },
        ];
        assert_eq!(assign(&reports, &jobs), [Some(2), Some(1), Some(0)]);
    }

    #[test]
    fn unclear_reports_go_nowhere() {
        let jobs = vec![
            job("lint", &["Run make lint"], &[]),
            job("docs", &["Run make docs"], &[]),
        ];
        let nothing = report(
            "test-results",
            "report.xml",
            &["misc"],
            vec![failure("t", None)],
        );
        // Both jobs share the word `make` with this one: a tie.
        let tie = report(
            "test-results-make",
            "report.xml",
            &[],
            vec![failure("t", None)],
        );
        assert_eq!(assign(&[nothing.clone(), tie], &jobs), [None, None]);
        // A run with one failed job: its reports are that job's.
        assert_eq!(assign(&[nothing], &jobs[..1]), [Some(0)]);
    }

    #[test]
    fn nextest_report_names_carry_the_binary() {
        assert!(same_name("tests::it", "alpha::tests::it"));
        assert!(!same_name("tests::it", "alphatests::it"));
        assert!(same_name("t", "t"));
    }
}
