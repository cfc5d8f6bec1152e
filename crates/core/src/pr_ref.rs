//! Pull-request and repository references as agents and people write them: `owner/repo#123`,
//! `owner/repo/pulls/123`, `owner/repo/pull/123`, and web URLs of GitHub, GitHub Enterprise,
//! Forgejo and Gitea. The host of a URL decides the forge later; short forms carry no host
//! and go to the default forge.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A repository on some forge.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepoRef {
    /// Where the forge's web pages live, e.g. `https://codeberg.org` or
    /// `http://127.0.0.1:3000/gitea` (a sub-path install). `None` for short forms.
    pub web_base: Option<String>,
    pub owner: String,
    pub repo: String,
}

/// A pull request: a repository and a number greater than zero.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrRef {
    pub repo: RepoRef,
    pub number: u64,
}

/// Path segments GitHub, Forgejo and Gitea use for pages inside a repository.
const INNER_PAGES: &[&str] = &[
    "pull", "pulls", "issues", "tree", "blob", "src", "commit", "commits", "compare", "actions",
    "releases", "wiki", "-",
];

const PR_EXAMPLES: &str = "Use one of: 'owner/repo#123', 'owner/repo/pull/123', \
'https://github.com/owner/repo/pull/123', 'https://forgejo.example.com/owner/repo/pulls/123'";
const REPO_EXAMPLES: &str =
    "Use 'owner/repo' (for example 'octocat/hello-world') or 'https://host/owner/repo'";

impl RepoRef {
    /// Parses `owner/repo`, `host/owner/repo` or `https://host[/prefix]/owner/repo`.
    pub fn parse(input: &str) -> Result<RepoRef> {
        let s = input.trim();
        let fail = |why: &str| {
            Error::user(format!("invalid repository {input:?}: {why}"))
                .with_detail("field", "repository")
                .with_detail("value", input)
                .with_suggestion(REPO_EXAMPLES)
        };
        if s.is_empty() {
            return Err(fail("it is empty"));
        }
        if s.contains("://") {
            let (base, segments) = split_url(s).map_err(|why| fail(&why))?;
            let n = segments.len();
            if n < 2 {
                return Err(fail("expected the URL path to end in /owner/repo"));
            }
            // A link to something inside a repository (a pull request, a file, an issue) is
            // not a repository: its last two segments are not owner and name.
            if let Some(seg) = segments
                .iter()
                .skip(2)
                .find(|seg| INNER_PAGES.contains(&seg.as_str()))
            {
                return Err(fail(&format!(
                    "this links to a page inside a repository (/{seg}/...); give the repository itself, like https://host/owner/repo"
                )));
            }
            let base = with_prefix(base, &segments[..n - 2]);
            let repo = segments[n - 1].trim_end_matches(".git");
            return RepoRef::new(Some(base), &segments[n - 2], repo).map_err(|why| fail(&why));
        }
        let parts: Vec<&str> = s.trim_end_matches('/').split('/').collect();
        match parts[..] {
            [owner, repo] => RepoRef::new(None, owner, repo).map_err(|why| fail(&why)),
            [host, owner, repo] if looks_like_host(host) => {
                RepoRef::new(Some(format!("https://{host}")), owner, repo).map_err(|why| fail(&why))
            }
            _ => Err(fail(
                "expected exactly one '/' between owner and repository",
            )),
        }
    }

    fn new(web_base: Option<String>, owner: &str, repo: &str) -> std::result::Result<Self, String> {
        validate_name("owner", owner)?;
        validate_name("repository name", repo)?;
        Ok(RepoRef {
            web_base,
            owner: owner.to_owned(),
            repo: repo.to_owned(),
        })
    }

    /// `host[:port]` of the web base, lower-cased; `None` for short forms.
    pub fn host(&self) -> Option<String> {
        let base = self.web_base.as_deref()?;
        let url = url::Url::parse(base).ok()?;
        let host = url.host_str()?.to_ascii_lowercase();
        Some(match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host,
        })
    }

    /// `owner/repo`.
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.repo)
    }
}

