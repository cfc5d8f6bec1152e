//! The file-level dependency graph of the loaded files: each import resolved to the file
//! it names, as the language's own resolution would find it among those files; its
//! strongly connected components (the import cycles), depths, coupling and cohesion.
//!
//! Resolution is by the loaded paths alone (no `tsconfig.json` paths, no `sys.path`, no
//! package manifests but go.mod's module path): an import naming no loaded file is
//! external and kept with its specifier.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use crate::imports::{Import, ImportKind, imports};
use crate::rust_modules::{CrateTree, Resolved, join_path, normalize, parent};
use crate::{Dialect, SourceFile, Span};

/// The dependency graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graph {
    /// Every loaded file, sorted.
    pub nodes: Vec<String>,
    /// Sorted by (from, to), one per pair of files.
    pub edges: Vec<Edge>,
    /// Every import of every file, in file order, [`Import::resolved`] filled. A Python
    /// `from pkg import a, b` naming two submodules is two imports here.
    pub imports: Vec<Import>,
}

/// `from` imports `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// The imports of `from` that name `to`.
    pub spans: Vec<Span>,
}

/// How much of what a directory's files import stays in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cohesion {
    /// The directory (`""` for the root), for the files directly in it.
    pub directory: String,
    pub files: usize,
    /// Edges from its files to files of the same directory.
    pub internal: usize,
    /// Every edge from its files.
    pub outgoing: usize,
    /// `internal / outgoing`; 1 when its files import no loaded file.
    pub score: f64,
}

/// The module path go.mod declares at `root` (`module example.com/x`), the one file this
/// module reads; `None` without a readable go.mod or a `module` line.
pub fn go_module_path(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("go.mod")).ok()?;
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("module")?;
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let path = rest.split("//").next()?.trim().trim_matches('"');
        (!path.is_empty()).then(|| path.to_owned())
    })
}

/// The graph of `files`. `go_module` is go.mod's module path (see [`go_module_path`]),
/// for Go imports of the module's own packages.
///
/// Edges come from every import, and in Rust also from qualified paths in code
/// (`crate::a::f()`, `super::X::new()`, `store::Store` for a child module `store`), which
/// need no `use`; but not from Rust's `mod x;`: declaring a child module is containment,
/// not use (with it every child naming `super::` would be in a cycle with its parent); the
/// declaration is still resolved. A Rust `use` of the file's own items and a Python
/// `from . import x` of the package's own name make no self-edge.
pub fn graph(files: &[SourceFile], go_module: Option<&str>) -> Graph {
    let paths: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let python = PythonModules::new(files);
    let rust = RustIndex::new(files);
    let go_dirs = go_packages(files);

    let mut all = Vec::new();
    for file in files {
        for mut import in imports(file) {
            match file.dialect {
                Dialect::Python => {
                    all.extend(python.resolve(import));
                    continue;
                }
                Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
                    import.resolved = resolve_script(&paths, file, &import.specifier);
                }
                Dialect::Rust => {
                    import.resolved = rust.resolve(&import);
                }
                Dialect::Go => {
                    import.resolved = resolve_go(&go_dirs, go_module, &import.specifier);
                }
                Dialect::C => {
                    if import.kind == ImportKind::Include {
                        import.resolved = resolve_include(&paths, file, &import.specifier);
                    }
                }
                Dialect::Cpp => {}
            }
            all.push(import);
        }
    }

    let mut edges: BTreeMap<(String, String), Vec<Span>> = BTreeMap::new();
    for import in &all {
        let Some(to) = &import.resolved else { continue };
        if import.kind == ImportKind::Module {
            continue;
        }
        if import.file == *to
            && matches!(to_dialect(files, to), Some(Dialect::Rust | Dialect::Python))
        {
            continue;
        }
        let targets: Vec<String> = if to.ends_with('/') {
            // A Go package: every file of it.
            go_dirs
                .get(to.trim_end_matches('/'))
                .cloned()
                .unwrap_or_default()
        } else {
            vec![to.clone()]
        };
        for t in targets {
            if t == import.file && import.resolved.as_deref().is_some_and(|r| r.ends_with('/')) {
                continue;
            }
            edges
                .entry((import.file.clone(), t))
                .or_default()
                .push(import.span);
        }
    }
    for (from, span, to) in &rust.paths {
        edges
            .entry((from.clone(), to.clone()))
            .or_default()
            .push(*span);
    }
    let mut nodes: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    nodes.sort();
    nodes.dedup();
    Graph {
        nodes,
        edges: edges
            .into_iter()
            .map(|((from, to), mut spans)| {
                spans.sort();
                spans.dedup();
                Edge { from, to, spans }
            })
            .collect(),
        imports: all,
    }
}

