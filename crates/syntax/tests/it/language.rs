//! Languages by path, and every grammar loading with the one tree-sitter runtime.

use resolve_pr_syntax::{
    Language, SyntaxError, compare, exports, exports_recovered, identifier_occurrences,
};

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
        ("src/main.c", Some(Language::C)),
        ("include/util.h", Some(Language::C)),
        ("src/main.C", None),
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
        Language::C,
    ]
    .iter()
    .map(|l| l.as_str())
    .collect();
    assert_eq!(
        names,
        [
            "rust",
            "typescript",
            "tsx",
            "javascript",
            "python",
            "go",
            "c"
        ]
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
    // C's grammar loads for the identifier scan.
    assert_eq!(
        identifier_occurrences(Language::C, "int p;", "p").map(|o| o.len()),
        Ok(1)
    );
}

#[test]
fn c_exports_are_refused_not_guessed() {
    assert!(!Language::C.reads_exports());
    assert!(Language::Rust.reads_exports());
    let refused = Err(SyntaxError::Unsupported { language: "c" });
    assert_eq!(exports(Language::C, "int f(void);"), refused);
    assert_eq!(
        exports_recovered(Language::C, "int f(void);").map(|r| r.exports),
        refused
    );
    assert_eq!(
        compare(Language::C, "int f(void);", "").map(|c| c.len()),
        refused.map(|e: Vec<_>| e.len())
    );
}
