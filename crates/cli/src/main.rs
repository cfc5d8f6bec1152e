//! `resolve-pr`: the MCP server (`serve`) and the same tools from a shell (`tools`, `tool`),
//! plus a `demo` against the bundled forge simulator (feature `demo`, on by default). This
//! file is only the command line; each command lives in its own module and every tool call
//! goes through the one registry.

mod call;
mod ci_parse;
mod cursor_key;
#[cfg(unix)]
mod daemon;
#[cfg(feature = "demo")]
mod demo;
mod list;
mod serve;
mod style;

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use resolve_pr_core::CursorCodec;
use resolve_pr_forge::Forges;
use resolve_pr_mcp::Options;
use resolve_pr_tools::{CiSettings, Context};

/// The demo's line of the top-level help, where the demo is built.
#[cfg(feature = "demo")]
macro_rules! demo_example {
    () => {
        "  resolve-pr demo                 try the tools on a simulated forge (no\n                                  token, no network)\n"
    };
}
#[cfg(not(feature = "demo"))]
macro_rules! demo_example {
    () => {
        ""
    };
}

// Lines of at most 76 columns, indented by hand: clap wraps longer ones at the terminal's
// width and loses their indentation (`tests/readme.rs` checks both, and that every variable
// the code reads is listed).
const EXAMPLES: &str = concat!(
    "Examples:\n",
    demo_example!(),
    "  resolve-pr serve                run the MCP server on stdio (for your
                                  agent's MCP config)
  resolve-pr serve --read-only    the same, without any tool that writes
  resolve-pr serve --http 127.0.0.1:8080
                                  serve MCP over HTTP at
                                  http://127.0.0.1:8080/mcp; each request
                                  brings its own token
  resolve-pr tools                list the tools (JSON when piped or with
                                  --json)
  resolve-pr tool get_failing_tests '{\"pr\": \"octocat/hello-world#42\"}'
  echo '{...}' | resolve-pr tool pr_comment_create -
  resolve-pr completions bash     shell completions (bash, zsh, fish,
                                  powershell, elvish)

Environment:
  GITHUB_TOKEN, GH_TOKEN          GitHub token, in this order; else `gh auth
                                  token`
  GITHUB_API_URL                  GitHub Enterprise REST base
                                  (https://host/api/v3)
  GITHUB_GRAPHQL_URL              its GraphQL endpoint (default: from
                                  GITHUB_API_URL)
  GH_ENTERPRISE_TOKEN             token for the config file's GitHub
                                  Enterprise hosts (also
                                  GITHUB_ENTERPRISE_TOKEN)
  FORGEJO_HOST, FORGEJO_TOKEN     a Forgejo instance (host or URL) and its
                                  token
  GITEA_HOST, GITEA_TOKEN         a Gitea instance and its token
  RESOLVE_PR_CONFIG               config file (default
                                  ~/.config/resolve-pr/config.toml); a file
                                  named here must exist
  RESOLVE_PR_DEFAULT_HOST         the forge host owner/repo#123 goes to
  RESOLVE_PR_CURSOR_KEY           secret for pagination cursors (default: a
                                  key file in $XDG_STATE_HOME/resolve-pr,
                                  made on first use)
  RESOLVE_PR_CI_POLL              get_failing_tests wait: seconds between
                                  polls, MIN-MAX (default 10-30)
  RESOLVE_PR_CI_WAIT_TIMEOUT      get_failing_tests wait: give up after
                                  SECONDS (default 1800)
  RESOLVE_PR_CI_CALL_WAIT         get_failing_tests wait: SECONDS one MCP
                                  call waits when the client hears no
                                  progress (default 50; tool: the whole wait)
  RESOLVE_PR_DAEMON_IDLE_SECS     the code tools' daemon exits after SECONDS
                                  without a call (default 600)
  RESOLVE_PR_NO_DAEMON            1: code calls of `tool` run in the process
  RESOLVE_PR_GIT                  the git program (default: git on PATH)
  RESOLVE_PR_GIT_TIMEOUT          SECONDS a git clone, fetch or push may run
                                  (default 600)
  RESOLVE_PR_GIT_LOW_SPEED_TIME   SECONDS without data before git abandons
                                  an HTTP transfer (default 30)
  RESOLVE_PR_LSP_PATH             directories searched for language servers
                                  before PATH (separated like PATH)
  RESOLVE_PR_LSP_IDLE_SECONDS     stop a language server idle this long
  RESOLVE_PR_LSP_MEMORY_MIB       memory cap of a language server, in MiB
  RESOLVE_PR_LSP_MAX_FILE_MIB     largest file the code tools read, in MiB
  RESOLVE_PR_CODE_CALL_WAIT       SECONDS a code call may take before it
                                  answers (serve: 45; tool: 900)
  RESOLVE_PR_TRUST                checkouts whose tooling language servers
                                  may run (separated like PATH; * trusts
                                  every one)
  RESOLVE_PR_NO_CGROUP            set: contain language servers without
                                  cgroups
  RESOLVE_PR_LOG                  log filter for stderr, e.g. debug
                                  (default: warn)
  NO_COLOR                        no colour in terminal output"
);

#[derive(Debug, Parser)]
#[command(
    name = "resolve-pr",
    version,
    about = "Helps coding agents take GitHub, Forgejo and Gitea pull requests to merge: an MCP server and the same tools on the command line.",
    after_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the tools over MCP on stdin/stdout, or over streamable HTTP with --http (logs go
    /// to stderr).
    #[command(
        after_help = "Examples:\n  resolve-pr serve\n  resolve-pr serve --read-only --toolsets comments\n  resolve-pr serve --http 127.0.0.1:8080\n  resolve-pr serve --http 0.0.0.0:8080 --allowed-host mcp.example.com --read-only\n\nOver HTTP every request to /mcp must carry `Authorization: Bearer <forge token>`, used for\nthat request only. GET /healthz answers 200 while the process runs, GET /readyz 200 until\nshutdown (SIGTERM, SIGINT) begins. Once listening, one line `listening on URL` goes to stderr.\nA request body is at most 16 MiB; connections over --max-connections get 503."
    )]
    Serve {
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// List the tools: a table on a terminal, the MCP tools/list JSON when piped or with --json.
    #[command(
        after_help = "Examples:\n  resolve-pr tools\n  resolve-pr tools --json | jq '.[].name'"
    )]
    Tools {
        #[command(flatten)]
        selection: SelectionArgs,
        /// Print the JSON of MCP tools/list (an array of tools) even on a terminal.
        #[arg(long)]
        json: bool,
    },
    /// Call one tool and print its structured output as JSON (exit 1 and the error JSON on failure).
    #[command(
        after_help = "Examples:\n  resolve-pr tool pr_get '{\"repository\": \"octo/app\", \"pull_request_number\": 42}'\n  resolve-pr tool pr_comment_create - < args.json\n\nPass the nextCursor of one page as \"cursor\" to get the next; cursors stay valid across invocations."
    )]
    Tool {
        /// The tool's name (see `resolve-pr tools`).
        name: String,
        /// The arguments as one JSON object, or `-` to read them from stdin. Default: {}.
        arguments: Option<String>,
        #[command(flatten)]
        selection: SelectionArgs,
        /// Run a code tool in this process instead of through the daemon that keeps
        /// language servers warm (also: RESOLVE_PR_NO_DAEMON=1).
        #[arg(long)]
        no_daemon: bool,
    },
    /// The background process that keeps language servers warm between `tool` calls of
    /// code tools (one per user, directory and environment; exits after
    /// RESOLVE_PR_DAEMON_IDLE_SECS idle, default 600).
    #[cfg(unix)]
    #[command(subcommand)]
    Daemon(DaemonCommand),
    /// CI log intelligence on a log you already have.
    #[command(subcommand)]
    Ci(CiCommand),
    /// Print a completion script for a shell.
    #[command(
        after_help = "Examples:\n  resolve-pr completions bash > ~/.local/share/bash-completion/completions/resolve-pr\n  resolve-pr completions zsh > ~/.zfunc/_resolve-pr\n  resolve-pr completions fish > ~/.config/fish/completions/resolve-pr.fish\n  resolve-pr completions powershell >> $PROFILE"
    )]
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Run every tool against the bundled forge simulator: no token, no network, a few seconds.
    #[cfg(feature = "demo")]
    #[command(
        after_help = "Examples:\n  resolve-pr demo\n  resolve-pr demo --json | jq -c .\n  resolve-pr demo --serve demo-github    # then the commands it printed, by hand"
    )]
    Demo {
        /// Print one JSON object per step instead of text.
        #[arg(long)]
        json: bool,
        /// Keep one stage's simulated forge up (demo-github, impact_github, demo-forgejo or
        /// stack) on the port the demo's commands name, to run them by hand; Ctrl-C stops it.
        #[arg(long, value_name = "STAGE")]
        serve: Option<String>,
        /// With --serve: another port.
        #[arg(long, requires = "serve")]
        port: Option<u16>,
    },
}

