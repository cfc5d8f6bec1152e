//! CI on Forgejo/Gitea: commit statuses of the PR's head commit (everything reports there,
//! Forgejo/Gitea Actions included), required contexts from branch protections, and the
//! Actions API (runs, jobs with steps, job logs) where the instance's published description
//! has it — looked up in `{web}/swagger.v1.json`, never assumed from a version.
//!
//! An Actions job's status has the target URL `{web}/{owner}/{repo}/actions/runs/{run}/jobs/{job}`
//! where `{run}` is the run's index in the repository (`index_in_repo`, the `#3` of the UI)
//! and `{job}` the job's position in the run (0-based), not ids. `ActionsJobRef` carries those
//! two indexes (`run_id` = run index, `job_id` = job index); the client turns them into ids
//! with `GET …/actions/runs?run_number={run}` and `GET …/actions/runs/{id}/jobs`. Likewise
//! `workflow_run(run_id)` takes the run index. The web UI's own log route
//! (`…/actions/runs/{run}/jobs/{job}/logs`) is not used: it wants a session, not a token.

use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;

use super::threads::describes_operation;
use super::{FjPull, Forgejo, not_found_hint, subject};
use crate::download::{self, Labels, Source};
use crate::github::ci::status_state;
use crate::http::Request;
use crate::time::Timestamp;
use crate::{
    ActionsJobRef, Artifact, Check, CheckConclusion, CheckKind, CheckState, CiSnapshot, Job,
    LogStream, RequiredChecks, Step, UnreadRules, WorkflowRun,
};
use crate::{Error, Result};

/// Largest page Forgejo/Gitea serve by default (`[api] MAX_RESPONSE_ITEMS`).
const PER_PAGE: usize = 50;
/// Most status pages walked before giving up on a server that never stops.
const MAX_PAGES: usize = 1000;

/// The Actions routes this client needs, relative to `/api/v1` (`None`: a parameter).
const RUNS_ROUTE: &[Option<&str>] = &[Some("repos"), None, None, Some("actions"), Some("runs")];
const RUN_JOBS_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("actions"),
    Some("runs"),
    None,
    Some("jobs"),
];
const JOB_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("actions"),
    Some("jobs"),
    None,
];
const JOB_LOGS_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("actions"),
    Some("jobs"),
    None,
    Some("logs"),
];
const RUN_ARTIFACTS_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("actions"),
    Some("runs"),
    None,
    Some("artifacts"),
];
const ARTIFACT_ZIP_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("actions"),
    Some("artifacts"),
    None,
    Some("zip"),
];
/// Keys of the Actions API and of its artifact routes in the capability cache.
const ACTIONS: &str = "GET /repos/{owner}/{repo}/actions/{runs,jobs,logs}";
const ARTIFACTS: &str =
    "GET /repos/{owner}/{repo}/actions/{runs/{id}/artifacts,artifacts/{id}/zip}";

