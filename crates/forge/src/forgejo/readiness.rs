//! What a Forgejo/Gitea pull request's merge needs (`Repository::merge_facts`), read as the
//! forge states it; no verdict here.
//!
//! Requests, in two concurrent rounds (each counted in `MergeFacts::requests`):
//! 1. the pull request, and its reviews (all pages, 50 a page);
//! 2. the base branch (`GET branches/{base}`: `protected`, `required_approvals`,
//!    `enable_status_check`, `status_check_contexts` for any reader; the rule's name,
//!    `effective_branch_protection_name`, only for repository admins), then, when a name came
//!    back, the whole rule (`GET branch_protections/{name}`, admins only); the head's combined
//!    status (`GET commits/{sha}/status`, the newest status per context, all pages, 50 a page);
//!    and the compare of the head commit with the base branch (`GET compare/{sha}...{base}`,
//!    whose `total_commits` is how far behind the head is).
//!
//! So 5 requests for a reader and 6 for an admin, plus one per further 50 reviews or statuses
//! (further status pages are asked together once the first gives the total).
//!
//! What a reader cannot see (the rest of the rule: rejected reviews, outdated branch, stale
//! approvals, signed commits, official review requests) is listed in `rules.unknown`, never
//! taken as "off". Gitea/Forgejo have no rule that requires conversations to be resolved
//! (`MergeFacts::unresolved_threads` stays `None`) and no merge state or review decision.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

use resolve_pr_core::PrRef;
use serde::Deserialize;

use super::{FjPull, FjUser, Forgejo, actor, not_found_hint, subject};
use crate::http::{Auth, Request, Response};
use crate::repository::{
    BranchRules, CheckContext, CheckOutcome, LatestReview, MergeFacts, ReviewVerdict, UnreadRules,
};
use crate::time::Timestamp;
use crate::{Error, PullRequest, Result, context_glob};

/// Items a page asks for: Forgejo/Gitea's default `[api] MAX_RESPONSE_ITEMS`.
const PER_PAGE: usize = 50;
/// Most pages walked before giving up on a server that never ends a list.
const MAX_PAGES: usize = 200;
/// The source name of Forgejo/Gitea branch protection in `BranchRules`.
const SOURCE: &str = "branch protection";

pub(crate) async fn merge_facts(forge: &Forgejo, pr: &PrRef) -> Result<MergeFacts> {
    let reader = Reader {
        forge,
        pr,
        auth: forge.auth()?,
        requests: AtomicU32::new(0),
    };
    let (pull, all_reviews) = tokio::try_join!(reader.pull(), reader.reviews())?;
    let head = pull.head_sha.clone();
    let base = pull.base_ref.clone();
    let (rules, statuses, behind_by) = tokio::join!(
        reader.rules(&base),
        reader.statuses(&head),
        reader.behind_by(&head, &base)
    );
    let (rules, viewer_can_bypass) = match rules? {
        Ok((rules, bypass)) => (Ok(rules), bypass),
        Err(unread) => (Err(unread), false),
    };
    let statuses = statuses?;
    let checks = statuses
        .into_iter()
        .map(|s| {
            let required = rules
                .as_ref()
                .map(|r| {
                    r.required_checks
                        .iter()
                        .any(|p| context_glob(p, &s.context))
                })
                .ok();
            CheckContext {
                outcome: outcome(&s.status),
                required,
                url: s.target_url.filter(|u| !u.is_empty()),
                name: s.context,
            }
        })
        .collect();
    let rules = rules.unwrap_or_else(|unread| BranchRules {
        unknown: vec![unread],
        ..BranchRules::default()
    });
    let (reviews, review_requests) = counted_reviews(all_reviews, &rules, &pr.repo.owner);
    Ok(MergeFacts {
        pull,
        merge_state: None,
        review_decision: None,
        reviews,
        review_requests,
        checks,
        rules,
        behind_by,
        unresolved_threads: None,
        in_merge_queue: false,
        auto_merge: None,
        viewer_can_bypass,
        requests: reader.requests.load(Ordering::Relaxed),
    })
}