#[derive(Debug, Subcommand)]
enum CiCommand {
    /// Print the failing tests a job log reports (raw framework output or a GitHub Actions
    /// job log): test, file:line, message and a command that reproduces it.
    #[command(
        after_help = "Examples:\n  resolve-pr ci parse job.log\n  gh run view 123 --log-failed | resolve-pr ci parse - --json\n\nExit status: 0 no failing test found, 1 failing tests found, 2 the input could not be read."
    )]
    Parse {
        /// The log file, or - for standard input.
        source: String,
        /// Print {"failures": [...]} with every failure, even on a terminal.
        #[arg(long)]
        json: bool,
    },
}

#[cfg(unix)]
#[derive(Debug, Subcommand)]
enum DaemonCommand {
    /// Show this directory's daemon: its pid, calls and language servers.
    Status,
    /// Stop this directory's daemon (its language servers with it).
    Stop,
    /// Serve in the foreground (what `tool` starts, detached).
    #[command(hide = true)]
    Run,
}

#[derive(Debug, Clone, Args)]
struct SelectionArgs {
    /// Leave out every tool that writes to the forge.
    #[arg(long)]
    read_only: bool,
    /// Offer exactly these toolsets (comma-separated), e.g. `comments`; `all` for every one,
    /// `default` for the default ones. Without it: the default ones, and an agent turns the
    /// others on when it needs them (`resolve-pr tools` shows which are which).
    #[arg(long, value_delimiter = ',', value_name = "TOOLSET,...")]
    toolsets: Option<Vec<String>>,
}

