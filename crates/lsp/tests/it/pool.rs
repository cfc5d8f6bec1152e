//! The pool and client's own behaviour with a stand-in server (tests/fake_server.py, a real
//! process speaking LSP over stdio): a server that ignores a cancelled request is killed and
//! the next call starts another; one that honours it lives on; idle servers and servers over
//! the memory cap are shut down; a crashed server is started again; the requests a server
//! sends are answered and its progress tracked.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use resolve_pr_core::ErrorCode;
use resolve_pr_lsp::servers::{Language, ServerSpec};
use resolve_pr_lsp::{Error, Pool, PoolConfig, Pos, Target};
use serde_json::{Value, json};

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn script() -> &'static str {
    leak(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fake_server.py")
            .canonicalize()
            .unwrap()
            .display()
            .to_string(),
    )
}

fn no_options(_: &Path) -> Option<Value> {
    None
}
fn settings(_: &Path) -> Value {
    json!({"fake": {"answer": "forty-two"}})
}

/// A registry of one stand-in server for Go (any language would do), in `mode`.
fn registry(mode: &str) -> &'static [ServerSpec] {
    let mode = leak(mode.to_owned());
    let args: &'static [&'static str] = Box::leak(vec![mode].into_boxed_slice());
    let version: &'static [&'static str] = &["--version"];
    Box::leak(
        vec![ServerSpec {
            name: "fake",
            language: Language::Go,
            program: script(),
            args,
            version_command: (script(), version),
            install: "nothing to install",
            why: "a stand-in",
            reports_status: false,
            files_found: (mode == "late-files").then_some(found_files as fn(&str) -> bool),
            refactors_only: false,
            watches_files: true,
            answers_while_indexing: true,
            push_settings: false,
            initialization_options: no_options,
            settings,
        }]
        .into_boxed_slice(),
    )
}

fn found_files(message: &str) -> bool {
    message.starts_with("Found ")
}

fn config() -> PoolConfig {
    PoolConfig {
        request_timeout: Duration::from_millis(800),
        cancel_grace: Duration::from_millis(800),
        ready_wait: Duration::from_secs(5),
        ..PoolConfig::default()
    }
}

/// A position inside `main.go`'s function, where every question of these tests is asked.
const IN_MAIN: Pos = Pos {
    line: 2,
    character: 5,
};

fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("main.go");
    std::fs::write(&file, "package main\n\nfunc main() {}\n").unwrap();
    (dir, root, file)
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

async fn gone_within(pid: u32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    !alive(pid)
}

#[tokio::test]
async fn a_server_that_ignores_a_cancelled_request_is_killed_and_replaced() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("ignore-cancel"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    let pid = server.client.pid().unwrap();
    let err = server.definition(&file, IN_MAIN).await.unwrap_err();
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    assert_eq!(err.code(), ErrorCode::Timeout);
    assert!(
        gone_within(pid, Duration::from_secs(5)).await,
        "the server ignored the cancellation and lives on"
    );
    assert!(server.client.exited());
    let next = pool.server(Language::Go, &root).await.unwrap();
    assert_ne!(next.client.pid(), Some(pid), "a new server was started");
    pool.shutdown_all().await;
}

