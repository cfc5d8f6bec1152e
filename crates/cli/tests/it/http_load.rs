//! Load on `resolve-pr serve --http` as a process: 64 MCP clients (rmcp's streamable-HTTP
//! client) make 100 tool calls each, concurrently, with four callers' bearer tokens, against a
//! forge that takes 50 ms to answer every request. Every call must give its caller's answer
//! (its own private repository's comment, the shared one, or not-found for another caller's
//! repository) within a bounded time; no error is allowed.
//!
//! The figures (latency percentiles, throughput, the server's peak RSS) are printed, not
//! asserted — wall time on a shared CI machine says little. Latency is also given as a multiple
//! of two references measured in the same run: one forge round trip made directly, and the
//! same call made by one client alone. Run with
//! `cargo test -p resolve-pr --test it -- --nocapture http_load::` to see them.

#![allow(clippy::print_stdout)]

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use resolve_pr_forge_sim::{Fault, FaultKind, Scenario, Sim, SimHandle};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::Barrier;

const CLIENTS: usize = 64;
const CALLS_PER_CLIENT: usize = 100;
/// Every forge request waits this long before it is answered.
const FORGE_LATENCY_MS: u64 = 50;
/// Calls (and forge round trips) measured alone, for the references.
const REFERENCE_CALLS: usize = 20;
/// No single call may take longer; one that does counts as an error.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);
const TOKENS: [&str; 4] = [
    "ghp_load_reader0_000000000000",
    "ghp_load_reader1_111111111111",
    "ghp_load_reader2_222222222222",
    "ghp_load_reader3_333333333333",
];
const SHARED_COMMENT: &str = "Everyone may read this.";

/// `resolve-pr serve --http 127.0.0.1:0` pointed at the simulator, with no token of its own.
struct Serve {
    child: Child,
    url: String,
    _home: tempfile::TempDir,
}

impl Serve {
    async fn start(api_url: &str) -> Serve {
        let home = tempfile::tempdir().expect("a temporary HOME");
        let config = home.path().join("config.toml");
        std::fs::write(&config, "").expect("an empty config");
        let mut child = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
            .args(["serve", "--http", "127.0.0.1:0"])
            .env_clear()
            .env("HOME", home.path())
            .env("XDG_STATE_HOME", home.path().join("state"))
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("RESOLVE_PR_CONFIG", &config)
            .env("GITHUB_API_URL", api_url)
            .env("RESOLVE_PR_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("resolve-pr serve starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            let mut seen = String::new();
            while let Some(line) = lines.next_line().await.expect("stderr reads") {
                if let Some(url) = line.strip_prefix("listening on ") {
                    return url.to_owned();
                }
                seen.push_str(&line);
                seen.push('\n');
            }
            panic!("no listening line in:\n{seen}");
        })
        .await
        .expect("the server announces its address");
        // Keep draining stderr so a chatty server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Serve {
            child,
            url,
            _home: home,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("the server is running")
    }

    /// The server's peak resident set (VmHWM), in KiB.
    fn peak_rss_kib(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("/proc");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse().ok())
            .expect("VmHWM in /proc/PID/status")
    }
}

/// CPU time (user + system) a process has used so far: `/proc/PID/stat` fields 14 and 15, in
/// clock ticks of 10 ms (USER_HZ is 100 on every Linux architecture this runs on).
fn cpu_time(pid: &str) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc");
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after_name = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    Duration::from_millis(ticks * 10)
}

fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

async fn client(url: &str, token: &str) -> Result<RunningService<RoleClient, ()>, String> {
    install_crypto();
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token.to_owned());
    let connect = ().serve(StreamableHttpClientTransport::from_config(config));
    match tokio::time::timeout(CALL_TIMEOUT, connect).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(format!("initialize: {e}")),
        Err(_) => Err("initialize timed out".to_owned()),
    }
}

/// What a call asks, and what its caller must get back.
struct Ask {
    repository: String,
    /// The one comment's body, or `None` when the repository must be not-found to this caller.
    expect: Option<String>,
}

/// Call `n` of the client with token `reader`: the shared repository, its own private one, or
/// the next caller's (not-found), in turn.
fn ask(reader: usize, n: usize) -> Ask {
    match n % 3 {
        0 => Ask {
            repository: "acme/shared".to_owned(),
            expect: Some(SHARED_COMMENT.to_owned()),
        },
        1 => Ask {
            repository: format!("acme/private{reader}"),
            expect: Some(format!("Only reader{reader} may read this.")),
        },
        _ => Ask {
            repository: format!("acme/private{}", (reader + 1) % TOKENS.len()),
            expect: None,
        },
    }
}

