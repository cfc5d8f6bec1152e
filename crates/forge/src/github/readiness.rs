//! What a GitHub pull request's merge needs (`Repository::merge_facts`), in at most four
//! requests for up to 100 checks:
//!
//! 1. one GraphQL query (`queries::MERGE_FACTS`): the pull request, `mergeable`,
//!    `mergeStateStatus`, `reviewDecision`, the latest opinionated review of each writer,
//!    pending review requests, the head's checks with `isRequired`, the review threads'
//!    resolution and the classic protection rule non-admins may read (`refUpdateRule`);
//! 2. `GET rules/branches/{base}`: every active ruleset's rules for the base branch;
//! 3. `GET compare/{base}...{head}`: how far behind the base the head is;
//! 4. only while GitHub is still computing `mergeable`: a pause, then a tiny query for it.
//!
//! Later pages of checks or threads (past 100) cost one query each. Rules that cannot be
//! read (a 403/404/5xx on rulesets, FORBIDDEN on `refUpdateRule`) are listed in
//! `rules.unknown`, never taken for "unprotected"; a failed compare is `behind_by: None`.

use std::sync::atomic::{AtomicU32, Ordering};

use resolve_pr_core::PrRef;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ci::url_segment;
use super::threads::{Connection, GqlActor, GqlCommit, actor, decode};
use super::{GitHub, GraphQlAnswer, GraphQlError, graphql_error, queries};
use crate::http::{Failure, Request, Retry};
use crate::model::{PrState, PullRequest};
use crate::repository::{
    BranchRules, CheckContext, CheckOutcome, LatestReview, MergeFacts, MergeState, ReviewDecision,
    ReviewVerdict, UnreadRules,
};
use crate::time::Timestamp;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Result};

/// The source name of classic branch protection in `BranchRules`.
const CLASSIC: &str = "branch protection";