#[tokio::test]
async fn a_server_that_honours_cancellation_lives_on() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("honor-cancel"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    let pid = server.client.pid().unwrap();
    let err = server.definition(&file, IN_MAIN).await.unwrap_err();
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    // Past the grace time, it is still there and still answers.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(alive(pid) && !server.client.exited());
    server.references(&file, IN_MAIN, true).await.unwrap();
    pool.shutdown_all().await;
    assert!(gone_within(pid, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn a_dropped_request_is_cancelled_like_a_timed_out_one() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(
        PoolConfig {
            request_timeout: Duration::from_secs(60),
            ..config()
        },
        registry("ignore-cancel"),
    );
    let server = pool.server(Language::Go, &root).await.unwrap();
    let pid = server.client.pid().unwrap();
    // The MCP call was cancelled: its future is dropped mid-request.
    let asked = tokio::time::timeout(
        Duration::from_millis(300),
        server.definition(&file, IN_MAIN),
    )
    .await;
    assert!(asked.is_err());
    assert!(gone_within(pid, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn idle_servers_are_shut_down() {
    let (_dir, root, _file) = project();
    let pool = Pool::with_registry(
        PoolConfig {
            idle_timeout: Duration::from_secs(1),
            ..config()
        },
        registry("normal"),
    );
    let server = pool.server(Language::Go, &root).await.unwrap();
    let pid = server.client.pid().unwrap();
    drop(server);
    assert_eq!(pool.running().await.len(), 1);
    assert!(
        gone_within(pid, Duration::from_secs(6)).await,
        "the idle server still runs"
    );
    assert!(pool.running().await.is_empty());
}

#[tokio::test]
async fn over_the_memory_cap_the_least_recently_used_server_goes_first() {
    let (_a, root_a, _) = project();
    let (_b, root_b, _) = project();
    // Any server is over a cap of one byte: starting the second stops the first.
    let pool = Pool::with_registry(
        PoolConfig {
            memory_cap_bytes: 1,
            ..config()
        },
        registry("normal"),
    );
    let a = pool.server(Language::Go, &root_a).await.unwrap();
    let pid_a = a.client.pid().unwrap();
    assert!(a.client.resident_bytes() > 0, "memory is read from /proc");
    let b = pool.server(Language::Go, &root_b).await.unwrap();
    assert!(
        gone_within(pid_a, Duration::from_secs(5)).await,
        "the first server was not stopped"
    );
    assert!(alive(b.client.pid().unwrap()));
    let running = pool.running().await;
    assert_eq!(running.len(), 1);
    assert_eq!(running[0].root, root_b);
    pool.shutdown_all().await;
}

#[tokio::test]
async fn a_crashed_server_is_started_again() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("normal"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    let pid = server.client.pid().unwrap();
    let err = server.hover(&file, IN_MAIN).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerFailed, "{err:?}");
    assert!(server.client.exited());
    let again = pool.server(Language::Go, &root).await.unwrap();
    assert_ne!(again.client.pid(), Some(pid));
    pool.shutdown_all().await;
}

#[tokio::test]
async fn server_requests_are_answered_and_progress_is_tracked() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("normal"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    // It opens a progress token once initialized and keeps it open until asked for
    // references: seen, and waited for in vain.
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.client.status().indexing().is_none() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let busy = server
        .client
        .wait_ready(Instant::now() + Duration::from_millis(300))
        .await;
    assert_eq!(busy.as_deref(), Some("Indexing"));
    // Its definition answer quotes what workspace/configuration answered it.
    let def = server.definition(&file, IN_MAIN).await.unwrap();
    assert_eq!(def.value[0].path, PathBuf::from("/configured/forty-two"));
    assert_eq!(
        def.indexing.as_deref(),
        Some("Indexing"),
        "an answer while indexing says so"
    );
    let refs = server.references(&file, IN_MAIN, true).await.unwrap();
    assert!(refs.value.is_empty());
    assert_eq!(
        server
            .client
            .wait_ready(Instant::now() + Duration::from_secs(2))
            .await,
        None
    );
    pool.shutdown_all().await;
}

#[tokio::test]
async fn a_request_dropped_while_the_workspace_loads_is_asked_again_until_answered() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("content-modified"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    let def = server
        .definition(&file, IN_MAIN)
        .await
        .expect("four drops in a row are outlasted");
    assert_eq!(def.value[0].path, PathBuf::from("/configured/forty-two"));
    pool.shutdown_all().await;
}

#[tokio::test]
async fn a_request_dropped_for_the_whole_window_says_the_server_is_busy() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(
        PoolConfig {
            ready_wait: Duration::from_secs(2),
            ..config()
        },
        registry("always-modified"),
    );
    let server = pool.server(Language::Go, &root).await.unwrap();
    let started = Instant::now();
    let err = server.definition(&file, IN_MAIN).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerIndexing, "{err}");
    assert!(err.to_string().contains("content modified"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "gave up within its window (with slack for a loaded machine)"
    );
    assert!(!server.client.exited(), "a busy server is not killed");
    pool.shutdown_all().await;
}

/// Ends the stand-in's indexing, and waits until the client has seen that.
async fn end_indexing(server: &resolve_pr_lsp::Server) {
    server.client.notify("fake/endIndexing", json!({}));
    assert_eq!(
        server
            .client
            .wait_ready(Instant::now() + Duration::from_secs(5))
            .await,
        None
    );
}

fn resolved_at(r: &resolve_pr_lsp::Resolved, root: &Path) -> (String, &'static str, u32) {
    let s = r.symbol.as_ref().unwrap();
    (
        r.path.strip_prefix(root).unwrap().display().to_string(),
        s.kind,
        r.pos.line,
    )
}

#[tokio::test]
async fn a_name_picks_functions_before_methods_before_fields_and_qualifiers_narrow_it() {
    let (_dir, root, _file) = project();
    let pool = Pool::with_registry(config(), registry("symbols"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    end_indexing(&server).await;
    let by_name = |name: &str| Target::Symbol {
        name: name.into(),
        kind: None,
    };
    // Bare: the functions first (by path), then the method, then the field.
    let cut = server.resolve(&by_name("cut")).await.unwrap();
    assert_eq!(
        resolved_at(&cut, &root),
        ("src/budget.rs".into(), "function", 2)
    );
    let others: Vec<(&str, u32)> = cut
        .others
        .iter()
        .map(|s| (s.kind, s.location.range.start.line))
        .collect();
    assert_eq!(others, [("function", 0), ("method", 4), ("field", 1)]);
    // A module path names the file.
    let module = server.resolve(&by_name("other::cut")).await.unwrap();
    assert_eq!(
        resolved_at(&module, &root),
        ("src/other.rs".into(), "function", 0)
    );
    assert!(module.others.is_empty(), "{:?}", module.others);
    // A type names the container: its method before its field.
    let method = server.resolve(&by_name("Budget::cut")).await.unwrap();
    assert_eq!(
        resolved_at(&method, &root),
        ("src/types.rs".into(), "method", 4)
    );
    assert_eq!(method.others.len(), 1);
    // A kind filters.
    let field = server
        .resolve(&Target::Symbol {
            name: "Budget.cut".into(),
            kind: Some("field".into()),
        })
        .await
        .unwrap();
    assert_eq!(
        resolved_at(&field, &root),
        ("src/types.rs".into(), "field", 1)
    );
    // A qualifier nothing matches finds nothing, and says so.
    let err = server.resolve(&by_name("Ledger::cut")).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::SymbolNotFound, "{err}");
    pool.shutdown_all().await;
}

#[tokio::test]
async fn a_name_not_found_while_the_server_indexes_says_it_is_indexing() {
    let (_dir, root, _file) = project();
    let pool = Pool::with_registry(
        PoolConfig {
            ready_wait: Duration::from_millis(600),
            ..config()
        },
        registry("symbols"),
    );
    let server = pool.server(Language::Go, &root).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.client.status().indexing().is_none() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let missing = Target::Symbol {
        name: "absent".into(),
        kind: None,
    };
    let err = server.resolve(&missing).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::ServerIndexing, "{err}");
    assert!(err.to_string().contains("Indexing"), "{err}");
    end_indexing(&server).await;
    let err = server.resolve(&missing).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::SymbolNotFound, "{err}");
    pool.shutdown_all().await;
}

/// A server that reports no indexing (as pyright) and finds nothing for its first moments:
/// a fresh server's empty answer to a workspace-wide question is asked again until the
/// server has had time to find the project's files.
#[tokio::test]
async fn a_fresh_server_that_reports_nothing_is_asked_again_while_it_finds_nothing() {
    let (_dir, root, _file) = project();
    let pool = Pool::with_registry(config(), registry("late-symbols"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    let found = server.workspace_symbols("cut").await.unwrap();
    assert_eq!(found.value.len(), 4, "{:?}", found.value);
    assert!(found.indexing.is_none());
    // A name that is nowhere is answered as not found once the server is old enough.
    let none = server.workspace_symbols("absent").await.unwrap();
    assert!(none.value.is_empty());
    pool.shutdown_all().await;
}

/// A server that answers references from the files it has found so far, without reporting
/// progress, until it logs that it found them all (pyright, whose first answer at a
/// declaration was that declaration alone): a fresh server is asked only once it said so.
#[tokio::test]
async fn references_wait_until_a_server_that_finds_its_files_late_has_found_them() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("late-files"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    assert!(server.client.status().indexing().is_some());
    let found = server.references(&file, IN_MAIN, true).await.unwrap();
    assert_eq!(found.value.len(), 3, "{:?}", found.value);
    assert!(found.indexing.is_none());
    pool.shutdown_all().await;
}

/// A server that addresses a renamed file by its new name: the edit is read from, and made
/// to, the file where it still is (the rename itself comes after the edits).
#[tokio::test]
async fn a_file_rename_edit_addressed_to_the_new_name_is_made_to_the_file_where_it_is() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("rename-new-uri"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    end_indexing(&server).await;
    let change = server
        .will_rename_files(&[(file.clone(), root.join("app.go"))])
        .await
        .unwrap()
        .expect("the server renames files");
    let paths: Vec<_> = change.changes.iter().flat_map(|c| c.paths()).collect();
    assert_eq!(paths, vec![Path::new("main.go")], "{change:?}");
    pool.shutdown_all().await;
}

#[tokio::test]
async fn a_position_past_the_end_of_the_file_is_refused_before_asking() {
    let (_dir, root, file) = project();
    let pool = Pool::with_registry(config(), registry("ignore-cancel"));
    let server = pool.server(Language::Go, &root).await.unwrap();
    let err = server
        .definition(
            &file,
            Pos {
                line: 9,
                character: 0,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidPosition);
    let err = server
        .definition(
            &file,
            Pos {
                line: 2,
                character: 99,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidPosition);
    // Nothing was sent that it would have hung on.
    assert!(!server.client.exited());
    pool.shutdown_all().await;
}

/// A program that is there but does not run as its server (rustup's `rust-analyzer` proxy
/// without the component prints an error and exits) is "not installed", with the command
/// that installs it; it is not started again and again.
#[tokio::test]
async fn a_program_that_exits_at_once_is_not_installed() {
    let (_dir, root, _file) = project();
    let fails: &'static [ServerSpec] = Box::leak(
        vec![ServerSpec {
            name: "broken",
            language: Language::Go,
            program: "/bin/false",
            args: &[],
            version_command: ("/bin/false", &[]),
            install: "install the real one",
            why: "",
            reports_status: false,
            files_found: None,
            refactors_only: false,
            watches_files: true,
            answers_while_indexing: true,
            push_settings: false,
            initialization_options: no_options,
            settings,
        }]
        .into_boxed_slice(),
    );
    let pool = Pool::with_registry(config(), fails);
    let err = pool
        .server(Language::Go, &root)
        .await
        .err()
        .expect("refused");
    assert_eq!(err.code(), ErrorCode::ServerNotInstalled, "{err}");
    assert!(
        matches!(
            err,
            Error::NotInstalled {
                install: "install the real one",
                ..
            }
        ),
        "{err:?}"
    );
}

/// A server that is slow to start (up to a minute for a cold one) holds up only the callers
/// of its own root: another root's server starts and answers meanwhile.
#[tokio::test]
async fn a_slow_start_does_not_hold_up_another_roots_server() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    let (slow, fast) = (top.join("slow"), top.join("fast"));
    for root in [&slow, &fast] {
        std::fs::create_dir_all(root).unwrap();
        std::fs::write(root.join("main.go"), "package main\n\nfunc main() {}\n").unwrap();
    }
    let config = PoolConfig {
        request_timeout: Duration::from_secs(10),
        ..config()
    };
    let pool = Pool::with_registry(config, registry("slow-start"));
    let slow_start = tokio::spawn({
        let (pool, slow) = (pool.clone(), slow.clone());
        async move {
            pool.server(Language::Go, &slow)
                .await
                .map(|_| Instant::now())
        }
    });
    // The slow one has begun its start.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let asked = Instant::now();
    let server = pool.server(Language::Go, &fast).await.unwrap();
    let answer = server
        .definition(&fast.join("main.go"), IN_MAIN)
        .await
        .unwrap();
    let answered = Instant::now();
    assert_eq!(answer.value.len(), 1);
    assert!(
        answered - asked < Duration::from_millis(2000),
        "the fast root waited {:?}",
        answered - asked
    );
    // A second caller for the slow root waits for the same start: one server.
    let second = pool.server(Language::Go, &slow).await.unwrap();
    let slow_done = slow_start.await.unwrap().unwrap();
    assert!(
        answered < slow_done,
        "the fast root answered after the slow one started"
    );
    assert_eq!(pool.running().await.len(), 2);
    drop(second);
    pool.shutdown_all().await;
}

/// A start that fails while another caller waits for it: the waiter and a caller who comes
/// while the waiter starts again share one start, so the root gets one server, not two (the
/// second would have replaced the first in the pool, uncounted by its limits).
#[tokio::test]
async fn after_a_failed_start_the_waiter_and_a_newcomer_share_one_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("main.go"), "package main\n\nfunc main() {}\n").unwrap();
    let config = PoolConfig {
        request_timeout: Duration::from_secs(10),
        ..config()
    };
    let pool = Pool::with_registry(config, registry("fail-then-slow"));
    let call = |pool: &Pool| {
        let (pool, root) = (pool.clone(), root.clone());
        tokio::spawn(async move { pool.server(Language::Go, &root).await.map(|_| ()) })
    };
    let first = call(&pool);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let waiter = call(&pool);
    // The first start fails at about a second; the waiter's start then takes one and a half.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let newcomer = call(&pool);
    assert!(first.await.unwrap().is_err());
    waiter.await.unwrap().unwrap();
    newcomer.await.unwrap().unwrap();
    let starts = std::fs::read_to_string(root.join("starts")).unwrap();
    assert_eq!(starts.lines().count(), 2, "started: {starts:?}");
    pool.shutdown_all().await;
}

/// What a server prints on stderr (a Node stack trace) is logged, never put in an error an
/// answer carries.
#[tokio::test]
async fn a_servers_stderr_is_not_in_the_error() {
    let (_dir, root, _file) = project();
    let pool = Pool::with_registry(config(), registry("noisy-crash"));
    let err = pool
        .server(Language::Go, &root)
        .await
        .err()
        .expect("refused");
    let said = err.to_string();
    assert!(said.contains("initialize failed"), "{said}");
    assert!(
        !said.contains("Cannot find module") && !said.contains("loader:1145"),
        "{said}"
    );
}

/// A caller that gives up on a slow start (its call's deadline passed) leaves the start
/// running, said by `busy` while it runs: the next call takes the started server instead
/// of starting one from zero, which on a slow machine would never finish within one call.
#[tokio::test]
async fn a_start_whose_caller_gave_up_goes_on_and_is_said_to_be_under_way() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("slow");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("main.go"), "package main\n\nfunc main() {}\n").unwrap();
    let config = PoolConfig {
        request_timeout: Duration::from_secs(10),
        ..config()
    };
    let pool = Pool::with_registry(config, registry("slow-start"));
    let gave_up =
        tokio::time::timeout(Duration::from_millis(700), pool.server(Language::Go, &root)).await;
    assert!(
        gave_up.is_err(),
        "the start took 3 s, the caller waited 0.7"
    );
    let busy = pool.busy();
    assert_eq!(busy.len(), 1, "{busy:?}");
    assert_eq!(busy[0].server, "fake");
    assert!(busy[0].starting_for.is_some(), "{busy:?}");
    // Without anyone asking, the start ends and the server is there.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pool.is_running(Language::Go, &root).await {
        assert!(
            Instant::now() < deadline,
            "the abandoned start did not go on"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(pool.busy().iter().all(|b| b.starting_for.is_none()));
    let asked = Instant::now();
    let server = pool.server(Language::Go, &root).await.unwrap();
    assert!(asked.elapsed() < Duration::from_secs(1), "started again");
    drop(server);
    assert_eq!(pool.running().await.len(), 1);
    pool.shutdown_all().await;
}
