//! package.json workspaces (array and `{packages: [...]}` forms), pnpm-workspace.yaml's
//! `packages` (by lines), npm package names, the packages JavaScript and TypeScript files
//! import, and dependency versions. package.json is edited at the spans a parse found.

use std::collections::BTreeMap;

use super::json::{self, Kind, Node};
use super::{Extracted, Members, Refusal, Result};

fn parse(text: &str, field: &'static str) -> Result<Node> {
    json::parse(text)
        .map_err(|e| Refusal::new(field, format!("package.json is not valid JSON: {e}")))
}

/// The workspaces array node: `workspaces` itself or its `packages`.
fn workspaces_node(root: &Node) -> Option<&Node> {
    let w = root.get("workspaces")?;
    match &w.value {
        Kind::Array(_) => Some(w),
        Kind::Object(_) => w
            .get("packages")
            .filter(|p| matches!(p.value, Kind::Array(_))),
        _ => None,
    }
}

/// The root package.json's workspaces, as written; refused where it has none.
pub fn workspaces(text: &str) -> Result<Vec<String>> {
    let root = parse(text, "directory")?;
    let node = workspaces_node(&root)
        .ok_or_else(|| Refusal::new("ecosystem", "package.json has no workspaces"))?;
    let Kind::Array(items) = &node.value else {
        return Ok(Vec::new());
    };
    Ok(items
        .iter()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect())
}

pub fn workspaces_edit(text: &str, add: Option<&str>, remove: Option<&str>) -> Result<String> {
    let mut text = text.to_owned();
    if let Some(add) = add {
        let root = parse(&text, "directory")?;
        let node = workspaces_node(&root)
            .ok_or_else(|| Refusal::new("ecosystem", "package.json has no workspaces"))?;
        text = json::append(&text, node, &json::quote(add));
    }
    if let Some(remove) = remove {
        loop {
            let root = parse(&text, "directory")?;
            let node = workspaces_node(&root)
                .ok_or_else(|| Refusal::new("ecosystem", "package.json has no workspaces"))?;
            let Kind::Array(items) = &node.value else {
                break;
            };
            let Some(i) = items.iter().position(|n| n.as_str() == Some(remove)) else {
                break;
            };
            text = json::remove(&text, node, i);
        }
    }
    Ok(text)
}

/// One `- item` line of pnpm-workspace.yaml's `packages`: its line index, the text before
/// the value, the value, and its quote.
struct YamlItem {
    line: usize,
    lead: String,
    value: String,
    quote: &'static str,
}

fn pnpm_items(text: &str) -> (Option<usize>, Vec<YamlItem>) {
    let lines: Vec<&str> = text.lines().collect();
    let Some(key) = lines.iter().position(|l| l.starts_with("packages:")) else {
        return (None, Vec::new());
    };
    let mut items = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(key + 1) {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if !line.starts_with([' ', '\t', '-']) {
            break;
        }
        let Some(rest) = t.strip_prefix('-') else {
            break;
        };
        let lead = format!("{}- ", &line[..line.len() - t.len()]);
        let raw = rest.trim();
        let raw = raw.split(" #").next().unwrap_or(raw).trim();
        let (value, quote) =
            if let Some(v) = raw.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
                (v.to_owned(), "'")
            } else if let Some(v) = raw.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                (v.to_owned(), "\"")
            } else {
                (raw.to_owned(), "")
            };
        items.push(YamlItem {
            line: i,
            lead,
            value,
            quote,
        });
    }
    (Some(key), items)
}

/// pnpm-workspace.yaml's packages (negations, `!path`, among them).
pub fn pnpm_packages(text: &str) -> Members {
    let (_, items) = pnpm_items(text);
    Members {
        members: items.into_iter().map(|i| i.value).collect(),
        exclude: Vec::new(),
    }
}

/// pnpm-workspace.yaml with an item line added after the last (in its indentation and
/// quotes) or removed.
pub fn pnpm_edit(text: &str, add: Option<&str>, remove: Option<&str>) -> Result<String> {
    let (key, items) = pnpm_items(text);
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let newline_end = text.ends_with('\n');
    if let Some(remove) = remove {
        for item in items.iter().rev().filter(|i| i.value == remove) {
            lines.remove(item.line);
        }
    }
    if let Some(add) = add {
        let (_, items) = pnpm_items(&(lines.join("\n") + "\n"));
        let (at, lead, quote) = match (items.last(), key) {
            (Some(last), _) => (last.line + 1, last.lead.clone(), last.quote),
            (None, Some(k)) => {
                // `packages: []` or `packages:` with nothing under it.
                lines[k] = "packages:".to_owned();
                (k + 1, "  - ".to_owned(), "'")
            }
            (None, None) => {
                lines.push("packages:".to_owned());
                (lines.len(), "  - ".to_owned(), "'")
            }
        };
        let quote = if add.starts_with('!') && quote.is_empty() {
            "'"
        } else {
            quote
        };
        lines.insert(at, format!("{lead}{quote}{add}{quote}"));
    }
    let mut out = lines.join("\n");
    if newline_end || add.is_some() {
        out.push('\n');
    }
    Ok(out)
}

