//! Dependency updates: which manifests and lockfiles changed, and what changed in them.
//!
//! Read files: `Cargo.toml` (every `*dependencies` table, also under `target.*` and
//! `workspace`), `Cargo.lock`, `package.json` (`dependencies`, `devDependencies`,
//! `peerDependencies`, `optionalDependencies`), `package-lock.json` and
//! `npm-shrinkwrap.json` (v1 `dependencies` tree, v2/v3 `packages`), `yarn.lock` (v1 and
//! Berry), `pnpm-lock.yaml` (the `packages` keys of v5, v6 and v9), `requirements*.txt`, `pyproject.toml` (PEP 621 `project.dependencies` and
//! `optional-dependencies`, PEP 735 `dependency-groups`, Poetry's `tool.poetry` tables),
//! `poetry.lock`, `uv.lock` and `go.mod` (`require`). Manifests give declared requirements
//! (`^1.2`), lockfiles resolved versions.
//!
//! **Major**: Cargo and npm follow semver's compatibility rule as both tools apply it: the
//! first non-zero of major.minor.patch changing is major (`1.x → 2.x`, `0.3 → 0.4`). Go: the
//! major number changes (`v0 → v1` included), or the module path's `/vN` suffix does (the
//! old path removed and the new one added become one update). PyPI: the first release
//! segment of PEP 440 changes (`1.4 → 2.0`; an epoch `N!` is skipped). A requirement's first
//! version (`>=1.2,<2` → 1.2) stands for it.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use resolve_pr_forge::repository::ChangedFile;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ecosystem {
    Cargo,
    Npm,
    PyPI,
    Go,
}

impl Ecosystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "cargo",
            Ecosystem::Npm => "npm",
            Ecosystem::PyPI => "pypi",
            Ecosystem::Go => "go",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateKind {
    Added,
    Removed,
    Upgraded,
    Downgraded,
    /// Both sides exist but cannot be ordered (a git source, `*`, several versions).
    Changed,
}

