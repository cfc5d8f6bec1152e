//! `resolve-pr tool NAME 'JSON'`: one call through the same registry MCP uses. stdout carries
//! exactly the tool's structured output (exit 0) or the error JSON (exit 1), so a script sees
//! the same contract an agent does; nothing else is ever printed there.

#![allow(
    clippy::print_stdout,
    reason = "prints the tool's result, its whole output"
)]

use std::io::{Read, Write as _};
use std::process::ExitCode;
use std::sync::Arc;

use resolve_pr_core::Error;
use resolve_pr_mcp::{Options, Selection};
use serde_json::Value;

pub async fn run(
    name: &str,
    arguments: Option<&str>,
    options: &Options,
    use_daemon: bool,
) -> ExitCode {
    let name = seed_name(name);
    let name = name.as_str();
    let outcome = tokio::select! {
        outcome = call(name, arguments, options, use_daemon) => outcome,
        _ = tokio::signal::ctrl_c() => {
            // The call is dropped as a cancelled MCP call is: the git commands talking to a
            // remote, in process groups of their own that the terminal's Ctrl-C does not
            // reach, are killed by their watchers (on their own threads, hence the pause),
            // and the language servers go with the context; a daemon drops the call when
            // its connection closes, and keeps its servers.
            if let Some(line) = TerminalLine::on_stderr() {
                line.shown.store(true, std::sync::atomic::Ordering::SeqCst);
                line.clear();
            }
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

/// Seed 002 names its analysis tools with a dot (`analyze.quality`), which several MCP
/// clients refuse in a tool name; the CLI takes both spellings.
fn seed_name(name: &str) -> String {
    match name.strip_prefix("analyze.") {
        Some(rest) => format!("analyze_{rest}"),
        None => name.to_owned(),
    }
}

async fn call(
    name: &str,
    arguments: Option<&str>,
    options: &Options,
    use_daemon: bool,
) -> Result<(Value, bool), Error> {
    let args = parse_arguments(name, arguments, || {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    })?;
    let selection = Selection::new(options)
        .map_err(|e| Error::user(e.to_string()))?
        .with_toolset_of(name);
    let tool = selection.find(name)?;
    let progress = TerminalLine::on_stderr();
    #[cfg(unix)]
    if use_daemon && tool.toolset.asks_language_servers() {
        match through_daemon(name, &args, options, progress.as_ref()).await {
            Ok(answer) => return Ok(answer),
            Err(e) => {
                let why = format!("{e:#}");
                #[allow(clippy::print_stderr, reason = "the one line saying why")]
                {
                    eprintln!(
                        "resolve-pr: no daemon ({}); running in this process",
                        resolve_pr_core::terminal::printable(&why)
                    );
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = use_daemon;
    let mut ctx = crate::context_from_environment()?;
    crate::for_the_cli(&mut ctx, &|k| std::env::var(k).ok());
    ctx.read_only = options.read_only;
    if let Some(line) = &progress {
        ctx.progress = Some(Arc::new(line.clone()));
    }
    let out = tool.call(&ctx, args).await;
    if let Some(line) = &progress {
        line.clear();
    }
    let out = out?;
    // A failed action (a restack that stopped) prints what happened and exits 1.
    Ok((out.structured, out.failed))
}

/// The call through this checkout's daemon (started if need be): the tool's output, or its
/// error JSON as a failed output (printed the same, exit 1). `Err`: no daemon could serve it.
#[cfg(unix)]
async fn through_daemon(
    name: &str,
    args: &Value,
    options: &Options,
    progress: Option<&TerminalLine>,
) -> anyhow::Result<(Value, bool)> {
    let paths = crate::daemon::Paths::current()?;
    let stream = crate::daemon::connect_or_start(&paths).await?;
    let request = serde_json::json!({"call": {
        "name": name,
        "arguments": args,
        "read_only": options.read_only,
        "toolsets": options.toolsets,
    }});
    let answer = crate::daemon::request(stream, &request, |text| {
        if let Some(line) = progress {
            line.show(text);
        }
    })
    .await;
    if let Some(line) = progress {
        line.clear();
    }
    let mut answer = answer?;
    if let Some(error) = answer.get_mut("error") {
        return Ok((error.take(), true));
    }
    let failed = answer.get("failed").and_then(Value::as_bool) == Some(true);
    match answer.get_mut("result") {
        Some(result) => Ok((result.take(), failed)),
        None => anyhow::bail!("the daemon answered {answer}"),
    }
}

/// Progress on one updating stderr line, when stderr is a terminal (else nothing is shown).
#[derive(Clone)]
struct TerminalLine {
    shown: Arc<std::sync::atomic::AtomicBool>,
}

impl TerminalLine {
    fn on_stderr() -> Option<TerminalLine> {
        use std::io::IsTerminal;
        std::io::stderr().is_terminal().then(|| TerminalLine {
            shown: Arc::default(),
        })
    }

    /// Replaces the line with `text`, cut to the terminal's width so it never wraps.
    fn show(&self, text: &str) {
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<usize>().ok())
            .unwrap_or(80)
            .saturating_sub(1)
            .max(10);
        let text = resolve_pr_core::terminal::printable(text.lines().next().unwrap_or(""));
        let text: String = text.chars().take(width).collect();
        self.shown.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = write!(std::io::stderr().lock(), "\r\x1b[2K{text}");
    }

    fn clear(&self) {
        if self.shown.swap(false, std::sync::atomic::Ordering::SeqCst) {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

impl resolve_pr_tools::ProgressSink for TerminalLine {
    fn report(
        &self,
        _progress: f64,
        _total: Option<f64>,
        message: String,
    ) -> resolve_pr_tools::BoxFuture<'_, ()> {
        self.show(&message);
        Box::pin(async {})
    }
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
    #[test]
    fn the_seeds_dotted_analysis_names_are_the_tools() {
        assert_eq!(super::seed_name("analyze.dead_code"), "analyze_dead_code");
        assert_eq!(super::seed_name("analyze_quality"), "analyze_quality");
        assert_eq!(super::seed_name("pr.get"), "pr.get");
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
        let e = call("pr_comment_create", Some("{}"), &options, false)
            .await
            .unwrap_err();
        assert_eq!(e.category, Category::User);
        assert!(e.error.contains("read-only"), "{}", e.error);
    }
}
