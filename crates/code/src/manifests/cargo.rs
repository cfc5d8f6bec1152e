//! Cargo.toml through `toml_edit`: workspace members and exclusions, new member manifests,
//! dependency tables (copied entry by entry, as written) and version requirements. Also
//! the generic TOML list edit uv's `[tool.uv.workspace]` shares.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path};

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use super::{Extracted, ListKind, Members, Refusal, Result};

fn doc(text: &str, field: &'static str) -> Result<DocumentMut> {
    text.parse::<DocumentMut>()
        .map_err(|e| Refusal::new(field, format!("the manifest is not valid TOML: {e}")))
}

pub fn is_workspace(text: &str) -> bool {
    text.parse::<DocumentMut>()
        .is_ok_and(|d| d.get("workspace").is_some_and(Item::is_table_like))
}

/// A table's string array at `key`, as written.
fn strings(item: Option<&Item>) -> Vec<String> {
    item.and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn table_at<'a>(doc: &'a DocumentMut, path: &[&str]) -> Option<&'a dyn toml_edit::TableLike> {
    let mut t: &dyn toml_edit::TableLike = doc.as_table();
    for key in path {
        t = t.get(key)?.as_table_like()?;
    }
    Some(t)
}

pub fn members(text: &str) -> Result<Members> {
    let d = doc(text, "directory")?;
    let t = table_at(&d, &["workspace"])
        .ok_or_else(|| Refusal::new("ecosystem", "Cargo.toml has no [workspace] table"))?;
    Ok(Members {
        members: strings(t.get("members")),
        exclude: strings(t.get("exclude")),
    })
}

/// `text` with `add` appended to, or `remove` taken from, the list `members` or `exclude`
/// of the table at `path`: the array keeps its layout (one line, or an item a line).
pub fn list_edit(
    text: &str,
    path: &[&str],
    list: ListKind,
    add: Option<&str>,
    remove: Option<&str>,
) -> Result<String> {
    let mut d = doc(text, "directory")?;
    let key = match list {
        ListKind::Members => "members",
        ListKind::Exclude => "exclude",
    };
    let mut t: &mut dyn toml_edit::TableLike = d.as_table_mut();
    for k in path {
        t = t
            .get_mut(k)
            .and_then(Item::as_table_like_mut)
            .ok_or_else(|| {
                Refusal::new(
                    "ecosystem",
                    format!("the manifest has no [{}] table", path.join(".")),
                )
            })?;
    }
    if t.get(key).is_none() {
        t.insert(key, Item::Value(Value::Array(Array::new())));
    }
    let arr = t.get_mut(key).and_then(Item::as_array_mut).ok_or_else(|| {
        Refusal::new(
            "members",
            format!("[{}] {key} is not an array", path.join(".")),
        )
    })?;
    if let Some(add) = add {
        push_like(arr, add);
    }
    if let Some(remove) = remove {
        remove_like(arr, |v| v.as_str() == Some(remove));
    }
    Ok(d.to_string())
}

/// Appends `s` with the decor its last item has, so a list of an item a line stays one.
fn push_like(arr: &mut Array, s: &str) {
    let prefix = match arr.iter().last() {
        Some(last) => {
            let p = last
                .decor()
                .prefix()
                .and_then(|p| p.as_str())
                .unwrap_or("")
                .to_owned();
            match p.rfind('\n') {
                // The last line of the prefix: its indentation, not its comments.
                Some(i) => p[i..].to_owned(),
                None if arr.len() == 1 => " ".to_owned(),
                None => p,
            }
        }
        None => String::new(),
    };
    let suffix = arr.iter().last().and_then(|l| {
        l.decor()
            .suffix()
            .and_then(|s| s.as_str())
            .map(str::to_owned)
    });
    // A comment after the last item's comma is the array's trailing text: it stays on the
    // last item's line, before the new item.
    let trailing = arr.trailing().as_str().unwrap_or("").to_owned();
    let prefix = match trailing.find('\n') {
        Some(end) if arr.trailing_comma() && trailing[..end].contains('#') => {
            arr.set_trailing(&trailing[end..]);
            format!("{}{prefix}", &trailing[..end])
        }
        _ => prefix,
    };
    arr.push(s);
    if let Some(v) = arr.iter_mut().last() {
        v.decor_mut().set_prefix(prefix);
        if let Some(suffix) = suffix.filter(|s| !s.contains('#')) {
            v.decor_mut().set_suffix(suffix);
        }
    }
}