/// A package.json's name.
pub fn package_name(text: &str) -> Option<String> {
    json::parse(text)
        .ok()?
        .get("name")?
        .as_str()
        .map(str::to_owned)
}

/// Whether npm takes `name` as a package name: at most 214 characters, lower case, URL-safe,
/// not starting with `.` or `_`; `@scope/name` with both parts so.
pub fn valid_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.len() > 214 {
        return Err(format!(
            "an npm name is 1 to 214 characters; {name:?} is not"
        ));
    }
    let parts: Vec<&str> = match name.strip_prefix('@') {
        Some(scoped) => {
            let Some((scope, rest)) = scoped.split_once('/') else {
                return Err(format!("{name:?}: a scoped name is @scope/name"));
            };
            vec![scope, rest]
        }
        None => vec![name],
    };
    for part in parts {
        if part.is_empty() || part.starts_with(['.', '_']) {
            return Err(format!(
                "{name:?}: a name cannot be empty or start with . or _"
            ));
        }
        if let Some(c) = part
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "-._~".contains(*c)))
        {
            return Err(format!(
                "{name:?} has {c:?}: npm names are lower case letters, digits, - . _ ~"
            ));
        }
    }
    if matches!(name, "node_modules" | "favicon.ico") {
        return Err(format!("{name:?} is reserved"));
    }
    Ok(())
}

/// A new workspace package: its package.json and its entry file (name, text).
pub fn new_package(name: &str, typescript: bool, bin: bool) -> (String, &'static str, String) {
    let entry = if typescript { "index.ts" } else { "index.js" };
    let bin_field = if bin {
        format!(
            ",\n  \"bin\": {{\n    {}: \"{entry}\"\n  }}",
            json::quote(name.rsplit('/').next().unwrap_or(name))
        )
    } else {
        String::new()
    };
    let manifest = format!(
        "{{\n  \"name\": {},\n  \"version\": \"1.0.0\",\n  \"private\": true,\n  \"main\": \"{entry}\"{bin_field}\n}}\n",
        json::quote(name)
    );
    let code = match (typescript, bin) {
        (_, true) => format!(
            "{}console.log(\"Hello from {name}\");\n",
            if typescript {
                ""
            } else {
                "#!/usr/bin/env node\n"
            }
        ),
        (true, false) => "export {};\n".to_owned(),
        (false, false) => "module.exports = {};\n".to_owned(),
    };
    (manifest, entry, code)
}

/// Node's built-in modules (also importable as `node:x`).
const BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
    "test",
];

