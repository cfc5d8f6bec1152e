//! The one walk of a checkout's files: what `.gitignore`, `.ignore` and `.git/info/exclude`
//! leave out is left out (also without a `.git`: a copied checkout ignores the same), `.git`
//! is never entered, links are not followed, entries come in file-name order (so a walk cut
//! at its limit keeps the same files on every machine), and it stops at the first file past
//! its limit, saying so.
//!
//! Two views of a checkout: [`Walk::sources`], the files a reader of code looks at (hidden
//! directories, dependencies, build output and virtual environments skipped even when no
//! ignore file says so), and [`Walk::checkout`], every file git would keep (hidden files
//! included), which a build reads and a search over the checkout searches.

use std::path::{Path, PathBuf};

use thiserror::Error;

/// Files a walk found, sorted, and whether it stopped at its limit with more left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walked {
    pub files: Vec<PathBuf>,
    pub more: bool,
}

/// A glob of a walk's include or exclude list that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{glob:?} is not a valid glob: {why}")]
pub struct GlobError {
    pub glob: String,
    pub why: String,
}

/// A walk of a checkout, built then run with [`Walk::files`] or [`Walk::paths`].
#[derive(Debug, Clone)]
pub struct Walk {
    root: PathBuf,
    start: PathBuf,
    sources_only: bool,
    max_depth: Option<usize>,
    include: Vec<String>,
    exclude: Vec<String>,
}

impl Walk {
    /// The files a reader of code looks at under `root`: hidden directories, dependency
    /// and build directories (`node_modules`, cargo's `target`, `build`, `dist`, `out`,
    /// `__pycache__`, `venv`, `vendor`) and Python or conda environments (whatever their
    /// name) are skipped besides what the ignore files leave out.
    pub fn sources(root: &Path) -> Walk {
        Walk {
            root: root.to_owned(),
            start: root.to_owned(),
            sources_only: true,
            max_depth: None,
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }

    /// Every file of the checkout at `root` that git would keep: hidden files included,
    /// ignored ones and `.git` left out.
    pub fn checkout(root: &Path) -> Walk {
        Walk {
            sources_only: false,
            ..Walk::sources(root)
        }
    }

    /// Walks only the directory `dir` (relative to the root, or absolute inside it); the
    /// root's ignore files still apply.
    pub fn under(mut self, dir: &Path) -> Walk {
        self.start = self.root.join(dir);
        self
    }

    /// Goes at most `depth` levels below where the walk starts.
    pub fn max_depth(mut self, depth: usize) -> Walk {
        self.max_depth = Some(depth);
        self
    }

    /// Keeps only the files matching one of `include` (if any is given) and none of
    /// `exclude`: gitignore-style globs relative to the root.
    pub fn globs(mut self, include: &[String], exclude: &[String]) -> Walk {
        self.include = include.to_vec();
        self.exclude = exclude.to_vec();
        self
    }

    /// The include and exclude globs as one matcher (none when neither is given).
    fn globs_matcher(&self) -> Result<Option<ignore::overrides::Override>, GlobError> {
        if self.include.is_empty() && self.exclude.is_empty() {
            return Ok(None);
        }
        let mut overrides = ignore::overrides::OverrideBuilder::new(&self.root);
        let bad = |glob: &str, e: ignore::Error| GlobError {
            glob: glob.to_owned(),
            why: e.to_string(),
        };
        for glob in &self.include {
            overrides.add(glob).map_err(|e| bad(glob, e))?;
        }
        for glob in &self.exclude {
            overrides
                .add(&format!("!{glob}"))
                .map_err(|e| bad(glob, e))?;
        }
        overrides.build().map(Some).map_err(|e| bad("", e))
    }

    fn builder(&self) -> ignore::WalkBuilder {
        let mut walk = ignore::WalkBuilder::new(&self.start);
        let sources_only = self.sources_only;
        walk.hidden(sources_only)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .ignore(true)
            .parents(true)
            .require_git(false)
            .follow_links(false)
            .max_depth(self.max_depth)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |e| {
                if e.depth() == 0 {
                    return true;
                }
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                if !is_dir {
                    return true;
                }
                let name = e.file_name().to_string_lossy();
                if name == ".git" {
                    return false;
                }
                !(sources_only
                    && (skipped_dir(&name)
                        || (name == "target" && cargo_target_dir(e.path()))
                        || environment_dir(e.path())))
            });
        walk
    }

    /// The walk's files in order, absolute, lazily: a caller that stops early reads no
    /// further.
    pub fn paths(&self) -> Result<impl Iterator<Item = PathBuf> + use<>, GlobError> {
        // The globs choose among what the ignore files keep: given to the walk as overrides,
        // an include glob would bring ignored files back.
        let globs = self.globs_matcher()?;
        let root = self.root.clone();
        Ok(self
            .builder()
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(ignore::DirEntry::into_path)
            .filter(move |path| {
                globs.as_ref().is_none_or(|globs| {
                    let rel = path.strip_prefix(&root).unwrap_or(path);
                    !globs.matched(rel, false).is_ignore()
                })
            }))
    }

    /// The files `keep` takes, absolute and sorted, at most `limit` of them; `more` says
    /// the walk stopped at a file past the limit.
    pub fn files(&self, limit: usize, keep: impl Fn(&Path) -> bool) -> Result<Walked, GlobError> {
        let mut out = Walked::default();
        for path in self.paths()? {
            if !keep(&path) {
                continue;
            }
            if out.files.len() >= limit {
                out.more = true;
                break;
            }
            out.files.push(path);
        }
        out.files.sort();
        Ok(out)
    }
}

/// Directories no one reads for source: dependencies, build output, hidden (VCS data,
/// editor state).
fn skipped_dir(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "node_modules" | "build" | "dist" | "out" | "__pycache__" | "venv" | "vendor"
        )
}

