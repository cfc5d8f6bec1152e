//! The MCP server's integration tests, linked as one binary: what tools/list costs and how
//! portable it is (`contract`), the server as a client sees it over an in-process connection
//! (`server`), streamable HTTP (`http`), and long calls as tasks (`tasks`).

mod contract;
mod http;
mod server;
mod tasks;
