//! The GitHub client (github.com and Enterprise): REST for pull requests and comments, a
//! GraphQL helper on the same HTTP layer, and the token lookup users expect (config,
//! `GITHUB_TOKEN`, `GH_TOKEN`, `gh auth token`), done lazily so listing tools needs no token.

pub(crate) mod ci;
mod commands;
mod contents;
mod feedback;
mod issues;
mod pull_list;
pub mod queries;
mod readiness;
mod repository;
mod threads;
mod timeline;

use crate::time::Timestamp;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Result};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::config::{ForgeKind, GitHubEndpoint, Secret};
use crate::http::{Auth, ClientOptions, EnvLookup, Failure, Http, Request, Retry, parse_json};
use crate::{
    Actions, ActionsJobRef, Actor, Annotation, Artifact, CheckAnnotations, Checks, CiSnapshot,
    CommandRecipes, Forge, HeadPushes, IssueComment, Job, LogStream, Page, PageRequest, PrState,
    PullFilter, PullRequest, PullRequestDetails, PullRequests, Review, ReviewComment,
    ReviewFeedback, ReviewState, ReviewThread, ReviewThreads, ThreadCapabilities, WorkflowHistory,
    WorkflowRun,
};

/// How long `gh auth token` may take before we stop waiting for it.
const GH_CLI_TIMEOUT: Duration = Duration::from_secs(5);

/// GitHub allows at most 100 items per REST page.
const MAX_PER_PAGE: u32 = 100;
/// No pull request has this many pages of anything (100 a page); a forge that keeps
/// answering "next" past it is looping, and an error beats an endless walk.
pub(crate) const MAX_PAGES: u32 = 1000;

pub(crate) fn too_many_pages(subject: &str) -> Error {
    Error::invalid_body(format!(
        "the forge kept returning further pages of {subject} past {MAX_PAGES} pages"
    ))
    .with_suggestion(
        "This looks like a forge that ignores the page parameter; report it, or retry later.",
    )
}

/// A client for one GitHub API endpoint. `Send + Sync`; share it behind an `Arc`.
pub struct GitHub {
    endpoint: GitHubEndpoint,
    http: Http,
    env: EnvLookup,
    gh_cli: bool,
    /// Resolved on first use; only a found token is kept, so `gh auth login` after a failed
    /// call takes effect without a restart.
    token: OnceCell<Auth>,
    /// What GraphQL said about which checks of a pull request's head commit are required,
    /// by `owner/repo#number@sha`, then check name (see `ci::required_by_graphql`).
    required_memo: ci::RequiredMemo,
    /// Snapshots of pull requests' review feedback, revalidated before each reuse.
    feedback: feedback::FeedbackCache,
    /// The pause before asking again for a mergeability GitHub is still computing.
    mergeable_wait: Duration,
    /// Who the token is (`GET /user`), asked once.
    viewer: OnceCell<Actor>,
}

impl std::fmt::Debug for GitHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHub")
            .field("endpoint", &self.endpoint)
            .field("gh_cli", &self.gh_cli)
            .finish_non_exhaustive()
    }
}

impl GitHub {
    /// A client that reads tokens from the process environment and `gh`.
    pub fn new(endpoint: GitHubEndpoint) -> Result<GitHub> {
        GitHub::with_options(endpoint, ClientOptions::default())
    }

