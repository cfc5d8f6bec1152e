//! The simulated forge's mutable world: users, tokens, repositories and the comments on each
//! conversation, built from a scenario. Both API flavours render from this one model, so a
//! comment posted through REST shows in the next list and in GraphQL alike.

use std::collections::BTreeMap;

use crate::scenario::{
    CommentSpec, ForgeFlavor, GenerateComments, PullSpec, PullState, RepoSpec, ReviewThreadSpec,
    Scenario, ThreadCommentSpec, TokenSpec, UserKind,
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
    /// GitHub's `minimizedReason` when the comment is minimized (hidden).
    pub minimized: Option<String>,
}

/// A submitted review. Every review comment belongs to one.
#[derive(Debug, Clone)]
pub(crate) struct Review {
    pub id: u64,
    pub pull: u64,
    pub author: String,
    /// GitHub's names: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING.
    pub state: String,
    pub body: String,
    pub submitted_at: Option<String>,
    pub commit_id: String,
    /// GitHub's `minimizedReason` when the review is minimized (hidden).
    pub minimized: Option<String>,
    /// Forgejo/Gitea `official`, when the scenario sets it.
    pub official: Option<bool>,
}

/// A comment in a review thread.
#[derive(Debug, Clone)]
pub(crate) struct ReviewComment {
    pub id: u64,
    pub review_id: u64,
    /// `None`: a deleted account.
    pub author: Option<String>,
    pub body: String,
    pub created_at: String,
    pub updated_at: String,
    pub diff_hunk: String,
    /// Counts by REST reaction name.
    pub reactions: BTreeMap<String, u32>,
    /// Gitea keeps resolution per comment (`resolver`); a conversation counts as resolved
    /// when its first comment is. `Some(None)`: resolved by a deleted account.
    pub resolved_by: Option<Option<String>>,
    /// GitHub's `minimizedReason` when the comment is minimized (hidden).
    pub minimized: Option<String>,
}

/// A review thread: GitHub's `PullRequestReviewThread`, a Forgejo/Gitea code conversation.
#[derive(Debug, Clone)]
pub(crate) struct Thread {
    pub node_id: String,
    pub pull: u64,
    pub path: String,
    pub line: Option<u64>,
    pub start_line: Option<u64>,
    /// "RIGHT" or "LEFT".
    pub side: &'static str,
    pub file_level: bool,
    pub outdated: bool,
    pub commit_id: String,
    pub original_commit_id: String,
    /// Oldest first; never empty.
    pub comments: Vec<ReviewComment>,
}

impl Thread {
    pub fn resolved_by(&self) -> Option<&Option<String>> {
        self.comments.first().and_then(|c| c.resolved_by.as_ref())
    }

    pub fn is_resolved(&self) -> bool {
        self.resolved_by().is_some()
    }

    pub fn first_id(&self) -> u64 {
        self.comments.first().map(|c| c.id).unwrap_or(0)
    }
}

#[derive(Debug)]
pub(crate) struct Repo {
    pub spec: RepoSpec,
    pub id: u64,
    /// Issue comments per pull-request or issue number, oldest first.
    pub conversations: BTreeMap<u64, Vec<Comment>>,
    /// Reviews of every pull request, oldest first.
    pub reviews: Vec<Review>,
    /// Review threads of every pull request, in scenario order.
    pub threads: Vec<Thread>,
    /// The branches of the repository served over git (`Scenario::git_root`), by name, as
    /// read before each request; empty without one.
    pub git_tips: BTreeMap<String, String>,
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
    pub flavor: ForgeFlavor,
    pub resolve_capability: bool,
    pub reply_capability: bool,
    /// Whether `GET /swagger.v1.json` is served (Forgejo/Gitea).
    pub swagger_capability: bool,
    /// Whether the reviews list honours `page` (scenario `capabilities.paging`).
    pub paging: bool,
    /// Whether the Forgejo/Gitea Actions API is served (scenario `capabilities.actions_api`).
    pub actions_api: bool,
    /// Whether the Forgejo/Gitea pull request list filters by `base`/`head`.
    pub pull_list_filters: bool,
    /// What polling and `/_sim/checks/complete` changed about checks.
    pub ci: crate::ci::CiState,
    /// Pull request reads on Forgejo/Gitea, for `readiness.mergeable_after_reads`.
    pub forgejo_readiness: crate::forgejo_readiness::ReadinessState,
    /// Reads of lazily computed mergeability (see `readiness`).
    pub readiness: crate::readiness::ReadinessState,
    next_comment_id: u64,
    next_review_id: u64,
    next_thread_id: u64,
}

