//! Verification of a plan's outcome before anything is written: the language's own checker
//! runs over a scratch copy of the checkout with the outcome in it, and over the checkout
//! as it is (the baseline); the errors the outcome has and the checkout had not are new.
//!
//! - Rust: `cargo check --workspace --all-targets` (only in a trusted checkout: it runs
//!   build scripts and procedural macros). The scratch copy builds into a target directory
//!   of its own: cargo hashes a workspace member by its path relative to the workspace, so
//!   the copy and the checkout would share fingerprints in one target directory, and a
//!   change older than the last build would be taken as built (seen: a syntax error
//!   "verified").
//! - TypeScript/JavaScript: `tsc --noEmit` where a `tsconfig.json` is (the checkout's own
//!   `node_modules/.bin/tsc` first).
//! - Python: `basedpyright --outputjson`.
//! - Go: `go build ./...` and `go vet ./...`.
//! - Workspace manifests (the workspace tools' plans): the ecosystem's own tool reads the
//!   workspace, and a failure it did not have before is the new error: `cargo metadata
//!   --format-version 1 --no-deps`, `npm pkg get name --workspaces` (it reads the manifests
//!   without node_modules, which `npm query .workspace` needs), `pnpm ls -r --depth -1`,
//!   `go list -m` (offline, the copy's go.work), `uv lock --check --offline`. None of them
//!   runs the project's code, so no trust is asked.
//! - C/C++: each entry of `compile_commands.json` (what clangd reads) run again with
//!   `-fsyntax-only` and its paths moved to the copy; only in a trusted checkout (a compiler
//!   command may load plugins).
//!
//! The scratch copy lives in the state directory, one per checkout, and is brought up to
//! date (not copied afresh) each time, so a second check is incremental. Errors are
//! compared by file, code and message, not by line: the change moves lines.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use resolve_pr_edit::Verification;
use resolve_pr_source::Outcome;
use serde_json::Value;

/// An error a checker reported, as compared between the baseline and the outcome.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Problem {
    pub file: String,
    pub code: Option<String>,
    pub message: String,
    /// 1-based, for display only.
    pub line: u32,
}

impl Problem {
    fn key(&self) -> (String, Option<String>, String) {
        (self.file.clone(), self.code.clone(), self.message.clone())
    }

    fn show(&self) -> String {
        format!(
            "{}:{}: {}{}",
            self.file,
            self.line,
            self.code
                .as_deref()
                .map(|c| format!("[{c}] "))
                .unwrap_or_default(),
            self.message
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cargo,
    Tsc,
    /// JavaScript without a tsconfig.json: tsc over its files, JavaScript checked.
    TscJs,
    Pyright,
    Go,
    Cc,
    /// A workspace manifest read by its ecosystem's tool: its failure is the error.
    Manifest(Manifest),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manifest {
    Cargo,
    Npm,
    Pnpm,
    Go,
    Uv,
}

impl Manifest {
    fn of(language: &str) -> Option<Manifest> {
        Some(match language {
            "cargo-manifest" => Manifest::Cargo,
            "npm-manifest" => Manifest::Npm,
            "pnpm-manifest" => Manifest::Pnpm,
            "go-manifest" => Manifest::Go,
            "uv-manifest" => Manifest::Uv,
            _ => return None,
        })
    }

    fn program(self) -> &'static str {
        match self {
            Manifest::Cargo => "cargo",
            Manifest::Npm => "npm",
            Manifest::Pnpm => "pnpm",
            Manifest::Go => "go",
            Manifest::Uv => "uv",
        }
    }

    fn args(self) -> &'static [&'static str] {
        match self {
            Manifest::Cargo => &["metadata", "--format-version", "1", "--no-deps"],
            Manifest::Npm => &["pkg", "get", "name", "--workspaces"],
            Manifest::Pnpm => &["ls", "-r", "--depth", "-1"],
            Manifest::Go => &["list", "-m"],
            Manifest::Uv => &["lock", "--check", "--offline"],
        }
    }

    fn file(self) -> &'static str {
        match self {
            Manifest::Cargo => "Cargo.toml",
            Manifest::Npm => "package.json",
            Manifest::Pnpm => "pnpm-workspace.yaml",
            Manifest::Go => "go.work",
            Manifest::Uv => "pyproject.toml",
        }
    }
}

#[derive(Debug, Clone)]
struct Checker {
    kind: Kind,
    program: PathBuf,
}