    /// A client with explicit options: retry bounds, timeouts, and where tokens come from.
    pub fn with_options(endpoint: GitHubEndpoint, options: ClientOptions) -> Result<GitHub> {
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/vnd.github+json"),
        );
        headers.insert(
            "x-github-api-version",
            HeaderValue::from_static("2022-11-28"),
        );
        let hint = format!(
            "resolve-pr takes the token from the config file, then GITHUB_TOKEN, then GH_TOKEN, \
             then `gh auth token --hostname {host}`; set a valid token there or run \
             `gh auth login --hostname {host}`.",
            host = endpoint.web_host
        );
        let http = Http::new(forge_name(&endpoint), headers, &options, hint)?;
        Ok(GitHub {
            endpoint,
            http,
            env: options.env,
            gh_cli: options.gh_cli,
            token: OnceCell::new(),
            required_memo: ci::RequiredMemo::default(),
            feedback: Default::default(),
            mergeable_wait: options.mergeable_wait,
            viewer: OnceCell::new(),
        })
    }

    pub fn endpoint(&self) -> &GitHubEndpoint {
        &self.endpoint
    }

    async fn auth(&self) -> Result<&Auth> {
        self.token
            .get_or_try_init(|| async {
                let token = self.find_token().await.ok_or_else(|| self.no_token())?;
                self.http.auth("Bearer", &token)
            })
            .await
    }

    async fn find_token(&self) -> Option<Secret> {
        if let Some(token) = &self.endpoint.token {
            return Some(token.clone());
        }
        for &name in self.endpoint.token_vars {
            if let Some(value) = (self.env)(name).filter(|v| !v.trim().is_empty()) {
                return Some(Secret::new(value.trim()));
            }
        }
        if self.gh_cli {
            return gh_auth_token(&self.endpoint.web_host).await;
        }
        None
    }

    fn no_token(&self) -> Error {
        let host = &self.endpoint.web_host;
        let vars = match self.endpoint.token_vars {
            [] => format!(
                "Add a token for {host} to the config file ([hosts.\"{host}\"] token_env = ...)"
            ),
            names => format!(
                "Set {} to a token that can read the repository",
                names.join(" or ")
            ),
        };
        Error::auth(None, format!("no GitHub token found for {host}"))
            .with_detail("host", host.clone())
            .with_suggestion(format!(
                "{vars}, or run `gh auth login --hostname {host}` so `gh auth token` can provide one."
            ))
            .with_documentation_url(
                "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens",
            )
    }

    fn repo_url(&self, pr: &PrRef) -> String {
        format!(
            "{}/repos/{}/{}",
            self.endpoint.api_url.trim_end_matches('/'),
            pr.repo.owner,
            pr.repo.repo
        )
    }

    /// Runs a GraphQL document. Errors in a 200 answer become errors here (`NOT_FOUND` is
    /// [`Error::NotFound`]), never silently missing data. Queries are retried like GETs; mutations
    /// like POSTs.
    pub async fn graphql(&self, document: &str, variables: Value) -> Result<Value> {
        let auth = self.auth().await?;
        let body = json!({ "query": document, "variables": variables });
        let subject = format!("GraphQL {}", operation_name(document));
        let request = Request::post(
            self.endpoint.graphql_url.clone(),
            Some(auth),
            &body,
            &subject,
        )
        .idempotent(!is_mutation(document));
        let forge = self.http.forge();
        // GitHub fails a query that ran out of time with a 200 whose `errors` say so; that is
        // as transient as a 502 and retried the same way (never for a mutation).
        self.http
            .send_checked(&request, |response| {
                let answer: GraphQlAnswer =
                    response.json().map_err(|e| Box::new(Failure::fatal(e)))?;
                if let Some(error) = graphql_error(&answer.errors, &subject, forge) {
                    let retry = if answer.errors.iter().any(GraphQlError::is_transient) {
                        Retry::IfIdempotent
                    } else {
                        Retry::No
                    };
                    return Err(Box::new(Failure {
                        error,
                        retry,
                        wait: None,
                    }));
                }
                match answer.data {
                    Some(data) if !data.is_null() => Ok(data),
                    _ => Err(Box::new(Failure::fatal(Error::invalid_body(format!(
                        "{forge} (GraphQL) returned no data and no errors for {subject}"
                    ))))),
                }
            })
            .await
    }

    /// The login of the token's account (GraphQL `viewer`): checks a token works.
    pub async fn viewer_login(&self) -> Result<String> {
        let data = self.graphql(queries::VIEWER, json!({})).await?;
        #[derive(Deserialize)]
        struct Data {
            viewer: Viewer,
        }
        #[derive(Deserialize)]
        struct Viewer {
            login: String,
        }
        let data: Data = parse_json(data.to_string().as_bytes(), "GitHub (GraphQL viewer)")?;
        Ok(data.viewer.login)
    }
}

