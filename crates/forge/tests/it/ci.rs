//! CI on both forge families against the simulator: check runs and statuses of a PR's head
//! commit (every page, conditional polling, completion over polls), required checks, Actions
//! jobs and runs, logs streamed from blob storage on another host (tail-only for huge logs),
//! expired and failing logs, annotations and artifacts. The request logs prove round trips.

use std::sync::Arc;

use futures_util::StreamExt;
use resolve_pr_core::{Category, Error, PrRef, RepoRef};
use resolve_pr_forge::{
    ActionsJobRef, CheckConclusion, CheckKind, CheckState, CiSnapshot, ClientOptions, Forge, Known,
    LogStream, RequiredChecks,
};
use resolve_pr_forge_sim::{CheckRunSpec, RecordedRequest, Scenario, Sim, SimHandle, StatusSpec};
use resolve_pr_testkit::forge::{fast_options, fast_retry, forges_for};

const GH_TOKEN: &str = "ghp_write";
const FJ_TOKEN: &str = "fj_write";
const MIB: u64 = 1024 * 1024;

struct Fixture {
    sim: SimHandle,
    forge: Arc<dyn Forge>,
    base: String,
}

impl Fixture {
    async fn start(name: &str) -> Fixture {
        Fixture::start_with(name, |_| {}).await
    }

    async fn start_with(name: &str, change: impl FnOnce(&mut Scenario)) -> Fixture {
        let mut scenario = Scenario::builtin(name).expect("a built-in scenario");
        change(&mut scenario);
        let github = !(name.ends_with("_forgejo") || name.ends_with("_gitea"));
        let sim = Sim::start(scenario).await.expect("the simulator starts");
        let base = sim.base_url().trim_end_matches('/').to_owned();
        let forges = forges_for(
            &base,
            if github { "github" } else { "forgejo" },
            if github { GH_TOKEN } else { FJ_TOKEN },
            // Tests count the requests of a failure that outlasts two retries.
            ClientOptions {
                retry: fast_retry(2),
                ..fast_options()
            },
        );
        let repo = RepoRef::parse(&format!("{base}/acme/widgets")).expect("repo");
        let forge = forges.for_repo(&repo).expect("a configured host");
        Fixture { sim, forge, base }
    }

    fn repo(&self) -> RepoRef {
        RepoRef::parse(&format!("{}/acme/widgets", self.base)).expect("repo")
    }

    fn pr(&self, number: u64) -> PrRef {
        PrRef {
            repo: self.repo(),
            number,
        }
    }

    async fn snapshot(&self, number: u64) -> CiSnapshot {
        self.forge
            .checks()
            .ci_snapshot(&self.pr(number))
            .await
            .expect("a CI snapshot")
    }

    fn requests_to(&self, path_part: &str) -> Vec<RecordedRequest> {
        self.sim
            .requests()
            .into_iter()
            .filter(|r| r.path.contains(path_part))
            .collect()
    }

    fn assert_no_contract_violations(&self) {
        assert_eq!(self.sim.contract_violations(), Vec::<String>::new());
    }
}

fn check<'a>(snapshot: &'a CiSnapshot, name: &str) -> &'a resolve_pr_forge::Check {
    snapshot
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name:?} in {:#?}", snapshot.checks))
}

fn assert_category<T: std::fmt::Debug>(
    result: Result<T, resolve_pr_forge::Error>,
    category: Category,
) -> Error {
    match result {
        Ok(value) => panic!("expected a {category:?} error, got {value:?}"),
        Err(e) => {
            // What the agent sees: the forge error through its one conversion.
            let e = Error::from(e);
            assert_eq!(e.category, category, "{e:#?}");
            e
        }
    }
}

/// Reads the stream to its end, counting bytes and keeping only the last `keep`.
async fn drain(mut log: LogStream, keep: usize) -> (u64, Vec<u8>) {
    let mut count = 0u64;
    let mut tail: Vec<u8> = Vec::new();
    while let Some(chunk) = log.chunks.next().await {
        let chunk = chunk.expect("a log chunk");
        count += chunk.len() as u64;
        tail.extend_from_slice(&chunk);
        if tail.len() > keep {
            tail.drain(..tail.len() - keep);
        }
    }
    (count, tail)
}

/// The sources of a snapshot's required checks that could not be read.
fn unread(snap: &CiSnapshot) -> Vec<&str> {
    snap.required
        .unread
        .iter()
        .map(|u| u.source.as_str())
        .collect()
}

fn job(run_id: u64, job_id: u64) -> ActionsJobRef {
    ActionsJobRef { run_id, job_id }
}

// ---------------------------------------------------------------------------------------
// GitHub: snapshots

