//! `resolve_review_thread`: marks a review thread of a pull request resolved, after checking
//! that the thread belongs to it. Idempotent: an already resolved thread is a success that
//! says nothing changed. `unresolve_review_thread` is the same operation the other way.

use resolve_pr_core::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};
use crate::shared::{excerpt, find_thread, pr_from_ref, thread_selector};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// From find_unresolved_comments. Give this or comment_id.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The id of any comment in the thread. Give this or thread_id.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub comment_id: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub thread_id: String,
    pub was_resolved: bool,
    /// As the forge reports it after the call.
    pub is_resolved: bool,
    /// false: it already was as asked.
    pub changed: bool,
    pub note: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_number: Option<u64>,
    /// Its first 80 characters.
    pub first_comment: String,
    /// Of the first comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html_url: Option<String>,
}

pub struct ResolveReviewThread;

pub(crate) const ANNOTATIONS: Annotations = Annotations {
    read_only: false,
    destructive: false,
    idempotent: true,
    open_world: true,
};

impl Tool for ResolveReviewThread {
    const NAME: &'static str = "resolve_review_thread";
    const TITLE: &'static str = "Resolve a review thread";
    const DESCRIPTION: &'static str = "Mark a review thread of a pull request resolved (GitHub, \
GitHub Enterprise, Gitea 1.26+), ONLY after the fix it asks for is verified. Idempotent: an \
already resolved thread is a success with changed: false. Undo with unresolve_review_thread.";
    const TOOLSET: crate::Toolset = crate::Toolset::Reviews;
    const ANNOTATIONS: Annotations = ANNOTATIONS;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        set_resolved(ctx, input, true).await
    }

    fn render(out: &Output) -> String {
        render(out)
    }
}

/// Resolves (`resolved`) or unresolves the thread the input names.
pub(crate) async fn set_resolved(ctx: &Context, input: Input, resolved: bool) -> Result<Output> {
    let mut problems = Vec::new();
    let selector = thread_selector(input.thread_id.as_deref(), input.comment_id, &mut problems);
    let pr = pr_from_ref(&input.pr, problems)?;
    let Some(selector) = selector else {
        // pr_from_ref already failed with the selector's problem; this satisfies the types.
        return Err(Error::user("give thread_id or comment_id"));
    };
    let forge = ctx.forge(&pr.repo)?;
    // The forge refuses a thread of another PR here, before any write.
    let before = find_thread(forge.as_ref(), &pr, &selector).await?;
    let was_resolved = before.is_resolved;
    let (after, changed) = if was_resolved == resolved {
        (before, false)
    } else {
        let after = forge
            .threads()
            .set_review_thread_resolved(&pr, &before.id, resolved)
            .await?;
        (after, true)
    };
    let state = if resolved { "resolved" } else { "unresolved" };
    let note = if changed {
        format!("The thread is now {state}.")
    } else {
        format!("The thread was already {state}; nothing changed.")
    };
    let root = after.comments.first();
    Ok(Output {
        pr: pr.to_string(),
        thread_id: after.id.clone(),
        was_resolved,
        is_resolved: after.is_resolved,
        changed,
        note,
        file_path: after.path.clone(),
        line_number: after.line,
        first_comment: excerpt(root.map_or("", |c| c.body.as_str()), 80),
        html_url: root.map(|c| c.html_url.clone()),
    })
}

pub(crate) fn render(out: &Output) -> String {
    let place = match (&out.file_path, out.line_number) {
        (Some(p), Some(l)) => format!(" on {p}:{l}"),
        (Some(p), None) => format!(" on {p}"),
        _ => String::new(),
    };
    format!(
        "{} Thread {}{} of {}: '{}'",
        out.note, out.thread_id, place, out.pr, out.first_comment
    )
}
