//! Every code-intelligence tool against the real language servers, on the sample projects
//! in tests/fixtures/code: each query in `<language>.expected.json` is called through the
//! tool registry (as MCP and the CLI call it) and its answer checked against the locations,
//! names and texts the servers were verified to give.
//!
//! The servers are installed by .ci/run (scripts/test.sh), which lists them in
//! RESOLVE_PR_REQUIRE_LSP: a required server that is missing fails the test. Elsewhere a
//! missing server skips its language, and says so.

#![allow(
    clippy::print_stderr,
    reason = "says which servers were skipped and how long each answer took"
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use resolve_pr_core::{CursorCodec, ErrorCode};
use resolve_pr_forge::{Config, Forges};
use resolve_pr_lsp::{Pool, PoolConfig, TrustPolicy};
use resolve_pr_tools::Context;
use serde_json::{Value, json};

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/code")
}

/// A context whose language servers trust no checkout (the temporary copies the tests read
/// are not the server's working directory, so this is also what `from_env` gives them).
fn context() -> Context {
    context_trusting(TrustPolicy::nothing())
}

pub(crate) fn context_trusting(trust: TrustPolicy) -> Context {
    let config = Config::from_parts(None, None, &|_: &str| None).expect("config");
    let mut ctx = Context::new(Arc::new(Forges::new(config)), CursorCodec::new([7; 32]));
    ctx.lsp = Pool::new(PoolConfig {
        trust,
        // These tests check answers; a cold server on a loaded machine may take longer than
        // the 45 s bound MCP calls get (tested on its own).
        call_wait: Duration::from_secs(300),
        ..PoolConfig::from_env()
    });
    ctx
}

