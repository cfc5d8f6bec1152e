//! What went wrong running git, in this crate's own terms: the variant says what happened
//! (no git, too old a git, not a repository, a revision that names no commit, a conflict, a
//! rejected push, an unreachable remote, git failing), so callers decide by matching a
//! variant, never by reading an error's text. The one conversion to the agents' error model,
//! [`resolve_pr_core::Error`], is at the bottom.
//!
//! One place reads git's text: where a fetch, push or clone fails, [`network_or_failed`]
//! tells an unreachable remote ([`Error::Network`]), a silent one ([`Error::TimedOut`]) and
//! a transport git's protocol policy refused ([`Error::RefusedUrl`]) from any other failure
//! by git's exit status and its (untranslated, `LC_ALL=C`) stderr. Nothing else classifies by
//! text.

use std::path::PathBuf;

use resolve_pr_core::Category;

use crate::Version;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How much of git's stderr an agent error carries.
const STDERR_LIMIT: usize = 2048;

/// An error of the git layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No git program could be started: not on `PATH`, or the given path is not one.
    #[error("git was not found ({program}): {reason}; install git 2.38 or later")]
    GitMissing { program: PathBuf, reason: String },
    /// The git found is older than this crate (or one of its operations) needs.
    #[error("git {found} is too old: git {required} or later is needed for `git {needed_for}`")]
    GitTooOld {
        found: Version,
        required: Version,
        /// The command or option that needs the newer git (`merge-tree --write-tree`).
        needed_for: &'static str,
    },
    /// `git --version` printed something that is not a version.
    #[error("`git --version` printed no version this crate understands: {output:?}")]
    UnknownVersion { output: String },
    /// The directory is not inside a git repository (or does not exist).
    #[error("{} is not inside a git repository", dir.display())]
    NotARepository { dir: PathBuf },
    /// A revision that names no commit in the repository (unknown, or not fetched).
    #[error("{revision:?} does not name a commit in this repository")]
    BadRevision { revision: String },
    /// A path that the merge did not leave conflicted (asked for its hunks).
    #[error("{path:?} is not a conflicted file of this merge")]
    NotConflicted { path: String },
    /// The arguments cannot be used as given (a branch name git refuses, a fetch destination
    /// outside `refs/resolve-pr/`, too many commits); nothing was run.
    #[error("{what}")]
    Usage { what: String },
    /// The two commits of a merge share no commit: one was started from another history, or
    /// the other's history was rewritten (`git merge-tree` refuses them).
    #[error(
        "{theirs} and {ours} have no commit in common (unrelated histories): the branch was \
         started from another history than the one it merges into, or that history was \
         rewritten, so git cannot merge them"
    )]
    UnrelatedHistories { ours: String, theirs: String },
    /// The repository is a shallow clone and lacks history the operation needs.
    #[error("the repository is a shallow clone and lacks the history to {what}")]
    Shallow { what: String },
    /// Replaying a branch stopped on a commit that does not apply: nothing was written.
    #[error("replaying {branch:?} stops at commit {commit} with conflicts in {}", files.join(", "))]
    Conflict {
        branch: String,
        commit: String,
        files: Vec<String>,
    },
    /// The remote refused a push (a lease that no longer holds, a protected branch, a hook).
    /// With `--atomic` nothing was updated.
    #[error("the push of {branch:?} was rejected: {reason}")]
    PushRejected { branch: String, reason: String },
    /// A fetch, push or clone could not reach the remote.
    #[error("`git {command}` could not reach the remote: {stderr}")]
    Network { command: String, stderr: String },
    /// A URL this crate will not hand to git: from a forge, anything but https, http and ssh
    /// (`ext::`, `fd::`, `file://`, a local path, an option); anywhere, `ext::` and `fd::`.
    /// Refused before git runs, or by git's own protocol policy (`transport 'fd' not
    /// allowed`); nothing was fetched.
    #[error("the remote {remote:?} was refused: {reason}")]
    RefusedUrl {
        /// The URL (any password or token replaced by `***`), or the remote's name.
        remote: String,
        reason: String,
    },
    /// A command that talks to a remote ran out of time: the remote went silent for the
    /// low-speed time (git gave up), or the command outlived its deadline (killed with its
    /// process group).
    #[error("`git {command}` timed out: {what}")]
    TimedOut { command: String, what: String },
    /// The caller gave up (its [`crate::Cancellation`] was set): the command and its helpers
    /// were killed, or it never started.
    #[error("`git {command}` was cancelled; it and its helpers were stopped")]
    Cancelled { command: String },
    /// A fetch named a ref the remote does not have (a branch that does not exist).
    #[error("the remote has no {what}: `git {command}` said {stderr}")]
    MissingRemoteRef {
        command: String,
        what: String,
        stderr: String,
    },
    /// The remote wants credentials git does not have (prompts are off), refused them, or
    /// hides the repository from them ("Repository not found").
    #[error("`git {command}` was refused by the remote (credentials): {stderr}")]
    Auth { command: String, stderr: String },
    /// git ran and failed: its exit status (`None` when a signal ended it) and its stderr.
    #[error("`git {command}` failed (exit status {}): {stderr}", status.map_or("none".to_string(), |s| s.to_string()))]
    Failed {
        command: String,
        status: Option<i32>,
        stderr: String,
    },
    /// git succeeded but printed something this crate cannot read.
    #[error("`git {command}` printed output this crate cannot read: {what}")]
    UnexpectedOutput { command: String, what: String },
    /// An operating-system error around git: starting it, making a scratch directory.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn usage(what: impl Into<String>) -> Error {
        Error::Usage { what: what.into() }
    }

    fn category(&self) -> Category {
        match self {
            Error::GitMissing { .. } | Error::GitTooOld { .. } | Error::UnknownVersion { .. } => {
                Category::Logical
            }
            Error::NotARepository { .. }
            | Error::BadRevision { .. }
            | Error::NotConflicted { .. }
            | Error::Usage { .. }
            | Error::Shallow { .. }
            | Error::UnrelatedHistories { .. } => Category::User,
            Error::Conflict { .. } | Error::PushRejected { .. } => Category::Logical,
            Error::Network { .. } => Category::Network,
            Error::TimedOut { .. } => Category::Timeout,
            Error::RefusedUrl { .. } => Category::Logical,
            Error::Cancelled { .. } => Category::Unknown,
            Error::Auth { .. } => Category::Authentication,
            Error::MissingRemoteRef { .. } => Category::User,
            Error::Failed { .. } | Error::UnexpectedOutput { .. } | Error::Io { .. } => {
                Category::Unknown
            }
        }
    }

    fn suggestion(&self) -> Option<String> {
        let text = match self {
            Error::GitMissing { .. } => {
                "Install git 2.38 or later (2.44 or later for worktree-free restacks) and put it on PATH.".to_string()
            }
            Error::GitTooOld { required, .. } => format!(
                "Upgrade git to {required} or later (2.44 or later does everything this tool does)."
            ),
            Error::UnknownVersion { .. } => {
                "Check that the program on PATH named git is git 2.38 or later.".to_string()
            }
            Error::NotARepository { .. } => {
                "Pass a directory inside a clone of the pull request's repository.".to_string()
            }
            Error::BadRevision { .. } => {
                "Fetch the commit first (or check the revision's spelling).".to_string()
            }
            Error::UnrelatedHistories { ours, .. } => format!(
                "Check that the target branch is the right one (a branch recreated or \
                 force-pushed from scratch has a new history). If it is, replay the branch's \
                 commits onto it: `git rebase --root --onto {ours}` on the branch, then push \
                 with --force-with-lease."
            ),
            Error::Shallow { .. } => {
                "Deepen the clone (`git fetch --unshallow`) and try again.".to_string()
            }
            Error::Conflict { .. } => {
                "Resolve the conflict by hand (rebase the branch locally), or restack onto another base.".to_string()
            }
            Error::PushRejected { .. } => {
                "Someone pushed to the branch meanwhile: fetch, look at the new commits, and plan again.".to_string()
            }
            Error::Network { .. } => {
                "Check the network and the remote's URL and credentials, then retry.".to_string()
            }
            Error::RefusedUrl { .. } => {
                "resolve-pr follows a forge's URLs only over https, http or ssh, and never the \
                 `ext::` or `fd::` transports: clone the repository yourself over https or ssh \
                 and pass its directory."
                    .to_string()
            }
            Error::TimedOut { .. } => {
                "The remote accepted the connection but stopped answering (or sends too \
                 slowly): check that it works (`git ls-remote` with its URL in a terminal) and \
                 retry. A first clone of a very large repository may need more time: \
                 RESOLVE_PR_GIT_TIMEOUT (seconds for one git command that talks to a remote, \
                 default 600) and RESOLVE_PR_GIT_LOW_SPEED_TIME (seconds without data, default \
                 30) raise the limits."
                    .to_string()
            }
            Error::MissingRemoteRef { .. } => {
                "Check the branch name: it must exist on the remote (as the forge shows it).".to_string()
            }
            Error::Auth { .. } => {
                "git needs credentials for this remote and resolve-pr never hands it a token: set \
                 up a credential helper (for GitHub, `gh auth setup-git`) or an SSH remote, \
                 check that `git fetch` works in a terminal, then retry."
                    .to_string()
            }
            _ => return None,
        };
        Some(text)
    }

    fn details(&self) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::Value;
        match self {
            Error::GitMissing { program, .. } => {
                vec![("program", Value::from(program.display().to_string()))]
            }
            Error::GitTooOld {
                found,
                required,
                needed_for,
            } => vec![
                ("found", Value::from(found.to_string())),
                ("required", Value::from(required.to_string())),
                ("needed_for", Value::from(*needed_for)),
            ],
            Error::NotARepository { dir } => {
                vec![("dir", Value::from(dir.display().to_string()))]
            }
            Error::BadRevision { revision } => vec![("revision", Value::from(revision.as_str()))],
            Error::NotConflicted { path } => vec![("path", Value::from(path.as_str()))],
            Error::UnrelatedHistories { ours, theirs } => vec![
                ("ours", Value::from(ours.as_str())),
                ("theirs", Value::from(theirs.as_str())),
            ],
            Error::Conflict {
                branch,
                commit,
                files,
            } => vec![
                ("branch", Value::from(branch.as_str())),
                ("commit", Value::from(commit.as_str())),
                ("files", Value::from(files.clone())),
            ],
            Error::PushRejected { branch, reason } => vec![
                ("branch", Value::from(branch.as_str())),
                ("reason", Value::from(reason.as_str())),
            ],
            Error::RefusedUrl { remote, reason } => vec![
                ("remote", Value::from(remote.as_str())),
                ("reason", Value::from(reason.as_str())),
            ],
            Error::TimedOut { command, .. } | Error::Cancelled { command } => {
                vec![("command", Value::from(command.as_str()))]
            }
            Error::Network { command, stderr }
            | Error::Auth { command, stderr }
            | Error::MissingRemoteRef {
                command, stderr, ..
            } => vec![
                ("command", Value::from(command.as_str())),
                ("stderr", Value::from(cut(stderr))),
            ],
            Error::Failed {
                command,
                status,
                stderr,
            } => vec![
                ("command", Value::from(command.as_str())),
                ("status", status.map_or(Value::Null, Value::from)),
                ("stderr", Value::from(cut(stderr))),
            ],
            Error::UnexpectedOutput { command, .. } => {
                vec![("command", Value::from(command.as_str()))]
            }
            _ => Vec::new(),
        }
    }
}