impl Checker {
    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Cargo => "cargo check",
            Kind::Tsc => "tsc --noEmit",
            Kind::TscJs => "tsc --noEmit --allowJs --checkJs",
            Kind::Pyright => "basedpyright",
            Kind::Go => "go build and go vet",
            Kind::Cc => "the compile_commands.json compilers with -fsyntax-only",
            Kind::Manifest(Manifest::Cargo) => "cargo metadata --no-deps",
            Kind::Manifest(Manifest::Npm) => "npm pkg get name --workspaces",
            Kind::Manifest(Manifest::Pnpm) => "pnpm ls -r --depth -1",
            Kind::Manifest(Manifest::Go) => "go list -m",
            Kind::Manifest(Manifest::Uv) => "uv lock --check",
        }
    }
}

/// JavaScript files checked at most without a tsconfig.json (each is named on tsc's command
/// line).
const MAX_JS_FILES: usize = 5_000;

/// `name` in `RESOLVE_PR_LSP_PATH`'s directories, then `PATH`'s.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in ["RESOLVE_PR_LSP_PATH", "PATH"] {
        if let Some(v) = std::env::var_os(var) {
            dirs.extend(std::env::split_paths(&v));
        }
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn checker_for(root: &Path, language: &str, trusted: bool) -> Result<Checker, String> {
    if let Some(m) = Manifest::of(language) {
        let program = if m == Manifest::Cargo {
            std::env::var_os("CARGO")
                .map(PathBuf::from)
                .or_else(|| find_program("cargo"))
        } else {
            find_program(m.program())
        };
        return Ok(Checker {
            kind: Kind::Manifest(m),
            program: program
                .ok_or_else(|| format!("{} is not installed: not checked", m.program()))?,
        });
    }
    match language {
        "rust" => {
            if !root.join("Cargo.toml").is_file() {
                return Err("no Cargo.toml at the checkout's root".to_owned());
            }
            if !trusted {
                return Err(
                    "cargo check runs the checkout's build scripts and macros, and this checkout is not trusted (RESOLVE_PR_TRUST)"
                        .to_owned(),
                );
            }
            let cargo = std::env::var_os("CARGO")
                .map(PathBuf::from)
                .or_else(|| find_program("cargo"))
                .ok_or("cargo is not installed")?;
            Ok(Checker {
                kind: Kind::Cargo,
                program: cargo,
            })
        }
        "typescript" | "javascript" => {
            // Without a tsconfig.json, JavaScript is checked file by file (a TypeScript
            // project without one has no settings to check it by).
            let kind = if root.join("tsconfig.json").is_file() {
                Kind::Tsc
            } else {
                Kind::TscJs
            };
            let own = root.join("node_modules/.bin/tsc");
            let tsc = if own.is_file() {
                Some(own)
            } else {
                find_program("tsc")
            };
            Ok(Checker {
                kind,
                program: tsc.ok_or("tsc is not installed (npm install --save-dev typescript)")?,
            })
        }
        "python" => Ok(Checker {
            kind: Kind::Pyright,
            program: find_program("basedpyright")
                .ok_or("basedpyright is not installed (pip install basedpyright)")?,
        }),
        "go" => {
            if !trusted {
                return Err("go build may run cgo, and this checkout is not trusted".to_owned());
            }
            Ok(Checker {
                kind: Kind::Go,
                program: find_program("go").ok_or("go is not installed")?,
            })
        }
        "c" | "cpp" => {
            let db = root.join("compile_commands.json");
            if !db.is_file() {
                return Err("no compile_commands.json at the checkout's root".to_owned());
            }
            if !trusted {
                return Err(
                    "a compile command may load compiler plugins, and this checkout is not trusted"
                        .to_owned(),
                );
            }
            Ok(Checker {
                kind: Kind::Cc,
                program: db,
            })
        }
        other => Err(format!("no checker for {other} here")),
    }
}

async fn run(
    program: &Path,
    args: &[OsString],
    dir: &Path,
    env: &[(&str, OsString)],
    timeout: Duration,
) -> Result<(String, String), String> {
    let (_, out, err) = run_status(program, args, dir, env, timeout).await?;
    Ok((out, err))
}

/// A checker run in `dir` within `timeout`: whether it succeeded, its stdout and stderr.
async fn run_status(
    program: &Path,
    args: &[OsString],
    dir: &Path,
    env: &[(&str, OsString)],
    timeout: Duration,
) -> Result<(bool, String, String), String> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    for (k, v) in env {
        command.env(k, v);
    }
    let child = command
        .spawn()
        .map_err(|e| format!("{} could not run: {e}", program.display()))?;
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => Ok((
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )),
        Ok(Err(e)) => Err(format!("{} failed: {e}", program.display())),
        Err(_) => Err(format!("did not finish within {} s", timeout.as_secs())),
    }
}

