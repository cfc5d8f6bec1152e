//! Time per conflict check against the bare `git merge-tree` on a large repository.
//!
//! ```text
//! cargo bench -p resolve-pr-git --bench merge_check [-- REPOSITORY]
//! ```
//!
//! The repository is the argument, else `RESOLVE_PR_BENCH_REPO`, else
//! `/work/.mirror/git+git/repo` (a bare mirror of git/git); when it does not exist the bench
//! says so and exits 0. It takes the newest `RESOLVE_PR_BENCH_MERGES` (200) merge commits of
//! `RESOLVE_PR_BENCH_REF` (`seen`, else `HEAD`) and, for each, times
//!
//! - ours: what a tool does for one pull request, on a `Repository` discovered once:
//!   `merge_tree(M^1, M^2)` (which resolves both revisions first) and `conflict_hunks` with
//!   the default `Limits` for every conflicted file;
//! - the reference: one `git merge-tree --write-tree -z --messages M^1 M^2` process, writing
//!   into a fresh scratch object directory that borrows the repository's objects
//!   (`GIT_OBJECT_DIRECTORY` + `GIT_ALTERNATE_OBJECT_DIRECTORIES`), as ours does.
//!
//! The two run interleaved on the same commits, alternating which goes first. It prints the
//! median and mean of each, their ratio (ours / reference) and how many merges conflicted.
//! Ratios, not wall times, are what to compare across machines.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use resolve_pr_git::{Git, Limits, Repository};

const DEFAULT_REPO: &str = "/work/.mirror/git+git/repo";
const DEFAULT_MERGES: usize = 200;

fn main() -> ExitCode {
    // `cargo bench` passes `--bench`; the first other argument is the repository.
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .or_else(|| std::env::var("RESOLVE_PR_BENCH_REPO").ok())
        .unwrap_or_else(|| DEFAULT_REPO.to_string());
    let path = PathBuf::from(path);
    if !path.exists() {
        println!(
            "merge_check: skipped: no repository at {} (give one as the argument or in \
             RESOLVE_PR_BENCH_REPO)",
            path.display()
        );
        return ExitCode::SUCCESS;
    }
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("merge_check: {problem}");
            ExitCode::from(2)
        }
    }
}

/// Plain git in `repo`, for choosing the commits and for the reference.
fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
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
    String::from_utf8(out.stdout).map_err(|_| format!("git {}: output not UTF-8", args.join(" ")))
}

