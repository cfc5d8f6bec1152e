//! What a merge needs on the simulated GitHub: the merge rules of a branch (rulesets through
//! `GET /repos/{o}/{r}/rules/branches/{branch}`, classic protection through GraphQL
//! `Ref.refUpdateRule`), `compare/{base}...{head}`, a mergeability GitHub computes lazily, and
//! GitHub's derived `reviewDecision` and `mergeStateStatus` (see this crate's
//! ARCHITECTURE.md, "Merge readiness", for the rules of the derivation).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::scenario::{BranchProtectionSpec, Permission, PullSpec, PullState};
use crate::server::Reply;
use crate::state::World;

/// The ruleset id rules get when the scenario names none.
const DEFAULT_RULESET_ID: u64 = 42;

/// What a pull request's merge depends on beyond its reviews, threads and checks (the
/// scenario's `readiness:` on a pull).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadinessSpec {
    /// GitHub is still computing mergeability for this many reads of the pull request (REST
    /// `GET …/pulls/{n}` or a GraphQL request reading `mergeable`/`mergeStateStatus`):
    /// `null`/`UNKNOWN`/`unknown` until then.
    #[serde(default)]
    pub mergeable_after_reads: u32,
    /// Reviews requested and not given yet: logins (a bot's with `[bot]`, typed from
    /// `users`), or teams as `org/team`.
    #[serde(default)]
    pub review_requests: Vec<String>,
    /// The logins that own the changed files: a code-owner review rule is met by an approval
    /// of one of them.
    #[serde(default)]
    pub code_owners: Vec<String>,
    /// How many commits of the base branch the head lacks (`compare`'s `behind_by`).
    #[serde(default)]
    pub behind_by: u64,
    /// How many commits the head has that the base lacks (default 1).
    #[serde(default)]
    pub ahead_by: Option<u64>,
    /// GraphQL `reviewDecision` as stated (`APPROVED`, `CHANGES_REQUESTED`,
    /// `REVIEW_REQUIRED`); unset: derived.
    #[serde(default)]
    pub review_decision: Option<String>,
    #[serde(default)]
    pub in_merge_queue: bool,
    /// Auto-merge enabled with this method (`MERGE`, `SQUASH`, `REBASE`).
    #[serde(default)]
    pub auto_merge: Option<String>,
    /// The caller may merge whatever the rules say (`viewerCanMergeAsAdmin`).
    #[serde(default)]
    pub viewer_can_merge_as_admin: bool,
}

/// A branch protection's merge rules beside its required checks (`rules:` on a
/// `branch_protections` entry): a ruleset's rules, or with `classic: true` classic
/// protection's settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MergeRulesSpec {
    /// The ruleset's id (default 42); rulesets only.
    #[serde(default)]
    pub ruleset_id: Option<u64>,
    #[serde(default)]
    pub required_approvals: u32,
    #[serde(default)]
    pub code_owner_review: bool,
    #[serde(default)]
    pub conversation_resolution: bool,
    /// Rulesets only: approvals given before the last push do not count.
    #[serde(default)]
    pub dismiss_stale_reviews: bool,
    /// Required checks must have run on the latest base (`strict`).
    #[serde(default)]
    pub strict: bool,
    #[serde(default)]
    pub linear_history: bool,
    #[serde(default)]
    pub signed_commits: bool,
    /// Rulesets only.
    #[serde(default)]
    pub merge_queue: bool,
    /// Classic only: the rules bind admins too (`isAdminEnforced`, REST `enforce_admins`).
    /// Unset, an admin is not bound: `refUpdateRule` (the rules "enforced on the viewer")
    /// shows an admin none of them, and `viewerCanMergeAsAdmin` is true for them.
    #[serde(default)]
    pub enforce_admins: bool,
    /// Rulesets only: who may bypass the ruleset, logins or `admin` (the repository admin
    /// role). `rules/branches` still lists its rules to them (they bind everyone else);
    /// `viewerCanMergeAsAdmin` is true for them.
    #[serde(default)]
    pub bypass_actors: Vec<String>,
}

