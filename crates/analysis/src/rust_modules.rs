//! What a Rust module needs from the rest of its crate and what the crate needs from it:
//! the questions of extracting the module into a crate of its own.
//!
//! The crate's module tree is read from `mod` declarations (`x.rs`, `x/mod.rs`, `#[path]`,
//! inline `mod x { … }`) from `src/lib.rs` (or `src/main.rs`); `use` declarations and
//! qualified paths (`crate::a::f()`, `super::X`) are resolved against the items each
//! module declares and re-exports. Paths written inside macro calls are token trees to
//! tree-sitter and are not read.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use tree_sitter::Node;

use crate::imports::{Import, ImportKind, use_tree};
use crate::{Dialect, SourceFile, Span};

/// The answer for one module.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleDependencies {
    /// `crate::a::b` (`crate` for the root).
    pub module: String,
    /// The files of the module and its submodules (the file holding it, for an inline one).
    pub files: Vec<String>,
    /// Items of the rest of the crate the module uses, by path, sorted.
    pub crate_uses: Vec<Used>,
    /// Crates the module names: first path segments that are not `crate`, `self`,
    /// `super`, `std`, `core`, `alloc` nor a module or name of this crate.
    pub external_crates: Vec<String>,
    /// Paths into `std`, `core` and `alloc` the module names, sorted.
    pub std_uses: Vec<String>,
    /// What the module uses outside itself that no public path reaches: the item when it
    /// is not `pub`, and the modules on its path that are not: a separate crate could not
    /// name it.
    pub must_become_public: Vec<Item>,
    /// The module's items the rest of the crate uses: what a new crate would export.
    pub used_by_rest: Vec<Item>,
}

/// An item of the rest of the crate the module uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Used {
    /// `crate::x::Y`: the declaration (through re-exports), or the path as written when it
    /// names nothing declared.
    pub path: String,
    /// The declaring file; `None` when the path names no declaration found.
    pub file: Option<String>,
    /// The declaration's line (zero-based), or the first use's when `file` is `None`.
    pub line: u32,
    /// Another crate can name it: `public_path` is some.
    pub public: bool,
    /// The path another crate names it by (`crate::X` for a `pub` item re-exported at
    /// the root); `None` when no public path reaches it.
    pub public_path: Option<String>,
    /// Where the module uses it: file and zero-based line.
    pub used_at: Vec<(String, u32)>,
}

/// A declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    /// `crate::x::Y`.
    pub path: String,
    /// `fn`, `struct`, `enum`, `union`, `trait`, `type`, `const`, `static`, `mod`, `macro`.
    pub kind: String,
    pub file: String,
    /// Zero-based.
    pub line: u32,
    /// As written: `pub`, `pub(crate)`, `pub(super)`, `pub(in crate::a)`, or empty.
    pub visibility: String,
    /// A struct's fields that are not `pub` (by name, or index for a tuple struct):
    /// another crate cannot build it or read them (rustc: "tuple struct constructor is
    /// private").
    pub private_fields: Vec<String>,
    /// Associated items the other side names by path (`Identifier::empty()`), which must
    /// be `pub` as well; method calls (`x.as_str()`) need types and are not seen.
    pub members: Vec<String>,
}

/// Why there is no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    #[error("no src/lib.rs or src/main.rs under {crate_dir} among the loaded files")]
    NoCrateRoot { crate_dir: String },
    #[error("{module}: no such module in the crate at {crate_dir}")]
    NoModule { module: String, crate_dir: String },
}

