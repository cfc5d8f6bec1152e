//! Imports, the dependency graph and Rust module dependencies.

use resolve_pr_analysis::graph::graph;
use resolve_pr_analysis::{Walk, load};

/// The graph of the checkout at `$DEPS_ROOT`, as lines `N file`, `E from to`, `C a b …`,
/// for the comparison with madge and grimp (tests/analysis/compare_deps.py).
#[test]
#[ignore = "reads $DEPS_ROOT"]
fn print_graph_of_deps_root() {
    let Ok(root) = std::env::var("DEPS_ROOT") else { return };
    let root = std::path::Path::new(&root);
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    let go = resolve_pr_analysis::graph::go_module_path(root);
    let g = graph(&loaded.files, go.as_deref());
    for n in &g.nodes {
        println!("N {n}");
    }
    for e in &g.edges {
        println!("E {} {}", e.from, e.to);
    }
    for c in g.components() {
        println!("C {}", c.join(" "));
        println!("Y {}", g.shortest_cycle(&c).join(" "));
    }
    for i in g.external() {
        println!("X {} {}", i.file, i.specifier);
    }
}

/// `module_dependencies` of `$DEPS_MODULE` in the crate at `$DEPS_ROOT`.
#[test]
#[ignore = "reads $DEPS_ROOT"]
fn print_module_dependencies_of_deps_root() {
    let (Ok(root), Ok(module)) = (std::env::var("DEPS_ROOT"), std::env::var("DEPS_MODULE")) else {
        return;
    };
    let root = std::path::Path::new(&root);
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    let deps = resolve_pr_analysis::rust_modules::module_dependencies(&loaded.files, "", &module);
    let deps = deps.unwrap();
    println!("module {} files {:?}", deps.module, deps.files);
    for u in &deps.crate_uses {
        let at: Vec<u32> = u.used_at.iter().map(|(_, l)| l + 1).collect();
        println!("use {} {:?}:{} pub={:?} at {at:?}", u.path, u.file, u.line + 1, u.public_path);
    }
    println!("external {:?}", deps.external_crates);
    println!("std {:?}", deps.std_uses);
    for i in &deps.must_become_public {
        println!("must {} {} {}:{} {:?}", i.kind, i.path, i.file, i.line + 1, i.visibility);
    }
    for i in &deps.used_by_rest {
        println!("rest {} {} {}:{} {:?} {:?}", i.kind, i.path, i.file, i.line + 1, i.visibility, i.private_fields);
    }
}
