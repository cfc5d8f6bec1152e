//! Git's smart HTTP protocol at `{base}/{owner}/{name}.git`, as GitHub and Forgejo/Gitea serve
//! it beside their APIs, so a checkout's `origin` names the same host as the pull request.
//! The repositories are bare repositories under the scenario's `git_root`
//! (`<owner>/<name>.git`); `git http-backend` answers, run as a CGI program: the request body
//! streams into it and its output streams back.
//!
//! Three routes, the smart protocol's: `GET …/info/refs?service=git-upload-pack|git-receive-pack`,
//! `POST …/git-upload-pack`, `POST …/git-receive-pack`. Pushes are accepted without a
//! credential (`http.receivepack`), partial clones work (`uploadpack.allowFilter`,
//! `uploadpack.allowAnySHA1InWant`). A gzip request body (git compresses larger upload-pack
//! requests) is passed on with `HTTP_CONTENT_ENCODING`, which http-backend inflates itself.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdout, Command};
use tokio::sync::mpsc;

use crate::server::SimBody;

/// Bytes read from http-backend per response frame.
const CHUNK: usize = 64 * 1024;

/// The CGI response's header block is at most this long (http-backend writes a few lines).
const MAX_HEADER: usize = 16 * 1024;

/// Configuration every backend run gets, as `git -c` options (git hands them on to the
/// upload-pack and receive-pack it starts through `GIT_CONFIG_PARAMETERS`).
const CONFIG: &[&str] = &[
    // Pushes without `REMOTE_USER`: the simulator does not ask git clients for credentials.
    "http.receivepack=true",
    // `git clone --filter=blob:none` and the lazy fetches of missing blobs after it.
    "uploadpack.allowFilter=true",
    "uploadpack.allowAnySHA1InWant=true",
];

/// A request that has the shape of a smart HTTP git request: a path ending in `.git/`
/// followed by one of the three routes. Whether what comes before is `{owner}/{name}.git`
/// with acceptable names is checked when served.
pub(crate) struct Route {
    /// The path before the route, without its leading `/` (`acme/widgets.git`).
    repository: String,
    /// `info/refs`, `git-upload-pack` or `git-receive-pack`.
    rest: &'static str,
}

impl Route {
    /// The route `path` (raw, not percent-decoded) takes with `method`, if it is a git one.
    pub fn parse(method: &str, path: &str) -> Option<Route> {
        let path = path.strip_prefix('/')?;
        let (repository, rest) = [
            ("GET", "info/refs"),
            ("HEAD", "info/refs"),
            ("POST", "git-upload-pack"),
            ("POST", "git-receive-pack"),
        ]
        .into_iter()
        .filter(|(m, _)| *m == method)
        .find_map(|(_, rest)| Some((path.strip_suffix(rest)?.strip_suffix('/')?, rest)))?;
        repository.ends_with(".git").then(|| Route {
            repository: repository.to_owned(),
            rest,
        })
    }

    /// The owner and repository name, when the path is exactly two plain names (ASCII
    /// letters, digits, `-`, `_`, `.`, not starting with `.`: no `..`, no percent escapes,
    /// no separators), the second ending in `.git`.
    fn names(&self) -> Option<(&str, &str)> {
        let plain = |s: &str| {
            !s.is_empty()
                && !s.starts_with('.')
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        };
        let (owner, name) = self.repository.split_once('/')?;
        let stem = name.strip_suffix(".git")?;
        (plain(owner) && plain(stem)).then_some((owner, name))
    }

    /// The repository's directory under `root`, when the names are plain and it exists.
    fn directory(&self, root: &Path) -> Option<PathBuf> {
        let (owner, name) = self.names()?;
        let dir = root.join(owner).join(name);
        dir.is_dir().then_some(dir)
    }

    /// The service `info/refs` asks for, or the one a POST runs.
    fn service(&self, query: Option<&str>) -> Option<&'static str> {
        match self.rest {
            "info/refs" => {
                let query = query?;
                let service = url::form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| k == "service")?
                    .1;
                ["git-upload-pack", "git-receive-pack"]
                    .into_iter()
                    .find(|s| *s == service)
            }
            service => Some(service),
        }
    }
}

/// What a git request came to: the response and the status to record.
pub(crate) struct Served {
    pub status: u16,
    pub response: Response<SimBody>,
}

