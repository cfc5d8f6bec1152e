//! The crate's error: what went wrong with a language server, each with a stable code in
//! upper snake case (the code-intelligence contract's `code`), converted once into the
//! product's error by the tools.

use std::path::PathBuf;

use resolve_pr_core::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No server for the language is installed (or none on `PATH`).
    #[error("no language server for {language} is installed (looked for {looked_for})")]
    NotInstalled {
        language: &'static str,
        looked_for: String,
        /// The exact command that installs the preferred server.
        install: &'static str,
    },
    /// The file's language has no server in the registry.
    #[error("{0}")]
    UnsupportedLanguage(String),
    /// A path outside the workspace, missing, or not a file.
    #[error("{message}")]
    InvalidPath { path: PathBuf, message: String },
    /// A file over the size a language server is given (`PoolConfig::max_file_bytes`): a
    /// 16 MB one-line file killed pyright.
    #[error("{} is {:.1} MiB, over the {} MiB a language server is given", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(), *bytes as f64 / 1048576.0, limit >> 20)]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    /// A position past the end of its file.
    #[error("{0}")]
    InvalidPosition(String),
    /// No symbol matched the name given.
    #[error("{0}")]
    SymbolNotFound(String),
    /// The server could not be started or initialized, or died.
    #[error("{server}: {message}")]
    ServerFailed {
        server: &'static str,
        message: String,
    },
    /// The server answered with an error.
    #[error("{server} answered {method} with error {code}: {message}")]
    Protocol {
        server: &'static str,
        method: String,
        code: i64,
        message: String,
    },
    /// The server does not offer the feature asked for.
    #[error("{server} does not support {feature}")]
    Unsupported {
        server: &'static str,
        feature: &'static str,
    },
    /// The server ran a refactoring's command and made no edit, saying why.
    #[error("{server} made no change: {message}")]
    Declined {
        server: &'static str,
        message: String,
    },
    /// No answer in time; the server was cancelled (and restarted if it ignored that).
    #[error("{0}")]
    Timeout(String),
    /// The server is still indexing and could not answer yet.
    #[error("{0}")]
    Indexing(String),
    #[error("{0}")]
    Io(String),
}

impl Error {
    /// The stable code agents match on.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::NotInstalled { .. } => ErrorCode::ServerNotInstalled,
            Error::UnsupportedLanguage(_) => ErrorCode::UnsupportedLanguage,
            Error::InvalidPath { .. } => ErrorCode::InvalidPath,
            Error::TooLarge { .. } => ErrorCode::FileTooLarge,
            Error::InvalidPosition(_) => ErrorCode::InvalidPosition,
            Error::SymbolNotFound(_) => ErrorCode::SymbolNotFound,
            Error::ServerFailed { .. } => ErrorCode::ServerFailed,
            Error::Protocol { .. } => ErrorCode::ServerError,
            Error::Unsupported { .. } | Error::Declined { .. } => ErrorCode::NotSupported,
            Error::Timeout(_) => ErrorCode::Timeout,
            Error::Indexing(_) => ErrorCode::ServerIndexing,
            Error::Io(_) => ErrorCode::IoError,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
