//! Answers about a pull request, composed from what the forge reports and what the `ci`
//! crate reads in logs: the state of its CI ([`ci_state`]) and the review feedback that still
//! needs an answer ([`review_feedback`]). Merge readiness, impact and restack plans come here
//! next.
//!
//! Answers are plain Rust types. This crate does not know about tools' output shapes: no
//! serde contract, no JSON Schema, no MCP, no cursors or pages, no commands to run. The
//! `tools` crate maps these answers to the contracts agents see.

pub mod ci_state;
pub mod review_feedback;

pub use ci_state::{CiState, JobCache, ci_state};
