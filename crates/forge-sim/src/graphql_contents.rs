//! GraphQL over repository contents (a child of `graphql`): `Repository.object(expression:)`
//! as a `Blob` (`rev:path`), `Tree` or `Commit` (`rev`), `Commit.history(first:, after:,
//! path:)`, and `Repository.pullRequests(states:, orderBy:, first:, after:)` whose pull
//! requests carry `files(first:)`.

use super::*;
use crate::contents::{self, CommitSpec};

/// GitHub gives a blob's `text` whole only up to a size and sets `isTruncated` past it; the
/// simulator cuts at 512 KiB.
const TEXT_LIMIT: usize = 512 * 1024;

/// `Repository.object(expression:)`: `null` for an expression that names nothing, as GitHub.
pub(super) fn object<'a>(
    ctx: &'a Ctx<'a>,
    info: &ResolveInfo<'_>,
    repo: usize,
) -> ResolvedValue<'a> {
    let expression = info
        .arguments()
        .get("expression")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_owned();
    let world = ctx.world();
    let (rev, path) = match expression.split_once(':') {
        Some((rev, path)) => (rev, Some(path)),
        None => (expression.as_str(), None),
    };
    let Some(sha) = contents::resolve_rev(&world, repo, rev) else {
        return ResolvedValue::null();
    };
    let spec = &world.repos[repo].spec;
    let Some(path) = path else {
        drop(world);
        return ResolvedValue::object(Node::Commit { ctx, repo, sha });
    };
    let Some(tree) = contents::tree(spec, &sha) else {
        return ResolvedValue::null();
    };
    let value = match tree.get(path) {
        Some(blob) => {
            let (text, truncated) = match blob.text() {
                Some(t) if t.len() > TEXT_LIMIT => {
                    let mut end = TEXT_LIMIT;
                    while !t.is_char_boundary(end) {
                        end -= 1;
                    }
                    (Value::from(&t[..end]), true)
                }
                Some(t) => (Value::from(t), false),
                None => (Value::Null, false),
            };
            let oid = blob.oid();
            json!({
                "__typename": "Blob",
                "oid": oid,
                "abbreviatedOid": &oid[..7],
                "byteSize": blob.bytes.len(),
                "isBinary": blob.binary,
                "isTruncated": truncated,
                "text": text,
            })
        }
        None if tree.keys().any(|k| {
            k.strip_prefix(path)
                .is_some_and(|r| r.starts_with('/') || path.is_empty())
        }) =>
        {
            json!({"__typename": "Tree", "oid": contents::fake_sha(path.as_bytes())})
        }
        None => return ResolvedValue::null(),
    };
    drop(world);
    from_json(ctx, &value)
}

fn commit_json(ctx: &Ctx<'_>, world: &World, k: &CommitSpec) -> Value {
    let (name, user) = contents::author_of(world, k);
    let date = normalize_time(&k.authored_at);
    let headline = k.message.lines().next().unwrap_or("").to_owned();
    json!({
        "__typename": "Commit",
        "oid": k.sha,
        "abbreviatedOid": k.sha.chars().take(7).collect::<String>(),
        "message": k.message,
        "messageHeadline": headline,
        "authoredDate": date,
        "committedDate": date,
        "author": {
            "__typename": "GitActor",
            "name": name,
            "email": user.as_ref().and_then(|u| u.email.clone()),
            "date": date,
            // `GitActor.user` is a `User`: a bot's commit has none, as on GitHub.
            "user": user
                .as_ref()
                .filter(|u| u.kind == crate::scenario::UserKind::User)
                .map(|u| actor_json(ctx.base, u)),
        },
    })
}

