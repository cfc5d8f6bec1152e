//! `Repository`'s contents reads (a pull request's files and commits, file texts, path
//! history, recently closed pull requests, code owners) on GitHub and Forgejo against the
//! simulator's impact scenarios, which hold the same repository for both forges. The request
//! log proves what each call costs; every answer is checked against the forges' descriptions.

use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::{PrRef, RepoRef};
use resolve_pr_forge::config::{ForgejoEndpoint, GitHubEndpoint, Secret};
use resolve_pr_forge::repository::{ChangedFile, FileStatus, OwnersSyntax};
use resolve_pr_forge::{ClientOptions, Error, Forge, ForgeKind, Forgejo, GitHub, RetryPolicy};
use resolve_pr_forge_sim::{Fault, FaultKind, RecordedRequest, Scenario, Sim, SimHandle};

const BASE: &str = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0";
const HEAD: &str = "a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    GitHub,
    Forgejo,
}

const BOTH: [Flavor; 2] = [Flavor::GitHub, Flavor::Forgejo];

fn options() -> ClientOptions {
    ClientOptions {
        retry: RetryPolicy {
            max_retries: 2,
            max_total_wait: Duration::from_secs(2),
            min_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
        },
        request_timeout: Duration::from_secs(5),
        env: Arc::new(|_| None),
        gh_cli: false,
        ..ClientOptions::default()
    }
}

fn client(sim: &SimHandle, flavor: Flavor, token: &str) -> Arc<dyn Forge> {
    let base = sim.base_url().trim_end_matches('/').to_owned();
    let host = base.trim_start_matches("http://").to_owned();
    match flavor {
        Flavor::GitHub => Arc::new(
            GitHub::with_options(
                GitHubEndpoint {
                    web_host: host,
                    api_url: base.clone(),
                    graphql_url: format!("{base}/graphql"),
                    token: Some(Secret::new(token)),
                    token_vars: &[],
                },
                options(),
            )
            .expect("client"),
        ),
        Flavor::Forgejo => Arc::new(
            Forgejo::with_options(
                ForgejoEndpoint {
                    host,
                    configured_kind: ForgeKind::Forgejo,
                    api_url: format!("{base}/api/v1"),
                    web_url: base,
                    token: Some(Secret::new(token)),
                    token_env: None,
                },
                options(),
            )
            .expect("client"),
        ),
    }
}

struct Fixture {
    sim: SimHandle,
    forge: Arc<dyn Forge>,
    flavor: Flavor,
}

impl Fixture {
    async fn scenario(flavor: Flavor, scenario: Scenario, token: &str) -> Fixture {
        let sim = Sim::start(scenario).await.expect("the simulator starts");
        let forge = client(&sim, flavor, token);
        Fixture { sim, forge, flavor }
    }

    async fn impact(flavor: Flavor) -> Fixture {
        let (name, token) = match flavor {
            Flavor::GitHub => ("impact_github", "ghp_read"),
            Flavor::Forgejo => ("impact_forgejo", "fj_read"),
        };
        let scenario = Scenario::builtin(name).expect("built-in scenario");
        Fixture::scenario(flavor, scenario, token).await
    }

    fn repo(&self) -> RepoRef {
        RepoRef::parse("octo/app").expect("repository")
    }

    fn pr(&self, number: u64) -> PrRef {
        PrRef {
            repo: self.repo(),
            number,
        }
    }

    /// The requests since the last call, and clears the log.
    fn take_requests(&self) -> Vec<RecordedRequest> {
        let requests = self.sim.requests();
        self.sim.clear_requests();
        requests
    }

    fn assert_clean(&self) {
        assert_eq!(
            self.sim.contract_violations(),
            Vec::<String>::new(),
            "{:?}",
            self.flavor
        );
    }
}

fn by_path<'a>(files: &'a [ChangedFile], path: &str) -> &'a ChangedFile {
    files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} is not among {files:?}"))
}

