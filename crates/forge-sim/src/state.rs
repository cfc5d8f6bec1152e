//! The simulated forge's mutable world: users, tokens, repositories and the comments on each
//! conversation, built from a scenario. Both API flavours render from this one model, so a
//! comment posted through REST shows in the next list and in GraphQL alike.

use std::collections::BTreeMap;

use crate::scenario::{
    CommentSpec, ForgeFlavor, Permission, PullSpec, RepoSpec, Scenario, TokenSpec, UserKind,
};
use crate::time::{format_rfc3339, now_unix, parse_rfc3339};

#[derive(Debug, Clone)]
pub(crate) struct User {
    pub login: String,
    pub id: u64,
    pub kind: UserKind,
    pub name: Option<String>,
    pub email: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Comment {
    pub id: u64,
    pub author: String,
    pub body: String,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Debug)]
pub(crate) struct Repo {
    pub spec: RepoSpec,
    pub id: u64,
    /// Issue comments per pull-request or issue number, oldest first.
    pub conversations: BTreeMap<u64, Vec<Comment>>,
}

/// What a number in a repository refers to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Conversation<'a> {
    Pull(&'a PullSpec),
    Issue,
}

#[derive(Debug)]
pub(crate) struct World {
    pub version: String,
    pub anonymous_read: bool,
    pub rate_limit: crate::scenario::RateLimitSpec,
    /// Fixed "now" from the scenario, if any.
    fixed_now: Option<i64>,
    pub started_at: i64,
    pub users: Vec<User>,
    pub tokens: Vec<TokenSpec>,
    pub repos: Vec<Repo>,
    next_comment_id: u64,
}

/// Comment ids handed out when a scenario does not give one start here, so they look like
/// real ids and never collide with small hand-written ones.
const FIRST_COMMENT_ID: u64 = 1_000_001;

impl World {
    pub fn new(scenario: Scenario) -> World {
        let started_at = now_unix();
        let fixed_now = scenario.now.as_deref().and_then(parse_rfc3339);
        let version = scenario
            .version
            .clone()
            .unwrap_or_else(|| match scenario.forge {
                ForgeFlavor::Github => "github.com".to_owned(),
                ForgeFlavor::Forgejo => "11.0.1+gitea-1.22.0".to_owned(),
                ForgeFlavor::Gitea => "1.24.0".to_owned(),
            });
        let mut world = World {
            version,
            anonymous_read: scenario.anonymous_read,
            rate_limit: scenario.rate_limit.clone(),
            fixed_now,
            started_at,
            users: scenario
                .users
                .iter()
                .map(|u| User {
                    login: u.login.clone(),
                    id: u.id,
                    kind: u.kind,
                    name: u.name.clone(),
                    email: u.email.clone(),
                })
                .collect(),
            tokens: scenario.tokens.clone(),
            repos: Vec::new(),
            next_comment_id: FIRST_COMMENT_ID,
        };
        let explicit_max = scenario
            .repos
            .iter()
            .flat_map(|r| {
                let pulls = r.pulls.iter().flat_map(|p| p.comments.iter());
                pulls.chain(r.issues.iter().flat_map(|i| i.comments.iter()))
            })
            .filter_map(|c| c.id)
            .max()
            .unwrap_or(0);
        world.next_comment_id = world.next_comment_id.max(explicit_max + 1);

        for t in &scenario.tokens {
            world.ensure_user(&t.login);
        }
        for (index, spec) in scenario.repos.into_iter().enumerate() {
            world.ensure_user(&spec.owner);
            let mut conversations = BTreeMap::new();
            for pull in &spec.pulls {
                world.ensure_user(&pull.author);
                let mut comments = world.materialize(&pull.comments);
                if let Some(g) = &pull.generate_comments {
                    world.ensure_user(&g.author);
                    let start = g
                        .start_at
                        .as_deref()
                        .or(Some(pull.created_at.as_str()))
                        .and_then(parse_rfc3339)
                        .unwrap_or(0);
                    for n in 1..=g.count {
                        let at = format_rfc3339(start + g.interval_seconds * i64::from(n));
                        let id = world.take_comment_id();
                        comments.push(Comment {
                            id,
                            author: g.author.clone(),
                            body: g.body.replace("{n}", &n.to_string()),
                            created_at: at.clone(),
                            updated_at: at,
                        });
                    }
                }
                conversations.insert(pull.number, comments);
            }
            for issue in &spec.issues {
                if let Some(a) = &issue.author {
                    world.ensure_user(a);
                }
                let comments = world.materialize(&issue.comments);
                conversations.insert(issue.number, comments);
            }
            let id = spec.id.unwrap_or(100_001 + index as u64);
            world.repos.push(Repo {
                spec,
                id,
                conversations,
            });
        }
        world
    }

