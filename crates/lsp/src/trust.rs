//! Workspace trust, as editors have it: reading a checkout must not run its code unless the
//! user trusts it. A language server told about a project runs parts of it by design:
//! rust-analyzer builds and runs build scripts and proc-macros (and runs `cargo`, which
//! obeys the checkout's `.cargo/config.toml` and `rust-toolchain.toml`),
//! typescript-language-server prefers the checkout's own `node_modules/typescript`, pyright
//! runs the checkout's `.venv/bin/python`, `cargo check` compiles and runs build scripts.
//!
//! The server's own working directory is trusted (the user started it in their project):
//! the git worktree holding it, or the directory itself; never `/` or the home directory.
//! So are the directories in `RESOLVE_PR_TRUST` (separated like `PATH`; `*` trusts every
//! directory, as before trust existed). Any other checkout (a `directory` naming a PR's
//! checkout elsewhere, say) is untrusted, and its servers run hardened ([`hardening`]):
//!
//! | language | trusted | untrusted |
//! |---|---|---|
//! | Rust | build scripts, proc-macros, `cargo check` for diagnostics | none of them; rust-analyzer's own diagnostics; the toolchain pinned (`RUSTUP_TOOLCHAIN`), `rustc` and its wrappers from no config of the checkout's, cargo offline |
//! | TypeScript | the checkout's `node_modules/typescript` when it has one | the TypeScript installed beside the server; no automatic type acquisition |
//! | Python | the interpreter the server finds (the checkout's `.venv`) | an interpreter from `PATH` outside the checkout |
//! | C | clangd runs nothing of the checkout (no `--query-driver`) | the same |
//! | Go | the `go` command as configured | `GOTOOLCHAIN=local`, cgo off |

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::servers::{Language, ServerSpec};

/// The variable listing trusted directories.
pub const TRUST_VAR: &str = "RESOLVE_PR_TRUST";

/// Whether a checkout's own code may run when its servers read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trust {
    Trusted,
    Untrusted,
}

impl Trust {
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::Trusted => "trusted",
            Trust::Untrusted => "untrusted",
        }
    }
}

/// Which directories are trusted.
#[derive(Debug, Clone, Default)]
pub struct TrustPolicy {
    /// Canonical directories; a checkout inside one is trusted.
    dirs: Vec<PathBuf>,
    everything: bool,
}

impl TrustPolicy {
    /// No directory is trusted.
    pub fn nothing() -> TrustPolicy {
        TrustPolicy::default()
    }

    /// Every directory is trusted (`RESOLVE_PR_TRUST=*`).
    pub fn everything() -> TrustPolicy {
        TrustPolicy {
            dirs: Vec::new(),
            everything: true,
        }
    }

    /// These directories (and what is inside them) are trusted.
    pub fn dirs<I, P>(dirs: I) -> TrustPolicy
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        TrustPolicy {
            dirs: dirs.into_iter().map(|d| canonical(d.as_ref())).collect(),
            everything: false,
        }
    }

    /// The server's working directory's project, and `RESOLVE_PR_TRUST`'s directories.
    pub fn from_env() -> TrustPolicy {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut policy = TrustPolicy::nothing();
        if let Ok(cwd) = std::env::current_dir()
            && let Some(project) = project_of(&cwd, home.as_deref())
        {
            policy.dirs.push(project);
        }
        if let Some(listed) = std::env::var_os(TRUST_VAR) {
            for dir in std::env::split_paths(&listed) {
                if dir.as_os_str() == "*" {
                    policy.everything = true;
                } else if dir.is_absolute() {
                    policy.dirs.push(canonical(&dir));
                }
            }
        }
        policy
    }

    /// How a checkout (a project root) is trusted.
    pub fn of(&self, root: &Path) -> Trust {
        if self.everything {
            return Trust::Trusted;
        }
        let root = canonical(root);
        if self.dirs.iter().any(|d| root.starts_with(d)) {
            Trust::Trusted
        } else {
            Trust::Untrusted
        }
    }

    /// What is trusted, said for people.
    pub fn describe(&self) -> String {
        if self.everything {
            return format!("every directory ({TRUST_VAR}=*)");
        }
        if self.dirs.is_empty() {
            return format!("no directory (add some to {TRUST_VAR})");
        }
        self.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// The project a working directory is in: the git worktree holding it, else the directory;
/// `None` for `/` and the home directory, which hold everything.
fn project_of(cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let cwd = canonical(cwd);
    let project = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_owned();
    let home = home.map(canonical);
    let too_wide = project.parent().is_none() || home.as_deref() == Some(project.as_path());
    (!too_wide).then_some(project)
}

/// What reading a checkout of `language` runs of its code, trusted or not (the table above,
/// a row at a time, for `health_check`).
pub fn what_runs(language: Language, trust: Trust) -> &'static str {
    match (language, trust) {
        (Language::Rust, Trust::Trusted) => {
            "its build scripts and proc-macros (rust-analyzer), and cargo check for diagnostics"
        }
        (Language::Rust, Trust::Untrusted) => {
            "nothing: no build script, proc-macro or cargo check (rust-analyzer's own \
             diagnostics), toolchain files and cargo config ignored, cargo offline"
        }
        (Language::TypeScript, Trust::Trusted) => "its own node_modules/typescript, if it has one",
        (Language::TypeScript, Trust::Untrusted) => {
            "nothing: the server's own TypeScript, no plugins of the checkout's, no type \
             acquisition"
        }
        (Language::Python, Trust::Trusted) => "its .venv's python, if it has one",
        (Language::Python, Trust::Untrusted) => {
            "nothing: python3 from PATH, never the checkout's .venv"
        }
        (Language::C, _) => "nothing (clangd runs no compiler of the checkout's)",
        (Language::Go, Trust::Trusted) => "go list, with cgo and the toolchain its go.mod asks for",
        (Language::Go, Trust::Untrusted) => "go list only: the local toolchain, cgo off",
    }
}