/// A copy of a sample project in a temporary directory (servers write caches beside it).
pub(crate) fn copy_project(language: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = fixtures().join(language);
    copy_dir(&src, dir.path());
    let db_template = dir.path().join("compile_commands.json.in");
    if db_template.exists() {
        let root = dir.path().canonicalize().unwrap();
        let text = std::fs::read_to_string(&db_template)
            .unwrap()
            .replace("@DIR@", &root.display().to_string());
        std::fs::write(dir.path().join("compile_commands.json"), text).unwrap();
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        if name == "target" || name == ".cache" || name == "node_modules" {
            continue;
        }
        let dest = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn required(language: &str) -> bool {
    std::env::var("RESOLVE_PR_REQUIRE_LSP")
        .map(|v| v.split(',').any(|l| l.trim() == language))
        .unwrap_or(false)
}

/// Whether the language's server is installed; a required one must be.
pub(crate) async fn available(ctx: &Context, language: &str) -> bool {
    let health = resolve_pr_tools::call(ctx, "health_check", json!({"directory": fixtures()}))
        .await
        .expect("health_check");
    let installed = health.structured["servers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["language"] == language && s["installed"] == true);
    if !installed {
        assert!(
            !required(language),
            "the {language} server is required here but not installed: {}",
            health.text
        );
        eprintln!("SKIPPED {language}: no server installed ({})", health.text);
    }
    installed
}

fn set_of_locations(v: &Value) -> BTreeSet<(String, u64)> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|l| {
                    (
                        l["file_path"].as_str().unwrap().to_owned(),
                        l["line"]
                            .as_u64()
                            .or_else(|| l["range"]["start"]["line"].as_u64())
                            .unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn names(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|c| c["symbol"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// What differs between an answer and its expectation; empty when it matches.
fn mismatch(out: &Value, expect: &Value, text_extra: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    if let Some(locations) = expect.get("locations") {
        let all = out["locations"].as_array().cloned().unwrap_or_default();
        let (text, server): (Vec<Value>, Vec<Value>) =
            all.into_iter().partition(|l| l["source"] == "text");
        let got = set_of_locations(&Value::Array(server));
        let want = set_of_locations(locations);
        if got != want {
            wrong.push(format!("locations: got {got:?}, want {want:?}"));
        }
        // What the syntax scan adds must be true references the server missed.
        let added = set_of_locations(&Value::Array(text));
        let allowed = set_of_locations(text_extra);
        if !added.is_subset(&allowed) {
            wrong.push(format!(
                "text matches {added:?} are not among the known misses {allowed:?}"
            ));
        }
    }
    for key in ["incoming", "outgoing"] {
        if let Some(want) = expect.get(key) {
            let want: BTreeSet<String> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_owned())
                .collect();
            let got = names(&out[key]);
            if got != want {
                wrong.push(format!("{key}: got {got:?}, want {want:?}"));
            }
        }
    }
    if let Some(want) = expect.get("hover_contains").and_then(Value::as_str) {
        let info = out["info"].as_str().unwrap_or("");
        if !info.contains(want) {
            wrong.push(format!("info {info:?} lacks {want:?}"));
        }
    }
    if let Some(want) = expect.get("symbols") {
        let got: BTreeSet<(String, String, u64)> = out["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_owned(),
                    s["location"]["file_path"].as_str().unwrap().to_owned(),
                    s["location"]["range"]["start"]["line"].as_u64().unwrap(),
                )
            })
            .collect();
        for w in want.as_array().unwrap() {
            let key = (
                w["name"].as_str().unwrap().to_owned(),
                w["file_path"].as_str().unwrap().to_owned(),
                w["line"].as_u64().unwrap(),
            );
            if !got.contains(&key) {
                wrong.push(format!("symbols lack {key:?}; got {got:?}"));
            }
        }
    }
    wrong
}

/// Runs every query of a language; each is asked again while the server says it is still
/// indexing and the answer does not match yet (a partial answer is allowed to be short).
async fn run_language(language: &str) {
    let ctx = context();
    if !available(&ctx, language).await {
        return;
    }
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join(format!("{language}.expected.json"))).unwrap(),
    )
    .unwrap();
    let project = copy_project(language);
    let dir = project.path().canonicalize().unwrap();
    let mut failures = Vec::new();
    let started = Instant::now();
    for (i, query) in spec["queries"].as_array().unwrap().iter().enumerate() {
        let tool = query["tool"].as_str().unwrap();
        let mut args = query["args"].clone();
        args["directory"] = json!(dir);
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let t = Instant::now();
            let out = resolve_pr_tools::call(&ctx, tool, args.clone()).await;
            let out = match out {
                Ok(out) => out,
                Err(e) => {
                    failures.push(format!(
                        "{language} #{i} {tool} {}: error {}",
                        query["name"],
                        e.to_json()
                    ));
                    break;
                }
            };
            // What the tool answers where it corrects the server (README: product_answer).
            let expect = query.get("product_answer").unwrap_or(&query["expect"]);
            let allowed = if query.get("product_answer").is_some() {
                &Value::Null
            } else {
                &query["text_extra"]
            };
            let wrong = mismatch(&out.structured, expect, allowed);
            if i == 0 {
                eprintln!(
                    "{language}: first answer {:.2} s after start",
                    started.elapsed().as_secs_f64()
                );
            }
            if wrong.is_empty() {
                eprintln!(
                    "{language} #{i} {tool}: ok in {} ms",
                    t.elapsed().as_millis()
                );
                break;
            }
            // A server still indexing may answer short; once it is done the answer is final.
            let indexing = out.structured["partial"] == true;
            if (!indexing && i > 0) || Instant::now() > deadline {
                failures.push(format!(
                    "{language} #{i} {tool} {}: {}\n  text: {}",
                    query["name"],
                    wrong.join("; "),
                    out.text
                ));
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
    if let Some(diag) = spec.get("diagnostics") {
        let broken = &diag["broken_file"];
        let file = broken["file_path"].as_str().unwrap();
        std::fs::write(dir.join(file), broken["content"].as_str().unwrap()).unwrap();
        let out = resolve_pr_tools::call(
            &ctx,
            "get_diagnostics",
            json!({"directory": dir, "file_path": file, "severity": "error"}),
        )
        .await
        .expect("get_diagnostics");
        let got: BTreeSet<(String, u64)> = out.structured["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["location"]["file_path"].as_str().unwrap().to_owned(),
                    d["location"]["range"]["start"]["line"].as_u64().unwrap(),
                )
            })
            .collect();
        let want = set_of_locations(&diag["expect"]);
        if got != want {
            failures.push(format!(
                "{language} diagnostics: got {got:?}, want {want:?}\n  text: {}",
                out.text
            ));
        }
    }
    ctx.lsp.shutdown_all().await;
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_analyzer_answers_every_tool() {
    run_language("rust").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_language_server_answers_every_tool() {
    run_language("typescript").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basedpyright_answers_every_tool() {
    run_language("python").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clangd_answers_every_tool() {
    run_language("c").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gopls_answers_every_tool() {
    run_language("go").await;
}

/// A call inside a macro's arguments that rust-analyzer does not resolve (the macro drops its
/// tokens, as a proc-macro that failed to expand does) comes back from the syntax scan,
/// marked `source: "text"`; a local variable of the same name in a macro, or another
/// module's `add`, is not taken for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_references_adds_calls_inside_macros_the_server_misses() {
    let ctx = context();
    if !available(&ctx, "rust").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    cargo_package(&root, "m");
    std::fs::write(
        root.join("src/main.rs"),
        "macro_rules! opaque {\n    ($($t:tt)*) => {};\n}\n\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    let x = add(1, 2);\n    opaque!(add(x, 3));\n    let add_len = 1;\n    println!(\"{}\", add_len);\n    opaque!(add.len());\n    opaque!(other::add(1, 2));\n}\n",
    )
    .unwrap();
    let out = resolve_pr_tools::call(
        &ctx,
        "find_references",
        json!({"directory": root, "file_path": "src/main.rs", "position": {"line": 4, "character": 3}}),
    )
    .await
    .expect("find_references");
    let text: Vec<(u64, u64)> = out.structured["locations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["source"] == "text")
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["range"]["start"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(text, vec![(10, 12)], "{}", out.text);
    let server: Vec<u64> = out.structured["locations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["source"] != "text")
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(server, vec![4, 9], "{}", out.text);
    assert!(out.text.contains("[text match]"), "{}", out.text);
    ctx.lsp.shutdown_all().await;
}

/// A file the server has not opened changes on disk: the next answer is about its new text
/// (servers that watch files see it themselves; gopls and clangd are told by the pool).
async fn sees_a_change_on_disk(language: &str, target: &str, comment: &str) {
    let ctx = context();
    if !available(&ctx, language).await {
        return;
    }
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join(format!("{language}.expected.json"))).unwrap(),
    )
    .unwrap();
    let query = spec["queries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["tool"] == "find_definition" && q["args"].get("position").is_some())
        .unwrap()
        .clone();
    let project = copy_project(language);
    let dir = project.path().canonicalize().unwrap();
    let mut args = query["args"].clone();
    args["directory"] = json!(dir);
    let line_of = |out: &Value| out["locations"][0]["range"]["start"]["line"].as_u64();
    let deadline = Instant::now() + Duration::from_secs(90);
    let before = loop {
        let out = resolve_pr_tools::call(&ctx, "find_definition", args.clone())
            .await
            .unwrap();
        let want = query["expect"]["locations"][0]["line"].as_u64();
        if line_of(&out.structured) == want || Instant::now() > deadline {
            break line_of(&out.structured).expect("an answer before the change");
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let path = dir.join(target);
    let old = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{comment}\n{comment}\n{comment}\n{old}")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let after = loop {
        let out = resolve_pr_tools::call(&ctx, "find_definition", args.clone())
            .await
            .unwrap();
        let now = line_of(&out.structured);
        if now == Some(before + 3) || Instant::now() > deadline {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    ctx.lsp.shutdown_all().await;
    assert_eq!(
        after,
        Some(before + 3),
        "{language}: the definition did not move with the file's new text"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_on_disk_is_seen_by_every_server() {
    sees_a_change_on_disk("go", "util/util.go", "// moved").await;
    sees_a_change_on_disk("c", "util.c", "/* moved */").await;
    sees_a_change_on_disk("python", "util.py", "# moved").await;
    sees_a_change_on_disk("typescript", "src/util.ts", "// moved").await;
    sees_a_change_on_disk("rust", "src/util.rs", "// moved").await;
}

/// On a server's very first question: a name is found (tsserver has no project and clangd no
/// compile database until a file is open, so the pool opens one first), and tsserver's first
/// definition is the definition, not the import line it gives while loading its project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_server_answers_its_first_question_right() {
    for (language, symbol, want) in [
        ("typescript", "add_numbers", ("src/util.ts", 1)),
        ("python", "add_numbers", ("util.py", 0)),
        ("c", "circle_area", ("shapes.c", 2)),
    ] {
        let ctx = context();
        if !available(&ctx, language).await {
            continue;
        }
        let project = copy_project(language);
        let dir = project.path().canonicalize().unwrap();
        let out = resolve_pr_tools::call(
            &ctx,
            "search_symbols",
            json!({"directory": dir, "query": symbol}),
        )
        .await
        .unwrap();
        let found: Vec<(String, u64)> = out.structured["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["name"] == symbol)
            .map(|s| {
                (
                    s["location"]["file_path"].as_str().unwrap().to_owned(),
                    s["location"]["range"]["start"]["line"].as_u64().unwrap(),
                )
            })
            .collect();
        assert!(
            found.contains(&(want.0.to_owned(), want.1)),
            "{language}: {found:?}\n{}",
            out.text
        );
        ctx.lsp.shutdown_all().await;
    }
    // pyright, first question by position at a declaration: it answers from the files it has
    // found so far (the declaring file alone, a second after its start) until it logs that it
    // found them all, which is waited for.
    let ctx = context();
    if available(&ctx, "python").await {
        let project = copy_project("python");
        let dir = project.path().canonicalize().unwrap();
        let out = resolve_pr_tools::call(
            &ctx,
            "find_references",
            json!({"directory": dir, "file_path": "util.py", "position": {"line": 0, "character": 4}}),
        )
        .await
        .unwrap();
        let files: BTreeSet<String> = set_of_locations(&out.structured["locations"])
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(
            files,
            BTreeSet::from(["main.py".to_owned(), "util.py".to_owned()]),
            "{}",
            out.text
        );
        ctx.lsp.shutdown_all().await;
    }
    // tsserver, first question by position.
    let ctx = context();
    if available(&ctx, "typescript").await {
        let project = copy_project("typescript");
        let dir = project.path().canonicalize().unwrap();
        let out = resolve_pr_tools::call(
            &ctx,
            "find_definition",
            json!({"directory": dir, "file_path": "src/main.ts", "position": {"line": 4, "character": 16}}),
        )
        .await
        .unwrap();
        assert_eq!(
            set_of_locations(&out.structured["locations"]),
            BTreeSet::from([("src/util.ts".to_owned(), 1)]),
            "{}",
            out.text
        );
        ctx.lsp.shutdown_all().await;
    }
}

/// get_diagnostics for one Rust file checks its package only, and when cargo stopped at a
/// crate it depends on, says the file was not compiled instead of "no errors".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_diagnostics_say_when_a_dependency_stopped_the_build() {
    let dir = tempfile::tempdir().unwrap();
    // cargo check runs only in a trusted checkout.
    let ctx = context_trusting(TrustPolicy::dirs([dir.path()]));
    if !available(&ctx, "rust").await {
        return;
    }
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    for (name, deps, src) in [
        ("a", "", "pub fn f() -> i32 { \"not a number\" }\n"),
        (
            "b",
            "a = { path = \"../a\" }\n",
            "pub fn g() -> i32 { a::f() + undefined_name }\n",
        ),
    ] {
        std::fs::create_dir_all(root.join(name).join("src")).unwrap();
        std::fs::write(
            root.join(name).join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"),
        )
        .unwrap();
        std::fs::write(root.join(name).join("src/lib.rs"), src).unwrap();
    }
    let out = resolve_pr_tools::call(
        &ctx,
        "get_diagnostics",
        json!({"directory": root, "file_path": "b/src/lib.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured["errors"], 0, "{}", out.text);
    let not_checked = out.structured["not_checked"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        not_checked
            .iter()
            .any(|n| n.as_str().unwrap().contains("a/src/lib.rs")),
        "{}",
        out.text
    );
    let own = resolve_pr_tools::call(
        &ctx,
        "get_diagnostics",
        json!({"directory": root, "file_path": "a/src/lib.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(own.structured["errors"], 1, "{}", own.text);
    // What rustc's span label says is kept, on the line an agent reads.
    assert!(
        own.text
            .contains("mismatched types: expected `i32`, found `&str`"),
        "{}",
        own.text
    );
}

/// A toolchain older than the checkout asks for: cargo check cannot run, so rust-analyzer's
/// own diagnostics answer, with a short note saying why, instead of an IO_ERROR.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_diagnostics_fall_back_to_the_server_when_cargo_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context_trusting(TrustPolicy::dirs([dir.path()]));
    if !available(&ctx, "rust").await {
        return;
    }
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\nrust-version = \"1.999\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn f() -> i32 {\n    1\n}\n\npub fn g( {\n",
    )
    .unwrap();
    for args in [
        json!({"directory": root, "file_path": "src/lib.rs"}),
        json!({"directory": root, "language": "rust"}),
    ] {
        let out = resolve_pr_tools::call(&ctx, "get_diagnostics", args)
            .await
            .expect("get_diagnostics");
        assert!(
            out.structured["errors"].as_u64().unwrap() >= 1,
            "{}",
            out.text
        );
        assert!(
            out.structured["checked_by"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "rust-analyzer"),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("cargo check could not run")
                && out.text.contains("requires rustc 1.999"),
            "{}",
            out.text
        );
        assert!(out.text.lines().count() < 10, "{}", out.text);
    }
    ctx.lsp.shutdown_all().await;
}

#[tokio::test]
async fn a_bad_cursor_is_refused_before_any_server_starts() {
    let ctx = context();
    let project = copy_project("python");
    let dir = project.path().display().to_string();
    for (tool, args) in [
        ("find_references", json!({"symbol": "area"})),
        ("get_call_hierarchy", json!({"symbol": "area"})),
        ("search_symbols", json!({"query": "area"})),
        ("get_diagnostics", json!({})),
    ] {
        let mut args = args;
        args["directory"] = json!(dir);
        args["cursor"] = json!("not-a-cursor");
        let err = resolve_pr_tools::call(&ctx, tool, args).await.unwrap_err();
        assert_eq!(err.code, Some(ErrorCode::InvalidCursor), "{tool}: {err:?}");
    }
    assert!(
        ctx.lsp.running().await.is_empty(),
        "a server was started for a call refused for its cursor"
    );
}

/// A checkout with no `go.mod` at its top but two Go modules below: each is its own project,
/// asked by its own server, for a name and for a search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_nested_project_is_asked_for_a_name() {
    let ctx = context();
    if !available(&ctx, "go").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    for (module, func) in [
        ("services/api", "ServeOrders"),
        ("tools/gen", "GenerateStubs"),
    ] {
        let root = ws.join(module);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("go.mod"),
            format!(
                "module example.com/{}\n\ngo 1.19\n",
                module.replace('/', "-")
            ),
        )
        .unwrap();
        std::fs::write(
            root.join("lib.go"),
            format!("package lib\n\n// {func} is one module's own.\nfunc {func}() int {{\n\treturn 1\n}}\n"),
        )
        .unwrap();
    }
    for (func, file) in [
        ("ServeOrders", "services/api/lib.go"),
        ("GenerateStubs", "tools/gen/lib.go"),
    ] {
        let out = resolve_pr_tools::call(
            &ctx,
            "find_definition",
            json!({"directory": ws, "symbol": func, "language": "go"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{func}: {e:?}"));
        assert_eq!(
            out.structured["locations"][0]["file_path"], file,
            "{}",
            out.text
        );
        assert_eq!(out.structured["locations"][0]["range"]["start"]["line"], 3);
    }
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": ws, "query": "e", "language": "go", "symbol_kind": "function", "match": "substring"}),
    )
    .await
    .unwrap();
    let names: BTreeSet<String> = out.structured["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        names.contains("ServeOrders") && names.contains("GenerateStubs"),
        "{}",
        out.text
    );
    ctx.lsp.shutdown_all().await;
}

/// The whole checkout's diagnostics from a server that pushes them: every file is checked,
/// several at once, and an error in two of them is found in both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_whole_checkout_is_checked_by_a_server_that_pushes_diagnostics() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let dir = project.path().canonicalize().unwrap();
    for (file, line) in [
        ("util.py", "x: int = \"one\"\n"),
        ("shapes.py", "y: str = 2\n"),
    ] {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}\n{line}")).unwrap();
    }
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "py"))
        .count();
    let out = resolve_pr_tools::call(
        &ctx,
        "get_diagnostics",
        json!({"directory": dir, "language": "python", "severity": "error"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured["files_checked"], files, "{}", out.text);
    let with_errors: BTreeSet<String> = out.structured["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["location"]["file_path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        with_errors,
        BTreeSet::from(["shapes.py".to_owned(), "util.py".to_owned()]),
        "{}",
        out.text
    );
    ctx.lsp.shutdown_all().await;
}

/// A canary: a file whose appearance means the checkout's own code ran.
struct Canaries {
    dir: PathBuf,
}

impl Canaries {
    fn path(&self, name: &str) -> String {
        self.dir
            .join(format!("CANARY-{name}"))
            .display()
            .to_string()
    }

    fn sung(&self) -> BTreeSet<String> {
        std::fs::read_dir(&self.dir)
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_prefix("CANARY-").map(str::to_owned)
            })
            .collect()
    }
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    resolve_pr_testkit::write_script(path, text);
}

/// A sample project made hostile: every way its language's tools are known to run a
/// checkout's code, each leaving a canary file when it runs. Returns the copy, its canaries,
/// and the names of those a trusted read is expected to run (C: none, clangd runs nothing).
fn hostile_project(language: &str) -> (tempfile::TempDir, Canaries, BTreeSet<String>) {
    let project = copy_project(language);
    let dir = project.path().canonicalize().unwrap();
    let canaries = Canaries { dir: dir.clone() };
    let expected: &[&str] = match language {
        "rust" => {
            // A build script (rust-analyzer builds and runs them, so does cargo check) ...
            std::fs::write(
                dir.join("build.rs"),
                format!(
                    "fn main() {{ std::fs::write({:?}, \"\").unwrap(); }}\n",
                    canaries.path("build-script")
                ),
            )
            .unwrap();
            // ... cargo's rustc wrapper from the checkout's own config ...
            executable(
                &dir.join("tools/wrapper"),
                &format!(
                    "#!/bin/sh\ntouch '{}'\nshift\nexec rustc \"$@\"\n",
                    canaries.path("rustc-wrapper")
                ),
            );
            std::fs::create_dir_all(dir.join(".cargo")).unwrap();
            std::fs::write(
                dir.join(".cargo/config.toml"),
                "[build]\nrustc-wrapper = \"./tools/wrapper\"\n",
            )
            .unwrap();
            &["build-script", "rustc-wrapper"]
        }
        "typescript" => {
            // The checkout's own TypeScript, which typescript-language-server prefers, and a
            // tsconfig plugin.
            let own = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/lsp/node_modules/typescript/lib/tsserver.js")
                .canonicalize();
            let ts = dir.join("node_modules/typescript");
            std::fs::create_dir_all(ts.join("lib")).unwrap();
            std::fs::write(
                ts.join("package.json"),
                r#"{"name": "typescript", "version": "5.9.3"}"#,
            )
            .unwrap();
            let real = own
                .map(|p| format!("require({:?});", p.display().to_string()))
                .unwrap_or_default();
            std::fs::write(
                ts.join("lib/tsserver.js"),
                format!(
                    "require('fs').writeFileSync({:?}, '');\n{real}\n",
                    canaries.path("own-typescript")
                ),
            )
            .unwrap();
            let plugin = dir.join("node_modules/canary-plugin");
            std::fs::create_dir_all(&plugin).unwrap();
            std::fs::write(
                plugin.join("package.json"),
                r#"{"name": "canary-plugin", "version": "1.0.0", "main": "index.js"}"#,
            )
            .unwrap();
            std::fs::write(
                plugin.join("index.js"),
                format!(
                    "require('fs').writeFileSync({:?}, '');\nmodule.exports = () => ({{ create: (info) => info.languageService }});\n",
                    canaries.path("tsconfig-plugin")
                ),
            )
            .unwrap();
            let mut tsconfig: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join("tsconfig.json")).unwrap())
                    .unwrap();
            tsconfig["compilerOptions"]["plugins"] = json!([{"name": "canary-plugin"}]);
            std::fs::write(dir.join("tsconfig.json"), tsconfig.to_string()).unwrap();
            &["own-typescript"]
        }
        "python" => {
            // A virtual environment whose interpreter pyright runs to find search paths, and
            // modules that would shadow the standard library's in a `python -c` run here.
            executable(
                &dir.join(".venv/bin/python"),
                &format!(
                    "#!/bin/sh\ntouch '{}'\nexec python3 \"$@\"\n",
                    canaries.path("venv-python")
                ),
            );
            std::fs::write(dir.join(".venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
            for module in ["json", "os", "sys"] {
                std::fs::write(
                    dir.join(format!("{module}.py")),
                    format!(
                        "open({:?}, 'w')\n",
                        canaries.path(&format!("shadow-{module}"))
                    ),
                )
                .unwrap();
            }
            &["venv-python"]
        }
        "c" => {
            // A compile database naming a compiler of the checkout's: clangd queries a
            // driver only when --query-driver allows it, which it never gets.
            executable(
                &dir.join("tools/cc"),
                &format!(
                    "#!/bin/sh\ntouch '{}'\nexec cc \"$@\"\n",
                    canaries.path("compiler")
                ),
            );
            let db: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("compile_commands.json")).unwrap(),
            )
            .unwrap();
            let cc = dir.join("tools/cc").display().to_string();
            let db: Vec<Value> = db
                .as_array()
                .unwrap()
                .iter()
                .map(|entry| {
                    let mut entry = entry.clone();
                    if let Some(command) = entry["command"].as_str() {
                        let rest = command.split_once(' ').map(|(_, r)| r).unwrap_or("");
                        entry["command"] = json!(format!("{cc} {rest}"));
                    }
                    if let Some(args) = entry["arguments"].as_array_mut() {
                        args[0] = json!(cc);
                    }
                    entry
                })
                .collect();
            std::fs::write(
                dir.join("compile_commands.json"),
                Value::Array(db).to_string(),
            )
            .unwrap();
            &[]
        }
        other => panic!("no hostile {other} project"),
    };
    (
        project,
        canaries,
        expected.iter().map(|s| (*s).to_owned()).collect(),
    )
}

/// Reads a hostile checkout as the code tools do (a definition, and for Rust the file's
/// diagnostics), and returns the canaries that sang.
async fn read_checkout(
    ctx: &Context,
    language: &str,
    dir: &Path,
    canaries: &Canaries,
) -> BTreeSet<String> {
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join(format!("{language}.expected.json"))).unwrap(),
    )
    .unwrap();
    let query = spec["queries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["tool"] == "find_definition")
        .unwrap();
    let mut args = query["args"].clone();
    args["directory"] = json!(dir);
    let answered = resolve_pr_tools::call(ctx, "find_definition", args).await;
    if let Ok(out) = &answered {
        let got = set_of_locations(&out.structured["locations"]);
        let want = set_of_locations(&query["expect"]["locations"]);
        assert_eq!(got, want, "{language}: {}", out.text);
    }
    if language == "rust" {
        let _ = resolve_pr_tools::call(
            ctx,
            "get_diagnostics",
            json!({"directory": dir, "file_path": "src/util.rs"}),
        )
        .await;
    }
    ctx.lsp.shutdown_all().await;
    canaries.sung()
}

/// The workspace-trust model, per language, with canaries: an untrusted checkout (any
/// directory but the server's own project and RESOLVE_PR_TRUST's) is read and answered right
/// while none of its own code runs; the same checkout trusted runs what its tools run by
/// design, which shows each canary can sing. Rust: build scripts and a rustc wrapper of its
/// `.cargo/config.toml`; TypeScript: its own `node_modules/typescript` and a tsconfig
/// plugin; Python: its `.venv`'s interpreter and modules shadowing the standard library's;
/// C: a compiler named by its compile database (clangd runs it in neither).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_checkout_runs_none_of_its_own_code() {
    let probe = context();
    for language in ["rust", "typescript", "python", "c"] {
        if !available(&probe, language).await {
            continue;
        }
        let (untrusted, canaries, _) = hostile_project(language);
        let dir = untrusted.path().canonicalize().unwrap();
        let sung = read_checkout(&context(), language, &dir, &canaries).await;
        assert_eq!(
            sung,
            BTreeSet::new(),
            "{language}: an untrusted checkout ran its own code"
        );

        let (trusted, canaries, expected) = hostile_project(language);
        let dir = trusted.path().canonicalize().unwrap();
        let ctx = context_trusting(TrustPolicy::dirs([&dir]));
        let sung = read_checkout(&ctx, language, &dir, &canaries).await;
        assert!(
            expected.is_subset(&sung),
            "{language}: trusted, {expected:?} should have run, but only {sung:?} did"
        );
        eprintln!("{language}: untrusted ran nothing; trusted ran {sung:?}");
    }
}

/// A file over the size a language server is given (a 16 MB one-line file killed pyright) is
/// never sent to one: asked about, it is a FILE_TOO_LARGE error; in the whole checkout's
/// diagnostics it is named as not checked, and the server answers for the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_too_large_for_a_server_is_skipped_and_said() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let dir = project.path().canonicalize().unwrap();
    let line = format!("x = [{}]\n", vec!["1"; 2_700_000].join(","));
    assert!(line.len() > 5 << 20);
    std::fs::write(dir.join("huge.py"), line).unwrap();
    let e = resolve_pr_tools::call(
        &ctx,
        "find_definition",
        json!({"directory": dir, "file_path": "huge.py", "position": {"line": 0, "character": 0}}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::FileTooLarge), "{e:?}");
    assert_eq!(e.category.as_str(), "user");
    assert!(
        e.error.starts_with("huge.py is 5.1 MiB, over the 4 MiB"),
        "{}",
        e.error
    );
    let out = resolve_pr_tools::call(
        &ctx,
        "get_diagnostics",
        json!({"directory": dir, "language": "python"}),
    )
    .await
    .unwrap();
    let not_checked = out.structured["not_checked"].to_string();
    assert!(
        not_checked.contains("huge.py: huge.py is 5.1 MiB"),
        "{}",
        out.text
    );
    assert_eq!(out.structured["files_checked"], 3, "{}", out.text);
    ctx.lsp.shutdown_all().await;
}

/// A reference list longer than a page: the text (all some clients show) says how many are
/// shown of how many, and its last line is the next call, whose arguments, called as given,
/// answer the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_tools_text_gives_the_next_pages_call() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let calls: String = (0..60).map(|_| "tick()\n").collect();
    std::fs::write(
        ws.join("clock.py"),
        format!("def tick():\n    return 1\n\n\n{calls}"),
    )
    .unwrap();
    let args = json!({"directory": ws, "symbol": "tick", "language": "python"});
    let first = resolve_pr_tools::call(&ctx, "find_references", args)
        .await
        .unwrap();
    assert_eq!(first.structured["total"], 61, "{}", first.text);
    let last = first.text.lines().last().unwrap();
    let prefix = "Showing 50 of 61; next page: call find_references with ";
    let next: Value = serde_json::from_str(
        last.strip_prefix(prefix)
            .unwrap_or_else(|| panic!("no next call in:\n{}", first.text)),
    )
    .unwrap();
    assert_eq!(next["cursor"], first.structured["next_cursor"]);
    let second = resolve_pr_tools::call(&ctx, "find_references", next)
        .await
        .unwrap();
    assert_eq!(
        second.structured["locations"].as_array().unwrap().len(),
        11,
        "{}",
        second.text
    );
    assert!(!second.text.contains("next page"), "{}", second.text);
    ctx.lsp.shutdown_all().await;
}

/// search_symbols with file_path: the file's outline from the server, nested (a method under
/// its class), each symbol from its name to its declaration's last line, paged like a search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_symbols_gives_a_files_outline() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let dir = project.path().canonicalize().unwrap();
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": dir, "file_path": "shapes.py"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    let text = &out.text;
    assert!(text.starts_with("Outline of shapes.py: "), "{text}");
    for line in [
        "\nclass Shape 5:7-9\n  method area 9:9\n",
        "\nclass Circle 12:7-17\n  method __init__ 13:9-14\n",
        "\n  method area 16:9-17\n",
        "\nfunction total_area 28:5-33\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let area = &out.structured["symbols"][1];
    assert_eq!(
        (
            &area["name"],
            &area["container"],
            &area["location"]["range"]["end"]["line"]
        ),
        (&json!("area"), &json!("Shape"), &json!(8)),
        "{area}"
    );
    // A query narrows the outline to the names it names.
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": dir, "file_path": "shapes.py", "query": "Circle.area"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured["total"], 1, "{}", out.text);
    assert!(
        out.text.ends_with("\n  method area 16:9-17"),
        "{}",
        out.text
    );
    // A long file's outline is paged, the next call said.
    let many: String = (0..60)
        .map(|i| format!("def f{i}():\n    pass\n\n"))
        .collect();
    std::fs::write(dir.join("many.py"), many).unwrap();
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": dir, "file_path": "many.py"}),
    )
    .await
    .unwrap();
    let last = out.text.lines().last().unwrap();
    assert!(
        last.starts_with("Showing 50 of 60; next page: call search_symbols with {")
            && last.contains(r#""file_path":"many.py""#),
        "{}",
        out.text
    );
    ctx.lsp.shutdown_all().await;
}

/// search_symbols lists the names the query names, and counts the names that merely contain
/// it (with how to list them); a qualified query chooses by container.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_symbols_lists_exact_names_and_counts_the_rest() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let project = copy_project("python");
    let dir = project.path().canonicalize().unwrap();
    let search = |args: Value| {
        let ctx = &ctx;
        async move {
            resolve_pr_tools::call(ctx, "search_symbols", args)
                .await
                .unwrap_or_else(|e| panic!("{e:?}"))
        }
    };
    let out = search(json!({"directory": dir, "query": "area"})).await;
    assert_eq!(
        out.text,
        "3 symbols (line:column from 1; a position argument counts from 0); not listed: 1 containing it (match \"substring\")\n\
         method area shapes.py:9:9 in Shape\n\
         method area shapes.py:16:9 in Circle\n\
         method area shapes.py:24:9 in Square"
    );
    assert_eq!(out.structured["not_listed"], json!({"substring": 1}));
    let out = search(json!({"directory": dir, "query": "area", "match": "substring"})).await;
    assert_eq!(out.structured["total"], 4, "{}", out.text);
    assert!(
        out.text.ends_with("\nfunction total_area shapes.py:28:5"),
        "{}",
        out.text
    );
    let out = search(json!({"directory": dir, "query": "Circle.area"})).await;
    assert_eq!(out.structured["total"], 1, "{}", out.text);
    assert!(
        out.text.ends_with("\nmethod area shapes.py:16:9 in Circle"),
        "{}",
        out.text
    );
    // Nothing named so: the closest names, said so.
    let out = search(json!({"directory": dir, "query": "are"})).await;
    assert!(
        out.text.starts_with("3 symbols (line:column from 1; a position argument counts from 0); none named exactly so, these are those starting with it; not listed: 1 containing it"),
        "{}",
        out.text
    );
    ctx.lsp.shutdown_all().await;
}

/// A one-package Cargo workspace at `root` (its own `[workspace]`, so no enclosing one is
/// looked for), sources to be written by the test.
fn cargo_package(root: &Path, name: &str) {
    write_file(
        root,
        "Cargo.toml",
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"
        ),
    );
    std::fs::create_dir_all(root.join("src")).unwrap();
}

fn write_file(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A pnpm workspace (packages/*, a root package.json and a root-level .mjs) with a class of
/// one name in four packages: each package is a project tsserver loads only when one of its
/// files is open, so each package holding the name is asked, and the name is found in all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_package_of_a_typescript_monorepo_is_asked_for_a_name() {
    let ctx = context();
    if !available(&ctx, "typescript").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    write_file(&ws, "pnpm-workspace.yaml", "packages: ['packages/*']\n");
    write_file(
        &ws,
        "package.json",
        "{\"name\": \"mono\", \"private\": true, \"type\": \"module\"}\n",
    );
    write_file(
        &ws,
        "eslint.config.mjs",
        "export default [{ rules: {} }];\n",
    );
    let tsconfig = "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}, \"include\": [\"src\"]}\n";
    for p in ["a", "b", "c", "d"] {
        write_file(
            &ws,
            &format!("packages/{p}/package.json"),
            &format!("{{\"name\": \"@mono/{p}\", \"version\": \"1.0.0\"}}\n"),
        );
        write_file(&ws, &format!("packages/{p}/tsconfig.json"), tsconfig);
        write_file(
            &ws,
            &format!("packages/{p}/src/util.ts"),
            &format!("export function helper_{p}(): number {{\n  return 1;\n}}\n"),
        );
        write_file(
            &ws,
            &format!("packages/{p}/src/registry.ts"),
            &format!(
                "import {{ helper_{p} }} from './util';\n\nexport class Registry {{\n  size(): number {{\n    return helper_{p}();\n  }}\n}}\n"
            ),
        );
    }
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": ws, "query": "Registry", "symbol_kind": "class"}),
    )
    .await
    .unwrap();
    let files: BTreeSet<String> = out.structured["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "Registry")
        .map(|s| s["location"]["file_path"].as_str().unwrap().to_owned())
        .collect();
    let expected: BTreeSet<String> = ["a", "b", "c", "d"]
        .iter()
        .map(|p| format!("packages/{p}/src/registry.ts"))
        .collect();
    assert_eq!(files, expected, "{}", out.text);
    let out = resolve_pr_tools::call(
        &ctx,
        "find_definition",
        json!({"directory": ws, "symbol": "Registry"}),
    )
    .await
    .unwrap_or_else(|e| panic!("Registry: {e:?}"));
    let file = out.structured["locations"][0]["file_path"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(expected.contains(&file), "{}", out.text);
    assert_eq!(out.structured["locations"][0]["range"]["start"]["line"], 2);
    // The other packages defining it are named, not silently dropped.
    assert!(
        out.text
            .contains("AMBIGUOUS_TARGET: the name is also in 3 other projects"),
        "{}",
        out.text
    );
    // A qualified name is looked for by its last part in the packages' texts.
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": ws, "query": "Registry.size"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured["total"], 4, "{}", out.text);
    // A name no source holds: said so, no server asked about it.
    let err = resolve_pr_tools::call(
        &ctx,
        "find_definition",
        json!({"directory": ws, "symbol": "Nowhere"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, Some(ErrorCode::SymbolNotFound), "{err:?}");
    ctx.lsp.shutdown_all().await;
}

/// A C-only checkout (a CMakeLists.txt at the top and in a subdirectory, a stray package.json
/// with no TS/JS sources, two helper Python scripts): only clangd is started, and one of it,
/// whether asked by name or about a file of the subdirectory; no server's stderr in answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c_checkout_starts_one_clangd_and_nothing_else() {
    let ctx = context();
    if !available(&ctx, "c").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    write_file(
        &ws,
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.10)\nproject(calc C)\nadd_subdirectory(lib)\nadd_executable(calc main.c)\n",
    );
    write_file(
        &ws,
        "package.json",
        "{\"name\": \"calc-docs\", \"private\": true}\n",
    );
    write_file(
        &ws,
        "main.c",
        "#include \"lib/total.h\"\n\nint main(void) {\n  return lib_total(2, 3) == 5 ? 0 : 1;\n}\n",
    );
    write_file(&ws, "lib/CMakeLists.txt", "add_library(total total.c)\n");
    write_file(&ws, "lib/total.h", "int lib_total(int a, int b);\n");
    write_file(
        &ws,
        "lib/total.c",
        "#include \"total.h\"\n\nint lib_total(int a, int b) {\n  return a + b;\n}\n",
    );
    write_file(&ws, "scripts/gen.py", "def generate():\n    return 1\n");
    write_file(&ws, "scripts/check.py", "def check():\n    return 2\n");
    let out = resolve_pr_tools::call(
        &ctx,
        "search_symbols",
        json!({"directory": ws, "query": "lib_total"}),
    )
    .await
    .unwrap();
    assert!(
        out.structured["total"].as_u64().unwrap() >= 1,
        "{}",
        out.text
    );
    assert_eq!(out.structured["servers"], json!(["clangd"]), "{}", out.text);
    assert!(!out.text.contains("skipped"), "{}", out.text);
    let out = resolve_pr_tools::call(
        &ctx,
        "find_definition",
        json!({"directory": ws, "file_path": "lib/total.c", "position": {"line": 2, "character": 6}}),
    )
    .await
    .unwrap();
    // clangd gives the header's declaration or the definition.
    let file = out.structured["locations"][0]["file_path"].clone();
    assert!(
        file == "lib/total.h" || file == "lib/total.c",
        "{}",
        out.text
    );
    let running: Vec<(String, PathBuf)> = ctx
        .lsp
        .running()
        .await
        .into_iter()
        .map(|r| (r.server.to_owned(), r.root))
        .collect();
    assert_eq!(running, vec![("clangd".to_owned(), ws.clone())]);
    // Without a compile database clangd's "not found" is a guess, and says so.
    let err = resolve_pr_tools::call(
        &ctx,
        "find_definition",
        json!({"directory": ws, "symbol": "lib_average"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, Some(ErrorCode::SymbolNotFound), "{err:?}");
    assert!(err.error.contains("no compile database"), "{err:?}");
    ctx.lsp.shutdown_all().await;
}

/// A name that no source holds as text, made by token pasting (zlib-ng's
/// `PREFIX(fill_window)` is `zng_fill_window`): the text scan finds nothing, and clangd is
/// asked all the same rather than the name answered "not found" unasked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_made_by_a_macro_is_still_asked_of_clangd() {
    let ctx = context();
    if !available(&ctx, "c").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let database =
        json!([{"directory": ws, "file": "window.c", "arguments": ["cc", "-c", "window.c"]}]);
    write_file(&ws, "compile_commands.json", &database.to_string());
    write_file(&ws, "prefix.h", "#define PREFIX(x) zng_ ## x\n");
    write_file(
        &ws,
        "window.c",
        "#include \"prefix.h\"\n\nvoid PREFIX(fill_window)(int *s) {\n  *s = 1;\n}\n\nvoid slide(int *s) {\n  PREFIX(fill_window)(s);\n}\n",
    );
    let out = resolve_pr_tools::call(
        &ctx,
        "find_definition",
        json!({"directory": ws, "symbol": "zng_fill_window"}),
    )
    .await
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(
        out.structured["target"]["location"]["file_path"], "window.c",
        "{}",
        out.text
    );
    ctx.lsp.shutdown_all().await;
}

/// A vitest/jest failure's line sits in the callback passed to `it(...)`: from_failure
/// targets that test (named by its title); its outgoing calls are the calls inside the
/// callback, and find_definition goes to the function under test (the call nearest before
/// the failure of a function the checkout defines, not vitest's `expect`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_failure_finds_the_test_of_a_vitest_failure() {
    let ctx = context();
    if !available(&ctx, "typescript").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "package.json",
        "{\"name\": \"t\", \"version\": \"0.1.0\", \"private\": true, \"type\": \"module\"}\n",
    );
    write(
        "tsconfig.json",
        "{\"compilerOptions\": {\"target\": \"ES2022\", \"module\": \"NodeNext\", \"moduleResolution\": \"NodeNext\", \"strict\": true}, \"include\": [\"src\"]}\n",
    );
    write(
        "node_modules/vitest/package.json",
        "{\"name\": \"vitest\", \"version\": \"1.0.0\", \"type\": \"module\", \"types\": \"index.d.ts\"}\n",
    );
    write(
        "node_modules/vitest/index.d.ts",
        "export declare function describe(name: string, body: () => void): void;\n\
         export declare function it(name: string, body: () => void): void;\n\
         export declare function expect(value: unknown): { toBe(other: unknown): void };\n",
    );
    write(
        "src/math.ts",
        "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
    );
    write(
        "src/math.test.ts",
        "import { describe, it, expect } from \"vitest\";\n\
         import { add } from \"./math.js\";\n\
         \n\
         describe(\"math\", () => {\n\
         \x20 it(\"adds two numbers\", () => {\n\
         \x20   const sum = add(1, 2);\n\
         \x20   expect(sum).toBe(3);\n\
         \x20 });\n\
         });\n",
    );
    // vitest reports the assertion's line, 7 (from 1).
    let failure = json!({"directory": root, "from_failure": "src/math.test.ts:7"});
    let mut args = failure.clone();
    args["direction"] = json!("outgoing");
    let out = resolve_pr_tools::call(&ctx, "get_call_hierarchy", args)
        .await
        .expect("get_call_hierarchy");
    assert_eq!(
        out.structured["function"]["name"], "adds two numbers",
        "{}",
        out.text
    );
    assert_eq!(
        out.structured["function"]["location"]["range"]["start"]["line"], 4,
        "{}",
        out.text
    );
    let callees: BTreeSet<(String, String)> = out.structured["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["symbol"]["name"].as_str().unwrap().to_owned(),
                c["symbol"]["location"]["file_path"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            )
        })
        .collect();
    assert!(
        callees.contains(&("add".to_owned(), "src/math.ts".to_owned())),
        "{}",
        out.text
    );
    assert!(callees.iter().any(|(n, _)| n == "expect"), "{}", out.text);
    // The runner's own call is not one the test makes.
    assert!(!callees.iter().any(|(n, _)| n == "it"), "{}", out.text);
    let def = resolve_pr_tools::call(&ctx, "find_definition", failure.clone())
        .await
        .expect("find_definition");
    assert_eq!(
        def.structured["target"]["name"], "adds two numbers",
        "{}",
        def.text
    );
    assert_eq!(
        set_of_locations(&def.structured["locations"]),
        BTreeSet::from([("src/math.ts".to_owned(), 0)]),
        "{}",
        def.text
    );
    assert!(def.text.contains("about add"), "{}", def.text);
    ctx.lsp.shutdown_all().await;
}

/// rust-analyzer's outgoing calls miss calls written in macro arguments: a test whose calls
/// sit in `assert_eq!` is said to call nothing. Those calls come back from a syntax scan,
/// resolved to their definitions and marked as text matches (unless the server found that
/// function called elsewhere in the body: then only its call sites are added).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outgoing_calls_include_calls_inside_macro_arguments() {
    let ctx = context();
    if !available(&ctx, "rust").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    cargo_package(&root, "m");
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn double(a: i32) -> i32 {\n    add(a, a)\n}\n\n#[test]\nfn adds() {\n    let _ = add(0, 0);\n    assert_eq!(add(1, 2), 3);\n    assert_eq!(double(2), add(2, 2));\n}\n",
    )
    .unwrap();
    let out = resolve_pr_tools::call(
        &ctx,
        "get_call_hierarchy",
        json!({"directory": root, "from_failure": "src/lib.rs:11", "direction": "outgoing"}),
    )
    .await
    .expect("get_call_hierarchy");
    assert_eq!(out.structured["function"]["name"], "adds", "{}", out.text);
    let callees: BTreeSet<(String, u64, usize, String)> = out.structured["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["symbol"]["name"].as_str().unwrap().to_owned(),
                c["symbol"]["location"]["range"]["start"]["line"]
                    .as_u64()
                    .unwrap(),
                c["call_sites"].as_array().unwrap().len(),
                c["symbol"]["location"]["source"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(
        callees,
        BTreeSet::from([
            // Called outside a macro too: the server's, with the sites in macros added.
            ("add".to_owned(), 0, 3, String::new()),
            ("double".to_owned(), 4, 1, "text".to_owned()),
        ]),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("calls (2)") && out.text.contains("[text match]"),
        "{}",
        out.text
    );
    ctx.lsp.shutdown_all().await;
}

/// clangd on the C sample: references without the declaration leave out the definition and
/// the prototype wherever they were asked from; each names the function it sits in; an
/// answer about a position is headed by the symbol's name; an error names the file as the
/// agent does (relative). Without a compile database every answer is marked partial, and
/// says once how to make one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clangd_answers_name_what_they_are_about_and_what_they_lack() {
    let ctx = context();
    if !available(&ctx, "c").await {
        return;
    }
    // Every check is made, and all that fail are said together.
    let mut wrong: Vec<String> = Vec::new();
    macro_rules! check {
        ($ok:expr, $($say:tt)*) => {
            if !$ok {
                wrong.push(format!($($say)*));
            }
        };
    }
    let project = copy_project("c");
    let dir = project.path().canonicalize().unwrap();
    let call = |tool: &'static str, args: Value| {
        let mut args = args;
        args["directory"] = json!(dir);
        let ctx = &ctx;
        async move { resolve_pr_tools::call(ctx, tool, args).await }
    };
    let calls: BTreeSet<(String, u64)> = [6, 7, 8].map(|l| ("main.c".to_owned(), l)).into();
    // Asked at the definition (clangd's definition there is the prototype in util.h).
    let mut refs = None;
    for _ in 0..60 {
        let out = call(
            "find_references",
            json!({"file_path": "util.c", "position": {"line": 2, "character": 4}, "include_declaration": false}),
        )
        .await
        .unwrap();
        let done = set_of_locations(&out.structured["locations"]).len() >= 3;
        refs = Some(out);
        if done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let refs = refs.unwrap();
    check!(
        set_of_locations(&refs.structured["locations"]) == calls,
        "{}",
        refs.text
    );
    check!(
        refs.text.starts_with("References of function add_numbers"),
        "{}",
        refs.text
    );
    check!(
        refs.structured["locations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["container"] == "main"),
        "{}",
        refs.structured
    );
    check!(refs.text.contains("main.c:7:17 (in main)"), "{}", refs.text);
    check!(
        refs.structured.get("partial").is_none(),
        "{}",
        refs.structured
    );
    check!(!refs.text.contains("compile_commands"), "{}", refs.text);
    let info = call(
        "get_symbol_info",
        json!({"file_path": "main.c", "position": {"line": 6, "character": 16}}),
    )
    .await
    .unwrap();
    check!(
        info.text.starts_with("function add_numbers"),
        "{}",
        info.text
    );
    // An error names the file relative to the checkout, as the agent gave it.
    std::fs::write(dir.join("notes.txt"), "x\n").unwrap();
    let err = call(
        "find_definition",
        json!({"file_path": "notes.txt", "position": {"line": 0, "character": 0}}),
    )
    .await
    .unwrap_err();
    check!(!err.error.contains(&dir.display().to_string()), "{err:?}");
    check!(err.error.contains("notes.txt"), "{err:?}");
    let err = call("find_definition", json!({"from_failure": "main.c:1"}))
        .await
        .unwrap_err();
    check!(!err.error.contains(&dir.display().to_string()), "{err:?}");
    ctx.lsp.shutdown_all().await;

    // No compile database: clangd guesses the flags.
    std::fs::remove_file(dir.join("compile_commands.json")).unwrap();
    let ctx = context();
    let call = |tool: &'static str, args: Value| {
        let mut args = args;
        args["directory"] = json!(dir);
        let ctx = &ctx;
        async move { resolve_pr_tools::call(ctx, tool, args).await }
    };
    for (tool, args) in [
        (
            "find_references",
            json!({"file_path": "util.c", "position": {"line": 2, "character": 4}}),
        ),
        ("get_symbol_info", json!({"symbol": "add_numbers"})),
    ] {
        let out = call(tool, args).await.unwrap();
        check!(
            out.structured["partial"] == true,
            "{tool}: {}",
            out.structured
        );
        check!(
            out.text.matches("CMAKE_EXPORT_COMPILE_COMMANDS").count() == 1,
            "{tool}: {}",
            out.text
        );
        check!(out.text.contains("bear -- make"), "{tool}: {}", out.text);
    }
    ctx.lsp.shutdown_all().await;
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// rust-analyzer on a crate that re-exports a type: the `pub use` is not listed as a
/// definition (it is said apart, as a re-export); hover text carries no editor artefacts
/// (notable traits, memory layout); `include_body` gives the symbol's source, cut to a
/// budget with what was cut said; each reference names the function it sits in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_answers_tell_re_exports_and_give_bodies() {
    let ctx = context();
    if !available(&ctx, "rust").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    cargo_package(&root, "m");
    let long_body: String = (0..400)
        .map(|i| format!("        let _v{i} = {i};\n"))
        .collect();
    std::fs::write(
        root.join("src/lib.rs"),
        format!("mod shapes;\npub use shapes::Circle;\n\n/// Counts to three.\npub fn numbers() -> std::ops::Range<u32> {{\n    0..3\n}}\n\npub fn total() -> f64 {{\n    let c = Circle {{ r: 1.0 }};\n    c.area() + Circle::unit().area()\n}}\n\npub fn long() {{\n{long_body}}}\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("src/shapes.rs"),
        "/// A circle.\npub struct Circle {\n    pub r: f64,\n}\n\nimpl Circle {\n    pub fn unit() -> Circle {\n        Circle { r: 1.0 }\n    }\n\n    pub fn area(&self) -> f64 {\n        3.0 * self.r * self.r\n    }\n}\n",
    )
    .unwrap();
    let call = |tool: &'static str, args: Value| {
        let mut args = args;
        args["directory"] = json!(root);
        let ctx = &ctx;
        async move { resolve_pr_tools::call(ctx, tool, args).await }
    };
    // rust-analyzer answers once it has loaded the crate.
    let mut defs = None;
    for _ in 0..120 {
        let out = call(
            "find_definition",
            json!({"file_path": "src/lib.rs", "position": {"line": 9, "character": 13}}),
        )
        .await;
        if let Ok(out) = out
            && out.structured["total"].as_u64().unwrap_or(0) > 0
            && out.structured["partial"] != true
        {
            defs = Some(out);
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let defs = defs.expect("rust-analyzer answered");
    // Every check is made, and all that fail are said together.
    let mut wrong: Vec<String> = Vec::new();
    macro_rules! check {
        ($ok:expr, $($say:tt)*) => {
            if !$ok {
                wrong.push(format!($($say)*));
            }
        };
    }
    check!(
        set_of_locations(&defs.structured["locations"]).len() == 1,
        "{}",
        defs.text
    );
    let by_name = call("find_definition", json!({"symbol": "Circle"}))
        .await
        .unwrap();
    let declared: BTreeSet<(String, u64)> = [("src/shapes.rs".to_owned(), 1)].into();
    check!(
        set_of_locations(&by_name.structured["locations"]) == declared,
        "{}",
        by_name.text
    );
    check!(
        by_name.structured["target"]["location"]["file_path"] == "src/shapes.rs",
        "{}",
        by_name.text
    );
    check!(
        by_name
            .text
            .contains("RE_EXPORTED: also made visible (not defined) at src/lib.rs:2:17"),
        "{}",
        by_name.text
    );
    check!(
        !by_name.text.contains("AMBIGUOUS_TARGET"),
        "{}",
        by_name.text
    );
    let info = call("get_symbol_info", json!({"symbol": "Circle"}))
        .await
        .unwrap();
    let hover = info.structured["info"].as_str().unwrap_or("");
    check!(hover.contains("A circle."), "{hover}");
    check!(
        !hover.contains("align = ") && !hover.contains("\n\n\n"),
        "{hover}"
    );
    // At the declaration rust-analyzer adds the memory layout (`size = 8, align = 0x8`).
    let at = call(
        "get_symbol_info",
        json!({"file_path": "src/shapes.rs", "position": {"line": 1, "character": 11}}),
    )
    .await
    .unwrap();
    let hover = at.structured["info"].as_str().unwrap_or("");
    check!(
        hover.contains("A circle.") && !hover.contains("align = "),
        "layout in hover: {hover:?}"
    );
    // The body of a method asked at a call, and of a long function, cut and said.
    let area = call(
        "get_symbol_info",
        json!({"file_path": "src/lib.rs", "position": {"line": 10, "character": 6}, "include_body": true}),
    )
    .await;
    match area {
        Ok(area) => {
            check!(
                area.structured["body"]
                    == "    pub fn area(&self) -> f64 {\n        3.0 * self.r * self.r\n    }",
                "{}",
                area.structured
            );
            check!(area.text.starts_with("method area"), "{}", area.text);
            check!(
                area.text.contains("\nsource:\n    pub fn area"),
                "{}",
                area.text
            );
        }
        Err(e) => wrong.push(format!("include_body: {e:?}")),
    }
    match call(
        "get_symbol_info",
        json!({"symbol": "long", "include_body": true}),
    )
    .await
    {
        Ok(long) => {
            let body = long.structured["body"].as_str().unwrap_or("");
            check!(
                body.starts_with("pub fn long() {\n        let _v0 = 0;"),
                "{body:.100}"
            );
            check!(body.len() < 8_300, "{} bytes", body.len());
            check!(
                body.contains("…[cut: showing lines 14-"),
                "{}",
                &body[body.len().saturating_sub(200)..]
            );
        }
        Err(e) => wrong.push(format!("include_body: {e:?}")),
    }
    let refs = call("find_references", json!({"symbol": "Circle"}))
        .await
        .unwrap();
    let in_total = refs.structured["locations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["container"] == "total")
        .count();
    check!(in_total == 2, "{}", refs.text);
    check!(
        refs.text.contains("src/shapes.rs:8:9 (in Circle::unit)"),
        "{}",
        refs.text
    );
    ctx.lsp.shutdown_all().await;
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// One target that fails (a test file with a type error, as a nightly-only bench is on
/// stable) does not make the library's files "not checked": the library compiled, and cargo
/// said so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_of_a_target_that_compiled_is_checked_though_another_failed() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context_trusting(TrustPolicy::dirs([dir.path()]));
    if !available(&ctx, "rust").await {
        return;
    }
    let root = dir.path().canonicalize().unwrap();
    cargo_package(&root, "lib_ok");
    write_file(&root, "src/lib.rs", "pub fn one() -> i32 {\n    1\n}\n");
    write_file(
        &root,
        "tests/broken.rs",
        "#[test]\nfn t() {\n    let x: i32 = \"s\";\n    assert_eq!(x, lib_ok::one());\n}\n",
    );
    let out = resolve_pr_tools::call(
        &ctx,
        "get_diagnostics",
        json!({"directory": root, "file_path": "src/lib.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured["errors"], 0, "{}", out.text);
    assert!(
        out.structured
            .get("not_checked")
            .is_none_or(|n| n.as_array().is_some_and(Vec::is_empty)),
        "{}",
        out.text
    );
    let broken = resolve_pr_tools::call(
        &ctx,
        "get_diagnostics",
        json!({"directory": root, "file_path": "tests/broken.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(broken.structured["errors"], 1, "{}", broken.text);
}

/// A callee with overloads (`sum` has three in typeshed) is one callee at its call site, not
/// one per overload.
#[tokio::test]
async fn a_callee_with_overloads_is_listed_once() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("totals.py"),
        "def total(xs: list[float]) -> float:\n    return sum(x * 2.0 for x in xs)\n",
    )
    .unwrap();
    let out = resolve_pr_tools::call(
        &ctx,
        "get_call_hierarchy",
        json!({"directory": root, "symbol": "total", "direction": "outgoing"}),
    )
    .await
    .expect("get_call_hierarchy");
    let sums = out.structured["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["symbol"]["name"] == "sum")
        .count();
    assert_eq!(sums, 1, "{}", out.text);
    ctx.lsp.shutdown_all().await;
}