#[tokio::test]
async fn github_snapshot_maps_check_runs_statuses_and_required_checks() {
    let fx = Fixture::start("ci_failing").await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.head_sha, "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678");
    assert_eq!(snap.checks.len(), 6, "{:#?}", snap.checks);
    assert!(!snap.unchanged);

    let pytest = check(&snap, "test / pytest");
    assert_eq!(pytest.kind, CheckKind::CheckRun);
    assert_eq!(pytest.id, 9201);
    assert_eq!(
        (pytest.state, pytest.conclusion),
        (CheckState::Completed, Some(CheckConclusion::Failure))
    );
    assert_eq!(pytest.app.as_deref(), Some("github-actions"));
    assert_eq!(pytest.actions_job, Some(job(9101, 9201)));
    assert_eq!(pytest.annotations_count, 1);
    assert!(
        pytest
            .details_url
            .as_deref()
            .unwrap()
            .ends_with("/acme/widgets/actions/runs/9101/job/9201")
    );
    assert_eq!(
        check(&snap, "test / cargo").actions_job,
        Some(job(9101, 9202))
    );
    assert_eq!(
        check(&snap, "lint").conclusion,
        Some(CheckConclusion::Success)
    );
    assert_eq!(
        check(&snap, "docs").conclusion,
        Some(CheckConclusion::Skipped)
    );

    let circle = check(&snap, "ci/circleci: integration");
    assert_eq!(circle.app.as_deref(), Some("circleci-checks"));
    assert_eq!(circle.actions_job, None);
    assert_eq!(circle.title.as_deref(), Some("2 tests failed"));
    assert!(
        circle
            .text
            .as_deref()
            .unwrap()
            .contains("test_pay_with_card")
    );

    let jenkins = check(&snap, "ci/jenkins");
    assert_eq!(jenkins.kind, CheckKind::Status);
    assert_eq!(jenkins.conclusion, Some(CheckConclusion::Failure));
    assert_eq!(
        jenkins.details_url.as_deref(),
        Some("https://jenkins.example.com/job/widgets/job/PR-7/88/")
    );
    assert_eq!(
        jenkins.title.as_deref(),
        Some("Build #88 failed: 3 tests failed")
    );

    // Rulesets name them; classic protection over REST is for admins (404 to this writer),
    // and GraphQL's `refUpdateRule` shows a writer no classic rule, so the set is complete;
    // GraphQL also answered for every check that has not passed.
    assert_eq!(snap.required.names, ["test / pytest", "ci/jenkins"]);
    assert_eq!(snap.required.known, Known::Complete);
    assert!(unread(&snap).is_empty());
    assert_eq!(snap.required.is_required("test / cargo"), Some(false));
    assert_eq!(snap.required.is_required("ci/jenkins"), Some(true));
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_snapshot_walks_every_page_of_check_runs() {
    let fx = Fixture::start_with("ci_failing", |s| {
        let pull = &mut s.repos[0].pulls[0];
        for n in 1..=130 {
            pull.check_runs.push(CheckRunSpec {
                id: None,
                name: format!("matrix ({n})"),
                status: "completed".into(),
                conclusion: Some("success".into()),
                head_sha: None,
                started_at: None,
                completed_at: None,
                details_url: None,
                app: Some("github-actions-matrix".into()),
                job_id: None,
                title: None,
                summary: None,
                text: None,
                annotations: Vec::new(),
                complete_after: None,
            });
        }
    })
    .await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.checks.len(), 136);
    assert!(snap.checks.iter().any(|c| c.name == "matrix (130)"));
    let pages: Vec<Option<String>> = fx
        .requests_to("/check-runs")
        .into_iter()
        .map(|r| r.query)
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(pages[1].as_deref().unwrap().contains("page=2"));
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_polling_an_unchanged_commit_is_all_304s() {
    let fx = Fixture::start("ci_failing").await;
    let first = fx.snapshot(7).await;
    fx.sim.clear_requests();
    let second = fx.snapshot(7).await;
    assert!(second.unchanged);
    assert_eq!(first.checks, second.checks);
    assert_eq!(first.required, second.required);
    let requests = fx.sim.requests();
    let ok: Vec<&RecordedRequest> = requests.iter().filter(|r| r.status != 404).collect();
    assert!(ok.len() >= 4, "{requests:#?}");
    for r in &ok {
        assert!(r.conditional, "not conditional: {r:?}");
        assert_eq!(r.status, 304, "{r:?}");
    }
}