/// Reads of each pull request's mergeability, by (repository, number).
#[derive(Debug, Default)]
pub(crate) struct ReadinessState {
    mergeable_reads: HashMap<(usize, u64), u32>,
}

/// Counts one read of a pull request's mergeability and says whether GitHub is still
/// computing it for this read.
pub(crate) fn read_mergeable(world: &mut World, r: usize, number: u64) -> bool {
    let after = world.repos[r]
        .spec
        .pulls
        .iter()
        .find(|p| p.number == number)
        .map(|p| p.readiness.mergeable_after_reads)
        .unwrap_or(0);
    let reads = world
        .readiness
        .mergeable_reads
        .entry((r, number))
        .or_insert(0);
    *reads += 1;
    *reads <= after
}

/// A pull request's REST JSON while GitHub is still computing its mergeability.
pub(crate) fn still_computing(pull: &mut Value) {
    pull["mergeable"] = Value::Null;
    pull["rebaseable"] = Value::Null;
    pull["mergeable_state"] = Value::from("unknown");
}

/// A path segment with its `%XX` escapes decoded (branch names in URLs).
fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The branch protections of `branch`.
fn protections<'w>(
    world: &'w World,
    r: usize,
    branch: &'w str,
) -> impl Iterator<Item = &'w BranchProtectionSpec> {
    world.repos[r]
        .spec
        .branch_protections
        .iter()
        .filter(move |b| b.branch == branch)
}

/// The strictest of every source, as GitHub enforces them together.
#[derive(Debug, Default)]
struct Effective {
    required_checks: Vec<String>,
    approvals: u32,
    code_owner_review: bool,
    conversation_resolution: bool,
    dismiss_stale: bool,
    strict: bool,
}

fn effective(world: &World, r: usize, branch: &str) -> Effective {
    let mut e = Effective::default();
    for b in protections(world, r, branch) {
        for c in &b.required_checks {
            if !e.required_checks.contains(c) {
                e.required_checks.push(c.clone());
            }
        }
        e.approvals = e.approvals.max(b.rules.required_approvals);
        e.code_owner_review |= b.rules.code_owner_review;
        e.conversation_resolution |= b.rules.conversation_resolution;
        e.dismiss_stale |= b.rules.dismiss_stale_reviews && !b.classic;
        e.strict |= b.rules.strict;
    }
    e
}

/// How a check stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Passed,
    Failed,
    Pending,
}

/// The head's check runs and latest statuses as GraphQL's rollup nodes, with their outcome.
fn contexts(world: &World, base: &str, r: usize, number: u64) -> Vec<(Value, Outcome)> {
    let spec = &world.repos[r].spec;
    let Some(pull) = spec.pulls.iter().find(|p| p.number == number) else {
        return Vec::new();
    };
    let required = effective(world, r, &pull.base.ref_name).required_checks;
    let full = format!("{}/{}", spec.owner, spec.name);
    let seen = world.listings(r, &pull.head.sha);
    let runs = crate::ci::check_runs(world, r);
    let mut out = Vec::new();
    for c in runs
        .iter()
        .filter(|c| c.pull.number == number && c.sha == pull.head.sha)
    {
        let rest = crate::ci::check_run_json(base, world, r, &full, c, seen);
        let status = rest["status"].as_str().unwrap_or("completed").to_owned();
        let conclusion = rest["conclusion"].as_str().map(str::to_owned);
        let outcome = match (status.as_str(), conclusion.as_deref()) {
            ("completed", Some("success" | "neutral" | "skipped")) => Outcome::Passed,
            ("completed", _) => Outcome::Failed,
            _ => Outcome::Pending,
        };
        out.push((
            json!({
                "__typename": "CheckRun",
                "id": crate::github::node_id("CR", "CheckRun", c.id),
                "databaseId": c.id,
                "name": c.spec.name,
                "status": status.to_ascii_uppercase(),
                "conclusion": conclusion.map(|s| s.to_ascii_uppercase()),
                "detailsUrl": rest["details_url"],
                "isRequired": required.contains(&c.spec.name),
            }),
            outcome,
        ));
    }
    let mut seen_contexts = std::collections::HashSet::new();
    // The newest status of each context: the scenario lists them oldest first.
    for s in pull.statuses.iter().rev() {
        if !seen_contexts.insert(&s.context) {
            continue;
        }
        let outcome = match s.state.as_str() {
            "success" => Outcome::Passed,
            "failure" | "error" => Outcome::Failed,
            _ => Outcome::Pending,
        };
        out.push((
            json!({
                "__typename": "StatusContext",
                "context": s.context,
                "state": s.state.to_ascii_uppercase(),
                "targetUrl": s.target_url.as_deref().map(|u| u.replace("{base}", base)),
                "description": s.description,
                "isRequired": required.contains(&s.context),
            }),
            outcome,
        ));
    }
    out
}

