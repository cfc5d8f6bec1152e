//! CI as the simulator serves it: GitHub check runs, commit statuses, required checks,
//! Actions jobs, runs, annotations and artifacts; Forgejo/Gitea commit statuses, branch
//! protections and (Forgejo) the Actions API; and the blob storage on a second listener that
//! job logs and artifact archives redirect to (another port, so another host to clients).
//!
//! Time moves with polling: a check run with `complete_after: N` reports its pending state on
//! the first N check-run listings of its commit, then completes; `POST /_sim/checks/complete`
//! completes one by name at once.

use std::collections::HashMap;
use std::io::Write;

use bytes::Bytes;
use serde_json::{Value, json};

use crate::scenario::{
    ArtifactSpec, CheckRunSpec, LogGenerate, PullSpec, WorkflowJobSpec, WorkflowRunSpec,
};
use crate::server::{Reply, ReplyBody, Request};
use crate::state::World;

/// Ids of check runs the scenario does not number.
const FIRST_CHECK_RUN_ID: u64 = 9_000_001;
const CHECK_SUITE_ID: u64 = 7_000_001;
/// The GitHub Actions app as GitHub reports it.
const ACTIONS_APP_ID: u64 = 15368;

/// What polling and the control endpoint changed.
#[derive(Debug, Default)]
pub(crate) struct CiState {
    /// Check-run listings (first pages) served per (repository, commit).
    listings: HashMap<(usize, String), u32>,
    /// Checks completed through the control endpoint: (repository, name) -> conclusion.
    forced: HashMap<(usize, String), String>,
}

/// A check run with its resolved id and commit.
pub(crate) struct RunRef<'w> {
    pub id: u64,
    pub sha: String,
    pub pull: &'w PullSpec,
    pub spec: &'w CheckRunSpec,
}

/// Its state right now: status, conclusion, completed_at.
struct Now {
    status: String,
    conclusion: Option<String>,
    completed_at: Option<String>,
}

pub(crate) fn check_runs(world: &World, r: usize) -> Vec<RunRef<'_>> {
    let mut next = FIRST_CHECK_RUN_ID;
    let mut out = Vec::new();
    for pull in &world.repos[r].spec.pulls {
        for spec in &pull.check_runs {
            let id = spec.id.or(spec.job_id).unwrap_or_else(|| {
                next += 1;
                next - 1
            });
            let sha = spec
                .head_sha
                .clone()
                .unwrap_or_else(|| pull.head.sha.clone());
            out.push(RunRef {
                id,
                sha,
                pull,
                spec,
            });
        }
    }
    out
}

fn jobs(world: &World, r: usize) -> impl Iterator<Item = (&PullSpec, &WorkflowJobSpec)> {
    world.repos[r]
        .spec
        .pulls
        .iter()
        .flat_map(|p| p.workflow_jobs.iter().map(move |j| (p, j)))
}

fn job(world: &World, r: usize, id: u64) -> Option<(&PullSpec, &WorkflowJobSpec)> {
    jobs(world, r).find(|(_, j)| j.id == Some(id))
}

fn artifact(world: &World, r: usize, id: u64) -> Option<&ArtifactSpec> {
    world.repos[r]
        .spec
        .pulls
        .iter()
        .flat_map(|p| p.artifacts.iter())
        .find(|a| a.id == id)
}

/// The run a job or artifact names: from the scenario, or made up from its jobs.
fn run(world: &World, r: usize, id: u64) -> Option<(Option<&PullSpec>, WorkflowRunSpec)> {
    for pull in &world.repos[r].spec.pulls {
        if let Some(run) = pull.workflow_runs.iter().find(|w| w.id == id) {
            return Some((Some(pull), run.clone()));
        }
    }
    if let Some(run) = world.repos[r].spec.past_runs.iter().find(|w| w.id == id) {
        return Some((None, run.clone()));
    }
    let (pull, job) = jobs(world, r).find(|(_, j)| j.run_id == Some(id))?;
    Some((
        Some(pull),
        WorkflowRunSpec {
            id,
            number: None,
            name: job.workflow_name.clone().unwrap_or_else(|| "CI".to_owned()),
            status: job.status.clone(),
            conclusion: job.conclusion.clone(),
            started_at: job.started_at.clone(),
            completed_at: job.completed_at.clone(),
            workflow_id: None,
            head_sha: None,
            run_attempt: None,
        },
    ))
}

impl World {
    /// Counts a check-run listing of a commit and returns how many there have been.
    fn count_listing(&mut self, r: usize, sha: &str) -> u32 {
        let n = self.ci.listings.entry((r, sha.to_owned())).or_insert(0);
        *n += 1;
        *n
    }