fn rel(path: &str, dir: &Path) -> String {
    let p = Path::new(path);
    p.strip_prefix(dir)
        .unwrap_or(p)
        .to_string_lossy()
        .trim_start_matches("./")
        .to_owned()
}

/// The errors `checker` reports for the project in `dir`.
async fn problems(
    checker: &Checker,
    root: &Path,
    dir: &Path,
    target_dir: Option<&Path>,
    timeout: Duration,
) -> Result<Vec<Problem>, String> {
    let os = |items: &[&str]| items.iter().map(OsString::from).collect::<Vec<_>>();
    match checker.kind {
        Kind::Cargo => {
            let mut args = os(&[
                "check",
                "--workspace",
                "--all-targets",
                "--keep-going",
                "--message-format=json",
                "--quiet",
            ]);
            if let Some(target) = target_dir {
                args.push("--target-dir".into());
                args.push(target.into());
            }
            let (out, err) = run(&checker.program, &args, dir, &[], timeout).await?;
            let diags = resolve_pr_lsp::cargo::parse(&out, dir);
            if diags.is_empty() && out.trim().is_empty() && err.contains("error") {
                return Err(format!(
                    "cargo could not check: {}",
                    err.lines().take(3).collect::<Vec<_>>().join(" ")
                ));
            }
            Ok(diags
                .into_iter()
                .filter(|d| d.severity == "error")
                .map(|d| Problem {
                    file: rel(&d.location.path.to_string_lossy(), dir),
                    code: d.code,
                    message: d.message.lines().next().unwrap_or_default().to_owned(),
                    line: d.location.range.start.line + 1,
                })
                .collect())
        }
        Kind::Tsc | Kind::TscJs => {
            let mut args = os(&["--noEmit", "--pretty", "false"]);
            if checker.kind == Kind::Tsc {
                args.extend(os(&["-p", "."]));
            } else {
                // Each JavaScript file named (tsc takes no globs without a config), relative.
                let files = resolve_pr_source::Walk::sources(dir)
                    .files(MAX_JS_FILES, |p| {
                        resolve_pr_source::Dialect::of_path(p).is_some_and(|d| {
                            matches!(
                                d,
                                resolve_pr_source::Dialect::JavaScript
                                    | resolve_pr_source::Dialect::Jsx
                            )
                        })
                    })
                    .unwrap_or_default();
                if files.more {
                    return Err(format!(
                        "more than {MAX_JS_FILES} JavaScript files and no tsconfig.json to check them by"
                    ));
                }
                if files.files.is_empty() {
                    return Err("no tsconfig.json at the checkout's root".to_owned());
                }
                args.extend(os(&[
                    "--allowJs",
                    "--checkJs",
                    "--skipLibCheck",
                    "--module",
                    "commonjs",
                    "--target",
                    "es2022",
                    "--jsx",
                    "preserve",
                ]));
                args.extend(
                    files
                        .files
                        .iter()
                        .filter_map(|f| f.strip_prefix(dir).ok())
                        .map(|f| f.as_os_str().to_owned()),
                );
            }
            let (out, _) = run(&checker.program, &args, dir, &[], timeout).await?;
            Ok(out
                .lines()
                .filter_map(|line| {
                    // path(line,col): error TS2304: message
                    let (head, rest) = line.split_once("): error ")?;
                    let (file, pos) = head.rsplit_once('(')?;
                    let (code, message) = rest.split_once(": ")?;
                    Some(Problem {
                        file: rel(file, dir),
                        code: Some(code.to_owned()),
                        message: message.to_owned(),
                        line: pos.split(',').next()?.parse().ok()?,
                    })
                })
                .collect())
        }
        Kind::Pyright => {
            let args = os(&["--outputjson", "."]);
            let (out, err) = run(&checker.program, &args, dir, &[], timeout).await?;
            let json: Value = serde_json::from_str(&out).map_err(|_| {
                format!(
                    "basedpyright said no JSON: {}",
                    err.lines().next().unwrap_or_default()
                )
            })?;
            Ok(json["generalDiagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["severity"] == "error")
                .map(|d| Problem {
                    file: rel(d["file"].as_str().unwrap_or_default(), dir),
                    code: d["rule"].as_str().map(str::to_owned),
                    message: d["message"]
                        .as_str()
                        .unwrap_or_default()
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                    line: d["range"]["start"]["line"].as_u64().unwrap_or(0) as u32 + 1,
                })
                .collect())
        }
        Kind::Go => {
            let mut all = Vec::new();
            for sub in ["build", "vet"] {
                let args = os(&[sub, "./..."]);
                let (_, err) = run(&checker.program, &args, dir, &[], timeout).await?;
                all.extend(err.lines().filter_map(|line| {
                    // path:line:col: message (vet prefixes "vet: ")
                    let line = line.trim_start_matches("vet: ");
                    let mut parts = line.splitn(4, ':');
                    let file = parts.next()?;
                    let n: u32 = parts.next()?.trim().parse().ok()?;
                    let third = parts.next()?;
                    let message = match parts.next() {
                        Some(m) if third.trim().parse::<u32>().is_ok() => m,
                        _ => third,
                    };
                    Some(Problem {
                        file: rel(file, dir),
                        code: None,
                        message: message.trim().to_owned(),
                        line: n,
                    })
                }));
            }
            Ok(all)
        }
        Kind::Manifest(m) => {
            let args = os(m.args());
            let mut env: Vec<(&str, OsString)> = Vec::new();
            if m == Manifest::Go {
                // Offline, on the copy's own go.work (a GOWORK of the caller's would win).
                let work = dir.join("go.work");
                env.push((
                    "GOWORK",
                    if work.is_file() {
                        work.into()
                    } else {
                        "off".into()
                    },
                ));
                env.push(("GOPROXY", "off".into()));
                env.push((
                    "GOFLAGS",
                    if dir.join("go.work").is_file() {
                        "".into()
                    } else {
                        "-mod=mod".into()
                    },
                ));
            }
            let (ok, out, err) = run_status(&checker.program, &args, dir, &env, timeout).await?;
            if ok {
                return Ok(Vec::new());
            }
            let said = if err.trim().is_empty() { out } else { err };
            let dir_text = dir.to_string_lossy();
            let message = said
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.contains("A complete log of this run"))
                .unwrap_or("failed")
                .replace(dir_text.as_ref(), ".");
            Ok(vec![Problem {
                file: m.file().to_owned(),
                code: None,
                message,
                line: 1,
            }])
        }
        Kind::Cc => {
            let commands = compile_commands(&checker.program, root, dir)?;
            let mut all = Vec::new();
            for (cwd, args) in commands {
                let Some((program, rest)) = args.split_first() else {
                    continue;
                };
                let Some(program) = find_compiler(program) else {
                    return Err(format!(
                        "the compiler {} is not installed",
                        program.to_string_lossy()
                    ));
                };
                let (_, err) = run(&program, rest, &cwd, &[], timeout).await?;
                all.extend(err.lines().filter_map(|line| {
                    // path:line:col: error: message (or "fatal error:")
                    let (head, message) = line
                        .split_once(": error: ")
                        .or_else(|| line.split_once(": fatal error: "))?;
                    let mut parts = head.splitn(3, ':');
                    let file = parts.next()?;
                    let n: u32 = parts.next()?.trim().parse().ok()?;
                    let file = cwd.join(file);
                    Some(Problem {
                        file: rel(&file.to_string_lossy(), dir),
                        code: None,
                        message: message.trim().to_owned(),
                        line: n,
                    })
                }));
            }
            all.sort();
            all.dedup();
            Ok(all)
        }
    }
}

