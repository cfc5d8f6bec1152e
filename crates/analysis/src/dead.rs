//! Symbols no file references: top-level functions, types and constants (and methods, when
//! aggressive) of every file whose name occurs nowhere but in its own declaration.
//!
//! One pass counts every identifier token of every file (and string literals that are a
//! name or dotted path, for `__all__`, `getattr` and registries); a declared name is used
//! when it occurs more often than it is declared. This is name-based, not resolved: two
//! symbols of one name in different files keep each other alive, a recursive function
//! refers to itself, and a Rust struct named by its own `impl` counts as used (rustc's
//! `dead_code` would still call it "never constructed"). What rustc, tsc or the Go
//! compiler see within one file (TypeScript module-private declarations) comes from
//! [`crate::unused::unused_in_file`]'s scope resolution instead, which is exact there.
//!
//! The exported API of a library is used unless `aggressive`: Rust `pub` items outside a
//! private module (approximated: an inline `mod` without `pub`, or a file whose `mod name;`
//! declaration somewhere in the files lacks `pub`, is private; `pub` re-exports through a
//! private module are not followed), TypeScript/JavaScript exports, Python names without a
//! leading underscore, Go capitalised names (not in `package main`), C functions that are
//! not `static`. Entry points are always used: `main`, Rust `#[test]`/`#[bench]`, Rust
//! items whose name starts with `_` (rustc's `dead_code` ignores them),
//! `#[no_mangle]`/`#[export_name]`, anything under `#[cfg(test)]`, trait impl methods,
//! Python `__dunder__` methods, `test_*` functions and functions under a framework
//! decorator (`@app.route`, `@pytest.fixture`: any decorator but the well-known wrappers
//! such as `@property`, `@functools.wraps`, `@contextmanager`), Go
//! `init`/`Test*`/`Benchmark*`/`Example*`/`Fuzz*`. Methods are left out unless
//! `aggressive` (an interface may call them).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::unused::{Unused, UnusedKind, unused_in_file};
use crate::{Dialect, SourceFile, Span};

/// What [`unused_symbols`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadOptions {
    /// Report exported API and methods too.
    pub aggressive: bool,
    /// Report symbols of test files and test modules (their references always count).
    pub include_tests: bool,
    /// Report private (non-exported) symbols.
    pub include_private: bool,
}

impl Default for DeadOptions {
    /// The seed's defaults: not aggressive, no tests, private symbols included.
    fn default() -> Self {
        DeadOptions {
            aggressive: false,
            include_tests: false,
            include_private: true,
        }
    }
}

struct Symbol {
    file: usize,
    name: String,
    span: Span,
    kind: UnusedKind,
    symbol_kind: &'static str,
    exported: bool,
    /// Always used: an entry point.
    entry: bool,
    method: bool,
    test: bool,
}

/// Functions, classes/structs/enums/traits/interfaces/type aliases and constants no file
/// references, in file and source order.
pub fn unused_symbols(files: &[SourceFile], options: &DeadOptions) -> Vec<Unused> {
    let private_modules = rust_private_modules(files);
    let mut symbols: Vec<Symbol> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let mut c = Collect {
            file: f,
            index: i,
            out: &mut symbols,
            test_file: is_test_path(&f.path),
        };
        match f.dialect {
            Dialect::Rust => {
                let private = private_modules
                    .iter()
                    .any(|m| rust_module_name(&f.path) == Some(m.as_str()));
                c.rust(f.root(), !private, false);
            }
            Dialect::Python => c.python(f.root(), false),
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
                c.script(f.root())
            }
            Dialect::Go => c.go(f.root()),
            Dialect::C => c.c(f.root()),
            Dialect::Cpp => {}
        }
    }

    let mut counts: HashMap<&str, usize> = HashMap::new();
    for f in files {
        count_names(f, &mut counts);
    }
    let mut declared: HashMap<&str, usize> = HashMap::new();
    for s in &symbols {
        *declared.entry(s.name.as_str()).or_default() += 1;
    }

    let mut out: Vec<Unused> = Vec::new();
    for s in &symbols {
        let occurrences = counts.get(s.name.as_str()).copied().unwrap_or(0);
        let declarations = declared.get(s.name.as_str()).copied().unwrap_or(0);
        if occurrences > declarations || s.entry {
            continue;
        }
        if (s.exported || s.method) && !options.aggressive {
            continue;
        }
        if s.test && !options.include_tests {
            continue;
        }
        if !s.exported && !options.include_private {
            continue;
        }
        out.push(Unused {
            kind: s.kind,
            file: files[s.file].path.clone(),
            name: s.name.clone(),
            span: s.span,
            symbol_kind: s.symbol_kind,
            statement: None,
            exported: s.exported,
            reason: "no file references this name but its declaration".into(),
        });
    }

    // TypeScript/JavaScript module-private declarations: resolved within their file.
    for f in files {
        if !matches!(
            f.dialect,
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx
        ) {
            continue;
        }
        if is_test_path(&f.path) && !options.include_tests {
            continue;
        }
        if !options.include_private {
            continue;
        }
        out.extend(
            unused_in_file(f)
                .into_iter()
                .filter(|u| matches!(u.kind, UnusedKind::Symbol | UnusedKind::Type)),
        );
    }
    out.sort_by(|a, b| (&a.file, a.span, &a.name).cmp(&(&b.file, b.span, &b.name)));
    out.dedup_by(|a, b| a.file == b.file && a.span == b.span && a.name == b.name);
    out
}