impl RepoRef {
    /// `host` when the web base is plain `https://host`, so `host/owner/repo` says it all.
    fn bare_host(&self) -> Option<&str> {
        let rest = self.web_base.as_deref()?.strip_prefix("https://")?;
        (!rest.contains('/')).then_some(rest)
    }
}

impl fmt::Display for RepoRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.web_base, self.bare_host()) {
            (None, _) => write!(f, "{}/{}", self.owner, self.repo),
            (Some(_), Some(host)) => write!(f, "{host}/{}/{}", self.owner, self.repo),
            (Some(base), None) => write!(f, "{base}/{}/{}", self.owner, self.repo),
        }
    }
}

impl PrRef {
    pub fn parse(input: &str) -> Result<PrRef> {
        let s = input.trim();
        let fail = |why: &str| {
            Error::user(format!("invalid pull request reference {input:?}: {why}"))
                .with_detail("field", "pr")
                .with_detail("value", input)
                .with_suggestion(PR_EXAMPLES)
        };
        if s.is_empty() {
            return Err(fail("it is empty"));
        }
        if s.contains("://") {
            let (base, segments) = split_url(s).map_err(|why| fail(&why))?;
            // The first `pull`/`pulls` followed by a number, with owner and repo before it:
            // a repository may itself be called `pull`, and a sub-path install puts a prefix
            // before the owner.
            let pos = (2..segments.len().saturating_sub(1))
                .find(|&i| {
                    (segments[i] == "pull" || segments[i] == "pulls")
                        && !segments[i + 1].is_empty()
                        && segments[i + 1].bytes().all(|b| b.is_ascii_digit())
                })
                .or_else(|| {
                    (2..segments.len().saturating_sub(1))
                        .find(|&i| segments[i] == "pull" || segments[i] == "pulls")
                })
                .ok_or_else(|| fail("expected a URL path like /owner/repo/pull/123"))?;
            // Anything before owner/repo is an install prefix (Gitea under a sub-path); anything
            // after the number (`/files`, `/commits/sha`) is a view of the same PR.
            let base = with_prefix(base, &segments[..pos - 2]);
            let number = parse_number(&segments[pos + 1]).map_err(|why| fail(&why))?;
            let repo = RepoRef::new(Some(base), &segments[pos - 2], &segments[pos - 1])
                .map_err(|why| fail(&why))?;
            return Ok(PrRef { repo, number });
        }
        let (repo_part, number) = if let Some((repo_part, num)) = s.rsplit_once('#') {
            (repo_part, num)
        } else if let Some((repo_part, num)) =
            s.rsplit_once("/pulls/").or_else(|| s.rsplit_once("/pull/"))
        {
            (repo_part, num)
        } else {
            return Err(fail("no pull request number found"));
        };
        let number = parse_number(number).map_err(|why| fail(&why))?;
        let parts: Vec<&str> = repo_part.split('/').collect();
        let repo = match parts[..] {
            [owner, repo] => RepoRef::new(None, owner, repo),
            [host, owner, repo] if looks_like_host(host) => {
                RepoRef::new(Some(format!("https://{host}")), owner, repo)
            }
            _ => Err("expected owner/repo before the number".to_owned()),
        }
        .map_err(|why| fail(&why))?;
        Ok(PrRef { repo, number })
    }

    /// The shortest form that parses back to this reference on the same forge.
    pub fn normalized(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for PrRef {
    /// `owner/repo#N`, `host/owner/repo#N`, or for other schemes and sub-path installs the
    /// `/pulls/N` URL form (which the parser accepts for every forge).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.repo.web_base, self.repo.bare_host()) {
            (Some(_), None) => write!(f, "{}/pulls/{}", self.repo, self.number),
            _ => write!(f, "{}#{}", self.repo, self.number),
        }
    }
}

impl FromStr for PrRef {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        PrRef::parse(s)
    }
}

impl FromStr for RepoRef {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        RepoRef::parse(s)
    }
}

