//! A whole `detect_merge_conflicts` call against a bare `git merge-tree` of the same two
//! commits, on real history, side by side in one process.
//!
//! ```text
//! cargo bench -p resolve-pr-tools --bench conflict_call [-- REPOSITORY]
//! ```
//!
//! The repository is the argument, else `RESOLVE_PR_BENCH_REPO`, else the vendored history of
//! github/gitignore (`crates/git/testdata/gitignore-main.bundle`). Its newest
//! `RESOLVE_PR_BENCH_MERGES` (40) merge commits become pull requests of the forge simulator
//! (GitHub flavour): PR k's head is the merge's second parent, its base a branch at the
//! first. The simulator serves a bare copy over smart HTTP; the user's checkout is a clone of
//! it whose `origin` is the simulator, holding every commit (the case "the PR's commits are
//! local"). For each PR, interleaved, alternating which goes first:
//!
//! - ours: `detect_merge_conflicts` through `resolve_pr_tools::call`, the forge requests to
//!   the simulator included;
//! - its git work alone: `resolve_pr_pr::conflicts::check` on the checkout found once (what
//!   the call runs once the process knows the checkout: merge bases, merge, one read of the
//!   conflicted files), without the simulator's requests;
//! - a later page, when the first has a `nextCursor`;
//! - the reference: one `git merge-tree --write-tree -z --messages` process in the checkout,
//!   writing into a fresh scratch object directory, as ours does.
//!
//! It prints medians and the ratios ours / reference and later page / first page. Ratios,
//! not wall times, are what to compare across machines.

#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use common::{Flavor, context, scenario};
use resolve_pr_forge_sim::Sim;
use resolve_pr_tools::LocalSettings;
use serde_json::json;

const BUNDLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../git/testdata/gitignore-main.bundle"
);

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() -> ExitCode {
    let source = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .or_else(|| std::env::var("RESOLVE_PR_BENCH_REPO").ok())
        .unwrap_or_else(|| BUNDLE.to_owned());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    match runtime.block_on(run(PathBuf::from(source))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("conflict_call: {problem}");
            ExitCode::from(2)
        }
    }
}