    pub(crate) fn listings(&self, r: usize, sha: &str) -> u32 {
        self.ci
            .listings
            .get(&(r, sha.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// `POST /_sim/checks/complete`: completes every check run called `name` (all
    /// repositories). Returns how many there were.
    pub(crate) fn complete_check(&mut self, name: &str, conclusion: Option<&str>) -> usize {
        let mut found = 0;
        for r in 0..self.repos.len() {
            let matching: Vec<String> = check_runs(self, r)
                .into_iter()
                .filter(|c| c.spec.name == name)
                .map(|c| {
                    conclusion
                        .map(str::to_owned)
                        .or_else(|| c.spec.conclusion.clone())
                        .unwrap_or_else(|| "success".to_owned())
                })
                .collect();
            for c in matching {
                found += 1;
                self.ci.forced.insert((r, name.to_owned()), c);
            }
        }
        found
    }

    fn run_now(&self, r: usize, run: &RunRef<'_>, seen: u32) -> Now {
        let spec = run.spec;
        if let Some(conclusion) = self.ci.forced.get(&(r, spec.name.clone())) {
            return Now {
                status: "completed".into(),
                conclusion: Some(conclusion.clone()),
                completed_at: Some(spec.completed_at.clone().unwrap_or_else(|| self.now())),
            };
        }
        match spec.complete_after {
            Some(n) if seen <= n => Now {
                status: if spec.status == "completed" {
                    "in_progress".into()
                } else {
                    spec.status.clone()
                },
                conclusion: None,
                completed_at: None,
            },
            Some(_) => Now {
                status: "completed".into(),
                conclusion: spec.conclusion.clone().or(Some("success".into())),
                completed_at: spec.completed_at.clone().or(Some(self.now())),
            },
            None => Now {
                status: spec.status.clone(),
                conclusion: if spec.status == "completed" {
                    spec.conclusion.clone().or(Some("success".into()))
                } else {
                    None
                },
                completed_at: if spec.status == "completed" {
                    spec.completed_at.clone().or(spec.started_at.clone())
                } else {
                    None
                },
            },
        }
    }
}

/// `{base}` in scenario URLs is the simulator's URL.
fn expand(url: &str, base: &str) -> String {
    url.replace("{base}", base)
}

fn time(t: &Option<String>) -> Value {
    match t {
        Some(t) => Value::from(crate::state::normalize_time(t)),
        None => Value::Null,
    }
}

/// The JSON context the GitHub handlers pass in.
pub(crate) struct GhCtx<'a> {
    pub base: &'a str,
    pub storage: &'a str,
    /// An admin's token with the Administration permission (reads classic protection).
    pub administration: bool,
}

/// GitHub CI routes under `/repos/{owner}/{repo}/…`; `None` when the path is not one.
/// `rest` are the segments after owner and repo.
pub(crate) fn github_route(
    ctx: &GhCtx<'_>,
    world: &mut World,
    req: &Request,
    r: usize,
    rest: &[&str],
) -> Option<Reply> {
    if req.method != "GET" {
        return None;
    }
    let base = ctx.base;
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let api = format!("{base}/repos/{full}");
    let repo_id = world.repos[r].id;
    let id = |s: &str| s.parse::<u64>().ok();
    Some(match rest {
        ["commits", sha, "check-runs"] => {
            let (per_page, page) = crate::github::page_params(req);
            let seen = if page == 1 {
                world.count_listing(r, sha)
            } else {
                world.listings(r, sha)
            };
            let runs = check_runs(world, r);
            let all: Vec<Value> = runs
                .iter()
                .filter(|c| c.sha == *sha)
                .map(|c| check_run_json(base, world, r, &full, c, seen))
                .collect();
            let total = all.len();
            let (items, link) = page_of(
                all,
                per_page,
                page,
                &format!("{api}/commits/{sha}/check-runs"),
                req,
            );
            with_link(
                Reply::json(200, json!({"total_count": total, "check_runs": items})),
                link,
            )
        }
        ["commits", sha, "status"] => {
            let (per_page, page) = crate::github::page_params(req);
            let pulls: Vec<&PullSpec> = spec.pulls.iter().filter(|p| p.head.sha == *sha).collect();
            let mut statuses = Vec::new();
            let mut n = 0u64;
            for p in &pulls {
                for s in &p.statuses {
                    n += 1;
                    let at = s.created_at.clone().unwrap_or_else(|| p.created_at.clone());
                    statuses.push(json!({
                        "url": format!("{api}/statuses/{sha}"),
                        "avatar_url": "https://avatars.githubusercontent.com/u/9919?v=4",
                        "id": repo_id * 1000 + n,
                        "node_id": crate::github::node_id("SC", "StatusContext", repo_id * 1000 + n),
                        "state": s.state,
                        "description": s.description,
                        "target_url": s.target_url.as_deref().map(|u| expand(u, base)),
                        "context": s.context,
                        "created_at": crate::state::normalize_time(&at),
                        "updated_at": crate::state::normalize_time(&at),
                    }));
                }
            }
            let state = combined_state(&statuses);
            let total = statuses.len();
            let (items, link) = page_of(
                statuses,
                per_page,
                page,
                &format!("{api}/commits/{sha}/status"),
                req,
            );
            let repo = crate::github::scenario_repo_json(base, world, r);
            with_link(
                Reply::json(
                    200,
                    json!({
                        "state": state,
                        "statuses": items,
                        "sha": sha,
                        "total_count": total,
                        "repository": repo,
                        "commit_url": format!("{api}/commits/{sha}"),
                        "url": format!("{api}/commits/{sha}/status"),
                    }),
                ),
                link,
            )
        }
        ["rules", "branches", branch @ ..] if !branch.is_empty() => {
            crate::readiness::rules_reply(world, r, &branch.join("/"))
        }
        ["compare", basehead @ ..] if !basehead.is_empty() => {
            crate::readiness::compare_reply(world, base, r, &basehead.join("/"))
        }
        ["branches", branch, "protection", "required_status_checks"] => {
            // Classic protection over REST is for admins (fine-grained tokens and apps need
            // the Administration permission; others get 404): who may push sees the rule
            // through GraphQL's `refUpdateRule`, everyone sees the rulesets
            // (`rules/branches`, readable with Metadata read).
            if spec.branch_protection_forbidden {
                return Some(crate::github::error(
                    403,
                    "Resource not accessible by personal access token",
                ));
            }
            if !ctx.administration {
                return Some(crate::github::error(404, "Not Found"));
            }
            match spec
                .branch_protections
                .iter()
                .find(|b| b.branch == *branch && b.classic)
            {
                Some(b) => Reply::json(
                    200,
                    json!({
                        "url": format!("{api}/branches/{branch}/protection/required_status_checks"),
                        "contexts_url": format!("{api}/branches/{branch}/protection/required_status_checks/contexts"),
                        "strict": false,
                        "contexts": b.required_checks,
                        "checks": b.required_checks.iter().map(|c| json!({"context": c, "app_id": null})).collect::<Vec<_>>(),
                    }),
                ),
                None => crate::github::error(404, "Branch not protected"),
            }
        }
        ["check-runs", run_id, "annotations"] => {
            let runs = check_runs(world, r);
            let Some(run) = id(run_id).and_then(|n| runs.iter().find(|c| c.id == n)) else {
                return Some(crate::github::error(404, "Not Found"));
            };
            let all: Vec<Value> = run
                .spec
                .annotations
                .iter()
                .map(|a| {
                    json!({
                        "path": a.path,
                        "blob_href": format!("{base}/{full}/blob/{}/{}", run.sha, a.path),
                        "start_line": a.start_line,
                        "end_line": a.end_line.unwrap_or(a.start_line),
                        "start_column": null,
                        "end_column": null,
                        "annotation_level": a.level,
                        "title": a.title,
                        "message": a.message,
                        "raw_details": a.raw_details,
                    })
                })
                .collect();
            let (per_page, page) = crate::github::page_params(req);
            let (items, link) = page_of(
                all,
                per_page,
                page,
                &format!("{api}/check-runs/{run_id}/annotations"),
                req,
            );
            with_link(Reply::json(200, Value::Array(items)), link)
        }
        ["actions", "jobs", job_id] => match id(job_id).and_then(|n| job(world, r, n)) {
            Some((pull, j)) => Reply::json(200, job_json(base, world, r, &full, pull, j)),
            None => crate::github::error(404, "Not Found"),
        },
        ["actions", "jobs", job_id, "logs"] => match id(job_id).and_then(|n| job(world, r, n)) {
            Some((_, j)) if j.log_expired => crate::github::error(410, "Gone"),
            Some((_, j)) => Reply::empty(302).header(
                "location",
                format!(
                    "{}/blobs/logs/{repo_id}/{}?sv=2021-08-06&se=2099-01-01&sig=c2ltdWxhdGVk",
                    ctx.storage,
                    j.id.unwrap_or(0)
                ),
            ),
            None => crate::github::error(404, "Not Found"),
        },
        ["actions", "runs", run_id] => match id(run_id).and_then(|n| run(world, r, n)) {
            Some((pull, w)) => Reply::json(200, run_json(base, world, r, &full, pull, &w)),
            None => crate::github::error(404, "Not Found"),
        },
        ["actions", "workflows", workflow_id, "runs"] => {
            // Runs of the workflow, newest first; `status` is a status or a conclusion.
            let workflow = workflow_id.parse::<u64>().ok();
            let wanted = req.query_param("status");
            let head_sha = req.query_param("head_sha");
            let mut all: Vec<(Option<&PullSpec>, &WorkflowRunSpec)> = spec
                .pulls
                .iter()
                .flat_map(|p| p.workflow_runs.iter().map(move |w| (Some(p), w)))
                .chain(spec.past_runs.iter().map(|w| (None, w)))
                .filter(|(_, w)| Some(w.workflow_id.unwrap_or(1)) == workflow)
                .filter(|(p, w)| match head_sha.as_deref() {
                    None => true,
                    Some(sha) => {
                        w.head_sha.as_deref().or(p.map(|p| p.head.sha.as_str())) == Some(sha)
                    }
                })
                .filter(|(_, w)| match wanted.as_deref() {
                    None => true,
                    Some(s @ ("queued" | "in_progress" | "completed")) => w.status == s,
                    Some(c) => w.status == "completed" && w.conclusion.as_deref() == Some(c),
                })
                .collect();
            all.sort_by(|a, b| b.1.started_at.cmp(&a.1.started_at));
            let total = all.len();
            let runs: Vec<Value> = all
                .into_iter()
                .map(|(p, w)| run_json(base, world, r, &full, p, w))
                .collect();
            let (per_page, page) = crate::github::page_params(req);
            let (items, link) = page_of(
                runs,
                per_page,
                page,
                &format!("{api}/actions/workflows/{workflow_id}/runs"),
                req,
            );
            with_link(
                Reply::json(200, json!({"total_count": total, "workflow_runs": items})),
                link,
            )
        }
        ["actions", "runs", run_id, "jobs"] => {
            // `filter=latest` (the default): each job's latest attempt; `all`: every attempt.
            let Some(run_id) = id(run_id).filter(|&n| run(world, r, n).is_some()) else {
                return Some(crate::github::error(404, "Not Found"));
            };
            let all_attempts = req.query_param("filter").as_deref() == Some("all");
            let of_run: Vec<(&PullSpec, &WorkflowJobSpec)> = jobs(world, r)
                .filter(|(_, j)| j.run_id == Some(run_id))
                .collect();
            let latest = |j: &WorkflowJobSpec| {
                !of_run.iter().any(|(_, o)| {
                    o.name == j.name && o.run_attempt.unwrap_or(1) > j.run_attempt.unwrap_or(1)
                })
            };
            let mut listed: Vec<(&PullSpec, &WorkflowJobSpec)> = of_run
                .iter()
                .copied()
                .filter(|(_, j)| all_attempts || latest(j))
                .collect();
            // Newest attempt first, as GitHub lists them.
            listed.sort_by_key(|(_, j)| std::cmp::Reverse(j.run_attempt.unwrap_or(1)));
            let total = listed.len();
            let items: Vec<Value> = listed
                .into_iter()
                .map(|(p, j)| job_json(base, world, r, &full, p, j))
                .collect();
            let (per_page, page) = crate::github::page_params(req);
            let (items, link) = page_of(
                items,
                per_page,
                page,
                &format!("{api}/actions/runs/{run_id}/jobs"),
                req,
            );
            with_link(
                Reply::json(200, json!({"total_count": total, "jobs": items})),
                link,
            )
        }
        ["actions", "runs", run_id, "artifacts"] => {
            let Some(run_id) = id(run_id).filter(|&n| run(world, r, n).is_some()) else {
                return Some(crate::github::error(404, "Not Found"));
            };
            let all: Vec<Value> = spec
                .pulls
                .iter()
                .flat_map(|p| p.artifacts.iter().map(move |a| (p, a)))
                .filter(|(_, a)| a.run_id == run_id)
                .map(|(p, a)| artifact_json(&api, repo_id, p, a))
                .collect();
            let total = all.len();
            let (per_page, page) = crate::github::page_params(req);
            let (items, link) = page_of(
                all,
                per_page,
                page,
                &format!("{api}/actions/runs/{run_id}/artifacts"),
                req,
            );
            with_link(
                Reply::json(200, json!({"total_count": total, "artifacts": items})),
                link,
            )
        }
        ["actions", "artifacts", artifact_id, "zip"] => {
            match id(artifact_id).and_then(|n| artifact(world, r, n)) {
                Some(a) if a.expired => crate::github::error(410, "Artifact has expired"),
                Some(a) => Reply::empty(302).header(
                    "location",
                    format!(
                        "{}/blobs/artifacts/{repo_id}/{}.zip?sig=c2ltdWxhdGVk",
                        ctx.storage, a.id
                    ),
                ),
                None => crate::github::error(404, "Not Found"),
            }
        }
        _ => return None,
    })
}

fn with_link(reply: Reply, link: Option<String>) -> Reply {
    match link {
        Some(l) => reply.header("link", l),
        None => reply,
    }
}

fn page_of(
    all: Vec<Value>,
    per_page: usize,
    page: usize,
    path: &str,
    req: &Request,
) -> (Vec<Value>, Option<String>) {
    let last = all.len().div_ceil(per_page).max(1);
    let items = all
        .into_iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .collect();
    (items, crate::github::link_header(path, req, page, last))
}

fn combined_state(statuses: &[Value]) -> &'static str {
    let states: Vec<&str> = statuses
        .iter()
        .filter_map(|s| s["state"].as_str())
        .collect();
    if states.iter().any(|s| *s == "failure" || *s == "error") {
        "failure"
    } else if states.is_empty() || states.contains(&"pending") {
        "pending"
    } else {
        "success"
    }
}

fn app_json(base: &str, slug: &str) -> Value {
    let id = if slug == "github-actions" {
        ACTIONS_APP_ID
    } else {
        10_000 + slug.len() as u64
    };
    let owner = crate::state::User {
        login: slug.to_owned(),
        id: 9_000 + id,
        kind: crate::scenario::UserKind::Organization,
        name: None,
        email: None,
    };
    let name = if slug == "github-actions" {
        "GitHub Actions".to_owned()
    } else {
        slug.to_owned()
    };
    json!({
        "id": id,
        "slug": slug,
        "node_id": crate::github::node_id("A", "App", id),
        "owner": crate::github::user_json(base, &owner),
        "name": name,
        "description": "",
        "external_url": format!("https://{slug}.example.com"),
        "html_url": format!("{base}/apps/{slug}"),
        "created_at": "2018-07-30T09:30:17Z",
        "updated_at": "2024-04-10T20:33:16Z",
        "permissions": {"checks": "write", "metadata": "read"},
        "events": ["check_run"],
    })
}

pub(crate) fn check_run_json(
    base: &str,
    world: &World,
    r: usize,
    full: &str,
    c: &RunRef<'_>,
    seen: u32,
) -> Value {
    let spec = c.spec;
    let now = world.run_now(r, c, seen);
    let api = format!("{base}/repos/{full}");
    let app = spec
        .app
        .clone()
        .or_else(|| spec.job_id.map(|_| "github-actions".to_owned()));
    let details = match (&spec.details_url, spec.job_id) {
        (Some(u), _) => Some(expand(u, base)),
        (None, Some(job_id)) => {
            let run_id = job(world, r, job_id)
                .and_then(|(_, j)| j.run_id)
                .unwrap_or(0);
            Some(format!("{base}/{full}/actions/runs/{run_id}/job/{job_id}"))
        }
        (None, None) => None,
    };
    let completed = now.status == "completed";
    json!({
        "id": c.id,
        "node_id": crate::github::node_id("CR", "CheckRun", c.id),
        "head_sha": c.sha,
        "external_id": "",
        "url": format!("{api}/check-runs/{}", c.id),
        "html_url": format!("{base}/{full}/runs/{}", c.id),
        "details_url": details,
        "status": now.status,
        "conclusion": now.conclusion,
        "started_at": time(&spec.started_at.clone().or(Some(c.pull.created_at.clone()))),
        "completed_at": if completed { time(&now.completed_at) } else { Value::Null },
        "output": {
            "title": if completed { spec.title.clone() } else { None },
            "summary": if completed { spec.summary.clone() } else { None },
            "text": if completed { spec.text.clone() } else { None },
            "annotations_count": if completed { spec.annotations.len() } else { 0 },
            "annotations_url": format!("{api}/check-runs/{}/annotations", c.id),
        },
        "name": spec.name,
        "check_suite": {"id": CHECK_SUITE_ID},
        "app": app.map(|slug| app_json(base, &slug)).unwrap_or(Value::Null),
        "pull_requests": [],
    })
}

/// A job's state follows its check run (so polling moves both).
fn job_now(
    world: &World,
    r: usize,
    j: &WorkflowJobSpec,
) -> (String, Option<String>, Option<String>) {
    let runs = check_runs(world, r);
    if let Some(c) = runs
        .iter()
        .find(|c| c.spec.job_id.is_some() && c.spec.job_id == j.id)
    {
        let now = world.run_now(r, c, world.listings(r, &c.sha));
        return (now.status, now.conclusion, now.completed_at);
    }
    let completed = j.status == "completed";
    (
        j.status.clone(),
        if completed {
            j.conclusion.clone()
        } else {
            None
        },
        if completed {
            j.completed_at.clone().or(j.started_at.clone())
        } else {
            None
        },
    )
}

fn job_json(
    base: &str,
    world: &World,
    r: usize,
    full: &str,
    pull: &PullSpec,
    j: &WorkflowJobSpec,
) -> Value {
    let api = format!("{base}/repos/{full}");
    let id = j.id.unwrap_or(0);
    let run_id = j.run_id.unwrap_or(0);
    let (status, conclusion, completed_at) = job_now(world, r, j);
    let started = j
        .started_at
        .clone()
        .unwrap_or_else(|| pull.created_at.clone());
    let steps: Vec<Value> = j
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let done = s.status == "completed";
            json!({
                "name": s.name,
                "status": s.status,
                "conclusion": if done { s.conclusion.clone().or(Some("success".into())) } else { None },
                "number": i + 1,
                "started_at": crate::state::normalize_time(&started),
                "completed_at": if done { time(&completed_at.clone().or(Some(started.clone()))) } else { Value::Null },
            })
        })
        .collect();
    json!({
        "id": id,
        "run_id": run_id,
        "run_url": format!("{api}/actions/runs/{run_id}"),
        "run_attempt": j.run_attempt.unwrap_or(1),
        "node_id": crate::github::node_id("CR", "CheckRun", id),
        "head_sha": run(world, r, run_id)
            .and_then(|(_, w)| w.head_sha)
            .unwrap_or_else(|| pull.head.sha.clone()),
        "url": format!("{api}/actions/jobs/{id}"),
        "html_url": format!("{base}/{full}/actions/runs/{run_id}/job/{id}"),
        "status": status,
        "conclusion": conclusion,
        "created_at": crate::state::normalize_time(&started),
        "started_at": crate::state::normalize_time(&started),
        "completed_at": time(&completed_at),
        "name": j.name,
        "steps": steps,
        "check_run_url": format!("{api}/check-runs/{id}"),
        "labels": ["ubuntu-latest"],
        "runner_id": 1,
        "runner_name": "GitHub Actions 1",
        "runner_group_id": 2,
        "runner_group_name": "GitHub Actions",
        "workflow_name": j.workflow_name,
        "head_branch": pull.head.ref_name,
    })
}

