//! Issues as both flavors serve them: a repository's issues listing (where pull requests are
//! issues too, as on the real forges), one issue, and a conversation comment read and edited
//! by its id. Plain issues come from the scenario's `issues`, pull requests from its `pulls`.

use serde_json::{Value, json};

use crate::scenario::{IssueState, PullSpec, PullState, TokenSpec};
use crate::server::{Reply, Request};
use crate::state::{Comment, World, normalize_time, pull_times};

/// When an issue without `created_at` was opened: a fixed instant keeps output stable.
const DEFAULT_CREATED: &str = "2024-01-01T00:00:00Z";

/// A pull request or plain issue, as the issues API shows either.
struct Entry<'a> {
    number: u64,
    title: &'a str,
    body: &'a str,
    author: &'a str,
    open: bool,
    labels: &'a [String],
    created: String,
    updated: String,
    closed_at: Option<String>,
    pull: Option<&'a PullSpec>,
}

fn entries(world: &World, r: usize) -> Vec<Entry<'_>> {
    let spec = &world.repos[r].spec;
    let pulls = spec.pulls.iter().map(|p| {
        let times = pull_times(p);
        Entry {
            number: p.number,
            title: &p.title,
            body: &p.body,
            author: &p.author,
            open: p.state == PullState::Open,
            labels: &p.labels,
            created: times.created,
            updated: times.updated,
            closed_at: times.closed_at,
            pull: Some(p),
        }
    });
    let issues = spec.issues.iter().map(|i| {
        let created = normalize_time(i.created_at.as_deref().unwrap_or(DEFAULT_CREATED));
        // A comment makes the issue "updated", as on the forges.
        let last_comment = world
            .comments(r, i.number)
            .iter()
            .map(|c| normalize_time(&c.updated_at))
            .max();
        let updated = [
            Some(created.clone()),
            i.updated_at.as_deref().map(normalize_time),
            last_comment,
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or_else(|| created.clone());
        Entry {
            number: i.number,
            title: &i.title,
            body: &i.body,
            author: i.author.as_deref().unwrap_or("ghost"),
            open: i.state == IssueState::Open,
            labels: &i.labels,
            closed_at: (i.state == IssueState::Closed).then(|| updated.clone()),
            created,
            updated,
            pull: None,
        }
    });
    pulls.chain(issues).collect()
}

fn entry(world: &World, r: usize, number: u64) -> Option<Entry<'_>> {
    entries(world, r).into_iter().find(|e| e.number == number)
}

impl World {
    /// The conversation (pull request or issue number) a comment of repository `r` is on.
    fn comment_by_id(&self, r: usize, id: u64) -> Option<(u64, &Comment)> {
        self.repos
            .get(r)?
            .conversations
            .iter()
            .find_map(|(n, cs)| cs.iter().find(|c| c.id == id).map(|c| (*n, c)))
    }

    /// Changes a comment's body; `updated_at` moves to now.
    fn edit_comment(&mut self, r: usize, id: u64, body: &str) -> Option<(u64, Comment)> {
        let now = self.now();
        let repo = self.repos.get_mut(r)?;
        repo.conversations.iter_mut().find_map(|(n, cs)| {
            let c = cs.iter_mut().find(|c| c.id == id)?;
            c.body = body.to_owned();
            c.updated_at = now.clone();
            Some((*n, c.clone()))
        })
    }
}

/// Which issue routes these are (the path after `/repos/{o}/{r}/issues`): the listing, one
/// issue, one comment by id. Comments of one issue are served with pull requests'.
pub(crate) fn serves(method: &str, rest: &[&str]) -> bool {
    matches!(
        (method, rest),
        ("GET", [] | [_]) | ("GET" | "PATCH", ["comments", _])
    )
}

