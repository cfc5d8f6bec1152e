//! The structure of a checkout's code: each file's outline of symbols (as a language
//! server's `documentSymbol` gives it), the type relations written in the source (extends,
//! implements, supertraits, embedding), the inheritance hierarchy built from them across
//! files, and the modules the files make up.
//!
//! Kinds are LSP's `SymbolKind` names in lower case, chosen as the language's own server
//! reports them (rust-analyzer for Rust: a type alias is a `typeparameter`, a `static` a
//! `constant`, a `macro_rules!` a `function`; pyright for Python: `__init__` is a
//! `constructor`, a `@property` a `property`; gopls for Go: a named type that is neither a
//! struct nor an interface is a `class`). Names are resolved by their last segment, not by
//! a type checker: two types of one name in different files are one node of the hierarchy.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::{Dialect, SourceFile, Span};

/// Every kind a [`Symbol`] can have: LSP's `SymbolKind` names in lower case, for checking
/// a `symbol_kinds` option.
pub const SYMBOL_KINDS: [&str; 26] = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enummember",
    "struct",
    "event",
    "operator",
    "typeparameter",
];

/// One declaration of a file's outline.
#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    pub file: String,
    pub name: String,
    /// The name with what encloses it: `Type::method` and `module::f` in Rust,
    /// `Class.method`, `Namespace.f`, `Type.Method` elsewhere.
    pub qualified: String,
    /// LSP's `SymbolKind` name in lower case (one of [`SYMBOL_KINDS`]).
    pub symbol_kind: &'static str,
    /// The whole declaration (decorators included in Python).
    pub span: Span,
    pub name_span: Span,
    /// Visible outside its module or package: Rust `pub` (a `pub(..)` is not), exported in
    /// TypeScript/JavaScript (class members not `private` or `#x`), no leading underscore in
    /// Python (dunders are public), capitalised in Go, not `static` in C. Nothing declared
    /// inside a function is public.
    pub public: bool,
    /// The index in the same `Vec` of the symbol this one belongs to: a method's type (for
    /// Rust impl blocks and Go receivers, when the type is declared in the same file), a
    /// field's struct, a nested function's function.
    pub parent: Option<usize>,
    /// How many symbols name this one as their parent.
    pub children: u32,
}

/// How one type is related to another in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RelationKind {
    /// A class's base class, an interface's base interface, a Rust supertrait, a Go
    /// embedded struct or interface.
    Extends,
    /// A TypeScript `implements`, a Rust `impl Trait for Type`, and (from [`hierarchy`])
    /// a Go type whose methods cover an interface's.
    Implements,
}

/// A type relation as written: `child` extends or implements `parent`.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRelation {
    pub file: String,
    /// The type's own name.
    pub child: String,
    /// The name as written, without type arguments: `Base`, `fmt::Display`, `abc.ABC`,
    /// `io.Reader`.
    pub parent: String,
    pub kind: RelationKind,
    /// Where the parent is named (for a Go interface satisfied without naming it, the
    /// type's name).
    pub span: Span,
}

/// A type a hierarchy holds: a class, struct, enum, interface or trait.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDecl {
    pub file: String,
    pub name: String,
    pub qualified: String,
    pub symbol_kind: &'static str,
    pub span: Span,
    pub name_span: Span,
    pub public: bool,
    /// A TypeScript or Go interface, a Rust trait, a Python class deriving `Protocol` or
    /// `ABC`: what [`Hierarchy::implementations`] counts for.
    pub interface: bool,
}

/// The types of a checkout and the relations between them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hierarchy {
    /// In file order, then source order.
    pub types: Vec<TypeDecl>,
    /// The relations of [`relations`] for every file, then the Go interfaces satisfied.
    pub relations: Vec<TypeRelation>,
    /// Indices into `relations` by the last segment of the child's and the parent's name.
    by_child: BTreeMap<String, Vec<usize>>,
    by_parent: BTreeMap<String, Vec<usize>>,
    interfaces: BTreeSet<String>,
}

/// Deeper chains than this are cut (a guard against generated code, not a real limit).
const MAX_DEPTH: u32 = 64;

impl Hierarchy {
    /// The longest chain of [`RelationKind::Extends`] from `name` to a root: 0 for a type
    /// that extends nothing, 1 for one extending a root or a type the checkout does not
    /// declare (a library's), and so on. A cycle (broken code) is not followed twice.
    pub fn inheritance_depth(&self, name: &str) -> u32 {
        let mut path = Vec::new();
        self.depth(last_segment(name), &mut path)
    }

    fn depth<'a>(&'a self, name: &'a str, path: &mut Vec<&'a str>) -> u32 {
        if path.len() as u32 >= MAX_DEPTH || path.contains(&name) {
            return 0;
        }
        let Some(rels) = self.by_child.get(name) else {
            return 0;
        };
        path.push(name);
        let mut deepest = 0;
        for &i in rels {
            let r = &self.relations[i];
            if r.kind == RelationKind::Extends {
                deepest = deepest.max(1 + self.depth(last_segment(&r.parent), path));
            }
        }
        path.pop();
        deepest
    }

    /// What implements the interface or trait `name`: `implements` clauses, Rust trait
    /// impls, Go types whose methods cover the interface's, and classes (not interfaces)
    /// extending it when it is an interface (a Python protocol or ABC).
    pub fn implementations(&self, name: &str) -> Vec<&TypeRelation> {
        let name = last_segment(name);
        let is_interface = self.interfaces.contains(name);
        self.by_parent
            .get(name)
            .into_iter()
            .flatten()
            .map(|&i| &self.relations[i])
            .filter(|r| match r.kind {
                RelationKind::Implements => true,
                RelationKind::Extends => is_interface && !self.interfaces.contains(&r.child),
            })
            .collect()
    }

    /// The types directly extending `name` (its subclasses, subinterfaces, subtraits,
    /// the structs embedding it).
    pub fn children(&self, name: &str) -> Vec<&TypeRelation> {
        self.by_parent
            .get(last_segment(name))
            .into_iter()
            .flatten()
            .map(|&i| &self.relations[i])
            .filter(|r| r.kind == RelationKind::Extends)
            .collect()
    }

    /// The interfaces, traits and protocols, in file and source order.
    pub fn interfaces(&self) -> Vec<&TypeDecl> {
        self.types.iter().filter(|t| t.interface).collect()
    }
}

/// A module of the checkout: a directory, a Rust module, a Python package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// A Rust module by its path under its crate (`crate::parse` for `src/parse.rs`,
    /// `crates/core::ids` for `crates/core/src/ids.rs`); a Python package dotted
    /// (`tomlkit.toml_file`, a leading `src/` dropped); else the directory (`.` for the
    /// root).
    pub path: String,
    pub files: u32,
    pub symbols: u32,
    pub public_symbols: u32,
}

