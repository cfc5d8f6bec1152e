//! Workspace manifests as data: which ecosystem a checkout's workspace is, its members
//! (as written and the directories they match), new packages, the dependencies a module
//! really uses, and version requirements. Every edit is a new text of the manifest with
//! its comments and formatting kept (TOML through `toml_edit`, JSON by text edits at the
//! spans a parse found, YAML and go.work by lines); nothing here writes a file.

use std::path::{Component, Path, PathBuf};

use resolve_pr_source::{FileChange, TextEdit, TextRange};

pub mod cargo;
pub mod go;
pub mod json;
pub mod npm;
pub mod python;

/// A package manager whose workspaces these tools know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ecosystem {
    Cargo,
    Npm,
    Pnpm,
    Yarn,
    Uv,
    Go,
}

impl Ecosystem {
    pub const ALL: [Ecosystem; 6] = [
        Ecosystem::Cargo,
        Ecosystem::Npm,
        Ecosystem::Pnpm,
        Ecosystem::Yarn,
        Ecosystem::Uv,
        Ecosystem::Go,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "cargo",
            Ecosystem::Npm => "npm",
            Ecosystem::Pnpm => "pnpm",
            Ecosystem::Yarn => "yarn",
            Ecosystem::Uv => "uv",
            Ecosystem::Go => "go",
        }
    }

    pub fn from_name(name: &str) -> Option<Ecosystem> {
        Ecosystem::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The file that lists the workspace's members, relative to the root.
    pub fn workspace_file(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "Cargo.toml",
            Ecosystem::Npm | Ecosystem::Yarn => "package.json",
            Ecosystem::Pnpm => "pnpm-workspace.yaml",
            Ecosystem::Uv => "pyproject.toml",
            Ecosystem::Go => "go.work",
        }
    }

    /// How to make a workspace of this ecosystem where there is none.
    pub fn how_to_start(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "Add a [workspace] table with members = [] to the root Cargo.toml.",
            Ecosystem::Npm | Ecosystem::Yarn => {
                "Add \"workspaces\": [] to the root package.json (npm init -y makes one)."
            }
            Ecosystem::Pnpm => "Write a pnpm-workspace.yaml with packages: [] at the root.",
            Ecosystem::Uv => {
                "Add [tool.uv.workspace] with members = [] to the root pyproject.toml (uv init makes one)."
            }
            Ecosystem::Go => "Run go work init at the root (it writes go.work).",
        }
    }

    /// What the plan's verification runs (the `language` verify takes).
    pub fn check_language(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "cargo-manifest",
            Ecosystem::Npm | Ecosystem::Yarn => "npm-manifest",
            Ecosystem::Pnpm => "pnpm-manifest",
            Ecosystem::Uv => "uv-manifest",
            Ecosystem::Go => "go-manifest",
        }
    }
}

/// Why a manifest operation is refused: the argument at fault and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub field: &'static str,
    pub message: String,
    pub suggestion: Option<String>,
}

