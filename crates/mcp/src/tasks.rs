//! Long calls as MCP tasks (the `io.modelcontextprotocol/tasks` extension): a client that
//! declares the extension gets a task handle at once for a call that may take minutes
//! (`get_failing_tests` with `wait`), and polls `tasks/get` for its status and result. No
//! request then stays open long enough for the client's own timeout to kill it.
//!
//! rmcp's `TaskManager` keeps the tasks; this module decides how a tool call runs as one.

use std::sync::Arc;
use std::time::Duration;

use resolve_pr_tools::{BoxFuture, Context, ProgressSink, ToolSpec};
use rmcp::model::Task;
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use serde_json::Value;

use crate::server::call_result;

/// How long a finished or abandoned task is kept beyond the longest wait: a client that
/// polls late still finds its result.
const GRACE: Duration = Duration::from_secs(10 * 60);

/// Progress of a call running as a task becomes the task's status message, which
/// `tasks/get` shows: there is no request left to send progress notifications on.
struct StatusMessage(TaskContext);

impl ProgressSink for StatusMessage {
    fn report(&self, _progress: f64, _total: Option<f64>, message: String) -> BoxFuture<'_, ()> {
        self.0.set_status_message(message);
        Box::pin(async {})
    }
}

/// Starts `tool` as a task and returns its seed state for the `CreateTaskResult`. The call
/// hears progress (so it may wait as long as the CI wait cap allows), and `tasks/cancel`
/// drops it at once, like `notifications/cancelled` drops a plain call.
pub(crate) fn start(tasks: &TaskManager, tool: ToolSpec, ctx: Context, args: Value) -> Task {
    let ttl = ctx.ci.wait_cap.saturating_add(GRACE);
    let poll = ctx.ci.poll_min.max(Duration::from_millis(1));
    let options = TaskOptions::new()
        .with_ttl_ms(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
        .with_poll_interval_ms(u64::try_from(poll.as_millis()).unwrap_or(u64::MAX))
        .with_status_message(format!("{} started", tool.name));
    tasks.spawn(options, move |task| {
        Box::pin(async move {
            let ctx = ctx.with_progress(Arc::new(StatusMessage(task.clone())));
            tokio::select! {
                biased;
                () = task.cancelled() => {
                    tracing::info!(tool = tool.name, task = task.task_id(), "task cancelled");
                    Err(TaskExit::Cancelled)
                }
                outcome = tool.call(&ctx, args) => {
                    tracing::info!(tool = tool.name, task = task.task_id(), ok = outcome.is_ok(), "task done");
                    Ok(call_result(outcome))
                }
            }
        })
    })
}
