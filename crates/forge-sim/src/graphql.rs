//! GitHub's GraphQL endpoint: each document is validated against the vendored schema (an
//! invalid one is a contract violation), then executed by apollo-compiler's engine over
//! resolvers built from the scenario. Aliases, fragments, variables and `__typename` come
//! from the engine; this module only says what each field of each type resolves to.
//!
//! To serve a new field, add it to the type's JSON in `pull_request_fields` & co, or — for a
//! field with arguments such as a connection (`reviewThreads(first:, after:)`) — add an arm
//! to `Node::resolve_field` that reads `info.arguments()`.

#[path = "graphql_contents.rs"]
mod contents_fields;

use std::cell::{Ref, RefCell, RefMut};

use apollo_compiler::resolvers::{Execution, FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{JsonMap, JsonValue};
use serde_json::{Map, Value, json};

use crate::github::{author_association, node_id, user_type};
use crate::graphql_schema as contract;
use crate::scenario::{PullSpec, PullState, UserKind};
use crate::server::{Reply, Shared};
use crate::state::{
    Comment, Conversation, Review, ReviewComment, Thread, User, World, normalize_time,
};

/// When a review without a submission time was "created": a fixed instant keeps output stable.
const EPOCH: &str = "2020-01-01T00:00:00Z";

/// The caller's GraphQL rate limit before this query.
pub(crate) struct RateInfo {
    pub limit: u32,
    pub remaining: u32,
    pub reset_at: String,
    /// The caller's user id, for GitHub's rate-limit message.
    pub user_id: u64,
}

/// What a GraphQL request answered and the points it cost (0 when nothing ran).
pub(crate) struct Answer {
    pub reply: Reply,
    pub points: u32,
}

impl From<Reply> for Answer {
    fn from(reply: Reply) -> Self {
        Answer { reply, points: 0 }
    }
}

/// What resolvers read, plus the errors GitHub reports in its own shape (with `type`),
/// which the engine's `FieldError` cannot carry.
struct Ctx<'w> {
    /// Mutations write through it; no borrow is held across resolver calls. A trait object
    /// keeps `Ctx` covariant, which the resolvers' lifetimes need.
    world: &'w dyn WorldCell,
    can_write: bool,
    base: &'w str,
    login: &'w str,
    rate: RateInfo,
    /// The points this query costs (`rateLimit { cost }`).
    cost: u32,
    github_errors: RefCell<Vec<Value>>,
    /// Set by errors GitHub reports before executing (bad pagination arguments): the answer
    /// is then `data: null` with only those errors.
    fatal: RefCell<bool>,
    unsupported: RefCell<Vec<String>>,
    /// Whether each pull request's mergeability read in this request is still being
    /// computed (counted once per request, see `readiness`).
    lazy: RefCell<std::collections::HashMap<(usize, u64), bool>>,
}

pub(crate) fn execute(
    shared: &Shared,
    world: &mut World,
    can_write: bool,
    login: &str,
    mut rate: RateInfo,
    body: &[u8],
) -> Answer {
    let request: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => {
            return Reply::json(
                400,
                json!({"message": "Problems parsing JSON", "documentation_url": "https://docs.github.com/graphql"}),
            )
            .unchecked()
            .into();
        }
    };
    let Some(query) = request.get("query").and_then(Value::as_str) else {
        let errors =
            json!([{"message": "A query attribute must be specified and must be a string."}]);
        return Reply::json(200, json!({"errors": errors}))
            .unchecked()
            .into();
    };
    let document = match contract::parse_graphql(query) {
        Ok(doc) => doc,
        Err(problem) => {
            shared.violation(format!(
                "graphql: document does not validate against GitHub's schema: {problem}"
            ));
            let errors = contract::graphql_errors(query);
            return Reply::json(200, json!({"errors": errors}))
                .unchecked()
                .into();
        }
    };
    let Ok(schema) = contract::graphql_schema() else {
        return Reply::json(200, json!({"errors": [{"message": "schema unavailable"}]}))
            .unchecked()
            .into();
    };
    let variables: JsonMap = request
        .get("variables")
        .filter(|v| v.is_object())
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let operation_name = request.get("operationName").and_then(Value::as_str);

    // GitHub prices a query before running it, and refuses one the rest of the hour cannot
    // pay for: 200 with a RATE_LIMITED error, as its GraphQL API answers.
    let points = crate::graphql_cost::points(&document, operation_name, &variables);
    if points > rate.remaining {
        let errors = json!([{
            "type": "RATE_LIMITED",
            "message": format!("API rate limit exceeded for user ID {}.", rate.user_id),
        }]);
        return Reply::json(200, json!({"errors": errors}))
            .unchecked()
            .into();
    }
    rate.remaining -= points;

    let cell = RefCell::new(world);
    let ctx = Ctx {
        world: &cell,
        can_write,
        base: &shared.base_url,
        login,
        rate,
        cost: points,
        github_errors: RefCell::new(Vec::new()),
        fatal: RefCell::new(false),
        unsupported: RefCell::new(Vec::new()),
        lazy: RefCell::new(std::collections::HashMap::new()),
    };
    let root = Node::Query(&ctx);
    let result = Execution::new(schema, &document)
        .operation_name(operation_name)
        .and_then(|exec| exec.raw_variable_values(&variables).execute_sync(&root));
    let mut response = match result {
        Ok(resp) => serde_json::to_value(&resp).unwrap_or_else(|_| json!({})),
        Err(e) => json!({"errors": [{"message": e.message().to_string()}]}),
    };
    let extra = ctx.github_errors.take();
    if ctx.fatal.take() {
        response = json!({"data": null, "errors": extra});
    } else if !extra.is_empty() {
        let errors = response
            .as_object_mut()
            .map(|o| o.entry("errors").or_insert_with(|| json!([])));
        if let Some(Value::Array(list)) = errors {
            list.extend(extra);
        }
    }
    for field in ctx.unsupported.take() {
        shared.violation(format!(
            "graphql: forge-sim does not serve {field} yet (valid in GitHub's schema; add it in src/graphql.rs)"
        ));
    }
    Answer {
        reply: Reply::json(200, response).unchecked(),
        points,
    }
}