#[derive(Debug, Clone, Args)]
struct HttpArgs {
    /// Serve MCP over streamable HTTP at ADDRESS (e.g. 127.0.0.1:8080; port 0: any free port)
    /// under /mcp, instead of stdio.
    #[arg(long, value_name = "ADDRESS", value_parser = listen_address)]
    http: Option<std::net::SocketAddr>,
    /// A host name (or host:port) clients reach the server by; required, for every such
    /// name, when ADDRESS is not loopback (DNS rebinding protection). Repeatable.
    #[arg(long, value_name = "NAME", requires = "http")]
    allowed_host: Vec<String>,
    /// A browser origin allowed to call the server (scheme://host:port, :* for any port).
    /// Repeatable. Default: loopback origins only; requests without Origin always pass.
    #[arg(long, value_name = "URL", requires = "http")]
    allowed_origin: Vec<String>,
    /// Serve requests without an Authorization header with the server's own token (config,
    /// environment, gh) instead of refusing them with 401.
    #[arg(long, requires = "http")]
    allow_server_token: bool,
    /// On SIGTERM/SIGINT, how long calls in flight may take to finish.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        requires = "http",
        value_parser = grace_seconds
    )]
    shutdown_grace: f64,
    /// How long a client may take to send a request's head (from connecting, or on a kept-alive
    /// connection from the previous response: idle connections close after it too).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        requires = "http",
        value_parser = timeout_seconds
    )]
    header_timeout: f64,
    /// How long a request's body may take to arrive once its head has.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        requires = "http",
        value_parser = timeout_seconds
    )]
    body_timeout: f64,
    /// The most connections open at once; more are answered 503 and closed. Default: what the
    /// descriptor limit (raised to its hard limit at start) leaves room for: three quarters of
    /// it, at most 8192.
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
}

