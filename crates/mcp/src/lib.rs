//! The MCP face of resolve-pr: publishes the tools of `resolve-pr-tools` over the official
//! Rust SDK (`rmcp`), on stdio or streamable HTTP (`HttpServer`: each request with its
//! caller's token), maps tool errors to `isError` results with structured content, and
//! applies `--read-only` and `--toolsets`, and turns toolsets on when an agent asks
//! (`list_toolsets`, `enable_toolsets`: see `on_demand`).
//!
//! Not here: what a tool does (that is `resolve-pr-tools`), process setup, logging and the
//! cursor key (that is the `resolve-pr` binary; `raise_descriptor_limit` is here because the
//! HTTP connection limit is derived from that limit, but only the binary calls it). The
//! registry is the one source of truth for names, descriptions and schemas; this crate only
//! translates it, so the CLI's `tools --json` and MCP `tools/list` cannot disagree.

// `resolve_pr_core::Error` is the project's one error type and is returned by value everywhere;
// whether to box it is the core crate's call, not each caller's.

mod contract;
mod http;
mod instructions;
mod message;
mod on_demand;
mod progress;
mod selection;
mod server;
mod stdio;
mod tasks;

pub use contract::{describe, listed, tools_list_json};
pub use http::{HttpOptions, HttpServer, MCP_PATH, raise_descriptor_limit};
pub use instructions::instructions;
pub use message::MAX_MESSAGE_BYTES;
pub use progress::Progress;
pub use selection::{Options, Selection};
pub use server::Server;
pub use stdio::{LineTransport, Written};

/// Why the server could not start or stopped abnormally. Tool failures are not here: they are
/// results the agent sees (`isError`), not failures of the server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unknown toolset {given:?}; valid toolsets: {}", valid.join(", "))]
    UnknownToolset { given: String, valid: Vec<String> },
    #[error("--toolsets was given but names no toolset; valid toolsets: {}", valid.join(", "))]
    NoToolsets { valid: Vec<String> },
    #[error(
        "the {schema} schema of tool {tool} is not a JSON Schema of type \"object\", which MCP requires"
    )]
    Contract { tool: String, schema: &'static str },
    #[error("cannot serve MCP over HTTP: {}", .0.join("; "))]
    HttpOptions(Vec<String>),
    #[error("cannot listen on {address}: {reason}")]
    Bind {
        address: std::net::SocketAddr,
        reason: String,
    },
    #[error("the MCP connection failed: {0}")]
    Transport(String),
}
