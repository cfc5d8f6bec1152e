//! CI log intelligence: turns a job log (raw framework output, or a GitHub Actions job log
//! with its timestamps and `##[group]` markers) into the failing tests it reports, each with
//! the file, line and message the framework printed, and a command that reproduces it.
//!
//! Pure functions over bytes: no network, no files, no clock. Not here: fetching logs (the
//! `forge` crate) or deciding what to fix (the agent).

pub mod failure;
pub mod junit;
pub mod log;
pub mod parsers;
pub(crate) mod reproduce;
pub mod scan;
pub mod segment;

pub use failure::{Confidence, Failure, FlakyTest, Framework};
pub use junit::{JunitError, JunitReport, parse_junit, parse_junit_report};
pub use scan::{Found, Report, Scanner};
pub use segment::StepSegment;

/// Every failure every known framework reports in `log`, in the order they appear.
/// Several frameworks in one log (monorepo jobs) all come out. For logs that arrive in
/// pieces, or are too large to hold, use [`Scanner`].
pub fn parse_log(log: &[u8]) -> Vec<Failure> {
    let mut scanner = Scanner::new();
    scanner.feed(log);
    scanner.finish().failures()
}