/// Removes the items `hit` matches; the first left takes the removed first's prefix.
fn remove_like(arr: &mut Array, hit: impl Fn(&Value) -> bool) {
    loop {
        let Some(i) = arr.iter().position(&hit) else {
            break;
        };
        let prefix = arr.get(i).and_then(|v| {
            v.decor()
                .prefix()
                .and_then(|p| p.as_str())
                .map(str::to_owned)
        });
        arr.remove(i);
        if i == 0
            && let (Some(prefix), Some(first)) = (prefix, arr.get_mut(0))
            && !first
                .decor()
                .prefix()
                .and_then(|p| p.as_str())
                .unwrap_or("")
                .contains('\n')
        {
            first.decor_mut().set_prefix(prefix);
        }
    }
}

/// The `[package]` name of a Cargo.toml.
pub fn package_name(text: &str) -> Option<String> {
    let d = text.parse::<DocumentMut>().ok()?;
    d.get("package")?.get("name")?.as_str().map(str::to_owned)
}

/// A crate name cargo takes: ASCII letters, digits, `-` and `_`, not starting with a digit.
pub fn valid_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("a crate name cannot be empty".into());
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("crate name {name:?} starts with a digit"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "crate name {name:?} has {c:?}: only ASCII letters, digits, - and _"
        ));
    }
    if matches!(
        name,
        "self" | "super" | "crate" | "Self" | "std" | "core" | "alloc" | "test" | "proc_macro"
    ) {
        return Err(format!("{name:?} is reserved"));
    }
    Ok(())
}

/// A new member's Cargo.toml: what the root's `[workspace.package]` has is inherited
/// (`key.workspace = true`), the rest written; `[lints] workspace = true` when the root has
/// `[workspace.lints]`.
pub fn new_manifest(root_text: &str, name: &str, bin: bool) -> String {
    let d = root_text.parse::<DocumentMut>().ok();
    let shared: BTreeSet<String> = d
        .as_ref()
        .and_then(|d| table_at(d, &["workspace", "package"]))
        .map(|t| t.iter().map(|(k, _)| k.to_owned()).collect())
        .unwrap_or_default();
    let mut out = format!("[package]\nname = \"{name}\"\n");
    for key in [
        "version",
        "edition",
        "rust-version",
        "license",
        "authors",
        "repository",
        "homepage",
    ] {
        if shared.contains(key) {
            out.push_str(&format!("{key}.workspace = true\n"));
        } else if key == "version" {
            out.push_str("version = \"0.1.0\"\n");
        } else if key == "edition" {
            out.push_str("edition = \"2024\"\n");
        }
    }
    if !bin {
        // A library is published by default; nothing to add.
    }
    let lints = d
        .as_ref()
        .is_some_and(|d| table_at(d, &["workspace", "lints"]).is_some());
    if lints {
        out.push_str("\n[lints]\nworkspace = true\n");
    }
    out.push_str("\n[dependencies]\n");
    out
}

/// The entry file of a new crate: its path under the package and its text.
pub fn entry_file(name: &str, bin: bool) -> (&'static str, String) {
    if bin {
        (
            "src/main.rs",
            "fn main() {\n    println!(\"Hello, world!\");\n}\n".to_owned(),
        )
    } else {
        ("src/lib.rs", format!("//! {name}.\n"))
    }
}

/// Where code uses a crate: in normal code, under `#[cfg(test)]` (or a test file), or in a
/// build script.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Use {
    Normal,
    Test,
    Build,
}

