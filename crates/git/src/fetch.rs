//! Bringing commits in: fetches that write refs only under `refs/resolve-pr/` (the user's
//! branches, tags and `FETCH_HEAD` are never written), fetching only what is missing, and a
//! managed bare blobless clone for when there is no checkout at all.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, network_or_failed};
use crate::remote::{RemoteUrl, redacted};
use crate::repo::Repository;
use crate::runner::Git;
use crate::transport::{self, Transports};

/// The namespace every ref this crate writes lives under.
pub const REF_NAMESPACE: &str = "refs/resolve-pr/";

/// Options that keep a fetch to the refs it is given: no `FETCH_HEAD`, no tags, no
/// submodules, no maintenance run afterwards.
const FETCH_OPTIONS: &[&str] = &[
    "fetch",
    "--no-write-fetch-head",
    "--no-tags",
    "--no-recurse-submodules",
    "--no-auto-maintenance",
    // No configured refspec maps what is fetched: without this, fetching `refs/heads/main`
    // from `origin` also moves the user's `refs/remotes/origin/main`.
    "--refmap=",
    "--quiet",
];

/// A remote name or URL as git will take it: refused when empty or when it starts with `-`
/// (it is passed after `--end-of-options` anyway), and when it names the `ext::` or `fd::`
/// transport, which no repository may use.
pub(crate) fn check_remote(remote: &str) -> Result<()> {
    if remote.is_empty() || remote.starts_with('-') || remote.contains('\0') {
        return Err(Error::usage(format!(
            "{:?} is not a remote name or URL",
            redacted(remote)
        )));
    }
    transport::check_never(remote)
}

/// `text` with the remote's secret (if its URL carries one) replaced by `***`.
pub(crate) fn scrub(text: &str, remote: &str) -> String {
    let shown = redacted(remote);
    if shown == remote {
        text.to_string()
    } else {
        text.replace(remote, &shown)
    }
}

/// A failed fetch, push or clone, told apart (unreachable or not) and without secrets.
pub(crate) fn transport_error(error: Error, remote: &str) -> Error {
    match network_or_failed(error, remote) {
        Error::Network { command, stderr } => Error::Network {
            command: scrub(&command, remote),
            stderr: scrub(&stderr, remote),
        },
        Error::Failed {
            command,
            status,
            stderr,
        } => Error::Failed {
            command: scrub(&command, remote),
            status,
            stderr: scrub(&stderr, remote),
        },
        Error::Auth { command, stderr } => Error::Auth {
            command: scrub(&command, remote),
            stderr: scrub(&stderr, remote),
        },
        Error::TimedOut { command, what } => Error::TimedOut {
            command: scrub(&command, remote),
            what: scrub(&what, remote),
        },
        Error::Cancelled { command } => Error::Cancelled {
            command: scrub(&command, remote),
        },
        other => other,
    }
}

impl Repository {
    /// `git fetch --no-write-fetch-head --no-tags --no-recurse-submodules --quiet <remote>
    /// +<src>:<dst> ...`. Every `dst` must be a valid ref name under `refs/resolve-pr/`, else
    /// a usage error and nothing is run. An unreachable remote is [`Error::Network`].
    pub fn fetch(&self, remote: &str, refspecs: &[(String, String)]) -> Result<()> {
        check_remote(remote)?;
        // In a managed clone a URL (anything but a remote's name) must be a forge's; git's
        // protocol policy there says the same, this says it before git runs.
        if self.git().transports() == Transports::Forge && remote.contains([':', '/']) {
            transport::check_forge_url(remote)?;
        }
        if refspecs.is_empty() {
            return Err(Error::usage("a fetch needs at least one refspec"));
        }
        let mut specs = Vec::with_capacity(refspecs.len());
        for (src, dst) in refspecs {
            self.check_destination(src, dst)?;
            specs.push(format!("+{src}:{dst}"));
        }
        let mut args: Vec<&str> = FETCH_OPTIONS.to_vec();
        args.push("--end-of-options");
        args.push(remote);
        args.extend(specs.iter().map(String::as_str));
        self.run(&args, &[], &[0])
            .map(|_| ())
            .map_err(|error| transport_error(error, remote))
    }