    fn materialize(&mut self, specs: &[CommentSpec]) -> Vec<Comment> {
        specs
            .iter()
            .map(|c| {
                self.ensure_user(&c.author);
                let id = c.id.unwrap_or_else(|| self.take_comment_id());
                Comment {
                    id,
                    author: c.author.clone(),
                    body: c.body.clone(),
                    created_at: normalize_time(&c.created_at),
                    updated_at: normalize_time(c.updated_at.as_deref().unwrap_or(&c.created_at)),
                }
            })
            .collect()
    }

    fn take_comment_id(&mut self) -> u64 {
        let id = self.next_comment_id;
        self.next_comment_id += 1;
        id
    }

    /// Users referenced but not declared get the next free id; a `[bot]` login is a bot.
    fn ensure_user(&mut self, login: &str) {
        if self.user(login).is_some() {
            return;
        }
        let id = self.users.iter().map(|u| u.id).max().unwrap_or(0) + 1;
        let kind = if login.ends_with("[bot]") {
            UserKind::Bot
        } else {
            UserKind::User
        };
        self.users.push(User {
            login: login.to_owned(),
            id,
            kind,
            name: None,
            email: None,
        });
    }

    pub fn user(&self, login: &str) -> Option<&User> {
        self.users
            .iter()
            .find(|u| u.login.eq_ignore_ascii_case(login))
    }

    /// The user for a login known to exist (every referenced login was created in `new`);
    /// falls back to a ghost so rendering never fails.
    pub fn user_or_ghost(&self, login: &str) -> User {
        self.user(login).cloned().unwrap_or(User {
            login: login.to_owned(),
            id: 0,
            kind: UserKind::User,
            name: None,
            email: None,
        })
    }

    pub fn token(&self, token: &str) -> Option<&TokenSpec> {
        self.tokens.iter().find(|t| t.token == token)
    }

    pub fn can_write(&self, token: &TokenSpec) -> bool {
        token.permission == Permission::Write
    }

    pub fn repo_index(&self, owner: &str, name: &str) -> Option<usize> {
        self.repos.iter().position(|r| {
            r.spec.owner.eq_ignore_ascii_case(owner) && r.spec.name.eq_ignore_ascii_case(name)
        })
    }

    pub fn repo_by_id(&self, id: u64) -> Option<usize> {
        self.repos.iter().position(|r| r.id == id)
    }

    pub fn conversation(&self, repo: usize, number: u64) -> Option<Conversation<'_>> {
        let spec = &self.repos.get(repo)?.spec;
        if let Some(p) = spec.pulls.iter().find(|p| p.number == number) {
            return Some(Conversation::Pull(p));
        }
        spec.issues
            .iter()
            .find(|i| i.number == number)
            .map(|_| Conversation::Issue)
    }

    pub fn comments(&self, repo: usize, number: u64) -> &[Comment] {
        self.repos
            .get(repo)
            .and_then(|r| r.conversations.get(&number))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn now(&self) -> String {
        format_rfc3339(self.fixed_now.unwrap_or_else(now_unix))
    }

    pub fn add_comment(&mut self, repo: usize, number: u64, author: &str, body: &str) -> Comment {
        let now = self.now();
        let comment = Comment {
            id: self.take_comment_id(),
            author: author.to_owned(),
            body: body.to_owned(),
            created_at: now.clone(),
            updated_at: now,
        };
        if let Some(r) = self.repos.get_mut(repo) {
            r.conversations
                .entry(number)
                .or_default()
                .push(comment.clone());
        }
        comment
    }

    /// A stable id for a pull request or issue (distinct from its number, like on the forges).
    pub fn conversation_id(&self, repo: usize, number: u64) -> u64 {
        let repo_id = self.repos.get(repo).map(|r| r.id).unwrap_or(0);
        repo_id * 100_000 + number
    }
}

/// Scenario times may carry offsets or fractions; the forges answer in UTC seconds.
pub(crate) fn normalize_time(t: &str) -> String {
    parse_rfc3339(t)
        .map(format_rfc3339)
        .unwrap_or_else(|| t.to_owned())
}