/// `statusCheckRollup.contexts` nodes.
pub(crate) fn rollup_contexts(world: &World, base: &str, r: usize, number: u64) -> Vec<Value> {
    contexts(world, base, r, number)
        .into_iter()
        .map(|(v, _)| v)
        .collect()
}

/// Whether `login` has write access: the scenario's writers are its write tokens' users and
/// the repository's owner.
fn is_writer(world: &World, r: usize, login: &str) -> bool {
    world.repos[r].spec.owner == login
        || world
            .tokens
            .iter()
            .any(|t| t.login == login && t.permission.can_push())
        || !world.tokens.iter().any(|t| t.login == login)
}

/// The latest opinionated review (approved, changes requested; a later dismissal withdraws
/// it) of each reviewer, in the order they were given. `writers_only` drops reviewers with
/// read access only (a login with only a read token).
fn latest_opinionated(
    world: &World,
    r: usize,
    number: u64,
    writers_only: bool,
) -> Vec<crate::state::Review> {
    let mut latest: Vec<crate::state::Review> = Vec::new();
    for rv in world.reviews(r, number) {
        if !matches!(
            rv.state.as_str(),
            "APPROVED" | "CHANGES_REQUESTED" | "DISMISSED"
        ) {
            continue;
        }
        latest.retain(|l| l.author != rv.author);
        if rv.state != "DISMISSED" {
            latest.push(rv.clone());
        }
    }
    latest.retain(|rv| !writers_only || is_writer(world, r, &rv.author));
    latest
}

/// `latestOpinionatedReviews` nodes.
#[cfg(feature = "graphql")]
pub(crate) fn latest_reviews_json(
    world: &World,
    base: &str,
    r: usize,
    number: u64,
    writers_only: bool,
) -> Vec<Value> {
    latest_opinionated(world, r, number, writers_only)
        .iter()
        .map(|rv| {
            let user = world.user_or_ghost(&rv.author);
            json!({
                "__typename": "PullRequestReview",
                "id": crate::github::node_id("PRR", "PullRequestReview", rv.id),
                "fullDatabaseId": rv.id.to_string(),
                "state": rv.state,
                "submittedAt": rv.submitted_at.as_deref().map(crate::state::normalize_time),
                "author": crate::graphql::actor_json(base, &user),
                "commit": {"__typename": "Commit", "oid": rv.commit_id},
            })
        })
        .collect()
}

/// `reviewRequests` nodes: a `ReviewRequest` per requested user, bot or team.
#[cfg(feature = "graphql")]
pub(crate) fn review_requests_json(world: &World, base: &str, p: &PullSpec) -> Vec<Value> {
    p.readiness
        .review_requests
        .iter()
        .enumerate()
        .map(|(i, who)| {
            let reviewer = match who.split_once('/') {
                Some((org, slug)) => json!({
                    "__typename": "Team",
                    "name": slug,
                    "slug": slug,
                    "combinedSlug": who,
                    "organization": {"__typename": "Organization", "login": org},
                }),
                None => crate::graphql::actor_json(base, &world.user_or_ghost(who)),
            };
            json!({
                "__typename": "ReviewRequest",
                "id": crate::github::node_id("RR", "ReviewRequest", p.number * 1000 + i as u64),
                "asCodeOwner": false,
                "requestedReviewer": reviewer,
            })
        })
        .collect()
}

