//! Calls a language server does not show: those inside Rust macro arguments (rust-analyzer's
//! call hierarchy reads the syntax tree, where `assert_eq!(f(x), 1)` is tokens), and the test
//! a JavaScript/TypeScript test runner reports a failure in (the callback passed to
//! `it(...)`, which has no name a server's outline gives).

use tree_sitter::Node;

use resolve_pr_source::{LineIndex, utf16_len};

use crate::idents::position;
use crate::{Dialect, Occurrence, SyntaxError, parse, to_u32};

/// A test of a JavaScript/TypeScript test runner: `it("title", () => { ... })`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCall {
    /// The runner's function as written: `it`, `test`, `describe`, `it.only`.
    pub runner: String,
    /// The title given, without quotes (a template literal as written).
    pub title: String,
    /// Where the runner's name is (its first identifier).
    pub at: Occurrence,
    /// The callback's lines, zero-based, both included.
    pub body_lines: (u32, u32),
    /// Where the callback starts: line and UTF-16 column (a call before it on its first
    /// line, the runner's own, is not the test's).
    pub body_start: (u32, u32),
}

/// The functions whose callback is a test or a group of tests (vitest, jest, mocha,
/// node:test).
const RUNNERS: [&str; 7] = [
    "it", "test", "describe", "suite", "bench", "specify", "context",
];