#[tokio::test]
async fn github_checks_complete_as_the_commit_is_polled() {
    let fx = Fixture::start("ci_running").await;
    let states = |s: &CiSnapshot| {
        (
            check(s, "test / integration").state,
            check(s, "test / integration").conclusion,
            check(s, "test / e2e").state,
            check(s, "test / e2e").conclusion,
        )
    };
    // complete_after 2 and 4: listings 1-2 show integration running, 3+ failed; e2e queued
    // through listing 4.
    let one = fx.snapshot(8).await;
    assert_eq!(
        states(&one),
        (CheckState::InProgress, None, CheckState::Queued, None)
    );
    assert_eq!(
        check(&one, "test / unit").conclusion,
        Some(CheckConclusion::Failure)
    );
    let two = fx.snapshot(8).await;
    assert!(two.unchanged, "nothing changed between listings 1 and 2");
    let three = fx.snapshot(8).await;
    assert!(!three.unchanged);
    assert_eq!(
        states(&three),
        (
            CheckState::Completed,
            Some(CheckConclusion::Failure),
            CheckState::Queued,
            None
        )
    );
    let _four = fx.snapshot(8).await;
    let five = fx.snapshot(8).await;
    assert_eq!(
        states(&five),
        (
            CheckState::Completed,
            Some(CheckConclusion::Failure),
            CheckState::Completed,
            Some(CheckConclusion::Success)
        )
    );
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_a_check_completed_through_the_control_endpoint_shows_at_once() {
    let fx = Fixture::start("ci_running").await;
    let before = fx.snapshot(8).await;
    assert_eq!(check(&before, "test / e2e").state, CheckState::Queued);
    assert_eq!(fx.sim.complete_check("test / e2e", Some("cancelled")), 1);
    let after = fx.snapshot(8).await;
    assert!(!after.unchanged);
    assert_eq!(
        check(&after, "test / e2e").conclusion,
        Some(CheckConclusion::Cancelled)
    );
    // The job follows its check run.
    let job = fx
        .forge
        .actions()
        .expect("actions")
        .actions_job(&fx.repo(), &job(9401, 9413))
        .await
        .expect("job");
    assert_eq!(job.conclusion, Some(CheckConclusion::Cancelled));
}

#[tokio::test]
async fn github_no_checks_at_all() {
    let fx = Fixture::start("ci_none").await;
    let snap = fx.snapshot(10).await;
    assert!(snap.checks.is_empty());
    // The ruleset endpoint answered (no rules); classic protection over REST said 404 (it
    // is for admins), and GraphQL's `refUpdateRule` shows this writer no classic rule.
    assert!(snap.required.names.is_empty());
    assert_eq!(snap.required.known, Known::Complete);
    assert!(unread(&snap).is_empty());
    fx.assert_no_contract_violations();
}

/// The fixture's token with admin rights, which classic protection over REST needs.
fn as_admin(s: &mut Scenario) {
    for t in &mut s.tokens {
        if t.token == GH_TOKEN {
            t.permission = resolve_pr_forge_sim::Permission::Admin;
        }
    }
}

#[tokio::test]
async fn github_required_checks_from_classic_protection() {
    let fx = Fixture::start_with("ci_passed", as_admin).await;
    let snap = fx.snapshot(9).await;
    assert_eq!(
        snap.required,
        RequiredChecks::complete(vec!["build".to_owned()])
    );
    assert!(
        snap.checks
            .iter()
            .all(|c| c.conclusion == Some(CheckConclusion::Success))
    );
    fx.assert_no_contract_violations();
}

/// Rulesets 404, classic protection 403: GraphQL still tells; only when it cannot either is
/// the required set unknown, and that is no error.
#[tokio::test]
async fn github_unreadable_branch_rules_mean_unknown_not_an_error() {
    for graphql_fails in [false, true] {
        let fx = Fixture::start_with("ci_failing", |s| {
            s.repos[0].branch_protection_forbidden = true;
        })
        .await;
        let status = |path: &str, method: &str, code: u16| resolve_pr_forge_sim::Fault {
            method: Some(method.into()),
            path: path.into(),
            times: 10,
            kind: resolve_pr_forge_sim::FaultKind::Status {
                code,
                headers: Vec::new(),
                body: r#"{"message":"Not Found"}"#.into(),
            },
        };
        fx.sim
            .inject(status("/repos/acme/widgets/rules/branches/*", "GET", 404));
        if graphql_fails {
            fx.sim.inject(status("/graphql", "POST", 404));
        }
        let snap = fx.snapshot(7).await;
        if graphql_fails {
            assert!(snap.required.names.is_empty());
            assert_eq!(snap.required.known, Known::Unknown);
            assert_eq!(
                unread(&snap),
                [
                    "rulesets of branch main",
                    "classic branch protection",
                    "GraphQL isRequired"
                ]
            );
            assert_eq!(snap.required.is_required("test / pytest"), None);
        } else {
            assert_eq!(snap.required.names, ["ci/jenkins", "test / pytest"]);
            assert_eq!(snap.required.known, Known::Partial);
            assert_eq!(snap.required.is_required("test / cargo"), Some(false));
        }
        assert_eq!(snap.checks.len(), 6);
    }
}

/// Classic branch protection needs admin rights: a read token gets 403. GraphQL's
/// `isRequired` needs only read access, so the checks that have not passed are asked there,
/// once per head commit: the next poll of the same checks asks nothing more.
#[tokio::test]
async fn github_required_checks_from_graphql_when_protection_is_forbidden() {
    let fx = Fixture::start_with("ci_failing", |s| {
        s.repos[0].branch_protection_forbidden = true;
        for b in &mut s.repos[0].branch_protections {
            b.classic = true;
        }
    })
    .await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.required.names, ["ci/jenkins", "test / pytest"]);
    assert_eq!(snap.required.known, Known::Partial);
    // The simulator forbids a read token the rulesets too.
    assert_eq!(
        unread(&snap),
        ["rulesets of branch main", "classic branch protection"]
    );
    assert!(snap.required.unread[1].reason.contains("admin rights"));
    let protection = fx.requests_to("/protection/required_status_checks");
    assert_eq!(protection.len(), 1);
    assert_eq!(protection[0].status, 403);
    assert_eq!(fx.requests_to("/rules/branches/").len(), 1);
    assert_eq!(fx.requests_to("/graphql").len(), 1, "one GraphQL query");
    fx.sim.clear_requests();
    let again = fx.snapshot(7).await;
    assert_eq!(again.required, snap.required);
    assert_eq!(fx.requests_to("/graphql").len(), 0, "answered from memory");
    fx.assert_no_contract_violations();
}

