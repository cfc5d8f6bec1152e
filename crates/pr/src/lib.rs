//! Answers about a pull request, composed from what the forge reports, what the `ci` crate
//! reads in logs and what the local repository holds (`resolve-pr-git`): the state of its CI
//! ([`ci_state`]), the review feedback that still needs an answer ([`review_feedback`]),
//! whether it merges cleanly ([`conflicts`]), how to restack PRs built on it ([`stack`]),
//! whether it can merge now ([`readiness`]), what a change touches, how risky it is and who
//! should review it ([`impact`]), and what reviewing it needs ([`review`]: file categories,
//! focus points, diff excerpts within a budget, issue references, public API changes).
//!
//! Answers are plain Rust types. This crate does not know about tools' output shapes: no
//! serde contract, no JSON Schema, no MCP, no cursors or pages, no commands to run. The
//! `tools` crate maps these answers to the contracts agents see.

pub mod ci_state;
pub mod conflicts;
pub mod impact;
pub mod patch;
pub mod readiness;
pub mod review;
pub mod review_feedback;
pub mod stack;

pub use ci_state::{CiState, JobCache, ci_state};
