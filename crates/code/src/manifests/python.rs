//! pyproject.toml: uv's `[tool.uv.workspace]` members, a new member as `uv init --lib`
//! writes one, the distributions a module imports (by PEP 503 name) and version
//! requirements. Through `toml_edit`, comments kept.

use std::collections::BTreeMap;

use toml_edit::{DocumentMut, Item, Value};

use super::{Extracted, Members, Refusal, Result, pep503};

fn doc(text: &str, field: &'static str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>()
        .map_err(|e| Refusal::new(field, format!("pyproject.toml is not valid TOML: {e}")))
}

fn workspace(d: &DocumentMut) -> Option<&dyn toml_edit::TableLike> {
    d.get("tool")?.get("uv")?.get("workspace")?.as_table_like()
}

pub fn is_workspace(text: &str) -> bool {
    text.parse::<DocumentMut>()
        .is_ok_and(|d| workspace(&d).is_some())
}

pub fn members(text: &str) -> Result<Members> {
    let d = doc(text, "directory")?;
    let w = workspace(&d)
        .ok_or_else(|| Refusal::new("ecosystem", "pyproject.toml has no [tool.uv.workspace]"))?;
    let list = |k: &str| -> Vec<String> {
        w.get(k)
            .and_then(Item::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(Members {
        members: list("members"),
        exclude: list("exclude"),
    })
}

/// A project name as PyPA takes it: letters, digits, `-`, `_`, `.`, starting and ending
/// with a letter or digit.
pub fn valid_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a valid Python project name (letters, digits, - _ . inside)"
        ))
    }
}

/// The import name of a project: `my-pkg` → `my_pkg`.
pub fn module_name(name: &str) -> String {
    pep503(name).replace('-', "_")
}

/// A new member's pyproject.toml (as `uv init --lib` writes it, with the root's
/// `requires-python`) and its `src/<module>/__init__.py`.
pub fn new_project(root_text: &str, name: &str, bin: bool) -> (String, String, String) {
    let requires = root_text
        .parse::<DocumentMut>()
        .ok()
        .and_then(|d| {
            d.get("project")?
                .get("requires-python")?
                .as_str()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| ">=3.9".to_owned());
    let module = module_name(name);
    let mut text = format!(
        "[project]\nname = \"{name}\"\nversion = \"0.1.0\"\ndescription = \"Add your description here\"\nrequires-python = \"{requires}\"\ndependencies = []\n"
    );
    if bin {
        text.push_str(&format!(
            "\n[project.scripts]\n{name} = \"{module}:main\"\n"
        ));
    }
    text.push_str(
        "\n[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n",
    );
    let init = if bin {
        format!("def main() -> None:\n    print(\"Hello from {name}!\")\n")
    } else {
        format!("def hello() -> str:\n    return \"Hello from {name}!\"\n")
    };
    (text, format!("src/{module}/__init__.py"), init)
}

/// Python's standard library modules most code imports (not distributions).
const STDLIB: &[&str] = &[
    "__future__",
    "abc",
    "argparse",
    "array",
    "ast",
    "asyncio",
    "base64",
    "binascii",
    "bisect",
    "builtins",
    "calendar",
    "cmath",
    "codecs",
    "collections",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "csv",
    "ctypes",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "dis",
    "email",
    "enum",
    "errno",
    "fnmatch",
    "fractions",
    "functools",
    "gc",
    "getpass",
    "gettext",
    "glob",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "math",
    "mimetypes",
    "multiprocessing",
    "numbers",
    "operator",
    "os",
    "pathlib",
    "pickle",
    "pkgutil",
    "platform",
    "plistlib",
    "pprint",
    "queue",
    "random",
    "re",
    "reprlib",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shlex",
    "shutil",
    "signal",
    "site",
    "socket",
    "sqlite3",
    "ssl",
    "stat",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sys",
    "sysconfig",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "tokenize",
    "tomllib",
    "traceback",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uuid",
    "warnings",
    "weakref",
    "xml",
    "zipfile",
    "zlib",
    "zoneinfo",
];

/// The top-level modules a Python file imports (relative and standard ones left out).
pub fn imports(text: &str) -> Vec<String> {
    let re = regex::Regex::new(
        r"(?m)^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w., \t]*))",
    )
    .expect("regex");
    let mut out = Vec::new();
    for c in re.captures_iter(text) {
        let names: Vec<String> = match (c.get(1), c.get(2)) {
            (Some(m), _) => vec![m.as_str().to_owned()],
            (_, Some(list)) => list
                .as_str()
                .split(',')
                .map(|s| s.split_whitespace().next().unwrap_or("").to_owned())
                .collect(),
            _ => continue,
        };
        for n in names {
            let top = n.split('.').next().unwrap_or("").to_owned();
            if top.is_empty() || STDLIB.contains(&top.as_str()) || out.contains(&top) {
                continue;
            }
            out.push(top);
        }
    }
    out
}

/// A requirement's project name (`Foo[bar]>=1; marker` → `Foo`).
fn req_name(req: &str) -> &str {
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .unwrap_or(req.len());
    &req[..end]
}

/// `target` pyproject.toml with the `[project].dependencies` of `source` that `modules`
/// import (matched by PEP 503 name, `_` as `-`), as written. `own`: the source's own
/// modules, not dependencies.
pub fn copy_dependencies(
    source: &str,
    target: &str,
    modules: &[String],
    own: &[String],
) -> Result<Extracted> {
    let src = doc(source, "source")?;
    let mut dst = doc(target, "target")?;
    let reqs: Vec<String> = src
        .get("project")
        .and_then(|p| p.get("dependencies"))
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Extracted::default();
    let have: BTreeMap<String, ()> = dst
        .get("project")
        .and_then(|p| p.get("dependencies"))
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(|s| (pep503(req_name(s)), ())))
                .collect()
        })
        .unwrap_or_default();
    let mut add = Vec::new();
    for m in modules {
        if own.iter().any(|o| pep503(o) == pep503(m)) {
            continue;
        }
        let Some(req) = reqs.iter().find(|r| pep503(req_name(r)) == pep503(m)) else {
            out.missing.push(m.clone());
            continue;
        };
        if have.contains_key(&pep503(req_name(req))) {
            out.already.push(req_name(req).to_owned());
        } else {
            add.push(req.clone());
            out.copied.push(req.clone());
        }
    }
    if !add.is_empty() {
        let project = dst
            .get_mut("project")
            .and_then(Item::as_table_like_mut)
            .ok_or_else(|| {
                Refusal::new(
                    "target",
                    "the target's pyproject.toml has no [project] table",
                )
            })?;
        if project.get("dependencies").is_none() {
            project.insert(
                "dependencies",
                Item::Value(Value::Array(toml_edit::Array::new())),
            );
        }
        let arr = project
            .get_mut("dependencies")
            .and_then(Item::as_array_mut)
            .ok_or_else(|| Refusal::new("target", "[project].dependencies is not an array"))?;
        for a in add {
            arr.push(a);
        }
    }
    out.text = dst.to_string();
    Ok(out)
}

