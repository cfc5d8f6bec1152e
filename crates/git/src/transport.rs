//! Which transports git may use and how long it may talk. A URL a forge reported (a clone
//! URL, a fork's URL) is followed only over https, http or ssh; the user's own checkout keeps
//! the user's choice (a mirror as a local path is legitimate there) except for `ext::` and
//! `fd::`, which run commands or read file descriptors. HTTP transfers that go silent are
//! abandoned (`http.lowSpeedLimit`/`http.lowSpeedTime`), and every command that may talk to
//! a remote is killed with its process group past a wall-clock deadline (see `cancel`).

use std::ffi::OsString;
use std::process::Command;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::remote::redacted;

/// Which URLs the git commands of a repository may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transports {
    /// The user's own checkout and remotes: git's and the user's configuration decide
    /// (`GIT_ALLOW_PROTOCOL` as inherited, `protocol.*.allow`), except that `ext` and `fd`
    /// are never allowed.
    User,
    /// A managed clone, or a URL a forge reported: only [`FORGE_PROTOCOLS`], through
    /// `GIT_ALLOW_PROTOCOL`, which also holds for the lazy fetches of a blobless clone.
    Forge,
}

/// What a URL from a forge may use: GitHub, Forgejo and Gitea serve https (and http on a
/// plain-HTTP instance) and ssh; none of them serves the unauthenticated `git://` (GitHub
/// turned it off in 2022). `git+ssh://` and `ssh+git://` are git's other names for ssh.
pub const FORGE_PROTOCOLS: &str = "https:http:ssh";

/// Protocols refused everywhere, whatever the user's configuration: `ext::` runs a command
/// the URL names, `fd::` talks over the caller's file descriptors.
const NEVER: &[&str] = &["ext", "fd"];

/// How long git may talk to a remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkLimits {
    /// An HTTP transfer slower than [`NetworkLimits::low_speed_bytes`] a second for this
    /// long is abandoned by git (`http.lowSpeedTime`): a remote that accepts the connection
    /// and never answers. Whole seconds; at least 1.
    pub low_speed_time: Duration,
    /// `http.lowSpeedLimit`, in bytes a second. 1: only a remote that goes silent is cut off
    /// (git's keep-alive packets while a server prepares a pack are enough); a slow trickle
    /// is the [`NetworkLimits::deadline`]'s.
    pub low_speed_bytes: u32,
    /// A command that talks to a remote (clone, fetch, push, ls-remote; in a repository that
    /// fetches lazily, every command) still running after this is killed with its process
    /// group (remote helpers, ssh): covers ssh and a remote that trickles.
    pub deadline: Duration,
}

impl NetworkLimits {
    /// 30 s of silence (cargo's `http.timeout` for its git fetches), 10 minutes for one
    /// command (a first blobless clone of a large repository).
    pub const DEFAULT: NetworkLimits = NetworkLimits {
        low_speed_time: Duration::from_secs(30),
        low_speed_bytes: 1,
        deadline: Duration::from_secs(600),
    };
}

impl Default for NetworkLimits {
    fn default() -> Self {
        NetworkLimits::DEFAULT
    }
}

/// git subcommands that talk to a remote.
const NETWORK_COMMANDS: &[&str] = &["clone", "fetch", "push", "ls-remote", "pull"];

/// Whether `args` run a git subcommand that talks to a remote (`-c key=value` and other
/// options before the subcommand are skipped).
pub(crate) fn is_network_command(args: &[OsString]) -> bool {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let arg = arg.to_string_lossy();
        if arg == "-c" || arg == "-C" {
            args.next();
        } else if !arg.starts_with('-') {
            return NETWORK_COMMANDS.contains(&arg.as_ref());
        }
    }
    false
}

/// Puts the transport policy and the low-speed limits into `command`'s environment. The
/// configuration goes through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`
/// (the runner removed any inherited count first), which outranks every configuration file.
pub(crate) fn apply(command: &mut Command, transports: Transports, limits: &NetworkLimits) {
    let mut config: Vec<(String, String)> = vec![
        (
            "http.lowSpeedLimit".to_string(),
            limits.low_speed_bytes.max(1).to_string(),
        ),
        (
            "http.lowSpeedTime".to_string(),
            limits.low_speed_time.as_secs().max(1).to_string(),
        ),
    ];
    match transports {
        Transports::Forge => {
            command.env("GIT_ALLOW_PROTOCOL", FORGE_PROTOCOLS);
        }
        Transports::User => {
            // `GIT_ALLOW_PROTOCOL`, when set, replaces `protocol.*.allow`: keep the user's
            // list without the protocols refused everywhere.
            if let Some(inherited) = std::env::var_os("GIT_ALLOW_PROTOCOL") {
                let kept: Vec<String> = inherited
                    .to_string_lossy()
                    .split(':')
                    .filter(|p| !NEVER.contains(p))
                    .map(str::to_string)
                    .collect();
                command.env("GIT_ALLOW_PROTOCOL", kept.join(":"));
            }
            for name in NEVER {
                config.push((format!("protocol.{name}.allow"), "never".to_string()));
            }
        }
    }
    command.env("GIT_CONFIG_COUNT", config.len().to_string());
    for (i, (key, value)) in config.iter().enumerate() {
        command.env(format!("GIT_CONFIG_KEY_{i}"), key);
        command.env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
}

/// The remote helper a URL names (`ext` of `ext::sh -c …`, `fd` of `fd::7`): git's rule, a
/// run of URL scheme characters followed by `::`.
fn helper(url: &str) -> Option<&str> {
    let end = url
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_alphabetic() || (i > 0 && (c.is_ascii_digit() || "+.-".contains(c))))
        })
        .map_or(url.len(), |(i, _)| i);
    (end > 0 && url[end..].starts_with("::")).then(|| &url[..end])
}

