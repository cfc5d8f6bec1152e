//! `resolve-pr demo`: the tools against the bundled forge simulator, one simulated GitHub and
//! one simulated Forgejo on 127.0.0.1. The forges are configured from a private environment
//! map, never the process's, so the demo reads no config file and no token and reaches no network.

#![allow(clippy::print_stdout, reason = "prints the demo, step by step")]

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use resolve_pr_core::CursorCodec;
use resolve_pr_core::ShellCommand;
use resolve_pr_core::terminal::{json_escaped, printable};
use resolve_pr_forge::{ClientOptions, Config, Forges};
use resolve_pr_forge_sim::{Permission, Scenario, Sim, SimHandle};
use resolve_pr_tools::Context;
use serde_json::{Value, json};

use crate::style::Style;

/// Far more than the demo needs (well under a second on a laptop); a hang must not look like work.
const DEADLINE: Duration = Duration::from_secs(30);
const DEMO_COMMENT: &str = "Thanks for the review! CI is green now; ready to merge from my side.";

pub async fn run(style: Style) -> anyhow::Result<ExitCode> {
    tokio::time::timeout(DEADLINE, demo(style))
        .await
        .map_err(|_| {
            anyhow!(
                "the demo did not finish within {} seconds",
                DEADLINE.as_secs()
            )
        })?
}

/// One simulated forge and what the demo does there.
struct Stage {
    label: &'static str,
    sim: SimHandle,
    /// The `repository` argument that routes to this simulator.
    repository: String,
    pull_request_number: u64,
}

