//! Forgejo's (and Gitea's) REST API under `/api/v1`, as the simulator serves it: token
//! authentication, error bodies shaped like Forgejo's `APIError`/`APINotFound`, and the JSON
//! of users, repositories, pull requests and comments (every field the Go structs emit).
//!
//! Faithful oddities: the issue-comment list is not paginated (Forgejo ignores `page` and
//! `limit` there and returns every comment with `X-Total-Count`), and an unknown index on the
//! comment endpoints answers 500 with an empty message, as Forgejo does in production.

use bytes::Bytes;
use serde_json::{Value, json};

use crate::scenario::ForgeFlavor;
use crate::scenario::UserKind;
use crate::scenario::{PullSpec, PullState, TokenSpec};
use crate::server::{Reply, ReplyBody, Request, Shared, lock};
use crate::state::{
    Comment, Conversation, PullTimes, Review, ReviewComment, Thread, User, World, normalize_time,
    pull_times,
};

/// Go's zero `time.Time`, which Forgejo prints for never-set times such as `mirror_updated`.
/// The path prefix under which Forgejo/Gitea serve the REST API.
pub(crate) const FORGEJO_API_PREFIX: &str = "/api/v1";

const GO_ZERO_TIME: &str = "0001-01-01T00:00:00Z";
const EPOCH: &str = "2020-01-01T00:00:00Z";

fn swagger_url(base: &str) -> String {
    format!("{base}/api/swagger")
}

pub(crate) fn api_error(base: &str, status: u16, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"message": message, "url": swagger_url(base)}),
    )
}

/// `ctx.NotFound()` without arguments: Go's nil slice makes `errors` null.
pub(crate) fn not_found(base: &str) -> Reply {
    Reply::json(
        404,
        json!({"errors": null, "message": "The target couldn't be found.", "url": swagger_url(base)}),
    )
}

