//! Paths an agent gives and an answer names: files and directories inside the workspace,
//! and how a path is shown (relative to the workspace, or by where it lives outside it).

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};

/// A file inside the workspace: relative to it, or absolute within it.
pub fn file_in(workspace: &Path, file_path: &str, field: &str) -> Result<PathBuf> {
    let canonical = path_in(workspace, file_path, field)?;
    if !canonical.is_file() {
        return Err(Error::user(format!("{file_path} is not a file"))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", field));
    }
    Ok(canonical)
}

/// A file or directory inside the workspace, canonical.
pub fn path_in(workspace: &Path, file_path: &str, field: &str) -> Result<PathBuf> {
    let joined = workspace.join(file_path);
    let canonical = joined.canonicalize().map_err(|e| {
        Error::user(format!(
            "{file_path} cannot be read in {}: {e}",
            workspace.display()
        ))
        .with_code(ErrorCode::InvalidPath)
        .with_detail("field", field)
        .with_suggestion("Give the path relative to the workspace (directory).")
    })?;
    if !canonical.starts_with(workspace) {
        return Err(Error::user(format!(
            "{file_path} is outside the workspace {}",
            workspace.display()
        ))
        .with_code(ErrorCode::InvalidPath)
        .with_detail("field", field));
    }
    Ok(canonical)
}

/// Relative to the workspace with `/`, or absolute when outside it.
pub fn display_path(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => outside_path(path),
    }
}

/// A path outside the checkout (a toolchain's or a dependency's source, where a definition
/// or a callee may be), shortened to what names it: the standard library or package
/// directory it is in and the path below, not the machine's home and install layout.
fn outside_path(path: &Path) -> String {
    let full = path.to_string_lossy();
    const PLACES: [(&str, &str); 6] = [
        ("/lib/rustlib/src/rust/library/", "<rust std>/"),
        ("/registry/src/", "<cargo registry>/"),
        ("/node_modules/", "<node_modules>/"),
        ("/site-packages/", "<site-packages>/"),
        ("/typeshed-fallback/", "<typeshed>/"),
        ("/pkg/mod/", "<go modules>/"),
    ];
    for (marker, name) in PLACES {
        if let Some(at) = full.rfind(marker) {
            let mut rest = &full[at + marker.len()..];
            // The registry's index directory (`index.crates.io-…/`) says nothing.
            if marker == "/registry/src/" {
                rest = rest.split_once('/').map_or(rest, |(_, r)| r);
            }
            return format!("{name}{rest}");
        }
    }
    full.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_outside_the_checkout_is_named_by_where_it_lives() {
        let ws = Path::new("/work/checkout");
        let cases = [
            (
                "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/core/src/result.rs",
                "<rust std>/core/src/result.rs",
            ),
            (
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde-1.0.0/src/lib.rs",
                "<cargo registry>/serde-1.0.0/src/lib.rs",
            ),
            (
                "/work/checkout/node_modules/vitest/dist/index.d.ts",
                "node_modules/vitest/dist/index.d.ts",
            ),
            (
                "/home/u/.nvm/lib/node_modules/typescript/lib/lib.es5.d.ts",
                "<node_modules>/typescript/lib/lib.es5.d.ts",
            ),
            ("/usr/include/stdio.h", "/usr/include/stdio.h"),
        ];
        for (path, shown) in cases {
            assert_eq!(display_path(ws, Path::new(path)), shown);
        }
    }
}