fn request(ask: &Ask) -> CallToolRequestParams {
    let Value::Object(args) = json!({"repository": ask.repository, "pull_request_number": 1})
    else {
        unreachable!("an object literal")
    };
    CallToolRequestParams::new("pr_comment_list").with_arguments(args)
}

/// Why the answer is not the one due, if it is not.
fn wrong(ask: &Ask, result: &CallToolResult) -> Option<String> {
    let content = result.structured_content.as_ref();
    let show = || {
        format!(
            "{}: {}",
            ask.repository,
            serde_json::to_string(result).unwrap()
        )
    };
    match &ask.expect {
        Some(body) => {
            let bodies: Option<Vec<&str>> = content
                .and_then(|c| c["comments"].as_array())
                .map(|cs| cs.iter().filter_map(|c| c["body"].as_str()).collect());
            (result.is_error != Some(false) || bodies != Some(vec![body.as_str()])).then(show)
        }
        None => {
            let text = serde_json::to_string(result).unwrap();
            let refused = result.is_error == Some(true)
                && content.is_some_and(|c| c["category"] == "user")
                && !text.contains("may read this");
            (!refused).then(show)
        }
    }
}

/// One timed call; `Err` says what went wrong (transport error, timeout or wrong answer).
async fn timed_call(
    client: &RunningService<RoleClient, ()>,
    ask: &Ask,
) -> (Duration, Result<(), String>) {
    let started = Instant::now();
    let outcome = tokio::time::timeout(CALL_TIMEOUT, client.call_tool(request(ask))).await;
    let elapsed = started.elapsed();
    let checked = match outcome {
        Err(_) => Err(format!("{}: timed out", ask.repository)),
        Ok(Err(e)) => Err(format!("{}: {e}", ask.repository)),
        Ok(Ok(result)) => wrong(ask, &result).map_or(Ok(()), Err),
    };
    (elapsed, checked)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The forge alone under the same concurrency: `CLIENTS` tasks making `REFERENCE_CALLS`
/// direct requests each; the calls per second it sustains bound what the server can reach.
async fn forge_under_load(sim: &SimHandle) -> f64 {
    install_crypto();
    let http = reqwest::Client::new();
    let url = format!("{}/repos/acme/shared/issues/1/comments", sim.base_url());
    let started = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let (http, url) = (http.clone(), url.clone());
            tokio::spawn(async move {
                for _ in 0..REFERENCE_CALLS {
                    let response = tokio::time::timeout(
                        CALL_TIMEOUT,
                        http.get(&url)
                            .header(
                                "authorization",
                                format!("Bearer {}", TOKENS[i % TOKENS.len()]),
                            )
                            .header("user-agent", "http-load-reference")
                            .send(),
                    )
                    .await
                    .expect("the forge answers in time")
                    .expect("the forge answers");
                    assert_eq!(response.status(), 200);
                    response.bytes().await.expect("a body");
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a reference task");
    }
    (CLIENTS * REFERENCE_CALLS) as f64 / started.elapsed().as_secs_f64()
}

/// One forge round trip made directly (the same request the tool makes first), p50 of
/// `REFERENCE_CALLS` in a row.
async fn forge_round_trip(sim: &SimHandle) -> Duration {
    install_crypto();
    let http = reqwest::Client::new();
    let url = format!("{}/repos/acme/shared/issues/1/comments", sim.base_url());
    let mut times = Vec::new();
    for _ in 0..REFERENCE_CALLS {
        let started = Instant::now();
        let response = tokio::time::timeout(
            CALL_TIMEOUT,
            http.get(&url)
                .header("authorization", format!("Bearer {}", TOKENS[0]))
                .header("user-agent", "http-load-reference")
                .send(),
        )
        .await
        .expect("the forge answers in time")
        .expect("the forge answers");
        assert_eq!(response.status(), 200);
        response.bytes().await.expect("a body");
        times.push(started.elapsed());
    }
    times.sort();
    percentile(&times, 50.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_clients_with_four_tokens_get_every_answer_right_over_a_slow_forge() {
    let _alone = crate::ALONE.lock().await;
    let scenario = Scenario::from_yaml(include_str!("../scenarios/four_readers.yaml"))
        .expect("the scenario parses");
    let sim = Sim::start(scenario).await.expect("forge-sim starts");
    // Every forge request from here on is slow: a fault that never runs out.
    sim.inject(Fault {
        method: None,
        path: "/*".into(),
        times: u32::MAX,
        kind: FaultKind::Latency {
            ms: FORGE_LATENCY_MS,
        },
    });
    let server = Serve::start(&sim.base_url()).await;
    let started_rss_kib = server.peak_rss_kib();

    // References: the forge alone, then the same calls from one client alone.
    let round_trip = forge_round_trip(&sim).await;
    let forge_rate = forge_under_load(&sim).await;
    let solo = client(&server.url, TOKENS[0]).await.expect("a client");
    sim.clear_requests();
    let mut solo_times = Vec::new();
    for n in 0..REFERENCE_CALLS {
        let ask = ask(0, n);
        let (elapsed, checked) = timed_call(&solo, &ask).await;
        if let Err(e) = checked {
            panic!("one client alone: {e}");
        }
        solo_times.push(elapsed);
    }
    let forge_requests_per_call = sim.requests().len() as f64 / REFERENCE_CALLS as f64;
    solo.cancel().await.expect("the client closes");
    solo_times.sort();
    let solo_p50 = percentile(&solo_times, 50.0);

    // The load: every client connects, then all start calling at once.
    let barrier = Arc::new(Barrier::new(CLIENTS));
    let server_pid = server.pid().to_string();
    let (server_cpu, own_cpu) = (cpu_time(&server_pid), cpu_time("self"));
    let started = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let url = server.url.clone();
            let barrier = barrier.clone();
            tokio::spawn(async move {
                let reader = i % TOKENS.len();
                let connected = client(&url, TOKENS[reader]).await;
                barrier.wait().await;
                let client = match connected {
                    Ok(client) => client,
                    Err(e) => return (Vec::new(), vec![format!("client {i}: {e}")]),
                };
                let mut times = Vec::with_capacity(CALLS_PER_CLIENT);
                let mut errors = Vec::new();
                for n in 0..CALLS_PER_CLIENT {
                    let (elapsed, checked) = timed_call(&client, &ask(reader, n + i)).await;
                    times.push(elapsed);
                    if let Err(e) = checked {
                        errors.push(format!("client {i} call {n}: {e}"));
                    }
                }
                let _ = client.cancel().await;
                (times, errors)
            })
        })
        .collect();
    let mut times = Vec::with_capacity(CLIENTS * CALLS_PER_CLIENT);
    let mut errors = Vec::new();
    for task in tasks {
        let (t, e) = task.await.expect("a client task");
        times.extend(t);
        errors.extend(e);
    }
    let wall = started.elapsed();
    let server_cpu = cpu_time(&server_pid) - server_cpu;
    let own_cpu = cpu_time("self") - own_cpu;
    let peak_rss_kib = server.peak_rss_kib();
    times.sort();
    let (p50, p99) = (percentile(&times, 50.0), percentile(&times, 99.0));

    println!(
        "http load: {CLIENTS} clients x {CALLS_PER_CLIENT} calls of pr_comment_list, {} tokens, forge latency {FORGE_LATENCY_MS} ms per request",
        TOKENS.len()
    );
    println!("  calls: {} answered, {} errors", times.len(), errors.len());
    println!(
        "  latency of a call: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(p50),
        ms(p99),
        ms(*times.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "  throughput: {:.0} calls/s ({:.1} s for all)",
        times.len() as f64 / wall.as_secs_f64(),
        wall.as_secs_f64()
    );
    println!(
        "  server peak RSS (VmHWM): {:.1} MiB; {:.1} MiB once started, before any call",
        peak_rss_kib as f64 / 1024.0,
        started_rss_kib as f64 / 1024.0
    );
    println!(
        "  CPU: server {:.2} ms per call ({:.0}% of a core); test process (clients and forge) {:.0}% of a core",
        ms(server_cpu) / times.len() as f64,
        100.0 * server_cpu.as_secs_f64() / wall.as_secs_f64(),
        100.0 * own_cpu.as_secs_f64() / wall.as_secs_f64()
    );
    // Other work on the machine slows every figure alike; the ratios below are what compare.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "  machine: load average {} over {} CPUs",
        load.split(' ').take(3).collect::<Vec<_>>().join(" "),
        std::thread::available_parallelism().map_or(0, std::num::NonZero::get)
    );
    println!(
        "  reference: the forge alone, {CLIENTS} tasks of direct requests: {forge_rate:.0} requests/s"
    );
    println!(
        "  reference: forge round trip p50 {:.1} ms; one client alone p50 {:.1} ms ({forge_requests_per_call:.2} forge requests per call)",
        ms(round_trip),
        ms(solo_p50)
    );
    println!(
        "  p50 under load = {:.2} x forge round trip = {:.2} x one client alone; p99 = {:.2} x forge round trip",
        p50.as_secs_f64() / round_trip.as_secs_f64(),
        p50.as_secs_f64() / solo_p50.as_secs_f64(),
        p99.as_secs_f64() / round_trip.as_secs_f64()
    );

    assert!(
        errors.is_empty(),
        "{} of {} calls failed; the first ones:\n{}",
        errors.len(),
        CLIENTS * CALLS_PER_CLIENT,
        errors[..errors.len().min(10)].join("\n")
    );
    assert_eq!(times.len(), CLIENTS * CALLS_PER_CLIENT);
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}
