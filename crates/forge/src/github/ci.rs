//! CI on GitHub: check runs and commit statuses of a PR's head commit, the checks branch
//! rules require, Actions jobs and runs, job logs (a redirect to blob storage on another
//! host, streamed), check-run annotations and run artifacts.

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::future;
use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde_json::json;

use super::{GhPull, GitHub, MAX_PAGES, MAX_PER_PAGE, queries, too_many_pages};
use crate::download::{self, Labels, Source};
use crate::http::{Request, Response};
use crate::time::Timestamp;
use crate::wording::{not_found_hint, subject};
use crate::{
    ActionsJobRef, Annotation, Artifact, Check, CheckConclusion, CheckKind, CheckState, CiSnapshot,
    Job, Known, LogStream, RequiredChecks, Step, UnreadRules, WorkflowRun,
};
use crate::{Error, Result};

/// The app whose check runs are Actions jobs (the check run id is the job id).
const ACTIONS_APP: &str = "github-actions";

impl GitHub {
    pub(super) fn repo_api(&self, repo: &RepoRef) -> String {
        format!(
            "{}/repos/{}/{}",
            self.endpoint.api_url.trim_end_matches('/'),
            repo.owner,
            repo.repo
        )
    }

    /// Every page of a list; `items` takes the list out of one page's JSON. Also says
    /// whether every page came from the ETag cache.
    async fn all_pages<T>(
        &self,
        first_url: &str,
        subject: &str,
        hint: &str,
        items: impl Fn(&Response) -> Result<Vec<T>>,
    ) -> Result<(Vec<T>, bool)> {
        let auth = self.auth().await?;
        let mut out = Vec::new();
        let mut cached = true;
        let sep = if first_url.contains('?') { '&' } else { '?' };
        for page in 1u32.. {
            let url = format!("{first_url}{sep}per_page={MAX_PER_PAGE}&page={page}");
            let request = Request::get(url, Some(auth), subject).not_found_hint(hint);
            let response = self.http.send(&request).await?;
            cached &= response.from_cache;
            let got = items(&response)?;
            let count = got.len();
            let more = response.may_have_next(count, MAX_PER_PAGE as usize);
            out.extend(got);
            if count == 0 || !more {
                break;
            }
            if page >= MAX_PAGES {
                return Err(too_many_pages(subject));
            }
        }
        Ok((out, cached))
    }

