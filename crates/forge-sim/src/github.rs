//! GitHub's REST API as the simulator serves it: authentication, the primary rate limit and
//! its headers, ETags and 304s, page-based pagination with `Link` headers, and the JSON
//! shapes of repositories, pull requests, users and issue comments.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

#[cfg(feature = "graphql")]
use crate::graphql;
use crate::scenario::{PullSpec, PullState, TokenSpec, UserKind};
use crate::server::{Reply, ReplyBody, Request, Shared, lock};
use crate::state::{
    Comment, Conversation, PullTimes, Review, ReviewComment, Thread, User, World, normalize_time,
    pull_times,
};

const DOCS: &str = "https://docs.github.com/rest";
/// GitHub's limit for unauthenticated requests, per hour.
const ANONYMOUS_LIMIT: u32 = 60;
/// When accounts and repositories were "created": a fixed instant keeps output stable.
const EPOCH: &str = "2020-01-01T00:00:00Z";

pub(crate) fn error(status: u16, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"message": message, "documentation_url": DOCS, "status": status.to_string()}),
    )
}

fn not_found() -> Reply {
    error(404, "Not Found")
}

/// Who is calling: `None` for a request without a token (allowed only for reads when the
/// scenario says so).
type Caller = Option<TokenSpec>;

/// Handles one request; also returns the path to check against the description (links use
/// `/repositories/{id}/…`, which is rewritten to `/repos/{owner}/{repo}/…`) and, for GraphQL,
/// the points the query cost.
pub(crate) fn handle(shared: &Shared, req: &Request) -> (Reply, String, Option<u32>) {
    let mut world = lock(&shared.world);
    let path = canonical_path(&world, &req.path);
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let resource = if path == "/graphql" {
        "graphql"
    } else {
        "core"
    };

    let caller: Caller = match req.token() {
        Some(token) => match world.token(&token) {
            Some(t) => Some(t.clone()),
            None => return (error(401, "Bad credentials"), path, None),
        },
        None => None,
    };
    if caller.is_none() {
        let reads_public = req.method == "GET" && world.anonymous_read && path != "/user";
        if path == "/graphql" {
            let body = json!({
                "message": "This endpoint requires you to be authenticated.",
                "documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql",
            });
            return (Reply::json(401, body).unchecked(), path, None);
        }
        if !reads_public {
            return (error(401, "Requires authentication"), path, None);
        }
    }

    let login = caller.as_ref().map(|c| c.login.clone()).unwrap_or_default();
    let limit = if caller.is_some() {
        world.rate_limit.limit
    } else {
        ANONYMOUS_LIMIT
    };
    let start_remaining = world.rate_limit.remaining.unwrap_or(limit).min(limit);
    let reset = world.started_at + world.rate_limit.reset_after_seconds;
    let used_before = *lock(&shared.rate_used)
        .get(&(login.clone(), resource))
        .unwrap_or(&0);
    let remaining = start_remaining.saturating_sub(used_before);
    let counts = path != "/rate_limit";
    // REST requests cost 1; a GraphQL query what its points say.
    #[cfg_attr(
        not(feature = "graphql"),
        expect(unused_mut, reason = "only GraphQL reprices")
    )]
    let mut points = 1;

    // GraphQL prices the query first and answers an unaffordable one itself.
    let mut reply = if counts && remaining == 0 && resource != "graphql" {
        let who = world.user(&login).map(|u| u.id).unwrap_or(0);
        error(
            403,
            &format!(
                "API rate limit exceeded for user ID {who}. If you reach out to GitHub Support for help, please include the request ID."
            ),
        )
    } else {
        let base = &shared.base_url;
        match (req.method.as_str(), segments.as_slice()) {
            // Without the `graphql` feature GitHub's GraphQL endpoint is not served (404).
            #[cfg(feature = "graphql")]
            ("POST", ["graphql"]) => {
                let rate = graphql::RateInfo {
                    limit,
                    remaining,
                    reset_at: crate::time::format_rfc3339(reset),
                    user_id: world.user(&login).map(|u| u.id).unwrap_or(0),
                };
                let can_write = caller.as_ref().is_some_and(|c| world.can_write(c));
                let answer =
                    graphql::execute(shared, &mut world, can_write, &login, rate, &req.body);
                points = answer.points;
                answer.reply
            }
            ("GET", ["user"]) => match world.user(&login) {
                Some(u) => Reply::json(200, private_user_json(base, u)),
                None => error(401, "Requires authentication"),
            },
            ("GET", ["rate_limit"]) => {
                let core_used = *lock(&shared.rate_used)
                    .get(&(login.clone(), "core"))
                    .unwrap_or(&0);
                let gql_used = *lock(&shared.rate_used)
                    .get(&(login.clone(), "graphql"))
                    .unwrap_or(&0);
                Reply::json(
                    200,
                    rate_limit_json(limit, start_remaining, core_used, gql_used, reset),
                )
            }
            ("GET", ["repos", owner, name]) => match visible_repo(&world, &caller, owner, name) {
                Some(r) => Reply::json(200, full_repo_json(base, &world, r, &caller)),
                None => not_found(),
            },
            ("GET", ["repos", owner, name, "pulls", number]) => {
                match (
                    visible_repo(&world, &caller, owner, name),
                    number.parse::<u64>(),
                ) {
                    (Some(r), Ok(n)) => {
                        let lazy = matches!(world.conversation(r, n), Some(Conversation::Pull(_)))
                            && crate::readiness::read_mergeable(&mut world, r, n);
                        match world.conversation(r, n) {
                            Some(Conversation::Pull(p)) => {
                                let mut pull = pull_json(base, &world, r, p);
                                if lazy {
                                    crate::readiness::still_computing(&mut pull);
                                }
                                Reply::json(200, pull)
                            }
                            _ => not_found(),
                        }
                    }
                    _ => not_found(),
                }
            }
            ("GET", ["repos", owner, name, "git", "ref", "heads", branch @ ..])
                if !branch.is_empty() =>
            {
                let branch = crate::forgejo_readiness::decode(&branch.join("/"));
                match visible_repo(&world, &caller, owner, name)
                    .and_then(|r| crate::forgejo_readiness::branch_tip(&world, r, &branch))
                {
                    Some(sha) => Reply::json(
                        200,
                        json!({
                            "ref": format!("refs/heads/{branch}"),
                            "node_id": "REF_sim",
                            "url": format!("{base}/repos/{owner}/{name}/git/refs/heads/{branch}"),
                            "object": {"type": "commit", "sha": sha, "url": format!("{base}/repos/{owner}/{name}/git/commits/{sha}")},
                        }),
                    ),
                    None => not_found(),
                }
            }
            ("GET", ["repos", owner, name, "pulls"]) => {
                match visible_repo(&world, &caller, owner, name) {
                    Some(r) => list_pulls(base, &world, req, r),
                    None => not_found(),
                }
            }
            ("PATCH", ["repos", owner, name, "pulls", number]) => {
                match pull_of(&world, &caller, owner, name, number) {
                    Some((r, n)) => update_pull(base, &mut world, req, &caller, r, n),
                    None => not_found(),
                }
            }
            ("GET", ["repos", owner, name, "issues", number, "comments"]) => {
                match (
                    visible_repo(&world, &caller, owner, name),
                    number.parse::<u64>(),
                ) {
                    (Some(r), Ok(n)) if world.conversation(r, n).is_some() => {
                        list_comments(base, &world, req, r, n)
                    }
                    _ => not_found(),
                }
            }
            ("POST", ["repos", owner, name, "issues", number, "comments"]) => {
                match (
                    visible_repo(&world, &caller, owner, name),
                    number.parse::<u64>(),
                ) {
                    (Some(r), Ok(n)) if world.conversation(r, n).is_some() => {
                        create_comment(base, &mut world, req, &caller, r, n)
                    }
                    _ => not_found(),
                }
            }
            (method, ["repos", owner, name, "issues", rest @ ..])
                if crate::issues::serves(method, rest) =>
            {
                match visible_repo(&world, &caller, owner, name) {
                    Some(r) => crate::issues::github_route(base, &mut world, req, &caller, r, rest),
                    None => not_found(),
                }
            }
            ("GET", ["repos", owner, name, "pulls", number, "reviews"]) => {
                match pull_of(&world, &caller, owner, name, number) {
                    Some((r, n)) => {
                        let reviews: Vec<&Review> = world.reviews(r, n).collect();
                        let items: Vec<Value> = reviews
                            .iter()
                            .map(|rv| review_json(base, &world, r, rv))
                            .collect();
                        paged(base, &world, req, r, &format!("pulls/{n}/reviews"), items)
                    }
                    None => not_found(),
                }
            }
            ("GET", ["repos", owner, name, "pulls", number, "comments"]) => {
                match pull_of(&world, &caller, owner, name, number) {
                    Some((r, n)) => {
                        let items: Vec<Value> = world
                            .review_comments(r, n)
                            .into_iter()
                            .map(|(t, c)| {
                                review_comment_json(base, &world, r, &world.repos[r].threads[t], c)
                            })
                            .collect();
                        paged(base, &world, req, r, &format!("pulls/{n}/comments"), items)
                    }
                    None => not_found(),
                }
            }
            ("GET", ["repos", owner, name, "pulls", "comments", id]) => {
                let found = visible_repo(&world, &caller, owner, name).and_then(|r| {
                    let id = id.parse::<u64>().ok()?;
                    let t = world.thread_of_comment(r, id)?;
                    Some((r, t, id))
                });
                match found {
                    Some((r, t, id)) => {
                        let thread = &world.repos[r].threads[t];
                        match thread.comments.iter().find(|c| c.id == id) {
                            Some(c) => {
                                Reply::json(200, review_comment_json(base, &world, r, thread, c))
                            }
                            None => not_found(),
                        }
                    }
                    None => not_found(),
                }
            }
            (
                "POST",
                [
                    "repos",
                    owner,
                    name,
                    "pulls",
                    number,
                    "comments",
                    id,
                    "replies",
                ],
            ) => match pull_of(&world, &caller, owner, name, number) {
                Some((r, n)) => create_reply(base, &mut world, req, &caller, r, n, id),
                None => not_found(),
            },
            ("GET", ["repos", owner, name, rest @ ..]) => {
                let ctx = crate::ci::GhCtx {
                    base,
                    storage: &shared.storage_url,
                    administration: caller.as_ref().is_some_and(|t| {
                        t.permission == crate::scenario::Permission::Admin && t.administration
                    }),
                };
                match visible_repo(&world, &caller, owner, name) {
                    Some(r) => crate::contents::github_route(base, &world, req, r, rest)
                        .or_else(|| crate::ci::github_route(&ctx, &mut world, req, r, rest))
                        .unwrap_or_else(|| not_found().unchecked()),
                    None => not_found(),
                }
            }
            _ => not_found().unchecked(),
        }
    };

    // Conditional GETs: a matching ETag costs nothing, like on GitHub.
    let mut not_modified = false;
    if let (true, ReplyBody::Json(body)) = (req.method == "GET" && reply.status == 200, &reply.body)
    {
        let etag = etag_of(body);
        let matches = req
            .header("if-none-match")
            .is_some_and(|h| h.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
        if matches {
            not_modified = true;
            reply = Reply::empty(304);
        }
        reply = reply.header("etag", etag);
    }
    let mut used = used_before;
    if counts && !not_modified && remaining > 0 {
        used += points.min(remaining);
        lock(&shared.rate_used).insert((login, resource), used);
    }
    let remaining_now = start_remaining.saturating_sub(used);
    reply = reply
        .header("x-ratelimit-limit", limit.to_string())
        .header("x-ratelimit-remaining", remaining_now.to_string())
        .header("x-ratelimit-reset", reset.to_string())
        .header("x-ratelimit-used", (limit - remaining_now).to_string())
        .header("x-ratelimit-resource", resource)
        .header("x-github-api-version-selected", "2022-11-28")
        .header("x-github-media-type", "github.v3; format=json");
    let graphql_points = (resource == "graphql").then_some(if counts { points } else { 0 });
    (reply, path, graphql_points)
}