/// What `module` (a file path such as `src/a/b.rs`, relative to the checkout as
/// [`SourceFile::path`], or a path `crate::a::b`) of the crate at `crate_dir` (the
/// directory of its Cargo.toml, relative to the checkout; `""` for the root) uses and
/// is used for. `files` may hold the whole checkout: the crate's are picked.
pub fn module_dependencies(
    files: &[SourceFile],
    crate_dir: &str,
    module: &str,
) -> Result<ModuleDependencies, ModuleError> {
    let dir = crate_dir.trim_matches('/').trim_start_matches("./");
    let dir = if dir == "." { "" } else { dir };
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let by_path: BTreeMap<&str, &SourceFile> = files
        .iter()
        .filter(|f| f.dialect == Dialect::Rust && f.path.starts_with(&prefix))
        .map(|f| (f.path.as_str(), f))
        .collect();
    let root = [
        format!("{prefix}src/lib.rs"),
        format!("{prefix}src/main.rs"),
    ]
    .into_iter()
    .find(|r| by_path.contains_key(r.as_str()))
    .ok_or_else(|| ModuleError::NoCrateRoot {
        crate_dir: crate_dir.to_owned(),
    })?;
    let tree = CrateTree::build(&by_path, &root);
    let no_module = || ModuleError::NoModule {
        module: module.to_owned(),
        crate_dir: crate_dir.to_owned(),
    };
    let target: Vec<String> = if module == "crate" || module.starts_with("crate::") {
        let segs: Vec<String> = module.split("::").skip(1).map(str::to_owned).collect();
        if !tree.modules.contains_key(&segs) {
            return Err(no_module());
        }
        segs
    } else {
        let file = module.trim_start_matches("./");
        let file = if by_path.contains_key(file) {
            file.to_owned()
        } else {
            format!("{prefix}{file}")
        };
        tree.modules
            .iter()
            .find(|(_, m)| m.file == file && !m.inline)
            .map(|(p, _)| p.clone())
            .ok_or_else(no_module)?
    };
    let inside = |m: &[String]| m.starts_with(&target);

    let files_of: BTreeSet<String> = tree
        .modules
        .iter()
        .filter(|(p, _)| inside(p))
        .map(|(_, m)| m.file.clone())
        .collect();

    let public_paths = tree.public_paths();
    let public_path = |d: &Decl| {
        public_paths
            .get(&(d.module.clone(), d.name.clone()))
            .map(|p| join(p))
    };
    let mut crate_uses: BTreeMap<String, Used> = BTreeMap::new();
    let mut external = BTreeSet::new();
    let mut std_uses = BTreeSet::new();
    let mut private_needed: BTreeMap<String, Item> = BTreeMap::new();
    let mut used_by_rest: BTreeMap<String, Item> = BTreeMap::new();

    for r in &tree.refs {
        let here = inside(&r.module);
        let resolved = tree.resolve(&r.module, &r.segments);
        match (here, resolved) {
            (true, Resolved::Std(path)) => {
                std_uses.insert(std_item(&path));
            }
            (true, Resolved::External(name)) => {
                external.insert(name);
            }
            (true, Resolved::Local { path, decl }) => {
                let outside = match &decl {
                    Some(d) => !inside(&d.module),
                    None => !inside(&path),
                };
                if !outside {
                    continue;
                }
                if decl
                    .as_ref()
                    .is_some_and(|d| d.kind == "mod" && inside(&d.path()))
                {
                    continue;
                }
                let exported = decl.as_ref().and_then(public_path);
                let chain = if exported.is_some() {
                    Vec::new()
                } else {
                    tree.private_chain(&path, decl.as_ref(), &target)
                };
                let key = decl
                    .as_ref()
                    .map_or_else(|| join(&path), |d| join(&d.path()));
                let entry = crate_uses.entry(key.clone()).or_insert_with(|| Used {
                    path: key.clone(),
                    file: decl.as_ref().map(|d| d.file.clone()),
                    line: decl.as_ref().map_or(r.line, |d| d.line),
                    public: exported.is_some(),
                    public_path: exported.clone(),
                    used_at: Vec::new(),
                });
                let site = (r.file.clone(), r.line);
                if !entry.used_at.contains(&site) {
                    entry.used_at.push(site);
                }
                if let Some(d) = &decl
                    && d.visibility != "pub"
                {
                    let item = private_needed
                        .entry(join(&d.path()))
                        .or_insert_with(|| d.item());
                    add_member(item, &path, d);
                }
                for m in chain {
                    private_needed.insert(join(&m.path()), m.item());
                }
            }
            (
                false,
                Resolved::Local {
                    path,
                    decl: Some(d),
                },
            ) if inside(&d.module) && !(d.kind == "mod" && d.path() == target) => {
                let item = used_by_rest
                    .entry(join(&d.path()))
                    .or_insert_with(|| d.item());
                add_member(item, &path, &d);
            }
            _ => {}
        }
    }

    Ok(ModuleDependencies {
        module: join(&target),
        files: files_of.into_iter().collect(),
        crate_uses: crate_uses.into_values().collect(),
        external_crates: external.into_iter().collect(),
        std_uses: std_uses.into_iter().collect(),
        must_become_public: private_needed.into_values().collect(),
        used_by_rest: used_by_rest.into_values().collect(),
    })
}