impl Forgejo {
    pub(super) async fn fetch_ci_snapshot(&self, pr: &PrRef) -> Result<CiSnapshot> {
        let auth = self.auth()?;
        let pr_subject = subject(pr);
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_url(pr), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &pr_subject).not_found_hint(&hint))
            .await?;
        let pull_cached = response.from_cache;
        let pull = response.json::<FjPull>()?.into_domain(&pr.repo);
        let (sha, base) = (pull.head_sha, pull.base_ref);
        let statuses = self.commit_statuses(pr, &sha);
        let required = async { Ok(self.required_contexts(pr, &base).await) };
        let ((statuses, statuses_cached), (required, required_cached)) =
            tokio::try_join!(statuses, required)?;
        let checks = latest(statuses)
            .into_iter()
            .map(|s| self.status_check(&pr.repo, s))
            .collect();
        Ok(CiSnapshot {
            head_sha: sha,
            checks,
            required,
            unchanged: pull_cached && statuses_cached && required_cached,
        })
    }

    async fn commit_statuses(&self, pr: &PrRef, sha: &str) -> Result<(Vec<FjStatus>, bool)> {
        let auth = self.auth()?;
        let subject = format!("commit statuses of {sha} ({})", subject(pr));
        let mut all = Vec::new();
        let mut cached = true;
        for page in 1..=MAX_PAGES {
            let url = format!(
                "{}/commits/{sha}/statuses?limit={PER_PAGE}&page={page}",
                self.repo_url(pr)
            );
            let response = self
                .http
                .send(&Request::get(url, Some(auth), &subject))
                .await?;
            cached &= response.from_cache;
            let items: Vec<FjStatus> = response.json()?;
            let total = response
                .headers
                .get("x-total-count")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok());
            let count = items.len();
            all.extend(items);
            let done = match total {
                Some(total) => all.len() >= total,
                None => count < PER_PAGE,
            };
            if count == 0 || done {
                return Ok((all, cached));
            }
        }
        Err(crate::github::too_many_pages(&subject))
    }

    /// Status contexts the base branch's protection requires, best effort: when the list
    /// cannot be read (it needs repository admin rights on some versions) the answer is
    /// unknown, with why, never "nothing required". Also whether it came from a cache.
    async fn required_contexts(&self, pr: &PrRef, base: &str) -> (RequiredChecks, bool) {
        let unread = |reason: String| {
            RequiredChecks::unknown(vec![UnreadRules {
                source: "branch protection".to_owned(),
                reason,
            }])
        };
        let auth = match self.auth() {
            Ok(auth) => auth,
            Err(e) => return (unread(e.to_string()), false),
        };
        let url = format!("{}/branch_protections", self.repo_url(pr));
        let subject = format!("branch protections of {}/{}", pr.repo.owner, pr.repo.repo);
        let response = match self
            .http
            .send(&Request::get(url, Some(auth), &subject))
            .await
        {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(status = ?e.http_status(), error = %e, "required checks unknown");
                let reason = match e.http_status() {
                    Some(403) => {
                        "reading them needs admin rights the token lacks (HTTP 403)".to_string()
                    }
                    _ => e.to_string(),
                };
                return (unread(reason), false);
            }
        };
        let rules = match response.json::<Vec<FjProtection>>() {
            Ok(rules) => rules,
            Err(e) => return (unread(e.to_string()), false),
        };
        // An exact rule wins over a glob rule, as in Gitea's `GetFirstMatchProtectedBranchRule`.
        let rule = rules
            .iter()
            .find(|r| r.name() == base)
            .or_else(|| rules.iter().find(|r| glob_match(r.name(), base)));
        let names = match rule {
            Some(r) if r.enable_status_check => r.status_check_contexts.clone(),
            _ => Vec::new(),
        };
        (RequiredChecks::complete(names), response.from_cache)
    }

    fn status_check(&self, repo: &RepoRef, s: FjStatus) -> Check {
        let (state, conclusion) = status_state(&s.status);
        let actions_job = s
            .target_url
            .as_deref()
            .and_then(|u| self.actions_job_of(repo, u));
        Check {
            id: 0,
            name: s.context,
            kind: CheckKind::Status,
            state,
            conclusion,
            started_at: s.created_at,
            completed_at: (state == CheckState::Completed)
                .then_some(s.updated_at)
                .flatten(),
            details_url: s.target_url.filter(|u| !u.is_empty()),
            app: None,
            title: s.description.filter(|d| !d.is_empty()),
            summary: None,
            text: None,
            annotations_count: 0,
            actions_job,
        }
    }

    /// (run index, job index) from `{web}/{owner}/{repo}/actions/runs/{run}/jobs/{job}`.
    fn actions_job_of(&self, repo: &RepoRef, target: &str) -> Option<ActionsJobRef> {
        let web = self.endpoint.web_url.trim_end_matches('/');
        let prefix = format!("{web}/{}/{}/actions/runs/", repo.owner, repo.repo);
        let head = target.get(..prefix.len())?;
        if !head.eq_ignore_ascii_case(&prefix) {
            return None;
        }
        let rest = target[prefix.len()..].split(['?', '#']).next()?;
        let parts: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
        match parts.as_slice() {
            [run, "jobs", job] => Some(ActionsJobRef {
                run_id: run.parse().ok()?,
                job_id: job.parse().ok()?,
            }),
            _ => None,
        }
    }

    /// Whether the instance's description has the Actions routes; read once (shared with
    /// the thread capabilities' probe of the same document through the ETag cache).
    async fn require_actions(&self, what: &str) -> Result<()> {
        self.require(ACTIONS, what).await
    }

    /// Whether the description has the routes behind `key` (`ACTIONS`, `ARTIFACTS`); both
    /// are read from the one document, fetched once.
    async fn require(&self, key: &str, what: &str) -> Result<()> {
        if self.capability(key).is_none() {
            let subject = "the API description";
            let request = Request::get(self.description_url(), None, subject);
            match self.http.send(&request).await {
                Ok(response) => {
                    let paths = response
                        .json::<serde_json::Value>()
                        .ok()
                        .and_then(|d| d.get("paths").and_then(|p| p.as_object()).cloned());
                    let has = |routes: &[&[Option<&str>]]| {
                        paths.as_ref().is_some_and(|paths| {
                            routes
                                .iter()
                                .all(|route| describes_operation(paths, route, "get"))
                        })
                    };
                    let actions = has(&[RUNS_ROUTE, RUN_JOBS_ROUTE, JOB_ROUTE, JOB_LOGS_ROUTE]);
                    let artifacts = has(&[RUNS_ROUTE, RUN_ARTIFACTS_ROUTE, ARTIFACT_ZIP_ROUTE]);
                    self.remember_capability(ACTIONS, actions);
                    self.remember_capability(ARTIFACTS, artifacts);
                }
                Err(e) => match e.http_status() {
                    Some(s) if (400..500).contains(&s) && s != 408 && s != 429 => {
                        self.remember_capability(ACTIONS, false);
                        self.remember_capability(ARTIFACTS, false);
                    }
                    _ => return Err(e),
                },
            }
        }
        if self.capability(key) == Some(true) {
            return Ok(());
        }
        let kind = self.detect_kind().await;
        let version = self.version().map(|v| format!(" {v}")).unwrap_or_default();
        Err(crate::unsupported(kind, what)
            .with_detail("host", self.endpoint.host.clone())
            .with_suggestion(format!(
                "{kind}{version} at {} does not describe the Actions API needed for this in {}; \
                 use the status's description and target URL (the job's page) instead.",
                self.endpoint.host,
                self.description_url()
            )))
    }

    fn remember_capability(&self, key: &str, supported: bool) {
        self.capabilities
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_owned(), supported);
    }

    pub(super) fn repo_api(&self, repo: &RepoRef) -> String {
        format!("{}/repos/{}/{}", self.api(), repo.owner, repo.repo)
    }

    /// The run whose index in the repository is `index`.
    async fn run_by_index(&self, repo: &RepoRef, index: u64) -> Result<FjRun> {
        let auth = self.auth()?;
        let subject = format!("Actions run #{index} in {}/{}", repo.owner, repo.repo);
        let url = format!("{}/actions/runs?run_number={index}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject))
            .await?;
        let runs: FjRuns = response.json()?;
        runs.workflow_runs
            .into_iter()
            .find(|r| r.index_in_repo == Some(index))
            .ok_or_else(|| {
                Error::not_found(
                    None,
                    format!("{subject} not found on {}", self.http.forge()),
                )
                .with_suggestion("Check the run number (the #N of the run's page).")
            })
    }

    /// The id of the job at `job.job_id` (an index) in run `job.run_id` (an index).
    async fn job_id_of(&self, repo: &RepoRef, job: &ActionsJobRef) -> Result<u64> {
        let run = self.run_by_index(repo, job.run_id).await?;
        let auth = self.auth()?;
        let subject = format!(
            "jobs of Actions run #{} in {}/{}",
            job.run_id, repo.owner, repo.repo
        );
        let url = format!("{}/actions/runs/{}/jobs", self.repo_api(repo), run.id);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject))
            .await?;
        let jobs: Vec<FjJob> = response.json()?;
        jobs.get(job.job_id as usize).map(|j| j.id).ok_or_else(|| {
            Error::not_found(
                None,
                format!(
                    "Actions run #{} has no job {} (it has {})",
                    job.run_id,
                    job.job_id,
                    jobs.len()
                ),
            )
        })
    }

    pub(super) async fn fetch_actions_job(
        &self,
        repo: &RepoRef,
        job: &ActionsJobRef,
    ) -> Result<Job> {
        self.require_actions("reading Actions jobs").await?;
        let id = self.job_id_of(repo, job).await?;
        let auth = self.auth()?;
        let subject = format!("Actions job {id} in {}/{}", repo.owner, repo.repo);
        let url = format!("{}/actions/jobs/{id}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject))
            .await?;
        Ok(response.json::<FjJob>()?.into_domain())
    }

    pub(super) async fn fetch_workflow_run(
        &self,
        repo: &RepoRef,
        run_index: u64,
    ) -> Result<WorkflowRun> {
        self.require_actions("reading workflow runs").await?;
        let run = self.run_by_index(repo, run_index).await?;
        let (state, conclusion) = actions_state(run.status.as_deref().unwrap_or("waiting"), None);
        Ok(WorkflowRun {
            id: run.id,
            name: run.title.unwrap_or_default(),
            html_url: run.html_url,
            state,
            conclusion,
            started_at: run.started,
            updated_at: run.updated,
            // Forgejo names a workflow by its file and lists no runs per workflow.
            workflow_id: None,
        })
    }

    pub(super) async fn fetch_job_log(
        &self,
        repo: &RepoRef,
        job: &ActionsJobRef,
        max_bytes: u64,
    ) -> Result<LogStream> {
        self.require_actions("downloading job logs").await?;
        let id = self.job_id_of(repo, job).await?;
        let auth = self.auth()?;
        let subject = format!(
            "the log of Actions job {id} in {}/{}",
            repo.owner, repo.repo
        );
        let url = format!("{}/actions/jobs/{id}/logs", self.repo_api(repo));
        let forge = self.http.forge().to_owned();
        let gone = || {
            Error::precondition(format!(
                "the log of Actions job {id} is gone on {forge}: it expired or was removed \
                 (instances delete logs after [actions] LOG_RETENTION_DAYS)"
            ))
            .with_detail("job_id", id)
            .with_suggestion("Re-run the job from its page to get a fresh log.")
        };
        download::stream_tail(
            &self.http,
            Source::Api {
                url,
                auth,
                subject: &subject,
            },
            Labels {
                subject: &subject,
                gone: &gone,
            },
            max_bytes,
        )
        .await
    }
}

