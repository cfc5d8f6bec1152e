//! Documentation items, coverage, outdated parameter docs and TODOs, per language, and the
//! agreement with interrogate and rustc's `missing_docs` on real projects.

use std::collections::BTreeMap;
use std::path::Path;

use resolve_pr_analysis::docs::{
    DocItem, coverage, doc_items, doc_items_of, doc_quality, outdated, todos,
};
use resolve_pr_analysis::{Dialect, SourceFile, Walk, load};

fn parse(path: &str, text: &str) -> SourceFile {
    let dialect = resolve_pr_syntax::dialect_of(path).unwrap();
    SourceFile::parse(path, dialect, text.to_owned()).unwrap()
}

/// `name documented public` per item, for whole-structure assertions.
fn summary(items: &[DocItem]) -> Vec<(String, &'static str, bool, bool)> {
    items
        .iter()
        .map(|i| (i.name.clone(), i.symbol_kind, i.documented, i.public))
        .collect()
}

fn row(name: &str, kind: &'static str, documented: bool, public: bool) -> (String, &'static str, bool, bool) {
    (name.to_owned(), kind, documented, public)
}

/// The corpus the agreement tests read: the sdists and crates named in
/// `data/*.tsv`, extracted under `$DOCS_CORPUS` (default `/tmp/docs-ref`).
fn corpus() -> std::path::PathBuf {
    std::env::var_os("DOCS_CORPUS").map_or_else(|| "/tmp/docs-ref".into(), Into::into)
}

#[test]
#[ignore = "needs the corpus: see data/README and run with --ignored"]
fn python_coverage_equals_interrogate_per_file() {
    let reference = include_str!("data/interrogate-1.7.0.tsv");
    let mut expected: BTreeMap<(String, String), (u32, u32)> = BTreeMap::new();
    for line in reference.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        expected.insert((f[0].into(), f[1].into()), (f[2].parse().unwrap(), f[3].parse().unwrap()));
    }
    let projects: Vec<String> = expected.keys().map(|k| k.0.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let mut wrong = Vec::new();
    println!("project              files  equal  items(ref)  items(ours)  missing(ref)  missing(ours)");
    for project in projects {
        let root = corpus().join(&project);
        let loaded = load(&root, &Walk::sources(&root), 100_000).unwrap();
        let (mut files, mut equal, mut rt, mut ot, mut rm, mut om) = (0, 0, 0, 0, 0, 0);
        for file in loaded.files.iter().filter(|f| f.dialect == Dialect::Python) {
            let Some(&(total, missing)) = expected.get(&(project.clone(), file.path.clone())) else {
                wrong.push(format!("{project}/{}: interrogate did not read it", file.path));
                continue;
            };
            let (documented, ours) = coverage(&doc_items(file), false);
            files += 1;
            rt += total;
            rm += missing;
            ot += ours;
            om += ours - documented;
            if (ours, ours - documented) == (total, missing) {
                equal += 1;
            } else {
                wrong.push(format!(
                    "{project}/{}: interrogate {total} items {missing} missing, ours {ours} {}",
                    file.path,
                    ours - documented
                ));
            }
        }
        println!("{project:20} {files:5}  {equal:5}  {rt:10}  {ot:11}  {rm:12}  {om:13}");
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
#[ignore = "needs the corpus: see data/README and run with --ignored"]
fn rust_missing_docs_equal_rustc_by_file_and_line() {
    let reference = include_str!("data/rustc-missing-docs.tsv");
    let mut expected: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    for line in reference.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let list = expected.entry(f[0].into()).or_default();
        if f[1] != "-" {
            list.push((f[1].into(), f[2].parse().unwrap()));
        }
    }
    let mut wrong = Vec::new();
    println!("crate                rustc  ours  both");
    for (krate, mut want) in expected {
        let root = corpus().join(&krate);
        let loaded = load(&root, &Walk::sources(&root), 100_000).unwrap();
        let mut got: Vec<(String, u32)> = doc_items_of(&loaded.files)
            .into_iter()
            .filter(|i| i.public && !i.documented)
            .map(|i| (i.file, i.span.start.line + 1))
            .collect();
        got.sort();
        want.sort();
        let both = got.iter().filter(|g| want.contains(g)).count();
        println!("{krate:20} {:5}  {:4}  {both:4}  ({} files)", want.len(), got.len(), loaded.files.len());
        for g in got.iter().filter(|g| !want.contains(g)) {
            wrong.push(format!("{krate}: ours only {g:?}"));
        }
        for w in want.iter().filter(|w| !got.contains(w)) {
            wrong.push(format!("{krate}: rustc only {w:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