/// What an untrusted checkout's server is started with besides its usual configuration:
/// variables for its process (and everything it starts), and what is merged over its
/// `initializationOptions` and its `workspace/configuration` answers.
#[derive(Debug, Clone, Default)]
pub struct Hardening {
    pub env: Vec<(String, OsString)>,
    pub initialization_options: Option<Value>,
    pub settings: Option<Value>,
}

/// How `spec` (found at `program`) runs for the checkout at `root` with `trust`; an error
/// says why a server cannot be run safely there.
pub fn hardening(
    spec: &ServerSpec,
    program: &Path,
    root: &Path,
    trust: Trust,
) -> Result<Hardening, String> {
    if trust == Trust::Trusted {
        return Ok(Hardening::default());
    }
    if spec.refactors_only {
        return Err(format!(
            "{} runs the checkout's own configuration code (rope's .ropeproject/config.py), and this checkout is not trusted",
            spec.name
        ));
    }
    Ok(match spec.language {
        Language::Rust => {
            let off = json!({
                "cargo": {"buildScripts": {"enable": false}},
                "procMacro": {"enable": false},
            });
            Hardening {
                env: rust_env(),
                initialization_options: Some(off.clone()),
                settings: Some(json!({"rust-analyzer": off})),
            }
        }
        Language::TypeScript => {
            let own = own_tsserver(program).ok_or_else(|| {
                format!(
                    "the checkout is untrusted, so its own TypeScript must not run, and no \
                     TypeScript was found installed beside {} (install both: {})",
                    program.display(),
                    spec.install
                )
            })?;
            Hardening {
                env: Vec::new(),
                initialization_options: Some(json!({
                    "tsserver": {"path": own},
                    "disableAutomaticTypingAcquisition": true,
                })),
                settings: None,
            }
        }
        Language::Python => {
            // An interpreter of the machine's; without one, a path that runs nothing.
            let python = outside_python(root)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "/nonexistent/python3".to_owned());
            Hardening {
                env: Vec::new(),
                initialization_options: None,
                settings: Some(json!({"python": {"pythonPath": python}})),
            }
        }
        Language::C => Hardening::default(),
        Language::Go => Hardening {
            env: vec![
                ("GOTOOLCHAIN".into(), "local".into()),
                ("CGO_ENABLED".into(), "0".into()),
            ],
            initialization_options: None,
            settings: None,
        },
    })
}

