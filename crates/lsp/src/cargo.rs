//! Rust's diagnostics from `cargo check`, run when asked: rust-analyzer's own check on save
//! is off (on a cold start it costs minutes of both cores for answers nobody asked for).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::nav::{Diag, Loc, Pos, Span};

/// `cargo check --workspace --all-targets --message-format=json` in `root`: every primary
/// span of every compiler message, deduplicated (a message repeats once per target that
/// builds the file).
///
/// With `package`, only that package (and what it needs) is checked: for one file's
/// diagnostics, far less than the whole workspace on a cold cache.
///
/// The check runs as a task of its own, at most `timeout`. A call waits for it until its own
/// deadline, less [`LEAVE`] to answer another way; a call that stops waiting leaves the check
/// running, and the next call for the same root and package waits for that check instead of
/// starting one. (Killed midway, a check loses the crate it was in: a crate that takes longer
/// than one call would never be checked.) A check that finished is not kept: the next call
/// checks again, quickly, from what the last one compiled.
pub async fn check(root: &Path, package: Option<&str>, timeout: Duration) -> Result<Check> {
    let key = (root.to_owned(), package.map(str::to_owned));
    let until = crate::deadline::wait_until_leaving(timeout, LEAVE);
    let started = std::time::Instant::now();
    let mut rx = {
        let mut in_flight = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
        match in_flight.get(&key) {
            Some(rx) => rx.clone(),
            None if until <= started => {
                return Err(Error::Timeout(
                    "cargo check was not started: the call had no time left for it".to_owned(),
                ));
            }
            None => {
                let (tx, rx) = tokio::sync::watch::channel(None);
                in_flight.insert(key.clone(), rx.clone());
                tokio::spawn(async move {
                    let (root, package) = (&key.0, key.1.as_deref());
                    let result = run(root, package, timeout).await.map_err(|e| match e {
                        Error::Timeout(m) => Failed::Timeout(m),
                        other => Failed::Io(other.to_string()),
                    });
                    IN_FLIGHT
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&key);
                    let _ = tx.send(Some(result));
                });
                rx
            }
        }
    };
    loop {
        if let Some(done) = rx.borrow_and_update().clone() {
            return done.map_err(|f| match f {
                Failed::Timeout(m) => Error::Timeout(m),
                Failed::Io(m) => Error::Io(m),
            });
        }
        match tokio::time::timeout_at(until.into(), rx.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err(Error::Io("cargo check ended without an answer".to_owned())),
            Err(_) => {
                return Err(Error::Timeout(format!(
                    "cargo check is still running after {} s; it goes on, and the next call \
                     waits for it",
                    started.elapsed().as_secs()
                )));
            }
        }
    }
}

/// Of a code call's time, what a wait for `cargo check` leaves for answering another way
/// (rust-analyzer's own diagnostics).
pub const LEAVE: Duration = Duration::from_secs(15);

/// How a check failed, for every caller waiting on it.
#[derive(Debug, Clone)]
enum Failed {
    Io(String),
    Timeout(String),
}

type Outcome = Option<std::result::Result<Check, Failed>>;
type InFlight = HashMap<(PathBuf, Option<String>), tokio::sync::watch::Receiver<Outcome>>;

static IN_FLIGHT: LazyLock<Mutex<InFlight>> = LazyLock::new(Default::default);

