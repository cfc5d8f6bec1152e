//! Seed 002's internal file tools (toolset `internal`) through the registry: a dry run
//! leaves every byte as it was, an apply does exactly the plan, rollback restores the tree;
//! paths leaving the checkout are refused and nothing is written.

use std::collections::BTreeMap;
use std::path::Path;

use resolve_pr_core::ErrorCode;
use resolve_pr_lsp::TrustPolicy;
use resolve_pr_tools::Context;
use serde_json::{Value, json};

use super::code_navigation::{available, context_trusting, copy_project};

/// Every path under `root`: a file with its bytes, a directory as `None`.
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if ["__pycache__", ".cache"].contains(&name.as_str()) {
                continue;
            }
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, Some(target.display().to_string().into_bytes()));
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// Files only, with their text.
fn files(root: &Path) -> BTreeMap<String, String> {
    tree(root)
        .into_iter()
        .filter_map(|(p, b)| b.map(|b| (p, String::from_utf8_lossy(&b).into_owned())))
        .collect()
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

/// A small checkout: text, Python sources, an ignored directory and file.
fn checkout() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let put = |p: &str, text: &str| {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    put(".gitignore", "ignored/\n*.log\n");
    put("a.txt", "alpha\n");
    put("emoji.txt", "hi 😀 there\nsecond\n");
    put("src/lib.py", "def f():\n    return 1\n");
    put("src/pkg/mod.py", "x = 1\n");
    put("docs/readme.md", "hi\n");
    put("ignored/secret.txt", "s\n");
    put("debug.log", "log\n");
    (dir, root)
}

/// Plans with `tool`, checks the dry run wrote nothing, applies that plan by its id and
/// returns the apply's answer; the caller checks the files, then `undo` rolls back.
async fn plan_and_apply(ctx: &Context, root: &Path, tool: &str, mut args: Value) -> Value {
    let before = tree(root);
    args["directory"] = json!(root);
    let plan = call(ctx, tool, args.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e:?}"));
    assert_eq!(tree(root), before, "{tool}: a dry run writes nothing");
    let p = &plan.structured["plan"];
    let id = p["plan_id"].as_str().unwrap().to_owned();
    assert!(plan.text.contains(&id), "{}", plan.text);
    let applied = call(
        ctx,
        tool,
        json!({"directory": root, "dry_run": false, "plan_id": id}),
    )
    .await
    .unwrap_or_else(|e| panic!("{tool} apply: {e:?}"));
    let mut out = applied.structured.clone();
    out["plan"] = p.clone();
    out["warnings_of_plan"] = plan.structured["warnings"].clone();
    out
}

async fn undo(ctx: &Context, root: &Path, applied: &Value) {
    let snapshot = applied["applied"]["snapshot_id"].as_str().unwrap();
    call(
        ctx,
        "rollback",
        json!({"directory": root, "snapshot_id": snapshot}),
    )
    .await
    .unwrap_or_else(|e| panic!("rollback: {e:?}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_file_tool_plans_without_writing_applies_exactly_and_rolls_back() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    type Expect = fn(&mut BTreeMap<String, String>);
    let cases: Vec<(&str, Value, Expect, Option<&str>)> = vec![
        (
            "write_file",
            json!({"file_path": "a.txt", "content": "beta\n"}),
            |f| {
                f.insert("a.txt".into(), "beta\n".into());
            },
            None,
        ),
        (
            "write_file",
            json!({"file_path": "new/dir/b.txt", "content": "b"}),
            |f| {
                f.insert("new/dir/b.txt".into(), "b".into());
            },
            None,
        ),
        (
            "create_file",
            json!({"file_path": "c.txt", "content": "c\n"}),
            |f| {
                f.insert("c.txt".into(), "c\n".into());
            },
            None,
        ),
        (
            "create_file",
            json!({"file_path": "a.txt", "content": "over", "overwrite": true}),
            |f| {
                f.insert("a.txt".into(), "over".into());
            },
            None,
        ),
        (
            "delete_file",
            json!({"file_path": "docs/readme.md"}),
            |f| {
                f.remove("docs/readme.md");
            },
            None,
        ),
        (
            "rename_file",
            json!({"from": "src/lib.py", "to": "src/core.py"}),
            |f| {
                let t = f.remove("src/lib.py").unwrap();
                f.insert("src/core.py".into(), t);
            },
            Some("IMPORTS_NOT_REWRITTEN"),
        ),
        (
            "rename_directory",
            json!({"from": "src/pkg", "to": "src/package"}),
            |f| {
                let t = f.remove("src/pkg/mod.py").unwrap();
                f.insert("src/package/mod.py".into(), t);
            },
            Some("IMPORTS_NOT_REWRITTEN"),
        ),
        (
            "move_directory",
            json!({"from": "src/pkg", "to": "lib/pkg"}),
            |f| {
                let t = f.remove("src/pkg/mod.py").unwrap();
                f.insert("lib/pkg/mod.py".into(), t);
            },
            Some("IMPORTS_NOT_REWRITTEN"),
        ),
        (
            "execute_edits",
            json!({"edits": [
                {"file_path": "a.txt", "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}, "new_text": "gamma"},
                {"file_path": "emoji.txt", "start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 11}, "new_text": "world"},
            ]}),
            |f| {
                f.insert("a.txt".into(), "gamma\n".into());
                f.insert("emoji.txt".into(), "hi 😀 world\nsecond\n".into());
            },
            None,
        ),
    ];
    for (tool, args, expect, warning) in cases {
        let (_dir, root) = checkout();
        let before = tree(&root);
        let mut want = files(&root);
        expect(&mut want);
        let applied = plan_and_apply(&ctx, &root, tool, args.clone()).await;
        assert_eq!(files(&root), want, "{tool} {args}: the apply does the plan");
        assert_eq!(applied["applied"]["success"], true);
        if let Some(code) = warning {
            let warned = applied["warnings_of_plan"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|w| w["code"] == code && w["message"].as_str().unwrap().contains("rename"));
            assert!(warned, "{tool}: {}", applied["warnings_of_plan"]);
        }
        undo(&ctx, &root, &applied).await;
        assert_eq!(
            tree(&root),
            before,
            "{tool} {args}: rollback restores the tree"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_name_their_field_and_write_nothing() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let (_dir, root) = checkout();
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    std::fs::write(outside.join("secret.txt"), "outside\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    let escape = outside.join("x.txt").display().to_string();
    let outside_uri = url::Url::from_file_path(outside.join("y.txt"))
        .unwrap()
        .to_string();
    let cases: Vec<(&str, Value, &str, ErrorCode)> = vec![
        (
            "write_file",
            json!({"file_path": "../x.txt", "content": "x"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "write_file",
            json!({"file_path": escape, "content": "x"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "write_file",
            json!({"file_path": "out/x.txt", "content": "x"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "write_file",
            json!({"file_path": "src/../../x.txt", "content": "x"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "create_file",
            json!({"file_path": "../x.txt"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "create_file",
            json!({"file_path": "a.txt", "content": "no"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "delete_file",
            json!({"file_path": "out/secret.txt"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "rename_file",
            json!({"from": "a.txt", "to": "../b.txt"}),
            "to",
            ErrorCode::InvalidPath,
        ),
        (
            "rename_file",
            json!({"from": "a.txt", "to": "out/b.txt"}),
            "to",
            ErrorCode::InvalidPath,
        ),
        (
            "rename_file",
            json!({"from": "a.txt", "to": "docs/readme.md"}),
            "to",
            ErrorCode::InvalidPath,
        ),
        (
            "rename_directory",
            json!({"from": "src/pkg", "to": "lib/pkg"}),
            "to",
            ErrorCode::InvalidArgument,
        ),
        (
            "move_directory",
            json!({"from": "src", "to": "../src"}),
            "to",
            ErrorCode::InvalidPath,
        ),
        (
            "move_directory",
            json!({"from": "src", "to": "src/inner"}),
            "to",
            ErrorCode::InvalidPath,
        ),
        (
            "read_file",
            json!({"file_path": "../x.txt"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "read_file",
            json!({"file_path": "out/secret.txt"}),
            "file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "list_files",
            json!({"path": "out"}),
            "path",
            ErrorCode::InvalidPath,
        ),
        (
            "execute_edits",
            json!({"edits": [{"file_path": "../x.txt", "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}, "new_text": "x"}]}),
            "edits[0].file_path",
            ErrorCode::InvalidPath,
        ),
        (
            "apply_workspace_edit",
            json!({"edit": {"documentChanges": [{"kind": "create", "uri": outside_uri}]}}),
            "edit.documentChanges[0].uri",
            ErrorCode::InvalidPath,
        ),
    ];
    let before = tree(&root);
    let outside_before = tree(&outside);
    for (tool, mut args, field, code) in cases {
        args["directory"] = json!(root);
        if !["read_file", "list_files"].contains(&tool) {
            args["dry_run"] = json!(false);
        }
        let e = call(&ctx, tool, args.clone())
            .await
            .expect_err(&format!("{tool} {args} must be refused"));
        assert_eq!(e.code, Some(code), "{tool} {args}: {e:?}");
        assert_eq!(
            e.details.as_ref().and_then(|d| d.get("field")),
            Some(&json!(field)),
            "{tool} {args}: {e:?}"
        );
        assert_eq!(tree(&root), before, "{tool} {args}: nothing written");
        assert_eq!(
            tree(&outside),
            outside_before,
            "{tool} {args}: nothing written outside"
        );
    }
}

#[tokio::test]
async fn list_files_honours_gitignore_and_pages_without_repeating_or_skipping() {
    let ctx = ctx_for(tempfile::tempdir().unwrap().path());
    let (_dir, root) = checkout();
    for i in 0..7 {
        std::fs::write(root.join(format!("n{i}.txt")), "n".repeat(i)).unwrap();
    }
    let all = call(&ctx, "list_files", json!({"directory": root}))
        .await
        .unwrap()
        .structured;
    let listed: Vec<String> = all["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert!(listed.contains(&".gitignore".to_owned()), "{listed:?}");
    assert!(listed.contains(&"src/pkg/mod.py".to_owned()), "{listed:?}");
    assert!(
        !listed
            .iter()
            .any(|p| p.starts_with("ignored/") || p.ends_with(".log")),
        "ignored files listed: {listed:?}"
    );
    assert_eq!(all["total"], listed.len());
    assert!(all.get("next_cursor").is_none());
    let n3 = all["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "n3.txt")
        .unwrap();
    assert_eq!(n3["size"], 3);

    // Pages of 3: the same files, once each, in the same order.
    let mut paged = Vec::new();
    let mut args = json!({"directory": root, "limit": 3});
    loop {
        let page = call(&ctx, "list_files", args.clone()).await.unwrap();
        let s = page.structured;
        assert_eq!(s["total"], listed.len());
        paged.extend(
            s["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap().to_owned()),
        );
        match s["next_cursor"].as_str() {
            Some(c) => {
                assert!(
                    page.text.contains("next page: call list_files"),
                    "{}",
                    page.text
                );
                args["cursor"] = json!(c);
            }
            None => break,
        }
    }
    assert_eq!(paged, listed);

    let py = call(
        &ctx,
        "list_files",
        json!({"directory": root, "pattern": "*.py"}),
    )
    .await
    .unwrap()
    .structured;
    let py: Vec<&str> = py["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(py, ["src/lib.py", "src/pkg/mod.py"]);
    let top = call(
        &ctx,
        "list_files",
        json!({"directory": root, "path": "src", "recursive": false}),
    )
    .await
    .unwrap()
    .structured;
    assert_eq!(top["files"], json!([{"path": "src/lib.py", "size": 22}]));
    // A cursor is for the arguments it was issued for.
    let first = call(&ctx, "list_files", json!({"directory": root, "limit": 3}))
        .await
        .unwrap();
    let cursor = first.structured["next_cursor"].as_str().unwrap();
    let e = call(
        &ctx,
        "list_files",
        json!({"directory": root, "limit": 4, "cursor": cursor}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::InvalidCursor));
}

#[tokio::test]
async fn read_file_reads_ranges_and_says_where_a_truncated_read_goes_on() {
    let ctx = ctx_for(tempfile::tempdir().unwrap().path());
    let (_dir, root) = checkout();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    std::fs::write(root.join("ten.txt"), &text).unwrap();
    let r = call(
        &ctx,
        "read_file",
        json!({"directory": root, "file_path": "ten.txt", "start_line": 3, "end_line": 5}),
    )
    .await
    .unwrap()
    .structured;
    assert_eq!(r["content"], "line 3\nline 4\nline 5\n");
    assert_eq!(
        (
            r["total_lines"].as_u64(),
            r["start_line"].as_u64(),
            r["end_line"].as_u64()
        ),
        (Some(10), Some(3), Some(5))
    );
    assert_eq!(r["truncated"], false);
    // An end past the last line reads to the end.
    let r = call(
        &ctx,
        "read_file",
        json!({"directory": root, "file_path": "ten.txt", "start_line": 9, "end_line": 99}),
    )
    .await
    .unwrap()
    .structured;
    assert_eq!(r["content"], "line 9\nline 10\n");
    // 16 bytes at a time: whole lines, and the next call goes on where the last stopped.
    let mut args = json!({"directory": root, "file_path": "ten.txt", "max_bytes": 16});
    let mut read = String::new();
    let mut calls = 0;
    loop {
        calls += 1;
        let out = call(&ctx, "read_file", args).await.unwrap();
        let r = out.structured;
        read.push_str(r["content"].as_str().unwrap());
        assert!(r["content"].as_str().unwrap().len() <= 16);
        if r["truncated"] == false {
            assert!(r.get("next").is_none());
            break;
        }
        assert!(out.text.contains("read on: read_file with"), "{}", out.text);
        assert_eq!(r["next"]["tool"], "read_file");
        args = r["next"]["arguments"].clone();
    }
    assert_eq!(read, text);
    assert_eq!(calls, 5);
    // A line longer than max_bytes is cut, and said to be.
    let r = call(
        &ctx,
        "read_file",
        json!({"directory": root, "file_path": "emoji.txt", "end_line": 1, "max_bytes": 5}),
    )
    .await
    .unwrap()
    .structured;
    assert_eq!(r["content"], "hi ");
    assert_eq!(r["truncated"], true);
    // Binary files are refused.
    std::fs::write(root.join("blob.bin"), [0u8, 159, 146, 150, 0]).unwrap();
    let e = call(
        &ctx,
        "read_file",
        json!({"directory": root, "file_path": "blob.bin"}),
    )
    .await
    .unwrap_err();
    assert!(e.error.contains("binary"), "{e:?}");
    let e = call(
        &ctx,
        "read_file",
        json!({"directory": root, "file_path": "ten.txt", "max_bytes": 2_000_000}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::InvalidArgument));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_workspace_edit_creates_renames_deletes_and_counts_utf16() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let (_dir, root) = checkout();
    let uri = |p: &str| url::Url::from_file_path(root.join(p)).unwrap().to_string();
    let edit = json!({"documentChanges": [
        // "there" starts at UTF-16 character 6: the emoji is two units.
        {"textDocument": {"uri": uri("emoji.txt"), "version": null}, "edits": [
            {"range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 11}}, "newText": "world"},
            {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "newText": "> "},
        ]},
        {"kind": "create", "uri": uri("made/new.txt")},
        {"textDocument": {"uri": uri("made/new.txt"), "version": null}, "edits": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": "fresh\n"},
        ]},
        {"kind": "rename", "oldUri": uri("docs/readme.md"), "newUri": uri("docs/README.md")},
        {"kind": "delete", "uri": uri("a.txt")},
    ]});
    let before = tree(&root);
    let mut want = files(&root);
    want.insert("emoji.txt".into(), "hi 😀 world\n> second\n".into());
    want.insert("made/new.txt".into(), "fresh\n".into());
    let readme = want.remove("docs/readme.md").unwrap();
    want.insert("docs/README.md".into(), readme);
    want.remove("a.txt");
    let applied = plan_and_apply(&ctx, &root, "apply_workspace_edit", json!({"edit": edit})).await;
    assert_eq!(files(&root), want);
    assert_eq!(applied["plan"]["plan_type"], "WorkspaceEditPlan");
    undo(&ctx, &root, &applied).await;
    assert_eq!(tree(&root), before);

    // LSP's `changes` map plans as well.
    let plan = call(
        &ctx,
        "apply_workspace_edit",
        json!({"directory": root, "edit": {"changes": {uri("a.txt"): [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "newText": "A"}]}}}),
    )
    .await
    .unwrap();
    assert!(
        plan.structured["plan"]["diff"]
            .as_str()
            .unwrap()
            .contains("+Alpha")
    );
    assert_eq!(tree(&root), before);

    // A bad part is named by its pointer, and nothing is written.
    let bad = [
        (
            json!({"documentChanges": [
                {"kind": "create", "uri": uri("x.txt")},
                {"textDocument": {"uri": uri("a.txt")}, "edits": [{"range": {"start": {"line": 99, "character": 0}, "end": {"line": 99, "character": 1}}, "newText": ""}]},
            ]}),
            "edit.documentChanges[1].edits[0].range".to_owned(),
        ),
        (
            json!({"documentChanges": [
                {"kind": "create", "uri": uri("x.txt")},
                {"kind": "create", "uri": uri("y.txt")},
                {"textDocument": {"uri": uri("a.txt")}, "edits": [{"newText": "z"}]},
            ]}),
            "edit.documentChanges[2].edits[0].range".to_owned(),
        ),
        (
            json!({"documentChanges": [{"kind": "move", "uri": uri("a.txt")}]}),
            "edit.documentChanges[0].kind".to_owned(),
        ),
        (
            json!({"documentChanges": [{"textDocument": {"uri": "http://example.com/a"}, "edits": []}]}),
            "edit.documentChanges[0].textDocument.uri".to_owned(),
        ),
        (json!({"nothing": true}), "edit".to_owned()),
        (
            json!({"changes": {uri("a.txt"): [{"range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 0}}, "newText": "z"}]}}),
            format!("edit.changes[{:?}]", uri("a.txt")),
        ),
    ];
    for (edit, field) in bad {
        let e = call(
            &ctx,
            "apply_workspace_edit",
            json!({"directory": root, "edit": edit, "dry_run": false}),
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::InvalidArgument), "{e:?}");
        assert_eq!(
            e.details.as_ref().and_then(|d| d.get("field")),
            Some(&json!(field)),
            "{e:?}"
        );
        assert_eq!(tree(&root), before);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execute_batch_applies_all_at_once_or_nothing() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    let (_dir, root) = checkout();
    let before = tree(&root);
    let edit = |s: u32, e: u32, t: &str| json!({"tool": "execute_edits", "arguments": {"edits": [{"file_path": "a.txt", "start": {"line": 0, "character": s}, "end": {"line": 0, "character": e}, "new_text": t}]}});
    // The second operation is invalid: nothing is written, and the error names it.
    let e = call(
        &ctx,
        "execute_batch",
        json!({"directory": root, "dry_run": false, "operations": [
            {"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "changed\n"}},
            {"tool": "create_file", "arguments": {"file_path": "../escape.txt"}},
        ]}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::InvalidPath), "{e:?}");
    assert_eq!(
        e.details.as_ref().and_then(|d| d.get("field")),
        Some(&json!("operations[1].arguments.file_path"))
    );
    assert_eq!(tree(&root), before);
    // Overlapping edits of one file are refused.
    let e = call(
        &ctx,
        "execute_batch",
        json!({"directory": root, "operations": [edit(0, 3, "AL"), edit(2, 5, "PHA")]}),
    )
    .await
    .unwrap_err();
    assert!(e.error.contains("overlapping"), "{e:?}");
    // A path one operation renames and another edits is refused.
    let e = call(
        &ctx,
        "execute_batch",
        json!({"directory": root, "operations": [
            {"tool": "rename_file", "arguments": {"from": "a.txt", "to": "b.txt"}},
            edit(0, 1, "A"),
        ]}),
    )
    .await
    .unwrap_err();
    assert!(e.error.contains("both change a.txt"), "{e:?}");
    let e = call(
        &ctx,
        "execute_batch",
        json!({"directory": root, "operations": [{"tool": "rollback", "arguments": {}}]}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        e.details.as_ref().and_then(|d| d.get("field")),
        Some(&json!("operations[0].tool"))
    );
    assert_eq!(tree(&root), before);

    // Valid operations: one plan, one apply, one snapshot.
    let mut want = files(&root);
    want.insert("a.txt".into(), "ALPHA\n".into());
    let lib = want.remove("src/lib.py").unwrap();
    want.insert("src/core.py".into(), lib);
    want.insert("notes/n.txt".into(), "n\n".into());
    let applied = plan_and_apply(
        &ctx,
        &root,
        "execute_batch",
        json!({"operations": [
            edit(0, 2, "AL"),
            edit(2, 5, "PHA"),
            {"tool": "rename_file", "arguments": {"from": "src/lib.py", "to": "src/core.py"}},
            {"tool": "create_file", "arguments": {"file_path": "notes/n.txt", "content": "n\n"}},
        ]}),
    )
    .await;
    assert_eq!(applied["plan"]["plan_type"], "BatchPlan");
    assert_eq!(files(&root), want);
    undo(&ctx, &root, &applied).await;
    assert_eq!(tree(&root), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_symbol_with_imports_is_rename_and_its_plan_applies_by_either_tool() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let root = project.path().canonicalize().unwrap();
    let before = files(&root);
    let plan = call(
        &ctx,
        "rename_symbol_with_imports",
        json!({"directory": root, "symbol": "add_numbers", "new_name": "sum_numbers", "language": "python"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(files(&root), before, "a dry run writes nothing");
    let p = &plan.structured["plan"];
    assert_eq!(p["plan_type"], "RenamePlan");
    let diff = p["diff"].as_str().unwrap();
    assert!(diff.contains("+from util import sum_numbers"), "{diff}");
    assert!(diff.contains("+def sum_numbers"), "{diff}");
    // Applied by rename, the tool it maps onto.
    let applied = call(
        &ctx,
        "rename",
        json!({"directory": root, "dry_run": false, "plan_id": p["plan_id"]}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    let main = std::fs::read_to_string(root.join("main.py")).unwrap();
    assert!(
        main.contains("from util import sum_numbers") && !main.contains("add_numbers"),
        "{main}"
    );
    undo(&ctx, &root, &applied.structured).await;
    assert_eq!(files(&root), before);
}
