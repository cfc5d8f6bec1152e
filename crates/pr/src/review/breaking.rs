//! The public API a change removed or changed, through `resolve-pr-syntax`.

use resolve_pr_syntax::{ApiChange, compare, dialect_of, reads_exports};

/// The exports of the file at `path` that `after` removed or changed from `before`
/// (additions are not breaking and are left out), in the order
/// [`resolve_pr_syntax::compare`] gives.
///
/// `None` when no comparison can be made: the path's language is not one whose exports
/// are read ([`dialect_of`], [`reads_exports`]), or either version has a
/// syntax error (a declaration the parser could not read would otherwise look removed).
pub fn breaking_changes(path: &str, before: &str, after: &str) -> Option<Vec<ApiChange>> {
    let language = dialect_of(path).filter(|l| reads_exports(*l))?;
    let changes = compare(language, before, after).ok()?;
    Some(
        changes
            .into_iter()
            .filter(|c| !matches!(c, ApiChange::Added { .. }))
            .collect(),
    )
}
