//! The tools' contract as an agent meets it through the registry: results leave out what
//! carries nothing (empty reaction counts).

#[macro_use]
mod common;

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
