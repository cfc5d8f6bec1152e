//! The git crate's integration tests: real repositories made by the installed git, one
//! module per area, linked as one test binary (`cargo test -p resolve-pr-git --test it`).

mod agreement;
mod common;
mod differential;
mod fetch;
mod history;
mod landed;
mod merge;
mod replay;
mod repository;
mod restack;
mod runner;