/// `Type::member` in a path naming a struct, union or type alias: the member.
fn add_member(item: &mut Item, path: &[String], decl: &Decl) {
    if !matches!(decl.kind, "struct" | "union" | "type") {
        return;
    }
    let Some(at) = path.iter().rposition(|s| *s == decl.name) else {
        return;
    };
    if let Some(member) = path.get(at + 1)
        && let Err(i) = item.members.binary_search(member)
    {
        item.members.insert(i, member.clone());
    }
}

fn join(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_owned()
    } else {
        format!("crate::{}", path.join("::"))
    }
}

/// A module of the tree.
#[derive(Debug, Clone)]
pub(crate) struct ModuleInfo {
    /// The file it is written in.
    pub file: String,
    /// `mod x { … }` in its parent's file.
    pub inline: bool,
}

/// A declaration of a module.
#[derive(Debug, Clone)]
pub(crate) struct Decl {
    pub module: Vec<String>,
    pub name: String,
    pub kind: &'static str,
    pub visibility: String,
    pub file: String,
    pub line: u32,
    pub private_fields: Vec<String>,
}

impl Decl {
    fn path(&self) -> Vec<String> {
        let mut p = self.module.clone();
        p.push(self.name.clone());
        p
    }

    fn item(&self) -> Item {
        Item {
            name: self.name.clone(),
            path: join(&self.path()),
            kind: self.kind.to_owned(),
            file: self.file.clone(),
            line: self.line,
            visibility: self.visibility.clone(),
            private_fields: self.private_fields.clone(),
            members: Vec::new(),
        }
    }
}

/// A `use` leaf: a name bound in a module.
#[derive(Debug, Clone)]
struct Binding {
    local: String,
    segments: Vec<String>,
    glob: bool,
    /// `pub use`: a path other crates may name it by.
    public: bool,
}

/// A path written in a module: a `use` leaf or a qualified path in code.
#[derive(Debug, Clone)]
pub(crate) struct PathRef {
    pub module: Vec<String>,
    pub segments: Vec<String>,
    pub file: String,
    pub line: u32,
    /// The `use` leaf, or the path in code.
    pub span: Span,
    /// A `use` leaf (else a path in code).
    pub is_use: bool,
}

/// What a path names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolved {
    /// In this crate: the absolute module path (without `crate`), and the declaration
    /// it names when one is found.
    Local {
        path: Vec<String>,
        decl: Option<Decl>,
    },
    Std(String),
    External(String),
    Unknown,
}

/// Where a path leads when not into this crate.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outside {
    Std(String),
    External(String),
    Unknown,
}

impl From<Outside> for Resolved {
    fn from(o: Outside) -> Resolved {
        match o {
            Outside::Std(p) => Resolved::Std(p),
            Outside::External(c) => Resolved::External(c),
            Outside::Unknown => Resolved::Unknown,
        }
    }
}

impl PartialEq for Decl {
    fn eq(&self, other: &Self) -> bool {
        self.module == other.module && self.name == other.name && self.file == other.file
    }
}

/// One crate's module tree, its declarations, bindings and paths.
#[derive(Debug, Default)]
pub(crate) struct CrateTree {
    pub modules: BTreeMap<Vec<String>, ModuleInfo>,
    decls: BTreeMap<Vec<String>, Vec<Decl>>,
    bindings: BTreeMap<Vec<String>, Vec<Binding>>,
    pub refs: Vec<PathRef>,
    /// `mod x;` declarations (declaring file, span of the declaration) and the file found.
    pub mod_files: BTreeMap<(String, Span), String>,
}

const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64", "Self",
];

impl CrateTree {
    /// The tree from `root` down its `mod` declarations, among `files`.
    pub(crate) fn build(files: &BTreeMap<&str, &SourceFile>, root: &str) -> CrateTree {
        let mut tree = CrateTree::default();
        let mut queue: Vec<(String, Vec<String>, bool)> = vec![(root.to_owned(), Vec::new(), true)];
        let mut seen = BTreeSet::new();
        tree.modules.insert(
            Vec::new(),
            ModuleInfo {
                file: root.to_owned(),
                inline: false,
            },
        );
        while let Some((path, module, is_root)) = queue.pop() {
            if !seen.insert(path.clone()) {
                continue;
            }
            let Some(file) = files.get(path.as_str()) else {
                continue;
            };
            let owns_dir = is_root || path.ends_with("/mod.rs") || path == "mod.rs";
            tree.read_file(file, &module, owns_dir, files, &mut queue);
        }
        tree
    }

