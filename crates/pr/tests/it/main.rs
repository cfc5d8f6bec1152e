//! The PR layer's integration tests, one module per area, linked as one test binary
//! (`cargo test -p resolve-pr-pr --test it`).

mod readiness;
mod review_excerpts;
mod review_focus;
mod review_references;
mod review_support;