#[tokio::test]
async fn the_impact_pull_requests_files_with_real_diffs() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let files = fx
            .forge
            .repository()
            .pull_files(&fx.pr(7), true)
            .await
            .expect("files");
        let workflow = match flavor {
            Flavor::GitHub => ".github/workflows/ci.yml",
            Flavor::Forgejo => ".forgejo/workflows/ci.yml",
        };
        let mut paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        let mut want = vec![
            "Cargo.lock",
            "Cargo.toml",
            "db/migrations/0042_add_users.sql",
            "docs/guide.md",
            "lib/util.py",
            "package-lock.json",
            "package.json",
            "src/auth/session.rs",
            "tests/auth_test.rs",
            "vendor/lib.min.js",
            "web/src/App.tsx",
            workflow,
        ];
        want.sort_unstable();
        assert_eq!(paths, want, "{flavor:?}");

        let migration = by_path(&files, "db/migrations/0042_add_users.sql");
        assert_eq!(migration.status, FileStatus::Added);
        assert_eq!((migration.additions, migration.deletions), (5, 0));
        let session = by_path(&files, "src/auth/session.rs");
        assert_eq!(session.status, FileStatus::Modified);
        assert!(session.additions > 0 && session.deletions > 0);
        let lock = by_path(&files, "Cargo.lock");
        assert_eq!((lock.additions, lock.deletions), (2, 2), "{flavor:?}");
        match flavor {
            // GitHub gives each file's hunks: the removed function and the new unsafe block.
            Flavor::GitHub => {
                let patch = session.patch.as_deref().expect("a patch");
                assert!(patch.starts_with("@@ "), "{patch}");
                assert!(patch.contains("\n-pub fn revoke(session: &Session) -> bool {"));
                assert!(patch.contains("\n+pub fn create(user: &str, ttl: Duration) -> Session {"));
                assert!(patch.contains("\n+    let first = unsafe { *bytes.as_ptr() };"));
                assert!(patch.contains("\n+    // TODO: use ttl once sessions expire"));
                let lock = lock.patch.as_deref().expect("a patch");
                assert!(
                    lock.contains("-version = \"0.2.25\"\n+version = \"1.35.0\""),
                    "{lock}"
                );
            }
            // Forgejo/Gitea's listing has no diff text: the whole diff gives each file
            // its hunks, the same as GitHub's.
            Flavor::Forgejo => {
                let patch = session.patch.as_deref().expect("a patch from the diff");
                assert!(patch.starts_with("@@ "), "{patch}");
                assert!(patch.contains("\n-pub fn revoke(session: &Session) -> bool {"));
                assert!(patch.contains("\n+    let first = unsafe { *bytes.as_ptr() };"));
                let lock = lock.patch.as_deref().expect("a patch");
                assert!(lock.contains("+version = \"1.35.0\""), "{lock}");
            }
        }
        let requests = fx.take_requests();
        let paths: Vec<&str> = requests.iter().map(|r| r.path.as_str()).collect();
        match flavor {
            Flavor::GitHub => assert_eq!(paths.len(), 1, "{paths:?}"),
            // The listing and the whole diff, at once.
            Flavor::Forgejo => assert_eq!(paths.len(), 2, "{paths:?}"),
        }
        assert!(paths[0].ends_with("/pulls/7/files"), "{paths:?}");
        // Without patches, the listing alone: Forgejo reads no diff.
        let bare = fx
            .forge
            .repository()
            .pull_files(&fx.pr(7), false)
            .await
            .expect("files");
        assert_eq!(bare.len(), files.len());
        let requests = fx.take_requests();
        assert_eq!(requests.len(), 1, "{flavor:?}: {requests:?}");
        fx.assert_clean();
    }
}

