//! CI as the forge reports it for a commit: check runs, legacy commit statuses, GitHub
//! Actions (or Forgejo/Gitea Actions) jobs with their steps and logs, check-run annotations
//! and run artifacts. Forge-neutral: GitHub's and Forgejo's shapes both map here.
//!
//! Not here: reading logs for failing tests (the `ci` crate) or deciding what status a PR's
//! CI is in (`resolve_pr_pr::ci_state`).

use std::pin::Pin;

use bytes::Bytes;
use futures_util::Stream;
use serde::{Deserialize, Serialize};

use crate::time::Timestamp;
use crate::{Result, UnreadRules};

/// Where a check is in its life. GitHub's `queued`, `waiting`, `requested` and `pending`
/// are all `Queued`; a commit status's `pending` is `Queued` too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckState {
    Queued,
    InProgress,
    Completed,
}

/// How a completed check ended. Commit statuses map `success` to `Success` and both
/// `failure` and `error` to `Failure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckConclusion {
    Success,
    Failure,
    Neutral,
    Cancelled,
    Skipped,
    TimedOut,
    ActionRequired,
    StartupFailure,
    Stale,
}

impl CheckConclusion {
    /// Failure, timed out, cancelled, startup failure and action required fail a PR;
    /// skipped, neutral and stale do not.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Self::Failure
                | Self::TimedOut
                | Self::Cancelled
                | Self::StartupFailure
                | Self::ActionRequired
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Neutral => "neutral",
            Self::Cancelled => "cancelled",
            Self::Skipped => "skipped",
            Self::TimedOut => "timed_out",
            Self::ActionRequired => "action_required",
            Self::StartupFailure => "startup_failure",
            Self::Stale => "stale",
        }
    }
}

/// The Actions job behind a check (GitHub: a check run created by the `github-actions`
/// app, whose id is the job id; Forgejo/Gitea: a status whose target URL is
/// `/{owner}/{repo}/actions/runs/{run}/jobs/{job}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionsJobRef {
    pub run_id: u64,
    pub job_id: u64,
}

/// One check: a GitHub check run, or a commit status (GitHub's legacy statuses, and
/// everything on Forgejo/Gitea).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Check run id, or 0 for a commit status (statuses have no stable id worth using).
    pub id: u64,
    /// Check run name, or the status's context (`ci/jenkins`, `test / unit (push)`).
    pub name: String,
    pub kind: CheckKind,
    pub state: CheckState,
    pub conclusion: Option<CheckConclusion>,
    #[serde(with = "crate::time::rfc3339_opt")]
    pub started_at: Option<Timestamp>,
    #[serde(with = "crate::time::rfc3339_opt")]
    pub completed_at: Option<Timestamp>,
    /// Where a person looks at it: the check's page, the status's target URL.
    pub details_url: Option<String>,
    /// The app that reported a check run (`github-actions`, `circleci-checks`).
    pub app: Option<String>,
    /// Check-run output title and summary, or a status's description.
    pub title: Option<String>,
    pub summary: Option<String>,
    /// Check-run output text (third-party CI often puts its report here).
    pub text: Option<String>,
    pub annotations_count: u64,
    /// Set when this check is an Actions job whose log and steps the forge can serve.
    pub actions_job: Option<ActionsJobRef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    CheckRun,
    Status,
}

/// Every check of a PR's head commit, all pages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CiSnapshot {
    pub head_sha: String,
    pub checks: Vec<Check>,
    /// Which checks a branch rule requires, and whether that is all of them: GitHub
    /// rulesets and classic branch protection as far as the token can read them, and, when
    /// either cannot be read (classic protection needs admin rights), GraphQL's `isRequired`
    /// for the head's checks that have not passed; Forgejo/Gitea branch protections.
    pub required: RequiredChecks,
    /// True when every request of this snapshot was answered `304 Not Modified` (nothing
    /// changed since the previous snapshot in this process, and no rate limit was spent).
    pub unchanged: bool,
}