pub(crate) async fn merge_facts(forge: &GitHub, pr: &PrRef) -> Result<MergeFacts> {
    let requests = AtomicU32::new(0);
    let count = || {
        requests.fetch_add(1, Ordering::Relaxed);
    };

    count();
    let (data, errors) = graphql_partial(forge, queries::MERGE_FACTS, variables(pr, None)).await?;
    // A FORBIDDEN (or any) error on `refUpdateRule` alone says classic protection cannot be
    // read; any other error fails the call as `GitHub::graphql` would.
    let (rule_errors, other): (Vec<GraphQlError>, Vec<GraphQlError>) = errors
        .into_iter()
        .partition(|e| is_rule_error(e, "refUpdateRule"));
    let (whole_errors, other): (Vec<GraphQlError>, Vec<GraphQlError>) = other
        .into_iter()
        .partition(|e| is_rule_error(e, "branchProtectionRule"));
    let viewer_permission = data
        .pointer("/repository/viewerPermission")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(e) = graphql_error(&other, "query MergeFacts", forge.http.forge()) {
        return Err(match e {
            Error::NotFound { .. } => forge
                .pull_not_found(pr)
                .with_detail("graphql", Value::Object(e.details())),
            e => e,
        });
    }
    let pull = data
        .pointer("/repository/pullRequest")
        .filter(|v| !v.is_null())
        .cloned()
        .ok_or_else(|| forge.pull_not_found(pr))?;
    let pull: FactsPull = decode(pull, "a pull request's merge facts")?;

    let (first_checks, checks_after) = match pull.status_check_rollup {
        Some(rollup) => (
            rollup.contexts.nodes,
            rollup.contexts.page_info.next(None, 1, "checks")?,
        ),
        None => (Vec::new(), None),
    };
    let Connection {
        page_info: threads_page,
        nodes: first_threads,
        ..
    } = pull.review_threads;
    let threads_after = threads_page.next(None, 1, "review threads")?;
    let unknown_mergeable = pull.mergeable == "UNKNOWN" && pull.state == "OPEN";
    let head = pull.head_ref_oid.clone();
    let base = pull.base_ref_name.clone();

    let (rulesets, behind_by, more_checks, more_threads, mergeable_again) = tokio::join!(
        async {
            count();
            rulesets(forge, pr, &base).await
        },
        async {
            count();
            behind_by(forge, pr, &base, &head).await
        },
        more_checks(forge, pr, &head, checks_after, &count),
        more_threads(forge, pr, threads_after, &count),
        async {
            if !unknown_mergeable {
                return None;
            }
            tokio::time::sleep(forge.mergeable_wait).await;
            count();
            mergeable_again(forge, pr).await
        },
    );
    let more_checks = more_checks?;
    let more_threads = more_threads?;

    let mut rules = BranchRules::default();
    match rulesets {
        Ok(items) => merge_rulesets(&mut rules, items),
        Err(e) => rules.unknown.push(UnreadRules {
            source: format!("rulesets of branch {base}"),
            reason: reason(&e),
        }),
    }
    let (ref_rule, whole) = match pull.base_ref {
        Some(b) => (b.ref_update_rule, b.branch_protection_rule),
        None => (None, None),
    };
    let mut admin_unbound = false;
    let admin = viewer_permission.as_deref() == Some("ADMIN");
    match (
        admin,
        whole_errors.first(),
        whole,
        rule_errors.first(),
        ref_rule,
    ) {
        // An admin reads the whole rule: what binds everyone, strict included, even when it
        // does not bind the admin (refUpdateRule then shows the admin none of it).
        (true, None, Some(rule), _, _) => {
            admin_unbound = !rule.is_admin_enforced;
            merge_whole_classic(&mut rules, rule);
        }
        (true, None, None, None, None) => {}
        // An admin whose token may not read the whole rule (a fine-grained token without
        // Administration read): `refUpdateRule` shows only what binds this admin, which is
        // nothing when the rule is not enforced on admins, so what binds everyone else is
        // unread.
        (true, Some(e), _, None, ref_rule) => {
            if let Some(rule) = ref_rule {
                merge_classic(&mut rules, rule);
            }
            rules.up_to_date_unread = true;
            rules.unknown.push(UnreadRules {
                source: CLASSIC.to_owned(),
                reason: format!(
                    "the whole rule is not shown to this admin token ({}): what binds those \
                     who are not admins could not be read; a token with the Administration \
                     read permission reads it",
                    e.message
                ),
            });
        }
        (_, _, _, Some(e), _) => rules.unknown.push(UnreadRules {
            source: CLASSIC.to_owned(),
            reason: match &e.kind {
                Some(kind) => format!("GraphQL {kind}: {}", e.message),
                None => format!("GraphQL: {}", e.message),
            },
        }),
        (_, _, _, None, Some(rule)) => merge_classic(&mut rules, rule),
        // A reader (a fork's contributor) is shown no rule whether or not there is one.
        (_, _, _, None, None)
            if !matches!(
                viewer_permission.as_deref(),
                Some("WRITE" | "MAINTAIN" | "ADMIN")
            ) =>
        {
            rules.unknown.push(UnreadRules {
                source: CLASSIC.to_owned(),
                reason: format!(
                    "not shown to a token with {} access to the repository: GitHub shows \
                     classic protection to those who may push (GraphQL refUpdateRule) and \
                     whole to admins (REST GET branches/{base}/protection needs the \
                     Administration read permission); rulesets were read",
                    viewer_permission
                        .as_deref()
                        .unwrap_or("unknown (an app's)")
                        .to_ascii_lowercase()
                ),
            });
        }
        (_, _, _, None, None) => {}
    }
    // On GitHub a writer's change request blocks while approvals are required.
    rules.block_on_rejected_reviews = rules.required_approvals > 0;

    let mut checks: Vec<CheckContext> = first_checks
        .into_iter()
        .flatten()
        .chain(more_checks)
        .filter_map(ContextNode::into_domain)
        .collect();
    // Pages can repeat a node when a check is added during the walk.
    let mut seen = std::collections::HashSet::new();
    checks.retain(|c| seen.insert((c.name.clone(), c.url.clone())));

    let unresolved = first_threads
        .iter()
        .flatten()
        .map(|t| t.is_resolved)
        .chain(more_threads)
        .filter(|resolved| !resolved)
        .count() as u64;

    let (mergeable, merge_state_status) = match mergeable_again {
        Some((m, s)) => (m, s),
        None => (pull.mergeable.clone(), pull.merge_state_status.clone()),
    };
    let merge_state = merge_state_status.as_deref().and_then(merge_state);
    let reviews = pull
        .latest_opinionated_reviews
        .map(|c| c.nodes)
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .filter_map(GqlLatestReview::into_domain)
        .collect();
    let review_requests = pull
        .review_requests
        .map(|c| c.nodes)
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .filter_map(|r| r.requested_reviewer.and_then(Reviewer::name))
        .collect();

    let state = match pull.state.as_str() {
        "MERGED" => PrState::Merged,
        "OPEN" => PrState::Open,
        _ => PrState::Closed,
    };
    let domain = PullRequest {
        number: pull.number,
        title: pull.title,
        body: pull.body.unwrap_or_default(),
        labels: pull
            .labels
            .map(|l| l.nodes.into_iter().flatten().map(|n| n.name).collect())
            .unwrap_or_default(),
        state,
        draft: pull.is_draft,
        author: actor(pull.author),
        html_url: pull.url,
        head_ref: pull.head_ref_name,
        head_sha: pull.head_ref_oid,
        base_ref: pull.base_ref_name,
        base_sha: pull.base_ref_oid,
        merged_at: pull.merged_at,
        merge_commit_sha: pull
            .merge_commit
            .map(|c| c.oid)
            .filter(|_| state == PrState::Merged),
        mergeable: match mergeable.as_str() {
            "MERGEABLE" => Some(true),
            "CONFLICTING" => Some(false),
            _ => None,
        },
        mergeable_state: merge_state_status
            .map(|s| s.to_ascii_lowercase())
            .filter(|s| !s.is_empty()),
        base_repo: pull
            .base_repository
            .as_ref()
            .map(|r| r.name_with_owner.clone())
            .unwrap_or_else(|| pr.repo.full_name()),
        base_clone_url: pull.base_repository.as_ref().map(GqlRepo::clone_url),
        head_repo: pull
            .head_repository
            .as_ref()
            .map(|r| r.name_with_owner.clone()),
        head_clone_url: pull.head_repository.as_ref().map(GqlRepo::clone_url),
    };
    Ok(MergeFacts {
        pull: domain,
        merge_state,
        review_decision: pull.review_decision.as_deref().and_then(review_decision),
        reviews,
        review_requests,
        checks,
        rules,
        behind_by,
        unresolved_threads: Some(unresolved),
        in_merge_queue: pull.is_in_merge_queue,
        auto_merge: pull
            .auto_merge_request
            .and_then(|a| a.merge_method)
            .map(|m| m.to_ascii_lowercase()),
        viewer_can_bypass: pull.viewer_can_merge_as_admin || admin_unbound,
        requests: requests.load(Ordering::Relaxed),
    })
}

