//! A pull request with its times and review requests (`pr_get`), and one page of a
//! repository's pull requests (`pr_list`): both from the REST pull request objects, which carry
//! `requested_reviewers` and `requested_teams` in the listing as in the single read.

use resolve_pr_core::{PrRef, RepoRef};

use super::{GhPull, GitHub, MAX_PER_PAGE, actor};
use crate::http::Request;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Page, PageRequest, PullFilter, PullRequestDetails, Result};

impl GitHub {
    /// `GET /repos/{o}/{r}/pulls/{n}`: one request. An issue number is a 404 there.
    pub(super) async fn fetch_pull_details(&self, pr: &PrRef) -> Result<PullRequestDetails> {
        let auth = self.auth().await?;
        let subject = subject(pr);
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        response.json::<GhPull>()?.into_details(&pr.repo)
    }

    /// `GET /repos/{o}/{r}/pulls?state&head=OWNER:BRANCH&base&sort=created&direction=desc`:
    /// GitHub filters by state and branches itself; author and draft it cannot (its list has
    /// no such parameters), nor closed apart from merged (both are `closed`).
    pub(super) async fn fetch_pull_page(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
        page: PageRequest,
    ) -> Result<Page<PullRequestDetails>> {
        if let Some(head) = &filter.head {
            crate::pulls::check_branch_name("head", head)?;
        }
        if let Some(base) = &filter.base {
            crate::pulls::check_branch_name("base", base)?;
        }
        let auth = self.auth().await?;
        let subject = format!("pull requests of {}", repo.full_name());
        let hint = format!(
            "Check that the repository {} exists and that the token can see it.",
            repo.full_name()
        );
        let per_page = page.per_page.clamp(1, MAX_PER_PAGE);
        let query = {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.append_pair("state", crate::pulls::state_param(filter.state));
            if let Some(head) = &filter.head {
                query.append_pair("head", &format!("{}:{head}", repo.owner));
            }
            if let Some(base) = &filter.base {
                query.append_pair("base", base);
            }
            query
                .append_pair("sort", "created")
                .append_pair("direction", "desc")
                .append_pair("per_page", &per_page.to_string())
                .append_pair("page", &page.page.max(1).to_string());
            query.finish()
        };
        let url = format!(
            "{}/repos/{}/{}/pulls?{}",
            self.endpoint.api_url.trim_end_matches('/'),
            repo.owner,
            repo.repo,
            query
        );
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        let items: Vec<GhPull> = response.json()?;
        let has_next = response.may_have_next(items.len(), per_page as usize);
        let items = items
            .into_iter()
            .map(|p| p.into_details(repo))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page { items, has_next })
    }
}

impl GhPull {
    fn into_details(mut self, repo: &RepoRef) -> Result<PullRequestDetails> {
        let number = self.number;
        let missing = |what: &str| {
            Error::invalid_body(format!(
                "GitHub's answer for pull request #{number} has no {what}"
            ))
        };
        let created_at = self.created_at.ok_or_else(|| missing("created_at"))?;
        let updated_at = self.updated_at.ok_or_else(|| missing("updated_at"))?;
        let requested_reviewers = self
            .requested_reviewers
            .take()
            .unwrap_or_default()
            .into_iter()
            .map(|u| actor(Some(u)))
            .collect();
        // Teams requested on a pull request are teams of the organization owning it.
        let requested_teams = self
            .requested_teams
            .take()
            .unwrap_or_default()
            .into_iter()
            .map(|t| format!("{}/{}", repo.owner, t.slug))
            .collect();
        Ok(PullRequestDetails {
            pull: self.into_domain(repo),
            created_at,
            updated_at,
            requested_reviewers,
            requested_teams,
        })
    }
}