fn forge_name(endpoint: &GitHubEndpoint) -> String {
    if endpoint.web_host == "github.com" {
        "GitHub".to_owned()
    } else {
        format!("GitHub ({})", endpoint.web_host)
    }
}

/// `gh auth token --hostname HOST`, if `gh` is installed and logged in. Any failure (no `gh`,
/// not logged in, too slow) means "no token from gh".
async fn gh_auth_token(host: &str) -> Option<Secret> {
    let child = tokio::process::Command::new("gh")
        .args(["auth", "token", "--hostname", host])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    let output = tokio::time::timeout(GH_CLI_TIMEOUT, child.wait_with_output())
        .await
        .ok()?
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let token = String::from_utf8(output.stdout).ok()?;
    let token = token.trim();
    (!token.is_empty()).then(|| Secret::new(token))
}

/// GitHub has every capability.
impl Forge for GitHub {
    fn kind(&self) -> ForgeKind {
        ForgeKind::GitHub
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
        Some(self)
    }

    fn workflow_history(&self) -> Option<&dyn WorkflowHistory> {
        Some(self)
    }

    fn commands(&self) -> &dyn CommandRecipes {
        self
    }

    fn issues(&self) -> &dyn crate::Issues {
        self
    }
}

#[async_trait]
impl PullRequests for GitHub {
    async fn pull_request(&self, pr: &PrRef) -> Result<PullRequest> {
        let auth = self.auth().await?;
        let subject = subject(pr);
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<GhPull>()?.into_domain(&pr.repo))
    }

    async fn list_pr_comments(&self, pr: &PrRef, page: PageRequest) -> Result<Page<IssueComment>> {
        let auth = self.auth().await?;
        let subject = format!("comments of {}", subject(pr));
        let hint = not_found_hint(pr);
        let url = format!(
            "{}/issues/{}/comments?per_page={}&page={}",
            self.repo_url(pr),
            pr.number,
            page.per_page.clamp(1, MAX_PER_PAGE),
            page.page.max(1)
        );
        // The comments endpoint also serves issues; asking for the pull request alongside
        // (concurrently, and conditionally once cached) makes an issue number "not found".
        let request = Request::get(url, Some(auth), &subject).not_found_hint(&hint);
        let (_, response) = tokio::try_join!(self.pull_request(pr), self.http.send(&request))?;
        let items: Vec<GhComment> = response.json()?;
        let per_page = page.per_page.clamp(1, MAX_PER_PAGE) as usize;
        Ok(Page {
            has_next: response.may_have_next(items.len(), per_page),
            items: items.into_iter().map(GhComment::into_domain).collect(),
        })
    }

    async fn create_pr_comment(&self, pr: &PrRef, body: &str) -> Result<IssueComment> {
        if body.trim().is_empty() {
            return Err(Error::usage("the comment body is empty")
                .with_detail("field", "body")
                .with_suggestion("Pass the text of the comment."));
        }
        // The comments endpoint is shared with issues: without this check a number that is an
        // issue would silently get the comment. One conditional GET is cheap insurance.
        self.pull_request(pr).await?;
        let auth = self.auth().await?;
        let subject = format!("a new comment on {}", subject(pr));
        let hint = not_found_hint(pr);
        let url = format!("{}/issues/{}/comments", self.repo_url(pr), pr.number);
        let payload = json!({ "body": body });
        let response = self
            .http
            .send(&Request::post(url, Some(auth), &payload, &subject).not_found_hint(&hint))
            .await?;
        Ok(response.json::<GhComment>()?.into_domain())
    }

    /// `GET /repos/{o}/{r}/pulls` with GitHub's own filters (`state`, `head=OWNER:BRANCH`,
    /// `base`), newest first, `min(limit, 100)` a page: one request per 100 pull requests
    /// returned. Listed pull requests carry no mergeability (`mergeable*` are `None`).
    async fn list_pull_requests(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
    ) -> Result<Vec<PullRequest>> {
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
        let auth = self.auth().await?;
        let subject = format!("pull requests of {}", repo.full_name());
        let hint = format!(
            "Check that the repository {} exists and that the token can see it.",
            repo.full_name()
        );
        let per_page = filter.limit.min(MAX_PER_PAGE as usize);
        for page in 1u32.. {
            // Branch names are percent-encoded here, whatever they hold.
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
                    .append_pair("page", &page.to_string());
                query.finish()
            };
            let url = format!(
                "{}/repos/{}/{}/pulls?{}",
                self.endpoint.api_url.trim_end_matches('/'),
                repo.owner,
                repo.repo,
                query
            );
            let request = Request::get(url, Some(auth), &subject).not_found_hint(&hint);
            let response = self.http.send(&request).await?;
            let items: Vec<GhPull> = response.json()?;
            let (count, more) = (items.len(), response.may_have_next(items.len(), per_page));
            found.extend(
                items
                    .into_iter()
                    .map(|p| p.into_domain(repo))
                    .filter(|p| crate::pulls::keeps(filter, repo, p)),
            );
            if found.len() >= filter.limit || count == 0 || !more {
                break;
            }
            if page >= MAX_PAGES {
                return Err(too_many_pages(&subject));
            }
        }
        found.truncate(filter.limit);
        Ok(found)
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

    async fn head_pushes(&self, pr: &PrRef) -> Result<HeadPushes> {
        self.fetch_head_pushes(pr).await
    }

    /// `PATCH /repos/{o}/{r}/pulls/{n}` with `{"base": …}`, after a read that proves the
    /// number is an open pull request (two requests; one when it is already on `base`).
    async fn set_base(&self, pr: &PrRef, base: &str) -> Result<PullRequest> {
        crate::pulls::check_branch_name("base", base)?;
        let current = self.pull_request(pr).await?;
        crate::pulls::check_retargetable(pr, &current)?;
        if current.base_ref == base {
            return Ok(current);
        }
        let auth = self.auth().await?;
        let subject = format!("the base branch of {}", subject(pr));
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let payload = json!({ "base": base });
        let response = self
            .http
            .send(&Request::patch(url, Some(auth), &payload, &subject).not_found_hint(&hint))
            .await?;
        let after = response.json::<GhPull>()?.into_domain(&pr.repo);
        crate::pulls::check_retargeted(pr, base, after)
    }
}

