//! Prints every function's metrics under a directory, one per line (tab-separated:
//! file, start line (1-based), end line, name, cyclomatic, parameters, code lines), to
//! compare with lizard: `cargo run -p resolve-pr-analysis --example functions -- DIR`.
#![allow(clippy::print_stdout)]

use resolve_pr_analysis::{Walk, functions::functions, load};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let root = std::path::Path::new(&dir);
    let loaded = load(root, &Walk::sources(root), 200_000).expect("walk");
    for file in &loaded.files {
        for f in functions(file) {
            println!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                file.path,
                f.name_span.start.line + 1,
                f.span.end.line + 1,
                f.qualified,
                f.cyclomatic,
                f.parameters,
                f.code_lines,
                f.cognitive
            );
        }
    }
}