/// A run of a pull request's head, or (`pull: None`) a past run on the default branch.
fn run_json(
    base: &str,
    world: &World,
    r: usize,
    full: &str,
    pull: Option<&PullSpec>,
    w: &WorkflowRunSpec,
) -> Value {
    let api = format!("{base}/repos/{full}");
    let repo = crate::github::scenario_repo_json(base, world, r);
    let spec = &world.repos[r].spec;
    let started = w
        .started_at
        .clone()
        .or_else(|| pull.map(|p| p.created_at.clone()))
        .unwrap_or_else(|| "2024-01-01T00:00:00Z".to_owned());
    let completed = w.status == "completed";
    let finished = w
        .completed_at
        .clone()
        .filter(|_| completed)
        .unwrap_or_else(|| started.clone());
    let workflow_id = w.workflow_id.unwrap_or(1);
    let (branch, sha, title, event) = match pull {
        Some(p) => (
            p.head.ref_name.clone(),
            p.head.sha.clone(),
            p.title.clone(),
            "pull_request",
        ),
        None => (
            spec.default_branch.clone(),
            format!("{:040x}", w.id),
            w.name.clone(),
            "push",
        ),
    };
    let sha = w.head_sha.clone().unwrap_or(sha);
    json!({
        "id": w.id,
        "name": w.name,
        "node_id": crate::github::node_id("WFR", "WorkflowRun", w.id),
        "head_branch": branch,
        "head_sha": sha,
        "path": ".github/workflows/ci.yml",
        "display_title": title,
        "run_number": w.number.unwrap_or(w.id % 1000),
        "event": event,
        "status": w.status,
        "conclusion": if completed { w.conclusion.clone() } else { None },
        "workflow_id": workflow_id,
        "url": format!("{api}/actions/runs/{}", w.id),
        "html_url": format!("{base}/{full}/actions/runs/{}", w.id),
        "pull_requests": [],
        "created_at": crate::state::normalize_time(&started),
        "updated_at": crate::state::normalize_time(&finished),
        "run_attempt": w.run_attempt.unwrap_or_else(|| {
            jobs(world, r)
                .filter(|(_, j)| j.run_id == Some(w.id))
                .filter_map(|(_, j)| j.run_attempt)
                .max()
                .unwrap_or(1)
        }),
        "run_started_at": crate::state::normalize_time(&started),
        "jobs_url": format!("{api}/actions/runs/{}/jobs", w.id),
        "logs_url": format!("{api}/actions/runs/{}/logs", w.id),
        "check_suite_url": format!("{api}/check-suites/{CHECK_SUITE_ID}"),
        "artifacts_url": format!("{api}/actions/runs/{}/artifacts", w.id),
        "cancel_url": format!("{api}/actions/runs/{}/cancel", w.id),
        "rerun_url": format!("{api}/actions/runs/{}/rerun", w.id),
        "workflow_url": format!("{api}/actions/workflows/{workflow_id}"),
        "head_commit": null,
        "repository": repo.clone(),
        "head_repository": repo,
    })
}

