//! `Repository::merge_facts` on Forgejo and Gitea, read through the real client from the
//! simulator's `readiness_*_forgejo` / `readiness_clean_gitea` scenarios (each file's top
//! comment states the expected verdict): the facts, and how many requests they took (counted
//! by the client and in the simulator's request log, which must agree).

use std::path::PathBuf;
use std::sync::Arc;

use resolve_pr_core::{PrRef, RepoRef};
use resolve_pr_forge::{CheckOutcome, Forge, MergeFacts, ReviewVerdict};
use resolve_pr_forge_sim::{
    Fault, FaultKind, RecordedRequest, ReviewSpec, Scenario, Sim, SimHandle,
};
use resolve_pr_testkit::forge::{fast_options, forges_for};

fn scenario(name: &str) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../forge-sim/scenarios")
        .join(format!("{name}.yaml"));
    Scenario::from_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The same pull request with its base branch (and the rule protecting it) renamed.
fn with_base(mut scenario: Scenario, base: &str) -> Scenario {
    let repo = &mut scenario.repos[0];
    repo.pulls[0].base.ref_name = base.to_owned();
    repo.branch_protections[0].branch = base.to_owned();
    scenario
}

struct Fixture {
    sim: SimHandle,
    forge: Arc<dyn Forge>,
    pr: PrRef,
}

impl Fixture {
    async fn start(name: &str, token: &str) -> Fixture {
        Fixture::start_with(name, scenario(name), token).await
    }

    async fn start_with(name: &str, scenario: Scenario, token: &str) -> Fixture {
        let sim = Sim::start(scenario).await.expect("the simulator starts");
        let base = sim.base_url().trim_end_matches('/').to_owned();
        let kind = if name.ends_with("_gitea") {
            "gitea"
        } else {
            "forgejo"
        };
        let forges = forges_for(&base, kind, token, fast_options());
        let repo = RepoRef::parse(&format!("{base}/octo/app")).expect("repo");
        let forge = forges.for_repo(&repo).expect("a configured host");
        Fixture {
            sim,
            forge,
            pr: PrRef { repo, number: 1 },
        }
    }

    async fn facts(&self) -> MergeFacts {
        self.sim.clear_requests();
        let facts = self
            .forge
            .repository()
            .merge_facts(&self.pr)
            .await
            .expect("merge facts");
        // The client's count is the simulator's.
        let log = self.api_requests();
        assert_eq!(facts.requests as usize, log.len(), "{log:#?}");
        assert_eq!(self.sim.contract_violations(), Vec::<String>::new());
        facts
    }

    /// Requests to the API (the flavour probe `/version` is not part of the facts).
    fn api_requests(&self) -> Vec<RecordedRequest> {
        self.sim
            .requests()
            .into_iter()
            .filter(|r| r.path != "/api/v1/version")
            .collect()
    }

    fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .api_requests()
            .into_iter()
            .map(|r| {
                r.path
                    .trim_start_matches("/api/v1/repos/octo/app")
                    .to_owned()
            })
            .collect();
        paths.sort();
        paths
    }
}

fn check<'a>(facts: &'a MergeFacts, name: &str) -> &'a resolve_pr_forge::CheckContext {
    facts
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name:?} in {:#?}", facts.checks))
}

fn logins(facts: &MergeFacts) -> Vec<&str> {
    facts
        .reviews
        .iter()
        .map(|r| r.author.login.as_str())
        .collect()
}