#[tokio::test]
async fn the_impact_pull_requests_commits_oldest_first() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let commits = fx
            .forge
            .repository()
            .pull_commits(&fx.pr(7))
            .await
            .expect("commits");
        let shas: Vec<String> = commits.iter().map(|c| c.sha[..2].to_owned()).collect();
        assert_eq!(shas, ["71", "72", "73"], "{flavor:?}");
        assert_eq!(
            commits[0].author.as_ref().map(|a| a.login.as_str()),
            Some("alice")
        );
        assert_eq!(commits[0].author_name, "Alice Author");
        assert!(commits[0].message.contains("#15"));
        assert!(commits[1].message.contains("#15"));
        // An email no account has: no account, the name from the commit.
        assert_eq!(commits[2].author, None, "{flavor:?}");
        assert_eq!(commits[2].author_name, "Alice (laptop)");
        assert_eq!(
            commits[2].authored_at,
            Some(resolve_pr_forge::parse_time("2024-06-09T11:00:00Z").unwrap())
        );
        assert_eq!(fx.take_requests().len(), 1);
        fx.assert_clean();
    }
}

#[tokio::test]
async fn file_texts_in_order_with_missing_binary_and_oversized_as_none() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let paths: Vec<String> = [
            "src/auth/session.rs",
            "assets/logo.png",
            "no/such/file.rs",
            "web/src/App.tsx",
            "src/auth",
        ]
        .map(String::from)
        .to_vec();
        let texts = fx
            .forge
            .repository()
            .file_texts(&fx.repo(), BASE, &paths, 1 << 20)
            .await
            .expect("texts");
        assert_eq!(texts.len(), 5);
        assert!(
            texts[0].as_deref().unwrap().contains("pub fn revoke("),
            "{flavor:?}"
        );
        assert_eq!(texts[1], None, "binary");
        assert_eq!(texts[2], None, "missing");
        assert!(texts[3].as_deref().unwrap().contains("LegacyBanner"));
        assert_eq!(texts[4], None, "a directory");
        let requests = fx.take_requests();
        match flavor {
            Flavor::GitHub => {
                assert_eq!(requests.len(), 1);
                assert_eq!(requests[0].graphql_points, Some(1));
            }
            // One raw read a path.
            Flavor::Forgejo => {
                assert_eq!(requests.len(), 5, "{requests:?}");
                assert!(requests.iter().all(|r| r.path.contains("/raw/")));
            }
        }

        // The head's version, and the same file over a size limit.
        let head = fx
            .forge
            .repository()
            .file_texts(&fx.repo(), HEAD, &paths[..1], 1 << 20)
            .await
            .expect("texts");
        assert!(!head[0].as_deref().unwrap().contains("pub fn revoke("));
        let small = fx
            .forge
            .repository()
            .file_texts(&fx.repo(), HEAD, &paths[..1], 100)
            .await
            .expect("texts");
        assert_eq!(small, vec![None], "{flavor:?}: over max_bytes");
        fx.assert_clean();
    }
}

#[tokio::test]
async fn file_texts_batch_fifty_paths_a_query_on_github() {
    let fx = Fixture::impact(Flavor::GitHub).await;
    let paths: Vec<String> = (0..120).map(|i| format!("gen/file_{i}.txt")).collect();
    let texts = fx
        .forge
        .repository()
        .file_texts(&fx.repo(), BASE, &paths, 1000)
        .await
        .expect("texts");
    assert_eq!(texts, vec![None; 120]);
    let requests = fx.take_requests();
    assert_eq!(requests.len(), 3, "50 + 50 + 20");
    assert!(requests.iter().all(|r| r.graphql_points == Some(1)));
    // Nothing asked, nothing sent.
    let none = fx
        .forge
        .repository()
        .file_texts(&fx.repo(), BASE, &[], 1000)
        .await
        .expect("texts");
    assert!(none.is_empty());
    assert!(fx.take_requests().is_empty());
    fx.assert_clean();
}

#[tokio::test]
async fn a_missing_revision_is_not_found_not_silence() {
    let missing = "dededededededededededededededededededede";
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let paths = vec!["src/auth/session.rs".to_owned()];
        let repository = fx.forge.repository();
        let e = repository
            .file_texts(&fx.repo(), missing, &paths, 1 << 20)
            .await
            .expect_err("no such revision");
        assert!(matches!(e, Error::NotFound { .. }), "{flavor:?}: {e:?}");
        let e = repository
            .code_owners(&fx.repo(), missing)
            .await
            .expect_err("no such revision");
        assert!(matches!(e, Error::NotFound { .. }), "{flavor:?}: {e:?}");
        let e = repository
            .recent_commits(&fx.repo(), missing, &paths, 5)
            .await
            .expect_err("no such revision");
        assert!(matches!(e, Error::NotFound { .. }), "{flavor:?}: {e:?}");
        fx.assert_clean();
    }
}

