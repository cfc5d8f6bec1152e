//! `Repository::merge_tree` against an independent oracle on real history: the merge commits
//! of github/gitignore's `main` (vendored as `testdata/gitignore-main.bundle`; the newest 600
//! by default, all 1695 with `RESOLVE_PR_DIFFERENTIAL_ALL=1`) are merged again, first parent
//! with second; and, because real merges seldom conflict, the branch side of every one that
//! did is merged with each of the next six commits of `main` (a pull request left stale
//! against a moving target). The oracle is a real `git merge --no-commit --no-ff` in a
//! scratch worktree, read back from its exit status and the index's unmerged entries, with
//! plain `git` commands and no code of the crate.
//!
//! A second differential checks where conflict previews say each side's text is: the real
//! content conflicts of pallets/flask, psf/requests and expressjs/express (vendored as
//! `testdata/real-conflicts.bundle`, each merge's three versions of its conflicted files as
//! small commits), merged with the crate's API; every line of every region of every side must
//! be that line of that side's own file, read with plain `git cat-file`.
//!
//! Asserted: 100 % agreement on clean versus conflicted and on the set of conflicted paths,
//! at least 20 conflicted real merges (so agreement means something), more conflicts among
//! the stale branches, and the repository's files byte for byte as they were after the
//! crate's merges. Counts and per-merge times are printed
//! (`cargo test -p resolve-pr-git --test it -- --nocapture differential::`).

#![allow(clippy::print_stdout)]

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

use resolve_pr_git::{Git, Repository};

/// The vendored history (see `testdata/README.md`).
const BUNDLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/gitignore-main.bundle"
);

/// The bundle's tip: the test notices a replaced bundle.
const TIP: &str = "dcc0fc7bc2b5ba480cf117ad1be31bafceeaff46";

/// Plain git for the setup and the oracle: no repository from the environment, no system
/// configuration, a fixed identity, C locale.
fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=Oracle",
            "-c",
            "user.email=oracle@example.com",
        ])
        .args(["-c", "rerere.enabled=false", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .output()
        .unwrap()
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// NUL-separated paths, deduplicated (`ls-files -u` lists each stage).
fn nul_paths(bytes: &[u8], strip_stage_prefix: bool) -> BTreeSet<String> {
    bytes
        .split(|b| *b == 0)
        .filter(|record| !record.is_empty())
        .map(|record| {
            let path = if strip_stage_prefix {
                // `<mode> <oid> <stage>\t<path>`
                let tab = record.iter().position(|b| *b == b'\t').unwrap();
                &record[tab + 1..]
            } else {
                record
            };
            String::from_utf8_lossy(path).into_owned()
        })
        .collect()
}

/// A verdict: `None` when clean, else the conflicted paths.
type Verdict = Option<BTreeSet<String>>;

/// The oracle: a detached worktree of its own clone, reset to `ours` and merged with `theirs`.
struct Oracle {
    tree: PathBuf,
}

impl Oracle {
    fn new(clone: &Path, tree: &Path) -> Oracle {
        git_ok(
            clone,
            &[
                "worktree",
                "add",
                "-q",
                "--detach",
                tree.to_str().unwrap(),
                TIP,
            ],
        );
        Oracle {
            tree: tree.to_owned(),
        }
    }

    fn merge(&self, ours: &str, theirs: &str) -> Verdict {
        git_ok(&self.tree, &["reset", "-q", "--hard", ours]);
        let out = git(
            &self.tree,
            &["merge", "-q", "--no-commit", "--no-ff", "--no-edit", theirs],
        );
        let unmerged = nul_paths(
            &git_ok(&self.tree, &["ls-files", "-u", "-z"]).into_bytes(),
            true,
        );
        let verdict = match out.status.code() {
            Some(0) => {
                assert!(unmerged.is_empty(), "clean merge with unmerged entries");
                None
            }
            Some(1) => {
                let listed = nul_paths(
                    &git_ok(
                        &self.tree,
                        &["diff", "--name-only", "--diff-filter=U", "-z"],
                    )
                    .into_bytes(),
                    false,
                );
                assert_eq!(listed, unmerged, "diff and ls-files disagree");
                Some(unmerged)
            }
            status => panic!(
                "git merge {ours} {theirs}: exit {status:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        };
        if verdict.is_some() {
            // The next `reset --hard` ends the merge; conflicts can leave side files
            // (`path~HEAD`) behind, which would be in the next merge's way.
            git_ok(&self.tree, &["clean", "-q", "-f", "-d", "-x"]);
        }
        verdict
    }
}

/// A file's length, a hash of its bytes and its modification time.
type FileState = (u64, u64, SystemTime);

/// Every file under `dir`, with its state.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, FileState> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                pending.push(entry.path());
            } else {
                let mut hasher = DefaultHasher::new();
                std::fs::read(entry.path()).unwrap().hash(&mut hasher);
                files.insert(
                    entry.path(),
                    (meta.len(), hasher.finish(), meta.modified().unwrap()),
                );
            }
        }
    }
    files
}