    fn read_file(
        &mut self,
        file: &SourceFile,
        module: &[String],
        owns_dir: bool,
        files: &BTreeMap<&str, &SourceFile>,
        queue: &mut Vec<(String, Vec<String>, bool)>,
    ) {
        let dir = parent(&file.path);
        // Where `mod x;` looks: beside a crate root or mod.rs, else in a folder named after
        // the file.
        let child_dir = if owns_dir {
            dir.to_owned()
        } else {
            let stem = file
                .path
                .rsplit('/')
                .next()
                .unwrap_or("")
                .trim_end_matches(".rs");
            join_path(dir, stem)
        };
        // (node, module, inline modules within this file)
        let mut stack: Vec<(Node<'_>, Vec<String>, Vec<String>)> =
            vec![(file.root(), module.to_vec(), Vec::new())];
        let mut cursor = file.root().walk();
        while let Some((node, ctx, inline)) = stack.pop() {
            let at_module_level = node.parent().is_some_and(|p| {
                p.kind() == "source_file"
                    || p.kind() == "declaration_list"
                        && p.parent().is_some_and(|g| g.kind() == "mod_item")
            });
            let line = file.pos(node.start_byte()).line;
            match node.kind() {
                "mod_item" => {
                    let Some(name) = node
                        .child_by_field_name("name")
                        .map(|n| file.text_of(n).to_owned())
                    else {
                        continue;
                    };
                    let mut path = ctx.clone();
                    path.push(name.clone());
                    if at_module_level {
                        self.decl(&ctx, &name, "mod", node, file, line);
                    }
                    if let Some(body) = node.child_by_field_name("body") {
                        self.modules.entry(path.clone()).or_insert(ModuleInfo {
                            file: file.path.clone(),
                            inline: true,
                        });
                        let mut inner = inline.clone();
                        inner.push(name);
                        let children: Vec<Node<'_>> = body.named_children(&mut cursor).collect();
                        for c in children.into_iter().rev() {
                            stack.push((c, path.clone(), inner.clone()));
                        }
                    } else {
                        let base = inline
                            .iter()
                            .fold(child_dir.clone(), |d, m| join_path(&d, m));
                        let candidates = match path_attribute(file, node) {
                            Some(p) if inline.is_empty() => vec![normalize(&join_path(dir, &p))],
                            Some(p) => vec![normalize(&join_path(&base, &p))],
                            None => vec![
                                join_path(&base, &format!("{name}.rs")),
                                join_path(&base, &format!("{name}/mod.rs")),
                            ],
                        };
                        if let Some(found) = candidates
                            .into_iter()
                            .find(|c| files.contains_key(c.as_str()))
                        {
                            self.mod_files
                                .insert((file.path.clone(), file.span(node)), found.clone());
                            self.modules.entry(path.clone()).or_insert(ModuleInfo {
                                file: found.clone(),
                                inline: false,
                            });
                            queue.push((found, path, false));
                        }
                    }
                    continue;
                }
                "use_declaration" => {
                    let public = visibility(file, node) == "pub";
                    let mut leaves = Vec::new();
                    if let Some(arg) = node.child_by_field_name("argument") {
                        use_tree(file, arg, &[], ImportKind::Static, &mut leaves);
                    }
                    for leaf in leaves {
                        self.bind(&ctx, &leaf, public, file);
                    }
                    continue;
                }
                "function_item"
                | "struct_item"
                | "enum_item"
                | "union_item"
                | "trait_item"
                | "type_item"
                | "const_item"
                | "static_item"
                | "function_signature_item"
                    if at_module_level =>
                {
                    if let Some(n) = node.child_by_field_name("name") {
                        let name = file.text_of(n).to_owned();
                        let kind = item_kind(node.kind());
                        self.decl(&ctx, &name, kind, node, file, line);
                    }
                }
                "macro_definition" if at_module_level => {
                    if let Some(n) = node.child_by_field_name("name") {
                        let name = file.text_of(n).to_owned();
                        self.decl(&ctx, &name, "macro", node, file, line);
                    }
                    continue;
                }
                "scoped_identifier" | "scoped_type_identifier" => {
                    let is_prefix = node.parent().is_some_and(|p| {
                        matches!(p.kind(), "scoped_identifier" | "scoped_type_identifier")
                            && p.child_by_field_name("path")
                                .is_some_and(|x| x.id() == node.id())
                    });
                    let in_visibility = node
                        .parent()
                        .is_some_and(|p| p.kind() == "visibility_modifier");
                    if !is_prefix && !in_visibility {
                        let segments = crate::imports::path_segments(file, node);
                        if segments.len() > 1 {
                            self.refs.push(PathRef {
                                module: ctx.clone(),
                                segments,
                                file: file.path.clone(),
                                line,
                                span: file.span(node),
                                is_use: false,
                            });
                        }
                    }
                }
                "extern_crate_declaration" => {
                    if let Some(n) = node.child_by_field_name("name") {
                        let name = file.text_of(n).to_owned();
                        let local = node
                            .child_by_field_name("alias")
                            .map_or_else(|| name.clone(), |a| file.text_of(a).to_owned());
                        if name != "self" {
                            self.bindings.entry(ctx.clone()).or_default().push(Binding {
                                local,
                                segments: vec!["::".to_owned(), name],
                                glob: false,
                                public: false,
                            });
                        }
                    }
                    continue;
                }
                "attribute_item" | "inner_attribute_item" | "line_comment" | "block_comment" => {
                    continue;
                }
                _ => {}
            }
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            for c in children.into_iter().rev() {
                stack.push((c, ctx.clone(), inline.clone()));
            }
        }
    }

    fn decl(
        &mut self,
        module: &[String],
        name: &str,
        kind: &'static str,
        node: Node<'_>,
        file: &SourceFile,
        line: u32,
    ) {
        self.decls.entry(module.to_vec()).or_default().push(Decl {
            module: module.to_vec(),
            name: name.to_owned(),
            kind,
            visibility: visibility(file, node),
            file: file.path.clone(),
            line,
            private_fields: private_fields(file, node),
        });
    }

    fn bind(&mut self, module: &[String], leaf: &Import, public: bool, file: &SourceFile) {
        let segments: Vec<String> = leaf
            .specifier
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let Some(name) = leaf.names.first() else {
            return;
        };
        let glob = name.local == "*";
        self.refs.push(PathRef {
            module: module.to_vec(),
            segments: segments.clone(),
            file: file.path.clone(),
            line: leaf.span.start.line,
            span: leaf.span,
            is_use: true,
        });
        if name.local != "_" {
            self.bindings
                .entry(module.to_vec())
                .or_default()
                .push(Binding {
                    local: name.local.clone(),
                    segments,
                    glob,
                    public,
                });
        }
    }

    fn decl_in(&self, module: &[String], name: &str) -> Option<&Decl> {
        let decls = self.decls.get(module)?;
        // A type and a function may share a name in different namespaces; the first wins.
        decls.iter().find(|d| d.name == name)
    }

    /// The absolute path a path written in `module` names, or where it leads outside.
    fn absolute(
        &self,
        module: &[String],
        segments: &[String],
        depth: u32,
    ) -> Result<Vec<String>, Outside> {
        let Some(first) = segments.first() else {
            return Err(Outside::Unknown);
        };
        if depth > 8 {
            return Err(Outside::Unknown);
        }
        match first.as_str() {
            // `::serde::x`, and what `extern crate x;` binds.
            "::" => Err(extern_path(&segments[1..])),
            "crate" | "$crate" => self.within(&[], &segments[1..], depth, true),
            "self" => self.within(module, &segments[1..], depth, true),
            "super" => {
                let mut base = module.to_vec();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    if base.pop().is_none() {
                        return Err(Outside::Unknown);
                    }
                    rest = &rest[1..];
                }
                self.within(&base, rest, depth, true)
            }
            _ => self.within(module, segments, depth, false),
        }
    }

