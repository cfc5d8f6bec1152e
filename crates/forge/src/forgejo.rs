//! The Forgejo and Gitea client: one REST dialect (`/api/v1`, `Authorization: token T`),
//! the flavour detected from `/version` once, and optional endpoints looked up in the
//! instance's published API description rather than assumed from version numbers.

mod ci;
mod commands;
mod contents;
mod issues;
mod pull_list;
mod readiness;
mod repository;
mod threads;
mod timeline;

use crate::time::Timestamp;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::OnceCell;

use crate::config::{ForgeKind, ForgejoEndpoint};
use crate::http::{Auth, ClientOptions, Http, Request};
use crate::{
    Actions, ActionsJobRef, Actor, Artifact, CheckAnnotations, Checks, CiSnapshot, CommandRecipes,
    Forge, HeadPushes, IssueComment, Job, LogStream, Page, PageRequest, PrState, PullFilter,
    PullRequest, PullRequestDetails, PullRequests, Review, ReviewComment, ReviewFeedback,
    ReviewThread, ReviewThreads, ThreadCapabilities, WorkflowHistory, WorkflowRun,
};

/// The id Gitea and Forgejo give their built-in Actions bot (`gitea-actions`,
/// `forgejo-actions`); their API has no account-type field, so this is the one bot the
/// instance itself reports as such.
const ACTIONS_USER_ID: i64 = -2;

/// Pull requests a listing page asks for: Forgejo/Gitea's default `MAX_RESPONSE_ITEMS`.
const PULLS_PER_PAGE: usize = 50;

/// A client for one Forgejo or Gitea instance. `Send + Sync`; share it behind an `Arc`.
pub struct Forgejo {
    endpoint: ForgejoEndpoint,
    http: Http,
    auth: Option<Auth>,
    /// What `/version` said the instance is; set by the first call.
    flavour: OnceCell<ForgeKind>,
    /// The version string `/version` reported, for messages.
    version: OnceLock<String>,
    /// Endpoint path -> whether this instance serves it, as probed.
    capabilities: Mutex<HashMap<String, bool>>,
    /// Who the token is (`GET /user`), asked once.
    viewer: OnceCell<Actor>,
}

impl std::fmt::Debug for Forgejo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forgejo")
            .field("endpoint", &self.endpoint)
            .field("flavour", &self.flavour.get())
            .finish_non_exhaustive()
    }
}

impl Forgejo {
    pub fn new(endpoint: ForgejoEndpoint) -> Result<Forgejo> {
        Forgejo::with_options(endpoint, ClientOptions::default())
    }

    /// A client with explicit retry bounds and timeouts (the token comes from the endpoint).
    pub fn with_options(endpoint: ForgejoEndpoint, options: ClientOptions) -> Result<Forgejo> {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        let name = format!("{} ({})", endpoint.configured_kind, endpoint.host);
        let http = Http::new(name, headers, &options, token_hint(&endpoint))?;
        let auth = match &endpoint.token {
            Some(token) => Some(http.auth("token", token)?),
            None => None,
        };
        Ok(Forgejo {
            endpoint,
            http,
            auth,
            flavour: OnceCell::new(),
            version: OnceLock::new(),
            capabilities: Mutex::new(HashMap::new()),
            viewer: OnceCell::new(),
        })
    }

    pub fn endpoint(&self) -> &ForgejoEndpoint {
        &self.endpoint
    }

