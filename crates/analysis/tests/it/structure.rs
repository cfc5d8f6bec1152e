use resolve_pr_analysis::structure::symbols;
use resolve_pr_analysis::{SourceFile, Walk, load};

/// Prints the outline of every file under `$STRUCTURE_DUMP` as tab-separated lines
/// (file, parent name, name, kind, public), to compare with a language server's
/// `documentSymbol`: `STRUCTURE_DUMP=dir cargo test -p resolve-pr-analysis outline_dump
/// -- --ignored --nocapture`.
#[test]
#[ignore = "a tool for comparing with language servers, not a test"]
fn outline_dump() {
    let Ok(dir) = std::env::var("STRUCTURE_DUMP") else {
        return;
    };
    let root = std::path::Path::new(&dir);
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    for f in &loaded.files {
        for s in symbols(f) {
            let parent = s
                .parent
                .map_or(String::new(), |p| symbols(f)[p].name.clone());
            println!(
                "SYM\t{}\t{}\t{}\t{}\t{}\t{}",
                f.path, parent, s.name, s.symbol_kind, s.public, s.qualified
            );
        }
    }
}

#[allow(dead_code)]
fn parse(path: &str, text: &str) -> SourceFile {
    let dialect = resolve_pr_analysis::Dialect::of_path(std::path::Path::new(path)).unwrap();
    SourceFile::parse(path, dialect, text.to_owned()).unwrap()
}