fn to_dialect(files: &[SourceFile], path: &str) -> Option<Dialect> {
    files.iter().find(|f| f.path == path).map(|f| f.dialect)
}

// ---- TypeScript / JavaScript ----

const TS_EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts",
];
const JS_EXTENSIONS: &[&str] = &[
    ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".d.ts", ".mts", ".cts",
];

/// A relative specifier as TypeScript's and node's resolution find it: the file as
/// written, a `.js` written for its `.ts` source, an extension added, a folder's index.
fn resolve_script(paths: &BTreeSet<&str>, file: &SourceFile, spec: &str) -> Option<String> {
    if !(spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
        return None;
    }
    let spec = spec.split(['?', '#']).next().unwrap_or(spec);
    let base = normalize(&join_path(parent(&file.path), spec));
    let exists = |p: &str| paths.contains(p).then(|| p.to_owned());
    let script_importer = matches!(file.dialect, Dialect::JavaScript | Dialect::Jsx);
    let order = if script_importer {
        JS_EXTENSIONS
    } else {
        TS_EXTENSIONS
    };
    // `./a.js` names a.ts when the project is TypeScript (TypeScript tries it first).
    for (written, sources) in [
        (".js", &[".ts", ".tsx", ".d.ts"][..]),
        (".jsx", &[".tsx"][..]),
        (".mjs", &[".mts"][..]),
        (".cjs", &[".cts"][..]),
    ] {
        if let Some(stem) = base.strip_suffix(written) {
            if !script_importer {
                for s in sources {
                    if let Some(found) = exists(&format!("{stem}{s}")) {
                        return Some(found);
                    }
                }
            }
            if let Some(found) = exists(&base) {
                return Some(found);
            }
            if script_importer {
                for s in sources {
                    if let Some(found) = exists(&format!("{stem}{s}")) {
                        return Some(found);
                    }
                }
            }
        }
    }
    if TS_EXTENSIONS.iter().any(|e| base.ends_with(e))
        && let Some(found) = exists(&base)
    {
        return Some(found);
    }
    for ext in order {
        if let Some(found) = exists(&format!("{base}{ext}")) {
            return Some(found);
        }
    }
    for ext in order {
        if let Some(found) = exists(&join_path(&base, &format!("index{ext}"))) {
            return Some(found);
        }
    }
    None
}

// ---- Python ----

/// The module name of each loaded Python file: its directory chain of packages (folders
/// with an `__init__.py`) above it, rooted where the chain stops (so `src/` layouts and
/// scripts beside a package both resolve).
struct PythonModules {
    by_name: BTreeMap<String, Vec<(String, String)>>, // name → (root, file)
    paths: BTreeSet<String>,
    root_of: BTreeMap<String, String>,
}

impl PythonModules {
    fn new(files: &[SourceFile]) -> PythonModules {
        let py: Vec<&str> = files
            .iter()
            .filter(|f| f.dialect == Dialect::Python)
            .map(|f| f.path.as_str())
            .collect();
        let paths: BTreeSet<String> = py.iter().map(|p| (*p).to_owned()).collect();
        let is_package = |dir: &str| {
            paths.contains(&join_path(dir, "__init__.py"))
                || paths.contains(&join_path(dir, "__init__.pyi"))
        };
        let mut by_name: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        let mut root_of = BTreeMap::new();
        for path in &py {
            let file_name = path.rsplit('/').next().unwrap_or(path);
            let stem = file_name
                .strip_suffix(".pyi")
                .or_else(|| file_name.strip_suffix(".py"))
                .unwrap_or(file_name);
            let mut parts: Vec<&str> = Vec::new();
            if stem != "__init__" {
                parts.push(stem);
            }
            let mut dir = parent(path);
            while !dir.is_empty() && is_package(dir) {
                parts.push(dir.rsplit('/').next().unwrap_or(dir));
                dir = parent(dir);
            }
            if stem == "__init__" && parts.is_empty() {
                continue;
            }
            parts.reverse();
            let name = parts.join(".");
            root_of.insert((*path).to_owned(), dir.to_owned());
            by_name
                .entry(name)
                .or_default()
                .push((dir.to_owned(), (*path).to_owned()));
        }
        for v in by_name.values_mut() {
            // A .py before its .pyi stub, shorter paths first.
            v.sort_by_key(|(_, f)| (f.ends_with(".pyi"), f.len(), f.clone()));
        }
        PythonModules {
            by_name,
            paths,
            root_of,
        }
    }