/// The first [`STDERR_LIMIT`] bytes of `text` (at a character boundary), marked when cut.
fn cut(text: &str) -> String {
    if text.len() <= STDERR_LIMIT {
        return text.to_string();
    }
    let mut end = STDERR_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// A failed fetch, push or clone: [`Error::TimedOut`] when git gave up on a silent remote
/// (low-speed limit), [`Error::RefusedUrl`] when git's protocol policy refused the transport,
/// [`Error::Auth`] when git exited 128 saying the remote wants or refused credentials,
/// [`Error::Network`] when it could not reach or talk to the remote (phrases of git's C-locale
/// transport errors), else the error unchanged. The only place this crate reads git's text to decide a variant.
pub(crate) fn network_or_failed(error: Error, remote: &str) -> Error {
    const UNREACHABLE: &[&str] = &[
        "Could not resolve host",
        "Could not resolve hostname",
        "unable to access",
        "Could not read from remote repository",
        "Connection refused",
        "Connection timed out",
        "Connection reset",
        "Operation timed out",
        "Failed to connect",
        "Network is unreachable",
        "No route to host",
        "the remote end hung up unexpectedly",
        "early EOF",
        "unable to connect",
        "Temporary failure in name resolution",
    ];
    // Credentials first: git words a refused login as "unable to access … 403" too.
    const REFUSED: &[&str] = &[
        "could not read Username",
        "could not read Password",
        "terminal prompts disabled",
        "Authentication failed",
        "Repository not found",
        "Permission denied (publickey",
        "The requested URL returned error: 401",
        "The requested URL returned error: 403",
    ];
    match error {
        // `http.lowSpeedTime` passed with less than `http.lowSpeedLimit` a second (curl's
        // "Operation too slow"): the remote went silent.
        Error::Failed {
            command,
            status: Some(128),
            stderr,
        } if stderr.contains("Operation too slow") => {
            let said = stderr
                .lines()
                .find(|l| l.contains("Operation too slow"))
                .unwrap_or("")
                .trim()
                .to_string();
            Error::TimedOut {
                command,
                what: format!("the remote sent (almost) nothing for the low-speed time: {said}"),
            }
        }
        // git's own protocol policy (`GIT_ALLOW_PROTOCOL`, `protocol.<name>.allow`).
        Error::Failed {
            status: Some(128),
            stderr,
            ..
        } if stderr.contains("transport '") && stderr.contains("' not allowed") => {
            let name = stderr
                .split("transport '")
                .nth(1)
                .and_then(|rest| rest.split('\'').next())
                .unwrap_or("")
                .to_string();
            Error::RefusedUrl {
                remote: crate::remote::redacted(remote),
                reason: format!("git's protocol policy does not allow the `{name}` transport here"),
            }
        }
        Error::Failed {
            command,
            status: Some(128),
            stderr,
        } if stderr.contains("couldn't find remote ref") => {
            let what = stderr
                .split("couldn't find remote ref")
                .nth(1)
                .map(|rest| rest.lines().next().unwrap_or("").trim())
                .filter(|r| !r.is_empty())
                .map_or_else(|| "such ref".to_string(), |r| format!("ref {r}"));
            Error::MissingRemoteRef {
                command,
                what,
                stderr,
            }
        }
        Error::Failed {
            command,
            status: Some(128),
            stderr,
        } if REFUSED.iter().any(|phrase| stderr.contains(phrase)) => {
            Error::Auth { command, stderr }
        }
        Error::Failed {
            command,
            status: Some(128),
            stderr,
        } if UNREACHABLE.iter().any(|phrase| stderr.contains(phrase)) => {
            Error::Network { command, stderr }
        }
        other => other,
    }
}

/// The one way a git error becomes the error agents see; `?` applies it where a tool returns.
impl From<Error> for resolve_pr_core::Error {
    fn from(e: Error) -> Self {
        let mut agent = resolve_pr_core::Error::new(e.category(), e.to_string());
        if let Some(suggestion) = e.suggestion() {
            agent = agent.with_suggestion(suggestion);
        }
        for (key, value) in e.details() {
            agent = agent.with_detail(key, value);
        }
        agent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_core::Error as Agent;

    fn failed(status: Option<i32>, stderr: &str) -> Error {
        Error::Failed {
            command: "fetch origin".into(),
            status,
            stderr: stderr.into(),
        }
    }

    /// Every variant, with the category it must carry; a new variant fails to compile in
    /// `category` until it is placed, and this list names the placement.
    #[test]
    fn every_variant_has_its_category() {
        let v = Version {
            major: 2,
            minor: 39,
            patch: 0,
        };
        let io = || std::io::Error::other("disk full");
        let cases: Vec<(Error, Category)> = vec![
            (
                Error::GitMissing {
                    program: "git".into(),
                    reason: "no such program".into(),
                },
                Category::Logical,
            ),
            (
                Error::GitTooOld {
                    found: v,
                    required: Version::MINIMUM,
                    needed_for: "replay",
                },
                Category::Logical,
            ),
            (
                Error::UnknownVersion { output: "x".into() },
                Category::Logical,
            ),
            (Error::NotARepository { dir: "/x".into() }, Category::User),
            (
                Error::BadRevision {
                    revision: "x".into(),
                },
                Category::User,
            ),
            (Error::NotConflicted { path: "p".into() }, Category::User),
            (Error::usage("bad name"), Category::User),
            (Error::Shallow { what: "x".into() }, Category::User),
            (
                Error::UnrelatedHistories {
                    ours: "a".into(),
                    theirs: "b".into(),
                },
                Category::User,
            ),
            (
                Error::Conflict {
                    branch: "b".into(),
                    commit: "c".into(),
                    files: vec!["f".into()],
                },
                Category::Logical,
            ),
            (
                Error::PushRejected {
                    branch: "b".into(),
                    reason: "stale info".into(),
                },
                Category::Logical,
            ),
            (
                Error::Network {
                    command: "fetch".into(),
                    stderr: "x".into(),
                },
                Category::Network,
            ),
            (
                Error::Auth {
                    command: "fetch".into(),
                    stderr: "x".into(),
                },
                Category::Authentication,
            ),
            (
                Error::RefusedUrl {
                    remote: "fd::0".into(),
                    reason: "x".into(),
                },
                Category::Logical,
            ),
            (
                Error::TimedOut {
                    command: "clone".into(),
                    what: "x".into(),
                },
                Category::Timeout,
            ),
            (
                Error::Cancelled {
                    command: "clone".into(),
                },
                Category::Unknown,
            ),
            (failed(Some(1), "x"), Category::Unknown),
            (
                Error::UnexpectedOutput {
                    command: "c".into(),
                    what: "w".into(),
                },
                Category::Unknown,
            ),
            (
                Error::Io {
                    what: "w".into(),
                    source: io(),
                },
                Category::Unknown,
            ),
        ];
        for (error, category) in cases {
            let text = error.to_string();
            let agent = Agent::from(error);
            assert_eq!(agent.category, category, "{text}");
            assert_eq!(agent.error, text);
        }
    }

    #[test]
    fn too_old_names_both_versions_and_suggests_an_upgrade() {
        let agent = Agent::from(Error::GitTooOld {
            found: Version {
                major: 2,
                minor: 39,
                patch: 1,
            },
            required: Version {
                major: 2,
                minor: 40,
                patch: 0,
            },
            needed_for: "merge-tree --merge-base",
        });
        assert!(agent.error.contains("2.39.1") && agent.error.contains("2.40.0"));
        assert!(agent.suggestion.unwrap().contains("2.40.0"));
        let details = agent.details.unwrap();
        assert_eq!(details["needed_for"], "merge-tree --merge-base");
        let missing = Agent::from(Error::GitMissing {
            program: "git".into(),
            reason: "x".into(),
        });
        assert!(missing.suggestion.unwrap().contains("2.38"));
    }

    #[test]
    fn failures_carry_command_status_and_stderr_cut_to_two_kilobytes() {
        let long = "é".repeat(3000);
        let agent = Agent::from(failed(Some(128), &long));
        let details = agent.details.unwrap();
        assert_eq!(details["command"], "fetch origin");
        assert_eq!(details["status"], 128);
        let stderr = details["stderr"].as_str().unwrap();
        assert!(
            stderr.len() <= STDERR_LIMIT + '…'.len_utf8(),
            "{}",
            stderr.len()
        );
        assert!(stderr.ends_with('…'));
        let agent = Agent::from(failed(None, "killed"));
        assert_eq!(agent.details.unwrap()["status"], serde_json::Value::Null);
    }

    #[test]
    fn only_an_unreachable_remote_is_a_network_error() {
        let unreachable = network_or_failed(
            failed(
                Some(128),
                "fatal: unable to access 'https://example.invalid/o/r/': Could not resolve host: example.invalid",
            ),
            "origin",
        );
        assert!(
            matches!(unreachable, Error::Network { .. }),
            "{unreachable:?}"
        );
        let hung_up = network_or_failed(
            failed(Some(128), "fatal: Could not read from remote repository."),
            "origin",
        );
        assert!(matches!(hung_up, Error::Network { .. }));
        // A missing ref is the caller's input, not the network.
        let missing = network_or_failed(
            failed(Some(128), "fatal: couldn't find remote ref refs/heads/nope"),
            "origin",
        );
        assert!(
            matches!(&missing, Error::MissingRemoteRef { what, .. } if what == "ref refs/heads/nope"),
            "{missing:?}"
        );
        assert_eq!(
            resolve_pr_core::Error::from(missing).category,
            Category::User
        );
        // Another failure, or the same words with another status, stays a failure.
        let other = network_or_failed(failed(Some(128), "fatal: something else broke"), "origin");
        assert!(matches!(other, Error::Failed { .. }));
        let status = network_or_failed(failed(Some(1), "Could not resolve host: x"), "origin");
        assert!(matches!(status, Error::Failed { .. }));
    }

    #[test]
    fn a_silent_remote_is_a_timeout_and_a_refused_transport_says_so() {
        let silent = network_or_failed(
            failed(
                Some(128),
                "fatal: unable to access 'http://127.0.0.1:9/o/r.git/': Operation too slow. Less than 1 bytes/sec transferred the last 30 seconds",
            ),
            "origin",
        );
        assert!(
            matches!(&silent, Error::TimedOut { what, .. } if what.contains("30 seconds")),
            "{silent:?}"
        );
        let refused = network_or_failed(
            failed(Some(128), "fatal: transport 'fd' not allowed"),
            "https://bot:ghp_secret@example.com/o/r",
        );
        match &refused {
            Error::RefusedUrl { remote, reason } => {
                assert!(reason.contains("`fd`"), "{reason}");
                assert!(!remote.contains("ghp_secret"), "{remote}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_remote_that_wants_or_refuses_credentials_is_an_authentication_error() {
        for stderr in [
            "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
            "remote: Repository not found.\nfatal: repository 'https://github.com/o/private.git/' not found",
            "fatal: unable to access 'https://ghe.example.com/o/r.git/': The requested URL returned error: 403",
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
            "remote: Invalid username or token.\nfatal: Authentication failed for 'https://github.com/o/r.git/'",
        ] {
            let e = network_or_failed(failed(Some(128), stderr), "origin");
            assert!(matches!(e, Error::Auth { .. }), "{stderr}: {e:?}");
            let agent = resolve_pr_core::Error::from(e);
            assert_eq!(agent.category, Category::Authentication);
            assert!(agent.suggestion.unwrap().contains("credential helper"));
        }
    }
}
