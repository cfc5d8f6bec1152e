//! The list of tools with their contracts (name, description, schemas, annotations), and
//! dispatch by name with JSON arguments. Arguments that do not fit the input schema are one
//! `user` error naming every bad argument.

use futures::future::BoxFuture;
use resolve_pr_core::{Error, Result};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Context, arguments};

/// MCP tool annotations: hints to clients about what a call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Annotations {
    /// Changes nothing on the forge.
    pub read_only: bool,
    /// May destroy or overwrite something (only meaningful when not read-only).
    pub destructive: bool,
    /// Calling twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// Talks to an outside system (a forge).
    pub open_world: bool,
}

/// A tool's result: the structured output (validates against `output_schema`) and a short
/// text rendering for clients that only show text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub structured: Value,
    pub text: String,
}

/// The context, the tool's input schema (to word argument errors) and the arguments.
type CallFn = for<'a> fn(&'a Context, &'a Value, Value) -> BoxFuture<'a, Result<ToolOutput>>;

/// One tool's contract and entry point.
#[derive(Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The group `--toolsets` selects by.
    pub toolset: &'static str,
    pub annotations: Annotations,
    pub input_schema: Value,
    pub output_schema: Value,
    call: CallFn,
    runs_long: fn(&Value) -> bool,
}

impl ToolSpec {
    /// Whether the tool changes anything on a forge (removed under `--read-only`).
    pub fn writes(&self) -> bool {
        !self.annotations.read_only
    }

    pub async fn call(&self, ctx: &Context, args: Value) -> Result<ToolOutput> {
        (self.call)(ctx, &self.input_schema, args).await
    }

    /// Whether a call with these arguments may take minutes (waiting for CI): worth running
    /// as an MCP task where the client supports tasks, instead of holding the request open.
    pub fn runs_long(&self, args: &Value) -> bool {
        (self.runs_long)(args)
    }
}

/// What a tool module provides to be registered.
pub(crate) trait Tool {
    const NAME: &'static str;
    const TITLE: &'static str;
    const DESCRIPTION: &'static str;
    const TOOLSET: &'static str;
    const ANNOTATIONS: Annotations;
    type Input: DeserializeOwned + JsonSchema + Send;
    type Output: Serialize + JsonSchema;

    /// `raw` is the arguments as given, for binding cursors to them.
    fn run<'a>(
        ctx: &'a Context,
        input: Self::Input,
        raw: &'a Value,
    ) -> impl std::future::Future<Output = Result<Self::Output>> + Send + 'a;

    fn render(output: &Self::Output) -> String;

    /// Whether a call with these (unvalidated) arguments may take minutes.
    fn runs_long(_args: &Value) -> bool {
        false
    }
}

fn spec<T: Tool>() -> ToolSpec {
    fn call<'a, T: Tool>(
        ctx: &'a Context,
        input_schema: &'a Value,
        args: Value,
    ) -> BoxFuture<'a, Result<ToolOutput>> {
        Box::pin(async move {
            let input: T::Input = parse_args(T::NAME, input_schema, &args)?;
            let output = T::run(ctx, input, &args).await?;
            // The text is shown to people as it is: text from a forge or a log in it must
            // not be able to drive their terminal.
            let text = resolve_pr_core::terminal::printable(&T::render(&output)).into_owned();
            let structured = serde_json::to_value(&output).map_err(|e| {
                Error::unknown(format!(
                    "could not serialize the result of {}: {e}",
                    T::NAME
                ))
            })?;
            Ok(ToolOutput { structured, text })
        })
    }
    ToolSpec {
        name: T::NAME,
        title: T::TITLE,
        description: T::DESCRIPTION,
        toolset: T::TOOLSET,
        annotations: T::ANNOTATIONS,
        input_schema: crate::schema::input::<T::Input>(),
        output_schema: crate::schema::output::<T::Output>(),
        call: call::<T>,
        runs_long: T::runs_long,
    }
}

/// The arguments as the tool's input type. serde decides; when it refuses, the input schema
/// says what every bad argument should have been, so one answer fixes them all.
fn parse_args<T: DeserializeOwned>(tool: &str, input_schema: &Value, args: &Value) -> Result<T> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args.clone()
    };
    if !args.is_object() {
        return Err(Error::user(format!(
            "the arguments of {tool} must be a JSON object, not {}",
            arguments::kind_of(&args)
        ))
        .with_detail("given", arguments::kind_of(&args))
        .with_suggestion(format!(
            "Pass the arguments by name in an object; {tool}'s input schema lists them \
             (tools/list over MCP, or `resolve-pr tools --json`)."
        )));
    }
    serde_json::from_value(args.clone()).map_err(|e| {
        let problems = arguments::problems(tool, input_schema, &args);
        let error = if problems.is_empty() {
            // serde refused what the schema allows: its own words are all there is.
            Error::user(format!("invalid arguments for {tool}: {e}"))
        } else {
            Error::user(format!(
                "invalid arguments for {tool}: {}",
                problems.join("; ")
            ))
            .with_detail("problems", problems)
        };
        error.with_suggestion(format!(
            "Fix every argument listed and call {tool} again; its input schema gives each \
             one's type (tools/list over MCP, or `resolve-pr tools --json`)."
        ))
    })
}

/// Every tool, in a stable order.
pub fn all() -> Vec<ToolSpec> {
    vec![
        spec::<crate::pr_comment_list::PrCommentList>(),
        spec::<crate::pr_comment_create::PrCommentCreate>(),
        spec::<crate::find_unresolved_comments::FindUnresolvedComments>(),
        spec::<crate::reply_to_review_thread::ReplyToReviewThread>(),
        spec::<crate::resolve_review_thread::ResolveReviewThread>(),
        spec::<crate::unresolve_review_thread::UnresolveReviewThread>(),
        spec::<crate::get_failing_tests::GetFailingTests>(),
    ]
}

pub fn find(name: &str) -> Option<ToolSpec> {
    all().into_iter().find(|t| t.name == name)
}

/// Calls a tool by name.
pub async fn call(ctx: &Context, name: &str, args: Value) -> Result<ToolOutput> {
    let Some(tool) = find(name) else {
        let names: Vec<&str> = all().iter().map(|t| t.name).collect();
        return Err(Error::user(format!("there is no tool named {name:?}"))
            .with_suggestion(format!("Available tools: {}", names.join(", "))));
    };
    tool.call(ctx, args).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_schema_admits_the_error_model_and_nothing_else() {
        let err = Error::rate_limit("Rate limited")
            .with_retry_after(30)
            .with_detail("status", 429)
            .with_suggestion("wait")
            .with_documentation_url("https://docs.github.com")
            .to_json();
        for tool in all() {
            let validator = jsonschema::validator_for(&tool.output_schema).expect("a valid schema");
            assert!(
                validator.is_valid(&err),
                "{}: the error model must validate",
                tool.name
            );
            assert!(
                !validator.is_valid(&serde_json::json!({"unexpected": true})),
                "{}: the schema must still reject other shapes",
                tool.name
            );
            assert_eq!(
                tool.output_schema["type"], "object",
                "{}: MCP wants an object schema",
                tool.name
            );
        }
    }
}