impl Refusal {
    pub fn new(field: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            field,
            message: message.into(),
            suggestion: None,
        }
    }

    pub fn suggest(mut self, s: impl Into<String>) -> Refusal {
        self.suggestion = Some(s.into());
        self
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

pub type Result<T> = std::result::Result<T, Refusal>;

fn read(root: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(root.join(file)).ok()
}

/// The ecosystems whose workspace the checkout at `root` has, in order.
pub fn detect(root: &Path) -> Vec<Ecosystem> {
    let mut found = Vec::new();
    if read(root, "Cargo.toml").is_some_and(|t| cargo::is_workspace(&t)) {
        found.push(Ecosystem::Cargo);
    }
    if root.join("pnpm-workspace.yaml").is_file() {
        found.push(Ecosystem::Pnpm);
    } else if read(root, "package.json").is_some_and(|t| npm::workspaces(&t).is_ok()) {
        found.push(if root.join("yarn.lock").is_file() {
            Ecosystem::Yarn
        } else {
            Ecosystem::Npm
        });
    }
    if read(root, "pyproject.toml").is_some_and(|t| python::is_workspace(&t)) {
        found.push(Ecosystem::Uv);
    }
    if root.join("go.work").is_file() {
        found.push(Ecosystem::Go);
    }
    found
}

/// The ecosystem named, or the one workspace the checkout has.
pub fn choose(root: &Path, named: Option<&str>) -> Result<Ecosystem> {
    let found = detect(root);
    match named {
        Some(name) => {
            let eco = Ecosystem::from_name(name).ok_or_else(|| {
                Refusal::new("ecosystem", format!("unknown ecosystem {name:?}"))
                    .suggest("One of cargo, npm, pnpm, yarn, uv, go.")
            })?;
            // npm and yarn share package.json's workspaces.
            let same = |f: &Ecosystem| {
                *f == eco || matches!((f, eco), (Ecosystem::Npm | Ecosystem::Yarn, Ecosystem::Npm | Ecosystem::Yarn))
            };
            if found.iter().any(same) {
                Ok(eco)
            } else {
                Err(Refusal::new(
                    "ecosystem",
                    format!("the checkout has no {} workspace ({} lists none)", eco.as_str(), eco.workspace_file()),
                )
                .suggest(eco.how_to_start()))
            }
        }
        None => match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(Refusal::new(
                "ecosystem",
                "the checkout has no workspace: no Cargo.toml [workspace], package.json workspaces, pnpm-workspace.yaml, [tool.uv.workspace] or go.work",
            )
            .suggest("Make one first (cargo: a [workspace] table; npm: \"workspaces\": []; go: go work init), or pass ecosystem.")),
            many => Err(Refusal::new(
                "ecosystem",
                format!(
                    "the checkout has workspaces of {}: say which",
                    many.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )
            .suggest("Pass ecosystem.")),
        },
    }
}

/// `path` as a member is written: relative, `/`-separated, no `./` and no trailing `/`.
pub fn normal(path: &str) -> String {
    let p = path.trim().trim_start_matches("./").trim_end_matches('/');
    p.replace('\\', "/")
}

/// A path given relative to the checkout, checked to stay inside it.
pub fn inside(root: &Path, path: &str, field: &'static str) -> Result<PathBuf> {
    let p = Path::new(path);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return Err(
                        Refusal::new(field, format!("{path} is outside the checkout"))
                            .suggest("Give a path relative to the checkout, inside it."),
                    );
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                let abs = p.strip_prefix(root).map_err(|_| {
                    Refusal::new(field, format!("{path} is outside the checkout"))
                        .suggest("Give a path relative to the checkout, inside it.")
                })?;
                return inside(root, &abs.to_string_lossy(), field);
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(Refusal::new(
            field,
            format!("{path:?} names the checkout itself"),
        ));
    }
    // A symbolic link inside may lead outside.
    if let Ok(real) = root.join(&out).canonicalize()
        && !real.starts_with(root.canonicalize().unwrap_or_else(|_| root.to_owned()))
    {
        return Err(Refusal::new(
            field,
            format!("{path} leads outside the checkout"),
        ));
    }
    Ok(out)
}

/// Whether a workspace glob (`crates/*`, `packages/**`, `a/?b`, `[!a]*`) matches `path`;
/// both `/`-separated and relative. `*` and `?` stay within one directory, as cargo's and
/// npm's globs do (globset, with a literal separator). A pattern with no wildcard matches
/// only itself; one that does not parse matches nothing.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let (pattern, path) = (normal(pattern), normal(path));
    if !is_glob(&pattern) {
        return pattern == path;
    }
    globset::GlobBuilder::new(&pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(&path))
}

pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The directories under `root` a member pattern matches (relative, sorted). `marker`:
/// a file a member directory must hold (its manifest) for a glob to count it.
pub fn matched_dirs(root: &Path, pattern: &str, marker: &str) -> Vec<String> {
    let pattern = normal(pattern);
    if !is_glob(&pattern) {
        return if root.join(&pattern).is_dir() {
            vec![pattern]
        } else {
            Vec::new()
        };
    }
    let deep = pattern.contains("**");
    let depth = pattern.split('/').count();
    let mut out = Vec::new();
    let mut stack = vec![(PathBuf::new(), 0usize)];
    while let Some((dir, d)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "node_modules" || name == "target" {
                continue;
            }
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let rel = dir.join(&name);
            let text = rel.to_string_lossy().replace('\\', "/");
            if glob_match(&pattern, &text) && root.join(&rel).join(marker).is_file() {
                out.push(text);
            }
            if deep || d + 1 < depth {
                stack.push((rel, d + 1));
            }
        }
    }
    out.sort();
    out
}

/// One edit taking `old` to `new`: the span between their common start and end.
pub fn edit_between(path: &Path, old: &str, new: &str) -> Option<FileChange> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let most = a.len().min(b.len()) - start;
    let mut end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(most)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - end) || !new.is_char_boundary(b.len() - end) {
        end -= 1;
    }
    Some(FileChange::Edit {
        path: path.to_owned(),
        edits: vec![TextEdit::replace(
            TextRange::new(start, a.len() - end),
            &new[start..b.len() - end],
        )],
    })
}

/// What a member edit did besides the text: each path's fate, said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberEdit {
    pub text: String,
    pub notes: Vec<String>,
}

/// The members a workspace file lists, as written, with its exclusions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    pub members: Vec<String>,
    pub exclude: Vec<String>,
}