pub(crate) fn handle(shared: &Shared, req: &Request) -> Reply {
    let base = shared.base_url.as_str();
    if req.method == "GET" && req.path == SWAGGER_JSON_PATH {
        // Served by the web router, without authentication, unless the admin turned it off.
        let world = lock(&shared.world);
        return if world.swagger_capability {
            Reply::json(200, api_description(base, &world)).unchecked()
        } else {
            web_not_found()
        };
    }
    let Some(api_path) = req.path.strip_prefix(FORGEJO_API_PREFIX) else {
        // The web UI is not simulated.
        return Reply::json(404, json!({"message": "Not Found"})).unchecked();
    };
    let segments: Vec<&str> = api_path.trim_start_matches('/').split('/').collect();
    let mut world = lock(&shared.world);

    if req.method == "GET" && segments == ["version"] {
        return Reply::json(200, json!({"version": world.version}));
    }
    let caller: Option<TokenSpec> = match req.token() {
        Some(token) => match world.token(&token) {
            Some(t) => Some(t.clone()),
            None => return api_error(base, 401, "invalid username, password or token"),
        },
        None => None,
    };
    if caller.is_none() && !(req.method == "GET" && world.anonymous_read && segments != ["user"]) {
        return api_error(base, 401, "token is required");
    }

    match (req.method.as_str(), segments.as_slice()) {
        ("GET", ["user"]) => match caller.as_ref().and_then(|c| world.user(&c.login)) {
            Some(u) => Reply::json(200, user_json(base, u)),
            None => api_error(base, 401, "token is required"),
        },
        ("GET", ["repos", owner, name]) => match visible_repo(&world, &caller, owner, name) {
            Some(r) => Reply::json(200, repo_json(base, &world, r, &caller)),
            None => not_found(base),
        },
        ("GET", ["repos", owner, name, "pulls", index]) if !index.ends_with(".diff") => {
            match (
                visible_repo(&world, &caller, owner, name),
                index.parse::<u64>(),
            ) {
                (Some(r), Ok(n)) => match world.conversation(r, n) {
                    Some(Conversation::Pull(_)) => {
                        crate::forgejo_readiness::note_pull_read(&mut world, r, n);
                        match world.conversation(r, n) {
                            Some(Conversation::Pull(p)) => {
                                Reply::json(200, pull_json(base, &world, r, p, &caller))
                            }
                            _ => not_found(base),
                        }
                    }
                    _ => not_found(base),
                },
                _ => not_found(base),
            }
        }
        ("GET", ["repos", owner, name, "pulls"]) => {
            match visible_repo(&world, &caller, owner, name) {
                Some(r) => list_pulls(base, &world, req, r, &caller),
                None => not_found(base),
            }
        }
        ("PATCH", ["repos", owner, name, "pulls", index]) => {
            match pull_of(&world, &caller, owner, name, index) {
                Some((r, n)) => edit_pull(base, &mut world, req, &caller, r, n),
                None => not_found(base),
            }
        }
        ("GET", ["repos", owner, name, "issues", index, "comments"]) => {
            let Some(r) = visible_repo(&world, &caller, owner, name) else {
                return not_found(base);
            };
            match index
                .parse::<u64>()
                .ok()
                .filter(|&n| world.conversation(r, n).is_some())
            {
                Some(n) => {
                    let comments = world.comments(r, n);
                    let items: Vec<Value> = comments
                        .iter()
                        .map(|c| comment_json(base, &world, r, n, c))
                        .collect();
                    Reply::json(200, Value::Array(items))
                        .header("x-total-count", comments.len().to_string())
                }
                None => api_error(base, 500, ""),
            }
        }
        ("GET", ["repos", owner, name, "issues", index, "timeline"]) => {
            let Some(r) = visible_repo(&world, &caller, owner, name) else {
                return not_found(base);
            };
            match index
                .parse::<u64>()
                .ok()
                .filter(|&n| world.conversation(r, n).is_some())
            {
                Some(n) => paged(timeline(base, &world, r, n), req),
                None => not_found(base),
            }
        }
        ("POST", ["repos", owner, name, "issues", index, "comments"]) => {
            let Some(r) = visible_repo(&world, &caller, owner, name) else {
                return not_found(base);
            };
            let Some(caller) = caller else {
                return api_error(base, 401, "token is required");
            };
            if !world.can_write(&caller) {
                return api_error(
                    base,
                    403,
                    "token does not have at least one of required scope(s): [write:issue]",
                );
            }
            let payload: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            let body = payload.get("body").and_then(Value::as_str).unwrap_or("");
            if body.is_empty() {
                // The form binding rejects a missing required field before the handler runs.
                return Reply::json(
                    422,
                    json!([{"fieldNames": ["Body"], "classification": "RequiredError", "message": "Required"}]),
                );
            }
            match index
                .parse::<u64>()
                .ok()
                .filter(|&n| world.conversation(r, n).is_some())
            {
                Some(n) => {
                    let comment = world.add_comment(r, n, &caller.login, body);
                    Reply::json(201, comment_json(base, &world, r, n, &comment))
                }
                None => api_error(base, 500, ""),
            }
        }
        (method, ["repos", owner, name, "issues", rest @ ..])
            if crate::issues::serves(method, rest) =>
        {
            match visible_repo(&world, &caller, owner, name) {
                Some(r) => crate::issues::forgejo_route(base, &mut world, req, &caller, r, rest),
                None => not_found(base),
            }
        }
        ("GET", ["repos", owner, name, "pulls", index, "reviews"]) => {
            let Some((r, n)) = pull_of(&world, &caller, owner, name, index) else {
                return not_found(base);
            };
            // No total header on this list.
            let (limit, page) = page_params(req);
            let page = if world.paging { page } else { 1 };
            let items: Vec<Value> = world
                .reviews(r, n)
                .skip((page - 1).saturating_mul(limit))
                .take(limit)
                .map(|rv| review_json(base, &world, r, rv))
                .collect();
            Reply::json(200, Value::Array(items))
        }
        ("GET", ["repos", owner, name, "pulls", index, "reviews", id]) => {
            match review_of(&world, &caller, owner, name, index, id) {
                Some((r, rv)) => Reply::json(200, review_json(base, &world, r, rv)),
                None => not_found(base),
            }
        }
        (
            "GET",
            [
                "repos",
                owner,
                name,
                "pulls",
                index,
                "reviews",
                id,
                "comments",
            ],
        ) => match review_of(&world, &caller, owner, name, index, id) {
            Some((r, rv)) => {
                let items: Vec<Value> = world
                    .review_comments(r, rv.pull)
                    .into_iter()
                    .filter(|(_, c)| c.review_id == rv.id)
                    .map(|(t, c)| {
                        review_comment_json(base, &world, r, &world.repos[r].threads[t], c)
                    })
                    .collect();
                Reply::json(200, Value::Array(items))
            }
            None => not_found(base),
        },
        ("POST", ["repos", owner, name, "pulls", "comments", id, action])
            if world.resolve_capability && (*action == "resolve" || *action == "unresolve") =>
        {
            let Some(r) = visible_repo(&world, &caller, owner, name) else {
                return not_found(base);
            };
            let found = id
                .parse::<u64>()
                .ok()
                .and_then(|id| Some((world.thread_of_comment(r, id)?, id)));
            let Some((t, id)) = found else {
                return not_found(base).unchecked();
            };
            let Some(caller) = caller else {
                return api_error(base, 401, "token is required");
            };
            if !world.can_write(&caller) {
                return api_error(base, 403, "user should have permission to resolve comment")
                    .unchecked();
            }
            let resolver = (*action == "resolve").then_some(caller.login.as_str());
            world.set_resolved(r, t, Some(id), resolver);
            Reply::empty(204).unchecked()
        }
        (
            "POST",
            [
                "repos",
                owner,
                name,
                "pulls",
                index,
                "comments",
                id,
                "replies",
            ],
        ) if world.reply_capability => {
            let Some((r, n)) = pull_of(&world, &caller, owner, name, index) else {
                return not_found(base);
            };
            let thread = id
                .parse::<u64>()
                .ok()
                .and_then(|id| world.thread_of_comment(r, id))
                .filter(|&t| world.repos[r].threads[t].pull == n);
            let Some(t) = thread else {
                return not_found(base).unchecked();
            };
            let Some(caller) = caller else {
                return api_error(base, 401, "token is required");
            };
            if !world.can_write(&caller) {
                return api_error(
                    base,
                    403,
                    "token does not have at least one of required scope(s): [write:repository]",
                )
                .unchecked();
            }
            let payload: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
            let body = payload.get("body").and_then(Value::as_str).unwrap_or("");
            if body.is_empty() {
                return Reply::json(
                    422,
                    json!([{"fieldNames": ["Body"], "classification": "RequiredError", "message": "Required"}]),
                )
                .unchecked();
            }
            match world.add_reply(r, t, &caller.login, body) {
                Some(c) => {
                    let json = review_comment_json(base, &world, r, &world.repos[r].threads[t], &c);
                    Reply::json(201, json).unchecked()
                }
                None => not_found(base).unchecked(),
            }
        }
        ("GET", ["repos", owner, name, "pulls", base_branch, head @ ..])
            if !head.is_empty() && base_branch.parse::<u64>().is_err() =>
        {
            match visible_repo(&world, &caller, owner, name) {
                Some(r) => {
                    pull_by_base_head(base, &world, &caller, r, base_branch, &head.join("/"))
                }
                None => not_found(base),
            }
        }
        ("GET", ["repos", owner, name, rest @ ..]) => {
            match visible_repo(&world, &caller, owner, name) {
                Some(r) => crate::contents::forgejo_route(base, &world, req, r, rest)
                    .or_else(|| {
                        crate::forgejo_readiness::route(base, &world, req, r, rest, &caller)
                    })
                    .or_else(|| crate::ci::forgejo_route(base, &mut world, req, r, rest))
                    .unwrap_or_else(|| not_found(base).unchecked()),
                None => not_found(base),
            }
        }
        _ => not_found(base).unchecked(),
    }
}

