//! Review threads and reviews on both forge families against the simulator: listing whole
//! (past every page limit), replying, resolving, the errors an agent must be able to act on,
//! and Forgejo/Gitea's probed capabilities. The request log proves the round trips.

use std::sync::Arc;

use resolve_pr_core::{Category, Error, PrRef, RepoRef};
use resolve_pr_forge::{Forge, ForgeKind, PageRequest, ReviewState, ReviewThread};
use resolve_pr_forge_sim::{Fault, FaultKind, RecordedRequest, Scenario, Sim, SimHandle};
use resolve_pr_testkit::forge::{fast_options, forges_for};

const GH_WRITE: &str = "ghp_write";
const GH_READ: &str = "ghp_read";
const FJ_WRITE: &str = "fj_write";
const FJ_READ: &str = "fj_read";

struct Fixture {
    sim: SimHandle,
    forge: Arc<dyn Forge>,
    base: String,
}

impl Fixture {
    /// The built-in scenario `name`, and a client with `token` configured for its host.
    async fn start(name: &str, token: &str) -> Fixture {
        Fixture::start_with(name, token, |_| {}).await
    }

    /// Like [`Fixture::start`], with the scenario changed first.
    async fn start_with(name: &str, token: &str, change: impl FnOnce(&mut Scenario)) -> Fixture {
        let mut scenario = Scenario::builtin(name).expect("a built-in scenario");
        change(&mut scenario);
        let github = scenario_is_github(name);
        let sim = Sim::start(scenario).await.expect("the simulator starts");
        let base = sim.base_url().trim_end_matches('/').to_owned();
        let forges = forges_for(
            &base,
            if github { "github" } else { "forgejo" },
            token,
            fast_options(),
        );
        let repo = RepoRef::parse(&format!("{base}/acme/widgets")).expect("repo");
        let forge = forges.for_repo(&repo).expect("a configured host");
        Fixture { sim, forge, base }
    }

    fn pr(&self, repo: &str, number: u64) -> PrRef {
        PrRef {
            repo: RepoRef::parse(&format!("{}/acme/{repo}", self.base)).expect("repo"),
            number,
        }
    }

    fn api_requests(&self) -> Vec<RecordedRequest> {
        self.sim
            .requests()
            .into_iter()
            .filter(|r| !r.path.ends_with("/version"))
            .collect()
    }

    fn count(&self, method: &str, path_ends_with: &str) -> usize {
        self.api_requests()
            .iter()
            .filter(|r| r.method == method && r.path.ends_with(path_ends_with))
            .count()
    }

    fn assert_no_contract_violations(&self) {
        assert_eq!(self.sim.contract_violations(), Vec::<String>::new());
    }
}

fn scenario_is_github(name: &str) -> bool {
    !(name.ends_with("_forgejo") || name.ends_with("_gitea"))
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

fn bodies(thread: &ReviewThread) -> Vec<&str> {
    thread.comments.iter().map(|c| c.body.as_str()).collect()
}

fn thread<'a>(threads: &'a [ReviewThread], id: &str) -> &'a ReviewThread {
    threads
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no thread {id} in {threads:#?}"))
}

// ---------------------------------------------------------------------------------------
// GitHub

#[tokio::test]
async fn github_lists_150_threads_and_a_131_comment_thread_whole() {
    let fx = Fixture::start("threads_over_100", GH_WRITE).await;
    let threads = fx
        .forge
        .threads()
        .review_threads(&fx.pr("busy", 1))
        .await
        .expect("threads");
    assert_eq!(threads.len(), 151);
    let long = &threads[0];
    assert_eq!(long.id, "PRRT_long_thread");
    assert_eq!(long.comments.len(), 131);
    assert_eq!(long.comments[0].body, "Let's discuss this at length.");
    let replies: Vec<String> = (1..=130).map(|n| format!("Reply {n} of 130")).collect();
    assert_eq!(
        bodies(long)[1..],
        replies.iter().map(String::as_str).collect::<Vec<_>>()[..]
    );
    assert!(
        long.comments[1..]
            .iter()
            .all(|c| c.in_reply_to_id == Some(7001))
    );
    let generated: Vec<String> = threads[1..]
        .iter()
        .map(|t| t.comments[0].body.clone())
        .collect();
    let expected: Vec<String> = (1..=150).map(|n| format!("Finding {n} of 150")).collect();
    assert_eq!(generated, expected, "every thread, in order");
    let unresolved = threads.iter().filter(|t| !t.is_resolved).count();
    assert_eq!(unresolved, 1 + 75);
    assert_eq!(threads[1].comments[0].author.login, "coderabbitai[bot]");
    assert!(threads[1].comments[0].author.is_bot);
    // Two pages of threads, one follow-up for the long thread's second page of comments.
    let requests = fx.api_requests();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    assert!(
        requests
            .iter()
            .all(|r| r.method == "POST" && r.path == "/graphql")
    );
    fx.assert_no_contract_violations();
}

