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
    Pyright,
    Go,
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
            Kind::Pyright => "basedpyright",
            Kind::Go => "go build and go vet",
        }
    }
}

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
            if !root.join("tsconfig.json").is_file() {
                return Err("no tsconfig.json at the checkout's root".to_owned());
            }
            let own = root.join("node_modules/.bin/tsc");
            let tsc = if own.is_file() {
                Some(own)
            } else {
                find_program("tsc")
            };
            Ok(Checker {
                kind: Kind::Tsc,
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
        Kind::Tsc => {
            let args = os(&["--noEmit", "--pretty", "false", "-p", "."]);
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
    }
}

/// Every file of the checkout a build reads: `.gitignore`d files (build output, installed
/// packages) and `.git` are left out.
fn checkout_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(rel) = entry.path().strip_prefix(root)
        {
            out.push(rel.to_owned());
        }
    }
    out.sort();
    out
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
    for name in ["node_modules", ".venv", "venv"] {
        let (from, to) = (root.join(name), scratch.join(name));
        if from.is_dir() && fs::symlink_metadata(&to).is_err() {
            std::os::unix::fs::symlink(&from, &to)?;
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
    let baseline = match problems(&checker, root, None, timeout).await {
        Ok(p) => p,
        Err(why) => return skipped(format!("{} on the checkout: {why}", checker.name())),
    };
    let after = match problems(&checker, &scratch_root, Some(&target), timeout).await {
        Ok(p) => p,
        Err(why) => return skipped(format!("{} on the changed copy: {why}", checker.name())),
    };
    let mut before: BTreeMap<_, usize> = BTreeMap::new();
    for p in &baseline {
        *before.entry(p.key()).or_default() += 1;
    }
    let mut new_errors = Vec::new();
    for p in after {
        match before.get_mut(&p.key()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => new_errors.push(p.show()),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_source::{After, Outcome};

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

    fn installed(language: &str) -> bool {
        let required = std::env::var("RESOLVE_PR_REQUIRE_LSP")
            .is_ok_and(|v| v.split(',').any(|l| l == language));
        let found = checker_for(Path::new("/nonexistent"), language, true)
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
        ];
        for (language, file, good, bad) in cases {
            if language != "rust" && !installed(language) {
                continue;
            }
            let dir = project(language);
            let root = dir.path().canonicalize().unwrap();
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
