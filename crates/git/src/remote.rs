//! Remote URLs as git accepts them, read into host, owner and repository, so the remote of
//! a pull request's repository can be found among a checkout's remotes.

/// Where a remote points, when it is a forge repository: `https://host/owner/repo(.git)`,
/// `http://…`, `ssh://[user@]host[:port]/owner/repo(.git)`, `git://…`, scp-like
/// `[user@]host:owner/repo(.git)`. A path prefix before the last two segments (GitHub
/// Enterprise or Forgejo served under a subpath) is kept apart: owner and repository are
/// always the last two segments. The host is lowercased; userinfo (and any token in it) is
/// dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteUrl {
    pub host: String,
    pub port: Option<u16>,
    /// Segments before owner/repo, joined with `/` (empty when none).
    pub prefix: String,
    pub owner: String,
    pub repo: String,
}

impl RemoteUrl {
    /// Reads a remote URL; `None` for local paths, `file://` and URLs without owner/repo.
    pub fn parse(url: &str) -> Option<RemoteUrl> {
        let url = url.trim();
        let (authority, path) = if let Some((scheme, rest)) = url.split_once("://") {
            let scheme = scheme.to_ascii_lowercase();
            if !matches!(
                scheme.as_str(),
                "https" | "http" | "ssh" | "git" | "git+ssh" | "ssh+git"
            ) {
                return None;
            }
            match rest.find('/') {
                Some(slash) => (&rest[..slash], &rest[slash..]),
                None => (rest, ""),
            }
        } else {
            // git's rule: a colon before any slash makes it scp-like; otherwise a local path.
            let colon = url.find(':')?;
            if url[..colon].contains('/') {
                return None;
            }
            (&url[..colon], &url[colon + 1..])
        };
        let scp_like = !url.contains("://");
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let (host, port) = split_port(host_port, scp_like)?;
        if host.is_empty() {
            return None;
        }
        let mut segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let repo = segments.pop()?;
        let repo = repo.strip_suffix(".git").unwrap_or(repo);
        let owner = segments.pop()?;
        if repo.is_empty() || owner.is_empty() || owner.starts_with('~') {
            return None;
        }
        let mut host = host.to_ascii_lowercase();
        // GitHub's SSH-over-443 host is github.com's.
        if host == "ssh.github.com" {
            host = "github.com".to_string();
        }
        Some(RemoteUrl {
            host,
            port,
            prefix: segments.join("/"),
            owner: owner.to_string(),
            repo: repo.to_string(),
        })
    }

