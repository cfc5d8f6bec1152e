//! The list of tools with their contracts (name, description, schemas, annotations), and
//! dispatch by name with JSON arguments. Arguments that do not fit the input schema are one
//! `user` error naming every bad argument.
//!
//! The list itself is the [`tools!`] invocation in `lib.rs`: one line per tool, which also
//! declares the tool's module. Everything else (MCP tools/list, the server's instructions,
//! `resolve-pr tools`, the tests' lists of tools, the contract snapshots) reads it from here.

use futures::future::BoxFuture;
use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Context, arguments};

/// The groups tools are offered by (`--toolsets`, and enabled on demand by an agent). Each
/// toolset owns what the server says about it: one line for the list of toolsets, whether it
/// is on by default, and its part of the server's instructions. Declared in the order of
/// their names, which is the order they are listed in (instructions, error messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Toolset {
    /// Seed 002's code analysis of the local checkout by tree-sitter: quality, dead code,
    /// dependencies and cycles, structure, documentation, tests (`analyze_*`).
    Analysis,
    /// Why CI failed: `get_failing_tests`.
    Ci,
    /// Code intelligence over the local checkout through language servers: navigation,
    /// symbols, diagnostics, call hierarchy, their health.
    Code,
    /// Conversations: pull requests (listing and reading them) and issues, and their comments.
    Comments,
    /// The local repository: merge conflicts and restacking stacked PRs.
    Git,
    /// Seed 002's internal API: plumbing for scripts and other servers (file reads and
    /// writes through the edit layer, language-server lifecycle notifications, completions,
    /// a `WorkspaceEdit` applied as a plan). Hidden: offered only when named, never by `all`
    /// or on demand.
    Internal,
    /// What a pull request changes and how to review it: `analyze_pr_impact`,
    /// `get_review_suggestions`. (Not seed 002's code analysis, which reads a checkout.)
    Impact,
    /// Whether a pull request can merge now: `check_merge_readiness`.
    Merge,
    /// Refactoring the local checkout as plans: previewed, applied exactly, undoable
    /// (seed 002's refactoring tools and `find_replace`, over the `edit` layer).
    Refactor,
    /// Review threads: finding, answering and resolving them.
    Reviews,
    /// Seed 002's workspace tools: packages created, their dependencies extracted and the
    /// workspace's members updated, as plans verified by the ecosystem's own tool.
    Workspace,
}

/// What every code-intelligence tool shares, said once in the instructions rather than in
/// each schema.
const CODE_CONVENTIONS: &str = "Code tools read the checkout in directory (default: the \
server's working directory) through language servers. Positions in arguments and structured \
output count from 0 (line, and character in UTF-16 units, as LSP does); text and warnings \
show file:line:column from 1, as editors do; a range's end is exclusive; file_path is relative to \
the directory. Name a target by file_path and position, by symbol ('add', 'Circle::area'), or \
by from_failure ('src/lib.rs:42', a failure's line). partial: true means the server was still \
indexing. Errors carry a code (SERVER_NOT_INSTALLED with the install command, SYMBOL_NOT_FOUND, \
INVALID_POSITION, ...).";

/// What every analysis tool shares.
const ANALYSIS_CONVENTIONS: &str = "Analysis tools read the checkout in directory by tree-sitter \
(no language server). scope: {type: workspace|directory|file|symbol, path, symbol_name, include, \
exclude} (.gitignore honoured); options.limit (1-5000, default 1000) and options.offset page the \
findings, whose ids are stable. A finding's suggestions[].refactor_call is a refactoring tool's \
call, ready to plan.";

/// What every refactoring tool shares.
const REFACTOR_CONVENTIONS: &str = "Refactoring tools plan first: dry_run (default true) writes \
nothing and answers a plan_id, the unified diff and each file's sha256. Apply exactly that plan \
with dry_run: false and plan_id (refused with CHECKSUM_MISMATCH or STALE_PLAN if a file changed \
since); dry_run: false alone plans and applies at once. An apply answers a snapshot_id: \
rollback undoes it. Targets and positions are as the code tools take them.";