impl UpdateKind {
    pub fn as_str(self) -> &'static str {
        match self {
            UpdateKind::Added => "added",
            UpdateKind::Removed => "removed",
            UpdateKind::Upgraded => "upgraded",
            UpdateKind::Downgraded => "downgraded",
            UpdateKind::Changed => "changed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencyUpdate {
    pub ecosystem: Ecosystem,
    pub package: String,
    /// The requirement (manifests) or resolved version (lockfiles) before; several resolved
    /// versions are joined with `, `.
    pub from: Option<String>,
    pub to: Option<String>,
    /// The manifest or lockfile it was read from.
    pub file: String,
    pub major: bool,
    pub kind: UpdateKind,
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The ecosystem of a manifest or lockfile this module reads.
pub fn ecosystem_of(path: &str) -> Option<Ecosystem> {
    let name = file_name(path);
    match name {
        "Cargo.toml" | "Cargo.lock" => Some(Ecosystem::Cargo),
        "package.json"
        | "package-lock.json"
        | "npm-shrinkwrap.json"
        | "yarn.lock"
        | "pnpm-lock.yaml" => Some(Ecosystem::Npm),
        "pyproject.toml" | "poetry.lock" | "uv.lock" => Some(Ecosystem::PyPI),
        "go.mod" => Some(Ecosystem::Go),
        _ if name.starts_with("requirements") && name.ends_with(".txt") => Some(Ecosystem::PyPI),
        _ => None,
    }
}

/// Whether the file gives resolved versions.
pub fn is_lockfile(path: &str) -> bool {
    matches!(
        file_name(path),
        "Cargo.lock"
            | "package-lock.json"
            | "npm-shrinkwrap.json"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "poetry.lock"
            | "uv.lock"
    )
}

/// The changed files worth reading at base and head, in the order given.
pub fn dependency_files(files: &[ChangedFile]) -> Vec<String> {
    files
        .iter()
        .filter(|f| ecosystem_of(&f.path).is_some())
        .map(|f| f.path.clone())
        .collect()
}

/// What changed in one manifest or lockfile between `before` and `after` (`None`: the file
/// does not exist on that side), sorted by package. A side that cannot be parsed, or a path
/// this module does not read, gives nothing; [`try_dependency_updates`] says why.
pub fn dependency_updates(
    path: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> Vec<DependencyUpdate> {
    try_dependency_updates(path, before, after).unwrap_or_default()
}

/// [`dependency_updates`], with the reason when a side cannot be read.
pub fn try_dependency_updates(
    path: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> Result<Vec<DependencyUpdate>, String> {
    let Some(eco) = ecosystem_of(path) else {
        return Err(format!(
            "{path} is not a manifest or lockfile this analysis reads"
        ));
    };
    let read = |text: Option<&str>, side: &str| -> Result<Deps, String> {
        match text {
            None => Ok(Deps::new()),
            Some(t) => parse(path, t).map_err(|e| format!("{path} at {side}: {e}")),
        }
    };
    let old = read(before, "base")?;
    let new = read(after, "head")?;
    let mut updates = Vec::new();
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let none = BTreeSet::new();
    for name in names {
        let a = old.get(name);
        let b = new.get(name);
        if a == b {
            continue;
        }
        let removed: Vec<&String> =
            a.map_or(Vec::new(), |a| a.difference(b.unwrap_or(&none)).collect());
        let added: Vec<&String> =
            b.map_or(Vec::new(), |b| b.difference(a.unwrap_or(&none)).collect());
        let from = a.map(|_| join(&removed, a));
        let to = b.map(|_| join(&added, b));
        updates.push(update(eco, name.clone(), from, to, path));
    }
    if eco == Ecosystem::Go {
        updates = pair_go_major_paths(updates, path);
    }
    Ok(updates)
}

/// The versions that changed, or (when only the other side changed) all of them.
fn join(changed: &[&String], all: Option<&BTreeSet<String>>) -> String {
    if changed.is_empty() {
        all.map(|s| s.iter().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    } else {
        changed
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn update(
    eco: Ecosystem,
    package: String,
    from: Option<String>,
    to: Option<String>,
    file: &str,
) -> DependencyUpdate {
    let (kind, major) = match (&from, &to) {
        (None, _) => (UpdateKind::Added, false),
        (_, None) => (UpdateKind::Removed, false),
        (Some(a), Some(b)) if a.contains(", ") || b.contains(", ") => (UpdateKind::Changed, false),
        (Some(a), Some(b)) => match compare(eco, a, b) {
            Some((Ordering::Less, major)) => (UpdateKind::Upgraded, major),
            Some((Ordering::Greater, major)) => (UpdateKind::Downgraded, major),
            Some((Ordering::Equal, _)) | None => (UpdateKind::Changed, false),
        },
    };
    DependencyUpdate {
        ecosystem: eco,
        package,
        from,
        to,
        file: file.to_owned(),
        major,
        kind,
    }
}

/// Go: `example.com/m` removed and `example.com/m/v2` added (or any two `/vN` of one path)
/// are one major update of the new path.
fn pair_go_major_paths(updates: Vec<DependencyUpdate>, file: &str) -> Vec<DependencyUpdate> {
    fn base(path: &str) -> &str {
        match path.rsplit_once("/v") {
            Some((b, n))
                if !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_digit())
                    && n != "0"
                    && n != "1" =>
            {
                b
            }
            _ => path,
        }
    }
    let mut out: Vec<DependencyUpdate> = Vec::new();
    let mut used = vec![false; updates.len()];
    for (i, added) in updates.iter().enumerate() {
        if added.kind != UpdateKind::Added {
            continue;
        }
        let partner = updates.iter().enumerate().find(|(j, u)| {
            !used[*j] && u.kind == UpdateKind::Removed && base(&u.package) == base(&added.package)
        });
        if let Some((j, removed)) = partner {
            used[i] = true;
            used[j] = true;
            let from = removed
                .from
                .clone()
                .map(|v| format!("{}@{v}", removed.package));
            let to = added.to.clone().map(|v| format!("{}@{v}", added.package));
            let newer = major_of_path(&added.package) > major_of_path(&removed.package);
            out.push(DependencyUpdate {
                ecosystem: Ecosystem::Go,
                package: added.package.clone(),
                from,
                to,
                file: file.to_owned(),
                major: true,
                kind: if newer {
                    UpdateKind::Upgraded
                } else {
                    UpdateKind::Downgraded
                },
            });
        }
    }
    for (i, u) in updates.into_iter().enumerate() {
        if !used[i] {
            out.push(u);
        }
    }
    out.sort_by(|a, b| a.package.cmp(&b.package));
    out
}

fn major_of_path(path: &str) -> u64 {
    path.rsplit_once("/v")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(1)
}

/// Drops a manifest's update when a lockfile of the same ecosystem, in the manifest's
/// directory or one above it (a workspace's root lockfile), has an update of the same
/// package: the resolved versions say more than the declared range. Order is kept.
pub fn prefer_lockfiles(updates: Vec<DependencyUpdate>) -> Vec<DependencyUpdate> {
    let locked: Vec<(Ecosystem, String, String)> = updates
        .iter()
        .filter(|u| is_lockfile(&u.file))
        .map(|u| {
            (
                u.ecosystem,
                normalize(u.ecosystem, &u.package),
                dir_of(&u.file).to_owned(),
            )
        })
        .collect();
    updates
        .into_iter()
        .filter(|u| {
            if is_lockfile(&u.file) {
                return true;
            }
            let dir = dir_of(&u.file);
            let name = normalize(u.ecosystem, &u.package);
            !locked.iter().any(|(eco, pkg, lock_dir)| {
                *eco == u.ecosystem
                    && *pkg == name
                    && (lock_dir.is_empty()
                        || dir == lock_dir
                        || dir.starts_with(&format!("{lock_dir}/")))
            })
        })
        .collect()
}

fn normalize(eco: Ecosystem, name: &str) -> String {
    match eco {
        // PEP 503: case-insensitive, runs of `-`, `_`, `.` are one `-`.
        Ecosystem::PyPI => {
            let mut out = String::new();
            for c in name.chars() {
                if matches!(c, '-' | '_' | '.') {
                    if !out.ends_with('-') {
                        out.push('-');
                    }
                } else {
                    out.push(c.to_ascii_lowercase());
                }
            }
            out
        }
        _ => name.to_owned(),
    }
}

/// Package → its versions (one for a manifest's requirement, possibly several resolved).
type Deps = BTreeMap<String, BTreeSet<String>>;

fn add(deps: &mut Deps, name: &str, version: String) {
    deps.entry(name.to_owned()).or_default().insert(version);
}

fn parse(path: &str, text: &str) -> Result<Deps, String> {
    let name = file_name(path);
    match name {
        "Cargo.toml" => cargo_toml(text),
        "Cargo.lock" | "poetry.lock" | "uv.lock" => toml_packages(text, name == "Cargo.lock"),
        "package.json" => package_json(text),
        "package-lock.json" | "npm-shrinkwrap.json" => package_lock(text),
        "yarn.lock" => Ok(yarn_lock(text)),
        "pnpm-lock.yaml" => Ok(pnpm_lock(text)),
        "pyproject.toml" => pyproject(text),
        "go.mod" => Ok(go_mod(text)),
        _ => Ok(requirements(text)),
    }
}

fn toml_table(text: &str) -> Result<toml::Table, String> {
    text.parse::<toml::Table>()
        .map_err(|e| format!("not valid TOML: {}", e.message()))
}

fn cargo_toml(text: &str) -> Result<Deps, String> {
    let table = toml_table(text)?;
    let mut deps = Deps::new();
    fn tables(t: &toml::Table, deps: &mut Deps) {
        for (key, value) in t {
            if !key.ends_with("dependencies") {
                continue;
            }
            let Some(entries) = value.as_table() else {
                continue;
            };
            for (name, spec) in entries {
                let (package, version) = cargo_spec(name, spec);
                add(deps, &package, version);
            }
        }
    }
    tables(&table, &mut deps);
    if let Some(ws) = table.get("workspace").and_then(|w| w.as_table()) {
        tables(ws, &mut deps);
    }
    if let Some(targets) = table.get("target").and_then(|t| t.as_table()) {
        for target in targets.values().filter_map(|t| t.as_table()) {
            tables(target, &mut deps);
        }
    }
    Ok(deps)
}

fn cargo_spec(name: &str, spec: &toml::Value) -> (String, String) {
    match spec {
        toml::Value::String(v) => (name.to_owned(), v.clone()),
        toml::Value::Table(t) => {
            let package = t
                .get("package")
                .and_then(|p| p.as_str())
                .unwrap_or(name)
                .to_owned();
            let version = if let Some(v) = t.get("version").and_then(|v| v.as_str()) {
                v.to_owned()
            } else if t.get("workspace").and_then(|w| w.as_bool()) == Some(true) {
                "workspace".to_owned()
            } else if let Some(g) = t.get("git").and_then(|g| g.as_str()) {
                let at = ["rev", "tag", "branch"]
                    .iter()
                    .find_map(|k| {
                        t.get(*k)
                            .and_then(|v| v.as_str())
                            .map(|v| format!(" {k} {v}"))
                    })
                    .unwrap_or_default();
                format!("git {g}{at}")
            } else if let Some(p) = t.get("path").and_then(|p| p.as_str()) {
                format!("path {p}")
            } else {
                "*".to_owned()
            };
            (package, version)
        }
        other => (name.to_owned(), other.to_string()),
    }
}

/// `[[package]]` tables with `name` and `version` (Cargo.lock, poetry.lock, uv.lock). Cargo's
/// local packages (no `source`) are the workspace's own crates, not dependencies.
fn toml_packages(text: &str, skip_local: bool) -> Result<Deps, String> {
    let table = toml_table(text)?;
    let mut deps = Deps::new();
    for p in table
        .get("package")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
    {
        let Some(p) = p.as_table() else { continue };
        if skip_local && !p.contains_key("source") {
            continue;
        }
        if let (Some(n), Some(v)) = (
            p.get("name").and_then(|n| n.as_str()),
            p.get("version").and_then(|v| v.as_str()),
        ) {
            add(&mut deps, n, v.to_owned());
        }
    }
    Ok(deps)
}

fn json(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))
}

fn package_json(text: &str) -> Result<Deps, String> {
    let v = json(text)?;
    let mut deps = Deps::new();
    for key in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        for (name, spec) in v.get(key).and_then(|d| d.as_object()).into_iter().flatten() {
            if let Some(spec) = spec.as_str() {
                add(&mut deps, name, spec.to_owned());
            }
        }
    }
    Ok(deps)
}

fn package_lock(text: &str) -> Result<Deps, String> {
    let v = json(text)?;
    let mut deps = Deps::new();
    if let Some(packages) = v.get("packages").and_then(|p| p.as_object()) {
        // v2 and v3: "node_modules/a/node_modules/@s/b" → @s/b; "" is the project itself,
        // and entries with `link` are workspace members.
        for (key, entry) in packages {
            let Some(idx) = key.rfind("node_modules/") else {
                continue;
            };
            if entry.get("link").and_then(|l| l.as_bool()) == Some(true) {
                continue;
            }
            let name = entry
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or(&key[idx + "node_modules/".len()..]);
            if let Some(version) = entry.get("version").and_then(|v| v.as_str()) {
                add(&mut deps, name, version.to_owned());
            }
        }
        return Ok(deps);
    }
    // v1: a tree of `dependencies`.
    fn walk(node: &serde_json::Value, deps: &mut Deps, depth: usize) {
        if depth > 64 {
            return;
        }
        for (name, entry) in node
            .get("dependencies")
            .and_then(|d| d.as_object())
            .into_iter()
            .flatten()
        {
            if let Some(version) = entry.get("version").and_then(|v| v.as_str()) {
                add(deps, name, version.to_owned());
            }
            walk(entry, deps, depth + 1);
        }
    }
    walk(&v, &mut deps, 0);
    Ok(deps)
}

/// yarn.lock, v1 (`"a@^1", a@^1.1:` / `  version "1.2.3"`) and Berry (`"a@npm:^1":` /
/// `  version: 1.2.3`). Berry's `__metadata` and workspace entries are left out.
fn yarn_lock(text: &str) -> Deps {
    let mut deps = Deps::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if !line.starts_with(' ') {
            current = line
                .trim_end_matches(':')
                .split(',')
                .next()
                .and_then(|spec| {
                    let spec = spec.trim().trim_matches('"');
                    // The name's own `@` (a scope) is its first character.
                    let (at, _) = spec.char_indices().skip(1).find(|(_, c)| *c == '@')?;
                    let name = &spec[..at];
                    let range = &spec[at + 1..];
                    (!name.is_empty() && name != "__metadata" && !range.starts_with("workspace:"))
                        .then(|| name.to_owned())
                });
            continue;
        }
        let trimmed = line.trim();
        if line.starts_with("  ")
            && !line.starts_with("   ")
            && let Some(rest) = trimmed.strip_prefix("version")
            && let Some(name) = &current
        {
            let v = rest.trim_start_matches(':').trim().trim_matches('"');
            if !v.is_empty() {
                add(&mut deps, name, v.to_owned());
            }
        }
    }
    deps
}

/// pnpm-lock.yaml's `packages:` keys, without a YAML parser: v5 writes `/name/1.2.3` (a
/// `_peer@x` suffix), v6 `/name@1.2.3` and v9 `name@1.2.3` (peers in parentheses, quoted
/// when scoped). v9's `snapshots:` repeats them and is not read.
fn pnpm_lock(text: &str) -> Deps {
    let mut deps = Deps::new();
    let mut v5 = false;
    let mut in_packages = false;
    for line in text.lines() {
        if let Some(version) = line.strip_prefix("lockfileVersion:") {
            v5 = version.trim().trim_matches(['\'', '"']).starts_with('5');
            continue;
        }
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_packages = line.trim_end() == "packages:";
            continue;
        }
        if !in_packages || !line.starts_with("  ") || line.starts_with("   ") {
            continue;
        }
        let key = line.trim().trim_end_matches(':').trim_matches(['\'', '"']);
        let key = key.strip_prefix('/').unwrap_or(key);
        let split = if v5 {
            key.rsplit_once('/')
                .map(|(name, version)| (name, version.split('_').next().unwrap_or(version)))
        } else {
            let key = key.split('(').next().unwrap_or(key);
            key.char_indices()
                .skip(1)
                .filter(|(_, c)| *c == '@')
                .last()
                .map(|(at, _)| (&key[..at], &key[at + 1..]))
        };
        if let Some((name, version)) = split
            && !name.is_empty()
            && !version.is_empty()
        {
            add(&mut deps, name, version.to_owned());
        }
    }
    deps
}

/// A PEP 508 requirement: its normalized name and its version specifier (`""` for none).
fn pep508(req: &str) -> Option<(String, String)> {
    let req = req.split(';').next()?.trim();
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    let name = &req[..end];
    if name.is_empty() {
        return None;
    }
    let mut rest = req[end..].trim();
    if rest.starts_with('[') {
        rest = rest.split_once(']').map_or("", |(_, r)| r).trim();
    }
    let spec = rest.trim_start_matches('(').trim_end_matches(')').trim();
    let spec = if let Some(url) = spec.strip_prefix('@') {
        format!("@ {}", url.trim())
    } else {
        spec.replace(' ', "")
    };
    Some((normalize(Ecosystem::PyPI, name), spec))
}

fn requirements(text: &str) -> Deps {
    let mut deps = Deps::new();
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('-') {
            continue;
        }
        if let Some((name, spec)) = pep508(line) {
            add(&mut deps, &name, spec);
        }
    }
    deps
}