/// `GET /repos/{o}/{r}/pulls`: `state` (open, closed, all; default open), `poster` (Forgejo),
/// `sort` (oldest,
/// recentupdate, leastupdate; anything else newest first, Gitea's default), and, on an instance
/// with `pull_list_filters` (Forgejo 16+), `base` and `head` (branch names; a fork's branch of
/// the same name matches too); `page`/`limit` with `X-Total-Count`.
fn list_pulls(
    base: &str,
    world: &World,
    req: &Request,
    r: usize,
    caller: &Option<TokenSpec>,
) -> Reply {
    let state = req
        .query_param("state")
        .unwrap_or_else(|| "open".to_owned());
    let (base_filter, head_filter) = if world.pull_list_filters {
        (req.query_param("base"), req.query_param("head"))
    } else {
        (None, None)
    };
    // Forgejo's `poster` (the author's login); Gitea's published description has no author
    // filter, so Gitea lists every author.
    let poster = match world.flavor {
        ForgeFlavor::Forgejo => req.query_param("poster"),
        _ => None,
    };
    let mut pulls: Vec<&PullSpec> = world.repos[r]
        .spec
        .pulls
        .iter()
        .filter(|p| match state.as_str() {
            "closed" => p.state != PullState::Open,
            "all" => true,
            _ => p.state == PullState::Open,
        })
        .filter(|p| base_filter.as_deref().is_none_or(|b| p.base.ref_name == b))
        .filter(|p| head_filter.as_deref().is_none_or(|h| p.head.ref_name == h))
        .filter(|p| {
            poster
                .as_deref()
                .is_none_or(|a| p.author.eq_ignore_ascii_case(a))
        })
        .collect();
    let sort = req.query_param("sort").unwrap_or_default();
    let at = |p: &PullSpec| {
        let times = pull_times(p);
        let t = match sort.as_str() {
            "recentupdate" | "leastupdate" => times.updated,
            _ => times.created,
        };
        (crate::time::parse_rfc3339(&t).unwrap_or(0), p.number)
    };
    pulls.sort_by_key(|p| at(p));
    if !matches!(sort.as_str(), "oldest" | "leastupdate") {
        pulls.reverse();
    }
    let items = pulls
        .into_iter()
        .map(|p| pull_json(base, world, r, p, caller))
        .collect();
    paged(items, req)
}