async fn run(source: PathBuf) -> Result<(), String> {
    let wanted: usize = std::env::var("RESOLVE_PR_BENCH_MERGES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = tmp.path();
    let bare = root.join("git").join("acme").join("widgets.git");
    std::fs::create_dir_all(bare.parent().unwrap()).map_err(|e| e.to_string())?;
    git(
        root,
        &[
            "clone",
            "-q",
            "--bare",
            "--no-tags",
            source.to_str().ok_or("the path is not UTF-8")?,
            bare.to_str().unwrap(),
        ],
    )?;
    let listing = git(
        &bare,
        &[
            "rev-list",
            "--merges",
            "--parents",
            "-n",
            &wanted.to_string(),
            "HEAD",
        ],
    )?;
    let merges: Vec<(String, String)> = listing
        .lines()
        .filter_map(|l| {
            let ids: Vec<&str> = l.split(' ').collect();
            (ids.len() == 3).then(|| (ids[1].to_owned(), ids[2].to_owned()))
        })
        .collect();
    if merges.is_empty() {
        return Err("the history has no two-parent merges".into());
    }
    let mut yaml = String::from(
        "forge: github\nnow: \"2024-06-01T12:00:00Z\"\ntokens:\n  - {token: tok, login: alice, permission: write}\nrepos:\n  - owner: acme\n    name: widgets\n    pulls:\n",
    );
    for (k, (first, second)) in merges.iter().enumerate() {
        let n = k + 1;
        git(&bare, &["update-ref", &format!("refs/heads/t{n}"), first])?;
        git(&bare, &["update-ref", &format!("refs/heads/h{n}"), second])?;
        git(
            &bare,
            &["update-ref", &format!("refs/pull/{n}/head"), second],
        )?;
        yaml.push_str(&format!(
            "      - number: {n}\n        title: \"PR {n}\"\n        author: alice\n        state: open\n        head: {{ref: h{n}, sha: {second}}}\n        base: {{ref: t{n}, sha: {first}}}\n        created_at: \"2024-06-01T00:00:00Z\"\n"
        ));
    }
    let sim = Sim::start(scenario(&yaml).with_git_root(root.join("git")))
        .await
        .map_err(|e| e.to_string())?;
    let checkout = root.join("checkout");
    git(
        root,
        &[
            "clone",
            "-q",
            "--no-tags",
            bare.to_str().unwrap(),
            checkout.to_str().unwrap(),
        ],
    )?;
    git(
        &checkout,
        &[
            "remote",
            "set-url",
            "origin",
            &format!("{}/acme/widgets.git", sim.base_url()),
        ],
    )?;
    git(
        &checkout,
        &[
            "fetch",
            "-q",
            "origin",
            "+refs/heads/*:refs/remotes/origin/*",
        ],
    )?;
    let mut ctx = context(Flavor::GitHub, &sim, "tok", [5; 32]);
    ctx.local = LocalSettings {
        cache_dir: Some(root.join("cache")),
        ..LocalSettings::default()
    };
    let objects = checkout.join(".git").join("objects");
    let (mut ours, mut bare_runs, mut later, mut firsts_paged) = (vec![], vec![], vec![], vec![]);
    let mut git_work = vec![];
    let repo = resolve_pr_git::Repository::discover(
        &resolve_pr_git::Git::find().map_err(|e| e.to_string())?,
        &checkout,
    )
    .map_err(|e| e.to_string())?;
    let mut conflicted = 0;
    for (k, (first, second)) in merges.iter().enumerate() {
        let args = json!({"pr": format!("acme/widgets#{}", k + 1), "directory": checkout});
        let reference = || -> Result<Duration, String> {
            let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
            let started = Instant::now();
            let out = Command::new("git")
                .args([
                    "merge-tree",
                    "--write-tree",
                    "-z",
                    "--messages",
                    first,
                    second,
                ])
                .current_dir(&checkout)
                .env("GIT_OBJECT_DIRECTORY", scratch.path())
                .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", &objects)
                .output()
                .map_err(|e| e.to_string())?;
            let elapsed = started.elapsed();
            if !matches!(out.status.code(), Some(0 | 1)) {
                return Err(String::from_utf8_lossy(&out.stderr).into_owned());
            }
            Ok(elapsed)
        };
        let call = |args: serde_json::Value| {
            let ctx = &ctx;
            async move {
                let started = Instant::now();
                let out = resolve_pr_tools::call(ctx, "detect_merge_conflicts", args)
                    .await
                    .map_err(|e| format!("{e:?}"))?;
                Ok::<_, String>((started.elapsed(), out.structured))
            }
        };
        let (mine, bare_time) = if k % 2 == 0 {
            let mine = call(args.clone()).await?;
            (mine, reference()?)
        } else {
            let bare_time = reference()?;
            (call(args.clone()).await?, bare_time)
        };
        let (elapsed, out) = mine;
        let started = Instant::now();
        resolve_pr_pr::conflicts::check(&repo, first, second, resolve_pr_git::Limits::default())
            .map_err(|e| e.to_string())?;
        git_work.push(started.elapsed());
        conflicted += usize::from(out["has_conflicts"] == true);
        ours.push(elapsed);
        bare_runs.push(bare_time);
        if let Some(cursor) = out.get("nextCursor") {
            let mut next = args.clone();
            next["cursor"] = cursor.clone();
            let (page, _) = call(next).await?;
            later.push(page);
            firsts_paged.push(elapsed);
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (ours_m, bare_m) = (median(&mut ours), median(&mut bare_runs));
    println!(
        "conflict_call: {} merges of {} ({conflicted} conflicted), git {}",
        merges.len(),
        source.display(),
        git(root, &["--version"])?
    );
    println!("ours (whole call): median {:.2} ms", ms(ours_m));
    println!("reference (git merge-tree): median {:.2} ms", ms(bare_m));
    println!(
        "ratio ours / reference: median {:.2}",
        ours_m.as_secs_f64() / bare_m.as_secs_f64()
    );
    let work_m = median(&mut git_work);
    println!(
        "its git work (conflicts::check): median {:.2} ms; ratio to the reference: {:.2}",
        ms(work_m),
        work_m.as_secs_f64() / bare_m.as_secs_f64()
    );
    if !later.is_empty() {
        let (later_m, first_m) = (median(&mut later), median(&mut firsts_paged));
        println!(
            "later pages: {} (median {:.2} ms); ratio later / first page: {:.2}",
            later.len(),
            ms(later_m),
            later_m.as_secs_f64() / first_m.as_secs_f64()
        );
    }
    Ok(())
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}