/// The variables that keep cargo and rustup from running what an untrusted checkout names:
/// its `rust-toolchain.toml` (a toolchain `path` is a program of the checkout's), its
/// `.cargo/config.toml`'s `build.rustc` and wrappers, and registries' credential providers
/// (no network: cargo works from its cache).
pub fn rust_env() -> Vec<(String, OsString)> {
    let mut env: Vec<(String, OsString)> = [
        ("RUSTC", "rustc"),
        ("RUSTC_WRAPPER", ""),
        ("RUSTC_WORKSPACE_WRAPPER", ""),
        ("CARGO_BUILD_RUSTC", "rustc"),
        ("CARGO_BUILD_RUSTC_WRAPPER", ""),
        ("CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", ""),
        ("CARGO_NET_OFFLINE", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), OsString::from(v)))
    .collect();
    if let Some(toolchain) = pinned_toolchain() {
        env.push(("RUSTUP_TOOLCHAIN".to_owned(), toolchain.into()));
    }
    env
}

/// The toolchain rustup uses without any toolchain file: `RUSTUP_TOOLCHAIN` when this
/// process has it, else `rustup default`'s. `None` without rustup (no toolchain file is read
/// then).
fn pinned_toolchain() -> Option<String> {
    static PINNED: OnceLock<Option<String>> = OnceLock::new();
    PINNED
        .get_or_init(|| {
            if let Some(set) = std::env::var("RUSTUP_TOOLCHAIN")
                .ok()
                .filter(|v| !v.is_empty())
            {
                return Some(set);
            }
            let rustup = crate::servers::find_program("rustup")?;
            let out = std::process::Command::new(rustup)
                .arg("default")
                .current_dir("/")
                .env_remove("RUSTUP_TOOLCHAIN")
                .stdin(std::process::Stdio::null())
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stdout);
            // `stable-x86_64-unknown-linux-gnu (default)`
            let name = text.split_whitespace().next()?.to_owned();
            (out.status.success() && !name.is_empty()).then_some(name)
        })
        .clone()
}

/// The `tsserver.js` of the TypeScript installed beside typescript-language-server (as Node
/// resolves `typescript` from the server's own files): never one of the checkout's.
fn own_tsserver(program: &Path) -> Option<PathBuf> {
    let real = program.canonicalize().ok()?;
    real.ancestors().skip(1).find_map(|dir| {
        let candidate = dir.join("node_modules/typescript/lib/tsserver.js");
        candidate.is_file().then_some(candidate)
    })
}

/// `python3` (else `python`) on `PATH`, not inside `root`.
fn outside_python(root: &Path) -> Option<PathBuf> {
    let root = canonical(root);
    ["python3", "python"].into_iter().find_map(|name| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(name))
            .find(|candidate| {
                candidate.is_file()
                    && !canonical(candidate).starts_with(&root)
                    && !candidate.starts_with(&root)
            })
    })
}

/// `patch` merged into `base`: objects key by key, anything else replaced.
pub fn merge(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                merge(base.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
        (base, patch) => *base = patch.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_trusts_what_is_inside_its_directories() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("proj");
        std::fs::create_dir(&inner).unwrap();
        let policy = TrustPolicy::dirs([dir.path()]);
        assert_eq!(policy.of(&inner), Trust::Trusted);
        assert_eq!(policy.of(dir.path()), Trust::Trusted);
        let other = tempfile::tempdir().unwrap();
        assert_eq!(policy.of(other.path()), Trust::Untrusted);
        assert_eq!(TrustPolicy::nothing().of(&inner), Trust::Untrusted);
        assert_eq!(TrustPolicy::everything().of(other.path()), Trust::Trusted);
    }

    #[test]
    fn the_working_directory_project_is_its_worktree_and_never_home_or_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        let canonical_repo = repo.canonicalize().unwrap();
        assert_eq!(
            project_of(&repo.join("src/deep"), None),
            Some(canonical_repo.clone())
        );
        let plain = dir.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        assert_eq!(
            project_of(&plain, None),
            Some(plain.canonicalize().unwrap())
        );
        assert_eq!(project_of(Path::new("/"), None), None);
        assert_eq!(project_of(&repo, Some(&repo)), None);
    }

    #[test]
    fn patches_merge_key_by_key() {
        let mut base =
            json!({"cargo": {"buildScripts": {"enable": true}, "targetDir": true}, "x": 1});
        merge(
            &mut base,
            &json!({"cargo": {"buildScripts": {"enable": false}}, "procMacro": {"enable": false}}),
        );
        assert_eq!(
            base,
            json!({"cargo": {"buildScripts": {"enable": false}, "targetDir": true}, "x": 1, "procMacro": {"enable": false}})
        );
    }
}