/// `/repositories/{id}/rest` (GitHub's own pagination links) to `/repos/{owner}/{repo}/rest`.
fn canonical_path(world: &World, path: &str) -> String {
    let Some(rest) = path.strip_prefix("/repositories/") else {
        return path.to_owned();
    };
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    match id.parse::<u64>().ok().and_then(|id| world.repo_by_id(id)) {
        Some(r) => {
            let spec = &world.repos[r].spec;
            let tail = if tail.is_empty() {
                String::new()
            } else {
                format!("/{tail}")
            };
            format!("/repos/{}/{}{tail}", spec.owner, spec.name)
        }
        None => path.to_owned(),
    }
}

/// Private repositories are invisible (404, not 403) to callers without access, like on GitHub.
fn visible_repo(world: &World, caller: &Caller, owner: &str, name: &str) -> Option<usize> {
    let r = world.repo_index(owner, name)?;
    world
        .repo_visible_to(r, caller.as_ref().map(|t| t.login.as_str()))
        .then_some(r)
}

/// The repository and number of a visible pull request.
fn pull_of(
    world: &World,
    caller: &Caller,
    owner: &str,
    name: &str,
    number: &str,
) -> Option<(usize, u64)> {
    let r = visible_repo(world, caller, owner, name)?;
    let n = number.parse::<u64>().ok()?;
    match world.conversation(r, n)? {
        Conversation::Pull(_) => Some((r, n)),
        Conversation::Issue => None,
    }
}