/// Comment ids handed out when a scenario does not give one start here, so they look like
/// real ids and never collide with small hand-written ones.
const FIRST_COMMENT_ID: u64 = 1_000_001;
const FIRST_REVIEW_ID: u64 = 2_000_001;
const FIRST_THREAD_ID: u64 = 3_000_001;

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
        let (resolve_default, reply_default) = gitea_capabilities(scenario.forge, &version);
        let resolve_capability = scenario
            .capabilities
            .resolve_review_comments
            .unwrap_or(resolve_default);
        let reply_capability = scenario
            .capabilities
            .reply_to_review_comments
            .unwrap_or(reply_default);
        let pull_list_filters = scenario
            .capabilities
            .pull_list_filters
            .unwrap_or_else(|| forgejo_major(scenario.forge, &version) >= 16);
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
            flavor: scenario.forge,
            resolve_capability,
            reply_capability,
            swagger_capability: scenario.capabilities.swagger.unwrap_or(true),
            paging: scenario.capabilities.paging.unwrap_or(true),
            actions_api: scenario
                .capabilities
                .actions_api
                .unwrap_or(scenario.forge == ForgeFlavor::Forgejo),
            pull_list_filters,
            ci: crate::ci::CiState::default(),
            forgejo_readiness: Default::default(),
            readiness: Default::default(),
            next_comment_id: FIRST_COMMENT_ID,
            next_review_id: FIRST_REVIEW_ID,
            next_thread_id: FIRST_THREAD_ID,
        };
        let explicit_max = scenario
            .repos
            .iter()
            .flat_map(|r| {
                let pulls = r.pulls.iter().flat_map(|p| p.comments.iter());
                pulls.chain(r.issues.iter().flat_map(|i| i.comments.iter()))
            })
            .filter_map(|c| c.id)
            .chain(scenario.repos.iter().flat_map(|r| {
                r.pulls
                    .iter()
                    .flat_map(|p| p.review_threads.iter().flat_map(|t| t.comments.iter()))
                    .filter_map(|c| c.id)
            }))
            .max()
            .unwrap_or(0);
        world.next_comment_id = world.next_comment_id.max(explicit_max + 1);
        let explicit_review_max = scenario
            .repos
            .iter()
            .flat_map(|r| r.pulls.iter().flat_map(|p| p.reviews.iter()))
            .filter_map(|r| r.id)
            .max()
            .unwrap_or(0);
        world.next_review_id = world.next_review_id.max(explicit_review_max + 1);

        for t in &scenario.tokens {
            world.ensure_user(&t.login);
        }
        for (index, spec) in scenario.repos.into_iter().enumerate() {
            world.ensure_user(&spec.owner);
            let commit_authors = spec.contents.iter().flat_map(|c| c.commits.iter());
            for login in commit_authors.filter_map(|c| c.author.as_deref()) {
                world.ensure_user(login);
            }
            let mut conversations = BTreeMap::new();
            let mut reviews = Vec::new();
            let mut threads = Vec::new();
            for pull in &spec.pulls {
                world.materialize_reviews(pull, &mut reviews, &mut threads);
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
                            minimized: None,
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
                reviews,
                threads,
                git_tips: BTreeMap::new(),
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
                    minimized: c.minimized.clone(),
                }
            })
            .collect()
    }

    /// Reviews and threads of one pull request, from the scenario's lists and generators.
    fn materialize_reviews(
        &mut self,
        pull: &PullSpec,
        reviews: &mut Vec<Review>,
        threads: &mut Vec<Thread>,
    ) {
        for r in &pull.reviews {
            self.ensure_user(&r.author);
            let id = r.id.unwrap_or_else(|| self.take_review_id());
            reviews.push(Review {
                id,
                pull: pull.number,
                author: r.author.clone(),
                state: r.state.clone(),
                body: r.body.clone(),
                submitted_at: r.submitted_at.as_deref().map(normalize_time),
                commit_id: r.commit_id.clone().unwrap_or_else(|| pull.head.sha.clone()),
                minimized: r.minimized.clone(),
                official: r.official,
            });
        }
        let mut specs: Vec<ReviewThreadSpec> = pull.review_threads.clone();
        if let Some(g) = &pull.generate_threads {
            let start = g
                .start_at
                .as_deref()
                .or(Some(pull.created_at.as_str()))
                .and_then(parse_rfc3339)
                .unwrap_or(0);
            let every = g.unresolved_every.max(1);
            for n in 1..=g.count {
                let resolved = n % every != 0;
                specs.push(ReviewThreadSpec {
                    id: None,
                    path: g.path.replace("{n}", &n.to_string()),
                    line: Some(u64::from(n)),
                    start_line: None,
                    side: None,
                    subject_type: None,
                    resolved,
                    resolved_by: resolved
                        .then(|| g.resolved_by.clone().unwrap_or_else(|| pull.author.clone())),
                    outdated: false,
                    review_id: g.review_id,
                    commit_id: None,
                    original_commit_id: None,
                    comments: vec![ThreadCommentSpec {
                        id: None,
                        author: Some(g.author.clone()),
                        body: g.body.replace("{n}", &n.to_string()),
                        created_at: format_rfc3339(start + g.interval_seconds * i64::from(n)),
                        updated_at: None,
                        diff_hunk: None,
                        reactions: BTreeMap::new(),
                        minimized: None,
                    }],
                    generate_replies: None,
                });
            }
        }
        for t in &specs {
            let thread = self.materialize_thread(pull, t, reviews);
            threads.push(thread);
        }
    }

    fn materialize_thread(
        &mut self,
        pull: &PullSpec,
        t: &ReviewThreadSpec,
        reviews: &mut Vec<Review>,
    ) -> Thread {
        let side = if t.side.as_deref() == Some("LEFT") {
            "LEFT"
        } else {
            "RIGHT"
        };
        let file_level = t.subject_type.as_deref() == Some("file") || t.line.is_none();
        let line = if file_level { None } else { t.line };
        let hunk = default_hunk(&t.path, line.unwrap_or(1));
        let mut specs: Vec<ThreadCommentSpec> = t.comments.clone();
        if let Some(g) = &t.generate_replies {
            specs.extend(generated_replies(g, t));
        }
        let mut comments = Vec::new();
        for (i, c) in specs.iter().enumerate() {
            if let Some(a) = &c.author {
                self.ensure_user(a);
            }
            let created_at = normalize_time(&c.created_at);
            // GitHub files each comment under a review: the thread's for the first, and a
            // COMMENTED review of its own for a reply. Gitea files replies under the
            // conversation's review, which is how its UI groups them.
            let review_id = match (i, t.review_id) {
                (0, Some(r)) => r,
                (_, _) if i > 0 && self.flavor.is_gitea_family() => comments
                    .first()
                    .map(|f: &ReviewComment| f.review_id)
                    .unwrap_or(0),
                _ => {
                    let id = self.take_review_id();
                    reviews.push(Review {
                        id,
                        pull: pull.number,
                        author: c.author.clone().unwrap_or_default(),
                        state: "COMMENTED".to_owned(),
                        body: String::new(),
                        submitted_at: Some(created_at.clone()),
                        commit_id: pull.head.sha.clone(),
                        minimized: None,
                        official: None,
                    });
                    id
                }
            };
            let resolved_by = (i == 0 && t.resolved).then(|| t.resolved_by.clone());
            if let Some(Some(login)) = &resolved_by {
                self.ensure_user(login);
            }
            comments.push(ReviewComment {
                id: c.id.unwrap_or_else(|| self.take_comment_id()),
                review_id,
                author: c.author.clone(),
                body: c.body.clone(),
                updated_at: c
                    .updated_at
                    .as_deref()
                    .map(normalize_time)
                    .unwrap_or_else(|| created_at.clone()),
                created_at,
                diff_hunk: c.diff_hunk.clone().unwrap_or_else(|| hunk.clone()),
                reactions: c.reactions.clone(),
                minimized: c.minimized.clone(),
                resolved_by,
            });
        }
        let database_id = self.take_thread_id();
        let commit_id = t.commit_id.clone().unwrap_or_else(|| pull.head.sha.clone());
        let original_commit_id = t.original_commit_id.clone().unwrap_or_else(|| {
            if t.outdated {
                pull.base.sha.clone()
            } else {
                commit_id.clone()
            }
        });
        Thread {
            node_id: t.id.clone().unwrap_or_else(|| {
                crate::github::node_id("PRRT", "PullRequestReviewThread", database_id)
            }),
            pull: pull.number,
            path: t.path.clone(),
            line,
            start_line: if file_level { None } else { t.start_line },
            side,
            file_level,
            outdated: t.outdated,
            commit_id,
            original_commit_id,
            comments,
        }
    }

    fn take_review_id(&mut self) -> u64 {
        let id = self.next_review_id;
        self.next_review_id += 1;
        id
    }

    fn take_thread_id(&mut self) -> u64 {
        let id = self.next_thread_id;
        self.next_thread_id += 1;
        id
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
        token.permission.can_push()
    }

    pub fn repo_index(&self, owner: &str, name: &str) -> Option<usize> {
        self.repos.iter().position(|r| {
            r.spec.owner.eq_ignore_ascii_case(owner) && r.spec.name.eq_ignore_ascii_case(name)
        })
    }

    /// Whether a caller (its login; `None` without a token) sees repository `r`: a private
    /// one needs a token, and one of its `visible_to` logins when the scenario lists them.
    pub fn repo_visible_to(&self, r: usize, login: Option<&str>) -> bool {
        let spec = &self.repos[r].spec;
        if !spec.private {
            return true;
        }
        match (login, &spec.visible_to) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(login), Some(logins)) => logins.iter().any(|l| l.eq_ignore_ascii_case(login)),
        }
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
            minimized: None,
        };
        if let Some(r) = self.repos.get_mut(repo) {
            r.conversations
                .entry(number)
                .or_default()
                .push(comment.clone());
        }
        self.touch_pull(repo, number);
        comment
    }

    /// A new comment or review makes a pull request "updated" (its `updated_at`), as on the
    /// forges. Resolving a thread does not: GitHub documents no such effect, so clients must
    /// not count on one.
    fn touch_pull(&mut self, repo: usize, number: u64) {
        let now = self.now();
        if let Some(p) = self
            .repos
            .get_mut(repo)
            .and_then(|r| r.spec.pulls.iter_mut().find(|p| p.number == number))
        {
            p.updated_at = Some(now);
        }
    }

    pub fn threads(&self, repo: usize, pull: u64) -> impl Iterator<Item = (usize, &Thread)> {
        self.repos
            .get(repo)
            .into_iter()
            .flat_map(|r| r.threads.iter().enumerate())
            .filter(move |(_, t)| t.pull == pull)
    }

    pub fn reviews(&self, repo: usize, pull: u64) -> impl Iterator<Item = &Review> {
        self.repos
            .get(repo)
            .into_iter()
            .flat_map(|r| r.reviews.iter())
            .filter(move |rv| rv.pull == pull)
    }

    /// Every review comment of a pull request in id order (GitHub's REST listing order).
    pub fn review_comments(&self, repo: usize, pull: u64) -> Vec<(usize, &ReviewComment)> {
        let mut all: Vec<(usize, &ReviewComment)> = self
            .threads(repo, pull)
            .flat_map(|(i, t)| t.comments.iter().map(move |c| (i, c)))
            .collect();
        all.sort_by_key(|(_, c)| c.id);
        all
    }

    /// The thread (index in the repository) holding a review comment.
    pub fn thread_of_comment(&self, repo: usize, comment_id: u64) -> Option<usize> {
        self.repos
            .get(repo)?
            .threads
            .iter()
            .position(|t| t.comments.iter().any(|c| c.id == comment_id))
    }

    /// (repository, thread index) of a GraphQL thread node id.
    pub fn thread_by_node_id(&self, node_id: &str) -> Option<(usize, usize)> {
        self.repos.iter().enumerate().find_map(|(r, repo)| {
            repo.threads
                .iter()
                .position(|t| t.node_id == node_id)
                .map(|i| (r, i))
        })
    }

    /// Appends a reply to a thread. GitHub files it under a new COMMENTED review; Gitea
    /// under the conversation's review.
    pub fn add_reply(
        &mut self,
        repo: usize,
        thread: usize,
        author: &str,
        body: &str,
    ) -> Option<ReviewComment> {
        let now = self.now();
        let id = self.take_comment_id();
        let gitea = self.flavor.is_gitea_family();
        let new_review = if gitea {
            None
        } else {
            Some(self.take_review_id())
        };
        let r = self.repos.get_mut(repo)?;
        let t = r.threads.get_mut(thread)?;
        let review_id = match new_review {
            Some(id) => id,
            None => t.comments.first().map(|c| c.review_id).unwrap_or(0),
        };
        let comment = ReviewComment {
            id,
            review_id,
            author: Some(author.to_owned()),
            body: body.to_owned(),
            created_at: now.clone(),
            updated_at: now.clone(),
            diff_hunk: t
                .comments
                .first()
                .map(|c| c.diff_hunk.clone())
                .unwrap_or_default(),
            reactions: BTreeMap::new(),
            resolved_by: None,
            minimized: None,
        };
        t.comments.push(comment.clone());
        let pull = t.pull;
        let commit_id = t.commit_id.clone();
        if !gitea {
            r.reviews.push(Review {
                id: review_id,
                pull,
                author: author.to_owned(),
                state: "COMMENTED".to_owned(),
                body: String::new(),
                submitted_at: Some(now),
                commit_id,
                minimized: None,
                official: None,
            });
        }
        self.touch_pull(repo, pull);
        Some(comment)
    }

    /// Marks one comment (Gitea) or a thread's first comment (GitHub) resolved or not;
    /// resolving an already resolved one keeps its resolver, as both forges do.
    pub fn set_resolved(
        &mut self,
        repo: usize,
        thread: usize,
        comment_id: Option<u64>,
        resolver: Option<&str>,
    ) {
        let Some(t) = self
            .repos
            .get_mut(repo)
            .and_then(|r| r.threads.get_mut(thread))
        else {
            return;
        };
        let target = match comment_id {
            Some(id) => t.comments.iter_mut().find(|c| c.id == id),
            None => t.comments.first_mut(),
        };
        if let Some(c) = target {
            match resolver {
                Some(login) => {
                    if c.resolved_by.is_none() {
                        c.resolved_by = Some(Some(login.to_owned()));
                    }
                }
                None => c.resolved_by = None,
            }
        }
    }

    /// The commit a branch of the repository points at, when the scenario shows the branch:
    /// the head of a pull request from that branch of this repository, else the base of one
    /// into it, else (for the default branch only) a fixed made-up commit. `None`: the
    /// repository has no such branch.
    pub fn branch_sha(&self, repo: usize, branch: &str) -> Option<String> {
        let r = self.repos.get(repo)?;
        let own = |b: &crate::scenario::BranchSpec| {
            b.repo.as_deref().is_none_or(|full| {
                full.eq_ignore_ascii_case(&format!("{}/{}", r.spec.owner, r.spec.name))
            })
        };
        let pulls = &r.spec.pulls;
        pulls
            .iter()
            .find(|p| p.head.ref_name == branch && own(&p.head))
            .map(|p| p.head.sha.clone())
            .or_else(|| {
                pulls
                    .iter()
                    .find(|p| p.base.ref_name == branch)
                    .map(|p| p.base.sha.clone())
            })
            .or_else(|| (r.spec.default_branch == branch).then(|| format!("{:0>40x}", r.id)))
    }

    /// Moves a pull request onto another base branch (whose commit is `sha`); the pull
    /// request counts as updated.
    pub fn set_base(&mut self, repo: usize, number: u64, base: &str, sha: &str) {
        if let Some(p) = self
            .repos
            .get_mut(repo)
            .and_then(|r| r.spec.pulls.iter_mut().find(|p| p.number == number))
        {
            p.base.ref_name = base.to_owned();
            p.base.sha = sha.to_owned();
        }
        self.touch_pull(repo, number);
    }

    /// A stable id for a pull request or issue (distinct from its number, like on the forges).
    pub fn conversation_id(&self, repo: usize, number: u64) -> u64 {
        let repo_id = self.repos.get(repo).map(|r| r.id).unwrap_or(0);
        repo_id * 100_000 + number
    }
}

