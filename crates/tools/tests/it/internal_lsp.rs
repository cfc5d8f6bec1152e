//! Seed 002's internal language-server tools against real servers: completions after
//! `obj.` (paged by cursor), signature help inside a call, and the lifecycle notifications
//! (a file written outside the edit layer and told with notify_file_saved is what the
//! server answers from next; before the notification an open document's old text is).

use std::path::Path;

use resolve_pr_core::ErrorCode;
use resolve_pr_lsp::TrustPolicy;
use resolve_pr_tools::{Context, call};
use serde_json::{Value, json};

use crate::code_navigation::{available, context_trusting};

fn context() -> Context {
    context_trusting(TrustPolicy::nothing())
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// The zero-based position (UTF-16 column) just after `needle`'s first occurrence in `text`,
/// or at its start.
fn position(text: &str, needle: &str, after: bool) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} in {text}"));
    let at = if after { at + needle.len() } else { at };
    let before = &text[..at];
    let line = before.matches('\n').count();
    let column: usize = before
        .rsplit('\n')
        .next()
        .unwrap()
        .chars()
        .map(char::len_utf16)
        .sum();
    json!({"line": line, "character": column})
}

/// Every page of get_completions' answer; the labels in order, and each page's size.
async fn all_completions(ctx: &Context, args: Value) -> (Vec<String>, Vec<usize>, Value) {
    let first = call(ctx, "get_completions", args.clone()).await.unwrap();
    let mut labels = Vec::new();
    let mut sizes = Vec::new();
    let mut page = first.clone();
    loop {
        let items = page.structured["items"].as_array().unwrap().clone();
        sizes.push(items.len());
        labels.extend(
            items
                .iter()
                .map(|i| i["label"].as_str().unwrap().to_owned()),
        );
        let Some(cursor) = page.structured["next_cursor"].as_str() else {
            break;
        };
        assert!(
            page.text.contains("next page: call get_completions with"),
            "{}",
            page.text
        );
        let mut next = args.clone();
        next["cursor"] = json!(cursor);
        page = call(ctx, "get_completions", next).await.unwrap();
        assert_eq!(page.structured["total"], first.structured["total"]);
        assert!(sizes.len() < 200, "too many pages");
    }
    (labels, sizes, first.structured)
}

/// Completions after `w.` name the class's members, kind and all, page by page with a
/// cursor (no item twice); signature help inside `w.gamma(1, 2)` at the 2 names `height`,
/// and outside a call says there is none.
async fn members_and_signatures(
    ctx: &Context,
    root: &Path,
    file: &str,
    text: &str,
    dot: &str,
    members: [&str; 5],
    method_kind: &str,
) {
    let args = json!({
        "directory": root,
        "file_path": file,
        "position": position(text, dot, true),
        "limit": 2,
    });
    let (labels, sizes, first) = all_completions(ctx, args.clone()).await;
    for m in members {
        // rust-analyzer labels a method with its parentheses.
        let named = |l: &String| *l == m || l.starts_with(&format!("{m}("));
        assert!(labels.iter().any(named), "{m} in {labels:?}");
    }
    let mut unique = labels.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), labels.len(), "an item twice: {labels:?}");
    assert_eq!(labels.len(), first["total"].as_u64().unwrap() as usize);
    assert!(
        sizes.len() >= 3 && sizes.iter().all(|n| *n <= 2),
        "{sizes:?}"
    );
    // A whole page at once shows the kind of the first member whatever its place.
    let mut whole = args.clone();
    whole["limit"] = json!(500);
    let out = call(ctx, "get_completions", whole).await.unwrap();
    let item = out.structured["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"].as_str().unwrap().starts_with(members[0]))
        .cloned()
        .unwrap_or_else(|| panic!("{}", out.text));
    assert_eq!(item["kind"], method_kind, "{}", out.text);
    assert!(
        item["insert_text"].as_str().unwrap().contains(members[0]),
        "{item}\n{}",
        out.text
    );
    // tsserver's member completion replaces the `.` too: the range says so.
    if !item["insert_text"]
        .as_str()
        .unwrap()
        .starts_with(members[0])
    {
        assert!(item["range"].is_object(), "{item}");
    }
    assert!(out.text.contains(members[0]), "{}", out.text);
    assert!(out.structured.get("next_cursor").is_none(), "{}", out.text);
    // A cursor is for the call that gave it.
    let mut other = args.clone();
    other["limit"] = json!(3);
    other["cursor"] = first["next_cursor"].clone();
    let e = call(ctx, "get_completions", other).await.unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::InvalidCursor), "{e:?}");

    let at_height = position(text, "1, 2)", false);
    let at_height = json!({"line": at_height["line"], "character": at_height["character"].as_u64().unwrap() + 3});
    let out = call(
        ctx,
        "get_signature_help",
        json!({"directory": root, "file_path": file, "position": at_height}),
    )
    .await
    .unwrap();
    let active = out.structured["active_signature"].as_u64().unwrap_or(0) as usize;
    let signature = &out.structured["signatures"][active];
    let parameter = signature["active_parameter"]
        .as_u64()
        .expect("an active parameter") as usize;
    let name = signature["parameters"][parameter].as_str().unwrap();
    assert!(name.contains("height"), "{}", out.text);
    assert!(
        signature["parameters"][0]
            .as_str()
            .unwrap()
            .contains("width"),
        "{}",
        out.text
    );
    assert!(out.text.contains("active parameter: "), "{}", out.text);
    // The first line holds no call.
    let out = call(
        ctx,
        "get_signature_help",
        json!({"directory": root, "file_path": file, "position": {"line": 0, "character": 0}}),
    )
    .await
    .unwrap();
    assert_eq!(out.structured["signatures"], json!([]), "{}", out.text);
    assert!(out.text.starts_with("No call at "), "{}", out.text);
}

