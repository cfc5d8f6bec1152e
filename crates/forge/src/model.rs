//! Domain types: what the tools need to know about pull requests and their conversation,
//! independent of which forge served them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A page of a forge listing, 1-based as both forges number them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub per_page: u32,
}

/// One page of results, and whether the forge has more after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub has_next: bool,
}

/// Who wrote something. Deleted accounts come back as `ghost` (GitHub) or `Ghost`
/// (Forgejo/Gitea), never as a missing author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Actor {
    pub login: String,
    /// The account type the forge reports is a bot (GitHub `type: Bot`; on Forgejo/Gitea,
    /// bot accounts as the instance reports them). Never guessed from the name.
    pub is_bot: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrState {
    Open,
    Closed,
    Merged,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequest {
    pub number: u64,
    pub title: String,
    pub state: PrState,
    pub draft: bool,
    pub author: Actor,
    pub html_url: String,
    pub head_ref: String,
    pub head_sha: String,
    pub base_ref: String,
}

/// A conversation comment on a PR (GitHub: issue comment; Forgejo/Gitea: issue comment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IssueComment {
    pub id: u64,
    pub author: Actor,
    /// GitHub's `author_association` (OWNER, MEMBER, ...); Forgejo/Gitea have none.
    pub author_association: Option<String>,
    pub body: String,
    /// ISO 8601, as the forge reported it.
    pub created_at: String,
    pub updated_at: String,
    pub html_url: String,
}
