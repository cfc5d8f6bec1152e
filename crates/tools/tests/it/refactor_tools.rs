//! The refactoring tools through the registry (as MCP and the CLI call them), against the
//! real language servers and checkers on copies of the sample projects: a dry run leaves
//! every byte as it was, an apply does exactly the plan previewed, verified by the
//! language's checker, and rollback puts every byte back.

use std::collections::BTreeMap;
use std::path::Path;

use resolve_pr_lsp::TrustPolicy;
use resolve_pr_tools::Context;
use serde_json::{Value, json};

use super::code_navigation::{available, context_trusting, copy_project};

/// Every file under `root` but the servers' and builds' own (`target`, caches), with its
/// bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if ["target", ".cache", "node_modules", "__pycache__"].contains(&name.as_str()) {
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

fn ctx_for(state: &Path) -> Context {
    let mut ctx = context_trusting(TrustPolicy::everything());
    ctx.local.state_dir = Some(state.to_owned());
    ctx
}

async fn call(
    ctx: &Context,
    tool: &str,
    args: Value,
) -> Result<resolve_pr_tools::ToolOutput, resolve_pr_core::Error> {
    resolve_pr_tools::call(ctx, tool, args).await
}

fn text_of(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).unwrap()
}

/// Per language: the function renamed, the file declaring it, the file calling it, and the
/// checker the plan must name.
const RENAMES: [(&str, &str, &str, &str, &str); 5] = [
    (
        "rust",
        "add_numbers",
        "src/util.rs",
        "src/main.rs",
        "cargo check",
    ),
    (
        "typescript",
        "add_numbers",
        "src/util.ts",
        "src/main.ts",
        "tsc --noEmit",
    ),
    (
        "python",
        "add_numbers",
        "util.py",
        "main.py",
        "basedpyright",
    ),
    ("go", "AddNumbers", "util/util.go", "main.go", "go build"),
    (
        "c",
        "add_numbers",
        "util.c",
        "main.c",
        "the compile_commands.json compilers",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_plans_without_writing_applies_exactly_that_plan_verified_and_rolls_back() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    for (language, old, decl, user, checker) in RENAMES {
        let new = if old == "AddNumbers" {
            "SumNumbers"
        } else {
            "sum_numbers"
        };
        if !available(&ctx, language).await {
            continue;
        }
        let project = copy_project(language);
        let root = project.path().canonicalize().unwrap();
        let before = snapshot(&root);
        let plan = call(
            &ctx,
            "rename",
            json!({"directory": root, "symbol": old, "new_name": new, "language": language}),
        )
        .await
        .unwrap_or_else(|e| panic!("{language}: {e:?}"));
        assert_eq!(
            snapshot(&root),
            before,
            "{language}: a dry run writes nothing"
        );
        let p = &plan.structured["plan"];
        let files: Vec<&str> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert!(
            files.contains(&decl) && files.contains(&user),
            "{language}: {files:?}"
        );
        assert_eq!(p["plan_type"], "RenamePlan");
        assert!(
            p["file_checksums"][decl]
                .as_str()
                .unwrap()
                .starts_with("sha256:")
        );
        assert!(
            p["diff"].as_str().unwrap().contains("+pub fn sum_numbers") || language != "rust",
            "{}",
            p["diff"]
        );
        let v = &p["verification"];
        assert_eq!(v["verified"], true, "{language}: {v}");
        assert!(
            v["how"].as_str().unwrap().starts_with(checker),
            "{language}: {v}"
        );
        assert!(
            plan.text.contains("dry_run: false, plan_id"),
            "{}",
            plan.text
        );

        let id = p["plan_id"].as_str().unwrap();
        let applied = call(
            &ctx,
            "rename",
            json!({"directory": root, "dry_run": false, "plan_id": id}),
        )
        .await
        .unwrap_or_else(|e| panic!("{language}: {e:?}"));
        let a = &applied.structured["applied"];
        assert_eq!(a["success"], true);
        // The apply says how the plan was checked first, in the text too.
        assert!(
            a["verified_by"].as_str().unwrap().starts_with(checker),
            "{language}: {a}"
        );
        assert!(
            applied.text.contains(", verified first ("),
            "{}",
            applied.text
        );
        assert!(text_of(&root, user).contains(new), "{language}");
        assert!(!text_of(&root, decl).contains(old), "{language}");
        if language == "c" {
            assert!(text_of(&root, "util.h").contains(new), "the header too");
        }

        // The server answers from the new text at once.
        let refs = call(
            &ctx,
            "find_references",
            json!({"directory": root, "symbol": new, "language": language}),
        )
        .await
        .unwrap_or_else(|e| panic!("{language}: {e:?}"));
        assert!(
            refs.structured["total"].as_u64().unwrap() >= 2,
            "{language}: {}",
            refs.text
        );

        let snapshot_id = a["snapshot_id"].as_str().unwrap();
        call(
            &ctx,
            "rollback",
            json!({"directory": root, "snapshot_id": snapshot_id}),
        )
        .await
        .unwrap();
        assert_eq!(
            snapshot(&root),
            before,
            "{language}: rollback puts every byte back"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_whose_file_changed_is_refused_and_nothing_is_written() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "typescript").await {
        return;
    }
    let project = copy_project("typescript");
    let root = project.path().canonicalize().unwrap();
    let plan = call(
        &ctx,
        "rename",
        json!({"directory": root, "symbol": "add_numbers", "new_name": "plus"}),
    )
    .await
    .unwrap();
    let id = plan.structured["plan"]["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(
        root.join("src/main.ts"),
        text_of(&root, "src/main.ts") + "\n// edited\n",
    )
    .unwrap();
    let before = snapshot(&root);
    let err = call(
        &ctx,
        "rename",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("CHECKSUM_MISMATCH"),
        "{err:?}"
    );
    assert!(err.error.contains("src/main.ts"), "{err:?}");
    assert_eq!(snapshot(&root), before);
    // A plan of one tool is not applied by another.
    let err = call(
        &ctx,
        "rollback",
        json!({"directory": root, "snapshot_id": "snap-x"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("SNAPSHOT_NOT_FOUND"),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_a_file_rewrites_what_imports_it() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    for (language, from, to, importer, old, new) in [
        (
            "typescript",
            "src/util.ts",
            "helpers.ts",
            "src/main.ts",
            "./util.js",
            "./helpers.js",
        ),
        (
            "rust",
            "src/util.rs",
            "helpers.rs",
            "src/main.rs",
            "mod util;",
            "mod helpers;",
        ),
    ] {
        if !available(&ctx, language).await {
            continue;
        }
        let project = copy_project(language);
        let root = project.path().canonicalize().unwrap();
        let out = call(
            &ctx,
            "rename",
            json!({"directory": root, "kind": "file", "file_path": from, "new_name": to, "dry_run": false}),
        )
        .await
        .unwrap_or_else(|e| panic!("{language}: {e:?}"));
        let a = &out.structured["applied"];
        assert!(
            a["deleted_files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == from),
            "{language}: {a}"
        );
        let text = text_of(&root, importer);
        assert!(
            text.contains(new) && !text.contains(old),
            "{language}: {text}"
        );
        assert!(!root.join(from).exists());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_named_together_and_read_only_servers_only_plan() {
    let state = tempfile::tempdir().unwrap();
    let mut ctx = ctx_for(state.path());
    let project = copy_project("typescript");
    let root = project.path().canonicalize().unwrap();
    let err = call(
        &ctx,
        "rename",
        json!({"directory": root, "kind": "file", "new_name": "../x", "symbol": "a"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("INVALID_ARGUMENT"),
        "{err:?}"
    );
    for field in ["new_name", "file_path", "kind"] {
        assert!(err.error.contains(field), "{field} in {err:?}");
    }
    ctx.read_only = true;
    let err = call(
        &ctx,
        "rename",
        json!({"directory": root, "symbol": "add_numbers", "new_name": "x", "dry_run": false}),
    )
    .await
    .unwrap_err();
    assert!(err.error.contains("--read-only"), "{err:?}");
    // A position with nothing to rename (a keyword) is the agent's to fix, not a server
    // failure: rust-analyzer refuses it with an error of its own.
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let ctx = ctx_for(state.path());
    let err = call(
        &ctx,
        "rename",
        json!({"directory": root, "file_path": "src/main.rs", "position": {"line": 6, "character": 1}, "new_name": "x"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("SYMBOL_NOT_FOUND"),
        "{err:?}"
    );
    assert!(err.error.contains("nothing to rename at line 6"), "{err:?}");
}

/// Extract and inline as the servers perform them: the edit of an action resolved
/// (rust-analyzer) or pushed while its command runs (typescript-language-server), planned
/// without a write, verified by the compiler, applied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_and_inline_are_the_servers_own_actions_verified_before_they_apply() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let r = |l1: u32, c1: u32, l2: u32, c2: u32| json!({"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}});
    let cases = [
        (
            "rust",
            "extract",
            "function",
            "src/main.rs",
            json!({"range": r(8, 4, 9, 39)}),
            "fn fun_name",
        ),
        (
            "rust",
            "extract",
            "constant",
            "src/main.rs",
            json!({"range": r(12, 26, 12, 29)}),
            "const VAR_NAME: f64 = 2.0;",
        ),
        (
            "rust",
            "inline",
            "variable",
            "src/main.rs",
            json!({"position": {"line": 12, "character": 8}}),
            "total_area(&[&c, &Square { side: 2.0 }])",
        ),
        (
            "typescript",
            "extract",
            "constant",
            "src/main.ts",
            json!({"range": r(4, 16, 4, 33)}),
            "const newLocal = add_numbers(1, 2)",
        ),
        (
            "typescript",
            "extract",
            "function",
            "src/main.ts",
            json!({"range": r(5, 2, 6, 39)}),
            // Indented as the project is (2 spaces), not tsserver's default 4.
            "{\n  const second = add_numbers(first, 3);",
        ),
        (
            "typescript",
            "inline",
            "variable",
            "src/main.ts",
            json!({"position": {"line": 7, "character": 8}}),
            "new Circle(1).area()",
        ),
        // gopls: by executeCommand and the edit it then asks to apply.
        (
            "go",
            "extract",
            "variable",
            "main.go",
            json!({"range": r(10, 10, 10, 31)}),
            "x := util.AddNumbers(1, 2)",
        ),
        (
            "go",
            "extract",
            "function",
            "main.go",
            json!({"range": r(11, 1, 12, 36)}),
            "func newFunction(first int) int {",
        ),
        // Python's come from pylsp with pylsp-rope (basedpyright offers none), by the
        // command it runs and the edit it then asks to apply.
        (
            "python",
            "extract",
            "variable",
            "main.py",
            json!({"range": r(5, 12, 5, 29)}),
            "extracted_variable = add_numbers(1, 2)",
        ),
        (
            "python",
            "extract",
            "function",
            "main.py",
            json!({"range": r(6, 4, 7, 34)}),
            "third = extracted_method(first)",
        ),
        (
            "python",
            "extract",
            "constant",
            "main.py",
            json!({"range": r(8, 15, 8, 18)}),
            "extracted_variable = 1.0",
        ),
        (
            "python",
            "inline",
            "variable",
            "main.py",
            json!({"position": {"line": 9, "character": 4}}),
            "[c, Square(2.0)]",
        ),
        (
            "python",
            "inline",
            "function",
            "main.py",
            json!({"position": {"line": 5, "character": 14}}),
            "first = 1 + 2",
        ),
    ];
    for (language, tool, kind, file, at, expect) in cases {
        if !available(&ctx, language).await {
            continue;
        }
        let project = copy_project(language);
        let root = project.path().canonicalize().unwrap();
        let before = snapshot(&root);
        let mut args = json!({"directory": root, "kind": kind, "file_path": file});
        args.as_object_mut()
            .unwrap()
            .extend(at.as_object().unwrap().clone());
        let plan = call(&ctx, tool, args)
            .await
            .unwrap_or_else(|e| panic!("{language} {tool} {kind}: {e:?}"));
        assert_eq!(
            snapshot(&root),
            before,
            "{language} {tool}: a dry run writes nothing"
        );
        let p = &plan.structured["plan"];
        assert_eq!(
            p["verification"]["verified"], true,
            "{language} {tool} {kind}: {}",
            plan.text
        );
        let id = p["plan_id"].as_str().unwrap();
        call(
            &ctx,
            tool,
            json!({"directory": root, "dry_run": false, "plan_id": id}),
        )
        .await
        .unwrap_or_else(|e| panic!("{language} {tool} {kind}: {e:?}"));
        let text = text_of(&root, file);
        assert!(text.contains(expect), "{language} {tool} {kind}: {text}");
    }
    // A selection rope cannot extract: what it said, and nothing planned.
    if available(&ctx, "python").await {
        let project = copy_project("python");
        let root = project.path().canonicalize().unwrap();
        let err = call(
            &ctx,
            "extract",
            json!({"directory": root, "kind": "variable", "file_path": "main.py", "range": r(5, 12, 5, 20)}),
        )
        .await
        .unwrap_err();
        assert_eq!(
            err.code.map(|c| c.as_str()),
            Some("NOT_SUPPORTED"),
            "{err:?}"
        );
        assert!(
            err.error.contains("pylsp made no change: pylsp-rope:"),
            "{err:?}"
        );
        // An untrusted checkout never starts rope (it runs .ropeproject/config.py): the
        // refusal says so.
        let mut untrusted = context_trusting(TrustPolicy::nothing());
        untrusted.local.state_dir = Some(state.path().to_owned());
        let err = call(
            &untrusted,
            "extract",
            json!({"directory": root, "kind": "variable", "file_path": "main.py", "range": r(5, 12, 5, 29)}),
        )
        .await
        .unwrap_err();
        assert!(
            err.error
                .contains("pylsp performs them, in trusted checkouts only"),
            "{err:?}"
        );
        untrusted.lsp.shutdown_all().await;
    }
    // rust-analyzer 1.95 inlines `one` but leaves its use in `println!("{one:.2}")`: the
    // plan says the build breaks, and the apply is refused.
    if available(&ctx, "rust").await {
        let project = copy_project("rust");
        let root = project.path().canonicalize().unwrap();
        let before = snapshot(&root);
        let args = json!({"directory": root, "kind": "variable", "file_path": "src/main.rs", "position": {"line": 13, "character": 8}});
        let plan = call(&ctx, "inline", args.clone()).await.unwrap();
        let v = &plan.structured["plan"]["verification"];
        assert_eq!(v["verified"], false, "{}", plan.text);
        assert!(
            v["new_errors"][0].as_str().unwrap().contains("E0425"),
            "{v}"
        );
        assert!(plan.text.contains("Breaks the build"), "{}", plan.text);
        let mut apply = args;
        apply["dry_run"] = json!(false);
        let err = call(&ctx, "inline", apply).await.unwrap_err();
        assert_eq!(
            err.code.map(|c| c.as_str()),
            Some("APPLY_FAILED"),
            "{err:?}"
        );
        assert_eq!(snapshot(&root), before);
    }
}

/// find_replace over a Rust project: a replacement the compiler accepts is verified and
/// applied; one that breaks the build is refused with the compiler's new error, and the
/// checkout keeps every byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_replace_applies_what_builds_and_refuses_what_breaks_it() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let before = snapshot(&root);

    let broken = call(
        &ctx,
        "find_replace",
        json!({"directory": root, "pattern": "a + b", "replacement": "a +", "dry_run": false}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        broken.code.map(|c| c.as_str()),
        Some("APPLY_FAILED"),
        "{broken:?}"
    );
    assert!(broken.error.contains("src/util.rs"), "{broken:?}");
    assert_eq!(snapshot(&root), before, "a refused apply writes nothing");

    let plan = call(
        &ctx,
        "find_replace",
        json!({"directory": root, "pattern": "add_numbers", "replacement": "sum_numbers", "whole_word": true, "include": ["src/**"]}),
    )
    .await
    .unwrap();
    let p = &plan.structured["plan"];
    assert_eq!(p["verification"]["verified"], true, "{}", plan.text);
    assert!(
        plan.text.contains("match(es) in 2 file(s)"),
        "{}",
        plan.text
    );
    let id = p["plan_id"].as_str().unwrap();
    call(
        &ctx,
        "find_replace",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    assert!(!text_of(&root, "src/main.rs").contains("add_numbers"));
    // A plan of find_replace is not applied by rename.
    let err = call(
        &ctx,
        "rename",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("INVALID_PLAN_TYPE"),
        "{err:?}"
    );
}

/// TypeScript imports by the server's own source actions: the unused one removed, the rest
/// sorted, each planned and verified by tsc.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_imports_are_sorted_and_pruned_by_the_servers_source_actions() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "typescript").await {
        return;
    }
    let project = copy_project("typescript");
    let root = project.path().canonicalize().unwrap();
    let main = text_of(&root, "src/main.ts");
    let mut lines: Vec<&str> = main.lines().collect();
    lines.swap(0, 1);
    lines.insert(0, "import { add_numbers as unused } from \"./util.js\";");
    std::fs::write(root.join("src/main.ts"), lines.join("\n") + "\n").unwrap();

    let pruned = call(
        &ctx,
        "delete",
        json!({"directory": root, "kind": "unused_imports", "file_path": "src/main.ts"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    let diff = pruned.structured["plan"]["diff"].as_str().unwrap();
    assert!(diff.contains("-import { add_numbers as unused }"), "{diff}");
    assert!(
        !diff.contains("-import { Circle"),
        "only the unused import goes: {diff}"
    );
    assert_eq!(
        pruned.structured["plan"]["verification"]["verified"], true,
        "{}",
        pruned.text
    );

    let sorted = call(
        &ctx,
        "reorder",
        json!({"directory": root, "kind": "imports", "file_path": "src/main.ts", "dry_run": false}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(sorted.structured["applied"]["success"], true);
    let text = text_of(&root, "src/main.ts");
    let shapes = text.find("./shapes.js").unwrap();
    let util = text.find("./util.js").unwrap();
    assert!(shapes < util, "{text}");
}

/// A declaration moved to another file by typescript-language-server, with the imports of
/// its users rewritten, verified by tsc: to the file the server names, or to the path the
/// agent gives (the same change, the new file and its specifiers renamed); languages
/// without such a move say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_takes_a_declaration_to_another_file_with_its_imports() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "typescript").await {
        return;
    }
    let range = json!({"start": {"line": 21, "character": 0}, "end": {"line": 28, "character": 1}});
    for destination in [None::<&str>, Some("src/area.ts")] {
        let project = copy_project("typescript");
        let root = project.path().canonicalize().unwrap();
        let before = snapshot(&root);
        let mut args = json!({"directory": root, "file_path": "src/shapes.ts", "range": range});
        if let Some(d) = destination {
            args["destination"] = json!(d);
        }
        // typescript-language-server writes the new file itself while its command runs: the
        // dry run must still leave every byte (and no new file).
        let plan = call(&ctx, "move", args)
            .await
            .unwrap_or_else(|e| panic!("{destination:?}: {e:?}"));
        assert_eq!(snapshot(&root), before, "a dry run writes nothing");
        assert_eq!(
            plan.structured["plan"]["verification"]["verified"], true,
            "{}",
            plan.text
        );
        let id = plan.structured["plan"]["plan_id"].as_str().unwrap();
        let out = call(
            &ctx,
            "move",
            json!({"directory": root, "dry_run": false, "plan_id": id}),
        )
        .await
        .unwrap_or_else(|e| panic!("{destination:?}: {e:?}"));
        let created = out.structured["applied"]["created_files"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(created.len(), 1, "{destination:?}: {}", out.text);
        let new_file = created[0].as_str().unwrap();
        if let Some(d) = destination {
            assert_eq!(new_file, d);
        }
        assert!(text_of(&root, new_file).contains("export function total_area"));
        assert!(!text_of(&root, "src/shapes.ts").contains("function total_area"));
        let stem = Path::new(new_file)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            text_of(&root, "src/main.ts").contains(&format!("./{stem}.js")),
            "{}",
            text_of(&root, "src/main.ts")
        );
    }
    // tsserver writes a new file beside the old one: a file that exists, or another
    // directory (the moved code's relative imports were written for this one), is refused.
    let project = copy_project("typescript");
    let root = project.path().canonicalize().unwrap();
    for dest in ["src/main.ts", "lib/area.ts"] {
        let err = call(&ctx, "move", json!({"directory": root, "file_path": "src/shapes.ts", "range": range, "destination": dest}))
            .await
            .unwrap_err();
        assert_eq!(
            err.code.map(|c| c.as_str()),
            Some("NOT_SUPPORTED"),
            "{dest}: {err:?}"
        );
    }
    // Go: no server or tool here moves a declaration; said before anything is asked.
    let project = copy_project("go");
    let root = project.path().canonicalize().unwrap();
    let err = call(
        &ctx,
        "move",
        json!({"directory": root, "file_path": "main.go", "range": range}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("NOT_SUPPORTED"),
        "{err:?}"
    );
}

/// Python: rope moves a function into an existing module and rewrites its importers; the
/// plan is verified by basedpyright, applied exactly, and undone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_takes_a_python_function_into_a_module_by_rope() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let root = project.path().canonicalize().unwrap();
    let before = snapshot(&root);
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 16}});
    let plan = call(
        &ctx,
        "move",
        json!({"directory": root, "file_path": "util.py", "range": range, "destination": "shapes.py"}),
    )
    .await
    .unwrap();
    assert_eq!(snapshot(&root), before, "a dry run writes nothing");
    assert!(!root.join(".ropeproject").exists());
    let p = &plan.structured["plan"];
    assert_eq!(p["verification"]["verified"], true, "{}", plan.text);
    let id = p["plan_id"].as_str().unwrap();
    let out = call(
        &ctx,
        "move",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    assert!(text_of(&root, "shapes.py").contains("def add_numbers(a: int, b: int) -> int:"));
    assert!(!text_of(&root, "util.py").contains("add_numbers"));
    let main = text_of(&root, "main.py");
    assert!(
        main.contains("add_numbers") && !main.contains("from util import"),
        "{main}"
    );
    let snapshot_id = out.structured["applied"]["snapshot_id"].as_str().unwrap();
    call(
        &ctx,
        "rollback",
        json!({"directory": root, "snapshot_id": snapshot_id}),
    )
    .await
    .unwrap();
    assert_eq!(snapshot(&root), before);
    // No destination, or one that is not a module of the checkout: named, nothing planned.
    for (destination, field) in [(None, "destination"), (Some("nowhere.py"), "destination")] {
        let mut args = json!({"directory": root, "file_path": "util.py", "range": range});
        if let Some(d) = destination {
            args["destination"] = json!(d);
        }
        let err = call(&ctx, "move", args).await.unwrap_err();
        assert_eq!(
            err.details
                .as_ref()
                .and_then(|d| d.get("field"))
                .and_then(|f| f.as_str()),
            Some(field),
            "{err:?}"
        );
    }
}

/// Rust: a type moves into another module with its impl blocks and the imports it needs; the
/// old module re-exports it, so main.rs is untouched and still builds (cargo check verifies
/// the plan); undone by rollback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_takes_a_rust_type_with_its_impls_into_a_module() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let before = snapshot(&root);
    let at = json!({"start": {"line": 15, "character": 11}, "end": {"line": 15, "character": 17}});
    let plan = call(
        &ctx,
        "move",
        json!({"directory": root, "file_path": "src/shapes.rs", "range": at, "destination": "src/util.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(snapshot(&root), before, "a dry run writes nothing");
    let p = &plan.structured["plan"];
    assert_eq!(p["verification"]["verified"], true, "{}", plan.text);
    assert!(
        p["verification"]["how"]
            .as_str()
            .unwrap()
            .starts_with("cargo check"),
        "{}",
        plan.text
    );
    let id = p["plan_id"].as_str().unwrap();
    let out = call(
        &ctx,
        "move",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    let util = text_of(&root, "src/util.rs");
    assert!(
        util.contains("pub struct Square") && util.contains("impl Shape for Square"),
        "{util}"
    );
    assert!(util.contains("use crate::shapes::Shape;"), "{util}");
    let shapes = text_of(&root, "src/shapes.rs");
    assert!(
        shapes.starts_with("pub use crate::util::Square;"),
        "{shapes}"
    );
    assert!(!shapes.contains("struct Square"), "{shapes}");
    assert_eq!(
        std::fs::read(root.join("src/main.rs")).unwrap(),
        before["src/main.rs"],
        "users keep their paths"
    );
    let snapshot_id = out.structured["applied"]["snapshot_id"].as_str().unwrap();
    call(
        &ctx,
        "rollback",
        json!({"directory": root, "snapshot_id": snapshot_id}),
    )
    .await
    .unwrap();
    assert_eq!(snapshot(&root), before);
    // An impl block is not an item to move alone: said, nothing planned.
    let err = call(
        &ctx,
        "move",
        json!({"directory": root, "file_path": "src/shapes.rs", "range": {"start": {"line": 19, "character": 0}, "end": {"line": 19, "character": 1}}, "destination": "src/util.rs"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("NOT_SUPPORTED"),
        "{err:?}"
    );
}

/// `move` with `kind: file`: a Rust module into another package of the workspace becomes
/// that crate (verified by cargo check, its crate-visible items made `pub`, the old crate
/// using it under the module's name), a plain file goes into a directory under its own
/// name, and what is missing or outside the checkout is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_takes_a_rust_module_into_a_crate_of_its_own_and_files_into_directories() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let files = [
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"app\", \"units\"]\nresolver = \"2\"\n",
        ),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        (
            "app/src/lib.rs",
            "mod length;\n\npub fn metres(x: f64) -> f64 {\n    length::Length::new(x).0\n}\n",
        ),
        (
            "app/src/length.rs",
            "pub(crate) struct Length(pub(crate) f64);\n\nimpl Length {\n    pub(crate) fn new(x: f64) -> Self {\n        crate::length::Length(x)\n    }\n}\n",
        ),
        (
            "units/Cargo.toml",
            "[package]\nname = \"app-units\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        ),
        ("units/src/lib.rs", "\n"),
        ("notes.txt", "Notes.\n"),
        ("docs/guide.md", "# Guide\n"),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let before = snapshot(&root);
    let plan = call(
        &ctx,
        "move",
        json!({"directory": root, "kind": "file", "file_path": "app/src/length.rs", "destination": "units"}),
    )
    .await
    .unwrap();
    assert_eq!(snapshot(&root), before, "a dry run writes nothing");
    assert!(
        !root.join("Cargo.lock").exists(),
        "nor does its verification"
    );
    let p = &plan.structured["plan"];
    assert_eq!(p["verification"]["verified"], true, "{}", plan.text);
    let id = p["plan_id"].as_str().unwrap();
    let out = call(
        &ctx,
        "move",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    assert_eq!(
        text_of(&root, "units/src/lib.rs"),
        "pub struct Length(pub f64);\n\nimpl Length {\n    pub fn new(x: f64) -> Self {\n        crate::Length(x)\n    }\n}\n"
    );
    assert!(text_of(&root, "app/src/lib.rs").starts_with("use app_units as length;\n"));
    let manifest = text_of(&root, "app/Cargo.toml");
    assert!(
        manifest.contains("app-units = { path = \"../units\", version = \"0.1.0\" }"),
        "{manifest}"
    );
    assert!(
        text_of(&root, "units/Cargo.toml").contains("edition = \"2021\""),
        "the module's edition"
    );
    assert!(!root.join("app/src/length.rs").exists());
    let snapshot_id = out.structured["applied"]["snapshot_id"].as_str().unwrap();
    call(
        &ctx,
        "rollback",
        json!({"directory": root, "snapshot_id": snapshot_id}),
    )
    .await
    .unwrap();
    let mut after = snapshot(&root);
    after.remove("Cargo.lock");
    assert_eq!(after, before, "rollback puts every byte back");

    // A file into an existing directory keeps its name there.
    let plan = call(
        &ctx,
        "move",
        json!({"directory": root, "kind": "file", "file_path": "notes.txt", "destination": "docs"}),
    )
    .await
    .unwrap();
    assert_eq!(
        plan.structured["plan"]["files"][0]["path"], "docs/notes.txt",
        "{}",
        plan.text
    );

    // What is missing or outside is named.
    for (args, code, field) in [
        (
            json!({"kind": "file", "file_path": "notes.txt"}),
            "INVALID_ARGUMENT",
            "destination",
        ),
        (
            json!({"kind": "file", "file_path": "notes.txt", "destination": "../out.txt"}),
            "INVALID_PATH",
            "destination",
        ),
        (
            json!({"kind": "file", "file_path": "notes.txt", "destination": "docs", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}),
            "INVALID_ARGUMENT",
            "range",
        ),
    ] {
        let mut args = args;
        args["directory"] = json!(root);
        let err = call(&ctx, "move", args.clone()).await.unwrap_err();
        assert_eq!(err.code.map(|c| c.as_str()), Some(code), "{args}: {err:?}");
        assert_eq!(
            err.details.as_ref().and_then(|d| d.get("field")),
            Some(&json!(field)),
            "{args}: {err:?}"
        );
    }
    // A module that uses the rest of its crate cannot leave it: said, with what it uses.
    std::fs::write(
        root.join("app/src/length.rs"),
        "pub fn f() -> f64 { crate::metres(1.0) }\n",
    )
    .unwrap();
    let err = call(
        &ctx,
        "move",
        json!({"directory": root, "kind": "file", "file_path": "app/src/length.rs", "destination": "units"}),
    )
    .await
    .unwrap_err();
    assert!(err.error.contains("crate::metres"), "{err:?}");
    assert_eq!(
        err.details.as_ref().and_then(|d| d.get("field")),
        Some(&json!("destination"))
    );
}

/// A package directory renamed has every import of it rewritten: Python by basedpyright's
/// willRenameFiles; Go here (gopls rewrites none), verified by go build and vet, where a
/// file renamed in its directory needs nothing and says nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_package_directory_renamed_has_its_imports_rewritten() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if available(&ctx, "python").await {
        let project = copy_project("python");
        let root = project.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
        std::fs::write(root.join("pkg/sub/__init__.py"), "").unwrap();
        std::fs::write(
            root.join("pkg/sub/mod.py"),
            "def f() -> int:\n    return 1\n",
        )
        .unwrap();
        std::fs::write(
            root.join("user.py"),
            "from pkg.sub.mod import f\nimport pkg.sub.mod\n\nprint(f(), pkg.sub.mod.f())\n",
        )
        .unwrap();
        let out = call(
            &ctx,
            "rename",
            json!({"directory": root, "kind": "directory", "file_path": "pkg/sub", "new_name": "inner", "dry_run": false}),
        )
        .await
        .unwrap();
        assert_eq!(out.structured["applied"]["success"], true, "{}", out.text);
        assert!(root.join("pkg/inner/mod.py").is_file() && !root.join("pkg/sub").exists());
        assert_eq!(
            text_of(&root, "user.py"),
            "from pkg.inner.mod import f\nimport pkg.inner.mod\n\nprint(f(), pkg.inner.mod.f())\n"
        );
    }
    // Rust: a directory module's `mod` line and paths (rust-analyzer's willRenameFiles).
    {
        let project = copy_project("rust");
        let root = project.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/geo")).unwrap();
        std::fs::rename(root.join("src/shapes.rs"), root.join("src/geo/mod.rs")).unwrap();
        let main = text_of(&root, "src/main.rs")
            .replace("mod shapes;", "mod geo;")
            .replace("use shapes::", "use geo::");
        std::fs::write(root.join("src/main.rs"), main).unwrap();
        let out = call(
            &ctx,
            "rename",
            json!({"directory": root, "kind": "directory", "file_path": "src/geo", "new_name": "figures", "dry_run": false}),
        )
        .await
        .unwrap();
        assert!(
            out.structured["applied"]["verified_by"].as_str().is_some(),
            "{}",
            out.text
        );
        let main = text_of(&root, "src/main.rs");
        assert!(
            main.contains("mod figures;") && main.contains("use figures::"),
            "{main}"
        );
        assert!(root.join("src/figures/mod.rs").is_file());
    }
    // TypeScript: the relative imports of the files moved (tsserver's).
    if available(&ctx, "typescript").await {
        let project = copy_project("typescript");
        let root = project.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/lib")).unwrap();
        std::fs::rename(root.join("src/util.ts"), root.join("src/lib/util.ts")).unwrap();
        let main = text_of(&root, "src/main.ts").replace("\"./util.js\"", "\"./lib/util.js\"");
        std::fs::write(root.join("src/main.ts"), main).unwrap();
        let out = call(
            &ctx,
            "rename",
            json!({"directory": root, "kind": "directory", "file_path": "src/lib", "new_name": "helpers", "dry_run": false}),
        )
        .await
        .unwrap();
        assert!(
            out.structured["applied"]["verified_by"].as_str().is_some(),
            "{}",
            out.text
        );
        assert!(text_of(&root, "src/main.ts").contains("\"./helpers/util.js\""));
    }
    if !available(&ctx, "go").await {
        return;
    }
    let project = copy_project("go");
    let root = project.path().canonicalize().unwrap();
    let plan = call(
        &ctx,
        "rename",
        json!({"directory": root, "kind": "directory", "file_path": "util", "new_name": "pkg/helpers"}),
    )
    .await
    .unwrap();
    let p = &plan.structured["plan"];
    assert_eq!(p["verification"]["verified"], true, "{}", plan.text);
    assert!(
        plan.structured["warnings"]
            .as_array()
            .is_none_or(|w| w.is_empty()),
        "{}",
        plan.text
    );
    let id = p["plan_id"].as_str().unwrap();
    call(
        &ctx,
        "rename",
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap();
    assert!(root.join("pkg/helpers/util.go").is_file());
    assert!(!root.join("util").exists());
    assert!(
        text_of(&root, "main.go").contains("\"example.com/shapes/pkg/helpers\""),
        "{}",
        text_of(&root, "main.go")
    );
    let plan = call(
        &ctx,
        "rename",
        json!({"directory": root, "kind": "file", "file_path": "main.go", "new_name": "app.go"}),
    )
    .await
    .unwrap();
    assert!(
        plan.structured["warnings"]
            .as_array()
            .is_none_or(|w| w.is_empty()),
        "{}",
        plan.text
    );
    assert_eq!(
        plan.structured["plan"]["verification"]["verified"], true,
        "{}",
        plan.text
    );
}

/// Rust: imports sorted by rustfmt on the use declarations alone, the rest of the file as it
/// was; verified by cargo check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_imports_are_sorted_by_rustfmt_and_nothing_else_moves() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let main = text_of(&root, "src/main.rs");
    let swapped = main
        .replace(
            "use shapes::{total_area, Circle, Shape, Square};\nuse util::add_numbers;\n",
            "use util::add_numbers;\nuse shapes::{Square, total_area, Shape, Circle};\n",
        )
        .replace("fn main() {", "fn main()   {");
    assert_ne!(swapped, main);
    std::fs::write(root.join("src/main.rs"), &swapped).unwrap();
    // Planned, then applied by the plan's own next call (no kind: the plan holds it).
    let plan = call(
        &ctx,
        "reorder",
        json!({"directory": root, "kind": "imports", "file_path": "src/main.rs"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    let next = plan.structured["next"]["arguments"].clone();
    assert_eq!(next["directory"], json!(root), "{next}");
    assert!(
        plan.text
            .contains(&format!("directory: {:?}", root.display().to_string())),
        "{}",
        plan.text
    );
    let out = call(&ctx, "reorder", next)
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        out.structured["applied"]["verified_by"]
            .as_str()
            .unwrap()
            .starts_with("cargo check"),
        "{}",
        out.text
    );
    let after = text_of(&root, "src/main.rs");
    assert_eq!(
        after,
        main.replace("fn main() {", "fn main()   {"),
        "{after}"
    );
}

/// Rust: a struct's fields sorted alphabetically by rust-analyzer's "Sort fields
/// alphabetically", asked with a selection of the name a position touches; verified by
/// cargo check. Without a position, and for parameters, the call is refused before a server is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_struct_fields_are_sorted_by_rust_analyzer() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let shapes = text_of(&root, "src/shapes.rs");
    let palette = "\n/// A colour.\npub struct Palette {\n    pub red: u8,\n    /// The middle one.\n    pub green: u8,\n    pub blue: u8,\n}\n\npub fn grey(p: &Palette) -> u8 {\n    p.red / 3 + p.green / 3 + p.blue / 3\n}\n";
    std::fs::write(root.join("src/shapes.rs"), format!("{shapes}{palette}")).unwrap();
    let line = shapes.lines().count() as u64 + 2;
    let at = json!({"line": line, "character": 14});
    let missing = call(
        &ctx,
        "reorder",
        json!({"directory": root, "kind": "members", "file_path": "src/shapes.rs"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        missing.code.map(|c| c.as_str()),
        Some("INVALID_ARGUMENT"),
        "{missing:?}"
    );
    let parameters = call(
        &ctx,
        "reorder",
        json!({"directory": root, "kind": "parameters", "file_path": "src/shapes.rs", "position": at}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        parameters.code.map(|c| c.as_str()),
        Some("NOT_SUPPORTED"),
        "{parameters:?}"
    );
    let out = call(
        &ctx,
        "reorder",
        json!({"directory": root, "kind": "members", "file_path": "src/shapes.rs", "position": at, "dry_run": false}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        out.structured["applied"]["verified_by"]
            .as_str()
            .unwrap()
            .starts_with("cargo check"),
        "{}",
        out.text
    );
    let after = text_of(&root, "src/shapes.rs");
    let sorted = "pub struct Palette {\n    pub blue: u8,\n    /// The middle one.\n    pub green: u8,\n    pub red: u8,\n}";
    assert!(after.contains(sorted), "{after}");
    assert!(after.starts_with(&shapes), "{after}");
}

/// Unused imports in Go (gopls' organize-imports) and C (clangd's fixes of its own
/// unused-includes diagnostics, asked with those diagnostics): only the unused one goes,
/// verified by go build and the compile commands, then applied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_and_c_unused_imports_are_removed_by_their_servers() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let cases = [
        (
            "go",
            "main.go",
            "\t\"fmt\"\n",
            "\t\"fmt\"\n\t\"strings\"\n",
            "\"strings\"",
        ),
        (
            "c",
            "main.c",
            "#include <stdio.h>\n",
            "#include <stdio.h>\n#include <stdlib.h>\n",
            "<stdlib.h>",
        ),
    ];
    for (language, file, line, with_unused, unused) in cases {
        if !available(&ctx, language).await {
            continue;
        }
        let project = copy_project(language);
        let root = project.path().canonicalize().unwrap();
        let original = text_of(&root, file);
        assert!(original.contains(line), "{language}: {original}");
        std::fs::write(root.join(file), original.replacen(line, with_unused, 1)).unwrap();
        let plan = call(
            &ctx,
            "delete",
            json!({"directory": root, "kind": "unused_imports", "file_path": file}),
        )
        .await
        .unwrap_or_else(|e| panic!("{language}: {e:?}"));
        let out = call(&ctx, "delete", plan.structured["next"]["arguments"].clone())
            .await
            .unwrap_or_else(|e| panic!("{language}: {e:?}"));
        assert_eq!(
            out.structured["applied"]["success"], true,
            "{language}: {}",
            out.text
        );
        assert!(
            out.structured["applied"]["verified_by"].as_str().is_some(),
            "{language}: {}",
            out.text
        );
        let after = text_of(&root, file);
        assert!(!after.contains(unused), "{language}: {after}");
        assert_eq!(after, original, "{language}: only the unused import goes");
        // Nothing left to remove: said, not planned as an empty change.
        let err = call(
            &ctx,
            "delete",
            json!({"directory": root, "kind": "unused_imports", "file_path": file}),
        )
        .await
        .unwrap_err();
        assert!(
            err.error.contains("found nothing to change"),
            "{language}: {err:?}"
        );
    }
}

/// extract with a name: the name the server invented (rust-analyzer's `fun_name`, rope's
/// `extracted_variable`) is replaced in what it inserts, verified, applied. A name the file
/// already has is refused before anything is planned, and so is a server's name that reuses
/// one of the file's (rust-analyzer names a variable after the field it fills).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_gives_what_it_extracts_the_name_asked_for() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let main = text_of(&root, "src/main.rs");
    let line = main.lines().position(|l| l.contains("side: 2.0")).unwrap();
    let col = main.lines().nth(line).unwrap().find("2.0").unwrap();
    let range = json!({"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 3}});
    let args = |kind: &str, name: &str| json!({"directory": root, "kind": kind, "file_path": "src/main.rs", "range": range, "name": name});
    for (kind, name, code) in [
        ("function", "total", "INVALID_ARGUMENT"),
        ("function", "2x", "INVALID_ARGUMENT"),
        ("variable", "side_len", "NOT_SUPPORTED"),
    ] {
        let err = call(&ctx, "extract", args(kind, name)).await.unwrap_err();
        assert_eq!(
            err.code.map(|c| c.as_str()),
            Some(code),
            "{kind} {name}: {err:?}"
        );
    }
    let mut applied = args("function", "side_len");
    applied["dry_run"] = json!(false);
    let out = call(&ctx, "extract", applied)
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        out.structured["applied"]["verified_by"].as_str().is_some(),
        "{}",
        out.text
    );
    let after = text_of(&root, "src/main.rs");
    assert!(after.contains("Square { side: side_len() }"), "{after}");
    assert!(after.contains("fn side_len() -> f64 {"), "{after}");
    assert!(!after.contains("fun_name"), "{after}");

    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let root = project.path().canonicalize().unwrap();
    let main = text_of(&root, "main.py");
    let line = main
        .lines()
        .position(|l| l.contains("print(third"))
        .unwrap();
    let col = main.lines().nth(line).unwrap().find("f\"{one").unwrap();
    let out = call(
        &ctx,
        "extract",
        json!({"directory": root, "kind": "variable", "file_path": "main.py", "name": "area_text", "dry_run": false,
               "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 12}}}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(out.structured["applied"]["success"], true, "{}", out.text);
    let after = text_of(&root, "main.py");
    assert!(
        after.contains("    area_text = f\"{one:.2f}\"\n    print(third, area_text,"),
        "{after}"
    );
}

/// A file the server's project leaves out (basedpyright's `include`) but that imports the
/// renamed function is renamed too, by text, said in a warning, and the whole verified.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rename_reaches_importers_outside_the_servers_project() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let root = project.path().canonicalize().unwrap();
    let manifest = text_of(&root, "pyproject.toml").replace(
        "[tool.basedpyright]\n",
        "[tool.basedpyright]\ninclude = [\"util.py\", \"shapes.py\"]\n",
    );
    std::fs::write(root.join("pyproject.toml"), manifest).unwrap();
    let plan = call(
        &ctx,
        "rename",
        json!({"directory": root, "file_path": "util.py", "position": {"line": 0, "character": 4}, "new_name": "sum_two"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    let warnings = plan.structured["warnings"].to_string();
    assert!(
        warnings.contains("IMPORTS_LEFT") && warnings.contains("main.py:2"),
        "{}",
        plan.text
    );
    assert_eq!(
        plan.structured["plan"]["verification"]["verified"], true,
        "{}",
        plan.text
    );
    call(&ctx, "rename", plan.structured["next"]["arguments"].clone())
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    let main = text_of(&root, "main.py");
    assert!(
        main.contains("from util import sum_two") && !main.contains("add_numbers"),
        "{main}"
    );
}

/// TypeScript inline function (tsserver has none): the syntax tree inlines a one-return
/// function into every call the server's references find, across files, takes it out of
/// the imports and removes its declaration; tsc verifies the plan. A function that is not
/// one return is refused, naming why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_functions_are_inlined_into_their_callers() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "typescript").await {
        return;
    }
    let project = copy_project("typescript");
    let root = project.path().canonicalize().unwrap();
    let util = text_of(&root, "src/util.ts");
    let line = util
        .lines()
        .position(|l| l.contains("function add_numbers"))
        .unwrap();
    let out = call(
        &ctx,
        "inline",
        json!({"directory": root, "kind": "function", "file_path": "src/util.ts", "position": {"line": line, "character": 17}}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        out.structured["plan"]["verification"]["verified"], true,
        "{}",
        out.text
    );
    call(&ctx, "inline", out.structured["next"]["arguments"].clone())
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    let main = text_of(&root, "src/main.ts");
    assert!(
        !main.contains("add_numbers") && !main.contains("./util.js"),
        "{main}"
    );
    assert!(
        main.contains("const first = 1 + 2;") && main.contains("const third = second + 4;"),
        "{main}"
    );
    assert!(!text_of(&root, "src/util.ts").contains("add_numbers"));

    let shapes = text_of(&root, "src/shapes.ts");
    let line = shapes
        .lines()
        .position(|l| l.contains("function total_area"))
        .unwrap();
    let err = call(
        &ctx,
        "inline",
        json!({"directory": root, "kind": "function", "file_path": "src/shapes.ts", "position": {"line": line, "character": 17}}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("NOT_SUPPORTED"),
        "{err:?}"
    );
    assert!(err.error.contains("one return"), "{err:?}");
}

/// Rust: the name in doc-test code (which rust-analyzer leaves and cargo check does not
/// build) is renamed too and said; prose that names it is left as written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rust_rename_reaches_doc_tests() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let project = copy_project("rust");
    let root = project.path().canonicalize().unwrap();
    let util = text_of(&root, "src/util.rs").replace(
        "/// Adds two numbers and returns their sum.\n",
        "/// Adds two numbers and returns their sum, as add_numbers says.\n///\n/// ```ignore\n/// assert_eq!(add_numbers(1, 2), 3);\n/// ```\n",
    );
    std::fs::write(root.join("src/util.rs"), &util).unwrap();
    let line = util
        .lines()
        .position(|l| l.starts_with("pub fn add_numbers"))
        .unwrap();
    let plan = call(
        &ctx,
        "rename",
        json!({"directory": root, "file_path": "src/util.rs", "position": {"line": line, "character": 7}, "new_name": "sum_numbers"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        plan.structured["warnings"]
            .to_string()
            .contains("DOC_TESTS_RENAMED"),
        "{}",
        plan.text
    );
    call(&ctx, "rename", plan.structured["next"]["arguments"].clone())
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    let after = text_of(&root, "src/util.rs");
    assert!(
        after.contains("/// assert_eq!(sum_numbers(1, 2), 3);"),
        "{after}"
    );
    assert!(after.contains("as add_numbers says."), "{after}");
}