fn artifact_json(api: &str, repo_id: u64, pull: &PullSpec, a: &ArtifactSpec) -> Value {
    let size = artifact_zip(a).len();
    let created = crate::state::normalize_time(&pull.created_at);
    json!({
        "id": a.id,
        "node_id": crate::github::node_id("MDEwOkNoZWNrU3VpdGU", "Artifact", a.id),
        "name": a.name,
        "size_in_bytes": size,
        "url": format!("{api}/actions/artifacts/{}", a.id),
        "archive_download_url": format!("{api}/actions/artifacts/{}/zip", a.id),
        "expired": a.expired,
        "created_at": created,
        "expires_at": "2099-01-01T00:00:00Z",
        "updated_at": created,
        "workflow_run": {"id": a.run_id, "repository_id": repo_id, "head_repository_id": repo_id, "head_branch": pull.head.ref_name, "head_sha": pull.head.sha},
    })
}

/// The artifact as the zip Actions stores (deflated entries).
pub(crate) fn artifact_zip(a: &ArtifactSpec) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in &a.files {
        // Writing to memory cannot fail but for a bug; a broken zip then shows in the test.
        let _ = zip.start_file(name.as_str(), options);
        let _ = zip.write_all(content.as_bytes());
    }
    zip.finish().map(|c| c.into_inner()).unwrap_or_default()
}