    fn check_destination(&self, src: &str, dst: &str) -> Result<()> {
        let bad = |why: &str| {
            Err(Error::usage(format!(
                "cannot fetch {src:?} into {dst:?}: {why}"
            )))
        };
        if src.is_empty() || src.contains(':') || src.starts_with('+') || src.contains('\0') {
            return bad("the source is not a ref name or object id");
        }
        if !dst.starts_with(REF_NAMESPACE) || dst.len() == REF_NAMESPACE.len() {
            return bad("fetches write only refs under refs/resolve-pr/");
        }
        if src.contains('*') != dst.contains('*') {
            return bad("a pattern needs a `*` on both sides");
        }
        let output = self.run(
            [
                "check-ref-format",
                "--allow-onelevel",
                "--refspec-pattern",
                dst,
            ],
            &[],
            &[0, 1],
        )?;
        if !output.status.success() {
            return bad("not a valid ref name");
        }
        Ok(())
    }

    /// Makes sure the commits `wanted` (`(oid, ref name on the remote)`) are present:
    /// fetches only those missing ([`Repository::has_commit`]), first by object id into
    /// `refs/resolve-pr/commits/<oid>` (servers allow it with protocol v2 or
    /// `uploadpack.allowReachableSHA1InWant`), then, for any still missing, by their ref
    /// names into `refs/resolve-pr/fetched/<name without refs/>`. Returns how many fetches
    /// ran (0 when everything was present); a commit still missing after both is
    /// [`Error::BadRevision`].
    pub fn fetch_missing(&self, remote: &str, wanted: &[(String, String)]) -> Result<usize> {
        check_remote(remote)?;
        for (oid, name) in wanted {
            if !((oid.len() == 40 || oid.len() == 64) && oid.bytes().all(|b| b.is_ascii_hexdigit()))
            {
                return Err(Error::usage(format!("{oid:?} is not a full commit id")));
            }
            if name.is_empty() || name.starts_with('-') || name.contains(':') {
                return Err(Error::usage(format!("{name:?} is not a ref name")));
            }
        }
        let mut missing: Vec<&(String, String)> = Vec::new();
        for item in wanted {
            if !self.has_commit(&item.0)? && !missing.iter().any(|m| m.0 == item.0) {
                missing.push(item);
            }
        }
        if missing.is_empty() {
            return Ok(0);
        }
        let by_oid: Vec<(String, String)> = missing
            .iter()
            .map(|(oid, _)| (oid.clone(), format!("{REF_NAMESPACE}commits/{oid}")))
            .collect();
        let mut runs = 1;
        match self.fetch(remote, &by_oid) {
            Ok(()) => {}
            // The server would not send an object by id (or one is not on it): try by name.
            Err(Error::Failed { .. }) => {}
            Err(other) => return Err(other),
        }
        let mut still: Vec<&(String, String)> = Vec::new();
        for item in missing {
            if !self.has_commit(&item.0)? {
                still.push(item);
            }
        }
        if still.is_empty() {
            return Ok(runs);
        }
        let mut by_name: Vec<(String, String)> = Vec::new();
        for (_, name) in &still {
            let rest = name.strip_prefix("refs/").unwrap_or(name);
            let spec = (name.clone(), format!("{REF_NAMESPACE}fetched/{rest}"));
            if !by_name.contains(&spec) {
                by_name.push(spec);
            }
        }
        runs += 1;
        self.fetch(remote, &by_name)?;
        for (oid, _) in still {
            if !self.has_commit(oid)? {
                return Err(Error::BadRevision {
                    revision: oid.clone(),
                });
            }
        }
        Ok(runs)
    }
}

