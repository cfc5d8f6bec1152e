//! Which repository and checkout a call targets, shared by the PR, git and code tools: the
//! repository from the `repository`/`pr` arguments or a `directory`'s remotes (`target`),
//! and where the git tools find a pull request's commits: the user's checkout (the
//! `directory` argument, else the server's working directory, walked up to a repository one
//! of whose remotes is the PR's repository), else a managed blobless clone in the cache
//! directory. What is missing is fetched into `refs/resolve-pr/…` (`fetch`); the user's
//! branches, index and worktree are never touched. Git work runs off the runtime
//! (`blocking`). The code tools read the directory `workspace` names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, RepoRef, Result, ShellCommand};
use resolve_pr_forge::PullRequest;
use resolve_pr_git::{Git, NetworkLimits, Repository};

use crate::Context;

mod blocking;
mod fetch;
mod target;
mod workspace;

pub(crate) use blocking::blocking;
pub(crate) use fetch::{branch_ref, fetch_missing, fetch_with_heads, pull_ref};
pub(crate) use target::{pr_of_current_branch, pr_target, repo_target, resolve_pr};
pub(crate) use workspace::workspace;

/// Where the git tools work, set once per process.
#[derive(Debug, Clone, Default)]
pub struct LocalSettings {
    /// The git program; `None`: `git` on `PATH`.
    pub git: Option<PathBuf>,
    /// Where a call without `directory` looks for a checkout (the server's working
    /// directory); `None`: nowhere, always the cache.
    pub cwd: Option<PathBuf>,
    /// Where managed clones live (`$XDG_CACHE_HOME/resolve-pr/repos`, `~/.cache/…`).
    pub cache_dir: Option<PathBuf>,
    /// Where refactoring plans, journals and undo snapshots are kept
    /// (`$XDG_STATE_HOME/resolve-pr`, `~/.local/state/resolve-pr`); `None`: refactoring
    /// tools refuse to run.
    pub state_dir: Option<PathBuf>,
    /// Callers are not on this machine (the HTTP transport): the server's paths and git
    /// credentials are not theirs, so `directory` is refused, the server's working
    /// directory is not looked in, and nothing is pushed. Managed clones stay: a call reaches
    /// one only after its own token read the pull request from the forge.
    pub remote_callers: bool,
    /// How long git may talk to a remote: seconds of silence before an HTTP transfer is
    /// abandoned (`RESOLVE_PR_GIT_LOW_SPEED_TIME`, default 30) and the wall-clock limit of
    /// one git command that talks to a remote (`RESOLVE_PR_GIT_TIMEOUT`, default 600).
    pub network: NetworkLimits,
}

impl LocalSettings {
    /// The process's working directory, the user's cache directory and git's network
    /// limits, from `env`; a limit that is not a whole number of seconds (1 to 86400) is a
    /// `user` error naming the variable.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<LocalSettings> {
        let cache = env("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                env("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| Path::new(&h).join(".cache"))
            });
        // The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored.
        let state = env("XDG_STATE_HOME")
            .filter(|v| Path::new(v).is_absolute())
            .map(PathBuf::from)
            .or_else(|| {
                env("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| Path::new(&h).join(".local").join("state"))
            });
        let seconds = |name: &str| -> Result<Option<std::time::Duration>> {
            let Some(text) = env(name).filter(|v| !v.trim().is_empty()) else {
                return Ok(None);
            };
            text.trim()
                .parse::<u64>()
                .ok()
                .filter(|s| (1..=86_400).contains(s))
                .map(|s| Some(std::time::Duration::from_secs(s)))
                .ok_or_else(|| {
                    Error::user(format!(
                        "{name}: {text:?} is not a number of seconds (1 to 86400)"
                    ))
                    .with_suggestion(format!("Example: {name}=600"))
                })
        };
        let mut network = NetworkLimits::default();
        if let Some(deadline) = seconds("RESOLVE_PR_GIT_TIMEOUT")? {
            network.deadline = deadline;
        }
        if let Some(silence) = seconds("RESOLVE_PR_GIT_LOW_SPEED_TIME")? {
            network.low_speed_time = silence;
        }
        Ok(LocalSettings {
            git: env("RESOLVE_PR_GIT")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            cwd: std::env::current_dir().ok(),
            cache_dir: cache.map(|c| c.join("resolve-pr").join("repos")),
            state_dir: state.map(|s| s.join("resolve-pr")),
            remote_callers: false,
            network,
        })
    }

    /// These settings for callers on other machines (see `remote_callers`).
    pub fn for_remote_callers(self) -> LocalSettings {
        LocalSettings {
            cwd: None,
            remote_callers: true,
            ..self
        }
    }
}

/// A `directory` names a path on the server: refused when callers are remote.
pub(crate) fn refuse_server_path(settings: &LocalSettings, directory: Option<&str>) -> Result<()> {
    if settings.remote_callers && directory.is_some() {
        return Err(Error::user(
            "directory names a path on the server, which callers of a shared (HTTP) server \
             cannot use",
        )
        .with_detail("field", "directory")
        .with_suggestion("Give repository ('owner/repo') or pr ('owner/repo#123') instead."));
    }
    Ok(())
}

