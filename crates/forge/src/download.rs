//! Downloads that are not JSON: job logs (streamed, tail only when large) and artifact
//! archives (bounded, unzipped in memory). Both forges serve them either directly from the
//! API or through a redirect to storage on another host; the token only ever goes to the
//! API (see [`Http::locate`] and [`Http::download`]).

use std::io::Read;

use futures_util::StreamExt;
use reqwest::StatusCode;
use reqwest::header::CONTENT_RANGE;

use crate::http::{Auth, Http, Located, Request};
use crate::{Artifact, LogStream};
use crate::{Error, Result, Transport};

/// Where the bytes come from.
pub(crate) enum Source<'a> {
    /// An API URL that answers with the content or redirects to storage.
    Api {
        url: String,
        auth: &'a Auth,
        subject: &'a str,
    },
}

/// What the caller calls the content in messages, and how to explain a missing one.
pub(crate) struct Labels<'a> {
    /// "the log of job 42 in o/r".
    pub subject: &'a str,
    /// The error for a 404/410 from the API or the storage.
    pub gone: &'a (dyn Fn() -> Error + Sync),
}

/// Whether an answer says the content is not there (any more): 404 Not Found or 410 Gone.
fn is_gone(e: &Error) -> bool {
    matches!(
        e,
        Error::NotFound {
            status: Some(404),
            ..
        } | Error::Status { status: 410, .. }
    )
}

fn gone_or(e: Error, labels: &Labels<'_>) -> Error {
    if is_gone(&e) { (labels.gone)() } else { e }
}

/// "the log storage (host:port)" for messages about the storage host.
fn storage_label(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => {
            let host = u.host_str().unwrap_or("?");
            match u.port_or_known_default() {
                Some(port) => format!("the download storage ({host}:{port})"),
                None => format!("the download storage ({host})"),
            }
        }
        Err(_) => "the download storage".to_owned(),
    }
}

/// One GET of the content, possibly of a byte range, following the API's redirect.
struct Fetcher<'h, 'a> {
    http: &'h Http,
    source: Source<'a>,
    labels: Labels<'a>,
    /// Where the API redirected to, once known (redirects are asked for only once).
    storage: Option<String>,
}

impl Fetcher<'_, '_> {
    async fn get(&mut self, range: Option<String>) -> Result<reqwest::Response> {
        if let Some(url) = &self.storage {
            let label = storage_label(url);
            return self
                .http
                .download(url, range.as_deref(), &label, self.labels.subject)
                .await
                .map_err(|e| gone_or(e, &self.labels));
        }
        let Source::Api { url, auth, subject } = &self.source;
        let request = Request::get(url.clone(), Some(auth), subject).range(range.clone());
        let located = self
            .http
            .locate(&request)
            .await
            .map_err(|e| gone_or(e, &self.labels))?;
        match located {
            Located::Direct(response) => Ok(response),
            Located::Redirect(target) => {
                self.storage = Some(target);
                Box::pin(self.get(range)).await
            }
        }
    }

    fn stream_error(&self) -> String {
        match &self.storage {
            Some(url) => storage_label(url),
            None => self.http.forge().to_owned(),
        }
    }
}

/// The first byte of a `206` answer (`Content-Range: bytes START-END/TOTAL`) and the total.
fn content_range(response: &reqwest::Response) -> Option<(u64, Option<u64>)> {
    let value = response.headers().get(CONTENT_RANGE)?.to_str().ok()?;
    let rest = value.trim().strip_prefix("bytes")?.trim();
    let (span, total) = rest.split_once('/')?;
    let (start, _) = span.split_once('-')?;
    Some((start.trim().parse().ok()?, total.trim().parse().ok()))
}

/// Streams the content; when it is larger than `max_bytes` only the last `max_bytes` come
/// out. A known length larger than that is re-requested as `Range: bytes=START-` (plain
/// ranges work on every blob store; suffix ranges do not); a store that ignores the range
/// (200 instead of 206) has its head read and dropped. An unknown length is read through a
/// window of `max_bytes`, so memory stays bounded either way.
pub(crate) async fn stream_tail(
    http: &Http,
    source: Source<'_>,
    labels: Labels<'_>,
    max_bytes: u64,
) -> Result<LogStream> {
    // A zero budget would ask for an empty range, which storage refuses (416).
    let max_bytes = max_bytes.max(1);
    let mut fetcher = Fetcher {
        http,
        source,
        labels,
        storage: None,
    };
    let first = fetcher.get(None).await?;
    let length = first.content_length();
    let (response, total, skip) = match length {
        Some(total) if total > max_bytes => {
            // Dropping the unread answer closes its connection; nothing more is transferred.
            drop(first);
            let start = total - max_bytes;
            let response = fetcher.get(Some(format!("bytes={start}-"))).await?;
            if response.status() == StatusCode::PARTIAL_CONTENT {
                let (begin, whole) = content_range(&response).unwrap_or((start, Some(total)));
                (response, whole.or(Some(total)), SkipHead::Ranged(begin))
            } else {
                let whole = response.content_length().unwrap_or(total);
                (
                    response,
                    Some(whole),
                    SkipHead::Drop(whole.saturating_sub(max_bytes)),
                )
            }
        }
        Some(total) => (first, Some(total), SkipHead::Ranged(0)),
        // No length (chunked transfer): where the tail starts cannot be known without
        // reading it all, and holding it would defeat streaming, so it is streamed whole.
        None => (first, None, SkipHead::Ranged(0)),
    };
    Ok(into_log_stream(
        response,
        total,
        skip,
        fetcher.stream_error(),
    ))
}