/// The managed bare blobless clone of `url` under `cache_root`, for a URL a forge reported:
/// anything but https, http or ssh is [`Error::RefusedUrl`] before git runs
/// ([`transport::check_forge_url`]), and every command in the clone (the clone itself, its
/// fetches, the lazy fetches of any read) may use only those ([`Transports::Forge`]) and is
/// watched for its deadline and the caller's cancellation. The clone lives at
/// `<cache_root>/<host>/<owner>/<repo>.git` for a forge URL (a path prefix and a port are
/// kept as directories), `<cache_root>/local/<hash>/<name>.git` for one without owner/repo. Made with
/// `git clone --bare --filter=blob:none --no-tags` in a temporary directory beside it and
/// renamed into place, so a concurrent caller sees no clone or a whole one; reused as it is
/// when present (fetching into `refs/resolve-pr/…` brings it up to date). Blobs come lazily
/// from the remote when a merge needs them. The clone keeps the URL as given (git's own
/// behaviour: a token in it is what lets later lazy fetches in); errors never show it.
pub fn open_cache(git: &Git, cache_root: &Path, url: &str) -> Result<Repository> {
    check_remote(url)?;
    transport::check_forge_url(url)?;
    let git = &git.for_forge();
    let target = cache_root.join(cache_path(url)?);
    if target.is_dir() {
        return Repository::discover(git, &target);
    }
    let parent = target.parent().unwrap_or(cache_root);
    std::fs::create_dir_all(parent).map_err(|source| Error::Io {
        what: format!("creating the cache directory {}", parent.display()),
        source,
    })?;
    let staging = tempfile::Builder::new()
        .prefix(".clone-")
        .tempdir_in(parent)
        .map_err(|source| Error::Io {
            what: format!("creating a staging directory in {}", parent.display()),
            source,
        })?;
    let fresh = staging.path().join("repo.git");
    let fresh_arg = fresh.as_os_str().to_owned();
    let args = [
        std::ffi::OsStr::new("clone"),
        "--bare".as_ref(),
        "--filter=blob:none".as_ref(),
        "--no-tags".as_ref(),
        "--quiet".as_ref(),
        "--end-of-options".as_ref(),
        url.as_ref(),
        fresh_arg.as_os_str(),
    ];
    git.run(staging.path(), args, &[], &[0])
        .map_err(|error| transport_error(error, url))?;
    private(&fresh);
    match std::fs::rename(&fresh, &target) {
        Ok(()) => {}
        // Another caller put its clone there first: use that one.
        Err(_) if target.is_dir() => {}
        Err(source) => {
            return Err(Error::Io {
                what: format!("moving the clone to {}", target.display()),
                source,
            });
        }
    }
    Repository::discover(git, &target)
}

/// Only the user may read a cached clone (it may hold a token in its configured URL).
fn private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Where under the cache root the clone of `url` lives.
pub(crate) fn cache_path(url: &str) -> Result<PathBuf> {
    let mut path = PathBuf::new();
    match RemoteUrl::parse(url) {
        Some(parsed) => {
            let host = match parsed.port {
                Some(port) => format!("{}_{port}", parsed.host),
                None => parsed.host.clone(),
            };
            path.push(component(&host));
            for segment in parsed.prefix.split('/').filter(|s| !s.is_empty()) {
                path.push(component(segment));
            }
            path.push(component(&parsed.owner));
            path.push(format!("{}.git", component(&parsed.repo)));
        }
        None => {
            let name = url
                .trim_end_matches('/')
                .rsplit(['/', '\\', ':'])
                .next()
                .unwrap_or("repo");
            let name = name.strip_suffix(".git").unwrap_or(name);
            let name = if name.is_empty() { "repo" } else { name };
            path.push("local");
            path.push(format!("{:016x}", fnv1a(url.as_bytes())));
            path.push(format!("{}.git", component(name)));
        }
    }
    Ok(path)
}

/// A path component made of safe characters only: never `.`, `..`, empty or hidden.
fn component(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '@' | '~') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() || cleaned.starts_with('.') {
        format!("_{cleaned}")
    } else {
        cleaned
    }
}

/// 64-bit FNV-1a: a stable name for a local path (std's hasher may change between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_paths_are_host_owner_repo_and_never_escape() {
        assert_eq!(
            cache_path("https://x-access-token:t@github.com/Octo/Hello.git").unwrap(),
            PathBuf::from("github.com/Octo/Hello.git")
        );
        assert_eq!(
            cache_path("ssh://git@git.example.com:2222/forgejo/team/app").unwrap(),
            PathBuf::from("git.example.com_2222/forgejo/team/app.git")
        );
        let local = cache_path("file:///srv/git/app.git").unwrap();
        assert!(local.starts_with("local"), "{local:?}");
        assert!(local.ends_with("app.git"), "{local:?}");
        assert_ne!(local, cache_path("file:///srv/other/app.git").unwrap());
        for url in ["https://h/../..", "https://h/./x", "git@h:../../x"] {
            let path = cache_path(url).unwrap();
            assert!(
                path.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{url}: {path:?}"
            );
            assert!(
                !path.iter().any(|c| c.to_string_lossy().starts_with('.')),
                "{url}: {path:?}"
            );
        }
    }

    #[test]
    fn secrets_are_scrubbed_from_messages() {
        let url = "https://bot:ghp_secret@example.com/o/r";
        let text = scrub(&format!("fatal: could not fetch {url}"), url);
        assert!(!text.contains("ghp_secret"), "{text}");
        assert_eq!(scrub("plain", "origin"), "plain");
        assert!(check_remote("--upload-pack=touch /tmp/x").is_err());
        assert!(check_remote("").is_err());
        assert!(check_remote("origin").is_ok());
    }
}