impl Toolset {
    /// Every toolset, sorted by name.
    pub const ALL: [Toolset; 11] = [
        Toolset::Analysis,
        Toolset::Ci,
        Toolset::Code,
        Toolset::Comments,
        Toolset::Git,
        Toolset::Impact,
        Toolset::Internal,
        Toolset::Merge,
        Toolset::Refactor,
        Toolset::Reviews,
        Toolset::Workspace,
    ];

    /// The name `--toolsets` takes and tools/list shows.
    pub const fn as_str(self) -> &'static str {
        match self {
            Toolset::Analysis => "analysis",
            Toolset::Ci => "ci",
            Toolset::Code => "code",
            Toolset::Comments => "comments",
            Toolset::Git => "git",
            Toolset::Impact => "impact",
            Toolset::Internal => "internal",
            Toolset::Merge => "merge",
            Toolset::Refactor => "refactor",
            Toolset::Reviews => "reviews",
            Toolset::Workspace => "workspace",
        }
    }

    /// The toolset called `name` exactly (names are lower case).
    pub fn from_name(name: &str) -> Option<Toolset> {
        Toolset::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// On when the operator names no toolsets: what an agent fixing a pull request needs in
    /// its first minutes (why CI failed, which review threads are open, whether it can
    /// merge). The others cost nothing until the agent enables them.
    pub const fn on_by_default(self) -> bool {
        matches!(self, Toolset::Ci | Toolset::Merge | Toolset::Reviews)
    }

    /// Offered only when the operator names it (`--toolsets internal`): not by `all`, not
    /// listed or turned on on demand, not in the instructions. Seed 002's internal API is
    /// plumbing for scripts and other servers, not for an agent choosing tools.
    pub const fn hidden(self) -> bool {
        matches!(self, Toolset::Internal)
    }

    /// One line on what the toolset is for, where toolsets are listed for an agent to choose.
    pub const fn summary(self) -> &'static str {
        match self {
            Toolset::Analysis => {
                "analyze the local checkout: complexity, dead code, import cycles, structure, docs and tests coverage"
            }
            Toolset::Ci => {
                "why CI failed: failing tests with file, line and the command to rerun them"
            }
            Toolset::Code => {
                "code intelligence on the local checkout: definitions, references, symbols, call hierarchy, diagnostics"
            }
            Toolset::Comments => {
                "list and read pull requests and issues; create, list and edit their comments"
            }
            Toolset::Git => {
                "local repository: which files and hunks conflict; restack stacked PRs after a merge"
            }
            Toolset::Impact => "what a pull request changes and affects, and how to review it",
            Toolset::Internal => {
                "plumbing for scripts: file reads and writes as plans, LSP notifications, completions"
            }
            Toolset::Merge => "whether a pull request can merge now, and what blocks it",
            Toolset::Refactor => {
                "refactor the local checkout: rename, find/replace; previewed plans, applied exactly, undoable"
            }
            Toolset::Reviews => "open review threads: find, reply to, resolve and reopen them",
            Toolset::Workspace => {
                "workspace packages: create one, extract its dependencies, update members; verified plans"
            }
        }
    }

    /// What every tool of the toolset shares, said once in the server's instructions (and
    /// when the toolset is enabled on demand) rather than in each schema.
    pub const fn conventions(self) -> Option<&'static str> {
        match self {
            Toolset::Code => Some(CODE_CONVENTIONS),
            Toolset::Refactor => Some(REFACTOR_CONVENTIONS),
            Toolset::Analysis => Some(ANALYSIS_CONVENTIONS),
            Toolset::Internal | Toolset::Workspace => Some(REFACTOR_CONVENTIONS),
            _ => None,
        }
    }

    /// Its tools read a checkout on the server's machine, which callers on other machines
    /// (a shared HTTP server) cannot name: such a server leaves them out.
    pub const fn reads_the_servers_checkout(self) -> bool {
        matches!(
            self,
            Toolset::Code
                | Toolset::Refactor
                | Toolset::Analysis
                | Toolset::Internal
                | Toolset::Workspace
        )
    }

    /// Its tools ask language servers, so a call runs under the code tools' deadline and
    /// progress, and the CLI hands it to its daemon (which keeps servers warm).
    pub const fn asks_language_servers(self) -> bool {
        matches!(
            self,
            Toolset::Code | Toolset::Refactor | Toolset::Internal | Toolset::Workspace
        )
    }
}