/// The requests of one `merge_facts` call, counted.
struct Reader<'a> {
    forge: &'a Forgejo,
    pr: &'a PrRef,
    auth: &'a Auth,
    requests: AtomicU32,
}

impl Reader<'_> {
    async fn get(&self, url: String, subject: &str, hint: &str) -> Result<Response> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.forge
            .http
            .send(&Request::get(url, Some(self.auth), subject).not_found_hint(hint))
            .await
    }

    fn repo_url(&self) -> String {
        self.forge.repo_url(self.pr)
    }

    async fn pull(&self) -> Result<PullRequest> {
        let url = format!("{}/pulls/{}", self.repo_url(), self.pr.number);
        let response = self
            .get(url, &subject(self.pr), &not_found_hint(self.pr))
            .await?;
        Ok(response.json::<FjPull>()?.into_domain(&self.pr.repo))
    }

    /// Every review and review request, as listed (oldest first).
    async fn reviews(&self) -> Result<Vec<FjReview>> {
        let subject = format!("reviews of {}", subject(self.pr));
        let hint = not_found_hint(self.pr);
        let mut all: Vec<FjReview> = Vec::new();
        let mut previous_first = None;
        for page in 1..=MAX_PAGES {
            let url = format!(
                "{}/pulls/{}/reviews?page={page}&limit={PER_PAGE}",
                self.repo_url(),
                self.pr.number
            );
            let response = self.get(url, &subject, &hint).await?;
            // Go writes an empty list as `null`.
            let items: Vec<FjReview> = response
                .json::<Option<Vec<FjReview>>>()?
                .unwrap_or_default();
            // A server that ignores `page` repeats the first page: that is the end.
            let first = items.first().map(|r| r.id);
            if first.is_some() && first == previous_first {
                return Ok(all);
            }
            previous_first = first;
            let got = items.len();
            all.extend(items);
            let more = match total_count(&response) {
                Some(total) => got > 0 && all.len() < total,
                None => got >= PER_PAGE,
            };
            if !more {
                return Ok(all);
            }
        }
        Err(too_many_pages(self.forge, &subject))
    }

    /// The base branch's rules, and whether the caller may merge past them: Forgejo/Gitea let
    /// a repository admin force the merge (`force_merge`) unless the rule has
    /// `apply_to_admins`; the caller is a repository admin when the rule could be read (only
    /// admins get its name). An instance admin who is not a repository admin bypasses too but
    /// is not told apart (that would cost `GET /user`). `Err(UnreadRules)` when the branch
    /// itself cannot be read (403/404); other failures are errors.
    async fn rules(
        &self,
        base: &str,
    ) -> Result<std::result::Result<(BranchRules, bool), UnreadRules>> {
        let subject = format!("the branch {base:?} of {}", self.pr.repo.full_name());
        let url = format!("{}/branches/{}", self.repo_url(), encode(base, true));
        let branch: FjBranch = match self.get(url, &subject, "").await {
            Ok(response) => response.json()?,
            Err(e) if unreadable(&e) => {
                return Ok(Err(UnreadRules {
                    source: SOURCE.to_owned(),
                    reason: format!("the base branch {base:?} cannot be read: {e}"),
                }));
            }
            Err(e) => return Err(e),
        };
        let mut rules = BranchRules {
            protected: branch.protected,
            ..BranchRules::default()
        };
        if !branch.protected {
            return Ok(Ok((rules, false)));
        }
        rules.sources.push(SOURCE.to_owned());
        rules.required_approvals = branch.required_approvals.try_into().unwrap_or(0);
        if branch.enable_status_check {
            rules.required_checks = branch.status_check_contexts.unwrap_or_default();
        }
        let name = branch.effective_branch_protection_name.unwrap_or_default();
        if name.is_empty() {
            rules.unknown.push(UnreadRules {
                source: SOURCE.to_owned(),
                reason: "the rule's other settings (rejected reviews, outdated branch, stale \
                         approvals, signed commits, official review requests) are shown only \
                         to repository admins"
                    .to_owned(),
            });
            return Ok(Ok((rules, false)));
        }
        let subject = format!(
            "the branch protection {name:?} of {}",
            self.pr.repo.full_name()
        );
        let url = format!(
            "{}/branch_protections/{}",
            self.repo_url(),
            encode(&name, false)
        );
        let rule: FjRule = match self.get(url, &subject, "").await {
            Ok(response) => response.json()?,
            Err(e) if unreadable(&e) => {
                rules.unknown.push(UnreadRules {
                    source: format!("{SOURCE} {name:?}"),
                    reason: format!("the rule cannot be read: {e}"),
                });
                return Ok(Ok((rules, false)));
            }
            Err(e) => return Err(e),
        };
        rules.sources = vec![format!("{SOURCE} {name:?}")];
        // The whole rule is the same rule; where both say, the rule wins.
        rules.required_approvals = rule.required_approvals.try_into().unwrap_or(0);
        rules.required_checks = if rule.enable_status_check {
            rule.status_check_contexts.unwrap_or_default()
        } else {
            Vec::new()
        };
        rules.block_on_rejected_reviews = rule.block_on_rejected_reviews;
        rules.up_to_date = rule.block_on_outdated_branch;
        // Dismissed on push or ignored at merge: either way they do not count.
        rules.dismiss_stale_approvals = rule.dismiss_stale_approvals || rule.ignore_stale_approvals;
        rules.signed_commits = rule.require_signed_commits;
        rules.official_review_requests = rule.block_on_official_review_requests;
        Ok(Ok((rules, !rule.apply_to_admins)))
    }

    /// The newest status of each context of `sha` (the combined status, every page). When
    /// the first page gives the total, the other pages are asked all at once (page size: what
    /// the first page held, as an instance may cap `limit` below 50); otherwise one by one
    /// until a short page.
    async fn statuses(&self, sha: &str) -> Result<Vec<FjStatus>> {
        if sha.is_empty() {
            return Ok(Vec::new());
        }
        let subject = format!("the combined status of {sha} ({})", subject(self.pr));
        let first = self.status_page(sha, 1, &subject).await?;
        let mut all = first.statuses.unwrap_or_default();
        let got = all.len();
        match first.total_count {
            Some(total) if got > 0 && (got as u64) < total => {
                let pages = total.div_ceil(got as u64);
                if pages > MAX_PAGES as u64 {
                    return Err(too_many_pages(self.forge, &subject));
                }
                let rest = futures_util::future::try_join_all(
                    (2..=pages as usize).map(|page| self.status_page(sha, page, &subject)),
                )
                .await?;
                for combined in rest {
                    all.extend(combined.statuses.unwrap_or_default());
                }
            }
            Some(_) => {}
            None if got < PER_PAGE => {}
            None => {
                for page in 2..=MAX_PAGES {
                    let items = self
                        .status_page(sha, page, &subject)
                        .await?
                        .statuses
                        .unwrap_or_default();
                    let got = items.len();
                    all.extend(items);
                    if got < PER_PAGE {
                        return Ok(newest_per_context(all));
                    }
                }
                return Err(too_many_pages(self.forge, &subject));
            }
        }
        Ok(newest_per_context(all))
    }

    async fn status_page(&self, sha: &str, page: usize, subject: &str) -> Result<FjCombined> {
        let url = format!(
            "{}/commits/{}/status?page={page}&limit={PER_PAGE}",
            self.repo_url(),
            encode(sha, false)
        );
        self.get(url, subject, "").await?.json()
    }

    /// How many commits of `base` the head `sha` lacks: the compare the other way round
    /// (`{sha}...{base}`). `None` when that cannot be read (the head commit is gone, an old
    /// instance without the endpoint, any failure): it is a hint, not a reason to fail.
    async fn behind_by(&self, sha: &str, base: &str) -> Option<u64> {
        if sha.is_empty() {
            return None;
        }
        let subject = format!("the compare of {sha} with {base:?}");
        let url = format!(
            "{}/compare/{}...{}?files=false&verification=false",
            self.repo_url(),
            encode(sha, false),
            encode(base, true)
        );
        match self.get(url, &subject, "").await {
            Ok(response) => match response.json::<FjCompare>() {
                Ok(c) => Some(c.total_commits),
                Err(e) => {
                    tracing::debug!(error = %e, "behind-by unknown");
                    None
                }
            },
            Err(e) => {
                tracing::debug!(error = %e, "behind-by unknown");
                None
            }
        }
    }
}