fn variables(pr: &PrRef, after: Option<&str>) -> Value {
    let mut variables = json!({
        "owner": pr.repo.owner,
        "name": pr.repo.repo,
        "number": pr.number,
    });
    if let Some(after) = after {
        variables["after"] = Value::from(after);
    }
    variables
}

/// Runs a query whose answer may hold errors on some fields beside its data, and returns
/// both. Transient errors are retried as `GitHub::graphql` retries them; an answer without
/// data is that call's error.
pub(super) async fn graphql_partial(
    forge: &GitHub,
    document: &str,
    variables: Value,
) -> Result<(Value, Vec<GraphQlError>)> {
    let auth = forge.auth().await?;
    let body = json!({ "query": document, "variables": variables });
    let subject = format!("GraphQL {}", super::operation_name(document));
    let request = Request::post(
        forge.endpoint.graphql_url.clone(),
        Some(auth),
        &body,
        &subject,
    )
    .idempotent(true);
    let name = forge.http.forge();
    forge
        .http
        .send_checked(&request, |response| {
            let answer: GraphQlAnswer = response.json().map_err(|e| Box::new(Failure::fatal(e)))?;
            let transient = answer.errors.iter().any(GraphQlError::is_transient);
            match answer.data {
                Some(data) if !data.is_null() && !transient => Ok((data, answer.errors)),
                _ => {
                    let error =
                        graphql_error(&answer.errors, &subject, name).unwrap_or_else(|| {
                            Error::invalid_body(format!(
                                "{name} (GraphQL) returned no data and no errors for {subject}"
                            ))
                        });
                    Err(Box::new(Failure {
                        error,
                        retry: if transient {
                            Retry::IfIdempotent
                        } else {
                            Retry::No
                        },
                        wait: None,
                    }))
                }
            }
        })
        .await
}

/// Whether a GraphQL error is about a classic protection field (its path ends there).
pub(super) fn is_rule_error(error: &GraphQlError, field: &str) -> bool {
    error
        .path
        .as_ref()
        .and_then(Value::as_array)
        .and_then(|p| p.last())
        .and_then(Value::as_str)
        == Some(field)
}