/// A GraphQL object during execution.
enum Node<'a> {
    Query(&'a Ctx<'a>),
    Repository {
        ctx: &'a Ctx<'a>,
        repo: usize,
        path: Vec<String>,
    },
    Pull {
        ctx: &'a Ctx<'a>,
        repo: usize,
        number: u64,
        path: Vec<String>,
    },
    Thread {
        ctx: &'a Ctx<'a>,
        repo: usize,
        index: usize,
    },
    /// A pull request's `statusCheckRollup`: its head commit's check runs and statuses.
    Rollup {
        ctx: &'a Ctx<'a>,
        repo: usize,
        number: u64,
        path: Vec<String>,
    },
    /// A commit of `object(expression:)`, for its `history` (see `graphql_contents.rs`).
    Commit {
        ctx: &'a Ctx<'a>,
        repo: usize,
        sha: String,
    },
    /// One page of a connection; `items` are the page's nodes.
    Connection {
        ctx: &'a Ctx<'a>,
        type_name: &'static str,
        total: usize,
        page: Page,
        items: Vec<Item>,
    },
    Edge {
        ctx: &'a Ctx<'a>,
        type_name: &'static str,
        cursor: String,
        item: Item,
    },
    /// A mutation payload whose `thread` is a live thread.
    Payload {
        ctx: &'a Ctx<'a>,
        type_name: &'static str,
        thread: Option<(usize, usize)>,
        fields: Map<String, Value>,
    },
    /// An object whose fields are plain data, keyed by GraphQL field name; nested objects
    /// carry their `__typename`.
    Json {
        ctx: &'a Ctx<'a>,
        type_name: String,
        fields: Map<String, Value>,
    },
}

impl<'a> Node<'a> {
    fn json(ctx: &'a Ctx<'a>, value: Value) -> Node<'a> {
        let mut fields = match value {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let type_name = match fields.remove("__typename") {
            Some(Value::String(t)) => t,
            _ => String::new(),
        };
        Node::Json {
            ctx,
            type_name,
            fields,
        }
    }

    fn ctx(&self) -> &'a Ctx<'a> {
        match self {
            Node::Query(ctx)
            | Node::Repository { ctx, .. }
            | Node::Pull { ctx, .. }
            | Node::Thread { ctx, .. }
            | Node::Rollup { ctx, .. }
            | Node::Commit { ctx, .. }
            | Node::Connection { ctx, .. }
            | Node::Edge { ctx, .. }
            | Node::Payload { ctx, .. }
            | Node::Json { ctx, .. } => ctx,
        }
    }
}

trait WorldCell {
    fn read(&self) -> Ref<'_, World>;
    fn write(&self) -> RefMut<'_, World>;
}

impl WorldCell for RefCell<&mut World> {
    fn read(&self) -> Ref<'_, World> {
        Ref::map(self.borrow(), |w| &**w)
    }

    fn write(&self) -> RefMut<'_, World> {
        RefMut::map(self.borrow_mut(), |w| &mut **w)
    }
}

impl Ctx<'_> {
    fn world(&self) -> Ref<'_, World> {
        self.world.read()
    }

    fn fatal_error(&self, kind: &str, path: Vec<String>, message: String) {
        self.fatal.replace(true);
        self.error(kind, path, message);
    }

    fn error(&self, kind: &str, path: Vec<String>, message: String) {
        self.github_errors
            .borrow_mut()
            .push(json!({"type": kind, "path": path, "message": message}));
    }
}

/// A node of a connection page.
#[derive(Clone)]
enum Item {
    Thread { repo: usize, index: usize },
    Json(Value),
}

impl Item {
    fn resolve<'a>(&self, ctx: &'a Ctx<'a>) -> ResolvedValue<'a> {
        match self {
            Item::Thread { repo, index } => ResolvedValue::object(Node::Thread {
                ctx,
                repo: *repo,
                index: *index,
            }),
            Item::Json(v) => from_json(ctx, v),
        }
    }
}

/// Where a page starts and whether more follow.
#[derive(Clone, Copy)]
struct Page {
    start: usize,
    end: usize,
    total: usize,
}

/// Connections page at most 100 items, like GitHub's.
const MAX_PAGE: i64 = 100;

fn cursor(index: usize) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(format!("cursor:v2:{index}"))
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    use base64::Engine;
    let raw = base64::engine::general_purpose::STANDARD
        .decode(cursor)
        .ok()?;
    String::from_utf8(raw)
        .ok()?
        .strip_prefix("cursor:v2:")?
        .parse()
        .ok()
}

/// Reads `first`/`after` the way GitHub checks them; `None` after reporting an error.
fn page_of(ctx: &Ctx<'_>, info: &ResolveInfo<'_>, path: Vec<String>, total: usize) -> Option<Page> {
    let args = info.arguments();
    let name = info.field_name();
    if args.get("last").is_some() || args.get("before").is_some() {
        ctx.unsupported
            .borrow_mut()
            .push(format!("{name}(last:/before:)"));
        return None;
    }
    let Some(first) = args.get("first").and_then(|v| v.as_i64()) else {
        ctx.fatal_error(
            "MISSING_PAGINATION_BOUNDARIES",
            path,
            format!("You must provide a `first` or `last` value to properly paginate the `{name}` connection."),
        );
        return None;
    };
    if !(0..=MAX_PAGE).contains(&first) {
        ctx.fatal_error(
            "EXCESSIVE_PAGINATION",
            path,
            format!("Requesting {first} records on the `{name}` connection exceeds the `first` limit of {MAX_PAGE} records."),
        );
        return None;
    }
    let start = match args.get("after").and_then(|v| v.as_str()) {
        Some(c) => match decode_cursor(c) {
            Some(i) => i + 1,
            None => {
                ctx.fatal_error(
                    "INVALID_CURSOR_ARGUMENTS",
                    path,
                    format!("`{c}` does not appear to be a valid cursor."),
                );
                return None;
            }
        },
        None => 0,
    };
    let start = start.min(total);
    let end = (start + first as usize).min(total);
    Some(Page { start, end, total })
}

fn connection<'a>(
    ctx: &'a Ctx<'a>,
    type_name: &'static str,
    page: Page,
    items: Vec<Item>,
) -> ResolvedValue<'a> {
    ResolvedValue::object(Node::Connection {
        ctx,
        type_name,
        total: page.total,
        page,
        items,
    })
}