/// `review_feedback` reads a pull request's threads, reviews and conversation comments in a
/// few 1-point requests and keeps them: the next call costs one version request (per 100
/// threads) while nothing changed, and reads again once something did.
#[tokio::test]
async fn github_review_feedback_is_read_once_and_revalidated() {
    let fx = Fixture::start("threads_mixed", GH_WRITE).await;
    let pr = fx.pr("widgets", 12);
    let feedback = fx
        .forge
        .threads()
        .review_feedback(&pr)
        .await
        .expect("feedback");
    let cold = fx.api_requests();
    assert_eq!(
        cold.len(),
        2,
        "everything, then the open threads' reactions: {cold:#?}"
    );
    assert!(
        cold.iter().all(|r| r.graphql_points == Some(1)),
        "{cold:#?}"
    );
    assert_eq!(feedback.pull.number, 12);
    assert_eq!(feedback.pull.author.login, "bob");

    // The same threads as the thread listing, open ones whole with their reactions.
    let threads = fx
        .forge
        .threads()
        .review_threads(&pr)
        .await
        .expect("threads");
    let open = |ts: &[ReviewThread]| -> Vec<ReviewThread> {
        ts.iter().filter(|t| !t.is_resolved).cloned().collect()
    };
    assert_eq!(open(&feedback.threads), open(&threads));
    assert_eq!(
        feedback.threads.iter().map(|t| &t.id).collect::<Vec<_>>(),
        threads.iter().map(|t| &t.id).collect::<Vec<_>>()
    );
    let outdated = thread(&feedback.threads, "PRRT_mixed_outdated");
    assert_eq!((outdated.line, outdated.original_line), (None, Some(3)));
    // Reviews that can carry feedback, as REST lists them.
    let reviews: Vec<_> = fx
        .forge
        .threads()
        .reviews(&pr)
        .await
        .expect("reviews")
        .into_iter()
        .filter(|r| {
            matches!(
                r.state,
                ReviewState::ChangesRequested | ReviewState::Commented
            )
        })
        .collect();
    assert_eq!(feedback.reviews, reviews);
    let comments = fx
        .forge
        .pull_requests()
        .list_pr_comments(
            &pr,
            PageRequest {
                page: 1,
                per_page: 100,
            },
        )
        .await
        .expect("comments")
        .items;
    assert_eq!(feedback.issue_comments, comments);

    fx.sim.clear_requests();
    let again = fx
        .forge
        .threads()
        .review_feedback(&pr)
        .await
        .expect("feedback");
    assert!(Arc::ptr_eq(&feedback, &again), "the snapshot is reused");
    let version = fx.api_requests();
    assert_eq!(version.len(), 1, "{version:#?}");
    assert_eq!(version[0].graphql_points, Some(1));

    // A new comment changes the version, and everything is read again.
    fx.forge
        .pull_requests()
        .create_pr_comment(&pr, "one more thing")
        .await
        .expect("commented");
    let changed = fx
        .forge
        .threads()
        .review_feedback(&pr)
        .await
        .expect("feedback");
    assert!(!Arc::ptr_eq(&feedback, &changed));
    assert_eq!(changed.issue_comments.len(), comments.len() + 1);
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_threads_of_every_kind() {
    let fx = Fixture::start("threads_mixed", GH_READ).await;
    let threads = fx
        .forge
        .threads()
        .review_threads(&fx.pr("widgets", 12))
        .await
        .expect("threads");
    let ids: Vec<&str> = threads.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "PRRT_mixed_bot_open",
            "PRRT_mixed_multiline",
            "PRRT_mixed_resolved",
            "PRRT_mixed_outdated",
            "PRRT_mixed_file_level",
            "PRRT_mixed_ghost",
            "PRRT_mixed_left_resolved",
        ]
    );
    let bot = thread(&threads, "PRRT_mixed_bot_open");
    assert_eq!((bot.is_resolved, bot.is_outdated), (false, false));
    assert_eq!(
        (bot.path.as_deref(), bot.line, bot.diff_side.as_deref()),
        (Some("src/fetch.rs"), Some(42), Some("RIGHT"))
    );
    let first = &bot.comments[0];
    assert_eq!(
        (first.id, first.author.login.as_str(), first.author.is_bot),
        (9001, "coderabbitai[bot]", true)
    );
    assert!(first.node_id.is_some());
    assert_eq!(first.in_reply_to_id, None);
    assert_eq!(bot.comments[1].in_reply_to_id, Some(9001));
    let reactions = first.reactions.clone().expect("reactions");
    assert_eq!(
        (reactions.plus_one, reactions.eyes, reactions.total_count),
        (2, 1, 3)
    );
    assert!(first.body.contains("Unbounded retry loop"));
    let multi = thread(&threads, "PRRT_mixed_multiline");
    assert_eq!((multi.start_line, multi.line), (Some(10), Some(14)));
    let resolved = thread(&threads, "PRRT_mixed_resolved");
    assert!(resolved.is_resolved);
    assert_eq!(
        resolved.resolved_by.as_ref().map(|a| a.login.as_str()),
        Some("alice")
    );
    assert!(thread(&threads, "PRRT_mixed_outdated").is_outdated);
    assert_eq!(
        thread(&threads, "PRRT_mixed_file_level")
            .subject_type
            .as_deref(),
        Some("FILE")
    );
    let ghost = &thread(&threads, "PRRT_mixed_ghost").comments[0].author;
    assert_eq!((ghost.login.as_str(), ghost.is_bot), ("ghost", false));
    assert_eq!(
        thread(&threads, "PRRT_mixed_left_resolved")
            .diff_side
            .as_deref(),
        Some("LEFT")
    );
    // A read token may not resolve or reply, and GitHub says so per thread.
    assert!(threads.iter().all(|t| !t.viewer_can_resolve));
    assert_eq!(fx.api_requests().len(), 1);
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_reviews_come_whole_with_their_states() {
    let fx = Fixture::start("threads_mixed", GH_READ).await;
    let reviews = fx
        .forge
        .threads()
        .reviews(&fx.pr("widgets", 12))
        .await
        .expect("reviews");
    let summary: Vec<(u64, &str, ReviewState)> = reviews
        .iter()
        .map(|r| (r.id, r.author.login.as_str(), r.state))
        .collect();
    assert_eq!(
        summary[..3],
        [
            (501, "coderabbitai[bot]", ReviewState::Commented),
            (502, "alice", ReviewState::ChangesRequested),
            (503, "carol", ReviewState::Approved),
        ]
    );
    assert!(reviews[0].author.is_bot);
    assert!(reviews[0].body.contains("Actionable comments posted: 3"));
    assert_eq!(reviews[2].body, "");
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_reply_and_resolve_round_trip() {
    let fx = Fixture::start("threads_mixed", GH_WRITE).await;
    let pr = fx.pr("widgets", 12);
    let reply = fx
        .forge
        .threads()
        .reply_to_review_thread(
            &pr,
            "PRRT_mixed_bot_open",
            "Fixed in 3f2a; `a;rm -rf ~` stays text.",
        )
        .await
        .expect("reply");
    assert_eq!(reply.body, "Fixed in 3f2a; `a;rm -rf ~` stays text.");
    assert_eq!(reply.author.login, "alice");
    assert_eq!(reply.in_reply_to_id, Some(9001));
    let after = fx
        .forge
        .threads()
        .review_thread(&pr, "PRRT_mixed_bot_open")
        .await
        .expect("thread");
    assert_eq!(after.comments.last(), Some(&reply));

    fx.sim.clear_requests();
    let resolved = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "PRRT_mixed_bot_open", true)
        .await
        .expect("resolve");
    assert!(resolved.is_resolved);
    assert_eq!(
        resolved.resolved_by.as_ref().map(|a| a.login.as_str()),
        Some("alice")
    );
    assert_eq!(resolved.comments.len(), 3);
    assert_eq!(
        fx.api_requests().len(),
        2,
        "check the thread, then the mutation"
    );

    // Idempotent: resolving again writes nothing and answers the same thread.
    fx.sim.clear_requests();
    let again = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "PRRT_mixed_bot_open", true)
        .await
        .expect("resolve again");
    assert_eq!(again, resolved);
    assert_eq!(fx.api_requests().len(), 1);

    let reopened = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "PRRT_mixed_bot_open", false)
        .await
        .expect("unresolve");
    assert!(!reopened.is_resolved && reopened.resolved_by.is_none());
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_thread_errors_are_actionable() {
    let fx = Fixture::start("threads_mixed", GH_WRITE).await;
    let pr = fx.pr("widgets", 12);
    let e = assert_category(
        fx.forge
            .threads()
            .review_thread(&pr, "PRRT_other_pull")
            .await,
        Category::User,
    );
    assert!(e.error.contains("acme/widgets#13"), "{}", e.error);
    let e = assert_category(
        fx.forge
            .threads()
            .set_review_thread_resolved(&pr, "PRRT_other_pull", true)
            .await,
        Category::User,
    );
    assert!(e.error.contains("belongs to"), "{}", e.error);
    let e = assert_category(
        fx.forge.threads().review_thread(&pr, "PRRT_nope").await,
        Category::User,
    );
    assert!(
        e.error.contains("no review thread PRRT_nope"),
        "{}",
        e.error
    );
    assert_category(
        fx.forge
            .threads()
            .reply_to_review_thread(&pr, "PRRT_nope", "hello")
            .await,
        Category::User,
    );
    fx.sim.clear_requests();
    let e = assert_category(
        fx.forge
            .threads()
            .reply_to_review_thread(&pr, "PRRT_mixed_bot_open", "  ")
            .await,
        Category::User,
    );
    assert!(e.error.contains("empty"));
    assert!(fx.api_requests().is_empty(), "an empty reply sends nothing");
    // An issue number or a missing pull request: "not found", never "no threads".
    let e = assert_category(
        fx.forge
            .threads()
            .review_threads(&fx.pr("widgets", 99))
            .await,
        Category::User,
    );
    assert!(e.error.contains("not found"), "{}", e.error);
    assert!(
        fx.api_requests().iter().all(|r| r.path == "/graphql"),
        "only GraphQL reads"
    );
    fx.assert_no_contract_violations();
}