/// The dependency tables of a Cargo.toml by what they serve, with each table's path.
fn dep_tables(d: &DocumentMut) -> Vec<(Vec<String>, Use)> {
    let mut out = Vec::new();
    let kinds = [
        ("dependencies", Use::Normal),
        ("dev-dependencies", Use::Test),
        ("build-dependencies", Use::Build),
    ];
    for (key, kind) in kinds {
        if d.get(key).is_some_and(Item::is_table_like) {
            out.push((vec![key.to_owned()], kind));
        }
    }
    if let Some(targets) = d.get("target").and_then(Item::as_table_like) {
        for (cfg, t) in targets.iter() {
            for (key, kind) in kinds {
                if t.get(key).is_some_and(Item::is_table_like) {
                    out.push((
                        vec!["target".to_owned(), cfg.to_owned(), key.to_owned()],
                        kind,
                    ));
                }
            }
        }
    }
    out
}

fn get_path<'a>(d: &'a DocumentMut, path: &[String]) -> Option<&'a dyn toml_edit::TableLike> {
    let keys: Vec<&str> = path.iter().map(String::as_str).collect();
    table_at(d, &keys)
}

/// The crates named in Rust source `text`, each with how it is used (normal code, or
/// only under `#[cfg(test)]`): roots of paths (`foo::bar`, `foo::m!`), `use` and
/// `extern crate`; the names the file itself declares or imports are left out.
pub fn rust_uses(text: &str) -> BTreeMap<String, Use> {
    let code = strip_rust(text);
    let tests = test_regions(&code);
    let ident = r"[A-Za-z_][A-Za-z0-9_]*";
    let path_root =
        regex::Regex::new(&format!(r"(?:^|[^A-Za-z0-9_:$])({ident})\s*::")).expect("regex");
    let use_root = regex::Regex::new(&format!(r"\buse\s+(?:::)?\s*({ident})")).expect("regex");
    let extern_crate = regex::Regex::new(&format!(r"\bextern\s+crate\s+({ident})")).expect("regex");
    let use_stmt = regex::Regex::new(r"\buse\s+[^;]*;").expect("regex");
    let module = regex::Regex::new(&format!(r"\bmod\s+({ident})")).expect("regex");
    let word = regex::Regex::new(ident).expect("regex");
    // Names the file brings in or declares: not crates.
    let mut local: BTreeSet<String> = BTreeSet::new();
    for m in use_stmt.find_iter(&code) {
        let body = m
            .as_str()
            .trim_start_matches("use")
            .trim_start()
            .trim_start_matches("::");
        for (i, w) in word.find_iter(body).enumerate() {
            if i > 0 {
                local.insert(w.as_str().to_owned());
            }
        }
    }
    for c in module.captures_iter(&code) {
        local.insert(c[1].to_owned());
    }
    let reserved = [
        "crate",
        "self",
        "super",
        "Self",
        "std",
        "core",
        "alloc",
        "proc_macro",
        "test",
        "r#crate",
    ];
    let mut out: BTreeMap<String, Use> = BTreeMap::new();
    let mut note = |name: &str, at: usize, declared: bool| {
        if reserved.contains(&name) || name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return;
        }
        if !declared && local.contains(name) {
            return;
        }
        let kind = if tests.iter().any(|(s, e)| *s <= at && at < *e) {
            Use::Test
        } else {
            Use::Normal
        };
        let e = out.entry(name.to_owned()).or_insert(kind);
        *e = (*e).min(kind);
    };
    for c in extern_crate.captures_iter(&code) {
        let m = c.get(1).expect("group");
        note(m.as_str(), m.start(), true);
    }
    for c in use_root.captures_iter(&code) {
        let m = c.get(1).expect("group");
        note(m.as_str(), m.start(), false);
    }
    for c in path_root.captures_iter(&code) {
        let m = c.get(1).expect("group");
        note(m.as_str(), m.start(), false);
    }
    out
}

