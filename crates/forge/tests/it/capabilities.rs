//! Which capabilities each client advertises, the error a caller reports for one a forge
//! lacks, and the commands each forge's recipes build. No server is needed: clients are built
//! from configuration and nothing here sends a request.

use std::collections::HashMap;
use std::sync::Arc;

use resolve_pr_core::{Category, PrRef, RepoRef};
use resolve_pr_forge::{ActionsJobRef, Config, Forge, ForgeKind, Forges, require};

fn forge_for(vars: &[(&str, &str)], repo: &str) -> Arc<dyn Forge> {
    let env: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let config = Config::from_parts(None, None, &|k| env.get(k).cloned()).expect("config");
    let repo = RepoRef::parse(repo).expect("repository");
    Forges::new(config)
        .for_repo(&repo)
        .expect("configured host")
}

fn github() -> Arc<dyn Forge> {
    forge_for(&[], "acme/widgets")
}

fn forgejo(kind: ForgeKind) -> Arc<dyn Forge> {
    let host_var = match kind {
        ForgeKind::Gitea => "GITEA_HOST",
        _ => "FORGEJO_HOST",
    };
    forge_for(
        &[(host_var, "https://git.example.com")],
        "git.example.com/acme/widgets",
    )
}

/// What a forge advertises: (actions, annotations, workflow history).
fn advertised(forge: &dyn Forge) -> (bool, bool, bool) {
    (
        forge.actions().is_some(),
        forge.annotations().is_some(),
        forge.workflow_history().is_some(),
    )
}

#[test]
fn github_has_every_capability() {
    let gh = github();
    assert_eq!(gh.kind(), ForgeKind::GitHub);
    assert_eq!(advertised(gh.as_ref()), (true, true, true));
}

/// Forgejo and Gitea have Actions (whose endpoints an instance may still lack: those are
/// probed per call, see `tests/ci.rs`), but no check annotations and no workflow history.
#[test]
fn forgejo_and_gitea_have_actions_but_no_annotations_or_history() {
    for kind in [ForgeKind::Forgejo, ForgeKind::Gitea] {
        let fj = forgejo(kind);
        assert_eq!(fj.kind(), kind);
        assert_eq!(advertised(fj.as_ref()), (true, false, false), "{kind}");
    }
}

/// The error for a missing capability is the one the forges' "unsupported" defaults gave.
#[test]
fn a_missing_capability_is_a_logical_error_naming_it() {
    let fj = forgejo(ForgeKind::Forgejo);
    // As agents see it.
    let e = resolve_pr_core::Error::from(
        require(fj.kind(), fj.annotations(), "reading check annotations")
            .err()
            .expect("Forgejo has no check annotations"),
    );
    assert_eq!(e.category, Category::Logical);
    assert_eq!(
        e.error,
        "forgejo does not support reading check annotations through its API"
    );
    assert_eq!(
        e.details.as_ref().and_then(|d| d.get("forge")),
        Some(&serde_json::json!("forgejo"))
    );
    let gitea = forgejo(ForgeKind::Gitea);
    let e = resolve_pr_core::Error::from(
        require(
            gitea.kind(),
            gitea.workflow_history(),
            "reading a workflow's past runs",
        )
        .err()
        .expect("Gitea has no workflow history"),
    );
    assert_eq!(
        e.error,
        "gitea does not support reading a workflow's past runs through its API"
    );
    let gh = github();
    assert!(require(gh.kind(), gh.annotations(), "reading check annotations").is_ok());
}