/// The commands of a `compile_commands.json` (at `db`, written for the checkout at `root`)
/// to check the project in `dir`: each entry's arguments (or its `command`, split as a
/// shell would) with its output dropped, `-fsyntax-only` added, and the checkout's paths
/// moved to `dir`; with the directory each runs in.
fn compile_commands(
    db: &Path,
    root: &Path,
    dir: &Path,
) -> Result<Vec<(PathBuf, Vec<OsString>)>, String> {
    const MOST: usize = 5000;
    let text = fs::read_to_string(db).map_err(|e| format!("compile_commands.json: {e}"))?;
    let entries: Vec<Value> = serde_json::from_str(&text)
        .map_err(|e| format!("compile_commands.json is not a JSON array of commands: {e}"))?;
    if entries.len() > MOST {
        return Err(format!(
            "compile_commands.json has {} commands, more than the {MOST} checked",
            entries.len()
        ));
    }
    let (from, to) = (root.to_string_lossy(), dir.to_string_lossy());
    let moved = |s: &str| {
        if dir == root {
            s.to_owned()
        } else {
            s.replace(from.as_ref(), to.as_ref())
        }
    };
    let mut out = Vec::new();
    for entry in &entries {
        let args: Vec<String> = match (&entry["arguments"], entry["command"].as_str()) {
            (Value::Array(items), _) => items
                .iter()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect(),
            (_, Some(command)) => shlex::split(command).ok_or_else(|| {
                format!("a command in compile_commands.json does not parse: {command}")
            })?,
            _ => continue,
        };
        let Some(cwd) = entry["directory"].as_str() else {
            continue;
        };
        let mut kept: Vec<OsString> = Vec::new();
        let mut skip = false;
        for arg in args {
            if skip {
                skip = false;
                continue;
            }
            if arg == "-o" {
                skip = true;
                continue;
            }
            if arg.starts_with("-o") && arg.len() > 2 {
                continue;
            }
            kept.push(moved(&arg).into());
        }
        if kept.is_empty() {
            continue;
        }
        kept.push("-fsyntax-only".into());
        out.push((PathBuf::from(moved(cwd)), kept));
    }
    Ok(out)
}