fn graphql_fault(times: u32, message: &str, error_type: Option<&str>, keep_data: bool) -> Fault {
    Fault {
        method: Some("POST".to_owned()),
        path: "/graphql".to_owned(),
        times,
        kind: FaultKind::GraphqlError {
            message: message.to_owned(),
            error_type: error_type.map(str::to_owned),
            keep_data,
        },
    }
}

#[tokio::test]
async fn github_graphql_errors_in_a_200_are_api_errors() {
    let fx = Fixture::start("threads_mixed", GH_WRITE).await;
    for keep_data in [false, true] {
        fx.sim.inject(graphql_fault(
            1,
            "Field 'reviewThreads' doesn't accept argument 'last'",
            None,
            keep_data,
        ));
        let e = assert_category(
            fx.forge
                .threads()
                .review_threads(&fx.pr("widgets", 12))
                .await,
            Category::Api,
        );
        assert!(e.error.contains("doesn't accept"), "{}", e.error);
    }
}

/// GitHub answers a query that ran out of time with a 200 and an error; like a 502 it is
/// retried, within the bounds (`clients.rs` shows a mutation never is).
#[tokio::test]
async fn github_graphql_timeouts_are_retried_for_queries_only() {
    let pr_number = 12;
    for (message, error_type) in [
        (
            "Something went wrong while executing your query. This may be the result of a \
             timeout, or it could be a GitHub bug. Please include `CC48:1:2:3` when reporting \
             this issue.",
            None,
        ),
        ("timedout", None),
        ("Query timed out", Some("TIMEOUT")),
    ] {
        let fx = Fixture::start("threads_mixed", GH_WRITE).await;
        let pr = fx.pr("widgets", pr_number);
        fx.sim.inject(graphql_fault(1, message, error_type, false));
        let threads = fx
            .forge
            .threads()
            .review_threads(&pr)
            .await
            .expect("retried");
        assert!(!threads.is_empty());
        // Persistent: an api error after the bounded retries, not a hang.
        fx.sim.clear_requests();
        fx.sim
            .inject(graphql_fault(100, message, error_type, false));
        let e = assert_category(fx.forge.threads().review_threads(&pr).await, Category::Api);
        assert!(
            e.error
                .contains(message.split('.').next().unwrap_or(message)),
            "{}",
            e.error
        );
        let tries = fx.api_requests().len();
        assert!((2..=4).contains(&tries), "{tries} requests");
    }
}