/// GraphQL `reviewDecision`: the scenario's, else as GitHub derives it: null when no rule
/// requires reviews; CHANGES_REQUESTED when a writer's latest opinionated review requests
/// changes; APPROVED when enough approvals count (on the head commit when stale approvals
/// are dismissed) and, under a code-owner rule, one is a code owner's; else REVIEW_REQUIRED.
pub(crate) fn review_decision(world: &World, r: usize, p: &PullSpec) -> Option<String> {
    if let Some(stated) = &p.readiness.review_decision {
        return Some(stated.clone());
    }
    let rules = effective(world, r, &p.base.ref_name);
    if rules.approvals == 0 && !rules.code_owner_review {
        return None;
    }
    let latest = latest_opinionated(world, r, p.number, true);
    if latest.iter().any(|rv| rv.state == "CHANGES_REQUESTED") {
        return Some("CHANGES_REQUESTED".to_owned());
    }
    let approvals: Vec<&crate::state::Review> = latest
        .iter()
        .filter(|rv| rv.state == "APPROVED")
        .filter(|rv| !rules.dismiss_stale || rv.commit_id == p.head.sha)
        .collect();
    let owners_ok = !rules.code_owner_review
        || approvals
            .iter()
            .any(|rv| p.readiness.code_owners.contains(&rv.author));
    let enough = approvals.len() as u32 >= rules.approvals.max(1);
    let decision = if enough && owners_ok {
        "APPROVED"
    } else {
        "REVIEW_REQUIRED"
    };
    Some(decision.to_owned())
}

/// GitHub's `mergeable_state` (lower case; GraphQL's `mergeStateStatus` in upper case): the
/// scenario's, else derived for an open pull request in this order: UNKNOWN while computing,
/// DIRTY on conflicts, BLOCKED for a draft, BEHIND when strict checks and behind, BLOCKED
/// when a required check has not passed, reviews are not approved or a required
/// conversation is unresolved, UNSTABLE when another check failed, else CLEAN. A closed or
/// merged one keeps the plain reading of `mergeable` (clean, dirty, unknown).
pub(crate) fn mergeable_state(
    world: &World,
    base: &str,
    r: usize,
    p: &PullSpec,
    lazy: bool,
) -> String {
    if let Some(state) = &p.mergeable_state {
        return state.clone();
    }
    let plain = match p.mergeable {
        Some(true) => "clean",
        Some(false) => "dirty",
        None => "unknown",
    };
    if p.state != PullState::Open {
        return plain.to_owned();
    }
    if lazy || p.mergeable != Some(true) {
        return if lazy { "unknown" } else { plain }.to_owned();
    }
    if p.draft {
        return "blocked".to_owned();
    }
    let rules = effective(world, r, &p.base.ref_name);
    let checks = contexts(world, base, r, p.number);
    let passed = |name: &str| {
        checks
            .iter()
            .any(|(v, o)| *o == Outcome::Passed && (v["name"] == name || v["context"] == name))
    };
    let required_missing = rules.required_checks.iter().any(|c| !passed(c));
    let reviews_missing = matches!(
        review_decision(world, r, p).as_deref(),
        Some("REVIEW_REQUIRED" | "CHANGES_REQUESTED")
    );
    let unresolved =
        rules.conversation_resolution && world.threads(r, p.number).any(|(_, t)| !t.is_resolved());
    if required_missing || reviews_missing || unresolved {
        // Updating the branch alone would not let it merge: BLOCKED, also when behind.
        return "blocked".to_owned();
    }
    if rules.strict && p.readiness.behind_by > 0 {
        return "behind".to_owned();
    }
    if checks.iter().any(|(_, o)| *o == Outcome::Failed) {
        return "unstable".to_owned();
    }
    "clean".to_owned()
}

