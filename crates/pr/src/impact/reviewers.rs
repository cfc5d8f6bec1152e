//! Who should review: code owners of the changed files, then people who changed them
//! recently.

use std::collections::BTreeMap;

use resolve_pr_forge::repository::{ChangedFile, CommitInfo};

use super::areas::plural;
use super::owners::CodeOwners;

/// A suggested reviewer and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Reviewer {
    /// A user's login (no `@`), a team as `@org/team`, or an owner's email as the code owners
    /// file writes it.
    pub login: String,
    pub reasons: Vec<String>,
    /// 0..=1, by the formula in [`suggest_reviewers`].
    pub confidence: f64,
    /// Changed files the code owners file gives them.
    pub owned_files: usize,
    /// Distinct recent commits of theirs among the changed files' histories.
    pub recent_commits: usize,
    pub is_code_owner: bool,
}

#[derive(Default)]
struct Acc {
    login: String,
    owned: usize,
    owner_lines: Vec<String>,
    touched: usize,
    recency: f64,
    ranks: Vec<(String, usize)>,
    shas: Vec<String>,
}

/// Suggests up to `limit` reviewers for `files`, leaving out the PR's author and bots (a
/// commit author the forge marks as a bot, an owner whose name ends in `[bot]`).
///
/// - **Code owners** (`owners`): for each file, the owners [`CodeOwners::owners_of`] gives
///   (users, teams kept as `@org/team`, emails). Confidence `0.5 + 0.5 × owned / files`, so
///   from 0.5 (one file of many) to 1.0 (every file).
/// - **Recent committers** (`history[i]`: the recent commits of `files[i]`, newest first;
///   commits without a forge account are left out): a person gets, for each changed file
///   they committed to, `1 / (1 + rank)` where rank is the position of their newest commit
///   in that file's list (0 = the latest commit). Confidence `0.5 × (sum of those) / files`,
///   so below 0.5: a code owner always ranks above someone who only committed.
///
/// A code owner who also committed keeps the owner's confidence; the commits are a reason.
/// Order: code owners first, then confidence, owned files, commits (all descending), then
/// the login. Every reason states its numbers and the formula.
pub fn suggest_reviewers(
    files: &[ChangedFile],
    owners: Option<&CodeOwners>,
    history: &[Vec<CommitInfo>],
    pr_author: &str,
    limit: usize,
) -> Vec<Reviewer> {
    let n = files.len();
    if n == 0 || limit == 0 {
        return Vec::new();
    }
    let author = pr_author.trim_start_matches('@').to_ascii_lowercase();
    let excluded = |login: &str| {
        let bare = login.trim_start_matches('@').to_ascii_lowercase();
        bare.is_empty() || bare == author || bare.ends_with("[bot]")
    };
    let mut people: BTreeMap<String, Acc> = BTreeMap::new();
    let entry = |people: &mut BTreeMap<String, Acc>, login: String| -> String {
        let key = login.to_ascii_lowercase();
        people.entry(key.clone()).or_insert_with(|| Acc {
            login,
            ..Acc::default()
        });
        key
    };

    if let Some(owners) = owners {
        for file in files {
            let Some(m) = owners.owners_of(&file.path) else {
                continue;
            };
            let line = owners.describe(&m);
            for owner in &m.owners {
                if excluded(owner) {
                    continue;
                }
                // Users without their `@`; teams keep it; emails stay as written.
                let login = match owner.strip_prefix('@') {
                    Some(user) if !user.contains('/') => user.to_owned(),
                    _ => owner.clone(),
                };
                let key = entry(&mut people, login);
                let acc = people.get_mut(&key).expect("inserted");
                acc.owned += 1;
                if !acc.owner_lines.contains(&line) {
                    acc.owner_lines.push(line.clone());
                }
            }
        }
    }

    for (file, commits) in files.iter().zip(history) {
        let mut seen_here: Vec<String> = Vec::new();
        for (rank, commit) in commits.iter().enumerate() {
            let Some(actor) = &commit.author else {
                continue;
            };
            if actor.is_bot || excluded(&actor.login) {
                continue;
            }
            let key = entry(&mut people, actor.login.clone());
            let acc = people.get_mut(&key).expect("inserted");
            if !acc.shas.contains(&commit.sha) {
                acc.shas.push(commit.sha.clone());
            }
            if !seen_here.contains(&key) {
                seen_here.push(key);
                acc.touched += 1;
                acc.recency += 1.0 / (1.0 + rank as f64);
                acc.ranks.push((file.path.clone(), rank));
            }
        }
    }

    let mut reviewers: Vec<Reviewer> = people
        .into_values()
        .map(|acc| {
            let mut reasons = Vec::new();
            let is_code_owner = acc.owned > 0;
            let owner_conf = 0.5 + 0.5 * acc.owned as f64 / n as f64;
            let commit_conf = 0.5 * acc.recency / n as f64;
            if is_code_owner {
                let shown: Vec<&str> = acc.owner_lines.iter().take(3).map(String::as_str).collect();
                let more = acc.owner_lines.len().saturating_sub(shown.len());
                reasons.push(format!(
                    "code owner of {} of {n} changed file{} by {}{}: confidence 0.5 + 0.5 × {}/{n} = {:.2}",
                    acc.owned,
                    plural(n),
                    shown.join("; "),
                    if more > 0 { format!(" and {more} more line(s)") } else { String::new() },
                    acc.owned,
                    owner_conf
                ));
            }
            if acc.touched > 0 {
                let ranks = acc
                    .ranks
                    .iter()
                    .take(5)
                    .map(|(path, rank)| format!("{path} #{}", rank + 1))
                    .collect::<Vec<_>>()
                    .join(", ");
                let formula = format!(
                    "recency 1/position summed {:.2}, 0.5 × {:.2}/{n} = {:.2}",
                    acc.recency, acc.recency, commit_conf
                );
                reasons.push(format!(
                    "recently committed to {} of {n} changed file{} ({} commit{}; newest of theirs \
                     per file, position 1 = the file's latest: {ranks}): {}",
                    acc.touched,
                    plural(n),
                    acc.shas.len(),
                    plural(acc.shas.len()),
                    if is_code_owner {
                        format!("{formula}, below the owner's confidence, which stands")
                    } else {
                        format!("confidence {formula}")
                    }
                ));
            }
            Reviewer {
                login: acc.login,
                reasons,
                confidence: if is_code_owner { owner_conf } else { commit_conf },
                owned_files: acc.owned,
                recent_commits: acc.shas.len(),
                is_code_owner,
            }
        })
        .collect();
    reviewers.sort_by(|a, b| {
        b.is_code_owner
            .cmp(&a.is_code_owner)
            .then(b.confidence.total_cmp(&a.confidence))
            .then(b.owned_files.cmp(&a.owned_files))
            .then(b.recent_commits.cmp(&a.recent_commits))
            .then(a.login.cmp(&b.login))
    });
    reviewers.truncate(limit);
    reviewers
}