/// With classic protection readable, the branch rules are complete: no GraphQL query.
#[tokio::test]
async fn github_readable_protection_needs_no_graphql() {
    let fx = Fixture::start_with("ci_passed", as_admin).await;
    fx.snapshot(9).await;
    assert_eq!(fx.requests_to("/graphql").len(), 0);
}

#[tokio::test]
async fn github_check_without_output_or_details() {
    let fx = Fixture::start("ci_check_without_output").await;
    let snap = fx.snapshot(14).await;
    let c = check(&snap, "buildkite/widgets");
    assert_eq!(c.conclusion, Some(CheckConclusion::Failure));
    assert_eq!(
        (c.title.as_deref(), c.summary.as_deref(), c.text.as_deref()),
        (None, None, None)
    );
    assert_eq!(c.annotations_count, 0);
    assert_eq!(c.actions_job, None);
    // No details_url from the app: the check run's own page is where a person looks.
    assert!(
        c.details_url
            .as_deref()
            .unwrap()
            .ends_with("/acme/widgets/runs/9901")
    );
    fx.assert_no_contract_violations();
}

// ---------------------------------------------------------------------------------------
// GitHub: jobs, runs, logs

#[tokio::test]
async fn github_job_with_steps_and_its_run() {
    let fx = Fixture::start("ci_failing").await;
    let job = fx
        .forge
        .actions()
        .expect("actions")
        .actions_job(&fx.repo(), &job(9101, 9201))
        .await
        .expect("job");
    assert_eq!((job.id, job.run_id), (9201, 9101));
    assert_eq!(job.name, "test / pytest");
    assert_eq!(job.workflow_name.as_deref(), Some("CI"));
    assert_eq!(job.conclusion, Some(CheckConclusion::Failure));
    assert_eq!(job.steps.len(), 6);
    let failed: Vec<&str> = job
        .steps
        .iter()
        .filter(|s| s.conclusion.is_some_and(|c| c.is_failure()))
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(failed, ["Run pytest"]);
    assert_eq!(job.steps[3].number, 4);

    let run = fx
        .forge
        .actions()
        .expect("actions")
        .workflow_run(&fx.repo(), 9101)
        .await
        .expect("run");
    assert_eq!((run.id, run.name.as_str()), (9101, "CI"));
    assert_eq!(run.conclusion, Some(CheckConclusion::Failure));
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_log_is_streamed_from_storage_without_the_token() {
    let fx = Fixture::start("ci_failing").await;
    let log = fx
        .forge
        .actions()
        .expect("actions")
        .job_log(&fx.repo(), &job(9101, 9201), MIB)
        .await
        .expect("log");
    assert_eq!(log.skipped_bytes, 0);
    let total = log.total_bytes.expect("a known length");
    let (count, text) = drain(log, MIB as usize).await;
    assert_eq!(count, total);
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("##[group]Run pytest"));
    assert!(text.contains("FAILED tests/test_basic.py::test_list_diff"));
    assert!(
        text.trim_end()
            .ends_with("##[error]Process completed with exit code 1.")
    );

    let api = fx.requests_to("/actions/jobs/9201/logs");
    assert_eq!(api.len(), 1);
    assert_eq!((api[0].status, api[0].authenticated), (302, true));
    let storage = fx.sim.storage_requests();
    assert_eq!(storage.len(), 1, "{storage:#?}");
    assert!(
        !storage[0].authorization,
        "the token went to the storage host"
    );
    assert_eq!(storage[0].status, 200);
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_huge_log_fetches_only_the_tail() {
    let fx = Fixture::start("ci_huge_log").await;
    let log = fx
        .forge
        .actions()
        .expect("actions")
        .job_log(&fx.repo(), &job(9800, 9801), MIB)
        .await
        .expect("log");
    assert_eq!(log.total_bytes, Some(2 * 1024 * MIB));
    assert_eq!(log.skipped_bytes, 2 * 1024 * MIB - MIB);
    let (count, tail) = drain(log, 4096).await;
    assert_eq!(count, MIB);
    let tail = String::from_utf8_lossy(&tail);
    assert!(
        tail.contains("FAILED tests/test_params.py::test_even[3]"),
        "{tail}"
    );
    assert!(
        tail.trim_end()
            .ends_with("##[error]Process completed with exit code 1.")
    );

    let storage = fx.sim.storage_requests();
    let ranged: Vec<_> = storage.iter().filter(|r| r.range.is_some()).collect();
    assert_eq!(ranged.len(), 1, "{storage:#?}");
    assert_eq!(
        ranged[0].range.as_deref(),
        Some(format!("bytes={}-", 2 * 1024 * MIB - MIB).as_str())
    );
    assert_eq!(ranged[0].status, 206);
    assert!(storage.iter().all(|r| !r.authorization));
}

#[tokio::test]
async fn github_storage_that_ignores_range_has_its_head_dropped() {
    let fx = Fixture::start("ci_huge_log").await;
    let max = 64 * 1024;
    let log = fx
        .forge
        .actions()
        .expect("actions")
        .job_log(&fx.repo(), &job(9800, 9802), max)
        .await
        .expect("log");
    assert_eq!(log.total_bytes, Some(48 * MIB));
    assert_eq!(log.skipped_bytes, 48 * MIB - max);
    let (count, tail) = drain(log, 4096).await;
    assert_eq!(count, max);
    assert!(String::from_utf8_lossy(&tail).contains("14 failed, 9 passed"));
    let storage = fx.sim.storage_requests();
    assert!(storage.iter().any(|r| r.range.is_some() && r.status == 200));
}

#[tokio::test]
async fn github_expired_log_is_a_logical_error() {
    let fx = Fixture::start("ci_log_expired").await;
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .job_log(&fx.repo(), &job(9600, 9601), MIB)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("expired"), "{e:#?}");
    assert!(e.suggestion.unwrap().contains("re-run it"));
    assert!(fx.sim.storage_requests().is_empty());
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_storage_failures_are_categorized_and_name_the_storage() {
    let fx = Fixture::start("ci_log_storage_fails").await;
    let storage_host = fx
        .sim
        .storage_url()
        .trim_start_matches("http://")
        .to_owned();
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .job_log(&fx.repo(), &job(9700, 9701), MIB)
            .await,
        Category::Api,
    );
    assert!(e.error.contains(&storage_host), "{e:#?}");
    assert!(!e.error.contains("sig="), "signed URL query leaked: {e:#?}");
    let tries = fx.sim.storage_requests().len();
    assert_eq!(tries, 3, "a 500 is retried within the policy");

    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .job_log(&fx.repo(), &job(9700, 9702), MIB)
            .await,
        Category::Network,
    );
    assert!(e.error.contains(&storage_host), "{e:#?}");
}