/// The pull request's GraphQL fields about its merge, for `pull_request_fields`.
/// The caller's permission on the repository: its token's (`None` without one).
pub(crate) fn viewer_permission(world: &World, r: usize, login: &str) -> Option<Permission> {
    if world.repos[r].spec.owner == login {
        return Some(Permission::Admin);
    }
    world
        .tokens
        .iter()
        .find(|t| t.login == login)
        .map(|t| t.permission)
}

/// GraphQL `viewerPermission`: ADMIN, WRITE or READ.
pub(crate) fn viewer_permission_json(world: &World, r: usize, login: &str) -> Value {
    match viewer_permission(world, r, login) {
        Some(Permission::Admin) => Value::from("ADMIN"),
        Some(Permission::Write) => Value::from("WRITE"),
        Some(Permission::Read) => Value::from("READ"),
        None => Value::Null,
    }
}

/// `viewerCanMergeAsAdmin`: the scenario's, or derived: an admin not bound by a classic
/// protection of the base (not enforced on admins), or a bypass actor of a ruleset of it.
fn viewer_can_bypass(world: &World, r: usize, p: &PullSpec, login: &str) -> bool {
    let admin = viewer_permission(world, r, login) == Some(Permission::Admin);
    p.readiness.viewer_can_merge_as_admin
        || protections(world, r, &p.base.ref_name).any(|b| {
            if b.classic {
                admin && !b.rules.enforce_admins
            } else {
                b.rules
                    .bypass_actors
                    .iter()
                    .any(|a| a == login || (a == "admin" && admin))
            }
        })
}

pub(crate) fn pull_fields(
    world: &World,
    base: &str,
    r: usize,
    p: &PullSpec,
    lazy: bool,
    login: &str,
) -> Vec<(&'static str, Value)> {
    let mergeable = match (lazy, p.mergeable) {
        (true, _) | (_, None) => "UNKNOWN",
        (_, Some(true)) => "MERGEABLE",
        (_, Some(false)) => "CONFLICTING",
    };
    vec![
        ("mergeable", Value::from(mergeable)),
        (
            "mergeStateStatus",
            Value::from(mergeable_state(world, base, r, p, lazy).to_ascii_uppercase()),
        ),
        ("reviewDecision", json!(review_decision(world, r, p))),
        ("isInMergeQueue", Value::from(p.readiness.in_merge_queue)),
        (
            "viewerCanMergeAsAdmin",
            Value::from(viewer_can_bypass(world, r, p, login)),
        ),
        (
            "autoMergeRequest",
            match &p.readiness.auto_merge {
                Some(method) => json!({
                    "__typename": "AutoMergeRequest",
                    "mergeMethod": method.to_ascii_uppercase(),
                }),
                None => Value::Null,
            },
        ),
    ]
}

