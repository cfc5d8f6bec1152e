//! Paths and `file://` URIs, both ways, with percent-encoding: lsp-types' `Uri` has no path
//! conversion of its own.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

use crate::error::{Error, Result};

/// The URI of an absolute path.
pub fn from_path(path: &Path) -> Result<Uri> {
    let url = url::Url::from_file_path(path).map_err(|()| Error::InvalidPath {
        path: path.to_owned(),
        message: format!("{} is not an absolute path", path.display()),
    })?;
    Uri::from_str(url.as_str()).map_err(|e| Error::InvalidPath {
        path: path.to_owned(),
        message: format!("{} has no valid URI: {e}", path.display()),
    })
}

/// The path of a `file://` URI; `None` for other schemes (a server's virtual documents).
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    url::Url::parse(uri.as_str()).ok()?.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_paths_with_spaces_and_non_ascii() {
        for p in ["/a/b c/d.rs", "/tmp/ünï/cödé.py", "/x/%41.ts", "/r/a#b?.c"] {
            let uri = from_path(Path::new(p)).unwrap();
            assert!(uri.as_str().starts_with("file:///"), "{}", uri.as_str());
            assert_eq!(to_path(&uri).unwrap(), PathBuf::from(p));
        }
    }

    #[test]
    fn refuses_relative_paths_and_other_schemes() {
        assert!(from_path(Path::new("src/lib.rs")).is_err());
        assert!(to_path(&Uri::from_str("untitled:Untitled-1").unwrap()).is_none());
    }
}