/// The clean pull request, on both flavours: every fact, and 6 requests for an admin.
#[tokio::test]
async fn a_clean_pull_request_reads_every_fact_in_six_requests() {
    for name in ["readiness_clean_forgejo", "readiness_clean_gitea"] {
        let fx = Fixture::start(name, "fj_write").await;
        let facts = fx.facts().await;
        assert_eq!(facts.requests, 6, "{name}");
        assert_eq!(
            fx.paths(),
            [
                "/branch_protections/main",
                "/branches/main",
                "/commits/c0ffee0000000000000000000000000000000001/status",
                "/compare/c0ffee0000000000000000000000000000000001...main",
                "/pulls/1",
                "/pulls/1/reviews",
            ],
            "{name}"
        );
        assert_eq!(facts.pull.mergeable, Some(true));
        assert!(!facts.pull.draft);
        assert_eq!(facts.merge_state, None);
        assert_eq!(facts.review_decision, None);
        assert_eq!(facts.unresolved_threads, None);
        assert_eq!(facts.behind_by, Some(0));
        assert!(!facts.in_merge_queue && facts.auto_merge.is_none());
        // An admin (the rule was readable) and the rule does not apply to admins.
        assert!(facts.viewer_can_bypass);

        let rules = &facts.rules;
        assert!(rules.protected);
        assert_eq!(rules.required_approvals, 1);
        assert_eq!(rules.required_checks, ["CI / *"]);
        assert!(rules.block_on_rejected_reviews);
        // ignore_stale_approvals: stale approvals do not count.
        assert!(rules.dismiss_stale_approvals);
        assert!(!rules.up_to_date && !rules.signed_commits && !rules.official_review_requests);
        assert_eq!(rules.sources, ["branch protection \"main\""]);
        assert!(rules.unknown.is_empty(), "{:?}", rules.unknown);

        // The newest status per context; the glob makes both CI contexts required.
        assert_eq!(facts.checks.len(), 3, "{:#?}", facts.checks);
        let test = check(&facts, "CI / test (pull_request)");
        assert_eq!(
            (test.outcome, test.required),
            (CheckOutcome::Passed, Some(true))
        );
        assert!(
            test.url
                .as_deref()
                .unwrap()
                .ends_with("/actions/runs/4/jobs/0")
        );
        let lint = check(&facts, "CI / lint (pull_request)");
        assert_eq!(lint.required, Some(true));
        let coverage = check(&facts, "coverage");
        assert_eq!(
            (coverage.outcome, coverage.required),
            (CheckOutcome::Failed, Some(false))
        );

        // bob's fresh approval counts; dave's is stale and ignored; carol only commented.
        assert_eq!(logins(&facts), ["bob"]);
        assert_eq!(facts.reviews[0].verdict, ReviewVerdict::Approved);
        assert_eq!(
            facts.reviews[0].commit_id.as_deref(),
            Some("c0ffee0000000000000000000000000000000001")
        );
        assert!(facts.review_requests.is_empty());
    }
}

/// `mergeable: false` while the forge checks is kept as the forge says (not conclusive);
/// the next read sees the result.
#[tokio::test]
async fn mergeable_is_false_while_forgejo_checks_then_true() {
    let fx = Fixture::start("readiness_lazy_forgejo", "fj_write").await;
    let first = fx.facts().await;
    assert_eq!(first.pull.mergeable, Some(false));
    assert_eq!(first.requests, 6);
    let second = fx.facts().await;
    assert_eq!(second.pull.mergeable, Some(true));
}

/// 117 statuses: every page is read (3 of 50), so the failures on the last one, the
/// required one among them, are seen. 8 requests.
#[tokio::test]
async fn every_status_page_is_read() {
    let fx = Fixture::start("readiness_many_checks_forgejo", "fj_write").await;
    let facts = fx.facts().await;
    assert_eq!(facts.checks.len(), 117);
    assert_eq!(facts.requests, 8);
    let mut status_pages: Vec<String> = fx
        .api_requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/status"))
        .filter_map(|r| r.query)
        .collect();
    status_pages.sort();
    assert_eq!(
        status_pages,
        ["page=1&limit=50", "page=2&limit=50", "page=3&limit=50"]
    );
    let failed: Vec<&str> = facts
        .checks
        .iter()
        .filter(|c| c.outcome == CheckOutcome::Failed)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        failed,
        ["suite / shard 104", "suite / shard 109", "deploy / gate"]
    );
    let required: Vec<&str> = facts
        .checks
        .iter()
        .filter(|c| c.required == Some(true))
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(required, ["deploy / gate"]);
    assert!(facts.checks.iter().all(|c| c.required.is_some()));
}

