//! Unused imports, variables and parameters of one file, and unreachable statements, as the
//! language's own compiler or linter reports them: ruff F401/F841 (and ARG for parameters),
//! `tsc --noUnusedLocals --noUnusedParameters`, rustc's `unused_imports`/`unused_variables`,
//! the Go compiler's "imported and not used" / "declared and not used", and gcc's
//! `-Wunused-variable`/`-Wunused-but-set-variable` for C (C++ has no grammar here).
//!
//! Each file's syntax tree is walked once into scopes, declarations and references; each
//! reference is then resolved to the innermost scope that declares its name (shadowing,
//! closures reading an outer name, hoisting where the language hoists). A declaration no
//! reference resolves to is unused. No types are known: a Rust trait imported only for its
//! methods cannot be told from an unused import, so well-known traits and `…Ext` traits are
//! taken as used. [`unused_in_files`] adds what only all the files tell: the traits they
//! declare, and the imports a child module takes from its parent (`use super::*;`). Code
//! under a Rust `#[cfg(…)]`, a Go build constraint or a C `#if` is read as if compiled: its
//! declarations under `#[cfg]` are not reported, its reads always count. Suppressions the
//! reference tool honours are honoured (`# noqa`, `// @ts-ignore`); Rust's `#[allow]` is
//! not, as the comparison runs rustc with `--force-warn`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tree_sitter::Node;

use crate::{Dialect, SourceFile, Span};

/// What is unused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnusedKind {
    Import,
    Variable,
    Parameter,
    /// A function, constant or (class) member no one references.
    Symbol,
    /// A class, struct, enum, trait, interface or type alias no one references.
    Type,
    /// Statements after a `return`, `throw`, `raise`, `break`, `continue`, `panic!()` or
    /// `os.Exit` of the same block.
    Unreachable,
}

/// One unused thing.
#[derive(Debug, Clone, PartialEq)]
pub struct Unused {
    pub kind: UnusedKind,
    pub file: String,
    /// The name as declared (for `import a.b`, `a.b`); for [`UnusedKind::Unreachable`] the
    /// first line of the first unreachable statement.
    pub name: String,
    /// Of the name (of an import: the imported path or alias clause, where the compiler
    /// points); for [`UnusedKind::Unreachable`] the unreachable statements.
    pub span: Span,
    /// LSP symbol-kind name in lowercase: `function`, `method`, `class`, `struct`, `enum`,
    /// `interface`, `type_parameter` (type aliases too), `constant`, `variable`, `property`,
    /// `module` (an import binding a module), `statement` (unreachable code).
    pub symbol_kind: &'static str,
    /// For an import the whole import statement (a caller deleting it can tell whether other
    /// names go with it); for a variable its whole declaration.
    pub statement: Option<Span>,
    /// Visible outside its file (exported, `pub`, capitalised in Go).
    pub exported: bool,
    /// One short sentence: why it is unused.
    pub reason: String,
}

/// Unused imports, variables, parameters (and, for TypeScript/JavaScript, the function-local
/// or module-private functions, classes, types and private members tsc reports) and
/// unreachable statements of one file, in source order. Suppressions the reference tool
/// honours are honoured (`# noqa`, `// @ts-ignore`).
pub fn unused_in_file(file: &SourceFile) -> Vec<Unused> {
    // The walks recurse along the tree; a deep tree (a long `a + b + …` chain) needs a
    // deep stack, which a thread of our own has whatever the caller's is.
    let walked = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(WALK_STACK)
            .spawn_scoped(s, || by_language(file, MAX_DEPTH))
            .ok()
            .and_then(|h| h.join().ok())
    });
    let mut out = walked.unwrap_or_else(|| by_language(file, SHALLOW_DEPTH));
    // Comment lines that may silence the whole file (`# ruff: noqa`), read once.
    let file_wide: Vec<&str> = (0..file.line_count())
        .map(|l| file.line(l))
        .filter(|l| {
            let t = l.trim_start();
            (t.starts_with('#') || t.starts_with("//"))
                && (t.contains("noqa") || t.contains("@ts-nocheck"))
        })
        .collect();
    out.retain(|u| !suppressed(file, &file_wide, u));
    out.extend(unreachable(file));
    out.sort_by(|a, b| (a.span, a.kind, &a.name).cmp(&(b.span, b.kind, &b.name)));
    out.dedup();
    out
}

/// [`unused_in_file`] for each file, in file order, with what only all the files together
/// tell: a Rust import of a trait one of the files declares is taken as used (its methods
/// may be called, which no syntax tree shows), as [`unused_in_file`] does for the standard
/// library's traits; and a Rust import a child module file takes (`use super::*;`,
/// `super::Name`) is used.
pub fn unused_in_files(files: &[SourceFile]) -> Vec<Unused> {
    let mut traits: BTreeSet<&str> = BTreeSet::new();
    for f in files.iter().filter(|f| f.dialect == Dialect::Rust) {
        let mut stack = vec![f.root()];
        while let Some(n) = stack.pop() {
            if n.kind() == "trait_item" {
                if let Some(name) = field(n, "name") {
                    traits.insert(f.text_of(name));
                }
                continue;
            }
            if matches!(n.kind(), "source_file" | "mod_item" | "declaration_list") {
                stack.extend(named(n));
            }
        }
    }
    // What child module files take from their parent: everything (`use super::*;`) or
    // names (`super::Name`, `use super::{A, B}`), by the parent's directory.
    let mut glob_parents: BTreeSet<String> = BTreeSet::new();
    let mut from_parent: BTreeSet<(String, &str)> = BTreeSet::new();
    for f in files.iter().filter(|f| f.dialect == Dialect::Rust) {
        let Some(dir) = rust_parent_dir(&f.path) else {
            continue;
        };
        // Inside an inline `mod tests { use super::*; }`, `super` is this file's module.
        let mut inline_mods: Vec<std::ops::Range<usize>> = Vec::new();
        let mut stack = vec![f.root()];
        while let Some(n) = stack.pop() {
            if n.kind() == "mod_item" && field(n, "body").is_some() {
                inline_mods.push(n.byte_range());
                continue;
            }
            stack.extend(named(n));
        }
        for (i, _) in f.text.match_indices("super::") {
            if inline_mods.iter().any(|r| r.contains(&i)) {
                continue;
            }
            let rest = &f.text[i + "super::".len()..];
            if rest.starts_with('*') {
                glob_parents.insert(dir.clone());
            }
            let names = if let Some(list) = rest.strip_prefix('{') {
                &list[..list.find('}').unwrap_or(list.len())]
            } else {
                &rest[..rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len())]
            };
            for name in words(names) {
                from_parent.insert((dir.clone(), name));
            }
        }
    }
    let mut out = Vec::new();
    for f in files {
        let dir = rust_module_dir(&f.path);
        out.extend(unused_in_file(f).into_iter().filter(|u| {
            if f.dialect != Dialect::Rust || u.kind != UnusedKind::Import {
                return true;
            }
            // `a::b::Trait`, `Trait`, `a::Trait as Alias`: the imported item's name, and
            // the name it binds.
            let item = u.name.split(" as ").next().unwrap_or("");
            let item = item.rsplit("::").next().unwrap_or(item);
            let bound = u.name.rsplit(" as ").next().unwrap_or(item);
            let bound = bound.rsplit("::").next().unwrap_or(bound);
            let by_child = dir.as_ref().is_some_and(|d| {
                glob_parents.contains(d) || from_parent.contains(&(d.clone(), bound))
            });
            !traits.contains(item) && !by_child
        }));
    }
    out
}

/// The directory of a Rust file's parent module's children: `src/a/b.rs` and
/// `src/a/b/mod.rs` are children of the module whose children live in `src/a`.
fn rust_parent_dir(path: &str) -> Option<String> {
    let (dir, file) = path.rsplit_once('/')?;
    if matches!(file, "lib.rs" | "main.rs") {
        return None;
    }
    if file == "mod.rs" {
        return Some(dir.rsplit_once('/').map_or("", |(d, _)| d).to_string());
    }
    Some(dir.to_string())
}

/// The directory where a Rust file's child modules live: `src/a.rs`, `src/a/mod.rs` →
/// `src/a`; `src/lib.rs`, `tests/it/main.rs` → their own directory.
fn rust_module_dir(path: &str) -> Option<String> {
    if !path.ends_with(".rs") {
        return None;
    }
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    if matches!(file, "lib.rs" | "main.rs" | "mod.rs") {
        return Some(dir.to_string());
    }
    let stem = file.strip_suffix(".rs")?;
    Some(if dir.is_empty() {
        stem.to_string()
    } else {
        format!("{dir}/{stem}")
    })
}

/// A finding the file tells its reference tool to keep quiet about: ruff's `# noqa`
/// (bare, or naming the rule) on the line or on the first or last line of the statement,
/// and file-wide `# ruff: noqa` / `# flake8: noqa`; tsc's `// @ts-ignore` or
/// `// @ts-expect-error` on the line before, and `// @ts-nocheck`.
fn suppressed(file: &SourceFile, file_wide: &[&str], u: &Unused) -> bool {
    match file.dialect {
        Dialect::Python => {
            let names_rule = |c: &str| match u.kind {
                UnusedKind::Import => c == "F401",
                UnusedKind::Variable => c == "F841",
                _ => c.starts_with("ARG"),
            };
            let says = |comment: &str, file_wide: bool| {
                let lower = comment.to_ascii_lowercase();
                let marker = if file_wide {
                    ["# ruff: noqa", "# flake8: noqa"]
                        .iter()
                        .find_map(|m| lower.find(m).map(|i| i + m.len()))
                } else {
                    lower.find("# noqa").map(|i| i + "# noqa".len())
                };
                let Some(end) = marker else { return false };
                match comment[end..].trim_start().strip_prefix(':') {
                    Some(codes) => codes
                        .split(|c: char| c == ',' || c.is_whitespace())
                        .take_while(|c| !c.starts_with('#'))
                        .any(|c| names_rule(c.trim())),
                    None => true,
                }
            };
            let mut lines = vec![u.span.start.line];
            if let Some(st) = u.statement {
                lines.extend([st.start.line, st.end.line]);
            }
            lines.iter().any(|l| says(file.line(*l), false))
                || file_wide.iter().any(|line| says(line, true))
        }
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            let above = u
                .span
                .start
                .line
                .checked_sub(1)
                .map(|l| file.line(l))
                .unwrap_or("");
            above.contains("@ts-ignore")
                || above.contains("@ts-expect-error")
                || file
                    .text
                    .lines()
                    .take_while(|l| {
                        l.trim().is_empty()
                            || l.trim_start().starts_with("//")
                            || l.trim_start().starts_with("/*")
                            || l.trim_start().starts_with('*')
                    })
                    .any(|l| l.contains("@ts-nocheck"))
        }
        _ => false,
    }
}

/// The stack of the thread that walks a file, and the nesting it walks structurally; below
/// that a subtree's names are only read (a declaration there is not reported, a read there
/// still counts). [`SHALLOW_DEPTH`] where no thread can be had.
const WALK_STACK: usize = 256 << 20;
const MAX_DEPTH: u32 = 5_000;
const SHALLOW_DEPTH: u32 = 60;