fn key(info: &ResolveInfo<'_>) -> String {
    info.field_selections()
        .first()
        .map(|f| f.response_key().to_string())
        .unwrap_or_else(|| info.field_name().to_owned())
}

fn leaf<'a>(value: &Value) -> ResolvedValue<'a> {
    ResolvedValue::Leaf(
        serde_json::from_value::<JsonValue>(value.clone()).unwrap_or(JsonValue::Null),
    )
}

fn from_json<'a>(ctx: &'a Ctx<'a>, value: &Value) -> ResolvedValue<'a> {
    match value {
        Value::Object(m) if m.contains_key("__typename") => {
            ResolvedValue::object(Node::json(ctx, value.clone()))
        }
        Value::Array(items) => {
            let resolved: Vec<ResolvedValue<'a>> =
                items.iter().map(|v| from_json(ctx, v)).collect();
            ResolvedValue::list(resolved)
        }
        other => leaf(other),
    }
}

impl ObjectValue for Node<'_> {
    fn type_name(&self) -> &str {
        match self {
            Node::Query(_) => "Query",
            Node::Repository { .. } => "Repository",
            Node::Pull { .. } => "PullRequest",
            Node::Thread { .. } => "PullRequestReviewThread",
            Node::Rollup { .. } => "StatusCheckRollup",
            Node::Commit { .. } => "Commit",
            Node::Connection { type_name, .. }
            | Node::Edge { type_name, .. }
            | Node::Payload { type_name, .. } => type_name,
            Node::Json { type_name, .. } => type_name,
        }
    }

    fn resolve_field<'b>(
        &'b self,
        info: &'b ResolveInfo<'b>,
    ) -> Result<ResolvedValue<'b>, FieldError> {
        let ctx = self.ctx();
        let args = info.arguments();
        let arg_str = |name: &str| {
            args.get(name)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned()
        };
        match (self, info.field_name()) {
            (Node::Query(_), "viewer") => {
                let user = ctx.world().user_or_ghost(ctx.login);
                Ok(ResolvedValue::object(Node::json(
                    ctx,
                    actor_json(ctx.base, &user),
                )))
            }
            (Node::Query(_), "rateLimit") => Ok(ResolvedValue::object(Node::json(
                ctx,
                json!({
                    "__typename": "RateLimit",
                    "limit": ctx.rate.limit,
                    "remaining": ctx.rate.remaining,
                    "resetAt": ctx.rate.reset_at,
                    "cost": ctx.cost,
                    "used": ctx.rate.limit.saturating_sub(ctx.rate.remaining),
                    "nodeCount": 1,
                }),
            ))),
            (Node::Query(_), "repository") => {
                let (owner, name) = (arg_str("owner"), arg_str("name"));
                let path = vec![key(info)];
                let visible = {
                    let world = ctx.world();
                    world
                        .repo_index(&owner, &name)
                        .filter(|&r| world.repo_visible_to(r, Some(ctx.login)))
                };
                match visible {
                    Some(repo) => Ok(ResolvedValue::object(Node::Repository { ctx, repo, path })),
                    None => {
                        ctx.github_errors.borrow_mut().push(json!({
                            "type": "NOT_FOUND",
                            "path": path,
                            "message": format!("Could not resolve to a Repository with the name '{owner}/{name}'."),
                        }));
                        Ok(ResolvedValue::null())
                    }
                }
            }
            (Node::Repository { repo, path, .. }, "pullRequest") => {
                let number = args.get("number").and_then(|v| v.as_i64()).unwrap_or(0);
                let is_pull = u64::try_from(number).ok().filter(|&n| {
                    matches!(
                        ctx.world().conversation(*repo, n),
                        Some(Conversation::Pull(_))
                    )
                });
                match is_pull {
                    Some(n) => {
                        let mut full = path.clone();
                        full.push(key(info));
                        Ok(ResolvedValue::object(Node::Pull {
                            ctx,
                            repo: *repo,
                            number: n,
                            path: full,
                        }))
                    }
                    _ => {
                        let mut full = path.clone();
                        full.push(key(info));
                        ctx.github_errors.borrow_mut().push(json!({
                            "type": "NOT_FOUND",
                            "path": full,
                            "message": format!("Could not resolve to a PullRequest with the number of {number}."),
                        }));
                        Ok(ResolvedValue::null())
                    }
                }
            }
            (Node::Repository { repo, .. }, "object") => {
                Ok(contents_fields::object(ctx, info, *repo))
            }
            (Node::Repository { repo, path, .. }, "pullRequests") => {
                contents_fields::pull_requests(ctx, info, *repo, path)
            }
            (Node::Commit { repo, sha, .. }, _) => {
                contents_fields::commit_field(ctx, info, *repo, sha)
            }
            (Node::Query(_), "node") => {
                let id = arg_str("id");
                Ok(resolve_node(ctx, &id, vec![key(info)]))
            }
            (Node::Query(_), "nodes") => {
                let ids: Vec<String> = args
                    .get("ids")
                    .and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                let k = key(info);
                let list: Vec<ResolvedValue<'b>> = ids
                    .iter()
                    .enumerate()
                    .map(|(i, id)| resolve_node(ctx, id, vec![k.clone(), i.to_string()]))
                    .collect();
                Ok(ResolvedValue::list(list))
            }
            (Node::Query(_), "resolveReviewThread" | "unresolveReviewThread") => {
                let resolve = info.field_name() == "resolveReviewThread";
                Ok(resolve_mutation(ctx, info, resolve))
            }
            (Node::Query(_), "addPullRequestReviewThreadReply") => Ok(reply_mutation(ctx, info)),
            (
                Node::Pull {
                    repo, number, path, ..
                },
                "reviewThreads",
            ) => {
                let threads: Vec<usize> = ctx
                    .world()
                    .threads(*repo, *number)
                    .map(|(i, _)| i)
                    .collect();
                let mut full = path.clone();
                full.push(key(info));
                match page_of(ctx, info, full, threads.len()) {
                    Some(page) => {
                        let items = threads[page.start..page.end]
                            .iter()
                            .map(|&index| Item::Thread { repo: *repo, index })
                            .collect();
                        Ok(connection(
                            ctx,
                            "PullRequestReviewThreadConnection",
                            page,
                            items,
                        ))
                    }
                    None => Ok(ResolvedValue::null()),
                }
            }
            (
                Node::Pull {
                    repo, number, path, ..
                },
                "statusCheckRollup",
            ) => {
                let mut full = path.clone();
                full.push(key(info));
                Ok(ResolvedValue::object(Node::Rollup {
                    ctx,
                    repo: *repo,
                    number: *number,
                    path: full,
                }))
            }
            (
                Node::Rollup {
                    repo, number, path, ..
                },
                "contexts",
            ) => {
                let contexts =
                    crate::readiness::rollup_contexts(&ctx.world(), ctx.base, *repo, *number);
                let mut full = path.clone();
                full.push(key(info));
                match page_of(ctx, info, full, contexts.len()) {
                    Some(page) => {
                        let items = contexts[page.start..page.end]
                            .iter()
                            .cloned()
                            .map(Item::Json)
                            .collect();
                        Ok(connection(
                            ctx,
                            "StatusCheckRollupContextConnection",
                            page,
                            items,
                        ))
                    }
                    None => Ok(ResolvedValue::null()),
                }
            }
            (
                Node::Pull {
                    repo, number, path, ..
                },
                "reviews" | "comments",
            ) => {
                let reviews = info.field_name() == "reviews";
                let items: Vec<Value> = {
                    let world = ctx.world();
                    if reviews {
                        // `states:` filters; the pending review of someone else is never shown.
                        let states: Option<Vec<String>> =
                            args.get("states").and_then(|v| v.as_array()).map(|a| {
                                a.iter()
                                    .filter_map(|s| s.as_str().map(str::to_owned))
                                    .collect()
                            });
                        world
                            .reviews(*repo, *number)
                            .filter(|rv| states.as_ref().is_none_or(|s| s.contains(&rv.state)))
                            .map(|rv| review_fields(ctx, &world, *repo, rv))
                            .collect()
                    } else {
                        world
                            .comments(*repo, *number)
                            .iter()
                            .map(|c| issue_comment_fields(ctx, &world, *repo, *number, c))
                            .collect()
                    }
                };
                let mut full = path.clone();
                full.push(key(info));
                let type_name = if reviews {
                    "PullRequestReviewConnection"
                } else {
                    "IssueCommentConnection"
                };
                match page_of(ctx, info, full, items.len()) {
                    Some(page) => {
                        let nodes = items[page.start..page.end]
                            .iter()
                            .cloned()
                            .map(Item::Json)
                            .collect();
                        Ok(connection(ctx, type_name, page, nodes))
                    }
                    None => Ok(ResolvedValue::null()),
                }
            }
            (
                Node::Pull {
                    repo, number, path, ..
                },
                "timelineItems",
            ) => {
                // Only force-pushes are simulated: a query for other item types is refused.
                let types: Vec<String> = args
                    .get("itemTypes")
                    .and_then(|v| v.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|t| t.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                if types.is_empty() || types.iter().any(|t| t != "HEAD_REF_FORCE_PUSHED_EVENT") {
                    return Err(unsupported(
                        ctx,
                        "PullRequest",
                        "timelineItems(itemTypes: other than HEAD_REF_FORCE_PUSHED_EVENT)",
                    ));
                }
                let events: Vec<Value> = {
                    let world = ctx.world();
                    match world.conversation(*repo, *number) {
                        Some(Conversation::Pull(p)) => force_push_events(ctx, &world, *repo, p),
                        _ => Vec::new(),
                    }
                };
                let mut full = path.clone();
                full.push(key(info));
                match page_of(ctx, info, full, events.len()) {
                    Some(page) => {
                        let items = events[page.start..page.end]
                            .iter()
                            .cloned()
                            .map(Item::Json)
                            .collect();
                        Ok(connection(
                            ctx,
                            "PullRequestTimelineItemsConnection",
                            page,
                            items,
                        ))
                    }
                    None => Ok(ResolvedValue::null()),
                }
            }
            (Node::Rollup { .. }, field) => Err(unsupported(ctx, "StatusCheckRollup", field)),
            (
                Node::Pull {
                    repo, number, path, ..
                },
                "latestOpinionatedReviews" | "reviewRequests" | "baseRef",
            ) => Ok(readiness_field(ctx, info, *repo, *number, path)),
            (Node::Pull { repo, number, .. }, field) => {
                let lazy = matches!(field, "mergeable" | "mergeStateStatus")
                    && pull_lazy(ctx, *repo, *number);
                let world = ctx.world();
                let fields = match world.conversation(*repo, *number) {
                    Some(Conversation::Pull(p)) => {
                        let mut fields = pull_request_fields(ctx, &world, *repo, p);
                        let merge = crate::readiness::pull_fields(
                            &world, ctx.base, *repo, p, lazy, ctx.login,
                        );
                        for (name, value) in merge {
                            fields[name] = value;
                        }
                        fields
                    }
                    _ => json!({}),
                };
                drop(world);
                match fields.get(field) {
                    Some(v) => Ok(from_json(ctx, v)),
                    None => Err(unsupported(ctx, "PullRequest", field)),
                }
            }
            (Node::Thread { repo, index, .. }, "comments") => {
                let ids: Vec<Value> = {
                    let world = ctx.world();
                    let t = &world.repos[*repo].threads[*index];
                    t.comments
                        .iter()
                        .map(|c| comment_fields(ctx, &world, *repo, t, c))
                        .collect()
                };
                let path = vec![key(info)];
                match page_of(ctx, info, path, ids.len()) {
                    Some(page) => {
                        let items = ids[page.start..page.end]
                            .iter()
                            .cloned()
                            .map(Item::Json)
                            .collect();
                        Ok(connection(
                            ctx,
                            "PullRequestReviewCommentConnection",
                            page,
                            items,
                        ))
                    }
                    None => Ok(ResolvedValue::null()),
                }
            }
            (Node::Thread { repo, index, .. }, field) => {
                let fields = {
                    let world = ctx.world();
                    thread_fields(ctx, &world, *repo, *index)
                };
                match fields.get(field) {
                    Some(v) => Ok(from_json(ctx, v)),
                    None => Err(unsupported(ctx, "PullRequestReviewThread", field)),
                }
            }
            (
                Node::Connection {
                    total,
                    page,
                    items,
                    type_name,
                    ..
                },
                field,
            ) => match field {
                "totalCount" => Ok(leaf(&Value::from(*total))),
                "nodes" => Ok(ResolvedValue::list(
                    items.iter().map(|i| i.resolve(ctx)).collect::<Vec<_>>(),
                )),
                "edges" => {
                    let edge_type = match *type_name {
                        "PullRequestReviewThreadConnection" => "PullRequestReviewThreadEdge",
                        "PullRequestReviewConnection" => "PullRequestReviewEdge",
                        "IssueCommentConnection" => "IssueCommentEdge",
                        _ => "PullRequestReviewCommentEdge",
                    };
                    Ok(ResolvedValue::list(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| {
                                ResolvedValue::object(Node::Edge {
                                    ctx,
                                    type_name: edge_type,
                                    cursor: cursor(page.start + i),
                                    item: item.clone(),
                                })
                            })
                            .collect::<Vec<_>>(),
                    ))
                }
                "pageInfo" => {
                    let has = page.end > page.start;
                    Ok(from_json(
                        ctx,
                        &json!({
                            "__typename": "PageInfo",
                            "hasNextPage": page.end < page.total,
                            "hasPreviousPage": page.start > 0,
                            "startCursor": if has { Some(cursor(page.start)) } else { None },
                            "endCursor": if has { Some(cursor(page.end - 1)) } else { None },
                        }),
                    ))
                }
                other => Err(unsupported(ctx, type_name, other)),
            },
            (Node::Edge { cursor, .. }, "cursor") => Ok(leaf(&Value::from(cursor.as_str()))),
            (Node::Edge { item, .. }, "node") => Ok(item.resolve(ctx)),
            (Node::Edge { type_name, .. }, other) => Err(unsupported(ctx, type_name, other)),
            (
                Node::Payload {
                    thread,
                    fields,
                    type_name,
                    ..
                },
                field,
            ) => match (field, thread) {
                ("thread", Some((repo, index))) => Ok(ResolvedValue::object(Node::Thread {
                    ctx,
                    repo: *repo,
                    index: *index,
                })),
                _ => match fields.get(field) {
                    Some(v) => Ok(from_json(ctx, v)),
                    None => Err(unsupported(ctx, type_name, field)),
                },
            },
            (Node::Repository { repo, .. }, "viewerPermission") => Ok(from_json(
                ctx,
                &crate::readiness::viewer_permission_json(&ctx.world(), *repo, ctx.login),
            )),
            (Node::Repository { repo, .. }, field) => {
                let fields = repository_fields(ctx, *repo);
                match fields.get(field) {
                    Some(v) => Ok(from_json(ctx, v)),
                    None => Err(unsupported(ctx, "Repository", field)),
                }
            }
            (
                Node::Json {
                    type_name, fields, ..
                },
                field,
            ) => match fields.get(field) {
                Some(v) => Ok(from_json(ctx, v)),
                None => Err(unsupported(ctx, type_name, field)),
            },
            (Node::Query(_), field) => Err(unsupported(ctx, "Query", field)),
        }
    }
}

