//! Which repository or pull request a call targets: the `repository`/`pr` arguments, or a
//! checkout's remotes (`directory`, else the server's working directory, and its current
//! branch for a call without `pr`).

use std::path::PathBuf;

use resolve_pr_core::{Error, PrRef, RepoRef, Result};
use resolve_pr_forge::{PullFilter, PullListState};
use resolve_pr_git::Repository;

use super::{blocking, git, refuse_server_path};
use crate::Context;
use crate::shared::invalid;

/// The repository a tool works on, from `repository` or `directory` (a local checkout whose
/// remote names it; see [`repository_of_checkout`]). Exactly one must be given. Every
/// problem with them is reported together with the tool's other `problems`, before anything is
/// read; the checkout is read only when the arguments are otherwise valid.
pub(crate) async fn repo_target(
    ctx: &Context,
    repository: Option<&str>,
    directory: Option<&str>,
    mut problems: Vec<String>,
) -> Result<RepoRef> {
    let given = repo_or_directory(repository, directory, &mut problems);
    if !problems.is_empty() {
        return Err(invalid(problems));
    }
    match given {
        Some(Target::Repo(repo)) => Ok(repo),
        Some(Target::Directory(dir)) => repository_of_checkout(ctx, dir).await,
        None => Err(invalid(vec![
            "repository or directory is required".to_owned(),
        ])),
    }
}

/// Like [`repo_target`], for a pull request (or issue) `number` of that repository.
pub(crate) async fn pr_target(
    ctx: &Context,
    repository: Option<&str>,
    directory: Option<&str>,
    number: i64,
    field: &str,
    mut problems: Vec<String>,
) -> Result<PrRef> {
    if number <= 0 {
        problems.insert(0, format!("{field} must be positive (got {number})"));
    }
    let repo = repo_target(ctx, repository, directory, problems).await?;
    Ok(PrRef {
        repo,
        number: number as u64,
    })
}

enum Target<'a> {
    Repo(RepoRef),
    Directory(&'a str),
}

/// Checks that exactly one of `repository` and `directory` is given and that `repository`
/// parses; the first problems reported.
fn repo_or_directory<'a>(
    repository: Option<&str>,
    directory: Option<&'a str>,
    problems: &mut Vec<String>,
) -> Option<Target<'a>> {
    let directory = directory.filter(|d| !d.trim().is_empty());
    match (repository, directory) {
        (Some(_), Some(_)) => {
            problems.insert(
                0,
                "give repository or directory, not both (directory is a checkout whose remote \
                 names the repository)"
                    .to_owned(),
            );
            None
        }
        (None, None) => {
            problems.insert(
                0,
                "repository ('owner/repo') or directory (a local checkout of it) is required"
                    .to_owned(),
            );
            None
        }
        (Some(r), None) => match RepoRef::parse(r) {
            Ok(repo) => Some(Target::Repo(repo)),
            Err(e) => {
                problems.insert(
                    0,
                    format!("repository must be in format 'owner/repo' ({})", e.error),
                );
                None
            }
        },
        (None, Some(d)) => Some(Target::Directory(d)),
    }
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