/// Every active ruleset rule of the base branch (`GET rules/branches/{base}`, one page of
/// 100: more rules than that on one branch are not seen).
async fn rulesets(forge: &GitHub, pr: &PrRef, base: &str) -> Result<Vec<RuleItem>> {
    let auth = forge.auth().await?;
    let url = format!(
        "{}/rules/branches/{}?per_page=100",
        forge.repo_url(pr),
        url_segment(base)
    );
    let what = format!("rules of branch {base} ({})", subject(pr));
    let response = forge
        .http
        .send(&Request::get(url, Some(auth), &what))
        .await?;
    response.json()
}

/// `behind_by` of `GET compare/{base}...{head}`; `None` when it cannot be read.
async fn behind_by(forge: &GitHub, pr: &PrRef, base: &str, head: &str) -> Option<u64> {
    let auth = forge.auth().await.ok()?;
    // One commit a page: only the counts are read.
    let url = format!(
        "{}/compare/{}...{}?per_page=1",
        forge.repo_url(pr),
        url_segment(base),
        url_segment(head)
    );
    let what = format!("the comparison of {head} with {base} ({})", subject(pr));
    let hint = not_found_hint(pr);
    let answer = forge
        .http
        .send(&Request::get(url, Some(auth), &what).not_found_hint(&hint))
        .await
        .and_then(|r| r.json::<Compare>());
    match answer {
        Ok(c) => Some(c.behind_by),
        Err(e) => {
            tracing::debug!(error = %e, "merge facts: compare unanswered");
            None
        }
    }
}

/// The head's checks past the first page.
async fn more_checks(
    forge: &GitHub,
    pr: &PrRef,
    head: &str,
    mut after: Option<String>,
    count: &(dyn Fn() + Sync),
) -> Result<Vec<ContextNode>> {
    let mut out = Vec::new();
    let mut pages = 1u32;
    while let Some(cursor) = after.take() {
        pages += 1;
        count();
        let data = forge
            .graphql(
                queries::MERGE_FACTS_CHECKS,
                variables(pr, Some(cursor.as_str())),
            )
            .await?;
        let page: ChecksPage = decode(
            data.pointer("/repository/pullRequest")
                .cloned()
                .unwrap_or(Value::Null),
            "a page of a pull request's checks",
        )?;
        if page.head_ref_oid != head {
            return Err(Error::invalid_body(format!(
                "the head of {} moved while its checks were read",
                subject(pr)
            ))
            .with_suggestion("Call again: the pull request was pushed to meanwhile."));
        }
        let Some(rollup) = page.status_check_rollup else {
            break;
        };
        after = rollup
            .contexts
            .page_info
            .next(Some(cursor.as_str()), pages, "checks")?;
        out.extend(rollup.contexts.nodes.into_iter().flatten());
    }
    Ok(out)
}

/// The resolution of each review thread past the first page.
async fn more_threads(
    forge: &GitHub,
    pr: &PrRef,
    mut after: Option<String>,
    count: &(dyn Fn() + Sync),
) -> Result<Vec<bool>> {
    let mut out = Vec::new();
    let mut pages = 1u32;
    while let Some(cursor) = after.take() {
        pages += 1;
        count();
        let data = forge
            .graphql(
                queries::MERGE_FACTS_THREADS,
                variables(pr, Some(cursor.as_str())),
            )
            .await?;
        let page: ThreadsPage = decode(
            data.pointer("/repository/pullRequest")
                .cloned()
                .unwrap_or(Value::Null),
            "a page of a pull request's review threads",
        )?;
        after =
            page.review_threads
                .page_info
                .next(Some(cursor.as_str()), pages, "review threads")?;
        out.extend(
            page.review_threads
                .nodes
                .into_iter()
                .flatten()
                .map(|t| t.is_resolved),
        );
    }
    Ok(out)
}

