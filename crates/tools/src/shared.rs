//! Pieces several tools share: resolving the repository/PR arguments and the comment shape
//! agents see.

use resolve_pr_core::{Error, PrRef, RepoRef, Result};
use resolve_pr_forge::IssueComment;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Validates `repository` and `pull_request_number` together, so an agent learns about every
/// bad field in one round trip.
pub fn pr_from_args(repository: &str, number: i64, mut problems: Vec<String>) -> Result<PrRef> {
    let repo = match RepoRef::parse(repository) {
        Ok(r) => Some(r),
        Err(e) => {
            problems.insert(
                0,
                format!("repository must be in format 'owner/repo' ({})", e.error),
            );
            None
        }
    };
    if number <= 0 {
        problems.insert(
            problems.len().min(1),
            format!("pull_request_number must be positive (got {number})"),
        );
    }
    match (repo, problems.is_empty()) {
        (Some(repo), true) => Ok(PrRef { repo, number: number as u64 }),
        _ => Err(Error::user(format!("Invalid request: {}", problems.join("; ")))
            .with_detail("problems", problems)
            .with_suggestion(
                "Example: {\"repository\": \"octocat/hello-world\", \"pull_request_number\": 42, ...}. \
                 repository may also be 'host/owner/repo' or 'https://host/owner/repo' for other forges.",
            )),
    }
}

/// A conversation comment as the comment tools return it (seed 001's `PullRequestComment`,
/// plus the link and the author's account type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestComment {
    pub id: u64,
    pub body: String,
    /// Login of the author; `ghost` for a deleted account.
    pub user: String,
    /// The forge reports the author's account as a bot.
    pub is_bot: bool,
    /// GitHub only: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author_association: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub html_url: String,
}

impl From<IssueComment> for PullRequestComment {
    fn from(c: IssueComment) -> Self {
        PullRequestComment {
            id: c.id,
            body: c.body,
            user: c.author.login,
            is_bot: c.author.is_bot,
            author_association: c.author_association,
            created_at: c.created_at,
            updated_at: c.updated_at,
            html_url: c.html_url,
        }
    }
}

/// The first line of a body, cut for one-line text renderings.
pub fn first_line(body: &str, max_chars: usize) -> String {
    let line = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > max_chars {
        let cut: String = line.chars().take(max_chars).collect();
        format!("{cut}…")
    } else if body.trim().lines().count() > 1 {
        format!("{line} …")
    } else {
        line.to_owned()
    }
}