const PY_WIDGET: &str = "class Widget:\n    def __init__(self) -> None:\n        self.beta_one = 3\n        self.beta_two = \"x\"\n\n    def alpha_one(self) -> int:\n        return 1\n\n    def alpha_two(self) -> int:\n        return 2\n\n    def gamma(self, width: int, height: int) -> int:\n        return width * height\n";
const PY_USE: &str = "from widget import Widget\n\nw = Widget()\nw.\narea = w.gamma(1, 2)\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_completions_page_and_signature_help_names_the_parameter() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(
        &root,
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"w\"\nversion = \"0.1.0\"\n",
            ),
            ("widget.py", PY_WIDGET),
            ("use.py", PY_USE),
        ],
    );
    members_and_signatures(
        &ctx,
        &root,
        "use.py",
        PY_USE,
        "\nw.",
        ["alpha_one", "alpha_two", "beta_one", "beta_two", "gamma"],
        "method",
    )
    .await;
}

const TS_WIDGET: &str = "export class Widget {\n  alphaOne(): number { return 1; }\n  alphaTwo(): number { return 2; }\n  betaOne = 3;\n  betaTwo = \"x\";\n  gamma(width: number, height: number): number { return width * height; }\n}\n";
const TS_USE: &str = "import { Widget } from \"./widget.js\";\n\nconst w = new Widget();\nw.\nexport const area = w.gamma(1, 2);\n";
const TS_CONFIG: &str = "{\"compilerOptions\": {\"target\": \"ES2022\", \"module\": \"NodeNext\", \"moduleResolution\": \"NodeNext\", \"strict\": true, \"skipLibCheck\": true}, \"include\": [\"src\"]}\n";
const TS_PACKAGE: &str =
    "{\"name\": \"w\", \"version\": \"0.1.0\", \"private\": true, \"type\": \"module\"}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_completions_page_and_signature_help_names_the_parameter() {
    let ctx = context();
    if !available(&ctx, "typescript").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(
        &root,
        &[
            ("package.json", TS_PACKAGE),
            ("tsconfig.json", TS_CONFIG),
            ("src/widget.ts", TS_WIDGET),
            ("src/use.ts", TS_USE),
        ],
    );
    members_and_signatures(
        &ctx,
        &root,
        "src/use.ts",
        TS_USE,
        "\nw.",
        ["alphaOne", "alphaTwo", "betaOne", "betaTwo", "gamma"],
        "method",
    )
    .await;
}

