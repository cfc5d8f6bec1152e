//! `pr_list` says which pull requests come from forks (head "owner:branch"), and a `head`
//! filter in that form is refused with why, not answered with an empty list.

use crate::common;

use resolve_pr_core::Category;
use resolve_pr_forge_sim::Sim;
use resolve_pr_tools::call;
use serde_json::json;

use common::Flavor;

async fn forks_are_named_and_owner_branch_heads_refused(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("pulls_github", "ghp_write"),
        Flavor::Forgejo => ("pulls_forgejo", "fj_write"),
    };
    let sim = Sim::start(common::scenario(scenario))
        .await
        .expect("simulator starts");
    let ctx = common::context(flavor, &sim, token, [9; 32]);
    let repository = match flavor {
        Flavor::GitHub => "octo/app".to_owned(),
        Flavor::Forgejo => format!("{}/octo/app", sim.base_url()),
    };
    let listed = call(
        &ctx,
        "pr_list",
        json!({"repository": repository, "state": "all", "author": "alice"}),
    )
    .await
    .expect("listed");
    let heads: Vec<(u64, String)> = listed.structured["pull_requests"]
        .as_array()
        .expect("pull_requests")
        .iter()
        .map(|p| {
            (
                p["number"].as_u64().expect("number"),
                p["head"].as_str().map(str::to_owned).unwrap_or_default(),
            )
        })
        .collect();
    let fork = heads.iter().find(|(n, _)| *n == 21).expect("#21 listed");
    assert_eq!(fork.1, "erin:shared", "{heads:?}");
    assert!(
        heads
            .iter()
            .filter(|(n, _)| *n != 21)
            .all(|(_, h)| !h.contains(':')),
        "{heads:?}"
    );

    sim.clear_requests();
    let e = call(
        &ctx,
        "pr_list",
        json!({"repository": repository, "head": "erin:shared"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert!(e.error.contains("cannot contain ':'"), "{}", e.error);
    assert!(sim.requests().is_empty(), "{:?}", sim.requests());
}

on_both_forges!(forks_are_named_and_owner_branch_heads_refused);