/// The crate's verdict on each pair, and the time it took in all.
fn crate_verdicts(repo: &Repository, pairs: &[(String, String)]) -> (Vec<Verdict>, Duration) {
    let started = Instant::now();
    let verdicts = pairs
        .iter()
        .map(|(ours, theirs)| {
            let merge = repo.merge_tree(ours, theirs).unwrap();
            // A conflicted merge names its paths; a clean one none.
            assert_eq!(
                merge.outcome.clean,
                merge.outcome.conflicts.is_empty(),
                "{ours} {theirs}"
            );
            (!merge.outcome.clean).then(|| {
                merge
                    .outcome
                    .conflicts
                    .iter()
                    .map(|f| f.path.clone())
                    .collect()
            })
        })
        .collect();
    (verdicts, started.elapsed())
}

fn oracle_verdicts(oracle: &Oracle, pairs: &[(String, String)]) -> (Vec<Verdict>, Duration) {
    let started = Instant::now();
    let verdicts = pairs
        .iter()
        .map(|(ours, theirs)| oracle.merge(ours, theirs))
        .collect();
    (verdicts, started.elapsed())
}

/// One set of merges compared: the oracle's verdicts and the counts.
struct Compared {
    oracle: Vec<Verdict>,
    disagreements: Vec<String>,
    conflicted: usize,
    agreed: usize,
}

/// Runs the crate and the oracle over `pairs` side by side (two threads; they work on
/// separate clones) and compares their verdicts.
fn compare(what: &str, repo: &Repository, oracle: &Oracle, pairs: &[(String, String)]) -> Compared {
    let ((mine, mine_time), (expected, oracle_time)) = std::thread::scope(|scope| {
        let ours = scope.spawn(|| crate_verdicts(repo, pairs));
        let theirs = oracle_verdicts(oracle, pairs);
        (ours.join().unwrap(), theirs)
    });
    let mut disagreements = Vec::new();
    for ((pair, m), e) in pairs.iter().zip(&mine).zip(&expected) {
        if m != e {
            disagreements.push(format!(
                "{} + {}: merge_tree {m:?}, git merge {e:?}",
                pair.0, pair.1
            ));
        }
    }
    let conflicted = expected.iter().filter(|v| v.is_some()).count();
    let agreed = pairs.len() - disagreements.len();
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / pairs.len().max(1) as f64;
    println!(
        "{what}: {} merges, {conflicted} conflicted, {agreed} agreed; per merge (both running \
         at once): merge_tree {:.1} ms, oracle (git merge in a worktree) {:.1} ms",
        pairs.len(),
        per(mine_time),
        per(oracle_time)
    );
    Compared {
        oracle: expected,
        disagreements,
        conflicted,
        agreed,
    }
}

/// Real merges replayed by default, newest first; `RESOLVE_PR_DIFFERENTIAL_ALL=1` replays all
/// 1695 (minutes in a debug build).
const REAL_MERGES: usize = 600;

/// How many later commits of `main` each conflicted merge's branch side meets.
const LATER: usize = 6;