/// The members of `eco`'s workspace file text.
pub fn members_of(eco: Ecosystem, text: &str) -> Result<Members> {
    match eco {
        Ecosystem::Cargo => cargo::members(text),
        Ecosystem::Npm | Ecosystem::Yarn => npm::workspaces(text).map(|m| Members {
            members: m,
            exclude: Vec::new(),
        }),
        Ecosystem::Pnpm => Ok(npm::pnpm_packages(text)),
        Ecosystem::Uv => python::members(text),
        Ecosystem::Go => Ok(Members {
            members: go::uses(text),
            exclude: Vec::new(),
        }),
    }
}

/// The manifest a member directory of `eco` holds.
pub fn member_marker(eco: Ecosystem) -> &'static str {
    match eco {
        Ecosystem::Cargo => "Cargo.toml",
        Ecosystem::Npm | Ecosystem::Yarn | Ecosystem::Pnpm => "package.json",
        Ecosystem::Uv => "pyproject.toml",
        Ecosystem::Go => "go.mod",
    }
}

/// The workspace file's text with `paths` added as members: a path a pattern already
/// matches is not added again (said), an excluded one is taken out of the exclusions.
pub fn add_members(eco: Ecosystem, text: &str, paths: &[String]) -> Result<MemberEdit> {
    let have = members_of(eco, text)?;
    let mut text = text.to_owned();
    let mut notes = Vec::new();
    for path in paths {
        let path = normal(path);
        let excluded: Vec<&String> = have
            .exclude
            .iter()
            .filter(|e| glob_match(e, &path))
            .collect();
        let by = have.members.iter().find(|m| match_member(eco, m, &path));
        match by {
            Some(m) if excluded.is_empty() => {
                if normal(m) == path {
                    notes.push(format!("{path} is already a member"));
                } else {
                    notes.push(format!(
                        "{path} is already a member through {m:?}: not added again"
                    ));
                }
                continue;
            }
            Some(m) => {
                for e in &excluded {
                    text = list_edit(eco, &text, ListKind::Exclude, None, Some(e))?;
                    notes.push(format!(
                        "{path}: {e:?} taken out of exclude ({m:?} matches it)"
                    ));
                }
                continue;
            }
            None => {}
        }
        text = list_edit(
            eco,
            &text,
            ListKind::Members,
            Some(&written(eco, &path)),
            None,
        )?;
        notes.push(format!("{path} added"));
    }
    Ok(MemberEdit { text, notes })
}

/// The workspace file's text with `paths` no longer members: a listed path is removed; one
/// matched only by a pattern is excluded where the format can say so (cargo and uv
/// `exclude`, pnpm `!path`), else refused.
pub fn remove_members(eco: Ecosystem, text: &str, paths: &[String]) -> Result<MemberEdit> {
    let mut text = text.to_owned();
    let mut notes = Vec::new();
    for path in paths {
        let path = normal(path);
        let have = members_of(eco, &text)?;
        let listed: Vec<&String> = have
            .members
            .iter()
            .filter(|m| {
                !is_glob(m) && normal(m.trim_start_matches('!')) == path && !m.starts_with('!')
            })
            .collect();
        for m in &listed {
            text = list_edit(eco, &text, ListKind::Members, None, Some(m))?;
        }
        let have = members_of(eco, &text)?;
        let still = have
            .members
            .iter()
            .find(|m| match_member(eco, m, &path))
            .cloned();
        match (still, listed.is_empty()) {
            (None, false) => notes.push(format!("{path} removed")),
            (None, true) => {
                return Err(Refusal::new(
                    "members",
                    format!("{path} is not a member of the {} workspace", eco.as_str()),
                )
                .suggest("update_members with action: list shows the members."));
            }
            (Some(glob), _) => match eco {
                Ecosystem::Cargo | Ecosystem::Uv => {
                    text = list_edit(eco, &text, ListKind::Exclude, Some(&path), None)?;
                    notes.push(format!("{path} is matched by {glob:?}: added to exclude"));
                }
                Ecosystem::Pnpm => {
                    text = list_edit(
                        eco,
                        &text,
                        ListKind::Members,
                        Some(&format!("!{path}")),
                        None,
                    )?;
                    notes.push(format!(
                        "{path} is matched by {glob:?}: \"!{path}\" added to packages"
                    ));
                }
                _ => {
                    return Err(Refusal::new(
                        "members",
                        format!("{path} is matched by {glob:?}, and {} workspaces cannot exclude a path from a pattern", eco.as_str()),
                    )
                    .suggest("Replace the pattern by the paths it should match."));
                }
            },
        }
    }
    Ok(MemberEdit { text, notes })
}

/// How a member is written in `eco`'s file (go.work: `./x`).
fn written(eco: Ecosystem, path: &str) -> String {
    match eco {
        Ecosystem::Go => format!("./{path}"),
        _ => path.to_owned(),
    }
}

