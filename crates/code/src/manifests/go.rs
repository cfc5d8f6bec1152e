//! go.work's `use` directives (one line, or a `use ( ... )` block), go.mod's module path,
//! go version and `require`s, and the modules a Go file imports. By lines, as gofmt writes
//! them.

use std::collections::BTreeSet;

use super::{Extracted, Refusal, Result};

/// A directive's entries, single (`use ./a`) or in blocks, with each entry's line.
fn directive(text: &str, word: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut block = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.split("//").next().unwrap_or("").trim();
        if block {
            if t == ")" {
                block = false;
            } else if !t.is_empty() {
                out.push((i, t.to_owned()));
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix(word) {
            if !rest.starts_with(|c: char| c.is_whitespace() || c == '(') {
                continue;
            }
            let rest = rest.trim();
            if rest == "(" {
                block = true;
            } else if !rest.is_empty() {
                out.push((i, rest.to_owned()));
            }
        }
    }
    out
}

/// go.work's used directories, as written.
pub fn uses(text: &str) -> Vec<String> {
    directive(text, "use")
        .into_iter()
        .map(|(_, u)| unquote(&u))
        .collect()
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').trim_matches('`').to_owned()
}

/// go.work with `./path` used (in the block if there is one, after the last `use` line
/// otherwise) or no longer used.
pub fn use_edit(text: &str, add: Option<&str>, remove: Option<&str>) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if let Some(remove) = remove {
        let want = super::normal(remove);
        let found: Vec<usize> = directive(text, "use")
            .into_iter()
            .filter(|(_, u)| super::normal(&unquote(u)) == want)
            .map(|(i, _)| i)
            .collect();
        for i in found.into_iter().rev() {
            lines.remove(i);
        }
        // An emptied `use (\n)` block goes too.
        if let Some(i) = (0..lines.len().saturating_sub(1))
            .find(|&i| lines[i].trim() == "use (" && lines[i + 1].trim() == ")")
        {
            lines.drain(i..=i + 1);
        }
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
    }
    if let Some(add) = add {
        let joined = lines.join("\n");
        let block_end = {
            let mut open = false;
            let mut end = None;
            for (i, line) in joined.lines().enumerate() {
                let t = line.trim();
                if t == "use (" {
                    open = true;
                } else if open && t == ")" {
                    end = Some(i);
                    break;
                }
            }
            end
        };
        match block_end {
            Some(end) => {
                let indent = lines[..end]
                    .iter()
                    .rev()
                    .take_while(|l| l.trim() != "use (")
                    .find(|l| !l.trim().is_empty())
                    .map(|l| l[..l.len() - l.trim_start().len()].to_owned())
                    .unwrap_or_else(|| "\t".to_owned());
                lines.insert(end, format!("{indent}{add}"));
            }
            None => match directive(&joined, "use").last() {
                Some((i, _)) => lines.insert(i + 1, format!("use {add}")),
                None => {
                    if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                        lines.push(String::new());
                    }
                    lines.push(format!("use {add}"));
                }
            },
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The `go` version a go.work or go.mod says.
pub fn go_version(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("go ").map(|v| v.trim().to_owned()))
}

/// A go.mod's module path.
pub fn module_path(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("module ")
            .map(|m| unquote(m.split("//").next().unwrap_or(m)))
    })
}

/// A Go package name: lower case letters, digits and `_`, not starting with a digit.
pub fn valid_name(name: &str) -> std::result::Result<(), String> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a Go package name (lower case letters, digits, _)"
        ))
    }
}

/// A new module: go.mod's text and its one file (name, text).
pub fn new_module(
    module: &str,
    go: Option<&str>,
    name: &str,
    bin: bool,
) -> (String, String, String) {
    let mut gomod = format!("module {module}\n");
    if let Some(go) = go {
        gomod.push_str(&format!("\ngo {go}\n"));
    }
    if bin {
        (
            gomod,
            "main.go".to_owned(),
            "package main\n\nfunc main() {\n}\n".to_owned(),
        )
    } else {
        (
            gomod,
            format!("{name}.go"),
            format!("// Package {name} is new.\npackage {name}\n"),
        )
    }
}

/// The import paths of a Go file.
pub fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block = false;
    for line in text.lines() {
        let t = line.split("//").next().unwrap_or("").trim();
        if block {
            if t == ")" {
                block = false;
                continue;
            }
            if let Some(p) = quoted(t) {
                out.push(p);
            }
        } else if let Some(rest) = t.strip_prefix("import") {
            let rest = rest.trim();
            if rest == "(" {
                block = true;
            } else if let Some(p) = quoted(rest) {
                out.push(p);
            }
        }
    }
    out
}

fn quoted(s: &str) -> Option<String> {
    let start = s.find(['"', '`'])?;
    let q = &s[start..start + 1];
    let rest = &s[start + 1..];
    Some(rest[..rest.find(q)?].to_owned())
}

/// go.mod's requirements: module path, version and line.
pub fn requires(text: &str) -> Vec<(String, String, usize)> {
    directive(text, "require")
        .into_iter()
        .filter_map(|(i, r)| {
            let mut parts = r.split_whitespace();
            Some((unquote(parts.next()?), parts.next()?.to_owned(), i))
        })
        .collect()
}

/// `target` go.mod with a `require` for each module `imports` reach in `source` go.mod's
/// requirements (longest module path first), with its version. A non-standard import no
/// requirement covers is missing (the source's own module aside).
pub fn copy_dependencies(
    source: &str,
    target: &str,
    imports: &BTreeSet<String>,
) -> Result<Extracted> {
    let own = module_path(source).unwrap_or_default();
    let mut reqs = requires(source);
    reqs.sort_by_key(|(m, _, _)| std::cmp::Reverse(m.len()));
    let have: BTreeSet<String> = requires(target).into_iter().map(|(m, _, _)| m).collect();
    let mut out = Extracted::default();
    let mut add: Vec<(String, String)> = Vec::new();
    for import in imports {
        let first = import.split('/').next().unwrap_or("");
        if !first.contains('.') {
            continue; // the standard library
        }
        if !own.is_empty() && (import == &own || import.starts_with(&format!("{own}/"))) {
            continue;
        }
        let Some((module, version, _)) = reqs
            .iter()
            .find(|(m, _, _)| import == m || import.starts_with(&format!("{m}/")))
        else {
            out.missing.push(import.clone());
            continue;
        };
        if have.contains(module) {
            if !out.already.contains(module) {
                out.already.push(module.clone());
            }
        } else if !add.iter().any(|(m, _)| m == module) {
            add.push((module.clone(), version.clone()));
            out.copied.push(format!("{module} {version}"));
        }
    }
    let mut lines: Vec<String> = target.lines().map(str::to_owned).collect();
    if !add.is_empty() {
        let block_end = {
            let mut open = false;
            lines.iter().position(|l| {
                let t = l.trim();
                if t == "require (" {
                    open = true;
                    false
                } else {
                    open && t == ")"
                }
            })
        };
        match block_end {
            Some(end) => {
                for (i, (m, v)) in add.iter().enumerate() {
                    lines.insert(end + i, format!("\t{m} {v}"));
                }
            }
            None if add.len() == 1 => {
                lines.push(String::new());
                lines.push(format!("require {} {}", add[0].0, add[0].1));
            }
            None => {
                lines.push(String::new());
                lines.push("require (".to_owned());
                lines.extend(add.iter().map(|(m, v)| format!("\t{m} {v}")));
                lines.push(")".to_owned());
            }
        }
    }
    out.text = lines.join("\n") + "\n";
    Ok(out)
}

/// go.mod with module `name`'s required version set (the line's comment kept).
pub fn set_version(text: &str, name: &str, version: &str) -> Result<(String, Vec<String>)> {
    let reqs = requires(text);
    let Some((_, old, line)) = reqs.iter().find(|(m, _, _)| m == name) else {
        return Err(Refusal::new(
            "name",
            format!("go.mod does not require {name}"),
        ));
    };
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let l = &lines[*line];
    let at = l.find(name).map(|i| i + name.len()).unwrap_or(0);
    let v = l[at..].find(old).map(|i| at + i).unwrap_or(at);
    lines[*line] = format!("{}{version}{}", &l[..v], &l[v + old.len()..]);
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    Ok((out, vec!["require".to_owned()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORK: &str = "go 1.22.0\n\ntoolchain go1.22.5\n\nuse (\n\t./api\n\t./cmd/server // the server\n\t./internal/tools\n)\n\nreplace example.com/old => ./old\n";

    #[test]
    fn go_work_uses_are_edited_in_both_forms() {
        assert_eq!(
            uses(WORK),
            vec!["./api", "./cmd/server", "./internal/tools"]
        );
        let added = use_edit(WORK, Some("./pkg/new"), None);
        assert_eq!(
            added,
            WORK.replace(
                "\t./internal/tools\n)",
                "\t./internal/tools\n\t./pkg/new\n)"
            )
        );
        assert_eq!(use_edit(&added, None, Some("pkg/new")), WORK);
        let single = "go 1.21\n\nuse ./a\n";
        assert_eq!(uses(single), vec!["./a"]);
        let two = use_edit(single, Some("./b"), None);
        assert_eq!(two, "go 1.21\n\nuse ./a\nuse ./b\n");
        assert_eq!(use_edit(&two, None, Some("./a")), "go 1.21\n\nuse ./b\n");
        assert_eq!(
            use_edit("go 1.21\n", Some("./a"), None),
            "go 1.21\n\nuse ./a\n"
        );
        assert_eq!(go_version(WORK).as_deref(), Some("1.22.0"));
    }

    #[test]
    fn imports_reach_required_modules_with_their_versions() {
        let gomod = "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/google/go-cmp v0.6.0\n\tgolang.org/x/sync v0.7.0 // indirect\n)\n\nrequire github.com/pkg/errors v0.9.1\n";
        let code = "package util\n\nimport (\n\t\"fmt\"\n\tcmp \"github.com/google/go-cmp/cmp\"\n\t\"example.com/app/internal\"\n\t\"github.com/unknown/x\"\n)\n\nimport \"golang.org/x/sync/errgroup\"\n";
        let found: BTreeSet<String> = imports(code).into_iter().collect();
        assert_eq!(found.len(), 5);
        let out =
            copy_dependencies(gomod, "module example.com/app/util\n\ngo 1.22\n", &found).unwrap();
        assert_eq!(out.missing, vec!["github.com/unknown/x"]);
        assert_eq!(
            out.text,
            "module example.com/app/util\n\ngo 1.22\n\nrequire (\n\tgithub.com/google/go-cmp v0.6.0\n\tgolang.org/x/sync v0.7.0\n)\n"
        );
        let (v, _) = set_version(gomod, "golang.org/x/sync", "v0.8.0").unwrap();
        assert!(v.contains("\tgolang.org/x/sync v0.8.0 // indirect\n"));
        let (v, _) = set_version(gomod, "github.com/pkg/errors", "v0.9.2").unwrap();
        assert!(v.contains("require github.com/pkg/errors v0.9.2\n"));
        assert!(set_version(gomod, "nope", "v1").is_err());
    }
}
