//! Every GraphQL document the GitHub client sends, in one place, so a test can validate each
//! against GitHub's published schema and a reviewer sees the whole GraphQL surface at once.

/// The login behind the token: a cheap way to check a token works.
pub const VIEWER: &str = "query Viewer { viewer { login } }";

/// The GraphQL rate-limit budget of the token (GraphQL has its own, point-based limit).
pub const RATE_LIMIT: &str = "query RateLimit { rateLimit { limit remaining resetAt cost } }";

/// `(name, document)` of every document above.
pub const ALL: &[(&str, &str)] = &[("VIEWER", VIEWER), ("RATE_LIMIT", RATE_LIMIT)];