/// The pull request's force-pushes as GitHub's `HeadRefForcePushedEvent`s, oldest first.
fn force_push_events(ctx: &Ctx<'_>, world: &World, r: usize, p: &PullSpec) -> Vec<Value> {
    let id = world.conversation_id(r, p.number);
    p.force_pushes
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let actor = world.user_or_ghost(f.actor.as_deref().unwrap_or(&p.author));
            let commit = |oid: &str| json!({"__typename": "Commit", "oid": oid});
            json!({
                "__typename": "HeadRefForcePushedEvent",
                "id": crate::github::node_id("HRFPE", "HeadRefForcePushedEvent", id * 1000 + i as u64),
                "createdAt": normalize_time(f.created_at.as_deref().unwrap_or(&p.created_at)),
                "actor": actor_json(ctx.base, &actor),
                "beforeCommit": commit(&f.before),
                "afterCommit": commit(&f.after),
            })
        })
        .collect()
}

/// Whether the pull request's mergeability is still being computed for this request.
fn pull_lazy(ctx: &Ctx<'_>, repo: usize, number: u64) -> bool {
    if let Some(&lazy) = ctx.lazy.borrow().get(&(repo, number)) {
        return lazy;
    }
    let lazy = crate::readiness::read_mergeable(&mut ctx.world.write(), repo, number);
    ctx.lazy.borrow_mut().insert((repo, number), lazy);
    lazy
}

