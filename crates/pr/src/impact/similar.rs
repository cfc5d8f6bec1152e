//! Closed pull requests that touched the same places.

use std::collections::BTreeSet;

use resolve_pr_forge::repository::{ChangedFile, ClosedPull};

/// Weight of shared paths in [`similar_prs`]' score; directories get the rest.
pub const PATH_WEIGHT: f64 = 0.7;
pub const DIRECTORY_WEIGHT: f64 = 0.3;

#[derive(Debug, Clone, PartialEq)]
pub struct SimilarPr {
    pub number: u64,
    pub title: String,
    /// 0..=1 (see [`similar_prs`]).
    pub score: f64,
    /// Paths both changed, sorted.
    pub shared_paths: Vec<String>,
    pub merged: bool,
    pub reasons: Vec<String>,
}

fn directory(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn jaccard(a: &BTreeSet<&str>, b: &BTreeSet<&str>) -> (usize, usize, f64) {
    let shared = a.intersection(b).count();
    let union = a.union(b).count();
    let j = if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    };
    (shared, union, j)
}

/// Closed PRs ranked by how much of this change's ground they covered: score =
/// `0.7 × J(paths) + 0.3 × J(directories)`, where J is the Jaccard index (shared / all
/// distinct) of the two PRs' changed paths, and of their files' parent directories. A file
/// renamed here counts under both names. Zero scores are left out; the highest score first,
/// then the higher (newer) number; at most `limit`.
pub fn similar_prs(files: &[ChangedFile], closed: &[ClosedPull], limit: usize) -> Vec<SimilarPr> {
    let ours: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| std::iter::once(f.path.as_str()).chain(f.previous_path.as_deref()))
        .collect();
    let our_dirs: BTreeSet<&str> = ours.iter().map(|p| directory(p)).collect();
    let mut out: Vec<SimilarPr> = closed
        .iter()
        .filter_map(|pr| {
            let theirs: BTreeSet<&str> = pr.paths.iter().map(String::as_str).collect();
            let their_dirs: BTreeSet<&str> = theirs.iter().map(|p| directory(p)).collect();
            let (sp, up, jp) = jaccard(&ours, &theirs);
            let (sd, ud, jd) = jaccard(&our_dirs, &their_dirs);
            let score = PATH_WEIGHT * jp + DIRECTORY_WEIGHT * jd;
            if score <= 0.0 {
                return None;
            }
            let shared_paths: Vec<String> = ours.intersection(&theirs).map(|s| s.to_string()).collect();
            let shared_dirs: Vec<&str> = our_dirs
                .intersection(&their_dirs)
                .map(|d| if d.is_empty() { "(root)" } else { d })
                .take(5)
                .collect();
            let mut reasons = vec![format!(
                "{sp} of {up} distinct paths in common (J = {jp:.2}); {sd} of {ud} directories in \
                 common (J = {jd:.2}{}); score {PATH_WEIGHT} × {jp:.2} + {DIRECTORY_WEIGHT} × {jd:.2} = {score:.2}",
                if shared_dirs.is_empty() { String::new() } else { format!(": {}", shared_dirs.join(", ")) }
            )];
            reasons.push(if pr.merged {
                "merged: how it was done there may apply here".to_owned()
            } else {
                "closed without merging: check why before repeating it".to_owned()
            });
            Some(SimilarPr {
                number: pr.number,
                title: pr.title.clone(),
                score,
                shared_paths,
                merged: pr.merged,
                reasons,
            })
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.number.cmp(&a.number)));
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use resolve_pr_forge::repository::FileStatus;

    use super::*;

    fn file(path: &str) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            status: FileStatus::Modified,
            previous_path: None,
            additions: 1,
            deletions: 0,
            patch: None,
        }
    }

    fn pr(number: u64, merged: bool, paths: &[&str]) -> ClosedPull {
        ClosedPull {
            number,
            title: format!("PR {number}"),
            merged,
            closed_at: None,
            paths: paths.iter().map(|p| p.to_string()).collect(),
        }
    }

    #[test]
    fn scored_by_the_stated_formula_and_zero_left_out() {
        let files = [file("src/a.rs"), file("src/b.rs"), file("docs/x.md")];
        let closed = [
            pr(10, true, &["src/a.rs", "src/c.rs"]),
            pr(11, false, &["src/z.rs"]),
            pr(12, true, &["web/app.ts"]),
            pr(13, true, &["src/a.rs", "src/b.rs", "docs/x.md"]),
        ];
        let got = similar_prs(&files, &closed, 10);
        let numbers: Vec<u64> = got.iter().map(|s| s.number).collect();
        assert_eq!(numbers, [13, 10, 11]);
        assert!((got[0].score - 1.0).abs() < 1e-9);
        // #10: paths 1 of 4 (0.25), directories 1 of 2 (0.5): 0.7 × 0.25 + 0.3 × 0.5.
        assert!((got[1].score - (0.7 * 0.25 + 0.3 * 0.5)).abs() < 1e-9);
        assert_eq!(got[1].shared_paths, ["src/a.rs"]);
        assert!(
            got[1].reasons[0].contains("1 of 4 distinct paths"),
            "{:?}",
            got[1].reasons
        );
        assert!(
            got[1].reasons[0].contains("score 0.7 × 0.25 + 0.3 × 0.50"),
            "{:?}",
            got[1].reasons
        );
        // #11 shares only the directory.
        assert!(got[2].shared_paths.is_empty() && !got[2].merged);
        assert!(got[2].reasons[1].contains("without merging"));
        assert_eq!(similar_prs(&files, &closed, 1).len(), 1);
    }

    #[test]
    fn a_renamed_file_counts_under_its_old_name() {
        let mut moved = file("lib/new.rs");
        moved.previous_path = Some("src/old.rs".into());
        let got = similar_prs(&[moved], &[pr(7, true, &["src/old.rs"])], 5);
        assert_eq!(got[0].shared_paths, ["src/old.rs"]);
        assert!(similar_prs(&[file("lib/new.rs")], &[pr(7, true, &["src/old.rs"])], 5).is_empty());
    }
}