/// pyproject.toml with `name`'s requirement set to `version` (a specifier such as
/// `>=2.0`) in `[project].dependencies`, optional dependencies and dependency groups;
/// extras and markers kept.
pub fn set_version(text: &str, name: &str, version: &str) -> Result<(String, Vec<String>)> {
    let mut d = doc(text, "manifest")?;
    let want = pep503(name);
    let mut changed = Vec::new();
    let mut fix = |arr: &mut toml_edit::Array, label: String| {
        for v in arr.iter_mut() {
            let Some(req) = v.as_str().map(str::to_owned) else {
                continue;
            };
            let n = req_name(&req);
            if pep503(n) != want {
                continue;
            }
            let rest = &req[n.len()..];
            let extras = rest
                .trim_start()
                .strip_prefix('[')
                .and_then(|r| r.find(']').map(|i| &r[..=i]))
                .map(|e| format!("[{e}"))
                .unwrap_or_default();
            let marker = rest
                .find(';')
                .map(|i| rest[i..].trim_end().to_owned())
                .unwrap_or_default();
            let decor = v.decor().clone();
            *v = Value::from(format!("{n}{extras}{version}{marker}"));
            *v.decor_mut() = decor;
            changed.push(label.clone());
        }
    };
    if let Some(arr) = d
        .get_mut("project")
        .and_then(|p| p.get_mut("dependencies"))
        .and_then(Item::as_array_mut)
    {
        fix(arr, "project.dependencies".into());
    }
    for (table, label) in [
        ("optional-dependencies", "project.optional-dependencies"),
        ("dependency-groups", "dependency-groups"),
    ] {
        let t = if table == "dependency-groups" {
            d.get_mut(table)
        } else {
            d.get_mut("project").and_then(|p| p.get_mut(table))
        };
        if let Some(t) = t.and_then(Item::as_table_like_mut) {
            for (k, item) in t.iter_mut() {
                if let Some(arr) = item.as_array_mut() {
                    fix(arr, format!("{label}.{k}"));
                }
            }
        }
    }
    if changed.is_empty() {
        return Err(Refusal::new(
            "name",
            format!("{name} is not a dependency in this pyproject.toml"),
        ));
    }
    Ok((d.to_string(), changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uv_members_and_new_projects() {
        let root = "[project]\nname = \"root\"\nrequires-python = \">=3.11\"\n\n[tool.uv.workspace]\n# all of them\nmembers = [\"packages/*\"]\nexclude = [\"packages/seeds\"]\n";
        assert!(is_workspace(root));
        let m = members(root).unwrap();
        assert_eq!(m.members, vec!["packages/*"]);
        assert_eq!(m.exclude, vec!["packages/seeds"]);
        let (text, init, _) = new_project(root, "My-Lib", false);
        assert!(text.contains("requires-python = \">=3.11\""));
        assert!(text.contains("build-backend = \"hatchling.build\""));
        assert_eq!(init, "src/my_lib/__init__.py");
        assert!(valid_name("a.b-c_d").is_ok());
        assert!(valid_name("-a").is_err());
    }

    #[test]
    fn imports_match_requirements_by_normalized_name() {
        let code = "import os, sys\nimport typing_extensions as te\nfrom attrs import define\nfrom . import sibling\nfrom mypkg.sub import x\nimport Yaml\n";
        let mods = imports(code);
        assert_eq!(mods, vec!["typing_extensions", "attrs", "mypkg", "Yaml"]);
        let source = "[project]\nname = \"mypkg\"\ndependencies = [\n    \"typing-extensions>=4.6; python_version < '3.12'\",\n    \"attrs[tests]==23.1\",\n]\n";
        let out = copy_dependencies(
            source,
            "[project]\nname = \"new\"\ndependencies = []\n",
            &mods,
            &["mypkg".to_owned()],
        )
        .unwrap();
        assert_eq!(out.missing, vec!["Yaml"]);
        assert!(
            out.text
                .contains("\"typing-extensions>=4.6; python_version < '3.12'\""),
            "{}",
            out.text
        );
        let (v, _) = set_version(source, "Attrs", ">=24").unwrap();
        assert!(v.contains("\"attrs[tests]>=24\""), "{v}");
        let (v, _) = set_version(source, "typing_extensions", ">=4.12").unwrap();
        assert!(
            v.contains("\"typing-extensions>=4.12; python_version < '3.12'\""),
            "{v}"
        );
        assert!(set_version(source, "nope", "1").is_err());
    }
}
