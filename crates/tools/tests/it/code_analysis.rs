//! Seed 002's analysis tools through the registry (as MCP and the CLI call them) on
//! checkouts written here: the AnalysisResult contract, scope errors, pages that never
//! repeat or skip a finding, and suggestions whose refactoring calls the refactoring tools
//! take as they are.

use std::path::Path;

use resolve_pr_lsp::TrustPolicy;
use resolve_pr_tools::{Context, call};
use serde_json::{Value, json};

use super::code_navigation::{available, context_trusting};

fn ctx_for(state: &Path) -> Context {
    let mut ctx = context_trusting(TrustPolicy::everything());
    ctx.local.state_dir = Some(state.to_owned());
    ctx
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// A Python module with two functions over any threshold and one simple one.
const TANGLED: &str = r#"import os
import sys


def classify(items, limit):
    total = 0
    for item in items:
        if item is None:
            continue
        if item > limit and item % 2 == 0:
            total += item
        elif item < 0 or item == limit:
            total -= 1
        else:
            for x in range(item):
                if x % 3 == 0 and x > 2:
                    total += x
    return total


def route(path):
    if path.startswith("/a"):
        return 1
    elif path.startswith("/b"):
        return 2
    elif path.startswith("/c") or path.startswith("/d"):
        return 3
    return 0


def simple():
    return os.getcwd()
"#;

/// Every `refactor_call` of a result, each checked against the input schema of the tool
/// it names: an agent can make the call as it is.
fn refactor_calls_fit_their_tools(result: &Value) -> Vec<Value> {
    let mut calls = Vec::new();
    for f in result["findings"].as_array().unwrap() {
        for s in f["suggestions"].as_array().into_iter().flatten() {
            let Some(call) = s.get("refactor_call") else {
                continue;
            };
            let tool = call["command"].as_str().unwrap();
            let spec = resolve_pr_tools::find(tool).unwrap_or_else(|| panic!("{tool} is no tool"));
            let validator = jsonschema::validator_for(&spec.input_schema).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&call["arguments"])
                .map(|e| e.to_string())
                .collect();
            assert!(
                errors.is_empty(),
                "{tool} {}: {errors:?}",
                call["arguments"]
            );
            calls.push(call.clone());
        }
    }
    calls
}

#[tokio::test]
async fn a_scope_that_names_nothing_is_invalid_scope_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("a.py", "x = 1\n"), ("pkg/b.py", "y = 2\n")]);
    let ctx = ctx_for(dir.path());
    let d = dir.path().to_str().unwrap();
    for (tool, scope, field) in [
        (
            "analyze_quality",
            json!({"type": "directory"}),
            "scope.path",
        ),
        (
            "analyze_documentation",
            json!({"type": "file", "path": "pkg"}),
            "scope.path",
        ),
        (
            "analyze_tests",
            json!({"type": "directory", "path": "missing"}),
            "scope.path",
        ),
        (
            "analyze_quality",
            json!({"type": "symbol"}),
            "scope.symbol_name",
        ),
        (
            "analyze_quality",
            json!({"type": "workspace", "include": ["[a"]}),
            "scope.include",
        ),
    ] {
        let err = call(&ctx, tool, json!({"directory": d, "scope": scope}))
            .await
            .expect_err("refused");
        assert_eq!(
            err.code.map(|c| c.as_str()),
            Some("INVALID_SCOPE"),
            "{tool} {scope}: {err:?}"
        );
        assert_eq!(
            err.details.as_ref().unwrap()["field"],
            field,
            "{tool} {scope}"
        );
    }
    // Unknown scope fields are refused (closed objects), naming the field.
    let err = call(
        &ctx,
        "analyze_quality",
        json!({"directory": d, "scope": {"type": "workspace", "paths": "x"}}),
    )
    .await
    .expect_err("refused");
    assert_eq!(
        err.code.map(|c| c.as_str()),
        Some("INVALID_ARGUMENT"),
        "{err:?}"
    );
}