/// Code owners on Forgejo: only official reviews count (bob is not in the approvals
/// whitelist), and the official request to the owner (carol) is pending under
/// `block_on_official_review_requests`.
#[tokio::test]
async fn code_owners_are_official_reviews_and_requests() {
    let fx = Fixture::start("readiness_code_owners_forgejo", "fj_write").await;
    let facts = fx.facts().await;
    assert!(facts.reviews.is_empty(), "{:?}", facts.reviews);
    assert_eq!(facts.review_requests, ["carol"]);
    assert!(facts.rules.official_review_requests);
    assert_eq!(facts.rules.required_approvals, 1);
    assert!(!facts.rules.code_owner_review);
}

/// A draft (work-in-progress title) is what the API says, and Forgejo's `mergeable` is
/// false for it.
#[tokio::test]
async fn a_draft_is_a_draft() {
    let fx = Fixture::start("readiness_draft_forgejo", "fj_write").await;
    let facts = fx.facts().await;
    assert!(facts.pull.draft);
    assert!(facts.pull.title.starts_with("WIP:"));
    assert_eq!(facts.pull.mergeable, Some(false));
}

/// Behind-by from the reverse compare, and the outdated-branch rule.
#[tokio::test]
async fn behind_by_comes_from_the_reverse_compare() {
    let fx = Fixture::start("readiness_behind_forgejo", "fj_write").await;
    let facts = fx.facts().await;
    assert_eq!(facts.behind_by, Some(3));
    assert!(facts.rules.up_to_date);
    // The rule applies to admins: not even an admin merges past it.
    assert!(!facts.viewer_can_bypass);
    let compare: Vec<RecordedRequest> = fx
        .api_requests()
        .into_iter()
        .filter(|r| r.path.contains("/compare/"))
        .collect();
    assert_eq!(compare.len(), 1);
    assert_eq!(
        compare[0].query.as_deref(),
        Some("files=false&verification=false")
    );
}

/// A compare that fails leaves behind-by unknown without failing the facts.
#[tokio::test]
async fn a_failing_compare_leaves_behind_by_unknown() {
    let fx = Fixture::start("readiness_behind_forgejo", "fj_write").await;
    fx.sim.inject(Fault {
        method: Some("GET".into()),
        path: "/api/v1/repos/octo/app/compare/*".into(),
        times: 10,
        kind: FaultKind::Status {
            code: 404,
            headers: Vec::new(),
            body: r#"{"message":"IsRefExist"}"#.into(),
        },
    });
    let facts = fx.facts().await;
    assert_eq!(facts.behind_by, None);
    assert!(facts.rules.up_to_date);
}

/// Unresolved conversations do not block on Forgejo: there is no rule for them.
#[tokio::test]
async fn threads_have_no_resolution_rule() {
    let fx = Fixture::start("readiness_threads_forgejo", "fj_write").await;
    let facts = fx.facts().await;
    assert_eq!(facts.unresolved_threads, None);
    assert!(!facts.rules.conversation_resolution);
    assert_eq!(facts.requests, 6);
    // The thread listing was not read for this.
    assert!(
        fx.api_requests()
            .iter()
            .all(|r| !r.path.contains("comments"))
    );
}