/// One `cargo check`, at most `timeout`; killed (with what it started) when that passes.
async fn run(root: &Path, package: Option<&str>, timeout: Duration) -> Result<Check> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut args = vec!["check".to_owned()];
    match package {
        Some(p) => args.extend(["--package".to_owned(), p.to_owned()]),
        None => args.push("--workspace".to_owned()),
    };
    // `--keep-going`: a target that fails (a nightly-only bench on a stable toolchain) does
    // not stop the others, so their files are checked and said to be.
    args.extend(
        [
            "--all-targets",
            "--keep-going",
            "--message-format=json",
            "--quiet",
        ]
        .map(str::to_owned),
    );
    // Contained as the servers are (its own group, cgroup and mark, with a watchdog): killed
    // with this process, its rustc and build scripts (and what they leave behind) do not run
    // on.
    let containment = crate::contain::Containment::new();
    let mut command = containment.command(Path::new(&cargo), &args);
    command
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let child = command
        .spawn()
        .map_err(|e| Error::Io(format!("cargo check could not run: {e}")))?;
    let leader = child.id();
    let _watchdog = leader.and_then(|pid| containment.watchdog(pid).ok());
    // Whatever ends the wait (an answer, the timeout, the call dropped), nothing of the check
    // outlives it.
    struct Reap<'a>(&'a crate::contain::Containment, Option<u32>);
    impl Drop for Reap<'_> {
        fn drop(&mut self) {
            self.0.kill(self.1);
        }
    }
    let _reap = Reap(&containment, leader);
    let output = match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(Error::Io(format!("cargo check could not run: {e}"))),
        Err(_) => {
            return Err(Error::Timeout(format!(
                "cargo check did not finish within {} s",
                timeout.as_secs()
            )));
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let diags = parse(&stdout, root);
    if !output.status.success() && diags.is_empty() {
        // Failed before compiling anything (a broken manifest): say what cargo said.
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Error::Io(format!(
            "cargo check could not run: {}",
            first_lines(&stderr)
        )));
    }
    let compiled = compiled_targets(&stdout, root);
    let targets = target_roots(root, &compiled);
    Ok(Check {
        compiled,
        targets,
        diags,
    })
}

/// What a `cargo check` found, and which targets it compiled.
#[derive(Debug, Clone, Default)]
pub struct Check {
    pub diags: Vec<Diag>,
    /// The root source file of each target compiled (`src/lib.rs`, `tests/a.rs`), absolute;
    /// build scripts are not targets whose files are checked.
    pub compiled: Vec<PathBuf>,
    /// The root source file of every target of the packages checked, compiled or not (from
    /// the failed ones' messages and `src/bin`, `tests`, `benches`, `examples` on disk).
    pub targets: Vec<PathBuf>,
}

impl Check {
    /// Whether a file belongs to a target that compiled: it is a compiled target's root file
    /// or sits in the directory of one (its modules). A file of no compiled target was not
    /// checked, whatever it holds.
    pub fn compiled_file(&self, file: &Path) -> bool {
        if self.compiled.iter().any(|root| root == file) {
            return true;
        }
        // Another target's root file (`src/bin/x.rs`, `benches/b.rs`) is that target's, not
        // a module of the target whose directory holds it.
        if self.targets.iter().any(|root| root == file) {
            return false;
        }
        // The module tree of the target whose directory is nearest above the file.
        let nearest = self
            .targets
            .iter()
            .filter_map(|root| root.parent().map(|dir| (root, dir)))
            .filter(|(_, dir)| file.starts_with(dir))
            .max_by_key(|(_, dir)| dir.components().count());
        nearest.is_some_and(|(root, dir)| {
            self.compiled
                .iter()
                .any(|c| c == root || c.parent() == Some(dir))
        })
    }
}

/// The root files of the targets of the packages whose targets compiled, as cargo finds
/// them by convention beside each package's `src/lib.rs`/`src/main.rs` (`src/bin/*.rs`,
/// `tests/*.rs`, `benches/*.rs`, `examples/*.rs`), with those compiled: enough to tell a
/// module of the library from a target of its own that failed.
fn target_roots(root: &Path, compiled: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = compiled.to_vec();
    let packages: Vec<&Path> = compiled
        .iter()
        .filter_map(|c| c.parent())
        .filter(|d| d.ends_with("src"))
        .filter_map(Path::parent)
        .filter(|p| p.starts_with(root))
        .collect();
    for package in packages {
        for dir in ["src/bin", "tests", "benches", "examples"] {
            let Ok(entries) = std::fs::read_dir(package.join(dir)) else {
                continue;
            };
            for entry in entries.flatten().take(1000) {
                let path = entry.path();
                let root_file = if path.is_dir() {
                    path.join("main.rs")
                } else if path.extension().is_some_and(|e| e == "rs") {
                    path
                } else {
                    continue;
                };
                if !out.contains(&root_file) {
                    out.push(root_file);
                }
            }
        }
    }
    out
}

