//! A rename with 100+ references on a real crate nobody here wrote, planned, verified and
//! applied through the `rename` tool, beside the references it is made of, in one process.
//!
//! ```text
//! cargo bench -p resolve-pr-tools --bench refactor_rename [-- CRATE_DIR FILE LINE_TEXT SYMBOL NEW_NAME]
//! ```
//!
//! Default: regex-syntax 0.8 from the cargo registry (`~/.cargo/registry/src/*/`), renaming
//! `hir::Hir` (declared in `src/hir/mod.rs`) to `HirNode`. The crate is copied to a
//! temporary directory. Measured, in order:
//!
//! - cold plan: the first `rename` dry run: rust-analyzer starts and indexes, the rename,
//!   the plan, and verification (a cold `cargo check` of the checkout and of the scratch copy);
//! - the reference for the rename itself: rust-analyzer's `textDocument/rename` alone, warm;
//! - warm plan without verification (`force: true`) and with it (the scratch copy's check is
//!   incremental now), against the reference for verification: one `cargo check
//!   --all-targets` of the crate, warm;
//! - the apply of the verified plan by its id (checksums, journal, writes, servers told);
//! - then the crate's own `cargo test --lib` on the renamed copy.
//!
//! It prints the times and the ratios plan / bare rename and verification / cargo check.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{Config, Forges};
use resolve_pr_lsp::{Pool, PoolConfig, Pos, TrustPolicy};
use resolve_pr_tools::Context;
use serde_json::{Value, json};

fn registry_crate(prefix: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let mut found: Vec<PathBuf> = std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    found.sort();
    found.pop()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let (source, file, line_text, symbol, new_name) = match args.as_slice() {
        [dir, file, line, symbol, new] => (
            PathBuf::from(dir),
            file.clone(),
            line.clone(),
            symbol.clone(),
            new.clone(),
        ),
        _ => match registry_crate("regex-syntax-0.8") {
            Some(dir) => (
                dir,
                "src/hir/mod.rs".into(),
                "pub struct Hir {".into(),
                "Hir".into(),
                "HirNode".into(),
            ),
            None => {
                eprintln!(
                    "regex-syntax 0.8 is not in the cargo registry; give CRATE_DIR FILE LINE_TEXT SYMBOL NEW_NAME"
                );
                return ExitCode::FAILURE;
            }
        },
    };
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("crate");
    copy_dir(&source, &root);
    let root = root.canonicalize().unwrap();
    let text = std::fs::read_to_string(root.join(&file)).unwrap();
    let Some((line, col)) = text.lines().enumerate().find_map(|(i, l)| {
        l.contains(&line_text)
            .then(|| (i as u32, l.find(&symbol).unwrap_or(0) as u32))
    }) else {
        eprintln!("{file} has no line holding {line_text:?}");
        return ExitCode::FAILURE;
    };

    let config = Config::from_parts(None, None, &|_: &str| None).expect("config");
    let mut ctx = Context::new(Arc::new(Forges::new(config)), CursorCodec::new([9; 32]));
    ctx.lsp = Pool::new(PoolConfig {
        trust: TrustPolicy::everything(),
        call_wait: Duration::from_secs(1800),
        ..PoolConfig::from_env()
    });
    ctx.local.state_dir = Some(scratch.path().join("state"));
    let target = json!({"directory": root, "file_path": file, "position": {"line": line, "character": col}, "new_name": new_name});
    let call = |args: Value| {
        let ctx = &ctx;
        async move { resolve_pr_tools::call(ctx, "rename", args).await }
    };

    println!(
        "rename {symbol} → {new_name} in {} (a copy)",
        source.display()
    );
    let started = Instant::now();
    let cold = match call(target.clone()).await {
        Ok(out) => out,
        Err(e) => {
            eprintln!("the cold plan failed: {e:?}");
            return ExitCode::FAILURE;
        }
    };
    let cold_time = started.elapsed();
    let plan = &cold.structured["plan"];
    let edits: usize = plan["edits"]["documentChanges"]
        .as_array()
        .map(|d| {
            d.iter()
                .map(|c| c["edits"].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0);
    println!(
        "  {} edits in {} files; verification: {}",
        edits, plan["summary"]["affected_files"], plan["verification"]["how"]
    );

    // The reference: the server's rename alone, warm.
    let server = ctx
        .lsp
        .server(resolve_pr_lsp::Language::Rust, &root)
        .await
        .expect("rust-analyzer");
    let mut bare = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        server
            .rename(
                &root.join(&file),
                Pos {
                    line,
                    character: col,
                },
                &new_name,
            )
            .await
            .expect("bare rename");
        bare.push(t.elapsed());
    }
    let mut forced = target.clone();
    forced["force"] = json!(true);
    let mut unverified = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        call(forced.clone()).await.expect("warm plan");
        unverified.push(t.elapsed());
    }
    let t = Instant::now();
    let warm = call(target.clone()).await.expect("warm verified plan");
    let warm_verified = t.elapsed();
    let t = Instant::now();
    let checked = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "check",
            "--all-targets",
            "--keep-going",
            "--quiet",
            "--message-format=json",
        ])
        .current_dir(&root)
        .output()
        .expect("cargo check");
    let cargo_check = t.elapsed();
    let _ = checked;

    let id = warm.structured["plan"]["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let t = Instant::now();
    let applied = call(json!({"directory": root, "dry_run": false, "plan_id": id})).await;
    let apply_time = t.elapsed();
    if let Err(e) = &applied {
        eprintln!("the apply failed: {e:?}");
        return ExitCode::FAILURE;
    }
    let tests = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--lib", "--quiet"])
        .current_dir(&root)
        .output()
        .expect("cargo test");

    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (bare_m, plan_m) = (median(&mut bare), median(&mut unverified));
    let verification = warm_verified.saturating_sub(plan_m);
    println!(
        "  cold plan (server start and index, rename, plan, cold checks): {}",
        secs(cold_time)
    );
    println!(
        "  bare rust-analyzer rename, warm (median of 3):                {}",
        secs(bare_m)
    );
    println!(
        "  warm plan, not verified (median of 3):                        {}  ({:.2} × the bare rename)",
        secs(plan_m),
        plan_m.as_secs_f64() / bare_m.as_secs_f64()
    );
    println!(
        "  warm plan, verified:                                          {}",
        secs(warm_verified)
    );
    println!(
        "  what verification adds:                                       {}  ({:.2} × one cargo check --all-targets, {})",
        secs(verification),
        verification.as_secs_f64() / cargo_check.as_secs_f64(),
        secs(cargo_check)
    );
    println!(
        "  apply by plan_id:                                             {}",
        secs(apply_time)
    );
    println!(
        "  the crate's own cargo test --lib after the rename: {}",
        if tests.status.success() {
            "passed".to_owned()
        } else {
            format!("FAILED\n{}", String::from_utf8_lossy(&tests.stderr))
        }
    );
    ctx.lsp.shutdown_all().await;
    if tests.status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