fn pyproject(text: &str) -> Result<Deps, String> {
    let table = toml_table(text)?;
    let mut deps = Deps::new();
    let mut list = |items: Option<&toml::Value>| {
        for item in items.and_then(|i| i.as_array()).into_iter().flatten() {
            if let Some((name, spec)) = item.as_str().and_then(pep508) {
                add(&mut deps, &name, spec);
            }
        }
    };
    let project = table.get("project");
    list(project.and_then(|p| p.get("dependencies")));
    for group in project
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(|o| o.as_table())
        .into_iter()
        .flat_map(|t| t.values())
    {
        list(Some(group));
    }
    for group in table
        .get("dependency-groups")
        .and_then(|g| g.as_table())
        .into_iter()
        .flat_map(|t| t.values())
    {
        list(Some(group));
    }
    if let Some(poetry) = table.get("tool").and_then(|t| t.get("poetry")) {
        let mut poetry_tables: Vec<&toml::Value> = ["dependencies", "dev-dependencies"]
            .iter()
            .filter_map(|k| poetry.get(*k))
            .collect();
        for group in poetry
            .get("group")
            .and_then(|g| g.as_table())
            .into_iter()
            .flat_map(|t| t.values())
        {
            poetry_tables.extend(group.get("dependencies"));
        }
        for t in poetry_tables.into_iter().filter_map(|t| t.as_table()) {
            for (name, spec) in t {
                if name == "python" {
                    continue;
                }
                let version = match spec {
                    toml::Value::String(v) => v.clone(),
                    toml::Value::Table(t) => t
                        .get("version")
                        .and_then(|v| v.as_str())
                        .map(str::to_owned)
                        .or_else(|| {
                            t.get("git")
                                .and_then(|g| g.as_str())
                                .map(|g| format!("git {g}"))
                        })
                        .or_else(|| {
                            t.get("path")
                                .and_then(|p| p.as_str())
                                .map(|p| format!("path {p}"))
                        })
                        .unwrap_or_else(|| "*".to_owned()),
                    other => other.to_string(),
                };
                add(&mut deps, &normalize(Ecosystem::PyPI, name), version);
            }
        }
    }
    Ok(deps)
}

