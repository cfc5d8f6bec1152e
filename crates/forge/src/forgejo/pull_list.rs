//! A pull request with its times and review requests (`pr_get`), and one page of a
//! repository's pull requests (`pr_list`), on Forgejo and Gitea: both from the REST pull
//! request objects, which carry `requested_reviewers` and `requested_reviewers_teams`.

use resolve_pr_core::{PrRef, RepoRef};

use super::{FjPull, Forgejo, PULLS_PER_PAGE, actor};
use crate::http::Request;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Page, PageRequest, PullFilter, PullRequestDetails, Result};

impl Forgejo {
    /// `GET /repos/{o}/{r}/pulls/{index}`: one request; an issue's number is a 404 there.
    pub(super) async fn fetch_pull_details(&self, pr: &PrRef) -> Result<PullRequestDetails> {
        let auth = self.auth()?;
        let subject = subject(pr);
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        response.json::<FjPull>()?.into_details(&pr.repo)
    }

    /// `GET /repos/{o}/{r}/pulls?state&poster&base&head&page&limit`, newest first (the
    /// default sort). `poster` is Forgejo's author filter; `base`/`head` only Forgejo 16 and
    /// later honour; Gitea and older releases ignore what they lack, and the listing says
    /// closed for merged too, so the caller filters every item with [`PullFilter::keeps`].
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
        let limit = (page.per_page as usize).clamp(1, PULLS_PER_PAGE);
        let number = page.page.max(1) as usize;
        let (items, total) = self.pulls_listing(repo, filter, number, limit).await?;
        let has_next = match total {
            Some(total) => number.saturating_mul(limit) < total && !items.is_empty(),
            None => items.len() >= limit,
        };
        let items = items
            .into_iter()
            .map(|p| p.into_details(repo))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page { items, has_next })
    }

    /// One page of `GET /repos/{o}/{r}/pulls?state&poster&base&head&page&limit`, as listed,
    /// with the `X-Total-Count` the forge gave. The filter's branches must have been checked
    /// (`pulls::check_branch_name`); branch names are percent-encoded here, whatever they hold.
    pub(super) async fn pulls_listing(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
        page: usize,
        limit: usize,
    ) -> Result<(Vec<FjPull>, Option<usize>)> {
        let auth = self.auth()?;
        let subject = format!("pull requests of {}", repo.full_name());
        let hint = format!(
            "Check that the repository {} exists and that the token can see it.",
            repo.full_name()
        );
        let query = {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.append_pair("state", crate::pulls::state_param(filter.state));
            if let Some(author) = &filter.author {
                query.append_pair("poster", author);
            }
            if let Some(base) = &filter.base {
                query.append_pair("base", base);
            }
            if let Some(head) = &filter.head {
                query.append_pair("head", head);
            }
            query
                .append_pair("limit", &limit.to_string())
                .append_pair("page", &page.to_string());
            query.finish()
        };
        let url = format!(
            "{}/repos/{}/{}/pulls?{}",
            self.api(),
            repo.owner,
            repo.repo,
            query
        );
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        // Go writes an empty list as `null`.
        let items: Option<Vec<FjPull>> = response.json()?;
        let total = response
            .headers
            .get("x-total-count")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        Ok((items.unwrap_or_default(), total))
    }
}

impl FjPull {
    fn into_details(mut self, repo: &RepoRef) -> Result<PullRequestDetails> {
        let number = self.number;
        let missing = |what: &str| {
            Error::invalid_body(format!(
                "the answer for pull request #{number} has no {what}"
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
        // Teams that can be asked to review belong to the organization owning the repository.
        let requested_teams = self
            .requested_reviewers_teams
            .take()
            .unwrap_or_default()
            .into_iter()
            .map(|t| format!("{}/{}", repo.owner, t.name))
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