#[tokio::test]
async fn hostile_paths_and_revisions_are_harmless() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let repository = fx.forge.repository();
        // Odd but valid paths are sent as data and simply do not exist.
        let odd: Vec<String> = [
            "a;rm -rf ~",
            "$(id)",
            "-x",
            "x\" } } query { viewer { login",
            "q?ref=main#frag",
        ]
        .map(String::from)
        .to_vec();
        let texts = repository
            .file_texts(&fx.repo(), BASE, &odd, 1000)
            .await
            .expect("odd paths are paths");
        assert_eq!(texts, vec![None; odd.len()], "{flavor:?}");
        let histories = repository
            .recent_commits(&fx.repo(), BASE, &odd, 3)
            .await
            .expect("odd paths are paths");
        assert!(histories.iter().all(Vec::is_empty), "{flavor:?}");
        fx.take_requests();
        // Not paths or revisions at all: refused before anything is sent.
        for path in ["../etc/passwd", "/abs", "a//b", ""] {
            let e = repository
                .file_texts(&fx.repo(), BASE, &[path.to_owned()], 1000)
                .await
                .expect_err(path);
            assert!(matches!(e, Error::Usage { .. }), "{path:?}: {e:?}");
        }
        for rev in ["-x", "a:b", "", "main\nHEAD"] {
            let e = repository
                .code_owners(&fx.repo(), rev)
                .await
                .expect_err(rev);
            assert!(matches!(e, Error::Usage { .. }), "{rev:?}: {e:?}");
        }
        assert!(fx.take_requests().is_empty(), "{flavor:?}");
        fx.assert_clean();
    }
}

#[tokio::test]
async fn recent_commits_per_path_newest_first() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let paths = vec![
            "src/auth/session.rs".to_owned(),
            "lib/util.py".to_owned(),
            "nothing/here.txt".to_owned(),
        ];
        let histories = fx
            .forge
            .repository()
            .recent_commits(&fx.repo(), BASE, &paths, 10)
            .await
            .expect("histories");
        assert_eq!(histories.len(), 3);
        let session: Vec<(&str, &str)> = histories[0]
            .iter()
            .map(|c| {
                (
                    &c.sha[..2],
                    c.author.as_ref().map(|a| a.login.as_str()).unwrap_or("-"),
                )
            })
            .collect();
        assert_eq!(
            session,
            [
                ("e3", "erin"),
                ("13", "erin"),
                ("12", "erin"),
                ("11", "bob")
            ],
            "{flavor:?}"
        );
        assert_eq!(histories[0][3].author_name, "Bob Owner");
        assert_eq!(histories[1].len(), 1);
        assert!(histories[2].is_empty());
        // `per_path` bounds each list.
        fx.take_requests();
        let two = fx
            .forge
            .repository()
            .recent_commits(&fx.repo(), BASE, &paths[..1], 2)
            .await
            .expect("histories");
        assert_eq!(two[0].len(), 2);
        let requests = fx.take_requests();
        assert_eq!(requests.len(), 1);
        match flavor {
            Flavor::GitHub => assert_eq!(requests[0].graphql_points, Some(1)),
            Flavor::Forgejo => {
                let query = requests[0].query.as_deref().unwrap_or("");
                assert!(query.contains("limit=2"), "{query}");
                assert!(query.contains("path=src%2Fauth%2Fsession.rs"), "{query}");
            }
        }
        fx.assert_clean();
    }
}