/// One page of a list, with GitHub's `Link` header (links under `/repositories/{id}/`).
pub(crate) fn paged(
    base: &str,
    world: &World,
    req: &Request,
    r: usize,
    tail: &str,
    all: Vec<Value>,
) -> Reply {
    let (per_page, page) = page_params(req);
    let last = all.len().div_ceil(per_page).max(1);
    let items: Vec<Value> = all
        .into_iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .collect();
    let path = format!("{base}/repositories/{}/{tail}", world.repos[r].id);
    let reply = Reply::json(200, Value::Array(items));
    match link_header(&path, req, page, last) {
        Some(link) => reply.header("link", link),
        None => reply,
    }
}

/// `GET /repos/{o}/{r}/pulls`: `state` (open, closed, all; default open), `head`
/// (`owner:branch`, or a branch of any owner), `base`, `sort` (created, updated; popularity
/// and long-running are taken as created) and `direction` (default desc for created, else
/// asc), paged with `Link`. Items are GitHub's `pull-request-simple`: no mergeability, no
/// counts.
fn list_pulls(base: &str, world: &World, req: &Request, r: usize) -> Reply {
    let spec = &world.repos[r].spec;
    let state = req
        .query_param("state")
        .unwrap_or_else(|| "open".to_owned());
    let head = req.query_param("head");
    let base_filter = req.query_param("base");
    let mut pulls: Vec<&PullSpec> = spec
        .pulls
        .iter()
        .filter(|p| match state.as_str() {
            "closed" => p.state != PullState::Open,
            "all" => true,
            _ => p.state == PullState::Open,
        })
        .filter(|p| base_filter.as_deref().is_none_or(|b| p.base.ref_name == b))
        .filter(|p| {
            head.as_deref().is_none_or(|h| match h.split_once(':') {
                Some((owner, branch)) => {
                    let head_owner = p
                        .head
                        .repo
                        .as_deref()
                        .and_then(|full| full.split_once('/'))
                        .map_or(spec.owner.as_str(), |(o, _)| o);
                    p.head.ref_name == branch && head_owner.eq_ignore_ascii_case(owner)
                }
                None => p.head.ref_name == h,
            })
        })
        .collect();
    let sort = req
        .query_param("sort")
        .unwrap_or_else(|| "created".to_owned());
    let key = |p: &PullSpec| {
        let times = pull_times(p);
        let at = if sort == "updated" {
            times.updated
        } else {
            times.created
        };
        (crate::time::parse_rfc3339(&at).unwrap_or(0), p.number)
    };
    pulls.sort_by_key(|p| key(p));
    let default_direction = if sort == "created" { "desc" } else { "asc" };
    if req
        .query_param("direction")
        .as_deref()
        .unwrap_or(default_direction)
        == "desc"
    {
        pulls.reverse();
    }
    let items: Vec<Value> = pulls
        .into_iter()
        .map(|p| {
            let mut v = pull_json(base, world, r, p);
            if let Some(o) = v.as_object_mut() {
                for key in [
                    "merged",
                    "mergeable",
                    "rebaseable",
                    "mergeable_state",
                    "merged_by",
                    "comments",
                    "review_comments",
                    "maintainer_can_modify",
                    "commits",
                    "additions",
                    "deletions",
                    "changed_files",
                ] {
                    o.remove(key);
                }
            }
            v
        })
        .collect();
    paged(base, world, req, r, "pulls", items)
}

