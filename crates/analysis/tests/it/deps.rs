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