#[tokio::test]
async fn quality_pages_never_repeat_or_skip_and_every_call_it_suggests_fits_the_tools_schema() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("tangled.py", TANGLED),
            (
                "lib.rs",
                "pub fn f(a: bool, b: bool) -> u8 {\n    if a && b { 1 } else if a || b { 2 } else { 3 }\n}\n",
            ),
        ],
    );
    let ctx = ctx_for(dir.path());
    let d = dir.path().to_str().unwrap();
    let all = call(
        &ctx,
        "analyze_quality",
        json!({"directory": d, "options": {"thresholds": {"cyclomatic_complexity": 0}}}),
    )
    .await
    .expect("quality");
    let whole = &all.structured;
    assert_eq!(whole["summary"]["total_findings"], 4, "{}", all.text);
    // Over twice the threshold (or 1) is high: simple (1) is not.
    assert_eq!(
        whole["summary"]["by_severity"],
        json!({"high": 3, "medium": 1, "low": 0})
    );
    assert_eq!(
        whole["metadata"]["thresholds"]["cyclomatic_complexity"],
        0.0
    );
    assert!(
        whole["metadata"].get("language").is_none(),
        "two languages: no language"
    );
    // classify: for, if, if, and, elif, or, for, if, and: lizard's 10.
    let classify = whole["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["symbol"]["symbol"] == "classify")
        .unwrap();
    assert_eq!(classify["metrics"]["cyclomatic_complexity"], 10);
    assert_eq!(classify["severity"], "high");
    assert!(
        all.text.contains("classify has cyclomatic complexity 10"),
        "{}",
        all.text
    );
    let calls = refactor_calls_fit_their_tools(whole);
    assert!(calls.iter().any(|c| c["command"] == "extract"), "{calls:?}");

    let mut paged = Vec::new();
    for offset in [0, 3] {
        let page = call(&ctx, "analyze_quality", json!({"directory": d, "options": {"thresholds": {"cyclomatic_complexity": 0}, "limit": 3, "offset": offset}}))
            .await
            .expect("page");
        let s = &page.structured["summary"];
        assert_eq!(s["has_more"], offset == 0);
        if offset == 0 {
            // The text alone says how many it shows of how many, and the exact next call.
            assert!(
                page.text
                    .contains("Showing 3 of 4; next page: call analyze_quality with {"),
                "{}",
                page.text
            );
            assert!(
                page.text.contains(
                    r#""options":{"limit":3,"offset":3,"thresholds":{"cyclomatic_complexity":0}}"#
                ),
                "{}",
                page.text
            );
        } else {
            assert!(
                !page.text.contains("next page"),
                "the last page: {}",
                page.text
            );
        }
        paged.extend(
            page.structured["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["id"].clone()),
        );
    }
    let ids: Vec<Value> = whole["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].clone())
        .collect();
    assert_eq!(
        paged, ids,
        "the pages together are the whole list, in order"
    );
}

#[tokio::test]
async fn a_complexity_hotspots_extract_call_is_planned_by_the_refactoring_tool() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !available(&ctx, "python").await || !resolve_pr_tools::rope_installed().await {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("tangled.py", TANGLED)]);
    let d = dir.path().to_str().unwrap();
    let quality = call(
        &ctx,
        "analyze_quality",
        json!({"directory": d, "scope": {"type": "symbol", "symbol_name": "classify"}}),
    )
    .await
    .expect("quality");
    let calls = refactor_calls_fit_their_tools(&quality.structured);
    assert_eq!(calls.len(), 1, "{}", quality.text);
    let call_ = &calls[0];
    assert_eq!(call_["arguments"]["directory"], d);
    let before = std::fs::read_to_string(dir.path().join("tangled.py")).unwrap();
    let plan = call(
        &ctx,
        call_["command"].as_str().unwrap(),
        call_["arguments"].clone(),
    )
    .await
    .expect("the refactoring tool takes the suggested call");
    assert!(
        plan.structured["plan"]["plan_id"].is_string(),
        "{}",
        plan.text
    );
    assert!(
        plan.text.contains("Verified: basedpyright"),
        "{}",
        plan.text
    );
    assert!(
        plan.text.contains("def "),
        "an extracted function: {}",
        plan.text
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tangled.py")).unwrap(),
        before,
        "a plan writes nothing"
    );
}

