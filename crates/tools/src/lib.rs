//! The tools agents call, one module per tool: its input and output types (serde + schemars,
//! so the schemas are derived from the code that reads and writes them) and one async
//! function. This crate knows nothing of MCP; `resolve-pr-mcp` and the CLI both call tools
//! through [`registry`], so a tool behaves the same however it is reached.

pub mod action_commands;
mod analyze;
mod arguments;
mod checkout;
mod code;
mod comments;
mod internal;
mod refactor;
pub mod registry;
mod schema;
mod shared;
pub mod vocabulary;
mod workspace;

// The registry: every tool's module and the type in it that implements `registry::Tool`, in
// the order tools/list shows them. Adding a tool is its module and one line here.
registry::tools! {
    pr_comment_list::PrCommentList,
    pr_comment_create::PrCommentCreate,
    pr_list::PrList,
    pr_get::PrGet,
    pr_comment_edit::PrCommentEdit,
    issue_list::IssueList,
    issue_comment_list::IssueCommentList,
    issue_comment_create::IssueCommentCreate,
    issue_comment_edit::IssueCommentEdit,
    find_unresolved_comments::FindUnresolvedComments,
    reply_to_review_thread::ReplyToReviewThread,
    resolve_review_thread::ResolveReviewThread,
    unresolve_review_thread::UnresolveReviewThread,
    get_failing_tests::GetFailingTests,
    detect_merge_conflicts::DetectMergeConflicts,
    manage_stacked_prs::ManageStackedPrs,
    check_merge_readiness::CheckMergeReadiness,
    analyze_pr_impact::AnalyzePrImpact,
    get_review_suggestions::GetReviewSuggestions,
    find_definition::FindDefinition,
    find_references::FindReferences,
    find_implementations::FindImplementations,
    find_type_definition::FindTypeDefinition,
    search_symbols::SearchSymbols,
    get_symbol_info::GetSymbolInfo,
    get_diagnostics::GetDiagnostics,
    get_call_hierarchy::GetCallHierarchy,
    health_check::HealthCheck,
    rename::Rename,
    extract::Extract,
    inline::Inline,
    transform::Transform,
    move_symbol::Move,
    delete::Delete,
    reorder::Reorder,
    find_replace::FindReplace,
    rollback::Rollback,
    analyze_quality::AnalyzeQuality,
    analyze_dead_code::AnalyzeDeadCode,
    analyze_dependencies::AnalyzeDependencies,
    analyze_cycles::AnalyzeCycles,
    analyze_structure::AnalyzeStructure,
    analyze_documentation::AnalyzeDocumentation,
    analyze_tests::AnalyzeTests,
    analyze_batch::AnalyzeBatch,
    analyze_module_dependencies::AnalyzeModuleDependencies,
    create_package::CreatePackage,
    update_members::UpdateMembers,
    extract_dependencies::ExtractDependencies,
    read_file::ReadFile,
    list_files::ListFiles,
    write_file::WriteFile,
    create_file::CreateFile,
    delete_file::DeleteFile,
    rename_file::RenameFile,
    rename_directory::RenameDirectory,
    move_directory::MoveDirectory,
    apply_workspace_edit::ApplyWorkspaceEdit,
    execute_edits::ExecuteEdits,
    execute_batch::ExecuteBatch,
    rename_symbol_with_imports::RenameSymbolWithImports,
    get_completions::GetCompletions,
    get_signature_help::GetSignatureHelp,
    notify_file_opened::NotifyFileOpened,
    notify_file_saved::NotifyFileSaved,
    notify_file_closed::NotifyFileClosed,
    update_dependency::UpdateDependency,
    update_dependencies::UpdateDependencies,
}

use std::sync::Arc;
use std::time::Duration;

pub use futures::future::BoxFuture;
use resolve_pr_core::CursorCodec;
use resolve_pr_core::RepoRef;
use resolve_pr_forge::{CredentialKey, Forge, Forges};

pub use checkout::LocalSettings;
pub use refactor::{recover_interrupted_applies, rope_installed, ruff_installed};
pub use registry::{Annotations, ToolOutput, ToolSpec, Toolset, all, call, find};
/// Whose credentials a call uses, for servers that set it per call (`Context::with_credential`).
pub use resolve_pr_forge::{Credential, Secret};

