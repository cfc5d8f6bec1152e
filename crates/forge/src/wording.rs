//! How both clients name a pull request in errors, so an agent reads the same words whichever
//! forge failed.

use resolve_pr_core::PrRef;

/// "pull request owner/repo#N", the subject of error messages.
pub(crate) fn subject(pr: &PrRef) -> String {
    format!(
        "pull request {}/{}#{}",
        pr.repo.owner, pr.repo.repo, pr.number
    )
}

/// What to check when a pull request is "not found".
pub(crate) fn not_found_hint(pr: &PrRef) -> String {
    format!(
        "Check the reference: {}/{}#{} may be an issue rather than a pull request, the \
         repository may not exist or be renamed, or the token cannot see a private repository.",
        pr.repo.owner, pr.repo.repo, pr.number
    )
}