/// A log the storage can serve from any offset without holding it (generated logs).
#[derive(Debug, Clone)]
pub(crate) enum LogContent {
    Text(Bytes),
    Generated { total: u64, tail: Bytes },
}

/// One line of generated filler; every line has the same length, so any offset is cheap.
fn filler_line(n: u64) -> String {
    format!("2024-05-01T10:00:00.1234567Z   Compiling crate-{n:010} v0.1.0 (/home/runner/work)\n")
}

impl LogContent {
    pub(crate) fn of(job: &WorkflowJobSpec) -> LogContent {
        match &job.log_generate {
            Some(LogGenerate { bytes, tail }) => {
                let tail = Bytes::from(tail.clone().into_bytes());
                LogContent::Generated {
                    total: (*bytes).max(tail.len() as u64),
                    tail,
                }
            }
            None => LogContent::Text(Bytes::from(job.log.clone().into_bytes())),
        }
    }

    pub(crate) fn len(&self) -> u64 {
        match self {
            LogContent::Text(b) => b.len() as u64,
            LogContent::Generated { total, .. } => *total,
        }
    }

    /// Up to `max` bytes from `offset`.
    pub(crate) fn read(&self, offset: u64, max: usize) -> Bytes {
        match self {
            LogContent::Text(b) => {
                let start = (offset as usize).min(b.len());
                let end = start.saturating_add(max).min(b.len());
                b.slice(start..end)
            }
            LogContent::Generated { total, tail } => {
                let filler = total - tail.len() as u64;
                if offset >= filler {
                    let start = (offset - filler) as usize;
                    let end = start.saturating_add(max).min(tail.len());
                    return tail.slice(start.min(end)..end);
                }
                let line_len = filler_line(0).len() as u64;
                let full_lines = filler / line_len;
                let end = (offset + max as u64).min(filler);
                let mut out = Vec::with_capacity((end - offset) as usize);
                let mut pos = offset;
                while pos < end {
                    let n = pos / line_len;
                    let line = if n < full_lines {
                        filler_line(n).into_bytes()
                    } else {
                        // The last, shorter line: blanks and a newline.
                        let len = (filler - full_lines * line_len) as usize;
                        let mut l = vec![b' '; len];
                        if let Some(last) = l.last_mut() {
                            *last = b'\n';
                        }
                        l
                    };
                    let within = (pos - n * line_len) as usize;
                    let take = ((end - pos) as usize).min(line.len() - within);
                    out.extend_from_slice(&line[within..within + take]);
                    pos += take as u64;
                }
                Bytes::from(out)
            }
        }
    }
}