/// The pull request's merge fields with arguments or errors: `latestOpinionatedReviews`,
/// `reviewRequests` (connections) and `baseRef` (whose `refUpdateRule` is FORBIDDEN with
/// `branch_protection_forbidden`).
fn readiness_field<'a>(
    ctx: &'a Ctx<'a>,
    info: &ResolveInfo<'_>,
    repo: usize,
    number: u64,
    path: &[String],
) -> ResolvedValue<'a> {
    let mut full = path.to_vec();
    full.push(key(info));
    let world = ctx.world();
    let Some(Conversation::Pull(p)) = world.conversation(repo, number) else {
        return ResolvedValue::null();
    };
    let (type_name, items) = match info.field_name() {
        "latestOpinionatedReviews" => {
            let writers_only = info
                .arguments()
                .get("writersOnly")
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            (
                "PullRequestReviewConnection",
                crate::readiness::latest_reviews_json(&world, ctx.base, repo, number, writers_only),
            )
        }
        "reviewRequests" => (
            "ReviewRequestConnection",
            crate::readiness::review_requests_json(&world, ctx.base, p),
        ),
        _ => {
            let (value, forbidden) = crate::readiness::base_ref_json(&world, repo, p, ctx.login);
            for name in forbidden {
                let field = info
                    .field_selections()
                    .first()
                    .and_then(|f| f.selection_set.fields().find(|f| f.name == name));
                if let Some(field) = field {
                    let mut at = full.clone();
                    at.push(field.response_key().to_string());
                    ctx.error(
                        "FORBIDDEN",
                        at,
                        "Resource not accessible by personal access token".to_owned(),
                    );
                }
            }
            return from_json(ctx, &value);
        }
    };
    drop(world);
    match page_of(ctx, info, full, items.len()) {
        Some(page) => {
            let nodes = items[page.start..page.end]
                .iter()
                .cloned()
                .map(Item::Json)
                .collect();
            connection(ctx, type_name, page, nodes)
        }
        None => ResolvedValue::null(),
    }
}