/// `IP:PORT`, or `localhost:PORT` for the IPv4 loopback address.
fn listen_address(text: &str) -> Result<std::net::SocketAddr, String> {
    let text = text.trim();
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!(
            "{text:?} is not IP:PORT; e.g. 127.0.0.1:8080 (this machine), [::1]:8080, or \
             0.0.0.0:8080 with --allowed-host (every interface)"
        )
    })
}

fn grace_seconds(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && (0.0..=3600.0).contains(s))
        .ok_or_else(|| format!("{text:?} is not a number of seconds from 0 to 3600"))
}

fn timeout_seconds(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .ok_or_else(|| format!("{text:?} is not a number of seconds above 0, at most 3600"))
}

impl HttpArgs {
    fn http(&self) -> Option<serve::Http> {
        Some(serve::Http {
            listen: self.http?,
            allowed_hosts: self.allowed_host.clone(),
            allowed_origins: self.allowed_origin.clone(),
            allow_server_token: self.allow_server_token,
            shutdown_grace: std::time::Duration::from_secs_f64(self.shutdown_grace),
            header_timeout: std::time::Duration::from_secs_f64(self.header_timeout),
            body_timeout: std::time::Duration::from_secs_f64(self.body_timeout),
            max_connections: self.max_connections.map(|n| n as usize),
        })
    }
}

impl SelectionArgs {
    fn options(&self) -> Options {
        Options {
            read_only: self.read_only,
            toolsets: self.toolsets.clone(),
        }
    }
}

#[allow(
    clippy::print_stderr,
    reason = "the one place a failure reaches the user; logs go through tracing"
)]
fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(is_server(&cli.command));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("resolve-pr: error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve { selection, http } => serve::run(&selection.options(), http.http())
                .await
                .map(|()| ExitCode::SUCCESS),
            Command::Tools { selection, json } => {
                list::run(&selection.options(), style::Style::detect(json))
            }
            Command::Tool {
                name,
                arguments,
                selection,
                no_daemon,
            } => Ok(call::run(
                &name,
                arguments.as_deref(),
                &selection.options(),
                cfg!(unix) && daemon_enabled(no_daemon),
            )
            .await),
            #[cfg(unix)]
            Command::Daemon(DaemonCommand::Run) => daemon::run().await.map(|()| ExitCode::SUCCESS),
            #[cfg(unix)]
            Command::Daemon(DaemonCommand::Status) => daemon::control(false).await,
            #[cfg(unix)]
            Command::Daemon(DaemonCommand::Stop) => daemon::control(true).await,
            #[cfg(feature = "demo")]
            Command::Demo { json, serve, port } => match serve {
                Some(stage) => demo::serve(&stage, port, style::Style::for_people(false)).await,
                None => demo::run(style::Style::for_people(json)).await,
            },
            Command::Completions { shell } => {
                use clap::CommandFactory;
                clap_complete::generate(
                    shell,
                    &mut Cli::command(),
                    "resolve-pr",
                    &mut std::io::stdout(),
                );
                Ok(ExitCode::SUCCESS)
            }
            Command::Ci(CiCommand::Parse { source, json }) => {
                ci_parse::run(&source, style::Style::detect(json))
            }
        }
    });
    // stdin is read on a blocking thread that never returns while the client keeps it open;
    // do not wait for it once the work is done.
    runtime.shutdown_background();
    match outcome {
        Ok(code) => code,
        Err(e) => {
            let message = format!("{e:#}");
            eprintln!(
                "resolve-pr: error: {}",
                resolve_pr_core::terminal::printable(&message)
            );
            ExitCode::FAILURE
        }
    }
}