/// `PATCH /repos/{o}/{r}/pulls/{index}` with `base`, as Gitea's `EditPullRequest` does it:
/// a merged pull request keeps its base and the answer is still 201; a closed one is 422, a
/// branch that does not exist 404, an open pull request already going from the same head
/// into the new base 409.
fn edit_pull(
    base: &str,
    world: &mut World,
    req: &Request,
    caller: &Option<TokenSpec>,
    r: usize,
    n: u64,
) -> Reply {
    let Some(token) = caller else {
        return api_error(base, 401, "token is required");
    };
    if !world.can_write(token) {
        return api_error(
            base,
            403,
            "token does not have at least one of required scope(s): [write:repository]",
        );
    }
    let payload: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    if let Some(new_base) = payload.get("base").and_then(Value::as_str) {
        let Some(Conversation::Pull(p)) = world.conversation(r, n) else {
            return not_found(base);
        };
        if p.state != PullState::Merged && !new_base.is_empty() && p.base.ref_name != new_base {
            if p.state == PullState::Closed {
                return api_error(base, 422, &format!("issue is closed [id: {n}]"));
            }
            let Some(sha) = world.branch_sha(r, new_base) else {
                return api_error(base, 404, &format!("new base '{new_base}' not exist"));
            };
            let clash = world.repos[r].spec.pulls.iter().any(|o| {
                o.number != n
                    && o.state == PullState::Open
                    && o.base.ref_name == new_base
                    && o.head.ref_name == p.head.ref_name
                    && o.head.repo == p.head.repo
            });
            if clash {
                return api_error(
                    base,
                    409,
                    &format!("pull request already exists for these targets [base: {new_base}]"),
                );
            }
            world.set_base(r, n, new_base, &sha);
        }
    }
    match world.conversation(r, n) {
        Some(Conversation::Pull(p)) => Reply::json(201, pull_json(base, world, r, p, caller)),
        _ => not_found(base),
    }
}

/// `GET /repos/{o}/{r}/pulls/{base}/{head}`: the newest pull request from `head` (a branch of
/// this repository, or `owner:branch` of a fork) into `base`, in any state.
fn pull_by_base_head(
    base: &str,
    world: &World,
    caller: &Option<TokenSpec>,
    r: usize,
    base_branch: &str,
    head: &str,
) -> Reply {
    let (base_branch, head) = (percent_decode(base_branch), percent_decode(head));
    let spec = &world.repos[r].spec;
    let (head_owner, head_branch) = match head.split_once(':') {
        Some((o, b)) => (o.to_owned(), b.to_owned()),
        None => (spec.owner.clone(), head.clone()),
    };
    let found = spec
        .pulls
        .iter()
        .filter(|p| p.base.ref_name == base_branch && p.head.ref_name == head_branch)
        .filter(|p| {
            let owner = p
                .head
                .repo
                .as_deref()
                .and_then(|full| full.split_once('/'))
                .map_or(spec.owner.as_str(), |(o, _)| o);
            owner.eq_ignore_ascii_case(&head_owner)
        })
        .max_by_key(|p| p.number);
    match found {
        Some(p) => Reply::json(200, pull_json(base, world, r, p, caller)),
        None => not_found(base),
    }
}

/// A path segment as the router sees it: `%XX` decoded (invalid escapes kept as written).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where the web router serves the API description (`routers/web/web.go`, when
/// `[api] ENABLE_SWAGGER` is on).
pub(crate) const SWAGGER_JSON_PATH: &str = "/swagger.v1.json";

/// The web router's 404: an HTML page.
fn web_not_found() -> Reply {
    Reply {
        status: 404,
        headers: Vec::new(),
        body: ReplyBody::Raw {
            content_type: "text/html; charset=utf-8",
            bytes: Bytes::from_static(b"<!DOCTYPE html><html><body>Page Not Found</body></html>"),
        },
        checked: false,
    }
}