const RS_LIB: &str = "pub struct Widget {\n    pub beta_one: i32,\n    pub beta_two: String,\n}\n\nimpl Widget {\n    pub fn alpha_one(&self) -> i32 {\n        1\n    }\n\n    pub fn alpha_two(&self) -> i32 {\n        2\n    }\n\n    pub fn gamma(&self, width: i32, height: i32) -> i32 {\n        width * height\n    }\n}\n\npub fn area(w: &Widget) -> i32 {\n    let _ = w.;\n    w.gamma(1, 2)\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_completions_page_and_signature_help_names_the_parameter() {
    let ctx = context();
    if !available(&ctx, "rust").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(
        &root,
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"widget\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            ("src/lib.rs", RS_LIB),
        ],
    );
    members_and_signatures(
        &ctx,
        &root,
        "src/lib.rs",
        RS_LIB,
        "= w.",
        ["alpha_one", "alpha_two", "beta_one", "beta_two", "gamma"],
        "method",
    )
    .await;
}

/// The parameter labels of the signature help at `at` in `file`.
async fn parameters(ctx: &Context, root: &Path, file: &str, at: Value) -> Vec<String> {
    let out = call(
        ctx,
        "get_signature_help",
        json!({"directory": root, "file_path": file, "position": at}),
    )
    .await
    .unwrap();
    out.structured["signatures"][0]["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", out.text))
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect()
}

async fn told(ctx: &Context, tool: &str, args: Value) -> (Vec<Vec<String>>, Value, String) {
    let out = call(ctx, tool, args).await.unwrap();
    let sent = out.structured["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["notifications"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_owned())
                .collect()
        })
        .collect();
    (sent, out.structured, out.text)
}

const TS_API: &str = "export function f(a: number): number {\n  return a;\n}\n";
const TS_API_NEW: &str = "// moved down\n\nexport function f(renamed: string, second: number): number {\n  return renamed.length + second;\n}\n";
const TS_CALLER: &str = "import { f } from \"./api.js\";\n\nexport const n = f(1);\n";

/// tsserver answers from an open document's text, not the disk: once api.ts is open, a
/// write outside the edit layer goes unseen (the old signature, twice) until
/// notify_file_saved tells it; then signature help and find_definition read the new text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_answers_from_a_file_written_outside_once_told_it_was_saved() {
    let ctx = context();
    if !available(&ctx, "typescript").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(
        &root,
        &[
            ("package.json", TS_PACKAGE),
            ("tsconfig.json", TS_CONFIG),
            ("src/api.ts", TS_API),
            ("src/caller.ts", TS_CALLER),
        ],
    );
    let file = |f: &str| json!({"directory": root, "file_path": f});
    // No server runs yet: nobody is told, and that is no error.
    let (sent, out, text) = told(&ctx, "notify_file_saved", file("src/api.ts")).await;
    assert!(sent.is_empty(), "{out}");
    assert!(
        text.starts_with("No running language server holds src/api.ts"),
        "{text}"
    );

    let in_call = position(TS_CALLER, "f(1)", false);
    let in_call =
        json!({"line": in_call["line"], "character": in_call["character"].as_u64().unwrap() + 2});
    assert_eq!(
        parameters(&ctx, &root, "src/caller.ts", in_call.clone()).await,
        ["a: number"]
    );
    let (sent, out, text) = told(&ctx, "notify_file_opened", file("src/api.ts")).await;
    assert_eq!(sent, [["textDocument/didOpen"]], "{text}");
    assert_eq!(out["servers"][0]["server"], "typescript-language-server");
    assert_eq!(out["servers"][0]["root"], ".");
    // Told again with the same text: nothing to say.
    let (sent, _, _) = told(&ctx, "notify_file_opened", file("src/api.ts")).await;
    assert_eq!(sent, [Vec::<String>::new()]);

    std::fs::write(root.join("src/api.ts"), TS_API_NEW).unwrap();
    // Not told: the open document's old text answers, however long one waits.
    for _ in 0..2 {
        assert_eq!(
            parameters(&ctx, &root, "src/caller.ts", in_call.clone()).await,
            ["a: number"]
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    let (sent, _, text) = told(&ctx, "notify_file_saved", file("src/api.ts")).await;
    assert_eq!(sent.len(), 1, "{text}");
    assert!(
        sent[0].contains(&"textDocument/didChange".to_owned()),
        "{text}"
    );
    assert_eq!(
        sent[0].last().map(String::as_str),
        Some("workspace/didChangeWatchedFiles"),
        "{text}"
    );
    assert_eq!(
        parameters(&ctx, &root, "src/caller.ts", in_call.clone()).await,
        ["renamed: string", "second: number"]
    );
    let at_f = position(TS_CALLER, "f(1)", false);
    let out = call(
        &ctx,
        "find_definition",
        json!({"directory": root, "file_path": "src/caller.ts", "position": at_f}),
    )
    .await
    .unwrap();
    let location = &out.structured["locations"][0];
    assert_eq!(location["file_path"], "src/api.ts", "{}", out.text);
    assert_eq!(location["range"]["start"]["line"], 2, "{}", out.text);

    let (sent, _, _) = told(&ctx, "notify_file_closed", file("src/api.ts")).await;
    assert_eq!(sent, [["textDocument/didClose"]]);
    let (sent, _, _) = told(&ctx, "notify_file_closed", file("src/api.ts")).await;
    assert_eq!(sent, [Vec::<String>::new()]);

    // A file outside the checkout is refused, naming the argument.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.ts"), "export {};\n").unwrap();
    let outside_path = outside.path().canonicalize().unwrap().join("x.ts");
    for tool in [
        "notify_file_opened",
        "notify_file_saved",
        "notify_file_closed",
    ] {
        let e = call(
            &ctx,
            tool,
            json!({"directory": root, "file_path": outside_path}),
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::InvalidPath), "{tool}: {e:?}");
        assert_eq!(e.details.as_ref().unwrap()["field"], "file_path", "{tool}");
    }
}

