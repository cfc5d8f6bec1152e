//! `pr_get` on a merged pull request and its text: what the forge last said about a merge is
//! left out once the pull request is merged (Forgejo/Gitea say `mergeable: false` then), and
//! the text an agent reads carries the description.

use crate::common;

use resolve_pr_forge_sim::Sim;
use resolve_pr_tools::call;
use serde_json::json;

use common::Flavor;

async fn merged_has_no_stale_mergeability_and_text_has_the_body(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("pulls_github", "ghp_write"),
        Flavor::Forgejo => ("pulls_forgejo", "fj_write"),
    };
    let sim = Sim::start(common::scenario(scenario))
        .await
        .expect("simulator starts");
    let ctx = common::context(flavor, &sim, token, [3; 32]);
    let repository = match flavor {
        Flavor::GitHub => "octo/app".to_owned(),
        Flavor::Forgejo => format!("{}/octo/app", sim.base_url()),
    };
    let merged = call(
        &ctx,
        "pr_get",
        json!({"repository": repository, "pull_request_number": 12}),
    )
    .await
    .expect("pr_get");
    assert_eq!(merged.structured["state"], "merged");
    assert!(
        merged.structured.get("mergeable").is_none(),
        "{}",
        merged.structured
    );
    assert!(merged.structured.get("mergeable_state").is_none());

    let open = call(
        &ctx,
        "pr_get",
        json!({"repository": repository, "pull_request_number": 30}),
    )
    .await
    .expect("pr_get");
    assert_eq!(open.structured["mergeable"], true);
    assert!(open.text.contains("\n\nWhy this change."), "{}", open.text);
    let note = open.structured["body_cut"].as_str().expect("body_cut");
    assert!(note.contains("more than the 4000 shown"), "{note}");
}

on_both_forges!(merged_has_no_stale_mergeability_and_text_has_the_body);