/// GraphQL `baseRef` with the base branch's classic protection, as the caller may see it:
/// - `refUpdateRule` ("the rules enforced on the viewer", "viewable by non-admins"): the rule
///   for a caller who may push; for an admin it binds only when enforced on admins (else
///   every requirement shows off); for a read-only caller (a fork's contributor) null — so a
///   client cannot tell "no rule" from "hidden" by it;
/// - `branchProtectionRule` (the whole rule, `isAdminEnforced`, `requiresStrictStatusChecks`):
///   admins only; others get null and a FORBIDDEN error on that field.
///
/// With `branch_protection_forbidden` both are null with FORBIDDEN errors. Returns the value
/// and the names of the fields to report FORBIDDEN on.
pub(crate) fn base_ref_json(
    world: &World,
    r: usize,
    p: &PullSpec,
    login: &str,
) -> (Value, Vec<&'static str>) {
    let forbidden = world.repos[r].spec.branch_protection_forbidden;
    let classic = protections(world, r, &p.base.ref_name).find(|b| b.classic);
    let permission = viewer_permission(world, r, login).unwrap_or(Permission::Read);
    let admin = permission == Permission::Admin;
    let mut errors = Vec::new();
    let rule = match (forbidden, classic) {
        (true, Some(_)) => {
            errors.push("refUpdateRule");
            Value::Null
        }
        (false, Some(_)) if !permission.can_push() => Value::Null,
        (false, Some(b)) => {
            // An admin the rule does not bind sees none of its requirements.
            let binds = !admin || b.rules.enforce_admins;
            json!({
                "__typename": "RefUpdateRule",
                "pattern": b.branch,
                "allowsDeletions": false,
                "allowsForcePushes": false,
                "blocksCreations": false,
                "requiredApprovingReviewCount": if binds { b.rules.required_approvals } else { 0 },
                "requiredStatusCheckContexts": if binds { b.required_checks.clone() } else { Vec::new() },
                "requiresCodeOwnerReviews": binds && b.rules.code_owner_review,
                "requiresConversationResolution": binds && b.rules.conversation_resolution,
                "requiresLinearHistory": binds && b.rules.linear_history,
                "requiresSignatures": binds && b.rules.signed_commits,
                "viewerAllowedToDismissReviews": admin,
                "viewerCanPush": !binds,
            })
        }
        _ => Value::Null,
    };
    // An admin's token without the Administration permission may not read the whole rule.
    let administration = admin
        && world
            .tokens
            .iter()
            .find(|t| t.login == login)
            .is_none_or(|t| t.administration);
    let whole = match classic {
        Some(_) if forbidden || !administration => {
            errors.push("branchProtectionRule");
            Value::Null
        }
        Some(b) => json!({
            "__typename": "BranchProtectionRule",
            "pattern": b.branch,
            "isAdminEnforced": b.rules.enforce_admins,
            "requiresStrictStatusChecks": b.rules.strict,
            "requiresStatusChecks": !b.required_checks.is_empty(),
            "requiredStatusCheckContexts": b.required_checks,
            "requiresApprovingReviews": b.rules.required_approvals > 0,
            "requiredApprovingReviewCount": b.rules.required_approvals,
            "requiresCodeOwnerReviews": b.rules.code_owner_review,
            "requiresConversationResolution": b.rules.conversation_resolution,
            "requiresLinearHistory": b.rules.linear_history,
            "requiresCommitSignatures": b.rules.signed_commits,
            "dismissesStaleReviews": b.rules.dismiss_stale_reviews,
        }),
        None => Value::Null,
    };
    let value = json!({
        "__typename": "Ref",
        "name": p.base.ref_name,
        "prefix": "refs/heads/",
        "refUpdateRule": rule,
        "branchProtectionRule": whole,
    });
    (value, errors)
}

/// `GET /repos/{o}/{r}/rules/branches/{branch}`: the rules of every ruleset (non-classic
/// protection) of the branch; 403 with `branch_protection_forbidden`.
pub(crate) fn rules_reply(world: &World, r: usize, branch: &str) -> Reply {
    let branch = &percent_decoded(branch);
    let spec = &world.repos[r].spec;
    if spec.branch_protection_forbidden {
        return crate::github::error(403, "Resource not accessible by personal access token");
    }
    let full = format!("{}/{}", spec.owner, spec.name);
    let mut rules = Vec::new();
    for b in protections(world, r, branch).filter(|b| !b.classic) {
        let mut push = |kind: &str, parameters: Option<Value>| {
            let mut rule = json!({
                "type": kind,
                "ruleset_source_type": "Repository",
                "ruleset_source": full,
                "ruleset_id": b.rules.ruleset_id.unwrap_or(DEFAULT_RULESET_ID),
            });
            if let Some(p) = parameters {
                rule["parameters"] = p;
            }
            rules.push(rule);
        };
        let m = &b.rules;
        if m.required_approvals > 0
            || m.code_owner_review
            || m.conversation_resolution
            || m.dismiss_stale_reviews
        {
            push(
                "pull_request",
                Some(json!({
                    "required_approving_review_count": m.required_approvals,
                    "require_code_owner_review": m.code_owner_review,
                    "required_review_thread_resolution": m.conversation_resolution,
                    "dismiss_stale_reviews_on_push": m.dismiss_stale_reviews,
                    "require_last_push_approval": false,
                })),
            );
        }
        push(
            "required_status_checks",
            Some(json!({
                "strict_required_status_checks_policy": m.strict,
                "required_status_checks": b.required_checks.iter().map(|c| json!({"context": c})).collect::<Vec<_>>(),
            })),
        );
        if m.merge_queue {
            push(
                "merge_queue",
                Some(json!({
                    "check_response_timeout_minutes": 60,
                    "grouping_strategy": "ALLGREEN",
                    "max_entries_to_build": 5,
                    "max_entries_to_merge": 5,
                    "merge_method": "MERGE",
                    "min_entries_to_merge": 1,
                    "min_entries_to_merge_wait_minutes": 5,
                })),
            );
        }
        if m.linear_history {
            push("required_linear_history", None);
        }
        if m.signed_commits {
            push("required_signatures", None);
        }
    }
    Reply::json(200, Value::Array(rules))
}