/// What a snapshot knows about the checks branch rules require. A source that could not be
/// read makes the answer partial or unknown, never "not required".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequiredChecks {
    /// Checks a source says a rule requires.
    pub names: Vec<String>,
    /// Reported checks GraphQL's `isRequired` says no rule requires (GitHub, asked when a
    /// rule source could not be read).
    pub not_required: Vec<String>,
    pub known: Known,
    /// The sources that could not be read, each with why (as `MergeFacts` lists them:
    /// `classic branch protection`, `rulesets of branch main`, `GraphQL isRequired`, `branch
    /// protection`); empty when `known` is complete.
    pub unread: Vec<UnreadRules>,
}

/// How much of the required set a snapshot knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Known {
    /// Every source was read: `names` is every required check.
    Complete,
    /// Some sources answered, others could not be read (`unread`): `names` may lack some.
    Partial,
    /// No source could be read.
    Unknown,
}

impl RequiredChecks {
    /// Every required check is one of `names`.
    pub fn complete(names: Vec<String>) -> RequiredChecks {
        RequiredChecks {
            names,
            not_required: Vec::new(),
            known: Known::Complete,
            unread: Vec::new(),
        }
    }

    /// No source could be read.
    pub fn unknown(unread: Vec<UnreadRules>) -> RequiredChecks {
        RequiredChecks {
            names: Vec::new(),
            not_required: Vec::new(),
            known: Known::Unknown,
            unread,
        }
    }

    /// Whether a rule requires the check `name`: `None` when that cannot be known (a source
    /// could not be read, and no other answered for this check).
    pub fn is_required(&self, name: &str) -> Option<bool> {
        if self.names.iter().any(|n| n == name) {
            Some(true)
        } else if self.known == Known::Complete || self.not_required.iter().any(|n| n == name) {
            Some(false)
        } else {
            None
        }
    }
}

/// An Actions job with its steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    pub id: u64,
    pub run_id: u64,
    pub name: String,
    pub workflow_name: Option<String>,
    pub state: CheckState,
    pub conclusion: Option<CheckConclusion>,
    #[serde(with = "crate::time::rfc3339_opt")]
    pub started_at: Option<Timestamp>,
    #[serde(with = "crate::time::rfc3339_opt")]
    pub completed_at: Option<Timestamp>,
    pub html_url: Option<String>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub number: u64,
    pub name: String,
    pub state: CheckState,
    pub conclusion: Option<CheckConclusion>,
}

/// A workflow run (the "CI run" of seed 003's `CIInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkflowRun {
    pub id: u64,
    pub name: String,
    pub html_url: Option<String>,
    pub state: CheckState,
    pub conclusion: Option<CheckConclusion>,
    #[serde(with = "crate::time::rfc3339_opt")]
    pub started_at: Option<Timestamp>,
    #[serde(with = "crate::time::rfc3339_opt")]
    pub updated_at: Option<Timestamp>,
    /// The workflow it is a run of (GitHub's numeric id), for its history.
    pub workflow_id: Option<u64>,
}

/// A check-run annotation: the cheapest structured failure data there is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    /// `failure`, `warning` or `notice`.
    pub level: String,
    pub title: Option<String>,
    pub message: String,
    pub raw_details: Option<String>,
}

/// A workflow-run artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub id: u64,
    pub name: String,
    pub size_in_bytes: u64,
    pub expired: bool,
}

/// A job log as it arrives: never buffered whole. `skipped_bytes` is how much of the start
/// was left out because the log was larger than the caller's limit (the tail is what holds
/// the failures); `total_bytes` is the full size when the server said.
pub struct LogStream {
    pub total_bytes: Option<u64>,
    pub skipped_bytes: u64,
    pub chunks: Pin<Box<dyn Stream<Item = Result<Bytes>> + Send>>,
}

impl std::fmt::Debug for LogStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogStream")
            .field("total_bytes", &self.total_bytes)
            .field("skipped_bytes", &self.skipped_bytes)
            .finish_non_exhaustive()
    }
}