/// The root source files of the targets cargo's JSON messages say were compiled
/// (`compiler-artifact`), absolute against the workspace root.
pub fn compiled_targets(json_lines: &str, root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for line in json_lines.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("reason").and_then(Value::as_str) != Some("compiler-artifact") {
            continue;
        }
        let Some(target) = v.get("target") else {
            continue;
        };
        let build_script = target
            .get("kind")
            .and_then(Value::as_array)
            .is_some_and(|k| k.iter().any(|k| k == "custom-build"));
        let Some(src) = target.get("src_path").and_then(Value::as_str) else {
            continue;
        };
        if build_script {
            continue;
        }
        let path = root.join(src);
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// What cargo said when it failed, cut short: its first few lines (the `error:` line and its
/// causes), joined, never a whole dump.
fn first_lines(stderr: &str) -> String {
    const LINES: usize = 3;
    const CHARS: usize = 200;
    let mut said: Vec<String> = Vec::new();
    // "Caused by:" only introduces the next line, which says it.
    for line in stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:")
    {
        let line: String = line.chars().take(CHARS).collect();
        if !said.contains(&line) {
            said.push(line);
        }
        if said.len() == LINES {
            break;
        }
    }
    if said.is_empty() {
        return "it exited with an error and said nothing".to_owned();
    }
    said.join(" / ")
}

/// A compiler message with what its spans and notes add: the primary span's label ("expected
/// `i32`, found `&str`") on the first line, then each child note or help (up to a few) on a
/// line of its own.
fn message_text(message: &Value, primary: &Value) -> String {
    const CHILDREN: usize = 4;
    let mut text = message
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if let Some(label) = primary
        .get("label")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !text.contains(l))
    {
        text.push_str(": ");
        text.push_str(label);
    }
    let children = message
        .get("children")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for child in children.iter().take(CHILDREN) {
        let level = child.get("level").and_then(Value::as_str).unwrap_or("note");
        let Some(said) = child
            .get("message")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|m| !m.is_empty())
        else {
            continue;
        };
        text.push_str(&format!("\n{level}: {said}"));
    }
    text
}

