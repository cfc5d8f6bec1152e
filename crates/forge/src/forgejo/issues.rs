//! Forgejo/Gitea issues over REST: `GET /repos/{o}/{r}/issues?type=issues` (the forge leaves
//! pull requests out), one issue (`pull_request` set on a pull request), an issue's comments,
//! and conversation comments by id (`/issues/comments/{id}`; `issue_url` or
//! `pull_request_url` says where a comment is). `viewer` is `GET /user`, once per client.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde_json::json;

use super::{FjComment, FjLabel, FjUser, Forgejo, actor};
use crate::http::Request;
use crate::issues::{
    ConversationComment, Issue, IssueFilter, IssueState, Issues, comment_number, not_an_issue,
    not_found_hint, subject,
};
use crate::time::Timestamp;
use crate::{Actor, Error, IssueComment, Page, PageRequest, Result};

/// Forgejo/Gitea's default `MAX_RESPONSE_ITEMS`: the most a page holds.
const MAX_LIMIT: u32 = 50;

/// Forgejo's `Issue`.
#[derive(Debug, Deserialize)]
struct FjIssue {
    number: u64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    state: Option<String>,
    user: Option<FjUser>,
    #[serde(default)]
    labels: Option<Vec<FjLabel>>,
    #[serde(default)]
    comments: u64,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    updated_at: Timestamp,
    #[serde(default)]
    html_url: String,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

impl FjIssue {
    fn into_domain(self) -> Issue {
        Issue {
            number: self.number,
            title: self.title,
            state: if self.state.as_deref() == Some("closed") {
                IssueState::Closed
            } else {
                IssueState::Open
            },
            author: actor(self.user),
            labels: self
                .labels
                .unwrap_or_default()
                .into_iter()
                .map(|l| l.name)
                .collect(),
            comments: self.comments,
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.html_url,
            is_pull_request: self.pull_request.is_some_and(|p| !p.is_null()),
        }
    }
}

/// Forgejo's `Comment` with where it is: `issue_url` on an issue, `pull_request_url` on a
/// pull request, the other "".
#[derive(Debug, Deserialize)]
struct FjLocatedComment {
    #[serde(flatten)]
    comment: FjComment,
    #[serde(default)]
    issue_url: String,
    #[serde(default)]
    pull_request_url: String,
}

impl FjLocatedComment {
    fn into_domain(self) -> Result<ConversationComment> {
        let number = comment_number(self.comment.id, &[&self.issue_url, &self.pull_request_url])?;
        Ok(ConversationComment {
            comment: self.comment.into_domain(),
            number,
        })
    }
}

fn comment_hint(repo: &RepoRef, id: u64) -> String {
    format!(
        "Check the comment id: {} has no conversation comment {id} that the token can see \
         (review comments on code lines are not conversation comments).",
        repo.full_name()
    )
}

impl Forgejo {
    async fn plain_issue(&self, issue: &PrRef) -> Result<Issue> {
        let found = self.issue(issue).await?;
        if found.is_pull_request {
            return Err(not_an_issue(issue));
        }
        Ok(found)
    }
}

#[async_trait]
impl Issues for Forgejo {
    /// One request per page of at most 50 issues (`type=issues`, so no pull requests).
    async fn list_issues(
        &self,
        repo: &RepoRef,
        filter: &IssueFilter,
        page: PageRequest,
    ) -> Result<Page<Issue>> {
        let auth = self.auth()?;
        let subject = format!("issues of {}", repo.full_name());
        let hint = format!(
            "Check that the repository {} exists and that the token can see it.",
            repo.full_name()
        );
        let limit = page.per_page.clamp(1, MAX_LIMIT);
        let query = {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query
                .append_pair("state", filter.state.as_str())
                .append_pair("type", "issues");
            if let Some(labels) = filter.labels_param() {
                query.append_pair("labels", &labels);
            }
            if let Some(author) = &filter.author {
                query.append_pair("created_by", author);
            }
            query
                .append_pair("page", &page.page.max(1).to_string())
                .append_pair("limit", &limit.to_string());
            query.finish()
        };
        let url = format!("{}/issues?{query}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        let items: Vec<FjIssue> = response.json::<Option<Vec<FjIssue>>>()?.unwrap_or_default();
        // An instance that sends no `Link` still pages: a full page may have a successor.
        let has_next = response.has_next_link() || items.len() >= limit as usize;
        Ok(Page {
            items: items
                .into_iter()
                .map(FjIssue::into_domain)
                .filter(|i| filter.keeps(i))
                .collect(),
            has_next,
        })
    }

    async fn issue(&self, issue: &PrRef) -> Result<Issue> {
        let auth = self.auth()?;
        let subject = subject(issue);
        let hint = not_found_hint(issue);
        let url = format!("{}/issues/{}", self.repo_api(&issue.repo), issue.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<FjIssue>()?.into_domain())
    }

    async fn list_issue_comments(
        &self,
        issue: &PrRef,
        page: PageRequest,
    ) -> Result<Page<IssueComment>> {
        let auth = self.auth()?;
        let subject = format!("comments of {}", subject(issue));
        let hint = not_found_hint(issue);
        // This endpoint takes no page/limit and answers with every comment; the page is cut
        // here, and the issue is read alongside to refuse a pull request's number.
        let url = format!(
            "{}/issues/{}/comments",
            self.repo_api(&issue.repo),
            issue.number
        );
        let request = Request::get(url, Some(auth), &subject).not_found_hint(&hint);
        let (_, response) = tokio::try_join!(self.plain_issue(issue), self.http.send(&request))?;
        let all: Vec<FjComment> = response
            .json::<Option<Vec<FjComment>>>()?
            .unwrap_or_default();
        let per_page = page.per_page.max(1) as usize;
        let start = (page.page.max(1) as usize - 1).saturating_mul(per_page);
        let has_next = all.len() > start.saturating_add(per_page);
        let items = all
            .into_iter()
            .skip(start)
            .take(per_page)
            .map(FjComment::into_domain)
            .collect();
        Ok(Page { items, has_next })
    }

    async fn create_issue_comment(&self, issue: &PrRef, body: &str) -> Result<IssueComment> {
        if body.trim().is_empty() {
            return Err(Error::usage("the comment body is empty")
                .with_detail("field", "body")
                .with_suggestion("Pass the text of the comment."));
        }
        self.plain_issue(issue).await?;
        let auth = self.auth()?;
        let subject = format!("a new comment on {}", subject(issue));
        let hint = not_found_hint(issue);
        let url = format!(
            "{}/issues/{}/comments",
            self.repo_api(&issue.repo),
            issue.number
        );
        let payload = json!({ "body": body });
        let response = self
            .http
            .send(&Request::post(url, Some(auth), &payload, &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<FjComment>()?.into_domain())
    }

    async fn comment(&self, repo: &RepoRef, id: u64) -> Result<ConversationComment> {
        let auth = self.auth()?;
        let subject = format!("comment {id} of {}", repo.full_name());
        let hint = comment_hint(repo, id);
        let url = format!("{}/issues/comments/{id}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        response.json::<FjLocatedComment>()?.into_domain()
    }

    async fn edit_comment(
        &self,
        repo: &RepoRef,
        id: u64,
        body: &str,
    ) -> Result<ConversationComment> {
        if body.trim().is_empty() {
            return Err(Error::usage("the comment body is empty")
                .with_detail("field", "body")
                .with_suggestion("Pass the new text of the comment."));
        }
        let auth = self.auth()?;
        let subject = format!("an edit of comment {id} of {}", repo.full_name());
        let hint = comment_hint(repo, id);
        let url = format!("{}/issues/comments/{id}", self.repo_api(repo));
        let payload = json!({ "body": body });
        let response = self
            .http
            .send(&Request::patch(url, Some(auth), &payload, &subject).not_found_hint(&hint))
            .await?;
        response.json::<FjLocatedComment>()?.into_domain()
    }

    async fn viewer(&self) -> Result<Actor> {
        self.viewer
            .get_or_try_init(|| async {
                let auth = self.auth()?;
                let url = format!("{}/user", self.api());
                let response = self
                    .http
                    .send(&Request::get(url, Some(auth), "the token's account"))
                    .await?;
                Ok(actor(Some(response.json::<FjUser>()?)))
            })
            .await
            .cloned()
    }
}
