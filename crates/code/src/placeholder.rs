//! The name an agent gives what it extracts. A server's extract action names the new
//! function, variable or constant itself (`fun_name`, `newFunction`, `extracted_method`)
//! and leaves renaming it to the editor; here the name the server invented is found in the
//! text it inserts (the one identifier that is in no file it edits) and replaced there, so
//! one plan does what an editor does in two steps.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;
use resolve_pr_source::{FileChange, WorkspaceChange};

/// The names the servers give what they extract, most specific first: rust-analyzer's,
/// typescript-language-server's, rope's, gopls', clangd's.
const KNOWN: &[&str] = &[
    "fun_name",
    "var_name",
    "VAR_NAME",
    "STATIC_NAME",
    "newFunction",
    "newLocal",
    "extracted_method",
    "extracted_variable",
    "extracted_global",
    "newVar",
    "newConst",
    "extracted",
    "placeholder",
];

/// Why a name could not be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("{0:?} is not an identifier (letters, digits, _ or $, not starting with a digit)")]
    NotAnIdentifier(String),
    #[error("{name:?} already names something in {file}: the new declaration could shadow it")]
    Taken { name: String, file: String },
    #[error("the name the server gave cannot be told apart by text: {0}")]
    Unclear(String),
}

fn identifier() -> Regex {
    Regex::new(r"[A-Za-z_$][A-Za-z0-9_$]*").expect("a valid pattern")
}

fn words(text: &str, re: &Regex) -> BTreeSet<String> {
    re.find_iter(text).map(|m| m.as_str().to_owned()).collect()
}

/// Gives `name` to what `change` declares under a name of the server's: `original` reads a
/// file's text as it is before the change. Returns the name replaced.
pub fn give_name(
    change: &mut WorkspaceChange,
    original: impl Fn(&Path) -> Option<String>,
    name: &str,
) -> Result<String, NameError> {
    let re = identifier();
    if re.find(name).is_none_or(|m| m.range() != (0..name.len())) {
        return Err(NameError::NotAnIdentifier(name.to_owned()));
    }
    let mut invented = BTreeSet::new();
    for c in &change.changes {
        let (path, inserted) = match c {
            FileChange::Edit { path, edits } => (
                path,
                edits
                    .iter()
                    .map(|e| e.new_text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            FileChange::Create { path, contents, .. } => (path, contents.clone()),
            _ => continue,
        };
        let before = original(path).unwrap_or_default();
        let existing = words(&before, &re);
        if existing.contains(name) {
            return Err(NameError::Taken {
                name: name.to_owned(),
                file: path.display().to_string(),
            });
        }
        invented.extend(
            words(&inserted, &re)
                .into_iter()
                .filter(|w| !existing.contains(w)),
        );
    }
    let chosen = KNOWN
        .iter()
        .find(|k| invented.contains(**k))
        .map(|k| (*k).to_owned())
        .or_else(|| (invented.len() == 1).then(|| invented.iter().next().cloned())?)
        .ok_or_else(|| {
            NameError::Unclear(if invented.is_empty() {
                "it reuses a name the file already has".to_owned()
            } else {
                format!(
                    "its edit brings several new names ({})",
                    invented.iter().cloned().collect::<Vec<_>>().join(", ")
                )
            })
        })?;
    let whole = Regex::new(&format!(
        r"(^|[^A-Za-z0-9_$]){}([^A-Za-z0-9_$]|$)",
        regex::escape(&chosen)
    ))
    .expect("an escaped name");
    let rename = |text: &mut String| {
        // Twice: adjacent occurrences share the character between them.
        for _ in 0..2 {
            *text = whole
                .replace_all(text, |c: &regex::Captures<'_>| {
                    format!("{}{name}{}", &c[1], &c[2])
                })
                .into_owned();
        }
    };
    for c in &mut change.changes {
        match c {
            FileChange::Edit { edits, .. } => {
                edits.iter_mut().for_each(|e| rename(&mut e.new_text))
            }
            FileChange::Create { contents, .. } => rename(contents),
            _ => {}
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use resolve_pr_source::{TextEdit, TextRange};

    use super::*;

    fn edit(path: &str, texts: &[&str]) -> WorkspaceChange {
        WorkspaceChange {
            changes: vec![FileChange::Edit {
                path: PathBuf::from(path),
                edits: texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| TextEdit::replace(TextRange::empty(i * 10), *t))
                    .collect(),
            }],
        }
    }

    fn texts(change: &WorkspaceChange) -> Vec<String> {
        match &change.changes[0] {
            FileChange::Edit { edits, .. } => edits.iter().map(|e| e.new_text.clone()).collect(),
            _ => unreachable!(),
        }
    }

    const ORIGINAL: &str = "fn main() {\n    let total = add(1, 2) * 3;\n}\n";

    #[test]
    fn the_servers_name_is_replaced_in_what_it_inserts() {
        let mut change = edit(
            "src/main.rs",
            &["fun_name()", "\nfn fun_name() -> i32 {\n    add(1, 2)\n}\n"],
        );
        let got = give_name(&mut change, |_| Some(ORIGINAL.to_owned()), "sum_of_two");
        assert_eq!(got, Ok("fun_name".to_owned()));
        assert_eq!(
            texts(&change),
            [
                "sum_of_two()",
                "\nfn sum_of_two() -> i32 {\n    add(1, 2)\n}\n"
            ]
        );
    }

    #[test]
    fn one_new_name_is_the_servers_even_when_unknown() {
        let mut change = edit("a.go", &["x := a + b\n", "x"]);
        let got = give_name(&mut change, |_| Some("a + b".to_owned()), "sum");
        assert_eq!(got, Ok("x".to_owned()));
        assert_eq!(texts(&change), ["sum := a + b\n", "sum"]);
    }

    #[test]
    fn bad_taken_and_unclear_names_are_refused() {
        let mut change = edit("src/main.rs", &["var_name"]);
        let read = |_: &Path| Some(ORIGINAL.to_owned());
        assert!(matches!(
            give_name(&mut change, read, "2x"),
            Err(NameError::NotAnIdentifier(_))
        ));
        assert!(matches!(
            give_name(&mut change, read, "a-b"),
            Err(NameError::NotAnIdentifier(_))
        ));
        assert!(matches!(
            give_name(&mut change, read, "total"),
            Err(NameError::Taken { .. })
        ));
        let mut change = edit("src/main.rs", &["let a1 = b1;"]);
        assert_eq!(
            give_name(&mut change, read, "fresh"),
            Err(NameError::Unclear(
                "its edit brings several new names (a1, b1)".to_owned()
            ))
        );
    }
}
