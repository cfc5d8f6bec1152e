//! The forge clients' integration tests against the simulator, one module per area, linked as
//! one test binary (`cargo test -p resolve-pr-forge --test it`).

mod capabilities;
mod ci;
mod clients;
mod contents;
mod etag_pages;
mod readiness_forgejo;
mod readiness_github;
mod retry_bounds;
mod stacks;
mod threads;