fn run(path: &Path) -> Result<(), String> {
    let merges_wanted = match std::env::var("RESOLVE_PR_BENCH_MERGES") {
        Ok(n) => n
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("RESOLVE_PR_BENCH_MERGES={n:?} is not a positive number"))?,
        Err(_) => DEFAULT_MERGES,
    };
    let git_program = Git::find().map_err(|e| e.to_string())?;
    let repo = Repository::discover(&git_program, path).map_err(|e| e.to_string())?;
    let reference = match std::env::var("RESOLVE_PR_BENCH_REF") {
        Ok(r) => r,
        Err(_) if git(path, &["rev-parse", "--verify", "-q", "refs/heads/seen"]).is_ok() => {
            "refs/heads/seen".to_string()
        }
        Err(_) => "HEAD".to_string(),
    };
    let commits = git(
        path,
        &["rev-list", "--count", "--end-of-options", &reference],
    )?;
    let all_commits = git(path, &["rev-list", "--count", "--all"])?;
    let count = merges_wanted.to_string();
    let listing = git(
        path,
        &[
            "rev-list",
            "--merges",
            "--parents",
            "-n",
            &count,
            "--end-of-options",
            &reference,
        ],
    )?;
    let merges: Vec<(String, String)> = listing
        .lines()
        .filter_map(|line| {
            let ids: Vec<&str> = line.split(' ').collect();
            (ids.len() == 3).then(|| (ids[1].to_string(), ids[2].to_string()))
        })
        .collect();
    if merges.is_empty() {
        return Err(format!("{reference} has no two-parent merge commits"));
    }
    println!(
        "merge_check: {} ({reference}: {} commits; all refs: {} commits), {} merges, git {}",
        path.display(),
        commits.trim(),
        all_commits.trim(),
        merges.len(),
        git_program.version()
    );

    let objects = repo.objects_dir().to_path_buf();
    let mut ours = Vec::with_capacity(merges.len());
    let mut bare = Vec::with_capacity(merges.len());
    let mut conflicted = 0;
    let mut conflicted_files = 0;
    let mut disagreements = 0;
    for (i, (first, second)) in merges.iter().enumerate() {
        let mut check = || -> Result<(Duration, bool), String> {
            let started = Instant::now();
            let merge = repo.merge_tree(first, second).map_err(|e| e.to_string())?;
            for file in &merge.outcome.conflicts {
                merge
                    .conflict_hunks(&file.path, Limits::default())
                    .map_err(|e| e.to_string())?;
            }
            let files = merge.outcome.conflicts.len();
            let clean = merge.outcome.clean;
            drop(merge);
            let elapsed = started.elapsed();
            conflicted_files += files;
            Ok((elapsed, clean))
        };
        let reference_run = || reference_merge(path, &objects, first, second);
        let ((mine, clean), (theirs, reference_clean)) = if i % 2 == 0 {
            let a = check()?;
            (a, reference_run()?)
        } else {
            let b = reference_run()?;
            (check()?, b)
        };
        conflicted += usize::from(!clean);
        disagreements += usize::from(clean != reference_clean);
        ours.push(mine);
        bare.push(theirs);
    }

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (ours_median, ours_mean) = (median(&mut ours), mean(&ours));
    let (bare_median, bare_mean) = (median(&mut bare), mean(&bare));
    println!(
        "conflicted merges: {conflicted} of {} ({conflicted_files} conflicted files, hunks read \
         for each); verdicts differing from the reference: {disagreements}",
        merges.len()
    );
    println!(
        "ours (merge_tree + conflict_hunks): median {:.2} ms, mean {:.2} ms",
        ms(ours_median),
        ms(ours_mean)
    );
    println!(
        "reference (git merge-tree):         median {:.2} ms, mean {:.2} ms",
        ms(bare_median),
        ms(bare_mean)
    );
    println!(
        "ratio ours / reference: median {:.2}, mean {:.2}",
        ours_median.as_secs_f64() / bare_median.as_secs_f64(),
        ours_mean.as_secs_f64() / bare_mean.as_secs_f64()
    );
    if disagreements > 0 {
        return Err(format!(
            "{disagreements} merges where ours and the reference disagree on clean/conflicted"
        ));
    }
    Ok(())
}

/// One `git merge-tree` process into a fresh scratch object directory; its time and verdict.
fn reference_merge(
    repo: &Path,
    objects: &Path,
    first: &str,
    second: &str,
) -> Result<(Duration, bool), String> {
    let started = Instant::now();
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch directory: {e}"))?;
    let out = Command::new("git")
        .args(["merge-tree", "--write-tree", "-z", "--messages"])
        .args(["--end-of-options", first, second])
        .current_dir(repo)
        .env("LC_ALL", "C")
        .env("GIT_OBJECT_DIRECTORY", scratch.path())
        .env("GIT_ALTERNATE_OBJECT_DIRECTORIES", objects)
        .output()
        .map_err(|e| format!("cannot run git merge-tree: {e}"))?;
    drop(scratch);
    let elapsed = started.elapsed();
    match out.status.code() {
        Some(0) => Ok((elapsed, true)),
        Some(1) => Ok((elapsed, false)),
        status => Err(format!(
            "git merge-tree {first} {second}: exit {status:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    let n = times.len();
    if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2
    }
}

fn mean(times: &[Duration]) -> Duration {
    times.iter().sum::<Duration>() / u32::try_from(times.len()).unwrap_or(u32::MAX).max(1)
}