/// `mergeable` and `mergeStateStatus` asked once more; `None` when that failed (the first
/// answer, UNKNOWN, then stands).
async fn mergeable_again(forge: &GitHub, pr: &PrRef) -> Option<(String, Option<String>)> {
    match forge
        .graphql(queries::MERGE_FACTS_MERGEABLE, variables(pr, None))
        .await
    {
        Ok(data) => {
            let pull: Mergeability = decode(
                data.pointer("/repository/pullRequest")
                    .cloned()
                    .unwrap_or(Value::Null),
                "a pull request's mergeability",
            )
            .ok()?;
            Some((pull.mergeable, pull.merge_state_status))
        }
        Err(e) => {
            tracing::debug!(error = %e, "merge facts: mergeability asked again, unanswered");
            None
        }
    }
}

/// The strictest of every ruleset rule: most approvals, every check, any flag set.
fn merge_rulesets(rules: &mut BranchRules, items: Vec<RuleItem>) {
    for item in items {
        rules.protected = true;
        if let Some(id) = item.ruleset_id {
            let source = match (&item.ruleset_source_type, &item.ruleset_source) {
                (Some(kind), Some(source)) => format!("ruleset {id} ({kind} {source})"),
                (None, Some(source)) => format!("ruleset {id} ({source})"),
                _ => format!("ruleset {id}"),
            };
            if !rules.sources.contains(&source) {
                rules.sources.push(source);
            }
        }
        let p = item.parameters.unwrap_or(Value::Null);
        let flag = |name: &str| p.get(name).and_then(Value::as_bool).unwrap_or(false);
        match item.kind.as_str() {
            "pull_request" => {
                let approvals = p
                    .get("required_approving_review_count")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                rules.required_approvals = rules
                    .required_approvals
                    .max(u32::try_from(approvals).unwrap_or(u32::MAX));
                rules.code_owner_review |= flag("require_code_owner_review");
                rules.conversation_resolution |= flag("required_review_thread_resolution");
                rules.dismiss_stale_approvals |= flag("dismiss_stale_reviews_on_push");
            }
            "required_status_checks" => {
                rules.up_to_date |= flag("strict_required_status_checks_policy");
                let names = p
                    .get("required_status_checks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.get("context").and_then(Value::as_str));
                for name in names {
                    add_check(rules, name);
                }
            }
            "merge_queue" => rules.merge_queue = true,
            "required_linear_history" => rules.linear_history = true,
            "required_signatures" => rules.signed_commits = true,
            _ => {}
        }
    }
}

/// Classic protection as `refUpdateRule` shows it to non-admins (it does not say whether
/// checks must be run on the latest base: `mergeStateStatus` BEHIND tells that).
fn merge_classic(rules: &mut BranchRules, rule: RefUpdateRule) {
    rules.protected = true;
    rules.sources.push(CLASSIC.to_owned());
    let approvals = rule.required_approving_review_count.unwrap_or(0).max(0);
    rules.required_approvals = rules
        .required_approvals
        .max(u32::try_from(approvals).unwrap_or(u32::MAX));
    for name in rule
        .required_status_check_contexts
        .into_iter()
        .flatten()
        .flatten()
    {
        add_check(rules, &name);
        // Whether they must run on the latest base (`strict`) is not shown here.
        rules.up_to_date_unread = true;
    }
    rules.code_owner_review |= rule.requires_code_owner_reviews;
    rules.conversation_resolution |= rule.requires_conversation_resolution;
    rules.linear_history |= rule.requires_linear_history;
    rules.signed_commits |= rule.requires_signatures;
}

/// Classic protection whole, as admins read it (`branchProtectionRule`): what binds
/// everyone the rule binds, its strict flag included.
fn merge_whole_classic(rules: &mut BranchRules, rule: WholeRule) {
    merge_classic(
        rules,
        RefUpdateRule {
            required_approving_review_count: rule.required_approving_review_count,
            required_status_check_contexts: rule.required_status_check_contexts,
            requires_code_owner_reviews: rule.requires_code_owner_reviews,
            requires_conversation_resolution: rule.requires_conversation_resolution,
            requires_linear_history: rule.requires_linear_history,
            requires_signatures: rule.requires_commit_signatures,
        },
    );
    rules.up_to_date_unread = false;
    rules.up_to_date |= rule.requires_strict_status_checks;
    rules.dismiss_stale_approvals |= rule.dismisses_stale_reviews;
}

fn add_check(rules: &mut BranchRules, name: &str) {
    if !rules.required_checks.iter().any(|c| c == name) {
        rules.required_checks.push(name.to_owned());
    }
}

fn reason(e: &Error) -> String {
    match e.http_status() {
        Some(status) => format!("HTTP {status}: {}", e.message()),
        None => e.message().to_owned(),
    }
}

fn merge_state(status: &str) -> Option<MergeState> {
    Some(match status {
        "BEHIND" => MergeState::Behind,
        "BLOCKED" => MergeState::Blocked,
        "CLEAN" => MergeState::Clean,
        "DIRTY" => MergeState::Dirty,
        "DRAFT" => MergeState::Draft,
        "HAS_HOOKS" => MergeState::HasHooks,
        "UNKNOWN" => MergeState::Unknown,
        "UNSTABLE" => MergeState::Unstable,
        _ => return None,
    })
}

fn review_decision(decision: &str) -> Option<ReviewDecision> {
    Some(match decision {
        "APPROVED" => ReviewDecision::Approved,
        "CHANGES_REQUESTED" => ReviewDecision::ChangesRequested,
        "REVIEW_REQUIRED" => ReviewDecision::ReviewRequired,
        _ => return None,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FactsPull {
    number: u64,
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    labels: Option<FactsLabels>,
    state: String,
    is_draft: bool,
    url: String,
    head_ref_name: String,
    head_ref_oid: String,
    base_ref_name: String,
    base_ref_oid: String,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    merged_at: Option<Timestamp>,
    merge_commit: Option<GqlCommit>,
    /// MERGEABLE, CONFLICTING or UNKNOWN.
    mergeable: String,
    #[serde(default)]
    merge_state_status: Option<String>,
    #[serde(default)]
    review_decision: Option<String>,
    #[serde(default)]
    is_in_merge_queue: bool,
    #[serde(default)]
    viewer_can_merge_as_admin: bool,
    auto_merge_request: Option<AutoMerge>,
    base_repository: Option<GqlRepo>,
    head_repository: Option<GqlRepo>,
    author: Option<GqlActor>,
    latest_opinionated_reviews: Option<Connection<GqlLatestReview>>,
    review_requests: Option<Nodes<ReviewRequest>>,
    status_check_rollup: Option<Rollup>,
    review_threads: Connection<ThreadNode>,
    base_ref: Option<BaseRef>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Mergeability {
    mergeable: String,
    #[serde(default)]
    merge_state_status: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChecksPage {
    head_ref_oid: String,
    status_check_rollup: Option<Rollup>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ThreadsPage {
    review_threads: Connection<ThreadNode>,
}

#[derive(Debug, Deserialize)]
struct Nodes<T> {
    #[serde(default = "Vec::new")]
    nodes: Vec<Option<T>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AutoMerge {
    merge_method: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRepo {
    name_with_owner: String,
    url: String,
}

impl GqlRepo {
    /// GraphQL has no `clone_url`; REST's is the web URL with `.git`.
    fn clone_url(&self) -> String {
        format!("{}.git", self.url.trim_end_matches('/'))
    }
}

#[derive(Debug, Deserialize)]
struct GqlLatestReview {
    state: String,
    author: Option<GqlActor>,
    commit: Option<GqlCommit>,
}

impl GqlLatestReview {
    /// Dismissed and pending reviews say nothing about the merge.
    fn into_domain(self) -> Option<LatestReview> {
        let verdict = match self.state.as_str() {
            "APPROVED" => ReviewVerdict::Approved,
            "CHANGES_REQUESTED" => ReviewVerdict::ChangesRequested,
            "COMMENTED" => ReviewVerdict::Commented,
            _ => return None,
        };
        Some(LatestReview {
            author: actor(self.author),
            verdict,
            commit_id: self.commit.map(|c| c.oid),
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReviewRequest {
    requested_reviewer: Option<Reviewer>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reviewer {
    #[serde(rename = "__typename")]
    typename: String,
    login: Option<String>,
    combined_slug: Option<String>,
}

impl Reviewer {
    /// A login (bots with REST's `[bot]` suffix), or a team as `org/team`.
    fn name(self) -> Option<String> {
        match self.typename.as_str() {
            "Team" => self.combined_slug,
            // GraphQL drops the `[bot]` suffix REST shows; `threads::actor` adds it back too.
            "Bot" => self.login.map(|login| {
                if login.ends_with("[bot]") {
                    login
                } else {
                    format!("{login}[bot]")
                }
            }),
            _ => self.login,
        }
    }
}

#[derive(Debug, Deserialize)]
struct Rollup {
    contexts: Connection<ContextNode>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContextNode {
    #[serde(rename = "__typename")]
    typename: String,
    name: Option<String>,
    status: Option<String>,
    conclusion: Option<String>,
    details_url: Option<String>,
    context: Option<String>,
    state: Option<String>,
    target_url: Option<String>,
    is_required: Option<bool>,
}

impl ContextNode {
    fn into_domain(self) -> Option<CheckContext> {
        let (name, outcome, url) = match self.typename.as_str() {
            "CheckRun" => {
                let outcome = match (self.status.as_deref(), self.conclusion.as_deref()) {
                    (Some("COMPLETED"), Some("SUCCESS")) => CheckOutcome::Passed,
                    (Some("COMPLETED"), Some("NEUTRAL" | "SKIPPED")) => CheckOutcome::Skipped,
                    (Some("COMPLETED"), _) => CheckOutcome::Failed,
                    _ => CheckOutcome::Pending,
                };
                (self.name?, outcome, self.details_url)
            }
            "StatusContext" => {
                let outcome = match self.state.as_deref() {
                    Some("SUCCESS") => CheckOutcome::Passed,
                    Some("FAILURE" | "ERROR") => CheckOutcome::Failed,
                    _ => CheckOutcome::Pending,
                };
                (self.context?, outcome, self.target_url)
            }
            _ => return None,
        };
        Some(CheckContext {
            name,
            outcome,
            required: self.is_required,
            url: url.filter(|u| !u.is_empty()),
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ThreadNode {
    is_resolved: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BaseRef {
    ref_update_rule: Option<RefUpdateRule>,
    #[serde(default)]
    branch_protection_rule: Option<WholeRule>,
}

/// `BranchProtectionRule`: classic protection whole (admins).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WholeRule {
    #[serde(default)]
    is_admin_enforced: bool,
    #[serde(default)]
    requires_strict_status_checks: bool,
    required_approving_review_count: Option<i64>,
    required_status_check_contexts: Option<Vec<Option<String>>>,
    #[serde(default)]
    requires_code_owner_reviews: bool,
    #[serde(default)]
    requires_conversation_resolution: bool,
    #[serde(default)]
    requires_linear_history: bool,
    #[serde(default)]
    requires_commit_signatures: bool,
    #[serde(default)]
    dismisses_stale_reviews: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RefUpdateRule {
    required_approving_review_count: Option<i64>,
    required_status_check_contexts: Option<Vec<Option<String>>>,
    #[serde(default)]
    requires_code_owner_reviews: bool,
    #[serde(default)]
    requires_conversation_resolution: bool,
    #[serde(default)]
    requires_linear_history: bool,
    #[serde(default)]
    requires_signatures: bool,
}

/// One rule of `GET rules/branches/{branch}` (`repository-rule-detailed`).
#[derive(Debug, Deserialize)]
struct RuleItem {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    parameters: Option<Value>,
    #[serde(default)]
    ruleset_id: Option<u64>,
    #[serde(default)]
    ruleset_source: Option<String>,
    #[serde(default)]
    ruleset_source_type: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Compare {
    behind_by: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(kind: &str, id: u64, parameters: Value) -> RuleItem {
        RuleItem {
            kind: kind.to_owned(),
            parameters: Some(parameters),
            ruleset_id: Some(id),
            ruleset_source: Some("octo/app".to_owned()),
            ruleset_source_type: Some("Repository".to_owned()),
        }
    }

    #[test]
    fn rulesets_and_classic_protection_merge_to_the_strictest() {
        let mut rules = BranchRules::default();
        merge_rulesets(
            &mut rules,
            vec![
                rule(
                    "pull_request",
                    1,
                    json!({"required_approving_review_count": 1,
                           "require_code_owner_review": false,
                           "required_review_thread_resolution": true,
                           "dismiss_stale_reviews_on_push": false,
                           "require_last_push_approval": false}),
                ),
                rule(
                    "required_status_checks",
                    1,
                    json!({"strict_required_status_checks_policy": true,
                           "required_status_checks": [{"context": "build"}]}),
                ),
                rule(
                    "pull_request",
                    7,
                    json!({"required_approving_review_count": 2,
                           "require_code_owner_review": true,
                           "required_review_thread_resolution": false,
                           "dismiss_stale_reviews_on_push": true,
                           "require_last_push_approval": false}),
                ),
                rule("merge_queue", 7, json!({})),
                rule("deletion", 7, Value::Null),
            ],
        );
        merge_classic(
            &mut rules,
            RefUpdateRule {
                required_approving_review_count: Some(1),
                required_status_check_contexts: Some(vec![
                    Some("build".into()),
                    Some("lint".into()),
                    None,
                ]),
                requires_code_owner_reviews: false,
                requires_conversation_resolution: false,
                requires_linear_history: true,
                requires_signatures: false,
            },
        );
        assert!(rules.protected);
        assert_eq!(rules.required_approvals, 2, "the most any source asks");
        assert_eq!(
            rules.required_checks,
            ["build", "lint"],
            "a union, once each"
        );
        assert!(rules.code_owner_review && rules.conversation_resolution);
        assert!(rules.dismiss_stale_approvals && rules.up_to_date && rules.merge_queue);
        assert!(rules.linear_history && !rules.signed_commits);
        assert_eq!(
            rules.sources,
            [
                "ruleset 1 (Repository octo/app)",
                "ruleset 7 (Repository octo/app)",
                "branch protection"
            ]
        );
    }

    #[test]
    fn check_outcomes_follow_githubs_states() {
        let node = |typename: &str, status: &str, conclusion: Option<&str>| ContextNode {
            typename: typename.into(),
            name: Some("c".into()),
            context: Some("c".into()),
            status: Some(status.into()),
            state: Some(status.into()),
            conclusion: conclusion.map(Into::into),
            details_url: None,
            target_url: Some(String::new()),
            is_required: None,
        };
        let outcome = |n: ContextNode| n.into_domain().unwrap().outcome;
        use CheckOutcome::*;
        for (conclusion, want) in [
            ("SUCCESS", Passed),
            ("NEUTRAL", Skipped),
            ("SKIPPED", Skipped),
            ("FAILURE", Failed),
            ("TIMED_OUT", Failed),
            ("CANCELLED", Failed),
            ("ACTION_REQUIRED", Failed),
            ("STARTUP_FAILURE", Failed),
            ("STALE", Failed),
        ] {
            assert_eq!(
                outcome(node("CheckRun", "COMPLETED", Some(conclusion))),
                want
            );
        }
        for status in ["QUEUED", "IN_PROGRESS", "WAITING", "PENDING", "REQUESTED"] {
            assert_eq!(outcome(node("CheckRun", status, None)), Pending);
        }
        for (state, want) in [
            ("SUCCESS", Passed),
            ("FAILURE", Failed),
            ("ERROR", Failed),
            ("PENDING", Pending),
            ("EXPECTED", Pending),
        ] {
            assert_eq!(outcome(node("StatusContext", state, None)), want);
        }
        assert_eq!(
            node("StatusContext", "SUCCESS", None)
                .into_domain()
                .unwrap()
                .url,
            None
        );
        assert!(node("Other", "SUCCESS", None).into_domain().is_none());
    }

    #[test]
    fn reviewers_are_logins_and_teams() {
        let reviewer = |v: Value| serde_json::from_value::<Reviewer>(v).unwrap().name();
        assert_eq!(
            reviewer(json!({"__typename": "User", "login": "alice"})).as_deref(),
            Some("alice")
        );
        assert_eq!(
            reviewer(json!({"__typename": "Team", "combinedSlug": "octo/core"})).as_deref(),
            Some("octo/core")
        );
        assert_eq!(
            reviewer(json!({"__typename": "Bot", "login": "copilot"})).as_deref(),
            Some("copilot[bot]")
        );
    }

    #[test]
    fn only_errors_on_the_classic_rule_are_partial() {
        let error = |path: Value| -> GraphQlError {
            serde_json::from_value(json!({"type": "FORBIDDEN", "message": "no", "path": path}))
                .unwrap()
        };
        let on_rule = |e: &GraphQlError| is_rule_error(e, "refUpdateRule");
        assert!(on_rule(&error(json!([
            "repository",
            "pullRequest",
            "baseRef",
            "refUpdateRule"
        ]))));
        assert!(!on_rule(&error(json!(["repository", "pullRequest"]))));
        assert!(!on_rule(&error(Value::Null)));
    }
}

#[derive(Debug, Deserialize)]
struct FactsLabels {
    nodes: Vec<Option<FactsLabel>>,
}

#[derive(Debug, Deserialize)]
struct FactsLabel {
    name: String,
}