/// A field of `Commit`: `history(first:, after:, path:)` pages the commits that changed
/// `path` (every commit without one), newest first; other fields from the scenario.
pub(super) fn commit_field<'a>(
    ctx: &'a Ctx<'a>,
    info: &ResolveInfo<'_>,
    repo: usize,
    sha: &str,
) -> Result<ResolvedValue<'a>, FieldError> {
    let world = ctx.world();
    let spec = &world.repos[repo].spec;
    if info.field_name() == "history" {
        let args = info.arguments();
        for unserved in ["author", "since", "until"] {
            if args.get(unserved).is_some() {
                drop(world);
                return Err(unsupported(ctx, "Commit", &format!("history({unserved}:)")));
            }
        }
        let path = args.get("path").and_then(|v| v.as_str());
        let commits: Vec<Value> = contents::history(spec, sha, path)
            .into_iter()
            .map(|k| commit_json(ctx, &world, k))
            .collect();
        drop(world);
        return Ok(match page_of(ctx, info, vec![key(info)], commits.len()) {
            Some(page) => {
                let items = commits[page.start..page.end]
                    .iter()
                    .cloned()
                    .map(Item::Json)
                    .collect();
                connection(ctx, "CommitHistoryConnection", page, items)
            }
            None => ResolvedValue::null(),
        });
    }
    let fields = match contents::history(spec, sha, None)
        .into_iter()
        .find(|k| k.sha == sha)
    {
        Some(k) => commit_json(ctx, &world, k),
        None => json!({"oid": sha}),
    };
    drop(world);
    match fields.get(info.field_name()) {
        Some(v) => Ok(from_json(ctx, v)),
        None => Err(unsupported(ctx, "Commit", info.field_name())),
    }
}

/// `Repository.pullRequests(states:, orderBy:, first:, after:)`: ordered by
/// `CREATED_AT` (default, ascending as GitHub's default) or `UPDATED_AT`; each pull request's
/// `files(first:)` lists at most its first 100 paths.
pub(super) fn pull_requests<'a>(
    ctx: &'a Ctx<'a>,
    info: &ResolveInfo<'_>,
    repo: usize,
    path: &[String],
) -> Result<ResolvedValue<'a>, FieldError> {
    let args = info.arguments();
    for unserved in ["baseRefName", "headRefName", "labels", "last", "before"] {
        if args.get(unserved).is_some() {
            return Err(unsupported(
                ctx,
                "Repository",
                &format!("pullRequests({unserved}:)"),
            ));
        }
    }
    let states: Option<Vec<String>> = args.get("states").and_then(|v| v.as_array()).map(|a| {
        a.iter()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect()
    });
    let order = args.get("orderBy").and_then(|v| v.as_object());
    let field = order
        .and_then(|o| o.get("field"))
        .and_then(|v| v.as_str())
        .unwrap_or("CREATED_AT")
        .to_owned();
    let descending = order
        .and_then(|o| o.get("direction"))
        .and_then(|v| v.as_str())
        == Some("DESC");
    let items: Vec<Value> = {
        let world = ctx.world();
        let spec = &world.repos[repo].spec;
        let mut pulls: Vec<&PullSpec> = spec
            .pulls
            .iter()
            .filter(|p| {
                let state = match p.state {
                    PullState::Open => "OPEN",
                    PullState::Closed => "CLOSED",
                    PullState::Merged => "MERGED",
                };
                states.as_ref().is_none_or(|s| s.iter().any(|x| x == state))
            })
            .collect();
        let sort_key = |p: &PullSpec| {
            let times = crate::state::pull_times(p);
            match field.as_str() {
                "UPDATED_AT" => (times.updated, p.number),
                _ => (times.created, p.number),
            }
        };
        pulls.sort_by_key(|p| sort_key(p));
        if descending {
            pulls.reverse();
        }
        pulls
            .into_iter()
            .map(|p| {
                let mut fields = pull_request_fields(ctx, &world, repo, p);
                let changes = contents::pull_changes(spec, p);
                let total = changes.len();
                let nodes: Vec<Value> = changes
                    .iter()
                    .take(100)
                    .map(|c| {
                        json!({
                            "__typename": "PullRequestChangedFile",
                            "path": c.path,
                            "additions": c.additions,
                            "deletions": c.deletions,
                        })
                    })
                    .collect();
                fields["files"] = json!({
                    "__typename": "PullRequestChangedFileConnection",
                    "totalCount": total,
                    "nodes": nodes,
                    "pageInfo": {"__typename": "PageInfo", "hasNextPage": total > 100},
                });
                fields
            })
            .collect()
    };
    let mut full = path.to_vec();
    full.push(key(info));
    Ok(match page_of(ctx, info, full, items.len()) {
        Some(page) => {
            let nodes = items[page.start..page.end]
                .iter()
                .cloned()
                .map(Item::Json)
                .collect();
            connection(ctx, "PullRequestConnection", page, nodes)
        }
        None => ResolvedValue::null(),
    })
}
