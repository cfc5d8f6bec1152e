//! Progress notifications for long calls (`get_failing_tests` with `wait`): a client
//! that sends `_meta.progressToken` with a call gets `notifications/progress` for that token.
//! Without a token there is nobody to tell, so there is no `Progress` either.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};

/// Sends progress for one request.
#[derive(Clone)]
pub struct Progress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

impl Progress {
    /// The progress channel of a request, if the client asked for one.
    pub fn from_request(request: &RequestContext<RoleServer>) -> Option<Progress> {
        let token = request.meta.get_progress_token()?;
        Some(Progress {
            peer: request.peer.clone(),
            token,
        })
    }

    /// Tells the client how far the call is. MCP requires `progress` to grow with every
    /// notification; `total` is given when known.
    pub async fn report(&self, progress: f64, total: Option<f64>, message: impl Into<String>) {
        let mut param = ProgressNotificationParam::new(self.token.clone(), progress);
        param.total = total;
        param.message = Some(message.into());
        // A client that went away cannot be told; the call itself goes on or is cancelled
        // through its own token.
        if let Err(e) = self.peer.notify_progress(param).await {
            tracing::debug!(error = %e, "could not send a progress notification");
        }
    }
}

/// Tools report progress through this (they know nothing of MCP).
impl resolve_pr_tools::ProgressSink for Progress {
    fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: String,
    ) -> resolve_pr_tools::BoxFuture<'_, ()> {
        Box::pin(Progress::report(self, progress, total, message))
    }
}