    /// Forgejo or Gitea, from `GET /version` (Forgejo reports e.g. `11.0.1+gitea-1.22.0`).
    /// Asked once, alongside the first call that needs it (the thread writes and capability
    /// reports, whose errors name the forge and version); if the instance does not say, the
    /// configured kind stands.
    pub async fn detect_kind(&self) -> ForgeKind {
        *self
            .flavour
            .get_or_init(|| async {
                #[derive(Deserialize)]
                struct Version {
                    version: String,
                }
                let url = format!("{}/version", self.api());
                // Only error messages and capability notes use the answer, so one try is
                // enough: a flaky /version must not delay the call it rides along with.
                let request =
                    Request::get(url, self.auth.as_ref(), "the server version").idempotent(false);
                match self
                    .http
                    .send(&request)
                    .await
                    .and_then(|r| r.json::<Version>())
                {
                    Ok(v) => {
                        let kind = flavour_of(&v.version);
                        let _ = self.version.set(v.version);
                        kind
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "cannot detect the forge flavour");
                        self.endpoint.configured_kind
                    }
                }
            })
            .await
    }

    /// Whether the instance serves `GET {api_url}{path}`, probed once and remembered; for
    /// features that differ between versions and forks. A 404 or 405 means "no"; other
    /// failures are errors and are not remembered.
    pub async fn supports(&self, path: &str) -> Result<bool> {
        if let Some(known) = self.capability(path) {
            return Ok(known);
        }
        let url = format!("{}{path}", self.api());
        let subject = format!("the endpoint {path}");
        let supported = match self
            .http
            .send(&Request::get(url, self.auth.as_ref(), &subject))
            .await
        {
            Ok(_) => true,
            Err(e) if missing_route(&e) => false,
            Err(e) => return Err(e),
        };
        self.capabilities
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.to_owned(), supported);
        Ok(supported)
    }

    /// The version `/version` reported, once detected.
    fn version(&self) -> Option<&str> {
        self.version.get().map(String::as_str)
    }

    fn capability(&self, path: &str) -> Option<bool> {
        // A poisoned lock only means a panic elsewhere; the map is still a valid cache.
        self.capabilities
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .copied()
    }

    fn api(&self) -> &str {
        self.endpoint.api_url.trim_end_matches('/')
    }

    fn auth(&self) -> Result<&Auth> {
        self.auth.as_ref().ok_or_else(|| {
            Error::auth(
                None,
                format!(
                    "no {} token configured for {}",
                    self.endpoint.configured_kind, self.endpoint.host
                ),
            )
            .with_detail("host", self.endpoint.host.clone())
            .with_suggestion(token_hint(&self.endpoint))
        })
    }

    fn repo_url(&self, pr: &PrRef) -> String {
        format!("{}/repos/{}/{}", self.api(), pr.repo.owner, pr.repo.repo)
    }

    async fn fetch_pull(&self, pr: &PrRef) -> Result<PullRequest> {
        let auth = self.auth()?;
        let subject = subject(pr);
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<FjPull>()?.into_domain(&pr.repo))
    }

    async fn fetch_comments(&self, pr: &PrRef, page: PageRequest) -> Result<Page<IssueComment>> {
        let auth = self.auth()?;
        let subject = format!("comments of {}", subject(pr));
        let hint = not_found_hint(pr);
        // This endpoint takes no page/limit (only since/before) and answers with every
        // comment, so the page is cut here; the ETag cache keeps re-reads cheap.
        let url = format!("{}/issues/{}/comments", self.repo_url(pr), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        let all: Vec<FjComment> = response.json()?;
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

    /// Pages of `GET /repos/{o}/{r}/pulls` (newest first, 50 a page, the most both forges
    /// serve by default), filtered here until `filter.limit` match. `base` and `head` are
    /// sent too, but only Forgejo 16 and later are known to filter by them (older Forgejo
    /// ignores unknown parameters, and no published Gitea description lists them), so a
    /// branch filter may cost one request per 50 pull requests in the state asked for, up to
    /// the first `limit` matches (a repository with 2,000 open pull requests and a branch that
    /// matches none: 40 requests). The answer is the same either way: every listed pull
    /// request is filtered here.
    async fn fetch_pulls(&self, repo: &RepoRef, filter: &PullFilter) -> Result<Vec<PullRequest>> {
        if let Some(head) = &filter.head {
            crate::pulls::check_branch_name("head", head)?;
        }
        if let Some(base) = &filter.base {
            crate::pulls::check_branch_name("base", base)?;
        }
        let mut found = Vec::new();
        if filter.limit == 0 {
            return Ok(found);
        }
        let subject = format!("pull requests of {}", repo.full_name());
        let mut seen = 0usize;
        for page in 1..=crate::github::MAX_PAGES {
            let (items, total) = self
                .pulls_listing(repo, filter, page as usize, PULLS_PER_PAGE)
                .await?;
            let count = items.len();
            seen += count;
            found.extend(
                items
                    .into_iter()
                    .map(|p| p.into_domain(repo))
                    .filter(|p| crate::pulls::keeps(filter, repo, p)),
            );
            let last = match total {
                Some(total) => seen >= total,
                None => count < PULLS_PER_PAGE,
            };
            if found.len() >= filter.limit || count == 0 || last {
                found.truncate(filter.limit);
                return Ok(found);
            }
        }
        Err(crate::github::too_many_pages(&subject))
    }

    /// `PATCH /repos/{o}/{r}/pulls/{index}` with `{"base": …}` (answered 201), after a read
    /// that proves the number is an open pull request: Forgejo/Gitea answer success for a
    /// merged one and leave its base alone.
    async fn patch_base(&self, pr: &PrRef, base: &str) -> Result<PullRequest> {
        crate::pulls::check_branch_name("base", base)?;
        let current = self.fetch_pull(pr).await?;
        crate::pulls::check_retargetable(pr, &current)?;
        if current.base_ref == base {
            return Ok(current);
        }
        let auth = self.auth()?;
        let subject = format!("the base branch of {}", subject(pr));
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let payload = json!({ "base": base });
        let response = match self
            .http
            .send(&Request::patch(url, Some(auth), &payload, &subject))
            .await
        {
            Ok(response) => response,
            // The pull request was just read, so a 404 is the branch (`NewBaseBranchNotExist`).
            Err(Error::NotFound { .. }) => {
                return Err(Error::rejected(
                    404,
                    format!(
                        "the branch {base:?} does not exist in {}",
                        pr.repo.full_name()
                    ),
                )
                .with_detail("field", "base")
                .with_suggestion("Pass an existing branch of the repository, or push it first."));
            }
            // Another open pull request already goes from this head into `base`.
            Err(Error::Status { status: 409, .. }) => {
                return Err(Error::rejected(
                    409,
                    format!(
                        "another open pull request already merges {} into {base:?}",
                        current.head_ref
                    ),
                )
                .with_detail("field", "base"));
            }
            Err(e) => return Err(e),
        };
        let after = response.json::<FjPull>()?.into_domain(&pr.repo);
        crate::pulls::check_retargeted(pr, base, after)
    }

    async fn post_comment(&self, pr: &PrRef, body: &str) -> Result<IssueComment> {
        if body.trim().is_empty() {
            return Err(Error::usage("the comment body is empty")
                .with_detail("field", "body")
                .with_suggestion("Pass the text of the comment."));
        }
        // Issues and pulls share numbers and the comments endpoint: make sure this is a PR
        // before writing to it.
        self.fetch_pull(pr).await?;
        let auth = self.auth()?;
        let subject = format!("a new comment on {}", subject(pr));
        let hint = not_found_hint(pr);
        let url = format!("{}/issues/{}/comments", self.repo_url(pr), pr.number);
        let payload = json!({ "body": body });
        let response = self
            .http
            .send(&Request::post(url, Some(auth), &payload, &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<FjComment>()?.into_domain())
    }
}

/// Whether an answer says the instance has no such route: 404, or 405 for a path it
/// serves with other methods.
fn missing_route(e: &Error) -> bool {
    matches!(
        e,
        Error::NotFound {
            status: Some(404),
            ..
        } | Error::Status { status: 405, .. }
    )
}

/// Forgejo (since v7) reports its own version with the Gitea version it derives from
/// appended as `+gitea-X`; Gitea reports a plain version.
fn flavour_of(version: &str) -> ForgeKind {
    if version.contains("+gitea-") {
        ForgeKind::Forgejo
    } else {
        ForgeKind::Gitea
    }
}

fn token_hint(endpoint: &ForgejoEndpoint) -> String {
    let host = &endpoint.host;
    let (host_var, token_var) = match endpoint.configured_kind {
        ForgeKind::Gitea => ("GITEA_HOST", "GITEA_TOKEN"),
        _ => ("FORGEJO_HOST", "FORGEJO_TOKEN"),
    };
    format!(
        "Set {host_var}={host} and {token_var} to an access token (create one under Settings > \
         Applications on {web}), or add token_env = \"VARIABLE\" under [hosts.\"{host}\"] in \
         the config file.",
        web = endpoint.web_url
    )
}

/// Forgejo and Gitea keep no check annotations and no workflow history in their API. Actions
/// is there on both, but an instance may not serve every endpoint of it: the Actions calls
/// probe its API description (see `forgejo::ci`).
impl Forge for Forgejo {
    fn kind(&self) -> ForgeKind {
        self.flavour
            .get()
            .copied()
            .unwrap_or(self.endpoint.configured_kind)
    }

    fn pull_requests(&self) -> &dyn PullRequests {
        self
    }

    fn threads(&self) -> &dyn ReviewThreads {
        self
    }

    fn checks(&self) -> &dyn Checks {
        self
    }

    fn repository(&self) -> &dyn crate::Repository {
        self
    }

    fn actions(&self) -> Option<&dyn Actions> {
        Some(self)
    }

    fn annotations(&self) -> Option<&dyn CheckAnnotations> {
        None
    }

    fn workflow_history(&self) -> Option<&dyn WorkflowHistory> {
        None
    }

    fn commands(&self) -> &dyn CommandRecipes {
        self
    }

    fn issues(&self) -> &dyn crate::Issues {
        self
    }
}

#[async_trait]
impl PullRequests for Forgejo {
    async fn pull_request(&self, pr: &PrRef) -> Result<PullRequest> {
        self.fetch_pull(pr).await
    }

    async fn list_pr_comments(&self, pr: &PrRef, page: PageRequest) -> Result<Page<IssueComment>> {
        // The comments endpoint also serves issues, and for an unknown number Forgejo
        // answers 500 with no message; asking for the pull request alongside (concurrently,
        // so no extra latency) turns both into a clear "not found".
        let (_, comments) = tokio::try_join!(self.fetch_pull(pr), self.fetch_comments(pr, page))?;
        Ok(comments)
    }

    async fn create_pr_comment(&self, pr: &PrRef, body: &str) -> Result<IssueComment> {
        self.post_comment(pr, body).await
    }

    async fn list_pull_requests(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
    ) -> Result<Vec<PullRequest>> {
        self.fetch_pulls(repo, filter).await
    }

    async fn pull_request_details(&self, pr: &PrRef) -> Result<PullRequestDetails> {
        self.fetch_pull_details(pr).await
    }

    async fn pull_request_page(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
        page: PageRequest,
    ) -> Result<Page<PullRequestDetails>> {
        self.fetch_pull_page(repo, filter, page).await
    }

    async fn set_base(&self, pr: &PrRef, base: &str) -> Result<PullRequest> {
        self.patch_base(pr, base).await
    }

    async fn head_pushes(&self, pr: &PrRef) -> Result<HeadPushes> {
        self.fetch_head_pushes(pr).await
    }
}

#[async_trait]
impl ReviewThreads for Forgejo {
    async fn review_threads(&self, pr: &PrRef) -> Result<Vec<ReviewThread>> {
        self.list_review_threads(pr).await
    }

    async fn reviews(&self, pr: &PrRef) -> Result<Vec<Review>> {
        self.list_reviews(pr).await
    }

    async fn review_thread(&self, pr: &PrRef, thread_id: &str) -> Result<ReviewThread> {
        self.get_review_thread(pr, thread_id).await
    }

    async fn reply_to_review_thread(
        &self,
        pr: &PrRef,
        thread_id: &str,
        body: &str,
    ) -> Result<ReviewComment> {
        let (_, reply) = tokio::join!(
            self.detect_kind(),
            self.post_review_reply(pr, thread_id, body)
        );
        reply
    }

    async fn set_review_thread_resolved(
        &self,
        pr: &PrRef,
        thread_id: &str,
        resolved: bool,
    ) -> Result<ReviewThread> {
        let (_, thread) = tokio::join!(
            self.detect_kind(),
            self.set_resolution(pr, thread_id, resolved)
        );
        thread
    }

    async fn review_activity(&self, pr: &PrRef) -> Result<(Vec<ReviewThread>, Vec<Review>)> {
        self.list_review_activity(pr).await
    }

    async fn review_feedback(&self, pr: &PrRef) -> Result<Arc<ReviewFeedback>> {
        crate::read_review_feedback(self, pr).await
    }

    /// Read from the instance's API description, so neither the pull request nor its
    /// threads are needed.
    async fn thread_capabilities(
        &self,
        _pr: &PrRef,
        _threads: &[ReviewThread],
    ) -> Result<ThreadCapabilities> {
        let (_, capabilities) = tokio::join!(self.detect_kind(), self.probe_thread_capabilities());
        capabilities
    }
}

#[async_trait]
impl Checks for Forgejo {
    /// Commit statuses of the head commit (Actions jobs report there too) and the contexts
    /// the base branch's protection requires.
    async fn ci_snapshot(&self, pr: &PrRef) -> Result<CiSnapshot> {
        self.fetch_ci_snapshot(pr).await
    }
}

#[async_trait]
impl Actions for Forgejo {
    /// `job` holds the run index and job index of the status's target URL (see `forgejo::ci`).
    async fn actions_job(&self, repo: &RepoRef, job: &ActionsJobRef) -> Result<Job> {
        self.fetch_actions_job(repo, job).await
    }

    /// `run_id` is the run's index in the repository (the `#N` of the UI).
    async fn workflow_run(&self, repo: &RepoRef, run_id: u64) -> Result<WorkflowRun> {
        self.fetch_workflow_run(repo, run_id).await
    }

    async fn job_log(
        &self,
        repo: &RepoRef,
        job: &ActionsJobRef,
        max_bytes: u64,
    ) -> Result<LogStream> {
        self.fetch_job_log(repo, job, max_bytes).await
    }

    /// `run_id` is the run's index in the repository (the `#N` of the UI).
    async fn run_artifacts(&self, repo: &RepoRef, run_id: u64) -> Result<Vec<Artifact>> {
        self.fetch_run_artifacts(repo, run_id).await
    }

    async fn artifact_files(
        &self,
        repo: &RepoRef,
        artifact: &Artifact,
        suffix: &str,
        max_bytes: u64,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        self.fetch_artifact_files(repo, artifact, suffix, max_bytes)
            .await
    }
}

#[derive(Debug, Clone, Deserialize)]
struct FjUser {
    #[serde(default)]
    id: i64,
    login: String,
}

/// A missing user is a deleted account, which Forgejo and Gitea call `Ghost`.
fn actor(user: Option<FjUser>) -> Actor {
    match user {
        Some(u) => Actor {
            is_bot: u.id == ACTIONS_USER_ID,
            login: u.login,
        },
        None => Actor {
            login: "Ghost".to_owned(),
            is_bot: false,
        },
    }
}

#[derive(Debug, Deserialize)]
struct FjRef {
    #[serde(rename = "ref")]
    name: String,
    #[serde(default)]
    sha: String,
    /// Null when the repository was deleted.
    #[serde(default)]
    repo: Option<FjRepo>,
}

#[derive(Debug, Deserialize)]
struct FjRepo {
    full_name: String,
    #[serde(default)]
    clone_url: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FjPull {
    number: u64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    labels: Option<Vec<FjLabel>>,
    state: String,
    #[serde(default)]
    merged: bool,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    merged_at: Option<Timestamp>,
    #[serde(default)]
    merge_commit_sha: Option<String>,
    #[serde(default)]
    mergeable: Option<bool>,
    #[serde(default)]
    draft: Option<bool>,
    user: Option<FjUser>,
    #[serde(default)]
    html_url: String,
    head: FjRef,
    base: FjRef,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated_at: Option<Timestamp>,
    /// Go writes an empty list as `null`.
    #[serde(default)]
    requested_reviewers: Option<Vec<FjUser>>,
    #[serde(default)]
    requested_reviewers_teams: Option<Vec<FjTeam>>,
}

#[derive(Debug, Deserialize)]
struct FjTeam {
    name: String,
}

#[derive(Debug, Deserialize)]
struct FjLabel {
    name: String,
}

impl FjPull {
    /// `repo` is the repository it was asked for: the base repository when the answer
    /// leaves it out.
    fn into_domain(self, repo: &RepoRef) -> PullRequest {
        let state = if self.merged {
            PrState::Merged
        } else if self.state == "open" {
            PrState::Open
        } else {
            PrState::Closed
        };
        let (base_repo, base_clone_url) = match self.base.repo {
            Some(r) => (r.full_name, r.clone_url.filter(|u| !u.is_empty())),
            None => (repo.full_name(), None),
        };
        let (head_repo, head_clone_url) = match self.head.repo {
            Some(r) => (Some(r.full_name), r.clone_url.filter(|u| !u.is_empty())),
            None => (None, None),
        };
        PullRequest {
            number: self.number,
            title: self.title,
            body: self.body.unwrap_or_default(),
            labels: self
                .labels
                .unwrap_or_default()
                .into_iter()
                .map(|l| l.name)
                .collect(),
            state,
            draft: self.draft.unwrap_or(false),
            author: actor(self.user),
            html_url: self.html_url,
            head_ref: self.head.name,
            head_sha: self.head.sha,
            base_ref: self.base.name,
            base_sha: self.base.sha,
            merged_at: self.merged_at,
            merge_commit_sha: self.merge_commit_sha.filter(|s| !s.is_empty()),
            mergeable: self.mergeable,
            mergeable_state: None,
            base_repo,
            head_repo,
            base_clone_url,
            head_clone_url,
        }
    }
}

#[derive(Debug, Deserialize)]
struct FjComment {
    id: u64,
    user: Option<FjUser>,
    #[serde(default)]
    body: String,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    updated_at: Timestamp,
    #[serde(default)]
    html_url: String,
}

impl FjComment {
    fn into_domain(self) -> IssueComment {
        IssueComment {
            id: self.id,
            author: actor(self.user),
            author_association: None,
            body: self.body,
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.html_url,
            // Forgejo and Gitea cannot minimize (hide) comments.
            minimized: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_route_is_404_or_405() {
        assert!(missing_route(&Error::not_found(Some(404), "x")));
        assert!(missing_route(&Error::status(405, None, "x")));
        assert!(!missing_route(&Error::status(410, None, "x")));
        assert!(!missing_route(&Error::rejected(422, "x")));
        assert!(!missing_route(&Error::auth(Some(403), "x")));
    }

    #[test]
    fn flavour_from_version() {
        assert_eq!(flavour_of("11.0.1+gitea-1.22.0"), ForgeKind::Forgejo);
        assert_eq!(flavour_of("7.0.0+gitea-1.22.0"), ForgeKind::Forgejo);
        assert_eq!(flavour_of("1.22.3"), ForgeKind::Gitea);
        assert_eq!(flavour_of("1.23.0+dev-12-gabc"), ForgeKind::Gitea);
    }

    #[test]
    fn users_map_to_actors() {
        let bot: FjUser =
            serde_json::from_value(json!({"id": -2, "login": "forgejo-actions"})).unwrap();
        assert!(actor(Some(bot)).is_bot);
        let user: FjUser = serde_json::from_value(json!({"id": 7, "login": "alice"})).unwrap();
        assert!(!actor(Some(user)).is_bot);
        assert_eq!(
            actor(None),
            Actor {
                login: "Ghost".into(),
                is_bot: false
            }
        );
    }

    #[test]
    fn comment_times_with_the_servers_offset_are_utc_instants() {
        let c: FjComment = serde_json::from_value(json!({
            "id": 1, "body": "b",
            "created_at": "2024-05-01T14:00:00+02:00",
            "updated_at": "2024-05-01T12:30:00Z",
        }))
        .unwrap();
        let c = c.into_domain();
        assert_eq!(crate::format_time(&c.created_at), "2024-05-01T12:00:00Z");
        assert!(c.created_at < c.updated_at);
        let garbage = serde_json::from_value::<FjComment>(json!({
            "id": 1, "created_at": "today", "updated_at": "2024-05-01T12:30:00Z",
        }));
        assert!(garbage.is_err());
    }
}
