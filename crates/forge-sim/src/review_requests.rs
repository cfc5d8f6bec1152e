//! A pull request's REST review requests, from its scenario's `readiness.review_requests`
//! (logins, or teams as `org/team`), the same requests GraphQL's `reviewRequests` lists:
//! GitHub's `requested_reviewers` (`simple-user`) and `requested_teams` (`team-simple` in a
//! pull request, `team` in a listing: the one object fits both),
//! Forgejo/Gitea's `requested_reviewers` (`User`) and `requested_reviewers_teams` (`Team`),
//! which Go writes as `null` when empty.

use serde_json::{Value, json};

use crate::scenario::PullSpec;
use crate::state::World;

/// The requested users and teams, in the scenario's order.
fn split(p: &PullSpec) -> (Vec<&str>, Vec<(usize, &str, &str)>) {
    let mut users = Vec::new();
    let mut teams = Vec::new();
    for (i, who) in p.readiness.review_requests.iter().enumerate() {
        match who.split_once('/') {
            Some((org, slug)) => teams.push((i, org, slug)),
            None => users.push(who.as_str()),
        }
    }
    (users, teams)
}

/// A team's id: stable per pull request and position.
fn team_id(p: &PullSpec, i: usize) -> u64 {
    7_000_000 + p.number * 100 + i as u64
}

/// GitHub: `(requested_reviewers, requested_teams)`.
pub(crate) fn github(base: &str, world: &World, p: &PullSpec) -> (Vec<Value>, Vec<Value>) {
    let (users, teams) = split(p);
    let users = users
        .into_iter()
        .map(|login| crate::github::user_json(base, &world.user_or_ghost(login)))
        .collect();
    let teams = teams
        .into_iter()
        .map(|(i, org, slug)| {
            let id = team_id(p, i);
            let api = format!("{base}/orgs/{org}/teams/{slug}");
            json!({
                "id": id,
                "node_id": crate::github::node_id("T", "Team", id),
                "url": api,
                "members_url": format!("{api}/members{{/member}}"),
                "name": slug,
                "description": null,
                "permission": "pull",
                "privacy": "closed",
                "notification_setting": "notifications_enabled",
                "html_url": format!("{base}/orgs/{org}/teams/{slug}"),
                "repositories_url": format!("{api}/repos"),
                "slug": slug,
                "type": "organization",
                // Listings give the `team` shape, which adds its parent team.
                "parent": null,
            })
        })
        .collect();
    (users, teams)
}

/// Forgejo/Gitea: `(requested_reviewers, requested_reviewers_teams)`, `null` when empty.
pub(crate) fn forgejo(base: &str, world: &World, p: &PullSpec) -> (Value, Value) {
    let (users, teams) = split(p);
    let users: Vec<Value> = users
        .into_iter()
        .map(|login| crate::forgejo::user_json(base, &world.user_or_ghost(login)))
        .collect();
    let teams: Vec<Value> = teams
        .into_iter()
        .map(|(i, _org, name)| {
            json!({
                "id": team_id(p, i),
                "name": name,
                "description": "",
                "includes_all_repositories": false,
                "permission": "write",
                "can_create_org_repo": false,
                "units": ["repo.code", "repo.pulls"],
                "units_map": {"repo.code": "write", "repo.pulls": "write"},
            })
        })
        .collect();
    let or_null = |v: Vec<Value>| {
        if v.is_empty() {
            Value::Null
        } else {
            Value::Array(v)
        }
    };
    (or_null(users), or_null(teams))
}