#[test]
fn job_log_commands_exist_on_github_only() {
    let job = ActionsJobRef {
        run_id: 11,
        job_id: 22,
    };
    let repo = RepoRef::parse("acme/widgets").expect("repository");
    let command = github().commands().job_log(&repo, &job).expect("gh");
    assert_eq!(
        command.argv(),
        [
            "gh",
            "run",
            "view",
            "11",
            "--job",
            "22",
            "--log-failed",
            "--repo",
            "acme/widgets"
        ]
    );
    let ghe = forge_for(
        &[("GITHUB_API_URL", "https://ghe.example.com/api/v3")],
        "ghe.example.com/acme/widgets",
    );
    let pr = PrRef::parse("https://ghe.example.com/acme/widgets/pull/7").expect("pr");
    let command = ghe.commands().job_log(&pr.repo, &job).expect("gh");
    assert_eq!(
        command.argv().last().map(String::as_str),
        Some("ghe.example.com/acme/widgets")
    );
    let fj = forgejo(ForgeKind::Forgejo);
    let repo = RepoRef::parse("git.example.com/acme/widgets").expect("repository");
    assert!(fj.commands().job_log(&repo, &job).is_none());
}

/// The token variable a Forgejo command reads: the config file's `token_env` when it is a
/// plain variable name, else the documented one for the configured kind.
#[test]
fn forgejo_commands_read_the_configured_token_variable() {
    let pr = PrRef::parse("https://git.example.com/acme/widgets/pulls/7").expect("pr");
    let script = |forge: &dyn Forge| forge.commands().reply_in_conversation(&pr).argv()[2].clone();
    let env: HashMap<String, String> = HashMap::new();
    for (token_env, kind, want) in [
        ("CB_TOKEN", "forgejo", "$CB_TOKEN"),
        ("A$(x)", "forgejo", "$FORGEJO_TOKEN"),
        ("1X", "gitea", "$GITEA_TOKEN"),
    ] {
        let file = format!(
            "[hosts.\"git.example.com\"]\nkind = \"{kind}\"\ntoken_env = \"{token_env}\"\n"
        );
        let config =
            Config::from_parts(Some(&file), None, &|k| env.get(k).cloned()).expect("config");
        let forge = Forges::new(config).for_repo(&pr.repo).expect("host");
        assert!(
            script(forge.as_ref()).contains(want),
            "{token_env}: {}",
            script(forge.as_ref())
        );
    }
}

/// Runs a rendered command in real bash with stand-ins for `gh` and `curl` that print the
/// arguments they received, one per NUL, and returns them.
fn argv_received(command: &resolve_pr_core::ShellCommand, program: &str) -> Vec<String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("recipes-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let stand_in = dir.join(program);
    resolve_pr_testkit::write_script(&stand_in, "#!/bin/sh\nprintf '%s\\0' \"$@\"\n");
    let line = command.render().expect("renders");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&line)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .env("FORGEJO_TOKEN", "fj_secret")
        .current_dir(&dir)
        .output()
        .expect("bash runs");
    // Nothing a branch name could have made the shell do is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("scratch dir")
        .filter_map(|e| e.ok().map(|e| e.file_name()))
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(left, [std::ffi::OsString::from(program)], "{line}");
    let mut args: Vec<String> = out
        .stdout
        .split(|&b| b == 0)
        .map(|s| String::from_utf8(s.to_vec()).expect("utf-8"))
        .collect();
    args.pop();
    args
}

/// Branch names that would be options, commands or expansions reach the forge as text.
const HOSTILE_BRANCHES: [&str; 5] = [
    "a;rm -rf ~",
    "$(touch pwned)",
    "-x",
    "`touch pwned`",
    "q\"uo'te",
];

#[test]
fn github_set_base_recipe_sends_the_branch_as_one_value() {
    let pr = PrRef::parse("acme/widgets#7").expect("pr");
    for base in HOSTILE_BRANCHES {
        let command = github().commands().set_base(&pr, base);
        assert_eq!(
            argv_received(&command, "gh"),
            [
                "api",
                "--method",
                "PATCH",
                "repos/acme/widgets/pulls/7",
                "-f",
                &format!("base={base}"),
            ]
        );
    }
    let ghe = forge_for(
        &[("GITHUB_API_URL", "https://ghe.example.com/api/v3")],
        "ghe.example.com/acme/widgets",
    );
    let pr = PrRef::parse("https://ghe.example.com/acme/widgets/pull/7").expect("pr");
    let argv = argv_received(&ghe.commands().set_base(&pr, "main"), "gh");
    assert_eq!(argv[..3], ["api", "--hostname", "ghe.example.com"]);
}