fn by_language(file: &SourceFile, max_depth: u32) -> Vec<Unused> {
    match file.dialect {
        Dialect::Python => python::run(file, max_depth),
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            if file.path.ends_with(".d.ts")
                || file.path.ends_with(".d.mts")
                || file.path.ends_with(".d.cts")
            {
                Vec::new()
            } else {
                script::run(file, max_depth)
            }
        }
        Dialect::Rust => rust::run(file, max_depth),
        Dialect::Go => go::run(file, max_depth),
        Dialect::C => c::run(file, max_depth),
        Dialect::Cpp => Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------
// The scope engine every language's walk feeds.

#[derive(Default)]
struct Scope {
    parent: Option<usize>,
    /// A Python class body: not visible from the functions nested in it.
    class_body: bool,
    /// A Python `except … as e:` handler: holds only `e`; other names bind outside it.
    handler: bool,
    /// A function body (Python: where F841 applies).
    function: bool,
    /// Python `global`/`nonlocal` names: bindings here belong to another scope.
    globals: BTreeSet<String>,
    /// Python: the scope calls `locals()`, which reads every local.
    uses_locals: bool,
}

struct Decl {
    key: String,
    name: String,
    span: Span,
    start: usize,
    kind: UnusedKind,
    symbol_kind: &'static str,
    statement: Option<Span>,
    scope: usize,
    /// References in the declaring scope before this byte do not see it (Rust `let`, Go
    /// `:=`); 0 for hoisted names.
    visible_from: usize,
    report: bool,
    exported: bool,
    used: bool,
    reason: &'static str,
}

struct Ref {
    key: String,
    scope: usize,
    at: usize,
    /// A path or type position (Rust `hir::Capture`, a TypeScript type): local variables
    /// and parameters, which live in the value namespace, do not shadow it.
    items_only: bool,
}

struct Engine<'f> {
    file: &'f SourceFile,
    scopes: Vec<Scope>,
    decls: Vec<Decl>,
    refs: Vec<Ref>,
    current: usize,
    /// Python: a name is one variable per scope (ruff gives a rebinding the references of
    /// the binding it shadows, and reports the last binding).
    name_level: bool,
    /// How deep the walk is, and how deep it may go before it only reads names.
    depth: u32,
    max_depth: u32,
    /// `(scope, name)` of every declaration, for "is it declared here" in constant time.
    declared: std::collections::HashSet<(usize, String)>,
}

impl<'f> Engine<'f> {
    fn new(file: &'f SourceFile, name_level: bool, max_depth: u32) -> Self {
        Engine {
            file,
            depth: 0,
            max_depth,
            declared: std::collections::HashSet::new(),
            scopes: vec![Scope::default()],
            decls: Vec::new(),
            refs: Vec::new(),
            current: 0,
            name_level,
        }
    }

    fn push(&mut self, scope: Scope) -> usize {
        let parent = self.current;
        self.scopes.push(Scope {
            parent: Some(parent),
            ..scope
        });
        self.current = self.scopes.len() - 1;
        parent
    }

    fn pop(&mut self, to: usize) {
        self.current = to;
    }

    /// Every name under `node` as a read, without recursion (a subtree too deep to walk).
    fn flat(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.child_count() == 0 {
                let k = n.kind();
                if k.contains("identifier") || k == "primitive_type" {
                    let t = self.text(n);
                    self.reference(t, n.start_byte());
                }
                continue;
            }
            stack.extend(all(n));
        }
    }

    fn text(&self, node: Node<'_>) -> &'f str {
        self.file.text_of(node)
    }

    fn reference(&mut self, key: &str, at: usize) {
        if key.is_empty() {
            return;
        }
        self.refs.push(Ref {
            key: key.to_string(),
            scope: self.current,
            at,
            items_only: false,
        });
    }

    /// A reference in a path or type position, which no local variable shadows.
    fn reference_item(&mut self, key: &str, at: usize) {
        self.reference(key, at);
        if let Some(r) = self.refs.last_mut() {
            r.items_only = true;
        }
    }

    /// Whether `key` is declared in the current scope (Go `:=` redeclaration).
    fn declared_here(&self, key: &str) -> bool {
        self.declared.contains(&(self.current, key.to_string()))
    }

    #[allow(clippy::too_many_arguments)]
    fn declare(
        &mut self,
        key: &str,
        name_node: Node<'_>,
        kind: UnusedKind,
        symbol_kind: &'static str,
        statement: Option<Node<'_>>,
        visible_from: usize,
        report: bool,
        reason: &'static str,
    ) -> usize {
        let mut scope = self.current;
        // Python: a handler holds only its `as e` (rebinding `e` there rebinds it).
        while self.scopes[scope].handler && !self.declared.contains(&(scope, key.to_string())) {
            scope = self.scopes[scope].parent.unwrap_or(0);
        }
        self.declare_in(
            scope,
            key,
            name_node,
            kind,
            symbol_kind,
            statement,
            visible_from,
            report,
            reason,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn declare_in(
        &mut self,
        scope: usize,
        key: &str,
        name_node: Node<'_>,
        kind: UnusedKind,
        symbol_kind: &'static str,
        statement: Option<Node<'_>>,
        visible_from: usize,
        report: bool,
        reason: &'static str,
    ) -> usize {
        self.declared.insert((scope, key.to_string()));
        self.decls.push(Decl {
            key: key.to_string(),
            name: self.text(name_node).to_string(),
            span: self.file.span(name_node),
            start: name_node.start_byte(),
            kind,
            symbol_kind,
            statement: statement.map(|s| self.file.span(s)),
            scope,
            visible_from,
            report,
            exported: false,
            used: false,
            reason,
        });
        self.decls.len() - 1
    }

    fn resolve(&mut self) {
        let mut index: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
        for (i, d) in self.decls.iter().enumerate() {
            index.entry((d.scope, d.key.as_str())).or_default().push(i);
        }
        let mut used: Vec<usize> = Vec::new();
        for r in &self.refs {
            let mut s = r.scope;
            let mut own = true;
            loop {
                let scope = &self.scopes[s];
                let skip = (!own && scope.class_body) || scope.globals.contains(&r.key);
                if !skip && let Some(ids) = index.get(&(s, r.key.as_str())) {
                    // Python reads a nested function's names when it runs, after the
                    // enclosing body; elsewhere a name is seen only after it is declared.
                    let visible = |i: &&usize| {
                        let d = &self.decls[**i];
                        ((own || !self.name_level) && d.visible_from > r.at)
                            || (r.items_only
                                && matches!(d.kind, UnusedKind::Variable | UnusedKind::Parameter))
                    };
                    if self.name_level {
                        if ids.iter().any(|i| !visible(&i)) {
                            used.extend(ids.iter().copied());
                            break;
                        }
                    } else if let Some(&hit) = ids
                        .iter()
                        .filter(|i| !visible(i))
                        .max_by_key(|i| self.decls[**i].visible_from)
                    {
                        used.push(hit);
                        break;
                    }
                }
                match scope.parent {
                    Some(p) => {
                        s = p;
                        own = false;
                    }
                    None => break,
                }
            }
        }
        for i in used {
            self.decls[i].used = true;
        }
    }

    fn finish(mut self) -> Vec<Unused> {
        self.resolve();
        let mut reported: Vec<&Decl> = Vec::new();
        if self.name_level {
            let mut last: BTreeMap<(usize, &str), &Decl> = BTreeMap::new();
            for d in &self.decls {
                let e = last.entry((d.scope, d.key.as_str())).or_insert(d);
                if d.start >= e.start {
                    *e = d;
                }
            }
            for d in last.into_values() {
                let scope = &self.scopes[d.scope];
                let locals_read = scope.uses_locals && d.kind == UnusedKind::Variable;
                if d.report && !d.used && !locals_read && !scope.globals.contains(&d.key) {
                    reported.push(d);
                }
            }
        } else {
            reported.extend(self.decls.iter().filter(|d| d.report && !d.used));
        }
        reported
            .into_iter()
            .map(|d| Unused {
                kind: d.kind,
                file: self.file.path.clone(),
                name: d.name.clone(),
                span: d.span,
                symbol_kind: d.symbol_kind,
                statement: d.statement,
                exported: d.exported,
                reason: d.reason.to_string(),
            })
            .collect()
    }
}

const IMPORTED: &str = "imported but never used";
const ASSIGNED: &str = "assigned but never read";
const PARAM: &str = "a parameter the body never reads";
const EXCEPT_ALIAS: &str = "the caught exception is bound but never read";
const LOCAL_DECL: &str = "declared in this file, not exported and never used";
const PRIVATE_MEMBER: &str = "a private member no code of its file reads";

/// Whether tsc reads a TypeScript/JavaScript file as a module rather than a script.
pub(crate) fn is_script_module(file: &SourceFile) -> bool {
    script::is_module(file)
}

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

fn named<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.named_children(&mut c).collect()
}

fn all<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut c = node.walk();
    node.children(&mut c).collect()
}

fn is_comment(node: Node<'_>) -> bool {
    node.kind().contains("comment")
}

/// Identifier-like words of a text (for names read from strings: Python `__all__` entries,
/// quoted annotations).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
}

// ---------------------------------------------------------------------------------------
// Python: ruff F401 (unused import), F841 (unused local variable), ARG (unused argument).

mod python {
    use super::*;

    pub(super) fn run(file: &SourceFile, max_depth: u32) -> Vec<Unused> {
        let mut w = Walk {
            e: Engine::new(file, true, max_depth),
            modules: Vec::new(),
        };
        w.block(file.root());
        // `import a.b` beside `import a as x`: ruff resolves `x.b` to the submodule
        // import, so it is used when the alias is.
        w.e.resolve();
        for (i, module, dotted) in &w.modules {
            if !dotted {
                continue;
            }
            let root = module.split('.').next().unwrap_or("");
            let scope = w.e.decls[*i].scope;
            let alias_used = w.modules.iter().any(|(j, m, d)| {
                let alias = &w.e.decls[*j];
                !d && alias.scope == scope
                    && (m == root || m.starts_with(&format!("{root}.")))
                    && alias.used
            });
            if alias_used {
                w.e.decls[*i].used = true;
            }
        }
        w.e.finish()
    }