    fn module(&self, importer: &str, name: &str) -> Option<String> {
        let found = self.by_name.get(name)?;
        let root = self.root_of.get(importer);
        found
            .iter()
            .find(|(r, _)| Some(r) == root)
            .or_else(|| found.first())
            .map(|(_, f)| f.clone())
    }

    /// The file of a module in a folder: `dir/x.py` or `dir/x/__init__.py`.
    fn in_dir(&self, dir: &str, parts: &[&str]) -> Option<String> {
        let base = parts.iter().fold(dir.to_owned(), |d, p| join_path(&d, p));
        if parts.is_empty() {
            return [
                join_path(&base, "__init__.py"),
                join_path(&base, "__init__.pyi"),
            ]
            .into_iter()
            .find(|p| self.paths.contains(p));
        }
        [
            format!("{base}.py"),
            join_path(&base, "__init__.py"),
            format!("{base}.pyi"),
            join_path(&base, "__init__.pyi"),
        ]
        .into_iter()
        .find(|p| self.paths.contains(p))
    }

    /// The import resolved; a `from` import whose names are submodules split by file.
    fn resolve(&self, mut import: Import) -> Vec<Import> {
        let spec = import.specifier.clone();
        let is_from = import.names.first().is_some_and(|n| n.imported != spec);
        let dots = spec.chars().take_while(|&c| c == '.').count();
        let rest: Vec<&str> = spec[dots..].split('.').filter(|s| !s.is_empty()).collect();
        // The module itself, and how to find `module.name`.
        let (module, sub): (Option<String>, SubmoduleOf<'_>) = if dots > 0 {
            let mut dir = parent(&import.file).to_owned();
            for _ in 1..dots {
                dir = parent(&dir).to_owned();
            }
            let module = self.in_dir(&dir, &rest);
            let rest_owned: Vec<String> = rest.iter().map(|s| (*s).to_owned()).collect();
            let dir_owned = dir.clone();
            (
                module,
                Box::new(move |name: &str| {
                    let mut parts: Vec<&str> = rest_owned.iter().map(String::as_str).collect();
                    parts.push(name);
                    self.in_dir(&dir_owned, &parts)
                        .filter(|p| !p.ends_with("__init__.py") || parts.len() > rest_owned.len())
                }),
            )
        } else {
            let file = import.file.clone();
            let module = if is_from {
                self.module(&file, &rest.join("."))
            } else {
                // `import a.b.c`: the longest prefix that is a loaded module.
                (1..=rest.len())
                    .rev()
                    .find_map(|n| self.module(&file, &rest[..n].join(".")))
            };
            let joined = rest.join(".");
            (
                module,
                Box::new(move |name: &str| self.module(&file, &format!("{joined}.{name}"))),
            )
        };
        if !is_from {
            import.resolved = module;
            return vec![import];
        }
        // `from pkg import name`: the submodule when one is loaded, else the module.
        let mut groups: BTreeMap<Option<String>, Vec<crate::imports::ImportedName>> =
            BTreeMap::new();
        let mut order: Vec<Option<String>> = Vec::new();
        for n in std::mem::take(&mut import.names) {
            let target = if n.imported == "*" {
                module.clone()
            } else {
                sub(&n.imported).or_else(|| module.clone())
            };
            if !groups.contains_key(&target) {
                order.push(target.clone());
            }
            groups.entry(target).or_default().push(n);
        }
        if order.is_empty() {
            import.resolved = module;
            return vec![import];
        }
        order
            .into_iter()
            .map(|target| Import {
                names: groups.remove(&target).unwrap_or_default(),
                resolved: target,
                ..import.clone()
            })
            .collect()
    }
}