/// Serves one git request from the repositories under `root` (none: every one is 404).
pub(crate) async fn serve(
    root: Option<&Path>,
    route: &Route,
    parts: &Parts,
    body: Incoming,
    remote_user: Option<String>,
) -> Served {
    let query = parts.uri.query();
    let Some(root) = root.filter(|root| route.directory(root).is_some()) else {
        return plain(404, "Repository not found.\n");
    };
    if route.service(query).is_none() {
        // The dumb protocol (`info/refs` without a service) is not served, as on GitHub.
        return plain(403, "Please upgrade your git client.\n");
    }
    match run_backend(root, route, parts, body, remote_user).await {
        Ok(served) => served,
        Err(problem) => plain(500, &format!("git http-backend: {problem}\n")),
    }
}

async fn run_backend(
    root: &Path,
    route: &Route,
    parts: &Parts,
    body: Incoming,
    remote_user: Option<String>,
) -> Result<Served, String> {
    let header = |name| {
        parts
            .headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let mut command = Command::new("git");
    for config in CONFIG {
        command.arg("-c").arg(config);
    }
    command
        .arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        // No system or user configuration: the backend behaves the same on every machine.
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("PATH_INFO", format!("/{}/{}", route.repository, route.rest))
        .env("QUERY_STRING", parts.uri.query().unwrap_or(""))
        .env("REQUEST_METHOD", parts.method.as_str())
        .env("SERVER_PROTOCOL", "HTTP/1.1")
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(user) = remote_user {
        command.env("REMOTE_USER", user);
    }
    for (variable, name) in [
        ("CONTENT_TYPE", CONTENT_TYPE),
        ("CONTENT_LENGTH", CONTENT_LENGTH),
        ("HTTP_CONTENT_ENCODING", CONTENT_ENCODING),
    ] {
        if let Some(value) = header(name) {
            command.env(variable, value);
        }
    }
    if let Some(protocol) = header(hyper::header::HeaderName::from_static("git-protocol")) {
        command.env("HTTP_GIT_PROTOCOL", protocol);
    }
    let mut child = command.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("no pipes".to_owned());
    };

    // The request body goes in while the response comes out: neither side waits for the
    // other to finish, so a large push or fetch cannot deadlock on full pipes.
    tokio::spawn(async move {
        let mut body = body;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { break };
            if let Ok(data) = frame.into_data()
                && stdin.write_all(&data).await.is_err()
            {
                break;
            }
        }
        // Dropping stdin is the end of the request for a body without a length.
    });
    let errors = tokio::spawn(async move {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text).await;
        text
    });

    let (head, rest) = read_head(&mut stdout).await?;
    let Some(head) = head else {
        let _ = child.wait().await;
        let errors = errors.await.unwrap_or_default();
        return Err(format!(
            "no CGI header: {}",
            String::from_utf8_lossy(&errors).trim()
        ));
    };
    let (status, headers) = parse_head(&head)?;

    let (sender, receiver) = mpsc::channel(4);
    tokio::spawn(async move {
        if !rest.is_empty() && sender.send(Ok(Bytes::from(rest))).await.is_err() {
            return;
        }
        let mut buffer = vec![0; CHUNK];
        loop {
            match stdout.read(&mut buffer).await {
                Ok(0) => break,
                Ok(n) => {
                    if sender
                        .send(Ok(Bytes::copy_from_slice(&buffer[..n])))
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
                Err(e) => {
                    let _ = sender.send(Err(e)).await;
                    break;
                }
            }
        }
        // The backend's exit status is not the client's business: git reports failures in
        // the protocol stream itself. Its output is closed first, so a backend still writing
        // to a client that went away ends instead of blocking; waiting reaps it.
        drop(stdout);
        let _ = child.wait().await;
        drop(errors);
    });

    let mut response = Response::new(SimBody::streamed(receiver));
    *response.status_mut() =
        StatusCode::from_u16(status).map_err(|_| format!("status {status} out of range"))?;
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            response.headers_mut().append(name, value);
        }
    }
    Ok(Served { status, response })
}

/// Reads the CGI header block: everything up to the first empty line (`\r\n\r\n` or `\n\n`).
/// Returns it (`None` when the output ended first) and the body bytes read after it.
async fn read_head(stdout: &mut ChildStdout) -> Result<(Option<Vec<u8>>, Vec<u8>), String> {
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some((end, skip)) = header_end(&read) {
            let rest = read.split_off(end + skip);
            read.truncate(end);
            return Ok((Some(read), rest));
        }
        if read.len() > MAX_HEADER {
            return Err("CGI header longer than 16 KiB".to_owned());
        }
        match stdout.read(&mut buffer).await {
            Ok(0) => return Ok((None, read)),
            Ok(n) => read.extend_from_slice(&buffer[..n]),
            Err(e) => return Err(format!("reading its output: {e}")),
        }
    }
}