/// A repository to read a PR's commits from, and how to fetch into it.
pub(crate) struct Local {
    pub repo: Repository,
    /// The remote to fetch from: a remote's name in a checkout, the clone's `origin` in the
    /// cache.
    pub remote: String,
    /// Shown to the agent: which directory and remote.
    pub place: Place,
    /// Said to the agent when the choice needs explaining (a shallow checkout passed over).
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum Place {
    Checkout { dir: PathBuf, remote: String },
    Cache { dir: PathBuf },
}

impl Place {
    pub fn describe(&self) -> String {
        match self {
            Place::Checkout { dir, remote } => {
                format!("checkout {} (remote {remote})", dir.display())
            }
            Place::Cache { dir } => format!("managed clone {}", dir.display()),
        }
    }

    pub fn is_checkout(&self) -> bool {
        matches!(self, Place::Checkout { .. })
    }
}

/// The user's git, version checked (2.38 or later), with the settings' network limits.
pub(crate) fn git(ctx: &Context) -> Result<Git> {
    // The program's version is asked once per process and program, not at every call.
    static FOUND: std::sync::OnceLock<std::sync::Mutex<HashMap<Option<PathBuf>, Git>>> =
        std::sync::OnceLock::new();
    let found = FOUND.get_or_init(Default::default);
    let cached = found
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&ctx.local.git)
        .cloned();
    let git = match cached {
        Some(git) => git,
        None => {
            let git = match &ctx.local.git {
                Some(program) => Git::at(program.clone())?,
                None => Git::find()?,
            };
            found
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(ctx.local.git.clone(), git.clone());
            git
        }
    };
    Ok(git.with_network_limits(ctx.local.network))
}

/// `host[:port]` of a PR's web page: the host its repository's remotes name.
pub(crate) fn web_host(pr: &PullRequest) -> Option<String> {
    let url = url::Url::parse(&pr.html_url).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    Some(match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    })
}

/// The repository enclosing `dir` and its remotes, as [`Repository::discover`] and
/// [`Repository::remotes`] say, remembered per process: asked again only when the
/// repository's config (where remotes live) changed, or it became or stopped being shallow.
fn discover(
    git: &Git,
    dir: &Path,
) -> resolve_pr_git::Result<(Repository, Vec<resolve_pr_git::Remote>)> {
    type Stamp = (Option<std::time::SystemTime>, bool);
    type Found = (Repository, Vec<resolve_pr_git::Remote>, Stamp);
    static FOUND: std::sync::OnceLock<std::sync::Mutex<HashMap<(String, PathBuf), Found>>> =
        std::sync::OnceLock::new();
    let stamp = |repo: &Repository| -> Stamp {
        let common = repo.objects_dir().parent().unwrap_or(repo.git_dir());
        let config = std::fs::metadata(common.join("config"))
            .and_then(|m| m.modified())
            .ok();
        (config, common.join("shallow").exists())
    };
    // The program and its settings (network limits) as given, and the directory.
    let key = (format!("{git:?}"), dir.to_path_buf());
    let cache = FOUND.get_or_init(Default::default);
    if let Some((repo, remotes, seen)) = cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .cloned()
        && stamp(&repo) == seen
        && seen.0.is_some()
    {
        return Ok((repo, remotes));
    }
    let repo = Repository::discover(git, dir)?;
    let remotes = repo.remotes()?;
    let seen = stamp(&repo);
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, (repo.clone(), remotes.clone(), seen));
    Ok((repo, remotes))
}