/// The diagnostics in cargo's JSON messages, paths made absolute against the workspace root.
pub fn parse(json_lines: &str, root: &Path) -> Vec<Diag> {
    let mut out: Vec<Diag> = Vec::new();
    for line in json_lines.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v.get("reason").and_then(Value::as_str) != Some("compiler-message") {
            continue;
        }
        let Some(message) = v.get("message") else {
            continue;
        };
        let severity = match message.get("level").and_then(Value::as_str) {
            Some("error") | Some("error: internal compiler error") => "error",
            Some("warning") => "warning",
            Some("note") | Some("help") => "information",
            _ => continue,
        };
        let code = message
            .get("code")
            .and_then(|c| c.get("code"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let spans = message
            .get("spans")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let Some(span) = spans
            .iter()
            .find(|s| s.get("is_primary").and_then(Value::as_bool) == Some(true))
        else {
            continue;
        };
        let text = message_text(message, span);
        let Some(file) = span.get("file_name").and_then(Value::as_str) else {
            continue;
        };
        let path: PathBuf = if Path::new(file).is_absolute() {
            PathBuf::from(file)
        } else {
            root.join(file)
        };
        let num = |k: &str| span.get(k).and_then(Value::as_u64).unwrap_or(1).max(1);
        // rustc counts lines and columns from 1, columns in characters.
        let (l1, c1, l2, c2) = (
            num("line_start"),
            num("column_start"),
            num("line_end"),
            num("column_end"),
        );
        let text_of_file = std::fs::read_to_string(&path).unwrap_or_default();
        let to_pos = |line: u64, col: u64| Pos {
            line: u32::try_from(line - 1).unwrap_or(u32::MAX),
            character: utf16_column(&text_of_file, line - 1, col - 1),
        };
        let diag = Diag {
            location: Loc {
                path,
                range: Span {
                    start: to_pos(l1, c1),
                    end: to_pos(l2, c2),
                },
            },
            severity,
            code,
            source: Some("rustc".to_owned()),
            message: text,
        };
        if !out.contains(&diag) {
            out.push(diag);
        }
    }
    out
}

/// A character column of a line as UTF-16 code units (as the column itself when the line is
/// not there).
fn utf16_column(text: &str, line: u64, chars: u64) -> u32 {
    let Some(l) = u32::try_from(line)
        .ok()
        .and_then(|i| resolve_pr_source::LineIndex::new(text).line(i))
    else {
        return u32::try_from(chars).unwrap_or(u32::MAX);
    };
    let take = usize::try_from(chars).unwrap_or(usize::MAX);
    let end = l.char_indices().nth(take).map_or(l.len(), |(i, _)| i);
    resolve_pr_source::utf16_len(&l[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check that outlasts the call's deadline ends at it (not at its own, longer limit),
    /// saying that what it compiled is kept.
    #[tokio::test]
    async fn a_check_ends_at_the_calls_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"slow\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        std::fs::write(
            root.join("build.rs"),
            "fn main() { std::thread::sleep(std::time::Duration::from_secs(60)); }\n",
        )
        .unwrap();
        let started = std::time::Instant::now();
        let deadline = started + LEAVE + Duration::from_secs(2);
        let e = crate::deadline::within(deadline, check(root, None, Duration::from_secs(600)))
            .await
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(matches!(e, Error::Timeout(_)), "{e:?}");
        assert!(e.to_string().contains("still running"), "{e}");
        // The check goes on: the next call waits for the same one, not a new one.
        let in_flight = |r: &Path| {
            IN_FLIGHT
                .lock()
                .unwrap()
                .keys()
                .filter(|(root, _)| root == r)
                .count()
        };
        assert_eq!(in_flight(root), 1);
        let again = std::time::Instant::now() + LEAVE + Duration::from_secs(1);
        let e = crate::deadline::within(again, check(root, None, Duration::from_secs(600)))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("still running after 1 s"), "{e}");
        assert_eq!(in_flight(root), 1);
        // With no time left, none is started.
        let other = tempfile::tempdir().unwrap();
        let none = std::time::Instant::now() + Duration::from_secs(1);
        let e = crate::deadline::within(none, check(other.path(), None, Duration::from_secs(600)))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("not started"), "{e}");
        assert_eq!(in_flight(other.path()), 0);
    }

    #[test]
    fn reads_primary_spans_once_and_skips_other_messages() {
        let msg = r#"{"reason":"compiler-message","message":{"level":"error","message":"mismatched types","code":{"code":"E0308"},"spans":[{"file_name":"src/lib.rs","is_primary":true,"line_start":3,"column_start":5,"line_end":3,"column_end":9}]}}"#;
        let other = r#"{"reason":"compiler-artifact"}"#;
        let lines = format!("{msg}\n{other}\n{msg}\nnot json\n");
        let d = parse(&lines, Path::new("/w"));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].location.path, PathBuf::from("/w/src/lib.rs"));
        assert_eq!(
            d[0].location.range.start,
            Pos {
                line: 2,
                character: 4
            }
        );
        assert_eq!(d[0].code.as_deref(), Some("E0308"));
        assert_eq!(d[0].severity, "error");
    }

    #[test]
    fn a_file_is_checked_when_a_target_holding_it_compiled() {
        let lines = [
            r#"{"reason":"compiler-artifact","target":{"kind":["custom-build"],"name":"build-script-build","src_path":"/w/semver/build.rs"}}"#,
            r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"semver","src_path":"/w/semver/src/lib.rs"}}"#,
            r#"{"reason":"compiler-artifact","target":{"kind":["test"],"name":"t","src_path":"/w/semver/tests/test_version.rs"}}"#,
            r#"{"reason":"compiler-message","message":{"level":"error","message":"`#![feature]` may not be used on the stable release channel","spans":[{"file_name":"semver/benches/parse.rs","is_primary":true,"line_start":1,"column_start":1,"line_end":1,"column_end":10}]}}"#,
        ]
        .join("\n");
        let compiled = compiled_targets(&lines, Path::new("/w"));
        let mut targets = compiled.clone();
        targets.push(PathBuf::from("/w/semver/benches/parse.rs"));
        targets.push(PathBuf::from("/w/semver/src/bin/tool.rs"));
        let check = Check {
            diags: parse(&lines, Path::new("/w")),
            compiled,
            targets,
        };
        assert_eq!(check.diags.len(), 1);
        assert!(check.compiled_file(Path::new("/w/semver/src/lib.rs")));
        assert!(check.compiled_file(Path::new("/w/semver/src/parse.rs")));
        assert!(check.compiled_file(Path::new("/w/semver/tests/test_version.rs")));
        assert!(!check.compiled_file(Path::new("/w/semver/benches/parse.rs")));
        // A bin beside the library is its own target, not a module of the library; a build
        // script compiling is no target's files compiling.
        assert!(!check.compiled_file(Path::new("/w/semver/src/bin/tool.rs")));
        assert!(!check.compiled_file(Path::new("/w/semver/build.rs")));
        assert!(!check.compiled_file(Path::new("/w/other/src/lib.rs")));
    }

    #[test]
    fn a_message_keeps_its_label_and_notes() {
        let msg = r#"{"reason":"compiler-message","message":{"level":"error","message":"mismatched types","code":{"code":"E0308"},"children":[{"level":"note","message":"function defined here","spans":[]},{"level":"help","message":"try `.parse()`","spans":[]}],"spans":[{"file_name":"src/lib.rs","is_primary":false,"label":"expected `i32` because of return type","line_start":1,"column_start":15,"line_end":1,"column_end":18},{"file_name":"src/lib.rs","is_primary":true,"label":"expected `i32`, found `&str`","line_start":2,"column_start":5,"line_end":2,"column_end":19}]}}"#;
        let d = parse(msg, Path::new("/w"));
        assert_eq!(
            d[0].message,
            "mismatched types: expected `i32`, found `&str`\nnote: function defined here\nhelp: try `.parse()`"
        );
    }

    #[test]
    fn what_cargo_said_is_cut_to_its_first_lines() {
        let said = "error: rustc 1.95.0 is not supported by the following packages:\n  m@0.1.0 requires rustc 1.999\n  m@0.1.0 requires rustc 1.999\n\nCaused by:\n  a\n  b\n  c\n";
        assert_eq!(
            first_lines(said),
            "error: rustc 1.95.0 is not supported by the following packages: / m@0.1.0 requires rustc 1.999 / a"
        );
        let manifest = "error: failed to parse manifest at `/w/Cargo.toml`\n\nCaused by:\n  failed to parse the `edition` key\n\nCaused by:\n  supported edition values are `2015`, `2018`, `2021`, or `2024`, but `2099` is unknown\n";
        assert!(first_lines(manifest).ends_with("but `2099` is unknown"));
        assert!(first_lines("").contains("said nothing"));
    }

    #[test]
    fn columns_become_utf16() {
        assert_eq!(utf16_column("a😀b", 0, 2), 3);
        assert_eq!(utf16_column("", 5, 7), 7);
    }
}

/// The name of the Cargo package a file belongs to: the nearest `Cargo.toml` above it, up to
/// `root`, that has a `[package]` with a name.
pub fn package_of(file: &Path, root: &Path) -> Option<String> {
    for dir in file.ancestors().skip(1).take_while(|d| d.starts_with(root)) {
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let mut in_package = false;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_package = line == "[package]";
                continue;
            }
            if in_package
                && let Some(value) = line.strip_prefix("name").map(str::trim_start)
                && let Some(value) = value.strip_prefix('=')
            {
                return Some(value.trim().trim_matches('"').to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod package_tests {
    use super::*;

    #[test]
    fn a_file_belongs_to_the_nearest_package() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = [\"a\"]\n").unwrap();
        std::fs::create_dir_all(root.join("a/src")).unwrap();
        std::fs::write(
            root.join("a/Cargo.toml"),
            "[package]\nname = \"alpha\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        assert_eq!(
            package_of(&root.join("a/src/lib.rs"), root).as_deref(),
            Some("alpha")
        );
        assert_eq!(package_of(&root.join("src/x.rs"), root), None);
    }
}
