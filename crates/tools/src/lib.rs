//! The tools agents call, one module per tool: its input and output types (serde + schemars,
//! so the schemas are derived from the code that reads and writes them) and one async
//! function. This crate knows nothing of MCP; `resolve-pr-mcp` and the CLI both call tools
//! through [`registry`], so a tool behaves the same however it is reached.

pub mod action_commands;
pub mod find_unresolved_comments;
pub mod pr_comment_create;
pub mod pr_comment_list;
pub mod registry;
pub mod reply_to_review_thread;
pub mod resolve_review_thread;
mod shared;
pub mod unresolve_review_thread;

use std::sync::Arc;

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::Forges;

pub use registry::{Annotations, ToolOutput, ToolSpec, all, call, find};

/// What every tool call may use. Built once per process; every call stands alone.
#[derive(Clone)]
pub struct Context {
    pub forges: Arc<Forges>,
    pub cursors: CursorCodec,
}
