//! Identifier occurrences by tree-sitter: what counts, what does not, and where.

use std::time::Instant;

use resolve_pr_syntax::{
    Dialect, MAX_SOURCE_BYTES, Occurrence, SyntaxError, identifier_occurrences,
};

/// The text an occurrence's LSP range covers (UTF-16 columns), found independently of the
/// crate: lines split at `\n`, `\r\n` and `\r`.
fn covered(source: &str, o: &Occurrence) -> String {
    let mut lines = Vec::new();
    let mut rest = source;
    loop {
        match rest.find(['\n', '\r']) {
            Some(i) => {
                lines.push(&rest[..i]);
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
            None => {
                lines.push(rest);
                break;
            }
        }
    }
    let units: Vec<u16> = lines[o.line as usize].encode_utf16().collect();
    String::from_utf16(&units[o.character as usize..o.end_character as usize])
        .expect("whole characters")
}

/// `(line, character, in_macro)` of each occurrence, after checking each covers `name`
/// (or `r#name`).
fn found(language: Dialect, source: &str, name: &str) -> Vec<(u32, u32, bool)> {
    let list = identifier_occurrences(language, source, name).expect("scans");
    for o in &list {
        let text = covered(source, o);
        assert!(
            text == name || text == format!("r#{name}") || format!("r#{text}") == name,
            "{o:?} covers {text:?}, not {name:?}"
        );
    }
    list.iter()
        .map(|o| (o.line, o.character, o.in_macro))
        .collect()
}

#[test]
fn rust_code_outside_macros() {
    let src = r#"
use crate::util::add; // add here is a comment
/// Calls [`add`] twice.
fn add(a: u32, b: u32) -> u32 { a + b }
fn adder() -> u32 { add(1, 2) + self::add(3, 4) }
struct P { add: u32, addr: u32 }
fn f(p: P) -> u32 { let P { add, .. } = p; p.add + add }
trait T { type add; }
const S: &str = "add";
const C: char = 'a';
/* add */
"#;
    assert_eq!(
        found(Dialect::Rust, src, "add"),
        [
            (1, 17, false),
            (3, 3, false),
            (4, 20, false),
            (4, 38, false),
            (5, 11, false),
            (6, 28, false),
            (6, 45, false),
            (6, 51, false),
            (7, 15, false),
        ]
    );
}

#[test]
fn rust_macro_arguments() {
    let src = r#"fn t() {
    assert_eq!(add(1,2),3);
    println!("{}", add(1, 2));
    vec![format!("{:?}", add(add(0, 1), 2))];
    assert!(addition(1) > 0, "add failed");
    proptest! { fn p(x in 0u8..) { prop_assert!(add(x, 0) == x); } }
}
"#;
    assert_eq!(
        found(Dialect::Rust, src, "add"),
        [
            (1, 15, true),
            (2, 19, true),
            (3, 25, true),
            (3, 29, true),
            (5, 48, true),
        ]
    );
}

