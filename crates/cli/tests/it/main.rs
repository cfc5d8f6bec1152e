//! The command line's integration tests: the built `resolve-pr` binary run as a process (over
//! stdio and `serve --http`) and the README's promises about it, one module per area, linked as
//! one test binary (`cargo test -p resolve-pr --test it`).

/// Held by the tests that load the machine or count connections against limits (the HTTP
/// load test, the descriptor-limit test): in one test binary they would otherwise run at the
/// same time and each skew the other's figures.
pub static ALONE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

mod broken_pipe;
mod ci_parse;
// Needs the binary's `demo` command (a default feature).
#[cfg(feature = "demo")]
mod demo;
mod http_load;
mod readme;
mod serve_http;
mod serve_stdio;