/// The packages a JavaScript or TypeScript file imports by bare specifier (`@scope/x/sub`
/// as `@scope/x`); relative paths, node builtins and `node:` left out.
pub fn js_uses(text: &str) -> Vec<String> {
    let re = regex::Regex::new(
        r#"(?m)(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"\n]+)['"]"#,
    )
    .expect("regex");
    let mut out = Vec::new();
    for c in re.captures_iter(text) {
        let spec = &c[1];
        if spec.starts_with(['.', '/']) || spec.starts_with("node:") {
            continue;
        }
        let mut parts = spec.split('/');
        let name = if spec.starts_with('@') {
            match (parts.next(), parts.next()) {
                (Some(s), Some(n)) => format!("{s}/{n}"),
                _ => continue,
            }
        } else {
            parts.next().unwrap_or(spec).to_owned()
        };
        if BUILTINS.contains(&name.as_str()) {
            continue;
        }
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

const SECTIONS: [&str; 4] = [
    "dependencies",
    "peerDependencies",
    "optionalDependencies",
    "devDependencies",
];

/// `target` package.json with the entries of `source`'s dependency sections that `uses`
/// names (each name with whether only tests use it), in the same section and version.
pub fn copy_dependencies(
    source: &str,
    target: &str,
    uses: &BTreeMap<String, bool>,
) -> Result<Extracted> {
    let src = parse(source, "source")?;
    let mut text = target.to_owned();
    let mut out = Extracted::default();
    for (name, test_only) in uses {
        let found = SECTIONS.iter().find_map(|s| {
            let v = src.get(s)?.get(name)?.as_str()?;
            Some((*s, v.to_owned()))
        });
        let Some((section, version)) = found else {
            out.missing.push(name.clone());
            continue;
        };
        let section = if *test_only && section == "dependencies" {
            "devDependencies"
        } else {
            section
        };
        let dst = parse(&text, "target")?;
        if SECTIONS
            .iter()
            .any(|s| dst.get(s).and_then(|t| t.get(name)).is_some())
        {
            out.already.push(name.clone());
            continue;
        }
        text = match dst.get(section) {
            Some(obj) if matches!(obj.value, Kind::Object(_)) => {
                json::append_member(&text, obj, name, &json::quote(&version))
            }
            _ => {
                let with = json::append_member(&text, &dst, section, "{}");
                let dst = parse(&with, "target")?;
                let obj = dst.get(section).expect("just added");
                json::append_member(&with, obj, name, &json::quote(&version))
            }
        };
        out.copied.push(format!("{name} ({section})"));
    }
    out.text = text;
    Ok(out)
}

/// package.json with `name`'s version set in every dependency section listing it.
pub fn set_version(text: &str, name: &str, version: &str) -> Result<(String, Vec<String>)> {
    let mut text = text.to_owned();
    let mut changed = Vec::new();
    for section in SECTIONS {
        let root = parse(&text, "manifest")?;
        if let Some(node) = root
            .get(section)
            .and_then(|s| s.get(name))
            .filter(|n| n.as_str().is_some())
        {
            text = json::replace_string(&text, node, version);
            changed.push(section.to_owned());
        }
    }
    if changed.is_empty() {
        return Err(Refusal::new(
            "name",
            format!("{name} is not a dependency in this package.json"),
        ));
    }
    Ok((text, changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNPM: &str = "packages:\n  # all packages in direct subdirs of packages/\n  - 'packages/*'\n  # exclude packages that are inside test directories\n  - '!**/test/**'\n\ncatalog:\n  react: ^18.2.0\n";

    #[test]
    fn pnpm_packages_are_edited_by_lines() {
        assert_eq!(
            pnpm_packages(PNPM).members,
            vec!["packages/*", "!**/test/**"]
        );
        let added = pnpm_edit(PNPM, Some("tools/cli"), None).unwrap();
        assert_eq!(
            added,
            PNPM.replace(
                "  - '!**/test/**'\n",
                "  - '!**/test/**'\n  - 'tools/cli'\n"
            )
        );
        assert_eq!(pnpm_edit(&added, None, Some("tools/cli")).unwrap(), PNPM);
        let empty = pnpm_edit("packages: []\n", Some("a"), None).unwrap();
        assert_eq!(empty, "packages:\n  - 'a'\n");
    }

    #[test]
    fn workspaces_in_both_forms() {
        let object = "{\n  \"private\": true,\n  \"workspaces\": {\n    \"packages\": [\"packages/*\"],\n    \"nohoist\": []\n  }\n}\n";
        assert_eq!(workspaces(object).unwrap(), vec!["packages/*"]);
        let added = workspaces_edit(object, Some("tools/x"), None).unwrap();
        assert!(
            added.contains("\"packages\": [\"packages/*\", \"tools/x\"],"),
            "{added}"
        );
        assert!(workspaces("{\"name\": \"x\"}").is_err());
    }

    #[test]
    fn npm_names_follow_npms_rules() {
        assert!(valid_name("@scope/my-pkg.js").is_ok());
        assert!(valid_name("My-Pkg").is_err());
        assert!(valid_name("_x").is_err());
        assert!(valid_name("@scope").is_err());
        assert!(valid_name("a b").is_err());
    }

    #[test]
    fn bare_imports_name_their_packages() {
        let code = "import React from 'react';\nimport { x } from \"@scope/lib/sub/path\";\nconst fs = require('fs');\nconst p = require(\"node:path\");\nimport './side.css';\nimport 'polyfill';\nconst lazy = await import('lodash/fp');\nexport * from '../local';\n";
        assert_eq!(
            js_uses(code),
            vec!["react", "@scope/lib", "polyfill", "lodash"]
        );
    }

    #[test]
    fn dependencies_are_copied_into_their_sections() {
        let source = "{\n  \"dependencies\": {\n    \"react\": \"^18.2.0\"\n  },\n  \"devDependencies\": {\n    \"vitest\": \"^1.0.0\"\n  }\n}\n";
        let target = "{\n  \"name\": \"new\",\n  \"version\": \"1.0.0\"\n}\n";
        let uses: BTreeMap<String, bool> = [
            ("react".to_owned(), false),
            ("vitest".to_owned(), true),
            ("ghost".to_owned(), false),
        ]
        .into();
        let out = copy_dependencies(source, target, &uses).unwrap();
        assert_eq!(out.missing, vec!["ghost"]);
        assert_eq!(
            out.text,
            "{\n  \"name\": \"new\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n    \"react\": \"^18.2.0\"\n  },\n  \"devDependencies\": {\n    \"vitest\": \"^1.0.0\"\n  }\n}\n"
        );
        let (v, _) = set_version(&out.text, "react", "^19.0.0").unwrap();
        assert!(v.contains("\"react\": \"^19.0.0\""));
        assert_eq!(set_version(&v, "nope", "1").unwrap_err().field, "name");
    }
}
