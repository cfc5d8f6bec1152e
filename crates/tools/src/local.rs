//! Where the git tools find a pull request's commits: the user's checkout (the `directory`
//! argument, else the server's working directory, walked up to a repository one of whose
//! remotes is the PR's repository), else a managed blobless clone in the cache directory.
//! What is missing is fetched into `refs/resolve-pr/…`; the user's branches, index and
//! worktree are never touched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, PrRef, RepoRef, Result, ShellCommand};
use resolve_pr_forge::{PullFilter, PullListState, PullRequest};
use resolve_pr_git::{Cancellation, Git, NetworkLimits, Repository};

use crate::Context;

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

/// How often a call doing long git work (a first clone of a large repository) tells the
/// client it is alive: clients on the TypeScript SDK end a call after 60 s without progress.
pub(crate) const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs blocking git work off the async runtime, reporting progress (`what`, and how long it
/// has run) every [`PROGRESS_EVERY`] while it runs, when the caller asked for progress. When
/// the call is cancelled (this future dropped), the git commands talking to a remote are
/// killed with their helpers and no further one starts; the work then ends on its own.
pub(crate) async fn blocking<T, F>(ctx: &Context, what: &str, f: F) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    blocking_every(ctx, what, PROGRESS_EVERY, f).await
}

async fn blocking_every<T, F>(
    ctx: &Context,
    what: &str,
    every: std::time::Duration,
    f: F,
) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    let cancellation = Cancellation::new();
    let _cancel_on_drop = CancelOnDrop(cancellation.clone());
    let mut work = tokio::task::spawn_blocking(move || {
        let _entered = cancellation.enter();
        f()
    });
    let mut ticks = 0u32;
    loop {
        tokio::select! {
            done = &mut work => {
                return done.map_err(|e| {
                    Error::unknown(format!("the git work stopped unexpectedly: {e}"))
                })?;
            }
            () = tokio::time::sleep(every) => {
                ticks += 1;
                let seconds = (every * ticks).as_secs();
                ctx.report_progress(f64::from(ticks), None, format!("{what} ({seconds} s)")).await;
            }
        }
    }
}

/// Cancels the git work of [`blocking_every`] when its future is dropped (after the work has
/// finished, that changes nothing).
struct CancelOnDrop(Cancellation);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
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

/// The ref a PR's head is fetched into.
pub(crate) fn pull_ref(number: u64) -> String {
    format!("refs/resolve-pr/pull/{number}/head")
}

/// The ref a branch of the PR's repository is fetched into.
pub(crate) fn branch_ref(branch: &str) -> String {
    format!("refs/resolve-pr/heads/{branch}")
}

fn head_ids<'a>(prs: &[&'a PullRequest]) -> Vec<&'a str> {
    prs.iter().map(|p| p.head_sha.as_str()).collect()
}

/// Every head of `prs` is here after a fetch; else a `logical` error naming the first that
/// is not (one `git cat-file --batch-check`).
fn heads_fetched(local: &Local, prs: &[&PullRequest]) -> Result<()> {
    let present = local.repo.have_commits(&head_ids(prs))?;
    if let Some((pr, _)) = prs.iter().zip(present).find(|(_, present)| !present) {
        return Err(Error::logical(format!(
            "the head commit {} of pull request #{} could not be fetched from {}",
            pr.head_sha,
            pr.number,
            local.place.describe()
        ))
        .with_suggestion("The branch may have been force-pushed since; call again."));
    }
    Ok(())
}

