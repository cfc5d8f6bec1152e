//! The `Issues` capability: a repository's issues, an issue's conversation, and conversation
//! comments by id (read, edit) on issues and pull requests alike, plus who the token is.
//! Both forges list pull requests as issues and share the comment endpoints between the two;
//! this module's decisions (which listed items an [`IssueFilter`] keeps, which number is
//! refused as not an issue) are the same for both clients.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

use crate::time::Timestamp;
use crate::{Actor, Error, IssueComment, Page, PageRequest, Result};

/// An issue as both forges list it. Pull requests are issues too on both forges: one
/// read by number says which it is in `is_pull_request`; listings leave them out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub number: u64,
    pub title: String,
    pub state: IssueState,
    pub author: Actor,
    pub labels: Vec<String>,
    /// Conversation comments.
    pub comments: u64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub html_url: String,
    pub is_pull_request: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueState {
    Open,
    Closed,
}

impl IssueState {
    pub fn as_str(self) -> &'static str {
        match self {
            IssueState::Open => "open",
            IssueState::Closed => "closed",
        }
    }
}

/// The states a listing includes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IssueListState {
    #[default]
    Open,
    Closed,
    All,
}

impl IssueListState {
    /// The `state` parameter both forges take.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueListState::Open => "open",
            IssueListState::Closed => "closed",
            IssueListState::All => "all",
        }
    }
}

/// Which issues a listing keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueFilter {
    pub state: IssueListState,
    /// Every one of these labels must be on the issue (names compared without case).
    pub labels: Vec<String>,
    /// Only issues opened by this login.
    pub author: Option<String>,
}

impl IssueFilter {
    /// Whether a listed issue passes: the clients send the filter to the forge and check
    /// every item here too, since Forgejo/Gitea match `labels` by any rather than all, and
    /// a label whose name holds a comma cannot be sent at all.
    pub fn keeps(&self, issue: &Issue) -> bool {
        let state = match self.state {
            IssueListState::Open => issue.state == IssueState::Open,
            IssueListState::Closed => issue.state == IssueState::Closed,
            IssueListState::All => true,
        };
        state
            && !issue.is_pull_request
            && self
                .labels
                .iter()
                .all(|l| issue.labels.iter().any(|have| have.eq_ignore_ascii_case(l)))
            && self
                .author
                .as_deref()
                .is_none_or(|a| issue.author.login.eq_ignore_ascii_case(a))
    }

    /// The labels that can be sent as the forges' comma-separated `labels` parameter, joined;
    /// `None` when there are none.
    pub(crate) fn labels_param(&self) -> Option<String> {
        let sendable: Vec<&str> = self
            .labels
            .iter()
            .map(String::as_str)
            .filter(|l| !l.contains(','))
            .collect();
        (!sendable.is_empty()).then(|| sendable.join(","))
    }
}

/// A conversation comment with the number of the issue or pull request it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationComment {
    pub comment: IssueComment,
    pub number: u64,
}

/// Issues and conversation comments by id.
#[async_trait]
pub trait Issues: Send + Sync {
    /// One forge page of the repository's issues that pass `filter`, newest first, never a
    /// pull request. `has_next` is the forge's: a page may hold fewer than `per_page` items,
    /// or none, where the forge listed pull requests or filtered less than `filter` asks.
    async fn list_issues(
        &self,
        repo: &RepoRef,
        filter: &IssueFilter,
        page: PageRequest,
    ) -> Result<Page<Issue>>;

    /// One issue or pull request by number; `is_pull_request` says which.
    async fn issue(&self, issue: &PrRef) -> Result<Issue>;

    /// One page of an issue's conversation comments, oldest first. A pull request's number
    /// is a `Usage` error ([`not_an_issue`]).
    async fn list_issue_comments(
        &self,
        issue: &PrRef,
        page: PageRequest,
    ) -> Result<Page<IssueComment>>;

    /// Posts a comment on an issue and returns it as the forge stored it. Reads the issue
    /// first, so a pull request's number (or none) writes nothing.
    async fn create_issue_comment(&self, issue: &PrRef, body: &str) -> Result<IssueComment>;