    /// `segments` named in `module`: its child modules and items, then the names its
    /// `use` declarations bind (globs last); past those, an `anchored` path (after
    /// `crate::`, `self::`, `super::`) names something of this crate not found, any other
    /// an external crate or the standard library.
    fn within(
        &self,
        module: &[String],
        segments: &[String],
        depth: u32,
        anchored: bool,
    ) -> Result<Vec<String>, Outside> {
        let Some(first) = segments.first() else {
            return Ok(module.to_vec());
        };
        let here = |m: &[String]| -> Vec<String> { m.iter().chain(segments).cloned().collect() };
        if self
            .modules
            .contains_key(&[module, &segments[..1]].concat())
            || self.decl_in(module, first).is_some()
        {
            return Ok(here(module));
        }
        let bindings = self
            .bindings
            .get(module)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if let Some(b) = bindings.iter().find(|b| !b.glob && &b.local == first) {
            let target = match self.absolute(module, &b.segments, depth + 1) {
                Ok(t) => t,
                // `use std::fmt;` then `fmt::Display`: std::fmt::Display.
                Err(Outside::Std(p)) => {
                    let mut parts = vec![p];
                    parts.extend(segments[1..].iter().cloned());
                    return Err(Outside::Std(parts.join("::")));
                }
                Err(e) => return Err(e),
            };
            return Ok(target
                .into_iter()
                .chain(segments[1..].iter().cloned())
                .collect());
        }
        if !anchored && matches!(first.as_str(), "std" | "core" | "alloc") {
            return Err(Outside::Std(segments.join("::")));
        }
        for b in bindings.iter().filter(|b| b.glob) {
            if let Ok(m) = self.absolute(module, &b.segments, depth + 1)
                && (self
                    .modules
                    .contains_key(&[m.as_slice(), &segments[..1]].concat())
                    || self.decl_in(&m, first).is_some())
            {
                return Ok(here(&m));
            }
        }
        if anchored {
            return Ok(here(module));
        }
        Err(extern_path(segments))
    }