/// The innermost test call whose callback holds `line` (zero-based): the `it`/`test` a
/// failure is in, else the `describe` around it. `None` for other languages, a source that
/// does not parse, or a line in no test.
pub fn test_at(language: Dialect, source: &str, line: u32) -> Option<TestCall> {
    if !matches!(
        language,
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx
    ) {
        return None;
    }
    let tree = parse(language, source).ok()?;
    let lines = LineIndex::new(source);
    let mut found = None;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let (first, last) = (
            to_u32(node.start_position().row),
            to_u32(node.end_position().row),
        );
        if line < first || line > last {
            continue;
        }
        if node.kind() == "call_expression"
            && let Some(test) = test_call(node, source, &lines, line)
        {
            // Deeper calls are pushed later and so seen later: the last one is innermost.
            found = Some(test);
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    found
}

fn test_call(node: Node<'_>, source: &str, lines: &LineIndex<'_>, line: u32) -> Option<TestCall> {
    let callee = node.child_by_field_name("function")?;
    // `it(...)`, `it.only(...)`, `test.each(table)(...)`: the base name is a runner.
    let mut base = callee;
    loop {
        base = match base.kind() {
            "member_expression" => base.child_by_field_name("object")?,
            "call_expression" => base.child_by_field_name("function")?,
            _ => break,
        };
    }
    let name = source.get(base.byte_range())?;
    if base.kind() != "identifier" || !RUNNERS.contains(&name) {
        return None;
    }
    let arguments = node.child_by_field_name("arguments")?;
    let mut cursor = arguments.walk();
    let args: Vec<Node<'_>> = arguments.named_children(&mut cursor).collect();
    let callback = args.iter().find(|a| {
        matches!(
            a.kind(),
            "arrow_function" | "function_expression" | "function"
        )
    })?;
    let body_lines = (
        to_u32(callback.start_position().row),
        to_u32(callback.end_position().row),
    );
    if line < body_lines.0 || line > body_lines.1 {
        return None;
    }
    let title = args.first().map_or("", |t| {
        let raw = source.get(t.byte_range()).unwrap_or("");
        if t.kind() == "string" {
            raw.get(1..raw.len().saturating_sub(1)).unwrap_or(raw)
        } else {
            raw
        }
    });
    let body_start = position(lines, callback.start_byte());
    let (start_line, character) = position(lines, base.start_byte());
    Some(TestCall {
        runner: source.get(callee.byte_range())?.to_owned(),
        title: title.to_owned(),
        at: Occurrence {
            line: start_line,
            character,
            end_character: character + utf16_len(name),
            in_macro: false,
        },
        body_lines,
        body_start,
    })
}

/// The called names in lines `first..=last` (zero-based) of `source`, each where its name
/// is: for Rust only the calls inside macro token trees (`f(` and `x.f(`, not `m!(`), which
/// are tokens to tree-sitter and to rust-analyzer's call hierarchy; for
/// JavaScript/TypeScript every call and `new` (the callee's last name). In source order.
pub fn calls_in(
    language: Dialect,
    source: &str,
    first: u32,
    last: u32,
) -> Result<Vec<(String, Occurrence)>, SyntaxError> {
    let tree = parse(language, source)?;
    let lines = LineIndex::new(source);
    let mut out = Vec::new();
    let mut stack = vec![(tree.root_node(), false)];
    let at = |node: Node<'_>| {
        let (line, character) = position(&lines, node.start_byte());
        let width = source.get(node.byte_range()).map_or(0, utf16_len);
        Occurrence {
            line,
            character,
            end_character: character + width,
            in_macro: false,
        }
    };
    while let Some((node, in_tree)) = stack.pop() {
        let (from, to) = (
            to_u32(node.start_position().row),
            to_u32(node.end_position().row),
        );
        if to < first || from > last {
            continue;
        }
        let kind = node.kind();
        match language {
            Dialect::Rust if in_tree && kind == "identifier" => {
                let next = node.next_sibling();
                let opens_call = next.is_some_and(|n| {
                    n.kind() == "token_tree"
                        && source.get(n.start_byte()..n.start_byte() + 1) == Some("(")
                });
                let name = source.get(node.byte_range()).unwrap_or("");
                if opens_call && from >= first && from <= last && !name.is_empty() {
                    let mut o = at(node);
                    o.in_macro = true;
                    out.push((name.to_owned(), o));
                }
            }
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx
                if matches!(kind, "call_expression" | "new_expression") =>
            {
                let field = if kind == "new_expression" {
                    "constructor"
                } else {
                    "function"
                };
                let mut callee = node.child_by_field_name(field);
                if let Some(c) = callee.filter(|c| c.kind() == "member_expression") {
                    callee = c.child_by_field_name("property");
                }
                if let Some(c) =
                    callee.filter(|c| matches!(c.kind(), "identifier" | "property_identifier"))
                {
                    let line = to_u32(c.start_position().row);
                    if line >= first && line <= last {
                        let name = source.get(c.byte_range()).unwrap_or("").to_owned();
                        out.push((name, at(c)));
                    }
                }
            }
            _ => {}
        }
        let inner = in_tree || (language == Dialect::Rust && kind == "token_tree");
        let mut cursor = node.walk();
        // Reversed, so that the stack gives source order.
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, inner)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_a_failure_line_is_in() {
        let src = "import { add } from './math';\n\
                   describe('math', () => {\n\
                   \x20 it('adds two', () => {\n\
                   \x20   expect(add(1, 2)).toBe(3);\n\
                   \x20 });\n\
                   \x20 test.each([1])('one %s', (n) => {\n\
                   \x20   expect(n).toBe(1);\n\
                   \x20 });\n\
                   });\n";
        let t = test_at(Dialect::TypeScript, src, 3).unwrap();
        assert_eq!((t.runner.as_str(), t.title.as_str()), ("it", "adds two"));
        assert_eq!((t.at.line, t.at.character), (2, 2));
        assert_eq!(t.body_lines, (2, 4));
        assert_eq!(t.body_start, (2, 17));
        let t = test_at(Dialect::TypeScript, src, 6).unwrap();
        assert_eq!(
            (t.runner.as_str(), t.title.as_str()),
            ("test.each([1])", "one %s")
        );
        assert_eq!(test_at(Dialect::TypeScript, src, 1).unwrap().title, "math");
        assert_eq!(test_at(Dialect::TypeScript, src, 0), None);
        assert_eq!(test_at(Dialect::Rust, "fn main() {}", 0), None);
    }

    #[test]
    fn calls_in_a_range() {
        let src = "it('x', () => {\n  const s = new Shape();\n  expect(area(s)).toBe(3);\n});\n";
        let names: Vec<String> = calls_in(Dialect::TypeScript, src, 1, 2)
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["Shape", "toBe", "expect", "area"]);
        let rust = "fn t() {\n    assert_eq!(add(1, 2), x.len());\n    let y = add(3, 4);\n    println!(\"{}\", m!(z));\n}\n";
        let calls = calls_in(Dialect::Rust, rust, 0, 4).unwrap();
        let found: Vec<(&str, u32, u32)> = calls
            .iter()
            .map(|(n, o)| (n.as_str(), o.line, o.character))
            .collect();
        assert_eq!(found, [("add", 1, 15), ("len", 1, 28)]);
    }
}