#[tokio::test]
async fn github_log_gone_from_storage_is_a_logical_error() {
    let fx = Fixture::start_with("ci_log_storage_fails", |s| {
        s.repos[0].pulls[0].workflow_jobs[0].log_storage = Some("gone".into());
    })
    .await;
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .job_log(&fx.repo(), &job(9700, 9701), MIB)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("is gone"), "{e:#?}");
    assert_eq!(fx.sim.storage_requests().len(), 1, "a 404 is not retried");
}

#[tokio::test]
async fn github_annotations_of_a_check_run() {
    let fx = Fixture::start("ci_failing").await;
    let annotations = fx
        .forge
        .annotations()
        .expect("annotations")
        .check_annotations(&fx.repo(), 9201)
        .await
        .expect("annotations");
    assert_eq!(annotations.len(), 1);
    let a = &annotations[0];
    assert_eq!(
        (a.path.as_str(), a.start_line, a.level.as_str()),
        ("tests/test_basic.py", Some(23), "failure")
    );
    assert_eq!(a.message, "assert [1, 2, 3, 4] == [1, 2, 4, 4]");
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_artifacts_are_listed_and_unzipped() {
    let fx = Fixture::start("ci_failing").await;
    let artifacts = fx
        .forge
        .actions()
        .expect("actions")
        .run_artifacts(&fx.repo(), 9101)
        .await
        .expect("artifacts");
    assert_eq!(artifacts.len(), 1);
    let junit = &artifacts[0];
    assert_eq!((junit.id, junit.name.as_str()), (9301, "junit-results"));
    assert!(!junit.expired && junit.size_in_bytes > 0);

    let files = fx
        .forge
        .actions()
        .expect("actions")
        .artifact_files(&fx.repo(), junit, ".xml", MIB)
        .await
        .expect("files");
    assert_eq!(files.len(), 1, "only the .xml entry");
    assert_eq!(files[0].0, "junit/pytest.xml");
    let xml = String::from_utf8(files[0].1.clone()).unwrap();
    assert!(xml.contains("<testcase classname=\"tests.test_basic\" name=\"test_list_diff\""));
    assert!(fx.sim.storage_requests().iter().all(|r| !r.authorization));

    // Too large for the budget: refused before downloading.
    fx.sim.clear_requests();
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .artifact_files(&fx.repo(), junit, ".xml", 10)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("limit"), "{e:#?}");
    assert!(fx.requests_to("/zip").is_empty());
    // The archive fits the budget but its unpacked XML does not: stopped while unpacking.
    let xml_len = files[0].1.len() as u64;
    assert!(xml_len > junit.size_in_bytes, "the XML compresses");
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .artifact_files(&fx.repo(), junit, ".xml", junit.size_in_bytes)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("larger than the limit"), "{e:#?}");
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_expired_artifact_is_refused() {
    let fx = Fixture::start_with("ci_failing", |s| {
        s.repos[0].pulls[0].artifacts[0].expired = true;
    })
    .await;
    let artifacts = fx
        .forge
        .actions()
        .expect("actions")
        .run_artifacts(&fx.repo(), 9101)
        .await
        .expect("artifacts");
    assert!(artifacts[0].expired);
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .artifact_files(&fx.repo(), &artifacts[0], ".xml", MIB)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("expired"));
}