fn go_mod(text: &str) -> Deps {
    let mut deps = Deps::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            if line == ")" {
                in_block = false;
            } else if let [path, version, ..] = line.split_whitespace().collect::<Vec<_>>()[..] {
                add(&mut deps, path, version.to_owned());
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest == "(" {
                in_block = true;
            } else if let [path, version, ..] = rest.split_whitespace().collect::<Vec<_>>()[..] {
                add(&mut deps, path, version.to_owned());
            }
        }
    }
    deps
}

/// The numbers of the first version in `s` (`^1.2` → [1, 2, 0]), padded to three.
fn numbers(s: &str) -> Option<Vec<u64>> {
    let s = match s.split_once('!') {
        // PEP 440 epoch.
        Some((epoch, rest)) if epoch.chars().all(|c| c.is_ascii_digit()) => rest,
        _ => s,
    };
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let run: &str = &s[start..];
    let end = run
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(run.len());
    let mut n: Vec<u64> = run[..end]
        .split('.')
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.parse().ok())
        .collect();
    if n.is_empty() {
        return None;
    }
    while n.len() < 3 {
        n.push(0);
    }
    Some(n)
}

fn semver_of(s: &str) -> Option<semver::Version> {
    semver::Version::parse(s.trim().trim_start_matches(['v', '=']).trim()).ok()
}

/// How `from` orders against `to`, and whether the step is major (module doc).
fn compare(eco: Ecosystem, from: &str, to: &str) -> Option<(Ordering, bool)> {
    let (a, b) = (numbers(from)?, numbers(to)?);
    let ordering = match (eco, semver_of(from), semver_of(to)) {
        (Ecosystem::Cargo | Ecosystem::Npm | Ecosystem::Go, Some(x), Some(y)) => x.cmp(&y),
        _ => a.cmp(&b),
    };
    let major = match eco {
        Ecosystem::Cargo | Ecosystem::Npm => compat_key(&a) != compat_key(&b),
        Ecosystem::Go | Ecosystem::PyPI => a[0] != b[0],
    };
    Some((ordering, major))
}

/// Semver's compatibility class: the first non-zero component and those before it.
fn compat_key(n: &[u64]) -> Vec<u64> {
    match n.iter().position(|x| *x != 0) {
        Some(i) => n[..=i].to_vec(),
        None => n.to_vec(),
    }
}