fn unsupported(ctx: &Ctx<'_>, type_name: &str, field: &str) -> FieldError {
    ctx.unsupported
        .borrow_mut()
        .push(format!("{type_name}.{field}"));
    FieldError {
        message: format!("forge-sim does not serve {type_name}.{field}"),
    }
}

/// A user as GraphQL's `Actor`: `User`, or `Bot` whose login drops REST's `[bot]` suffix.
pub(crate) fn actor_json(base: &str, u: &User) -> Value {
    let (type_name, login) = match u.kind {
        UserKind::Bot => ("Bot", u.login.trim_end_matches("[bot]")),
        UserKind::Organization => ("Organization", u.login.as_str()),
        UserKind::User => ("User", u.login.as_str()),
    };
    json!({
        "__typename": type_name,
        "id": node_id(if u.kind == UserKind::Bot { "BOT" } else { "U" }, user_type(u.kind), u.id),
        "databaseId": u.id,
        "login": login,
        "name": u.name,
        "url": format!("{base}/{}", actor_path(u)),
        "resourcePath": format!("/{}", actor_path(u)),
        "avatarUrl": format!("https://avatars.githubusercontent.com/u/{}?v=4", u.id),
    })
}

/// A bot's page is its app's; others live at `/login`.
fn actor_path(u: &User) -> String {
    match u.kind {
        UserKind::Bot => format!("apps/{}", u.login.trim_end_matches("[bot]")),
        _ => u.login.clone(),
    }
}

fn repository_fields(ctx: &Ctx<'_>, r: usize) -> Map<String, Value> {
    repository_fields_in(ctx, &ctx.world(), r)
}

fn repository_fields_in(ctx: &Ctx<'_>, world: &World, r: usize) -> Map<String, Value> {
    let repo = &world.repos[r];
    let owner = world.user_or_ghost(&repo.spec.owner);
    let mut owner_json = actor_json(ctx.base, &owner);
    if owner_json["__typename"] == "Bot" {
        owner_json["__typename"] = Value::from("User");
    }
    let fields = json!({
        "id": node_id("R", "Repository", repo.id),
        "databaseId": repo.id,
        "name": repo.spec.name,
        "nameWithOwner": format!("{}/{}", repo.spec.owner, repo.spec.name),
        "owner": owner_json,
        "isPrivate": repo.spec.private,
        "visibility": if repo.spec.private { "PRIVATE" } else { "PUBLIC" },
        "url": format!("{}/{}/{}", ctx.base, repo.spec.owner, repo.spec.name),
        "description": if repo.spec.description.is_empty() { Value::Null } else { Value::from(repo.spec.description.as_str()) },
        "defaultBranchRef": {"__typename": "Ref", "name": repo.spec.default_branch, "prefix": "refs/heads/"},
    });
    match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn pull_request_fields(ctx: &Ctx<'_>, world: &World, r: usize, p: &PullSpec) -> Value {
    let spec = &world.repos[r].spec;
    let id = world.conversation_id(r, p.number);
    let created = normalize_time(&p.created_at);
    let updated = p
        .updated_at
        .as_deref()
        .map(normalize_time)
        .unwrap_or_else(|| created.clone());
    let url = format!(
        "{}/{}/{}/pull/{}",
        ctx.base, spec.owner, spec.name, p.number
    );
    let mergeable = match p.mergeable {
        Some(true) => "MERGEABLE",
        Some(false) => "CONFLICTING",
        None => "UNKNOWN",
    };
    json!({
        "__typename": "PullRequest",
        "id": node_id("PR", "PullRequest", id),
        "databaseId": id,
        "number": p.number,
        "title": p.title,
        "body": p.body,
        "labels": {
            "__typename": "LabelConnection",
            "totalCount": p.labels.len(),
            "pageInfo": {"__typename": "PageInfo", "hasNextPage": false, "hasPreviousPage": false, "startCursor": null, "endCursor": null},
            "nodes": p.labels.iter().map(|name| json!({"__typename": "Label", "name": name})).collect::<Vec<_>>(),
        },
        "state": match p.state { PullState::Open => "OPEN", PullState::Closed => "CLOSED", PullState::Merged => "MERGED" },
        "isDraft": p.draft,
        "closed": p.state != PullState::Open,
        "merged": p.state == PullState::Merged,
        "mergeable": mergeable,
        "url": url,
        "permalink": url,
        "headRefName": p.head.ref_name,
        "headRefOid": p.head.sha,
        "baseRefName": p.base.ref_name,
        "baseRefOid": p.base.sha,
        "createdAt": created,
        "updatedAt": updated,
        "mergedAt": p.merged_at.as_deref().map(normalize_time),
        "mergeCommit": match (&p.state, &p.merge_commit_sha) {
            (PullState::Merged, Some(oid)) => json!({"__typename": "Commit", "oid": oid}),
            _ => Value::Null,
        },
        "baseRepository": branch_repository_json(ctx, world, r, p.base.repo.as_deref()),
        "headRepository": branch_repository_json(ctx, world, r, p.head.repo.as_deref()),
        "closedAt": p.closed_at.as_deref().map(normalize_time),
        "author": actor_json(ctx.base, &world.user_or_ghost(&p.author)),
        "repository": repository_json(ctx, world, r),
    })
}

/// The check runs and commit statuses of a pull request's head commit, each with
/// `isRequired`: whether a branch rule of its base (ruleset or classic protection, which
/// GraphQL answers from whatever the token can read) names it.
fn branch_repository_json(ctx: &Ctx<'_>, world: &World, r: usize, fork: Option<&str>) -> Value {
    let Some(full) = fork else {
        return repository_json(ctx, world, r);
    };
    let (owner, name) = full.split_once('/').unwrap_or((full, full));
    if let Some(other) = world.repo_index(owner, name) {
        return repository_json(ctx, world, other);
    }
    let id = 900_000 + world.repos[r].id;
    json!({
        "__typename": "Repository",
        "id": node_id("R", "Repository", id),
        "databaseId": id,
        "name": name,
        "nameWithOwner": full,
        "owner": actor_json(ctx.base, &world.user_or_ghost(owner)),
        "isPrivate": false,
        "visibility": "PUBLIC",
        "url": format!("{}/{full}", ctx.base),
        "description": null,
    })
}

fn repository_json(ctx: &Ctx<'_>, world: &World, r: usize) -> Value {
    let mut repo = Value::Object(repository_fields_in(ctx, world, r));
    repo["__typename"] = Value::from("Repository");
    repo
}

/// `node(id:)`: review threads and review comments; anything else is GitHub's NOT_FOUND.
fn resolve_node<'a>(ctx: &'a Ctx<'a>, id: &str, path: Vec<String>) -> ResolvedValue<'a> {
    let world = ctx.world();
    if let Some((repo, index)) = world.thread_by_node_id(id) {
        return ResolvedValue::object(Node::Thread { ctx, repo, index });
    }
    for (r, repo) in world.repos.iter().enumerate() {
        for t in &repo.threads {
            if let Some(c) = t.comments.iter().find(|c| comment_node_id(c) == id) {
                let v = comment_fields(ctx, &world, r, t, c);
                return ResolvedValue::object(Node::json(ctx, v));
            }
        }
    }
    drop(world);
    ctx.error(
        "NOT_FOUND",
        path,
        format!("Could not resolve to a node with the global id of '{id}'"),
    );
    ResolvedValue::null()
}

fn input_str(info: &ResolveInfo<'_>, name: &str) -> String {
    info.arguments()
        .get("input")
        .and_then(|i| i.as_object())
        .and_then(|i| i.get(name))
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned()
}

fn client_mutation_id(info: &ResolveInfo<'_>) -> Value {
    let id = input_str(info, "clientMutationId");
    if id.is_empty() {
        Value::Null
    } else {
        Value::from(id)
    }
}

/// The thread a mutation names, or GitHub's errors: NOT_FOUND, then FORBIDDEN for a token
/// that cannot write.
fn mutation_target(ctx: &Ctx<'_>, info: &ResolveInfo<'_>, arg: &str) -> Option<(usize, usize)> {
    let id = input_str(info, arg);
    let path = vec![key(info)];
    let Some(found) = ctx.world().thread_by_node_id(&id) else {
        ctx.error(
            "NOT_FOUND",
            path,
            format!("Could not resolve to a node with the global id of '{id}'"),
        );
        return None;
    };
    if !ctx.can_write {
        ctx.error(
            "FORBIDDEN",
            path,
            "Resource not accessible by personal access token".to_owned(),
        );
        return None;
    }
    Some(found)
}

fn resolve_mutation<'a>(
    ctx: &'a Ctx<'a>,
    info: &ResolveInfo<'_>,
    resolve: bool,
) -> ResolvedValue<'a> {
    let Some((repo, index)) = mutation_target(ctx, info, "threadId") else {
        return ResolvedValue::null();
    };
    let resolver = resolve.then_some(ctx.login);
    ctx.world.write().set_resolved(repo, index, None, resolver);
    let type_name = if resolve {
        "ResolveReviewThreadPayload"
    } else {
        "UnresolveReviewThreadPayload"
    };
    let mut fields = Map::new();
    fields.insert("clientMutationId".to_owned(), client_mutation_id(info));
    ResolvedValue::object(Node::Payload {
        ctx,
        type_name,
        thread: Some((repo, index)),
        fields,
    })
}

