//! What the contents reads of `Repository` accept as a revision and as a path, checked the
//! same way for every forge before anything is sent.

use crate::{Error, Result};

/// A revision is sent inside a GraphQL expression (`REV:PATH`) or a query parameter: it must
/// be non-empty and hold no `:`, whitespace or control characters (no commit id, branch or
/// tag name git accepts has them).
pub(crate) fn check_rev(rev: &str) -> Result<()> {
    let bad = rev.is_empty()
        || rev.len() > 255
        || rev.starts_with('-')
        || rev
            .chars()
            .any(|c| c == ':' || c.is_whitespace() || c.is_control());
    if bad {
        return Err(Error::usage(format!("{rev:?} is not a revision"))
            .with_detail("field", "rev")
            .with_suggestion(
                "Pass a commit id (such as the pull request's head or base commit).",
            ));
    }
    Ok(())
}

/// A path is a file's path in the repository as git lists it: relative, `/`-separated, no
/// empty, `.` or `..` segments, no NUL.
pub(crate) fn check_path(path: &str) -> Result<()> {
    let bad = path.is_empty()
        || path.contains('\0')
        || path
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..");
    if bad {
        return Err(
            Error::usage(format!("{path:?} is not a file path in a repository"))
                .with_detail("field", "paths")
                .with_suggestion(
                    "Pass paths relative to the repository root, such as src/main.rs, as the pull \
                 request's files list them.",
                ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_and_paths() {
        for good in ["0123abcd", "main", "feature/x", "v1.2.3"] {
            check_rev(good).unwrap();
        }
        for bad in ["", "a:b", "a b", "-x", "a\nb"] {
            assert!(
                matches!(check_rev(bad), Err(Error::Usage { .. })),
                "{bad:?}"
            );
        }
        for good in [
            "src/lib.rs",
            "a;rm -rf ~",
            "$(id)",
            "-x",
            "dir/with space/f.txt",
        ] {
            check_path(good).unwrap();
        }
        for bad in ["", "/abs", "a//b", "a/", "../etc/passwd", "a/./b", "nul\0"] {
            assert!(
                matches!(check_path(bad), Err(Error::Usage { .. })),
                "{bad:?}"
            );
        }
    }
}
