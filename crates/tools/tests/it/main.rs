//! The tools' integration tests: each tool called against the forge simulator, real git
//! repositories and real language servers, one module per area, linked as one test binary
//! (`cargo test -p resolve-pr-tools --test it`; one area: `-- code_navigation::`).

#[macro_use]
mod common;
mod analysis_tools;
mod code_analysis;
mod code_navigation;
mod code_on_this_repo;
mod comment_edit_installation_token;
mod comment_tools;
mod contract;
mod credentials;
mod failing_tests;
mod git_tools;
mod internal_files;
mod internal_lsp;
mod issue_list_bound;
mod issue_tools;
mod merge_tools;
mod pr_get_state;
mod pr_list_forks;
mod pull_tools;
mod refactor_tools;
mod review_tools;
mod unresolved_edge_cases;
mod workspace_tools;