/// A non-admin reads `branches/{b}` (approvals, required contexts) but not the rule's name,
/// so the rest of the rule is unknown, never "off"; a stale approval is then not counted.
#[tokio::test]
async fn a_non_admin_gets_the_branch_and_an_unknown_rule() {
    let fx = Fixture::start("readiness_forbidden_forgejo", "fj_write").await;
    let facts = fx.facts().await;
    assert_eq!(facts.requests, 5);
    assert!(
        fx.api_requests()
            .iter()
            .all(|r| !r.path.contains("branch_protections"))
    );
    let rules = &facts.rules;
    assert!(rules.protected);
    assert_eq!(rules.required_approvals, 1);
    assert_eq!(rules.required_checks, ["CI / *"]);
    // Not read, so not claimed.
    assert!(!rules.up_to_date && !rules.block_on_rejected_reviews);
    assert_eq!(rules.unknown.len(), 1, "{:?}", rules.unknown);
    assert_eq!(rules.unknown[0].source, "branch protection");
    assert!(rules.unknown[0].reason.contains("admins"));
    assert_eq!(
        check(&facts, "CI / test (pull_request)").required,
        Some(true)
    );
    assert_eq!(logins(&facts), ["bob"]);
    assert!(!facts.viewer_can_bypass);

    // A read token: the same.
    let fx = Fixture::start("readiness_forbidden_forgejo", "fj_read").await;
    assert_eq!(fx.facts().await.rules, facts.rules);
}

/// The rule's name given but the rule answering 403 (an admin's rights changed between the
/// two reads, or a proxy): the rule is unknown, the branch's facts stand.
#[tokio::test]
async fn a_forbidden_rule_is_unknown_not_off() {
    let fx = Fixture::start("readiness_behind_forgejo", "fj_write").await;
    fx.sim.inject(Fault {
        method: Some("GET".into()),
        path: "/api/v1/repos/octo/app/branch_protections/main".into(),
        times: 10,
        kind: FaultKind::Status {
            code: 403,
            headers: Vec::new(),
            body: r#"{"message":"token is not an admin of this repository"}"#.into(),
        },
    });
    let facts = fx.facts().await;
    assert_eq!(facts.requests, 6);
    let rules = &facts.rules;
    assert!(rules.protected && !rules.up_to_date);
    assert_eq!(rules.required_approvals, 1);
    assert_eq!(rules.unknown.len(), 1);
    assert_eq!(rules.unknown[0].source, "branch protection \"main\"");
    assert!(
        rules.unknown[0].reason.contains("403"),
        "{:?}",
        rules.unknown
    );
    // The behind count is still read.
    assert_eq!(facts.behind_by, Some(3));
}

/// The simulator's own answer to a non-admin: 403 on the rule, the branch readable.
#[tokio::test]
async fn the_simulator_forbids_the_rule_to_non_admins() {
    let fx = Fixture::start("readiness_forbidden_forgejo", "fj_write").await;
    let base = fx.sim.base_url();
    let base = base.trim_end_matches('/');
    let client = reqwest::Client::new();
    let get = |path: &str| {
        client
            .get(format!("{base}/api/v1/repos/octo/app/{path}"))
            .header("Authorization", "token fj_write")
            .send()
    };
    assert_eq!(get("branch_protections/main").await.unwrap().status(), 403);
    let body = get("branches/main").await.unwrap().bytes().await.unwrap();
    let branch: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(branch["protected"], true);
    assert_eq!(branch["effective_branch_protection_name"], "");
    assert_eq!(fx.sim.contract_violations(), Vec::<String>::new());
}

/// An unknown pull request is a clear not-found error, not a panic or empty facts.
#[tokio::test]
async fn an_unknown_pull_request_is_not_found() {
    let fx = Fixture::start("readiness_clean_forgejo", "fj_write").await;
    let pr = PrRef {
        repo: fx.pr.repo.clone(),
        number: 99,
    };
    let err = fx
        .forge
        .repository()
        .merge_facts(&pr)
        .await
        .expect_err("no such pull request");
    assert!(
        matches!(err, resolve_pr_forge::Error::NotFound { .. }),
        "{err:?}"
    );
}