    /// What a path written in `module` names.
    pub(crate) fn resolve(&self, module: &[String], segments: &[String]) -> Resolved {
        match self.absolute(module, segments, 0) {
            Err(r) => r.into(),
            Ok(path) => {
                let decl = self.lookup(&path, 0);
                Resolved::Local { path, decl }
            }
        }
    }

    /// The declaration an absolute path names: its longest module prefix, then the item of
    /// that module named by the next segment, through `use` re-exports.
    fn lookup(&self, path: &[String], depth: u32) -> Option<Decl> {
        let mut split = (0..=path.len())
            .rev()
            .find(|&n| self.modules.contains_key(&path[..n]))?;
        if split == path.len() {
            // A module itself: the `mod` item in its parent.
            if split == 0 {
                return None;
            }
            split -= 1;
        }
        let (module, name) = (&path[..split], &path[split]);
        if let Some(d) = self.decl_in(module, name) {
            return Some(d.clone());
        }
        if depth >= 8 {
            return None;
        }
        let bindings = self.bindings.get(module)?;
        if let Some(b) = bindings.iter().find(|b| !b.glob && &b.local == name) {
            let target = self.absolute(module, &b.segments, depth + 1).ok()?;
            return self.lookup(&target, depth + 1);
        }
        for b in bindings.iter().filter(|b| b.glob) {
            if let Ok(mut m) = self.absolute(module, &b.segments, depth + 1) {
                m.push(name.clone());
                if let Some(d) = self.lookup(&m, depth + 1) {
                    return Some(d);
                }
            }
        }
        None
    }

    /// The path other crates name each declaration by, when they can: from the root
    /// through `pub` modules and `pub use` re-exports, the shortest first.
    fn public_paths(&self) -> BTreeMap<(Vec<String>, String), Vec<String>> {
        let mut out: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
        let mut queue: VecDeque<(Vec<String>, Vec<String>)> =
            VecDeque::from([(Vec::new(), Vec::new())]);
        let mut seen = BTreeSet::new();
        let mut expose =
            |d: &Decl, path: Vec<String>, queue: &mut VecDeque<(Vec<String>, Vec<String>)>| {
                if d.visibility != "pub" {
                    return;
                }
                if d.kind == "mod" {
                    queue.push_back((d.path(), path.clone()));
                }
                out.entry((d.module.clone(), d.name.clone()))
                    .or_insert(path);
            };
        while let Some((module, public)) = queue.pop_front() {
            if !seen.insert(module.clone()) {
                continue;
            }
            for d in self.decls.get(&module).into_iter().flatten() {
                let mut p = public.clone();
                p.push(d.name.clone());
                expose(d, p, &mut queue);
            }
            for b in self
                .bindings
                .get(&module)
                .into_iter()
                .flatten()
                .filter(|b| b.public)
            {
                let Ok(target) = self.absolute(&module, &b.segments, 0) else {
                    continue;
                };
                if b.glob {
                    for d in self.decls.get(&target).into_iter().flatten() {
                        let mut p = public.clone();
                        p.push(d.name.clone());
                        expose(d, p, &mut queue);
                    }
                } else if let Some(d) = self.lookup(&target, 0) {
                    let mut p = public.clone();
                    p.push(b.local.clone());
                    expose(&d, p, &mut queue);
                }
            }
        }
        out
    }