// ---------------------------------------------------------------------------------------
// Forgejo / Gitea

#[tokio::test]
async fn forgejo_snapshot_from_statuses_with_actions_jobs() {
    let fx = Fixture::start("ci_failing_forgejo").await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.checks.len(), 4);
    assert!(snap.checks.iter().all(|c| c.kind == CheckKind::Status));
    let test = check(&snap, "CI / test (pull_request)");
    assert_eq!(test.conclusion, Some(CheckConclusion::Failure));
    assert_eq!(test.title.as_deref(), Some("Failing after 2m3s"));
    // Run index 3, job index 0 from the target URL.
    assert_eq!(test.actions_job, Some(job(3, 0)));
    assert_eq!(
        check(&snap, "CI / lint (pull_request)").actions_job,
        Some(job(3, 1))
    );
    let woodpecker = check(&snap, "ci/woodpecker");
    assert_eq!(woodpecker.conclusion, Some(CheckConclusion::Failure));
    assert_eq!(woodpecker.actions_job, None);
    let docs = check(&snap, "CI / docs (pull_request)");
    assert_eq!((docs.state, docs.conclusion), (CheckState::Queued, None));
    assert_eq!(
        snap.required,
        RequiredChecks::complete(vec!["CI / test (pull_request)".to_owned()])
    );

    // Forgejo/Gitea's API sends no ETags, so nothing is ever known to be unchanged.
    let again = fx.snapshot(7).await;
    assert!(!again.unchanged);
    assert_eq!(again.checks, snap.checks);
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn forgejo_walks_every_page_of_statuses_and_keeps_the_newest_per_context() {
    let fx = Fixture::start_with("ci_failing_forgejo", |s| {
        let pull = &mut s.repos[0].pulls[0];
        for n in 1..=60 {
            pull.statuses.push(StatusSpec {
                context: format!("matrix/{n}"),
                state: "success".into(),
                description: None,
                target_url: None,
                created_at: Some("2024-05-01T10:10:00Z".into()),
            });
        }
        // A newer status of an existing context replaces the older one.
        pull.statuses.push(StatusSpec {
            context: "ci/woodpecker".into(),
            state: "success".into(),
            description: Some("Pipeline #89 passed".into()),
            target_url: None,
            created_at: Some("2024-05-01T11:00:00Z".into()),
        });
    })
    .await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.checks.len(), 64);
    let woodpecker = check(&snap, "ci/woodpecker");
    assert_eq!(woodpecker.conclusion, Some(CheckConclusion::Success));
    assert_eq!(woodpecker.title.as_deref(), Some("Pipeline #89 passed"));
    assert_eq!(fx.requests_to("/statuses").len(), 2);
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn forgejo_actions_job_run_and_log() {
    let fx = Fixture::start("ci_failing_forgejo").await;
    let job_ref = job(3, 0);
    let job = fx
        .forge
        .actions()
        .expect("actions")
        .actions_job(&fx.repo(), &job_ref)
        .await
        .expect("job");
    assert_eq!((job.id, job.run_id, job.name.as_str()), (3011, 301, "test"));
    assert_eq!(job.conclusion, Some(CheckConclusion::Failure));
    let names: Vec<&str> = job.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Set up job",
            "Run actions/checkout@v4",
            "Run pytest",
            "Complete job"
        ]
    );
    assert_eq!(job.steps[2].conclusion, Some(CheckConclusion::Failure));

    let run = fx
        .forge
        .actions()
        .expect("actions")
        .workflow_run(&fx.repo(), 3)
        .await
        .expect("run");
    assert_eq!((run.id, run.name.as_str()), (301, "CI"));
    assert_eq!(run.conclusion, Some(CheckConclusion::Failure));

    let log = fx
        .forge
        .actions()
        .expect("actions")
        .job_log(&fx.repo(), &job_ref, MIB)
        .await
        .expect("log");
    let (_, text) = drain(log, MIB as usize).await;
    assert!(String::from_utf8_lossy(&text).contains("##[group]Run pytest"));

    // Tail only: the API's own Range support.
    let log = fx
        .forge
        .actions()
        .expect("actions")
        .job_log(&fx.repo(), &job_ref, 1000)
        .await
        .expect("log");
    assert!(log.skipped_bytes > 0);
    let (count, text) = drain(log, 2000).await;
    assert_eq!(count, 1000);
    assert!(String::from_utf8_lossy(&text).contains("Process completed with exit code 1."));
    assert!(
        fx.requests_to("/actions/jobs/3011/logs")
            .iter()
            .any(|r| r.status == 206)
    );
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn forgejo_artifacts_are_listed_and_unzipped() {
    let fx = Fixture::start("ci_failing_forgejo").await;
    // Run index 3 is run id 301.
    let artifacts = fx
        .forge
        .actions()
        .expect("actions")
        .run_artifacts(&fx.repo(), 3)
        .await
        .expect("artifacts");
    assert_eq!(artifacts.len(), 1);
    assert_eq!(
        (artifacts[0].id, artifacts[0].name.as_str()),
        (3021, "junit-results")
    );
    let files = fx
        .forge
        .actions()
        .expect("actions")
        .artifact_files(&fx.repo(), &artifacts[0], ".xml", MIB)
        .await
        .expect("files");
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, "report.xml");
    assert!(String::from_utf8_lossy(&files[0].1).contains("test_list_diff"));
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn gitea_without_an_actions_api_reports_unsupported() {
    let fx = Fixture::start("ci_failing_gitea").await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.checks.len(), 4);
    assert_eq!(
        check(&snap, "CI / test (pull_request)").actions_job,
        Some(job(3, 0))
    );
    assert_eq!(
        snap.required,
        RequiredChecks::complete(vec!["CI / test (pull_request)".to_owned()])
    );
    let e = assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .job_log(&fx.repo(), &job(3, 0), MIB)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("does not support"), "{e:#?}");
    assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .actions_job(&fx.repo(), &job(3, 0))
            .await,
        Category::Logical,
    );
    assert_category(
        fx.forge
            .actions()
            .expect("actions")
            .run_artifacts(&fx.repo(), 3)
            .await,
        Category::Logical,
    );
    // The description was read once for all of these.
    assert_eq!(fx.requests_to("/swagger.v1.json").len(), 1);
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn forgejo_unreadable_branch_protections_mean_unknown() {
    let fx = Fixture::start_with("ci_failing_forgejo", |s| {
        s.repos[0].branch_protection_forbidden = true;
    })
    .await;
    let snap = fx.snapshot(7).await;
    assert_eq!(snap.required.known, Known::Unknown);
    assert_eq!(unread(&snap), ["branch protection"]);
    assert!(snap.required.unread[0].reason.contains("admin rights"));
    assert_eq!(snap.required.is_required("CI / test (pull_request)"), None);
    assert_eq!(snap.checks.len(), 4);
}