fn validation_failed(field: &str, code: &str, message: Option<&str>) -> Reply {
    let mut detail = json!({"resource": "PullRequest", "field": field, "code": code});
    if let Some(m) = message {
        detail["message"] = Value::from(m);
    }
    Reply::json(
        422,
        json!({
            "message": "Validation Failed",
            "errors": [detail],
            "documentation_url": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request",
            "status": "422",
        }),
    )
}

/// `PATCH /repos/{o}/{r}/pulls/{n}`: changes the base branch (`base`), the only field the
/// simulator keeps; a closed pull request, a branch the repository does not have, or the
/// head branch itself is a 422 as on GitHub.
fn update_pull(
    base: &str,
    world: &mut World,
    req: &Request,
    caller: &Caller,
    r: usize,
    n: u64,
) -> Reply {
    let Some(caller) = caller else {
        return error(401, "Requires authentication");
    };
    if !world.can_write(caller) {
        return error(403, "Resource not accessible by personal access token");
    }
    let Ok(payload) = serde_json::from_slice::<Value>(&req.body) else {
        return error(400, "Problems parsing JSON").unchecked();
    };
    if let Some(new_base) = payload.get("base").and_then(Value::as_str) {
        let Some(Conversation::Pull(p)) = world.conversation(r, n) else {
            return not_found();
        };
        if p.base.ref_name != new_base {
            if p.state != PullState::Open {
                return validation_failed(
                    "base",
                    "custom",
                    Some("Cannot change the base branch of a closed pull request."),
                );
            }
            let same_repo_head = p.head.repo.is_none();
            if same_repo_head && p.head.ref_name == new_base {
                return validation_failed("base", "invalid", None);
            }
            let Some(sha) = world.branch_sha(r, new_base) else {
                return validation_failed("base", "invalid", None);
            };
            world.set_base(r, n, new_base, &sha);
        }
    }
    match world.conversation(r, n) {
        Some(Conversation::Pull(p)) => Reply::json(200, pull_json(base, world, r, p)),
        _ => not_found(),
    }
}

#[allow(clippy::too_many_arguments)]
fn create_reply(
    base: &str,
    world: &mut World,
    req: &Request,
    caller: &Caller,
    repo: usize,
    number: u64,
    comment_id: &str,
) -> Reply {
    let Some(caller) = caller else {
        return error(401, "Requires authentication");
    };
    let thread = comment_id
        .parse::<u64>()
        .ok()
        .and_then(|id| world.thread_of_comment(repo, id))
        .filter(|&t| world.repos[repo].threads[t].pull == number);
    let Some(thread) = thread else {
        return not_found();
    };
    if !world.can_write(caller) {
        return error(403, "Resource not accessible by personal access token");
    }
    let parsed: Result<Value, _> = serde_json::from_slice(&req.body);
    let Ok(payload) = parsed else {
        return error(400, "Problems parsing JSON").unchecked();
    };
    let body = payload.get("body").and_then(Value::as_str).unwrap_or("");
    if body.is_empty() {
        // Not described for this operation, though GitHub sends it.
        return Reply::json(
            422,
            json!({
                "message": "Validation Failed",
                "errors": [{"resource": "PullRequestReviewComment", "code": "missing_field", "field": "body"}],
                "documentation_url": "https://docs.github.com/rest/pulls/comments#create-a-reply-for-a-review-comment",
                "status": "422",
            }),
        )
        .unchecked();
    }
    let Some(comment) = world.add_reply(repo, thread, &caller.login, body) else {
        return not_found();
    };
    let json = review_comment_json(
        base,
        world,
        repo,
        &world.repos[repo].threads[thread],
        &comment,
    );
    let location = json["url"].as_str().unwrap_or_default().to_owned();
    Reply::json(201, json).header("location", location)
}

/// GitHub's ghost: what a deleted account's comments show as author.
pub(crate) fn ghost() -> User {
    User {
        login: "ghost".to_owned(),
        id: 10137,
        kind: UserKind::User,
        name: None,
        email: None,
    }
}

/// GitHub's `pull-request-review`.
fn review_json(base: &str, world: &World, r: usize, rv: &Review) -> Value {
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let html = format!("{base}/{full}/pull/{}#pullrequestreview-{}", rv.pull, rv.id);
    let pull_url = format!("{base}/repos/{full}/pulls/{}", rv.pull);
    let user = if rv.author.is_empty() {
        ghost()
    } else {
        world.user_or_ghost(&rv.author)
    };
    let mut v = json!({
        "id": rv.id,
        "node_id": node_id("PRR", "PullRequestReview", rv.id),
        "user": user_json(base, &user),
        "body": rv.body,
        "state": rv.state,
        "html_url": html,
        "pull_request_url": pull_url,
        "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
        "commit_id": rv.commit_id,
        "author_association": author_association(world, r, &rv.author),
    });
    if let Some(at) = &rv.submitted_at {
        v["submitted_at"] = Value::from(at.as_str());
    }
    v
}

