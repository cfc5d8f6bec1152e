//! GitHub's GraphQL endpoint: each document is validated against the vendored schema (an
//! invalid one is a contract violation), then executed by apollo-compiler's engine over
//! resolvers built from the scenario. Aliases, fragments, variables and `__typename` come
//! from the engine; this module only says what each field of each type resolves to.
//!
//! To serve a new field, add it to the type's JSON in `pull_request_fields` & co, or — for a
//! field with arguments such as a connection (`reviewThreads(first:, after:)`) — add an arm
//! to `Node::resolve_field` that reads `info.arguments()`.

use std::cell::RefCell;

use apollo_compiler::resolvers::{Execution, FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{JsonMap, JsonValue};
use serde_json::{Map, Value, json};

use crate::contract;
use crate::github::{node_id, user_type};
use crate::scenario::{PullSpec, PullState, UserKind};
use crate::server::{Reply, Shared};
use crate::state::{Conversation, User, World, normalize_time};

/// The caller's GraphQL rate limit after this query.
pub(crate) struct RateInfo {
    pub limit: u32,
    pub remaining: u32,
    pub reset_at: String,
}

/// What resolvers read, plus the errors GitHub reports in its own shape (with `type`),
/// which the engine's `FieldError` cannot carry.
struct Ctx<'w> {
    world: &'w World,
    base: &'w str,
    login: &'w str,
    rate: RateInfo,
    github_errors: RefCell<Vec<Value>>,
    unsupported: RefCell<Vec<String>>,
}

pub(crate) fn execute(
    shared: &Shared,
    world: &World,
    login: &str,
    rate: RateInfo,
    body: &[u8],
) -> Reply {
    let request: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => {
            return Reply::json(
                400,
                json!({"message": "Problems parsing JSON", "documentation_url": "https://docs.github.com/graphql"}),
            )
            .unchecked();
        }
    };
    let Some(query) = request.get("query").and_then(Value::as_str) else {
        let errors =
            json!([{"message": "A query attribute must be specified and must be a string."}]);
        return Reply::json(200, json!({"errors": errors})).unchecked();
    };
    let document = match contract::parse_graphql(query) {
        Ok(doc) => doc,
        Err(problem) => {
            shared.violation(format!(
                "graphql: document does not validate against GitHub's schema: {problem}"
            ));
            let errors = contract::graphql_errors(query);
            return Reply::json(200, json!({"errors": errors})).unchecked();
        }
    };
    let Ok(schema) = contract::graphql_schema() else {
        return Reply::json(200, json!({"errors": [{"message": "schema unavailable"}]}))
            .unchecked();
    };
    let variables: JsonMap = request
        .get("variables")
        .filter(|v| v.is_object())
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let operation_name = request.get("operationName").and_then(Value::as_str);

    let ctx = Ctx {
        world,
        base: &shared.base_url,
        login,
        rate,
        github_errors: RefCell::new(Vec::new()),
        unsupported: RefCell::new(Vec::new()),
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
    if !extra.is_empty() {
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
    Reply::json(200, response).unchecked()
}

/// A GraphQL object during execution.
enum Node<'a> {
    Query(&'a Ctx<'a>),
    Repository {
        ctx: &'a Ctx<'a>,
        repo: usize,
        path: Vec<String>,
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
            Node::Query(ctx) | Node::Repository { ctx, .. } | Node::Json { ctx, .. } => ctx,
        }
    }
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
                let user = ctx.world.user_or_ghost(ctx.login);
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
                    "cost": 1,
                    "used": ctx.rate.limit.saturating_sub(ctx.rate.remaining),
                    "nodeCount": 1,
                }),
            ))),
            (Node::Query(_), "repository") => {
                let (owner, name) = (arg_str("owner"), arg_str("name"));
                let path = vec![key(info)];
                let visible = ctx.world.repo_index(&owner, &name);
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
                match u64::try_from(number)
                    .ok()
                    .and_then(|n| ctx.world.conversation(*repo, n))
                {
                    Some(Conversation::Pull(p)) => Ok(ResolvedValue::object(Node::json(
                        ctx,
                        pull_request_fields(ctx, *repo, p),
                    ))),
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

fn unsupported(ctx: &Ctx<'_>, type_name: &str, field: &str) -> FieldError {
    ctx.unsupported
        .borrow_mut()
        .push(format!("{type_name}.{field}"));
    FieldError {
        message: format!("forge-sim does not serve {type_name}.{field}"),
    }
}

/// A user as GraphQL's `Actor`: `User`, or `Bot` whose login drops REST's `[bot]` suffix.
fn actor_json(base: &str, u: &User) -> Value {
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
    let repo = &ctx.world.repos[r];
    let owner = ctx.world.user_or_ghost(&repo.spec.owner);
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

fn pull_request_fields(ctx: &Ctx<'_>, r: usize, p: &PullSpec) -> Value {
    let world = ctx.world;
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
        "closedAt": p.closed_at.as_deref().map(normalize_time),
        "author": actor_json(ctx.base, &world.user_or_ghost(&p.author)),
    })
}