#[tokio::test]
async fn github_read_token_cannot_reply_or_resolve() {
    let fx = Fixture::start("threads_mixed", GH_READ).await;
    let pr = fx.pr("widgets", 12);
    let e = assert_category(
        fx.forge
            .threads()
            .set_review_thread_resolved(&pr, "PRRT_mixed_bot_open", true)
            .await,
        Category::Authentication,
    );
    assert!(e.suggestion.is_some());
    assert_category(
        fx.forge
            .threads()
            .reply_to_review_thread(&pr, "PRRT_mixed_bot_open", "hi")
            .await,
        Category::Authentication,
    );
    let after = fx
        .forge
        .threads()
        .review_thread(&pr, "PRRT_mixed_bot_open")
        .await
        .expect("thread");
    assert_eq!(
        (after.is_resolved, after.comments.len()),
        (false, 2),
        "nothing written"
    );
    let caps = fx
        .forge
        .threads()
        .thread_capabilities(
            &pr,
            &fx.forge
                .threads()
                .review_threads(&pr)
                .await
                .expect("threads"),
        )
        .await
        .expect("capabilities");
    assert!(caps.can_reply && caps.can_resolve && caps.missing.is_none());
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn github_pull_request_without_threads() {
    let fx = Fixture::start("no_comments", GH_WRITE).await;
    let threads = fx.forge.threads().review_threads(&fx.pr("quiet", 1)).await;
    match threads {
        Ok(threads) => assert!(threads.is_empty()),
        Err(e) => panic!("{e:#?}"),
    }
    fx.assert_no_contract_violations();
}

// ---------------------------------------------------------------------------------------
// Forgejo / Gitea

#[tokio::test]
async fn forgejo_conversations_are_grouped_like_the_web_ui() {
    for name in ["threads_mixed_forgejo", "threads_mixed_gitea"] {
        let fx = Fixture::start(name, FJ_READ).await;
        let threads = fx
            .forge
            .threads()
            .review_threads(&fx.pr("widgets", 12))
            .await
            .expect("threads");
        let shape: Vec<(&str, Vec<u64>)> = threads
            .iter()
            .map(|t| (t.id.as_str(), t.comments.iter().map(|c| c.id).collect()))
            .collect();
        println!("{name}: {shape:?}");
        let bot = thread(&threads, "comment-9001");
        assert_eq!(
            bodies(bot).len(),
            2,
            "{name}: a reply joins its conversation"
        );
        assert_eq!(bot.comments[1].in_reply_to_id, Some(9001));
        assert_eq!(
            (bot.line, bot.diff_side.as_deref()),
            (Some(42), Some("RIGHT"))
        );
        assert_eq!(bot.comments[0].author.login, "coderabbitai");
        let other_review = thread(&threads, "comment-9010");
        assert_eq!(other_review.line, Some(42), "same line, another review");
        let resolved = thread(&threads, "comment-9004");
        assert!(resolved.is_resolved);
        assert_eq!(
            resolved.resolved_by.as_ref().map(|a| a.login.as_str()),
            Some("alice")
        );
        let left = thread(&threads, "comment-9009");
        assert_eq!(
            (left.line, left.diff_side.as_deref()),
            (Some(20), Some("LEFT"))
        );
        let ghost = &thread(&threads, "comment-9008").comments[0].author;
        assert_eq!(ghost.login, "Ghost");
        assert!(
            threads
                .iter()
                .all(|t| t.comments[0].in_reply_to_id.is_none())
        );

        let reviews = fx
            .forge
            .threads()
            .reviews(&fx.pr("widgets", 12))
            .await
            .expect("reviews");
        let states: Vec<(u64, ReviewState)> = reviews.iter().map(|r| (r.id, r.state)).collect();
        assert!(
            states.starts_with(&[
                (501, ReviewState::Commented),
                (502, ReviewState::ChangesRequested),
                (503, ReviewState::Approved),
            ]),
            "{states:?}"
        );
        fx.assert_no_contract_violations();
    }
}

#[tokio::test]
async fn forgejo_lists_over_100_conversations_whole() {
    let fx = Fixture::start("threads_over_100_forgejo", FJ_READ).await;
    let threads = fx
        .forge
        .threads()
        .review_threads(&fx.pr("busy", 1))
        .await
        .expect("threads");
    assert_eq!(threads.len(), 151);
    assert_eq!(threads[0].comments.len(), 131);
    let requests = fx.api_requests();
    let reviews_pages = requests
        .iter()
        .filter(|r| r.path.ends_with("/reviews"))
        .count();
    let per_review = requests
        .iter()
        .filter(|r| r.path.ends_with("/comments"))
        .count();
    println!(
        "reviews pages: {reviews_pages}, per-review: {per_review}, total {}",
        requests.len()
    );
    assert!(requests.iter().all(|r| r.method == "GET"));
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn forgejo_without_the_endpoints_says_what_is_missing() {
    let fx = Fixture::start("threads_mixed_forgejo", FJ_WRITE).await;
    let pr = fx.pr("widgets", 12);
    let caps = fx
        .forge
        .threads()
        .thread_capabilities(
            &pr,
            &fx.forge
                .threads()
                .review_threads(&pr)
                .await
                .expect("threads"),
        )
        .await
        .expect("capabilities");
    assert!(!caps.can_reply && !caps.can_resolve, "{caps:?}");
    let missing = caps.missing.expect("says what is missing");
    for word in ["Forgejo", "1.26", "1.27", "36441", "36683"] {
        assert!(missing.contains(word), "{word} missing from {missing}");
    }
    assert_eq!(fx.count("POST", ""), 0, "probing writes nothing");
    assert_eq!(
        fx.count("GET", "/swagger.v1.json"),
        1,
        "{:?}",
        fx.api_requests()
    );
    // Probed once per client.
    let threads = fx
        .forge
        .threads()
        .review_threads(&pr)
        .await
        .expect("threads");
    fx.sim.clear_requests();
    fx.forge
        .threads()
        .thread_capabilities(&pr, &threads)
        .await
        .expect("cached");
    assert!(fx.api_requests().is_empty());

    let e = assert_category(
        fx.forge
            .threads()
            .reply_to_review_thread(&pr, "comment-9001", "hi")
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("1.27"), "{}", e.error);
    assert!(
        e.suggestion
            .unwrap_or_default()
            .contains("pr_comment_create")
    );
    let e = assert_category(
        fx.forge
            .threads()
            .set_review_thread_resolved(&pr, "comment-9001", true)
            .await,
        Category::Logical,
    );
    assert!(e.error.contains("Forgejo"), "{}", e.error);
    assert!(fx.api_requests().is_empty(), "known missing: nothing sent");
    let thread = fx
        .forge
        .threads()
        .review_thread(&pr, "comment-9001")
        .await
        .expect("thread");
    assert_eq!(
        (thread.is_resolved, thread.comments.len()),
        (false, 2),
        "probes wrote nothing"
    );
}

#[tokio::test]
async fn forgejo_missing_endpoint_found_on_first_use() {
    let fx = Fixture::start("threads_mixed_forgejo", FJ_WRITE).await;
    let pr = fx.pr("widgets", 12);
    assert_category(
        fx.forge
            .threads()
            .set_review_thread_resolved(&pr, "comment-9001", true)
            .await,
        Category::Logical,
    );
    assert_category(
        fx.forge
            .threads()
            .reply_to_review_thread(&pr, "comment-9001", "hi")
            .await,
        Category::Logical,
    );
    let caps = fx
        .forge
        .threads()
        .thread_capabilities(
            &pr,
            &fx.forge
                .threads()
                .review_threads(&pr)
                .await
                .expect("threads"),
        )
        .await
        .expect("capabilities");
    assert!(!caps.can_reply && !caps.can_resolve);
}

#[tokio::test]
async fn gitea_reply_and_resolve_round_trip() {
    let fx = Fixture::start("threads_mixed_gitea", FJ_WRITE).await;
    let pr = fx.pr("widgets", 12);
    let threads = fx
        .forge
        .threads()
        .review_threads(&pr)
        .await
        .expect("threads");
    fx.sim.clear_requests();
    let caps = fx
        .forge
        .threads()
        .thread_capabilities(&pr, &threads)
        .await
        .expect("capabilities");
    assert!(
        caps.can_reply && caps.can_resolve && caps.missing.is_none(),
        "{caps:?}"
    );
    let requests = fx.api_requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("GET", "/swagger.v1.json"),
        "the description only: probing writes nothing"
    );
    assert_eq!(fx.forge.kind(), ForgeKind::Gitea);
    let reply = fx
        .forge
        .threads()
        .reply_to_review_thread(&pr, "comment-9001", "Bounded now.")
        .await
        .expect("reply");
    assert_eq!(
        (reply.body.as_str(), reply.in_reply_to_id),
        ("Bounded now.", Some(9001))
    );
    let resolved = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "comment-9001", true)
        .await
        .expect("resolve");
    assert!(resolved.is_resolved);
    assert_eq!(
        resolved.comments.last().map(|c| c.body.as_str()),
        Some("Bounded now.")
    );
    fx.sim.clear_requests();
    let again = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "comment-9001", true)
        .await
        .expect("idempotent");
    assert_eq!(again, resolved);
    assert!(
        fx.api_requests().iter().all(|r| r.method == "GET"),
        "no second write"
    );
    let reopened = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "comment-9001", false)
        .await
        .expect("unresolve");
    assert!(!reopened.is_resolved);
    let e = assert_category(
        fx.forge.threads().review_thread(&pr, "comment-9101").await,
        Category::User,
    );
    assert!(e.error.contains("comment-9101"));
    assert_category(
        fx.forge.threads().review_thread(&pr, "PRRT_x").await,
        Category::User,
    );
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn gitea_read_token_is_refused_but_endpoints_are_found() {
    let fx = Fixture::start("threads_mixed_gitea", FJ_READ).await;
    let pr = fx.pr("widgets", 12);
    let caps = fx
        .forge
        .threads()
        .thread_capabilities(
            &pr,
            &fx.forge
                .threads()
                .review_threads(&pr)
                .await
                .expect("threads"),
        )
        .await
        .expect("capabilities");
    assert!(caps.can_reply && caps.can_resolve, "{caps:?}");
    assert_category(
        fx.forge
            .threads()
            .set_review_thread_resolved(&pr, "comment-9001", true)
            .await,
        Category::Authentication,
    );
    assert_category(
        fx.forge
            .threads()
            .reply_to_review_thread(&pr, "comment-9001", "hi")
            .await,
        Category::Authentication,
    );
}

