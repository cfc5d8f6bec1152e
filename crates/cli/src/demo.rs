//! `resolve-pr demo`: every toolset against the bundled forge simulator and a sample checkout.
//! Each stage is a simulated forge holding one situation (a PR from red to merged, what a PR
//! affects, Forgejo, a conflict and a stack in a real git repository), and the last is code
//! navigation on a small Python checkout the demo writes, where a language server is
//! installed. The forges are configured from a private environment map, never the process's,
//! so the demo reads no config file and no token and reaches no network.
//!
//! `resolve-pr demo --serve STAGE` keeps one stage's simulator up on a fixed port, so each
//! call the demo printed can be run again by hand.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use resolve_pr_core::CursorCodec;
use resolve_pr_core::ShellCommand;
use resolve_pr_core::terminal::{json_escaped, printable};
use resolve_pr_forge::{ClientOptions, Config, Forges};
use resolve_pr_forge_sim::{Permission, Scenario, Sim, SimHandle};
use resolve_pr_tools::{Context, Toolset};
use serde_json::{Value, json};

use crate::style::Style;

/// The whole demo; a cold language server takes seconds, a hang must not look like work.
const DEADLINE: Duration = Duration::from_secs(240);
/// Lines of each answer's text shown; the rest is counted.
const SHOWN_LINES: usize = 8;
const DEMO_COMMENT: &str = "Thanks for the review! CI is green now; ready to merge from my side.";

/// The stages `--serve` can keep up, with the port the demo's hand-run commands name.
const SERVABLE: [(&str, u16); 4] = [
    ("demo-github", 8701),
    ("impact_github", 8702),
    ("demo-forgejo", 8703),
    ("stack", 8704),
];

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

/// One simulated forge: the situation it holds and how to reach it by hand.
struct Stage {
    label: &'static str,
    /// What `demo --serve` takes to serve the same scenario.
    serve: &'static str,
    sim: SimHandle,
    ctx: Context,
    /// The variables a call by hand sets, for the simulator `demo --serve` starts.
    hand_vars: Vec<String>,
    /// The simulator's host as the demo runs it, and as `demo --serve` runs it.
    host: (String, String),
}

impl Stage {
    async fn start(
        label: &'static str,
        serve: &'static str,
        scenario: Scenario,
        cache: &Path,
    ) -> anyhow::Result<Stage> {
        let forgejo = scenario.forge != resolve_pr_forge_sim::ForgeFlavor::Github;
        let token = write_token(&scenario)?;
        let sim = Sim::start(scenario)
            .await
            .context("cannot start the forge simulator")?;
        let url = sim.base_url().to_string();
        let port = SERVABLE
            .iter()
            .find(|(n, _)| *n == serve)
            .map(|(_, p)| *p)
            .unwrap_or(0);
        let hand_url = format!("http://127.0.0.1:{port}");
        let vars = |url: &str| forge_vars(forgejo, url, &token);
        let ctx = forge_context(&vars(&url), cache)?;
        Ok(Stage {
            label,
            serve,
            hand_vars: vars(&hand_url)
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
            host: (host_of(&url), host_of(&hand_url)),
            sim,
            ctx,
        })
    }
}

/// The variables that point the tools at a simulated forge: exactly what a user sets.
fn forge_vars(forgejo: bool, url: &str, token: &str) -> Vec<(&'static str, String)> {
    if forgejo {
        vec![
            ("FORGEJO_HOST", url.to_owned()),
            ("FORGEJO_TOKEN", token.to_owned()),
        ]
    } else {
        vec![
            ("GITHUB_API_URL", url.to_owned()),
            ("GITHUB_TOKEN", token.to_owned()),
        ]
    }
}

/// The token of a scenario that may write (the demo posts comments).
fn write_token(scenario: &Scenario) -> anyhow::Result<String> {
    scenario
        .tokens
        .iter()
        .find(|t| t.permission == Permission::Write)
        .map(|t| t.token.clone())
        .context("a demo scenario has no token with write permission")
}

fn host_of(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned()
}