impl Forgejo {
    /// `run_index` is the run's index in the repository, as for `workflow_run`.
    pub(super) async fn fetch_run_artifacts(
        &self,
        repo: &RepoRef,
        run_index: u64,
    ) -> Result<Vec<Artifact>> {
        self.require(ARTIFACTS, "listing artifacts").await?;
        let run = self.run_by_index(repo, run_index).await?;
        let auth = self.auth()?;
        let subject = format!(
            "artifacts of Actions run #{run_index} in {}/{}",
            repo.owner, repo.repo
        );
        let mut all = Vec::new();
        for page in 1..=MAX_PAGES {
            let url = format!(
                "{}/actions/runs/{}/artifacts?limit={PER_PAGE}&page={page}",
                self.repo_api(repo),
                run.id
            );
            let response = self
                .http
                .send(&Request::get(url, Some(auth), &subject))
                .await?;
            let items: Vec<FjArtifact> = response.json()?;
            let count = items.len();
            all.extend(items.into_iter().map(|a| Artifact {
                id: a.id,
                name: a.name,
                size_in_bytes: a.size_in_bytes,
                expired: a.expired,
            }));
            if count < PER_PAGE {
                return Ok(all);
            }
        }
        Err(crate::github::too_many_pages(&subject))
    }

    pub(super) async fn fetch_artifact_files(
        &self,
        repo: &RepoRef,
        artifact: &Artifact,
        suffix: &str,
        max_bytes: u64,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let subject = format!(
            "artifact {:?} ({}) of {}/{}",
            artifact.name, artifact.id, repo.owner, repo.repo
        );
        download::refuse_artifact(artifact, &subject, max_bytes)?;
        self.require(ARTIFACTS, "downloading artifacts").await?;
        let auth = self.auth()?;
        let url = format!(
            "{}/actions/artifacts/{}/zip",
            self.repo_api(repo),
            artifact.id
        );
        let gone = || {
            Error::precondition(format!("{subject} is gone: it expired or was deleted"))
                .with_suggestion("Re-run the workflow to produce the artifact again.")
        };
        download::artifact_files(&self.http, url, auth, &subject, &gone, suffix, max_bytes).await
    }
}

