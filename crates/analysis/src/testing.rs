//! Tests in a checkout: the test functions of each language's usual frameworks, how many
//! assertions each makes and its smells (no assertion, sleeping, skipped, empty, too
//! long), and the public functions no test reaches by name.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::{Dialect, SourceFile, Span, docs};

/// A test longer than this many lines is `too_long`.
pub const TOO_LONG_LINES: u32 = 50;

/// One test function (or `it`/`test` case).
#[derive(Debug, Clone, PartialEq)]
pub struct TestFn {
    pub file: String,
    /// The function's name; for `it("does x", ...)`, the description.
    pub name: String,
    /// Of the name (the description string for `it`/`test`).
    pub span: Span,
    pub assertions: u32,
    /// `no_assertion`, `sleep`, `skipped`, `empty`, `too_long`.
    pub smells: Vec<&'static str>,
    /// Names of the functions and methods it calls (last path segment), once each.
    pub calls: Vec<String>,
}

/// A public function no test calls or names.
#[derive(Debug, Clone, PartialEq)]
pub struct Untested {
    pub file: String,
    pub name: String,
    pub span: Span,
    /// `function` or `method`.
    pub symbol_kind: &'static str,
}

/// Whether `path` holds tests by the usual conventions: a `tests`/`test`/`__tests__`
/// directory, `*_test.go`, `test_*.py`, `*_test.py`, `conftest.py`, `*.test.*` and
/// `*.spec.*` JavaScript/TypeScript.
pub fn is_test_file(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or("");
    if parts
        .iter()
        .any(|d| matches!(*d, "tests" | "test" | "__tests__" | "testing"))
    {
        return true;
    }
    if name.ends_with("_test.go") || name == "conftest.py" {
        return true;
    }
    if let Some(stem) = name.strip_suffix(".py") {
        return stem.starts_with("test_") || stem.ends_with("_test");
    }
    let js = ["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"];
    let mut pieces = name.rsplit('.');
    let ext = pieces.next().unwrap_or("");
    let kind = pieces.next().unwrap_or("");
    js.contains(&ext) && matches!(kind, "test" | "spec") && pieces.next().is_some()
}

/// The test functions of `file`: Rust `#[test]`-like attributes (`#[tokio::test]`,
/// `#[rstest]`...), Python pytest/unittest (`test*` functions, and methods of `Test*`
/// classes or `TestCase` subclasses), JS/TS `it`/`test` calls (with `.only`/`.skip`,
/// `xit`, `fit`), Go `func TestX(t *testing.T)`.
pub fn test_functions(file: &SourceFile) -> Vec<TestFn> {
    let mut out = Vec::new();
    match file.dialect {
        Dialect::Rust => rust(file, file.root(), &mut out),
        Dialect::Python => python(file, file.root(), false, &mut out),
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            js(file, file.root(), &mut out)
        }
        Dialect::Go => go(file, &mut out),
        Dialect::C | Dialect::Cpp => {}
    }
    out
}

