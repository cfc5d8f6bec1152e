//! `resolve-pr serve`: the MCP server on stdio, or over streamable HTTP with `--http`.
//! Everything that can be wrong with the setup (an unknown toolset, a broken config file, an
//! unsafe listen address) fails here, before a client connects, with a message a person can
//! act on.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use resolve_pr_mcp::{HttpOptions, HttpServer, Options, Selection, Server};

/// `--http` and the flags that only mean something with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Http {
    pub listen: SocketAddr,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub allow_server_token: bool,
    pub shutdown_grace: Duration,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub max_connections: Option<usize>,
}

pub async fn run(options: &Options, http: Option<Http>) -> anyhow::Result<()> {
    // A typo in --toolsets is named before anything else is read.
    Selection::new(options).context("cannot start the MCP server")?;
    let mut ctx = crate::context_from_environment().map_err(|e| {
        let mut message = e.error.clone();
        if let Some(s) = &e.suggestion {
            message.push_str("\n  ");
            message.push_str(&s.replace('\n', "\n  "));
        }
        anyhow!(message)
    })?;
    // Without --toolsets, the config file's `[server] toolsets` (else the default ones).
    let mut options = options.clone();
    if options.toolsets.is_none() {
        options.toolsets = ctx.forges.config().toolsets.clone();
    }
    let selection = Selection::new(&options).with_context(|| {
        format!(
            "cannot start the MCP server: [server] toolsets in {}",
            ctx.forges
                .config()
                .path
                .as_deref()
                .map_or("the config file".into(), |p| p.display().to_string())
        )
    })?;
    ctx.read_only = options.read_only;
    let server = Server::new(ctx, selection);
    let Some(http) = http else {
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            tools = server.selection().names().join(","),
            read_only = options.read_only,
            "serving MCP on stdio"
        );
        server.serve_stdio().await?;
        tracing::info!("the client closed the connection");
        return Ok(());
    };
    // Every connection takes a descriptor; the connection limit is set below this limit.
    resolve_pr_mcp::raise_descriptor_limit();
    let tools = server.selection().names().join(",");
    let listening = HttpServer::bind(
        server,
        HttpOptions {
            listen: http.listen,
            allowed_hosts: http.allowed_hosts,
            allowed_origins: http.allowed_origins,
            allow_server_token: http.allow_server_token,
            shutdown_grace: http.shutdown_grace,
            header_timeout: http.header_timeout,
            body_timeout: http.body_timeout,
            max_connections: http.max_connections,
        },
    )
    .await?;
    let url = listening.url()?;
    let shutdown = shutdown_signal()?;
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        tools,
        read_only = options.read_only,
        allow_server_token = http.allow_server_token,
        "serving MCP over HTTP"
    );
    announce(&url);
    listening.run(shutdown).await?;
    Ok(())
}

/// The one line scripts wait for (a port of 0 is the system's choice): keep its format.
#[allow(
    clippy::print_stderr,
    reason = "the contract with scripts and tests that start the server on port 0"
)]
fn announce(url: &str) {
    eprintln!("listening on {url}");
}

/// Resolves on the first SIGTERM or SIGINT (Ctrl-C). The handlers are installed now, so a
/// signal that arrives while the server starts is not lost.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()> + Send> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => tracing::info!("SIGTERM received"),
                _ = int.recv() => tracing::info!("SIGINT received"),
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("Ctrl-C received");
        })
    }
}