/// Branch names are data: one with slashes, `$(…)`, `;` and a leading dash reaches the forge
/// percent-encoded in every path (the branch, the rule, the compare) and reads the same facts.
#[tokio::test]
async fn a_hostile_branch_name_is_only_data() {
    let base = "-x/$(id);rm";
    let name = "readiness_behind_forgejo";
    let fx = Fixture::start_with(name, with_base(scenario(name), base), "fj_write").await;
    let facts = fx.facts().await;
    assert_eq!(facts.pull.base_ref, base);
    assert_eq!(facts.requests, 6);
    assert_eq!(facts.rules.sources, [format!("branch protection {base:?}")]);
    assert!(facts.rules.up_to_date && facts.rules.unknown.is_empty());
    assert_eq!(facts.behind_by, Some(3));
    let paths = fx.paths();
    assert!(
        paths.contains(&"/branches/-x/%24%28id%29%3Brm".to_owned()),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/branch_protections/-x%2F%24%28id%29%3Brm".to_owned()),
        "{paths:?}"
    );
    assert!(
        paths.contains(
            &"/compare/c0ffee0000000000000000000000000000000001...-x/%24%28id%29%3Brm".to_owned()
        ),
        "{paths:?}"
    );
}

/// More than 50 reviews: every page is read (2 of 50), one request each, and the latest
/// verdict of each reviewer stands.
#[tokio::test]
async fn every_review_page_is_read() {
    let name = "readiness_clean_forgejo";
    let mut s = scenario(name);
    let pull = &mut s.repos[0].pulls[0];
    let head = pull.head.sha.clone();
    pull.reviews = (0..60u64)
        .map(|i| ReviewSpec {
            id: Some(100 + i),
            author: format!("reviewer{}", i % 30),
            // The first round requests changes, the second approves.
            state: if i < 30 {
                "CHANGES_REQUESTED"
            } else {
                "APPROVED"
            }
            .to_owned(),
            body: String::new(),
            submitted_at: Some(format!("2024-09-02T09:{:02}:00Z", i % 60)),
            commit_id: Some(head.clone()),
            minimized: None,
            official: None,
        })
        .collect();
    let fx = Fixture::start_with(name, s, "fj_write").await;
    let facts = fx.facts().await;
    assert_eq!(facts.requests, 7);
    let review_pages = fx
        .api_requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/reviews"))
        .count();
    assert_eq!(review_pages, 2);
    assert_eq!(facts.reviews.len(), 30);
    assert!(
        facts
            .reviews
            .iter()
            .all(|r| r.verdict == ReviewVerdict::Approved)
    );
}

/// A base branch that cannot be read (deleted, or hidden): its rules are unknown and no
/// check is said to be required or not.
#[tokio::test]
async fn an_unreadable_base_branch_leaves_the_rules_unknown() {
    let fx = Fixture::start("readiness_clean_forgejo", "fj_write").await;
    fx.sim.inject(Fault {
        method: Some("GET".into()),
        path: "/api/v1/repos/octo/app/branches/main".into(),
        times: 10,
        kind: FaultKind::Status {
            code: 404,
            headers: Vec::new(),
            body: r#"{"message":"branch does not exist"}"#.into(),
        },
    });
    let facts = fx.facts().await;
    assert_eq!(facts.requests, 5);
    assert!(!facts.rules.protected);
    assert_eq!(facts.rules.unknown.len(), 1);
    assert!(facts.rules.unknown[0].reason.contains("\"main\""));
    assert!(facts.checks.iter().all(|c| c.required.is_none()));
    assert!(!facts.viewer_can_bypass);
}

/// A forge failing on the statuses fails the facts with a categorized error (after the
/// client's retries), never a panic or facts with the checks missing.
#[tokio::test]
async fn a_failing_status_read_is_an_api_error() {
    let fx = Fixture::start("readiness_clean_forgejo", "fj_write").await;
    fx.sim.inject(Fault {
        method: Some("GET".into()),
        path: "/api/v1/repos/octo/app/commits/*".into(),
        times: 10,
        kind: FaultKind::Status {
            code: 500,
            headers: Vec::new(),
            body: r#"{"message":"internal error"}"#.into(),
        },
    });
    let err = fx
        .forge
        .repository()
        .merge_facts(&fx.pr)
        .await
        .expect_err("the statuses cannot be read");
    let err = resolve_pr_core::Error::from(err);
    assert_eq!(err.category, resolve_pr_core::Category::Api, "{err:?}");
}