#[tokio::test]
async fn recent_commits_cost_one_request_per_twenty_paths_on_github_and_one_per_path_on_forgejo() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let paths: Vec<String> = (0..25).map(|i| format!("gen/{i}.rs")).collect();
        let histories = fx
            .forge
            .repository()
            .recent_commits(&fx.repo(), BASE, &paths, 5)
            .await
            .expect("histories");
        assert_eq!(histories.len(), 25);
        let requests = fx.take_requests();
        let want = match flavor {
            Flavor::GitHub => 2,
            Flavor::Forgejo => 25,
        };
        assert_eq!(requests.len(), want, "{flavor:?}");
        // Zero commits a path asks nothing.
        let empty = fx
            .forge
            .repository()
            .recent_commits(&fx.repo(), BASE, &paths, 0)
            .await
            .expect("histories");
        assert_eq!(empty.len(), 25);
        assert!(fx.take_requests().is_empty());
        fx.assert_clean();
    }
}

#[tokio::test]
async fn recently_closed_pull_requests_with_their_paths() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let closed = fx
            .forge
            .repository()
            .recent_closed_pulls(&fx.repo(), 10)
            .await
            .expect("closed pulls");
        let summary: Vec<(u64, bool)> = closed.iter().map(|p| (p.number, p.merged)).collect();
        // Most recently updated first; the open #7 is not listed.
        assert_eq!(
            summary,
            [(6, true), (4, false), (5, true), (3, true)],
            "{flavor:?}"
        );
        let three = closed.iter().find(|p| p.number == 3).unwrap();
        assert_eq!(three.paths, ["lib/util.py", "src/auth/session.rs"]);
        assert_eq!(three.title, "auth: shorter session ids");
        assert_eq!(
            three.closed_at,
            Some(resolve_pr_forge::parse_time("2024-04-03T10:00:00Z").unwrap())
        );
        let four = closed.iter().find(|p| p.number == 4).unwrap();
        assert!(four.paths.contains(&"src/auth/session.rs".to_owned()));
        let requests = fx.take_requests();
        match flavor {
            Flavor::GitHub => {
                assert_eq!(requests.len(), 1);
                assert_eq!(requests[0].graphql_points, Some(1));
            }
            // The list, then each one's files.
            Flavor::Forgejo => assert_eq!(requests.len(), 1 + 4, "{requests:?}"),
        }
        // `limit` bounds the list.
        let one = fx
            .forge
            .repository()
            .recent_closed_pulls(&fx.repo(), 1)
            .await
            .expect("closed pulls");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].number, 6);
        fx.assert_clean();
    }
}

#[tokio::test]
async fn code_owners_from_each_forges_first_location() {
    for flavor in BOTH {
        let fx = Fixture::impact(flavor).await;
        let owners = fx
            .forge
            .repository()
            .code_owners(&fx.repo(), BASE)
            .await
            .expect("owners")
            .expect("a code owners file");
        match flavor {
            Flavor::GitHub => {
                assert_eq!(owners.path, ".github/CODEOWNERS");
                assert_eq!(owners.syntax, OwnersSyntax::GitHub);
                assert!(owners.text.contains("/src/auth/ @bob"));
            }
            Flavor::Forgejo => {
                assert_eq!(owners.path, "CODEOWNERS");
                assert_eq!(owners.syntax, OwnersSyntax::Gitea);
                assert!(owners.text.contains("src/auth/.* @bob"));
            }
        }
        assert!(owners.text.contains("@carol") && owners.text.contains("@dave"));
        assert_eq!(fx.take_requests().len(), 1, "{flavor:?}");
        fx.assert_clean();
    }
}

/// A repository whose code owners file is only in the last location, and one without any.
#[tokio::test]
async fn code_owners_in_the_last_location_or_nowhere() {
    for flavor in BOTH {
        let (forge, last) = match flavor {
            Flavor::GitHub => ("forge: github", "docs/CODEOWNERS"),
            Flavor::Forgejo => ("forge: forgejo", ".gitea/CODEOWNERS"),
        };
        let yaml = format!(
            "{forge}
tokens: [{{token: t, login: alice, permission: read}}]
repos:
  - owner: octo
    name: app
    contents:
      trees:
        {BASE}:
          files:
            {last}: \"* @zed\\n\"
            CODEOWNERS.md: \"not this one\\n\"
        {HEAD}:
          files:
            README.md: \"no owners\\n\"
"
        );
        let fx = Fixture::scenario(flavor, Scenario::from_yaml(&yaml).unwrap(), "t").await;
        let owners = fx
            .forge
            .repository()
            .code_owners(&fx.repo(), BASE)
            .await
            .expect("owners")
            .expect("found");
        assert_eq!(owners.path, last);
        assert_eq!(owners.text, "* @zed\n");
        let none = fx
            .forge
            .repository()
            .code_owners(&fx.repo(), HEAD)
            .await
            .expect("owners");
        assert_eq!(none, None, "{flavor:?}");
        fx.assert_clean();
    }
}