/// What every tool call may use. Built once per process; every call stands alone, and a
/// server sets per call what belongs to the call (its progress sink, its credential).
#[derive(Clone)]
pub struct Context {
    pub forges: Arc<Forges>,
    /// Whose credentials the call reaches forges with: the server's (stdio, CLI), or the
    /// caller's token (the HTTP transport, from the request's `Authorization` header).
    pub credential: Credential,
    pub cursors: CursorCodec,
    /// Where a long call reports how far it is (MCP progress notifications); set per call by
    /// the server when the client asked for progress.
    pub progress: Option<Arc<dyn ProgressSink>>,
    pub ci: CiSettings,
    /// Where the git tools find repositories: the git program, the working directory a call
    /// without `directory` looks in, the cache of managed clones.
    pub local: LocalSettings,
    /// The server runs with `--read-only`: tools that only write when asked (a restack's
    /// execute mode) refuse to.
    pub read_only: bool,
    /// The language servers the code tools ask (one per language and project root, kept
    /// warm); shared by every call of the process.
    pub lsp: resolve_pr_lsp::Pool,
    /// Failures found in completed jobs' logs, by job: a finished job's log never changes,
    /// so later pages and polls of a long-running server do not download it again. The pr
    /// layer's cache, held here because a `Context` lives as long as the process; read it
    /// through [`Context::job_cache`], which keys it by the call's credential.
    job_cache: resolve_pr_pr::JobCache,
    /// The latest merges `detect_merge_conflicts` computed, so its later pages read the
    /// same merge without running git again.
    pub(crate) merges: detect_merge_conflicts::MergeCache,
}

impl Context {
    pub fn new(forges: Arc<Forges>, cursors: CursorCodec) -> Self {
        Context {
            forges,
            credential: Credential::Server,
            cursors,
            progress: None,
            ci: CiSettings::default(),
            local: LocalSettings::default(),
            read_only: false,
            lsp: resolve_pr_lsp::Pool::new(resolve_pr_lsp::PoolConfig::from_env()),
            job_cache: Default::default(),
            merges: Default::default(),
        }
    }

    /// This context, reporting progress to `sink`.
    pub fn with_progress(&self, sink: Arc<dyn ProgressSink>) -> Self {
        Context {
            progress: Some(sink),
            ..self.clone()
        }
    }

    /// This context, reaching forges with `credential`. Everything cached stays shared; what
    /// holds forge data is keyed by credential, so nothing one credential read is served to
    /// another.
    pub fn with_credential(&self, credential: Credential) -> Self {
        Context {
            credential,
            ..self.clone()
        }
    }

    /// The client of the repository's forge, with the call's credential. Tools reach forges
    /// only through this.
    pub(crate) fn forge(&self, repo: &RepoRef) -> resolve_pr_forge::Result<Arc<dyn Forge>> {
        self.forges.for_repo_as(repo, &self.credential)
    }

    /// The job cache as the call's credential sees it.
    pub(crate) fn job_cache(&self) -> resolve_pr_pr::JobCache {
        match self.credential.key() {
            CredentialKey::Server => self.job_cache.clone(),
            CredentialKey::Token(fingerprint) => self.job_cache.scoped(fingerprint.as_str()),
        }
    }

    pub(crate) async fn report_progress(&self, progress: f64, total: Option<f64>, message: String) {
        if let Some(sink) = &self.progress {
            sink.report(progress, total, message).await;
        }
    }
}

/// Receives progress of a long call. `progress` grows with every report.
pub trait ProgressSink: Send + Sync {
    fn report(&self, progress: f64, total: Option<f64>, message: String) -> BoxFuture<'_, ()>;
}

/// How `get_failing_tests` waits and how much log it reads.
#[derive(Debug, Clone)]
pub struct CiSettings {
    /// First pause between polls in wait mode; it grows by half each poll up to `poll_max`.
    pub poll_min: Duration,
    pub poll_max: Duration,
    /// Wait mode gives up (and returns the state then) after this long.
    pub wait_cap: Duration,
    /// How long one call waits when its client sent no progress token and the caller gave
    /// no `max_wait_seconds`: clients built on the TypeScript SDK (MCP Inspector, many
    /// agents) abandon a request after 60 s unless progress resets their timer, so a call
    /// returns before that with `poll_info`, and the agent calls again.
    pub wait_without_progress: Duration,
    /// In wait mode, how long a commit may have no checks at all before the answer is
    /// `unknown` (CI takes a moment to register checks after a push).
    pub no_checks_grace: Duration,
    /// Of a longer job log only the last this many bytes are read.
    pub max_log_bytes: u64,
}

impl Default for CiSettings {
    fn default() -> Self {
        CiSettings {
            poll_min: Duration::from_secs(10),
            poll_max: Duration::from_secs(30),
            wait_cap: Duration::from_secs(30 * 60),
            wait_without_progress: Duration::from_secs(50),
            no_checks_grace: Duration::from_secs(120),
            max_log_bytes: 256 * 1024 * 1024,
        }
    }
}