/// A byte range request: `bytes=A-B`, `bytes=A-`, `bytes=-N`, resolved against `len`.
pub(crate) fn parse_range(header: &str, len: u64) -> Option<(u64, u64)> {
    let spec = header.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (start, end) = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: u64 = n.parse().ok()?;
            (len.saturating_sub(n), len.checked_sub(1)?)
        }
        (a, "") => (a.parse().ok()?, len.checked_sub(1)?),
        (a, b) => (
            a.parse().ok()?,
            b.parse::<u64>().ok()?.min(len.checked_sub(1)?),
        ),
    };
    (start <= end && start < len).then_some((start, end))
}

/// What the storage serves at a path: a log (with its fault) or an artifact archive.
pub(crate) enum Blob {
    Log(LogContent, Option<String>),
    Archive(Bytes),
}

pub(crate) fn blob(world: &World, path: &str) -> Option<Blob> {
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        ["blobs", "logs", repo_id, job_id] => {
            let r = world.repo_by_id(repo_id.parse().ok()?)?;
            let (_, j) = job(world, r, job_id.parse().ok()?)?;
            Some(Blob::Log(LogContent::of(j), j.log_storage.clone()))
        }
        ["blobs", "artifacts", repo_id, file] => {
            let r = world.repo_by_id(repo_id.parse().ok()?)?;
            let a = artifact(world, r, file.strip_suffix(".zip")?.parse().ok()?)?;
            Some(Blob::Archive(Bytes::from(artifact_zip(a))))
        }
        _ => None,
    }
}

