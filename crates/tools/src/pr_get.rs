//! `pr_get`: one pull request as an agent needs it before working on it: description (cut
//! to a budget), branches, mergeability as the forge reports it, labels, whose reviews are
//! requested and each reviewer's latest verdict. Two requests on both forges (the pull
//! request, and its reviews — one more per further page of reviews), sent concurrently.

use std::collections::BTreeMap;

use resolve_pr_core::{Result, budget};
use resolve_pr_forge::{ForgeKind, PrState, Review, ReviewState, format_time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::pr_target;
use crate::registry::{Annotations, Tool};

/// Bytes of the description shown; the rest is on the pull request's page.
const BODY_BYTES: usize = 4000;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Also "host/owner/repo" or "https://host/owner/repo" for a forge other than the default.
    /// Give this or directory.
    #[serde(default)]
    #[schemars(example = &"owner/repo")]
    pub repository: Option<String>,
    /// A local checkout whose remote names the repository (upstream, then origin).
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(range(min = 1), example = 42)]
    pub pull_request_number: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Head {
    pub branch: String,
    pub sha: String,
    /// Absent when that repository was deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// In another (or a deleted) repository.
    pub fork: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Base {
    pub branch: String,
    pub sha: String,
    pub repository: String,
}

/// A reviewer's latest submitted review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewerState {
    pub reviewer: String,
    pub state: ReviewState,
    pub submitted_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub title: String,
    /// Cut to a budget when long.
    pub body: String,
    /// Present when body was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_cut: Option<String>,
    pub state: PrState,
    pub draft: bool,
    pub author: String,
    pub head: Head,
    pub base: Base,
    /// Absent: not computed yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mergeable: Option<bool>,
    /// GitHub only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mergeable_state: Option<String>,
    /// mergeable in words.
    pub mergeability: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requested_reviewers: Vec<String>,
    /// "org/team".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requested_teams: Vec<String>,
    /// Each reviewer's latest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reviews: Vec<ReviewerState>,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_at: Option<String>,
    pub html_url: String,
}

pub struct PrGet;

impl Tool for PrGet {
    const NAME: &'static str = "pr_get";
    const TITLE: &'static str = "Get a pull request";
    const DESCRIPTION: &'static str = "One pull request on GitHub, GitHub Enterprise, Forgejo \
or Gitea: description, branches, mergeability as the forge reports it, labels, requested \
reviewers and each reviewer's latest review. An issue's number is not found.";
    const TOOLSET: crate::Toolset = crate::Toolset::Comments;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let pr = pr_target(
            ctx,
            input.repository.as_deref(),
            input.directory.as_deref(),
            input.pull_request_number,
            "pull_request_number",
            Vec::new(),
        )
        .await?;
        let forge = ctx.forge(&pr.repo)?;
        let (details, reviews) = tokio::try_join!(
            forge.pull_requests().pull_request_details(&pr),
            forge.threads().reviews(&pr)
        )?;
        let pull = details.pull;
        let cut = budget::cut(&pull.body, BODY_BYTES, &pull.html_url);
        // The body's own marker gives the exact figures; this says only that it was cut.
        let body_cut = cut.original_bytes.map(|total| {
            format!(
                "the description has {total} bytes, more than the {BODY_BYTES} shown; the whole \
                 text is at {}",
                pull.html_url
            )
        });
        // Once closed or merged, what the forge last said about a merge is stale (Forgejo says
        // `false` for a merged pull request); mergeability says why it no longer applies.
        let open = pull.state == resolve_pr_forge::PrState::Open;
        let mergeability = mergeability(forge.kind(), &pull);
        let fork = pull.is_from_fork();
        Ok(Output {
            pr: pr.to_string(),
            title: pull.title,
            body: cut.text,
            body_cut,
            state: pull.state,
            draft: pull.draft,
            author: pull.author.login,
            head: Head {
                branch: pull.head_ref,
                sha: pull.head_sha,
                repository: pull.head_repo,
                fork,
            },
            base: Base {
                branch: pull.base_ref,
                sha: pull.base_sha,
                repository: pull.base_repo,
            },
            mergeable: pull.mergeable.filter(|_| open),
            mergeable_state: pull.mergeable_state.filter(|_| open),
            mergeability,
            labels: pull.labels,
            requested_reviewers: details
                .requested_reviewers
                .into_iter()
                .map(|a| a.login)
                .collect(),
            requested_teams: details.requested_teams,
            reviews: latest_reviews(reviews),
            created_at: format_time(&details.created_at),
            updated_at: format_time(&details.updated_at),
            merged_at: pull.merged_at.as_ref().map(format_time),
            html_url: pull.html_url,
        })
    }

    fn render(out: &Output) -> String {
        let draft = if out.draft { " draft" } else { "" };
        let mut text = format!(
            "{} [{}{draft}] {} by {}: {} -> {}. {}",
            out.pr,
            crate::pr_list::state_word(out.state),
            out.title,
            out.author,
            out.head.branch,
            out.base.branch,
            out.mergeability
        );
        if !out.requested_reviewers.is_empty() || !out.requested_teams.is_empty() {
            let who: Vec<&str> = out
                .requested_reviewers
                .iter()
                .chain(&out.requested_teams)
                .map(String::as_str)
                .collect();
            text.push_str(&format!("\nReview requested from: {}", who.join(", ")));
        }
        for r in &out.reviews {
            text.push_str(&format!(
                "\n- {} {} at {}",
                r.reviewer,
                serde_json::to_value(r.state)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                r.submitted_at
            ));
        }
        if !out.body.trim().is_empty() {
            text.push_str(&format!("\n\n{}\n", out.body.trim_end()));
        }
        text
    }
}

