//! `resolve-pr tool NAME 'JSON'`: one call through the same registry MCP uses. stdout carries
//! exactly the tool's structured output (exit 0) or the error JSON (exit 1), so a script sees
//! the same contract an agent does; nothing else is ever printed there.

#![allow(
    clippy::print_stdout,
    reason = "prints the tool's result, its whole output"
)]

use std::io::Read;
use std::process::ExitCode;

use resolve_pr_core::Error;
use resolve_pr_mcp::{Options, Selection};
use serde_json::Value;

pub async fn run(name: &str, arguments: Option<&str>, options: &Options) -> ExitCode {
    let outcome = tokio::select! {
        outcome = call(name, arguments, options) => outcome,
        _ = tokio::signal::ctrl_c() => {
            // The call is dropped as a cancelled MCP call is: the git commands talking to a
            // remote, in process groups of their own that the terminal's Ctrl-C does not
            // reach, are killed by their watchers (on their own threads, hence the pause),
            // and the language servers go with the context.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            return ExitCode::from(130);
        }
    };
    match outcome {
        Ok((structured, failed)) => {
            print_json(&structured);
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            print_json(&e.to_json());
            ExitCode::FAILURE
        }
    }
}

async fn call(
    name: &str,
    arguments: Option<&str>,
    options: &Options,
) -> Result<(Value, bool), Error> {
    let args = parse_arguments(name, arguments, || {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    })?;
    let selection = Selection::new(options).map_err(|e| Error::user(e.to_string()))?;
    let tool = selection.find(name)?;
    let mut ctx = crate::context_from_environment()?;
    ctx.read_only = options.read_only;
    // No client gives up on a command line, and the language servers end with this process:
    // a code call waits for its answer (an hour at most) instead of answering "ask again"
    // after 45 s, as it does for MCP clients. RESOLVE_PR_CODE_CALL_WAIT still sets it.
    if let Some(wait) = cli_code_call_wait(&|k| std::env::var_os(k)) {
        ctx.lsp = resolve_pr_lsp::Pool::new(resolve_pr_lsp::PoolConfig {
            call_wait: wait,
            ..resolve_pr_lsp::PoolConfig::from_env()
        });
    }
    let out = tool.call(&ctx, args).await?;
    // A failed action (a restack that stopped) prints what happened and exits 1.
    Ok((out.structured, out.failed))
}

/// How long a code call of `resolve-pr tool` may take (see `run`): an hour, unless
/// `RESOLVE_PR_CODE_CALL_WAIT` says otherwise (then the pool reads it itself).
fn cli_code_call_wait(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<std::time::Duration> {
    env("RESOLVE_PR_CODE_CALL_WAIT")
        .is_none()
        .then_some(std::time::Duration::from_secs(3600))
}

/// The arguments as JSON; `-` reads them from stdin, nothing means `{}`. Bad JSON is the
/// caller's to fix, so it is a `user` error in the same shape as every other.
fn parse_arguments(
    tool: &str,
    given: Option<&str>,
    stdin: impl FnOnce() -> std::io::Result<String>,
) -> Result<Value, Error> {
    let text = match given {
        None => return Ok(Value::Object(Default::default())),
        Some("-") => stdin()
            .map_err(|e| Error::user(format!("cannot read the arguments from stdin: {e}")))?,
        Some(text) => text.to_owned(),
    };
    serde_json::from_str(&text).map_err(|e| {
        Error::user(format!("the arguments are not valid JSON: {e}"))
            .with_detail("field", "arguments")
            .with_suggestion(format!(
                "Pass one JSON object in single quotes, e.g. resolve-pr tool {tool} '{{\"repository\": \
                 \"owner/repo\", \"pull_request_number\": 1}}', or - to read it from stdin. \
                 `resolve-pr tools --json` shows every tool's input schema."
            ))
    })
}

/// Prints to stdout; a reader that went away (`| head`) ends the output quietly instead of
/// panicking as `println!` does on a broken pipe.
fn print_json(value: &Value) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", printed_json(value)).and_then(|()| out.flush());
}

/// Pretty JSON of `value`, with C1 controls and bidi overrides from forge text escaped
/// (serde_json escapes only C0 controls): the same JSON value, which printed on a terminal
/// shows them instead of obeying them.
fn printed_json(value: &Value) -> String {
    // A value built by serde_json always serializes.
    let json = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    resolve_pr_core::terminal::json_escaped(&json).into_owned()
}

#[cfg(test)]
mod tests {

    /// On the command line a code call waits for its answer (MCP clients get one within
    /// 45 s); RESOLVE_PR_CODE_CALL_WAIT, when set, is the pool's to read.
    #[test]
    fn a_command_line_code_call_waits_for_its_answer() {
        let unset = |_: &str| None;
        assert_eq!(
            cli_code_call_wait(&unset),
            Some(std::time::Duration::from_secs(3600))
        );
        assert!(
            resolve_pr_lsp::PoolConfig::default().call_wait < std::time::Duration::from_secs(60)
        );
        let set = |k: &str| (k == "RESOLVE_PR_CODE_CALL_WAIT").then(|| "10".into());
        assert_eq!(cli_code_call_wait(&set), None);
    }

    use super::*;
    use resolve_pr_core::Category;
    use serde_json::json;

    fn no_stdin() -> std::io::Result<String> {
        Err(std::io::Error::other("not used"))
    }

    #[test]
    fn arguments_default_to_an_empty_object() {
        assert_eq!(parse_arguments("t", None, no_stdin).unwrap(), json!({}));
    }

    #[test]
    fn printed_json_is_the_same_value_without_raw_controls() {
        let value = json!({"body": "ok\u{9b}2K\u{202e}exe\u{7}\r"});
        let printed = printed_json(&value);
        assert!(
            !printed.contains(|c: char| c != '\n' && resolve_pr_core::terminal::is_hostile(c)),
            "{printed:?}"
        );
        assert_eq!(serde_json::from_str::<Value>(&printed).unwrap(), value);
    }

    #[test]
    fn dash_reads_stdin() {
        let v = parse_arguments("t", Some("-"), || Ok(r#"{"a": 1}"#.into())).unwrap();
        assert_eq!(v, json!({"a": 1}));
    }

    #[test]
    fn invalid_json_is_a_user_error() {
        let e = parse_arguments("pr_comment_list", Some("{repository:"), no_stdin).unwrap_err();
        assert_eq!(e.category, Category::User);
        assert!(
            e.error.starts_with("the arguments are not valid JSON"),
            "{}",
            e.error
        );
        assert!(
            e.suggestion
                .unwrap()
                .contains("resolve-pr tool pr_comment_list")
        );
    }

    #[tokio::test]
    async fn read_only_refuses_a_writing_tool_before_reading_config() {
        let options = Options {
            read_only: true,
            toolsets: None,
        };
        let e = call("pr_comment_create", Some("{}"), &options)
            .await
            .unwrap_err();
        assert_eq!(e.category, Category::User);
        assert!(e.error.contains("read-only"), "{}", e.error);
    }
}