/// Finds the repository for `pr` (already read from the forge).
pub(crate) fn locate(
    git: &Git,
    settings: &LocalSettings,
    directory: Option<&str>,
    pr: &PullRequest,
    repo: &RepoRef,
) -> Result<Local> {
    refuse_server_path(settings, directory)?;
    let host = web_host(pr).unwrap_or_default();
    let full = format!("{}/{}", repo.owner, repo.repo);
    if let Some(dir) = directory {
        let dir = PathBuf::from(dir);
        let (found, remotes) = discover(git, &dir).map_err(|e| {
            Error::from(e).with_suggestion(
                "directory must be inside a clone of the pull request's repository; leave it out \
                 to use the server's working directory or a managed clone.",
            )
        })?;
        let remote = resolve_pr_git::pick_remote(remotes.clone(), &host, &repo.owner, &repo.repo);
        let Some(remote) = remote else {
            let remotes: Vec<String> = remotes
                .into_iter()
                .map(|r| format!("{} {}", r.name, r.url))
                .collect();
            // Suggested only for a URL a managed clone would follow too.
            let forge_url = pr
                .base_clone_url
                .as_deref()
                .filter(|url| resolve_pr_git::check_forge_url(url).is_ok());
            let add = forge_url.and_then(|url| {
                ShellCommand::new("git")
                    .args(["remote", "add", "resolve-pr-upstream", url])
                    .render()
                    .ok()
            });
            let mut error = Error::user(format!(
                "no remote of the repository at {} points at {full} on {host}",
                dir.display()
            ))
            .with_detail("remotes", remotes);
            error = match add {
                Some(cmd) => error.with_suggestion(format!(
                    "Add one (`{cmd}`), give the directory of a clone of {full}, or leave \
                     directory out to use a managed clone."
                )),
                None => error.with_suggestion(format!(
                    "Give the directory of a clone of {full}, or leave directory out to use a \
                     managed clone."
                )),
            };
            return Err(error);
        };
        if found.is_shallow() {
            let unshallow = ShellCommand::new("git")
                .args(["fetch", "--unshallow", "--end-of-options", &remote.name])
                .render()
                .unwrap_or_default();
            return Err(Error::logical(format!(
                "the repository at {} is a shallow clone: it may lack the commits a merge \
                 needs (the merge base)",
                dir.display()
            ))
            .with_suggestion(format!(
                "Deepen it (`{unshallow}`), or leave directory out to use a managed clone."
            )));
        }
        let place = Place::Checkout {
            dir: found.workdir().unwrap_or(found.git_dir()).to_path_buf(),
            remote: remote.name.clone(),
        };
        return Ok(Local {
            repo: found,
            remote: remote.name,
            place,
            note: None,
        });
    }
    let mut note = None;
    if let Some(cwd) = &settings.cwd
        && let Ok((found, remotes)) = discover(git, cwd)
        && let Some(remote) = resolve_pr_git::pick_remote(remotes, &host, &repo.owner, &repo.repo)
    {
        if !found.is_shallow() {
            let place = Place::Checkout {
                dir: found.workdir().unwrap_or(found.git_dir()).to_path_buf(),
                remote: remote.name.clone(),
            };
            return Ok(Local {
                repo: found,
                remote: remote.name,
                place,
                note: None,
            });
        }
        note = Some(format!(
            "The checkout at {} is shallow, so a managed clone was used instead.",
            cwd.display()
        ));
    }
    let Some(url) = pr.base_clone_url.as_deref() else {
        return Err(Error::logical(format!(
            "no local clone of {full} was found and the forge gave no clone URL for it"
        ))
        .with_suggestion("Give directory: a clone of the pull request's repository."));
    };
    let Some(cache) = &settings.cache_dir else {
        return Err(Error::logical(format!(
            "no local clone of {full} was found, and there is no cache directory for a managed \
             clone (neither XDG_CACHE_HOME nor HOME is set)"
        ))
        .with_suggestion("Give directory: a clone of the pull request's repository."));
    };
    let clone = resolve_pr_git::open_cache(git, cache, url)?;
    let place = Place::Cache {
        dir: clone.git_dir().to_path_buf(),
    };
    Ok(Local {
        repo: clone,
        remote: "origin".to_owned(),
        place,
        note,
    })
}

/// The user's own checkout of the PR's repository (`directory`, else the server's working
/// directory), never a managed clone: for a tool that merges locally only to fill a gap in
/// what the forge said, where cloning a whole repository would cost more than the answer.
/// `None` when there is none.
pub(crate) fn checkout(
    git: &Git,
    settings: &LocalSettings,
    directory: Option<&str>,
    pr: &PullRequest,
    repo: &RepoRef,
) -> Result<Option<Local>> {
    if directory.is_some() {
        return locate(git, settings, directory, pr, repo).map(Some);
    }
    let host = web_host(pr).unwrap_or_default();
    if let Some(cwd) = &settings.cwd
        && let Ok((found, remotes)) = discover(git, cwd)
        && !found.is_shallow()
        && let Some(remote) = resolve_pr_git::pick_remote(remotes, &host, &repo.owner, &repo.repo)
    {
        let place = Place::Checkout {
            dir: found.workdir().unwrap_or(found.git_dir()).to_path_buf(),
            remote: remote.name.clone(),
        };
        return Ok(Some(Local {
            repo: found,
            remote: remote.name,
            place,
            note: None,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn git_network_limits_come_from_the_environment() {
        let env = |timeout: &'static str| {
            move |k: &str| match k {
                "RESOLVE_PR_GIT_TIMEOUT" => Some(timeout.to_owned()),
                "RESOLVE_PR_GIT_LOW_SPEED_TIME" => Some("5".to_owned()),
                _ => None,
            }
        };
        let settings = LocalSettings::from_env(&env("120")).unwrap();
        assert_eq!(settings.network.deadline, Duration::from_secs(120));
        assert_eq!(settings.network.low_speed_time, Duration::from_secs(5));
        let defaults = LocalSettings::from_env(&|_| None).unwrap();
        assert_eq!(defaults.network, NetworkLimits::default());
        for bad in ["0", "ten", "-1", "100000"] {
            let error = LocalSettings::from_env(&env(bad)).unwrap_err();
            assert!(
                error.error.contains("RESOLVE_PR_GIT_TIMEOUT"),
                "{bad}: {error:?}"
            );
        }
    }
}