/// Splits a web URL into `scheme://host[:port]` and its non-empty path segments, dropping the
/// query and fragment (`#discussion_r123`, `?w=1`).
fn split_url(s: &str) -> std::result::Result<(String, Vec<String>), String> {
    let url = url::Url::parse(s).map_err(|e| format!("not a valid URL ({e})"))?;
    if url.scheme() != "https" && url.scheme() != "http" {
        return Err(format!("unsupported URL scheme {:?}", url.scheme()));
    }
    let host = url.host_str().ok_or("the URL has no host")?;
    let mut base = format!("{}://{}", url.scheme(), host.to_ascii_lowercase());
    if let Some(port) = url.port() {
        base.push_str(&format!(":{port}"));
    }
    let segments = url
        .path_segments()
        .map(|segs| {
            segs.filter(|seg| !seg.is_empty())
                .map(percent_decode)
                .collect()
        })
        .unwrap_or_default();
    Ok((base, segments))
}

fn with_prefix(base: String, prefix: &[String]) -> String {
    if prefix.is_empty() {
        base
    } else {
        format!("{base}/{}", prefix.join("/"))
    }
}

/// Path segments are percent-decoded (`+` stays `+`, unlike form decoding).
fn percent_decode(seg: &str) -> String {
    percent_encoding::percent_decode_str(seg)
        .decode_utf8_lossy()
        .into_owned()
}

fn looks_like_host(s: &str) -> bool {
    // `owner/repo` owners never contain a dot or a colon on GitHub; hosts always do, except
    // `localhost`.
    s == "localhost" || s.contains('.') || s.contains(':')
}

fn parse_number(s: &str) -> std::result::Result<u64, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("the pull request number is missing".into());
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} is not a pull request number"));
    }
    match s.parse::<u64>() {
        Ok(0) => Err("pull request numbers start at 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{s:?} is too large to be a pull request number")),
    }
}