/// A compiler named by a compile command: a path as it is, a bare name on `PATH`.
fn find_compiler(program: &OsString) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_owned());
    }
    find_program(&program.to_string_lossy())
}

/// Every file of the checkout a build reads: `.gitignore`d files (build output, installed
/// packages) and `.git` are left out.
pub(crate) fn checkout_files(root: &Path) -> Vec<PathBuf> {
    let walked = resolve_pr_source::Walk::checkout(root)
        .files(usize::MAX, |_| true)
        .unwrap_or_default();
    walked
        .files
        .into_iter()
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_owned))
        .collect()
}

/// Brings `scratch` to the checkout's files with `outcome` applied: only what differs is
/// written, and files no longer there are removed.
fn sync_scratch(root: &Path, scratch: &Path, outcome: &Outcome) -> std::io::Result<()> {
    let mut want: BTreeMap<PathBuf, Option<PathBuf>> = checkout_files(root)
        .into_iter()
        .map(|p| (p.clone(), Some(p)))
        .collect();
    for (path, after) in &outcome.files {
        match &after.contents {
            Some(_) => {
                want.insert(path.clone(), None);
            }
            None => {
                want.remove(path);
            }
        }
    }
    for have in checkout_files(scratch) {
        if !want.contains_key(&have) {
            let _ = fs::remove_file(scratch.join(&have));
        }
    }
    for (path, source) in &want {
        let bytes = match source {
            Some(src) => fs::read(root.join(src))?,
            None => outcome.files[path].contents.clone().unwrap_or_default(),
        };
        let dest = scratch.join(path);
        if fs::read(&dest).ok().as_deref() == Some(&bytes[..]) {
            continue;
        }
        if let Some(dir) = dest.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::write(&dest, &bytes)?;
    }
    // Installed packages the checkers resolve imports through, by link.
    for name in [".venv", "venv"] {
        let (from, to) = (root.join(name), scratch.join(name));
        if from.is_dir() && fs::symlink_metadata(&to).is_err() {
            std::os::unix::fs::symlink(&from, &to)?;
        }
    }
    link_node_modules(&root.join("node_modules"), &scratch.join("node_modules"))?;
    Ok(())
}

/// The checkout's `node_modules` seen from the scratch copy: each package linked to the
/// checkout's, except a workspace package (npm links those relatively, into the checkout's
/// own directories), whose relative link is kept so that it resolves to the scratch copy's
/// package, the one the change edits. Scopes (`@s/…`) are looked into.
fn link_node_modules(from: &Path, to: &Path) -> std::io::Result<()> {
    if !from.is_dir() {
        return Ok(());
    }
    if fs::symlink_metadata(to).is_ok_and(|m| m.file_type().is_symlink()) {
        // Made by an earlier version as one link to the whole directory.
        fs::remove_file(to)?;
    }
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let (source, dest) = (entry.path(), to.join(entry.file_name()));
        if fs::symlink_metadata(&dest).is_ok() {
            continue;
        }
        let kind = entry.file_type()?;
        let scope = entry.file_name().to_string_lossy().starts_with('@');
        if kind.is_symlink() {
            let target = fs::read_link(&source)?;
            if target.is_relative() {
                std::os::unix::fs::symlink(&target, &dest)?;
            } else {
                std::os::unix::fs::symlink(&source, &dest)?;
            }
        } else if kind.is_dir() && scope {
            link_node_modules(&source, &dest)?;
        } else {
            std::os::unix::fs::symlink(&source, &dest)?;
        }
    }
    Ok(())
}