/// 250 files: three GitHub pages of 100, five Forgejo (and Gitea) pages of 50, in the
/// forge's order.
#[tokio::test]
async fn more_than_a_hundred_files_are_paged() {
    let flavors = [
        (Flavor::GitHub, "forge: github"),
        (Flavor::Forgejo, "forge: forgejo"),
        (Flavor::Forgejo, "forge: gitea\nversion: \"1.24.0\""),
    ];
    for (flavor, forge) in flavors {
        let mut yaml = format!(
            "{forge}
tokens: [{{token: t, login: alice, permission: read}}]
repos:
  - owner: octo
    name: app
    pulls:
      - {{number: 1, title: Many, author: alice, created_at: \"2024-01-01T00:00:00Z\",
         head: {{ref: many, sha: {HEAD}}}, base: {{ref: main, sha: {BASE}}}}}
    contents:
      trees:
        {BASE}:
          files:
            keep.txt: \"x\\n\"
            gone.txt: \"bye\\n\"
            old/name.txt: \"same\\n\"
        {HEAD}:
          based_on: {BASE}
          removed: [gone.txt]
          renamed: {{new/name.txt: old/name.txt}}
          files:
            new/name.txt: \"same\\n\"
"
        );
        for i in 0..247 {
            yaml += &format!("            gen/f{i:03}.txt: \"line {i}\\n\"\n");
        }
        let fx = Fixture::scenario(flavor, Scenario::from_yaml(&yaml).unwrap(), "t").await;
        let files = fx
            .forge
            .repository()
            .pull_files(
                &PrRef {
                    repo: fx.repo(),
                    number: 1,
                },
                true,
            )
            .await
            .expect("files");
        assert_eq!(files.len(), 249, "{flavor:?}");
        assert_eq!(files[0].path, "gen/f000.txt");
        assert_eq!(files[0].status, FileStatus::Added);
        let gone = by_path(&files, "gone.txt");
        assert_eq!((gone.status, gone.deletions), (FileStatus::Deleted, 1));
        let renamed = by_path(&files, "new/name.txt");
        assert_eq!(renamed.status, FileStatus::Renamed, "{flavor:?}");
        assert_eq!(renamed.previous_path.as_deref(), Some("old/name.txt"));
        let requests = fx.take_requests();
        let want = match flavor {
            Flavor::GitHub => 3,
            // Five pages of 50, and the whole diff.
            Flavor::Forgejo => 6,
        };
        assert_eq!(requests.len(), want, "{flavor:?}: {requests:?}");
        fx.assert_clean();
    }
}

#[tokio::test]
async fn the_big_review_has_forty_files_and_three_thousand_lines() {
    let scenario = Scenario::builtin("review_big_github").expect("built-in");
    let fx = Fixture::scenario(Flavor::GitHub, scenario, "ghp_write").await;
    let files = fx
        .forge
        .repository()
        .pull_files(&fx.pr(9), true)
        .await
        .expect("files");
    assert_eq!(files.len(), 40);
    let total: u64 = files.iter().map(|f| f.additions + f.deletions).sum();
    assert_eq!(total, 3001);
    let lock = by_path(&files, "package-lock.json");
    assert_eq!((lock.additions, lock.deletions), (1000, 1000));
    assert!(lock.patch.as_deref().unwrap().len() > 50_000);
    assert_eq!(fx.take_requests().len(), 1);
    fx.assert_clean();
}

