//! The one way this crate runs git: the user's `git` program, found once and checked to be
//! recent enough, started with an argument vector (never a shell) in a cleaned environment,
//! with the transport policy and low-speed limits of `transport`. A command that may talk to
//! a remote runs in its own process group under a `cancel::Watch` (deadline, cancellation);
//! every other command runs as a plain child, with nothing watching it.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::cancel::{Cancellation, Stop, Watch};
use crate::error::{Error, Result};
use crate::transport::{self, NetworkLimits, Transports};

/// A git version, as `git --version` prints it (`git version 2.47.3`,
/// `git version 2.39.2 (Apple Git-143)`, `git version 2.45.1.windows.1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    /// `merge-tree --write-tree` came in git 2.38.
    pub const MINIMUM: Version = Version {
        major: 2,
        minor: 38,
        patch: 0,
    };

    /// `merge-tree --merge-base` came in git 2.40.
    pub const MERGE_BASE: Version = Version {
        major: 2,
        minor: 40,
        patch: 0,
    };

    /// `git replay` came in git 2.44.
    pub const REPLAY: Version = Version {
        major: 2,
        minor: 44,
        patch: 0,
    };

    /// Reads the output of `git --version`; `None` when it holds no version.
    pub fn parse(output: &str) -> Option<Version> {
        let rest = output.trim().strip_prefix("git version ")?;
        let word = rest.split_whitespace().next()?;
        let mut numbers = word.split('.').map(|part| {
            // `2.45.1.windows.1`, `2.50.0-rc1`: the leading digits of each part.
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok()
        });
        let major = numbers.next()??;
        let minor = numbers.next()??;
        let patch = numbers.next().flatten().unwrap_or(0);
        Some(Version {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Variables that would send git to another repository, object store, index, config or
/// attribute source than the one it is run in (git's own list, `git rev-parse --local-env-vars`, plus the
/// namespace and pathspec switches). Every command starts without them; a test checks the
/// list still covers what the installed git names.
pub const CLEARED_VARIABLES: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
    "GIT_QUARANTINE_PATH",
    // Where attributes are read from (git 2.41): a merge names its own source.
    "GIT_ATTR_SOURCE",
];

/// The user's git, checked to be at least [`Version::MINIMUM`], with the transports its
/// commands may use and how long they may talk to a remote.
#[derive(Debug, Clone)]
pub struct Git {
    program: PathBuf,
    version: Version,
    transports: Transports,
    limits: NetworkLimits,
    /// Every command may fetch (a partial clone's lazy fetches), so every one is watched.
    fetches_lazily: bool,
}

impl Git {
    /// The `git` on `PATH`.
    pub fn find() -> Result<Git> {
        let name = format!("git{}", std::env::consts::EXE_SUFFIX);
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(&name))
                .find(|candidate| candidate.is_file())
        });
        match found {
            Some(program) => Git::at(program),
            None => Err(Error::GitMissing {
                program: PathBuf::from(name),
                reason: "no such program on PATH".to_string(),
            }),
        }
    }

    /// The git program at `program`.
    pub fn at(program: impl Into<PathBuf>) -> Result<Git> {
        let program = program.into();
        let unchecked = Git {
            program: program.clone(),
            version: Version::MINIMUM,
            transports: Transports::User,
            limits: NetworkLimits::DEFAULT,
            fetches_lazily: false,
        };
        let output = unchecked
            .command(None)
            .arg("--version")
            .output()
            .map_err(|error| Error::GitMissing {
                program: program.clone(),
                reason: error.to_string(),
            })?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() {
            return Err(Error::GitMissing {
                program,
                reason: format!(
                    "`--version` failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            });
        }
        let version = Version::parse(&text).ok_or(Error::UnknownVersion { output: text })?;
        if version < Version::MINIMUM {
            return Err(Error::GitTooOld {
                found: version,
                required: Version::MINIMUM,
                needed_for: "merge-tree --write-tree",
            });
        }
        Ok(Git {
            version,
            ..unchecked
        })
    }

    /// This git with other network limits (tests shorten them; the CLI reads
    /// `RESOLVE_PR_GIT_TIMEOUT` and `RESOLVE_PR_GIT_LOW_SPEED_TIME`).
    pub fn with_network_limits(mut self, limits: NetworkLimits) -> Git {
        self.limits = limits;
        self
    }

    pub fn network_limits(&self) -> NetworkLimits {
        self.limits
    }

    pub fn transports(&self) -> Transports {
        self.transports
    }

    /// This git for a repository or URL a forge named: https, http and ssh only, and every
    /// command watched, since any read may fetch the blobs a blobless clone lacks.
    pub(crate) fn for_forge(&self) -> Git {
        Git {
            transports: Transports::Forge,
            fetches_lazily: true,
            ..self.clone()
        }
    }

    /// This git for a repository whose reads may fetch lazily (a partial clone).
    pub(crate) fn fetching_lazily(&self) -> Git {
        Git {
            fetches_lazily: true,
            ..self.clone()
        }
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// Whether any command may fetch what the repository lacks (a partial clone, a forge
    /// clone): such a fetch runs under the user's configuration (credential helpers).
    pub(crate) fn fetches_lazily(&self) -> bool {
        self.fetches_lazily
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// [`Error::GitTooOld`] unless this git is at least `required` (for `needed_for`).
    pub(crate) fn require(&self, required: Version, needed_for: &'static str) -> Result<()> {
        if self.version < required {
            return Err(Error::GitTooOld {
                found: self.version,
                required,
                needed_for,
            });
        }
        Ok(())
    }

    /// A git command in `dir` (none: the current directory), with the cleaned environment:
    /// no variable of [`CLEARED_VARIABLES`], no terminal prompts, C locale (messages this
    /// crate may read are git's untranslated ones), no optional locks, stdin closed; the
    /// transports it may use and the low-speed limits ([`transport::apply`]).
    pub(crate) fn command(&self, dir: Option<&Path>) -> Command {
        let mut command = Command::new(&self.program);
        for name in CLEARED_VARIABLES {
            command.env_remove(name);
        }
        command
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("LC_ALL", "C")
            .env("LANGUAGE", "C")
            .stdin(Stdio::null());
        transport::apply(&mut command, self.transports, &self.limits);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        command
    }

    /// Runs git with `args` in `dir` (extra variables in `env`) and returns its output when
    /// it exits with one of `ok_statuses`, else [`Error::Failed`].
    pub(crate) fn run<I, S>(
        &self,
        dir: &Path,
        args: I,
        env: &[(&str, &OsStr)],
        ok_statuses: &[i32],
    ) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.run_with_input(dir, args, env, None, ok_statuses)
    }

    /// [`Git::run`] with `input` written to git's stdin (from a thread, so a git that writes
    /// while it reads never blocks on a full pipe).
    pub(crate) fn run_with_input<I, S>(
        &self,
        dir: &Path,
        args: I,
        env: &[(&str, &OsStr)],
        input: Option<&[u8]>,
        ok_statuses: &[i32],
    ) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let mut command = self.command(Some(dir));
        command.args(&args);
        for (name, value) in env {
            command.env(name, value);
        }
        if self.watches(&args) {
            let output = self.run_watched(&args, command, input)?;
            return Self::checked(&args, output, ok_statuses);
        }
        let output = match input {
            None => command.output(),
            Some(input) => {
                command
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                command.spawn().and_then(|mut child| {
                    let stdin = child.stdin.take();
                    std::thread::scope(|scope| {
                        if let Some(mut stdin) = stdin {
                            scope.spawn(move || {
                                use std::io::Write;
                                // git may exit before reading everything (an error); its
                                // status says so, not this write.
                                let _ = stdin.write_all(input);
                            });
                        }
                        child.wait_with_output()
                    })
                })
            }
        }
        .map_err(|source| self.io_error(source))?;
        Self::checked(&args, output, ok_statuses)
    }

    /// Whether the command `args` gets a process group and a watch: it talks to a remote,
    /// or this git's repository fetches lazily on any read.
    fn watches(&self, args: &[OsString]) -> bool {
        self.fetches_lazily || transport::is_network_command(args)
    }

    /// Runs `command` as the leader of a new process group, watched: the group is killed
    /// when the thread's [`Cancellation`] is set or the deadline passes, and that is the
    /// error. A cancelled call starts nothing.
    fn run_watched(
        &self,
        args: &[OsString],
        mut command: Command,
        input: Option<&[u8]>,
    ) -> Result<Output> {
        let cancellation = Cancellation::current();
        if cancellation.is_cancelled() {
            return Err(Error::Cancelled {
                command: describe(args),
            });
        }
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|source| self.io_error(source))?;
        let stdin = child.stdin.take();
        let watch = Watch::new(cancellation, child.id(), self.limits.deadline);
        let (output, stopped) = std::thread::scope(|scope| {
            if let (Some(mut stdin), Some(input)) = (stdin, input) {
                scope.spawn(move || {
                    use std::io::Write;
                    let _ = stdin.write_all(input);
                });
            }
            scope.spawn(|| watch.run());
            let output = child.wait_with_output();
            (output, watch.finish())
        });
        self.stopped(args, stopped)?;
        output.map_err(|source| self.io_error(source))
    }

    /// The error of a command the watch stopped.
    fn stopped(&self, args: &[OsString], stopped: Option<Stop>) -> Result<()> {
        match stopped {
            None => Ok(()),
            Some(Stop::Cancelled) => Err(Error::Cancelled {
                command: describe(args),
            }),
            Some(Stop::Deadline(after)) => Err(Error::TimedOut {
                command: describe(args),
                what: format!(
                    "it was still running after {} s, the limit for one git command that \
                     talks to a remote; it and its helpers were killed",
                    after.as_secs()
                ),
            }),
        }
    }

    /// Runs `first | second` (both git, in `dir`, with `env`), `input` on the first one's
    /// stdin; the pipe is made here, never by a shell. Returns the second one's output; a
    /// failure of either is [`Error::Failed`].
    pub(crate) fn pipe(
        &self,
        dir: &Path,
        first: &[&str],
        input: Option<&[u8]>,
        second: &[&str],
        env: &[(&str, &OsStr)],
    ) -> Result<Output> {
        let mut head = self.command(Some(dir));
        head.args(first)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if input.is_some() {
            head.stdin(Stdio::piped());
        }
        let mut tail = self.command(Some(dir));
        tail.args(second)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            head.env(name, value);
            tail.env(name, value);
        }
        // A pipe never talks to a remote itself, but in a partial clone either side may
        // fetch lazily: then both go into one watched process group.
        let watched = self.fetches_lazily;
        let cancellation = Cancellation::current();
        if watched && cancellation.is_cancelled() {
            return Err(Error::Cancelled {
                command: first.join(" "),
            });
        }
        #[cfg(unix)]
        if watched {
            std::os::unix::process::CommandExt::process_group(&mut head, 0);
        }
        let mut head = head.spawn().map_err(|source| self.io_error(source))?;
        #[cfg(unix)]
        if watched && let Ok(group) = i32::try_from(head.id()) {
            std::os::unix::process::CommandExt::process_group(&mut tail, group);
        }
        let watch = Watch::new(cancellation, head.id(), self.limits.deadline);
        let head_stdin = head.stdin.take();
        let head_stdout = head.stdout.take().expect("piped stdout");
        let mut head_stderr = head.stderr.take().expect("piped stderr");
        let tail = tail
            .stdin(Stdio::from(head_stdout))
            .spawn()
            .map_err(|source| self.io_error(source));
        let (tail_output, head_stderr_text, head_status, stopped) = std::thread::scope(|scope| {
            if let (Some(mut stdin), Some(input)) = (head_stdin, input) {
                scope.spawn(move || {
                    use std::io::Write;
                    let _ = stdin.write_all(input);
                });
            }
            if watched {
                scope.spawn(|| watch.run());
            }
            let stderr_reader = scope.spawn(move || {
                use std::io::Read;
                let mut text = Vec::new();
                let _ = head_stderr.read_to_end(&mut text);
                text
            });
            let output = tail.and_then(|tail| {
                tail.wait_with_output()
                    .map_err(|source| self.io_error(source))
            });
            let head_stderr_text = stderr_reader.join().unwrap_or_default();
            let head_status = head.wait();
            (output, head_stderr_text, head_status, watch.finish())
        });
        let args: Vec<OsString> = first.iter().map(OsString::from).collect();
        self.stopped(&args, stopped)?;
        let head_status = head_status.map_err(|source| self.io_error(source))?;
        let tail_output = tail_output?;
        if !head_status.success() {
            return Err(Error::Failed {
                command: first.join(" "),
                status: head_status.code(),
                stderr: String::from_utf8_lossy(&head_stderr_text)
                    .trim()
                    .to_string(),
            });
        }
        let args: Vec<OsString> = second.iter().map(OsString::from).collect();
        Self::checked(&args, tail_output, &[0])
    }

    fn io_error(&self, source: std::io::Error) -> Error {
        Error::Io {
            what: format!("starting {}", self.program.display()),
            source,
        }
    }

    fn checked(args: &[OsString], output: Output, ok_statuses: &[i32]) -> Result<Output> {
        match output.status.code() {
            Some(code) if ok_statuses.contains(&code) => Ok(output),
            status => Err(Error::Failed {
                command: describe(args),
                status,
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            }),
        }
    }
}

/// The command's arguments for an error message (lossy: for people, not for running), with
/// any password or token in a URL argument replaced by `***`.
pub(crate) fn describe(args: &[OsString]) -> String {
    args.iter()
        .map(|a| crate::remote::redacted(&a.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_of_every_platform() {
        let v = |major, minor, patch| Version {
            major,
            minor,
            patch,
        };
        assert_eq!(Version::parse("git version 2.47.3\n"), Some(v(2, 47, 3)));
        assert_eq!(
            Version::parse("git version 2.39.2 (Apple Git-143)"),
            Some(v(2, 39, 2))
        );
        assert_eq!(
            Version::parse("git version 2.45.1.windows.1"),
            Some(v(2, 45, 1))
        );
        assert_eq!(Version::parse("git version 2.50.0-rc1"), Some(v(2, 50, 0)));
        assert_eq!(Version::parse("git version 2.38"), Some(v(2, 38, 0)));
        assert_eq!(Version::parse("hub version 2.14.2"), None);
        assert_eq!(Version::parse("git version x"), None);
        assert!(v(2, 37, 9) < Version::MINIMUM);
        assert!(v(2, 38, 0) >= Version::MINIMUM);
        assert!(v(3, 0, 0) >= Version::MINIMUM);
    }
}