/// How a change was checked, with what it would break. `scratch` is a directory this
/// checkout's verifications may keep (it is brought up to date each time).
pub async fn verify(
    root: &Path,
    scratch: &Path,
    outcome: &Outcome,
    language: Option<&str>,
    trusted: bool,
    timeout: Duration,
) -> Verification {
    let skipped = |why: String| Verification {
        verified: false,
        how: format!("not verified: {why}"),
        new_errors: Vec::new(),
        baseline_errors: 0,
        timed_out: why.contains("did not finish within"),
    };
    let Some(language) = language else {
        return skipped("the change's language is not known".to_owned());
    };
    let checker = match checker_for(root, language, trusted) {
        Ok(c) => c,
        Err(why) => return skipped(why),
    };
    // One verification at a time uses the scratch copy.
    let lock_path = scratch.join("lock");
    let lock = tokio::task::spawn_blocking(move || -> std::io::Result<fs::File> {
        if let Some(dir) = lock_path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)?;
        file.lock()?;
        Ok(file)
    })
    .await;
    let _lock = match lock {
        Ok(Ok(file)) => file,
        Ok(Err(e)) => return skipped(format!("the scratch copy could not be locked: {e}")),
        Err(e) => return skipped(format!("the scratch copy could not be locked: {e}")),
    };
    let scratch_root = scratch.join("tree");
    let (r, s, o) = (root.to_owned(), scratch_root.clone(), outcome.clone());
    let synced = tokio::task::spawn_blocking(move || {
        fs::create_dir_all(&s)?;
        sync_scratch(&r, &s, &o)
    })
    .await;
    if let Err(e) = synced
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| e.to_string()))
    {
        return skipped(format!("the scratch copy could not be made: {e}"));
    }
    let target = scratch.join("target");
    // cargo writes where it checks (a Cargo.lock where there is none, a target directory):
    // its baseline runs on a copy of the checkout as it is, so that a plan, a dry run
    // included, leaves every byte of the checkout as it was.
    let (base_dir, base_target) = if checker.kind == Kind::Cargo {
        let (r, b) = (root.to_owned(), scratch.join("base"));
        let synced = tokio::task::spawn_blocking(move || {
            fs::create_dir_all(&b)?;
            sync_scratch(&r, &b, &Outcome::default())
        })
        .await;
        if let Err(e) = synced
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
        {
            return skipped(format!("the scratch copy could not be made: {e}"));
        }
        (scratch.join("base"), Some(scratch.join("target-base")))
    } else {
        (root.to_owned(), None)
    };
    let baseline = match problems(&checker, root, &base_dir, base_target.as_deref(), timeout).await
    {
        Ok(p) => p,
        Err(why) => return skipped(format!("{} on the checkout: {why}", checker.name())),
    };
    let after = match problems(&checker, root, &scratch_root, Some(&target), timeout).await {
        Ok(p) => p,
        Err(why) => return skipped(format!("{} on the changed copy: {why}", checker.name())),
    };
    let touched: std::collections::BTreeSet<String> = outcome
        .files
        .iter()
        .flat_map(|(path, after)| [Some(path), after.origin.as_ref()])
        .flatten()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let new_errors = added(&baseline, after, &touched);
    Verification {
        verified: new_errors.is_empty(),
        how: format!(
            "{} on a copy of the checkout with the change",
            checker.name()
        ),
        new_errors,
        baseline_errors: baseline.len(),
        timed_out: false,
    }
}