#[derive(Debug, Deserialize)]
struct FjArtifact {
    id: u64,
    #[serde(default)]
    name: String,
    #[serde(default)]
    size_in_bytes: u64,
    #[serde(default)]
    expired: bool,
}

/// `*` (any run of characters except `/`) and `**` (any run) in a protection rule name.
fn glob_match(pattern: &str, name: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == name;
    }
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(b'*') => {
                let double = p.get(1) == Some(&b'*');
                let rest = if double { &p[2..] } else { &p[1..] };
                (0..=n.len())
                    .take_while(|&i| double || !n[..i].contains(&b'/'))
                    .any(|i| go(rest, &n[i..]))
            }
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// The newest status of each context (the list holds every status ever posted).
fn latest(statuses: Vec<FjStatus>) -> Vec<FjStatus> {
    let mut sorted = statuses;
    sorted.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<FjStatus> = sorted
        .into_iter()
        .filter(|s| seen.insert(s.context.clone()))
        .collect();
    out.sort_by_key(|s| s.id);
    out
}

/// Forgejo's run/job/step statuses (`success`, `failure`, `cancelled`, `skipped`, `running`,
/// `waiting`, `blocked`, `unknown`); Gitea's GitHub-like `status` + `conclusion` also fit.
fn actions_state(status: &str, conclusion: Option<&str>) -> (CheckState, Option<CheckConclusion>) {
    if let Some(c) = conclusion.filter(|c| !c.is_empty()) {
        return (
            CheckState::Completed,
            crate::github::ci::conclusion(Some(c)),
        );
    }
    match status {
        "success" => (CheckState::Completed, Some(CheckConclusion::Success)),
        "failure" => (CheckState::Completed, Some(CheckConclusion::Failure)),
        "cancelled" => (CheckState::Completed, Some(CheckConclusion::Cancelled)),
        "skipped" => (CheckState::Completed, Some(CheckConclusion::Skipped)),
        "completed" => (CheckState::Completed, None),
        "running" | "in_progress" => (CheckState::InProgress, None),
        _ => (CheckState::Queued, None),
    }
}