/// A test file by the conventions of each language's test runner.
fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let dirs = &path[..path.len() - file.len()];
    let in_test_dir = dirs.split('/').any(|d| {
        matches!(
            d,
            "tests" | "test" | "__tests__" | "testing" | "benches" | "testdata"
        )
    });
    in_test_dir
        || file.starts_with("test_")
        || file == "conftest.py"
        || file.ends_with("_test.py")
        || file.ends_with("_test.go")
        || file.contains(".test.")
        || file.contains(".spec.")
        || file == "tests.rs"
}

/// The module name a Rust file declares (`src/a/b.rs` and `src/a/b/mod.rs` are `b`);
/// `None` for crate roots.
fn rust_module_name(path: &str) -> Option<&str> {
    let file = path.rsplit('/').next()?;
    let stem = file.strip_suffix(".rs")?;
    if matches!(stem, "lib" | "main" | "build") {
        return None;
    }
    if stem == "mod" {
        let dir = path.strip_suffix("/mod.rs")?;
        return dir.rsplit('/').next();
    }
    Some(stem)
}

/// Names of Rust modules declared `mod name;` without `pub` somewhere, and never with it.
fn rust_private_modules(files: &[SourceFile]) -> Vec<String> {
    let mut private: Vec<String> = Vec::new();
    let mut public: Vec<String> = Vec::new();
    for f in files.iter().filter(|f| f.dialect == Dialect::Rust) {
        let mut stack = vec![f.root()];
        while let Some(n) = stack.pop() {
            if n.kind() == "mod_item"
                && let Some(name) = n.child_by_field_name("name")
            {
                let name = f.text_of(name).to_string();
                let vis = visibility(f, n);
                if vis == Some("pub") {
                    public.push(name);
                } else {
                    private.push(name);
                }
            }
            let mut c = n.walk();
            stack.extend(
                n.named_children(&mut c).filter(|c| {
                    matches!(c.kind(), "mod_item" | "declaration_list" | "source_file")
                }),
            );
        }
    }
    private.retain(|p| !public.contains(p));
    private
}

fn visibility<'f>(f: &'f SourceFile, n: Node<'_>) -> Option<&'f str> {
    let mut c = n.walk();

    n.named_children(&mut c)
        .find(|c| c.kind() == "visibility_modifier")
        .map(|v| f.text_of(v))
}

/// Attributes written before an item (its preceding `attribute_item` siblings).
fn attributes<'f>(f: &'f SourceFile, n: Node<'_>) -> Vec<&'f str> {
    let mut out = Vec::new();
    let mut prev = n.prev_named_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "attribute_item" => out.push(f.text_of(p)),
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        prev = p.prev_named_sibling();
    }
    out
}

