//! What a pull request touches and who should look at it, as pure functions of what the
//! forge reports (changed files, commit histories, closed pull requests, the code owners
//! file, manifests' texts): no I/O, deterministic, and every score or level comes with
//! `reasons` that state its numbers.
//!
//! - [`impact_areas`] / [`risk_factors`]: files by area ([`AreaRules`]) and how risky the
//!   change is.
//! - [`CodeOwners`]: the code owners file in GitHub's or Gitea/Forgejo's semantics.
//! - [`suggest_reviewers`]: code owners, then recent committers.
//! - [`dependency_files`] / [`dependency_updates`]: manifests and lockfiles, and what changed
//!   in them.
//! - [`similar_prs`]: closed pull requests that touched the same ground.
//!
//! # Areas
//!
//! Rules are ordered; the first rule with a glob matching a path decides its area, and a
//! path no rule matches is `other`. The config file's `[[impact.areas]]` rules come first
//! ([`AreaRules::with_overrides`]), then this built-in table. Globs are gitignore-like
//! (`resolve_pr_forge::area_globs`): without a `/` they match at any depth, a
//! trailing `/` means everything under that directory.
//!
//! | order | area | globs |
//! |---|---|---|
//! | 0 | other | `vendor/` `third_party/` `node_modules/` `*.min.js` `*.min.css` (someone else's code) |
//! | 1 | dependencies | `Cargo.toml` `Cargo.lock` `package.json` `package-lock.json` `npm-shrinkwrap.json` `yarn.lock` `pnpm-lock.yaml` `requirements*.txt` `pyproject.toml` `poetry.lock` `uv.lock` `Pipfile` `Pipfile.lock` `go.mod` `go.sum` `Gemfile` `Gemfile.lock` `composer.json` `composer.lock` |
//! | 2 | tests | `tests/` `test/` `__tests__/` `spec/` `testdata/` `fixtures/` `*_test.go` `*_test.rs` `test_*.py` `*_test.py` `conftest.py` `*.test.*` `*.spec.*` |
//! | 3 | infrastructure | `.github/workflows/` `.gitea/workflows/` `.forgejo/workflows/` `.circleci/` `.gitlab-ci.yml` `Jenkinsfile` `Dockerfile*` `*.dockerfile` `docker-compose*.yml` `docker-compose*.yaml` `compose.yml` `compose.yaml` `*.tf` `*.tfvars` `terraform/` `k8s/` `kubernetes/` `helm/` `charts/` `deploy/` `infra/` `ansible/` |
//! | 4 | database | `migrations/` `migrate/` `alembic/` `*.sql` `*.prisma` `db/schema.rb` |
//! | 5 | docs | `docs/` `doc/` `*.md` `*.mdx` `*.rst` `*.adoc` `LICENSE*` `CHANGELOG*` |
//! | 6 | config | `*.config.js` `*.config.ts` `*.config.mjs` `*.config.cjs` `*.toml` `*.yaml` `*.yml` `*.ini` `*.cfg` `*.conf` `.env*` `.*rc` `.editorconfig` `.gitignore` `.gitattributes` `tsconfig*.json` `Makefile` |
//! | 7 | frontend | `*.tsx` `*.jsx` `*.ts` `*.js` `*.mjs` `*.cjs` `*.vue` `*.svelte` `*.css` `*.scss` `*.sass` `*.less` `*.html` |
//! | 8 | backend | `*.rs` `*.go` `*.py` `*.java` `*.kt` `*.scala` `*.rb` `*.php` `*.cs` `*.c` `*.h` `*.cc` `*.cpp` `*.hpp` `*.ex` `*.exs` `*.erl` `*.hs` `*.swift` `*.proto` |
//! | 9 | frontend | `frontend/` `web/` `ui/` (what no language rule placed: the language decides first) |
//!
//! # Risk
//!
//! A level is the highest of what applies, each one a reason:
//!
//! - size: lines added plus deleted, and files: medium from 300 lines or 10 files, high
//!   from 1,000 lines or 30 files (per area in [`impact_areas`], for the whole change in
//!   [`risk_factors`]); tests added make a change no riskier, so of a `tests` file only its
//!   deleted lines count, and the file only when it has some;
//! - sensitive paths (the path, or the path before a rename): database migrations (a
//!   `migrations`, `migration`, `migrate` or `alembic` directory) and security-sensitive
//!   code (a path word in [`SECURITY_WORDS`]: `auth`, `crypto`, `secrets`, …) are high; CI
//!   workflows, dependency manifests and lockfiles, public API files (`lib.rs`, `index.ts`,
//!   `__init__.py`, `*.proto`, `*.d.ts`, OpenAPI and GraphQL schemas) and infrastructure
//!   (`Dockerfile`, compose files, Terraform, `k8s`/`helm`/`charts`/`ansible` directories)
//!   are medium;
//! - a config rule's `risk`, as the minimum of the files it placed.

mod areas;
mod deps;
mod owners;
mod reviewers;
mod similar;

pub use areas::{
    Area, AreaRules, HIGH_FILES, HIGH_LINES, ImpactArea, MEDIUM_FILES, MEDIUM_LINES, Risk,
    RiskFactor, SECURITY_WORDS, impact_areas, risk_factors,
};
pub use deps::{
    DependencyUpdate, Ecosystem, UpdateKind, dependency_files, dependency_updates, ecosystem_of,
    is_lockfile, prefer_lockfiles, try_dependency_updates,
};
pub use owners::{CodeOwners, OwnersError, OwnersMatch};
pub use reviewers::{Reviewer, suggest_reviewers};
pub use similar::{DIRECTORY_WEIGHT, PATH_WEIGHT, SimilarPr, similar_prs};

#[cfg(test)]
mod tests;