/// The commit of each branch of `branches`, and every PR head of `prs` present, fetching only
/// what is missing: a branch comes with the commit the forge says it is at now (`None`:
/// unknown), and when that commit and every PR head are in the repository already, no git
/// talks to the remote. What is fetched goes into refs of this call only
/// (`refs/resolve-pr/fetch/<pid>-<n>/`), deleted once read, so calls leave no refs behind.
pub(crate) fn fetch_missing(
    local: &Local,
    prs: &[&PullRequest],
    branches: &[(&str, Option<&str>)],
) -> Result<Vec<String>> {
    let mut wanted = head_ids(prs);
    wanted.extend(branches.iter().filter_map(|(_, tip)| *tip));
    let present = local.repo.have_commits(&wanted)?;
    let heads_present = &present[..prs.len()];
    let mut tips_present = present[prs.len()..].iter();
    let known_tips: Vec<Option<String>> = branches
        .iter()
        .map(|(_, tip)| match tip {
            Some(tip) => tips_present
                .next()
                .copied()
                .unwrap_or(false)
                .then(|| (*tip).to_owned()),
            None => None,
        })
        .collect();
    if heads_present.iter().all(|p| *p) && known_tips.iter().all(Option::is_some) {
        return Ok(known_tips.into_iter().flatten().collect());
    }
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let folder = format!(
        "refs/resolve-pr/fetch/{}-{}/",
        std::process::id(),
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut refspecs = Vec::new();
    for (pr, present) in prs.iter().zip(heads_present) {
        if !present {
            refspecs.push((
                format!("refs/pull/{}/head", pr.number),
                format!("{folder}pull/{}", pr.number),
            ));
        }
    }
    for ((branch, _), known) in branches.iter().zip(&known_tips) {
        if known.is_none() {
            refspecs.push((
                format!("refs/heads/{branch}"),
                format!("{folder}heads/{branch}"),
            ));
        }
    }
    refspecs.sort();
    refspecs.dedup();
    let fetched = local.repo.fetch(&local.remote, &refspecs);
    // Read and delete what the fetch wrote, whether it succeeded or not.
    let written = local.repo.refs_under(&folder)?;
    local.repo.delete_refs(
        &written
            .iter()
            .map(|(name, _)| name.clone())
            .collect::<Vec<_>>(),
    )?;
    fetched?;
    heads_fetched(local, prs)?;
    branches
        .iter()
        .zip(known_tips)
        .map(|((branch, _), known)| match known {
            Some(tip) => Ok(tip),
            None => {
                let name = format!("{folder}heads/{branch}");
                written
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, oid)| oid.clone())
                    .ok_or_else(|| {
                        Error::user(format!(
                            "the branch {branch:?} does not exist on the remote"
                        ))
                        .with_suggestion("Check the branch name (target_branch, onto_base).")
                    })
            }
        })
        .collect()
}

/// The heads of `prs` (`refs/pull/N/head`, which GitHub, Forgejo and Gitea all have, also for
/// PRs from forks) that are not present yet, `branches` always (a branch moves), and the head
/// branches `heads` (of pull requests whose head is in this repository), which may be gone,
/// in one `git fetch` into `refs/resolve-pr/heads/…` and `pull/…`, kept: a later stack call
/// reads where a base branch was from them. Returns the commit each branch is at, and each
/// head's on the remote now (`None`: the remote has no such branch).
pub(crate) fn fetch_with_heads(
    local: &Local,
    prs: &[&PullRequest],
    branches: &[&str],
    heads: &[&str],
) -> Result<(Vec<String>, Vec<Option<String>>)> {
    match fetch_refs(local, prs, branches, heads) {
        Ok(()) => {}
        // A head branch deleted since the forge listed it: fetch without the heads, and say
        // of each one that it is gone (read below as `None`).
        Err(resolve_pr_git::Error::MissingRemoteRef { .. }) if !heads.is_empty() => {
            for head in heads {
                local.repo.delete_ref(&branch_ref(head))?;
            }
            fetch_refs(local, prs, branches, &[])?;
        }
        Err(e) => return Err(e.into()),
    }
    heads_fetched(local, prs)?;
    let tips = branches
        .iter()
        .map(|b| {
            local.repo.read_ref(&branch_ref(b))?.ok_or_else(|| {
                Error::user(format!("the branch {b:?} does not exist on the remote"))
                    .with_suggestion("Check the branch name (target_branch, onto_base).")
            })
        })
        .collect::<Result<Vec<String>>>()?;
    let heads = heads
        .iter()
        .map(|h| Ok(local.repo.read_ref(&branch_ref(h))?))
        .collect::<Result<Vec<Option<String>>>>()?;
    Ok((tips, heads))
}

/// One `git fetch` of the PR heads `prs` that are missing, and of `branches` and `heads`.
fn fetch_refs(
    local: &Local,
    prs: &[&PullRequest],
    branches: &[&str],
    heads: &[&str],
) -> resolve_pr_git::Result<()> {
    let mut refspecs = Vec::new();
    let present = local.repo.have_commits(&head_ids(prs))?;
    for (pr, present) in prs.iter().zip(present) {
        if !present {
            refspecs.push((format!("refs/pull/{}/head", pr.number), pull_ref(pr.number)));
        }
    }
    for branch in branches.iter().chain(heads) {
        refspecs.push((format!("refs/heads/{branch}"), branch_ref(branch)));
    }
    refspecs.sort();
    refspecs.dedup();
    if !refspecs.is_empty() {
        local.repo.fetch(&local.remote, &refspecs)?;
    }
    Ok(())
}