#[async_trait]
impl ReviewThreads for GitHub {
    async fn review_threads(&self, pr: &PrRef) -> Result<Vec<ReviewThread>> {
        self.fetch_review_threads(pr).await
    }

    async fn reviews(&self, pr: &PrRef) -> Result<Vec<Review>> {
        let auth = self.auth().await?;
        let subject = format!("reviews of {}", subject(pr));
        let hint = not_found_hint(pr);
        let mut reviews = Vec::new();
        // The reviews endpoint answers 404 for an issue number, so no separate PR check.
        for page in 1u32.. {
            let url = format!(
                "{}/pulls/{}/reviews?per_page={MAX_PER_PAGE}&page={page}",
                self.repo_url(pr),
                pr.number
            );
            let request = Request::get(url, Some(auth), &subject).not_found_hint(&hint);
            let response = self.http.send(&request).await?;
            let items: Vec<GhReview> = response.json()?;
            let (count, more) = (
                items.len(),
                response.may_have_next(items.len(), MAX_PER_PAGE as usize),
            );
            reviews.extend(items.into_iter().filter_map(GhReview::into_domain));
            if count == 0 || !more {
                break;
            }
            if page >= MAX_PAGES {
                return Err(too_many_pages(&subject));
            }
        }
        Ok(reviews)
    }

    async fn review_feedback(&self, pr: &PrRef) -> Result<Arc<ReviewFeedback>> {
        self.fetch_review_feedback(pr).await
    }

    async fn review_thread(&self, pr: &PrRef, thread_id: &str) -> Result<ReviewThread> {
        self.fetch_review_thread(pr, thread_id).await
    }

    async fn reply_to_review_thread(
        &self,
        pr: &PrRef,
        thread_id: &str,
        body: &str,
    ) -> Result<ReviewComment> {
        self.post_review_thread_reply(pr, thread_id, body).await
    }