/// The modules the files make up, with what they declare, sorted by path.
pub fn modules(files: &[SourceFile]) -> Vec<Module> {
    let mut by_path: BTreeMap<String, Module> = BTreeMap::new();
    for file in files {
        let path = module_path(file);
        let syms = symbols(file);
        let m = by_path.entry(path.clone()).or_insert(Module {
            path,
            files: 0,
            symbols: 0,
            public_symbols: 0,
        });
        m.files += 1;
        m.symbols += count(syms.len());
        m.public_symbols += count(syms.iter().filter(|s| s.public).count());
    }
    by_path.into_values().collect()
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn module_path(file: &SourceFile) -> String {
    let parts: Vec<&str> = file.path.split('/').collect();
    let (dirs, name) = parts.split_at(parts.len().saturating_sub(1));
    let directory = || {
        if dirs.is_empty() {
            ".".to_owned()
        } else {
            dirs.join("/")
        }
    };
    match file.dialect {
        Dialect::Rust => {
            let Some(src) = dirs.iter().rposition(|d| *d == "src") else {
                return directory();
            };
            let krate = if src == 0 {
                "crate".to_owned()
            } else {
                dirs[..src].join("/")
            };
            let mut path: Vec<&str> = dirs[src + 1..].to_vec();
            let stem = name
                .first()
                .map_or("", |n| n.strip_suffix(".rs").unwrap_or(n));
            if !(path.is_empty() && matches!(stem, "lib" | "main")) && stem != "mod" {
                path.push(stem);
            }
            std::iter::once(krate.as_str())
                .chain(path)
                .collect::<Vec<_>>()
                .join("::")
        }
        Dialect::Python => {
            let dirs = match dirs.first() {
                Some(&"src") => &dirs[1..],
                _ => dirs,
            };
            if dirs.is_empty() {
                ".".to_owned()
            } else {
                dirs.join(".")
            }
        }
        _ => directory(),
    }
}

/// The type relations written in one file.
pub fn relations(file: &SourceFile) -> Vec<TypeRelation> {
    let mut out = Vec::new();
    let mut add = |child: &str, parent: Node<'_>, kind: RelationKind| {
        if let Some(name) = type_name(file, parent) {
            if child.is_empty() || name.is_empty() || name == "object" {
                return;
            }
            out.push(TypeRelation {
                file: file.path.clone(),
                child: child.to_owned(),
                parent: name,
                kind,
                span: file.span(parent),
            });
        }
    };
    preorder(file.root(), |n| {
        let name = || {
            n.child_by_field_name("name")
                .map_or(String::new(), |n| file.text_of(n).to_owned())
        };
        match (file.dialect, n.kind()) {
            (Dialect::Rust, "impl_item") => {
                if let (Some(tr), Some(ty)) = (
                    n.child_by_field_name("trait"),
                    n.child_by_field_name("type"),
                ) {
                    let negative = n.children(&mut n.walk()).any(|c| c.kind() == "!");
                    if !negative {
                        add(&rust_owner(file, ty), tr, RelationKind::Implements);
                    }
                }
            }
            (Dialect::Rust, "trait_item") => {
                if let Some(bounds) = n.child_by_field_name("bounds") {
                    let child = name();
                    for b in named_children(bounds) {
                        add(&child, b, RelationKind::Extends);
                    }
                }
            }
            (
                Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx,
                "class_declaration" | "abstract_class_declaration" | "class",
            ) => {
                let child = name();
                for heritage in named_children(n).filter(|c| c.kind() == "class_heritage") {
                    for clause in named_children(heritage) {
                        match clause.kind() {
                            "extends_clause" => {
                                let mut c = clause.walk();
                                for v in clause.children_by_field_name("value", &mut c) {
                                    add(&child, v, RelationKind::Extends);
                                }
                            }
                            "implements_clause" => {
                                for t in named_children(clause) {
                                    add(&child, t, RelationKind::Implements);
                                }
                            }
                            // JavaScript: `class_heritage` holds the expression itself.
                            _ => add(&child, clause, RelationKind::Extends),
                        }
                    }
                }
            }
            (Dialect::TypeScript | Dialect::Tsx, "interface_declaration") => {
                let child = name();
                for clause in named_children(n).filter(|c| c.kind() == "extends_type_clause") {
                    let mut c = clause.walk();
                    for t in clause.children_by_field_name("type", &mut c) {
                        add(&child, t, RelationKind::Extends);
                    }
                }
            }
            (Dialect::Python, "class_definition") => {
                if let Some(bases) = n.child_by_field_name("superclasses") {
                    let child = name();
                    for b in named_children(bases) {
                        add(&child, b, RelationKind::Extends);
                    }
                }
            }
            (Dialect::Go, "type_spec") => {
                let child = name();
                match n.child_by_field_name("type").map(|t| (t.kind(), t)) {
                    Some(("struct_type", t)) => {
                        for list in named_children(t) {
                            for field in named_children(list) {
                                if field.kind() == "field_declaration"
                                    && field.child_by_field_name("name").is_none()
                                    && let Some(ty) = field.child_by_field_name("type")
                                {
                                    add(&child, ty, RelationKind::Extends);
                                }
                            }
                        }
                    }
                    Some(("interface_type", t)) => {
                        for elem in named_children(t).filter(|e| e.kind() == "type_elem") {
                            let mut types = named_children(elem);
                            if let (Some(only), None) = (types.next(), types.next()) {
                                add(&child, only, RelationKind::Extends);
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        true
    });
    out
}

/// The types of all files and their relations, with Go's implicit interface satisfaction
/// worked out from method names (not signatures: a type with a method of the right name
/// but another signature is counted).
pub fn hierarchy(files: &[SourceFile]) -> Hierarchy {
    let mut h = Hierarchy::default();
    let mut go = GoMethods::default();
    for file in files {
        let syms = symbols(file);
        let rels = relations(file);
        for s in &syms {
            if !matches!(s.symbol_kind, "class" | "struct" | "interface" | "enum") {
                continue;
            }
            let interface = s.symbol_kind == "interface"
                || (file.dialect == Dialect::Python
                    && rels.iter().any(|r| {
                        r.child == s.name && matches!(last_segment(&r.parent), "Protocol" | "ABC")
                    }));
            h.types.push(TypeDecl {
                file: s.file.clone(),
                name: s.name.clone(),
                qualified: s.qualified.clone(),
                symbol_kind: s.symbol_kind,
                span: s.span,
                name_span: s.name_span,
                public: s.public,
                interface,
            });
        }
        if file.dialect == Dialect::Go {
            go.read(file, &syms, &rels);
        }
        h.relations.extend(rels);
    }
    h.relations.extend(go.satisfied());
    for t in h.types.iter().filter(|t| t.interface) {
        h.interfaces.insert(t.name.clone());
    }
    for (i, r) in h.relations.iter().enumerate() {
        h.by_child
            .entry(last_segment(&r.child).to_owned())
            .or_default()
            .push(i);
        h.by_parent
            .entry(last_segment(&r.parent).to_owned())
            .or_default()
            .push(i);
    }
    h
}

/// Go's method sets by package directory and type, to find the interfaces a type
/// satisfies without naming them.
#[derive(Default)]
struct GoMethods {
    /// (directory, type) → method names, for every named non-interface type.
    types: BTreeMap<(String, String), (String, Span, BTreeSet<String>)>,
    /// Interface name → its own methods and the interfaces it embeds.
    interfaces: BTreeMap<String, (BTreeSet<String>, Vec<String>)>,
}

impl GoMethods {
    fn read(&mut self, file: &SourceFile, syms: &[Symbol], rels: &[TypeRelation]) {
        let dir = file.path.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
        for s in syms {
            match s.symbol_kind {
                "struct" | "class" => {
                    let e = self.types.entry((dir.clone(), s.name.clone())).or_default();
                    e.0.clone_from(&file.path);
                    e.1 = s.name_span;
                }
                "interface" => {
                    let own = syms
                        .iter()
                        .filter(|m| m.parent.is_some_and(|p| syms[p].qualified == s.qualified))
                        .map(|m| m.name.clone())
                        .collect();
                    let embeds = rels
                        .iter()
                        .filter(|r| r.child == s.name)
                        .map(|r| r.parent.clone())
                        .collect();
                    self.interfaces.insert(s.name.clone(), (own, embeds));
                }
                _ => {}
            }
        }
        for s in syms.iter().filter(|s| s.symbol_kind == "method") {
            if let Some((owner, _)) = s.qualified.rsplit_once('.')
                && !self.interfaces.contains_key(owner)
            {
                self.types
                    .entry((dir.clone(), owner.to_owned()))
                    .or_default()
                    .2
                    .insert(s.name.clone());
            }
        }
    }

    /// An interface's whole method set, `None` when it embeds one the checkout does not
    /// declare (its methods are unknown).
    fn method_set(&self, name: &str, seen: &mut Vec<String>) -> Option<BTreeSet<String>> {
        if seen.iter().any(|s| s == name) || seen.len() as u32 >= MAX_DEPTH {
            return Some(BTreeSet::new());
        }
        let (own, embeds) = self.interfaces.get(last_segment(name))?;
        seen.push(name.to_owned());
        let mut all = own.clone();
        for e in embeds {
            all.extend(self.method_set(e, seen)?);
        }
        seen.pop();
        Some(all)
    }

    fn satisfied(&self) -> Vec<TypeRelation> {
        let mut out = Vec::new();
        for iface in self.interfaces.keys() {
            let Some(needed) = self.method_set(iface, &mut Vec::new()) else {
                continue;
            };
            if needed.is_empty() {
                continue;
            }
            for ((_, ty), (file, span, methods)) in &self.types {
                if !file.is_empty() && needed.is_subset(methods) {
                    out.push(TypeRelation {
                        file: file.clone(),
                        child: ty.clone(),
                        parent: iface.clone(),
                        kind: RelationKind::Implements,
                        span: *span,
                    });
                }
            }
        }
        out
    }
}

/// The last segment of a written name: `Display` of `fmt::Display`, `ABC` of `abc.ABC`.
fn last_segment(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}

/// A type as written, without type arguments, pointers or references; `None` for what
/// names no type (a lifetime, `?Sized`, a call in `extends mixin(Base)`).
fn type_name(file: &SourceFile, node: Node<'_>) -> Option<String> {
    type_name_within(file, node, MAX_DEPTH)
}

fn type_name_within(file: &SourceFile, node: Node<'_>, depth: u32) -> Option<String> {
    let depth = depth.checked_sub(1)?;
    match node.kind() {
        "type_identifier"
        | "identifier"
        | "scoped_type_identifier"
        | "nested_type_identifier"
        | "member_expression"
        | "attribute"
        | "qualified_type"
        | "scoped_identifier"
        | "dotted_name" => Some(
            file.text_of(node)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect(),
        ),
        // Rust `Foo<T>` (field `type`), TypeScript `Foo<T>` (field `name`), Python
        // `Generic[T]` (field `value`), Rust `&T`, `dyn Trait`.
        "generic_type" | "subscript" | "reference_type" | "dynamic_type" | "abstract_type"
        | "function_type" => ["type", "name", "value", "trait"]
            .iter()
            .find_map(|f| node.child_by_field_name(f))
            .and_then(|n| type_name_within(file, n, depth)),
        "pointer_type" | "higher_ranked_trait_bound" | "parenthesized_type" => named_children(node)
            .filter(|c| c.kind() != "type_parameters")
            .last()
            .and_then(|n| type_name_within(file, n, depth)),
        _ => None,
    }
}

/// The type a Rust impl is for, by its last segment (`Vec` of `Vec<T>`, `W` of `&mut W`),
/// else its text (`(A, B)`).
fn rust_owner(file: &SourceFile, ty: Node<'_>) -> String {
    match type_name(file, ty) {
        Some(name) => last_segment(&name).to_owned(),
        None => file
            .text_of(ty)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = node.walk();
    let kids: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    kids.into_iter()
}

/// Visits `node` and its descendants in order, entering a node's children when `visit`
/// says so; iterative, so a deep tree cannot overflow the stack.
fn preorder<'t>(node: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = node.walk();
    loop {
        let descend = visit(cursor.node());
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node().id() == node.id() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Where a declaration sits, for its kind, its name and whether it is public.
#[derive(Debug, Clone)]
struct Scope {
    /// The enclosing symbol.
    parent: Option<usize>,
    /// The type a Rust impl block or Go receiver attaches to.
    owner: Option<String>,
    ctx: Ctx,
    /// Declarations here can be public (the container is public or exported).
    open: bool,
    /// The declaration at this node is marked public (a TypeScript `export` around it).
    public: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    File,
    Module,
    Type,
    Trait,
    Impl,
    TraitImpl,
    Function,
}

/// A method declared apart from its type, linked to the type once the whole file is read.
struct Detached {
    symbol: usize,
    owner: String,
    scope: Option<usize>,
    /// A trait impl's method is as public as the type.
    trait_impl: bool,
}

struct Outline<'f> {
    file: &'f SourceFile,
    sep: &'static str,
    out: Vec<Symbol>,
    detached: Vec<Detached>,
    /// (parent, name) of the variables already listed: Python and TypeScript reassign.
    variables: BTreeSet<(Option<usize>, String)>,
    /// C functions with a body, so their prototypes are not listed twice.
    c_defined: BTreeSet<String>,
    /// TypeScript overload signatures (no body), merged with the implementation after them.
    signatures: BTreeSet<usize>,
    /// TypeScript class members declared `private` or `#x`, never public.
    private: BTreeSet<usize>,
}

/// The outline of one file, in source order (children after their parent, but for a
/// method in a Rust impl block or with a Go receiver, which comes where it is written and
/// names its type as parent when the type is declared in the same file). Rust impl blocks
/// are not symbols of their own. C++ is not read (no grammar); a broken file gives what
/// tree-sitter recovers.
pub fn symbols(file: &SourceFile) -> Vec<Symbol> {
    let sep = if file.dialect == Dialect::Rust {
        "::"
    } else {
        "."
    };
    let mut o = Outline {
        file,
        sep,
        out: Vec::new(),
        detached: Vec::new(),
        variables: BTreeSet::new(),
        c_defined: BTreeSet::new(),
        signatures: BTreeSet::new(),
        private: BTreeSet::new(),
    };
    if file.dialect == Dialect::C {
        o.c_defined = c_definitions(file);
    }
    let top = Scope {
        parent: None,
        owner: None,
        ctx: Ctx::File,
        open: true,
        public: false,
    };
    let mut stack = vec![(file.root(), top)];
    let mut next = Vec::new();
    while let Some((node, scope)) = stack.pop() {
        match file.dialect {
            Dialect::Rust => o.rust(node, &scope, &mut next),
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
                o.ecma(node, &scope, &mut next)
            }
            Dialect::Python => o.python(node, &scope, &mut next),
            Dialect::Go => o.go(node, &scope, &mut next),
            Dialect::C => o.c(node, &scope, &mut next),
            Dialect::Cpp => {}
        }
        stack.extend(next.drain(..).rev());
    }
    if matches!(
        file.dialect,
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx
    ) {
        o.ecma_export_clauses();
    }
    o.attach_detached();
    o.out
}

impl<'f> Outline<'f> {
    fn text(&self, n: Node<'_>) -> &'f str {
        self.file.text_of(n)
    }

    /// Lists a declaration named by `name_node`; its index.
    fn add(
        &mut self,
        decl: Node<'_>,
        name_node: Node<'_>,
        name: &str,
        kind: &'static str,
        public: bool,
        scope: &Scope,
    ) -> Option<usize> {
        if name.is_empty() || name_node.is_missing() {
            return None;
        }
        let mut qualified = match scope.parent {
            Some(p) => format!("{}{}", self.out[p].qualified, self.sep),
            None => String::new(),
        };
        let parent = match &scope.owner {
            Some(owner) => {
                qualified.push_str(owner);
                qualified.push_str(self.sep);
                None
            }
            None => scope.parent,
        };
        qualified.push_str(name);
        let index = self.out.len();
        if let Some(owner) = &scope.owner {
            self.detached.push(Detached {
                symbol: index,
                owner: owner.clone(),
                scope: scope.parent,
                trait_impl: scope.ctx == Ctx::TraitImpl,
            });
        }
        if let Some(p) = parent {
            self.out[p].children += 1;
        }
        self.out.push(Symbol {
            file: self.file.path.clone(),
            name: name.to_owned(),
            qualified,
            symbol_kind: kind,
            span: self.file.span(decl),
            name_span: self.file.span(name_node),
            public,
            parent,
            children: 0,
        });
        Some(index)
    }

    /// Lists a declaration named by its `name` field.
    fn add_named(
        &mut self,
        decl: Node<'_>,
        kind: &'static str,
        public: bool,
        scope: &Scope,
    ) -> Option<usize> {
        let name_node = decl.child_by_field_name("name")?;
        let name = self.text(name_node);
        self.add(decl, name_node, name, kind, public, scope)
    }

    /// Links each method of a Rust impl block or with a Go receiver to its type when the
    /// type is declared in the same file and scope.
    fn attach_detached(&mut self) {
        for d in std::mem::take(&mut self.detached) {
            let owner = self.out.iter().position(|s| {
                s.name == d.owner
                    && s.parent == d.scope
                    && matches!(
                        s.symbol_kind,
                        "struct" | "enum" | "class" | "interface" | "typeparameter"
                    )
            });
            if let Some(o) = owner {
                self.out[d.symbol].parent = Some(o);
                self.out[o].children += 1;
                if d.trait_impl {
                    self.out[d.symbol].public = self.out[o].public;
                }
            }
        }
    }

    fn inner(scope: &Scope, parent: Option<usize>, ctx: Ctx, open: bool) -> Scope {
        Scope {
            parent: parent.or(scope.parent),
            owner: None,
            ctx,
            open,
            public: false,
        }
    }

    fn push_children<'t>(node: Node<'t>, scope: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        next.extend(named_children(node).map(|c| (c, scope.clone())));
    }

    // Rust: what rust-analyzer's file structure lists, but impl blocks, whose items are
    // attached to the type.
    fn rust<'t>(&mut self, n: Node<'t>, s: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        let in_fn = s.ctx == Ctx::Function;
        let own_pub = named_children(n)
            .any(|c| c.kind() == "visibility_modifier" && self.text(c) == "pub")
            && !in_fn;
        match n.kind() {
            "mod_item" => {
                let idx = self.add_named(n, "module", own_pub, s);
                if let Some(body) = n.child_by_field_name("body") {
                    let inner = Self::inner(s, idx, Ctx::Module, own_pub);
                    Self::push_children(body, &inner, next);
                }
            }
            "function_item" | "function_signature_item" => {
                let has_self = n
                    .child_by_field_name("parameters")
                    .and_then(|p| named_children(p).next())
                    .is_some_and(|p| {
                        // `&self`, or a typed `self: Pin<&mut Self>`.
                        p.kind() == "self_parameter"
                            || (p.kind() == "parameter"
                                && p.child_by_field_name("pattern")
                                    .is_some_and(|pat| pat.kind() == "self"))
                    });
                let in_type = matches!(s.ctx, Ctx::Trait | Ctx::Impl | Ctx::TraitImpl);
                let kind = if in_type && has_self {
                    "method"
                } else {
                    "function"
                };
                let public = match s.ctx {
                    Ctx::Trait | Ctx::TraitImpl => s.open,
                    _ => own_pub,
                };
                let idx = self.add_named(n, kind, public, s);
                if let Some(body) = n.child_by_field_name("body") {
                    let mut inner = Self::inner(s, idx, Ctx::Function, false);
                    if idx.is_none() {
                        inner.parent = s.parent;
                    }
                    Self::push_children(body, &inner, next);
                }
            }
            "struct_item" | "union_item" => {
                let idx = self.add_named(n, "struct", own_pub, s);
                if let (Some(idx), Some(body)) = (idx, n.child_by_field_name("body")) {
                    self.rust_fields(body, idx, None);
                }
            }
            "enum_item" => {
                let Some(idx) = self.add_named(n, "enum", own_pub, s) else {
                    return;
                };
                let inner = Self::inner(s, Some(idx), Ctx::Type, own_pub);
                if let Some(body) = n.child_by_field_name("body") {
                    for v in named_children(body).filter(|v| v.kind() == "enum_variant") {
                        let vi = self.add_named(v, "enummember", own_pub, &inner);
                        if let (Some(vi), Some(fields)) = (vi, v.child_by_field_name("body")) {
                            self.rust_fields(fields, vi, Some(own_pub));
                        }
                    }
                }
            }
            "trait_item" => {
                let idx = self.add_named(n, "interface", own_pub, s);
                if let Some(body) = n.child_by_field_name("body") {
                    let inner = Self::inner(s, idx, Ctx::Trait, own_pub);
                    Self::push_children(body, &inner, next);
                }
            }
            "impl_item" => {
                let (Some(ty), Some(body)) =
                    (n.child_by_field_name("type"), n.child_by_field_name("body"))
                else {
                    return;
                };
                let trait_impl = n.child_by_field_name("trait").is_some();
                let inner = Scope {
                    parent: s.parent,
                    owner: Some(rust_owner(self.file, ty)),
                    ctx: if trait_impl {
                        Ctx::TraitImpl
                    } else {
                        Ctx::Impl
                    },
                    // A trait impl's items are as public as the type (set when it is found).
                    open: !in_fn,
                    public: false,
                };
                Self::push_children(body, &inner, next);
            }
            "type_item" | "associated_type" => {
                let public = if matches!(s.ctx, Ctx::Trait | Ctx::TraitImpl) {
                    s.open
                } else {
                    own_pub
                };
                self.add_named(n, "typeparameter", public, s);
            }
            // `const _: () = ..;` is an assertion, not a symbol.
            "const_item" | "static_item"
                if n.child_by_field_name("name")
                    .is_some_and(|name| self.text(name) == "_") => {}
            "const_item" | "static_item" => {
                let public = if matches!(s.ctx, Ctx::Trait | Ctx::TraitImpl) {
                    s.open
                } else {
                    own_pub
                };
                self.add_named(n, "constant", public, s);
            }
            "macro_definition" => {
                // `#[macro_export]` makes a macro_rules! public, at the crate's root.
                let mut exported = false;
                let mut prev = n.prev_named_sibling();
                while let Some(p) = prev.filter(|p| p.kind() == "attribute_item") {
                    exported |= self.text(p).contains("macro_export");
                    prev = p.prev_named_sibling();
                }
                self.add_named(n, "function", exported && !in_fn, s);
            }
            "foreign_mod_item" => {
                if let Some(body) = n.child_by_field_name("body") {
                    Self::push_children(body, &Self::inner(s, None, s.ctx, s.open), next);
                }
            }
            // Items only hide in blocks and expressions; macros' token trees are not parsed.
            "token_tree"
            | "line_comment"
            | "block_comment"
            | "string_literal"
            | "attribute_item"
            | "inner_attribute_item" => {}
            _ => Self::push_children(n, s, next),
        }
    }

    /// Named fields of a struct, union or enum variant (a tuple's fields have no name and
    /// are not listed, as rust-analyzer does not).
    fn rust_fields(&mut self, body: Node<'_>, parent: usize, public: Option<bool>) {
        let scope = Scope {
            parent: Some(parent),
            owner: None,
            ctx: Ctx::Type,
            open: true,
            public: false,
        };
        for f in named_children(body).filter(|f| f.kind() == "field_declaration") {
            let own = named_children(f)
                .any(|c| c.kind() == "visibility_modifier" && self.text(c) == "pub");
            let public = public.unwrap_or(own && self.out[parent].public);
            self.add_named(f, "field", public, &scope);
        }
    }

    // TypeScript and JavaScript: what tsserver's navigation tree lists.
    fn ecma<'t>(&mut self, n: Node<'t>, s: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        if s.ctx == Ctx::Type {
            return self.ecma_member(n, s, next);
        }
        let body_scope = |idx: Option<usize>| Self::inner(s, idx, Ctx::Function, false);
        match n.kind() {
            "export_statement" => {
                let mut exported = s.clone();
                exported.public = s.open;
                if let Some(decl) = n.child_by_field_name("declaration") {
                    next.push((decl, exported));
                } else if let Some(value) = n.child_by_field_name("value") {
                    // `export default class {}`, `export default function () {}`.
                    match value.kind() {
                        "class" => self.ecma_class(value, None, &exported, next),
                        "function_expression" | "arrow_function" => {
                            let default = n.child(1).filter(|d| d.kind() == "default");
                            if let Some(d) = default {
                                let idx = self.add(n, d, "default", "function", s.open, s);
                                if let Some(body) = value.child_by_field_name("body") {
                                    Self::push_children(body, &body_scope(idx), next);
                                }
                            }
                        }
                        _ => next.push((value, Self::inner(s, None, s.ctx, false))),
                    }
                }
            }
            "ambient_declaration" => {
                // `declare` in a `.d.ts` declares what every importer sees.
                let mut ambient = s.clone();
                ambient.public = s.public || (s.open && self.file.path.ends_with(".d.ts"));
                Self::push_children(n, &ambient, next);
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                self.ecma_class(n, n.child_by_field_name("name"), s, next)
            }
            "interface_declaration" => {
                let Some(idx) = self.add_named(n, "interface", s.public, s) else {
                    return;
                };
                let inner = Self::inner(s, Some(idx), Ctx::Type, s.public);
                if let Some(body) = n.child_by_field_name("body") {
                    for m in named_children(body) {
                        let kind = match m.kind() {
                            "property_signature" => "property",
                            "method_signature" => "method",
                            _ => continue,
                        };
                        self.add_member(m, kind, s.public, false, &inner);
                    }
                }
            }
            "type_alias_declaration" => {
                self.add_named(n, "typeparameter", s.public, s);
            }
            "enum_declaration" => {
                let Some(idx) = self.add_named(n, "enum", s.public, s) else {
                    return;
                };
                let inner = Self::inner(s, Some(idx), Ctx::Type, s.public);
                if let Some(body) = n.child_by_field_name("body") {
                    for m in named_children(body) {
                        let name = match m.kind() {
                            "property_identifier" | "string" => m,
                            "enum_assignment" => match m.child_by_field_name("name") {
                                Some(name) => name,
                                None => continue,
                            },
                            _ => continue,
                        };
                        let text = self.text(name).trim_matches(['"', '\'']);
                        self.add(m, name, text, "enummember", s.public, &inner);
                    }
                }
            }
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                let idx = self.add_function(n, "function", s.public, s);
                if let Some(body) = n.child_by_field_name("body") {
                    Self::push_children(body, &body_scope(idx), next);
                }
            }
            "internal_module" | "module" => {
                let Some(name_node) = n.child_by_field_name("name") else {
                    return;
                };
                let name = self.text(name_node).trim_matches(['"', '\'']);
                let kind = if n.kind() == "module" {
                    "module"
                } else {
                    "namespace"
                };
                let idx = self.add(n, name_node, name, kind, s.public, s);
                if let Some(body) = n.child_by_field_name("body") {
                    let inner = Self::inner(s, idx, Ctx::Module, s.public);
                    Self::push_children(body, &inner, next);
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                for d in named_children(n).filter(|d| d.kind() == "variable_declarator") {
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    if name.kind() != "identifier" {
                        continue;
                    }
                    let value = d.child_by_field_name("value");
                    match value.map(|v| v.kind()) {
                        Some(
                            "arrow_function"
                            | "function_expression"
                            | "function"
                            | "generator_function",
                        ) => {
                            let idx = self.add(d, name, self.text(name), "function", s.public, s);
                            if let Some(body) = value.and_then(|v| v.child_by_field_name("body")) {
                                Self::push_children(body, &body_scope(idx), next);
                            }
                        }
                        Some("class") => {
                            if let Some(v) = value {
                                self.ecma_class(v, Some(name), s, next);
                            }
                        }
                        _ if s.ctx == Ctx::Function => {
                            if let Some(v) = value {
                                next.push((v, s.clone()));
                            }
                        }
                        _ => {
                            let text = self.text(name);
                            if self.variables.insert((s.parent, text.to_owned())) {
                                self.add(d, name, text, "variable", s.public, s);
                            }
                            if let Some(v) = value {
                                next.push((v, body_scope(None)));
                            }
                        }
                    }
                }
            }
            // A function's body: what it declares is its own, and not public.
            "arrow_function" | "function_expression" | "function" | "generator_function" => {
                if let Some(body) = n.child_by_field_name("body") {
                    Self::push_children(body, &body_scope(None), next);
                }
            }
            "comment" | "string" | "template_string" | "regex" | "import_statement" => {}
            _ => {
                let mut plain = s.clone();
                plain.public = false;
                Self::push_children(n, &plain, next);
            }
        }
    }

    fn ecma_class<'t>(
        &mut self,
        n: Node<'t>,
        name: Option<Node<'t>>,
        s: &Scope,
        next: &mut Vec<(Node<'t>, Scope)>,
    ) {
        // An anonymous default export is named `default`, as tsserver names it.
        let idx = match name {
            Some(name) => self.add(n, name, self.text(name), "class", s.public, s),
            None => match n.child(0) {
                Some(kw) => self.add(n, kw, "default", "class", s.public, s),
                None => None,
            },
        };
        let Some(idx) = idx else {
            return;
        };
        if let Some(body) = n.child_by_field_name("body") {
            let members = Self::inner(s, Some(idx), Ctx::Type, s.public);
            Self::push_children(body, &members, next);
        }
    }

    /// A member of a class body (`s.open`: the class is exported).
    fn ecma_member<'t>(&mut self, m: Node<'t>, s: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        let kind = match m.kind() {
            "method_definition" => {
                let name = m.child_by_field_name("name").map(|n| self.text(n));
                let accessor = m
                    .children(&mut m.walk())
                    .any(|c| matches!(c.kind(), "get" | "set"));
                if name == Some("constructor") {
                    "constructor"
                } else if accessor {
                    "property"
                } else {
                    "method"
                }
            }
            "method_signature" | "abstract_method_signature" => "method",
            "public_field_definition" | "field_definition" => "property",
            _ => return,
        };
        let private = named_children(m)
            .any(|c| c.kind() == "accessibility_modifier" && self.text(c) == "private");
        let idx = self.add_member(m, kind, s.open, private, s);
        if let Some(body) = m.child_by_field_name("body") {
            Self::push_children(body, &Self::inner(s, idx, Ctx::Function, false), next);
        }
    }

    /// A class or interface member; a `private` or `#private` one is never public.
    fn add_member(
        &mut self,
        m: Node<'_>,
        kind: &'static str,
        public: bool,
        private: bool,
        scope: &Scope,
    ) -> Option<usize> {
        let name_node = m
            .child_by_field_name("name")
            .or_else(|| m.child_by_field_name("property"))?;
        let name = self.text(name_node);
        let private = private || name_node.kind() == "private_property_identifier";
        let idx = if matches!(kind, "method" | "constructor") {
            self.add_function(m, kind, public && !private, scope)
        } else if self.variables.insert((scope.parent, name.to_owned())) {
            self.add(m, name_node, name, kind, public && !private, scope)
        } else {
            None
        };
        if private && let Some(i) = idx {
            self.private.insert(i);
        }
        idx
    }

    /// A function or method; overload signatures and the implementation after them are
    /// one symbol (spanning the implementation), as tsserver lists them.
    fn add_function(
        &mut self,
        n: Node<'_>,
        kind: &'static str,
        public: bool,
        scope: &Scope,
    ) -> Option<usize> {
        let name_node = n.child_by_field_name("name")?;
        let name = self.text(name_node);
        let signature = n.child_by_field_name("body").is_none();
        let earlier = self
            .out
            .last()
            .filter(|o| o.parent == scope.parent && o.name == name && o.symbol_kind == kind);
        if earlier.is_some() && self.signatures.contains(&(self.out.len() - 1)) {
            let i = self.out.len() - 1;
            self.out[i].span = self.file.span(n);
            self.out[i].name_span = self.file.span(name_node);
            self.out[i].public |= public;
            if !signature {
                self.signatures.remove(&i);
            }
            return Some(i);
        }
        let idx = self.add(n, name_node, name, kind, public, scope);
        if signature && let Some(i) = idx {
            self.signatures.insert(i);
        }
        idx
    }

    /// `export { a, b as c }` at the top level exports the declarations it names.
    fn ecma_export_clauses(&mut self) {
        let root = self.file.root();
        let mut names = BTreeSet::new();
        for stmt in named_children(root).filter(|c| c.kind() == "export_statement") {
            if stmt.child_by_field_name("source").is_some() {
                continue;
            }
            for clause in named_children(stmt).filter(|c| c.kind() == "export_clause") {
                for spec in named_children(clause) {
                    if let Some(name) = spec.child_by_field_name("name") {
                        names.insert(self.text(name));
                    }
                }
            }
        }
        if names.is_empty() {
            return;
        }
        for i in 0..self.out.len() {
            if self.out[i].parent.is_none() && names.contains(self.out[i].name.as_str()) {
                self.out[i].public = true;
                // Its members become as public as an exported class's or interface's.
                let container = matches!(self.out[i].symbol_kind, "class" | "interface" | "enum");
                for j in i + 1..self.out.len() {
                    if container && self.out[j].parent == Some(i) && !self.private.contains(&j) {
                        self.out[j].public = true;
                    }
                }
            }
        }
    }

    // Python: classes, functions and methods at any depth; module and class level
    // assignments.
    fn python<'t>(&mut self, n: Node<'t>, s: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        match n.kind() {
            "class_definition" | "function_definition" => self.python_def(n, n, s, next),
            "decorated_definition" => {
                if let Some(def) = n.child_by_field_name("definition") {
                    self.python_def(def, n, s, next);
                }
            }
            "expression_statement" => {
                if s.ctx == Ctx::Function {
                    return;
                }
                for a in named_children(n).filter(|a| a.kind() == "assignment") {
                    self.python_assignment(a, s);
                }
            }
            "comment"
            | "string"
            | "import_statement"
            | "import_from_statement"
            | "return_statement" => {}
            _ => Self::push_children(n, s, next),
        }
    }

    fn python_def<'t>(
        &mut self,
        def: Node<'t>,
        whole: Node<'t>,
        s: &Scope,
        next: &mut Vec<(Node<'t>, Scope)>,
    ) {
        let Some(name_node) = def.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name_node);
        let public = s.open && python_public(name);
        let class = def.kind() == "class_definition";
        let kind = if class {
            "class"
        } else if s.ctx == Ctx::Type {
            let property = whole != def
                && named_children(whole)
                    .filter(|d| d.kind() == "decorator")
                    .any(|d| {
                        let t = self.text(d).trim_start_matches('@');
                        let t = t.split('(').next().unwrap_or(t).trim();
                        matches!(last_segment(t), "property" | "cached_property")
                            || t.ends_with(".setter")
                            || t.ends_with(".getter")
                            || t.ends_with(".deleter")
                    });
            if name == "__init__" {
                "constructor"
            } else if property {
                "property"
            } else {
                "method"
            }
        } else {
            "function"
        };
        // A property's setter is the same property.
        if kind == "property" && !self.variables.insert((s.parent, name.to_owned())) {
            return;
        }
        let idx = self.add(whole, name_node, name, kind, public, s);
        if let Some(body) = def.child_by_field_name("body") {
            let inner = if class {
                Self::inner(s, idx, Ctx::Type, public)
            } else {
                Self::inner(s, idx, Ctx::Function, false)
            };
            Self::push_children(body, &inner, next);
        }
    }

    fn python_assignment(&mut self, a: Node<'_>, s: &Scope) {
        let mut targets = Vec::new();
        let mut assignment = Some(a);
        // `a = b = 1` assigns both.
        while let Some(asg) = assignment {
            if let Some(left) = asg.child_by_field_name("left") {
                match left.kind() {
                    "identifier" => targets.push(left),
                    "pattern_list" | "tuple_pattern" | "list_pattern" => {
                        targets.extend(named_children(left).filter(|t| t.kind() == "identifier"))
                    }
                    _ => {}
                }
            }
            assignment = asg
                .child_by_field_name("right")
                .filter(|r| r.kind() == "assignment");
        }
        for t in targets {
            let name = self.text(t);
            if !self.variables.insert((s.parent, name.to_owned()))
                || self
                    .out
                    .iter()
                    .any(|o| o.parent == s.parent && o.name == name)
            {
                continue;
            }
            let constant = name.chars().any(|c| c.is_ascii_uppercase())
                && !name.chars().any(|c| c.is_lowercase());
            let kind = if constant { "constant" } else { "variable" };
            self.add(a, t, name, kind, s.open && python_public(name), s);
        }
    }

    // Go: the package-level declarations; methods attached to their receiver's type.
    fn go<'t>(&mut self, n: Node<'t>, s: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        let exported = |name: &str| name.chars().next().is_some_and(char::is_uppercase);
        match n.kind() {
            "function_declaration" => {
                if let Some(name) = n.child_by_field_name("name") {
                    let text = self.text(name);
                    self.add(n, name, text, "function", exported(text), s);
                }
            }
            "method_declaration" => {
                let receiver = n
                    .child_by_field_name("receiver")
                    .and_then(|r| named_children(r).find(|p| p.kind() == "parameter_declaration"))
                    .and_then(|p| p.child_by_field_name("type"))
                    .and_then(|t| type_name(self.file, t));
                let (Some(owner), Some(name)) = (receiver, n.child_by_field_name("name")) else {
                    return;
                };
                let text = self.text(name);
                let scope = Scope {
                    owner: Some(owner),
                    ..s.clone()
                };
                self.add(n, name, text, "method", exported(text), &scope);
            }
            "type_spec" | "type_alias" => {
                let Some(name) = n.child_by_field_name("name") else {
                    return;
                };
                let text = self.text(name);
                let ty = n.child_by_field_name("type");
                let kind = match (n.kind(), ty.map(|t| t.kind())) {
                    ("type_alias", _) => "typeparameter",
                    (_, Some("struct_type")) => "struct",
                    (_, Some("interface_type")) => "interface",
                    _ => "class",
                };
                let Some(idx) = self.add(n, name, text, kind, exported(text), s) else {
                    return;
                };
                let inner = Self::inner(s, Some(idx), Ctx::Type, true);
                let Some(ty) = ty else { return };
                if kind == "struct" {
                    for list in named_children(ty) {
                        for f in named_children(list).filter(|f| f.kind() == "field_declaration") {
                            let mut c = f.walk();
                            let names: Vec<Node<'_>> =
                                f.children_by_field_name("name", &mut c).collect();
                            if names.is_empty() {
                                // An embedded field is named by its type.
                                if let Some(t) = f.child_by_field_name("type")
                                    && let Some(tn) = type_name(self.file, t)
                                {
                                    let field = last_segment(&tn).to_owned();
                                    self.add(f, t, &field, "field", exported(&field), &inner);
                                }
                            }
                            for name in names {
                                let text = self.text(name);
                                self.add(f, name, text, "field", exported(text), &inner);
                            }
                        }
                    }
                } else if kind == "interface" {
                    for m in named_children(ty)
                        .filter(|m| matches!(m.kind(), "method_elem" | "method_spec"))
                    {
                        if let Some(name) = m.child_by_field_name("name") {
                            let text = self.text(name);
                            self.add(m, name, text, "method", exported(text), &inner);
                        }
                    }
                }
            }
            "const_spec" | "var_spec" => {
                let kind = if n.kind() == "const_spec" {
                    "constant"
                } else {
                    "variable"
                };
                let mut c = n.walk();
                let names: Vec<Node<'_>> = n.children_by_field_name("name", &mut c).collect();
                for name in names {
                    let text = self.text(name);
                    if text != "_" {
                        self.add(n, name, text, kind, exported(text), s);
                    }
                }
            }
            "source_file" | "type_declaration" | "const_declaration" | "var_declaration"
            | "var_spec_list" | "ERROR" => Self::push_children(n, s, next),
            _ => {}
        }
    }

    // C: functions (prototypes only where there is no body), structs, unions, enums,
    // typedefs and global variables, through preprocessor conditionals.
    fn c<'t>(&mut self, n: Node<'t>, s: &Scope, next: &mut Vec<(Node<'t>, Scope)>) {
        let is_static = named_children(n)
            .any(|c| c.kind() == "storage_class_specifier" && self.text(c) == "static");
        match n.kind() {
            "function_definition" => {
                if let Some(name) = n.child_by_field_name("declarator").and_then(c_declared) {
                    let text = self.text(name);
                    self.add(n, name, text, "function", !is_static, s);
                }
            }
            "declaration" => {
                if let Some(ty) = n.child_by_field_name("type") {
                    self.c_type(ty, None, s);
                }
                let mut c = n.walk();
                let declarators: Vec<Node<'_>> =
                    n.children_by_field_name("declarator", &mut c).collect();
                for d in declarators {
                    let Some(name) = c_declared(d) else { continue };
                    let text = self.text(name);
                    let kind = if c_is_function(d) {
                        if self.c_defined.contains(text)
                            || self
                                .out
                                .iter()
                                .any(|o| o.name == text && o.parent.is_none())
                        {
                            continue;
                        }
                        "function"
                    } else {
                        "variable"
                    };
                    self.add(n, name, text, kind, !is_static, s);
                }
            }
            "type_definition" => {
                let mut c = n.walk();
                let declarators: Vec<Node<'_>> =
                    n.children_by_field_name("declarator", &mut c).collect();
                let first = declarators.first().and_then(|d| c_declared(*d));
                let named_by_typedef = n
                    .child_by_field_name("type")
                    .is_some_and(|ty| self.c_type(ty, first, s));
                for (i, d) in declarators.iter().enumerate() {
                    if i == 0 && named_by_typedef {
                        continue;
                    }
                    if let Some(name) = c_declared(*d) {
                        let text = self.text(name);
                        self.add(n, name, text, "typeparameter", true, s);
                    }
                }
            }
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                self.c_type(n, None, s);
            }
            "translation_unit"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif"
            | "preproc_elifdef"
            | "linkage_specification"
            | "declaration_list"
            | "ERROR" => Self::push_children(n, s, next),
            _ => {}
        }
    }

    /// A struct, union or enum with a body, and its fields or enumerators; `typedef_name`
    /// names an anonymous one. True when the typedef's name was used for it.
    fn c_type(&mut self, ty: Node<'_>, typedef_name: Option<Node<'_>>, s: &Scope) -> bool {
        let kind = match ty.kind() {
            "struct_specifier" | "union_specifier" => "struct",
            "enum_specifier" => "enum",
            _ => return false,
        };
        let Some(body) = ty.child_by_field_name("body") else {
            return false;
        };
        let (name, by_typedef) = match (ty.child_by_field_name("name"), typedef_name) {
            (Some(name), _) => (name, false),
            (None, Some(name)) => (name, true),
            (None, None) => return false,
        };
        let text = self.text(name);
        let Some(idx) = self.add(ty, name, text, kind, true, s) else {
            return false;
        };
        let inner = Self::inner(s, Some(idx), Ctx::Type, true);
        for m in named_children(body) {
            match m.kind() {
                "field_declaration" => {
                    let mut c = m.walk();
                    let declarators: Vec<Node<'_>> =
                        m.children_by_field_name("declarator", &mut c).collect();
                    for d in declarators {
                        if let Some(name) = c_declared(d) {
                            let text = self.text(name);
                            self.add(m, name, text, "field", true, &inner);
                        }
                    }
                }
                "enumerator" => {
                    self.add_named(m, "enummember", true, &inner);
                }
                _ => {}
            }
        }
        by_typedef
    }
}