#[tokio::test]
async fn documentation_and_tests_findings_on_a_checkout() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("pkg/__init__.py", "\"\"\"The package.\"\"\"\n"),
            (
                "pkg/shapes.py",
                "\"\"\"Shapes.\"\"\"\n\n\ndef area(width, height):\n    \"\"\"Area.\n\n    :param width: the width\n    :param depth: gone\n    \"\"\"\n    return width * height  # TODO: units\n\n\ndef perimeter(width, height):\n    return 2 * (width + height)\n",
            ),
            (
                "tests/test_shapes.py",
                "from pkg.shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n\n\ndef test_nothing():\n    area(1, 1)\n",
            ),
            (
                "coverage.lcov",
                "SF:pkg/shapes.py\nDA:4,1\nDA:10,1\nDA:13,0\nDA:14,0\nend_of_record\n",
            ),
        ],
    );
    let ctx = ctx_for(dir.path());
    let d = dir.path().to_str().unwrap();
    let run = |tool: &'static str, args: Value| {
        let ctx = ctx.clone();
        let mut args = args;
        args["directory"] = json!(d);
        async move {
            call(&ctx, tool, args)
                .await
                .unwrap_or_else(|e| panic!("{tool}: {e:?}"))
        }
    };
    let missing = run(
        "analyze_documentation",
        json!({"kind": "missing", "scope": {"type": "directory", "path": "pkg"}}),
    )
    .await;
    let names: Vec<&str> = missing.structured["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["symbol"]["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["perimeter"], "{}", missing.text);
    let coverage = run(
        "analyze_documentation",
        json!({"kind": "coverage", "scope": {"type": "file", "path": "pkg/shapes.py"}}),
    )
    .await;
    assert_eq!(
        coverage.structured["findings"][0]["metrics"]["coverage_ratio"],
        json!(0.6667),
        "{}",
        coverage.text
    );
    let outdated = run("analyze_documentation", json!({"kind": "outdated"})).await;
    assert_eq!(
        outdated.structured["findings"][0]["metrics"]["stale_parameters"],
        json!(["depth"]),
        "{}",
        outdated.text
    );
    let todos = run("analyze_documentation", json!({"kind": "todos"})).await;
    assert!(todos.text.contains("pkg/shapes.py:10:1"), "{}", todos.text);

    let untested = run("analyze_tests", json!({"kind": "untested"})).await;
    let names: Vec<&str> = untested.structured["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["symbol"]["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["perimeter"], "{}", untested.text);
    let smells = run("analyze_tests", json!({"kind": "smells"})).await;
    assert_eq!(
        smells.structured["findings"][0]["metrics"]["smell_labels"],
        json!(["no_assertion"]),
        "{}",
        smells.text
    );
    let cov = run("analyze_tests", json!({"kind": "coverage", "options": {"coverage_format": "lcov", "coverage_file": "coverage.lcov"}})).await;
    assert_eq!(
        cov.structured["findings"][0]["metrics"]["coverage_ratio"],
        json!(0.5),
        "{}",
        cov.text
    );
    let err = call(
        &ctx,
        "analyze_tests",
        json!({"directory": d, "kind": "coverage"}),
    )
    .await
    .expect_err("no report");
    assert_eq!(
        err.details.as_ref().unwrap()["field"],
        "options.coverage_format"
    );
}

