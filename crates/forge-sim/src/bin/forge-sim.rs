//! `forge-sim --scenario FILE|builtin:NAME [--port N]`: serves a scenario over HTTP for
//! out-of-process tests and demos. Prints one line, `listening http://127.0.0.1:PORT`, then
//! serves until stdin closes or SIGTERM/Ctrl-C. Control endpoints live under `/_sim/`.

#![allow(
    clippy::print_stderr,
    reason = "a command-line program reports bad usage on stderr"
)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use resolve_pr_forge_sim::{Scenario, Sim};

const USAGE: &str = "usage: forge-sim --scenario FILE|builtin:NAME [--port N]";

fn parse_args() -> Result<(Scenario, u16), String> {
    let mut args = std::env::args().skip(1);
    let mut scenario = None;
    let mut port = 0u16;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => scenario = Some(args.next().ok_or("--scenario needs a value")?),
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = value
                    .parse()
                    .map_err(|_| format!("--port {value:?} is not a port number"))?;
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unexpected argument {other:?}\n{USAGE}")),
        }
    }
    let spec = scenario.ok_or_else(|| USAGE.to_owned())?;
    let scenario = match spec.strip_prefix("builtin:") {
        Some(name) => Scenario::builtin(name).ok_or_else(|| {
            format!(
                "no builtin scenario {name:?}; known: {}",
                Scenario::builtin_names().join(", ")
            )
        })?,
        None => Scenario::from_file(Path::new(&spec)).map_err(|e| e.to_string())?,
    };
    Ok((scenario, port))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let (scenario, port) = match parse_args() {
        Ok(v) => v,
        Err(msg) => {
            eprintln!("forge-sim: {msg}");
            return ExitCode::from(2);
        }
    };
    let sim = match Sim::start_on(scenario, port).await {
        Ok(sim) => sim,
        Err(e) => {
            eprintln!("forge-sim: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "listening {}", sim.base_url())
        .and_then(|_| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }

    // A plain thread, not tokio's stdin: a blocked tokio stdin read would hold up shutdown.
    let (stdin_closed_tx, stdin_closed) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = [0u8; 1024];
        let mut stdin = std::io::stdin();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        let _ = stdin_closed_tx.send(());
    });

    tokio::select! {
        _ = stdin_closed => {}
        _ = terminate() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    sim.shutdown().await;
    ExitCode::SUCCESS
}

#[cfg(unix)]
async fn terminate() {
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut sig) => {
            sig.recv().await;
        }
        Err(_) => std::future::pending::<()>().await,
    }
}

#[cfg(not(unix))]
async fn terminate() {
    std::future::pending::<()>().await
}