/// Forgejo's major version (0 for anything else): `11.0.1+gitea-1.22.0` is 11.
fn forgejo_major(flavor: ForgeFlavor, version: &str) -> u64 {
    if flavor != ForgeFlavor::Forgejo {
        return 0;
    }
    version
        .trim_start_matches('v')
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// Gitea releases with the review-conversation endpoints: (resolve, reply).
fn gitea_capabilities(flavor: ForgeFlavor, version: &str) -> (bool, bool) {
    if flavor != ForgeFlavor::Gitea {
        return (false, false);
    }
    let mut parts = version
        .trim_start_matches('v')
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u64>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    let at_least = |m: u64| major > 1 || (major == 1 && minor >= m);
    (at_least(26), at_least(27))
}

/// A diff hunk ending at the commented line, like the ones GitHub stores with a comment.
fn default_hunk(path: &str, line: u64) -> String {
    let start = line.saturating_sub(2).max(1);
    let mut hunk = format!("@@ -{start},3 +{start},3 @@");
    for l in start..=line {
        hunk.push_str(&format!("\n {path} line {l}"));
    }
    hunk
}

fn generated_replies(g: &GenerateComments, t: &ReviewThreadSpec) -> Vec<ThreadCommentSpec> {
    let start = g
        .start_at
        .as_deref()
        .or(t.comments.last().map(|c| c.created_at.as_str()))
        .and_then(parse_rfc3339)
        .unwrap_or(0);
    (1..=g.count)
        .map(|n| ThreadCommentSpec {
            id: None,
            author: Some(g.author.clone()),
            body: g.body.replace("{n}", &n.to_string()),
            created_at: format_rfc3339(start + g.interval_seconds * i64::from(n)),
            updated_at: None,
            diff_hunk: None,
            reactions: BTreeMap::new(),
            minimized: None,
        })
        .collect()
}

/// A pull request's timestamps as both forges report them: `updated` defaults to `created`,
/// a closed or merged pull request's `closed_at` to its merge time, then to `updated`.
pub(crate) struct PullTimes {
    pub created: String,
    pub updated: String,
    pub merged: bool,
    pub closed_at: Option<String>,
}

pub(crate) fn pull_times(p: &PullSpec) -> PullTimes {
    let created = normalize_time(&p.created_at);
    let updated = p
        .updated_at
        .as_deref()
        .map(normalize_time)
        .unwrap_or_else(|| created.clone());
    let closed_at = match p.state {
        PullState::Open => None,
        _ => Some(
            p.closed_at
                .as_deref()
                .or(p.merged_at.as_deref())
                .map(normalize_time)
                .unwrap_or_else(|| updated.clone()),
        ),
    };
    PullTimes {
        created,
        updated,
        merged: p.state == PullState::Merged,
        closed_at,
    }
}

/// Scenario times may carry offsets or fractions; the forges answer in UTC seconds.
pub(crate) fn normalize_time(t: &str) -> String {
    parse_rfc3339(t)
        .map(format_rfc3339)
        .unwrap_or_else(|| t.to_owned())
}