/// The answer's body as a log stream, as it arrives: `skip` says where it starts in the
/// whole, or how much of its head to drop.
fn into_log_stream(
    response: reqwest::Response,
    total: Option<u64>,
    skip: SkipHead,
    label: String,
) -> LogStream {
    let (skipped, mut to_drop) = match skip {
        SkipHead::Ranged(begin) => (begin, 0),
        SkipHead::Drop(n) => (n, n),
    };
    let chunks = response.bytes_stream().map(move |chunk| match chunk {
        Ok(mut bytes) => {
            if to_drop > 0 {
                let cut = (bytes.len() as u64).min(to_drop) as usize;
                to_drop -= cut as u64;
                bytes = bytes.slice(cut..);
            }
            Ok(bytes)
        }
        Err(e) => Err(broken(&label, &e)),
    });
    let chunks = chunks.filter(|c| std::future::ready(!matches!(c, Ok(b) if b.is_empty())));
    LogStream {
        total_bytes: total,
        skipped_bytes: skipped,
        chunks: Box::pin(chunks),
    }
}

enum SkipHead {
    /// The answer starts at this offset of the whole.
    Ranged(u64),
    /// The answer is the whole; drop this many bytes of its head.
    Drop(u64),
}

fn broken(label: &str, e: &reqwest::Error) -> Error {
    // reqwest's text includes the URL, whose query is the storage credential.
    let flat = clone_without_url(e);
    Error::transport(
        Transport::Broken,
        format!(
            "the connection to {label} broke while streaming: {}",
            crate::http::error_chain(&flat)
        ),
    )
    .caused_by(e)
    .with_suggestion("Retry; the download storage dropped the connection.")
}

/// The whole content, refused past `max_bytes` (an archive must be read whole to unzip).
pub(crate) async fn read_bounded(
    http: &Http,
    source: Source<'_>,
    labels: Labels<'_>,
    max_bytes: u64,
) -> Result<Vec<u8>> {
    let subject = labels.subject.to_owned();
    let mut fetcher = Fetcher {
        http,
        source,
        labels,
        storage: None,
    };
    let response = fetcher.get(None).await?;
    let label = fetcher.stream_error();
    let too_big = || {
        Error::precondition(format!(
            "{subject} is larger than the limit of {max_bytes} bytes"
        ))
        .with_suggestion("Download it yourself from the run's page if it is needed.")
    };
    if response.content_length().is_some_and(|l| l > max_bytes) {
        return Err(too_big());
    }
    let mut out = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| broken(&label, &e))?;
        if (out.len() + chunk.len()) as u64 > max_bytes {
            return Err(too_big());
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// Artifacts that are expired or larger than the budget are not downloaded.
pub(crate) fn refuse_artifact(artifact: &Artifact, subject: &str, max_bytes: u64) -> Result<()> {
    if artifact.expired {
        return Err(expired_artifact(subject));
    }
    if artifact.size_in_bytes > max_bytes {
        return Err(Error::precondition(format!(
            "{subject} is {} bytes, more than the limit of {max_bytes}",
            artifact.size_in_bytes
        ))
        .with_detail("size_in_bytes", artifact.size_in_bytes)
        .with_suggestion("Download it from the run's page if it is needed."));
    }
    Ok(())
}

/// What GitHub says of an artifact past its retention.
pub(crate) fn expired_artifact(subject: &str) -> Error {
    Error::precondition(format!(
        "{subject} has expired and can no longer be downloaded"
    ))
    .with_suggestion("Re-run the workflow to produce the artifact again.")
}

/// The files of the artifact zip at `url` (an API URL that answers or redirects to storage)
/// whose names end with `suffix`: the archive read within `max_bytes`, then unzipped within
/// `max_bytes`. `gone` is the error for a 404/410.
pub(crate) async fn artifact_files(
    http: &Http,
    url: String,
    auth: &Auth,
    subject: &str,
    gone: &(dyn Fn() -> Error + Sync),
    suffix: &str,
    max_bytes: u64,
) -> Result<Vec<(String, Vec<u8>)>> {
    let archive = read_bounded(
        http,
        Source::Api { url, auth, subject },
        Labels { subject, gone },
        max_bytes,
    )
    .await?;
    unzip_matching(archive, suffix, max_bytes, subject)
}

/// The files of a zip archive whose name ends with `suffix`, at most `max_bytes`
/// uncompressed in all (entries are read through a limit, so a zip bomb stops there).
pub(crate) fn unzip_matching(
    archive: Vec<u8>,
    suffix: &str,
    max_bytes: u64,
    subject: &str,
) -> Result<Vec<(String, Vec<u8>)>> {
    let bad = |e: zip::result::ZipError| {
        Error::invalid_body(format!("{subject} is not a readable zip archive: {e}"))
            .caused_by(&e)
            .with_suggestion("Download it from the run's page and inspect it by hand.")
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive)).map_err(bad)?;
    let mut out = Vec::new();
    let mut budget = max_bytes;
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(bad)?;
        let name = entry.name().map_err(bad)?.into_owned();
        if !entry.is_file() || !name.ends_with(suffix) {
            continue;
        }
        let mut content = Vec::new();
        (&mut entry)
            .take(budget + 1)
            .read_to_end(&mut content)
            .map_err(|e| {
                Error::invalid_body(format!("{subject}: cannot unpack {name}: {e}")).caused_by(&e)
            })?;
        if content.len() as u64 > budget {
            return Err(Error::precondition(format!(
                "the files ending in {suffix:?} in {subject} are larger than the limit of \
                 {max_bytes} bytes"
            ))
            .with_detail("file", name)
            .with_suggestion("Download the artifact from the run's page."));
        }
        budget -= content.len() as u64;
        out.push((name, content));
    }
    Ok(out)
}