    /// The modules on the way to a declaration, outside `target`, that are not `pub`.
    fn private_chain(&self, path: &[String], decl: Option<&Decl>, target: &[String]) -> Vec<Decl> {
        let module = decl.map_or(path, |d| d.module.as_slice());
        let mut out = Vec::new();
        for n in 1..=module.len() {
            let prefix = &module[..n];
            if prefix.starts_with(target) {
                continue;
            }
            if let Some(m) = self.decl_in(&prefix[..n - 1], &prefix[n - 1])
                && m.kind == "mod"
                && m.visibility != "pub"
            {
                out.push(m.clone());
            }
        }
        out
    }
}

/// A std path up to its item: `core::ptr::NonNull::new` as `core::ptr::NonNull`.
fn std_item(path: &str) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    let end = parts
        .iter()
        .position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
        .map_or(parts.len(), |i| i + 1);
    parts[..end].join("::")
}

/// A path outside the crate: the standard library's, an external crate's, or nothing
/// (`Vec::new`, `T::default`, `u32::MAX`).
fn extern_path(segments: &[String]) -> Outside {
    let Some(first) = segments.first() else {
        return Outside::Unknown;
    };
    if matches!(first.as_str(), "std" | "core" | "alloc") {
        return Outside::Std(segments.join("::"));
    }
    let looks_like_crate = first
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && !PRIMITIVES.contains(&first.as_str());
    if looks_like_crate {
        Outside::External(first.clone())
    } else {
        Outside::Unknown
    }
}

fn item_kind(kind: &str) -> &'static str {
    match kind {
        "function_item" | "function_signature_item" => "fn",
        "struct_item" => "struct",
        "enum_item" => "enum",
        "union_item" => "union",
        "trait_item" => "trait",
        "type_item" => "type",
        "const_item" => "const",
        "static_item" => "static",
        _ => "item",
    }
}

fn private_fields(file: &SourceFile, node: Node<'_>) -> Vec<String> {
    let Some(body) = node.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut c = body.walk();
    match body.kind() {
        "field_declaration_list" => {
            for f in body
                .named_children(&mut c)
                .filter(|f| f.kind() == "field_declaration")
            {
                if visibility(file, f) != "pub"
                    && let Some(n) = f.child_by_field_name("name")
                {
                    out.push(file.text_of(n).to_owned());
                }
            }
        }
        "ordered_field_declaration_list" => {
            // `(pub(crate) u8, pub String)`: a visibility belongs to the type after it.
            let mut index = 0;
            let mut public = false;
            for f in body.named_children(&mut c) {
                match f.kind() {
                    "visibility_modifier" => public = file.text_of(f) == "pub",
                    "attribute_item" | "line_comment" | "block_comment" => {}
                    _ => {
                        if !public {
                            out.push(index.to_string());
                        }
                        index += 1;
                        public = false;
                    }
                }
            }
        }
        _ => {}
    }
    out
}

fn visibility(file: &SourceFile, node: Node<'_>) -> String {
    let mut c = node.walk();
    node.named_children(&mut c)
        .find(|c| c.kind() == "visibility_modifier")
        .map(|v| {
            file.text_of(v)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// `#[path = "x.rs"]` on a `mod` declaration.
fn path_attribute(file: &SourceFile, node: Node<'_>) -> Option<String> {
    let mut sibling = node.prev_named_sibling();
    while let Some(s) = sibling {
        if s.kind() != "attribute_item" {
            break;
        }
        let mut c = s.walk();
        if let Some(attr) = s.named_children(&mut c).find(|a| a.kind() == "attribute") {
            let mut c2 = attr.walk();
            let is_path = attr
                .named_children(&mut c2)
                .next()
                .is_some_and(|n| file.text_of(n) == "path");
            if is_path {
                let value = attr.child_by_field_name("value")?;
                let text = file.text_of(value);
                return Some(text.trim_matches('"').to_owned());
            }
        }
        sibling = s.prev_named_sibling();
    }
    None
}

pub(crate) fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

pub(crate) fn join_path(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// `a/./b/../c` as `a/c`; `None`-free: a `..` above the root is dropped.
pub(crate) fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out.join("/")
}