/// Rust text with comments, strings and chars blanked (same length, lines kept).
fn strip_rust(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            let start = i;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            blank(&mut out, start, i);
        } else if b[i] == b'"'
            || (b[i] == b'r'
                && matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric()))
        {
            let start = i;
            if b[i] == b'r' {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
            } else {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            blank(&mut out, start, i);
        } else if b[i] == b'\'' {
            // A char literal ('a', '\n'), not a lifetime ('a).
            let close = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .take(10)
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(i + 1 + ch)
            };
            match close {
                Some(end) => {
                    blank(&mut out, i, end + 1);
                    i = end + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The byte spans of items under `#[cfg(test)]` (their braces), in stripped text.
fn test_regions(code: &str) -> Vec<(usize, usize)> {
    let attr = regex::Regex::new(r"#\[cfg\(\s*test\s*\)\]").expect("regex");
    let b = code.as_bytes();
    let mut out = Vec::new();
    for m in attr.find_iter(code) {
        let Some(open) = code[m.end()..].find(['{', ';']).map(|p| m.end() + p) else {
            continue;
        };
        if b[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut end = b.len();
        for (i, &c) in b.iter().enumerate().skip(open) {
            if c == b'{' {
                depth += 1;
            } else if c == b'}' {
                depth -= 1;
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
        }
        out.push((m.start(), end));
    }
    out
}

/// `target` (a member's Cargo.toml) with the entries of `source`'s dependency tables that
/// `uses` names, each copied as written (version, features, optional, default-features,
/// `package` renames, `workspace = true`) into the table of the same kind; a use under
/// test only goes to `[dev-dependencies]`. Names found in no table are `missing`.
pub fn copy_dependencies(
    source: &str,
    target: &str,
    uses: &BTreeMap<String, Use>,
    dirs: Option<(&Path, &Path)>,
) -> Result<Extracted> {
    let src = doc(source, "source")?;
    let mut dst = doc(target, "target")?;
    let tables = dep_tables(&src);
    let mut out = Extracted::default();
    for (name, kind) in uses {
        // The key code names a dependency by: its (renamed) key, `-` as `_`.
        let find = |want: Use| {
            tables
                .iter()
                .filter(|(_, k)| *k == want)
                .find_map(|(path, _)| {
                    let t = get_path(&src, path)?;
                    t.iter()
                        .find(|(k, _)| k.replace('-', "_") == *name)
                        .map(|(k, item)| (path.clone(), k.to_owned(), item.clone()))
                })
        };
        let found = match kind {
            Use::Normal => find(Use::Normal).or_else(|| find(Use::Test)),
            Use::Test => find(Use::Test)
                .map(|f| (f, false))
                .or_else(|| find(Use::Normal).map(|f| (f, true)))
                .map(|(f, moved)| {
                    if moved {
                        // Used only by tests here: a dev-dependency of the new package.
                        let mut path = f.0.clone();
                        if let Some(last) = path.last_mut() {
                            *last = "dev-dependencies".to_owned();
                        }
                        (path, f.1, f.2)
                    } else {
                        f
                    }
                }),
            Use::Build => find(Use::Build),
        };
        let Some((path, key, item)) = found else {
            out.missing.push(name.clone());
            continue;
        };
        let table = ensure_table(&mut dst, &path);
        if table.contains_key(&key) {
            out.already.push(key);
            continue;
        }
        let mut item = item;
        if let Some(v) = item.as_value_mut() {
            v.decor_mut().set_prefix(" ");
        }
        // A `path` is relative to the manifest: to the new one from where it points.
        if let Some((from, to)) = dirs
            && let Some(t) = item.as_table_like_mut()
            && let Some(v) = t.get_mut("path").and_then(Item::as_value_mut)
            && let Some(p) = v.as_str()
        {
            let moved = relative(to, &from.join(p));
            let decor = v.decor().clone();
            *v = Value::from(moved.as_str());
            *v.decor_mut() = decor;
        }
        table.insert(&key, item);
        out.copied.push(format!("{key} ({})", path.join(".")));
    }
    out.text = dst.to_string();
    Ok(out)
}

/// `path` (relative to the checkout, maybe with `..`) as seen from the directory `from`.
fn relative(from: &Path, path: &Path) -> String {
    let norm = |p: &Path| {
        let mut out: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                // `a/..` is nothing; a `..` with nothing before it stays.
                Component::ParentDir => match out.last() {
                    Some(last) if last != ".." => {
                        out.pop();
                    }
                    _ => out.push("..".into()),
                },
                Component::Normal(n) => out.push(n.to_string_lossy().into_owned()),
                _ => {}
            }
        }
        out
    };
    let (a, b) = (norm(from), norm(path));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); a.len() - common];
    parts.extend(b[common..].iter().cloned());
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

fn ensure_table<'a>(d: &'a mut DocumentMut, path: &[String]) -> &'a mut dyn toml_edit::TableLike {
    let mut t: &mut dyn toml_edit::TableLike = d.as_table_mut();
    for (i, key) in path.iter().enumerate() {
        if t.get(key).is_none_or(|item| !item.is_table_like()) {
            let mut new = Table::new();
            // `[target.'cfg(unix)'.dependencies]`, not an empty `[target]` header.
            new.set_implicit(i + 1 < path.len());
            t.insert(key, Item::Table(new));
        }
        t = t
            .get_mut(key)
            .and_then(Item::as_table_like_mut)
            .expect("a table just made");
    }
    t
}