#[cfg(test)]
mod tests {
    use resolve_pr_forge::model::Actor;
    use resolve_pr_forge::repository::{CodeOwnersFile, FileStatus, OwnersSyntax};

    use super::*;

    fn file(path: &str) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            status: FileStatus::Modified,
            previous_path: None,
            additions: 1,
            deletions: 1,
            patch: None,
        }
    }

    fn commit(sha: &str, login: Option<&str>, bot: bool) -> CommitInfo {
        CommitInfo {
            sha: sha.into(),
            message: "m".into(),
            author: login.map(|l| Actor {
                login: l.into(),
                is_bot: bot,
            }),
            author_name: "Someone".into(),
            authored_at: None,
        }
    }

    fn owners(text: &str) -> CodeOwners {
        CodeOwners::parse(&CodeOwnersFile {
            path: ".github/CODEOWNERS".into(),
            text: text.into(),
            syntax: OwnersSyntax::GitHub,
        })
    }

    #[test]
    fn owners_first_with_the_stated_formula_then_committers() {
        let files = [
            file("src/auth/login.rs"),
            file("src/auth/token.rs"),
            file("src/ui.rs"),
            file("README.md"),
            file("docs/a.md"),
        ];
        let co = owners("* @lead\n/src/auth/ @bob @acme/security\n/src/ui.rs @carol\n");
        let history = vec![
            vec![
                commit("c1", Some("dave"), false),
                commit("c2", Some("bob"), false),
            ],
            vec![
                commit("c3", Some("erin"), false),
                commit("c1", Some("dave"), false),
            ],
            vec![],
            vec![
                commit("c4", Some("dependabot[bot]"), true),
                commit("c5", None, false),
            ],
            vec![commit("c6", Some("author"), false)],
        ];
        let got = suggest_reviewers(&files, Some(&co), &history, "@Author", 10);
        let summary: Vec<(&str, bool, usize, usize, String)> = got
            .iter()
            .map(|r| {
                (
                    r.login.as_str(),
                    r.is_code_owner,
                    r.owned_files,
                    r.recent_commits,
                    format!("{:.2}", r.confidence),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                // Ties on confidence and owned files: bob's commit puts him first.
                ("bob", true, 2, 1, "0.70".to_owned()),
                ("@acme/security", true, 2, 0, "0.70".to_owned()),
                ("lead", true, 2, 0, "0.70".to_owned()),
                ("carol", true, 1, 0, "0.60".to_owned()),
                // dave: rank 0 in file 1, rank 1 in file 2: 0.5 × (1 + 0.5)/5 = 0.15.
                ("dave", false, 0, 1, "0.15".to_owned()),
                // erin: rank 0 in file 2: 0.5 × 1/5 = 0.10.
                ("erin", false, 0, 1, "0.10".to_owned()),
            ]
        );
        let bob = &got[0];
        assert!(
            bob.reasons[0].contains("code owner of 2 of 5 changed files by .github/CODEOWNERS line 2 (`/src/auth/` @bob @acme/security)")
                && bob.reasons[0].contains("0.5 + 0.5 × 2/5 = 0.70"),
            "{:?}",
            bob.reasons
        );
        assert!(
            bob.reasons[1].contains("owner's confidence, which stands"),
            "{:?}",
            bob.reasons
        );
        let dave = &got[4];
        assert!(
            dave.reasons[0].contains("0.5 × 1.50/5 = 0.15"),
            "{:?}",
            dave.reasons
        );
        // The author (any case, with or without @) and bots are never suggested.
        assert!(
            got.iter()
                .all(|r| r.login != "author" && !r.login.contains("[bot]"))
        );
        // The limit cuts the ordered list.
        assert_eq!(
            suggest_reviewers(&files, Some(&co), &history, "author", 2).len(),
            2
        );
    }

    #[test]
    fn without_owners_committers_are_ranked_by_share_and_recency() {
        let files = [file("a.rs"), file("b.rs")];
        let history = vec![
            vec![commit("1", Some("x"), false), commit("2", Some("y"), false)],
            vec![commit("3", Some("y"), false)],
        ];
        let mut with_bot = history.clone();
        // A bot the forge marks as one is left out whatever its name.
        with_bot[0].insert(0, commit("b", Some("renovate"), true));
        let got = suggest_reviewers(&files, None, &with_bot, "me", 5);
        assert!(got.iter().all(|r| r.login != "renovate"));
        // It still takes rank 0 in a.rs: x is second there now (0.5 × 0.5/2).
        assert!((got.iter().find(|r| r.login == "x").unwrap().confidence - 0.125).abs() < 1e-9);
        let got = suggest_reviewers(&files, None, &history, "me", 5);
        assert_eq!(got[0].login, "y");
        assert!((got[0].confidence - 0.5 * 1.5 / 2.0).abs() < 1e-9);
        assert_eq!(got[1].login, "x");
        assert!((got[1].confidence - 0.25).abs() < 1e-9);
        assert!(suggest_reviewers(&[], None, &[], "me", 5).is_empty());
    }
}