#[test]
fn merge_tree_agrees_with_git_merge_on_real_history() {
    let dir = tempfile::tempdir().unwrap();
    let ours_dir = dir.path().join("ours.git");
    let oracle_dir = dir.path().join("oracle.git");
    for clone in [&ours_dir, &oracle_dir] {
        git_ok(
            dir.path(),
            &["clone", "-q", "--bare", BUNDLE, clone.to_str().unwrap()],
        );
    }
    assert_eq!(git_ok(&ours_dir, &["rev-parse", "HEAD"]).trim(), TIP);

    // Every merge commit, newest first, with both parents. Most of the ones that conflict
    // are not on main's first-parent line: they bring main into a pull request's branch.
    let listing = git_ok(&ours_dir, &["rev-list", "--merges", "--parents", "HEAD"]);
    let all: Vec<(String, String)> = listing
        .lines()
        .map(|line| {
            let ids: Vec<&str> = line.split(' ').collect();
            assert_eq!(ids.len(), 3, "not a two-parent merge: {line}");
            (ids[1].to_owned(), ids[2].to_owned())
        })
        .collect();
    assert_eq!(all.len(), 1695);
    let count = match std::env::var("RESOLVE_PR_DIFFERENTIAL_ALL").as_deref() {
        Ok("1") => all.len(),
        _ => REAL_MERGES,
    };
    let real = &all[..count];

    let repo = Repository::discover(&Git::find().unwrap(), &ours_dir).unwrap();
    let oracle = Oracle::new(&oracle_dir, &dir.path().join("oracle-tree"));
    let before = snapshot(&ours_dir);

    let replayed = compare("real merges (M^1 + M^2)", &repo, &oracle, real);

    // Stale branches: the branch side of each merge that conflicted, against the next
    // commits of main after the one it was merged with (main's first-parent line), as a pull
    // request that was not updated meets a moving target. These conflict far more often than
    // real merges, whose authors mostly kept their branches mergeable.
    let main = git_ok(&ours_dir, &["rev-list", "--first-parent", "HEAD"]);
    let main: Vec<&str> = main.lines().collect();
    let position: BTreeMap<&str, usize> = main.iter().enumerate().map(|(i, c)| (*c, i)).collect();
    let mut stale: Vec<(String, String)> = Vec::new();
    for ((first, second), verdict) in real.iter().zip(&replayed.oracle) {
        if verdict.is_none() {
            continue;
        }
        for (branch, target) in [(first, second), (second, first)] {
            let Some(&at) = position.get(target.as_str()) else {
                continue;
            };
            for later in main[at.saturating_sub(LATER)..at].iter().rev() {
                let pair = (branch.clone(), (*later).to_owned());
                if !stale.contains(&pair) && !real.contains(&pair) {
                    stale.push(pair);
                }
            }
        }
    }
    let moved = compare(
        "stale branches (branch side + later main)",
        &repo,
        &oracle,
        &stale,
    );

    let after = snapshot(&ours_dir);
    let bytes = |s: &BTreeMap<PathBuf, FileState>| {
        s.iter()
            .map(|(p, (len, hash, _))| (p.clone(), *len, *hash))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        bytes(&after),
        bytes(&before),
        "merge_tree changed the repository's files"
    );
    let touched: Vec<&PathBuf> = after
        .iter()
        .filter(|(p, (_, _, mtime))| before.get(*p).is_some_and(|b| b.2 != *mtime))
        .map(|(p, _)| p)
        .collect();
    if !touched.is_empty() {
        // git "freshens" an object it is asked to write and already has, wherever it is,
        // alternates included: the bytes stay, the modification time moves.
        println!(
            "note: the repository's bytes are unchanged, but the modification time of \
             {touched:?} moved (git freshening objects it already had)"
        );
    }

    let disagreements: Vec<&String> = replayed
        .disagreements
        .iter()
        .chain(&moved.disagreements)
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{disagreements:#?}",
        disagreements.len()
    );
    assert_eq!(replayed.agreed, real.len());
    assert_eq!(moved.agreed, stale.len());
    assert!(real.len() + stale.len() >= 500);
    assert!(
        replayed.conflicted >= 20,
        "only {} of the real merges conflict",
        replayed.conflicted
    );
    assert!(
        moved.conflicted > replayed.conflicted,
        "the stale branches should conflict more: {} of {}",
        moved.conflicted,
        stale.len()
    );
}

/// The real conflicts (see `testdata/README.md`): branches `<repo>/<nn>/ours` and
/// `<repo>/<nn>/theirs`, children of one base.
const REAL_CONFLICTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/real-conflicts.bundle"
);