/// `text` with dependency `name`'s version requirement set to `version` in every table that
/// lists it (`[dependencies]`, dev, build, target tables, `[workspace.dependencies]`), in
/// the form it is written (a string, or an inline or full table's `version`). An entry that
/// inherits (`workspace = true`) is left to the workspace's. Refused where none lists it.
pub fn set_version(text: &str, name: &str, version: &str) -> Result<(String, Vec<String>)> {
    let mut d = doc(text, "manifest")?;
    let mut paths: Vec<Vec<String>> = dep_tables(&d).into_iter().map(|(p, _)| p).collect();
    if table_at(&d, &["workspace", "dependencies"]).is_some() {
        paths.push(vec!["workspace".into(), "dependencies".into()]);
    }
    let mut changed = Vec::new();
    let mut inherited = false;
    for path in paths {
        let t = ensure_table(&mut d, &path);
        let keys: Vec<String> = t
            .iter()
            .filter(|(k, item)| {
                *k == name
                    || item
                        .as_table_like()
                        .and_then(|t| t.get("package"))
                        .and_then(Item::as_str)
                        == Some(name)
            })
            .map(|(k, _)| k.to_owned())
            .collect();
        for key in keys {
            let item = t.get_mut(&key).expect("listed");
            if let Some(v) = item.as_value_mut().filter(|v| v.is_str()) {
                let decor = v.decor().clone();
                *v = Value::from(version);
                *v.decor_mut() = decor;
            } else if let Some(tl) = item.as_table_like_mut() {
                if tl.get("workspace").and_then(Item::as_bool) == Some(true) {
                    inherited = true;
                    continue;
                }
                match tl.get_mut("version").and_then(Item::as_value_mut) {
                    Some(v) => {
                        let decor = v.decor().clone();
                        *v = Value::from(version);
                        *v.decor_mut() = decor;
                    }
                    None => {
                        tl.insert("version", toml_edit::value(version));
                    }
                }
            }
            changed.push(path.join("."));
        }
    }
    if changed.is_empty() {
        let why = if inherited {
            format!("{name} inherits its version from the workspace here (workspace = true)")
        } else {
            format!("{name} is not a dependency in this manifest")
        };
        let mut r = Refusal::new("name", why);
        if inherited {
            r = r.suggest("Change it in the root Cargo.toml's [workspace.dependencies].");
        }
        return Err(r);
    }
    Ok((d.to_string(), changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_manifest() -> String {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml")).unwrap()
    }

    #[test]
    fn this_repos_members_are_edited_with_every_comment_kept() {
        let text = repo_manifest();
        let m = members(&text).unwrap();
        assert!(m.members.contains(&"crates/code".to_owned()));
        let added = list_edit(
            &text,
            &["workspace"],
            ListKind::Members,
            Some("crates/new"),
            None,
        )
        .unwrap();
        let comments = |t: &str| {
            t.lines()
                .filter(|l| l.trim_start().starts_with('#'))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(comments(&added), comments(&text));
        assert!(
            added.contains("\"crates/analysis\", \"crates/new\"]"),
            "{added}"
        );
        // Only the members line differs.
        let diff: Vec<_> = text
            .lines()
            .zip(added.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(diff.len(), 1);
        let back = list_edit(
            &added,
            &["workspace"],
            ListKind::Members,
            None,
            Some("crates/new"),
        )
        .unwrap();
        assert_eq!(back, text);
    }

    #[test]
    fn a_list_of_an_item_a_line_stays_one() {
        let text =
            "[workspace]\nmembers = [\n    \"a\",\n    # the b crate\n    \"b\", # last\n]\n";
        let added = list_edit(text, &["workspace"], ListKind::Members, Some("c"), None).unwrap();
        assert_eq!(
            added,
            "[workspace]\nmembers = [\n    \"a\",\n    # the b crate\n    \"b\", # last\n    \"c\",\n]\n"
        );
        let removed =
            list_edit(&added, &["workspace"], ListKind::Members, None, Some("a")).unwrap();
        assert!(removed.contains("# the b crate"), "{removed}");
        assert!(!removed.contains("\"a\""));
        let excluded = list_edit(text, &["workspace"], ListKind::Exclude, Some("x"), None).unwrap();
        assert!(excluded.ends_with("exclude = [\"x\"]\n"), "{excluded}");
    }

    #[test]
    fn a_new_member_inherits_what_the_workspace_shares() {
        let manifest = new_manifest(&repo_manifest(), "resolve-pr-new", false);
        assert!(manifest.contains("version.workspace = true\nedition.workspace = true\nrust-version.workspace = true\nlicense.workspace = true\nrepository.workspace = true\n"));
        assert!(manifest.contains("[lints]\nworkspace = true"));
        let plain = new_manifest("[workspace]\nmembers = []\n", "x", true);
        assert!(
            plain.contains("version = \"0.1.0\"\nedition = \"2024\"\n"),
            "{plain}"
        );
        assert!(valid_name("my-crate_2").is_ok());
        assert!(valid_name("2x").is_err());
        assert!(valid_name("a.b").is_err());
    }

    #[test]
    fn crates_named_by_code_are_found_with_tests_apart() {
        let code = r#"
use serde::Serialize;
use crate::local::{thing, other as renamed};
extern crate rand_core;
/// regex::Regex in a doc comment is not a use
fn f() -> String { let _ = "tokio::spawn"; anyhow::bail!("x"); thing::go(); format!("{}", 'a') }
mod inner { pub fn g() {} }
fn h() { inner::g(); Vec::<u8>::new(); std::mem::drop(1); }
#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    fn t() { serde_json::to_string(&1).unwrap(); }
}
"#;
        let uses = rust_uses(code);
        let names: Vec<(&str, Use)> = uses.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            names,
            vec![
                ("anyhow", Use::Normal),
                ("proptest", Use::Test),
                ("rand_core", Use::Normal),
                ("serde", Use::Normal),
                ("serde_json", Use::Test),
            ]
        );
    }

    #[test]
    fn dependencies_are_copied_as_written_from_a_real_manifest() {
        let source = std::fs::read_to_string(
            dirs_corpus().join("regex-syntax-0.8.5/regex-syntax-0.8.5/Cargo.toml"),
        );
        let Ok(source) = source else {
            return;
        };
        // regex-syntax has an optional dependency and dev-dependencies.
        let uses: BTreeMap<String, Use> = [
            ("arbitrary".to_owned(), Use::Normal),
            ("nope".to_owned(), Use::Normal),
        ]
        .into();
        let out = copy_dependencies(&source, "[package]\nname = \"t\"\n", &uses, None).unwrap();
        assert_eq!(out.missing, vec!["nope"]);
        assert!(
            out.text.contains("[dependencies.arbitrary]") || out.text.contains("arbitrary = {"),
            "{}",
            out.text
        );
        assert!(out.text.contains("optional = true"), "{}", out.text);
    }

    fn dirs_corpus() -> std::path::PathBuf {
        std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default())
            .join(".cache/resolve-pr/corpus")
    }

    #[test]
    fn inherited_renamed_and_target_dependencies_keep_their_form() {
        let source = "[package]\nname = \"old\"\n\n[dependencies]\nserde = { workspace = true, features = [\"derive\"] }\nrx = { package = \"regex\", version = \"1.11\", default-features = false, optional = true }\nunused = \"1\"\n\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n\n[dev-dependencies]\ntempfile = \"3\"\n";
        let target = "[package]\nname = \"new\"\n\n# deps below\n[dependencies]\nserde = { workspace = true }\n";
        let uses: BTreeMap<String, Use> = [
            ("serde".to_owned(), Use::Normal),
            ("rx".to_owned(), Use::Normal),
            ("libc".to_owned(), Use::Normal),
            ("tempfile".to_owned(), Use::Test),
        ]
        .into();
        let out = copy_dependencies(source, target, &uses, None).unwrap();
        assert_eq!(out.already, vec!["serde"]);
        assert!(out.text.contains("# deps below"));
        assert!(out.text.contains("rx = { package = \"regex\", version = \"1.11\", default-features = false, optional = true }"), "{}", out.text);
        assert!(
            out.text
                .contains("[target.\"cfg(unix)\".dependencies]\nlibc = \"0.2\""),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("[dev-dependencies]\ntempfile = \"3\""),
            "{}",
            out.text
        );
        assert!(!out.text.contains("unused"));
        assert!(!out.text.contains("[target]"), "{}", out.text);
    }

    #[test]
    fn path_dependencies_point_from_the_new_manifest() {
        let source = "[dependencies]\nsib = { path = \"../sib\", version = \"0.1\" }\n";
        let uses: BTreeMap<String, Use> = [("sib".to_owned(), Use::Normal)].into();
        let out = copy_dependencies(
            source,
            "[dependencies]\n",
            &uses,
            Some((Path::new("crates/old"), Path::new("libs/deep/new"))),
        )
        .unwrap();
        assert_eq!(
            out.text,
            "[dependencies]\nsib = { path = \"../../../crates/sib\", version = \"0.1\" }\n"
        );
    }

    #[test]
    fn versions_change_in_every_form_and_absent_ones_are_refused() {
        let text = "[workspace.dependencies]\n# pinned\nserde = { version = \"1.0\", features = [\"derive\"] } # why\ntoml = \"0.8\"\n\n[dependencies]\nserde.workspace = true\n";
        let (out, changed) = set_version(text, "toml", "0.9").unwrap();
        assert_eq!(out, text.replace("toml = \"0.8\"", "toml = \"0.9\""));
        assert_eq!(changed, vec!["workspace.dependencies"]);
        let (out, _) = set_version(text, "serde", "1.1").unwrap();
        assert!(
            out.contains("serde = { version = \"1.1\", features = [\"derive\"] } # why"),
            "{out}"
        );
        assert!(out.contains("serde.workspace = true"));
        assert_eq!(set_version(text, "nope", "1").unwrap_err().field, "name");
        let only = "[dependencies]\nserde.workspace = true\n";
        assert!(
            set_version(only, "serde", "1")
                .unwrap_err()
                .message
                .contains("inherits")
        );
    }
}
