//! `review::plan_excerpts` on real `git diff` output, and its budget properties.

use crate::review_support;

use proptest::prelude::*;
use resolve_pr_forge::{ChangedFile, FileStatus};
use resolve_pr_pr::review::{OmissionReason, plan_excerpts};
use review_support::git_patch;

fn file(path: &str, patch: Option<String>, additions: u64, deletions: u64) -> ChangedFile {
    ChangedFile {
        path: path.to_owned(),
        status: FileStatus::Modified,
        previous_path: None,
        additions,
        deletions,
        patch,
    }
}

/// A file of `n` numbered lines.
fn numbered(n: usize, prefix: &str) -> String {
    (1..=n).map(|i| format!("{prefix} line {i}\n")).collect()
}

/// `base` with the lines at `at` replaced.
fn edit(base: &str, at: &[usize], with: &str) -> String {
    base.lines()
        .enumerate()
        .map(|(i, l)| {
            if at.contains(&(i + 1)) {
                format!("{with} {}\n", i + 1)
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

fn lines(patch: &str) -> usize {
    patch.lines().count()
}

#[test]
fn everything_fits_lockfiles_last_and_files_without_patches_named() {
    let src = numbered(60, "let x =");
    let src_patch = git_patch("src/app.rs", &src, &edit(&src, &[5, 40], "let y ="));
    let lock = numbered(30, "checksum");
    let lock_patch = git_patch("Cargo.lock", &lock, &edit(&lock, &[10], "checksum changed"));
    let files = vec![
        file("src/app.rs", Some(src_patch.clone()), 2, 2),
        file("Cargo.lock", Some(lock_patch.clone()), 1, 1),
        file("assets/logo.png", None, 0, 0),
        file("data/huge.sql", None, 90_000, 10),
        file("web/package-lock.json", None, 4_000, 3_000),
        ChangedFile {
            status: FileStatus::Renamed,
            previous_path: Some("src/old.rs".into()),
            ..file("src/new.rs", None, 0, 0)
        },
    ];
    let plan = plan_excerpts(&files, 1000);
    let shown = plan.per_file[0].as_ref().expect("source shown");
    assert_eq!(shown.text, src_patch.trim_end());
    assert_eq!(
        (shown.hunks_shown, shown.hunks_total, shown.hunks_cut),
        (2, 2, 0)
    );
    assert_eq!(shown.lines, lines(&src_patch));
    // A lockfile's diff is shown when it fits, after everything else.
    assert_eq!(
        plan.per_file[1].as_ref().map(|e| e.lines),
        Some(lines(&lock_patch))
    );
    assert!(plan.per_file[2].is_none() && plan.per_file[3].is_none());
    assert!(plan.per_file[4].is_none());
    assert_eq!(plan.per_file[5].as_ref().map(|e| e.lines), Some(0));
    assert_eq!(plan.lines_shown, lines(&src_patch) + lines(&lock_patch));
    assert_eq!(plan.lines_total, lines(&src_patch) + lines(&lock_patch));
    let omitted: Vec<(&str, usize, usize, &str)> = plan
        .omitted
        .iter()
        .map(|o| (o.path.as_str(), o.hunks, o.lines, o.reason.as_str()))
        .collect();
    assert_eq!(
        omitted,
        [
            ("assets/logo.png", 0, 0, "binary"),
            ("data/huge.sql", 0, 90_010, "no patch from the forge"),
            ("web/package-lock.json", 0, 7_000, "lockfile"),
        ]
    );
}

#[test]
fn priority_source_then_focus_then_size_and_a_cut_hunk() {
    let docs = numbered(40, "Some prose");
    let docs_patch = git_patch("docs/guide.md", &docs, &edit(&docs, &[20], "New prose"));
    let src = numbered(80, "let v =");
    // Hunk 1: a large plain edit; hunk 2: a small one adding `unsafe` (a focus point).
    let src_after = edit(
        &edit(&src, &[5, 6, 7, 8, 9, 10], "let w ="),
        &[60],
        "let p = unsafe { read() };",
    );
    let src_patch = git_patch("src/io.rs", &src, &src_after);
    let files = vec![
        file("docs/guide.md", Some(docs_patch.clone()), 1, 1),
        file("src/io.rs", Some(src_patch.clone()), 7, 7),
    ];
    let hunk_sizes: Vec<usize> = src_patch.split("\n@@").map(|h| h.lines().count()).collect();
    assert_eq!(hunk_sizes.len(), 2, "{src_patch}");
    let (big, small) = (hunk_sizes[0], hunk_sizes[1]);
    assert!(big > small);

    // Room for the focused hunk and 5 lines more: the big hunk is cut, docs left out.
    let budget = small + 5;
    let plan = plan_excerpts(&files, budget);
    assert_eq!(plan.lines_shown, budget);
    assert!(plan.per_file[0].is_none());
    let src_excerpt = plan.per_file[1].as_ref().unwrap();
    assert_eq!((src_excerpt.hunks_shown, src_excerpt.hunks_cut), (2, 1));
    let text_lines: Vec<&str> = src_excerpt.text.lines().collect();
    assert_eq!(text_lines.len(), budget);
    // Patch order is kept: the cut first hunk (header + 3 lines + marker), then the second.
    assert!(text_lines[0].starts_with("@@ -"));
    assert_eq!(
        text_lines[4],
        format!("… {} more lines of this hunk not shown", big - 4)
    );
    assert!(text_lines[5].starts_with("@@ -"));
    assert!(src_excerpt.text.contains("unsafe { read() }"));
    let omitted: Vec<(&str, usize, usize, OmissionReason)> = plan
        .omitted
        .iter()
        .map(|o| (o.path.as_str(), o.hunks, o.lines, o.reason))
        .collect();
    assert_eq!(
        omitted,
        [
            (
                "docs/guide.md",
                1,
                lines(&docs_patch),
                OmissionReason::Budget
            ),
            ("src/io.rs", 0, big - 4, OmissionReason::Budget),
        ]
    );

    // Two lines left is too few to cut: the hunk is left out whole.
    let plan = plan_excerpts(&files, small + 2);
    assert_eq!(plan.lines_shown, small);
    assert_eq!(plan.per_file[1].as_ref().unwrap().hunks_shown, 1);
    let plan = plan_excerpts(&files, 0);
    assert_eq!(plan.lines_shown, 0);
    assert!(plan.per_file.iter().all(Option::is_none));
}

fn arb_files() -> impl Strategy<Value = Vec<ChangedFile>> {
    let paths = prop::sample::select(vec![
        "src/a.rs",
        "src/b.py",
        "tests/t.rs",
        "README.md",
        "Cargo.toml",
        "Cargo.lock",
        "vendor/x.go",
        "gen/x.pb.go",
    ]);
    let hunk = (1usize..30, any::<bool>());
    let one = (paths, prop::collection::vec(hunk, 0..5), any::<bool>());
    prop::collection::vec(one, 0..8).prop_map(|specs| {
        let mut line = 1;
        specs
            .into_iter()
            .map(|(path, hunks, has_patch)| {
                let mut patch = String::new();
                for (size, focus) in hunks {
                    patch.push_str(&format!("@@ -{line},{size} +{line},{size} @@\n"));
                    for i in 0..size {
                        if focus && i == 0 {
                            patch.push_str("+    let p = unsafe { x() };\n");
                        } else {
                            patch.push_str(&format!(" context {line} {i}\n"));
                        }
                    }
                    line += size + 10;
                }
                file(path, has_patch.then_some(patch), 1, 1)
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn never_over_budget_and_hunks_in_patch_order(files in arb_files(), max in 0usize..120) {
        let plan = plan_excerpts(&files, max);
        prop_assert!(plan.lines_shown <= max);
        prop_assert_eq!(plan.per_file.len(), files.len());
        let mut counted = 0;
        for (f, excerpt) in files.iter().zip(&plan.per_file) {
            let Some(e) = excerpt else { continue };
            prop_assert_eq!(e.lines, e.text.lines().count());
            counted += e.lines;
            // The shown headers are a subsequence of the patch's, in order.
            let all: Vec<&str> = f.patch.as_deref().unwrap_or("").lines().filter(|l| l.starts_with("@@")).collect();
            let shown: Vec<&str> = e.text.lines().filter(|l| l.starts_with("@@")).collect();
            prop_assert_eq!(shown.len(), e.hunks_shown);
            let mut rest = all.iter();
            for h in &shown {
                prop_assert!(rest.any(|a| a == h), "hunk {} out of order", h);
            }
        }
        prop_assert_eq!(counted, plan.lines_shown);
        // What is shown plus what is omitted accounts for every patch line (markers aside).
        let markers: usize = plan.per_file.iter().flatten().map(|e| e.hunks_cut).sum();
        // (Omissions of files without a patch count changed lines, not patch lines: a
        // lockfile's has no hunks.)
        let omitted_lines: usize = plan
            .omitted
            .iter()
            .filter(|o| match o.reason {
                OmissionReason::Binary | OmissionReason::NoPatch => false,
                OmissionReason::Lockfile => o.hunks > 0,
                OmissionReason::Budget => true,
            })
            .map(|o| o.lines)
            .sum();
        prop_assert_eq!(plan.lines_shown - markers + omitted_lines, plan.lines_total);
        // With room for everything, only files without a patch are left out.
        let all = plan_excerpts(&files, usize::MAX);
        prop_assert!(all.omitted.iter().all(|o| o.hunks == 0 && o.reason != OmissionReason::Budget));
    }
}

#[test]
fn secrets_are_masked_in_excerpts_as_in_focus_points() {
    let before = "region = \"eu\"\n";
    let after = "region = \"eu\"\naws_access_key_id = \"AKIAIOSFODNN7EXAMPLE\"\n";
    let patch = git_patch("config/prod.toml", before, after);
    let plan = plan_excerpts(&[file("config/prod.toml", Some(patch), 1, 0)], 100);
    let text = &plan.per_file[0].as_ref().expect("shown").text;
    assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"), "{text}");
    assert!(text.contains("aws_access_key_id"), "{text}");
}

/// A real fix's shape: one changed line in the source, ~460 lines of new tests spread over
/// eight hunks. At any budget the fix's line is shown whole, and the tests get what is left,
/// every hunk of them a share, each cut rather than some dropped.
#[test]
fn a_one_line_fix_is_shown_beside_many_test_lines_at_any_budget() {
    let src = numbered(40, "let limit =");
    let fixed = edit(&src, &[20], "let limit = len - 1; // fixed");
    let src_patch = git_patch("src/parser.rs", &src, &fixed);
    let tests_before = numbered(200, "assert_eq!(parse(x),");
    let mut tests_after = String::new();
    for (i, line) in tests_before.lines().enumerate() {
        tests_after.push_str(line);
        tests_after.push('\n');
        if (i + 1) % 25 == 0 {
            for k in 0..58 {
                tests_after.push_str(&format!(
                    "    assert_eq!(parse(\"case {i} {k}\"), Ok({k}));\n"
                ));
            }
        }
    }
    let test_patch = git_patch("tests/parser.rs", &tests_before, &tests_after);
    let files = vec![
        file("src/parser.rs", Some(src_patch.clone()), 1, 1),
        file("tests/parser.rs", Some(test_patch.clone()), 464, 0),
    ];
    let test_hunks = test_patch.lines().filter(|l| l.starts_with("@@")).count();
    assert_eq!((test_hunks, lines(&src_patch)), (8, 9), "{src_patch}");
    assert!(lines(&test_patch) + lines(&src_patch) > 500);

    for budget in [120, 500] {
        let plan = plan_excerpts(&files, budget);
        assert_eq!(plan.lines_shown, budget, "budget {budget}");
        let fix = plan.per_file[0].as_ref().expect("the fix is shown");
        assert_eq!(fix.text, src_patch.trim_end(), "budget {budget}");
        assert!(fix.text.contains("+let limit = len - 1; // fixed 20"));
        let tests = plan.per_file[1].as_ref().expect("the tests are shown");
        // Every test hunk gets a share: cut ones, none left out.
        assert_eq!(tests.hunks_shown, 8, "budget {budget}");
        assert!(tests.hunks_cut > 0, "budget {budget}");
        assert!(
            plan.omitted
                .iter()
                .all(|o| o.path == "tests/parser.rs" && o.hunks == 0),
            "budget {budget}: {:?}",
            plan.omitted
        );
    }
}