#[tokio::test]
async fn graphql_errors_are_errors_not_empty_answers() {
    let fx = Fixture::impact(Flavor::GitHub).await;
    fx.sim.inject(Fault {
        method: Some("POST".into()),
        path: "/graphql".into(),
        times: 1,
        kind: FaultKind::GraphqlError {
            message: "Field 'object' is broken".into(),
            error_type: None,
            keep_data: false,
        },
    });
    let e = fx
        .forge
        .repository()
        .code_owners(&fx.repo(), BASE)
        .await
        .expect_err("the error");
    assert!(matches!(e, Error::InvalidBody { .. }), "{e:?}");
}

#[test]
fn built_documents_match_githubs_schema_and_cost_one_point() {
    use resolve_pr_forge::github::queries;
    for count in [1, 7, queries::FILE_TEXTS_PER_QUERY] {
        let doc = queries::file_texts(count);
        if let Err(problems) = resolve_pr_forge_sim::validate_graphql(&doc) {
            panic!("file_texts({count}) does not validate: {problems:?}");
        }
        assert_eq!(
            resolve_pr_forge_sim::graphql_points(&doc, &serde_json::json!({})).unwrap(),
            1
        );
    }
    for count in [1, queries::HISTORIES_PER_QUERY] {
        let doc = queries::path_histories(count);
        if let Err(problems) = resolve_pr_forge_sim::validate_graphql(&doc) {
            panic!("path_histories({count}) does not validate: {problems:?}");
        }
        let vars = serde_json::json!({"n": 100});
        assert_eq!(
            resolve_pr_forge_sim::graphql_points(&doc, &vars).unwrap(),
            1
        );
    }
    // Paths are variables: no path or revision text is ever part of a document.
    assert!(!queries::file_texts(3).contains(':'.to_string().repeat(2).as_str()));
    assert!(queries::file_texts(2).contains("f1: object(expression: $e1)"));
    let closed = serde_json::json!({"n": 50});
    assert_eq!(
        resolve_pr_forge_sim::graphql_points(queries::RECENT_CLOSED_PULLS, &closed).unwrap(),
        1
    );
}

/// A bot's commit: GitHub says so (`type: Bot`); Forgejo/Gitea have no such flag.
#[tokio::test]
async fn a_bots_commit_is_a_bots_on_github() {
    for flavor in BOTH {
        let (forge, bot) = match flavor {
            Flavor::GitHub => ("forge: github", "renovate[bot]"),
            Flavor::Forgejo => ("forge: forgejo", "renovate"),
        };
        let yaml = format!(
            "{forge}
tokens: [{{token: t, login: alice, permission: read}}]
repos:
  - owner: octo
    name: app
    pulls:
      - {{number: 2, title: Bump, author: \"{bot}\", created_at: \"2024-01-01T00:00:00Z\",
         head: {{ref: bump, sha: {HEAD}}}, base: {{ref: main, sha: {BASE}}}}}
    contents:
      commits:
        - {{sha: {HEAD}, message: \"Update serde\", author: \"{bot}\", authored_at: \"2024-01-01T00:00:00Z\", pull: 2, paths: [Cargo.lock]}}
"
        );
        let fx = Fixture::scenario(flavor, Scenario::from_yaml(&yaml).unwrap(), "t").await;
        let commits = fx
            .forge
            .repository()
            .pull_commits(&fx.pr(2))
            .await
            .expect("commits");
        let author = commits[0].author.clone().expect("an account");
        assert_eq!(author.login, bot);
        assert_eq!(author.is_bot, flavor == Flavor::GitHub, "{flavor:?}");
        assert_eq!(commits[0].author_name, bot);
        // In a path's history too; on GitHub a bot is no `User`, so the commit links to no
        // account there (GraphQL's GitActor.user), and the history still reads.
        let history = fx
            .forge
            .repository()
            .recent_commits(&fx.pr(2).repo, HEAD, &["Cargo.lock".to_owned()], 5)
            .await
            .expect("history");
        assert_eq!(history[0].len(), 1, "{history:?}");
        if flavor == Flavor::GitHub {
            assert_eq!(history[0][0].author, None);
            assert_eq!(history[0][0].author_name, bot);
        }
        fx.assert_clean();
    }
}