impl std::fmt::Display for Toolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    /// The action the call asked for failed (a restack stopped, rolled back): the output
    /// says what happened, and MCP marks the result `isError` so no client reads success.
    pub failed: bool,
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
    pub toolset: Toolset,
    pub annotations: Annotations,
    pub input_schema: Value,
    pub output_schema: Value,
    call: CallFn,
    runs_long: fn(&Value) -> bool,
    /// Writes only when its arguments ask it to (execute mode); otherwise it reads. Kept under
    /// `--read-only`, listed as read-only there, and refusing to write (`Context::read_only`).
    pub writes_only_when_asked: bool,
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

    /// This tool as a read-only server offers it: one that writes only when asked keeps its
    /// reading half and is annotated read-only. `None`: the tool only writes.
    pub fn read_only_variant(&self) -> Option<ToolSpec> {
        if !self.writes() {
            return Some(self.clone());
        }
        self.writes_only_when_asked.then(|| {
            let mut spec = self.clone();
            spec.annotations = Annotations {
                read_only: true,
                destructive: false,
                idempotent: true,
                open_world: spec.annotations.open_world,
            };
            spec
        })
    }
}

/// What a tool module provides to be registered.
pub(crate) trait Tool {
    const NAME: &'static str;
    const TITLE: &'static str;
    const DESCRIPTION: &'static str;
    const TOOLSET: Toolset;
    const ANNOTATIONS: Annotations;
    type Input: DeserializeOwned + JsonSchema + Send;
    type Output: Serialize + JsonSchema + Send;

    /// `raw` is the arguments as given, for binding cursors to them.
    fn run<'a>(
        ctx: &'a Context,
        input: Self::Input,
        raw: &'a Value,
    ) -> impl std::future::Future<Output = Result<Self::Output>> + Send + 'a;

    fn render(output: &Self::Output) -> String;

    /// For a paged output: how many items this page shows, and how many there are in all
    /// when known. The registry says so, with the next page's call, on the text's last line.
    fn shown(_output: &Self::Output) -> Option<(usize, Option<usize>)> {
        None
    }

    /// For an output paged by `options.offset` (seed 002's analysis tools) rather than a
    /// cursor: where the next page starts, when there is one. The registry says the next
    /// call with it, as it does with a cursor.
    fn next_offset(_output: &Self::Output) -> Option<usize> {
        None
    }

    /// Whether the action the call asked for failed, though the tool answered with what
    /// happened (see [`ToolOutput::failed`]).
    fn failed(_output: &Self::Output) -> bool {
        false
    }

    /// Whether a call with these (unvalidated) arguments may take minutes.
    fn runs_long(_args: &Value) -> bool {
        false
    }

    /// See [`ToolSpec::writes_only_when_asked`].
    const WRITES_ONLY_WHEN_ASKED: bool = false;
}

/// Declares every tool's module and registers the tool, in the order tools/list shows them:
/// `module::Type` per line, where `Type` implements [`Tool`]. Invoked once, in `lib.rs`.
macro_rules! tools {
    ($($module:ident :: $tool:ident),+ $(,)?) => {
        $(pub mod $module;)+

        /// Every tool's spec, in registration order.
        fn registered() -> Vec<$crate::registry::ToolSpec> {
            vec![$($crate::registry::spec::<$module::$tool>()),+]
        }
    };
}
pub(crate) use tools;