    pub(super) async fn fetch_ci_snapshot(&self, pr: &PrRef) -> Result<CiSnapshot> {
        let auth = self.auth().await?;
        let pr_subject = subject(pr);
        let hint = not_found_hint(pr);
        let url = format!("{}/pulls/{}", self.repo_api(&pr.repo), pr.number);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &pr_subject).not_found_hint(&hint))
            .await?;
        let pull_cached = response.from_cache;
        let pull: GhPull = response.json()?;
        let (sha, base) = (pull.head.sha, pull.base.name);
        let repo = self.repo_api(&pr.repo);
        let runs_subject = format!("check runs of commit {sha} ({pr_subject})");
        let status_subject = format!("commit statuses of {sha} ({pr_subject})");
        let runs_url = format!("{repo}/commits/{sha}/check-runs?filter=latest");
        let status_url = format!("{repo}/commits/{sha}/status");
        let runs = self.all_pages(&runs_url, &runs_subject, &hint, |r| {
            Ok(r.json::<GhCheckRuns>()?.check_runs)
        });
        let statuses = self.all_pages(&status_url, &status_subject, &hint, |r| {
            Ok(r.json::<GhCombinedStatus>()?.statuses)
        });
        let ((runs, runs_cached), (statuses, statuses_cached), rules) =
            tokio::try_join!(runs, statuses, async {
                Ok(self.required_checks(pr, &base).await)
            })?;
        let mut checks: Vec<Check> = runs.into_iter().map(GhCheckRun::into_domain).collect();
        // Offset pages can repeat an item when a check run is created during the walk.
        let mut seen = std::collections::HashSet::new();
        checks.retain(|c| seen.insert(c.id));
        checks.extend(latest_statuses(statuses));
        let (required, required_cached) = self.required(pr, &sha, &checks, rules).await;
        Ok(CiSnapshot {
            head_sha: sha,
            checks,
            required,
            unchanged: pull_cached && runs_cached && statuses_cached && required_cached,
        })
    }

    /// The required checks from what the branch rules said, completed by GraphQL's
    /// `isRequired` when a rule source could not be read (classic protection needs admin
    /// rights; GraphQL needs only read access and covers every rule source, but only for the
    /// checks the head has reported). Also whether every answer came from a cache.
    async fn required(
        &self,
        pr: &PrRef,
        sha: &str,
        checks: &[Check],
        rules: BranchRules,
    ) -> (RequiredChecks, bool) {
        let mut names = rules.names;
        let mut cached = rules.cached;
        // Rulesets and classic protection: did either answer?
        let mut read = rules.unread.len() < 2;
        let mut unread = rules.unread;
        let mut not_required = Vec::new();
        let classic_unread = unread.iter().any(|u| u.source == CLASSIC);
        if !unread.is_empty() {
            match self
                .required_by_graphql(pr, sha, checks, classic_unread)
                .await
            {
                Ok(None) => {}
                Ok(Some((answer, memo))) => {
                    read = true;
                    cached &= memo;
                    // Classic protection as those who may push see it: its required checks
                    // include those that have not reported yet.
                    if let Some(classic) = answer.classic {
                        unread.retain(|u| u.source != CLASSIC);
                        for name in classic {
                            if !names.contains(&name) {
                                names.push(name);
                            }
                        }
                    }
                    let answers = answer.is_required;
                    for name in required_names(&answers) {
                        if !names.contains(&name) {
                            names.push(name);
                        }
                    }
                    // What a rule source said is required stays required.
                    not_required = answers
                        .into_iter()
                        .filter(|(name, required)| !required && !names.contains(name))
                        .map(|(name, _)| name)
                        .collect();
                    not_required.sort();
                }
                Err(reason) => unread.push(UnreadRules {
                    source: GRAPHQL.to_owned(),
                    reason,
                }),
            }
        }
        let known = if unread.is_empty() {
            Known::Complete
        } else if read {
            Known::Partial
        } else {
            Known::Unknown
        };
        let required = RequiredChecks {
            names,
            not_required,
            known,
            unread,
        };
        (required, cached)
    }

    /// GraphQL's `isRequired` answers for the pull request, and classic protection as
    /// `refUpdateRule` shows it, when any check that has not passed has no answer yet for
    /// this head commit or classic protection could not be read over REST (one query, paged
    /// by 100; later polls of the same commit and checks are answered from memory), with
    /// whether the answers came from memory. `Ok(None)` when there is nothing to ask; `Err`
    /// says why the query could not answer (an error, an older Enterprise server, a token
    /// without GraphQL, the head moved meanwhile).
    async fn required_by_graphql(
        &self,
        pr: &PrRef,
        sha: &str,
        checks: &[Check],
        classic_unread: bool,
    ) -> std::result::Result<Option<(RequiredAnswers, bool)>, String> {
        let open: Vec<&str> = checks
            .iter()
            .filter(|c| {
                c.state != CheckState::Completed || c.conclusion.is_some_and(|x| x.is_failure())
            })
            .map(|c| c.name.as_str())
            .collect();
        if open.is_empty() && !classic_unread {
            return Ok(None);
        }
        let key = format!("{}#{}@{sha}", pr.repo.full_name(), pr.number);
        // Every answer in memory holds classic protection as the query saw it.
        if let Some(known) = self.required_memo.get(&key)
            && open.iter().all(|n| known.is_required.contains_key(*n))
        {
            return Ok(Some((known, true)));
        }
        let mut answers: HashMap<String, bool> = HashMap::new();
        let mut classic: Option<Vec<String>> = None;
        let mut after: Option<String> = None;
        for page in 1u32.. {
            let variables = json!({
                "owner": pr.repo.owner,
                "name": pr.repo.repo,
                "number": pr.number,
                "after": after,
            });
            let (data, errors) =
                super::readiness::graphql_partial(self, queries::REQUIRED_CHECKS, variables)
                    .await
                    .map_err(|e| {
                        tracing::debug!(error = %e, "required checks: GraphQL unanswered");
                        format!("the query failed: {e}")
                    })?;
            // An error on `refUpdateRule` alone (FORBIDDEN) leaves classic protection
            // unread; any other fails the query.
            let (rule_errors, other): (Vec<_>, Vec<_>) = errors
                .into_iter()
                .partition(|e| super::readiness::is_rule_error(e, "refUpdateRule"));
            if let Some(e) = other.first() {
                return Err(format!("the query failed: {}", e.message));
            }
            let answer: GqlRequired = serde_json::from_value(data)
                .map_err(|e| format!("its answer could not be read: {e}"))?;
            let Some(repository) = answer.repository else {
                return Err("it did not find the repository".to_string());
            };
            let permission = repository.viewer_permission.as_deref();
            let may_push = matches!(permission, Some("MAINTAIN" | "WRITE"));
            let admin = permission == Some("ADMIN");
            let Some(pull) = repository.pull_request else {
                return Err("it did not find the pull request".to_string());
            };
            if page == 1 && rule_errors.is_empty() {
                // The rule as it binds those who may push; null to them means no rule (to a
                // reader it may mean hidden, so it stays unread).
                // An admin (whose token could not read REST) is shown only what binds the
                // admin: nothing when the rule is not enforced on admins, so an empty or null
                // rule leaves it unread.
                let contexts = pull.base_ref.and_then(|b| b.ref_update_rule).map(|r| {
                    r.required_status_check_contexts
                        .into_iter()
                        .flatten()
                        .flatten()
                        .collect::<Vec<String>>()
                });
                classic = match contexts {
                    Some(names) if admin && names.is_empty() => None,
                    Some(names) => Some(names),
                    None if may_push => Some(Vec::new()),
                    None => None,
                };
            }
            if pull.head_ref_oid != sha {
                return Err(format!(
                    "the head moved to {} while it was read",
                    pull.head_ref_oid
                ));
            }
            let Some(contexts) = pull.status_check_rollup.map(|r| r.contexts) else {
                break;
            };
            for node in contexts.nodes.into_iter().flatten() {
                if let Some(name) = node.name.or(node.context) {
                    *answers.entry(name).or_default() |= node.is_required;
                }
            }
            match contexts.page_info.end_cursor {
                Some(cursor) if contexts.page_info.has_next_page && page < MAX_PAGES => {
                    after = Some(cursor)
                }
                _ => break,
            }
        }
        let answer = RequiredAnswers {
            is_required: answers,
            classic,
        };
        self.required_memo.put(key, answer.clone());
        Ok(Some((answer, false)))
    }

    /// Names of required checks from rulesets and classic branch protection, best effort:
    /// a source that cannot be read (a token without admin rights cannot read classic
    /// protection) is listed with why, never taken as "nothing required".
    async fn required_checks(&self, pr: &PrRef, base: &str) -> BranchRules {
        let auth = match self.auth().await {
            Ok(auth) => auth,
            Err(e) => {
                let reason = e.to_string();
                return BranchRules {
                    names: Vec::new(),
                    cached: false,
                    unread: vec![
                        UnreadRules {
                            source: format!("rulesets of branch {base}"),
                            reason: reason.clone(),
                        },
                        UnreadRules {
                            source: CLASSIC.to_owned(),
                            reason,
                        },
                    ],
                };
            }
        };
        let repo = self.repo_api(&pr.repo);
        let branch = url_segment(base);
        let rules_subject = format!("rules of branch {base}");
        let protection_subject = format!("protection of branch {base}");
        let rules_url = format!("{repo}/rules/branches/{branch}?per_page={MAX_PER_PAGE}");
        let protection_url = format!("{repo}/branches/{branch}/protection/required_status_checks");
        let rules_request = Request::get(rules_url, Some(auth), &rules_subject);
        let protection_request = Request::get(protection_url, Some(auth), &protection_subject);
        let (rules, protection) = future::join(
            self.http.send(&rules_request),
            self.http.send(&protection_request),
        )
        .await;
        let mut names: Vec<String> = Vec::new();
        let mut cached = true;
        let mut unread = Vec::new();
        let mut note = |source: String, e: &Error| {
            tracing::debug!(source, status = ?e.http_status(), error = %e, "required checks unread");
            let reason = unread_reason(source == CLASSIC, e);
            unread.push(UnreadRules { source, reason });
        };
        match rules.and_then(|r| Ok((r.json::<Vec<GhRule>>()?, r.from_cache))) {
            Ok((rules, from_cache)) => {
                cached &= from_cache;
                for rule in rules {
                    if rule.kind == "required_status_checks" {
                        names.extend(
                            rule.parameters
                                .into_iter()
                                .flat_map(|p| p.required_status_checks)
                                .map(|c| c.context),
                        );
                    }
                }
            }
            Err(e) => note(format!("rulesets of branch {base}"), &e),
        }
        match protection.and_then(|r| Ok((r.json::<GhRequiredChecks>()?, r.from_cache))) {
            Ok((checks, from_cache)) => {
                cached &= from_cache;
                names.extend(checks.contexts);
                names.extend(checks.checks.into_iter().map(|c| c.context));
            }
            Err(e) => note(CLASSIC.to_owned(), &e),
        }
        let mut seen = std::collections::HashSet::new();
        names.retain(|n| seen.insert(n.clone()));
        BranchRules {
            names,
            cached,
            unread,
        }
    }

    pub(super) async fn fetch_actions_job(
        &self,
        repo: &RepoRef,
        job: &ActionsJobRef,
    ) -> Result<Job> {
        let auth = self.auth().await?;
        let subject = format!("Actions job {} in {}/{}", job.job_id, repo.owner, repo.repo);
        let url = format!("{}/actions/jobs/{}", self.repo_api(repo), job.job_id);
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject))
            .await?;
        Ok(response.json::<GhJob>()?.into_domain())
    }

    pub(super) async fn fetch_workflow_run(
        &self,
        repo: &RepoRef,
        run_id: u64,
    ) -> Result<WorkflowRun> {
        let auth = self.auth().await?;
        let subject = format!("workflow run {run_id} in {}/{}", repo.owner, repo.repo);
        let url = format!("{}/actions/runs/{run_id}", self.repo_api(repo));
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject))
            .await?;
        Ok(response.json::<GhRun>()?.into_domain())
    }

    /// Durations of the workflow's latest successful runs: from `run_started_at` to
    /// `updated_at` (when a completed run last changed, which is when it finished).
    pub(super) async fn fetch_workflow_durations(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        max: usize,
    ) -> Result<Vec<u64>> {
        let subject = format!(
            "runs of workflow {workflow_id} in {}/{}",
            repo.owner, repo.repo
        );
        let runs = self
            .workflow_runs(repo, workflow_id, "status=success", max, &subject)
            .await?;
        Ok(runs
            .iter()
            .filter_map(|r| {
                let seconds = (r.updated_at? - r.run_started_at?).num_seconds();
                u64::try_from(seconds).ok()
            })
            .take(max)
            .collect())
    }

    /// The workflow's runs on `head_sha`, newest first: one request.
    pub(super) async fn fetch_commit_runs(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        head_sha: &str,
        max: usize,
    ) -> Result<Vec<WorkflowRun>> {
        if !head_sha.bytes().all(|b| b.is_ascii_hexdigit()) || head_sha.is_empty() {
            return Err(Error::usage(format!(
                "{head_sha:?} is not a commit id (hexadecimal)"
            )));
        }
        let subject = format!(
            "runs of workflow {workflow_id} on {head_sha} in {}/{}",
            repo.owner, repo.repo
        );
        let runs = self
            .workflow_runs(
                repo,
                workflow_id,
                &format!("head_sha={head_sha}"),
                max,
                &subject,
            )
            .await?;
        Ok(runs.into_iter().take(max).map(GhRun::into_domain).collect())
    }

    /// One page (at most `max`, newest first) of a workflow's runs that match `filter`
    /// (`status=success`, `head_sha=…`).
    async fn workflow_runs(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        filter: &str,
        max: usize,
        subject: &str,
    ) -> Result<Vec<GhRun>> {
        let auth = self.auth().await?;
        let url = format!(
            "{}/actions/workflows/{workflow_id}/runs?{filter}&per_page={}",
            self.repo_api(repo),
            max.clamp(1, 100)
        );
        let response = self
            .http
            .send(&Request::get(url, Some(auth), subject))
            .await?;
        Ok(response.json::<GhRuns>()?.workflow_runs)
    }

    /// `filter=all`: the jobs of every attempt, not only the latest.
    pub(super) async fn fetch_run_jobs_all_attempts(
        &self,
        repo: &RepoRef,
        run_id: u64,
    ) -> Result<Vec<Job>> {
        let subject = format!(
            "jobs of workflow run {run_id} in {}/{}",
            repo.owner, repo.repo
        );
        let url = format!(
            "{}/actions/runs/{run_id}/jobs?filter=all",
            self.repo_api(repo)
        );
        let (items, _) = self
            .all_pages(&url, &subject, "", |r| Ok(r.json::<GhJobs>()?.jobs))
            .await?;
        Ok(items.into_iter().map(GhJob::into_domain).collect())
    }

    pub(super) async fn fetch_job_log(
        &self,
        repo: &RepoRef,
        job: &ActionsJobRef,
        max_bytes: u64,
    ) -> Result<LogStream> {
        let auth = self.auth().await?;
        let subject = format!(
            "the log of Actions job {} in {}/{}",
            job.job_id, repo.owner, repo.repo
        );
        let url = format!("{}/actions/jobs/{}/logs", self.repo_api(repo), job.job_id);
        let job_id = job.job_id;
        let gone = || {
            Error::precondition(format!(
                "the log of Actions job {job_id} is gone or not there yet: it expired or was \
                 deleted (GitHub keeps logs 90 days by default, less where the repository \
                 says so), or the job has not finished"
            ))
            .with_detail("job_id", job_id)
            .with_suggestion(
                "If the job finished, re-run it (gh run rerun --job JOB_ID, or the job's page) \
                 to get a fresh log; if it is still running, wait for it to complete.",
            )
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

    pub(super) async fn fetch_check_annotations(
        &self,
        repo: &RepoRef,
        check_run_id: u64,
    ) -> Result<Vec<Annotation>> {
        let subject = format!(
            "annotations of check run {check_run_id} in {}/{}",
            repo.owner, repo.repo
        );
        let url = format!(
            "{}/check-runs/{check_run_id}/annotations",
            self.repo_api(repo)
        );
        let (items, _) = self
            .all_pages(&url, &subject, "", |r| r.json::<Vec<GhAnnotation>>())
            .await?;
        Ok(items.into_iter().map(GhAnnotation::into_domain).collect())
    }

    pub(super) async fn fetch_run_artifacts(
        &self,
        repo: &RepoRef,
        run_id: u64,
    ) -> Result<Vec<Artifact>> {
        let subject = format!(
            "artifacts of workflow run {run_id} in {}/{}",
            repo.owner, repo.repo
        );
        let url = format!("{}/actions/runs/{run_id}/artifacts", self.repo_api(repo));
        let (items, _) = self
            .all_pages(&url, &subject, "", |r| {
                Ok(r.json::<GhArtifacts>()?.artifacts)
            })
            .await?;
        Ok(items.into_iter().map(GhArtifact::into_domain).collect())
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
        let auth = self.auth().await?;
        let url = format!(
            "{}/actions/artifacts/{}/zip",
            self.repo_api(repo),
            artifact.id
        );
        let gone = || download::expired_artifact(&subject);
        download::artifact_files(&self.http, url, auth, &subject, &gone, suffix, max_bytes).await
    }
}

/// The rule sources as `MergeFacts::rules.unknown` names them.
const CLASSIC: &str = "classic branch protection";
const GRAPHQL: &str = "GraphQL isRequired";

/// What a branch's rules said about required checks.
#[derive(Debug)]
struct BranchRules {
    /// From the sources that answered.
    names: Vec<String>,
    /// Every answer came from the ETag cache.
    cached: bool,
    /// The sources that could not be read, with why.
    unread: Vec<UnreadRules>,
}

/// Why a rule source could not be read, for people: what a status means for it, else the
/// error. GitHub answers a token without admin rights 404 on a protected branch too, so a
/// 404 on classic protection cannot tell "not protected" from "may not read".
fn unread_reason(classic: bool, e: &Error) -> String {
    match (classic, e.http_status()) {
        (true, Some(403)) => "it needs admin rights the token lacks (HTTP 403)".to_string(),
        (true, Some(404)) => {
            "HTTP 404: the branch has no classic protection, or the token lacks the admin rights \
             to read it"
                .to_string()
        }
        _ => e.to_string(),
    }
}

/// GraphQL's answers about required checks, per pull request head commit (see
/// `GitHub::required_by_graphql`). Whether a check is required changes only with branch
/// rules, so a poll of the same commit asks again only for checks it has not seen; entries
/// start over past a bound, like the other caches of a long-running server.
#[derive(Debug, Default)]
pub(crate) struct RequiredMemo(Mutex<HashMap<String, RequiredAnswers>>);

/// What the required-checks query said about one head commit.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequiredAnswers {
    /// `isRequired` per reported check.
    is_required: HashMap<String, bool>,
    /// The required checks of classic protection, as those who may push see them; `None`
    /// when the token could not see it.
    classic: Option<Vec<String>>,
}