/// Refuses a remote name or URL that names a transport refused everywhere (`ext::`, `fd::`).
pub(crate) fn check_never(remote: &str) -> Result<()> {
    match helper(remote) {
        Some(name) if NEVER.iter().any(|n| n.eq_ignore_ascii_case(name)) => Err(refused(
            remote,
            format!("the `{name}::` transport runs commands or reads file descriptors"),
        )),
        _ => Ok(()),
    }
}

/// Refuses, before git runs, a URL a forge reported that is not https, http or ssh
/// (`scheme://…`, or scp-like `[user@]host:path`): a remote helper (`ext::`, `fd::`, any
/// `name::`), `file://`, a local path, `git://`, another scheme, an option (`-x`), or a host
/// that git or ssh could read as an option.
pub fn check_forge_url(url: &str) -> Result<()> {
    if url.is_empty() {
        return Err(refused(url, "it is empty".to_string()));
    }
    if url.starts_with('-') {
        return Err(refused(url, "it would be read as an option".to_string()));
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(refused(
            url,
            "it holds whitespace or control characters".to_string(),
        ));
    }
    if let Some(name) = helper(url) {
        return Err(refused(
            url,
            format!("`{name}::` is a remote helper, not a forge's transport"),
        ));
    }
    let host = if let Some((scheme, rest)) = url.split_once("://") {
        if !matches!(scheme, "https" | "http" | "ssh" | "git+ssh" | "ssh+git") {
            return Err(refused(
                url,
                format!(
                    "`{scheme}://` is not one of the transports forges serve (https, http, ssh)"
                ),
            ));
        }
        let authority = rest.split('/').next().unwrap_or("");
        authority.rsplit_once('@').map_or(authority, |(_, h)| h)
    } else {
        // git's rule: a colon before any slash is scp-like ssh; anything else a local path.
        match url.find(':') {
            Some(colon) if !url[..colon].contains('/') => {
                let authority = &url[..colon];
                authority.rsplit_once('@').map_or(authority, |(_, h)| h)
            }
            _ => {
                return Err(refused(
                    url,
                    "it is a path on this machine, not a forge's URL".to_string(),
                ));
            }
        }
    };
    if host.is_empty() || host.starts_with('-') {
        return Err(refused(
            url,
            "its host is empty or starts with `-`".to_string(),
        ));
    }
    Ok(())
}

fn refused(url: &str, reason: String) -> Error {
    Error::RefusedUrl {
        remote: redacted(url),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forge_urls_are_https_http_or_ssh() {
        for url in [
            "https://github.com/o/r.git",
            "https://x-access-token:t@github.com/o/r.git",
            "http://127.0.0.1:8080/o/r.git",
            "ssh://git@github.com/o/r.git",
            "git+ssh://git@host:2222/o/r",
            "git@github.com:o/r.git",
            "github.com:o/r",
        ] {
            assert!(check_forge_url(url).is_ok(), "{url}");
        }
        for url in [
            "fd::17",
            "fd::0,1/o/r",
            "ext::sh -c touch% /tmp/pwned",
            "ext::ssh/o/r",
            "EXT::x",
            "foo::https://github.com/o/r",
            "file:///srv/git/o/r.git",
            "/srv/git/o/r.git",
            "./o/r",
            "o/r",
            "git://github.com/o/r.git",
            "ftp://host/o/r",
            "HTTPS://github.com/o/r",
            "-x",
            "--upload-pack=touch /tmp/x",
            "ssh://-oProxyCommand=x/o/r",
            "-oProxyCommand=x:o/r",
            "https:///o/r",
            "https://github.com/o/r\n",
            "",
        ] {
            let error = check_forge_url(url).unwrap_err();
            assert!(
                matches!(error, Error::RefusedUrl { .. }),
                "{url}: {error:?}"
            );
        }
    }

    #[test]
    fn ext_and_fd_are_refused_everywhere_and_names_pass() {
        assert!(check_never("ext::sh -c x").is_err());
        assert!(check_never("fd::7").is_err());
        for remote in [
            "origin",
            "/srv/mirror.git",
            "file:///srv/m.git",
            "https://h/o/r",
        ] {
            assert!(check_never(remote).is_ok(), "{remote}");
        }
    }

    #[test]
    fn network_commands_are_found_after_options() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(is_network_command(&args(&["fetch", "origin"])));
        assert!(is_network_command(&args(&["-c", "a=b", "push", "x"])));
        assert!(is_network_command(&args(&["clone", "--bare", "u", "d"])));
        assert!(!is_network_command(&args(&["-c", "fetch=x", "merge-tree"])));
        assert!(!is_network_command(&args(&["rev-parse", "fetch"])));
    }
}