#[derive(Debug, Deserialize)]
struct FjStatus {
    #[serde(default)]
    id: u64,
    #[serde(default)]
    context: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    target_url: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated_at: Option<Timestamp>,
}

#[derive(Debug, Deserialize)]
struct FjProtection {
    #[serde(default)]
    branch_name: String,
    #[serde(default)]
    rule_name: String,
    #[serde(default)]
    enable_status_check: bool,
    #[serde(default)]
    status_check_contexts: Vec<String>,
}

impl FjProtection {
    fn name(&self) -> &str {
        if self.rule_name.is_empty() {
            &self.branch_name
        } else {
            &self.rule_name
        }
    }
}

#[derive(Debug, Deserialize)]
struct FjRuns {
    #[serde(default)]
    workflow_runs: Vec<FjRun>,
}

#[derive(Debug, Deserialize)]
struct FjRun {
    id: u64,
    #[serde(default)]
    index_in_repo: Option<u64>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    started: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated: Option<Timestamp>,
}

#[derive(Debug, Deserialize)]
struct FjStep {
    #[serde(default)]
    number: u64,
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FjJob {
    id: u64,
    #[serde(default)]
    run_id: u64,
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    started_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    completed_at: Option<Timestamp>,
    #[serde(default)]
    steps: Option<Vec<FjStep>>,
}

impl FjJob {
    fn into_domain(self) -> Job {
        let (state, conclusion) = actions_state(&self.status, self.conclusion.as_deref());
        Job {
            id: self.id,
            run_id: self.run_id,
            name: self.name,
            workflow_name: None,
            state,
            conclusion,
            started_at: self.started_at,
            completed_at: self.completed_at,
            html_url: self.html_url,
            steps: self
                .steps
                .unwrap_or_default()
                .into_iter()
                .map(|s| {
                    let (state, conclusion) = actions_state(&s.status, s.conclusion.as_deref());
                    Step {
                        number: s.number,
                        name: s.name,
                        state,
                        conclusion,
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protection_rule_globs() {
        assert!(glob_match("main", "main"));
        assert!(glob_match("release/*", "release/1.x"));
        assert!(!glob_match("release/*", "release/1.x/hotfix"));
        assert!(glob_match("release/**", "release/1.x/hotfix"));
        assert!(!glob_match("main", "maintenance"));
    }

    #[test]
    fn newest_status_per_context() {
        let s = |id: u64, context: &str, status: &str, at: &str| FjStatus {
            id,
            context: context.into(),
            status: status.into(),
            description: None,
            target_url: None,
            created_at: crate::time::parse_time(at),
            updated_at: crate::time::parse_time(at),
        };
        let kept = latest(vec![
            s(1, "a", "pending", "2024-01-01T00:00:00Z"),
            s(2, "b", "failure", "2024-01-01T00:01:00Z"),
            s(3, "a", "success", "2024-01-01T00:02:00Z"),
        ]);
        let got: Vec<(u64, &str)> = kept.iter().map(|s| (s.id, s.status.as_str())).collect();
        assert_eq!(got, [(2, "failure"), (3, "success")]);
    }

    #[test]
    fn the_newest_status_is_the_latest_instant_whatever_the_offset() {
        // The server's offset changes with daylight saving time: 02:30+02:00 (before the
        // change) is 00:30Z, earlier than 01:45+01:00 (after it), which is 00:45Z, though as
        // text it sorts after it.
        let s = |id: u64, status: &str, at: &str| FjStatus {
            id,
            context: "a".into(),
            status: status.into(),
            description: None,
            target_url: None,
            created_at: crate::time::parse_time(at),
            updated_at: crate::time::parse_time(at),
        };
        let kept = latest(vec![
            s(2, "success", "2024-10-27T01:45:00+01:00"),
            s(1, "pending", "2024-10-27T02:30:00+02:00"),
        ]);
        let got: Vec<(u64, &str)> = kept.iter().map(|s| (s.id, s.status.as_str())).collect();
        assert_eq!(got, [(2, "success")]);
    }

    #[test]
    fn forgejo_action_states() {
        assert_eq!(
            actions_state("failure", None),
            (CheckState::Completed, Some(CheckConclusion::Failure))
        );
        assert_eq!(
            actions_state("running", None),
            (CheckState::InProgress, None)
        );
        assert_eq!(actions_state("blocked", None), (CheckState::Queued, None));
        assert_eq!(
            actions_state("completed", Some("success")),
            (CheckState::Completed, Some(CheckConclusion::Success))
        );
    }
}
