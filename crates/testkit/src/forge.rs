//! Forge clients for tests against the simulator (feature `forge`).

use std::sync::Arc;
use std::time::Duration;

use resolve_pr_forge::{ClientOptions, Config, Forges, RetryPolicy};

/// Retries that end in milliseconds: `max_retries` of them, 10–40 ms apart, 4 s at most in
/// all. Tests that count requests name the number they count on.
pub fn fast_retry(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        max_total_wait: Duration::from_secs(4),
        min_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(40),
    }
}

/// Client options for a test: three fast retries ([`fast_retry`]), 20 s for a request (a
/// loaded CI machine is slow; a test of timeouts sets its own), and nothing read from the
/// developer's environment or their `gh` login.
pub fn fast_options() -> ClientOptions {
    ClientOptions {
        retry: fast_retry(3),
        request_timeout: Duration::from_secs(20),
        env: Arc::new(|_| None),
        gh_cli: false,
        ..ClientOptions::default()
    }
}

/// A router whose one host is the simulator at `base_url` (as `SimHandle::base_url` gives
/// it), configured as a user's config file would: its `kind`, its API URL and `token`.
pub fn forges_for(base_url: &str, kind: &str, token: &str, options: ClientOptions) -> Forges {
    let base = base_url.trim_end_matches('/');
    let host = base.trim_start_matches("http://");
    let file = if kind == "github" {
        format!(
            "[hosts.\"{host}\"]\nkind = \"github\"\napi_url = \"{base}\"\n\
             graphql_url = \"{base}/graphql\"\ntoken = \"{token}\"\n"
        )
    } else {
        format!(
            "[hosts.\"{host}\"]\nkind = \"{kind}\"\napi_url = \"{base}/api/v1\"\n\
             token = \"{token}\"\n"
        )
    };
    let config = Config::from_parts(Some(&file), None, &|_| None).expect("config");
    Forges::with_options(config, options)
}