    struct Walk<'f> {
        e: Engine<'f>,
        /// Module imports: the declaration, the module, whether it is `import a.b` (no
        /// alias, binding `a`) rather than `import a.b as x`.
        modules: Vec<(usize, String, bool)>,
    }

    fn is_stub(body: Node<'_>, file: &SourceFile) -> bool {
        let stmts: Vec<Node<'_>> = named(body)
            .into_iter()
            .filter(|n| !is_comment(*n))
            .collect();
        stmts.iter().all(|s| {
            let t = file.text_of(*s).trim();
            match s.kind() {
                "pass_statement" => true,
                "expression_statement" => {
                    t == "..." || t.starts_with('"') || t.starts_with('\'') || t.starts_with("r\"")
                }
                "raise_statement" => t.contains("NotImplementedError"),
                _ => false,
            }
        })
    }

    impl Walk<'_> {
        fn block(&mut self, node: Node<'_>) {
            for c in all(node) {
                self.node(c);
            }
        }

        fn node(&mut self, n: Node<'_>) {
            if self.e.depth >= self.e.max_depth {
                self.e.flat(n);
                return;
            }
            self.e.depth += 1;
            self.node_inner(n);
            self.e.depth -= 1;
        }

        fn node_inner(&mut self, n: Node<'_>) {
            match n.kind() {
                "identifier" => {
                    let t = self.e.text(n);
                    self.e.reference(t, n.start_byte());
                }
                "comment" => {}
                "decorated_definition" => {
                    let decorators: Vec<String> = named(n)
                        .into_iter()
                        .filter(|c| c.kind() == "decorator")
                        .map(|c| self.e.text(c).to_string())
                        .collect();
                    for c in all(n) {
                        if c.kind() == "function_definition" {
                            self.function(c, &decorators);
                        } else {
                            self.node(c);
                        }
                    }
                }
                "function_definition" => self.function(n, &[]),
                "lambda" => self.lambda(n),
                "class_definition" => {
                    if let Some(name) = field(n, "name") {
                        let key = self.e.text(name);
                        // Python binds a class or function where its statement runs.
                        let at = name.start_byte();
                        self.e
                            .declare(key, name, UnusedKind::Type, "class", None, at, false, "");
                    }
                    for f in ["type_parameters", "superclasses"] {
                        if let Some(c) = field(n, f) {
                            self.node(c);
                        }
                    }
                    if let Some(body) = field(n, "body") {
                        let up = self.e.push(Scope {
                            class_body: true,
                            ..Scope::default()
                        });
                        self.block(body);
                        self.e.pop(up);
                    }
                }
                "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression" => {
                    let up = self.e.push(Scope::default());
                    let parts = named(n);
                    for c in &parts {
                        if c.kind() == "for_in_clause" {
                            if let Some(r) = field(*c, "right") {
                                self.node(r);
                            }
                            if let Some(l) = field(*c, "left") {
                                self.bind(l, false, None);
                            }
                        }
                    }
                    for c in parts {
                        if c.kind() == "for_in_clause" {
                            continue;
                        }
                        self.node(c);
                    }
                    self.e.pop(up);
                }
                "import_statement" => self.import(n, None),
                "import_from_statement" => {
                    let module = field(n, "module_name")
                        .map(|m| self.e.text(m))
                        .unwrap_or("");
                    if module != "__future__" {
                        self.import(n, Some(module));
                    }
                }
                "future_import_statement" | "wildcard_import" => {}
                "assignment" => self.assignment(n),
                "augmented_assignment" => {
                    let left = field(n, "left");
                    if let Some(r) = field(n, "right") {
                        if left.is_some_and(|l| self.e.text(l) == "__all__") {
                            self.all_names(r);
                        }
                        self.node(r);
                    }
                    if let Some(l) = left {
                        self.node(l);
                        if l.kind() == "identifier" {
                            let key = self.e.text(l);
                            let report = self.in_function();
                            self.e.declare(
                                key,
                                l,
                                UnusedKind::Variable,
                                "variable",
                                None,
                                l.start_byte(),
                                report,
                                ASSIGNED,
                            );
                        }
                    }
                }
                "named_expression" => {
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                    if let Some(name) = field(n, "name") {
                        self.bind(name, true, None);
                    }
                }
                "for_statement" => {
                    if let Some(r) = field(n, "right") {
                        self.node(r);
                    }
                    if let Some(l) = field(n, "left") {
                        self.bind(l, false, None);
                    }
                    for f in ["body", "alternative"] {
                        if let Some(b) = field(n, f) {
                            self.node(b);
                        }
                    }
                }
                "with_item" => {
                    let Some(v) = field(n, "value") else { return };
                    if v.kind() == "as_pattern" {
                        for c in named(v) {
                            if c.kind() == "as_pattern_target" {
                                let single = named(c).len() == 1
                                    && named(c).first().is_some_and(|t| t.kind() == "identifier");
                                for t in named(c) {
                                    self.bind(t, single, None);
                                }
                            } else {
                                self.node(c);
                            }
                        }
                    } else {
                        self.node(v);
                    }
                }
                "except_clause" => {
                    let mut alias = None;
                    for c in all(n) {
                        if c.kind() == "as_pattern" {
                            for p in named(c) {
                                if p.kind() == "as_pattern_target" {
                                    alias = named(p).into_iter().find(|t| t.kind() == "identifier");
                                } else {
                                    self.node(p);
                                }
                            }
                        } else if c.kind() != "block" {
                            self.node(c);
                        }
                    }
                    let up = self.e.push(Scope {
                        handler: true,
                        ..Scope::default()
                    });
                    if let Some(a) = alias {
                        let key = self.e.text(a);
                        let report = !key.starts_with('_');
                        let handler = self.e.current;
                        self.e.declare_in(
                            handler,
                            key,
                            a,
                            UnusedKind::Variable,
                            "variable",
                            None,
                            0,
                            report,
                            EXCEPT_ALIAS,
                        );
                    }
                    for c in all(n) {
                        if c.kind() == "block" {
                            self.block(c);
                        }
                    }
                    self.e.pop(up);
                }
                "global_statement" | "nonlocal_statement" => {
                    let nonlocal = n.kind() == "nonlocal_statement";
                    for c in named(n) {
                        if c.kind() == "identifier" {
                            let key = self.e.text(c).to_string();
                            if nonlocal {
                                // Resolved from the enclosing function: the outer name is used.
                                let here = self.e.current;
                                if let Some(p) = self.e.scopes[here].parent {
                                    self.e.current = p;
                                    self.e.reference(&key, usize::MAX);
                                    self.e.current = here;
                                }
                            }
                            let s = self.function_scope();
                            self.e.scopes[s].globals.insert(key);
                        }
                    }
                }
                "attribute" => {
                    if let Some(o) = field(n, "object") {
                        self.node(o);
                    }
                }
                "keyword_argument" => {
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                }
                "call" => {
                    // `cast("IO[str]", x)`: the quoted type is an annotation.
                    let cast = field(n, "function").is_some_and(|f| {
                        let t = self.e.text(f);
                        t == "cast" || t.ends_with(".cast")
                    });
                    if cast {
                        let first = field(n, "arguments").and_then(|a| named(a).into_iter().next());
                        if let Some(s) = first.filter(|s| s.kind() == "string") {
                            self.annotation(s);
                        }
                    }
                    if let Some(f) = field(n, "function")
                        && f.kind() == "identifier"
                        && self.e.text(f) == "locals"
                    {
                        let s = self.function_scope();
                        self.e.scopes[s].uses_locals = true;
                    }
                    self.block(n);
                }
                "type" => self.annotation(n),
                "string" => {
                    for c in named(n) {
                        if c.kind() == "interpolation" {
                            self.block(c);
                        }
                    }
                }
                "case_pattern" => self.case_pattern(n),
                _ => self.block(n),
            }
        }

        fn in_function(&self) -> bool {
            self.e.scopes[self.function_scope()].function
        }

        fn function_scope(&self) -> usize {
            let mut s = self.e.current;
            while self.e.scopes[s].handler {
                s = self.e.scopes[s].parent.unwrap_or(0);
            }
            s
        }

        /// A type annotation: its names, and the names in a quoted (forward) annotation.
        fn annotation(&mut self, n: Node<'_>) {
            let mut stack = vec![n];
            while let Some(c) = stack.pop() {
                match c.kind() {
                    "string" => {
                        let text = self.e.text(c);
                        for w in words(text.trim_matches(|ch| ch == '"' || ch == '\'')) {
                            self.e.reference(w, c.start_byte());
                        }
                    }
                    "identifier" => self.node(c),
                    "attribute" => self.node(c),
                    _ => stack.extend(named(c)),
                }
            }
        }

        fn case_pattern(&mut self, n: Node<'_>) {
            let mut stack = vec![n];
            while let Some(c) = stack.pop() {
                match c.kind() {
                    "dotted_name" => {
                        let parts = named(c);
                        if parts.len() == 1
                            && c.parent().is_some_and(|p| p.kind() != "class_pattern")
                        {
                            self.bind(parts[0], false, None);
                        } else if let Some(first) = parts.first() {
                            self.node(*first);
                        }
                    }
                    "keyword_pattern" => {
                        stack.extend(named(c).into_iter().skip(1));
                    }
                    "identifier" => self.bind(c, false, None),
                    _ => stack.extend(named(c)),
                }
            }
        }

        /// Binds the names of an assignment target; `report`: F841 applies to them.
        fn bind(&mut self, target: Node<'_>, report: bool, statement: Option<Node<'_>>) {
            match target.kind() {
                "identifier" => {
                    let key = self.e.text(target);
                    let report = report
                        && self.in_function()
                        && !key.starts_with('_')
                        && !matches!(
                            key,
                            "__tracebackhide__"
                                | "__traceback_info__"
                                | "__traceback_supplement__"
                                | "__debuggerskip__"
                        );
                    self.e.declare(
                        key,
                        target,
                        UnusedKind::Variable,
                        "variable",
                        statement,
                        target.start_byte(),
                        report,
                        ASSIGNED,
                    );
                }
                "pattern_list"
                | "tuple_pattern"
                | "list_pattern"
                | "tuple"
                | "list"
                | "parenthesized_expression"
                | "list_splat_pattern"
                | "as_pattern_target" => {
                    for c in named(target) {
                        self.bind(c, report, statement);
                    }
                }
                "splat_pattern" => {
                    for c in named(target) {
                        self.bind(c, false, statement);
                    }
                }
                // `a.b = …`, `a[i] = …`: reads `a`.
                _ => self.node(target),
            }
        }

        fn assignment(&mut self, n: Node<'_>) {
            let left = field(n, "left");
            let right = field(n, "right");
            if let Some(t) = field(n, "type") {
                self.annotation(t);
            }
            if let Some(r) = right {
                if left.is_some_and(|l| self.e.text(l) == "__all__") {
                    self.all_names(r);
                }
                self.node(r);
            }
            let Some(l) = left else { return };
            if right.is_none() {
                // `x: int` binds nothing ruff reports.
                return;
            }
            // ruff reports unpacking only when a tuple literal of the same length is
            // unpacked (`a, b = 1, 2`), which is a pair of plain assignments.
            let report = match l.kind() {
                "identifier" => true,
                "pattern_list" | "tuple_pattern" => right.is_some_and(|r| {
                    let r = if r.kind() == "parenthesized_expression" {
                        named(r).first().copied().unwrap_or(r)
                    } else {
                        r
                    };
                    matches!(r.kind(), "expression_list" | "tuple")
                        && named(r).len() == named(l).len()
                        && !named(r).iter().any(|c| c.kind() == "list_splat")
                }),
                _ => false,
            };
            self.bind(l, report, None);
        }

        /// `__all__ = ["a", "b"]`: each listed name is used.
        fn all_names(&mut self, r: Node<'_>) {
            let mut stack = vec![r];
            while let Some(c) = stack.pop() {
                if c.kind() == "string" {
                    let t = self.e.text(c);
                    let name = t.trim_matches(|ch| ch == '"' || ch == '\'');
                    self.e.reference(name, usize::MAX);
                } else {
                    stack.extend(named(c));
                }
            }
        }

        fn import(&mut self, n: Node<'_>, from: Option<&str>) {
            let module_node = field(n, "module_name");
            for c in named(n) {
                if Some(c) == module_node {
                    continue;
                }
                let module = match c.kind() {
                    "aliased_import" => field(c, "name").map(|m| self.e.text(m)),
                    _ => Some(self.e.text(c)),
                };
                let (key, node, symbol_kind, redundant) = match c.kind() {
                    "dotted_name" => {
                        let parts = named(c);
                        let key = if from.is_some() {
                            parts.last()
                        } else {
                            parts.first()
                        };
                        let Some(key) = key else { continue };
                        (
                            self.e.text(*key),
                            c,
                            if from.is_some() { "variable" } else { "module" },
                            false,
                        )
                    }
                    "aliased_import" => {
                        let (Some(name), Some(alias)) = (field(c, "name"), field(c, "alias"))
                        else {
                            continue;
                        };
                        let redundant = self.e.text(name) == self.e.text(alias);
                        // ruff points at the alias, the name the import binds.
                        (
                            self.e.text(alias),
                            alias,
                            if from.is_some() { "variable" } else { "module" },
                            redundant,
                        )
                    }
                    _ => continue,
                };
                // An import in a class body defines a class attribute, which ruff
                // does not report.
                let in_class = self.e.scopes[self.e.current].class_body;
                let i = self.e.declare(
                    key,
                    node,
                    UnusedKind::Import,
                    symbol_kind,
                    Some(n),
                    node.start_byte(),
                    !redundant && !in_class,
                    IMPORTED,
                );
                if let (None, Some(m)) = (from, module) {
                    let dotted = c.kind() == "dotted_name" && m.contains('.');
                    self.modules.push((i, m.to_string(), dotted));
                }
            }
        }

        fn lambda(&mut self, n: Node<'_>) {
            let params = field(n, "parameters");
            if let Some(p) = params {
                self.defaults(p);
            }
            let up = self.e.push(Scope {
                function: true,
                ..Scope::default()
            });
            if let Some(p) = params {
                self.params(p, true, false);
            }
            if let Some(b) = field(n, "body") {
                self.node(b);
            }
            self.e.pop(up);
        }

        fn function(&mut self, n: Node<'_>, decorators: &[String]) {
            if let Some(name) = field(n, "name") {
                let key = self.e.text(name);
                let at = name.start_byte();
                self.e.declare(
                    key,
                    name,
                    UnusedKind::Symbol,
                    "function",
                    None,
                    at,
                    false,
                    "",
                );
            }
            let params = field(n, "parameters");
            if let Some(p) = params {
                self.defaults(p);
            }
            if let Some(r) = field(n, "return_type") {
                self.annotation(r);
            }
            if let Some(t) = field(n, "type_parameters") {
                self.node(t);
            }
            let in_class = self.e.scopes[self.e.current].class_body;
            let body = field(n, "body");
            let decorated = |d: &str| decorators.iter().any(|x| x.contains(d));
            // ruff leaves protocol methods alone (their signature is not the author's
            // choice), but for the constructors and `__call__`.
            let name = field(n, "name").map(|x| self.e.text(x)).unwrap_or("");
            let protocol = in_class
                && name.len() > 4
                && name.starts_with("__")
                && name.ends_with("__")
                && !matches!(name, "__init__" | "__new__" | "__call__");
            let exempt = protocol
                || body.is_none_or(|b| is_stub(b, self.e.file))
                || decorated("override")
                || decorated("overload")
                || decorated("abstractmethod");
            let skip_first = in_class && !decorated("staticmethod");
            let up = self.e.push(Scope {
                function: true,
                ..Scope::default()
            });
            if let Some(p) = params {
                self.params(p, !exempt, skip_first);
            }
            if let Some(b) = body {
                self.block(b);
            }
            self.e.pop(up);
        }

        /// Default values and annotations are evaluated in the enclosing scope.
        fn defaults(&mut self, params: Node<'_>) {
            for p in named(params) {
                for f in ["value", "type"] {
                    if let Some(v) = field(p, f) {
                        if f == "type" {
                            self.annotation(v);
                        } else {
                            self.node(v);
                        }
                    }
                }
            }
        }

        fn params(&mut self, params: Node<'_>, report: bool, skip_first: bool) {
            let params = named(params).into_iter().filter(|p| !is_comment(*p));
            for (i, p) in params.enumerate() {
                let name = match p.kind() {
                    "identifier" => Some(p),
                    "default_parameter" | "typed_default_parameter" => field(p, "name"),
                    "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                        named(p)
                            .into_iter()
                            .find(|c| c.kind() == "identifier")
                            .or_else(|| {
                                named(p).into_iter().next().and_then(|c| {
                                    named(c).into_iter().find(|g| g.kind() == "identifier")
                                })
                            })
                    }
                    _ => None,
                };
                let Some(name) = name else { continue };
                let key = self.e.text(name);
                let report = report && !(skip_first && i == 0) && !key.starts_with('_');
                self.e.declare(
                    key,
                    name,
                    UnusedKind::Parameter,
                    "variable",
                    None,
                    0,
                    report,
                    PARAM,
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// TypeScript and JavaScript: `tsc --noUnusedLocals --noUnusedParameters` (JavaScript with
// `--allowJs --checkJs`).

mod script {
    use super::*;

    pub(super) fn run(file: &SourceFile, max_depth: u32) -> Vec<Unused> {
        let root = file.root();
        let module = is_module(file);
        let mut w = Walk {
            e: Engine::new(file, false, max_depth),
            module,
            exporting: false,
            ambient: 0,
            members: Vec::new(),
            member_reads: BTreeSet::new(),
            jsx: false,
            underscore_ok: false,
        };
        w.body(root);
        if w.jsx {
            // The classic JSX factory (`React.createElement`) reads `React`.
            let here = w.e.current;
            w.e.current = 0;
            w.e.reference("React", usize::MAX);
            w.e.current = here;
        }
        for (i, name) in std::mem::take(&mut w.members) {
            if w.member_reads.contains(&name) {
                w.e.decls[i].used = true;
                w.e.decls[i].report = false;
            }
        }
        w.e.finish()
    }

    /// Whether tsc reads the file as a module (its top-level names are locals): it imports
    /// or exports, or (JavaScript) assigns CommonJS exports.
    pub(crate) fn is_module(file: &SourceFile) -> bool {
        named(file.root()).iter().any(|c| {
            matches!(c.kind(), "import_statement" | "export_statement")
                || (matches!(file.dialect, Dialect::JavaScript | Dialect::Jsx)
                    && commonjs_export(file, *c))
        })
    }

    /// `module.exports = …` or `exports.x = …` at the top level makes a JavaScript file a
    /// CommonJS module for tsc, whose top-level names are then locals.
    fn commonjs_export(file: &SourceFile, stmt: Node<'_>) -> bool {
        if stmt.kind() != "expression_statement" {
            return false;
        }
        let Some(e) = stmt.named_child(0) else {
            return false;
        };
        if e.kind() != "assignment_expression" {
            return false;
        }
        field(e, "left").is_some_and(|l| {
            let t = file.text_of(l);
            t.starts_with("module.exports") || t.starts_with("exports.")
        })
    }

    struct Walk<'f> {
        e: Engine<'f>,
        module: bool,
        exporting: bool,
        ambient: u32,
        /// Private class members: their declaration and name.
        members: Vec<(usize, String)>,
        /// Every `.name` read in the file.
        member_reads: BTreeSet<String>,
        jsx: bool,
        /// Declaring names tsc exempts when they start with `_`.
        underscore_ok: bool,
    }

    impl Walk<'_> {
        fn body(&mut self, n: Node<'_>) {
            for c in all(n) {
                self.node(c);
            }
        }

        fn nearest_function_scope(&self) -> usize {
            let mut s = self.e.current;
            loop {
                if self.e.scopes[s].function || s == 0 {
                    return s;
                }
                s = self.e.scopes[s].parent.unwrap_or(0);
            }
        }

        /// Whether a declaration here is a local tsc reports.
        fn reportable(&self) -> bool {
            if self.exporting || self.ambient > 0 {
                return false;
            }
            self.e.current != 0 || self.module
        }

        #[allow(clippy::too_many_arguments)]
        fn decl(
            &mut self,
            name: Node<'_>,
            kind: UnusedKind,
            symbol_kind: &'static str,
            statement: Option<Node<'_>>,
            report: bool,
            reason: &'static str,
            var_scope: bool,
        ) -> usize {
            let key = self.e.text(name);
            let report = report && !(kind == UnusedKind::Import && key.starts_with('_'));
            let scope = if var_scope {
                self.nearest_function_scope()
            } else {
                self.e.current
            };
            let exported = self.exporting;
            let i = self.e.declare_in(
                scope,
                key,
                name,
                kind,
                symbol_kind,
                statement,
                0,
                report,
                reason,
            );
            self.e.decls[i].exported = exported;
            i
        }

        fn node(&mut self, n: Node<'_>) {
            if self.e.depth >= self.e.max_depth {
                self.e.flat(n);
                return;
            }
            self.e.depth += 1;
            self.node_inner(n);
            self.e.depth -= 1;
        }

        fn node_inner(&mut self, n: Node<'_>) {
            let k = n.kind();
            match k {
                "identifier" | "type_identifier" | "shorthand_property_identifier" => {
                    let t = self.e.text(n);
                    self.e.reference(t, n.start_byte());
                }
                "property_identifier" | "private_property_identifier" => {
                    let t = self.e.text(n).to_string();
                    self.member_reads.insert(t);
                }
                "comment" | "string" | "regex" => {}
                "template_string" => {
                    for c in named(n) {
                        if c.kind() == "template_substitution" {
                            self.body(c);
                        }
                    }
                }
                "import_statement" => self.import(n),
                "export_statement" => self.export(n),
                "lexical_declaration" | "variable_declaration" => self.variables(n),
                "function_declaration" | "generator_function_declaration" => {
                    if let Some(name) = field(n, "name") {
                        let report = self.reportable();
                        self.decl(
                            name,
                            UnusedKind::Symbol,
                            "function",
                            None,
                            report,
                            LOCAL_DECL,
                            false,
                        );
                    }
                    self.function(n);
                }
                "function_signature" => {
                    // An overload: its parameters are never reported, its name is the
                    // implementation's.
                    self.function(n);
                }
                "function_expression" | "function" | "generator_function" | "arrow_function" => {
                    self.function(n)
                }
                "method_definition" => {
                    self.private_member(n, "method");
                    if let Some(name) = field(n, "name")
                        && name.kind() == "computed_property_name"
                    {
                        self.node(name);
                    }
                    self.function(n);
                }
                "public_field_definition" | "field_definition" => {
                    self.private_member(n, "property");
                    for c in all(n) {
                        // The member's own name is no read (a computed one is).
                        let name = Some(c) == field(n, "name").or_else(|| field(n, "property"));
                        if !name || c.kind() == "computed_property_name" {
                            self.node(c);
                        }
                    }
                }
                "class_declaration" | "abstract_class_declaration" | "class" => {
                    let name = field(n, "name");
                    if let Some(name) = name {
                        if k == "class" {
                            self.decl(name, UnusedKind::Type, "class", None, false, "", false);
                        } else {
                            let report = self.reportable();
                            self.decl(
                                name,
                                UnusedKind::Type,
                                "class",
                                None,
                                report,
                                LOCAL_DECL,
                                false,
                            );
                        }
                    }
                    let exporting = std::mem::replace(&mut self.exporting, false);
                    let up = self.e.push(Scope::default());
                    for c in all(n) {
                        if Some(c) != name {
                            self.node(c);
                        }
                    }
                    self.e.pop(up);
                    self.exporting = exporting;
                }
                "interface_declaration" | "type_alias_declaration" | "enum_declaration" => {
                    let name = field(n, "name");
                    if let Some(name) = name {
                        let report = self.reportable();
                        let sk = match k {
                            "interface_declaration" => "interface",
                            "enum_declaration" => "enum",
                            _ => "type_parameter",
                        };
                        self.decl(name, UnusedKind::Type, sk, None, report, LOCAL_DECL, false);
                    }
                    let exporting = std::mem::replace(&mut self.exporting, false);
                    let up = self.e.push(Scope::default());
                    for c in all(n) {
                        if Some(c) != name {
                            self.node(c);
                        }
                    }
                    self.e.pop(up);
                    self.exporting = exporting;
                }
                // A signature's type parameters are its own (overloads repeat them).
                "method_signature"
                | "abstract_method_signature"
                | "call_signature"
                | "construct_signature"
                | "function_type"
                | "constructor_type" => {
                    let up = self.e.push(Scope::default());
                    self.body(n);
                    self.e.pop(up);
                }
                // Of a class, an interface, a type alias or a signature: tsc reports an unused
                // type parameter of any declaration.
                "type_parameters" => {
                    for t in named(n) {
                        if let Some(name) = field(t, "name") {
                            let report = self.ambient == 0 && !self.e.text(name).starts_with('_');
                            self.decl(
                                name,
                                UnusedKind::Type,
                                "type_parameter",
                                None,
                                report,
                                LOCAL_DECL,
                                false,
                            );
                        }
                        for c in named(t) {
                            if Some(c) != field(t, "name") {
                                self.node(c);
                            }
                        }
                    }
                }
                "enum_body" => {
                    for c in named(n) {
                        if c.kind() == "enum_assignment"
                            && let Some(v) = field(c, "value")
                        {
                            self.node(v);
                        }
                    }
                }
                "internal_module" | "module" => {
                    let name = field(n, "name");
                    if let Some(name) = name
                        && name.kind() == "identifier"
                    {
                        self.decl(
                            name,
                            UnusedKind::Symbol,
                            "namespace",
                            None,
                            false,
                            "",
                            false,
                        );
                    }
                    let exporting = std::mem::replace(&mut self.exporting, false);
                    let up = self.e.push(Scope {
                        function: true,
                        ..Scope::default()
                    });
                    // The members of a namespace are its exports or locals like a module's.
                    let module = std::mem::replace(&mut self.module, true);
                    if let Some(b) = field(n, "body") {
                        self.body(b);
                    }
                    self.module = module;
                    self.e.pop(up);
                    self.exporting = exporting;
                }
                "ambient_declaration" => {
                    self.ambient += 1;
                    self.body(n);
                    self.ambient -= 1;
                }
                "statement_block" | "switch_body" | "class_body" => {
                    let up = self.e.push(Scope::default());
                    self.body(n);
                    self.e.pop(up);
                }
                "for_statement" | "for_in_statement" => {
                    let up = self.e.push(Scope::default());
                    if k == "for_in_statement" {
                        let declares = field(n, "kind").is_some();
                        if let Some(l) = field(n, "left") {
                            if declares {
                                let var =
                                    field(n, "kind").is_some_and(|kk| self.e.text(kk) == "var");
                                let report = self.reportable();
                                self.underscore_ok = true;
                                self.pattern(l, report, Some(n), var, UnusedKind::Variable);
                                self.underscore_ok = false;
                            } else {
                                self.write(l);
                            }
                        }
                        for c in all(n) {
                            if Some(c) != field(n, "left") {
                                self.node(c);
                            }
                        }
                    } else {
                        self.body(n);
                    }
                    self.e.pop(up);
                }
                "catch_clause" => {
                    let up = self.e.push(Scope::default());
                    if let Some(p) = field(n, "parameter") {
                        self.pattern(p, false, None, false, UnusedKind::Variable);
                    }
                    for c in all(n) {
                        if Some(c) != field(n, "parameter") {
                            self.node(c);
                        }
                    }
                    self.e.pop(up);
                }
                "assignment_expression" => {
                    if let Some(l) = field(n, "left") {
                        self.write(l);
                    }
                    if let Some(r) = field(n, "right") {
                        self.node(r);
                    }
                }
                "member_expression" => {
                    if let Some(o) = field(n, "object") {
                        self.node(o);
                    }
                    if let Some(p) = field(n, "property") {
                        self.node(p);
                    }
                }
                "nested_type_identifier" | "nested_identifier" => {
                    if let Some(m) = field(n, "module")
                        .or_else(|| field(n, "object"))
                        .or_else(|| n.named_child(0))
                    {
                        self.node(m);
                    }
                }
                "jsx_opening_element" | "jsx_self_closing_element" => {
                    self.jsx = true;
                    if let Some(name) = field(n, "name") {
                        if name.kind() == "identifier" {
                            let t = self.e.text(name);
                            if t.chars().next().is_some_and(|c| c.is_uppercase()) {
                                self.e.reference(t, name.start_byte());
                            }
                        } else {
                            self.node(name);
                        }
                    }
                    for c in named(n) {
                        if Some(c) != field(n, "name") {
                            self.node(c);
                        }
                    }
                }
                "jsx_closing_element" => {}
                "jsx_attribute" => {
                    for c in named(n).into_iter().skip(1) {
                        self.node(c);
                    }
                }
                "pair" | "pair_pattern" => {
                    if let Some(key) = field(n, "key")
                        && key.kind() == "computed_property_name"
                    {
                        self.node(key);
                    }
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                }
                "labeled_statement" => {
                    if let Some(b) = field(n, "body") {
                        self.node(b);
                    }
                }
                "break_statement" | "continue_statement" => {}
                "formal_parameters" => {
                    // Parameters of a signature without a body (a function type, an
                    // interface method): their names bind nothing that could be read.
                    let up = self.e.push(Scope::default());
                    self.params(n, false);
                    self.e.pop(up);
                }
                _ => self.body(n),
            }
        }

        /// A private class member: reported when no `.name` of the file reads it.
        fn private_member(&mut self, n: Node<'_>, symbol_kind: &'static str) {
            let Some(name) = field(n, "name").or_else(|| field(n, "property")) else {
                return;
            };
            let private_modifier = named(n)
                .iter()
                .any(|c| c.kind() == "accessibility_modifier" && self.e.text(*c) == "private");
            let hash = name.kind() == "private_property_identifier";
            if !(private_modifier || hash) || self.ambient > 0 {
                return;
            }
            let key = self.e.text(name).to_string();
            if symbol_kind == "method" && key == "constructor" {
                return;
            }
            let i = self.decl(
                name,
                UnusedKind::Symbol,
                symbol_kind,
                None,
                true,
                PRIVATE_MEMBER,
                false,
            );
            // Not resolved as a name: only member reads count.
            self.e.decls[i].key = format!(".{key}");
            self.members.push((i, key));
        }

        /// An assignment target: names there are written, not read.
        fn write(&mut self, l: Node<'_>) {
            match l.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {}
                "object_pattern"
                | "array_pattern"
                | "parenthesized_expression"
                | "rest_pattern" => {
                    for c in named(l) {
                        self.write(c);
                    }
                }
                "pair_pattern" => {
                    if let Some(key) = field(l, "key")
                        && key.kind() == "computed_property_name"
                    {
                        self.node(key);
                    }
                    if let Some(v) = field(l, "value") {
                        self.write(v);
                    }
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    if let Some(v) = field(l, "left") {
                        self.write(v);
                    }
                    if let Some(v) = field(l, "right") {
                        self.node(v);
                    }
                }
                _ => self.node(l),
            }
        }

        fn import(&mut self, n: Node<'_>) {
            let report = self.ambient == 0;
            self.underscore_ok = true;
            let mut stack = named(n);
            while let Some(c) = stack.pop() {
                match c.kind() {
                    "import_clause" | "named_imports" => stack.extend(named(c)),
                    "identifier" => {
                        self.decl(
                            c,
                            UnusedKind::Import,
                            "variable",
                            Some(n),
                            report,
                            IMPORTED,
                            false,
                        );
                    }
                    "namespace_import" => {
                        if let Some(id) = named(c).into_iter().find(|x| x.kind() == "identifier") {
                            self.decl(
                                id,
                                UnusedKind::Import,
                                "module",
                                Some(n),
                                report,
                                IMPORTED,
                                false,
                            );
                        }
                    }
                    "import_specifier" => {
                        if let Some(id) = field(c, "alias").or_else(|| field(c, "name"))
                            && id.kind() == "identifier"
                        {
                            self.decl(
                                id,
                                UnusedKind::Import,
                                "variable",
                                Some(n),
                                report,
                                IMPORTED,
                                false,
                            );
                        }
                    }
                    "import_require_clause" => {
                        if let Some(id) = named(c).into_iter().find(|x| x.kind() == "identifier") {
                            self.decl(
                                id,
                                UnusedKind::Import,
                                "module",
                                Some(n),
                                report,
                                IMPORTED,
                                false,
                            );
                        }
                    }
                    _ => {}
                }
            }
            self.underscore_ok = false;
        }

        fn export(&mut self, n: Node<'_>) {
            if let Some(d) = field(n, "declaration") {
                let exporting = std::mem::replace(&mut self.exporting, true);
                for c in all(n) {
                    if c == d {
                        self.node(c);
                    } else if c.kind() == "decorator" {
                        let e = std::mem::replace(&mut self.exporting, false);
                        self.node(c);
                        self.exporting = e;
                    }
                }
                self.exporting = exporting;
                return;
            }
            let from = field(n, "source").is_some();
            for c in named(n) {
                match c.kind() {
                    "export_clause" => {
                        if from {
                            continue;
                        }
                        for s in named(c) {
                            if let Some(name) = field(s, "name") {
                                let t = self.e.text(name);
                                self.e.reference(t, usize::MAX);
                            }
                        }
                    }
                    "string" | "namespace_export" => {}
                    _ => self.node(c),
                }
            }
        }

        fn variables(&mut self, n: Node<'_>) {
            let var = n.kind() == "variable_declaration";
            let report = self.reportable();
            for d in named(n) {
                if d.kind() != "variable_declarator" {
                    self.node(d);
                    continue;
                }
                if let Some(t) = field(d, "type") {
                    self.node(t);
                }
                if let Some(v) = field(d, "value") {
                    self.node(v);
                }
                if let Some(name) = field(d, "name") {
                    self.pattern(name, report, Some(n), var, UnusedKind::Variable);
                }
            }
        }

        /// Declares the names a binding pattern binds.
        fn pattern(
            &mut self,
            p: Node<'_>,
            report: bool,
            statement: Option<Node<'_>>,
            var: bool,
            kind: UnusedKind,
        ) {
            let reason = if kind == UnusedKind::Parameter {
                PARAM
            } else {
                ASSIGNED
            };
            match p.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    if p.kind() == "shorthand_property_identifier_pattern" {
                        // `const { _buffer } = this` reads the member `_buffer`.
                        self.member_reads.insert(self.e.text(p).to_string());
                    }
                    // tsc exempts `_`-prefixed parameters, array-destructured names and
                    // loop variables (not plain or object-destructured variables).
                    let lenient = kind == UnusedKind::Parameter || self.underscore_ok;
                    let report = report && !(lenient && self.e.text(p).starts_with('_'));
                    self.decl(p, kind, "variable", statement, report, reason, var);
                }
                "object_pattern" => {
                    // A property beside a rest element is left out of the rest: not unused.
                    let rest = named(p).iter().any(|c| c.kind() == "rest_pattern");
                    for c in named(p) {
                        let report = report && (!rest || c.kind() == "rest_pattern");
                        self.pattern(c, report, statement, var, kind);
                    }
                }
                "array_pattern" | "rest_pattern" => {
                    let lenient = self.underscore_ok;
                    self.underscore_ok = lenient || p.kind() == "array_pattern";
                    for c in named(p) {
                        self.pattern(c, report, statement, var, kind);
                    }
                    self.underscore_ok = lenient;
                }
                "pair_pattern" => {
                    if let Some(key) = field(p, "key") {
                        // `const { a: x } = this` reads the member `a`; a computed key is
                        // an expression.
                        self.node(key);
                    }
                    if let Some(v) = field(p, "value") {
                        self.pattern(v, report, statement, var, kind);
                    }
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    if let Some(v) = field(p, "right") {
                        self.node(v);
                    }
                    if let Some(v) = field(p, "left") {
                        self.pattern(v, report, statement, var, kind);
                    }
                }
                _ => self.node(p),
            }
        }

        fn params(&mut self, params: Node<'_>, report: bool) {
            for p in named(params) {
                match p.kind() {
                    "required_parameter" | "optional_parameter" => {
                        for f in ["type", "value"] {
                            if let Some(v) = field(p, f) {
                                self.node(v);
                            }
                        }
                        for c in named(p) {
                            if c.kind() == "decorator" {
                                self.node(c);
                            }
                        }
                        let Some(pat) = field(p, "pattern") else {
                            continue;
                        };
                        if pat.kind() == "this" {
                            continue;
                        }
                        let modifier = named(p).into_iter().find(|c| {
                            matches!(c.kind(), "accessibility_modifier" | "override_modifier")
                                || self.e.text(*c) == "readonly"
                        });
                        if let Some(m) = modifier {
                            // A parameter property: a class member; tsc reports only a
                            // private one no `.name` reads.
                            let private = self.e.text(m) == "private";
                            let key = self.e.text(pat).to_string();
                            let i = self.decl(
                                pat,
                                UnusedKind::Parameter,
                                "property",
                                None,
                                report && private && !key.starts_with('_'),
                                PRIVATE_MEMBER,
                                false,
                            );
                            self.e.decls[i].key = format!(".{key}");
                            self.members.push((i, key));
                            continue;
                        }
                        self.pattern(pat, report, None, false, UnusedKind::Parameter);
                    }
                    "identifier" | "object_pattern" | "array_pattern" | "assignment_pattern"
                    | "rest_pattern" => {
                        self.pattern(p, report, None, false, UnusedKind::Parameter);
                    }
                    _ => self.node(p),
                }
            }
        }

        fn function(&mut self, n: Node<'_>) {
            let body = field(n, "body");
            let up = self.e.push(Scope {
                function: true,
                ..Scope::default()
            });
            let exporting = std::mem::replace(&mut self.exporting, false);
            let report = body.is_some()
                && self.ambient == 0
                && !named(n)
                    .iter()
                    .any(|c| self.e.text(*c) == "abstract" || c.kind() == "override_modifier");
            // A named function expression binds its name inside itself only.
            if matches!(
                n.kind(),
                "function_expression" | "function" | "generator_function"
            ) && let Some(name) = field(n, "name")
            {
                self.decl(name, UnusedKind::Symbol, "function", None, false, "", false);
            }
            if let Some(tp) = field(n, "type_parameters") {
                for t in named(tp) {
                    if let Some(name) = field(t, "name") {
                        let r = report && !self.e.text(name).starts_with('_');
                        self.decl(
                            name,
                            UnusedKind::Type,
                            "type_parameter",
                            None,
                            r,
                            LOCAL_DECL,
                            false,
                        );
                    }
                    for c in named(t) {
                        if Some(c) != field(t, "name") {
                            self.node(c);
                        }
                    }
                }
            }
            if let Some(p) = field(n, "parameters") {
                self.params(p, report);
            } else if let Some(p) = field(n, "parameter") {
                // `x => …`
                self.pattern(p, report, None, false, UnusedKind::Parameter);
            }
            for f in ["return_type"] {
                if let Some(v) = field(n, f) {
                    self.node(v);
                }
            }
            for c in named(n) {
                if c.kind() == "decorator" {
                    self.node(c);
                }
            }
            if let Some(b) = body {
                if b.kind() == "statement_block" {
                    self.body(b);
                } else {
                    self.node(b);
                }
            }
            self.exporting = exporting;
            self.e.pop(up);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Rust: rustc's `unused_imports` and `unused_variables` (locals and parameters).

mod rust {
    use super::*;

    /// Traits of the standard library (and the `…Ext` convention) an import brings in for
    /// their methods, which a syntax tree cannot see being called.
    const TRAITS: &[&str] = &[
        "Write",
        "Read",
        "BufRead",
        "Seek",
        "FromStr",
        "Hash",
        "Hasher",
        "Iterator",
        "IntoIterator",
        "DoubleEndedIterator",
        "ExactSizeIterator",
        "FromIterator",
        "Extend",
        "Borrow",
        "BorrowMut",
        "Deref",
        "DerefMut",
        "AsRef",
        "AsMut",
        "TryFrom",
        "TryInto",
        "Display",
        "Debug",
        "Error",
        "Any",
        "Future",
        "Stream",
        "Sink",
        "AsyncRead",
        "AsyncWrite",
        "AsyncBufRead",
        "AsyncSeek",
        "Index",
        "IndexMut",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Rem",
        "Neg",
        "Not",
        "BitAnd",
        "BitOr",
        "BitXor",
        "Shl",
        "Shr",
        "AddAssign",
        "SubAssign",
        "MulAssign",
        "DivAssign",
        "PartialEq",
        "Eq",
        "PartialOrd",
        "Ord",
        "ToString",
        "ToOwned",
        "Clone",
        "Default",
        "OsStrExt",
        "OsStringExt",
        "PermissionsExt",
        "MetadataExt",
        "FileExt",
        "CommandExt",
        "ExitStatusExt",
        "AsRawFd",
        "FromRawFd",
        "IntoRawFd",
        "RangeBounds",
        "SliceIndex",
        "Pattern",
        "Step",
        "Sum",
        "Product",
        "Termination",
        "Fn",
        "FnMut",
        "FnOnce",
        "Into",
        "From",
        "Send",
        "Sync",
        "Unpin",
        "Sized",
        "Copy",
        "Drop",
        "ToSocketAddrs",
        "Digest",
        "Rng",
        "RngCore",
        "SeedableRng",
        "Serialize",
        "Deserialize",
        "Serializer",
        "Deserializer",
        "Buf",
        "BufMut",
        "Context",
        "Itertools",
        "Parser",
        "FusedIterator",
        "TrustedLen",
        "SerializeMap",
        "SerializeSeq",
        "SerializeStruct",
        "SerializeStructVariant",
        "SerializeTuple",
        "SerializeTupleStruct",
        "SerializeTupleVariant",
        "MapAccess",
        "SeqAccess",
        "EnumAccess",
        "VariantAccess",
        "Visitor",
        "IntoDeserializer",
        "Octal",
        "LowerHex",
        "UpperHex",
        "Binary",
        "Pointer",
        "RangeBounds",
        "Hash",
        "Zero",
        "One",
        "Num",
        "Signed",
        "Unsigned",
        "Float",
        "PrimInt",
        "AsPrimitive",
        "FromPrimitive",
        "ToPrimitive",
        "IsTerminal",
        "BuildHasher",
        "CommandFactory",
        "Subcommand",
        "Args",
        "ValueEnum",
        "FromArgMatches",
        "IntoResponse",
        "Engine",
        "BackoffBuilder",
        "Backoff",
        "Retryable",
        "AsyncReadExt",
        "AsyncWriteExt",
        "ReadBytesExt",
        "WriteBytesExt",
        "Mac",
        "KeyInit",
        "Update",
        "FixedOutput",
        "Bounded",
        "NumCast",
        "Stream",
        "Sink",
        "Lines",
    ];

    fn is_trait_like(name: &str) -> bool {
        TRAITS.contains(&name) || (name.len() > 3 && name.ends_with("Ext"))
    }

    pub(super) fn run(file: &SourceFile, max_depth: u32) -> Vec<Unused> {
        let mut w = Walk {
            e: Engine::new(file, false, max_depth),
            private_mod: 0,
            cfg: 0,
        };
        w.body(file.root());
        w.e.finish()
    }

    struct Walk<'f> {
        e: Engine<'f>,
        /// Inside an inline module without `pub`, where a `pub use` is no re-export.
        private_mod: u32,
        /// Inside an item or statement under `#[cfg(…)]` (not `cfg(test)`), which the
        /// compiler may not see: nothing there is reported, its reads still count.
        cfg: u32,
    }

    /// Item kinds whose `name` is a declaration, not a reference.
    const ITEMS: &[&str] = &[
        "function_item",
        "function_signature_item",
        "struct_item",
        "enum_item",
        "union_item",
        "type_item",
        "trait_item",
        "const_item",
        "static_item",
        "enum_variant",
        "mod_item",
        "associated_type",
        "macro_definition",
    ];

    impl Walk<'_> {
        fn body(&mut self, n: Node<'_>) {
            let mut cfg = false;
            for c in all(n) {
                if c.kind() == "attribute_item" {
                    let t = self.e.text(c);
                    // `cfg_attr` changes attributes, not whether the code is compiled.
                    cfg |=
                        t.contains("cfg(") && !t.contains("cfg_attr(") && !t.contains("cfg(test)");
                    self.node(c);
                    continue;
                }
                if is_comment(c) {
                    continue;
                }
                self.cfg += u32::from(cfg);
                self.node(c);
                self.cfg -= u32::from(cfg);
                cfg = false;
            }
        }

        #[allow(clippy::too_many_arguments)]
        fn declare(
            &mut self,
            key: &str,
            node: Node<'_>,
            kind: UnusedKind,
            statement: Option<Node<'_>>,
            visible_from: usize,
            report: bool,
            reason: &'static str,
        ) {
            let report = report && self.cfg == 0;
            self.e.declare(
                key,
                node,
                kind,
                "variable",
                statement,
                visible_from,
                report,
                reason,
            );
        }

        fn node(&mut self, n: Node<'_>) {
            if self.e.depth >= self.e.max_depth {
                self.e.flat(n);
                return;
            }
            self.e.depth += 1;
            self.node_inner(n);
            self.e.depth -= 1;
        }

        fn node_inner(&mut self, n: Node<'_>) {
            let k = n.kind();
            match k {
                // `isize::MAX` reads a `use core::isize;`.
                "identifier" => {
                    let t = self.e.text(n);
                    self.e.reference(t, n.start_byte());
                }
                "type_identifier" | "primitive_type" => {
                    let t = self.e.text(n);
                    self.e.reference_item(t, n.start_byte());
                }
                "line_comment"
                | "block_comment"
                | "lifetime"
                | "label"
                | "string_literal"
                | "raw_string_literal"
                | "char_literal"
                | "field_identifier"
                | "shorthand_field_identifier" => {}
                "use_declaration" => self.use_decl(n),
                "extern_crate_declaration" => {}
                "function_item" | "function_signature_item" => self.function(n),
                "closure_expression" => {
                    let up = self.e.push(Scope {
                        function: true,
                        ..Scope::default()
                    });
                    if let Some(p) = field(n, "parameters") {
                        for c in named(p) {
                            if c.kind() == "parameter" {
                                self.parameter(c, true);
                            } else {
                                self.pattern(c, UnusedKind::Parameter, true, 0, None);
                            }
                        }
                    }
                    for c in all(n) {
                        if Some(c) != field(n, "parameters") {
                            self.node(c);
                        }
                    }
                    self.e.pop(up);
                }
                "let_declaration" => {
                    for f in ["type", "value", "alternative"] {
                        if let Some(v) = field(n, f) {
                            self.node(v);
                        }
                    }
                    if let Some(p) = field(n, "pattern") {
                        self.pattern(p, UnusedKind::Variable, true, n.end_byte(), Some(n));
                    }
                }
                "block" => {
                    let up = self.e.push(Scope::default());
                    self.body(n);
                    self.e.pop(up);
                }
                "for_expression" => {
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                    let up = self.e.push(Scope::default());
                    if let Some(p) = field(n, "pattern") {
                        self.pattern(p, UnusedKind::Variable, true, 0, None);
                    }
                    if let Some(b) = field(n, "body") {
                        self.node(b);
                    }
                    self.e.pop(up);
                }
                "if_expression" | "while_expression" => {
                    let up = self.e.push(Scope::default());
                    for f in ["condition", "consequence", "body"] {
                        if let Some(v) = field(n, f) {
                            self.node(v);
                        }
                    }
                    self.e.pop(up);
                    if let Some(a) = field(n, "alternative") {
                        self.node(a);
                    }
                }
                "let_condition" => {
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                    // `if let Some(x) = x`: the value reads the outer `x`.
                    if let Some(p) = field(n, "pattern") {
                        self.pattern(p, UnusedKind::Variable, true, n.end_byte(), None);
                    }
                }
                "match_arm" => {
                    let up = self.e.push(Scope::default());
                    if let Some(p) = field(n, "pattern") {
                        // match_pattern: the pattern (`_` is no named node), then an
                        // optional `if` guard.
                        let guard = field(p, "condition");
                        let first = named(p)
                            .into_iter()
                            .find(|c| Some(*c) != guard && !is_comment(*c));
                        if let Some(first) = first {
                            self.pattern(first, UnusedKind::Variable, true, 0, None);
                        }
                        if let Some(g) = guard {
                            self.node(g);
                        }
                    }
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                    self.e.pop(up);
                }
                // A `macro_rules!` body names what it expands to, mostly in this module.
                "macro_definition" => self.tokens(n),
                "macro_invocation" => {
                    if let Some(m) = field(n, "macro") {
                        self.node(m);
                    }
                    for c in named(n) {
                        if c.kind() == "token_tree" {
                            self.tokens(c);
                        }
                    }
                }
                "token_tree" => self.tokens(n),
                "scoped_identifier" | "scoped_type_identifier" => {
                    if let Some(p) = field(n, "path") {
                        if p.kind() == "identifier" {
                            let t = self.e.text(p);
                            self.e.reference_item(t, p.start_byte());
                        } else {
                            self.node(p);
                        }
                    }
                }
                "field_expression" => {
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                }
                "field_initializer" => {
                    if let Some(v) = field(n, "value") {
                        self.node(v);
                    }
                }
                "assignment_expression" | "compound_assignment_expr" => {
                    if let Some(l) = field(n, "left")
                        && l.kind() != "identifier"
                    {
                        self.node(l);
                    }
                    if let Some(r) = field(n, "right") {
                        self.node(r);
                    }
                }
                "mod_item" => {
                    let public = named(n).iter().any(|c| c.kind() == "visibility_modifier");
                    if let Some(b) = field(n, "body") {
                        let up = self.e.push(Scope::default());
                        self.private_mod += u32::from(!public);
                        self.body(b);
                        self.private_mod -= u32::from(!public);
                        self.e.pop(up);
                    }
                }
                _ if ITEMS.contains(&k) => {
                    let name = field(n, "name");
                    for c in all(n) {
                        if Some(c) != name {
                            self.node(c);
                        }
                    }
                }
                _ => self.body(n),
            }
        }

        /// A macro's token tree: every identifier token counts as a use of that name, and
        /// so does every `{name}` of a string literal (inline format arguments).
        fn tokens(&mut self, n: Node<'_>) {
            let mut stack = vec![n];
            while let Some(c) = stack.pop() {
                match c.kind() {
                    "string_literal" | "raw_string_literal" => {
                        let text = self.e.text(c);
                        // `{name}`, `{v:.prec$}`, `{:>width$}`: format arguments.
                        for (i, _) in text.match_indices('{') {
                            let rest = &text[i + 1..];
                            let inner = &rest[..rest.find('}').unwrap_or(0)];
                            let (arg, spec) = inner.split_once(':').unwrap_or((inner, ""));
                            // In the spec only `name$` names (`x` in `{:x}` is a format).
                            let dollars = spec.split('$').rev().skip(1).filter_map(|w| {
                                let start =
                                    w.rfind(|ch: char| !(ch.is_alphanumeric() || ch == '_'));
                                w.get(start.map_or(0, |s| s + 1)..)
                            });
                            for name in words(arg).chain(dollars.flat_map(words)) {
                                self.e.reference(name, c.start_byte());
                            }
                        }
                        // `#[serde(with = "module")]`, `deserialize_with = "a::f"`: a path.
                        let inner = text.trim_start_matches(['r', '#']).trim_matches(['"', '#']);
                        let head = inner.split("::").next().unwrap_or("");
                        if !head.is_empty()
                            && inner
                                .split("::")
                                .all(|p| !p.is_empty() && words(p).next() == Some(p))
                        {
                            self.e.reference(head, c.start_byte());
                        }
                    }
                    "identifier" | "type_identifier" | "primitive_type" => {
                        let t = self.e.text(c);
                        // `hir::Kind` in a macro: a path, which no local variable shadows.
                        if c.next_sibling().is_some_and(|s| s.kind() == "::") {
                            self.e.reference_item(t, c.start_byte());
                        } else {
                            self.e.reference(t, c.start_byte());
                        }
                    }
                    _ => stack.extend(named(c)),
                }
            }
        }

        fn function(&mut self, n: Node<'_>) {
            let body = field(n, "body");
            let up = self.e.push(Scope {
                function: true,
                ..Scope::default()
            });
            for f in ["type_parameters", "return_type"] {
                if let Some(v) = field(n, f) {
                    self.node(v);
                }
            }
            for c in named(n) {
                if c.kind() == "where_clause" || c.kind() == "attribute_item" {
                    self.node(c);
                }
            }
            if let Some(p) = field(n, "parameters") {
                for c in named(p) {
                    match c.kind() {
                        "parameter" => self.parameter(c, body.is_some()),
                        "attribute_item" => self.node(c),
                        _ => {}
                    }
                }
            }
            if let Some(b) = body {
                self.body(b);
            }
            self.e.pop(up);
        }

        fn parameter(&mut self, p: Node<'_>, report: bool) {
            if let Some(t) = field(p, "type") {
                self.node(t);
            }
            if let Some(pat) = field(p, "pattern") {
                self.pattern(pat, UnusedKind::Parameter, report, 0, None);
            }
        }

        /// Declares the bindings of a pattern; constants and unit variants (capitalised
        /// names) and paths are read.
        fn pattern(
            &mut self,
            p: Node<'_>,
            kind: UnusedKind,
            report: bool,
            visible_from: usize,
            statement: Option<Node<'_>>,
        ) {
            match p.kind() {
                "identifier" => {
                    let key = self.e.text(p);
                    if key.chars().next().is_some_and(|c| c.is_uppercase()) {
                        self.e.reference(key, p.start_byte());
                        return;
                    }
                    let report = report && !key.starts_with('_');
                    let reason = if kind == UnusedKind::Parameter {
                        PARAM
                    } else {
                        ASSIGNED
                    };
                    self.declare(key, p, kind, statement, visible_from, report, reason);
                }
                "shorthand_field_identifier" => {
                    let key = self.e.text(p);
                    let report = report && !key.starts_with('_');
                    self.declare(key, p, kind, statement, visible_from, report, ASSIGNED);
                }
                "or_pattern" => {
                    // Every alternative binds the same names: the first one declares them.
                    let parts = named(p);
                    if let Some(first) = parts.first() {
                        self.pattern(*first, kind, report, visible_from, statement);
                    }
                    for other in parts.iter().skip(1) {
                        self.pattern_reads(*other);
                    }
                }
                "tuple_struct_pattern" | "struct_pattern" => {
                    if let Some(t) = field(p, "type") {
                        self.node(t);
                    }
                    for c in named(p) {
                        if Some(c) == field(p, "type") {
                            continue;
                        }
                        self.pattern(c, kind, report, visible_from, statement);
                    }
                }
                "field_pattern" => {
                    if let Some(sub) = field(p, "pattern") {
                        self.pattern(sub, kind, report, visible_from, statement);
                    } else {
                        for c in named(p) {
                            if c.kind() == "shorthand_field_identifier" {
                                self.pattern(c, kind, report, visible_from, statement);
                            }
                        }
                    }
                }
                "captured_pattern" => {
                    for c in named(p) {
                        self.pattern(c, kind, report, visible_from, statement);
                    }
                }
                "tuple_pattern" | "slice_pattern" | "mut_pattern" | "ref_pattern"
                | "reference_pattern" | "match_pattern" => {
                    for c in named(p) {
                        self.pattern(c, kind, report, visible_from, statement);
                    }
                }
                "self" | "mutable_specifier" | "_" | "remaining_field_pattern" => {}
                _ => self.node(p),
            }
        }

        /// The other alternatives of an or-pattern: only their paths are reads.
        fn pattern_reads(&mut self, p: Node<'_>) {
            let mut stack = vec![p];
            while let Some(c) = stack.pop() {
                match c.kind() {
                    "identifier" => {
                        let t = self.e.text(c);
                        if t.chars().next().is_some_and(|ch| ch.is_uppercase()) {
                            self.e.reference(t, c.start_byte());
                        }
                    }
                    "scoped_identifier" | "scoped_type_identifier" | "type_identifier" => {
                        self.node(c)
                    }
                    _ => stack.extend(named(c)),
                }
            }
        }

        fn use_decl(&mut self, n: Node<'_>) {
            let visibility = named(n)
                .into_iter()
                .find(|c| c.kind() == "visibility_modifier");
            // `pub use` re-exports (unless in a private inline module); `pub(crate) use` and
            // narrower do not.
            // Any visibility: other modules of the crate may use it, which one file cannot
            // tell (rustc reports an unused `pub(crate) use`; this does not).
            let reexport = visibility.is_some() && self.private_mod == 0;
            let Some(arg) = field(n, "argument") else {
                return;
            };
            // `use common::Fixture;` reads `common` (itself perhaps an import).
            let first = arg.kind().contains("scoped").then(|| {
                let mut p = arg;
                while let Some(inner) = field(p, "path") {
                    p = inner;
                }
                p
            });
            if let Some(p) = first.filter(|p| p.kind() == "identifier") {
                let t = self.e.text(p);
                self.e.reference_item(t, p.start_byte());
            }
            let mut leaves = Vec::new();
            use_leaves(self.e.file, arg, None, &mut leaves);
            for (key, node) in leaves {
                if matches!(key.as_str(), "crate" | "super" | "self" | "_") {
                    continue;
                }
                let report = !reexport && !is_trait_like(&key);
                self.declare(&key, node, UnusedKind::Import, Some(n), 0, report, IMPORTED);
            }
        }
    }

    /// The names a use tree binds, each with the node rustc points at.
    fn use_leaves<'t>(
        file: &SourceFile,
        n: Node<'t>,
        prefix_last: Option<&str>,
        out: &mut Vec<(String, Node<'t>)>,
    ) {
        match n.kind() {
            "identifier" => out.push((file.text_of(n).to_string(), n)),
            "scoped_identifier" => {
                if let Some(name) = field(n, "name") {
                    let t = file.text_of(name);
                    if t == "self" {
                        if let Some(p) = field(n, "path") {
                            let last = file.text_of(p).rsplit("::").next().unwrap_or("");
                            out.push((last.to_string(), n));
                        }
                    } else {
                        out.push((t.to_string(), n));
                    }
                }
            }
            "self" => {
                if let Some(last) = prefix_last {
                    out.push((last.to_string(), n));
                }
            }
            "use_as_clause" => {
                if let Some(alias) = field(n, "alias") {
                    out.push((file.text_of(alias).to_string(), n));
                }
            }
            "scoped_use_list" => {
                let last = field(n, "path").map(|p| {
                    file.text_of(p)
                        .rsplit("::")
                        .next()
                        .unwrap_or("")
                        .to_string()
                });
                if let Some(list) = field(n, "list") {
                    use_leaves(file, list, last.as_deref(), out);
                }
            }
            "use_list" => {
                for c in named(n) {
                    use_leaves(file, c, prefix_last, out);
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// Go: the compiler's "imported and not used" and "declared and not used" (local variables;
// parameters and package-level names are never errors).

mod go {
    use super::*;

    pub(super) fn run(file: &SourceFile, max_depth: u32) -> Vec<Unused> {
        let mut w = Walk {
            e: Engine::new(file, false, max_depth),
        };
        w.body(file.root());
        w.e.finish()
    }

    struct Walk<'f> {
        e: Engine<'f>,
    }

    /// The package name an import path binds when the import has no name: its last
    /// element, without a `.vN`/`/vN` version or a `go-` prefix.
    pub(super) fn package_name(path: &str) -> String {
        let mut parts: Vec<&str> = path.split('/').collect();
        if parts.len() > 1
            && let Some(last) = parts.last()
        {
            let is_version = last.len() > 1
                && last.starts_with('v')
                && last[1..].chars().all(|c| c.is_ascii_digit());
            if is_version {
                parts.pop();
            }
        }
        let last = parts.last().copied().unwrap_or("");
        let last = match last.rsplit_once(".v") {
            Some((base, v)) if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) => base,
            _ => last,
        };
        let last = last.strip_prefix("go-").unwrap_or(last);
        let last = last.strip_suffix("-go").unwrap_or(last);
        last.replace(['-', '.'], "_")
    }

    impl Walk<'_> {
        fn body(&mut self, n: Node<'_>) {
            for c in all(n) {
                self.node(c);
            }
        }

        fn in_function(&self) -> bool {
            self.e.current != 0
        }

        fn var(
            &mut self,
            id: Node<'_>,
            statement: Option<Node<'_>>,
            visible_from: usize,
            report: bool,
        ) {
            let key = self.e.text(id);
            if key == "_" {
                return;
            }
            let report = report && self.in_function();
            self.e.declare(
                key,
                id,
                UnusedKind::Variable,
                "variable",
                statement,
                visible_from,
                report,
                ASSIGNED,
            );
        }

        fn node(&mut self, n: Node<'_>) {
            if self.e.depth >= self.e.max_depth {
                self.e.flat(n);
                return;
            }
            self.e.depth += 1;
            self.node_inner(n);
            self.e.depth -= 1;
        }

        fn node_inner(&mut self, n: Node<'_>) {
            let k = n.kind();
            match k {
                "identifier" | "type_identifier" | "package_identifier" => {
                    let t = self.e.text(n);
                    self.e.reference(t, n.start_byte());
                }
                "comment"
                | "field_identifier"
                | "label_name"
                | "interpreted_string_literal"
                | "raw_string_literal" => {}
                "import_spec" => {
                    let name = field(n, "name");
                    let path = field(n, "path")
                        .map(|p| self.e.text(p).trim_matches(|c| c == '"' || c == '`'))
                        .unwrap_or("");
                    let key = match name {
                        Some(nm) => self.e.text(nm).to_string(),
                        None => package_name(path),
                    };
                    if key == "_" || key == "." || key.is_empty() {
                        return;
                    }
                    let statement = n.parent().and_then(|p| {
                        if p.kind() == "import_spec_list" {
                            p.parent()
                        } else {
                            Some(p)
                        }
                    });
                    self.e.declare(
                        &key,
                        n,
                        UnusedKind::Import,
                        "module",
                        statement,
                        0,
                        true,
                        IMPORTED,
                    );
                }
                "function_declaration" | "method_declaration" | "func_literal" => {
                    let up = self.e.push(Scope {
                        function: true,
                        ..Scope::default()
                    });
                    for c in named(n) {
                        match c.kind() {
                            "parameter_list" => self.params(c),
                            "block" => self.body(c),
                            "identifier" | "field_identifier" if Some(c) == field(n, "name") => {}
                            _ => self.node(c),
                        }
                    }
                    self.e.pop(up);
                }
                "block"
                | "if_statement"
                | "for_statement"
                | "expression_switch_statement"
                | "select_statement"
                | "expression_case"
                | "default_case"
                | "type_case"
                | "communication_case" => {
                    let up = self.e.push(Scope::default());
                    self.body(n);
                    self.e.pop(up);
                }
                "type_switch_statement" => {
                    let up = self.e.push(Scope::default());
                    let alias = field(n, "alias");
                    for c in all(n) {
                        if Some(c) == alias {
                            continue;
                        }
                        if Some(c) == field(n, "value") {
                            self.node(c);
                            if let Some(a) = alias {
                                for id in named(a) {
                                    self.var(id, None, 0, true);
                                }
                            }
                            continue;
                        }
                        self.node(c);
                    }
                    self.e.pop(up);
                }
                "short_var_declaration" | "receive_statement" | "range_clause" => {
                    let left = field(n, "left");
                    let declares =
                        k == "short_var_declaration" || all(n).iter().any(|c| c.kind() == ":=");
                    for c in all(n) {
                        if Some(c) != left {
                            self.node(c);
                        }
                    }
                    let Some(l) = left else { return };
                    if !declares {
                        self.write(l);
                        return;
                    }
                    for id in named(l) {
                        if id.kind() != "identifier" {
                            continue;
                        }
                        let key = self.e.text(id);
                        if self.e.declared_here(key) {
                            continue;
                        }
                        let stmt = if k == "range_clause" { None } else { Some(n) };
                        self.var(id, stmt, n.end_byte(), true);
                    }
                }
                "var_spec" | "const_spec" => {
                    let mut cursor = n.walk();
                    let names: Vec<Node<'_>> =
                        n.children_by_field_name("name", &mut cursor).collect();
                    let mut declared = Vec::new();
                    for c in all(n) {
                        if c.kind() == "identifier" && names.contains(&c) {
                            declared.push(c);
                        } else {
                            self.node(c);
                        }
                    }
                    let stmt = n.parent();
                    for id in declared {
                        self.var(id, stmt, n.end_byte(), k == "var_spec");
                    }
                }
                "assignment_statement" => {
                    let op = field(n, "operator").map(|o| self.e.text(o)).unwrap_or("=");
                    if let Some(l) = field(n, "left") {
                        if op == "=" {
                            self.write(l);
                        } else {
                            self.node(l);
                        }
                    }
                    if let Some(r) = field(n, "right") {
                        self.node(r);
                    }
                }
                "selector_expression" => {
                    if let Some(o) = field(n, "operand") {
                        self.node(o);
                    }
                }
                "qualified_type" => {
                    if let Some(p) = field(n, "package") {
                        self.node(p);
                    }
                }
                "parameter_declaration" | "variadic_parameter_declaration" => {
                    if let Some(t) = field(n, "type") {
                        self.node(t);
                    }
                }
                "type_spec" | "type_alias" => {
                    for c in all(n) {
                        if Some(c) != field(n, "name") {
                            self.node(c);
                        }
                    }
                }
                "labeled_statement" => {
                    for c in named(n).into_iter().skip(1) {
                        self.node(c);
                    }
                }
                _ => self.body(n),
            }
        }

        /// Assigned with `=`: a bare name is written, not used.
        fn write(&mut self, l: Node<'_>) {
            for c in named(l) {
                if c.kind() != "identifier" {
                    self.node(c);
                }
            }
        }

        fn params(&mut self, list: Node<'_>) {
            for p in named(list) {
                if let Some(t) = field(p, "type") {
                    self.node(t);
                }
                for c in named(p) {
                    if c.kind() == "identifier" {
                        let key = self.e.text(c);
                        self.e.declare(
                            key,
                            c,
                            UnusedKind::Parameter,
                            "variable",
                            None,
                            0,
                            false,
                            PARAM,
                        );
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// C: gcc's -Wunused-variable and -Wunused-but-set-variable for locals (unused static
// functions are symbols: see `dead`). Macros are not expanded: a name a macro's body
// reads is not seen, one passed to a macro is.

mod c {
    use super::*;

    pub(super) fn run(file: &SourceFile, max_depth: u32) -> Vec<Unused> {
        let mut w = Walk {
            e: Engine::new(file, false, max_depth),
        };
        w.body(file.root());
        w.e.finish()
    }

    struct Walk<'f> {
        e: Engine<'f>,
    }

    /// The name a declarator declares (`*p`, `a[3]`, `x = 1` → `p`, `a`, `x`); `None` for a
    /// function declarator (a prototype declares no variable).
    fn declared_name(d: Node<'_>) -> Option<Node<'_>> {
        let mut d = d;
        loop {
            match d.kind() {
                "identifier" => return Some(d),
                "function_declarator" => return None,
                "init_declarator"
                | "pointer_declarator"
                | "array_declarator"
                | "parenthesized_declarator"
                | "attributed_declarator" => {
                    d = field(d, "declarator").or_else(|| named(d).into_iter().next())?;
                }
                _ => return None,
            }
        }
    }

    impl Walk<'_> {
        fn body(&mut self, n: Node<'_>) {
            for c in all(n) {
                self.node(c);
            }
        }

        fn node(&mut self, n: Node<'_>) {
            if self.e.depth >= self.e.max_depth {
                self.e.flat(n);
                return;
            }
            self.e.depth += 1;
            self.node_inner(n);
            self.e.depth -= 1;
        }

        fn node_inner(&mut self, n: Node<'_>) {
            match n.kind() {
                "identifier" => {
                    let t = self.e.text(n);
                    self.e.reference(t, n.start_byte());
                }
                "comment"
                | "field_identifier"
                | "string_literal"
                | "char_literal"
                | "preproc_include"
                | "statement_identifier" => {}
                // A macro body reads, where it expands, the names it mentions.
                "preproc_arg" => {
                    let text = self.e.text(n);
                    for w in words(text) {
                        self.e.reference(w, n.start_byte());
                    }
                }
                "function_definition" => {
                    let up = self.e.push(Scope {
                        function: true,
                        ..Scope::default()
                    });
                    if let Some(d) = field(n, "declarator") {
                        self.parameters(d);
                    }
                    if let Some(b) = field(n, "body") {
                        self.body(b);
                    }
                    self.e.pop(up);
                }
                "compound_statement" | "for_statement" => {
                    let up = self.e.push(Scope::default());
                    self.body(n);
                    self.e.pop(up);
                }
                "declaration" => {
                    let local = self.e.current != 0;
                    let storage = |word: &str| {
                        named(n).iter().any(|c| {
                            c.kind() == "storage_class_specifier" && self.e.text(*c) == word
                        })
                    };
                    let is_static = storage("static");
                    for c in all(n) {
                        if let Some(v) = field(c, "value").filter(|_| c.kind() == "init_declarator")
                        {
                            self.node(v);
                        }
                        match declared_name(c) {
                            Some(name) if Some(c) != field(n, "type") => {
                                let key = self.e.text(name);
                                // gcc: any local (an `extern` one too), or a file's `static`.
                                let report = local || is_static;
                                // Seen from the end of its own declarator: `a = 1, b = a`.
                                let at = c.end_byte();
                                self.e.declare(
                                    key,
                                    name,
                                    UnusedKind::Variable,
                                    "variable",
                                    Some(n),
                                    at,
                                    report,
                                    ASSIGNED,
                                );
                                // Array sizes and the like read names.
                                if c.kind() != "identifier" && c.kind() != "init_declarator" {
                                    self.node(c);
                                }
                            }
                            _ => self.node(c),
                        }
                    }
                }
                "assignment_expression" => {
                    let op = field(n, "operator").map(|o| self.e.text(o)).unwrap_or("=");
                    if let Some(l) = field(n, "left") {
                        // `x = …` sets `x` without using it; `x += …` uses it.
                        if !(op == "=" && l.kind() == "identifier") {
                            self.node(l);
                        }
                    }
                    if let Some(r) = field(n, "right") {
                        self.node(r);
                    }
                }
                "field_expression" => {
                    if let Some(a) = field(n, "argument") {
                        self.node(a);
                    }
                }
                "labeled_statement" => {
                    for c in named(n).into_iter().skip(1) {
                        self.node(c);
                    }
                }
                _ => self.body(n),
            }
        }

        /// Parameters are declared (so they shadow), never reported: gcc reports unused
        /// parameters only with -Wextra.
        fn parameters(&mut self, d: Node<'_>) {
            let mut stack = vec![d];
            while let Some(x) = stack.pop() {
                if x.kind() == "parameter_declaration" {
                    if let Some(name) = field(x, "declarator").and_then(declared_name) {
                        let key = self.e.text(name);
                        self.e.declare(
                            key,
                            name,
                            UnusedKind::Parameter,
                            "variable",
                            None,
                            0,
                            false,
                            PARAM,
                        );
                    }
                    continue;
                }
                if x.kind() == "identifier"
                    && x.parent()
                        .is_some_and(|p| p.kind() == "function_declarator")
                {
                    continue;
                }
                stack.extend(named(x));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Unreachable statements: after a statement that never completes, in the same block.

fn unreachable(file: &SourceFile) -> Vec<Unused> {
    let blocks: &[&str] = match file.dialect {
        Dialect::Python => &["block"],
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            &["statement_block", "switch_case", "switch_default"]
        }
        Dialect::Rust => &["block"],
        Dialect::Go => &[
            "block",
            "statement_list",
            "expression_case",
            "default_case",
            "type_case",
            "communication_case",
        ],
        Dialect::C | Dialect::Cpp => &["compound_statement", "case_statement"],
    };
    let mut out = Vec::new();
    let mut stack = vec![file.root()];
    while let Some(n) = stack.pop() {
        stack.extend(named(n));
        if !blocks.contains(&n.kind()) {
            continue;
        }
        let stmts: Vec<Node<'_>> = named(n).into_iter().filter(|c| !is_comment(*c)).collect();
        let Some(at) = stmts.iter().position(|s| terminates(file, *s)) else {
            continue;
        };
        let mut dead: Vec<Node<'_>> = Vec::new();
        for s in &stmts[at + 1..] {
            if reachable_again(file, *s) {
                break;
            }
            if !hoisted(file, *s) {
                dead.push(*s);
            }
        }
        let (Some(first), Some(last)) = (dead.first(), dead.last()) else {
            continue;
        };
        let terminator = stmts[at];
        let line = file.text_of(*first).lines().next().unwrap_or("").trim();
        let name: String = line.chars().take(80).collect();
        let what = file
            .text_of(terminator)
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.')
            .find(|w| !w.is_empty())
            .unwrap_or("");
        out.push(Unused {
            kind: UnusedKind::Unreachable,
            file: file.path.clone(),
            name,
            span: Span {
                start: file.pos(first.start_byte()),
                end: file.pos(last.end_byte()),
            },
            symbol_kind: "statement",
            statement: None,
            exported: false,
            reason: format!("follows `{what}` in the same block, so it never runs"),
        });
    }
    out
}

/// A statement after which the rest of its block never runs.
fn terminates(file: &SourceFile, s: Node<'_>) -> bool {
    let k = s.kind();
    match file.dialect {
        Dialect::Python => matches!(
            k,
            "return_statement" | "raise_statement" | "break_statement" | "continue_statement"
        ),
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            matches!(
                k,
                "return_statement" | "throw_statement" | "break_statement" | "continue_statement"
            )
        }
        Dialect::Rust => {
            // `#[cfg(…)] return …;` may not be compiled at all.
            let cfg = s.prev_named_sibling().is_some_and(|p| {
                let t = file.text_of(p);
                p.kind() == "attribute_item" && t.contains("cfg(") && !t.contains("cfg_attr(")
            });
            if cfg {
                return false;
            }
            let e = if k == "expression_statement" {
                s.named_child(0)
            } else {
                Some(s)
            };
            let Some(e) = e else { return false };
            match e.kind() {
                "return_expression" | "break_expression" | "continue_expression" => true,
                "macro_invocation" => field(e, "macro").is_some_and(|m| {
                    let name = file.text_of(m);
                    let name = name.rsplit("::").next().unwrap_or(name);
                    matches!(name, "panic" | "unreachable" | "todo" | "unimplemented")
                }),
                _ => false,
            }
        }
        Dialect::Go => match k {
            "return_statement" | "break_statement" | "continue_statement" | "goto_statement" => {
                true
            }
            "expression_statement" => s.named_child(0).is_some_and(|c| {
                c.kind() == "call_expression"
                    && field(c, "function").is_some_and(|f| {
                        matches!(
                            file.text_of(f),
                            "panic"
                                | "os.Exit"
                                | "log.Fatal"
                                | "log.Fatalf"
                                | "log.Fatalln"
                                | "log.Panic"
                                | "log.Panicf"
                        )
                    })
            }),
            _ => false,
        },
        Dialect::C | Dialect::Cpp => matches!(
            k,
            "return_statement" | "break_statement" | "continue_statement" | "goto_statement"
        ),
    }
}

/// A statement control can reach again although it follows a terminator: a label (`goto`
/// target) or a C `case`.
fn reachable_again(file: &SourceFile, s: Node<'_>) -> bool {
    match file.dialect {
        Dialect::Go | Dialect::C | Dialect::Cpp => {
            matches!(s.kind(), "labeled_statement" | "case_statement")
        }
        _ => false,
    }
}

/// A declaration that takes effect before the block runs (JavaScript function
/// declarations, Rust items, TypeScript types): not unreachable code.
fn hoisted(file: &SourceFile, s: Node<'_>) -> bool {
    let k = s.kind();
    match file.dialect {
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => matches!(
            k,
            "function_declaration"
                | "generator_function_declaration"
                | "interface_declaration"
                | "type_alias_declaration"
                | "empty_statement"
        ),
        Dialect::Rust => {
            k.ends_with("_item")
                || matches!(
                    k,
                    "use_declaration" | "macro_definition" | "attribute_item" | "empty_statement"
                )
        }
        _ => false,
    }
}
