//! Languages by path, and every grammar loading with the one tree-sitter runtime.

use resolve_pr_syntax::{
    Dialect, SyntaxError, compare, exports, exports_recovered, identifier_occurrences,
};

#[test]
fn languages_by_extension() {
    let cases = [
        ("src/lib.rs", Some(Dialect::Rust)),
        ("web/app.ts", Some(Dialect::TypeScript)),
        ("types/index.d.ts", Some(Dialect::TypeScript)),
        ("esm/mod.mts", Some(Dialect::TypeScript)),
        ("ui/Card.tsx", Some(Dialect::Tsx)),
        ("a/b.js", Some(Dialect::JavaScript)),
        ("a/b.cjs", Some(Dialect::JavaScript)),
        ("ui/Old.jsx", Some(Dialect::Jsx)),
        ("pkg/mod.py", Some(Dialect::Python)),
        ("stubs/mod.pyi", Some(Dialect::Python)),
        ("cmd/main.go", Some(Dialect::Go)),
        ("src/main.c", Some(Dialect::C)),
        ("include/util.h", Some(Dialect::C)),
        ("src/main.C", None),
        ("README.md", None),
        ("Makefile", None),
        (".rs", None),
        ("dir.rs/file", None),
        ("src/LIB.RS", Some(Dialect::Rust)),
        ("src/x.cpp", None),
    ];
    for (path, expected) in cases {
        assert_eq!(resolve_pr_syntax::dialect_of(path), expected, "{path}");
    }
    let names: Vec<&str> = [
        Dialect::Rust,
        Dialect::TypeScript,
        Dialect::Tsx,
        Dialect::JavaScript,
        Dialect::Python,
        Dialect::Go,
        Dialect::C,
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
        Dialect::Rust,
        Dialect::TypeScript,
        Dialect::Tsx,
        Dialect::JavaScript,
        Dialect::Python,
    ] {
        assert_eq!(exports(lang, ""), Ok(Vec::new()), "{}", lang.as_str());
    }
    assert_eq!(exports(Dialect::Go, "package p\n"), Ok(Vec::new()));
    // C's grammar loads for the identifier scan.
    assert_eq!(
        identifier_occurrences(Dialect::C, "int p;", "p").map(|o| o.len()),
        Ok(1)
    );
}

#[test]
fn c_exports_are_refused_not_guessed() {
    assert!(!resolve_pr_syntax::reads_exports(Dialect::C));
    assert!(!resolve_pr_syntax::reads_exports(Dialect::Cpp));
    assert!(resolve_pr_syntax::reads_exports(Dialect::Rust));
    let refused = Err(SyntaxError::Unsupported { language: "c" });
    assert_eq!(exports(Dialect::C, "int f(void);"), refused);
    assert_eq!(
        exports_recovered(Dialect::C, "int f(void);").map(|r| r.exports),
        refused
    );
    assert_eq!(
        compare(Dialect::C, "int f(void);", "").map(|c| c.len()),
        refused.map(|e: Vec<_>| e.len())
    );
}
