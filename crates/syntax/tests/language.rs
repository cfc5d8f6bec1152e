//! Languages by path, and every grammar loading with the one tree-sitter runtime.

use resolve_pr_syntax::{Language, exports};

#[test]
fn languages_by_extension() {
    let cases = [
        ("src/lib.rs", Some(Language::Rust)),
        ("web/app.ts", Some(Language::TypeScript)),
        ("types/index.d.ts", Some(Language::TypeScript)),
        ("esm/mod.mts", Some(Language::TypeScript)),
        ("ui/Card.tsx", Some(Language::Tsx)),
        ("a/b.js", Some(Language::JavaScript)),
        ("a/b.cjs", Some(Language::JavaScript)),
        ("ui/Old.jsx", Some(Language::JavaScript)),
        ("pkg/mod.py", Some(Language::Python)),
        ("stubs/mod.pyi", Some(Language::Python)),
        ("cmd/main.go", Some(Language::Go)),
        ("README.md", None),
        ("Makefile", None),
        (".rs", Some(Language::Rust)),
        ("dir.rs/file", None),
        ("src/LIB.RS", None),
    ];
    for (path, expected) in cases {
        assert_eq!(Language::for_path(path), expected, "{path}");
    }
    let names: Vec<&str> = [
        Language::Rust,
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Python,
        Language::Go,
    ]
    .iter()
    .map(|l| l.as_str())
    .collect();
    assert_eq!(
        names,
        ["rust", "typescript", "tsx", "javascript", "python", "go"]
    );
}

#[test]
fn every_grammar_loads_and_reads_an_empty_file() {
    for lang in [
        Language::Rust,
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Python,
    ] {
        assert_eq!(exports(lang, ""), Ok(Vec::new()), "{}", lang.as_str());
    }
    assert_eq!(exports(Language::Go, "package p\n"), Ok(Vec::new()));
}
