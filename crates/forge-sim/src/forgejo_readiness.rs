//! Forgejo/Gitea merge readiness as the simulator serves it, under `/api/v1/repos/{o}/{r}/…`:
//! a branch with its effective protection (`branches/{branch}`, readable by readers; the rule's
//! name only for repository admins, as Gitea's `convert.ToBranch` does), one protection rule
//! (`branch_protections/{name}`, admins only: 403 when the scenario's
//! `branch_protection_forbidden` is set), the combined status of a commit (`commits/{ref}/status`,
//! newest status per context, paged with `limit`/`page`), and the compare of the pull request's
//! head commit with its base branch (`compare/{head_sha}...{base}`: `total_commits` is the pull
//! request's `readiness.behind_by`). It also keeps how often each pull request was read, for
//! `readiness.mergeable_after_reads` (Forgejo answers `mergeable: false` while it is still checking).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::scenario::{BranchProtectionSpec, PullSpec, TokenSpec};
use crate::server::{Reply, Request};
use crate::state::World;

/// Reads of `GET …/pulls/{n}` per (repository, number).
#[derive(Debug, Default)]
pub(crate) struct ReadinessState {
    pull_reads: HashMap<(usize, u64), u32>,
}

/// Counts one read of a pull request (called by the pull request route before it answers).
pub(crate) fn note_pull_read(world: &mut World, r: usize, number: u64) {
    *world
        .forgejo_readiness
        .pull_reads
        .entry((r, number))
        .or_default() += 1;
}

/// Whether the background mergeability check of `p` is over: after `mergeable_after_reads`
/// reads (default 0) of the pull request, the read that follows sees the result.
pub(crate) fn checked(world: &World, r: usize, p: &PullSpec) -> bool {
    let reads = world
        .forgejo_readiness
        .pull_reads
        .get(&(r, p.number))
        .copied()
        .unwrap_or(0);
    reads > p.readiness.mergeable_after_reads
}