/// Whether member pattern `m` (not a negation) takes in `path`, its negations aside.
fn match_member(_eco: Ecosystem, m: &str, path: &str) -> bool {
    !m.starts_with('!') && glob_match(m, path)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Members,
    Exclude,
}

/// `text` with `add` appended to, or `remove` taken from, one of the workspace's lists.
fn list_edit(
    eco: Ecosystem,
    text: &str,
    list: ListKind,
    add: Option<&str>,
    remove: Option<&str>,
) -> Result<String> {
    match eco {
        Ecosystem::Cargo => cargo::list_edit(text, &["workspace"], list, add, remove),
        Ecosystem::Uv => cargo::list_edit(text, &["tool", "uv", "workspace"], list, add, remove),
        Ecosystem::Npm | Ecosystem::Yarn => npm::workspaces_edit(text, add, remove),
        Ecosystem::Pnpm => npm::pnpm_edit(text, add, remove),
        Ecosystem::Go => Ok(go::use_edit(text, add, remove)),
    }
}

/// PEP 503's normalized name: lower case, runs of `-`, `_`, `.` as one `-`.
pub fn pep503(name: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            dash = true;
        } else {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// What a dependency extraction found: the new manifest text, what was copied, and the
/// names used that the source's manifest does not list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub text: String,
    pub copied: Vec<String>,
    pub already: Vec<String>,
    pub missing: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_workspaces_write_them() {
        assert!(glob_match("crates/*", "crates/core"));
        assert!(!glob_match("crates/*", "crates/core/sub"));
        assert!(glob_match("packages/**", "packages/a/b"));
        assert!(glob_match("./libs/x?", "libs/x1"));
        assert!(glob_match("libs/[ab]*", "libs/beta"));
        assert!(!glob_match("libs/[!ab]*", "libs/beta"));
        assert!(glob_match("crates/core", "./crates/core/"));
        assert!(!glob_match("crates/core", "crates/cor"));
    }

    #[test]
    fn one_edit_spans_only_what_differs() {
        let Some(FileChange::Edit { edits, .. }) =
            edit_between(Path::new("f"), "a = [\"x\"]\n", "a = [\"x\", \"é\"]\n")
        else {
            panic!()
        };
        assert_eq!(edits.len(), 1);
        assert_eq!(
            resolve_pr_source::apply_edits("a = [\"x\"]\n", &edits).unwrap(),
            "a = [\"x\", \"é\"]\n"
        );
        assert!(edit_between(Path::new("f"), "same", "same").is_none());
    }

    #[test]
    fn members_respect_globs_and_exclusions() {
        let cargo = "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/old\"]\n";
        // Excluded but globbed: taken out of exclude, not listed again.
        let e = add_members(Ecosystem::Cargo, cargo, &["crates/old".into()]).unwrap();
        assert_eq!(
            e.text,
            "[workspace]\nmembers = [\"crates/*\"]\nexclude = []\n"
        );
        assert!(e.notes[0].contains("taken out of exclude"), "{:?}", e.notes);
        let e = add_members(Ecosystem::Cargo, cargo, &["crates/new".into()]).unwrap();
        assert_eq!(e.text, cargo);
        assert!(e.notes[0].contains("already a member through \"crates/*\""));
        // npm cannot exclude from a pattern: refused, with what to do.
        let npm = "{\"workspaces\": [\"packages/*\"]}";
        let r = remove_members(Ecosystem::Npm, npm, &["packages/a".into()]).unwrap_err();
        assert_eq!(r.field, "members");
        assert!(r.suggestion.is_some());
        // Not a member at all: refused.
        let r = remove_members(Ecosystem::Cargo, cargo, &["elsewhere".into()]).unwrap_err();
        assert!(r.message.contains("not a member"), "{r}");
        // A listed path is removed from both forms of go.work.
        let go = "go 1.22\n\nuse ./a\n\nuse (\n\t./b\n)\n";
        let e = remove_members(Ecosystem::Go, go, &["b".into()]).unwrap();
        assert_eq!(e.text, "go 1.22\n\nuse ./a\n");
    }

    #[test]
    fn names_are_normalized_as_pep_503_says() {
        assert_eq!(pep503("Foo__Bar.baz"), "foo-bar-baz");
        assert_eq!(pep503("typing_extensions"), "typing-extensions");
    }

    #[test]
    fn paths_outside_the_checkout_are_refused() {
        let root = Path::new("/nonexistent/root");
        assert_eq!(inside(root, "a/../b", "path").unwrap(), PathBuf::from("b"));
        assert_eq!(inside(root, "../x", "path").unwrap_err().field, "path");
        assert!(inside(root, "/etc", "path").is_err());
        assert_eq!(
            inside(root, "/nonexistent/root/a", "path").unwrap(),
            PathBuf::from("a")
        );
    }
}