/// Owners and repository names as GitHub, Forgejo and Gitea allow them: ASCII letters,
/// digits, `-`, `_` and `.`, at most 100 characters, and not `.` or `..`.
fn validate_name(what: &str, s: &str) -> std::result::Result<(), String> {
    if s.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    if s.len() > 100 {
        return Err(format!("the {what} is longer than 100 characters"));
    }
    if s == "." || s == ".." {
        return Err(format!("{s:?} is not a valid {what}"));
    }
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!("the {what} {s:?} contains {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pr(base: Option<&str>, owner: &str, repo: &str, number: u64) -> PrRef {
        PrRef {
            repo: RepoRef {
                web_base: base.map(str::to_owned),
                owner: owner.into(),
                repo: repo.into(),
            },
            number,
        }
    }

    #[test]
    fn accepts_every_documented_form() {
        let cases = [
            ("owner/repo#123", pr(None, "owner", "repo", 123)),
            ("owner/repo/pulls/123", pr(None, "owner", "repo", 123)),
            ("owner/repo/pull/123", pr(None, "owner", "repo", 123)),
            (
                "  octo-org/hello.world_2#7 ",
                pr(None, "octo-org", "hello.world_2", 7),
            ),
            (
                "https://github.com/owner/repo/pull/123",
                pr(Some("https://github.com"), "owner", "repo", 123),
            ),
            (
                "https://github.com/owner/repo/pull/123/files",
                pr(Some("https://github.com"), "owner", "repo", 123),
            ),
            (
                "https://github.com/owner/repo/pull/123#discussion_r987654",
                pr(Some("https://github.com"), "owner", "repo", 123),
            ),
            (
                "https://github.com/owner/repo/pull/123/commits/abc123?w=1",
                pr(Some("https://github.com"), "owner", "repo", 123),
            ),
            (
                "https://GHE.Example.com/team/svc/pull/9",
                pr(Some("https://ghe.example.com"), "team", "svc", 9),
            ),
            (
                "https://codeberg.org/forgejo/forgejo/pulls/4521",
                pr(Some("https://codeberg.org"), "forgejo", "forgejo", 4521),
            ),
            (
                "http://127.0.0.1:3000/gitea/o/r/pulls/2/files",
                pr(Some("http://127.0.0.1:3000/gitea"), "o", "r", 2),
            ),
            (
                "https://github.com/o/pull/pull/5",
                pr(Some("https://github.com"), "o", "pull", 5),
            ),
            (
                "https://codeberg.org/pulls/r/pulls/3",
                pr(Some("https://codeberg.org"), "pulls", "r", 3),
            ),
            (
                "http://h.example/gitea/o/pulls/pulls/3",
                pr(Some("http://h.example/gitea"), "o", "pulls", 3),
            ),
            (
                "codeberg.org/o/r#5",
                pr(Some("https://codeberg.org"), "o", "r", 5),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(PrRef::parse(input).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn rejects_malformed_with_an_example() {
        for bad in [
            "",
            "owner/repo",
            "owner/repo#",
            "owner/repo#0",
            "owner/repo#-1",
            "owner/repo#12a",
            "owner#12",
            "a/b/c/d#1",
            "owner/re po#1",
            "owner/..#1",
            "https://github.com/owner/repo",
            "https://github.com/owner/repo/issues/1",
            "ftp://github.com/o/r/pull/1",
            "owner/repo#99999999999999999999999",
        ] {
            let err = PrRef::parse(bad).unwrap_err();
            assert_eq!(err.category, crate::Category::User, "{bad}");
            assert!(
                err.suggestion
                    .as_deref()
                    .unwrap_or("")
                    .contains("owner/repo#123"),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn repositories() {
        assert_eq!(
            RepoRef::parse("o/r").unwrap(),
            RepoRef {
                web_base: None,
                owner: "o".into(),
                repo: "r".into()
            }
        );
        let r = RepoRef::parse("https://codeberg.org/o/r.git").unwrap();
        assert_eq!(r.host().as_deref(), Some("codeberg.org"));
        assert_eq!(r.repo, "r");
        assert_eq!(
            RepoRef::parse("localhost/o/r").unwrap().host().as_deref(),
            Some("localhost")
        );
        assert_eq!(
            RepoRef::parse("http://127.0.0.1:3000/gitea/o/r")
                .unwrap()
                .web_base
                .as_deref(),
            Some("http://127.0.0.1:3000/gitea")
        );
        for bad in [
            "https://github.com/octo/hello/pull/42",
            "https://codeberg.org/o/r/src/branch/main",
            "https://github.com/o/r/tree/main",
        ] {
            let e = RepoRef::parse(bad).unwrap_err();
            assert!(e.error.contains("inside a repository"), "{bad}: {e:?}");
        }
        for bad in ["", "o", "o/r/x", "o/r r", "/r", "o/"] {
            assert_eq!(
                RepoRef::parse(bad).unwrap_err().category,
                crate::Category::User,
                "{bad}"
            );
        }
    }

    #[test]
    fn host_includes_port() {
        let p = PrRef::parse("http://127.0.0.1:8080/o/r/pull/1").unwrap();
        assert_eq!(p.repo.host().as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(PrRef::parse("o/r#1").unwrap().repo.host(), None);
    }

    fn name() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_-][A-Za-z0-9._-]{0,30}".prop_filter("not dots", |s| s != "." && s != "..")
    }

    proptest! {
        #[test]
        fn display_round_trips(owner in name(), repo in name(), number in 1u64..=u64::MAX,
                               base in prop::option::of(prop::sample::select(vec![
                                   "https://github.com", "https://codeberg.org",
                                   "http://127.0.0.1:3000", "https://git.example.com/sub/path"]))) {
            let p = pr(base, &owner, &repo, number);
            prop_assert_eq!(PrRef::parse(&p.to_string()).unwrap(), p);
        }

        #[test]
        fn all_short_forms_agree(owner in name(), repo in name(), number in 1u64..1_000_000) {
            let want = pr(None, &owner, &repo, number);
            for form in [format!("{owner}/{repo}#{number}"), format!("{owner}/{repo}/pulls/{number}"),
                         format!("{owner}/{repo}/pull/{number}")] {
                prop_assert_eq!(PrRef::parse(&form).unwrap(), want.clone());
            }
        }

        #[test]
        fn never_panics(s in "\\PC{0,80}") {
            let _ = PrRef::parse(&s);
            let _ = RepoRef::parse(&s);
        }

        #[test]
        fn hostile_names_are_rejected(owner in name(), bad in "[;$`'\" \\n|&<>(){}]") {
            let input = format!("{owner}{bad}x/repo#1");
            prop_assert!(PrRef::parse(&input).is_err());
        }
    }
}