/// A `target` directory cargo builds into (its marker files, or a `Cargo.toml` beside it),
/// not a module of that name (`src/target/`), whose sources are read.
fn cargo_target_dir(dir: &Path) -> bool {
    dir.join("CACHEDIR.TAG").is_file()
        || dir.join(".rustc_info.json").is_file()
        || dir.parent().is_some_and(|p| p.join("Cargo.toml").is_file())
}

/// A Python virtual environment or conda environment, whatever its name (`env`, `py311`):
/// the packages installed there (C headers, bundled JavaScript) are not the checkout's
/// sources, and would make a pure-Python checkout look like a C one lacking its server.
fn environment_dir(dir: &Path) -> bool {
    dir.join("pyvenv.cfg").is_file() || dir.join("conda-meta").is_dir()
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    fn rel(root: &Path, walked: &Walked) -> Vec<String> {
        walked
            .files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect()
    }

    fn every(walk: &Walk, root: &Path) -> Vec<String> {
        rel(root, &walk.files(usize::MAX, |_| true).unwrap())
    }

    #[test]
    fn ignore_files_are_honoured_without_a_git_directory() {
        let dir = tree(&[
            (".gitignore", "*.log\n/generated/\n!keep.log\n"),
            ("src/a.rs", ""),
            ("src/.ignore", "secret.rs\n"),
            ("src/secret.rs", ""),
            ("run.log", ""),
            ("keep.log", ""),
            ("generated/x.rs", ""),
            (".git/config", ""),
            (".git/info/exclude", "excluded.rs\n"),
            ("excluded.rs", ""),
        ]);
        let root = dir.path();
        assert_eq!(
            every(&Walk::checkout(root), root),
            [".gitignore", "keep.log", "src/.ignore", "src/a.rs"]
        );
        assert_eq!(every(&Walk::sources(root), root), ["keep.log", "src/a.rs"]);
    }

    #[test]
    fn sources_skip_dependencies_build_output_and_environments_the_checkout_keeps() {
        let dir = tree(&[
            ("node_modules/p/index.js", ""),
            ("Cargo.toml", ""),
            ("target/debug/x.rs", ""),
            // A module named `target` is source; a build directory elsewhere has cargo's tag.
            ("src/target/mod.rs", ""),
            ("tools/target/CACHEDIR.TAG", ""),
            ("tools/target/debug/y.rs", ""),
            ("env/pyvenv.cfg", ""),
            ("env/lib/site.py", ""),
            (".github/workflows/ci.yml", ""),
            ("app/main.py", ""),
        ]);
        let root = dir.path();
        assert_eq!(
            every(&Walk::sources(root), root),
            ["Cargo.toml", "app/main.py", "src/target/mod.rs"]
        );
        assert_eq!(
            every(&Walk::checkout(root), root),
            [
                ".github/workflows/ci.yml",
                "Cargo.toml",
                "app/main.py",
                "env/lib/site.py",
                "env/pyvenv.cfg",
                "node_modules/p/index.js",
                "src/target/mod.rs",
                "target/debug/x.rs",
                "tools/target/CACHEDIR.TAG",
                "tools/target/debug/y.rs"
            ]
        );
    }

    #[test]
    fn a_walk_stops_at_its_limit_and_keeps_the_same_files_every_time() {
        let names: Vec<String> = (0..40).map(|i| format!("d{}/f{i:02}.rs", i % 7)).collect();
        let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "")).collect();
        let dir = tree(&files);
        let root = dir.path();
        let walk = Walk::sources(root);
        let first = walk.files(10, |_| true).unwrap();
        assert_eq!(first.files.len(), 10);
        assert!(first.more);
        for _ in 0..3 {
            assert_eq!(walk.files(10, |_| true).unwrap(), first);
        }
        let all = walk.files(40, |_| true).unwrap();
        assert_eq!((all.files.len(), all.more), (40, false));
        let kept = walk
            .files(5, |p| p.to_string_lossy().ends_with("3.rs"))
            .unwrap();
        assert_eq!(
            rel(root, &kept),
            ["d2/f23.rs", "d3/f03.rs", "d5/f33.rs", "d6/f13.rs"]
        );
        assert!(!kept.more);
    }

    #[test]
    fn globs_depth_and_a_start_below_the_root() {
        let dir = tree(&[
            (".gitignore", "*.gen.ts\n"),
            ("a/b/c/deep.ts", ""),
            ("a/top.ts", ""),
            ("a/x.gen.ts", ""),
            ("a/notes.md", ""),
            ("z.ts", ""),
        ]);
        let root = dir.path();
        let under = Walk::checkout(root).under(Path::new("a"));
        assert_eq!(
            every(&under, root),
            ["a/b/c/deep.ts", "a/notes.md", "a/top.ts"]
        );
        assert_eq!(
            every(&under.clone().max_depth(1), root),
            ["a/notes.md", "a/top.ts"]
        );
        let globbed = Walk::checkout(root).globs(&["*.ts".into()], &["a/b/**".into()]);
        assert_eq!(every(&globbed, root), ["a/top.ts", "z.ts"]);
        let bad = Walk::checkout(root).globs(&["a/{b".into()], &[]);
        let err = bad.files(10, |_| true).unwrap_err();
        assert_eq!(err.glob, "a/{b");
    }

    #[cfg(unix)]
    #[test]
    fn links_are_not_followed_out_of_the_checkout() {
        let outside = tree(&[("secret.rs", "")]);
        let dir = tree(&[("src/a.rs", "")]);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("src/out")).unwrap();
        let root = dir.path();
        assert_eq!(every(&Walk::checkout(root), root), ["src/a.rs"]);
    }
}
