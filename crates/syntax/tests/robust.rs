//! No source, however broken, makes the readers panic.

use proptest::prelude::*;
use resolve_pr_syntax::{Language, compare, exports, exports_recovered};

const LANGUAGES: [Language; 6] = [
    Language::Rust,
    Language::TypeScript,
    Language::Tsx,
    Language::JavaScript,
    Language::Python,
    Language::Go,
];

/// Source-like text: keywords, names, brackets and separators in any order.
fn arb_source() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "pub",
        "fn",
        "struct",
        "impl",
        "mod",
        "use",
        "export",
        "default",
        "class",
        "def",
        "func",
        "type",
        "const",
        "var",
        "let",
        "interface",
        "enum",
        "trait",
        "__all__",
        "=",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "<",
        ">",
        ":",
        ";",
        ",",
        ".",
        "::",
        "->",
        "=>",
        "*",
        "&",
        "#",
        "@",
        "'",
        "\"",
        "`",
        "\n",
        "    ",
        "Name",
        "x",
        "T",
        "1",
        "é",
        "//",
        "/*",
        "*/",
        "#[",
        "async",
        "package p\n",
    ]);
    prop::collection::vec(token, 0..80).prop_map(|t| t.join(" "))
}

proptest! {
    // Each case parses 12 sources 3 times: fewer cases than the default keep it quick.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_source_gives_an_answer(source in arb_source(), raw in ".{0,200}") {
        for lang in LANGUAGES {
            for text in [source.as_str(), raw.as_str()] {
                let strict = exports(lang, text);
                let recovered = exports_recovered(lang, text).expect("within limits");
                if let Ok(list) = strict {
                    // A source without errors: recovery finds the same and no error line.
                    prop_assert!(recovered.error_lines.is_empty());
                    prop_assert_eq!(list, recovered.exports);
                } else {
                    prop_assert!(!recovered.error_lines.is_empty());
                }
                let _ = compare(lang, text, &source);
            }
        }
    }
}