/// A line without its ending: git ends a side's last line before a marker even when the file
/// does not.
fn line_body(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Per repository: lines checked, lines where the side's file has that text at that number,
/// regions whose text occurs once in the side's file, and those numbered at that place.
#[derive(Default, Debug)]
struct Placement {
    lines: usize,
    agreeing: usize,
    unique_regions: usize,
    at_the_place: usize,
}

#[test]
fn region_line_numbers_agree_with_each_sides_file_on_real_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("real.git");
    git_ok(
        dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            REAL_CONFLICTS,
            clone.to_str().unwrap(),
        ],
    );
    let repo = Repository::discover(&Git::find().unwrap(), &clone).unwrap();
    let branches = git_ok(
        &clone,
        &["for-each-ref", "--format=%(refname:short)", "refs/heads/"],
    );
    let cases: Vec<&str> = branches
        .lines()
        .filter_map(|b| b.strip_suffix("/ours"))
        .collect();
    let everything = resolve_pr_git::Limits {
        max_hunks: usize::MAX,
        max_bytes: usize::MAX,
    };
    let started = Instant::now();
    let mut by_repo: BTreeMap<String, Placement> = BTreeMap::new();
    let mut misplaced = Vec::new();
    let mut files = 0;
    for case in &cases {
        let merge = repo
            .merge_tree(&format!("{case}/ours"), &format!("{case}/theirs"))
            .unwrap();
        assert!(!merge.outcome.clean, "{case} merges cleanly");
        let tally = by_repo
            .entry(case.split('/').next().unwrap().to_owned())
            .or_default();
        for file in &merge.outcome.conflicts {
            files += 1;
            let hunks = merge
                .conflict_hunks(&file.path, everything)
                .unwrap()
                .unwrap();
            assert!(hunks.total > 0, "{case} {}: no region", file.path);
            let blob = |stage: &Option<resolve_pr_git::Stage>| {
                let oid = &stage.as_ref().unwrap().oid;
                git(&clone, &["cat-file", "blob", oid]).stdout
            };
            let sides = [
                ("ours", blob(&file.ours)),
                ("base", blob(&file.base)),
                ("theirs", blob(&file.theirs)),
            ];
            for hunk in &hunks.hunks {
                for (side, content) in &sides {
                    let (text, first) = match *side {
                        "ours" => (Some(&hunk.ours), hunk.ours_line),
                        "base" => (hunk.base.as_ref(), hunk.base_line),
                        _ => (Some(&hunk.theirs), hunk.theirs_line),
                    };
                    let Some(text) = text else { continue };
                    let file_lines: Vec<&[u8]> = content
                        .split_inclusive(|&b| b == b'\n')
                        .map(line_body)
                        .collect();
                    let text_lines: Vec<&[u8]> = text
                        .as_bytes()
                        .split_inclusive(|&b| b == b'\n')
                        .map(line_body)
                        .collect();
                    for (k, line) in text_lines.iter().enumerate() {
                        tally.lines += 1;
                        if file_lines.get(first - 1 + k) == Some(line) {
                            tally.agreeing += 1;
                        } else {
                            misplaced.push(format!(
                                "{case} {} {side} line {}",
                                file.path,
                                first + k
                            ));
                        }
                    }
                    if text_lines.is_empty() {
                        continue;
                    }
                    let places: Vec<usize> = (0..file_lines.len())
                        .filter(|&at| file_lines[at..].starts_with(&text_lines))
                        .collect();
                    if let [place] = places[..] {
                        tally.unique_regions += 1;
                        if place + 1 == first {
                            tally.at_the_place += 1;
                        } else {
                            misplaced.push(format!(
                                "{case} {} {side}: region at {} in the file, numbered {first}",
                                file.path,
                                place + 1
                            ));
                        }
                    }
                }
            }
        }
    }
    let elapsed = started.elapsed();
    let (mut lines, mut agreeing) = (0, 0);
    for (name, p) in &by_repo {
        println!(
            "{name}: {}/{} region lines where their side's file has them ({:.1} %); \
             {}/{} regions found once in their side's file numbered at that place",
            p.agreeing,
            p.lines,
            100.0 * p.agreeing as f64 / p.lines.max(1) as f64,
            p.at_the_place,
            p.unique_regions
        );
        lines += p.lines;
        agreeing += p.agreeing;
    }
    println!(
        "all: {agreeing}/{lines} lines ({:.1} %), {} merges, {files} files, {elapsed:.2?}",
        100.0 * agreeing as f64 / lines.max(1) as f64,
        cases.len()
    );
    assert!(by_repo.len() >= 3 && files >= 50, "too little material");
    assert!(
        misplaced.is_empty(),
        "{} misplaced: {:#?}",
        misplaced.len(),
        &misplaced[..misplaced.len().min(20)]
    );
}