const REQUIRED_MEMO_ENTRIES: usize = 256;

impl RequiredMemo {
    fn get(&self, key: &str) -> Option<RequiredAnswers> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: String, answers: RequiredAnswers) {
        if let Ok(mut map) = self.0.lock() {
            if map.len() >= REQUIRED_MEMO_ENTRIES {
                map.clear();
            }
            map.insert(key, answers);
        }
    }
}

fn required_names(answers: &HashMap<String, bool>) -> Vec<String> {
    let mut names: Vec<String> = answers
        .iter()
        .filter(|(_, required)| **required)
        .map(|(name, _)| name.clone())
        .collect();
    names.sort();
    names
}

#[derive(Debug, Deserialize)]
struct GqlRequired {
    repository: Option<GqlRepository>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRepository {
    #[serde(default)]
    viewer_permission: Option<String>,
    pull_request: Option<GqlPull>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlPull {
    head_ref_oid: String,
    #[serde(default)]
    base_ref: Option<GqlBaseRef>,
    status_check_rollup: Option<GqlRollup>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlBaseRef {
    #[serde(default)]
    ref_update_rule: Option<GqlRefUpdateRule>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRefUpdateRule {
    /// `[String]` in the schema: the list and its items may be null.
    #[serde(default)]
    required_status_check_contexts: Option<Vec<Option<String>>>,
}

#[derive(Debug, Deserialize)]
struct GqlRollup {
    contexts: GqlContexts,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlContexts {
    page_info: GqlPageInfo,
    nodes: Vec<Option<GqlContext>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlPageInfo {
    has_next_page: bool,
    end_cursor: Option<String>,
}

/// A `CheckRun` (`name`) or a `StatusContext` (`context`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlContext {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    context: Option<String>,
    #[serde(default)]
    is_required: bool,
}

/// A branch name in a URL path: `/` stays (GitHub takes `release/1.x` as is), the rest of
/// the reserved characters are escaped.
pub(super) fn url_segment(name: &str) -> String {
    url::form_urlencoded::byte_serialize(name.as_bytes())
        .collect::<String>()
        .replace("%2F", "/")
        .replace('+', "%20")
}

/// The newest status of each context (the combined status already is; a list may not be).
fn latest_statuses(statuses: Vec<GhStatus>) -> Vec<Check> {
    let mut seen = std::collections::HashSet::new();
    let mut sorted = statuses;
    // Newest first, so the first of each context wins; stable for equal times.
    sorted.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
    sorted
        .into_iter()
        .filter(|s| seen.insert(s.context.clone()))
        .map(GhStatus::into_domain)
        .collect()
}

pub(crate) fn check_state(status: &str) -> CheckState {
    match status {
        "completed" => CheckState::Completed,
        "in_progress" => CheckState::InProgress,
        // queued, waiting, requested, pending
        _ => CheckState::Queued,
    }
}

pub(crate) fn conclusion(value: Option<&str>) -> Option<CheckConclusion> {
    Some(match value? {
        "success" => CheckConclusion::Success,
        "failure" => CheckConclusion::Failure,
        "neutral" => CheckConclusion::Neutral,
        "cancelled" => CheckConclusion::Cancelled,
        "skipped" => CheckConclusion::Skipped,
        "timed_out" => CheckConclusion::TimedOut,
        "action_required" => CheckConclusion::ActionRequired,
        "startup_failure" => CheckConclusion::StartupFailure,
        "stale" => CheckConclusion::Stale,
        other => {
            tracing::debug!(conclusion = other, "unknown check conclusion");
            return None;
        }
    })
}

/// `…/actions/runs/{run}/job/{job}` (GitHub's job page) to the run id and job id.
pub(crate) fn run_and_job(details_url: &str) -> Option<(u64, u64)> {
    let path = details_url.split(['?', '#']).next()?;
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let at = segments.windows(4).position(|w| {
        w[0] == "runs"
            && w[2] == "job"
            && w[1].parse::<u64>().is_ok()
            && w[3].parse::<u64>().is_ok()
    })?;
    Some((
        segments[at + 1].parse().ok()?,
        segments[at + 3].parse().ok()?,
    ))
}

#[derive(Debug, Deserialize)]
struct GhCheckRuns {
    #[serde(default)]
    check_runs: Vec<GhCheckRun>,
}

#[derive(Debug, Deserialize)]
struct GhApp {
    #[serde(default)]
    slug: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct GhOutput {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    annotations_count: u64,
}

#[derive(Debug, Deserialize)]
struct GhCheckRun {
    id: u64,
    name: String,
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    started_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    completed_at: Option<Timestamp>,
    #[serde(default)]
    details_url: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    app: Option<GhApp>,
    #[serde(default)]
    output: Option<GhOutput>,
}

impl GhCheckRun {
    fn into_domain(self) -> Check {
        let app = self.app.and_then(|a| a.slug);
        let actions_job = match (&app, &self.details_url) {
            (Some(slug), Some(url)) if slug == ACTIONS_APP => {
                run_and_job(url).map(|(run_id, _)| ActionsJobRef {
                    run_id,
                    job_id: self.id,
                })
            }
            _ => None,
        };
        let output = self.output.unwrap_or_default();
        let state = check_state(&self.status);
        Check {
            id: self.id,
            name: self.name,
            kind: CheckKind::CheckRun,
            state,
            conclusion: if state == CheckState::Completed {
                conclusion(self.conclusion.as_deref())
            } else {
                None
            },
            started_at: self.started_at,
            completed_at: self.completed_at,
            details_url: self.details_url.or(self.html_url).filter(|u| !u.is_empty()),
            app,
            title: output.title.filter(|t| !t.is_empty()),
            summary: output.summary.filter(|t| !t.is_empty()),
            text: output.text.filter(|t| !t.is_empty()),
            annotations_count: output.annotations_count,
            actions_job,
        }
    }
}

#[derive(Debug, Deserialize)]
struct GhCombinedStatus {
    #[serde(default)]
    statuses: Vec<GhStatus>,
}

#[derive(Debug, Deserialize)]
struct GhStatus {
    context: String,
    state: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    target_url: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated_at: Option<Timestamp>,
}

impl GhStatus {
    fn into_domain(self) -> Check {
        let (state, conclusion) = status_state(&self.state);
        Check {
            id: 0,
            name: self.context,
            kind: CheckKind::Status,
            state,
            conclusion,
            started_at: self.created_at,
            completed_at: (state == CheckState::Completed)
                .then_some(self.updated_at)
                .flatten(),
            details_url: self.target_url.filter(|u| !u.is_empty()),
            app: None,
            title: self.description.filter(|d| !d.is_empty()),
            summary: None,
            text: None,
            annotations_count: 0,
            actions_job: None,
        }
    }
}

/// A commit status state (both forges): `pending` is queued; `error` fails like `failure`;
/// Forgejo's `warning` is neutral (it does not block a merge) and `skipped` skipped.
pub(crate) fn status_state(state: &str) -> (CheckState, Option<CheckConclusion>) {
    match state {
        "success" => (CheckState::Completed, Some(CheckConclusion::Success)),
        "failure" | "error" => (CheckState::Completed, Some(CheckConclusion::Failure)),
        "warning" => (CheckState::Completed, Some(CheckConclusion::Neutral)),
        "skipped" => (CheckState::Completed, Some(CheckConclusion::Skipped)),
        _ => (CheckState::Queued, None),
    }
}

#[derive(Debug, Deserialize)]
struct GhRule {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    parameters: Option<GhRuleParameters>,
}

#[derive(Debug, Deserialize)]
struct GhRuleParameters {
    #[serde(default)]
    required_status_checks: Vec<GhRequiredCheck>,
}

#[derive(Debug, Deserialize)]
struct GhRequiredCheck {
    context: String,
}

#[derive(Debug, Deserialize)]
struct GhRequiredChecks {
    #[serde(default)]
    contexts: Vec<String>,
    #[serde(default)]
    checks: Vec<GhRequiredCheck>,
}

#[derive(Debug, Deserialize)]
struct GhStep {
    number: u64,
    name: String,
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
}

#[derive(Debug, Deserialize)]
struct GhJob {
    id: u64,
    run_id: u64,
    name: String,
    #[serde(default)]
    workflow_name: Option<String>,
    status: String,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    started_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    completed_at: Option<Timestamp>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    steps: Vec<GhStep>,
}

impl GhJob {
    fn into_domain(self) -> Job {
        Job {
            id: self.id,
            run_id: self.run_id,
            name: self.name,
            workflow_name: self.workflow_name,
            state: check_state(&self.status),
            conclusion: conclusion(self.conclusion.as_deref()),
            started_at: self.started_at,
            completed_at: self.completed_at,
            html_url: self.html_url,
            steps: self
                .steps
                .into_iter()
                .map(|s| Step {
                    number: s.number,
                    name: s.name,
                    state: check_state(&s.status),
                    conclusion: conclusion(s.conclusion.as_deref()),
                })
                .collect(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct GhRun {
    id: u64,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    display_title: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    run_started_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated_at: Option<Timestamp>,
    #[serde(default)]
    workflow_id: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct GhJobs {
    jobs: Vec<GhJob>,
}

#[derive(Debug, Deserialize)]
struct GhRuns {
    workflow_runs: Vec<GhRun>,
}

impl GhRun {
    fn into_domain(self) -> WorkflowRun {
        WorkflowRun {
            id: self.id,
            name: self.name.or(self.display_title).unwrap_or_default(),
            html_url: self.html_url,
            state: check_state(self.status.as_deref().unwrap_or("queued")),
            conclusion: conclusion(self.conclusion.as_deref()),
            started_at: self.run_started_at,
            updated_at: self.updated_at,
            workflow_id: self.workflow_id,
        }
    }
}

#[derive(Debug, Deserialize)]
struct GhAnnotation {
    path: String,
    #[serde(default)]
    start_line: Option<u64>,
    #[serde(default)]
    end_line: Option<u64>,
    #[serde(default)]
    annotation_level: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    raw_details: Option<String>,
}

impl GhAnnotation {
    fn into_domain(self) -> Annotation {
        Annotation {
            path: self.path,
            start_line: self.start_line,
            end_line: self.end_line,
            level: self.annotation_level.unwrap_or_else(|| "notice".to_owned()),
            title: self.title.filter(|t| !t.is_empty()),
            message: self.message.unwrap_or_default(),
            raw_details: self.raw_details.filter(|t| !t.is_empty()),
        }
    }
}

#[derive(Debug, Deserialize)]
struct GhArtifacts {
    #[serde(default)]
    artifacts: Vec<GhArtifact>,
}

#[derive(Debug, Deserialize)]
struct GhArtifact {
    id: u64,
    name: String,
    #[serde(default)]
    size_in_bytes: u64,
    #[serde(default)]
    expired: bool,
}

impl GhArtifact {
    fn into_domain(self) -> Artifact {
        Artifact {
            id: self.id,
            name: self.name,
            size_in_bytes: self.size_in_bytes,
            expired: self.expired,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `requiredStatusCheckContexts` is `[String]`: the list or its items may be null, which
    /// must not lose the rest of the answer.
    #[test]
    fn null_required_contexts_read_as_none() {
        for contexts in [json!(null), json!([null, "build"])] {
            let answer: GqlRequired = serde_json::from_value(json!({"repository": {
                "viewerPermission": "WRITE",
                "pullRequest": {"headRefOid": "abc",
                    "baseRef": {"refUpdateRule": {"requiredStatusCheckContexts": contexts}},
                    "statusCheckRollup": null}}}))
            .expect("decodes");
            let pull = answer.repository.unwrap().pull_request.unwrap();
            let rule = pull.base_ref.unwrap().ref_update_rule.unwrap();
            let names: Vec<String> = rule
                .required_status_check_contexts
                .into_iter()
                .flatten()
                .flatten()
                .collect();
            assert!(names.is_empty() || names == ["build"]);
        }
    }

    #[test]
    fn run_and_job_from_details_url() {
        assert_eq!(
            run_and_job("https://github.com/o/r/actions/runs/123/job/456"),
            Some((123, 456))
        );
        assert_eq!(
            run_and_job("https://github.com/o/r/actions/runs/123/job/456?pr=7#step:4:12"),
            Some((123, 456))
        );
        assert_eq!(run_and_job("https://ci.example.com/builds/88"), None);
        assert_eq!(run_and_job("https://github.com/o/r/runs/1"), None);
    }

    #[test]
    fn statuses_keep_the_newest_per_context() {
        let s = |context: &str, state: &str, at: &str| GhStatus {
            context: context.into(),
            state: state.into(),
            description: None,
            target_url: None,
            created_at: crate::time::parse_time(at),
            updated_at: crate::time::parse_time(at),
        };
        let checks = latest_statuses(vec![
            s("ci/a", "pending", "2024-01-01T00:00:00Z"),
            s("ci/a", "failure", "2024-01-01T00:05:00Z"),
            s("ci/b", "error", "2024-01-01T00:01:00Z"),
        ]);
        assert_eq!(checks.len(), 2);
        let a = checks.iter().find(|c| c.name == "ci/a").unwrap();
        assert_eq!(a.conclusion, Some(CheckConclusion::Failure));
        let b = checks.iter().find(|c| c.name == "ci/b").unwrap();
        assert_eq!(
            (b.state, b.conclusion),
            (CheckState::Completed, Some(CheckConclusion::Failure))
        );
        assert_eq!(status_state("pending"), (CheckState::Queued, None));
        assert_eq!(status_state("warning").1, Some(CheckConclusion::Neutral));
    }

    #[test]
    fn branch_names_in_paths() {
        assert_eq!(url_segment("release/1.x"), "release/1.x");
        assert_eq!(url_segment("a b#c"), "a%20b%23c");
    }
}