/// A slice of the Swagger 2.0 document Forgejo/Gitea publish at `/swagger.v1.json`: the
/// routes this simulated instance serves under `/api/v1`, with the optional review
/// conversation routes only when the scenario's instance has them. Paths are relative to
/// `basePath` and use the parameter names of Gitea's description.
fn api_description(base: &str, world: &World) -> Value {
    let op =
        |summary: &str| json!({"summary": summary, "responses": {"200": {"description": "OK"}}});
    let mut paths = serde_json::Map::new();
    let mut add = |path: &str, method: &str, summary: &str| {
        let item = paths.entry(path.to_owned()).or_insert_with(|| json!({}));
        item[method] = op(summary);
    };
    add(
        "/version",
        "get",
        "Returns the version of the running application",
    );
    add("/user", "get", "Get the authenticated user");
    add("/repos/{owner}/{repo}", "get", "Get a repository");
    add(
        "/repos/{owner}/{repo}/pulls/{index}",
        "get",
        "Get a pull request",
    );
    add(
        "/repos/{owner}/{repo}/pulls",
        "get",
        "List a repo's pull requests",
    );
    add(
        "/repos/{owner}/{repo}/pulls/{index}",
        "patch",
        "Update a pull request",
    );
    add(
        "/repos/{owner}/{repo}/pulls/{base}/{head}",
        "get",
        "Get a pull request by base and head",
    );
    add(
        "/repos/{owner}/{repo}/issues/{index}/comments",
        "get",
        "List all comments on an issue",
    );
    add(
        "/repos/{owner}/{repo}/issues/{index}/comments",
        "post",
        "Add a comment to an issue",
    );
    add(
        "/repos/{owner}/{repo}/pulls/{index}/reviews",
        "get",
        "List all reviews for a pull request",
    );
    add(
        "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}",
        "get",
        "Get a specific review for a pull request",
    );
    add(
        "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments",
        "get",
        "Get a specific review for a pull request",
    );
    if world.resolve_capability {
        add(
            "/repos/{owner}/{repo}/pulls/comments/{id}/resolve",
            "post",
            "Resolve a pull request review comment",
        );
        add(
            "/repos/{owner}/{repo}/pulls/comments/{id}/unresolve",
            "post",
            "Unresolve a pull request review comment",
        );
    }
    if world.reply_capability {
        add(
            "/repos/{owner}/{repo}/pulls/{index}/comments/{id}/replies",
            "post",
            "Reply to a pull request review comment",
        );
    }
    add(
        "/repos/{owner}/{repo}/commits/{ref}/statuses",
        "get",
        "Get a commit's statuses, by branch/tag/commit reference",
    );
    add(
        "/repos/{owner}/{repo}/branch_protections",
        "get",
        "List branch protections for a repository",
    );
    if world.actions_api {
        add(
            "/repos/{owner}/{repo}/actions/runs",
            "get",
            "List a repository's action runs",
        );
        add(
            "/repos/{owner}/{repo}/actions/runs/{run_id}",
            "get",
            "Get an action run",
        );
        add(
            "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
            "get",
            "List jobs of a workflow run",
        );
        add(
            "/repos/{owner}/{repo}/actions/jobs/{job_id}",
            "get",
            "Get a single workflow run job, including its step list",
        );
        add(
            "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
            "get",
            "Download the plaintext logs of an action job",
        );
        add(
            "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
            "get",
            "List artifacts of a workflow run",
        );
        add(
            "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/zip",
            "get",
            "Download an artifact",
        );
    }
    for (path, summary) in crate::contents::FORGEJO_ROUTES {
        add(path, "get", summary);
    }
    let title = match world.flavor {
        ForgeFlavor::Forgejo => "Forgejo API",
        _ => "Gitea API",
    };
    json!({
        "swagger": "2.0",
        "info": {"title": title, "version": world.version},
        "basePath": format!("{base}{FORGEJO_API_PREFIX}"),
        "consumes": ["application/json", "text/plain"],
        "produces": ["application/json", "text/html"],
        "schemes": ["http", "https"],
        "paths": paths,
    })
}

fn pull_of(
    world: &World,
    caller: &Option<TokenSpec>,
    owner: &str,
    name: &str,
    index: &str,
) -> Option<(usize, u64)> {
    let r = visible_repo(world, caller, owner, name)?;
    let n = index.parse::<u64>().ok()?;
    match world.conversation(r, n)? {
        Conversation::Pull(_) => Some((r, n)),
        Conversation::Issue => None,
    }
}

fn review_of<'w>(
    world: &'w World,
    caller: &Option<TokenSpec>,
    owner: &str,
    name: &str,
    index: &str,
    id: &str,
) -> Option<(usize, &'w Review)> {
    let (r, n) = pull_of(world, caller, owner, name, index)?;
    let id = id.parse::<u64>().ok()?;
    let review = world.reviews(r, n).find(|rv| rv.id == id)?;
    Some((r, review))
}

/// Gitea's ghost: what a deleted account shows as.
fn ghost() -> User {
    User {
        login: "Ghost".to_owned(),
        id: u64::MAX,
        kind: UserKind::User,
        name: None,
        email: None,
    }
}

fn user_or_ghost_json(base: &str, world: &World, login: Option<&str>) -> Value {
    match login.filter(|l| !l.is_empty()) {
        Some(l) => user_json(base, &world.user_or_ghost(l)),
        None => {
            let mut v = user_json(base, &ghost());
            v["id"] = Value::from(-1);
            v["full_name"] = Value::from("");
            v
        }
    }
}