/// Public functions and methods of non-test files whose name no test function calls and
/// no test file mentions. A by-name approximation: a call through another name, a trait
/// object or a re-export is not followed, and a same-named function elsewhere counts as
/// tested.
pub fn untested(files: &[SourceFile]) -> Vec<Untested> {
    let mut reached: HashSet<String> = HashSet::new();
    for f in files {
        for t in test_functions(f) {
            reached.extend(t.calls);
        }
        if is_test_file(&f.path) {
            reached.extend(
                f.text
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !is_test_file(&f.path)) {
        let tests: HashSet<String> = test_functions(f).into_iter().map(|t| t.name).collect();
        for item in docs::doc_items(f) {
            if !item.public || !matches!(item.symbol_kind, "function" | "method") {
                continue;
            }
            if reached.contains(&item.name) || tests.contains(&item.name) {
                continue;
            }
            out.push(Untested {
                file: item.file,
                name: item.name,
                span: item.span,
                symbol_kind: item.symbol_kind,
            });
        }
    }
    out
}

fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Every node under `node`, itself included, in order.
fn descendants<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    let mut cursor = node.walk();
    while let Some(n) = stack.pop() {
        out.push(n);
        let kids: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

fn last_segment(path: &str) -> &str {
    path.rsplit(['.', ':']).next().unwrap_or(path).trim()
}

/// What a test's body shows.
struct Seen {
    assertions: u32,
    smells: Vec<&'static str>,
    calls: Vec<String>,
    empty: bool,
}

fn finish(
    file: &SourceFile,
    name: &str,
    name_node: Node<'_>,
    whole: Node<'_>,
    seen: Seen,
) -> TestFn {
    let Seen {
        assertions,
        mut smells,
        calls,
        empty: body_empty,
    } = seen;
    if assertions == 0 && !body_empty {
        smells.insert(0, "no_assertion");
    }
    if body_empty {
        smells.push("empty");
    }
    let lines = whole.end_position().row - whole.start_position().row + 1;
    if u32::try_from(lines).unwrap_or(u32::MAX) > TOO_LONG_LINES {
        smells.push("too_long");
    }
    let mut seen = HashSet::new();
    smells.retain(|s| seen.insert(*s));
    let mut seen = HashSet::new();
    let calls = calls
        .into_iter()
        .filter(|c| seen.insert(c.clone()))
        .collect();
    TestFn {
        file: file.path.clone(),
        name: name.to_owned(),
        span: file.span(name_node),
        assertions,
        smells,
        calls,
    }
}

fn rust(file: &SourceFile, container: Node<'_>, out: &mut Vec<TestFn>) {
    for node in children(container) {
        match node.kind() {
            "mod_item" => {
                if let Some(body) = node.child_by_field_name("body") {
                    rust(file, body, out);
                }
            }
            "function_item" => {
                let attrs = rust_attrs(file, node);
                let is_test = attrs.iter().any(|a| {
                    let path = a.split('(').next().unwrap_or("").trim();
                    matches!(
                        last_segment(path),
                        "test" | "rstest" | "test_case" | "quickcheck"
                    )
                });
                if !is_test {
                    continue;
                }
                let (Some(name), Some(body)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("body"),
                ) else {
                    continue;
                };
                let mut assertions = 0;
                let mut smells = Vec::new();
                let mut calls = Vec::new();
                if attrs.iter().any(|a| a.starts_with("ignore")) {
                    smells.push("skipped");
                }
                for n in descendants(body) {
                    match n.kind() {
                        "macro_invocation" => {
                            let mac = n
                                .child_by_field_name("macro")
                                .map_or("", |m| last_segment(file.text_of(m)));
                            if mac.contains("assert") {
                                assertions += 1;
                            }
                        }
                        // Macro arguments are tokens: `name(` in them is a call.
                        "token_tree" => {
                            let kids = children(n);
                            for pair in kids.windows(2) {
                                if pair[0].kind() == "identifier"
                                    && pair[1].kind() == "token_tree"
                                    && file.text_of(pair[1]).starts_with('(')
                                {
                                    calls.push(file.text_of(pair[0]).to_owned());
                                }
                            }
                        }
                        "call_expression" => {
                            let Some(f) = n.child_by_field_name("function") else {
                                continue;
                            };
                            let callee = match f.kind() {
                                "field_expression" => {
                                    f.child_by_field_name("field").map(|x| file.text_of(x))
                                }
                                "generic_function" => f
                                    .child_by_field_name("function")
                                    .map(|x| last_segment(file.text_of(x))),
                                _ => Some(last_segment(file.text_of(f))),
                            };
                            if let Some(c) = callee {
                                if c == "sleep" {
                                    smells.push("sleep");
                                }
                                calls.push(c.to_owned());
                            }
                        }
                        _ => {}
                    }
                }
                let empty = children(body)
                    .into_iter()
                    .all(|c| matches!(c.kind(), "line_comment" | "block_comment"));
                let expects_panic = attrs.iter().any(|a| a.starts_with("should_panic"));
                out.push(finish(
                    file,
                    file.text_of(name),
                    name,
                    node,
                    Seen {
                        assertions: assertions + u32::from(expects_panic),
                        smells,
                        calls,
                        empty,
                    },
                ));
            }
            _ => {}
        }
    }
}

/// The attributes before an item, without `#[`/`]`.
fn rust_attrs(file: &SourceFile, node: Node<'_>) -> Vec<String> {
    let mut attrs = Vec::new();
    let mut sib = node.prev_named_sibling();
    while let Some(s) = sib {
        match s.kind() {
            "attribute_item" => {
                let t = file.text_of(s);
                attrs.push(
                    t.trim_start_matches("#[")
                        .trim_end_matches(']')
                        .trim()
                        .to_owned(),
                );
            }
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        sib = s.prev_named_sibling();
    }
    attrs
}

fn python(file: &SourceFile, container: Node<'_>, in_test_class: bool, out: &mut Vec<TestFn>) {
    for child in children(container) {
        let (def, decorators) = if child.kind() == "decorated_definition" {
            let decs: Vec<String> = children(child)
                .into_iter()
                .filter(|c| c.kind() == "decorator")
                .map(|d| file.text_of(d).trim_start_matches('@').to_owned())
                .collect();
            (
                child.child_by_field_name("definition").unwrap_or(child),
                decs,
            )
        } else {
            (child, Vec::new())
        };
        let Some(name) = def.child_by_field_name("name") else {
            continue;
        };
        let text = file.text_of(name);
        match def.kind() {
            "class_definition" => {
                let bases = def
                    .child_by_field_name("superclasses")
                    .map_or("", |b| file.text_of(b));
                let test_class = text.starts_with("Test") || bases.contains("TestCase");
                if test_class && let Some(body) = def.child_by_field_name("body") {
                    python(file, body, true, out);
                }
            }
            "function_definition" if text.starts_with("test") => {
                let top_level = container.kind() == "module";
                if !(top_level || in_test_class) {
                    continue;
                }
                let Some(body) = def.child_by_field_name("body") else {
                    continue;
                };
                let mut assertions = 0;
                let mut smells = Vec::new();
                let mut calls = Vec::new();
                if decorators.iter().any(|d| {
                    let d = d.split('(').next().unwrap_or("");
                    matches!(
                        last_segment(d),
                        "skip" | "skipif" | "skipIf" | "skipUnless" | "expectedFailure"
                    ) || d.ends_with("mark.xfail")
                }) {
                    smells.push("skipped");
                }
                for n in descendants(body) {
                    match n.kind() {
                        "assert_statement" => assertions += 1,
                        "call" => {
                            let Some(f) = n.child_by_field_name("function") else {
                                continue;
                            };
                            let full = file.text_of(f);
                            let last = match f.kind() {
                                "attribute" => f
                                    .child_by_field_name("attribute")
                                    .map_or("", |a| file.text_of(a)),
                                _ => full,
                            };
                            if last.starts_with("assert")
                                || last == "fail"
                                || matches!(full, "pytest.raises" | "pytest.warns" | "pytest.fail")
                            {
                                assertions += 1;
                            }
                            if last == "sleep" {
                                smells.push("sleep");
                            }
                            if matches!(last, "skipTest" | "skip")
                                && (full.starts_with("self.") || full.starts_with("pytest."))
                            {
                                smells.push("skipped");
                            }
                            if !last.is_empty() {
                                calls.push(last.to_owned());
                            }
                        }
                        _ => {}
                    }
                }
                let empty = children(body).into_iter().all(|c| {
                    c.kind() == "comment"
                        || c.kind() == "pass_statement"
                        || (c.kind() == "expression_statement"
                            && c.named_child(0)
                                .is_some_and(|e| matches!(e.kind(), "string" | "ellipsis")))
                });
                out.push(finish(
                    file,
                    text,
                    name,
                    def,
                    Seen {
                        assertions,
                        smells,
                        calls,
                        empty,
                    },
                ));
            }
            _ => {}
        }
    }
}

fn js(file: &SourceFile, node: Node<'_>, out: &mut Vec<TestFn>) {
    for n in descendants(node) {
        if n.kind() != "call_expression" {
            continue;
        }
        let Some(f) = n.child_by_field_name("function") else {
            continue;
        };
        let callee = file.text_of(f);
        let (base, modifier) = callee.split_once('.').unwrap_or((callee, ""));
        let is_case = matches!(base, "it" | "test" | "xit" | "xtest" | "fit")
            && matches!(
                modifier,
                "" | "only" | "skip" | "todo" | "concurrent" | "failing"
            );
        if !is_case {
            continue;
        }
        let Some(args) = n.child_by_field_name("arguments") else {
            continue;
        };
        let args = children(args);
        let Some(name_node) = args.first().copied() else {
            continue;
        };
        let name = file
            .text_of(name_node)
            .trim_matches(|c| c == '"' || c == '\'' || c == '`')
            .to_owned();
        let body = args
            .iter()
            .find(|a| {
                matches!(
                    a.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            })
            .and_then(|a| a.child_by_field_name("body"));
        let mut smells = Vec::new();
        if matches!(base, "xit" | "xtest") || matches!(modifier, "skip" | "todo") {
            smells.push("skipped");
        }
        let mut assertions = 0;
        let mut calls = Vec::new();
        let Some(body) = body else {
            // `it.todo("...")`: a test not written yet.
            out.push(finish(
                file,
                &name,
                name_node,
                n,
                Seen {
                    assertions: 0,
                    smells,
                    calls,
                    empty: true,
                },
            ));
            continue;
        };
        for c in descendants(body) {
            if c.kind() != "call_expression" {
                continue;
            }
            let Some(g) = c.child_by_field_name("function") else {
                continue;
            };
            let text = file.text_of(g);
            let last = match g.kind() {
                "member_expression" => g
                    .child_by_field_name("property")
                    .map_or("", |p| file.text_of(p)),
                _ => text,
            };
            let object = g.child_by_field_name("object").map(|o| file.text_of(o));
            if matches!(text, "expect" | "assert") || object == Some("assert") {
                assertions += 1;
            }
            if matches!(last, "setTimeout" | "sleep" | "delay") {
                smells.push("sleep");
            }
            if !last.is_empty() {
                calls.push(last.to_owned());
            }
        }
        let empty = body.kind() == "statement_block"
            && children(body).into_iter().all(|c| c.kind() == "comment");
        out.push(finish(
            file,
            &name,
            name_node,
            n,
            Seen {
                assertions,
                smells,
                calls,
                empty,
            },
        ));
    }
}

fn go(file: &SourceFile, out: &mut Vec<TestFn>) {
    for node in children(file.root()) {
        if node.kind() != "function_declaration" {
            continue;
        }
        let Some(name) = node.child_by_field_name("name") else {
            continue;
        };
        let text = file.text_of(name);
        if !text.starts_with("Test") || text == "TestMain" {
            continue;
        }
        // The `*testing.T` parameter's name (usually `t`).
        let Some(params) = node.child_by_field_name("parameters") else {
            continue;
        };
        let t_param = children(params).into_iter().find_map(|p| {
            let ty = p.child_by_field_name("type").map(|t| file.text_of(t))?;
            (ty == "*testing.T").then(|| p.child_by_field_name("name").map(|n| file.text_of(n)))?
        });
        let Some(t) = t_param else { continue };
        let Some(body) = node.child_by_field_name("body") else {
            continue;
        };
        let mut assertions = 0;
        let mut smells = Vec::new();
        let mut calls = Vec::new();
        for c in descendants(body) {
            if c.kind() != "call_expression" {
                continue;
            }
            let Some(f) = c.child_by_field_name("function") else {
                continue;
            };
            let (object, last) = match f.kind() {
                "selector_expression" => (
                    f.child_by_field_name("operand")
                        .map_or("", |o| file.text_of(o)),
                    f.child_by_field_name("field")
                        .map_or("", |x| file.text_of(x)),
                ),
                _ => ("", file.text_of(f)),
            };
            if (object == t
                && (last.starts_with("Error")
                    || last.starts_with("Fatal")
                    || last.starts_with("Fail")))
                || matches!(object, "assert" | "require")
            {
                assertions += 1;
            }
            if object == t && last.starts_with("Skip") {
                smells.push("skipped");
            }
            if object == "time" && last == "Sleep" {
                smells.push("sleep");
            }
            if !last.is_empty() {
                calls.push(last.to_owned());
            }
        }
        let empty = children(body).into_iter().all(|c| c.kind() == "comment");
        out.push(finish(
            file,
            text,
            name,
            node,
            Seen {
                assertions,
                smells,
                calls,
                empty,
            },
        ));
    }
}