/// Labels filter as both forges take it: names separated by commas.
fn label_filter(req: &Request) -> Vec<String> {
    req.query_param("labels")
        .map(|l| {
            l.split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn state_matches(req: &Request, e: &Entry<'_>) -> bool {
    match req.query_param("state").as_deref() {
        Some("closed") => !e.open,
        Some("all") => true,
        _ => e.open,
    }
}

/// Whether a comment edit is allowed: its author, or anyone who can write to the repository.
fn may_edit(world: &World, caller: &TokenSpec, author: &str) -> bool {
    caller.login.eq_ignore_ascii_case(author) || world.can_write(caller)
}

fn comment_body(req: &Request) -> Option<String> {
    let payload: Value = serde_json::from_slice(&req.body).ok()?;
    payload
        .get("body")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

// ---- GitHub ----

/// GitHub's issue routes; `rest` follows `/repos/{o}/{r}/issues`.
pub(crate) fn github_route(
    base: &str,
    world: &mut World,
    req: &Request,
    caller: &Option<TokenSpec>,
    r: usize,
    rest: &[&str],
) -> Reply {
    use crate::github::{comment_json, error};
    let not_found = || error(404, "Not Found");
    match (req.method.as_str(), rest) {
        ("GET", []) => github_list(base, world, req, r),
        ("GET", [number]) => match number.parse().ok().and_then(|n| entry(world, r, n)) {
            Some(e) => Reply::json(200, github_issue_json(base, world, r, &e)),
            None => not_found(),
        },
        ("GET", ["comments", id]) => {
            match id.parse().ok().and_then(|id| world.comment_by_id(r, id)) {
                Some((n, c)) => Reply::json(200, comment_json(base, world, r, n, c)),
                None => not_found(),
            }
        }
        ("PATCH", ["comments", id]) => {
            let Some(caller) = caller else {
                return error(401, "Requires authentication");
            };
            let Some((_, author)) = id
                .parse()
                .ok()
                .and_then(|id| world.comment_by_id(r, id))
                .map(|(n, c)| (n, c.author.clone()))
            else {
                return not_found();
            };
            if !may_edit(world, caller, &author) {
                return error(403, "Resource not accessible by personal access token");
            }
            let body = match comment_body(req) {
                Some(b) if !b.is_empty() => b,
                _ => {
                    return Reply::json(
                        422,
                        json!({
                            "message": "Validation Failed",
                            "errors": [{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
                            "documentation_url": "https://docs.github.com/rest/issues/comments#update-an-issue-comment",
                            "status": "422",
                        }),
                    );
                }
            };
            match id
                .parse()
                .ok()
                .and_then(|id| world.edit_comment(r, id, &body))
            {
                Some((n, c)) => Reply::json(200, comment_json(base, world, r, n, &c)),
                None => not_found(),
            }
        }
        _ => not_found().unchecked(),
    }
}

/// `GET /repos/{o}/{r}/issues`: `state`, `labels` (all must be on the issue), `creator`,
/// `sort` (created, updated), `direction` (default desc), `per_page`/`page` with `Link`.
/// Pull requests are listed too, with a `pull_request` object.
fn github_list(base: &str, world: &World, req: &Request, r: usize) -> Reply {
    let labels = label_filter(req);
    let creator = req.query_param("creator");
    let mut found: Vec<Entry<'_>> = entries(world, r)
        .into_iter()
        .filter(|e| state_matches(req, e))
        .filter(|e| {
            labels
                .iter()
                .all(|l| e.labels.iter().any(|have| have.eq_ignore_ascii_case(l)))
        })
        .filter(|e| {
            creator
                .as_deref()
                .is_none_or(|c| e.author.eq_ignore_ascii_case(c))
        })
        .collect();
    let by_updated = req.query_param("sort").as_deref() == Some("updated");
    found.sort_by(|a, b| {
        let key = |e: &Entry<'_>| {
            (
                if by_updated {
                    e.updated.clone()
                } else {
                    e.created.clone()
                },
                e.number,
            )
        };
        key(a).cmp(&key(b))
    });
    if req.query_param("direction").as_deref() != Some("asc") {
        found.reverse();
    }
    let (per_page, page) = crate::github::page_params(req);
    let last = found.len().div_ceil(per_page).max(1);
    let items: Vec<Value> = found
        .iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .map(|e| github_issue_json(base, world, r, e))
        .collect();
    let path = format!("{base}/repositories/{}/issues", world.repos[r].id);
    let reply = Reply::json(200, Value::Array(items));
    match crate::github::link_header(&path, req, page, last) {
        Some(link) => reply.header("link", link),
        None => reply,
    }
}

/// GitHub's `issue`.
fn github_issue_json(base: &str, world: &World, r: usize, e: &Entry<'_>) -> Value {
    use crate::github::{author_association, label_json, node_id, user_json};
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let api = format!("{base}/repos/{full}");
    let id = world.conversation_id(r, e.number);
    let kind = if e.pull.is_some() { "pull" } else { "issues" };
    let html = format!("{base}/{full}/{kind}/{}", e.number);
    let mut issue = json!({
        "id": id,
        "node_id": node_id("I", "Issue", id),
        "url": format!("{api}/issues/{}", e.number),
        "repository_url": api,
        "labels_url": format!("{api}/issues/{}/labels{{/name}}", e.number),
        "comments_url": format!("{api}/issues/{}/comments", e.number),
        "events_url": format!("{api}/issues/{}/events", e.number),
        "html_url": html,
        "number": e.number,
        "state": if e.open { "open" } else { "closed" },
        "state_reason": if e.open { Value::Null } else { json!("completed") },
        "title": e.title,
        "body": if e.body.is_empty() { Value::Null } else { json!(e.body) },
        "user": user_json(base, &world.user_or_ghost(e.author)),
        "labels": e.labels.iter().enumerate().map(|(i, name)| label_json(&api, i, name)).collect::<Vec<_>>(),
        "assignee": null,
        "assignees": [],
        "milestone": null,
        "locked": false,
        "active_lock_reason": null,
        "comments": world.comments(r, e.number).len(),
        "closed_at": e.closed_at,
        "created_at": e.created,
        "updated_at": e.updated,
        "author_association": author_association(world, r, e.author),
        "timeline_url": format!("{api}/issues/{}/timeline", e.number),
    });
    if let Some(p) = e.pull {
        issue["pull_request"] = json!({
            "url": format!("{api}/pulls/{}", e.number),
            "html_url": html,
            "diff_url": format!("{html}.diff"),
            "patch_url": format!("{html}.patch"),
            "merged_at": p.merged_at.as_deref().map(normalize_time),
        });
        issue["draft"] = json!(p.draft);
    }
    issue
}

// ---- Forgejo / Gitea ----

/// Forgejo/Gitea's issue routes; `rest` follows `/repos/{o}/{r}/issues`.
pub(crate) fn forgejo_route(
    base: &str,
    world: &mut World,
    req: &Request,
    caller: &Option<TokenSpec>,
    r: usize,
    rest: &[&str],
) -> Reply {
    use crate::forgejo::{api_error, comment_json, not_found};
    match (req.method.as_str(), rest) {
        ("GET", []) => forgejo_list(base, world, req, r),
        ("GET", [index]) => match index.parse().ok().and_then(|n| entry(world, r, n)) {
            Some(e) => Reply::json(200, forgejo_issue_json(base, world, r, &e)),
            None => not_found(base),
        },
        ("GET", ["comments", id]) => {
            match id.parse().ok().and_then(|id| world.comment_by_id(r, id)) {
                Some((n, c)) => Reply::json(200, comment_json(base, world, r, n, c)),
                None => not_found(base),
            }
        }
        ("PATCH", ["comments", id]) => {
            let Some(caller) = caller else {
                return api_error(base, 401, "token is required");
            };
            let Some(author) = id
                .parse()
                .ok()
                .and_then(|id| world.comment_by_id(r, id))
                .map(|(_, c)| c.author.clone())
            else {
                return not_found(base);
            };
            if !may_edit(world, caller, &author) {
                return Reply::json(
                    403,
                    json!({"message": "", "url": format!("{base}/api/swagger")}),
                );
            }
            let body = match comment_body(req) {
                Some(b) if !b.is_empty() => b,
                _ => {
                    // The form binding rejects a missing required field before the handler.
                    return Reply::json(
                        422,
                        json!([{"fieldNames": ["Body"], "classification": "RequiredError", "message": "Required"}]),
                    );
                }
            };
            match id
                .parse()
                .ok()
                .and_then(|id| world.edit_comment(r, id, &body))
            {
                Some((n, c)) => Reply::json(200, comment_json(base, world, r, n, &c)),
                None => not_found(base),
            }
        }
        _ => not_found(base).unchecked(),
    }
}

/// `GET /repos/{o}/{r}/issues`: `state` (open, closed, all; default open), `type` (issues,
/// pulls; default both), `labels` (issues with any of them, unknown names dropped, as the
/// published description says), `created_by`, `page`/`limit` with `X-Total-Count` and
/// `Link`. Newest first.
fn forgejo_list(base: &str, world: &World, req: &Request, r: usize) -> Reply {
    let known: std::collections::HashSet<String> = entries(world, r)
        .iter()
        .flat_map(|e| e.labels.iter().map(|l| l.to_lowercase()))
        .collect();
    let labels: Vec<String> = label_filter(req)
        .into_iter()
        .filter(|l| known.contains(&l.to_lowercase()))
        .collect();
    let created_by = req.query_param("created_by");
    let kind = req.query_param("type");
    let mut found: Vec<Entry<'_>> = entries(world, r)
        .into_iter()
        .filter(|e| state_matches(req, e))
        .filter(|e| match kind.as_deref() {
            Some("issues") => e.pull.is_none(),
            Some("pulls") => e.pull.is_some(),
            _ => true,
        })
        .filter(|e| {
            labels.is_empty()
                || labels
                    .iter()
                    .any(|l| e.labels.iter().any(|have| have.eq_ignore_ascii_case(l)))
        })
        .filter(|e| {
            created_by
                .as_deref()
                .is_none_or(|c| e.author.eq_ignore_ascii_case(c))
        })
        .collect();
    found.sort_by(|a, b| (&a.created, a.number).cmp(&(&b.created, b.number)));
    found.reverse();
    let (limit, page) = crate::forgejo::page_params(req);
    let total = found.len();
    let items: Vec<Value> = found
        .iter()
        .skip((page - 1).saturating_mul(limit))
        .take(limit)
        .map(|e| forgejo_issue_json(base, world, r, e))
        .collect();
    let spec = &world.repos[r].spec;
    let path = format!("{base}/api/v1/repos/{}/{}/issues", spec.owner, spec.name);
    let last = total.div_ceil(limit).max(1);
    let reply = Reply::json(200, Value::Array(items)).header("x-total-count", total.to_string());
    match crate::github::link_header(&path, req, page, last) {
        Some(link) => reply.header("link", link),
        None => reply,
    }
}

/// Forgejo's `Issue`: a pull request carries `pull_request`, a plain issue has it null.
fn forgejo_issue_json(base: &str, world: &World, r: usize, e: &Entry<'_>) -> Value {
    let spec = &world.repos[r].spec;
    let kind = if e.pull.is_some() { "pulls" } else { "issues" };
    let html = format!("{base}/{}/{}/{kind}/{}", spec.owner, spec.name, e.number);
    let merged = e
        .pull
        .is_some_and(|p| p.state == PullState::Merged || p.merged_at.is_some());
    json!({
        "id": world.conversation_id(r, e.number),
        "url": format!("{base}/api/v1/repos/{}/{}/issues/{}", spec.owner, spec.name, e.number),
        "html_url": html,
        "number": e.number,
        "user": crate::forgejo::user_json(base, &world.user_or_ghost(e.author)),
        "original_author": "",
        "original_author_id": 0,
        "title": e.title,
        "body": e.body,
        "ref": "",
        "assets": [],
        "labels": e.labels.iter().enumerate().map(|(i, name)| json!({
            "id": 9000 + i as u64,
            "name": name,
            "exclusive": false,
            "is_archived": false,
            "color": "ededed",
            "description": "",
            "url": format!("{base}/api/v1/repos/{}/{}/labels/{}", spec.owner, spec.name, 9000 + i as u64),
        })).collect::<Vec<_>>(),
        "milestone": null,
        "assignee": null,
        "assignees": null,
        "state": if e.open { "open" } else { "closed" },
        "is_locked": false,
        "comments": world.comments(r, e.number).len(),
        "created_at": e.created,
        "updated_at": e.updated,
        "closed_at": e.closed_at,
        "due_date": null,
        "pull_request": e.pull.map(|p| json!({
            "merged": merged,
            "merged_at": if merged { p.merged_at.as_deref().map(normalize_time).or(Some(e.updated.clone())) } else { None },
            "draft": p.draft,
            "html_url": html,
        })),
        "repository": {
            "id": world.repos[r].id,
            "name": spec.name,
            "owner": spec.owner,
            "full_name": format!("{}/{}", spec.owner, spec.name),
        },
        "pin_order": 0,
    })
}