// ---- Forgejo / Gitea ----

/// Forgejo/Gitea CI routes under `/api/v1/repos/{owner}/{repo}/…`.
pub(crate) fn forgejo_route(
    base: &str,
    world: &mut World,
    req: &Request,
    r: usize,
    rest: &[&str],
) -> Option<Reply> {
    if req.method != "GET" {
        return None;
    }
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let id = |s: &str| s.parse::<u64>().ok();
    let not_found = || {
        Reply::json(
            404,
            json!({"errors": null, "message": "The target couldn't be found.", "url": format!("{base}/api/swagger")}),
        )
    };
    let actions = world.actions_api;
    Some(match rest {
        ["commits", sha, "statuses"] => {
            let mut all = Vec::new();
            let mut n = 0u64;
            for p in spec.pulls.iter().filter(|p| p.head.sha == *sha) {
                for s in &p.statuses {
                    n += 1;
                    let at = crate::state::normalize_time(
                        &s.created_at.clone().unwrap_or_else(|| p.created_at.clone()),
                    );
                    let creator = world.user_or_ghost(&p.author);
                    all.push(json!({
                        "id": n,
                        "status": s.state,
                        "target_url": s.target_url.as_deref().map(|u| expand(u, base)).unwrap_or_default(),
                        "description": s.description.clone().unwrap_or_default(),
                        "url": format!("{base}/api/v1/repos/{full}/statuses/{sha}"),
                        "context": s.context,
                        "creator": crate::forgejo::user_json(base, &creator),
                        "created_at": at,
                        "updated_at": at,
                    }));
                }
            }
            crate::forgejo::paged(all, req)
        }
        ["branch_protections"] => {
            if spec.branch_protection_forbidden {
                return Some(
                    Reply::json(403, json!({"message": "token is not an admin of this repository", "url": format!("{base}/api/swagger")}))
                        .unchecked(),
                );
            }
            let items: Vec<Value> = spec
                .branch_protections
                .iter()
                .map(|b| {
                    json!({
                        "branch_name": b.branch,
                        "rule_name": b.branch,
                        "enable_status_check": !b.required_checks.is_empty(),
                        "status_check_contexts": b.required_checks,
                        "enable_push": false,
                        "required_approvals": 0,
                        "created_at": "2024-01-01T00:00:00Z",
                        "updated_at": "2024-01-01T00:00:00Z",
                    })
                })
                .collect();
            Reply::json(200, Value::Array(items))
        }
        ["actions", "runs"] if actions => {
            let wanted = req
                .query_param("run_number")
                .and_then(|v| v.parse::<u64>().ok());
            let runs: Vec<Value> = spec
                .pulls
                .iter()
                .flat_map(|p| p.workflow_runs.iter().map(move |w| (p, w)))
                .filter(|(_, w)| wanted.is_none() || w.number == wanted)
                .map(|(p, w)| fj_run_json(base, &full, p, w))
                .collect();
            Reply::json(
                200,
                json!({"total_count": runs.len(), "workflow_runs": runs}),
            )
        }
        ["actions", "runs", run_id] if actions => {
            let found = spec
                .pulls
                .iter()
                .flat_map(|p| p.workflow_runs.iter().map(move |w| (p, w)))
                .find(|(_, w)| Some(w.id) == id(run_id));
            match found {
                Some((p, w)) => Reply::json(200, fj_run_json(base, &full, p, w)),
                None => not_found(),
            }
        }
        ["actions", "runs", run_id, "jobs"] if actions => {
            let Some(run_id) = id(run_id) else {
                return Some(not_found());
            };
            let items: Vec<Value> = jobs(world, r)
                .filter(|(_, j)| j.run_id == Some(run_id))
                .map(|(p, j)| fj_job_json(base, &full, p, j, false))
                .collect();
            Reply::json(200, Value::Array(items))
        }
        ["actions", "runs", run_id, "artifacts"] if actions => {
            let Some(run_id) = id(run_id) else {
                return Some(not_found());
            };
            let all: Vec<Value> = spec
                .pulls
                .iter()
                .flat_map(|p| p.artifacts.iter().map(move |a| (p, a)))
                .filter(|(_, a)| a.run_id == run_id)
                .map(|(p, a)| {
                    let created = crate::state::normalize_time(&p.created_at);
                    json!({
                        "id": a.id,
                        "name": a.name,
                        "size_in_bytes": artifact_zip(a).len(),
                        "expired": a.expired,
                        "run_id": a.run_id,
                        "archive_download_url": format!("{base}/api/v1/repos/{full}/actions/artifacts/{}/zip", a.id),
                        "created_at": created,
                        "updated_at": created,
                        "expires_at": "2099-01-01T00:00:00Z",
                    })
                })
                .collect();
            crate::forgejo::paged(all, req)
        }
        ["actions", "artifacts", artifact_id, "zip"] if actions => {
            match id(artifact_id).and_then(|n| artifact(world, r, n)) {
                Some(a) if !a.expired => Reply {
                    status: 200,
                    headers: Vec::new(),
                    // Served by the API itself; a zip, so not a JSON contract check.
                    body: ReplyBody::Raw {
                        content_type: "application/zip",
                        bytes: Bytes::from(artifact_zip(a)),
                    },
                    checked: false,
                },
                _ => not_found(),
            }
        }
        ["actions", "jobs", job_id] if actions => match id(job_id).and_then(|n| job(world, r, n)) {
            Some((p, j)) => Reply::json(200, fj_job_json(base, &full, p, j, true)),
            None => not_found(),
        },
        ["actions", "jobs", job_id, "logs"] if actions => {
            match id(job_id).and_then(|n| job(world, r, n)) {
                Some((_, j)) if j.log_expired => not_found(),
                Some((_, j)) => {
                    let content = LogContent::of(j);
                    let len = content.len();
                    // Served directly by the API with Range support, as Forgejo documents;
                    // text, so not a JSON contract check.
                    let (status, start, end) =
                        match req.header("range").and_then(|h| parse_range(h, len)) {
                            Some((s, e)) => (206, s, e + 1),
                            None => (200, 0, len),
                        };
                    let bytes = content.read(start, (end - start) as usize);
                    let mut reply = Reply {
                        status,
                        headers: vec![("accept-ranges".into(), "bytes".into())],
                        body: ReplyBody::Raw {
                            content_type: "text/plain; charset=utf-8",
                            bytes,
                        },
                        checked: false,
                    };
                    if status == 206 {
                        reply = reply
                            .header("content-range", format!("bytes {start}-{}/{len}", end - 1));
                    }
                    reply
                }
                None => not_found(),
            }
        }
        _ => return None,
    })
}