/// Python's convention: no leading underscore, but dunders (`__init__`) are public.
fn python_public(name: &str) -> bool {
    !name.starts_with('_') || (name.len() > 4 && name.starts_with("__") && name.ends_with("__"))
}

/// The identifier a C declarator declares, through pointers, arrays, functions,
/// parentheses and initialisers.
fn c_declared(mut d: Node<'_>) -> Option<Node<'_>> {
    for _ in 0..MAX_DEPTH {
        match d.kind() {
            "identifier" | "type_identifier" | "field_identifier" => return Some(d),
            _ => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| named_children(d).next())?;
            }
        }
    }
    None
}

/// Whether a C declarator declares a function (not a pointer to one).
fn c_is_function(mut d: Node<'_>) -> bool {
    for _ in 0..MAX_DEPTH {
        match d.kind() {
            "function_declarator" => {
                return d
                    .child_by_field_name("declarator")
                    .is_some_and(|i| i.kind() == "identifier");
            }
            "pointer_declarator" | "init_declarator" | "attributed_declarator" => {
                match d.child_by_field_name("declarator") {
                    Some(inner) => d = inner,
                    None => return false,
                }
            }
            _ => return false,
        }
    }
    false
}

/// The names of the C functions a file defines with a body.
fn c_definitions(file: &SourceFile) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    preorder(file.root(), |n| match n.kind() {
        "function_definition" => {
            if let Some(name) = n.child_by_field_name("declarator").and_then(c_declared) {
                out.insert(file.text_of(name).to_owned());
            }
            false
        }
        "translation_unit"
        | "preproc_if"
        | "preproc_ifdef"
        | "preproc_else"
        | "preproc_elif"
        | "preproc_elifdef"
        | "linkage_specification"
        | "declaration_list"
        | "ERROR" => true,
        _ => false,
    });
    out
}
