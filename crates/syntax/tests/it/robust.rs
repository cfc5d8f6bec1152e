//! No source, however broken, makes the readers panic.

use proptest::prelude::*;
use resolve_pr_syntax::{Dialect, compare, exports, exports_recovered, identifier_occurrences};

const LANGUAGES: [Dialect; 6] = [
    Dialect::Rust,
    Dialect::TypeScript,
    Dialect::Tsx,
    Dialect::JavaScript,
    Dialect::Python,
    Dialect::Go,
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
        "r#x",
        "$",
        "!",
        "#define",
        "\\\n",
        "🦀",
        "\r",
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

/// The UTF-16 units of each line, lines split as LSP splits them.
fn utf16_lines(source: &str) -> Vec<Vec<u16>> {
    source
        .replace("\r\n", "\n")
        .split(['\n', '\r'])
        .map(|l| l.encode_utf16().collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any source and name: an answer, and every occurrence's range holds the name.
    #[test]
    fn identifier_scan_never_panics(
        source in arb_source(),
        raw in ".{0,200}",
        name in prop::sample::select(vec!["x", "T", "Name", "é", "r#x", "", "fn", "x y"]),
    ) {
        let languages = LANGUAGES.iter().copied().chain([Dialect::C]);
        for lang in languages {
            for text in [source.as_str(), raw.as_str()] {
                let list = identifier_occurrences(lang, text, name).expect("within limits");
                let lines = utf16_lines(text);
                let bare = if lang == Dialect::Rust { name.strip_prefix("r#").unwrap_or(name) } else { name };
                for o in &list {
                    let line = &lines[o.line as usize];
                    let covered = String::from_utf16(&line[o.character as usize..o.end_character as usize])
                        .expect("whole characters");
                    prop_assert!(
                        covered == bare || covered == format!("r#{bare}"),
                        "{:?} covers {:?}, not {:?}", o, covered, name
                    );
                }
                prop_assert!(list.windows(2).all(|w| w[0] < w[1]), "in source order, no repeats");
            }
        }
    }
}