/// A ruleset read that worked does not make the set look complete when classic protection
/// is forbidden and GraphQL, which would have told, fails: every way it can fail (an error
/// in a 200, a 502 that outlasts the retries, a reset connection) leaves the checks the
/// rulesets do not name unknown, never "not required", and says what failed.
#[tokio::test]
async fn github_required_checks_stay_unknown_when_graphql_fails() {
    use resolve_pr_forge_sim::{Fault, FaultKind};
    let faults: Vec<(&str, FaultKind)> = vec![
        (
            "GraphQL errors",
            FaultKind::GraphqlError {
                message: "Something went wrong".into(),
                error_type: Some("FORBIDDEN".into()),
                keep_data: false,
            },
        ),
        (
            "502",
            FaultKind::Status {
                code: 502,
                headers: Vec::new(),
                body: "bad gateway".into(),
            },
        ),
        ("reset", FaultKind::ResetConnection),
    ];
    for (what, kind) in faults {
        let fx = Fixture::start("ci_failing").await;
        // Rulesets are readable with read access; classic protection needs admin rights.
        fx.sim.inject(Fault {
            method: Some("GET".into()),
            path: "/repos/acme/widgets/branches/*".into(),
            times: 100,
            kind: FaultKind::Status {
                code: 403,
                headers: Vec::new(),
                body: r#"{"message":"Resource not accessible by personal access token"}"#.into(),
            },
        });
        fx.sim.inject(Fault {
            method: Some("POST".into()),
            path: "/graphql".into(),
            times: 100,
            kind,
        });
        let snap = fx.snapshot(7).await;
        assert_eq!(
            snap.required.names,
            ["test / pytest", "ci/jenkins"],
            "{what}"
        );
        assert_eq!(snap.required.known, Known::Partial, "{what}");
        assert_eq!(
            unread(&snap),
            ["classic branch protection", "GraphQL isRequired"],
            "{what}"
        );
        assert!(
            snap.required.unread[1].reason.contains("failed"),
            "{what}: {:?}",
            snap.required.unread
        );
        // The rulesets' checks are required; the others are unknown, not "not required".
        assert_eq!(
            snap.required.is_required("ci/jenkins"),
            Some(true),
            "{what}"
        );
        assert_eq!(snap.required.is_required("test / cargo"), None, "{what}");
        assert_eq!(
            snap.required.is_required("ci/circleci: integration"),
            None,
            "{what}"
        );
    }
}

