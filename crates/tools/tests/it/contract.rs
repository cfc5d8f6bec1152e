//! The tools' contract as an agent meets it through the registry: arguments that miss the
//! input schema come back as one error naming every bad argument, and results leave out
//! what carries nothing (empty reaction counts).

use crate::common;

use resolve_pr_core::{Category, Error, ErrorCode};
use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, call};
use serde_json::{Value, json};

use common::Flavor;

async fn github(scenario: &str) -> (SimHandle, Context) {
    let sim = Sim::start(common::scenario(scenario))
        .await
        .expect("simulator starts");
    let ctx = common::context(Flavor::GitHub, &sim, "ghp_write", [7; 32]);
    (sim, ctx)
}

fn problems(e: &Error) -> Vec<String> {
    e.details.as_ref().expect("details")["problems"]
        .as_array()
        .expect("a list of problems")
        .iter()
        .map(|p| p.as_str().expect("a sentence").to_owned())
        .collect()
}

#[tokio::test]
async fn every_bad_argument_is_named_at_once_with_its_type_and_an_example() {
    let (sim, ctx) = github("threads_mixed").await;
    let e = call(
        &ctx,
        "get_failing_tests",
        json!({"pr": 42, "wait": "yes", "bail_on_first": null}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category, Category::User);
    assert_eq!(e.code, Some(ErrorCode::InvalidArgument));
    assert_eq!(
        problems(&e),
        [
            "bail_on_first: expected true or false, got null",
            "pr: expected a string like \"owner/repo#123\", got number 42",
            "wait: expected true or false, got string \"yes\"",
        ]
    );
    assert!(
        e.error
            .starts_with("invalid arguments for get_failing_tests: bail_on_first: expected"),
        "{}",
        e.error
    );
    assert!(
        e.suggestion
            .as_deref()
            .unwrap_or("")
            .contains("Fix every argument listed"),
        "{e:?}"
    );

    let e = call(
        &ctx,
        "reply_to_review_thread",
        json!({"thread_id": 7, "bdy": "hi", "extra": 1}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        problems(&e),
        [
            "`bdy` is not an argument of reply_to_review_thread: did you mean `body`?",
            "unknown argument extra (reply_to_review_thread takes body, comment_id, pr, thread_id)",
            "missing required arguments: pr (a string like \"owner/repo#123\"), body (a string)",
            "thread_id: expected a string, got number 7",
        ]
    );

    let e = call(
        &ctx,
        "pr_comment_list",
        json!({"repository": ["o/r"], "pull_request_number": "42"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        problems(&e),
        [
            "pull_request_number: expected a positive integer like 42, got string \"42\"",
            "repository: expected a string like \"owner/repo\", got array [\"o/r\"]",
        ]
    );

    let e = call(&ctx, "find_unresolved_comments", json!([1, 2]))
        .await
        .unwrap_err();
    assert_eq!(
        e.error,
        "the arguments of find_unresolved_comments must be a JSON object, not an array"
    );
    assert!(sim.requests().is_empty(), "{:?}", sim.requests());
}

#[tokio::test]
async fn reaction_counts_are_left_out_when_there_are_none() {
    let (_sim, ctx) = github("threads_mixed").await;
    let pr = "acme/widgets#12";
    let out = call(&ctx, "find_unresolved_comments", json!({"pr": pr}))
        .await
        .expect("listed");
    let items = out.structured["comments"].as_array().expect("items");
    let by_id = |id: u64| -> &Value {
        items
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no item {id}"))
    };
    assert_eq!(
        by_id(9001)["reactions"],
        json!({"total_count": 3, "+1": 2, "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 1})
    );
    let without: Vec<&Value> = items
        .iter()
        .filter(|c| c["type"] == "review_comment" && c["id"] != 9001)
        .collect();
    assert!(!without.is_empty());
    for c in without {
        assert!(c.get("reactions").is_none(), "{c}");
    }
    assert_eq!(out.structured["summary"]["with_reactions"], 1);
}