fn reply_mutation<'a>(ctx: &'a Ctx<'a>, info: &ResolveInfo<'_>) -> ResolvedValue<'a> {
    let Some((repo, index)) = mutation_target(ctx, info, "pullRequestReviewThreadId") else {
        return ResolvedValue::null();
    };
    let body = input_str(info, "body");
    if body.trim().is_empty() {
        ctx.error(
            "UNPROCESSABLE",
            vec![key(info)],
            "Body can't be blank".to_owned(),
        );
        return ResolvedValue::null();
    }
    let added = ctx.world.write().add_reply(repo, index, ctx.login, &body);
    let Some(comment) = added else {
        return ResolvedValue::null();
    };
    let world = ctx.world();
    let t = &world.repos[repo].threads[index];
    let mut fields = Map::new();
    fields.insert(
        "comment".to_owned(),
        comment_fields(ctx, &world, repo, t, &comment),
    );
    fields.insert("clientMutationId".to_owned(), client_mutation_id(info));
    ResolvedValue::object(Node::Payload {
        ctx,
        type_name: "AddPullRequestReviewThreadReplyPayload",
        thread: None,
        fields,
    })
}

/// A review as GitHub's `PullRequestReview`, with the same ids and URLs as its REST form.
fn review_fields(ctx: &Ctx<'_>, world: &World, r: usize, rv: &Review) -> Value {
    let spec = &world.repos[r].spec;
    let url = format!(
        "{}/{}/{}/pull/{}#pullrequestreview-{}",
        ctx.base, spec.owner, spec.name, rv.pull, rv.id
    );
    // A deleted account is a null author in GraphQL.
    let author = match rv.author.as_str() {
        "" => Value::Null,
        login => actor_json(ctx.base, &world.user_or_ghost(login)),
    };
    let at = rv.submitted_at.clone().map_or(Value::Null, Value::from);
    json!({
        "__typename": "PullRequestReview",
        "id": node_id("PRR", "PullRequestReview", rv.id),
        "databaseId": rv.id,
        "fullDatabaseId": rv.id.to_string(),
        "body": rv.body,
        "bodyText": rv.body,
        "state": rv.state,
        "submittedAt": at,
        "publishedAt": at,
        "createdAt": rv.submitted_at.clone().unwrap_or_else(|| EPOCH.to_owned()),
        "updatedAt": rv.submitted_at.clone().unwrap_or_else(|| EPOCH.to_owned()),
        "url": url,
        "author": author,
        "authorAssociation": author_association(world, r, &rv.author),
        "commit": {"__typename": "Commit", "oid": rv.commit_id},
        "isMinimized": rv.minimized.is_some(),
        "minimizedReason": rv.minimized,
    })
}

