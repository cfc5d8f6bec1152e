//! Faults a test injects to see how a client copes with a misbehaving forge: error statuses,
//! latency, dropped connections, truncated and garbage bodies. A fault fires before normal
//! handling for the next `times` requests that match it.

use serde::{Deserialize, Serialize};

/// One injected fault. JSON form (for `POST /_sim/faults`):
/// `{"method": "GET", "path": "/repos/*", "times": 2, "kind": {"status": {"code": 502}}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// HTTP method to match; `None` matches any.
    #[serde(default)]
    pub method: Option<String>,
    /// Exact request path, or a prefix when it ends with `*`.
    pub path: String,
    /// How many matching requests it affects.
    #[serde(default = "one")]
    pub times: u32,
    pub kind: FaultKind,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FaultKind {
    /// Answer with this status, headers and body instead of the real response, e.g. 502, or
    /// 429/403 with `retry-after` or `x-ratelimit-remaining: 0` + `x-ratelimit-reset`.
    Status {
        code: u16,
        #[serde(default)]
        headers: Vec<(String, String)>,
        #[serde(default)]
        body: String,
    },
    /// Wait, then serve normally.
    Latency { ms: u64 },
    /// Drop the TCP connection without a response.
    ResetConnection,
    /// Send the real headers with a Content-Length larger than the body, then close.
    TruncatedBody,
    /// 200 with a body that is not JSON.
    Garbage,
    /// For `POST /graphql`: still 200, but the body carries GraphQL `errors` — GitHub's way
    /// of failing a query (timeouts, rate limits, server errors). With `keep_data` the real
    /// `data` stays beside the error (a partial result); otherwise `data` is null.
    GraphqlError {
        message: String,
        /// GitHub's `type`, e.g. `RATE_LIMITED`, `INTERNAL`; omitted when `None`.
        #[serde(default, rename = "type")]
        error_type: Option<String>,
        #[serde(default)]
        keep_data: bool,
    },
}

impl Fault {
    pub(crate) fn matches(&self, method: &str, path: &str) -> bool {
        if self.times == 0 {
            return false;
        }
        if self
            .method
            .as_ref()
            .is_some_and(|m| !m.eq_ignore_ascii_case(method))
        {
            return false;
        }
        match self.path.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => self.path == path,
        }
    }
}

/// Takes the first fault matching the request, counting it down and dropping spent ones.
pub(crate) fn take_matching(
    faults: &mut Vec<Fault>,
    method: &str,
    path: &str,
) -> Option<FaultKind> {
    let index = faults.iter().position(|f| f.matches(method, path))?;
    let fault = &mut faults[index];
    fault.times -= 1;
    let kind = fault.kind.clone();
    if fault.times == 0 {
        faults.remove(index);
    }
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_and_matches_prefixes() {
        let mut faults = vec![Fault {
            method: Some("GET".into()),
            path: "/repos/*".into(),
            times: 2,
            kind: FaultKind::Garbage,
        }];
        assert_eq!(take_matching(&mut faults, "POST", "/repos/o/r"), None);
        assert_eq!(take_matching(&mut faults, "get", "/user"), None);
        assert_eq!(
            take_matching(&mut faults, "GET", "/repos/o/r"),
            Some(FaultKind::Garbage)
        );
        assert_eq!(
            take_matching(&mut faults, "GET", "/repos/x"),
            Some(FaultKind::Garbage)
        );
        assert_eq!(take_matching(&mut faults, "GET", "/repos/o/r"), None);
        assert!(faults.is_empty());
    }

    #[test]
    fn parses_the_control_endpoint_form() {
        let f: Fault = serde_json::from_str(
            r#"{"path":"/user","times":1,"kind":{"status":{"code":429,"headers":[["retry-after","1"]]}}}"#,
        )
        .unwrap();
        assert_eq!(f.method, None);
        assert!(matches!(f.kind, FaultKind::Status { code: 429, .. }));
        let f: Fault = serde_json::from_str(r#"{"path":"/x","kind":"reset_connection"}"#).unwrap();
        assert_eq!((f.times, f.kind), (1, FaultKind::ResetConnection));
    }
}