/// A 403 or 404: the caller may not see it, or it is not there.
fn unreadable(e: &Error) -> bool {
    matches!(e.http_status(), Some(403 | 404))
}

fn total_count(response: &Response) -> Option<usize> {
    response
        .headers
        .get("x-total-count")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

fn too_many_pages(forge: &Forgejo, subject: &str) -> Error {
    Error::invalid_body(format!(
        "{} kept sending pages of {subject} past page {MAX_PAGES}",
        forge.http.forge()
    ))
    .with_detail("pages", MAX_PAGES)
    .with_suggestion("The forge (or a proxy before it) does not end the list; retry later.")
}

/// A path segment, percent-encoded but for RFC 3986's unreserved characters (and `/` when
/// `keep_slash`, for routes that take the rest of the path, like `branches/*`).
fn encode(segment: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How a status stands on Forgejo/Gitea, whose merge check passes a required context only
/// when its state is `success` (`warning` does not pass; `skipped` is passed over).
fn outcome(state: &str) -> CheckOutcome {
    match state {
        "success" => CheckOutcome::Passed,
        "skipped" => CheckOutcome::Skipped,
        "pending" => CheckOutcome::Pending,
        "failure" | "error" | "warning" => CheckOutcome::Failed,
        _ => CheckOutcome::Pending,
    }
}

/// The newest status of each context (by `updated_at`, then id), in first-seen order.
fn newest_per_context(statuses: Vec<FjStatus>) -> Vec<FjStatus> {
    let mut order: Vec<String> = Vec::new();
    let mut newest: HashMap<String, FjStatus> = HashMap::new();
    for s in statuses {
        match newest.get(&s.context) {
            None => {
                order.push(s.context.clone());
                newest.insert(s.context.clone(), s);
            }
            Some(kept) if (s.updated_at, s.id) > (kept.updated_at, kept.id) => {
                newest.insert(s.context.clone(), s);
            }
            Some(_) => {}
        }
    }
    order
        .into_iter()
        .filter_map(|c| newest.remove(&c))
        .collect()
}

/// The reviews that count and the pending review requests. Per reviewer (user, or team for
/// a team request) the latest entry stands. A request (`REQUEST_REVIEW`) is pending while it
/// is that latest entry. A verdict counts when it is `official` (from someone whose review
/// the rule counts), not dismissed, and not stale where the rule leaves stale approvals out
/// (`dismiss_stale_approvals` or `ignore_stale_approvals`, or a rule that could not be read:
/// then a stale approval is not counted, the cautious reading). Oldest first. A team is
/// named `org/team`; its organization is the repository's owner when the answer leaves it out
/// (only an organization's repository can ask a team).
fn counted_reviews(
    all: Vec<FjReview>,
    rules: &BranchRules,
    owner: &str,
) -> (Vec<LatestReview>, Vec<String>) {
    let rule_unread = rules.protected && !rules.unknown.is_empty();
    let drop_stale = rules.dismiss_stale_approvals || rule_unread;
    let mut latest: Vec<(String, FjReview)> = Vec::new();
    for review in all {
        let key = match (&review.user, &review.team) {
            (_, Some(team)) if review.state == "REQUEST_REVIEW" => format!("team:{}", team.name),
            (Some(user), _) => format!("user:{}", user.login),
            (None, _) => continue,
        };
        // Comments and pending drafts do not change a reviewer's standing.
        if !matches!(
            review.state.as_str(),
            "APPROVED" | "REQUEST_CHANGES" | "REQUEST_REVIEW"
        ) {
            continue;
        }
        latest.retain(|(k, _)| *k != key);
        latest.push((key, review));
    }
    let mut reviews = Vec::new();
    let mut requests = Vec::new();
    for (_, review) in latest {
        if review.state == "REQUEST_REVIEW" {
            if let Some(team) = &review.team {
                let org = team
                    .organization
                    .as_ref()
                    .map(|o| o.name.as_str())
                    .filter(|n| !n.is_empty())
                    .unwrap_or(owner);
                requests.push(format!("{org}/{}", team.name));
            } else if let Some(user) = &review.user {
                requests.push(user.login.clone());
            }
            continue;
        }
        if !review.official || review.dismissed || (review.stale && drop_stale) {
            continue;
        }
        let verdict = if review.state == "APPROVED" {
            ReviewVerdict::Approved
        } else {
            ReviewVerdict::ChangesRequested
        };
        reviews.push(LatestReview {
            author: actor(review.user),
            verdict,
            commit_id: review.commit_id.filter(|c| !c.is_empty()),
        });
    }
    (reviews, requests)
}

#[derive(Debug, Deserialize)]
struct FjReview {
    #[serde(default)]
    id: u64,
    #[serde(default)]
    user: Option<FjUser>,
    #[serde(default)]
    team: Option<FjTeam>,
    #[serde(default)]
    state: String,
    #[serde(default)]
    official: bool,
    #[serde(default)]
    stale: bool,
    #[serde(default)]
    dismissed: bool,
    #[serde(default)]
    commit_id: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FjTeam {
    #[serde(default)]
    name: String,
    #[serde(default)]
    organization: Option<FjOrganization>,
}

#[derive(Debug, Deserialize)]
struct FjOrganization {
    #[serde(default)]
    name: String,
}

#[derive(Debug, Deserialize)]
struct FjBranch {
    #[serde(default)]
    protected: bool,
    #[serde(default)]
    required_approvals: i64,
    #[serde(default)]
    enable_status_check: bool,
    #[serde(default)]
    status_check_contexts: Option<Vec<String>>,
    #[serde(default)]
    effective_branch_protection_name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FjRule {
    #[serde(default)]
    required_approvals: i64,
    #[serde(default)]
    enable_status_check: bool,
    #[serde(default)]
    status_check_contexts: Option<Vec<String>>,
    #[serde(default)]
    block_on_rejected_reviews: bool,
    #[serde(default)]
    block_on_official_review_requests: bool,
    #[serde(default)]
    block_on_outdated_branch: bool,
    #[serde(default)]
    dismiss_stale_approvals: bool,
    #[serde(default)]
    ignore_stale_approvals: bool,
    #[serde(default)]
    require_signed_commits: bool,
    #[serde(default)]
    apply_to_admins: bool,
}

#[derive(Debug, Deserialize)]
struct FjCombined {
    #[serde(default)]
    total_count: Option<u64>,
    #[serde(default)]
    statuses: Option<Vec<FjStatus>>,
}

#[derive(Debug, Deserialize)]
struct FjStatus {
    #[serde(default)]
    id: u64,
    #[serde(default)]
    context: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    target_url: Option<String>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    updated_at: Option<Timestamp>,
}

#[derive(Debug, Deserialize)]
struct FjCompare {
    total_commits: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn status_states_map_to_outcomes() {
        assert_eq!(outcome("success"), CheckOutcome::Passed);
        assert_eq!(outcome("skipped"), CheckOutcome::Skipped);
        assert_eq!(outcome("warning"), CheckOutcome::Failed);
        assert_eq!(outcome("error"), CheckOutcome::Failed);
        assert_eq!(outcome("pending"), CheckOutcome::Pending);
    }

    #[test]
    fn segments_are_encoded_for_the_path() {
        assert_eq!(encode("release/1.x", true), "release/1.x");
        assert_eq!(encode("release/*", false), "release%2F%2A");
        assert_eq!(encode("a;rm -rf ~", true), "a%3Brm%20-rf%20~");
        assert_eq!(encode("$(id)", true), "%24%28id%29");
        assert_eq!(encode("-x", true), "-x");
        assert_eq!(encode("?#%", true), "%3F%23%25");
    }

    fn review(v: serde_json::Value) -> FjReview {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn only_the_latest_official_fresh_verdict_counts() {
        let all = vec![
            review(
                json!({"id": 1, "user": {"id": 2, "login": "ann"}, "state": "REQUEST_CHANGES", "official": false, "commit_id": "a"}),
            ),
            review(
                json!({"id": 2, "user": {"id": 2, "login": "ann"}, "state": "APPROVED", "official": true, "commit_id": "b"}),
            ),
            review(
                json!({"id": 3, "user": {"id": 3, "login": "bob"}, "state": "APPROVED", "official": false}),
            ),
            review(
                json!({"id": 4, "user": {"id": 4, "login": "cy"}, "state": "APPROVED", "official": true, "dismissed": true}),
            ),
            review(
                json!({"id": 5, "user": {"id": 5, "login": "di"}, "state": "APPROVED", "official": true, "stale": true}),
            ),
            review(
                json!({"id": 6, "user": {"id": 2, "login": "ann"}, "state": "COMMENT", "official": false}),
            ),
            review(
                json!({"id": 7, "user": {"id": 6, "login": "ed"}, "state": "REQUEST_REVIEW", "official": true}),
            ),
            review(
                json!({"id": 8, "user": null, "team": {"name": "core"}, "state": "REQUEST_REVIEW", "official": true}),
            ),
            review(
                json!({"id": 9, "user": null, "team": {"name": "docs", "organization": {"name": "Octo"}}, "state": "REQUEST_REVIEW", "official": true}),
            ),
        ];
        let rules = BranchRules {
            protected: true,
            ..BranchRules::default()
        };
        let (counted, requests) = counted_reviews(all, &rules, "octo");
        let names: Vec<_> = counted.iter().map(|r| r.author.login.as_str()).collect();
        // A stale approval counts when the rule keeps stale approvals.
        assert_eq!(names, ["ann", "di"]);
        assert_eq!(counted[0].verdict, ReviewVerdict::Approved);
        assert_eq!(counted[0].commit_id.as_deref(), Some("b"));
        assert_eq!(requests, ["ed", "octo/core", "Octo/docs"]);
    }

    #[test]
    fn stale_approvals_are_left_out_when_the_rule_says_or_is_unknown() {
        let stale = || {
            vec![review(
                json!({"id": 5, "user": {"id": 5, "login": "di"}, "state": "APPROVED", "official": true, "stale": true}),
            )]
        };
        for rules in [
            BranchRules {
                protected: true,
                dismiss_stale_approvals: true,
                ..BranchRules::default()
            },
            BranchRules {
                protected: true,
                unknown: vec![UnreadRules {
                    source: SOURCE.into(),
                    reason: "admins only".into(),
                }],
                ..BranchRules::default()
            },
        ] {
            assert!(
                counted_reviews(stale(), &rules, "octo").0.is_empty(),
                "{rules:?}"
            );
        }
    }

    #[test]
    fn the_newest_status_of_a_context_stands() {
        let s = |id: u64, context: &str, status: &str, at: &str| -> FjStatus {
            serde_json::from_value(
                json!({"id": id, "context": context, "status": status, "updated_at": at}),
            )
            .unwrap()
        };
        let kept = newest_per_context(vec![
            s(1, "build", "failure", "2024-01-01T10:00:00Z"),
            s(2, "test", "success", "2024-01-01T10:00:00Z"),
            s(3, "build", "success", "2024-01-01T12:00:00+01:00"),
            s(4, "build", "pending", "2024-01-01T11:30:00Z"),
        ]);
        let got: Vec<_> = kept
            .iter()
            .map(|s| (s.context.as_str(), s.status.as_str()))
            .collect();
        assert_eq!(got, [("build", "pending"), ("test", "success")]);
    }
}