/// Where the header block ends and how long the empty line marking it is.
fn header_end(read: &[u8]) -> Option<(usize, usize)> {
    let crlf = read
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4));
    let lf = read.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2));
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// The status (`Status: 404 Not Found`; 200 without one, as CGI says) and the other headers.
fn parse_head(head: &[u8]) -> Result<(u16, Vec<(String, String)>), String> {
    let text = std::str::from_utf8(head).map_err(|_| "CGI header is not UTF-8".to_owned())?;
    let mut status = 200;
    let mut headers = Vec::new();
    for line in text.split('\n').map(|l| l.trim_end_matches('\r')) {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("CGI header line without a colon: {line:?}"));
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split(' ').next().unwrap_or_default();
            status = code
                .parse()
                .map_err(|_| format!("CGI status {value:?} is not a number"))?;
        } else {
            headers.push((name.to_owned(), value.to_owned()));
        }
    }
    Ok((status, headers))
}

/// A plain-text answer, as GitHub's git endpoints give for errors.
fn plain(status: u16, text: &str) -> Served {
    let mut response = Response::new(SimBody::whole(Bytes::from(text.to_owned())));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::NOT_FOUND);
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Served { status, response }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_shape_only() {
        let r = Route::parse("GET", "/acme/widgets.git/info/refs").unwrap();
        assert_eq!(
            (r.names(), r.rest),
            (Some(("acme", "widgets.git")), "info/refs")
        );
        assert!(Route::parse("POST", "/acme/widgets.git/git-upload-pack").is_some());
        assert!(Route::parse("POST", "/acme/widgets.git/git-receive-pack").is_some());
        assert!(Route::parse("GET", "/acme/widgets.git/git-upload-pack").is_none());
        assert!(Route::parse("POST", "/acme/widgets.git/info/refs").is_none());
        assert!(Route::parse("GET", "/acme/widgets/info/refs").is_none());
        assert!(Route::parse("GET", "/repos/acme/widgets").is_none());
        assert!(Route::parse("GET", "/acme/widgets.git/objects/info/packs").is_none());
        // Shaped like a git route, refused when served.
        assert!(Route::parse("GET", "/../x.git/info/refs").is_some());
        assert!(Route::parse("GET", "/a/../../x.git/info/refs").is_some());
        assert!(Route::parse("POST", "/x.git/git-upload-pack").is_some());
    }

    #[test]
    fn refuses_names_that_are_not_plain() {
        let root = std::env::temp_dir();
        for repository in [
            "../x.git",
            "%2e%2e/x.git",
            "acme/..git",
            "acme/.git",
            "a%2fb/x.git",
            "acme/x\\y.git",
            ".hidden/x.git",
            "/x.git",
            "x.git",
            "a/b/c.git",
            "a/../../x.git",
        ] {
            let route = Route {
                repository: repository.to_owned(),
                rest: "info/refs",
            };
            assert!(route.names().is_none(), "{repository}");
            assert!(route.directory(&root).is_none(), "{repository}");
        }
    }

    #[test]
    fn services() {
        let refs = Route::parse("GET", "/a/b.git/info/refs").unwrap();
        assert_eq!(
            refs.service(Some("service=git-upload-pack")),
            Some("git-upload-pack")
        );
        assert_eq!(
            refs.service(Some("service=git-receive-pack")),
            Some("git-receive-pack")
        );
        assert_eq!(refs.service(Some("service=git-upload-archive")), None);
        assert_eq!(refs.service(None), None);
    }

    #[test]
    fn parses_cgi_headers() {
        let (status, headers) =
            parse_head(b"Status: 403 Forbidden\r\nContent-Type: text/plain").unwrap();
        assert_eq!(status, 403);
        assert_eq!(
            headers,
            [("Content-Type".to_owned(), "text/plain".to_owned())]
        );
        let (status, _) =
            parse_head(b"Content-Type: application/x-git-upload-pack-result").unwrap();
        assert_eq!(status, 200);
        assert!(parse_head(b"Status: abc").is_err());
        assert!(parse_head(b"garbage").is_err());
        assert_eq!(header_end(b"A: b\r\n\r\nbody"), Some((4, 4)));
        assert_eq!(header_end(b"A: b\n\nbody\r\n\r\n"), Some((4, 2)));
        assert_eq!(header_end(b"A: b\r\n"), None);
    }
}
