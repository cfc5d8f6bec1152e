//! A failing test as a CI log names it (seed 003's `FailedTest`, minus what only the forge
//! knows: check name and log URL).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The test frameworks whose output is understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Framework {
    Pytest,
    Unittest,
    CargoTest,
    Nextest,
    Jest,
    Vitest,
    Mocha,
    GoTest,
    Rspec,
    Phpunit,
    Junit,
    Generic,
}

/// How sure the parser is that this is a failing test and that its fields are right.
/// - `high`: the framework's own structured summary named it (e.g. pytest's short test
///   summary, libtest's `failures:` list, a JUnit `<failure>`), with a location.
/// - `medium`: the framework's output named it, but a field had to be inferred (e.g. the
///   location from a stack frame).
/// - `low`: a generic error block that may not be a test at all.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

/// One failing test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    /// As the framework names it (`tests/test_x.py::test_login[admin]`, `mod::test`).
    pub test_name: String,
    /// Repository-relative, runner prefixes like `/home/runner/work/repo/repo/` removed.
    pub file_path: Option<String>,
    pub line_number: Option<u64>,
    /// `AssertionError`, `panicked`, `TypeError`, ...
    pub error_type: Option<String>,
    pub error_message: String,
    /// Bounded excerpt of the trace.
    pub stack_trace: Option<String>,
    pub confidence: Confidence,
    pub framework: Framework,
    /// A command that runs just this test locally, quoted for POSIX shells.
    pub reproduce_command: Option<String>,
}

/// A test that failed and then passed on a retry in the same job (pytest-rerunfailures,
/// nextest `--retries`, jest `retryTimes`, vitest `--retry`): flaky by the framework's own
/// account. Not a failure: the job did not fail because of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FlakyTest {
    /// As the framework names it, the same way a [`Failure`] of it would be named.
    pub test_name: String,
    pub framework: Framework,
    pub file_path: Option<String>,
    pub line_number: Option<u64>,
    /// Attempts that failed before the one that passed, when the log says.
    pub failed_attempts: Option<u32>,
    /// Every attempt, the passing one included, when the log says.
    pub attempts: Option<u32>,
    /// What the failed attempt printed (bounded), when the log shows it.
    pub error_message: Option<String>,
}
