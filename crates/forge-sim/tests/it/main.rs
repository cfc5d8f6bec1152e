//! The simulator's integration tests, one module per area, linked as one test binary
//! (`cargo test -p resolve-pr-forge-sim --test it`).

mod binary;
mod ci;
mod common;
mod faults;
mod forgejo;
mod git_http;
mod github;
mod private_visibility;
mod readiness;
mod review_conversations_forgejo;
mod review_threads_github;