/// Finds `module.name` as a file.
type SubmoduleOf<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

// ---- Rust ----

/// Every crate's module tree among the loaded Rust files, and what each `use` leaf and
/// `mod` declaration names.
struct RustIndex {
    targets: BTreeMap<(String, Span), String>,
    /// Paths in code naming another file's module (`crate::a::f()`, `super::X`): file,
    /// span, target.
    paths: Vec<(String, Span, String)>,
}

impl RustIndex {
    fn new(files: &[SourceFile]) -> RustIndex {
        let by_path: BTreeMap<&str, &SourceFile> = files
            .iter()
            .filter(|f| f.dialect == Dialect::Rust)
            .map(|f| (f.path.as_str(), f))
            .collect();
        let is_primary = |p: &str| {
            let dir = parent(p);
            let name = p.rsplit('/').next().unwrap_or(p);
            (matches!(name, "lib.rs" | "main.rs") && (dir == "src" || dir.ends_with("/src")))
                || (dir == "src/bin" || dir.ends_with("/src/bin"))
        };
        let mut roots: Vec<&str> = by_path.keys().copied().filter(|p| is_primary(p)).collect();
        // lib.rs before main.rs: a binary's `mod` of a library file is rarer.
        roots.sort_by_key(|p| (!p.ends_with("lib.rs"), *p));
        let mut reached: BTreeSet<String> = BTreeSet::new();
        let mut targets = BTreeMap::new();
        let mut paths = Vec::new();
        let mut add = |root: &str, reached: &mut BTreeSet<String>| {
            let tree = CrateTree::build(&by_path, root);
            for m in tree.modules.values() {
                reached.insert(m.file.clone());
            }
            for (k, v) in &tree.mod_files {
                targets.entry(k.clone()).or_insert_with(|| v.clone());
            }
            for r in &tree.refs {
                if let Resolved::Local { path, .. } = tree.resolve(&r.module, &r.segments) {
                    let file = (0..=path.len())
                        .rev()
                        .find_map(|n| tree.modules.get(&path[..n]))
                        .map(|m| m.file.clone());
                    let Some(file) = file else { continue };
                    if r.is_use {
                        targets.entry((r.file.clone(), r.span)).or_insert(file);
                    } else if file != r.file {
                        paths.push((r.file.clone(), r.span, file));
                    }
                }
            }
        };
        for root in roots {
            if !reached.contains(root) {
                add(root, &mut reached);
            }
        }
        // Files no crate root reaches (tests/, examples/, build.rs, strays) are roots.
        for path in by_path.keys() {
            if !reached.contains(*path) {
                add(path, &mut reached);
            }
        }
        paths.sort();
        paths.dedup();
        RustIndex { targets, paths }
    }

    fn resolve(&self, import: &Import) -> Option<String> {
        self.targets
            .get(&(import.file.clone(), import.span))
            .cloned()
    }
}

// ---- Go ----

/// Folder → the non-test .go files in it.
fn go_packages(files: &[SourceFile]) -> BTreeMap<String, Vec<String>> {
    let mut dirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| f.dialect == Dialect::Go) {
        if f.path.ends_with("_test.go") {
            continue;
        }
        dirs.entry(parent(&f.path).to_owned())
            .or_default()
            .push(f.path.clone());
    }
    dirs
}

/// A Go import of the module's own package, as the package's folder with a trailing
/// `/` (its files are the edge's targets). Without go.mod's path, the longest tail of
/// the import path that is a loaded package folder.
fn resolve_go(
    dirs: &BTreeMap<String, Vec<String>>,
    module: Option<&str>,
    spec: &str,
) -> Option<String> {
    match module {
        Some(m) => {
            let rel = if spec == m {
                ""
            } else {
                spec.strip_prefix(m)?.strip_prefix('/')?
            };
            dirs.contains_key(rel).then(|| format!("{rel}/"))
        }
        None => {
            let parts: Vec<&str> = spec.split('/').collect();
            (1..parts.len()).find_map(|i| {
                let tail = parts[i..].join("/");
                dirs.contains_key(&tail).then(|| format!("{tail}/"))
            })
        }
    }
}

// ---- C ----

