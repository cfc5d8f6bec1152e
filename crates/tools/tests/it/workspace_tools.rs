//! The workspace tools through the registry on real workspaces in temporary directories,
//! checked by the ecosystems' own tools: a dry run leaves every byte as it was, an apply
//! does the plan (cargo metadata, npm and go then see the new member), rollback puts every
//! byte back; manifests keep their comments; bad arguments are categorized errors naming
//! their field.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use resolve_pr_lsp::TrustPolicy;
use resolve_pr_tools::Context;
use serde_json::{Value, json};

use super::code_navigation::context_trusting;

fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if ["target", "node_modules"].contains(&name.as_str()) {
                continue;
            }
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn text(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).unwrap()
}

struct Setup {
    _dir: tempfile::TempDir,
    _state: tempfile::TempDir,
    root: std::path::PathBuf,
    ctx: Context,
}

fn setup(files: &[(&str, &str)]) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, files);
    // The manifest checkers run no project code: an untrusted checkout is verified too.
    let mut ctx = context_trusting(TrustPolicy::nothing());
    ctx.local.state_dir = Some(state.path().to_owned());
    Setup {
        _dir: dir,
        _state: state,
        root,
        ctx,
    }
}

async fn call(
    s: &Setup,
    tool: &str,
    mut args: Value,
) -> Result<resolve_pr_tools::ToolOutput, resolve_pr_core::Error> {
    args["directory"] = json!(s.root);
    resolve_pr_tools::call(&s.ctx, tool, args).await
}