#[test]
fn forgejo_set_base_recipe_sends_json_with_the_token_from_the_environment() {
    let pr = PrRef::parse("https://git.example.com/acme/widgets/pulls/7").expect("pr");
    for base in HOSTILE_BRANCHES {
        let command = forgejo(ForgeKind::Forgejo).commands().set_base(&pr, base);
        let argv = argv_received(&command, "curl");
        assert_eq!(
            argv[..9],
            [
                "-sS",
                "--fail-with-body",
                "-H",
                "Authorization: token fj_secret",
                "-X",
                "PATCH",
                "-H",
                "Content-Type: application/json",
                "--data-binary",
            ]
        );
        let body: serde_json::Value = serde_json::from_str(&argv[9]).expect("JSON body");
        assert_eq!(body, serde_json::json!({ "base": base }));
        assert_eq!(
            argv[10],
            "https://git.example.com/api/v1/repos/acme/widgets/pulls/7"
        );
        assert_eq!(argv.len(), 11);
        // The token is a variable reference in the command, never its value.
        assert!(!command.render().expect("renders").contains("fj_secret"));
    }
}

#[test]
fn merge_readiness_recipes_reach_the_right_routes_and_keep_names_whole() {
    let pr = PrRef::parse("acme/widgets#7").expect("pr");
    let gh = github();
    assert_eq!(
        argv_received(&gh.commands().update_branch(&pr), "gh"),
        [
            "api",
            "--method",
            "PUT",
            "repos/acme/widgets/pulls/7/update-branch"
        ]
    );
    assert_eq!(
        argv_received(&gh.commands().mark_ready(&pr).expect("gh has it"), "gh"),
        ["pr", "ready", "7", "--repo", "acme/widgets"]
    );
    assert_eq!(
        argv_received(&gh.commands().view_diff(&pr), "gh"),
        ["pr", "diff", "7", "--repo", "acme/widgets"]
    );
    // A reviewer name cannot become an option or a shell word.
    let hostile = [
        "@bob".to_owned(),
        "acme/core-team".to_owned(),
        "-x;id".to_owned(),
    ];
    assert_eq!(
        argv_received(&gh.commands().request_reviewers(&pr, &hostile), "gh"),
        [
            "pr",
            "edit",
            "7",
            "--repo",
            "acme/widgets",
            "--add-reviewer=bob,acme/core-team,-x;id"
        ]
    );

    let pr = PrRef::parse("https://git.example.com/acme/widgets/pulls/7").expect("pr");
    let fj = forgejo(ForgeKind::Forgejo);
    let api = "https://git.example.com/api/v1/repos/acme/widgets/pulls/7";
    let argv = argv_received(&fj.commands().update_branch(&pr), "curl");
    assert_eq!(argv[4..], ["-X", "POST", &format!("{api}/update")]);
    let argv = argv_received(&fj.commands().view_diff(&pr), "curl");
    assert_eq!(argv[4..], [format!("{api}.diff")]);
    assert!(
        fj.commands().mark_ready(&pr).is_none(),
        "a WIP: title prefix, edited by hand"
    );
    let argv = argv_received(&fj.commands().request_reviewers(&pr, &hostile), "curl");
    let body: serde_json::Value = serde_json::from_str(&argv[9]).expect("JSON body");
    assert_eq!(
        body,
        serde_json::json!({ "reviewers": ["bob", "acme/core-team", "-x;id"] })
    );
    assert_eq!(argv[10], format!("{api}/requested_reviewers"));
}