/// `#include "x.h"`: beside the including file, then from the root.
fn resolve_include(paths: &BTreeSet<&str>, file: &SourceFile, spec: &str) -> Option<String> {
    [
        normalize(&join_path(parent(&file.path), spec)),
        normalize(spec),
    ]
    .into_iter()
    .find(|p| paths.contains(p.as_str()))
}

// ---- The graph's questions ----

impl Graph {
    fn index(&self, file: &str) -> Option<usize> {
        self.nodes.binary_search_by(|n| n.as_str().cmp(file)).ok()
    }

    /// Successors by node index.
    fn adjacency(&self) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for e in &self.edges {
            if let (Some(a), Some(b)) = (self.index(&e.from), self.index(&e.to)) {
                adj[a].push(b);
            }
        }
        adj
    }

    /// Every strongly connected component, in reverse topological order (a component
    /// after every one it reaches). Tarjan's, with an explicit stack.
    fn sccs(&self, adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
        let n = adj.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = Vec::new();
        let mut next = 0;
        for start in 0..n {
            if index[start] != usize::MAX {
                continue;
            }
            let mut calls: Vec<(usize, usize)> = vec![(start, 0)];
            index[start] = next;
            low[start] = next;
            next += 1;
            stack.push(start);
            on_stack[start] = true;
            while let Some(&mut (v, ref mut i)) = calls.last_mut() {
                if let Some(&w) = adj[v].get(*i) {
                    *i += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        calls.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(component);
                }
            }
        }
        out
    }

    /// The import cycles: every strongly connected component of two files or more, and
    /// every file importing itself; each sorted, the list sorted.
    pub fn components(&self) -> Vec<Vec<String>> {
        let adj = self.adjacency();
        let mut out: Vec<Vec<String>> = self
            .sccs(&adj)
            .into_iter()
            .filter(|c| c.len() > 1 || c.first().is_some_and(|&v| adj[v].contains(&v)))
            .map(|c| {
                let mut names: Vec<String> = c.into_iter().map(|v| self.nodes[v].clone()).collect();
                names.sort();
                names
            })
            .collect();
        out.sort();
        out
    }

    /// A shortest cycle through `component` from its smallest file back to it: a path
    /// whose first and last elements are that file; empty when there is none.
    pub fn shortest_cycle(&self, component: &[String]) -> Vec<String> {
        let Some(start) = component.iter().min() else {
            return Vec::new();
        };
        self.cycle_from(start, None, component)
    }

    /// A shortest cycle through the edge `from → to`, within their component: `[from,
    /// to, …, from]`; empty when the edge is in no cycle.
    pub fn shortest_cycle_through(&self, from: &str, to: &str) -> Vec<String> {
        let component = self
            .components()
            .into_iter()
            .find(|c| c.iter().any(|f| f == from) && c.iter().any(|f| f == to));
        match component {
            Some(c) => self.cycle_from(from, Some(to), &c),
            None => Vec::new(),
        }
    }

    /// BFS from `start` (through `first` when given) back to `start`, inside `within`.
    fn cycle_from(&self, start: &str, first: Option<&str>, within: &[String]) -> Vec<String> {
        let adj = self.adjacency();
        let allowed: BTreeSet<usize> = within.iter().filter_map(|f| self.index(f)).collect();
        let Some(s) = self.index(start) else {
            return Vec::new();
        };
        let firsts: Vec<usize> = match first {
            Some(f) => match self.index(f) {
                Some(i) if adj[s].contains(&i) => vec![i],
                _ => return Vec::new(),
            },
            None => adj[s]
                .iter()
                .copied()
                .filter(|w| allowed.contains(w))
                .collect(),
        };
        if firsts.contains(&s) {
            return vec![start.to_owned(), start.to_owned()];
        }
        let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = VecDeque::new();
        for &f in &firsts {
            prev.entry(f).or_insert(s);
            queue.push_back(f);
        }
        while let Some(v) = queue.pop_front() {
            for &w in &adj[v] {
                if w == s {
                    // Back from v to the first step, then reversed.
                    let mut back = vec![v];
                    let mut cur = v;
                    while let Some(&p) = prev.get(&cur) {
                        if p == s {
                            break;
                        }
                        back.push(p);
                        cur = p;
                    }
                    let mut out = vec![start.to_owned()];
                    out.extend(back.into_iter().rev().map(|i| self.nodes[i].clone()));
                    out.push(start.to_owned());
                    return out;
                }
                if allowed.contains(&w) && !prev.contains_key(&w) {
                    prev.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        Vec::new()
    }

    /// Files `file` imports.
    pub fn out_degree(&self, file: &str) -> usize {
        self.edges
            .iter()
            .filter(|e| e.from == file && e.to != file)
            .count()
    }

    /// Files importing `file`.
    pub fn in_degree(&self, file: &str) -> usize {
        self.edges
            .iter()
            .filter(|e| e.to == file && e.from != file)
            .count()
    }

    /// Martin's instability Ce / (Ca + Ce): 0 for a file nothing imports and that imports
    /// nothing, 1 for one that only imports.
    pub fn instability(&self, file: &str) -> f64 {
        let (ca, ce) = (self.in_degree(file), self.out_degree(file));
        if ca + ce == 0 {
            0.0
        } else {
            ce as f64 / (ca + ce) as f64
        }
    }

    /// The longest chain of imports below each file, counted between components (files
    /// of one cycle share their depth): 0 for a file importing no loaded file.
    pub fn depths(&self) -> BTreeMap<String, u32> {
        let adj = self.adjacency();
        let sccs = self.sccs(&adj);
        let mut comp = vec![0; adj.len()];
        for (c, members) in sccs.iter().enumerate() {
            for &v in members {
                comp[v] = c;
            }
        }
        let mut depth = vec![0u32; sccs.len()];
        // Tarjan's order puts a component after every one it reaches.
        for (c, members) in sccs.iter().enumerate() {
            let d = members
                .iter()
                .flat_map(|&v| adj[v].iter())
                .filter(|&&w| comp[w] != c)
                .map(|&w| depth[comp[w]].saturating_add(1))
                .max()
                .unwrap_or(0);
            depth[c] = d;
        }
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), depth[comp[i]]))
            .collect()
    }

    /// See [`Graph::depths`]; 0 for a file not in the graph.
    pub fn depth(&self, file: &str) -> u32 {
        self.depths().get(file).copied().unwrap_or(0)
    }

    /// Per directory holding loaded files, sorted by directory.
    pub fn cohesion(&self) -> Vec<Cohesion> {
        let mut dirs: BTreeMap<&str, Cohesion> = BTreeMap::new();
        for n in &self.nodes {
            let d = parent(n);
            dirs.entry(d)
                .or_insert_with(|| Cohesion {
                    directory: d.to_owned(),
                    files: 0,
                    internal: 0,
                    outgoing: 0,
                    score: 1.0,
                })
                .files += 1;
        }
        for e in self.edges.iter().filter(|e| e.from != e.to) {
            if let Some(c) = dirs.get_mut(parent(&e.from)) {
                c.outgoing += 1;
                if parent(&e.to) == parent(&e.from) {
                    c.internal += 1;
                }
            }
        }
        dirs.into_values()
            .map(|mut c| {
                if c.outgoing > 0 {
                    c.score = c.internal as f64 / c.outgoing as f64;
                }
                c
            })
            .collect()
    }

    /// The imports naming no loaded file (packages, the standard library, files outside
    /// the load), without Rust's `mod` declarations.
    pub fn external(&self) -> Vec<&Import> {
        self.imports
            .iter()
            .filter(|i| i.resolved.is_none() && i.kind != ImportKind::Module)
            .collect()
    }

    /// Mermaid flowchart source: `graph TD`, one node per file, one arrow per edge.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("graph TD\n");
        for (i, n) in self.nodes.iter().enumerate() {
            let label = n.replace('"', "#quot;");
            out.push_str(&format!("  n{i}[\"{label}\"]\n"));
        }
        for e in &self.edges {
            if let (Some(a), Some(b)) = (self.index(&e.from), self.index(&e.to)) {
                out.push_str(&format!("  n{a} --> n{b}\n"));
            }
        }
        out
    }

    /// Graphviz DOT source.
    pub fn to_dot(&self) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        let mut out = String::from("digraph dependencies {\n");
        for n in &self.nodes {
            out.push_str(&format!("  {};\n", quote(n)));
        }
        for e in &self.edges {
            out.push_str(&format!("  {} -> {};\n", quote(&e.from), quote(&e.to)));
        }
        out.push_str("}\n");
        out
    }
}