#[cfg(unix)]
fn daemon_enabled(no_daemon: bool) -> bool {
    daemon::enabled(no_daemon)
}

#[cfg(not(unix))]
fn daemon_enabled(_: bool) -> bool {
    false
}

/// Servers log what they serve; the other commands only warnings.
fn is_server(command: &Command) -> bool {
    match command {
        Command::Serve { .. } => true,
        #[cfg(unix)]
        Command::Daemon(DaemonCommand::Run) => true,
        _ => false,
    }
}

/// Logs go to stderr only: stdout is the MCP channel (serve) or the JSON result (tool).
fn init_logging(serving: bool) {
    use std::io::IsTerminal;
    // `resolve_pr` is a target prefix: it covers every resolve-pr crate.
    let default = if serving {
        "warn,resolve_pr=info"
    } else {
        "warn"
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("RESOLVE_PR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let color = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(color)
        .with_target(false)
        .try_init();
}

/// What a tool call needs, from the real environment: the configured forges and the stable
/// cursor key.
fn context_from_environment() -> resolve_pr_core::Result<Context> {
    let forges = Forges::from_environment()?;
    let (key, source) = cursor_key::load(&|k| std::env::var(k).ok());
    if let cursor_key::KeySource::Ephemeral { reason } = source {
        tracing::warn!(
            "pagination cursors will only be valid in this process ({reason}); set RESOLVE_PR_CURSOR_KEY to keep them across runs"
        );
    }
    let mut ctx = Context::new(Arc::new(forges), CursorCodec::new(key));
    ctx.ci = ci_settings(&|k| std::env::var(k).ok())?;
    ctx.local = resolve_pr_tools::LocalSettings::from_env(&|k| std::env::var(k).ok())?;
    // A refactoring apply a crash (kill -9) interrupted is rolled back before anything else.
    for line in resolve_pr_tools::recover_interrupted_applies(&ctx.local) {
        tracing::warn!("{line}");
    }
    Ok(ctx)
}

/// What `resolve-pr tool` and its daemon change in a context: no MCP client ends their calls
/// at 60 s, so a CI wait without progress runs to its cap (`wait_cap`), and a code tool call
/// may take 15 minutes, unless `RESOLVE_PR_CI_CALL_WAIT` / `RESOLVE_PR_CODE_CALL_WAIT` say
/// otherwise.
fn for_the_cli(ctx: &mut Context, env: &dyn Fn(&str) -> Option<String>) {
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    if !set("RESOLVE_PR_CI_CALL_WAIT") {
        ctx.ci.wait_without_progress = ctx.ci.wait_cap;
    }
    if !set("RESOLVE_PR_CODE_CALL_WAIT") {
        ctx.lsp = resolve_pr_lsp::Pool::new(resolve_pr_lsp::PoolConfig {
            call_wait: std::time::Duration::from_secs(15 * 60),
            ..resolve_pr_lsp::PoolConfig::from_env()
        });
    }
}

/// Wait-mode settings from `RESOLVE_PR_CI_POLL` (`MIN-MAX` seconds),
/// `RESOLVE_PR_CI_WAIT_TIMEOUT` and `RESOLVE_PR_CI_CALL_WAIT` (seconds).
fn ci_settings(env: &dyn Fn(&str) -> Option<String>) -> resolve_pr_core::Result<CiSettings> {
    use std::time::Duration;
    let mut settings = CiSettings::default();
    let seconds = |name: &str, text: &str| -> resolve_pr_core::Result<Duration> {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 86_400.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                resolve_pr_core::Error::user(format!("{name}: {text:?} is not a number of seconds"))
                    .with_suggestion(format!(
                        "Example: {name}=10-30 (poll) or {name}=1800 (timeout)"
                    ))
            })
    };
    if let Some(poll) = env("RESOLVE_PR_CI_POLL").filter(|v| !v.trim().is_empty()) {
        let (min, max) = poll.split_once('-').unwrap_or((&poll, &poll));
        let (min, max) = (
            seconds("RESOLVE_PR_CI_POLL", min)?,
            seconds("RESOLVE_PR_CI_POLL", max)?,
        );
        if min > max || min.is_zero() {
            return Err(resolve_pr_core::Error::user(format!(
                "RESOLVE_PR_CI_POLL: {poll:?} must be MIN-MAX seconds with 0 < MIN <= MAX"
            ))
            .with_suggestion("Example: RESOLVE_PR_CI_POLL=10-30"));
        }
        settings.poll_min = min;
        settings.poll_max = max;
        settings.no_checks_grace = settings.no_checks_grace.min(max * 4);
    }
    if let Some(cap) = env("RESOLVE_PR_CI_WAIT_TIMEOUT").filter(|v| !v.trim().is_empty()) {
        settings.wait_cap = seconds("RESOLVE_PR_CI_WAIT_TIMEOUT", &cap)?;
    }
    if let Some(call) = env("RESOLVE_PR_CI_CALL_WAIT").filter(|v| !v.trim().is_empty()) {
        settings.wait_without_progress = seconds("RESOLVE_PR_CI_CALL_WAIT", &call)?;
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn ci_settings_from_the_environment() {
        let env = |poll: &'static str, cap: &'static str| {
            move |k: &str| match k {
                "RESOLVE_PR_CI_POLL" => Some(poll.to_owned()),
                "RESOLVE_PR_CI_WAIT_TIMEOUT" => Some(cap.to_owned()),
                "RESOLVE_PR_CI_CALL_WAIT" => Some(cap.to_owned()).filter(|c| c == "60"),
                _ => None,
            }
        };
        let s = ci_settings(&env("0.5-2", "60")).expect("valid");
        assert_eq!(s.poll_min.as_millis(), 500);
        assert_eq!(s.poll_max.as_secs(), 2);
        assert_eq!(s.wait_cap.as_secs(), 60);
        assert_eq!(s.wait_without_progress.as_secs(), 60);
        let s = ci_settings(&env("", "")).expect("defaults");
        assert_eq!((s.poll_min.as_secs(), s.poll_max.as_secs()), (10, 30));
        assert_eq!(s.wait_without_progress.as_secs(), 50);
        for bad in ["30-10", "0", "x-2", "-1"] {
            let e = ci_settings(&env(bad, "")).expect_err(bad);
            assert_eq!(e.category.as_str(), "user", "{bad}");
        }
    }

    /// The CLI has no client that ends a call at 60 s: a CI wait without progress runs to the
    /// wait's cap, a code call gets 15 minutes; unless the environment says otherwise.
    #[test]
    fn the_cli_waits_as_long_as_asked() {
        let ctx = || {
            let config = resolve_pr_forge::Config::from_parts(None, None, &|_: &str| None).unwrap();
            Context::new(Arc::new(Forges::new(config)), CursorCodec::new([7; 32]))
        };
        let mut cli = ctx();
        for_the_cli(&mut cli, &|_| None);
        assert_eq!(cli.ci.wait_without_progress, cli.ci.wait_cap);
        assert_eq!(cli.ci.wait_cap.as_secs(), 1800);
        assert_eq!(cli.lsp.config().call_wait.as_secs(), 15 * 60);
        let mut told = ctx();
        let pool_wait = told.lsp.config().call_wait;
        told.ci.wait_without_progress = std::time::Duration::from_secs(7);
        for_the_cli(&mut told, &|k| {
            ["RESOLVE_PR_CI_CALL_WAIT", "RESOLVE_PR_CODE_CALL_WAIT"]
                .contains(&k)
                .then(|| "7".to_owned())
        });
        assert_eq!(told.ci.wait_without_progress.as_secs(), 7);
        assert_eq!(told.lsp.config().call_wait, pool_wait);
    }

    #[test]
    fn toolsets_split_on_commas() {
        let cli = Cli::try_parse_from([
            "resolve-pr",
            "serve",
            "--read-only",
            "--toolsets",
            "comments,ci",
        ])
        .unwrap();
        let Command::Serve { selection, .. } = cli.command else {
            panic!("not serve")
        };
        assert_eq!(
            selection.options(),
            Options {
                read_only: true,
                toolsets: Some(vec!["comments".into(), "ci".into()])
            }
        );
    }

    #[test]
    fn http_flags_parse_and_need_http() {
        let cli = Cli::try_parse_from([
            "resolve-pr",
            "serve",
            "--http",
            "127.0.0.1:0",
            "--allowed-host",
            "mcp.example.com",
            "--allowed-host",
            "mcp.example.com:8443",
            "--allowed-origin",
            "https://app.example.com",
            "--allow-server-token",
            "--shutdown-grace",
            "2.5",
            "--header-timeout",
            "0.5",
            "--max-connections",
            "100",
        ])
        .unwrap();
        let Command::Serve { http, .. } = cli.command else {
            panic!("not serve")
        };
        assert_eq!(
            http.http(),
            Some(serve::Http {
                listen: "127.0.0.1:0".parse().unwrap(),
                allowed_hosts: vec!["mcp.example.com".into(), "mcp.example.com:8443".into()],
                allowed_origins: vec!["https://app.example.com".into()],
                allow_server_token: true,
                shutdown_grace: std::time::Duration::from_millis(2500),
                header_timeout: std::time::Duration::from_millis(500),
                body_timeout: std::time::Duration::from_secs(30),
                max_connections: Some(100),
            })
        );
        let cli = Cli::try_parse_from(["resolve-pr", "serve"]).unwrap();
        let Command::Serve { http, .. } = cli.command else {
            panic!("not serve")
        };
        assert_eq!(http.http(), None);
        let cli = Cli::try_parse_from(["resolve-pr", "serve", "--http", "localhost:8080"]).unwrap();
        let Command::Serve { http, .. } = cli.command else {
            panic!("not serve")
        };
        assert_eq!(
            http.http().unwrap().listen,
            "127.0.0.1:8080".parse().unwrap()
        );
        for bad in [
            &["serve", "--allow-server-token"][..],
            &["serve", "--http", "example.com:8080"],
            &["serve", "--http", "127.0.0.1"],
            &["serve", "--http", "127.0.0.1:0", "--shutdown-grace", "-1"],
            &["serve", "--http", "127.0.0.1:0", "--shutdown-grace", "soon"],
            &["serve", "--http", "127.0.0.1:0", "--header-timeout", "0"],
            &["serve", "--http", "127.0.0.1:0", "--body-timeout", "-3"],
            &["serve", "--http", "127.0.0.1:0", "--max-connections", "0"],
            &["serve", "--max-connections", "10"],
        ] {
            let args = std::iter::once("resolve-pr").chain(bad.iter().copied());
            assert!(Cli::try_parse_from(args).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn dash_reads_arguments_from_stdin() {
        let cli = Cli::try_parse_from(["resolve-pr", "tool", "pr_comment_list", "-"]).unwrap();
        let Command::Tool { arguments, .. } = cli.command else {
            panic!("not tool")
        };
        assert_eq!(arguments.as_deref(), Some("-"));
    }
}