/// A tools context reaching the forges `vars` name (exactly the variables a user would set,
/// in a map of our own: the forge layer's environment hook reads tokens from here and `gh
/// auth token` is never asked), with managed clones in the demo's own directory.
fn forge_context(vars: &[(&'static str, String)], cache: &Path) -> anyhow::Result<Context> {
    let env: Arc<BTreeMap<&'static str, String>> = Arc::new(vars.iter().cloned().collect());
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
    let mut ctx = Context::new(
        Arc::new(Forges::with_options(config, options)),
        CursorCodec::new(random_key()),
    );
    ctx.local.cwd = None;
    ctx.local.cache_dir = Some(cache.to_owned());
    Ok(ctx)
}

async fn demo(style: Style) -> anyhow::Result<ExitCode> {
    let scratch = tempfile::Builder::new()
        .prefix("resolve-pr-demo.")
        .tempdir()
        .context("cannot make the demo's temporary directory")?;
    let cache = scratch.path().join("clones");
    let builtin = |name: &str| {
        Scenario::builtin(name).with_context(|| format!("the {name} scenario is missing"))
    };
    let stack_scenario = build_stack(&scratch.path().join("stack"))?;
    let (github, impact, forgejo, stack) = tokio::try_join!(
        Stage::start(
            "A pull request from red to merged (GitHub)",
            "demo-github",
            builtin("demo-github")?,
            &cache
        ),
        Stage::start(
            "What a pull request affects, and how to review it",
            "impact_github",
            builtin("impact_github")?,
            &cache
        ),
        Stage::start(
            "The same on Forgejo",
            "demo-forgejo",
            builtin("demo-forgejo")?,
            &cache
        ),
        Stage::start(
            "A conflict, and a stack to restack after a squash merge",
            "stack",
            stack_scenario,
            &cache
        ),
    )?;

    let mut out = Printer::new(style);
    out.banner();

    // A PR from red to merged.
    out.section(&github);
    let gh = &github;
    out.step(
        gh,
        "the open pull requests",
        "pr_list",
        json!({"repository": "acme/widgets"}),
        true,
    )
    .await;
    out.step(
        gh,
        "one of them",
        "pr_get",
        json!({"repository": "acme/widgets", "pull_request_number": 7}),
        true,
    )
    .await;
    out.step(
        gh,
        "which tests fail in CI, where, and how to rerun them",
        "get_failing_tests",
        json!({"pr": "acme/widgets#7"}),
        true,
    )
    .await;
    let threads = out
        .step(
            gh,
            "the review comments still open",
            "find_unresolved_comments",
            json!({"pr": "acme/widgets#7"}),
            true,
        )
        .await;
    let comment_id = threads
        .as_ref()
        .and_then(|t| t["comments"].as_array())
        .and_then(|c| {
            c.iter()
                .find(|c| c["type"] == "review_comment" && c.get("in_reply_to_id").is_none())
        })
        .and_then(|c| c["id"].as_u64());
    match comment_id {
        Some(id) => {
            out.step(gh, "reply in the thread", "reply_to_review_thread", json!({"pr": "acme/widgets#7", "comment_id": id, "body": "Moved the sleep out of the lock in the last commit."}), true).await;
            out.step(
                gh,
                "resolve it",
                "resolve_review_thread",
                json!({"pr": "acme/widgets#7", "comment_id": id}),
                true,
            )
            .await;
            out.step(
                gh,
                "reopen it (a resolve can be undone)",
                "unresolve_review_thread",
                json!({"pr": "acme/widgets#7", "comment_id": id}),
                true,
            )
            .await;
        }
        None => out.failed("find_unresolved_comments listed no review thread to reply to"),
    }
    out.step(
        gh,
        "can it merge, and what blocks it",
        "check_merge_readiness",
        json!({"pr": "acme/widgets#7"}),
        true,
    )
    .await;
    let pr = json!({"repository": "acme/widgets", "pull_request_number": 7});
    out.step(gh, "the conversation", "pr_comment_list", pr.clone(), true)
        .await;
    let mut create = pr.clone();
    create["comment"] = json!(DEMO_COMMENT);
    let posted = out
        .step(gh, "post a comment", "pr_comment_create", create, true)
        .await;
    if let Some(id) = posted.as_ref().and_then(|p| p["comment"]["id"].as_u64()) {
        let mut edit = pr.clone();
        edit["comment_id"] = json!(id);
        edit["body"] = json!(format!("{DEMO_COMMENT} (edited)"));
        out.step(gh, "edit it", "pr_comment_edit", edit, true).await;
    }
    out.step(
        gh,
        "the issues",
        "issue_list",
        json!({"repository": "acme/widgets"}),
        true,
    )
    .await;
    let issue = json!({"repository": "acme/widgets", "issue_number": 3});
    out.step(
        gh,
        "an issue's comments",
        "issue_comment_list",
        issue.clone(),
        true,
    )
    .await;
    let mut create = issue.clone();
    create["comment"] = json!("Fixed by acme/widgets#7.");
    let posted = out
        .step(gh, "comment on it", "issue_comment_create", create, true)
        .await;
    if let Some(id) = posted.as_ref().and_then(|p| p["comment"]["id"].as_u64()) {
        let mut edit = issue.clone();
        edit["comment_id"] = json!(id);
        edit["body"] = json!("Fixed by acme/widgets#7 once it merges.");
        out.step(gh, "edit that comment", "issue_comment_edit", edit, true)
            .await;
    }
    // One mistake an agent makes: the error says which category and how to fix it, and
    // nothing reaches the forge.
    let bad = json!({"repository": "not a repository", "pull_request_number": 0, "comment": "  "});
    out.step(
        gh,
        "a bad call is refused before anything is written",
        "pr_comment_create",
        bad,
        false,
    )
    .await;

    out.section(&impact);
    out.step(
        &impact,
        "what it changes, what that touches, how risky",
        "analyze_pr_impact",
        json!({"pr": "octo/app#7"}),
        true,
    )
    .await;
    out.step(
        &impact,
        "where to look first, with the diff that matters",
        "get_review_suggestions",
        json!({"pr": "octo/app#7", "max_diff_lines": 20}),
        true,
    )
    .await;

    out.section(&forgejo);
    let fj_repo = format!("{}/acme/widgets", forgejo.host.0);
    out.step(
        &forgejo,
        "the review comments still open",
        "find_unresolved_comments",
        json!({"pr": format!("{fj_repo}#7")}),
        true,
    )
    .await;
    out.step(
        &forgejo,
        "post a comment",
        "pr_comment_create",
        json!({"repository": fj_repo, "pull_request_number": 7, "comment": DEMO_COMMENT}),
        true,
    )
    .await;

    out.section(&stack);
    out.step(
        &stack,
        "does #3 conflict with its base, and where",
        "detect_merge_conflicts",
        json!({"pr": "acme/widgets#3"}),
        true,
    )
    .await;
    out.step(
        &stack,
        "#2 was stacked on #1, which was squash-merged: the plan",
        "manage_stacked_prs",
        json!({"base_pr": "acme/widgets#1", "dependent_pr": "acme/widgets#2"}),
        true,
    )
    .await;
    match checkout(&stack, scratch.path()) {
        Ok(dir) => {
            out.step(&stack, "the same, carried out in a clone of the demo's own (execute: true)", "manage_stacked_prs", json!({"base_pr": "acme/widgets#1", "dependent_pr": "acme/widgets#2", "directory": dir.display().to_string(), "execute": true}), true).await;
        }
        Err(e) => out.failed(&format!("cannot make the clone to restack in: {e:#}")),
    }

    code_stage(&mut out, scratch.path()).await;
    analysis_stage(&mut out, scratch.path()).await;
    workspace_stage(&mut out, scratch.path()).await;

    // The simulator checks its own answers against the forges' API descriptions. A slip there
    // is the simulator's bug, not the user's problem, so it is reported but does not fail the demo.
    for stage in [&github, &impact, &forgejo, &stack] {
        for violation in stage.sim.contract_violations() {
            tracing::warn!(
                forge = stage.label,
                "the simulator answered outside the published API: {violation}"
            );
        }
    }
    out.footer();
    for stage in [github, impact, forgejo, stack] {
        stage.sim.shutdown().await;
    }
    // The reader stopped early (`demo | head`): what it did not read is not a failure.
    if out.closed {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(if out.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The code tools on a small Python checkout the demo writes, when a Python language server
/// is installed; otherwise one line says which and how to install it.
async fn code_stage(out: &mut Printer, scratch: &Path) {
    let dir = scratch.join("shapes");
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::write(dir.join("shapes.py"), SHAPES_PY)?;
        std::fs::write(dir.join("main.py"), MAIN_PY)
    });
    if let Err(e) = written {
        out.failed(&format!("cannot write the sample checkout: {e}"));
        return;
    }
    let mut ctx = match forge_context(&[], &scratch.join("clones")) {
        Ok(ctx) => ctx,
        Err(e) => {
            out.failed(&format!("{e:#}"));
            return;
        }
    };
    ctx.lsp = resolve_pr_lsp::Pool::new(resolve_pr_lsp::PoolConfig {
        // A cold server on a busy machine: the demo waits longer than an MCP client would.
        call_wait: Duration::from_secs(90),
        ..resolve_pr_lsp::PoolConfig::from_env()
    });
    let code = CodeStage {
        dir: dir.display().to_string(),
    };
    out.code_section(&code);
    let python: Vec<_> = ctx
        .lsp
        .availability()
        .await
        .into_iter()
        .filter(|a| a.language == resolve_pr_lsp::Language::Python)
        .collect();
    if !python.iter().any(|a| a.found.is_ok()) {
        let install = python
            .first()
            .map(|a| match &a.found {
                Ok(i) => i.spec.install,
                Err(m) => m.spec.install,
            })
            .unwrap_or("pipx install basedpyright");
        out.skipped(
            &resolve_pr_tools::all()
                .iter()
                .filter(|t| {
                    matches!(t.toolset, Toolset::Code | Toolset::Refactor)
                        || SERVER_INTERNALS.contains(&t.name)
                })
                .map(|t| t.name)
                .collect::<Vec<_>>(),
            &format!("no Python language server is installed (install: {install})"),
        );
        return;
    }
    let at = |args: Value| {
        let mut args = args;
        args["directory"] = json!(code.dir);
        args
    };
    let steps: [(&str, &str, Value); 9] = [
        ("which servers answer here", "health_check", at(json!({}))),
        (
            "where a name is defined",
            "find_definition",
            at(json!({"symbol": "total_area"})),
        ),
        (
            "who uses it",
            "find_references",
            at(json!({"symbol": "area", "symbol_kind": "method"})),
        ),
        (
            "what implements a method",
            "find_implementations",
            at(json!({"file_path": "shapes.py", "position": {"line": 1, "character": 8}})),
        ),
        (
            "the type of a variable",
            "find_type_definition",
            at(json!({"file_path": "main.py", "position": {"line": 3, "character": 0}})),
        ),
        (
            "names in the checkout",
            "search_symbols",
            at(json!({"query": "area"})),
        ),
        (
            "what a name is, with its body",
            "get_symbol_info",
            at(json!({"symbol": "Circle", "include_body": true})),
        ),
        (
            "who calls what",
            "get_call_hierarchy",
            at(json!({"symbol": "total_area"})),
        ),
        (
            "what the type checker says",
            "get_diagnostics",
            at(json!({"file_path": "main.py"})),
        ),
    ];
    for (what, tool, args) in steps {
        out.code_step(&ctx, what, tool, args).await;
    }
    refactor_steps(out, &mut ctx, scratch, &at).await;
    ctx.lsp.shutdown_all().await;
}

/// The refactoring tools on the same checkout: a rename planned (nothing written), that
/// exact plan applied, and undone; unused imports and their order, planned.
async fn refactor_steps(
    out: &mut Printer,
    ctx: &mut Context,
    scratch: &Path,
    at: &dyn Fn(Value) -> Value,
) {
    // Plans and undo snapshots stay in the demo's scratch directory, not the user's state.
    ctx.local.state_dir = Some(scratch.join("state"));
    let plan = out
        .code_step(
            ctx,
            "a rename, planned: the diff, nothing written",
            "rename",
            at(json!({"symbol": "total_area", "new_name": "sum_of_areas"})),
        )
        .await;
    let plan_id = plan
        .as_ref()
        .and_then(|p| p["plan"]["plan_id"].as_str().map(str::to_owned));
    if let Some(id) = plan_id {
        let applied = out
            .code_step(
                ctx,
                "exactly that plan, applied",
                "rename",
                at(json!({"dry_run": false, "plan_id": id})),
            )
            .await;
        let snapshot = applied
            .as_ref()
            .and_then(|a| a["applied"]["snapshot_id"].as_str().map(str::to_owned));
        if let Some(snapshot) = snapshot {
            out.code_step(
                ctx,
                "and undone",
                "rollback",
                at(json!({"snapshot_id": snapshot})),
            )
            .await;
        }
    }
    out.code_step(
        ctx,
        "find and replace, keeping each spelling's case",
        "find_replace",
        at(json!({"pattern": "radius", "replacement": "size", "whole_word": true, "preserve_case": true})),
    )
    .await;
    // Python's extract and inline come from pylsp with rope, which runs only in trusted
    // checkouts; the demo's sample, in a temporary directory, is read as untrusted.
    let dir = std::path::PathBuf::from(at(json!({}))["directory"].as_str().unwrap_or_default());
    match ctx
        .lsp
        .refactoring_server_missing(resolve_pr_lsp::Language::Python, &dir)
    {
        Some(why) => out.skipped(&["extract", "inline"], &format!("for Python, {why}")),
        None => {
            out.code_step(
                ctx,
                "an expression extracted into a variable, planned",
                "extract",
                at(json!({"kind": "variable", "file_path": "main.py", "range": {"start": {"line": 4, "character": 6}, "end": {"line": 4, "character": 39}}})),
            )
            .await;
        }
    }
    if resolve_pr_tools::rope_installed().await {
        out.code_step(
            ctx,
            "a function moved into another module, its imports rewritten (rope), planned",
            "move",
            at(json!({"file_path": "shapes.py", "range": {"start": {"line": 21, "character": 4}, "end": {"line": 21, "character": 14}}, "destination": "main.py"})),
        )
        .await;
    } else {
        out.skipped(
            &["move"],
            "for Python, rope is not installed (pip install rope)",
        );
    }
    out.skipped(
        &["transform"],
        "no Python server offers it (rust-analyzer and typescript-language-server do)",
    );
    internal_server_steps(out, ctx, at).await;
    if !resolve_pr_tools::ruff_installed() {
        out.skipped(
            &["delete", "reorder"],
            "ruff is not installed (pip install ruff)",
        );
        return;
    }
    out.code_step(
        ctx,
        "unused imports, by ruff's own fix",
        "delete",
        at(json!({"kind": "unused_imports", "file_path": "main.py"})),
    )
    .await;
    out.code_step(
        ctx,
        "imports in order, planned",
        "reorder",
        at(json!({"kind": "imports", "file_path": "main.py"})),
    )
    .await;
}

/// The internal toolset's tools that ask the language server (seed 002's plumbing), on the
/// Python checkout.
const SERVER_INTERNALS: [&str; 6] = [
    "get_completions",
    "get_signature_help",
    "notify_file_opened",
    "notify_file_saved",
    "notify_file_closed",
    "rename_symbol_with_imports",
];

async fn internal_server_steps(out: &mut Printer, ctx: &Context, at: &dyn Fn(Value) -> Value) {
    let steps: [(&str, &str, Value); 6] = [
        (
            "internal: completions where a name is being typed",
            "get_completions",
            at(
                json!({"file_path": "main.py", "position": {"line": 4, "character": 8}, "limit": 3}),
            ),
        ),
        (
            "internal: the signature of the call at a position",
            "get_signature_help",
            at(json!({"file_path": "main.py", "position": {"line": 4, "character": 17}})),
        ),
        (
            "internal: a file an editor opened, told to the server",
            "notify_file_opened",
            at(json!({"file_path": "main.py"})),
        ),
        (
            "internal: a file written outside resolve-pr, told",
            "notify_file_saved",
            at(json!({"file_path": "main.py"})),
        ),
        (
            "internal: and closed",
            "notify_file_closed",
            at(json!({"file_path": "main.py"})),
        ),
        (
            "internal: seed 002's name for a symbol's rename, planned",
            "rename_symbol_with_imports",
            at(json!({"symbol": "total_area", "new_name": "sum_of_areas"})),
        ),
    ];
    for (what, tool, args) in steps {
        out.code_step(ctx, what, tool, args).await;
    }
}

/// The workspace tools on a small Cargo workspace (a package made, a module's dependencies
/// copied into it), and the internal toolset's file plumbing on it, every write a plan.
async fn workspace_stage(out: &mut Printer, scratch: &Path) {
    let dir = scratch.join("workspace");
    let written = (|| -> std::io::Result<()> {
        for (path, text) in WORKSPACE {
            std::fs::create_dir_all(dir.join(path).parent().unwrap_or(&dir))?;
            std::fs::write(dir.join(path), text)?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        out.failed(&format!("cannot write the workspace: {e}"));
        return;
    }
    let mut ctx = match forge_context(&[], &scratch.join("clones")) {
        Ok(ctx) => ctx,
        Err(e) => {
            out.failed(&format!("{e:#}"));
            return;
        }
    };
    ctx.local.state_dir = Some(scratch.join("state"));
    out.workspace_section(&dir.display().to_string());
    let at = |args: Value| {
        let mut args = args;
        args["directory"] = json!(dir.display().to_string());
        args
    };
    let edit = json!({"changes": {url_of(&dir.join("app/src/units.rs")): [{"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "newText": "/// Metres.\n"}]}});
    let steps: Vec<(&str, &str, Value)> = vec![
        (
            "the workspace's members",
            "update_members",
            at(json!({"action": "list"})),
        ),
        (
            "a new member package, made (verified by cargo metadata)",
            "create_package",
            at(json!({"path": "units", "name": "app-units", "dry_run": false})),
        ),
        (
            "the crates a module uses, copied into it as written, planned",
            "extract_dependencies",
            at(json!({"source": "app/src/units.rs", "target": "units"})),
        ),
        (
            "internal: the checkout's files",
            "list_files",
            at(json!({"pattern": "*.rs"})),
        ),
        (
            "internal: a file by lines",
            "read_file",
            at(json!({"file_path": "app/src/units.rs", "start_line": 1, "end_line": 3})),
        ),
        (
            "internal: a file's new text, planned",
            "write_file",
            at(json!({"file_path": "app/src/lib.rs", "content": "pub mod units;\n"})),
        ),
        (
            "internal: a new file, planned",
            "create_file",
            at(json!({"file_path": "app/README.md", "content": "# app\n"})),
        ),
        (
            "internal: a file deleted, planned",
            "delete_file",
            at(json!({"file_path": "notes.txt"})),
        ),
        (
            "internal: a file renamed, planned",
            "rename_file",
            at(json!({"from": "notes.txt", "to": "NOTES.txt"})),
        ),
        (
            "internal: a directory renamed, planned",
            "rename_directory",
            at(json!({"from": "docs", "to": "documentation"})),
        ),
        (
            "internal: a directory moved, planned",
            "move_directory",
            at(json!({"from": "docs", "to": "app/docs"})),
        ),
        (
            "internal: an LSP WorkspaceEdit as a plan",
            "apply_workspace_edit",
            at(json!({"edit": edit})),
        ),
        (
            "internal: edits by range, planned",
            "execute_edits",
            at(
                json!({"edits": [{"file_path": "notes.txt", "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}, "new_text": "Read me. "}]}),
            ),
        ),
        (
            "internal: two calls as one plan, applied all or nothing",
            "execute_batch",
            at(json!({"operations": [
                {"tool": "create_file", "arguments": {"file_path": "app/CHANGES.md", "content": "- units\n"}},
                {"tool": "delete_file", "arguments": {"file_path": "notes.txt"}}
            ]})),
        ),
        (
            "internal: a dependency's version requirement, planned",
            "update_dependency",
            at(json!({"manifest": "app/Cargo.toml", "name": "serde", "version": "1.0.200"})),
        ),
        (
            "internal: several, in one plan",
            "update_dependencies",
            at(
                json!({"updates": [{"manifest": "app/Cargo.toml", "name": "serde", "version": "1.0.210"}]}),
            ),
        ),
    ];
    for (what, tool, args) in steps {
        out.code_step(&ctx, what, tool, args).await;
    }
}

/// A file's `file://` URL, as an LSP `WorkspaceEdit` names it.
fn url_of(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(|u| u.to_string())
        .unwrap_or_default()
}

/// A Cargo workspace of one package whose `units` module uses serde (not fetched: nothing
/// here builds it; cargo metadata reads manifests only).
const WORKSPACE: [(&str, &str); 7] = [
    (
        "Cargo.toml",
        "[workspace]\n# The application, and what is split out of it.\nmembers = [\"app\"]\nresolver = \"2\"\n",
    ),
    (
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n",
    ),
    ("app/src/lib.rs", "mod units;\n"),
    (
        "app/src/units.rs",
        "use serde::Serialize;\n\n#[derive(Serialize)]\npub struct Length(pub f64);\n",
    ),
    ("notes.txt", "Notes.\n"),
    ("docs/guide.md", "# Guide\n"),
    ("docs/faq.md", "# FAQ\n"),
];

/// The analysis tools (tree-sitter, no server) on the Python checkout and a small Rust
/// crate beside it.
async fn analysis_stage(out: &mut Printer, scratch: &Path) {
    let dir = scratch.join("analysis");
    let written = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("geometry/src"))?;
        std::fs::write(dir.join("shapes.py"), SHAPES_PY)?;
        std::fs::write(dir.join("main.py"), MAIN_PY)?;
        for (path, text) in GEOMETRY {
            std::fs::write(dir.join(path), text)?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        out.failed(&format!("cannot write the analysis checkout: {e}"));
        return;
    }
    let ctx = match forge_context(&[], &scratch.join("clones")) {
        Ok(ctx) => ctx,
        Err(e) => {
            out.failed(&format!("{e:#}"));
            return;
        }
    };
    out.analysis_section(&dir.display().to_string());
    let at = |args: Value| {
        let mut args = args;
        args["directory"] = json!(dir.display().to_string());
        args
    };
    let steps: [(&str, &str, Value); 9] = [
        (
            "complexity per function, as lizard counts it",
            "analyze_quality",
            at(json!({"options": {"thresholds": {"cyclomatic_complexity": 1}, "limit": 3}})),
        ),
        (
            "unused imports, with the delete call",
            "analyze_dead_code",
            at(json!({})),
        ),
        (
            "what each file imports",
            "analyze_dependencies",
            at(json!({"kind": "imports", "scope": {"type": "file", "path": "main.py"}})),
        ),
        ("import cycles", "analyze_cycles", at(json!({}))),
        (
            "the class hierarchy",
            "analyze_structure",
            at(json!({"kind": "hierarchy"})),
        ),
        (
            "documentation coverage",
            "analyze_documentation",
            at(json!({"options": {"visibility": "all"}})),
        ),
        (
            "public functions no test calls",
            "analyze_tests",
            at(json!({"options": {"limit": 3}})),
        ),
        (
            "two analyses over one parse",
            "analyze_batch",
            at(
                json!({"analyses": [{"category": "dead_code"}, {"category": "dependencies", "kind": "circular"}]}),
            ),
        ),
        (
            "what a Rust module needs to become a crate",
            "analyze_module_dependencies",
            at(json!({"module": "geometry/src/shapes.rs"})),
        ),
    ];
    for (what, tool, args) in steps {
        out.code_step(&ctx, what, tool, args).await;
    }
}

/// A crate whose `shapes` module uses a `pub(crate)` helper: extracting it needs that made
/// `pub`.
const GEOMETRY: [(&str, &str); 4] = [
    (
        "geometry/Cargo.toml",
        "[package]\nname = \"geometry\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    ),
    (
        "geometry/src/lib.rs",
        "mod util;\npub mod shapes;\n\npub fn total() -> f64 {\n    shapes::area(2.0)\n}\n",
    ),
    (
        "geometry/src/util.rs",
        "pub(crate) fn square(x: f64) -> f64 {\n    x * x\n}\n",
    ),
    (
        "geometry/src/shapes.rs",
        "use crate::util::square;\n\npub fn area(r: f64) -> f64 {\n    square(r) * 3.14159\n}\n",
    ),
];

const SHAPES_PY: &str = "class Shape:
    def area(self) -> float:
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return 3.14159 * self.radius * self.radius


class Square(Shape):
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side * self.side


def total_area(shapes: list[Shape]) -> float:
    return sum(shape.area() for shape in shapes)
";

const MAIN_PY: &str = "import os
from shapes import Circle, Square, total_area

circle = Circle(1.0)
print(total_area([circle, Square(2.0)]))
count: int = \"three\"
";

struct CodeStage {
    dir: String,
}

/// The repository of the stack stage, made with git: main ← feature-a (#1, squash-merged) ←
/// feature-b (#2), and feature-x (#3), which conflicts with main; a bare copy under
/// `dir/git` that the simulator serves over smart HTTP. Returns the scenario.
fn build_stack(dir: &Path) -> anyhow::Result<Scenario> {
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    git(&work, &["init", "-q", "-b", "main"])?;
    let lines: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let commit = |files: &[(&str, &str)], message: &str| -> anyhow::Result<String> {
        for (path, content) in files {
            std::fs::write(work.join(path), content)?;
        }
        git(&work, &["add", "-A"])?;
        git(&work, &["commit", "-q", "--allow-empty", "-m", message])?;
        git(&work, &["rev-parse", "HEAD"])
    };
    let base = commit(&[("fetch.rs", &lines), ("README.md", "widgets\n")], "base")?;
    git(&work, &["switch", "-q", "-c", "feature-a"])?;
    commit(
        &[("fetch.rs", &lines.replacen("1\n", "retry 1\n", 1))],
        "A: retry once",
    )?;
    let a = commit(
        &[("fetch.rs", &lines.replacen("1\n", "retry 2\n", 1))],
        "A: retry twice",
    )?;
    git(&work, &["switch", "-q", "-c", "feature-b"])?;
    let b = commit(&[("budget.rs", "budget\n")], "B: a retry budget")?;
    git(&work, &["switch", "-q", "-c", "feature-x", "main"])?;
    let x = commit(&[("README.md", "widgets, from the PR\n")], "X: README")?;
    git(&work, &["switch", "-q", "main"])?;
    git(&work, &["merge", "-q", "--squash", "feature-a"])?;
    let squash = commit(&[], "A: retries (#1)")?;
    let main = commit(&[("README.md", "widgets, from main\n")], "main: README")?;
    let bare = dir.join("git/acme/widgets.git");
    std::fs::create_dir_all(&bare)?;
    git(&bare, &["init", "-q", "--bare", "-b", "main"])?;
    let bare_path = bare.display().to_string();
    git(
        &work,
        &["push", "-q", &bare_path, "refs/heads/*:refs/heads/*"],
    )?;
    for (n, sha) in [(1, &a), (2, &b), (3, &x)] {
        git(
            &work,
            &[
                "push",
                "-q",
                &bare_path,
                &format!("{sha}:refs/pull/{n}/head"),
            ],
        )?;
    }
    let mut yaml = format!(
        "forge: github\nnow: \"2024-06-01T12:00:00Z\"\ngit_root: {}\ntokens:\n  - {{token: ghp_demo_write, login: alice, permission: write}}\nrepos:\n  - owner: acme\n    name: widgets\n    pulls:\n",
        json!(dir.join("git").display().to_string())
    );
    let pulls = [
        (1, "feature-a", &a, "main", &base, "merged", Some(&squash)),
        (2, "feature-b", &b, "feature-a", &a, "open", None),
        (3, "feature-x", &x, "main", &main, "open", None),
    ];
    for (n, head, head_sha, base_ref, base_sha, state, merge) in pulls {
        yaml.push_str(&format!(
            "      - number: {n}\n        title: PR {n}\n        author: alice\n        state: {state}\n        head: {{ref: {head}, sha: {head_sha}}}\n        base: {{ref: {base_ref}, sha: {base_sha}}}\n        created_at: \"2024-06-01T00:00:00Z\"\n"
        ));
        if let Some(merge) = merge {
            yaml.push_str(&format!(
                "        merge_commit_sha: {merge}\n        merged_at: \"2024-06-01T11:00:00Z\"\n        merged_by: alice\n"
            ));
        }
    }
    Scenario::from_yaml(&yaml).map_err(|e| anyhow!("the stack scenario: {e}"))
}

/// A clone of the stack stage's repository with the PRs' branches, to restack in.
fn checkout(stack: &Stage, scratch: &Path) -> anyhow::Result<PathBuf> {
    let dir = scratch.join("checkout");
    let url = format!("{}/acme/widgets.git", stack.sim.base_url());
    git(
        scratch,
        &["clone", "-q", "--", &url, &dir.display().to_string()],
    )?;
    for branch in ["feature-a", "feature-b", "main"] {
        git(&dir, &["switch", "-q", branch])?;
    }
    git(&dir, &["config", "user.name", "Ada"])?;
    git(&dir, &["config", "user.email", "ada@example.com"])?;
    Ok(dir)
}

/// git with a fixed identity and no user configuration.
fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        // The same commits, so the same ids, on every run.
        .env("GIT_AUTHOR_DATE", "2024-06-01T10:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-06-01T10:00:00Z")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .context("cannot run git (the demo's conflict and stack stage needs it)")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `resolve-pr demo --serve STAGE [--port N]`: one stage's simulator, kept up until Ctrl-C,
/// with the variables to set for calls by hand.
pub async fn serve(name: &str, port: Option<u16>, style: Style) -> anyhow::Result<ExitCode> {
    let Some((_, default_port)) = SERVABLE.iter().find(|(n, _)| *n == name) else {
        bail!(
            "no demo stage {name:?}; --serve takes one of {}",
            SERVABLE.map(|(n, _)| n).join(", ")
        );
    };
    let scratch = tempfile::Builder::new()
        .prefix("resolve-pr-demo.")
        .tempdir()
        .context("cannot make a temporary directory")?;
    let scenario = if name == "stack" {
        build_stack(&scratch.path().join("stack"))?
    } else {
        Scenario::builtin(name).with_context(|| format!("the {name} scenario is missing"))?
    };
    let forgejo = scenario.forge != resolve_pr_forge_sim::ForgeFlavor::Github;
    let token = write_token(&scenario)?;
    let port = port.unwrap_or(*default_port);
    let sim = Sim::start_on(scenario, port)
        .await
        .with_context(|| format!("cannot serve on port {port} (--port takes another)"))?;
    let url = sim.base_url().to_string();
    let export = ShellCommand::new("export").args(
        forge_vars(forgejo, url.trim_end_matches('/'), &token)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}")),
    );
    let mut out = Printer::new(style);
    out.line(&style.bold(&format!(
        "Serving the demo's {name} stage at {url} (Ctrl-C stops it)."
    )));
    out.line(&format!(
        "In another terminal:\n  {export}\n  resolve-pr tool … as the demo printed it"
    ));
    if name == "stack" {
        let clone =
            ShellCommand::new("git").args(["clone", "--", &format!("{url}/acme/widgets.git")]);
        out.line(&format!(
            "  {clone}   # the repository, with the PRs' branches"
        ));
    }
    tokio::signal::ctrl_c()
        .await
        .context("cannot wait for Ctrl-C")?;
    sim.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

fn random_key() -> [u8; 32] {
    let mut key = [0u8; 32];
    // Without system randomness the demo's cursors are merely predictable, which is harmless
    // for a throwaway simulator.
    let _ = getrandom::fill(&mut key);
    key
}

/// Prints the demo for a person (sections, what each answer gives) or a program (one JSON
/// object per step). Output that can no longer be written (a reader that stopped, as `demo |
/// head` does) ends the printing quietly.
struct Printer {
    style: Style,
    failed: bool,
    closed: bool,
    /// Each tool run, or why not.
    tools: BTreeMap<String, Option<String>>,
}

impl Printer {
    fn new(style: Style) -> Printer {
        Printer {
            style,
            failed: false,
            closed: false,
            tools: BTreeMap::new(),
        }
    }

    fn line(&mut self, text: &str) {
        if self.closed {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        if writeln!(stdout, "{text}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            self.closed = true;
        }
    }

    fn failed(&mut self, why: &str) {
        self.failed = true;
        if self.style.json {
            let line = json!({"error": why}).to_string();
            self.line(&line);
        } else {
            let line = self.style.red(why);
            self.line(&line);
        }
    }

    fn banner(&mut self) {
        if self.style.json {
            return;
        }
        let title = self
            .style
            .bold("resolve-pr demo: every tool, on simulated forges and a sample checkout");
        let sub = self.style.dim(
            "No token and no network: the forges run in this process (the bundled simulator), \
             the git repository and the checkout in a temporary directory.",
        );
        self.line(&format!("{title}\n{sub}\n"));
    }

    fn section(&mut self, stage: &Stage) {
        if self.style.json {
            return;
        }
        let title = self.style.bold(&format!("== {} ==", stage.label));
        let serve = ShellCommand::new("resolve-pr").args(["demo", "--serve", stage.serve]);
        let export = ShellCommand::new("export").args(stage.hand_vars.iter().map(String::as_str));
        let hand = self.style.dim(&format!(
            "By hand: `{serve}` serves this forge; then, in another terminal, `{export}` and the commands below."
        ));
        self.line(&format!("{title}\n{hand}\n"));
    }

    fn code_section(&mut self, code: &CodeStage) {
        if self.style.json {
            return;
        }
        let title = self
            .style
            .bold("== Code navigation through a language server, on a small Python checkout ==");
        let hand = self.style.dim(&format!(
            "The checkout is {} (removed when the demo ends); by hand, give your own checkout as directory.",
            code.dir
        ));
        self.line(&format!("{title}\n{hand}\n"));
    }

    fn workspace_section(&mut self, dir: &str) {
        if self.style.json {
            return;
        }
        let title = self.style.bold(
            "== Workspace tools, and the internal toolset's plumbing, on a small Cargo workspace ==",
        );
        let hand = self.style.dim(&format!(
            "The workspace is {dir}; the internal tools are offered only with --toolsets internal."
        ));
        self.line(&format!("{title}\n{hand}\n"));
    }

    fn analysis_section(&mut self, dir: &str) {
        if self.style.json {
            return;
        }
        let title = self
            .style
            .bold("== Code analysis by tree-sitter (no server), on the same checkout and a small Rust crate ==");
        let hand = self.style.dim(&format!(
            "The checkout is {dir} (removed when the demo ends); resolve-pr tool analyze.quality also works (the seed's names)."
        ));
        self.line(&format!("{title}\n{hand}\n"));
    }

    fn skipped(&mut self, tools: &[&str], why: &str) {
        for tool in tools {
            self.tools.insert((*tool).to_owned(), Some(why.to_owned()));
        }
        if self.style.json {
            let line = json!({"skipped": tools, "reason": why}).to_string();
            self.line(&line);
        } else {
            let line = format!("skipped: {} ({why})\n", tools.join(", "));
            self.line(&line);
        }
    }

    /// Calls a tool on a stage's forge, prints what happened, and returns its structured
    /// output on success. `expect_ok` says whether success is the point of the step; either
    /// way a surprise marks the demo failed.
    async fn step(
        &mut self,
        stage: &Stage,
        what: &str,
        tool: &str,
        args: Value,
        expect_ok: bool,
    ) -> Option<Value> {
        if self.closed {
            return None;
        }
        let before = stage.sim.requests().len();
        let outcome = resolve_pr_tools::call(&stage.ctx, tool, args.clone()).await;
        let http_requests = stage.sim.requests().len().saturating_sub(before);
        // As a call by hand names it: the port of `demo --serve`.
        let hand_args = compact_args(&args).replace(&stage.host.0, &stage.host.1);
        let requests = format!("{http_requests} HTTP request(s) to the simulator");
        self.report(
            stage.label,
            what,
            tool,
            &args,
            &hand_args,
            outcome,
            expect_ok,
            Some((http_requests, requests)),
        )
    }

    async fn code_step(
        &mut self,
        ctx: &Context,
        what: &str,
        tool: &str,
        args: Value,
    ) -> Option<Value> {
        if self.closed {
            return None;
        }
        let outcome = resolve_pr_tools::call(ctx, tool, args.clone()).await;
        let hand_args = compact_args(&args);
        self.report("code", what, tool, &args, &hand_args, outcome, true, None)
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "one report line per step, from two kinds of step"
    )]
    fn report(
        &mut self,
        stage: &str,
        what: &str,
        tool: &str,
        args: &Value,
        hand_args: &str,
        outcome: resolve_pr_core::Result<resolve_pr_tools::ToolOutput>,
        expect_ok: bool,
        http: Option<(usize, String)>,
    ) -> Option<Value> {
        // A call that answered but whose action failed (a restack that stopped) is a
        // failed step, as it is a failed call over MCP and in `resolve-pr tool`.
        let ok = outcome.as_ref().is_ok_and(|o| !o.failed);
        if ok != expect_ok {
            self.failed = true;
        }
        self.tools.entry(tool.to_owned()).or_insert(None);
        if self.style.json {
            let mut line = json!({
                "stage": stage,
                "step": what,
                "tool": tool,
                "arguments": args,
                "ok": ok,
            });
            if let Some((n, _)) = &http {
                line["http_requests"] = json!(n);
            }
            match &outcome {
                Ok(o) => line["result"] = o.structured.clone(),
                Err(e) => line["error"] = e.to_json(),
            }
            self.line(&json_escaped(&line.to_string()));
            return outcome.ok().map(|o| o.structured);
        }
        let mut text = vec![format!("{} {}", self.style.green("▸"), what)];
        // Built like every command the product shows, so it can be pasted as-is whatever the
        // arguments contain.
        text.push(format!(
            "  {}",
            self.style.dim(&format!(
                "$ {}",
                ShellCommand::new("resolve-pr")
                    .args(["tool", tool])
                    .arg(hand_args)
            ))
        ));
        match &outcome {
            Ok(o) => {
                let lines: Vec<&str> = o.text.lines().collect();
                for line in lines.iter().take(SHOWN_LINES) {
                    text.push(format!("  {line}"));
                }
                if lines.len() > SHOWN_LINES {
                    text.push(format!(
                        "  {}",
                        self.style
                            .dim(&format!("… {} more lines", lines.len() - SHOWN_LINES))
                    ));
                }
            }
            Err(e) => {
                text.push(format!(
                    "  {} {}",
                    self.style.red(&format!("error ({}):", e.category.as_str())),
                    printable(&e.error)
                ));
                if let Some(s) = &e.suggestion {
                    text.push(format!(
                        "  {} {}",
                        self.style.bold("suggestion:"),
                        printable(s)
                    ));
                }
            }
        }
        if let Some((_, requests)) = &http {
            text.push(format!("  {}", self.style.dim(&format!("({requests})"))));
        }
        text.push(String::new());
        self.line(&text.join("\n"));
        outcome.ok().map(|o| o.structured)
    }

    fn footer(&mut self) {
        let all: Vec<&'static str> = resolve_pr_tools::all().iter().map(|t| t.name).collect();
        let ran = all
            .iter()
            .filter(|t| matches!(self.tools.get(**t), Some(None)))
            .count();
        let unrun: Vec<&str> = all
            .iter()
            .filter(|t| !self.tools.contains_key(**t))
            .copied()
            .collect();
        if !unrun.is_empty() {
            self.failed = true;
        }
        if self.style.json {
            let line = json!({"ran": ran, "tools": all.len(), "not_run": unrun}).to_string();
            self.line(&line);
            return;
        }
        let mut text = format!("Ran {ran} of {} tools.", all.len());
        if !unrun.is_empty() {
            text.push_str(&format!(" Not run: {}.", unrun.join(", ")));
        }
        let summary = if self.failed {
            self.style.red(&format!(
                "{text} Some step did not behave as expected (see above)."
            ))
        } else {
            self.style.bold(&text)
        };
        let next = self.style.dim(
            "Next: `resolve-pr serve` in your agent's MCP config (see the README), or `resolve-pr tools` to see every tool.",
        );
        self.line(&format!("{summary}\n{next}"));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A restack that stopped answers with what happened, marked failed: the demo's step
    /// fails too, as the call does over MCP.
    #[test]
    fn an_answer_whose_action_failed_is_a_failed_step() {
        let output = |failed| {
            Ok(resolve_pr_tools::ToolOutput {
                structured: json!({}),
                text: "stopped".to_owned(),
                failed,
            })
        };
        let mut printer = Printer::new(Style::plain());
        printer.report(
            "stack",
            "restack",
            "manage_stacked_prs",
            &json!({}),
            "{}",
            output(false),
            true,
            None,
        );
        assert!(!printer.failed);
        printer.report(
            "stack",
            "restack",
            "manage_stacked_prs",
            &json!({}),
            "{}",
            output(true),
            true,
            None,
        );
        assert!(printer.failed);
    }
}