/// Forgejo's `PullReview`; states in Gitea's names.
fn review_json(base: &str, world: &World, r: usize, rv: &Review) -> Value {
    let spec = &world.repos[r].spec;
    let pull_html = format!("{base}/{}/{}/pulls/{}", spec.owner, spec.name, rv.pull);
    let state = match rv.state.as_str() {
        "APPROVED" => "APPROVED",
        "CHANGES_REQUESTED" => "REQUEST_CHANGES",
        "PENDING" => "PENDING",
        "REQUEST_REVIEW" => "REQUEST_REVIEW",
        _ => "COMMENT",
    };
    let head = spec
        .pulls
        .iter()
        .find(|p| p.number == rv.pull)
        .map(|p| p.head.sha.as_str())
        .unwrap_or_default();
    let comments = world
        .review_comments(r, rv.pull)
        .iter()
        .filter(|(_, c)| c.review_id == rv.id)
        .count();
    let submitted = rv.submitted_at.clone().unwrap_or_else(|| EPOCH.to_owned());
    json!({
        "id": rv.id,
        "user": user_or_ghost_json(base, world, Some(&rv.author)),
        "team": null,
        "state": state,
        "body": rv.body,
        "commit_id": rv.commit_id,
        "stale": rv.commit_id != head,
        "official": rv.official.unwrap_or(matches!(state, "APPROVED" | "REQUEST_CHANGES")),
        "dismissed": rv.state == "DISMISSED",
        "comments_count": comments,
        "submitted_at": submitted,
        "updated_at": submitted,
        "html_url": format!("{pull_html}#issuecomment-{}", rv.id),
        "pull_request_url": pull_html,
    })
}

/// Forgejo's `PullReviewComment`. The line is `position` on the new side and
/// `original_position` on the old one (the other is 0), as Gitea's converter writes it.
fn review_comment_json(
    base: &str,
    world: &World,
    r: usize,
    t: &Thread,
    c: &ReviewComment,
) -> Value {
    let spec = &world.repos[r].spec;
    let pull_html = format!("{base}/{}/{}/pulls/{}", spec.owner, spec.name, t.pull);
    let line = t.line.unwrap_or(0);
    let (position, original_position) = if t.side == "LEFT" {
        (0, line)
    } else {
        (line, 0)
    };
    let resolver = match &c.resolved_by {
        None => Value::Null,
        Some(login) => user_or_ghost_json(base, world, login.as_deref()),
    };
    let mut v = json!({
        "id": c.id,
        "body": c.body,
        "user": user_or_ghost_json(base, world, c.author.as_deref()),
        "resolver": resolver,
        "pull_request_review_id": c.review_id,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
        "path": t.path,
        "commit_id": if t.outdated { &t.original_commit_id } else { &t.commit_id },
        "original_commit_id": t.original_commit_id,
        "diff_hunk": c.diff_hunk,
        "position": position,
        "original_position": original_position,
        "html_url": format!("{pull_html}/files#issuecomment-{}", c.id),
        "pull_request_url": pull_html,
    });
    if world.flavor == ForgeFlavor::Forgejo {
        // Forgejo's struct has it; Gitea's does not.
        v["extra_lines_count"] = Value::from(0);
    }
    v
}

fn visible_repo(
    world: &World,
    caller: &Option<TokenSpec>,
    owner: &str,
    name: &str,
) -> Option<usize> {
    let r = world.repo_index(owner, name)?;
    world
        .repo_visible_to(r, caller.as_ref().map(|t| t.login.as_str()))
        .then_some(r)
}

/// Forgejo's `User`. Bots are ordinary users in Forgejo's API: no type field exists.
pub(crate) fn user_json(base: &str, u: &User) -> Value {
    json!({
        "id": u.id,
        "login": u.login,
        "login_name": "",
        "source_id": 0,
        "full_name": u.name.clone().unwrap_or_default(),
        "email": u.email.clone().unwrap_or_else(|| format!("{}@noreply.localhost", u.login.to_lowercase())),
        "avatar_url": format!("{base}/avatars/{:032x}", u.id),
        "html_url": format!("{base}/{}", u.login),
        "language": "",
        "is_admin": false,
        "last_login": GO_ZERO_TIME,
        "created": EPOCH,
        "restricted": false,
        "active": true,
        "prohibit_login": false,
        "location": "",
        "pronouns": "",
        "website": "",
        "description": "",
        "visibility": "public",
        "followers_count": 0,
        "following_count": 0,
        "starred_repos_count": 0,
    })
}