/// The PR whose head is the checkout's current branch (as `gh pr view` chooses), for a call
/// without `pr`. Looks in the remotes that name a repository of a configured forge: the
/// current branch's own remote first, then `upstream`, then `origin`.
pub(crate) async fn pr_of_current_branch(
    ctx: &Context,
    directory: Option<&str>,
) -> Result<(PrRef, String)> {
    refuse_server_path(&ctx.local, directory)?;
    let git = git(ctx)?;
    let dir = match directory {
        Some(d) => PathBuf::from(d),
        None => ctx.local.cwd.clone().ok_or_else(|| {
            Error::user("no pr was given and the server has no working directory to look in")
                .with_suggestion("Give pr, e.g. 'owner/repo#123'.")
        })?,
    };
    let web_bases = ctx.forges.config().web_bases();
    let (branch, candidates) = {
        let dir = dir.clone();
        let git = git.clone();
        blocking(ctx, "reading the checkout", move || {
            let repo = Repository::discover(&git, &dir).map_err(|e| {
                Error::from(e).with_suggestion(
                    "Give pr ('owner/repo#123'), or directory: a checkout whose current branch \
                     is the pull request's.",
                )
            })?;
            let Some(branch) = repo.current_branch()? else {
                return Err(Error::user(format!(
                    "no pr was given and HEAD of {} is detached, so there is no current branch \
                     to find a pull request for",
                    dir.display()
                ))
                .with_suggestion("Give pr, e.g. 'owner/repo#123', or switch to the PR's branch."));
            };
            let candidates = remote_repositories(&repo, &web_bases)?
                .into_iter()
                .map(|(_, r)| r)
                .collect::<Vec<_>>();
            Ok((branch, candidates))
        })
        .await?
    };
    let mut asked = Vec::new();
    // The first three repositories of a configured forge among the remotes' candidates.
    let routable = candidates
        .iter()
        .filter_map(|repo| ctx.forge(repo).ok().map(|forge| (repo, forge)))
        .take(3);
    for (repo, forge) in routable {
        let filter = PullFilter {
            state: PullListState::Open,
            head: Some(branch.clone()),
            base: None,
            limit: 10,
            ..PullFilter::default()
        };
        asked.push(repo.full_name());
        let found = forge
            .pull_requests()
            .list_pull_requests(repo, &filter)
            .await?;
        if let Some(pr) = found
            .into_iter()
            .filter(|p| p.head_ref == branch)
            .max_by_key(|p| p.number)
        {
            let pr_ref = PrRef {
                repo: repo.clone(),
                number: pr.number,
            };
            let note = format!(
                "No pr was given: chose #{} ({}), the open pull request of the current branch \
                 {branch:?}.",
                pr.number, pr.html_url
            );
            return Ok((pr_ref, note));
        }
    }
    Err(Error::user(format!(
        "no pr was given and no open pull request has the current branch {branch:?} as its head{}",
        if asked.is_empty() {
            " (no remote of the checkout is a repository of a configured forge)".to_owned()
        } else {
            format!(" in {}", asked.join(", "))
        }
    ))
    .with_suggestion("Give pr, e.g. 'owner/repo#123'."))
}

/// The repositories a checkout's remotes may name, as `(remote, repository)`: `upstream`
/// first, then `origin`, then the rest in git's order, each remote's candidates in turn. An
/// https or http remote names its own URL; an SSH one (`git@host:owner/repo.git`,
/// `ssh://git@host:2222/…`) names the host but not the web's scheme or port, so it also
/// stands for the repository on every configured forge of that host name (`web_bases`,
/// `Config::web_bases`). Remotes that are local paths are left out.
fn remote_repositories(repo: &Repository, web_bases: &[String]) -> Result<Vec<(String, RepoRef)>> {
    let mut remotes = repo.remotes()?;
    remotes.sort_by_key(|r| match r.name.as_str() {
        "upstream" => 0,
        "origin" => 1,
        _ => 2,
    });
    let mut found: Vec<(String, RepoRef)> = Vec::new();
    for remote in remotes {
        let Some(u) = &remote.parsed else { continue };
        let url = remote.url.trim().to_ascii_lowercase();
        let web = url.starts_with("https://") || url.starts_with("http://");
        let scheme = if url.starts_with("http://") {
            "http"
        } else {
            "https"
        };
        // An SSH port is not the web's port.
        let port = match u.port {
            Some(p) if web => format!(":{p}"),
            _ => String::new(),
        };
        let prefix = if u.prefix.is_empty() {
            String::new()
        } else {
            format!("/{}", u.prefix)
        };
        let mut candidates = vec![format!(
            "{scheme}://{}{port}{prefix}/{}/{}",
            u.host, u.owner, u.repo
        )];
        for base in web_bases {
            let same_host = url::Url::parse(base)
                .ok()
                .and_then(|b| b.host_str().map(|h| h.eq_ignore_ascii_case(&u.host)))
                .unwrap_or(false);
            if same_host {
                let path = if web { prefix.as_str() } else { "" };
                candidates.push(format!("{base}{path}/{}/{}", u.owner, u.repo));
            }
        }
        for candidate in candidates {
            if let Ok(parsed) = RepoRef::parse(&candidate)
                && !found.iter().any(|(_, r)| *r == parsed)
            {
                found.push((remote.name.clone(), parsed));
            }
        }
    }
    Ok(found)
}

