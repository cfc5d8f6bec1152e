//! GitHub's issues over REST: `GET /repos/{o}/{r}/issues` (which lists pull requests too,
//! marked by a `pull_request` object, so they are dropped here), one issue, an issue's
//! comments, and conversation comments by id (`/issues/comments/{id}`, shared with pull
//! requests). `viewer` is `GET /user` (GraphQL `viewer` for installation tokens, which may not
//! read it), once per client.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde_json::json;

use super::{GhComment, GhLabel, GhUser, GitHub, MAX_PER_PAGE, actor};
use crate::http::Request;
use crate::issues::{
    ConversationComment, Issue, IssueFilter, IssueState, Issues, comment_number, not_an_issue,
    not_found_hint, subject,
};
use crate::time::Timestamp;
use crate::{Actor, Error, IssueComment, Page, PageRequest, Result};

/// GitHub's `issue`, as listed and as read one by one.
#[derive(Debug, Deserialize)]
struct GhIssue {
    number: u64,
    title: String,
    state: String,
    user: Option<GhUser>,
    #[serde(default)]
    labels: Vec<GhLabel>,
    #[serde(default)]
    comments: u64,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    updated_at: Timestamp,
    html_url: String,
    /// Present (an object) exactly when the issue is a pull request.
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

impl GhIssue {
    fn into_domain(self) -> Issue {
        Issue {
            number: self.number,
            title: self.title,
            state: if self.state == "open" {
                IssueState::Open
            } else {
                IssueState::Closed
            },
            author: actor(self.user),
            labels: self.labels.into_iter().map(|l| l.name).collect(),
            comments: self.comments,
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.html_url,
            is_pull_request: self.pull_request.is_some_and(|p| !p.is_null()),
        }
    }
}

/// GitHub's `issue-comment` with the issue it is on (`issue_url` names pull requests as
/// issues too).
#[derive(Debug, Deserialize)]
struct GhLocatedComment {
    #[serde(flatten)]
    comment: GhComment,
    #[serde(default)]
    issue_url: String,
}

impl GhLocatedComment {
    fn into_domain(self) -> Result<ConversationComment> {
        let number = comment_number(self.comment.id, &[&self.issue_url])?;
        Ok(ConversationComment {
            comment: self.comment.into_domain(),
            number,
        })
    }
}

impl GitHub {
    /// The issue, refused when it is a pull request.
    async fn plain_issue(&self, issue: &PrRef) -> Result<Issue> {
        let found = self.issue(issue).await?;
        if found.is_pull_request {
            return Err(not_an_issue(issue));
        }
        Ok(found)
    }
}

fn comment_hint(repo: &RepoRef, id: u64) -> String {
    format!(
        "Check the comment id: {} has no conversation comment {id} that the token can see \
         (review comments on code lines have ids of their own).",
        repo.full_name()
    )
}

#[async_trait]
impl Issues for GitHub {
    /// One request per page of 100 (issues and pull requests together, as GitHub pages them).
    async fn list_issues(
        &self,
        repo: &RepoRef,
        filter: &IssueFilter,
        page: PageRequest,
    ) -> Result<Page<Issue>> {
        let auth = self.auth().await?;
        let subject = format!("issues of {}", repo.full_name());
        let hint = format!(
            "Check that the repository {} exists and that the token can see it.",
            repo.full_name()
        );
        let per_page = page.per_page.clamp(1, MAX_PER_PAGE);
        let query = {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.append_pair("state", filter.state.as_str());
            if let Some(labels) = filter.labels_param() {
                query.append_pair("labels", &labels);
            }
            if let Some(author) = &filter.author {
                query.append_pair("creator", author);
            }
            query
                .append_pair("sort", "created")
                .append_pair("direction", "desc")
                .append_pair("per_page", &per_page.to_string())
                .append_pair("page", &page.page.max(1).to_string());
            query.finish()
        };
        let url = format!("{}/issues?{query}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        let items: Vec<GhIssue> = response.json()?;
        let has_next = response.may_have_next(items.len(), per_page as usize);
        Ok(Page {
            items: items
                .into_iter()
                .map(GhIssue::into_domain)
                .filter(|i| filter.keeps(i))
                .collect(),
            has_next,
        })
    }

    async fn issue(&self, issue: &PrRef) -> Result<Issue> {
        let auth = self.auth().await?;
        let subject = subject(issue);
        let hint = not_found_hint(issue);
        let url = format!("{}/issues/{}", self.repo_api(&issue.repo), issue.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<GhIssue>()?.into_domain())
    }

    async fn list_issue_comments(
        &self,
        issue: &PrRef,
        page: PageRequest,
    ) -> Result<Page<IssueComment>> {
        let auth = self.auth().await?;
        let subject = format!("comments of {}", subject(issue));
        let hint = not_found_hint(issue);
        let per_page = page.per_page.clamp(1, MAX_PER_PAGE);
        let url = format!(
            "{}/issues/{}/comments?per_page={per_page}&page={}",
            self.repo_api(&issue.repo),
            issue.number,
            page.page.max(1)
        );
        // The endpoint serves pull requests too; reading the issue alongside (conditionally
        // once cached) refuses a pull request's number.
        let request = Request::get(url, Some(auth), &subject).not_found_hint(&hint);
        let (_, response) = tokio::try_join!(self.plain_issue(issue), self.http.send(&request))?;
        let items: Vec<GhComment> = response.json()?;
        Ok(Page {
            has_next: response.may_have_next(items.len(), per_page as usize),
            items: items.into_iter().map(GhComment::into_domain).collect(),
        })
    }

    async fn create_issue_comment(&self, issue: &PrRef, body: &str) -> Result<IssueComment> {
        if body.trim().is_empty() {
            return Err(Error::usage("the comment body is empty")
                .with_detail("field", "body")
                .with_suggestion("Pass the text of the comment."));
        }
        self.plain_issue(issue).await?;
        let auth = self.auth().await?;
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
        Ok(response.json::<GhComment>()?.into_domain())
    }

    async fn comment(&self, repo: &RepoRef, id: u64) -> Result<ConversationComment> {
        let auth = self.auth().await?;
        let subject = format!("comment {id} of {}", repo.full_name());
        let hint = comment_hint(repo, id);
        let url = format!("{}/issues/comments/{id}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        response.json::<GhLocatedComment>()?.into_domain()
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
        let auth = self.auth().await?;
        let subject = format!("an edit of comment {id} of {}", repo.full_name());
        let hint = comment_hint(repo, id);
        let url = format!("{}/issues/comments/{id}", self.repo_api(repo));
        let payload = json!({ "body": body });
        let response = self
            .http
            .send(&Request::patch(url, Some(auth), &payload, &subject).not_found_hint(&hint))
            .await?;
        response.json::<GhLocatedComment>()?.into_domain()
    }

    async fn viewer(&self) -> Result<Actor> {
        self.viewer
            .get_or_try_init(|| async {
                let auth = self.auth().await?;
                let url = format!("{}/user", self.endpoint.api_url.trim_end_matches('/'));
                match self
                    .http
                    .send(&Request::get(url, Some(auth), "the token's account"))
                    .await
                {
                    Ok(response) => Ok(actor(Some(response.json::<GhUser>()?))),
                    // Installation tokens (GitHub Apps, Actions' GITHUB_TOKEN) may not read
                    // `/user` ("Resource not accessible by integration"); GraphQL's `viewer`
                    // answers them with the app's bot login, as its comments are signed. Only the
                    // login is compared; the account type is not guessed.
                    Err(Error::Auth {
                        status: Some(403), ..
                    }) => Ok(Actor {
                        login: self.viewer_login().await?,
                        is_bot: false,
                    }),
                    Err(e) => Err(e),
                }
            })
            .await
            .cloned()
    }
}