async fn demo(style: Style) -> anyhow::Result<ExitCode> {
    let github = Scenario::builtin("demo-github").context("the demo-github scenario is missing")?;
    let forgejo =
        Scenario::builtin("demo-forgejo").context("the demo-forgejo scenario is missing")?;
    let (gh_token, (gh_owner, gh_repo, gh_pr)) = (demo_token(&github)?, demo_pull(&github)?);
    let (fj_token, (fj_owner, fj_repo, fj_pr)) = (demo_token(&forgejo)?, demo_pull(&forgejo)?);
    let (gh_sim, fj_sim) = tokio::try_join!(Sim::start(github), Sim::start(forgejo))
        .context("cannot start the forge simulator")?;
    let gh_url = gh_sim.base_url().to_string();
    let fj_url = fj_sim.base_url().to_string();
    let fj_host = fj_url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();

    // Exactly the variables a user would set, in a map of our own: the forge layer's
    // environment hook reads tokens from here and `gh auth token` is never asked.
    let env: BTreeMap<&str, String> = BTreeMap::from([
        ("GITHUB_API_URL", gh_url.clone()),
        ("GITHUB_TOKEN", gh_token),
        ("FORGEJO_HOST", fj_url.clone()),
        ("FORGEJO_TOKEN", fj_token),
    ]);
    let env = Arc::new(env);
    let lookup = {
        let env = env.clone();
        move |k: &str| env.get(k).cloned()
    };
    let config = Config::from_parts(
        Some("# resolve-pr demo: no config file is read\n"),
        None,
        &lookup,
    )
    .map_err(|e| anyhow!("demo configuration: {}", e.message()))?;
    let options = ClientOptions {
        env: Arc::new(lookup),
        gh_cli: false,
        ..ClientOptions::default()
    };
    // A key for this run only: the demo must not create the user's cursor key file.
    let ctx = Context::new(
        Arc::new(Forges::with_options(config, options)),
        CursorCodec::new(random_key()),
    );

    let mut out = Printer {
        style,
        failed: false,
    };
    out.banner(&gh_url, &fj_url);
    let stages = [
        Stage {
            label: "GitHub",
            sim: gh_sim,
            repository: format!("{gh_owner}/{gh_repo}"),
            pull_request_number: gh_pr,
        },
        Stage {
            label: "Forgejo",
            sim: fj_sim,
            repository: format!("{fj_host}/{fj_owner}/{fj_repo}"),
            pull_request_number: fj_pr,
        },
    ];
    for stage in &stages {
        out.section(stage);
        let pr = json!({"repository": stage.repository, "pull_request_number": stage.pull_request_number});
        out.step(
            &ctx,
            stage,
            "list the conversation",
            "pr_comment_list",
            pr.clone(),
            true,
        )
        .await;
        let mut create = pr.clone();
        create["comment"] = json!(DEMO_COMMENT);
        out.step(
            &ctx,
            stage,
            "post a comment",
            "pr_comment_create",
            create,
            true,
        )
        .await;
        // Walk to the last page, where the new comment is.
        let mut args = pr.clone();
        loop {
            let step = out
                .step(
                    &ctx,
                    stage,
                    "list again: the new comment is there",
                    "pr_comment_list",
                    args.clone(),
                    true,
                )
                .await;
            match step.and_then(|v| v.get("nextCursor").cloned()) {
                Some(cursor) => args["cursor"] = cursor,
                None => break,
            }
        }
    }
    let github = &stages[0];
    out.step(
        &ctx,
        github,
        "which tests fail in CI, where, and how to rerun them",
        "get_failing_tests",
        json!({"pr": format!("{}#{}", github.repository, github.pull_request_number)}),
        true,
    )
    .await;
    // One mistake an agent makes: the error says which category and how to fix it, and
    // nothing reaches the forge.
    let bad = json!({"repository": "not a repository", "pull_request_number": 0, "comment": "  "});
    out.step(
        &ctx,
        github,
        "a bad call is refused before anything is written",
        "pr_comment_create",
        bad,
        false,
    )
    .await;

    // The simulator checks its own answers against the forges' API descriptions. A slip there
    // is the simulator's bug, not the user's problem, so it is reported but does not fail the demo.
    for stage in &stages {
        for violation in stage.sim.contract_violations() {
            tracing::warn!(
                forge = stage.label,
                "the simulator answered outside the published API: {violation}"
            );
        }
    }
    out.footer();
    for stage in stages {
        stage.sim.shutdown().await;
    }
    Ok(if out.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A token of the scenario that may write (the demo posts a comment).
fn demo_token(s: &Scenario) -> anyhow::Result<String> {
    s.tokens
        .iter()
        .find(|t| t.permission == Permission::Write)
        .map(|t| t.token.clone())
        .context("the demo scenario has no token with write permission")
}

/// The first pull request of the scenario: owner, repository, number.
fn demo_pull(s: &Scenario) -> anyhow::Result<(String, String, u64)> {
    s.repos
        .iter()
        .find_map(|r| {
            r.pulls
                .first()
                .map(|p| (r.owner.clone(), r.name.clone(), p.number))
        })
        .context("the demo scenario has no pull request")
}

fn random_key() -> [u8; 32] {
    let mut key = [0u8; 32];
    // Without system randomness the demo's cursors are merely predictable, which is harmless
    // for a throwaway simulator.
    let _ = getrandom::fill(&mut key);
    key
}

/// Prints the demo for a person (sections, the tools' text renderings) or a program (one
/// JSON object per step).
struct Printer {
    style: Style,
    failed: bool,
}

impl Printer {
    fn banner(&self, gh_url: &str, fj_url: &str) {
        if self.style.json {
            return;
        }
        println!(
            "{}\n{}\n",
            self.style
                .bold("resolve-pr demo: the tools against a simulated GitHub and Forgejo"),
            self.style.dim(&format!(
                "No token and no network: both forges run in this process ({gh_url}, {fj_url})."
            ))
        );
    }

    fn section(&self, stage: &Stage) {
        if !self.style.json {
            println!(
                "{}",
                self.style
                    .bold(&format!("== {} ({}) ==", stage.label, stage.sim.base_url()))
            );
        }
    }

    /// Calls a tool, prints what happened, and returns its structured output on success.
    /// `expect_ok` says whether success is the point of the step; either way a surprise marks
    /// the demo failed.
    async fn step(
        &mut self,
        ctx: &Context,
        stage: &Stage,
        what: &str,
        tool: &str,
        args: Value,
        expect_ok: bool,
    ) -> Option<Value> {
        let before = stage.sim.requests().len();
        let outcome = resolve_pr_tools::call(ctx, tool, args.clone()).await;
        let http_requests = stage.sim.requests().len().saturating_sub(before);
        if outcome.is_ok() != expect_ok {
            self.failed = true;
        }
        if self.style.json {
            let mut line = json!({
                "forge": stage.label.to_ascii_lowercase(),
                "step": what,
                "tool": tool,
                "arguments": args,
                "ok": outcome.is_ok(),
                "http_requests": http_requests,
            });
            match &outcome {
                Ok(o) => line["result"] = o.structured.clone(),
                Err(e) => line["error"] = e.to_json(),
            }
            println!("{}", json_escaped(&line.to_string()));
        } else {
            println!("{} {}", self.style.green("▸"), what);
            println!(
                "  {}",
                // Built like every command the product shows, so it can be pasted as-is
                // whatever the arguments contain.
                self.style.dim(&format!(
                    "$ {}",
                    ShellCommand::new("resolve-pr")
                        .args(["tool", tool])
                        .arg(compact_args(&args))
                ))
            );
            match &outcome {
                Ok(o) => o.text.lines().for_each(|line| println!("  {line}")),
                Err(e) => {
                    println!(
                        "  {} {}",
                        self.style.red(&format!("error ({}):", e.category.as_str())),
                        printable(&e.error)
                    );
                    if let Some(s) = &e.suggestion {
                        println!("  {} {}", self.style.bold("suggestion:"), printable(s));
                    }
                }
            }
            println!(
                "  {}\n",
                self.style.dim(&format!(
                    "({http_requests} HTTP request(s) to the simulator)"
                ))
            );
        }
        outcome.ok().map(|o| o.structured)
    }

    fn footer(&self) {
        if self.style.json {
            return;
        }
        if self.failed {
            println!(
                "{}",
                self.style
                    .red("Some step did not behave as expected (see above).")
            );
        } else {
            println!(
                "{}",
                self.style.dim("Next: `resolve-pr serve` in your agent's MCP config, or `resolve-pr tools` to see every tool.")
            );
        }
    }
}

/// The arguments as a one-line JSON, with a cursor shortened: it is opaque and long.
fn compact_args(args: &Value) -> String {
    let mut args = args.clone();
    if let Some(c) = args.get("cursor").and_then(Value::as_str)
        && c.len() > 16
    {
        args["cursor"] = json!(format!("{}…", c.chars().take(12).collect::<String>()));
    }
    args.to_string()
}