/// A writer cannot read classic protection over REST (admins only), but GraphQL's
/// `refUpdateRule` shows it the rule, with the required checks that never reported: the set
/// is complete, so the rollup waits for them instead of calling a green head passed.
#[tokio::test]
async fn github_a_writer_reads_classic_protection_through_graphql() {
    let fx = Fixture::start_with("ci_passed", |s| {
        for b in &mut s.repos[0].branch_protections {
            b.required_checks
                .extend(["e2e (linux)".to_owned(), "e2e (mac)".to_owned()]);
        }
    })
    .await;
    let snap = fx.snapshot(9).await;
    assert_eq!(snap.required.known, Known::Complete, "{:?}", snap.required);
    for name in ["build", "e2e (linux)", "e2e (mac)"] {
        assert!(snap.required.names.iter().any(|n| n == name), "{name}");
    }
    assert_eq!(
        fx.requests_to("/protection/required_status_checks")[0].status,
        404
    );
    assert_eq!(fx.requests_to("/graphql").len(), 1);
    fx.sim.clear_requests();
    fx.snapshot(9).await;
    assert_eq!(fx.requests_to("/graphql").len(), 0, "answered from memory");
    fx.assert_no_contract_violations();
}

/// An admin whose token lacks the Administration permission reads classic protection
/// neither over REST nor whole; `refUpdateRule` shows it only what binds it, nothing when
/// the rule is not enforced on admins: the set stays partial, never "no rule".
#[tokio::test]
async fn github_an_admin_token_without_administration_leaves_classic_protection_unread() {
    let fx = Fixture::start_with("ci_passed", |s| {
        for t in &mut s.tokens {
            if t.token == GH_TOKEN {
                t.permission = resolve_pr_forge_sim::Permission::Admin;
                t.administration = false;
            }
        }
    })
    .await;
    let snap = fx.snapshot(9).await;
    assert_eq!(snap.required.known, Known::Partial, "{:?}", snap.required);
    assert_eq!(unread(&snap), ["classic branch protection"]);
    fx.assert_no_contract_violations();
}
