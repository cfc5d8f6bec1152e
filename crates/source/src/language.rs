//! Which language a source file is written in: one table of file extensions for every code
//! layer. A [`Language`] is what one language server answers for (TypeScript and JavaScript
//! share tsserver, C and C++ share clangd); a [`Dialect`] is what a grammar parses and what
//! `didOpen` calls a document (`typescriptreact`, `cpp`).

use std::fmt;
use std::path::Path;

/// A language the code tools read, by the servers that answer for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    Rust,
    /// TypeScript and JavaScript: one server answers for both.
    TypeScript,
    Python,
    /// C and C++.
    C,
    Go,
}

impl Language {
    pub const ALL: [Language; 5] = [
        Language::Rust,
        Language::TypeScript,
        Language::Python,
        Language::C,
        Language::Go,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::TypeScript => "typescript",
            Language::Python => "python",
            Language::C => "c",
            Language::Go => "go",
        }
    }

    /// A language by the name an agent or a configuration gives it (case-insensitive;
    /// `javascript`, `js`, `cpp`, `c++` and `py` are accepted).
    pub fn from_name(name: &str) -> Option<Language> {
        match name.to_ascii_lowercase().as_str() {
            "rust" => Some(Language::Rust),
            "typescript" | "javascript" | "ts" | "js" => Some(Language::TypeScript),
            "python" | "py" => Some(Language::Python),
            "c" | "cpp" | "c++" => Some(Language::C),
            "go" => Some(Language::Go),
            _ => None,
        }
    }

    /// The language of a source file, by its extension ([`Dialect::of_path`]).
    pub fn of_path(path: &Path) -> Option<Language> {
        Dialect::of_path(path).map(Dialect::language)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a file is written in, finer than its [`Language`]: the grammar that parses it and
/// the `languageId` a server is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    Rust,
    /// `.ts`, `.mts`, `.cts` (and `.d.ts`).
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.js`, `.mjs`, `.cjs`.
    JavaScript,
    /// `.jsx` (the JavaScript grammar reads JSX).
    Jsx,
    /// `.py`, `.pyi`.
    Python,
    Go,
    /// `.c` and `.h` (a `.h` may be C++, which is read as C).
    C,
    /// `.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`, and `.C`/`.H`.
    Cpp,
}

impl Dialect {
    /// The dialect of a path, by its extension, in any case (`x.TSX` is TSX) but `.C` and
    /// `.H`, which are C++ by gcc's convention; a path without one of these extensions has
    /// none.
    pub fn of_path(path: &Path) -> Option<Dialect> {
        let ext = path.extension()?.to_str()?;
        if matches!(ext, "C" | "H") {
            return Some(Dialect::Cpp);
        }
        Some(match ext.to_ascii_lowercase().as_str() {
            "rs" => Dialect::Rust,
            "ts" | "mts" | "cts" => Dialect::TypeScript,
            "tsx" => Dialect::Tsx,
            "js" | "mjs" | "cjs" => Dialect::JavaScript,
            "jsx" => Dialect::Jsx,
            "py" | "pyi" => Dialect::Python,
            "go" => Dialect::Go,
            "c" | "h" => Dialect::C,
            "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Dialect::Cpp,
            _ => return None,
        })
    }

    /// The language whose server answers for this dialect.
    pub fn language(self) -> Language {
        match self {
            Dialect::Rust => Language::Rust,
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
                Language::TypeScript
            }
            Dialect::Python => Language::Python,
            Dialect::Go => Language::Go,
            Dialect::C | Dialect::Cpp => Language::C,
        }
    }

    /// The dialect's name: the same as its [`Language`]'s, but for `tsx`, `javascript`,
    /// `jsx` and `cpp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Rust => "rust",
            Dialect::TypeScript => "typescript",
            Dialect::Tsx => "tsx",
            Dialect::JavaScript => "javascript",
            Dialect::Jsx => "jsx",
            Dialect::Python => "python",
            Dialect::Go => "go",
            Dialect::C => "c",
            Dialect::Cpp => "cpp",
        }
    }

    /// The `languageId` of a document of this dialect, as LSP's `didOpen` names it.
    pub fn language_id(self) -> &'static str {
        match self {
            Dialect::Tsx => "typescriptreact",
            Dialect::Jsx => "javascriptreact",
            other => other.as_str(),
        }
    }

    /// Whether this dialect is one of the JavaScript family (TypeScript, TSX, JavaScript,
    /// JSX), which the grammars and rules treat alike.
    pub fn is_ecmascript(self) -> bool {
        self.language() == Language::TypeScript
    }
}

/// The `languageId` of a path (`plaintext` when its extension names no dialect).
pub fn language_id(path: &Path) -> &'static str {
    Dialect::of_path(path).map_or("plaintext", Dialect::language_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_has_one_dialect_and_its_language() {
        let cases = [
            ("a.rs", Dialect::Rust, Language::Rust, "rust"),
            (
                "a.d.ts",
                Dialect::TypeScript,
                Language::TypeScript,
                "typescript",
            ),
            (
                "a.mts",
                Dialect::TypeScript,
                Language::TypeScript,
                "typescript",
            ),
            (
                "a.tsx",
                Dialect::Tsx,
                Language::TypeScript,
                "typescriptreact",
            ),
            (
                "a.cjs",
                Dialect::JavaScript,
                Language::TypeScript,
                "javascript",
            ),
            (
                "a.jsx",
                Dialect::Jsx,
                Language::TypeScript,
                "javascriptreact",
            ),
            ("a.pyi", Dialect::Python, Language::Python, "python"),
            ("a.go", Dialect::Go, Language::Go, "go"),
            ("a.h", Dialect::C, Language::C, "c"),
            ("a.hpp", Dialect::Cpp, Language::C, "cpp"),
            ("a.C", Dialect::Cpp, Language::C, "cpp"),
            ("a.H", Dialect::Cpp, Language::C, "cpp"),
            ("a.RS", Dialect::Rust, Language::Rust, "rust"),
            (
                "x.TSX",
                Dialect::Tsx,
                Language::TypeScript,
                "typescriptreact",
            ),
        ];
        for (path, dialect, language, id) in cases {
            let path = Path::new(path);
            assert_eq!(Dialect::of_path(path), Some(dialect), "{path:?}");
            assert_eq!(Language::of_path(path), Some(language), "{path:?}");
            assert_eq!(language_id(path), id, "{path:?}");
        }
        for path in ["Makefile", "a.txt", "a.", ".rs/x"] {
            assert_eq!(Dialect::of_path(Path::new(path)), None, "{path}");
            assert_eq!(language_id(Path::new(path)), "plaintext");
        }
    }

    #[test]
    fn names_are_read_as_agents_write_them() {
        assert_eq!(
            Language::from_name("JavaScript"),
            Some(Language::TypeScript)
        );
        assert_eq!(Language::from_name("c++"), Some(Language::C));
        assert_eq!(Language::from_name("cobol"), None);
        for language in Language::ALL {
            assert_eq!(Language::from_name(language.as_str()), Some(language));
            assert_eq!(language.to_string(), language.as_str());
        }
    }
}