#[tokio::test]
async fn forgejo_review_activity_lists_the_reviews_once() {
    let fx = Fixture::start("threads_mixed_forgejo", FJ_WRITE).await;
    let pr = fx.pr("widgets", 12);
    fx.sim.clear_requests();
    let (threads, reviews) = fx
        .forge
        .threads()
        .review_activity(&pr)
        .await
        .expect("activity");
    let listings = fx
        .api_requests()
        .iter()
        .filter(|r| r.path.ends_with("/pulls/12/reviews"))
        .count();
    assert_eq!(listings, 1, "{:?}", fx.api_requests());
    // The same data as the two separate calls.
    assert_eq!(
        threads,
        fx.forge
            .threads()
            .review_threads(&pr)
            .await
            .expect("threads")
    );
    assert_eq!(
        reviews,
        fx.forge.threads().reviews(&pr).await.expect("reviews")
    );
    assert!(!threads.is_empty() && !reviews.is_empty());
}

/// An instance that does not publish `/swagger.v1.json`.
fn without_swagger(scenario: &mut Scenario) {
    scenario.capabilities.swagger = Some(false);
}

#[tokio::test]
async fn unpublished_api_description_leaves_the_endpoints_unknown() {
    for (name, writes_work) in [
        ("threads_mixed_gitea", true),
        ("threads_mixed_forgejo", false),
    ] {
        let fx = Fixture::start_with(name, FJ_WRITE, without_swagger).await;
        let pr = fx.pr("widgets", 12);
        let threads = fx
            .forge
            .threads()
            .review_threads(&pr)
            .await
            .expect("threads");
        fx.sim.clear_requests();
        let caps = fx
            .forge
            .threads()
            .thread_capabilities(&pr, &threads)
            .await
            .expect("capabilities");
        assert!(!caps.can_reply && !caps.can_resolve, "{name}: {caps:?}");
        let missing = caps.missing.expect("says why");
        for words in ["does not publish its API description", "without writing"] {
            assert!(
                missing.contains(words),
                "{name}: {words:?} missing from {missing}"
            );
        }
        assert_eq!(fx.count("POST", ""), 0, "{name}: probing writes nothing");
        assert_eq!(fx.count("GET", "/swagger.v1.json"), 1, "{name}");
        // Remembered: asking again sends nothing.
        fx.sim.clear_requests();
        fx.forge
            .threads()
            .thread_capabilities(&pr, &threads)
            .await
            .expect("cached");
        assert!(fx.api_requests().is_empty(), "{:?}", fx.api_requests());

        // The writes still try.
        let reply = fx
            .forge
            .threads()
            .reply_to_review_thread(&pr, "comment-9001", "Bounded now.")
            .await;
        let resolved = fx
            .forge
            .threads()
            .set_review_thread_resolved(&pr, "comment-9001", true)
            .await;
        let caps = fx
            .forge
            .threads()
            .thread_capabilities(&pr, &threads)
            .await
            .expect("capabilities");
        if writes_work {
            assert_eq!(reply.expect("reply").in_reply_to_id, Some(9001));
            let resolved = resolved.expect("resolve");
            assert!(resolved.is_resolved);
            assert_eq!(
                resolved.comments.last().map(|c| c.body.as_str()),
                Some("Bounded now.")
            );
            assert!(
                caps.can_reply && caps.can_resolve && caps.missing.is_none(),
                "{caps:?}"
            );
        } else {
            assert_category(reply, Category::Logical);
            assert_category(resolved, Category::Logical);
            assert!(!caps.can_reply && !caps.can_resolve, "{caps:?}");
            let missing = caps.missing.expect("says what is missing");
            assert!(missing.contains("1.27"), "{missing}");
        }
        fx.assert_no_contract_violations();
    }
}