pub(crate) fn spec<T: Tool>() -> ToolSpec {
    fn call<'a, T: Tool>(
        ctx: &'a Context,
        input_schema: &'a Value,
        args: Value,
    ) -> BoxFuture<'a, Result<ToolOutput>> {
        Box::pin(guarded(T::NAME, async move {
            // From here on the arguments are the tool's own names (aliases read as them), so
            // cursors bind to and next-page lines repeat one spelling.
            let (input, args): (T::Input, Value) = parse_args(T::NAME, input_schema, &args)?;
            let output = if T::TOOLSET.asks_language_servers() {
                crate::code::bounded(
                    ctx,
                    T::NAME,
                    crate::code::PROGRESS_EVERY,
                    T::run(ctx, input, &args),
                )
                .await?
            } else {
                T::run(ctx, input, &args).await?
            };
            // The text is shown to people as it is: text from a forge or a log in it must
            // not be able to drive their terminal.
            let rendered = T::render(&output);
            let text = resolve_pr_core::terminal::printable(&rendered);
            // Tools keep to budgets of their own; this catches one that does not.
            let mut text = resolve_pr_core::budget::cut(
                &text,
                TEXT_BUDGET_BYTES,
                "the structured content of this result",
            )
            .text;
            let structured = serde_json::to_value(&output).map_err(|e| {
                Error::unknown(format!(
                    "could not serialize the result of {}: {e}",
                    T::NAME
                ))
            })?;
            if let Some(line) = next_page_line(
                T::NAME,
                &args,
                &structured,
                T::shown(&output),
                T::next_offset(&output),
            ) {
                text.push('\n');
                text.push_str(&line);
            }
            let failed = T::failed(&output);
            Ok(ToolOutput {
                structured,
                text,
                failed,
            })
        }))
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
        writes_only_when_asked: T::WRITES_ONLY_WHEN_ASKED,
    }
}

/// The most text one answer carries (about 12,000 tokens); the structured content keeps all
/// of it, and the next page's line is said after the cut.
pub const TEXT_BUDGET_BYTES: usize = 48 * 1024;

/// The call of `tool`, answering even if the tool panics: with an internal error that names
/// the tool (and the panic is logged). A panic would otherwise end the task serving the
/// request without an answer, and the client would wait until it gave up.
async fn guarded(
    tool: &'static str,
    call: impl std::future::Future<Output = Result<ToolOutput>>,
) -> Result<ToolOutput> {
    use futures::FutureExt as _;
    match std::panic::AssertUnwindSafe(call).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            tracing::error!(tool, panic = %message, "the tool panicked");
            Err(Error::unknown(format!(
                "{tool} failed unexpectedly (a bug in resolve-pr): {message}"
            ))
            .with_code(ErrorCode::InternalError)
            .with_detail("tool", tool)
            .with_suggestion(
                "This is a bug in resolve-pr, not in the arguments: report it with the call's \
                 arguments and the server log (RESOLVE_PR_LOG=debug). Other tools still work.",
            ))
        }
    }
}