    /// Whether this is the repository `owner/repo` on `host` (a port in `host` is ignored;
    /// host, owner and repository compare without case, as the forges do).
    pub fn is(&self, host: &str, owner: &str, repo: &str) -> bool {
        let host = split_port(host, false).map_or(host, |(h, _)| h);
        let host = if host.eq_ignore_ascii_case("ssh.github.com") {
            "github.com"
        } else {
            host
        };
        self.host.eq_ignore_ascii_case(host)
            && self.owner.eq_ignore_ascii_case(owner)
            && self
                .repo
                .eq_ignore_ascii_case(repo.strip_suffix(".git").unwrap_or(repo))
    }
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`. An scp-like authority has no port.
fn split_port(authority: &str, scp_like: bool) -> Option<(&str, Option<u16>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(port) if !scp_like && !port.is_empty() => Some(port.parse().ok()?),
            _ => None,
        };
        return Some((host, port));
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !scp_like => Some((
            host,
            if port.is_empty() {
                None
            } else {
                Some(port.parse().ok()?)
            },
        )),
        _ => Some((authority, None)),
    }
}

/// A URL with any password in its userinfo replaced by `***`, fit to show.
pub(crate) fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..end];
    match authority.rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}{}", &rest[end..])
        }
        // Over http(s) a lone user is often a token (`https://TOKEN@host/…`); over ssh it is
        // the account (`git@`).
        Some((_, host)) if scheme.to_ascii_lowercase().starts_with("http") => {
            format!("{scheme}://***@{host}{}", &rest[end..])
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(url: &str) -> (String, Option<u16>, String, String, String) {
        let u = RemoteUrl::parse(url).unwrap_or_else(|| panic!("{url} did not parse"));
        (u.host, u.port, u.prefix, u.owner, u.repo)
    }

    fn is(url: &str, host: &str, owner: &str, repo: &str) {
        let (h, _, _, o, r) = parsed(url);
        assert_eq!(
            (h.as_str(), o.as_str(), r.as_str()),
            (host, owner, repo),
            "{url}"
        );
    }

    #[test]
    fn forms_git_accepts() {
        for url in [
            "https://github.com/octo/hello",
            "https://github.com/octo/hello.git",
            "https://github.com/octo/hello/",
            "https://github.com/octo/hello.git/",
            "http://github.com/octo/hello",
            "https://GitHub.COM/octo/hello",
            "https://user@github.com/octo/hello.git",
            "https://x-access-token:ghp_secret@github.com/octo/hello.git",
            "ssh://git@github.com/octo/hello.git",
            "ssh://git@ssh.github.com:443/octo/hello.git",
            "ssh://github.com/octo/hello",
            "git+ssh://git@github.com/octo/hello.git",
            "git://github.com/octo/hello.git",
            "git@github.com:octo/hello.git",
            "git@github.com:octo/hello",
            "git@github.com:/octo/hello.git",
            "github.com:octo/hello.git",
            "  git@GITHUB.com:octo/hello.git\n",
        ] {
            is(url, "github.com", "octo", "hello");
        }
    }

    #[test]
    fn ports_and_prefixes() {
        assert_eq!(
            parsed("ssh://git@git.example.com:2222/team/app.git"),
            (
                "git.example.com".into(),
                Some(2222),
                "".into(),
                "team".into(),
                "app".into()
            )
        );
        assert_eq!(
            parsed("https://git.example.com/forgejo/owner/repo"),
            (
                "git.example.com".into(),
                None,
                "forgejo".into(),
                "owner".into(),
                "repo".into()
            )
        );
        assert_eq!(
            parsed("https://codeberg.org:8443/a/b/c/owner/repo.git/"),
            (
                "codeberg.org".into(),
                Some(8443),
                "a/b/c".into(),
                "owner".into(),
                "repo".into()
            )
        );
        assert_eq!(
            parsed("ssh://git@[::1]:22/o/r"),
            ("::1".into(), Some(22), "".into(), "o".into(), "r".into())
        );
        is(
            "git@ghe.corp.example:org/svc.git",
            "ghe.corp.example",
            "org",
            "svc",
        );
        is(
            "https://ghe.corp.example/org/svc",
            "ghe.corp.example",
            "org",
            "svc",
        );
        is(
            "https://git.example.com/git/org/my.repo.name.git",
            "git.example.com",
            "org",
            "my.repo.name",
        );
    }

    #[test]
    fn not_forge_repositories() {
        for url in [
            "/srv/git/repo.git",
            "./repo",
            "../other/repo.git",
            "file:///srv/git/owner/repo.git",
            "C/path:with/colon",
            "https://github.com/",
            "https://github.com/onlyone",
            "git@github.com:repo.git",
            "ssh://host/~user/repo.git",
            "",
        ] {
            assert_eq!(RemoteUrl::parse(url), None, "{url}");
        }
    }

    #[test]
    fn matching_ignores_case_port_and_dot_git() {
        let url = RemoteUrl::parse("git@GitHub.com:Octo/Hello.git").unwrap();
        assert!(url.is("github.com", "octo", "hello"));
        assert!(url.is("GITHUB.COM", "OCTO", "hello.git"));
        assert!(!url.is("github.com", "octo", "hello2"));
        assert!(!url.is("gitlab.com", "octo", "hello"));
        let forgejo = RemoteUrl::parse("https://git.example.com:3000/f/o/r").unwrap();
        assert!(forgejo.is("git.example.com:3000", "o", "r"));
        assert!(forgejo.is("git.example.com", "o", "r"));
    }

    #[test]
    fn secrets_in_urls_are_redacted() {
        assert_eq!(
            redacted("https://x-access-token:ghp_abc@github.com/o/r.git"),
            "https://x-access-token:***@github.com/o/r.git"
        );
        assert_eq!(
            redacted("https://ghp_abc@github.com/o/r"),
            "https://***@github.com/o/r"
        );
        assert_eq!(
            redacted("ssh://git@github.com/o/r"),
            "ssh://git@github.com/o/r"
        );
        assert_eq!(redacted("git@github.com:o/r.git"), "git@github.com:o/r.git");
        assert_eq!(redacted("https://github.com/o/r"), "https://github.com/o/r");
        assert_eq!(
            redacted("ssh://me:pw@host:22/o/r"),
            "ssh://me:***@host:22/o/r"
        );
        assert_eq!(redacted("ssh://git@host:22/o/r"), "ssh://git@host:22/o/r");
    }
}