    async fn set_review_thread_resolved(
        &self,
        pr: &PrRef,
        thread_id: &str,
        resolved: bool,
    ) -> Result<ReviewThread> {
        self.change_review_thread_resolution(pr, thread_id, resolved)
            .await
    }

    async fn thread_capabilities(
        &self,
        _pr: &PrRef,
        _threads: &[ReviewThread],
    ) -> Result<ThreadCapabilities> {
        // Every GitHub has both mutations; whether this token may use them on a thread is
        // each thread's `viewer_can_reply` / `viewer_can_resolve`.
        Ok(ThreadCapabilities {
            can_reply: true,
            can_resolve: true,
            missing: None,
        })
    }
}

#[async_trait]
impl Checks for GitHub {
    async fn ci_snapshot(&self, pr: &PrRef) -> Result<CiSnapshot> {
        self.fetch_ci_snapshot(pr).await
    }
}

#[async_trait]
impl Actions for GitHub {
    async fn actions_job(&self, repo: &RepoRef, job: &ActionsJobRef) -> Result<Job> {
        self.fetch_actions_job(repo, job).await
    }

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

#[async_trait]
impl CheckAnnotations for GitHub {
    async fn check_annotations(
        &self,
        repo: &RepoRef,
        check_run_id: u64,
    ) -> Result<Vec<Annotation>> {
        self.fetch_check_annotations(repo, check_run_id).await
    }
}

#[async_trait]
impl WorkflowHistory for GitHub {
    async fn workflow_durations(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        max: usize,
    ) -> Result<Vec<u64>> {
        self.fetch_workflow_durations(repo, workflow_id, max).await
    }

    async fn commit_runs(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        head_sha: &str,
        max: usize,
    ) -> Result<Vec<WorkflowRun>> {
        self.fetch_commit_runs(repo, workflow_id, head_sha, max)
            .await
    }