fn repo_json(base: &str, world: &World, r: usize, caller: &Option<TokenSpec>) -> Value {
    let repo = &world.repos[r];
    let spec = &repo.spec;
    let owner = world.user_or_ghost(&spec.owner);
    let full = format!("{}/{}", spec.owner, spec.name);
    let html = format!("{base}/{full}");
    let host = base.trim_start_matches("http://");
    let push = caller.as_ref().is_some_and(|c| world.can_write(c));
    let open_pulls = spec
        .pulls
        .iter()
        .filter(|p| p.state == PullState::Open)
        .count();
    json!({
        "id": repo.id,
        "owner": user_json(base, &owner),
        "name": spec.name,
        "full_name": full,
        "description": spec.description,
        "empty": false,
        "private": spec.private,
        "fork": false,
        "template": false,
        "parent": null,
        "mirror": false,
        "size": 0,
        "language": "",
        "languages_url": format!("{base}/api/v1/repos/{full}/languages"),
        "html_url": html,
        "url": format!("{base}/api/v1/repos/{full}"),
        "link": "",
        "ssh_url": format!("ssh://git@{host}/{full}.git"),
        "clone_url": format!("{html}.git"),
        "original_url": "",
        "website": "",
        "stars_count": 0,
        "forks_count": 0,
        "watchers_count": 0,
        "open_issues_count": spec.issues.len(),
        "open_pr_counter": open_pulls,
        "release_counter": 0,
        "default_branch": spec.default_branch,
        "archived": false,
        "created_at": EPOCH,
        "updated_at": EPOCH,
        "archived_at": "1970-01-01T00:00:00Z",
        "permissions": {"admin": false, "push": push, "pull": true},
        "has_issues": true,
        "internal_tracker": {
            "enable_time_tracker": true,
            "allow_only_contributors_to_track_time": true,
            "enable_issue_dependencies": true,
        },
        "has_wiki": true,
        "has_wiki_contents": false,
        "wiki_clone_url": format!("{html}.wiki.git"),
        "wiki_ssh_url": format!("ssh://git@{host}/{full}.wiki.git"),
        "globally_editable_wiki": false,
        "has_pull_requests": true,
        "has_projects": true,
        "has_releases": true,
        "has_packages": true,
        "has_actions": true,
        "ignore_whitespace_conflicts": false,
        "allow_merge_commits": true,
        "allow_rebase": true,
        "allow_rebase_explicit": true,
        "allow_squash_merge": true,
        "allow_fast_forward_only_merge": true,
        "allow_rebase_update": true,
        "default_delete_branch_after_merge": false,
        "default_merge_style": "merge",
        "default_allow_maintainer_edit": false,
        "default_update_style": "merge",
        "avatar_url": "",
        "internal": false,
        "mirror_interval": "",
        "object_format_name": "sha1",
        "mirror_updated": GO_ZERO_TIME,
        "repo_transfer": null,
        "topics": [],
        "wiki_branch": "main",
    })
}