const PY_API: &str = "def f(a: int) -> int:\n    return a\n";
const PY_API_NEW: &str = "# moved down\n\n\ndef f(renamed: str, second: int) -> int:\n    return len(renamed) + second\n";
const PY_CALLER: &str = "from api import f\n\nn = f(1)\n";

/// pyright: `start: true` starts the server a notification finds missing; a file written
/// outside and told with notify_file_saved is what signature help and find_definition
/// answer from next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_starts_on_request_and_answers_from_a_saved_file() {
    let ctx = context();
    if !available(&ctx, "python").await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(
        &root,
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"w\"\nversion = \"0.1.0\"\n",
            ),
            ("api.py", PY_API),
            ("caller.py", PY_CALLER),
        ],
    );
    let (sent, _, text) = told(
        &ctx,
        "notify_file_opened",
        json!({"directory": root, "file_path": "api.py"}),
    )
    .await;
    assert!(sent.is_empty(), "{text}");
    let (sent, out, text) = told(
        &ctx,
        "notify_file_opened",
        json!({"directory": root, "file_path": "api.py", "start": true}),
    )
    .await;
    assert_eq!(sent, [["textDocument/didOpen"]], "{text}");
    let started = out["started"].as_str().unwrap_or_else(|| panic!("{text}"));
    assert!(started.contains("pyright"), "{text}");
    assert!(text.starts_with("Started "), "{text}");

    let in_call = position(PY_CALLER, "f(1)", false);
    let in_call =
        json!({"line": in_call["line"], "character": in_call["character"].as_u64().unwrap() + 2});
    assert_eq!(
        parameters(&ctx, &root, "caller.py", in_call.clone()).await,
        ["a: int"]
    );
    std::fs::write(root.join("api.py"), PY_API_NEW).unwrap();
    let (sent, _, text) = told(
        &ctx,
        "notify_file_saved",
        json!({"directory": root, "file_path": "api.py"}),
    )
    .await;
    assert_eq!(sent.len(), 1, "{text}");
    assert!(
        sent[0].contains(&"textDocument/didChange".to_owned()),
        "{text}"
    );
    assert_eq!(
        parameters(&ctx, &root, "caller.py", in_call).await,
        ["renamed: str", "second: int"]
    );
    let at_f = position(PY_CALLER, "f(1)", false);
    let out = call(
        &ctx,
        "find_definition",
        json!({"directory": root, "file_path": "caller.py", "position": at_f}),
    )
    .await
    .unwrap();
    let location = &out.structured["locations"][0];
    assert_eq!(location["file_path"], "api.py", "{}", out.text);
    assert_eq!(location["range"]["start"]["line"], 3, "{}", out.text);
}