    async fn run_jobs_all_attempts(&self, repo: &RepoRef, run_id: u64) -> Result<Vec<Job>> {
        self.fetch_run_jobs_all_attempts(repo, run_id).await
    }
}

#[derive(Debug, Deserialize)]
struct GhReview {
    id: u64,
    user: Option<GhUser>,
    #[serde(default)]
    author_association: Option<String>,
    #[serde(default)]
    body: Option<String>,
    state: String,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    submitted_at: Option<Timestamp>,
    html_url: String,
    #[serde(default)]
    commit_id: Option<String>,
}

impl GhReview {
    /// `None` for a state this client does not know, rather than a guessed one.
    fn into_domain(self) -> Option<Review> {
        let state = match self.state.as_str() {
            "APPROVED" => ReviewState::Approved,
            "CHANGES_REQUESTED" => ReviewState::ChangesRequested,
            "COMMENTED" => ReviewState::Commented,
            "DISMISSED" => ReviewState::Dismissed,
            "PENDING" => ReviewState::Pending,
            other => {
                tracing::debug!(
                    state = other,
                    id = self.id,
                    "skipping a review in an unknown state"
                );
                return None;
            }
        };
        Some(Review {
            id: self.id,
            author: actor(self.user),
            author_association: self.author_association,
            state,
            body: self.body.unwrap_or_default(),
            submitted_at: self.submitted_at,
            html_url: self.html_url,
            commit_id: self.commit_id.filter(|c| !c.is_empty()),
            // REST does not say; only GraphQL reports minimized comments.
            minimized: None,
        })
    }
}

#[derive(Debug, Deserialize)]
struct GhUser {
    login: String,
    #[serde(rename = "type", default)]
    account_type: Option<String>,
}

/// Deleted accounts come back as a null user; GitHub shows them as `ghost`.
fn actor(user: Option<GhUser>) -> Actor {
    match user {
        Some(u) => Actor {
            is_bot: u.account_type.as_deref() == Some("Bot"),
            login: u.login,
        },
        None => Actor {
            login: "ghost".to_owned(),
            is_bot: false,
        },
    }
}

#[derive(Debug, Deserialize)]
struct GhRef {
    #[serde(rename = "ref")]
    name: String,
    sha: String,
    /// Null when the repository was deleted (a fork removed after the pull request).
    #[serde(default)]
    repo: Option<GhRepo>,
}

#[derive(Debug, Deserialize)]
struct GhRepo {
    full_name: String,
    #[serde(default)]
    clone_url: Option<String>,
}

/// GitHub's `pull-request`, and the `pull-request-simple` of listings (which lacks `merged`
/// and the mergeability fields).
#[derive(Debug, Deserialize)]
struct GhPull {
    number: u64,
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    labels: Vec<GhLabel>,
    state: String,
    #[serde(default)]
    draft: Option<bool>,
    #[serde(default)]
    merged: Option<bool>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    merged_at: Option<Timestamp>,
    #[serde(default)]
    merge_commit_sha: Option<String>,
    #[serde(default)]
    mergeable: Option<bool>,
    #[serde(default)]
    mergeable_state: Option<String>,
    user: Option<GhUser>,
    html_url: String,
    head: GhRef,
    base: GhRef,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated_at: Option<Timestamp>,
    #[serde(default)]
    requested_reviewers: Option<Vec<GhUser>>,
    #[serde(default)]
    requested_teams: Option<Vec<GhTeam>>,
}

#[derive(Debug, Deserialize)]
struct GhTeam {
    slug: String,
}

#[derive(Debug, Deserialize)]
struct GhLabel {
    name: String,
}

impl GhPull {
    /// `repo` is the repository it was asked for, the base repository should GitHub ever
    /// leave that out.
    fn into_domain(self, repo: &RepoRef) -> PullRequest {
        let merged = self.merged == Some(true) || self.merged_at.is_some();
        let state = if merged {
            PrState::Merged
        } else if self.state == "open" {
            PrState::Open
        } else {
            PrState::Closed
        };
        let (base_repo, base_clone_url) = match self.base.repo {
            Some(r) => (r.full_name, r.clone_url),
            None => (repo.full_name(), None),
        };
        let (head_repo, head_clone_url) = match self.head.repo {
            Some(r) => (Some(r.full_name), r.clone_url),
            None => (None, None),
        };
        PullRequest {
            number: self.number,
            title: self.title,
            body: self.body.unwrap_or_default(),
            labels: self.labels.into_iter().map(|l| l.name).collect(),
            state,
            draft: self.draft.unwrap_or(false),
            author: actor(self.user),
            html_url: self.html_url,
            head_ref: self.head.name,
            head_sha: self.head.sha,
            base_ref: self.base.name,
            base_sha: self.base.sha,
            merged_at: self.merged_at,
            // Before the merge GitHub reports its test merge commit here.
            merge_commit_sha: self.merge_commit_sha.filter(|s| merged && !s.is_empty()),
            mergeable: self.mergeable,
            mergeable_state: self.mergeable_state.filter(|s| !s.is_empty()),
            base_repo,
            head_repo,
            base_clone_url,
            head_clone_url,
        }
    }
}

#[derive(Debug, Deserialize)]
struct GhComment {
    id: u64,
    user: Option<GhUser>,
    #[serde(default)]
    author_association: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    updated_at: Timestamp,
    html_url: String,
}

impl GhComment {
    fn into_domain(self) -> IssueComment {
        IssueComment {
            id: self.id,
            author: actor(self.user),
            author_association: self.author_association,
            body: self.body.unwrap_or_default(),
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.html_url,
            // REST does not say; only GraphQL reports minimized comments.
            minimized: None,
        }
    }
}

#[derive(Debug, Deserialize)]
struct GraphQlAnswer {
    #[serde(default)]
    data: Option<Value>,
    #[serde(default)]
    errors: Vec<GraphQlError>,
}

#[derive(Debug, Deserialize)]
struct GraphQlError {
    #[serde(default)]
    message: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    path: Option<Value>,
}

impl GraphQlError {
    /// Whether the query failed on GitHub's side for a while, not because of what it asked:
    /// "Something went wrong while executing your query. This may be the result of a
    /// timeout…", a `timedout` message, or a type naming a timeout or an outage.
    fn is_transient(&self) -> bool {
        let message = self.message.to_ascii_lowercase();
        matches!(
            self.kind.as_deref(),
            Some("TIMEOUT" | "SERVICE_UNAVAILABLE" | "INTERNAL" | "INTERNAL_SERVER_ERROR")
        ) || message.starts_with("something went wrong while executing your query")
            || message.contains("timeout")
            || message.contains("timed out")
            || message.contains("timedout")
    }
}

/// The first GraphQL error as the error it names (`NOT_FOUND`, `FORBIDDEN`, `RATE_LIMITED`, else
/// an answer the client cannot use); all of them go into the details.
fn graphql_error(errors: &[GraphQlError], subject: &str, forge: &str) -> Option<Error> {
    let first = errors.first()?;
    let message = format!("{forge} {subject} failed: {}", first.message);
    let error = match first.kind.as_deref() {
        Some("NOT_FOUND") => Error::not_found(None, message).with_suggestion(
            "Check the owner, repository and number; a private repository also looks missing \
             when the token cannot see it.",
        ),
        Some("FORBIDDEN") => Error::auth(None, message).with_suggestion(
            "Use a token with access to this repository (classic tokens: `repo` scope).",
        ),
        Some("RATE_LIMITED") | Some("RATE_LIMIT") => Error::rate_limited(None, 60, message)
            .with_suggestion("Wait a minute before calling again."),
        _ => Error::invalid_body(message),
    };
    // A failing field inside a long list repeats once per item; a few say it all.
    let all: Vec<Value> = errors
        .iter()
        .take(5)
        .map(|e| json!({ "message": e.message, "type": e.kind, "path": e.path }))
        .collect();
    Some(
        error
            .with_detail("errors", all)
            .with_detail("error_count", errors.len()),
    )
}

/// The first token of a document, after whitespace and `#` comments.
fn first_word(document: &str) -> &str {
    let mut rest = document;
    loop {
        rest = rest.trim_start();
        match rest.strip_prefix('#') {
            Some(comment) => rest = comment.split_once('\n').map(|(_, r)| r).unwrap_or(""),
            None => break,
        }
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Whether a document may write. Conservative on purpose: a `mutation` keyword anywhere
/// (after fragments, say) counts, because retrying a write can post twice, while not
/// retrying a read only costs a retry.
fn is_mutation(document: &str) -> bool {
    document
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == "mutation")
}

/// `query Viewer {...}` -> "query Viewer", for messages.
fn operation_name(document: &str) -> String {
    let word = first_word(document);
    if word.is_empty() {
        return "query".to_owned();
    }
    let after = document
        .split_once(word)
        .map(|(_, rest)| rest.trim_start())
        .unwrap_or("");
    let name_end = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    match &after[..name_end] {
        "" => word.to_owned(),
        name => format!("{word} {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_found_after_fragments() {
        assert!(is_mutation(
            "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id } } }"
        ));
        assert!(is_mutation(
            "fragment F on PullRequestReviewThread { id }\nmutation M { x }"
        ));
        assert!(!is_mutation("query Q { viewer { login } }"));
        assert!(!is_mutation(
            "fragment F on User { login }\nquery Q { viewer { ...F } }"
        ));
        for (name, document) in queries::ALL {
            let writes = name.contains("REPLY") || name.contains("RESOLVE");
            assert_eq!(is_mutation(document), writes, "{name}");
        }
    }

    #[test]
    fn users_map_to_actors() {
        let bot: GhUser =
            serde_json::from_value(json!({"login": "dependabot[bot]", "type": "Bot"})).unwrap();
        assert_eq!(
            actor(Some(bot)),
            Actor {
                login: "dependabot[bot]".into(),
                is_bot: true
            }
        );
        let user: GhUser =
            serde_json::from_value(json!({"login": "octocat", "type": "User"})).unwrap();
        assert!(!actor(Some(user)).is_bot);
        assert_eq!(
            actor(None),
            Actor {
                login: "ghost".into(),
                is_bot: false
            }
        );
    }

    #[test]
    fn merged_pull_requests() {
        let pull: GhPull = serde_json::from_value(json!({
            "number": 3, "title": "t", "state": "closed", "draft": null,
            "merged_at": "2024-01-01T00:00:00Z", "user": null,
            "html_url": "https://github.com/o/r/pull/3",
            "head": {"ref": "feature", "sha": "abc"}, "base": {"ref": "main", "sha": "def"}
        }))
        .unwrap();
        let pr = pull.into_domain(&RepoRef::parse("o/r").unwrap());
        assert_eq!(
            (pr.state, pr.draft, pr.author.login.as_str()),
            (PrState::Merged, false, "ghost")
        );
        assert_eq!(pr.base_sha, "def");
        assert_eq!(
            pr.merged_at,
            Some(crate::parse_time("2024-01-01T00:00:00Z").unwrap())
        );
        // Without repositories in the answer the base is the one asked for, the head unknown.
        assert_eq!(
            (pr.base_repo.as_str(), pr.head_repo.as_deref()),
            ("o/r", None)
        );
        assert!(pr.is_from_fork());
    }

    #[test]
    fn a_deleted_head_repository_and_a_test_merge_commit() {
        let pull: GhPull = serde_json::from_value(json!({
            "number": 4, "title": "t", "state": "open", "user": null,
            "html_url": "https://github.com/o/r/pull/4",
            "merge_commit_sha": "e5bd3914e2e596debea16f433f57875b5b90bcd6",
            "mergeable": null, "mergeable_state": "unknown",
            "head": {"ref": "patch-1", "sha": "abc", "repo": null},
            "base": {"ref": "main", "sha": "def",
                     "repo": {"full_name": "O/R", "clone_url": "https://github.com/O/R.git"}}
        }))
        .unwrap();
        let pr = pull.into_domain(&RepoRef::parse("o/r").unwrap());
        assert_eq!(pr.state, PrState::Open);
        assert_eq!(pr.merge_commit_sha, None, "the test merge is not a merge");
        assert_eq!(
            (pr.mergeable, pr.mergeable_state.as_deref()),
            (None, Some("unknown"))
        );
        assert_eq!(pr.base_repo, "O/R");
        assert_eq!(
            pr.base_clone_url.as_deref(),
            Some("https://github.com/O/R.git")
        );
        assert_eq!((pr.head_repo, pr.head_clone_url), (None, None));
    }

    #[test]
    fn graphql_documents_are_classified() {
        assert!(is_mutation(
            "# add a comment\n  mutation Add($id: ID!) { x }"
        ));
        assert!(!is_mutation(queries::VIEWER));
        assert!(!is_mutation("{ viewer { login } }"));
        assert_eq!(operation_name(queries::VIEWER), "query Viewer");
        assert_eq!(operation_name("{ viewer { login } }"), "query");
        for (name, document) in queries::ALL {
            assert!(!name.is_empty());
            assert!(
                document.trim_start().starts_with("query")
                    || document.trim_start().starts_with("mutation")
            );
        }
    }

    #[test]
    fn graphql_errors_are_categorized() {
        let errors: Vec<GraphQlError> = serde_json::from_value(json!([
            {"type": "NOT_FOUND", "path": ["repository"], "message": "Could not resolve to a Repository with the name 'o/x'."}
        ]))
        .unwrap();
        let e = graphql_error(&errors, "query Viewer", "GitHub").unwrap();
        assert!(matches!(e, Error::NotFound { status: None, .. }), "{e:?}");
        let e = resolve_pr_core::Error::from(e);
        assert_eq!(e.category, resolve_pr_core::Category::User);
        assert!(e.error.contains("Could not resolve"));
        let errors: Vec<GraphQlError> =
            serde_json::from_value(json!([{"message": "boom"}])).unwrap();
        assert_eq!(
            resolve_pr_core::Error::from(graphql_error(&errors, "q", "GitHub").unwrap()).category,
            resolve_pr_core::Category::Api
        );
        assert!(graphql_error(&[], "q", "GitHub").is_none());
    }
}
