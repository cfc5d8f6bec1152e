//! The `rmcp` server handler over the registry: `initialize`, `tools/list` and `tools/call`,
//! with tool errors as `isError` results that carry the error JSON, and cancellation that
//! drops the running call.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Instant;

use resolve_pr_core::Error as ToolError;
use resolve_pr_tools::{Context, ToolOutput, ToolSpec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, ErrorCode, GetTaskParams, GetTaskResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::TaskManager;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::{Error, LineTransport, Progress, Selection, describe, instructions, on_demand};

/// The MCP server: the enabled tools and what their calls need.
#[derive(Clone)]
pub struct Server {
    /// What this connection offers; the agent turns toolsets on at run time where the
    /// selection allows it. Shared by the clones of one server, which serve one connection
    /// (stdio); an HTTP server's selection is fixed (see [`Selection::for_remote_callers`]).
    selection: Arc<RwLock<Selection>>,
    ctx: Context,
    /// Long calls of clients that declared the tasks extension (see `tasks`); `None` over
    /// HTTP, where a per-process task store does not fit (see `HttpServer::bind`).
    tasks: Option<TaskManager>,
}

impl Server {
    /// A server offering `selection` (see [`Selection::new`] for the options).
    /// A server offering `selection`. Under `--read-only` the context refuses every write a
    /// tool would make only when asked (a restack's execute mode).
    pub fn new(mut ctx: Context, selection: Selection) -> Server {
        ctx.read_only = ctx.read_only || selection.read_only();
        Server {
            selection: Arc::new(RwLock::new(selection)),
            ctx,
            tasks: Some(TaskManager::new()),
        }
    }

    /// This server for callers on other machines (the HTTP transport): without the tasks
    /// extension (not advertised, long calls run as plain calls with progress, the task
    /// methods are unknown), and without the server's paths and git credentials
    /// (`LocalSettings::for_remote_callers`), and so without the code tools
    /// (`Selection::for_remote_callers`).
    pub(crate) fn for_remote_callers(mut self) -> Server {
        self.tasks = None;
        let selection = self.selection().for_remote_callers();
        self.selection = Arc::new(RwLock::new(selection));
        self.ctx.local = self.ctx.local.for_remote_callers();
        self
    }

    /// The context of one call: the server's, with the credential an HTTP request carries.
    fn call_context(&self, context: &RequestContext<RoleServer>) -> Result<Context, ErrorData> {
        match crate::http::caller(&context.extensions) {
            crate::http::Caller::Local => Ok(self.ctx.clone()),
            crate::http::Caller::Http(credential) => Ok(self.ctx.with_credential(credential)),
            crate::http::Caller::Unauthenticated => Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                "the request reached the server without a credential",
                None,
            )),
        }
    }

    fn tasks(&self) -> Result<&TaskManager, ErrorData> {
        self.tasks.as_ref().ok_or_else(|| {
            ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "this server does not offer tasks over HTTP; long calls report progress instead",
                None,
            )
        })
    }

    /// What the server offers now.
    pub fn selection(&self) -> Selection {
        self.selection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The enabled tool called `name`. On a server whose agent may turn toolsets on, a tool
    /// of a toolset that is off turns it on, and the client hears that the list changed.
    async fn tool(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<ToolSpec, ErrorData> {
        let turned = {
            let mut selection = self
                .selection
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            match selection.toolset_to_enable(name) {
                Some(set) => selection.enable(&[set]).unwrap_or_default(),
                None => Vec::new(),
            }
        };
        if !turned.is_empty() {
            tracing::info!(tool = name, toolset = %turned[0], "a call turned its toolset on");
            self.list_changed(context).await;
        }
        self.selection
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .find(name)
            .cloned()
            .map_err(|e| unknown_tool(name, &e))
    }

    async fn list_changed(&self, context: &RequestContext<RoleServer>) {
        if let Err(e) = context.peer.notify_tool_list_changed().await {
            tracing::warn!(error = %e, "could not tell the client that tools/list changed");
        }
    }

    /// `list_toolsets` and `enable_toolsets`.
    async fn on_demand(
        &self,
        name: &str,
        args: &Value,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        if name == on_demand::LIST {
            return call_result(Ok(on_demand::list(&self.selection())));
        }
        let asked = match on_demand::requested(args) {
            Ok(asked) => asked,
            Err(e) => return call_result(Err(e)),
        };
        let outcome = {
            let mut selection = self
                .selection
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            selection.enable(&asked).map(|turned| {
                let out = on_demand::enabled(&selection, &asked, &turned);
                (out, !turned.is_empty())
            })
        };
        match outcome {
            Ok((out, changed)) => {
                if changed {
                    tracing::info!(toolsets = ?asked, "toolsets turned on");
                    self.list_changed(context).await;
                }
                call_result(Ok(out))
            }
            Err(e) => call_result(Err(e)),
        }
    }

    /// Serves MCP on stdin/stdout until the client closes the connection. Nothing else may
    /// write to stdout while this runs.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let (transport, written) = LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
        let servers = self.ctx.lsp.clone();
        let served = async {
            let running = self
                .serve(transport)
                .await
                .map_err(|e| Error::Transport(e.to_string()))?;
            running
                .waiting()
                .await
                .map_err(|e| Error::Transport(e.to_string()))?;
            Ok(())
        }
        .await;
        // rmcp has dropped the transport by now, so the writer ends once its queue is empty.
        written.wait().await;
        // The language servers the code tools started: shutdown and exit, not just the end of
        // their input.
        servers.shutdown_all().await;
        served
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let selection = self.selection();
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = if selection.on_demand() {
            capabilities.enable_tool_list_changed()
        } else {
            capabilities
        };
        let capabilities = if self.tasks.is_some() {
            capabilities.enable_tasks().build()
        } else {
            capabilities.build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("resolve-pr", env!("CARGO_PKG_VERSION"))
                    .with_title("resolve-pr"),
            )
            .with_instructions(instructions(&selection))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // A handful of tools fit one page; a cursor from the client is therefore never ours
        // and is ignored like the spec allows for an unpaginated list.
        Ok(ListToolsResult::with_all_items(crate::listed(
            &self.selection(),
        )))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let selection = self.selection();
        if let Ok(tool) = selection.find(name) {
            return Some(describe(tool));
        }
        crate::listed(&selection)
            .into_iter()
            .find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        if on_demand::is_ours(name) && self.selection().on_demand() {
            return Ok(self.on_demand(name, &args, &context).await.into());
        }
        let tool = self.tool(name, &context).await?;
        let call_ctx = self.call_context(&context)?;
        // A long call of a client that declared the tasks extension runs as a task: the
        // client gets a handle now and polls it, so its request timeout cannot end the wait.
        // The extension counts only in the request's own capabilities (2026-07-28 `_meta`),
        // as its specification says: clients that list it at a legacy `initialize` (MCP
        // Inspector's CLI does) expect it to be ignored there, and cannot read a task handle.
        if let Some(tasks) = &self.tasks
            && tool.runs_long(&args)
            && context
                .meta
                .client_capabilities()
                .is_some_and(|caps| caps.supports_tasks())
        {
            let task = crate::tasks::start(tasks, tool.clone(), call_ctx, args);
            tracing::info!(tool = name, task = %task.task_id, "call runs as a task");
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        // A client that sent a progress token hears how a long call (CI wait mode) is going.
        let ctx = match Progress::from_request(&context) {
            Some(progress) => call_ctx.with_progress(std::sync::Arc::new(progress)),
            None => call_ctx,
        };
        let started = Instant::now();
        // rmcp cancels `ct` on `notifications/cancelled` but keeps polling the handler; dropping
        // the call future here is what stops its requests to the forge.
        let outcome = tokio::select! {
            biased;
            () = context.ct.cancelled() => {
                tracing::info!(tool = name, "call cancelled by the client");
                // The SDK drops the response of a cancelled request; this never reaches anyone.
                return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "request cancelled", None));
            }
            outcome = tool.call(&ctx, args) => outcome,
        };
        match &outcome {
            Ok(_) => tracing::info!(
                tool = name,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "call succeeded"
            ),
            Err(e) => tracing::info!(
                tool = name,
                category = e.category.as_str(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "call failed"
            ),
        }
        Ok(call_result(outcome).into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks()?
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // No task of ours asks for input; answers to nothing are ignored, as the spec says.
        self.tasks()?
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks()?.cancel_task(&request.task_id)
    }
}

/// A tool's outcome as a `tools/call` result: structured content and its text rendering, or
/// the error JSON with `isError` so the agent can read the category and suggestion.
pub(crate) fn call_result(outcome: Result<ToolOutput, ToolError>) -> CallToolResult {
    match outcome {
        Ok(out) => {
            let mut result = CallToolResult::structured(out.structured);
            result.content = vec![ContentBlock::text(out.text)];
            if out.failed {
                result.is_error = Some(true);
            }
            result
        }
        Err(e) => {
            let mut result = CallToolResult::structured_error(e.to_json());
            result.content = vec![ContentBlock::text(error_text(&e))];
            result
        }
    }
}

fn error_text(e: &ToolError) -> String {
    let mut text = match &e.code {
        Some(code) => format!("Error ({}, {code}): {}", e.category.as_str(), e.error),
        None => format!("Error ({}): {}", e.category.as_str(), e.error),
    };
    if let Some(s) = &e.suggestion {
        text.push_str("\nSuggestion: ");
        text.push_str(s);
    }
    if let Some(secs) = e.retry_after {
        text.push_str(&format!("\nRetry after {secs} seconds."));
    }
    // Error messages can quote what a forge said.
    resolve_pr_core::terminal::printable(&text).into_owned()
}

/// The spec (server/tools, "Error Handling") lists an unknown tool among the protocol errors,
/// with code -32602. The message names the available tools, since that is what a client shows,
/// and `data` carries the same error JSON a tool error would.
fn unknown_tool(name: &str, e: &ToolError) -> ErrorData {
    let mut message = format!("Unknown tool: {name}: {}", e.error);
    if let Some(s) = &e.suggestion {
        message.push_str(". ");
        message.push_str(s);
    }
    ErrorData::invalid_params(message, Some(e.to_json()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_result_carries_the_error_json_and_a_readable_text() {
        let e = ToolError::user("comment must not be empty")
            .with_detail("field", "comment")
            .with_suggestion("Write something.");
        let r = call_result(Err(e.clone()));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.structured_content, Some(e.to_json()));
        let text = r.content[0].as_text().map(|t| t.text.clone());
        assert_eq!(
            text.as_deref(),
            Some("Error (user): comment must not be empty\nSuggestion: Write something.")
        );
    }

    #[test]
    fn error_text_escapes_what_a_terminal_would_obey() {
        // An error can quote a forge's message, which anyone can shape.
        let e = ToolError::api("GitHub said: bad\u{7}\rok \u{9b}2K\u{202e}gnp.exe");
        let r = call_result(Err(e.clone()));
        let text = r.content[0].as_text().map(|t| t.text.clone()).unwrap();
        assert!(
            !text.contains(resolve_pr_core::terminal::is_hostile),
            "{text:?}"
        );
        assert!(text.contains("bad\\u{7}\\rok"), "{text}");
        assert_eq!(r.structured_content, Some(e.to_json()));
    }

    #[test]
    fn a_failed_action_is_an_error_result_with_what_happened() {
        let r = call_result(Ok(ToolOutput {
            structured: json!({"automation": {"status": "failed"}}),
            text: "restack failed at step 2; rolled back".into(),
            failed: true,
        }));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(
            r.structured_content,
            Some(json!({"automation": {"status": "failed"}}))
        );
        assert_eq!(
            r.content[0].as_text().map(|t| t.text.as_str()),
            Some("restack failed at step 2; rolled back")
        );
    }

    #[test]
    fn success_result_has_structured_content_and_the_tool_text() {
        let r = call_result(Ok(ToolOutput {
            structured: json!({"pr": "o/r#1"}),
            text: "done".into(),
            failed: false,
        }));
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.structured_content, Some(json!({"pr": "o/r#1"})));
        assert_eq!(r.content.len(), 1);
        assert_eq!(
            r.content[0].as_text().map(|t| t.text.as_str()),
            Some("done")
        );
    }
}