/// The reaction rollup GitHub puts on comments.
pub(crate) fn reactions_json(
    url: String,
    counts: &std::collections::BTreeMap<String, u32>,
) -> Value {
    let mut v = json!({"url": url});
    let mut total = 0;
    for name in crate::scenario::REACTIONS {
        let n = counts.get(name).copied().unwrap_or(0);
        total += n;
        v[name] = Value::from(n);
    }
    v["total_count"] = Value::from(total);
    v
}

/// GitHub's `pull-request-review-comment`.
pub(crate) fn review_comment_json(
    base: &str,
    world: &World,
    r: usize,
    t: &Thread,
    c: &ReviewComment,
) -> Value {
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let api = format!("{base}/repos/{full}");
    let url = format!("{api}/pulls/comments/{}", c.id);
    let html = format!("{base}/{full}/pull/{}#discussion_r{}", t.pull, c.id);
    let pull_url = format!("{api}/pulls/{}", t.pull);
    let user = match &c.author {
        Some(login) => world.user_or_ghost(login),
        None => ghost(),
    };
    let first = t.first_id();
    let hunk_lines = c.diff_hunk.lines().count().saturating_sub(1).max(1) as u64;
    let position = (!t.outdated && !t.file_level).then_some(hunk_lines);
    let live = |v: Option<u64>| if t.outdated { None } else { v };
    let start_side = t.start_line.map(|_| t.side);
    let mut v = json!({
        "url": url,
        "pull_request_review_id": c.review_id,
        "id": c.id,
        "node_id": node_id("PRRC", "PullRequestReviewComment", c.id),
        "diff_hunk": c.diff_hunk,
        "path": t.path,
        "position": position,
        "original_position": (!t.file_level).then_some(hunk_lines),
        "commit_id": if t.outdated { &t.original_commit_id } else { &t.commit_id },
        "original_commit_id": t.original_commit_id,
        "user": user_json(base, &user),
        "body": c.body,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
        "html_url": html,
        "pull_request_url": pull_url,
        "author_association": c.author.as_deref().map(|a| author_association(world, r, a)).unwrap_or("NONE"),
        "_links": {
            "self": {"href": url},
            "html": {"href": html},
            "pull_request": {"href": pull_url},
        },
        "start_line": live(t.start_line),
        "original_start_line": t.start_line,
        "start_side": start_side,
        "line": live(t.line),
        "original_line": t.line,
        "side": t.side,
        "subject_type": if t.file_level { "file" } else { "line" },
        "reactions": reactions_json(format!("{url}/reactions"), &c.reactions),
    });
    if c.id != first {
        v["in_reply_to_id"] = Value::from(first);
    }
    // GitHub sends null for these when the line is gone; its description types them as
    // integers, so an absent value is left out rather than sent as null.
    if let Some(o) = v.as_object_mut() {
        for key in ["position", "original_position", "line", "original_line"] {
            if o.get(key).is_some_and(Value::is_null) {
                o.remove(key);
            }
        }
    }
    v
}

fn etag_of(body: &Value) -> String {
    let mut h = DefaultHasher::new();
    body.to_string().hash(&mut h);
    format!("W/\"{:016x}\"", h.finish())
}

pub(crate) fn page_params(req: &Request) -> (usize, usize) {
    let per_page = req
        .query_param("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(30)
        .min(100);
    let page = req
        .query_param("page")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1);
    (per_page, page)
}

fn list_comments(base: &str, world: &World, req: &Request, repo: usize, number: u64) -> Reply {
    let all = world.comments(repo, number);
    let (per_page, page) = page_params(req);
    let items: Vec<Value> = all
        .iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .map(|c| comment_json(base, world, repo, number, c))
        .collect();
    let last = all.len().div_ceil(per_page).max(1);
    let path = format!(
        "{base}/repositories/{}/issues/{number}/comments",
        world.repos[repo].id
    );
    let reply = Reply::json(200, Value::Array(items));
    match link_header(&path, req, page, last) {
        Some(link) => reply.header("link", link),
        None => reply,
    }
}

