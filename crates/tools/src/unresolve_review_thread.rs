//! `unresolve_review_thread`: reopens a resolved review thread of a pull request, the mirror
//! of `resolve_review_thread` (same input, output and checks). Idempotent.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};
use crate::resolve_review_thread::{ANNOTATIONS, Input, Output, render, set_resolved};

pub struct UnresolveReviewThread;

impl Tool for UnresolveReviewThread {
    const NAME: &'static str = "unresolve_review_thread";
    const TITLE: &'static str = "Unresolve a review thread";
    const DESCRIPTION: &'static str = "Reopen a resolved review thread of a pull request, e.g. \
when its fix turned out incomplete. Works like resolve_review_thread: a thread that is not \
resolved is a success with changed: false.";
    const TOOLSET: crate::Toolset = crate::Toolset::Reviews;
    const ANNOTATIONS: Annotations = ANNOTATIONS;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        set_resolved(ctx, input, false).await
    }

    fn render(out: &Output) -> String {
        render(out)
    }
}