fn pull_json(
    base: &str,
    world: &World,
    r: usize,
    p: &PullSpec,
    caller: &Option<TokenSpec>,
) -> Value {
    let spec = &world.repos[r].spec;
    let html = format!("{base}/{}/{}/pulls/{}", spec.owner, spec.name, p.number);
    let PullTimes {
        created,
        updated,
        merged,
        closed_at,
    } = pull_times(p);
    let repo = repo_json(base, world, r, caller);
    let (requested_reviewers, requested_teams) = crate::review_requests::forgejo(base, world, p);
    let branch = |b: &crate::scenario::BranchSpec| {
        let (repo_value, repo_id) = match b.repo.as_deref().and_then(|f| f.split_once('/')) {
            Some((o, n)) => match world.repo_index(o, n) {
                Some(other) => (repo_json(base, world, other, caller), world.repos[other].id),
                // A fork the scenario does not describe: Forgejo shows a deleted head repo as null.
                None => (Value::Null, 0),
            },
            None => (repo.clone(), world.repos[r].id),
        };
        json!({"label": b.ref_name, "ref": b.ref_name, "sha": b.sha, "repo_id": repo_id, "repo": repo_value})
    };
    json!({
        "id": world.conversation_id(r, p.number),
        "url": html,
        "number": p.number,
        "user": user_json(base, &world.user_or_ghost(&p.author)),
        "title": p.title,
        "body": p.body,
        "labels": p.labels.iter().enumerate().map(|(i, name)| json!({
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
        "requested_reviewers": requested_reviewers,
        "requested_reviewers_teams": requested_teams,
        "state": if p.state == PullState::Open { "open" } else { "closed" },
        "draft": p.draft,
        "is_locked": false,
        "comments": world.comments(r, p.number).len(),
        "review_comments": world.threads(r, p.number).map(|(_, t)| t.comments.len()).sum::<usize>(),
        "additions": 0,
        "deletions": 0,
        "changed_files": 0,
        "html_url": html,
        "diff_url": format!("{html}.diff"),
        "patch_url": format!("{html}.patch"),
        // Gitea's `Mergeable()`: false while checking, on a conflict, and for a draft.
        // `mergeable_after_reads`: false while the check runs.
        "mergeable": !p.draft && p.mergeable.unwrap_or(false) && crate::forgejo_readiness::checked(world, r, p),
        "merged": merged,
        "merged_at": if merged { p.merged_at.as_deref().map(normalize_time).or(Some(updated.clone())) } else { None },
        "merge_commit_sha": if merged { p.merge_commit_sha.clone() } else { None },
        "merged_by": if merged { p.merged_by.as_deref().map(|l| user_json(base, &world.user_or_ghost(l))) } else { None },
        "allow_maintainer_edit": false,
        "base": branch(&p.base),
        "head": branch(&p.head),
        "merge_base": p.base.sha,
        "due_date": null,
        "created_at": created,
        "updated_at": updated,
        "closed_at": closed_at,
        "pin_order": 0,
        "flow": 0,
    })
}

/// The timeline of a conversation, oldest first: its comments (`comment`) and, for a pull
/// request, its force-pushes as `pull_push` comments whose body is the JSON Forgejo writes.
fn timeline(base: &str, world: &World, r: usize, number: u64) -> Vec<Value> {
    let mut events: Vec<(String, Value)> = world
        .comments(r, number)
        .iter()
        .map(|c| {
            let mut v = comment_json(base, world, r, number, c);
            v["type"] = json!("comment");
            // A timeline comment has no attachments or migration fields.
            if let Some(o) = v.as_object_mut() {
                for field in ["assets", "original_author", "original_author_id"] {
                    o.remove(field);
                }
            }
            (normalize_time(&c.created_at), v)
        })
        .collect();
    if let Some(Conversation::Pull(p)) = world.conversation(r, number) {
        let spec = &world.repos[r].spec;
        let url = format!("{base}/{}/{}/pulls/{number}", spec.owner, spec.name);
        for (i, f) in p.force_pushes.iter().enumerate() {
            let at = normalize_time(f.created_at.as_deref().unwrap_or(&p.created_at));
            let actor = world.user_or_ghost(f.actor.as_deref().unwrap_or(&p.author));
            let body = json!({"is_force_push": true, "commit_ids": [f.before, f.after]});
            let id = world.conversation_id(r, number) * 1000 + i as u64;
            events.push((
                at.clone(),
                json!({
                    "id": id,
                    "type": "pull_push",
                    "body": body.to_string(),
                    "user": user_json(base, &actor),
                    "html_url": format!("{url}#issuecomment-{id}"),
                    "pull_request_url": url,
                    "issue_url": "",
                    "created_at": at,
                    "updated_at": at,
                }),
            ));
        }
    }
    events.sort_by(|a, b| a.0.cmp(&b.0));
    events.into_iter().map(|(_, v)| v).collect()
}

/// Forgejo's `Comment`: `pull_request_url` is set on pull requests, `issue_url` on issues,
/// the other is "".
pub(crate) fn comment_json(base: &str, world: &World, r: usize, number: u64, c: &Comment) -> Value {
    let spec = &world.repos[r].spec;
    let is_pull = matches!(world.conversation(r, number), Some(Conversation::Pull(_)));
    let conv_url = format!(
        "{base}/{}/{}/{}/{number}",
        spec.owner,
        spec.name,
        if is_pull { "pulls" } else { "issues" }
    );
    json!({
        "id": c.id,
        "html_url": format!("{conv_url}#issuecomment-{}", c.id),
        "pull_request_url": if is_pull { conv_url.clone() } else { String::new() },
        "issue_url": if is_pull { String::new() } else { conv_url.clone() },
        "user": user_json(base, &world.user_or_ghost(&c.author)),
        "original_author": "",
        "original_author_id": 0,
        "body": c.body,
        "assets": [],
        "created_at": c.created_at,
        "updated_at": c.updated_at,
    })
}

/// `limit` and `page` as every Gitea list takes them: 30 a page by default, at most 50;
/// pages count from 1.
pub(crate) fn page_params(req: &Request) -> (usize, usize) {
    let number = |name: &str| {
        req.query_param(name)
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    (
        number("limit").unwrap_or(30).min(50),
        number("page").unwrap_or(1),
    )
}

/// One page of `all`, with the total in `x-total-count`.
pub(crate) fn paged(all: Vec<Value>, req: &Request) -> Reply {
    let (limit, page) = page_params(req);
    let total = all.len();
    let items: Vec<Value> = all
        .into_iter()
        .skip((page - 1).saturating_mul(limit))
        .take(limit)
        .collect();
    Reply::json(200, Value::Array(items)).header("x-total-count", total.to_string())
}