/// GitHub's `Link` header: prev, next, last, first, each keeping the request's other query
/// parameters, in that order, separated by ", ".
pub(crate) fn link_header(path: &str, req: &Request, page: usize, last: usize) -> Option<String> {
    let kept: Vec<(String, String)> = req
        .query
        .as_deref()
        .map(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .filter(|(k, _)| k != "page")
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    let url_for = |p: usize| {
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &kept {
            ser.append_pair(k, v);
        }
        ser.append_pair("page", &p.to_string());
        format!("<{path}?{}>", ser.finish())
    };
    let mut parts = Vec::new();
    if page > 1 {
        parts.push(format!("{}; rel=\"prev\"", url_for((page - 1).min(last))));
    }
    if page < last {
        parts.push(format!("{}; rel=\"next\"", url_for(page + 1)));
        parts.push(format!("{}; rel=\"last\"", url_for(last)));
    }
    if page > 1 {
        parts.push(format!("{}; rel=\"first\"", url_for(1)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn create_comment(
    base: &str,
    world: &mut World,
    req: &Request,
    caller: &Caller,
    repo: usize,
    number: u64,
) -> Reply {
    let Some(caller) = caller else {
        return error(401, "Requires authentication");
    };
    if !world.can_write(caller) {
        return error(403, "Resource not accessible by personal access token");
    }
    let parsed: Result<Value, _> = serde_json::from_slice(&req.body);
    let Ok(payload) = parsed else {
        return error(400, "Problems parsing JSON").unchecked();
    };
    let body = payload.get("body").and_then(Value::as_str).unwrap_or("");
    if body.is_empty() {
        return Reply::json(
            422,
            json!({
                "message": "Validation Failed",
                "errors": [{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
                "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                "status": "422",
            }),
        );
    }
    let comment = world.add_comment(repo, number, &caller.login, body);
    let json = comment_json(base, world, repo, number, &comment);
    let location = json["url"].as_str().unwrap_or_default().to_owned();
    Reply::json(201, json).header("location", location)
}

pub(crate) fn node_id(prefix: &str, kind: &str, id: u64) -> String {
    use base64::Engine;
    let raw = format!("forge-sim:{kind}:{id}");
    format!(
        "{prefix}_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
    )
}

pub(crate) fn user_type(kind: UserKind) -> &'static str {
    match kind {
        UserKind::User => "User",
        UserKind::Bot => "Bot",
        UserKind::Organization => "Organization",
    }
}

/// GitHub's `simple-user`.
pub(crate) fn user_json(base: &str, u: &User) -> Value {
    // Bot logins end in "[bot]", which GitHub percent-encodes in URLs; a bot's page is its app.
    let path_login = u.login.replace('[', "%5B").replace(']', "%5D");
    let api = format!("{base}/users/{path_login}");
    let html_url = match u.kind {
        UserKind::Bot => format!("{base}/apps/{}", u.login.trim_end_matches("[bot]")),
        _ => format!("{base}/{path_login}"),
    };
    json!({
        "login": u.login,
        "id": u.id,
        "node_id": node_id(if u.kind == UserKind::Bot { "BOT" } else { "U" }, "User", u.id),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{}?v=4", u.id),
        "gravatar_id": "",
        "url": api,
        "html_url": html_url,
        "followers_url": format!("{api}/followers"),
        "following_url": format!("{api}/following{{/other_user}}"),
        "gists_url": format!("{api}/gists{{/gist_id}}"),
        "starred_url": format!("{api}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{api}/subscriptions"),
        "organizations_url": format!("{api}/orgs"),
        "repos_url": format!("{api}/repos"),
        "events_url": format!("{api}/events{{/privacy}}"),
        "received_events_url": format!("{api}/received_events"),
        "type": user_type(u.kind),
        "user_view_type": "public",
        "site_admin": false,
    })
}

/// `GET /user`: GitHub's `private-user`.
fn private_user_json(base: &str, u: &User) -> Value {
    let mut v = user_json(base, u);
    let extra = json!({
        "user_view_type": "private",
        "name": u.name,
        "company": null,
        "blog": "",
        "location": null,
        "email": u.email,
        "notification_email": u.email,
        "hireable": null,
        "bio": null,
        "twitter_username": null,
        "public_repos": 0,
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "created_at": EPOCH,
        "updated_at": EPOCH,
        "private_gists": 0,
        "total_private_repos": 0,
        "owned_private_repos": 0,
        "disk_usage": 0,
        "collaborators": 0,
        "two_factor_authentication": true,
    });
    merge(&mut v, extra);
    v
}

fn merge(target: &mut Value, extra: Value) {
    if let (Some(t), Value::Object(e)) = (target.as_object_mut(), extra) {
        t.extend(e);
    }
}

fn rate_limit_json(limit: u32, start: u32, core_used: u32, gql_used: u32, reset: i64) -> Value {
    let entry = |used: u32, limit: u32, start: u32| {
        let remaining = start.saturating_sub(used);
        json!({"limit": limit, "remaining": remaining, "reset": reset, "used": limit - remaining})
    };
    let core = entry(core_used, limit, start);
    json!({
        "resources": {
            "core": core,
            "graphql": entry(gql_used, limit, start),
            "search": entry(0, 30, 30),
            "code_search": entry(0, 10, 10),
            "integration_manifest": entry(0, 5000, 5000),
        },
        "rate": core,
    })
}

/// The fields GitHub's `repository` and `full-repository` share.
fn repo_json(
    base: &str,
    owner: &User,
    name: &str,
    id: u64,
    private: bool,
    default_branch: &str,
    description: &str,
) -> Value {
    let full = format!("{}/{name}", owner.login);
    let api = format!("{base}/repos/{full}");
    let html = format!("{base}/{full}");
    let host = base.trim_start_matches("http://");
    json!({
        "id": id,
        "node_id": node_id("R", "Repository", id),
        "name": name,
        "full_name": full,
        "private": private,
        "owner": user_json(base, owner),
        "html_url": html,
        "description": if description.is_empty() { Value::Null } else { Value::from(description) },
        "fork": false,
        "url": api,
        "archive_url": format!("{api}/{{archive_format}}{{/ref}}"),
        "assignees_url": format!("{api}/assignees{{/user}}"),
        "blobs_url": format!("{api}/git/blobs{{/sha}}"),
        "branches_url": format!("{api}/branches{{/branch}}"),
        "collaborators_url": format!("{api}/collaborators{{/collaborator}}"),
        "comments_url": format!("{api}/comments{{/number}}"),
        "commits_url": format!("{api}/commits{{/sha}}"),
        "compare_url": format!("{api}/compare/{{base}}...{{head}}"),
        "contents_url": format!("{api}/contents/{{+path}}"),
        "contributors_url": format!("{api}/contributors"),
        "deployments_url": format!("{api}/deployments"),
        "downloads_url": format!("{api}/downloads"),
        "events_url": format!("{api}/events"),
        "forks_url": format!("{api}/forks"),
        "git_commits_url": format!("{api}/git/commits{{/sha}}"),
        "git_refs_url": format!("{api}/git/refs{{/sha}}"),
        "git_tags_url": format!("{api}/git/tags{{/sha}}"),
        "git_url": format!("git://{host}/{full}.git"),
        "issue_comment_url": format!("{api}/issues/comments{{/number}}"),
        "issue_events_url": format!("{api}/issues/events{{/number}}"),
        "issues_url": format!("{api}/issues{{/number}}"),
        "keys_url": format!("{api}/keys{{/key_id}}"),
        "labels_url": format!("{api}/labels{{/name}}"),
        "languages_url": format!("{api}/languages"),
        "merges_url": format!("{api}/merges"),
        "milestones_url": format!("{api}/milestones{{/number}}"),
        "notifications_url": format!("{api}/notifications{{?since,all,participating}}"),
        "pulls_url": format!("{api}/pulls{{/number}}"),
        "releases_url": format!("{api}/releases{{/id}}"),
        "ssh_url": format!("git@{host}:{full}.git"),
        "stargazers_url": format!("{api}/stargazers"),
        "statuses_url": format!("{api}/statuses/{{sha}}"),
        "subscribers_url": format!("{api}/subscribers"),
        "subscription_url": format!("{api}/subscription"),
        "tags_url": format!("{api}/tags"),
        "teams_url": format!("{api}/teams"),
        "trees_url": format!("{api}/git/trees{{/sha}}"),
        "clone_url": format!("{html}.git"),
        "mirror_url": null,
        "hooks_url": format!("{api}/hooks"),
        "svn_url": html,
        "homepage": null,
        "language": null,
        "forks_count": 0,
        "stargazers_count": 0,
        "watchers_count": 0,
        "size": 0,
        "default_branch": default_branch,
        "open_issues_count": 0,
        "is_template": false,
        "topics": [],
        "has_issues": true,
        "has_projects": true,
        "has_wiki": true,
        "has_pages": false,
        "has_downloads": true,
        "has_discussions": false,
        "archived": false,
        "disabled": false,
        "visibility": if private { "private" } else { "public" },
        "pushed_at": EPOCH,
        "created_at": EPOCH,
        "updated_at": EPOCH,
        "allow_forking": true,
        "web_commit_signoff_required": false,
        "license": null,
        "forks": 0,
        "open_issues": 0,
        "watchers": 0,
    })
}

pub(crate) fn scenario_repo_json(base: &str, world: &World, r: usize) -> Value {
    let repo = &world.repos[r];
    let owner = world.user_or_ghost(&repo.spec.owner);
    repo_json(
        base,
        &owner,
        &repo.spec.name,
        repo.id,
        repo.spec.private,
        &repo.spec.default_branch,
        &repo.spec.description,
    )
}

/// `GET /repos/{owner}/{repo}`: GitHub's `full-repository`.
fn full_repo_json(base: &str, world: &World, r: usize, caller: &Caller) -> Value {
    let mut v = scenario_repo_json(base, world, r);
    let push = caller.as_ref().is_some_and(|c| world.can_write(c));
    merge(
        &mut v,
        json!({
            "network_count": 0,
            "subscribers_count": 0,
            "permissions": {"admin": false, "maintain": push, "push": push, "triage": push, "pull": true},
            "allow_rebase_merge": true,
            "allow_squash_merge": true,
            "allow_merge_commit": true,
            "allow_auto_merge": false,
            "delete_branch_on_merge": false,
            "allow_update_branch": false,
        }),
    );
    v
}

/// The repository a branch of a pull request lives in: the scenario's, or a fork.
fn branch_repo_json(base: &str, world: &World, r: usize, fork: Option<&str>) -> Value {
    let Some(full) = fork else {
        return scenario_repo_json(base, world, r);
    };
    let (owner, name) = full.split_once('/').unwrap_or((full, full));
    match world.repo_index(owner, name) {
        Some(other) => scenario_repo_json(base, world, other),
        None => {
            let mut v = repo_json(
                base,
                &world.user_or_ghost(owner),
                name,
                900_000 + world.repos[r].id,
                false,
                "main",
                "",
            );
            v["fork"] = Value::Bool(true);
            v
        }
    }
}

pub(crate) fn author_association(world: &World, r: usize, login: &str) -> &'static str {
    if world.repos[r].spec.owner.eq_ignore_ascii_case(login) {
        "OWNER"
    } else if world
        .tokens
        .iter()
        .any(|t| t.login.eq_ignore_ascii_case(login) && world.can_write(t))
    {
        "COLLABORATOR"
    } else {
        "CONTRIBUTOR"
    }
}

/// `GET /repos/{owner}/{repo}/pulls/{n}`: GitHub's `pull-request`.
pub(crate) fn pull_json(base: &str, world: &World, r: usize, p: &PullSpec) -> Value {
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let api = format!("{base}/repos/{full}");
    let html = format!("{base}/{full}/pull/{}", p.number);
    let id = world.conversation_id(r, p.number);
    let author = world.user_or_ghost(&p.author);
    let PullTimes {
        created,
        updated,
        merged,
        closed_at,
    } = pull_times(p);
    let merged_at = merged.then(|| {
        p.merged_at
            .as_deref()
            .map(normalize_time)
            .unwrap_or_else(|| updated.clone())
    });
    let branch = |b: &crate::scenario::BranchSpec| {
        let repo = branch_repo_json(base, world, r, b.repo.as_deref());
        let owner_login = repo["owner"]["login"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        json!({
            "label": format!("{owner_login}:{}", b.ref_name),
            "ref": b.ref_name,
            "sha": b.sha,
            "user": repo["owner"].clone(),
            "repo": repo,
        })
    };
    let link = |href: String| json!({"href": href});
    let review_comments: usize = world
        .threads(r, p.number)
        .map(|(_, t)| t.comments.len())
        .sum();
    let mergeable_state = crate::readiness::mergeable_state(world, base, r, p, false);
    let (requested_reviewers, requested_teams) = crate::review_requests::github(base, world, p);
    json!({
        "url": format!("{api}/pulls/{}", p.number),
        "id": id,
        "node_id": node_id("PR", "PullRequest", id),
        "html_url": html,
        "diff_url": format!("{html}.diff"),
        "patch_url": format!("{html}.patch"),
        "issue_url": format!("{api}/issues/{}", p.number),
        "commits_url": format!("{api}/pulls/{}/commits", p.number),
        "review_comments_url": format!("{api}/pulls/{}/comments", p.number),
        "review_comment_url": format!("{api}/pulls/comments{{/number}}"),
        "comments_url": format!("{api}/issues/{}/comments", p.number),
        "statuses_url": format!("{api}/statuses/{}", p.head.sha),
        "number": p.number,
        "state": if p.state == PullState::Open { "open" } else { "closed" },
        "locked": false,
        "title": p.title,
        "user": user_json(base, &author),
        "body": if p.body.is_empty() { Value::Null } else { Value::from(p.body.as_str()) },
        "labels": p.labels.iter().enumerate().map(|(i, name)| label_json(&api, i, name)).collect::<Vec<_>>(),
        "milestone": null,
        "active_lock_reason": null,
        "created_at": created,
        "updated_at": updated,
        "closed_at": closed_at,
        "merged_at": merged_at,
        "merge_commit_sha": p.merge_commit_sha,
        "assignee": null,
        "assignees": [],
        "requested_reviewers": requested_reviewers,
        "requested_teams": requested_teams,
        "head": branch(&p.head),
        "base": branch(&p.base),
        "_links": {
            "self": link(format!("{api}/pulls/{}", p.number)),
            "html": link(html.clone()),
            "issue": link(format!("{api}/issues/{}", p.number)),
            "comments": link(format!("{api}/issues/{}/comments", p.number)),
            "review_comments": link(format!("{api}/pulls/{}/comments", p.number)),
            "review_comment": link(format!("{api}/pulls/comments{{/number}}")),
            "commits": link(format!("{api}/pulls/{}/commits", p.number)),
            "statuses": link(format!("{api}/statuses/{}", p.head.sha)),
        },
        "author_association": author_association(world, r, &p.author),
        "auto_merge": null,
        "draft": p.draft,
        "merged": merged,
        "mergeable": p.mergeable,
        "rebaseable": p.mergeable,
        "mergeable_state": mergeable_state,
        "merged_by": if merged { p.merged_by.as_deref().map(|l| user_json(base, &world.user_or_ghost(l))) } else { None },
        "comments": world.comments(r, p.number).len(),
        "review_comments": review_comments,
        "maintainer_can_modify": false,
        "commits": 1,
        "additions": 0,
        "deletions": 0,
        "changed_files": 0,
    })
}

/// GitHub's `issue-comment`.
pub(crate) fn comment_json(base: &str, world: &World, r: usize, number: u64, c: &Comment) -> Value {
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let api = format!("{base}/repos/{full}");
    let kind = match world.conversation(r, number) {
        Some(Conversation::Pull(_)) => "pull",
        _ => "issues",
    };
    json!({
        "id": c.id,
        "node_id": node_id("IC", "IssueComment", c.id),
        "url": format!("{api}/issues/comments/{}", c.id),
        "html_url": format!("{base}/{full}/{kind}/{number}#issuecomment-{}", c.id),
        "body": c.body,
        "user": user_json(base, &world.user_or_ghost(&c.author)),
        "created_at": c.created_at,
        "updated_at": c.updated_at,
        "issue_url": format!("{api}/issues/{number}"),
        "author_association": author_association(world, r, &c.author),
        "performed_via_github_app": null,
        "reactions": {
            "url": format!("{api}/issues/comments/{}/reactions", c.id),
            "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0,
            "confused": 0, "heart": 0, "rocket": 0, "eyes": 0,
        },
    })
}

/// A label as GitHub's REST API shows it; ids follow the label's place on the pull request.
pub(crate) fn label_json(api: &str, index: usize, name: &str) -> Value {
    let id = 9000 + index as u64;
    json!({
        "id": id,
        "node_id": format!("LA_{id}"),
        // A name is one path segment: GitHub percent-encodes spaces and the like.
        "url": format!("{api}/labels/{}", url::form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>().replace('+', "%20")),
        "name": name,
        "description": "",
        "color": "ededed",
        "default": false,
    })
}