/// The routes above, or `None` for any other path.
pub(crate) fn route(
    base: &str,
    world: &World,
    req: &Request,
    r: usize,
    rest: &[&str],
    caller: &Option<TokenSpec>,
) -> Option<Reply> {
    if req.method != "GET" {
        return None;
    }
    let spec = &world.repos[r].spec;
    let api = format!("{base}/api/v1/repos/{}/{}", spec.owner, spec.name);
    let not_found = || {
        Reply::json(
            404,
            json!({"errors": null, "message": "The target couldn't be found.", "url": format!("{base}/api/swagger")}),
        )
    };
    // Gitea's `isRepoAdmin`: the simulator's admins are write tokens of repositories whose
    // protection is not `branch_protection_forbidden`.
    let admin = !spec.branch_protection_forbidden
        && caller.as_ref().is_some_and(|c| c.permission.can_push());
    Some(match rest {
        ["branches", branch @ ..] if !branch.is_empty() => {
            let name = decode(&branch.join("/"));
            let Some(sha) = branch_tip(world, r, &name) else {
                return Some(not_found());
            };
            let rule = protection_of(&spec.branch_protections, &name);
            let can_write = caller.as_ref().is_some_and(|c| c.permission.can_push());
            let commit = json!({
                "id": sha,
                "message": format!("Tip of {name}\n"),
                "url": format!("{base}/{}/{}/commit/{sha}", spec.owner, spec.name),
                "author": {"name": "Sim", "email": "sim@example.invalid", "username": ""},
                "committer": {"name": "Sim", "email": "sim@example.invalid", "username": ""},
                "verification": null,
                "timestamp": "2024-01-01T00:00:00Z",
                "added": null,
                "removed": null,
                "modified": null,
            });
            let body = match rule {
                None => json!({
                    "name": name,
                    "commit": commit,
                    "protected": false,
                    "required_approvals": 0,
                    "enable_status_check": false,
                    "status_check_contexts": [],
                    "user_can_push": can_write,
                    "user_can_merge": can_write,
                    "effective_branch_protection_name": "",
                }),
                Some(b) => json!({
                    "name": name,
                    "commit": commit,
                    "protected": true,
                    "required_approvals": b.required_approvals,
                    "enable_status_check": !b.required_checks.is_empty(),
                    "status_check_contexts": b.required_checks,
                    "user_can_push": false,
                    "user_can_merge": can_write,
                    "effective_branch_protection_name": if admin { b.branch.as_str() } else { "" },
                }),
            };
            Reply::json(200, body)
        }
        ["branch_protections", name] => {
            if !admin {
                // Not in the description (which lists 200 and 404 only), so not validated.
                return Some(
                    Reply::json(403, json!({"message": "token is not an admin of this repository", "url": format!("{base}/api/swagger")}))
                        .unchecked(),
                );
            }
            let name = decode(name);
            match spec.branch_protections.iter().find(|b| b.branch == name) {
                Some(b) => Reply::json(200, protection_json(b)),
                None => not_found(),
            }
        }
        ["commits", reference, "status"] => {
            let reference = decode(reference);
            let pulls: Vec<&PullSpec> = spec
                .pulls
                .iter()
                .filter(|p| p.head.sha == reference || p.head.ref_name == reference)
                .collect();
            let Some(first) = pulls.first() else {
                return Some(not_found());
            };
            let sha = first.head.sha.clone();
            let statuses = latest_statuses(base, world, &api, &pulls, &sha);
            let (limit, page) = crate::forgejo::page_params(req);
            let total = statuses.len();
            let mut body = json!({
                "sha": if total == 0 { String::new() } else { sha.clone() },
                "total_count": total,
                "statuses": statuses.iter().skip((page - 1).saturating_mul(limit)).take(limit).cloned().collect::<Vec<_>>(),
                "repository": null,
                "commit_url": format!("{api}/commits/{sha}"),
                "url": format!("{api}/commits/{sha}/status"),
            });
            // Gitea writes "" for no status at all, which its description's enum lacks: the
            // key is left out instead.
            if let Some(state) = worst(&statuses) {
                body["state"] = Value::from(state);
            }
            Reply::json(200, body)
        }
        // Gitea routes `compare/*`: a branch's slashes may come unescaped.
        ["compare", basehead @ ..] if !basehead.is_empty() => {
            let basehead = decode(&basehead.join("/"));
            let Some((from, to)) = basehead.split_once("...") else {
                return Some(not_found());
            };
            // Only the reverse compare is simulated: the head commit against the base branch.
            let Some(p) = spec
                .pulls
                .iter()
                .find(|p| p.head.sha == from && p.base.ref_name == to)
            else {
                return Some(not_found());
            };
            let behind = p.readiness.behind_by;
            let commits: Vec<Value> = (1..=behind)
                .map(|i| {
                    let sha = format!("{:040x}", 0xbe00_0000_u64 + i);
                    json!({
                        "sha": sha,
                        "url": format!("{api}/git/commits/{sha}"),
                        "html_url": format!("{base}/{}/{}/commit/{sha}", spec.owner, spec.name),
                        "created": "2024-01-01T00:00:00Z",
                        "commit": {"message": format!("Base commit {i}\n"), "url": format!("{api}/git/commits/{sha}")},
                        "author": null,
                        "committer": null,
                        "parents": null,
                        "files": null,
                        "stats": null,
                    })
                })
                .collect();
            Reply::json(
                200,
                json!({"total_commits": behind, "commits": commits, "files": []}),
            )
        }
        _ => return None,
    })
}

/// Where a branch of the repository points: its tip in the served git repository, else the default branch, a pull request's base or
/// head, or a protected branch; `None` for a branch the scenario does not mention.
pub(crate) fn branch_tip(world: &World, r: usize, name: &str) -> Option<String> {
    if let Some(tip) = world.repos[r].git_tips.get(name) {
        return Some(tip.clone());
    }
    let spec = &world.repos[r].spec;
    let from_pulls = spec.pulls.iter().find_map(|p| {
        if p.base.ref_name == name {
            Some(p.base.sha.clone())
        } else if p.head.ref_name == name && p.head.repo.is_none() {
            Some(p.head.sha.clone())
        } else {
            None
        }
    });
    from_pulls.or_else(|| {
        (spec.default_branch == name || spec.branch_protections.iter().any(|b| b.branch == name))
            .then(|| format!("{:040x}", 0xb0_u64))
    })
}

/// The rule that protects `branch`: the one named after it, else the first whose glob
/// (`*` within a path segment, `**` across) matches, as Gitea prefers exact rules.
fn protection_of<'s>(
    rules: &'s [BranchProtectionSpec],
    branch: &str,
) -> Option<&'s BranchProtectionSpec> {
    rules
        .iter()
        .find(|b| b.branch == branch)
        .or_else(|| rules.iter().find(|b| rule_glob(&b.branch, branch)))
}

fn rule_glob(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(b'*') => {
                let double = p.get(1) == Some(&b'*');
                let rest = if double { &p[2..] } else { &p[1..] };
                (0..=n.len())
                    .take_while(|&i| double || !n[..i].contains(&b'/'))
                    .any(|i| go(rest, &n[i..]))
            }
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    pattern.contains('*') && go(pattern.as_bytes(), name.as_bytes())
}