/// A conversation comment as GitHub's `IssueComment`, with the same ids and URLs as REST.
fn issue_comment_fields(ctx: &Ctx<'_>, world: &World, r: usize, number: u64, c: &Comment) -> Value {
    let spec = &world.repos[r].spec;
    let url = format!(
        "{}/{}/{}/pull/{number}#issuecomment-{}",
        ctx.base, spec.owner, spec.name, c.id
    );
    json!({
        "__typename": "IssueComment",
        "id": node_id("IC", "IssueComment", c.id),
        "databaseId": c.id,
        "fullDatabaseId": c.id.to_string(),
        "body": c.body,
        "bodyText": c.body,
        "createdAt": c.created_at,
        "updatedAt": c.updated_at,
        "publishedAt": c.created_at,
        "url": url,
        "author": actor_json(ctx.base, &world.user_or_ghost(&c.author)),
        "authorAssociation": author_association(world, r, &c.author),
        "isMinimized": c.minimized.is_some(),
        "minimizedReason": c.minimized,
    })
}

fn comment_node_id(c: &ReviewComment) -> String {
    node_id("PRRC", "PullRequestReviewComment", c.id)
}

/// A thread's fields other than `comments`.
fn thread_fields(ctx: &Ctx<'_>, world: &World, r: usize, index: usize) -> Map<String, Value> {
    let t = &world.repos[r].threads[index];
    let resolved = t.is_resolved();
    let resolved_by = match t.resolved_by() {
        Some(Some(login)) => {
            let mut u = actor_json(ctx.base, &world.user_or_ghost(login));
            // `resolvedBy` is a `User`.
            u["__typename"] = Value::from("User");
            u
        }
        _ => Value::Null,
    };
    let live = |v: Option<u64>| if t.outdated { None } else { v };
    let pull = match world.conversation(r, t.pull) {
        Some(Conversation::Pull(p)) => pull_request_fields(ctx, world, r, p),
        _ => Value::Null,
    };
    let fields = json!({
        "id": t.node_id,
        "isResolved": resolved,
        "isOutdated": t.outdated,
        "isCollapsed": resolved,
        "path": t.path,
        "line": live(t.line),
        "startLine": live(t.start_line),
        "originalLine": t.line,
        "originalStartLine": t.start_line,
        "diffSide": t.side,
        "startDiffSide": t.start_line.map(|_| t.side),
        "subjectType": if t.file_level { "FILE" } else { "LINE" },
        "viewerCanResolve": ctx.can_write && !resolved,
        "viewerCanUnresolve": ctx.can_write && resolved,
        "viewerCanReply": ctx.can_write,
        "resolvedBy": resolved_by,
        "pullRequest": pull,
        "repository": repository_json(ctx, world, r),
    });
    match fields {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// GitHub's `ReactionContent` values with their REST names, in GitHub's order.
const REACTION_CONTENT: [(&str, &str); 8] = [
    ("THUMBS_UP", "+1"),
    ("THUMBS_DOWN", "-1"),
    ("LAUGH", "laugh"),
    ("HOORAY", "hooray"),
    ("CONFUSED", "confused"),
    ("HEART", "heart"),
    ("ROCKET", "rocket"),
    ("EYES", "eyes"),
];

fn comment_fields(ctx: &Ctx<'_>, world: &World, r: usize, t: &Thread, c: &ReviewComment) -> Value {
    let spec = &world.repos[r].spec;
    let url = format!(
        "{}/{}/{}/pull/{}#discussion_r{}",
        ctx.base, spec.owner, spec.name, t.pull, c.id
    );
    let author = match &c.author {
        Some(login) => actor_json(ctx.base, &world.user_or_ghost(login)),
        None => Value::Null,
    };
    let first = t.comments.first();
    let reply_to = match first {
        Some(f) if f.id != c.id => json!({
            "__typename": "PullRequestReviewComment",
            "id": comment_node_id(f),
            "databaseId": f.id,
        }),
        _ => Value::Null,
    };
    let groups: Vec<Value> = REACTION_CONTENT
        .iter()
        .map(|(content, rest)| {
            let n = c.reactions.get(*rest).copied().unwrap_or(0);
            json!({
                "__typename": "ReactionGroup",
                "content": content,
                "reactors": {"__typename": "ReactorConnection", "totalCount": n},
                "users": {"__typename": "ReactingUserConnection", "totalCount": n},
                "viewerHasReacted": false,
            })
        })
        .collect();
    let review_state = world.repos[r]
        .reviews
        .iter()
        .find(|rv| rv.id == c.review_id)
        .map(|rv| rv.state.clone())
        .unwrap_or_else(|| "COMMENTED".to_owned());
    let commit = |oid: &str| json!({"__typename": "Commit", "oid": oid, "abbreviatedOid": oid.chars().take(7).collect::<String>()});
    let live = |v: Option<u64>| if t.outdated { None } else { v };
    json!({
        "__typename": "PullRequestReviewComment",
        "id": comment_node_id(c),
        "databaseId": c.id,
        "fullDatabaseId": c.id.to_string(),
        "body": c.body,
        "bodyText": c.body,
        "createdAt": c.created_at,
        "updatedAt": c.updated_at,
        "publishedAt": c.created_at,
        "url": url,
        "diffHunk": c.diff_hunk,
        "authorAssociation": c.author.as_deref().map(|a| author_association(world, r, a)).unwrap_or("NONE"),
        "author": author,
        "commit": commit(if t.outdated { &t.original_commit_id } else { &t.commit_id }),
        "originalCommit": commit(&t.original_commit_id),
        "replyTo": reply_to,
        "path": t.path,
        "line": live(t.line),
        "startLine": live(t.start_line),
        "originalLine": t.line,
        "originalStartLine": t.start_line,
        "outdated": t.outdated,
        "isMinimized": c.minimized.is_some(),
        "minimizedReason": c.minimized,
        "state": "SUBMITTED",
        "subjectType": if t.file_level { "FILE" } else { "LINE" },
        "viewerCanEdit": ctx.can_write && c.author.as_deref() == Some(ctx.login),
        "viewerCanReact": ctx.can_write,
        "reactionGroups": groups,
        "pullRequestReview": {
            "__typename": "PullRequestReview",
            "id": node_id("PRR", "PullRequestReview", c.review_id),
            "databaseId": c.review_id,
            "state": review_state,
        },
    })
}
