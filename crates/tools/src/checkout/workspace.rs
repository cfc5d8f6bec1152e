//! The directory a code tool reads: `directory`, else the server's working directory.

use std::path::PathBuf;

use resolve_pr_core::{Error, ErrorCode, Result};

use crate::Context;

/// The code tools' workspace: `directory`, else the server's working directory; canonical.
/// Refused to callers on other machines, whose paths are not the server's.
pub(crate) fn workspace(ctx: &Context, directory: Option<&str>) -> Result<PathBuf> {
    if ctx.local.remote_callers {
        return Err(Error::user(
            "the code tools read a checkout on the server's machine, which callers of a shared \
             (HTTP) server cannot name",
        )
        .with_code(ErrorCode::NotAvailableRemotely)
        .with_suggestion("Run resolve-pr over stdio on the machine that has the checkout."));
    }
    let dir = match directory {
        Some(d) => PathBuf::from(d),
        None => ctx.local.cwd.clone().ok_or_else(|| {
            Error::user("no directory was given and the server has no working directory")
                .with_code(ErrorCode::InvalidPath)
                .with_detail("field", "directory")
        })?,
    };
    let canonical = dir.canonicalize().map_err(|e| {
        Error::user(format!("directory {} cannot be read: {e}", dir.display()))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", "directory")
    })?;
    if !canonical.is_dir() {
        return Err(Error::user(format!("{} is not a directory", dir.display()))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", "directory"));
    }
    Ok(canonical)
}