/// `GET /repos/{o}/{r}/compare/{base}...{head}` for a pull request's base branch (or base
/// commit) and head commit (or branch): the counts from its `readiness`; 404 otherwise.
pub(crate) fn compare_reply(world: &World, base_url: &str, r: usize, basehead: &str) -> Reply {
    let decoded = percent_decoded(basehead);
    let Some((base, head)) = decoded.split_once("...") else {
        return crate::github::error(404, "Not Found");
    };
    let spec = &world.repos[r].spec;
    let Some(p) = spec.pulls.iter().find(|p| {
        (p.base.ref_name == base || p.base.sha == base)
            && (p.head.sha == head || p.head.ref_name == head)
    }) else {
        return crate::github::error(404, "Not Found");
    };
    let full = format!("{}/{}", spec.owner, spec.name);
    let ahead = p.readiness.ahead_by.unwrap_or(1);
    let behind = p.readiness.behind_by;
    let status = match (ahead, behind) {
        (0, 0) => "identical",
        (_, 0) => "ahead",
        (0, _) => "behind",
        _ => "diverged",
    };
    let api = format!("{base_url}/repos/{full}");
    let base_commit = commit_json(base_url, &full, &p.base.sha);
    Reply::json(
        200,
        json!({
            "url": format!("{api}/compare/{basehead}"),
            "html_url": format!("{base_url}/{full}/compare/{basehead}"),
            "permalink_url": format!("{base_url}/{full}/compare/{}...{}", p.base.sha, p.head.sha),
            "diff_url": format!("{base_url}/{full}/compare/{basehead}.diff"),
            "patch_url": format!("{base_url}/{full}/compare/{basehead}.patch"),
            "base_commit": base_commit,
            "merge_base_commit": base_commit,
            "status": status,
            "ahead_by": ahead,
            "behind_by": behind,
            "total_commits": ahead,
            "commits": [],
            "files": [],
        }),
    )
}

/// A `commit` object for `compare` (the simulator keeps no commit metadata: fixed author).
fn commit_json(base_url: &str, full: &str, sha: &str) -> Value {
    let api = format!("{base_url}/repos/{full}");
    let person =
        json!({"name": "Octo Cat", "email": "octocat@example.com", "date": "2024-01-01T00:00:00Z"});
    json!({
        "url": format!("{api}/commits/{sha}"),
        "sha": sha,
        "node_id": crate::github::node_id("C", "Commit", 1),
        "html_url": format!("{base_url}/{full}/commit/{sha}"),
        "comments_url": format!("{api}/commits/{sha}/comments"),
        "commit": {
            "url": format!("{api}/git/commits/{sha}"),
            "author": person,
            "committer": person,
            "message": "Base commit",
            "comment_count": 0,
            "tree": {"sha": sha, "url": format!("{api}/git/trees/{sha}")},
        },
        "author": null,
        "committer": null,
        "parents": [],
    })
}
