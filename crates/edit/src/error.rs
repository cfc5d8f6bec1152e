use std::path::PathBuf;

use resolve_pr_core::{Error as CoreError, ErrorCode};
use resolve_pr_source::ChangeError;

/// Why a plan could not be made, applied or undone. Nothing was left half-written: an
/// apply that fails rolls back, and one that cannot roll back says which files to check.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("`{path}` is outside the checkout {root}: plans only touch files inside it")]
    Outside { path: String, root: PathBuf },
    #[error(
        "`{path}` is a symbolic link (or lies under one): edits follow none, so edit the file it points to"
    )]
    Symlink { path: String },
    #[error("the change cannot apply to the checkout: {0}")]
    Change(#[from] ChangeError),
    #[error("{}", plan_not_found(id, elsewhere.as_ref()))]
    PlanNotFound {
        id: String,
        elsewhere: Option<PathBuf>,
    },
    #[error(
        "`{path}` changed since plan {plan} was made (recorded {expected}, now {actual}): make the plan again"
    )]
    ChecksumMismatch {
        plan: String,
        path: String,
        expected: String,
        actual: String,
    },
    #[error("`{path}` exists now but did not when plan {plan} was made: make the plan again")]
    Stale { plan: String, path: String },
    #[error("plan {id} is a {found}, not a {expected}: apply it with the tool that made it")]
    InvalidPlanType {
        id: String,
        found: String,
        expected: String,
    },
    #[error("no snapshot {id} in this checkout (the ids are in apply answers)")]
    SnapshotNotFound { id: String },
    #[error("snapshot {id} was undone already")]
    SnapshotUndone { id: String },
    #[error(
        "undoing {id} would overwrite changes made since it was applied, in {}: pass force to undo anyway",
        paths.join(", ")
    )]
    SnapshotStale { id: String, paths: Vec<String> },
    #[error("another apply holds {root}: call again when it ends")]
    Busy { root: PathBuf },
    #[error("writing `{path}` failed ({source}); every file was rolled back to what it was")]
    WriteFailed {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "rolling back failed at `{path}` ({source}); the contents before are kept in {journal}, and the next start tries again"
    )]
    RollbackFailed {
        path: String,
        journal: PathBuf,
        source: std::io::Error,
    },
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the state file {path} is damaged ({message}); delete it to start afresh")]
    Damaged { path: PathBuf, message: String },
}

fn plan_not_found(id: &str, elsewhere: Option<&PathBuf>) -> String {
    match elsewhere {
        Some(root) => format!(
            "plan {id} belongs to another checkout ({}): apply it there, or plan again here",
            root.display()
        ),
        None => format!(
            "no plan {id} in this checkout's store (plans are kept 7 days): make the plan again"
        ),
    }
}

impl Error {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            what,
            path: path.into(),
            source,
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Outside { .. } | Error::Symlink { .. } => ErrorCode::InvalidPath,
            Error::Change(_) => ErrorCode::ApplyFailed,
            Error::PlanNotFound { .. } | Error::Stale { .. } => ErrorCode::StalePlan,
            Error::ChecksumMismatch { .. } => ErrorCode::ChecksumMismatch,
            Error::InvalidPlanType { .. } => ErrorCode::InvalidPlanType,
            Error::SnapshotNotFound { .. } => ErrorCode::SnapshotNotFound,
            Error::SnapshotUndone { .. } | Error::SnapshotStale { .. } => ErrorCode::StalePlan,
            Error::Busy { .. } => ErrorCode::CheckoutBusy,
            Error::WriteFailed { .. } => ErrorCode::ApplyFailed,
            Error::RollbackFailed { .. } => ErrorCode::RollbackFailed,
            Error::Io { .. } | Error::Damaged { .. } => ErrorCode::IoError,
        }
    }

    /// The product's categorized error, with the file and what to do in its details.
    pub fn to_core(&self) -> CoreError {
        let base = match self {
            Error::Io { .. } | Error::Damaged { .. } | Error::RollbackFailed { .. } => {
                CoreError::unknown(self.to_string())
            }
            Error::Busy { .. } => CoreError::timeout(self.to_string()).with_retry_after(2),
            _ => CoreError::user(self.to_string()),
        };
        let err = base.with_code(self.code());
        match self {
            Error::ChecksumMismatch { path, .. }
            | Error::Stale { path, .. }
            | Error::Outside { path, .. }
            | Error::Symlink { path }
            | Error::WriteFailed { path, .. }
            | Error::RollbackFailed { path, .. } => err.with_detail("file_path", path.clone()),
            Error::SnapshotStale { paths, .. } => err.with_detail("files", paths.clone()),
            _ => err,
        }
    }
}
