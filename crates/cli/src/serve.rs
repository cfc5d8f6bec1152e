//! `resolve-pr serve`: the MCP server on stdio. Everything that can be wrong with the setup
//! (an unknown toolset, a broken config file) fails here, before the client connects, with a
//! message a person can act on.

use anyhow::{Context as _, anyhow};
use resolve_pr_mcp::{Options, Selection, Server};

pub async fn run(options: &Options) -> anyhow::Result<()> {
    let selection = Selection::new(options).context("cannot start the MCP server")?;
    let mut ctx = crate::context_from_environment().map_err(|e| {
        let mut message = e.error.clone();
        if let Some(s) = &e.suggestion {
            message.push_str("\n  ");
            message.push_str(&s.replace('\n', "\n  "));
        }
        anyhow!(message)
    })?;
    ctx.read_only = options.read_only;
    let server = Server::new(ctx, selection);
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        tools = server.selection().names().join(","),
        read_only = options.read_only,
        "serving MCP on stdio"
    );
    server.serve_stdio().await?;
    tracing::info!("the client closed the connection");
    Ok(())
}