fn fj_status(status: &str, conclusion: Option<&str>) -> String {
    match (status, conclusion) {
        ("completed", Some(c)) => c.to_owned(),
        ("completed", None) => "success".to_owned(),
        ("in_progress", _) => "running".to_owned(),
        _ => "waiting".to_owned(),
    }
}

fn fj_run_json(base: &str, full: &str, pull: &PullSpec, w: &WorkflowRunSpec) -> Value {
    let index = w.number.unwrap_or(w.id);
    let started = crate::state::normalize_time(
        &w.started_at
            .clone()
            .unwrap_or_else(|| pull.created_at.clone()),
    );
    json!({
        "id": w.id,
        "index_in_repo": index,
        "title": w.name,
        "status": fj_status(&w.status, w.conclusion.as_deref()),
        "commit_sha": pull.head.sha,
        "prettyref": pull.head.ref_name,
        "event": "pull_request",
        "trigger_event": "pull_request",
        "html_url": format!("{base}/{full}/actions/runs/{index}"),
        "created": started,
        "started": started,
        "updated": started,
        "is_fork_pull_request": false,
        "need_approval": false,
        "is_ref_deleted": false,
        "workflow_id": "ci.yml",
    })
}

fn fj_job_json(base: &str, full: &str, pull: &PullSpec, j: &WorkflowJobSpec, steps: bool) -> Value {
    let index = pull
        .workflow_jobs
        .iter()
        .filter(|o| o.run_id == j.run_id)
        .position(|o| o.id == j.id)
        .unwrap_or(0);
    let run_index = pull
        .workflow_runs
        .iter()
        .find(|w| Some(w.id) == j.run_id)
        .and_then(|w| w.number)
        .or(j.run_id)
        .unwrap_or(0);
    let mut v = json!({
        "id": j.id.unwrap_or(0),
        "run_id": j.run_id.unwrap_or(0),
        "name": j.name,
        "status": fj_status(&j.status, j.conclusion.as_deref()),
        "attempt": 1,
        "html_url": format!("{base}/{full}/actions/runs/{run_index}/jobs/{index}"),
        "runs_on": ["docker"],
        "needs": [],
        "task_id": j.id.unwrap_or(0) + 100_000,
    });
    if steps {
        let started = crate::state::normalize_time(
            &j.started_at
                .clone()
                .unwrap_or_else(|| pull.created_at.clone()),
        );
        let mut list = vec![
            json!({"number": 0, "name": "Set up job", "status": "success", "started": started, "stopped": started}),
        ];
        for (i, s) in j.steps.iter().enumerate() {
            list.push(json!({
                "number": i + 1,
                "name": s.name,
                "status": fj_status(&s.status, s.conclusion.as_deref()),
                "started": started,
                "stopped": started,
            }));
        }
        list.push(json!({"number": j.steps.len() + 1, "name": "Complete job", "status": "success", "started": started, "stopped": started}));
        v["steps"] = Value::Array(list);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_logs_read_the_same_at_any_offset() {
        let content = LogContent::Generated {
            total: 10_000,
            tail: Bytes::from_static(b"FAILED tests/test_x.py::test_y\n"),
        };
        let mut whole = Vec::new();
        let mut offset = 0;
        while offset < content.len() {
            let chunk = content.read(offset, 777);
            offset += chunk.len() as u64;
            whole.extend_from_slice(&chunk);
        }
        assert_eq!(whole.len(), 10_000);
        assert!(whole.ends_with(b"FAILED tests/test_x.py::test_y\n"));
        assert_eq!(&content.read(5_000, 100)[..], &whole[5_000..5_100]);
        let text = String::from_utf8(whole).unwrap();
        assert!(text.lines().all(|l| l.len() < 100));
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("bytes=-10", 100), Some((90, 99)));
        assert_eq!(parse_range("bytes=10-", 100), Some((10, 99)));
        assert_eq!(parse_range("bytes=10-19", 100), Some((10, 19)));
        assert_eq!(parse_range("bytes=200-", 100), None);
        assert_eq!(parse_range("bytes=-500", 100), Some((0, 99)));
    }
}