#[tokio::test]
async fn an_unused_imports_delete_call_is_planned_by_the_refactoring_tool() {
    let state = tempfile::tempdir().unwrap();
    let ctx = ctx_for(state.path());
    if !resolve_pr_tools::ruff_installed() {
        assert!(
            std::env::var("RESOLVE_PR_REQUIRE_LSP").is_err(),
            "ruff is required here"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("tangled.py", TANGLED)]);
    let d = dir.path().to_str().unwrap();
    let dead = call(&ctx, "analyze_dead_code", json!({"directory": d}))
        .await
        .expect("dead code");
    let names: Vec<&str> = dead.structured["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["symbol"]["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sys"], "{}", dead.text);
    let calls = refactor_calls_fit_their_tools(&dead.structured);
    assert_eq!(
        calls[0]["arguments"],
        json!({"directory": d, "kind": "unused_imports", "file_path": "tangled.py"})
    );
    let plan = call(&ctx, "delete", calls[0]["arguments"].clone())
        .await
        .expect("delete takes the suggested call");
    assert!(plan.text.contains("-import sys"), "{}", plan.text);
    assert!(!plan.text.contains("-import os"), "{}", plan.text);
}

#[tokio::test]
async fn a_batch_reads_once_and_answers_each_analysis_in_one_list() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("tangled.py", TANGLED),
            (
                "src/a.ts",
                "import { b } from './b';\nexport const a = () => b() + 1;\n",
            ),
            (
                "src/b.ts",
                "import { a } from './a';\nimport { unused } from './c';\nexport const b = () => (Math.random() > 2 ? a() : 0);\n",
            ),
            ("src/c.ts", "export const unused = 1;\n"),
        ],
    );
    let ctx = ctx_for(dir.path());
    let d = dir.path().to_str().unwrap();
    let batch = call(
        &ctx,
        "analyze_batch",
        json!({"directory": d, "analyses": [
            {"category": "quality", "options": {"thresholds": {"cyclomatic_complexity": 4}}},
            {"category": "dead_code"},
            {"category": "dependencies", "kind": "circular"}
        ]}),
    )
    .await
    .expect("batch");
    let out = &batch.structured;
    assert_eq!(
        out["metadata"]["kind"],
        "quality.complexity+dead_code.unused_imports+dependencies.circular",
        "{}",
        batch.text
    );
    assert_eq!(
        out["metadata"]["thresholds"]["quality.complexity.cyclomatic_complexity"],
        4.0
    );
    let kinds: std::collections::BTreeSet<&str> = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["circular_dependency", "complexity_hotspot", "unused_import"].into(),
        "{}",
        batch.text
    );
    let cycle = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "circular_dependency")
        .unwrap();
    assert_eq!(
        cycle["metrics"]["circular_path"],
        json!(["src/a.ts", "src/b.ts", "src/a.ts"])
    );
    refactor_calls_fit_their_tools(out);

    let err = call(&ctx, "analyze_batch", json!({"directory": d, "analyses": [{"category": "quality"}, {"category": "dead_code", "kind": "unused_everything"}]}))
        .await
        .expect_err("a kind its tool does not take");
    assert_eq!(
        err.details.as_ref().unwrap()["field"],
        "analyses[1].kind",
        "{err:?}"
    );
}

#[tokio::test]
async fn a_rust_modules_dependencies_say_what_must_become_public() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "src/lib.rs",
                "mod util;\npub mod shapes;\n\npub fn total() -> f64 {\n    shapes::area(2.0)\n}\n",
            ),
            (
                "src/util.rs",
                "pub(crate) fn square(x: f64) -> f64 {\n    x * x\n}\n",
            ),
            (
                "src/shapes.rs",
                "use crate::util::square;\n\npub fn area(r: f64) -> f64 {\n    square(r) * 3.0\n}\n",
            ),
        ],
    );
    let ctx = ctx_for(dir.path());
    let d = dir.path().to_str().unwrap();
    let out = call(
        &ctx,
        "analyze_module_dependencies",
        json!({"directory": d, "module": "src/shapes.rs"}),
    )
    .await
    .expect("module dependencies");
    let by_kind = |k: &str| -> Vec<String> {
        out.structured["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == k)
            .map(|f| f["symbol"]["symbol"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        by_kind("must_become_public").contains(&"crate::util::square".to_owned()),
        "{}",
        out.text
    );
    assert_eq!(
        by_kind("used_by_rest"),
        ["crate::shapes::area"],
        "{}",
        out.text
    );
    let err = call(
        &ctx,
        "analyze_module_dependencies",
        json!({"directory": d, "module": "crate::nowhere"}),
    )
    .await
    .expect_err("no module");
    assert_eq!(err.details.as_ref().unwrap()["field"], "module");
}