/// Counts every identifier token, and every string literal that is a name or a dotted
/// path, by name.
fn count_names<'f>(f: &'f SourceFile, counts: &mut HashMap<&'f str, usize>) {
    let mut stack = vec![f.root()];
    while let Some(n) = stack.pop() {
        let k = n.kind();
        if k.contains("comment") {
            continue;
        }
        if k.contains("string") && !k.contains("content") && !k.contains("fragment") {
            let t = f.text_of(n).trim_matches(|c| matches!(c, '"' | '\'' | '`'));
            let t = t.trim_start_matches(['b', 'r', 'f', 'u']);
            let t = t.trim_matches(|c| matches!(c, '"' | '\'' | '`' | '#'));
            if !t.is_empty() && t.len() < 200 && t.split(['.', ':']).all(is_name) {
                for part in t.split(['.', ':']).filter(|p| !p.is_empty()) {
                    *counts.entry(part).or_default() += 1;
                }
            }
            // Rust's inline format arguments: `format!("{PRINTED}…")` reads `PRINTED`.
            if f.dialect == Dialect::Rust {
                let text = f.text_of(n);
                for (i, _) in text.match_indices('{') {
                    let rest = &text[i + 1..];
                    let end = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    let name = &rest[..end];
                    if !name.is_empty() && is_name(name) {
                        *counts.entry(name).or_default() += 1;
                    }
                }
            }
            if k != "template_string" && !k.contains("interpolat") {
                // Keep walking f-strings and template strings: they hold expressions.
                let mut c = n.walk();
                let inner: Vec<Node<'_>> = n
                    .named_children(&mut c)
                    .filter(|c| matches!(c.kind(), "interpolation" | "template_substitution"))
                    .collect();
                stack.extend(inner);
                continue;
            }
        }
        if n.child_count() == 0 {
            if k.contains("identifier") || k == "identifier" {
                *counts.entry(f.text_of(n)).or_default() += 1;
            }
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
}

fn is_name(s: &str) -> bool {
    s.is_empty()
        || (s
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

struct Collect<'a, 'f> {
    file: &'f SourceFile,
    index: usize,
    out: &'a mut Vec<Symbol>,
    test_file: bool,
}

impl Collect<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        name: Node<'_>,
        kind: UnusedKind,
        symbol_kind: &'static str,
        exported: bool,
        entry: bool,
        method: bool,
        test: bool,
    ) {
        let text = self.file.text_of(name);
        if text.is_empty() || text == "_" {
            return;
        }
        self.out.push(Symbol {
            file: self.index,
            name: text.to_string(),
            span: self.file.span(name),
            kind,
            symbol_kind,
            exported,
            entry,
            method,
            test: test || self.test_file,
        });
    }

    /// Rust items of a file or inline module; `public`: the module is reachable from
    /// outside the crate.
    fn rust(&mut self, n: Node<'_>, public: bool, test: bool) {
        let mut c = n.walk();
        let items: Vec<Node<'_>> = n.named_children(&mut c).collect();
        for item in items {
            let attrs = attributes(self.file, item);
            let has = |a: &str| attrs.iter().any(|x| x.contains(a));
            // `#[test]`, `#[tokio::test(…)]`, `#[bench]`, `#[rstest]`, `#[test_case(…)]`.
            let test_attr = attrs.iter().any(|a| {
                let path = a
                    .trim_start_matches("#[")
                    .split(['(', ']'])
                    .next()
                    .unwrap_or("");
                let last = path.trim().rsplit("::").next().unwrap_or("");
                matches!(
                    last,
                    "test" | "bench" | "rstest" | "test_case" | "quickcheck"
                )
            });
            let test = test || has("cfg(test)") || test_attr;
            let exported = public && visibility(self.file, item) == Some("pub");
            let entry = has("no_mangle") || has("export_name") || test_attr || has("::main");
            let Some(name) = item.child_by_field_name("name") else {
                if item.kind() == "impl_item" {
                    self.rust_impl(item, public, test);
                }
                continue;
            };
            let (kind, symbol_kind) = match item.kind() {
                "function_item" => (UnusedKind::Symbol, "function"),
                "struct_item" => (UnusedKind::Type, "struct"),
                "union_item" => (UnusedKind::Type, "struct"),
                "enum_item" => (UnusedKind::Type, "enum"),
                "trait_item" => (UnusedKind::Type, "interface"),
                "type_item" => (UnusedKind::Type, "type_parameter"),
                "const_item" => (UnusedKind::Symbol, "constant"),
                "static_item" => (UnusedKind::Symbol, "variable"),
                "mod_item" => {
                    if let Some(body) = item.child_by_field_name("body") {
                        self.rust(body, exported, test);
                    }
                    continue;
                }
                _ => continue,
            };
            // rustc's `dead_code` leaves `_`-prefixed items alone.
            let underscore = self.file.text_of(name).starts_with('_');
            // `fn main` of a binary, an example or a bench without the harness.
            let main =
                underscore || item.kind() == "function_item" && self.file.text_of(name) == "main";
            self.push(
                name,
                kind,
                symbol_kind,
                exported,
                entry || main,
                false,
                test,
            );
        }
    }

    fn rust_impl(&mut self, item: Node<'_>, public: bool, test: bool) {
        // Trait impl methods are called through the trait: always used.
        if item.child_by_field_name("trait").is_some() {
            return;
        }
        let Some(body) = item.child_by_field_name("body") else {
            return;
        };
        let mut c = body.walk();
        let fns: Vec<Node<'_>> = body
            .named_children(&mut c)
            .filter(|f| f.kind() == "function_item")
            .collect();
        for f in fns {
            if let Some(name) = f.child_by_field_name("name") {
                let exported = public && visibility(self.file, f) == Some("pub");
                self.push(
                    name,
                    UnusedKind::Symbol,
                    "method",
                    exported,
                    false,
                    true,
                    test,
                );
            }
        }
    }

    fn python(&mut self, n: Node<'_>, in_class: bool) {
        let mut c = n.walk();
        let stmts: Vec<Node<'_>> = n.named_children(&mut c).collect();
        for s in stmts {
            let (def, decorators) = if s.kind() == "decorated_definition" {
                let mut c = s.walk();
                let decos: Vec<String> = s
                    .named_children(&mut c)
                    .filter(|d| d.kind() == "decorator")
                    .map(|d| self.file.text_of(d).to_string())
                    .collect();
                (s.child_by_field_name("definition"), decos)
            } else {
                (Some(s), Vec::new())
            };
            let Some(def) = def else { continue };
            // A decorator may register or call what it decorates (`@app.route(…)`,
            // `@pytest.fixture`, `@_call_aside`); only the well-known ones that merely wrap
            // leave the function to be called by name.
            let framework = decorators.iter().any(|d| {
                let d = d.trim_start_matches('@').trim();
                let head = d.split('(').next().unwrap_or(d);
                let last = head.rsplit('.').next().unwrap_or(head);
                !matches!(
                    last,
                    "staticmethod"
                        | "classmethod"
                        | "property"
                        | "cached_property"
                        | "wraps"
                        | "lru_cache"
                        | "cache"
                        | "abstractmethod"
                        | "override"
                        | "final"
                        | "deprecated"
                        | "contextmanager"
                        | "asynccontextmanager"
                        | "setter"
                        | "getter"
                        | "deleter"
                        | "total_ordering"
                        | "dataclass"
                )
            });
            let setter = decorators.iter().any(|d| {
                d.ends_with(".setter") || d.ends_with(".deleter") || d.contains("overload")
            });
            match def.kind() {
                "function_definition" => {
                    let Some(name) = def.child_by_field_name("name") else {
                        continue;
                    };
                    let text = self.file.text_of(name);
                    let dunder = text.starts_with("__") && text.ends_with("__");
                    let entry = framework
                        || setter
                        || dunder
                        || text.starts_with("test")
                        || text == "main"
                        || text == "setUp"
                        || text == "tearDown";
                    let exported = !text.starts_with('_');
                    let sk = if in_class { "method" } else { "function" };
                    self.push(
                        name,
                        UnusedKind::Symbol,
                        sk,
                        exported,
                        entry,
                        in_class,
                        false,
                    );
                }
                "class_definition" if !in_class => {
                    let Some(name) = def.child_by_field_name("name") else {
                        continue;
                    };
                    let text = self.file.text_of(name);
                    let exported = !text.starts_with('_');
                    let entry = framework || text.starts_with("Test");
                    self.push(
                        name,
                        UnusedKind::Type,
                        "class",
                        exported,
                        entry,
                        false,
                        false,
                    );
                    if let Some(body) = def.child_by_field_name("body") {
                        self.python(body, true);
                    }
                }
                "expression_statement" if !in_class => {
                    let Some(a) = def.named_child(0) else {
                        continue;
                    };
                    if a.kind() != "assignment" {
                        continue;
                    }
                    let Some(left) = a.child_by_field_name("left") else {
                        continue;
                    };
                    if left.kind() != "identifier" {
                        continue;
                    }
                    let text = self.file.text_of(left);
                    let constant = text
                        .chars()
                        .all(|c| c.is_uppercase() || c == '_' || c.is_ascii_digit());
                    if !constant || (text.starts_with("__") && text.ends_with("__")) {
                        continue;
                    }
                    let exported = !text.starts_with('_');
                    self.push(
                        left,
                        UnusedKind::Symbol,
                        "constant",
                        exported,
                        false,
                        false,
                        false,
                    );
                }
                _ => {}
            }
        }
    }

    /// Exported top-level declarations, and every top-level declaration of a script (no
    /// import or export: its names are globals other scripts may read). Module-private
    /// ones are left to the file's own scope resolution.
    fn script(&mut self, root: Node<'_>) {
        let module = crate::unused::is_script_module(self.file);
        let mut c = root.walk();
        let stmts: Vec<Node<'_>> = root.named_children(&mut c).collect();
        for s in stmts {
            let (decl, exported) = if s.kind() == "export_statement" {
                (s.child_by_field_name("declaration"), true)
            } else {
                (Some(s), false)
            };
            let Some(decl) = decl else { continue };
            if module && !exported {
                continue;
            }
            let (kind, sk) = match decl.kind() {
                "function_declaration" | "generator_function_declaration" => {
                    (UnusedKind::Symbol, "function")
                }
                "class_declaration" | "abstract_class_declaration" => (UnusedKind::Type, "class"),
                "interface_declaration" => (UnusedKind::Type, "interface"),
                "type_alias_declaration" => (UnusedKind::Type, "type_parameter"),
                "enum_declaration" => (UnusedKind::Type, "enum"),
                "lexical_declaration" | "variable_declaration" => {
                    let mut c = decl.walk();
                    let declarators: Vec<Node<'_>> = decl
                        .named_children(&mut c)
                        .filter(|d| d.kind() == "variable_declarator")
                        .collect();
                    for d in declarators {
                        if let Some(name) = d
                            .child_by_field_name("name")
                            .filter(|n| n.kind() == "identifier")
                        {
                            let constant = self.file.text_of(decl).starts_with("const");
                            self.push(
                                name,
                                UnusedKind::Symbol,
                                if constant { "constant" } else { "variable" },
                                exported,
                                false,
                                false,
                                false,
                            );
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            if let Some(name) = decl.child_by_field_name("name") {
                self.push(name, kind, sk, exported, false, false, false);
            }
        }
    }

    fn go(&mut self, root: Node<'_>) {
        let main_package = {
            let mut c = root.walk();
            let pkg = root
                .named_children(&mut c)
                .find(|n| n.kind() == "package_clause");
            pkg.is_some_and(|p| self.file.text_of(p).split_whitespace().nth(1) == Some("main"))
        };
        let exported_name =
            |t: &str| !main_package && t.chars().next().is_some_and(|c| c.is_uppercase());
        let mut c = root.walk();
        let decls: Vec<Node<'_>> = root.named_children(&mut c).collect();
        for d in decls {
            match d.kind() {
                "function_declaration" | "method_declaration" => {
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    let t = self.file.text_of(name);
                    let method = d.kind() == "method_declaration";
                    let entry = !method
                        && (t == "main"
                            || t == "init"
                            || ["Test", "Benchmark", "Example", "Fuzz"]
                                .iter()
                                .any(|p| t.starts_with(p)));
                    let exported = exported_name(t);
                    let sk = if method { "method" } else { "function" };
                    self.push(name, UnusedKind::Symbol, sk, exported, entry, method, false);
                }
                "type_declaration" | "const_declaration" | "var_declaration" => {
                    let mut stack = vec![d];
                    while let Some(n) = stack.pop() {
                        let mut c = n.walk();
                        match n.kind() {
                            "type_spec" | "type_alias" => {
                                let Some(name) = n.child_by_field_name("name") else {
                                    continue;
                                };
                                let sk = match n.child_by_field_name("type").map(|t| t.kind()) {
                                    Some("struct_type") => "struct",
                                    Some("interface_type") => "interface",
                                    _ => "type_parameter",
                                };
                                let t = self.file.text_of(name);
                                self.push(
                                    name,
                                    UnusedKind::Type,
                                    sk,
                                    exported_name(t),
                                    false,
                                    false,
                                    false,
                                );
                            }
                            "const_spec" | "var_spec" => {
                                let names: Vec<Node<'_>> =
                                    n.children_by_field_name("name", &mut c).collect();
                                for name in names {
                                    let t = self.file.text_of(name);
                                    let sk = if n.kind() == "const_spec" {
                                        "constant"
                                    } else {
                                        "variable"
                                    };
                                    self.push(
                                        name,
                                        UnusedKind::Symbol,
                                        sk,
                                        exported_name(t),
                                        false,
                                        false,
                                        false,
                                    );
                                }
                            }
                            _ => stack.extend(n.named_children(&mut c)),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn c(&mut self, root: Node<'_>) {
        let mut c = root.walk();
        let defs: Vec<Node<'_>> = root
            .named_children(&mut c)
            .filter(|n| n.kind() == "function_definition")
            .collect();
        for d in defs {
            let is_static = {
                let mut c = d.walk();

                d.named_children(&mut c).any(|s| {
                    s.kind() == "storage_class_specifier" && self.file.text_of(s) == "static"
                })
            };
            let mut decl = d.child_by_field_name("declarator");
            while let Some(x) = decl {
                if x.kind() == "identifier" {
                    break;
                }
                decl = x.child_by_field_name("declarator");
            }
            let Some(name) = decl else { continue };
            let entry = self.file.text_of(name) == "main";
            self.push(
                name,
                UnusedKind::Symbol,
                "function",
                !is_static,
                entry,
                false,
                false,
            );
        }
    }
}