/// Each reviewer's latest submitted review (pending ones are nobody's verdict yet).
fn latest_reviews(reviews: Vec<Review>) -> Vec<ReviewerState> {
    let mut latest: BTreeMap<String, (resolve_pr_forge::Timestamp, ReviewState)> = BTreeMap::new();
    for r in reviews {
        let Some(at) = r.submitted_at else { continue };
        if r.state == ReviewState::Pending {
            continue;
        }
        let entry = latest.entry(r.author.login).or_insert((at, r.state));
        if at >= entry.0 {
            *entry = (at, r.state);
        }
    }
    let mut out: Vec<ReviewerState> = latest
        .into_iter()
        .map(|(reviewer, (at, state))| ReviewerState {
            reviewer,
            state,
            submitted_at: format_time(&at),
        })
        .collect();
    out.sort_by(|a, b| a.submitted_at.cmp(&b.submitted_at));
    out
}

/// What the forge's mergeability fields say, in words: GitHub computes mergeability in the
/// background after a read (`null` until then); Forgejo/Gitea's `false` also means "still
/// checking", "the check failed" or "a draft".
fn mergeability(kind: ForgeKind, pull: &resolve_pr_forge::PullRequest) -> String {
    match pull.state {
        PrState::Merged => return "merged; mergeability no longer applies".to_owned(),
        PrState::Closed => return "closed; mergeability applies only once reopened".to_owned(),
        PrState::Open => {}
    }
    let state = pull
        .mergeable_state
        .as_deref()
        .map(|s| format!(" (mergeable_state {s})"))
        .unwrap_or_default();
    match (kind, pull.mergeable) {
        (ForgeKind::GitHub, None) => "not computed yet: GitHub works it out in the background \
after a read; call again in a few seconds"
            .to_owned(),
        (ForgeKind::GitHub, Some(true)) => {
            format!("can merge without conflicts{state}")
        }
        (ForgeKind::GitHub, Some(false)) => {
            format!("conflicts with the base branch{state}")
        }
        (_, Some(true)) => "can merge without conflicts".to_owned(),
        (_, _) => "the forge says not mergeable, which on Forgejo/Gitea also means it is still \
checking, its check failed, or the pull request is a draft: not conclusive \
(detect_merge_conflicts tells for sure)"
            .to_owned(),
    }
}