    /// A conversation comment of the repository by id, on an issue or a pull request.
    async fn comment(&self, repo: &RepoRef, id: u64) -> Result<ConversationComment>;

    /// Replaces a conversation comment's body; never retried once it may have reached the
    /// forge. Checks nothing: callers check whose comment it is and where it is first.
    async fn edit_comment(
        &self,
        repo: &RepoRef,
        id: u64,
        body: &str,
    ) -> Result<ConversationComment>;

    /// The account the client's token belongs to (`GET /user`), asked once per client
    /// (so once per credential) and remembered.
    async fn viewer(&self) -> Result<Actor>;
}

/// "issue owner/repo#N", the subject of error messages.
pub(crate) fn subject(issue: &PrRef) -> String {
    format!(
        "issue {}/{}#{}",
        issue.repo.owner, issue.repo.repo, issue.number
    )
}

/// What to check when an issue is "not found".
pub(crate) fn not_found_hint(issue: &PrRef) -> String {
    format!(
        "Check the reference: the repository {}/{} may not exist, have no issue #{}, or the \
         token cannot see it.",
        issue.repo.owner, issue.repo.repo, issue.number
    )
}

/// The error for a pull request's number given where an issue is expected.
pub fn not_an_issue(issue: &PrRef) -> Error {
    Error::usage(format!(
        "{}/{}#{} is a pull request, not an issue",
        issue.repo.owner, issue.repo.repo, issue.number
    ))
    .with_detail("number", issue.number)
    .with_detail("is_pull_request", true)
    .with_suggestion(
        "Use the pull request comment tools for it (pr_comment_list, pr_comment_create, \
         pr_comment_edit).",
    )
}

/// Reads the number from the end of an issue or pull request URL (`…/issues/12`,
/// `…/pulls/12`), which is how both forges say where a comment is.
pub(crate) fn number_from_url(url: &str) -> Option<u64> {
    url.trim_end_matches('/').rsplit('/').next()?.parse().ok()
}

/// The comment's issue number, or an `InvalidBody` error naming what the forge sent.
pub(crate) fn comment_number(id: u64, urls: &[&str]) -> Result<u64> {
    urls.iter()
        .filter(|u| !u.is_empty())
        .find_map(|u| number_from_url(u))
        .ok_or_else(|| {
            Error::invalid_body(format!(
                "the forge did not say which issue or pull request comment {id} is on"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issue(labels: &[&str], author: &str, pull: bool) -> Issue {
        Issue {
            number: 1,
            title: "t".into(),
            state: IssueState::Open,
            author: Actor {
                login: author.into(),
                is_bot: false,
            },
            labels: labels.iter().map(|l| (*l).to_owned()).collect(),
            comments: 0,
            created_at: crate::parse_time("2024-01-01T00:00:00Z").expect("time"),
            updated_at: crate::parse_time("2024-01-01T00:00:00Z").expect("time"),
            html_url: String::new(),
            is_pull_request: pull,
        }
    }

    #[test]
    fn a_filter_wants_every_label_and_never_a_pull_request() {
        let filter = IssueFilter {
            labels: vec!["bug".into(), "Needs, triage".into()],
            author: Some("Alice".into()),
            ..IssueFilter::default()
        };
        assert!(filter.keeps(&issue(&["needs, triage", "BUG", "x"], "alice", false)));
        assert!(!filter.keeps(&issue(&["bug"], "alice", false)));
        assert!(!filter.keeps(&issue(&["bug", "needs, triage"], "bob", false)));
        assert!(!filter.keeps(&issue(&["bug", "needs, triage"], "alice", true)));
        assert_eq!(filter.labels_param().as_deref(), Some("bug"));
    }

    #[test]
    fn comment_urls_name_the_number() {
        assert_eq!(number_from_url("https://api/repos/o/r/issues/12"), Some(12));
        assert_eq!(
            comment_number(1, &["", "http://h/o/r/pulls/7"]).ok(),
            Some(7)
        );
        assert!(comment_number(1, &["", ""]).is_err());
    }
}