#[tokio::test]
async fn forgejo_resolve_lists_the_reviews_once() {
    let fx = Fixture::start("threads_mixed_gitea", FJ_WRITE).await;
    let pr = fx.pr("widgets", 12);
    fx.sim.clear_requests();
    let resolved = fx
        .forge
        .threads()
        .set_review_thread_resolved(&pr, "comment-9001", true)
        .await
        .expect("resolve");
    assert!(resolved.is_resolved);
    assert_eq!(
        resolved.resolved_by.as_ref().map(|a| a.login.as_str()),
        Some("alice")
    );
    assert_eq!(
        resolved,
        fx.forge
            .threads()
            .review_thread(&pr, "comment-9001")
            .await
            .expect("thread")
    );
    let requests = fx.api_requests();
    let listings = |requests: &[RecordedRequest]| {
        requests
            .iter()
            .filter(|r| r.path.ends_with("/pulls/12/reviews"))
            .count()
    };
    let write = requests
        .iter()
        .position(|r| r.method == "POST")
        .expect("the write");
    assert_eq!(listings(&requests[..write]), 1, "{requests:?}");
    // After the write: the comments of the thread's review (501), nothing else.
    let after: Vec<(&str, &str)> = requests[write + 1..]
        .iter()
        .take_while(|r| !r.path.ends_with("/pulls/12/reviews"))
        .map(|r| (r.method.as_str(), r.path.as_str()))
        .collect();
    assert_eq!(
        after,
        [(
            "GET",
            "/api/v1/repos/acme/widgets/pulls/12/reviews/501/comments"
        )],
        "{requests:?}"
    );

    fx.sim.clear_requests();
    fx.forge
        .threads()
        .reply_to_review_thread(&pr, "comment-9001", "Done.")
        .await
        .expect("reply");
    assert_eq!(listings(&fx.api_requests()), 1, "{:?}", fx.api_requests());
    fx.assert_no_contract_violations();
}

#[tokio::test]
async fn forgejo_reviews_end_when_the_server_ignores_page() {
    let fx = Fixture::start_with("threads_over_100_forgejo", FJ_READ, |s| {
        s.capabilities.paging = Some(false);
    })
    .await;
    let reviews = fx
        .forge
        .threads()
        .reviews(&fx.pr("busy", 1))
        .await
        .expect("reviews");
    assert_eq!(reviews.len(), 50, "the one page it serves");
    let pages = fx.count("GET", "/pulls/1/reviews");
    assert_eq!(pages, 2, "stops at the first repeated page");
}
