//! forge-sim: a real HTTP server that speaks the GitHub REST + GraphQL and the Forgejo/Gitea
//! REST APIs from scenario files, with state, fault injection and a request log. resolve-pr's
//! tests and its `demo` command run against it.
//!
//! Every JSON response it serves is validated against the forges' published API descriptions
//! (vendored under `vendor/api-descriptions/`), and every GraphQL document it receives against
//! GitHub's schema; a mismatch is recorded as a contract violation
//! ([`SimHandle::contract_violations`]), so the simulator cannot drift into a private dialect.
//!
//! It is not a forge: it serves the endpoints listed in `ARCHITECTURE.md` of this crate and
//! answers anything else with the forge's 404.

// The JSON shapes of the forges are large `json!` literals.
#![recursion_limit = "256"]

mod ci;
pub mod contract;
mod fault;
mod forgejo;
mod github;
mod graphql;
mod graphql_cost;
mod scenario;
mod server;
mod state;
mod storage;
mod time;

pub use contract::{graphql_points, validate_graphql, validate_rest};
pub use fault::{Fault, FaultKind};
pub use scenario::{
    AnnotationSpec, ArtifactSpec, BranchProtectionSpec, BranchSpec, Capabilities, CheckRunSpec,
    CommentSpec, ForgeFlavor, GenerateComments, GenerateThreads, IssueSpec, LogGenerate,
    Permission, PullSpec, PullState, RateLimitSpec, RepoSpec, ReviewSpec, ReviewThreadSpec,
    Scenario, StatusSpec, StepSpec, ThreadCommentSpec, TokenSpec, UserKind, UserSpec,
    WorkflowJobSpec, WorkflowRunSpec,
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
