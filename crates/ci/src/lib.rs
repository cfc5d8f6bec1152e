//! CI log intelligence: turns a job log (raw framework output, or a GitHub Actions job log
//! with its timestamps and `##[group]` markers) into the failing tests it reports, each with
//! the file, line and message the framework printed, and a command that reproduces it.
//!
//! Pure functions over bytes: no network, no files, no clock. Not here: fetching logs (the
//! `forge` crate) or deciding what to fix (the agent).

pub mod failure;
pub mod log;
pub mod parsers;

pub use failure::{Confidence, Failure, Framework};

/// Every failure every known framework reports in `log`, in the order they appear.
/// Several frameworks in one log (monorepo jobs) all come out.
pub fn parse_log(log: &[u8]) -> Vec<Failure> {
    let text = log::clean(log);
    parsers::parse_all(&text)
}