#[test]
fn rust_macro_definitions_attributes_lifetimes_and_raw_identifiers() {
    let src = "macro_rules! m { (add $add:expr) => { add($add) }; }
#[derive(add)]
fn r#add<'add>(x: &'add u8) { 'add: loop { break 'add; } }
fn g() { m!('add, $add, r#add); }
";
    assert_eq!(
        found(Dialect::Rust, src, "add"),
        [(0, 38, true), (1, 9, true), (2, 3, false), (3, 24, true)]
    );
    // The raw form of the name asks for the same identifier.
    assert_eq!(
        found(Dialect::Rust, src, "r#add"),
        found(Dialect::Rust, src, "add")
    );
    let list = identifier_occurrences(Dialect::Rust, src, "add").expect("scans");
    // A raw identifier's range covers `r#`.
    assert_eq!((list[2].character, list[2].end_character), (3, 8));
}

#[test]
fn utf16_columns_after_wide_characters() {
    // "🦀" is 2 UTF-16 units (4 bytes), "日本" 2 units (6 bytes), "é" 1 unit (2 bytes).
    let src = "fn f() { let s = \"🦀日本\"; add(s); }\n// é\nlet é = add;\n";
    let list = identifier_occurrences(Dialect::Rust, src, "add").expect("scans");
    assert_eq!(
        list,
        [
            Occurrence {
                line: 0,
                character: 25,
                end_character: 28,
                in_macro: false
            },
            Occurrence {
                line: 2,
                character: 8,
                end_character: 11,
                in_macro: false
            },
        ]
    );
    // A name that is itself non-ASCII.
    let src = "x = 1\n日本 = 2 # 日本\nprint(日本, f'日本')\n";
    assert_eq!(
        found(Dialect::Python, src, "日本"),
        [(1, 0, false), (2, 6, false)]
    );
}

#[test]
fn lsp_line_ends() {
    let src = "let a = 1;\r\nlet b = a;\rlet c = a;\n";
    assert_eq!(
        found(Dialect::JavaScript, src, "a"),
        [(0, 4, false), (1, 8, false), (2, 8, false)]
    );
}

#[test]
fn typescript_and_tsx() {
    let src = r#"import { add } from "./add";
// add(1)
interface Adder { add(x: number): number; addOne: add }
type add = number;
const o = { add, adds: 1, add: 2 };
const { add: a2 } = o;
const { add } = o;
class K { #add = 1; m() { return this.#add + o.add; } }
const s = `add ${add(1)} add`;
const re = /add/;
add: for (;;) { break add; }
"#;
    assert_eq!(
        found(Dialect::TypeScript, src, "add"),
        [
            (0, 9, false),
            (2, 18, false),
            (2, 50, false),
            (3, 5, false),
            (4, 12, false),
            (4, 26, false),
            (5, 8, false),
            (6, 8, false),
            (7, 47, false),
            (8, 17, false),
        ]
    );
    assert_eq!(
        found(Dialect::TypeScript, src, "#add"),
        [(7, 10, false), (7, 38, false)]
    );
    let tsx = "const e = <Add add={add}>add</Add>;\n";
    assert_eq!(
        found(Dialect::Tsx, tsx, "add"),
        [(0, 15, false), (0, 20, false)]
    );
    assert_eq!(
        found(Dialect::Tsx, tsx, "Add"),
        [(0, 11, false), (0, 30, false)]
    );
}

#[test]
fn javascript() {
    let src = "const add = require('add'); /* add */\nmodule.exports = { add, added: add };\n`${add}`; 'add'; \"add\"\n";
    assert_eq!(
        found(Dialect::JavaScript, src, "add"),
        [(0, 6, false), (1, 19, false), (1, 31, false), (2, 3, false)]
    );
}

#[test]
fn python() {
    let src = r#"from util import add  # add
def adder():
    """add docs"""
    return add(1, 2) + util.add + f"{add(1)} add" + 'add'
add_numbers = add
match = add
"#;
    assert_eq!(
        found(Dialect::Python, src, "add"),
        [
            (0, 17, false),
            (3, 11, false),
            (3, 28, false),
            (3, 37, false),
            (4, 14, false),
            (5, 8, false),
        ]
    );
    assert_eq!(found(Dialect::Python, src, "match"), [(5, 0, false)]);
}

#[test]
fn go() {
    let src = "package add\n\nimport \"add\"\n\n// add\ntype T struct{ add int; adder int }\n\nfunc add(t T) int {\nadd:\n\tfor {\n\t\tbreak add\n\t}\n\treturn t.add + add(t) + len(`add`) + 'a'\n}\n";
    assert_eq!(
        found(Dialect::Go, src, "add"),
        [
            (0, 8, false),
            (5, 15, false),
            (7, 5, false),
            (12, 10, false),
            (12, 16, false)
        ]
    );
}

#[test]
fn c() {
    let src = r#"#include "add.h"
#define ADD(a, b) add((a), (b)) /* add */
#define TWICE(x) add(x, x) + L"add" + 'a' + 1add // add
#define WIDE \
    adder + add
#ifdef add
#endif
#pragma add
struct s { int add; int addend; };
typedef int add_t;
int add(int a, int b) { return a + b; }
int main(void) {
    struct s v;
add:
    return add(1, 2) + v.add + ADD(1, 2); // add
}
"#;
    assert_eq!(
        found(Dialect::C, src, "add"),
        [
            (1, 18, true),
            (2, 17, true),
            (4, 12, true),
            (5, 7, false),
            (8, 15, false),
            (10, 4, false),
            (14, 11, false),
            (14, 25, false),
        ]
    );
}

#[test]
fn nothing_matches_an_empty_or_absent_name() {
    assert_eq!(found(Dialect::Rust, "fn add() {}", ""), []);
    assert_eq!(found(Dialect::Rust, "fn add() {}", "sub"), []);
    assert_eq!(found(Dialect::Rust, "fn add() {}", "ad"), []);
    assert_eq!(found(Dialect::Rust, "fn add() {}", "add()"), []);
    assert_eq!(found(Dialect::Go, "", "add"), []);
}

#[test]
fn broken_sources_are_scanned_as_far_as_they_parse() {
    let src = "fn f( { add(1); let x = ;\nadd\n";
    let list = found(Dialect::Rust, src, "add");
    assert!(list.contains(&(1, 0, false)), "{list:?}");
}

#[test]
fn too_large_a_source_is_an_error() {
    let src = "a".repeat(MAX_SOURCE_BYTES + 1);
    assert_eq!(
        identifier_occurrences(Dialect::Rust, &src, "b"),
        Err(SyntaxError::TooLarge {
            bytes: MAX_SOURCE_BYTES + 1,
            limit: MAX_SOURCE_BYTES
        })
    );
}

/// Parse + scan time of a generated 5,000-line Rust file; printed, not asserted.
/// `cargo test -p resolve-pr-syntax --release --test it -- --nocapture idents::timing`
#[test]
fn timing_of_a_large_rust_file() {
    let mut src = String::new();
    for i in 0..1000 {
        src.push_str(&format!(
            "/// Adds {i}.\npub fn add_{i}(a: u64) -> u64 {{\n    let s = \"add\";\n    assert_eq!(add(a, {i}), a + {i}, \"{{s}}\");\n    add(a, {i})\n}}\n"
        ));
    }
    let lines = src.lines().count();
    assert!(lines >= 5000);
    let start = Instant::now();
    let list = identifier_occurrences(Dialect::Rust, &src, "add").expect("scans");
    let elapsed = start.elapsed();
    assert_eq!(list.len(), 2000);
    assert_eq!(list.iter().filter(|o| o.in_macro).count(), 1000);
    println!(
        "identifier_occurrences: {lines} lines, {} bytes, {} occurrences in {:.1} ms",
        src.len(),
        list.len(),
        elapsed.as_secs_f64() * 1000.0
    );
}

/// The declaration around a position, in each language: the innermost named one, methods
/// qualified by their type, anonymous functions passed through.
#[test]
fn the_declaration_around_a_position() {
    use resolve_pr_syntax::{enclosing_declaration, enclosing_declarations};
    let at = |language, source: &str, line, character| {
        enclosing_declarations(language, source, &[(line, character)])
            .unwrap()
            .pop()
            .flatten()
            .map(|e| (e.name, e.kind, e.start_line, e.end_line))
    };
    let rust = "struct Stack<T>(Vec<T>);\nimpl<T> Stack<T> {\n    fn push(&mut self) {\n        let f = || go();\n    }\n}\nfn free() { go(); }\n";
    assert_eq!(
        at(Dialect::Rust, rust, 3, 19),
        Some(("Stack::push".into(), "method", 2, 4))
    );
    assert_eq!(
        at(Dialect::Rust, rust, 6, 12),
        Some(("free".into(), "function", 6, 6))
    );
    assert_eq!(
        at(Dialect::Rust, rust, 0, 18),
        Some(("Stack".into(), "struct", 0, 0))
    );
    let python = "import os\nclass A:\n    def f(self):\n        return g()\n";
    assert_eq!(
        at(Dialect::Python, python, 3, 15),
        Some(("A.f".into(), "method", 2, 3))
    );
    assert_eq!(at(Dialect::Python, python, 0, 8), None);
    let ts = "class A {\n  m() { return g(); }\n}\nconst h = () => {\n  it('x', () => g());\n};\n";
    assert_eq!(
        at(Dialect::TypeScript, ts, 1, 15),
        Some(("A.m".into(), "method", 1, 1))
    );
    assert_eq!(
        at(Dialect::TypeScript, ts, 4, 17),
        Some(("h".into(), "function", 3, 5))
    );
    let go = "package p\nfunc (s *Stack[T]) Push() {\n\tgo1()\n}\n";
    assert_eq!(
        at(Dialect::Go, go, 2, 2),
        Some(("Stack.Push".into(), "method", 1, 3))
    );
    let c = "int add(int a, int b);\nstatic const char *name(void) {\n  return add(1, 2) ? \"😀\" : 0;\n}\n";
    assert_eq!(
        at(Dialect::C, c, 2, 12),
        Some(("name".into(), "function", 1, 3))
    );
    assert_eq!(at(Dialect::C, c, 0, 5), None);
    assert_eq!(at(Dialect::C, c, 9, 0), None);
    // At a declaration's own name: what holds it.
    assert_eq!(at(Dialect::C, c, 1, 20), None);
    assert_eq!(at(Dialect::Rust, rust, 2, 8), None);
    assert_eq!(
        at(Dialect::Python, python, 2, 8),
        Some(("A".into(), "class", 1, 3))
    );
    // Asked for one position, the declaration whose name is there.
    let own = enclosing_declaration(Dialect::C, c, 1, 20)
        .unwrap()
        .unwrap();
    assert_eq!(
        (own.name.as_str(), own.start_line, own.end_line),
        ("name", 1, 3)
    );
}

/// Imports and re-exports, where a name is made visible rather than defined.
#[test]
fn a_position_inside_an_import() {
    use resolve_pr_syntax::in_import;
    let rust = "pub use crate::shapes::{\n    Circle,\n    Square,\n};\npub struct Circle;\n";
    assert!(in_import(Dialect::Rust, rust, 1, 4).unwrap());
    assert!(in_import(Dialect::Rust, rust, 0, 25).unwrap());
    assert!(!in_import(Dialect::Rust, rust, 4, 11).unwrap());
    let ts = "export { A } from './a';\nimport { B } from './b';\nexport const C = 1;\n";
    assert!(in_import(Dialect::TypeScript, ts, 0, 9).unwrap());
    assert!(in_import(Dialect::TypeScript, ts, 1, 9).unwrap());
    assert!(!in_import(Dialect::TypeScript, ts, 2, 13).unwrap());
    assert!(in_import(Dialect::Python, "from a import b\n", 0, 14).unwrap());
}