/// The error's text and causes without the URL (`reqwest::Error::without_url` takes the
/// error by value; here it is borrowed).
fn clone_without_url(e: &reqwest::Error) -> crate::http::UrlFree {
    crate::http::UrlFree::of(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log or artifact is "gone" on a 404 or a 410 from the API or the storage, told by the
    /// error's variant and status; a GraphQL-style "not found" without a status, or another
    /// refusal, is not.
    #[test]
    fn gone_is_404_or_410() {
        assert!(is_gone(&Error::not_found(Some(404), "x")));
        assert!(is_gone(&Error::status(410, None, "x")));
        assert!(!is_gone(&Error::not_found(None, "x")));
        assert!(!is_gone(&Error::status(500, None, "x")));
        assert!(!is_gone(&Error::auth(Some(403), "x")));
        assert!(!is_gone(&Error::precondition("x")));
        let gone = || Error::precondition("the log is gone");
        let labels = Labels {
            subject: "the log",
            gone: &gone,
        };
        assert_eq!(
            gone_or(Error::status(410, None, "410 Gone"), &labels),
            gone()
        );
        let other = Error::status(502, None, "502");
        assert_eq!(gone_or(other.clone(), &labels), other);
    }
    use bytes::Bytes;
    use futures_util::stream;

    /// A body without Content-Length is passed on as it arrives: the first chunk is there
    /// while the rest has not been sent yet (nothing waits for, or holds, the whole).
    #[tokio::test]
    async fn unknown_lengths_stream_as_they_arrive() {
        let first = stream::iter(vec![Ok::<_, std::io::Error>(Bytes::from_static(
            b"line 1\n",
        ))]);
        let body = reqwest::Body::wrap_stream(first.chain(stream::pending()));
        let response = reqwest::Response::from(http::Response::new(body));
        assert_eq!(response.content_length(), None);
        let mut log = into_log_stream(response, None, SkipHead::Ranged(0), "test".into());
        assert_eq!((log.total_bytes, log.skipped_bytes), (None, 0));
        let got = tokio::time::timeout(std::time::Duration::from_secs(5), log.chunks.next())
            .await
            .expect("the first chunk arrives before the body ends");
        assert_eq!(got.unwrap().unwrap(), Bytes::from_static(b"line 1\n"));
    }

    #[test]
    fn content_ranges() {
        let mut response = http::Response::new(reqwest::Body::from(""));
        response.headers_mut().insert(
            CONTENT_RANGE,
            reqwest::header::HeaderValue::from_static("bytes 100-199/2000"),
        );
        let response = reqwest::Response::from(response);
        assert_eq!(content_range(&response), Some((100, Some(2000))));
    }
}