/// The errors of `after` that `baseline` had not, by file, code and message. An error the
/// change only carried from one file to another (a declaration moved with the error it
/// had) is not new: what the first pass leaves is matched by code and message against the
/// baseline's errors left in the files the change `touched`.
fn added(
    baseline: &[Problem],
    after: Vec<Problem>,
    touched: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let mut before: BTreeMap<_, usize> = BTreeMap::new();
    for p in baseline {
        *before.entry(p.key()).or_default() += 1;
    }
    let mut unmatched = Vec::new();
    for p in after {
        match before.get_mut(&p.key()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => unmatched.push(p),
        }
    }
    let mut new_errors = Vec::new();
    for p in unmatched {
        let carried = touched.contains(&p.file).then(|| {
            before.iter_mut().find(|((file, code, message), n)| {
                **n > 0 && touched.contains(file) && *code == p.code && *message == p.message
            })
        });
        match carried.flatten() {
            Some((_, n)) => *n -= 1,
            None => new_errors.push(p.show()),
        }
    }
    new_errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_source::{After, Outcome};

    #[test]
    fn an_error_carried_to_another_touched_file_is_not_new() {
        let p = |file: &str, message: &str| Problem {
            file: file.into(),
            code: Some("reportMissingTypeArgument".into()),
            message: message.into(),
            line: 1,
        };
        let baseline = vec![p("a.py", "dict"), p("c.py", "list")];
        let touched: std::collections::BTreeSet<String> =
            ["a.py".to_owned(), "b.py".to_owned()].into();
        // Moved from a.py to b.py: the same error, not new.
        assert!(
            added(
                &baseline,
                vec![p("b.py", "dict"), p("c.py", "list")],
                &touched
            )
            .is_empty()
        );
        // Twice where it was once: one is new.
        assert_eq!(
            added(
                &baseline,
                vec![p("b.py", "dict"), p("b.py", "dict")],
                &touched
            ),
            vec!["b.py:1: [reportMissingTypeArgument] dict"]
        );
        // In a file the change did not touch, it is new (and a file it did not touch cannot
        // lend its own).
        assert_eq!(added(&baseline, vec![p("d.py", "dict")], &touched).len(), 1);
        assert_eq!(added(&baseline, vec![p("b.py", "list")], &touched).len(), 1);
    }

    fn copy(from: &Path, to: &Path) {
        for entry in fs::read_dir(from).unwrap().flatten() {
            let name = entry.file_name();
            if name == "target" || name == "node_modules" {
                continue;
            }
            let dest = to.join(&name);
            if entry.file_type().unwrap().is_dir() {
                fs::create_dir_all(&dest).unwrap();
                copy(&entry.path(), &dest);
            } else {
                fs::copy(entry.path(), &dest).unwrap();
            }
        }
    }

    fn project(language: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/code")
            .join(language);
        copy(&src, dir.path());
        // C's compile database names the copy's own paths, as clangd needs.
        let template = dir.path().join("compile_commands.json.in");
        if let Ok(text) = fs::read_to_string(&template) {
            let root = dir.path().canonicalize().unwrap();
            let text = text.replace("@DIR@", &root.to_string_lossy());
            fs::write(dir.path().join("compile_commands.json"), text).unwrap();
        }
        dir
    }

    fn outcome(path: &str, text: &str) -> Outcome {
        let mut out = Outcome::default();
        out.files.insert(
            PathBuf::from(path),
            After {
                contents: Some(text.as_bytes().to_vec()),
                origin: Some(PathBuf::from(path)),
            },
        );
        out
    }

    /// Whether `language`'s checker can run on the sample project at `root`.
    fn installed(root: &Path, language: &str) -> bool {
        let required = std::env::var("RESOLVE_PR_REQUIRE_LSP")
            .is_ok_and(|v| v.split(',').any(|l| l == language));
        let found = checker_for(root, language, true)
            .map(|_| true)
            .unwrap_or_else(|why| !why.contains("not installed"));
        assert!(found || !required, "{language}'s checker is required here");
        found
    }

    /// Each checker: a change that breaks the build has its new error named, one that does
    /// not is verified, and the checkout itself is never written.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_checker_names_the_errors_a_change_adds_and_only_those() {
        let cases = [
            (
                "rust",
                "src/util.rs",
                "pub fn add_numbers(a: i64, b: i64) -> i64 {\n    a + b + 1\n}\n",
                "pub fn add_numbers(a: i64, b: i64) -> i64 {\n    a + undefined_name\n}\n",
            ),
            (
                "typescript",
                "src/util.ts",
                "export function add_numbers(a: number, b: number): number {\n  return a + b + 1;\n}\n",
                "export function add_numbers(a: number, b: number): number {\n  return a + undefinedName;\n}\n",
            ),
            (
                "python",
                "util.py",
                "def add_numbers(a: int, b: int) -> int:\n    return a + b + 1\n",
                "def add_numbers(a: int, b: int) -> int:\n    return a + undefined_name\n",
            ),
            (
                "c",
                "util.c",
                "#include \"util.h\"\n\nint add_numbers(int a, int b) {\n    return a + b + 1;\n}\n",
                "#include \"util.h\"\n\nint add_numbers(int a, int b) {\n    return a + undefined_name;\n}\n",
            ),
        ];
        for (language, file, good, bad) in cases {
            let dir = project(language);
            let root = dir.path().canonicalize().unwrap();
            if language != "rust" && !installed(&root, language) {
                continue;
            }
            let state = tempfile::tempdir().unwrap();
            let original = fs::read(root.join(file)).unwrap();
            let timeout = Duration::from_secs(600);
            let fine = verify(
                &root,
                state.path(),
                &outcome(file, good),
                Some(language),
                true,
                timeout,
            )
            .await;
            assert!(fine.verified, "{language}: {fine:?}");
            let broken = verify(
                &root,
                state.path(),
                &outcome(file, bad),
                Some(language),
                true,
                timeout,
            )
            .await;
            assert!(!broken.verified, "{language}: {broken:?}");
            assert_eq!(broken.new_errors.len(), 1, "{language}: {broken:?}");
            assert!(
                broken.new_errors[0].starts_with(file),
                "{language}: {broken:?}"
            );
            assert!(
                broken.new_errors[0].contains("undefined"),
                "{language}: {broken:?}"
            );
            assert_eq!(
                fs::read(root.join(file)).unwrap(),
                original,
                "{language}: the checkout is not written"
            );
            // The scratch copy follows the checkout: a file deleted there goes here too.
            assert!(state.path().join("tree").join(file).exists());
        }
    }

    /// JavaScript without a tsconfig.json: tsc checks its files (allowJs, checkJs), so a
    /// broken change is named and a sound one verified.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn javascript_without_a_tsconfig_is_checked_file_by_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(
            root.join("util.js"),
            "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n",
        )
        .unwrap();
        fs::write(
            root.join("main.js"),
            "const { add } = require('./util');\nconsole.log(add(1, 2));\n",
        )
        .unwrap();
        if !installed(&root, "typescript") {
            return;
        }
        let state = tempfile::tempdir().unwrap();
        let timeout = Duration::from_secs(300);
        let good = "function add(a, b) {\n  return a + b + 1;\n}\nmodule.exports = { add };\n";
        let fine = verify(
            &root,
            state.path(),
            &outcome("util.js", good),
            Some("typescript"),
            true,
            timeout,
        )
        .await;
        assert!(fine.verified, "{fine:?}");
        assert!(fine.how.contains("--checkJs"), "{fine:?}");
        let bad =
            "function add(a, b) {\n  return a + undefinedName;\n}\nmodule.exports = { add };\n";
        let broken = verify(
            &root,
            state.path(),
            &outcome("util.js", bad),
            Some("typescript"),
            true,
            timeout,
        )
        .await;
        assert!(!broken.verified, "{broken:?}");
        assert_eq!(broken.new_errors.len(), 1, "{broken:?}");
        assert!(
            broken.new_errors[0].starts_with("util.js")
                && broken.new_errors[0].contains("undefinedName"),
            "{broken:?}"
        );
    }

    /// A manifest change is checked by the ecosystem's own tool: a member that does not
    /// exist is the new error; a sound change is verified, untrusted as the checkout is.
    #[tokio::test]
    async fn workspace_manifests_are_read_by_their_ecosystems_tool() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"a\"]\nresolver = \"2\"\n",
        )
        .unwrap();
        fs::create_dir_all(root.join("a/src")).unwrap();
        fs::write(
            root.join("a/Cargo.toml"),
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        fs::write(root.join("a/src/lib.rs"), "").unwrap();
        let state = tempfile::tempdir().unwrap();
        let timeout = Duration::from_secs(120);
        let bad = "[workspace]\nmembers = [\"a\", \"missing\"]\nresolver = \"2\"\n";
        let v = verify(
            &root,
            state.path(),
            &outcome("Cargo.toml", bad),
            Some("cargo-manifest"),
            false,
            timeout,
        )
        .await;
        assert!(!v.verified, "{v:?}");
        assert_eq!(v.new_errors.len(), 1, "{v:?}");
        assert!(v.new_errors[0].starts_with("Cargo.toml:1: "), "{v:?}");
        let good = "[workspace]\nmembers = [\"a\"]\nresolver = \"2\"\n# fine\n";
        let v = verify(
            &root,
            state.path(),
            &outcome("Cargo.toml", good),
            Some("cargo-manifest"),
            false,
            timeout,
        )
        .await;
        assert!(v.verified, "{v:?}");
        assert!(v.how.starts_with("cargo metadata"), "{v:?}");
        // A tool that is not here says so.
        let none = checker_for(&root, "pnpm-manifest", false);
        if find_program("pnpm").is_none() {
            assert_eq!(none.unwrap_err(), "pnpm is not installed: not checked");
        }
    }

    #[tokio::test]
    async fn an_untrusted_rust_checkout_is_not_built_and_says_why() {
        let dir = project("rust");
        let state = tempfile::tempdir().unwrap();
        let v = verify(
            dir.path(),
            state.path(),
            &Outcome::default(),
            Some("rust"),
            false,
            Duration::from_secs(5),
        )
        .await;
        assert!(!v.verified);
        assert!(v.how.contains("not trusted"), "{v:?}");
        assert!(!state.path().join("tree").exists(), "nothing was copied");
    }
}
