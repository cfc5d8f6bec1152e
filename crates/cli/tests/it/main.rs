//! The command line's integration tests: the built `resolve-pr` binary run as a process (over
//! stdio and `serve --http`) and the README's promises about it, one module per area, linked as
//! one test binary (`cargo test -p resolve-pr --test it`).

mod broken_pipe;
mod ci_parse;
// Needs the binary's `demo` command (a default feature).
#[cfg(feature = "demo")]
mod demo;
mod http_load;
mod readme;
mod serve_http;
mod serve_stdio;
