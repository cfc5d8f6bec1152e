//! Calls made with a caller's own token (what the HTTP transport will do for each request)
//! against the simulator: two contexts share one `Forges` and its caches, yet nothing one
//! credential read is served to another, every request carries the call's own token, and
//! no token shows in keys or errors.

use crate::common;

use resolve_pr_core::Category;
use resolve_pr_forge::{Credential, Secret};
use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, call};
use serde_json::{Value, json};

use common::Flavor;

/// A token the scenarios do not know.
const UNKNOWN: &str = "tok_nobody_knows_this";

fn token(t: &str) -> Credential {
    Credential::Token(Secret::new(t))
}

fn tokens(flavor: Flavor) -> (&'static str, &'static str) {
    match flavor {
        Flavor::GitHub => ("ghp_write", "ghp_read"),
        Flavor::Forgejo => ("fj_write", "fj_read"),
    }
}

/// The simulator and a context whose server credentials are the write token, so a call
/// with another token that succeeded could only have used the server's.
async fn start(flavor: Flavor, scenario: &str) -> (SimHandle, Context) {
    let sim = Sim::start(common::scenario(scenario))
        .await
        .expect("simulator starts");
    let ctx = common::context(flavor, &sim, tokens(flavor).0, [3; 32]);
    (sim, ctx)
}

fn pr(flavor: Flavor, sim: &SimHandle, number: u64) -> String {
    match flavor {
        Flavor::GitHub => format!("acme/widgets#{number}"),
        Flavor::Forgejo => format!("{}/acme/widgets/pulls/{number}", sim.base_url()),
    }
}

/// `tool` succeeds with a token the forge knows, then fails for an unknown token with an
/// authentication error (not the first answer from a cache), every request of that call
/// carrying the unknown token and none carrying any other; the token never shows in the
/// error or in the router's client keys.
async fn a_token_gets_no_answer_of_another(
    flavor: Flavor,
    sim: &SimHandle,
    ctx: &Context,
    tool: &str,
    args: Value,
) {
    let (write, read) = tokens(flavor);
    let a = ctx.with_credential(token(read));
    let b = ctx.with_credential(token(UNKNOWN));
    call(&a, tool, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool} with a known token: {}", e.to_json()));
    // Twice, so a second answer could come from A's caches.
    call(&a, tool, args.clone()).await.expect("again");
    sim.clear_requests();
    let err = call(&b, tool, args.clone())
        .await
        .expect_err("an unknown token must not be answered");
    assert_eq!(err.category, Category::Authentication, "{}", err.to_json());
    let shown = format!("{} {:?}", err.to_json(), err);
    assert!(!shown.contains(UNKNOWN), "{shown}");
    assert!(sim.requests().iter().any(|r| r.token.is_some()));
    all_carry(sim, UNKNOWN);
    let keys = format!("{:?}", ctx.forges.client_keys());
    for secret in [UNKNOWN, read, write] {
        assert!(!keys.contains(secret), "{keys}");
    }
    // The server's credentials still work, and A's answer is still A's.
    sim.clear_requests();
    call(ctx, tool, args.clone())
        .await
        .expect("the server's token");
    all_carry(sim, write);
    call(&a, tool, args).await.expect("A again");
}

/// Every request since the log was cleared carried `token`, but for the public API
/// description Forgejo's capability probe reads without one.
fn all_carry(sim: &SimHandle, token: &str) {
    for r in sim.requests() {
        if r.token.is_none() && r.path.ends_with("/swagger.v1.json") {
            continue;
        }
        assert_eq!(r.token.as_deref(), Some(token), "{r:?}");
    }
}

async fn unresolved_comments_are_per_token(flavor: Flavor) {
    let scenario = match flavor {
        Flavor::GitHub => "threads_mixed",
        Flavor::Forgejo => "threads_mixed_gitea",
    };
    let (sim, ctx) = start(flavor, scenario).await;
    let args = json!({"pr": pr(flavor, &sim, 12)});
    a_token_gets_no_answer_of_another(flavor, &sim, &ctx, "find_unresolved_comments", args).await;
}

async fn failing_tests_are_per_token(flavor: Flavor) {
    let scenario = match flavor {
        Flavor::GitHub => "ci_failing",
        Flavor::Forgejo => "ci_failing_forgejo",
    };
    let (sim, ctx) = start(flavor, scenario).await;
    let args = json!({"pr": pr(flavor, &sim, 7)});
    a_token_gets_no_answer_of_another(flavor, &sim, &ctx, "get_failing_tests", args).await;
}

/// Whether any listed comment offers a resolve command.
fn offers_resolve(out: &Value) -> bool {
    out["comments"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["action_commands"]["resolve_command"].is_string())
}

/// What a thread lets the viewer do is the token's: a read-only token sees no resolve
/// commands where a write token does, whichever asks first. (GitHub says per thread what the
/// viewer may do; a Forgejo or Gitea client probes what the instance supports, the same for
/// every token, and that probe is per client, so per credential, too.)
#[tokio::test]
async fn thread_capabilities_are_per_token() {
    let (flavor, scenario) = (Flavor::GitHub, "threads_mixed");
    let (write, read) = tokens(flavor);
    for write_first in [true, false] {
        let (sim, ctx) = start(flavor, scenario).await;
        let args = json!({"pr": pr(flavor, &sim, 12)});
        let order = if write_first {
            [write, read]
        } else {
            [read, write]
        };
        for t in order {
            let out = call(
                &ctx.with_credential(token(t)),
                "find_unresolved_comments",
                args.clone(),
            )
            .await
            .unwrap_or_else(|e| panic!("{t}: {}", e.to_json()))
            .structured;
            assert_eq!(
                offers_resolve(&out),
                t == write,
                "{t} (write first: {write_first}): {out}"
            );
        }
    }
}

on_both_forges!(
    unresolved_comments_are_per_token,
    failing_tests_are_per_token,
);
