//! forge-sim: a real HTTP server that speaks the GitHub REST + GraphQL and the Forgejo/Gitea
//! REST APIs from scenario files, with state, fault injection and a request log. resolve-pr's
//! tests and its `demo` command run against it.
//!
//! With its default features, every JSON response it serves is validated against the forges'
//! published API descriptions (vendored under `vendor/api-descriptions/`), and every GraphQL
//! document it receives against GitHub's schema; a mismatch is recorded as a contract violation
//! ([`SimHandle::contract_violations`]), so the simulator cannot drift into a private dialect.
//!
//! It is not a forge: it serves the endpoints listed in `ARCHITECTURE.md` of this crate and
//! answers anything else with the forge's 404.
//!
//! Features (all default; tests take them all): `contract` (REST responses checked against
//! the vendored descriptions), `graphql` (GitHub's GraphQL endpoint, its schema and points
//! pricing), `faults` (fault injection), `test-scenarios` (the built-in scenarios other than
//! `demo-github` and `demo-forgejo`). `resolve-pr demo` uses the simulator without any of
//! them, so the released binary carries none of that test machinery.

// The JSON shapes of the forges are large `json!` literals.
#![recursion_limit = "256"]
// Without every feature (the demo's build), parts of the shared state serve only the features
// left out (GraphQL node ids, minimized comments); dead code is checked in the full build.
#![cfg_attr(
    not(all(feature = "contract", feature = "faults", feature = "graphql")),
    allow(dead_code)
)]

mod ci;
mod contents;
#[cfg(feature = "contract")]
pub mod contract;
#[cfg(feature = "faults")]
mod fault;
mod forgejo;
mod forgejo_readiness;
mod git_http;
mod github;
#[cfg(feature = "graphql")]
mod graphql;
#[cfg(feature = "graphql")]
mod graphql_cost;
#[cfg(feature = "graphql")]
mod graphql_schema;
mod issues;
mod readiness;
mod review_requests;
mod scenario;
mod server;
mod state;
mod storage;
mod time;

pub use contents::{CommitSpec, ContentsSpec, FileSpec, TreeSpec};
#[cfg(feature = "contract")]
pub use contract::validate_rest;
#[cfg(feature = "faults")]
pub use fault::{Fault, FaultKind};
#[cfg(feature = "graphql")]
pub use graphql_schema::{graphql_points, validate_graphql};
pub use readiness::{MergeRulesSpec, ReadinessSpec};
pub use scenario::{
    AnnotationSpec, ArtifactSpec, BranchProtectionSpec, BranchSpec, Capabilities, CheckRunSpec,
    CommentSpec, ForgeFlavor, GenerateComments, GenerateThreads, IssueSpec, IssueState,
    LogGenerate, Permission, PullSpec, PullState, RateLimitSpec, RepoSpec, ReviewSpec,
    ReviewThreadSpec, Scenario, StatusSpec, StepSpec, ThreadCommentSpec, TokenSpec, UserKind,
    UserSpec, WorkflowJobSpec, WorkflowRunSpec,
};
pub use server::{RecordedRequest, Sim, SimHandle, StorageRequest};

/// What can go wrong loading a scenario or starting the server.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("invalid scenario: {0}")]
    Scenario(String),
    #[error("cannot read scenario file {path}: {source}")]
    ReadScenario {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("cannot bind the simulator's listening socket: {0}")]
    Bind(std::io::Error),
}