/// Forgejo's `BranchProtection` for a scenario rule.
fn protection_json(b: &BranchProtectionSpec) -> Value {
    json!({
        "branch_name": b.branch,
        "rule_name": b.branch,
        "enable_push": false,
        "enable_push_whitelist": false,
        "push_whitelist_usernames": [],
        "push_whitelist_teams": [],
        "push_whitelist_deploy_keys": false,
        "enable_merge_whitelist": false,
        "merge_whitelist_usernames": [],
        "merge_whitelist_teams": [],
        "enable_status_check": !b.required_checks.is_empty(),
        "status_check_contexts": b.required_checks,
        "required_approvals": b.required_approvals,
        "enable_approvals_whitelist": !b.approvals_whitelist_username.is_empty(),
        "approvals_whitelist_username": b.approvals_whitelist_username,
        "approvals_whitelist_teams": [],
        "block_on_rejected_reviews": b.block_on_rejected_reviews,
        "block_on_official_review_requests": b.block_on_official_review_requests,
        "block_on_outdated_branch": b.block_on_outdated_branch,
        "dismiss_stale_approvals": b.dismiss_stale_approvals,
        "ignore_stale_approvals": b.ignore_stale_approvals,
        "require_signed_commits": b.require_signed_commits,
        "protected_file_patterns": "",
        "unprotected_file_patterns": "",
        "apply_to_admins": b.apply_to_admins,
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
    })
}

/// The newest status of each context of `sha`, oldest context first (Gitea keeps the
/// highest id per context); a later entry of the scenario is newer at an equal time.
fn latest_statuses(
    base: &str,
    world: &World,
    api: &str,
    pulls: &[&PullSpec],
    sha: &str,
) -> Vec<Value> {
    let mut all: Vec<(String, u64, Value)> = Vec::new();
    let mut n = 0u64;
    for p in pulls {
        for s in &p.statuses {
            n += 1;
            let at = crate::state::normalize_time(
                &s.created_at.clone().unwrap_or_else(|| p.created_at.clone()),
            );
            let creator = world.user_or_ghost(&p.author);
            let target = s
                .target_url
                .as_deref()
                .map(|u| u.replace("{base}", base))
                .unwrap_or_default();
            all.push((
                s.context.clone(),
                n,
                json!({
                    "id": n,
                    "status": s.state,
                    "target_url": target,
                    "description": s.description.clone().unwrap_or_default(),
                    "url": format!("{api}/statuses/{sha}"),
                    "context": s.context,
                    "creator": crate::forgejo::user_json(base, &creator),
                    "created_at": at,
                    "updated_at": at,
                }),
            ));
        }
    }
    let mut newest: HashMap<String, (String, u64)> = HashMap::new();
    for (context, id, v) in &all {
        let at = v["updated_at"].as_str().unwrap_or_default().to_owned();
        let entry = newest.entry(context.clone()).or_insert((at.clone(), *id));
        if (at.as_str(), *id) >= (entry.0.as_str(), entry.1) {
            *entry = (at, *id);
        }
    }
    all.into_iter()
        .filter(|(context, id, _)| newest.get(context).is_some_and(|(_, keep)| keep == id))
        .map(|(_, _, v)| v)
        .collect()
}

/// Gitea's combined state: the worst of the statuses.
fn worst(statuses: &[Value]) -> Option<&'static str> {
    const ORDER: [&str; 6] = [
        "error", "failure", "warning", "pending", "success", "skipped",
    ];
    statuses
        .iter()
        .filter_map(|s| s["status"].as_str())
        .filter_map(|s| ORDER.iter().position(|o| *o == s))
        .min()
        .map(|i| ORDER[i])
}

/// A path segment with `%XX` escapes decoded (invalid ones kept as written).
pub(crate) fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_globs_stay_within_a_segment_unless_doubled() {
        assert!(rule_glob("release/*", "release/1.x"));
        assert!(!rule_glob("release/*", "release/1.x/fix"));
        assert!(rule_glob("release/**", "release/1.x/fix"));
        assert!(!rule_glob("main", "main"));
    }

    #[test]
    fn worst_state_wins() {
        let s = |st: &str| json!({"status": st});
        assert_eq!(
            worst(&[s("success"), s("failure"), s("pending")]),
            Some("failure")
        );
        assert_eq!(worst(&[s("success"), s("skipped")]), Some("success"));
        assert_eq!(worst(&[]), None);
    }

    #[test]
    fn segments_are_percent_decoded() {
        assert_eq!(decode("a%2Fb%20c"), "a/b c");
        assert_eq!(decode("100%zz"), "100%zz");
    }
}
