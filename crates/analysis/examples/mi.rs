//! Prints each file's maintainability index (tab-separated: file, index, volume,
//! complexity, logical lines, source lines, comment percent), to compare with
//! `radon mi -s`: `cargo run -p resolve-pr-analysis --example mi -- DIR`.
#![allow(clippy::print_stdout)]

use resolve_pr_analysis::{Walk, load, maintainability::maintainability};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let root = std::path::Path::new(&dir);
    let loaded = load(root, &Walk::sources(root), 200_000).expect("walk");
    for file in &loaded.files {
        let m = maintainability(file);
        println!(
            "{}\t{:.2}\t{:.1}\t{}\t{}\t{}\t{:.1}",
            file.path,
            m.index,
            m.halstead_volume,
            m.complexity,
            m.logical_lines,
            m.source_lines,
            m.comment_percent
        );
    }
}