/// The repository a local checkout works on: the first of its remotes (`upstream`, then
/// `origin`, then the rest) that names a repository of a configured forge. For the tools that
/// take `directory` instead of `repository`.
pub(crate) async fn repository_of_checkout(ctx: &Context, directory: &str) -> Result<RepoRef> {
    refuse_server_path(&ctx.local, Some(directory))?;
    let git = git(ctx)?;
    let dir = PathBuf::from(directory);
    let web_bases = ctx.forges.config().web_bases();
    let remotes = {
        let dir = dir.clone();
        blocking(ctx, "reading the checkout", move || {
            let repo = Repository::discover(&git, &dir).map_err(|e| {
                Error::from(e).with_suggestion(
                    "directory must be inside a git checkout whose remote is the repository; \
                     or give repository ('owner/repo') instead.",
                )
            })?;
            remote_repositories(&repo, &web_bases)
        })
        .await?
    };
    for (_, repo) in &remotes {
        if ctx.forge(repo).is_ok() {
            return Ok(repo.clone());
        }
    }
    let named: Vec<String> = remotes
        .iter()
        .map(|(name, repo)| format!("{name} {repo}"))
        .collect();
    Err(Error::user(format!(
        "no remote of the checkout at {} names a repository on a configured forge{}",
        dir.display(),
        if named.is_empty() {
            " (it has no remote with an owner/repo URL)".to_owned()
        } else {
            String::new()
        }
    ))
    .with_detail("remotes", named)
    .with_suggestion(
        "Give repository ('owner/repo' or 'host/owner/repo'), or add a remote that points at \
         the repository on its forge.",
    ))
}

/// The forge and the PR, for a tool whose `pr` is optional.
pub(crate) async fn resolve_pr(
    ctx: &Context,
    pr: Option<&str>,
    directory: Option<&str>,
) -> Result<(PrRef, Option<String>)> {
    match pr {
        Some(p) => Ok((crate::shared::pr_from_ref(p, Vec::new())?, None)),
        None => {
            let (pr, note) = pr_of_current_branch(ctx, directory).await?;
            Ok((pr, Some(note)))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use resolve_pr_core::CursorCodec;
    use resolve_pr_forge::{Config, Forges};

    use super::*;
    use crate::{BoxFuture, ProgressSink};

    struct Recorder(Mutex<Vec<(f64, String)>>);

    impl ProgressSink for Recorder {
        fn report(&self, progress: f64, _total: Option<f64>, message: String) -> BoxFuture<'_, ()> {
            self.0.lock().unwrap().push((progress, message));
            Box::pin(async {})
        }
    }

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

    #[tokio::test]
    async fn long_git_work_keeps_telling_the_client_it_is_alive() {
        let config = Config::from_parts(None, None, &|_| None).unwrap();
        let ctx = Context::new(Arc::new(Forges::new(config)), CursorCodec::new([1; 32]));
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let ctx = ctx.with_progress(recorder.clone());
        let out = blocking_every(&ctx, "cloning", Duration::from_millis(40), || {
            std::thread::sleep(Duration::from_millis(300));
            Ok(7)
        })
        .await
        .unwrap();
        assert_eq!(out, 7);
        let reports = recorder.0.lock().unwrap().clone();
        assert!(reports.len() >= 3, "{reports:?}");
        assert!(
            reports.windows(2).all(|w| w[0].0 < w[1].0),
            "progress grows: {reports:?}"
        );
        assert!(reports[0].1.starts_with("cloning ("), "{reports:?}");
        // Quick work reports nothing.
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let ctx = ctx.with_progress(recorder.clone());
        blocking(&ctx, "reading", || Ok(())).await.unwrap();
        assert!(recorder.0.lock().unwrap().is_empty());
    }
}