/// A client that shows the model only the text (not structuredContent) must still see that
/// there is more and be able to ask for it: one line with what this page shows and the exact
/// arguments of the next call (the given ones, with the cursor). The cursor is the output's
/// `nextCursor` (PR tools) or `next_cursor` (code tools).
fn next_page_line(
    tool: &str,
    args: &Value,
    structured: &Value,
    shown: Option<(usize, Option<usize>)>,
    offset: Option<usize>,
) -> Option<String> {
    let cursor = ["nextCursor", "next_cursor"]
        .iter()
        .find_map(|k| structured.get(*k).and_then(Value::as_str));
    let mut next = match args {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    match (cursor, offset) {
        (Some(cursor), _) => {
            next.insert("cursor".to_owned(), Value::String(cursor.to_owned()));
        }
        (None, Some(offset)) => {
            let options = next
                .entry("options")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if !options.is_object() {
                *options = Value::Object(serde_json::Map::new());
            }
            options["offset"] = Value::from(offset);
        }
        (None, None) => return None,
    }
    let shown = match shown {
        Some((n, Some(total))) => format!("Showing {n} of {total}; next"),
        Some((n, None)) => format!("Showing {n}; next"),
        None => "Next".to_owned(),
    };
    Some(format!(
        "{shown} page: call {tool} with {}",
        Value::Object(next)
    ))
}

/// The arguments as the tool's input type, and as the tool names them (aliases of
/// `vocabulary` read as the tool's own names). serde decides; when it refuses, the input
/// schema says what every bad argument should have been, so one answer fixes them all.
fn parse_args<T: DeserializeOwned>(
    tool: &str,
    input_schema: &Value,
    args: &Value,
) -> Result<(T, Value)> {
    let args = match args {
        Value::Null => serde_json::Map::new(),
        Value::Object(map) => map.clone(),
        other => {
            return Err(Error::user(format!(
                "the arguments of {tool} must be a JSON object, not {}",
                arguments::kind_of(other)
            ))
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("given", arguments::kind_of(other))
            .with_suggestion(format!(
                "Pass the arguments by name in an object; {tool}'s input schema lists them \
                 (tools/list over MCP, or `resolve-pr tools --json`)."
            )));
        }
    };
    let (args, mut problems) = crate::vocabulary::canonical(tool, input_schema, args);
    let args = Value::Object(args);
    let parsed = if problems.is_empty() {
        match serde_json::from_value(args.clone()) {
            Ok(input) => return Ok((input, args)),
            Err(e) => Some(e),
        }
    } else {
        None
    };
    problems.extend(arguments::problems(tool, input_schema, &args));
    let error = match (problems.is_empty(), parsed) {
        // serde refused what the schema allows: its own words are all there is.
        (true, Some(e)) => Error::user(format!("invalid arguments for {tool}: {e}")),
        _ => Error::user(format!(
            "invalid arguments for {tool}: {}",
            problems.join("; ")
        ))
        .with_detail("problems", problems),
    };
    Err(error
        .with_code(ErrorCode::InvalidArgument)
        .with_suggestion(format!(
            "Fix every argument listed and call {tool} again; its input schema gives each \
         one's type (tools/list over MCP, or `resolve-pr tools --json`)."
        )))
}

/// Every tool, in a stable order (the order of the [`tools!`] list in `lib.rs`).
pub fn all() -> Vec<ToolSpec> {
    crate::registered()
}

pub fn find(name: &str) -> Option<ToolSpec> {
    all().into_iter().find(|t| t.name == name)
}

/// Calls a tool by name.
pub async fn call(ctx: &Context, name: &str, args: Value) -> Result<ToolOutput> {
    let Some(tool) = find(name) else {
        let names: Vec<&str> = all().iter().map(|t| t.name).collect();
        return Err(Error::user(format!("there is no tool named {name:?}"))
            .with_code(ErrorCode::UnknownTool)
            .with_suggestion(format!("Available tools: {}", names.join(", "))));
    };
    tool.call(ctx, args).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_tools_page_says_what_is_shown_and_the_next_call() {
        // Code tools' outputs name the cursor `next_cursor`: their text said nothing of it.
        let out: crate::code::LocationsOutput = crate::code::LocationsOutput {
            target: None,
            locations: Vec::new(),
            total: 124,
            next_cursor: Some("c2".to_owned()),
            partial: false,
            indexing: None,
            server: "rust-analyzer".to_owned(),
            warnings: Vec::new(),
        };
        let structured = serde_json::to_value(&out).unwrap();
        let args = serde_json::json!({"symbol": "Foo", "cursor": "c1"});
        let line = next_page_line(
            "find_references",
            &args,
            &structured,
            Some((50, Some(124))),
            None,
        );
        assert_eq!(
            line.as_deref(),
            Some(
                r#"Showing 50 of 124; next page: call find_references with {"cursor":"c2","symbol":"Foo"}"#
            )
        );
        // The last page: nothing to say.
        let last = serde_json::json!({"total": 3, "locations": []});
        assert_eq!(
            next_page_line("find_references", &args, &last, Some((3, Some(3))), None),
            None
        );
        // A PR tool's key, arguments not given, total unknown.
        let pr = serde_json::json!({"nextCursor": "p2"});
        assert_eq!(
            next_page_line("pr_list", &Value::Null, &pr, Some((30, None)), None).as_deref(),
            Some(r#"Showing 30; next page: call pr_list with {"cursor":"p2"}"#)
        );
        // An analysis tool pages by options.offset: the given options keep, the offset moves.
        let analysis = serde_json::json!({"findings": [], "summary": {}});
        let args =
            serde_json::json!({"kind": "complexity", "options": {"limit": 40, "offset": 40}});
        assert_eq!(
            next_page_line(
                "analyze_quality",
                &args,
                &analysis,
                Some((40, Some(549))),
                Some(80)
            )
            .as_deref(),
            Some(
                r#"Showing 40 of 549; next page: call analyze_quality with {"kind":"complexity","options":{"limit":40,"offset":80}}"#
            )
        );
        assert_eq!(
            next_page_line(
                "analyze_quality",
                &Value::Null,
                &analysis,
                Some((40, Some(549))),
                Some(40)
            )
            .as_deref(),
            Some(
                r#"Showing 40 of 549; next page: call analyze_quality with {"options":{"offset":40}}"#
            )
        );
    }

    /// A tool that panics when called without arguments, and floods its text when asked.
    struct Misbehaves;

    impl Tool for Misbehaves {
        const NAME: &'static str = "panics";
        const TITLE: &'static str = "Panics";
        const DESCRIPTION: &'static str = "Panics.";
        const TOOLSET: Toolset = Toolset::Ci;
        const ANNOTATIONS: Annotations = Annotations {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        type Input = serde_json::Map<String, Value>;
        type Output = serde_json::Map<String, Value>;

        async fn run(_ctx: &Context, input: Self::Input, _raw: &Value) -> Result<Self::Output> {
            if input.is_empty() {
                panic!("index out of bounds: the len is 0 but the index is 3");
            }
            Ok(input)
        }

        fn render(output: &Self::Output) -> String {
            // Asked to flood: more text than any answer may carry.
            match output.get("flood").and_then(Value::as_u64) {
                Some(bytes) => "x".repeat(bytes as usize),
                None => String::new(),
            }
        }
    }

    #[tokio::test]
    async fn a_text_over_the_budget_is_cut_and_says_where_the_rest_is() {
        let config = resolve_pr_forge::Config::from_parts(None, None, &|_| None).unwrap();
        let ctx = Context::new(
            std::sync::Arc::new(resolve_pr_forge::Forges::new(config)),
            resolve_pr_core::CursorCodec::new([1; 32]),
        );
        let tool = spec::<Misbehaves>();
        let flood = TEXT_BUDGET_BYTES * 2;
        let out = tool
            .call(&ctx, serde_json::json!({"flood": flood}))
            .await
            .unwrap();
        assert!(
            out.text.len() < TEXT_BUDGET_BYTES + 200,
            "{}",
            out.text.len()
        );
        assert!(
            out.text.ends_with(&format!(
                "[cut: showing {TEXT_BUDGET_BYTES} of {flood} bytes; full text: the structured \
                 content of this result]"
            )),
            "{}",
            &out.text[out.text.len() - 120..]
        );
        let small = tool
            .call(&ctx, serde_json::json!({"flood": 10}))
            .await
            .unwrap();
        assert_eq!(small.text, "x".repeat(10));
    }

    #[tokio::test]
    async fn a_tool_that_panics_answers_its_call_with_an_internal_error_naming_it() {
        let config = resolve_pr_forge::Config::from_parts(None, None, &|_| None).unwrap();
        let ctx = Context::new(
            std::sync::Arc::new(resolve_pr_forge::Forges::new(config)),
            resolve_pr_core::CursorCodec::new([1; 32]),
        );
        let tool = spec::<Misbehaves>();
        let Err(e) = tool.call(&ctx, serde_json::json!({})).await else {
            panic!("the panic was not an error")
        };
        assert_eq!(e.category, resolve_pr_core::Category::Unknown);
        assert_eq!(e.code, Some(ErrorCode::InternalError));
        assert_eq!(
            e.error,
            "panics failed unexpectedly (a bug in resolve-pr): index out of bounds: the len is 0 \
             but the index is 3"
        );
        assert_eq!(
            e.details.as_ref().and_then(|d| d.get("tool")),
            Some(&Value::from("panics"))
        );
        // A call that does not panic is untouched.
        let out = tool.call(&ctx, serde_json::json!({"a": 1})).await.unwrap();
        assert_eq!(out.structured, serde_json::json!({"a": 1}));
    }

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