/// Plans, checks the dry run wrote nothing and the plan was verified by `how`, applies it
/// exactly; the snapshot id of the apply.
async fn plan_and_apply(s: &Setup, tool: &str, args: Value, how: &str) -> (Value, String) {
    let before = snapshot(&s.root);
    let out = call(s, tool, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e:?}"));
    assert_eq!(
        snapshot(&s.root),
        before,
        "{tool}: a dry run writes nothing"
    );
    let plan = out.structured["plan"].clone();
    let v = &plan["verification"];
    assert_eq!(v["verified"], true, "{tool}: {v}");
    assert!(v["how"].as_str().unwrap().starts_with(how), "{tool}: {v}");
    let id = plan["plan_id"].as_str().unwrap().to_owned();
    let applied = call(s, tool, json!({"dry_run": false, "plan_id": id}))
        .await
        .unwrap();
    assert_eq!(
        applied.structured["applied"]["success"], true,
        "{}",
        applied.text
    );
    assert_eq!(
        applied.structured["applied"]["verified_by"]
            .as_str()
            .map(|h| h.starts_with(how)),
        Some(true)
    );
    (
        plan,
        applied.structured["applied"]["snapshot_id"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

fn cargo_members(root: &Path) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut names: Vec<String> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

const ROOT_CARGO: &str = "# The sample workspace.\n[workspace]\nresolver = \"2\"\n# Listed by hand.\nmembers = [\n    \"crates/a\", # the first\n]\n\n[workspace.package]\nversion = \"0.3.0\"\nedition = \"2021\"\nlicense = \"MIT\"\n\n[workspace.dependencies]\n# Serialization, everywhere.\nserde = { version = \"1.0\", default-features = false }\n";

fn crate_files(name: &str) -> [(String, String); 2] {
    [
        (
            format!("crates/{name}/Cargo.toml"),
            format!(
                "[package]\nname = \"{name}\"\nversion.workspace = true\nedition.workspace = true\n"
            ),
        ),
        (format!("crates/{name}/src/lib.rs"), String::new()),
    ]
}

fn cargo_setup(extra: &[(&str, &str)]) -> Setup {
    let a = crate_files("a");
    let mut files: Vec<(&str, &str)> = vec![("Cargo.toml", ROOT_CARGO)];
    files.extend(a.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    files.extend(extra);
    setup(&files)
}

#[tokio::test]
async fn create_package_plans_applies_a_cargo_member_cargo_sees_and_rollback_undoes() {
    let s = cargo_setup(&[]);
    let original = snapshot(&s.root);
    let (plan, snap) = plan_and_apply(
        &s,
        "create_package",
        json!({"path": "crates/b", "name": "b-util"}),
        "cargo metadata",
    )
    .await;
    assert_eq!(plan["summary"]["created_files"], 2, "{plan}");
    let manifest = text(&s.root, "crates/b/Cargo.toml");
    assert!(manifest.contains("name = \"b-util\"\nversion.workspace = true\nedition.workspace = true\nlicense.workspace = true\n"), "{manifest}");
    assert!(s.root.join("crates/b/src/lib.rs").is_file());
    let root = text(&s.root, "Cargo.toml");
    assert_eq!(
        root,
        ROOT_CARGO.replace(
            "    \"crates/a\", # the first\n",
            "    \"crates/a\", # the first\n    \"crates/b\",\n"
        )
    );
    assert_eq!(cargo_members(&s.root), vec!["a", "b-util"]);
    call(&s, "rollback", json!({"snapshot_id": snap}))
        .await
        .unwrap();
    assert_eq!(snapshot(&s.root), original, "rollback puts every byte back");
}

#[tokio::test]
async fn create_package_makes_a_binary_and_inherits_nothing_not_shared() {
    let s = setup(&[(
        "Cargo.toml",
        "[workspace]\nmembers = [\"tools/*\"]\nresolver = \"2\"\n",
    )]);
    let (_, _) = plan_and_apply(
        &s,
        "create_package",
        json!({"path": "tools/run", "name": "run", "kind": "bin", "dry_run": true}),
        "cargo metadata",
    )
    .await;
    // The glob already takes the new member in: the root manifest is left alone.
    assert_eq!(
        text(&s.root, "Cargo.toml"),
        "[workspace]\nmembers = [\"tools/*\"]\nresolver = \"2\"\n"
    );
    assert!(
        text(&s.root, "tools/run/Cargo.toml").contains("version = \"0.1.0\"\nedition = \"2024\"\n")
    );
    assert!(text(&s.root, "tools/run/src/main.rs").contains("fn main()"));
    assert_eq!(cargo_members(&s.root), vec!["run"]);
}

#[tokio::test]
async fn update_members_lists_adds_and_removes_with_globs_and_comments_kept() {
    let b = crate_files("b");
    let x = crate_files("x");
    let y = crate_files("y");
    let root_text = "[workspace]\nresolver = \"2\"\n# Every crate, and one tool.\nmembers = [\"crates/*\", \"tools/x\"] # keep sorted\n";
    let s = setup(&[
        ("Cargo.toml", root_text),
        (
            &b[0].0,
            &b[0]
                .1
                .replace(".workspace = true", " = \"0.1.0\"")
                .replace("edition = \"0.1.0\"", "edition = \"2021\""),
        ),
        (&b[1].0, ""),
        (
            "crates/c/Cargo.toml",
            "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("crates/c/src/lib.rs", ""),
        (
            "tools/x/Cargo.toml",
            &x[0]
                .1
                .replace(".workspace = true", " = \"0.1.0\"")
                .replace("edition = \"0.1.0\"", "edition = \"2021\""),
        ),
        ("tools/x/src/lib.rs", ""),
        (
            "extra/y/Cargo.toml",
            &y[0]
                .1
                .replace(".workspace = true", " = \"0.1.0\"")
                .replace("edition = \"0.1.0\"", "edition = \"2021\""),
        ),
        ("extra/y/src/lib.rs", ""),
    ]);
    let list = call(&s, "update_members", json!({"action": "list"}))
        .await
        .unwrap();
    assert_eq!(list.structured["members"][0]["written"], "crates/*");
    assert_eq!(
        list.structured["members"][0]["directories"],
        json!(["crates/b", "crates/c"])
    );
    assert_eq!(
        list.structured["members"][1]["directories"],
        json!(["tools/x"])
    );
    assert!(
        list.text.contains("crates/* → crates/b, crates/c"),
        "{}",
        list.text
    );

    // A path a glob matches is not added again, and says so.
    let again = call(
        &s,
        "update_members",
        json!({"action": "add", "members": ["crates/b"]}),
    )
    .await
    .unwrap_err();
    assert!(
        again
            .error
            .contains("already a member through \"crates/*\""),
        "{again:?}"
    );

    plan_and_apply(
        &s,
        "update_members",
        json!({"action": "add", "members": ["extra/y"]}),
        "cargo metadata",
    )
    .await;
    let t = text(&s.root, "Cargo.toml");
    assert_eq!(
        t,
        root_text.replace("\"tools/x\"]", "\"tools/x\", \"extra/y\"]")
    );
    assert_eq!(cargo_members(&s.root), vec!["b", "c", "x", "y"]);

    // Removing a path only a glob matches excludes it, and says so.
    let out = call(
        &s,
        "update_members",
        json!({"action": "remove", "members": ["crates/b", "tools/x"]}),
    )
    .await
    .unwrap();
    let warnings = out.structured["warnings"].to_string();
    assert!(
        warnings.contains("crates/b is matched by \\\"crates/*\\\": added to exclude"),
        "{warnings}"
    );
    assert!(warnings.contains("tools/x removed"), "{warnings}");
    let id = out.structured["plan"]["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    call(
        &s,
        "update_members",
        json!({"dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    let t = text(&s.root, "Cargo.toml");
    assert!(
        t.contains(
            "# Every crate, and one tool.\nmembers = [\"crates/*\", \"extra/y\"] # keep sorted\n"
        ),
        "{t}"
    );
    assert!(t.contains("exclude = [\"crates/b\"]"), "{t}");
    assert_eq!(cargo_members(&s.root), vec!["c", "y"]);
}

#[tokio::test]
async fn extract_dependencies_copies_inherited_renamed_and_test_dependencies_as_written() {
    let s = cargo_setup(&[
        (
            "crates/old/Cargo.toml",
            "[package]\nname = \"old\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = { workspace = true, features = [\"derive\"] }\nrx = { package = \"regex\", version = \"1.10\", default-features = false, optional = true }\nunused = \"1\"\n\n[dev-dependencies]\ntempfile = \"3\"\n",
        ),
        ("crates/old/src/lib.rs", "pub mod util;\n"),
        (
            "crates/old/src/util.rs",
            "use serde::Serialize;\n\n#[derive(Serialize)]\npub struct P;\n\npub fn f() -> bool {\n    rx::Regex::new(\"a\").is_ok() && ghost::here()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n        tempfile::tempdir().unwrap();\n    }\n}\n",
        ),
        (
            "crates/new/Cargo.toml",
            "[package]\nname = \"new\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n# What the new crate needs.\n[dependencies]\n",
        ),
        ("crates/new/src/lib.rs", ""),
    ]);
    // The two crates are members for cargo metadata to read them.
    std::fs::write(
        s.root.join("Cargo.toml"),
        ROOT_CARGO.replace(
            "    \"crates/a\", # the first\n",
            "    \"crates/a\", # the first\n    \"crates/old\",\n    \"crates/new\",\n",
        ),
    )
    .unwrap();
    let (plan, _) = plan_and_apply(
        &s,
        "extract_dependencies",
        json!({"source": "crates/old/src/util.rs", "target": "crates/new"}),
        "cargo metadata",
    )
    .await;
    let _ = plan;
    let t = text(&s.root, "crates/new/Cargo.toml");
    assert_eq!(
        t,
        "[package]\nname = \"new\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n# What the new crate needs.\n[dependencies]\nrx = { package = \"regex\", version = \"1.10\", default-features = false, optional = true }\nserde = { workspace = true, features = [\"derive\"] }\n\n[dev-dependencies]\ntempfile = \"3\"\n"
    );
    // A second time: already there, nothing to change; ghost is named, never invented.
    let again = call(
        &s,
        "extract_dependencies",
        json!({"source": "crates/old/src/util.rs", "target": "crates/new"}),
    )
    .await
    .unwrap_err();
    assert!(
        again
            .error
            .contains("already in crates/new/Cargo.toml: rx, serde, tempfile"),
        "{again:?}"
    );
    assert!(
        again
            .error
            .contains("not listed in crates/old/Cargo.toml, so not copied: ghost"),
        "{again:?}"
    );
}

#[tokio::test]
async fn update_dependency_changes_workspace_dependencies_and_refuses_absent_ones() {
    let s = cargo_setup(&[(
        "web/package.json",
        "{\n  \"name\": \"web\",\n  \"dependencies\": {\n    \"react\": \"^18.2.0\"\n  }\n}\n",
    )]);
    plan_and_apply(
        &s,
        "update_dependency",
        json!({"manifest": "Cargo.toml", "name": "serde", "version": "1.0.200"}),
        "cargo metadata",
    )
    .await;
    assert_eq!(
        text(&s.root, "Cargo.toml"),
        ROOT_CARGO.replace("version = \"1.0\"", "version = \"1.0.200\"")
    );
    let absent = call(
        &s,
        "update_dependency",
        json!({"manifest": "Cargo.toml", "name": "tokio", "version": "1"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        absent.details.as_ref().unwrap()["field"],
        "name",
        "{absent:?}"
    );
    let out = call(
        &s,
        "update_dependencies",
        json!({"updates": [
            {"manifest": "Cargo.toml", "name": "serde", "version": "1.0.210"},
            {"manifest": "web/package.json", "name": "react", "version": "^19.0.0"}
        ], "dry_run": false}),
    )
    .await
    .unwrap();
    assert_eq!(
        out.structured["applied"]["applied_files"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "{}",
        out.text
    );
    assert!(text(&s.root, "web/package.json").contains("\"react\": \"^19.0.0\""));
    assert!(text(&s.root, "Cargo.toml").contains(
        "# Serialization, everywhere.\nserde = { version = \"1.0.210\", default-features = false }"
    ));
}

fn field(e: &resolve_pr_core::Error) -> String {
    e.details
        .as_ref()
        .and_then(|d| d.get("field"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn bad_arguments_are_categorized_errors_naming_their_field() {
    let s = cargo_setup(&[]);
    let cases = [
        (
            json!({"path": "crates/a", "name": "x"}),
            "path",
            "already exists",
        ),
        (
            json!({"path": "../outside", "name": "x"}),
            "path",
            "outside the checkout",
        ),
        (
            json!({"path": "crates/n", "name": "9lives"}),
            "name",
            "starts with a digit",
        ),
        (
            json!({"path": "crates/n", "name": "a.b"}),
            "name",
            "only ASCII letters",
        ),
        (
            json!({"path": "crates/n", "name": "x", "ecosystem": "npm"}),
            "ecosystem",
            "no npm workspace",
        ),
        (
            json!({"path": "crates/n", "name": "x", "ecosystem": "maven"}),
            "ecosystem",
            "unknown ecosystem",
        ),
        (json!({"name": "x"}), "path", "needs path"),
    ];
    for (args, want, says) in cases {
        let e = call(&s, "create_package", args.clone()).await.unwrap_err();
        assert_eq!(field(&e), want, "{args}: {e:?}");
        assert!(e.error.contains(says), "{args}: {e:?}");
        assert!(e.code.is_some(), "{args}: {e:?}");
    }
    let none = setup(&[("package.json", "{\"name\": \"solo\"}\n")]);
    let e = call(&none, "create_package", json!({"path": "p", "name": "p"}))
        .await
        .unwrap_err();
    assert_eq!(field(&e), "ecosystem");
    assert!(
        e.suggestion.as_deref().unwrap_or("").contains("workspaces"),
        "{e:?}"
    );
    let npm = setup(&[("package.json", "{\"name\": \"r\", \"workspaces\": []}\n")]);
    let e = call(
        &npm,
        "create_package",
        json!({"path": "p", "name": "Bad Name"}),
    )
    .await
    .unwrap_err();
    assert_eq!(field(&e), "name", "{e:?}");
    let e = call(
        &s,
        "update_members",
        json!({"action": "add", "members": ["nowhere"]}),
    )
    .await
    .unwrap_err();
    assert_eq!(field(&e), "members", "{e:?}");
    let e = call(
        &s,
        "extract_dependencies",
        json!({"source": "crates/a/src/lib.rs", "target": "crates/none"}),
    )
    .await
    .unwrap_err();
    assert_eq!(field(&e), "target", "{e:?}");
    assert!(!s.root.join("crates/n").exists());
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        || Command::new(program)
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success())
}

#[tokio::test]
async fn an_npm_workspace_gets_a_package_npm_sees() {
    if !have("npm") {
        return;
    }
    let s = setup(&[
        (
            "package.json",
            "{\n  \"name\": \"root\",\n  \"private\": true,\n  \"workspaces\": [\n    \"packages/a\"\n  ]\n}\n",
        ),
        (
            "packages/a/package.json",
            "{\n  \"name\": \"a\",\n  \"version\": \"1.0.0\"\n}\n",
        ),
    ]);
    let original = snapshot(&s.root);
    let (_, snap) = plan_and_apply(
        &s,
        "create_package",
        json!({"path": "packages/b", "name": "@demo/b"}),
        "npm pkg get name --workspaces",
    )
    .await;
    assert_eq!(
        text(&s.root, "package.json"),
        "{\n  \"name\": \"root\",\n  \"private\": true,\n  \"workspaces\": [\n    \"packages/a\",\n    \"packages/b\"\n  ]\n}\n"
    );
    assert!(s.root.join("packages/b/index.js").is_file());
    // npm query reads the installed tree: link the workspaces (offline, no scripts) first.
    let install = Command::new("npm")
        .args([
            "install",
            "--offline",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
        ])
        .current_dir(&s.root)
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let query = Command::new("npm")
        .args(["query", ".workspace"])
        .current_dir(&s.root)
        .output()
        .unwrap();
    let found: Value = serde_json::from_slice(&query.stdout).unwrap();
    let names: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(
        names.contains(&"@demo/b") && names.contains(&"a"),
        "{names:?}"
    );
    std::fs::remove_dir_all(s.root.join("node_modules")).unwrap();
    let _ = std::fs::remove_file(s.root.join("package-lock.json"));
    call(&s, "rollback", json!({"snapshot_id": snap}))
        .await
        .unwrap();
    assert_eq!(snapshot(&s.root), original);
}

#[tokio::test]
async fn a_go_workspace_gets_a_module_go_lists() {
    if !have("go") {
        return;
    }
    let s = setup(&[
        ("go.work", "go 1.19\n\nuse (\n\t./api\n)\n"),
        ("api/go.mod", "module example.com/mono/api\n\ngo 1.19\n"),
        ("api/api.go", "package api\n"),
    ]);
    plan_and_apply(
        &s,
        "create_package",
        json!({"path": "lib/util", "name": "util"}),
        "go list -m",
    )
    .await;
    assert_eq!(
        text(&s.root, "go.work"),
        "go 1.19\n\nuse (\n\t./api\n\t./lib/util\n)\n"
    );
    assert_eq!(
        text(&s.root, "lib/util/go.mod"),
        "module example.com/mono/lib/util\n\ngo 1.19\n"
    );
    let out = Command::new("go")
        .args(["list", "-m"])
        .env("GOWORK", s.root.join("go.work"))
        .env("GOFLAGS", "")
        .env("GOPROXY", "off")
        .current_dir(&s.root)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("example.com/mono/lib/util"),
        "{listed}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // And out again, by update_members.
    plan_and_apply(
        &s,
        "update_members",
        json!({"action": "remove", "members": ["lib/util"]}),
        "go list -m",
    )
    .await;
    assert_eq!(text(&s.root, "go.work"), "go 1.19\n\nuse (\n\t./api\n)\n");
}

/// Plans and applies where the ecosystem's tool may be missing: then the plan says so and
/// applies with NOT_VERIFIED; where it is installed, it verified the plan.
async fn apply_checked_if_installed(s: &Setup, tool: &str, args: Value, program: &str) {
    let out = call(s, tool, args).await.unwrap();
    let v = out.structured["plan"]["verification"].clone();
    let id = out.structured["plan"]["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let applied = call(s, tool, json!({"dry_run": false, "plan_id": id}))
        .await
        .unwrap();
    if have(program) {
        assert_eq!(v["verified"], true, "{v}");
    } else {
        assert_eq!(v["verified"], false, "{v}");
        assert!(
            v["how"]
                .as_str()
                .unwrap()
                .contains(&format!("{program} is not installed: not checked")),
            "{v}"
        );
        assert!(
            applied.structured["warnings"]
                .to_string()
                .contains("NOT_VERIFIED"),
            "{}",
            applied.text
        );
    }
    assert_eq!(applied.structured["applied"]["success"], true);
}

#[tokio::test]
async fn a_pnpm_workspace_gets_a_package_in_its_yaml_with_comments_kept() {
    let yaml = "packages:\n  # every package\n  - 'packages/*'\n  - '!**/test/**'\n";
    let s = setup(&[
        (
            "package.json",
            "{\n  \"name\": \"root\",\n  \"private\": true,\n  \"devDependencies\": {\n    \"typescript\": \"^5.4.0\"\n  }\n}\n",
        ),
        ("pnpm-workspace.yaml", yaml),
    ]);
    apply_checked_if_installed(
        &s,
        "create_package",
        json!({"path": "tools/gen", "name": "@demo/gen"}),
        "pnpm",
    )
    .await;
    assert_eq!(
        text(&s.root, "pnpm-workspace.yaml"),
        format!("{yaml}  - 'tools/gen'\n")
    );
    // The workspace is TypeScript: the entry is too.
    assert!(text(&s.root, "tools/gen/package.json").contains("\"main\": \"index.ts\""));
    assert!(s.root.join("tools/gen/index.ts").is_file());
    let list = call(&s, "update_members", json!({"action": "list"}))
        .await
        .unwrap();
    assert_eq!(
        list.structured["members"][2]["directories"],
        json!(["tools/gen"]),
        "{}",
        list.text
    );
    // Removing a package a pattern matches excludes it with a negation.
    std::fs::create_dir_all(s.root.join("packages/old")).unwrap();
    std::fs::write(
        s.root.join("packages/old/package.json"),
        "{\"name\": \"old\"}\n",
    )
    .unwrap();
    apply_checked_if_installed(
        &s,
        "update_members",
        json!({"action": "remove", "members": ["packages/old"]}),
        "pnpm",
    )
    .await;
    assert!(
        text(&s.root, "pnpm-workspace.yaml").ends_with("  - 'tools/gen'\n  - '!packages/old'\n")
    );
}

#[tokio::test]
async fn a_uv_workspace_gets_a_project_as_uv_init_writes_it() {
    let root = "[project]\nname = \"root\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\ndependencies = [\"attrs>=23\"]\n\n[tool.uv.workspace]\n# the libraries\nmembers = [\"libs/*\"]\n";
    let s = setup(&[("pyproject.toml", root)]);
    apply_checked_if_installed(
        &s,
        "create_package",
        json!({"path": "apps/web-app", "name": "web-app", "ecosystem": "uv"}),
        "uv",
    )
    .await;
    assert_eq!(
        text(&s.root, "pyproject.toml"),
        root.replace("[\"libs/*\"]", "[\"libs/*\", \"apps/web-app\"]")
    );
    let project = text(&s.root, "apps/web-app/pyproject.toml");
    assert!(
        project.contains("name = \"web-app\"") && project.contains("requires-python = \">=3.11\""),
        "{project}"
    );
    assert!(project.contains("requires = [\"hatchling\"]"), "{project}");
    assert!(
        s.root
            .join("apps/web-app/src/web_app/__init__.py")
            .is_file()
    );
}

#[tokio::test]
async fn extract_dependencies_copies_what_a_javascript_module_imports() {
    if !have("npm") {
        return;
    }
    let s = setup(&[
        (
            "package.json",
            "{\n  \"name\": \"root\",\n  \"private\": true,\n  \"workspaces\": [\"packages/*\"]\n}\n",
        ),
        (
            "packages/a/package.json",
            "{\n  \"name\": \"a\",\n  \"dependencies\": {\n    \"@scope/lib\": \"^2.1.0\",\n    \"left-pad\": \"1.3.0\"\n  },\n  \"devDependencies\": {\n    \"vitest\": \"^1.6.0\"\n  }\n}\n",
        ),
        (
            "packages/a/src/lib/index.js",
            "import { x } from '@scope/lib/sub';\nconst fs = require('node:fs');\nimport ghost from 'ghost';\n",
        ),
        (
            "packages/a/src/lib/index.test.js",
            "import { test } from 'vitest';\n",
        ),
        (
            "packages/b/package.json",
            "{\n  \"name\": \"b\",\n  \"version\": \"1.0.0\"\n}\n",
        ),
    ]);
    let out = call(
        &s,
        "extract_dependencies",
        json!({"source": "packages/a/src/lib", "target": "packages/b"}),
    )
    .await
    .unwrap();
    assert!(
        out.structured["warnings"]
            .to_string()
            .contains("so not copied: ghost"),
        "{}",
        out.text
    );
    let id = out.structured["plan"]["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    call(
        &s,
        "extract_dependencies",
        json!({"dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    assert_eq!(
        text(&s.root, "packages/b/package.json"),
        "{\n  \"name\": \"b\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n    \"@scope/lib\": \"^2.1.0\"\n  },\n  \"devDependencies\": {\n    \"vitest\": \"^1.6.0\"\n  }\n}\n"
    );
}

#[tokio::test]
async fn go_imports_are_copied_with_their_required_versions_and_updated() {
    if !have("go") {
        return;
    }
    let s = setup(&[
        ("go.work", "go 1.19\n\nuse (\n\t./api\n\t./util\n)\n"),
        (
            "api/go.mod",
            "module example.com/mono/api\n\ngo 1.19\n\nrequire (\n\tgithub.com/google/go-cmp v0.6.0\n\tgolang.org/x/sync v0.7.0\n)\n",
        ),
        (
            "api/diff.go",
            "package api\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/google/go-cmp/cmp\"\n\t\"github.com/nowhere/x\"\n)\n\nvar _ = fmt.Sprint(cmp.Diff(1, 2), x.Y)\n",
        ),
        ("util/go.mod", "module example.com/mono/util\n\ngo 1.19\n"),
    ]);
    let out = call(
        &s,
        "extract_dependencies",
        json!({"source": "api/diff.go", "target": "util"}),
    )
    .await
    .unwrap();
    assert!(
        out.structured["warnings"]
            .to_string()
            .contains("so not copied: github.com/nowhere/x"),
        "{}",
        out.text
    );
    let id = out.structured["plan"]["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    call(
        &s,
        "extract_dependencies",
        json!({"dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    assert_eq!(
        text(&s.root, "util/go.mod"),
        "module example.com/mono/util\n\ngo 1.19\n\nrequire github.com/google/go-cmp v0.6.0\n"
    );
    plan_and_apply(
        &s,
        "update_dependency",
        json!({"manifest": "util/go.mod", "name": "github.com/google/go-cmp", "version": "v0.7.0"}),
        "go list -m",
    )
    .await;
    assert!(text(&s.root, "util/go.mod").ends_with("require github.com/google/go-cmp v0.7.0\n"));
}

#[tokio::test]
async fn python_imports_are_matched_to_requirements_by_normalized_name() {
    let s = setup(&[
        (
            "pyproject.toml",
            "[project]\nname = \"root\"\nversion = \"0.1.0\"\n\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\n",
        ),
        (
            "packages/old/pyproject.toml",
            "[project]\nname = \"old\"\nversion = \"0.1.0\"\ndependencies = [\n    \"Typing_Extensions>=4.6\",\n    \"attrs[tests]==23.1; python_version >= '3.9'\",\n    \"rich\",\n]\n",
        ),
        ("packages/old/src/old/__init__.py", ""),
        (
            "packages/old/src/old/util.py",
            "import os\nimport typing_extensions\nfrom attrs import define\nfrom old import sibling\nimport yaml\n",
        ),
        (
            "packages/new/pyproject.toml",
            "[project]\nname = \"new\"\nversion = \"0.1.0\"\n# none yet\ndependencies = []\n",
        ),
    ]);
    apply_checked_if_installed(
        &s,
        "extract_dependencies",
        json!({"source": "packages/old/src/old/util.py", "target": "packages/new"}),
        "uv",
    )
    .await;
    assert_eq!(
        text(&s.root, "packages/new/pyproject.toml"),
        "[project]\nname = \"new\"\nversion = \"0.1.0\"\n# none yet\ndependencies = [\"Typing_Extensions>=4.6\", \"attrs[tests]==23.1; python_version >= '3.9'\"]\n"
    );
}
