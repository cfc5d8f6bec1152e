//! Code intelligence through real language servers: the only crate that speaks LSP.
//!
//! - [`servers`]: which server answers for which language, how it is found, started and
//!   configured, and the exact command that installs it.
//! - [`client`]: one running server and an async LSP client of our own over tokio (ids,
//!   cancellation, server requests answered, progress tracked, documents synced).
//! - [`pool`]: one server per language and project root, started on first use, kept warm,
//!   shut down when idle or over the memory cap.
//! - [`nav`]: navigation questions (definition, references, implementations, type
//!   definition, symbols, hover, call hierarchy, diagnostics) in our own types, with
//!   readiness observed, never guessed.
//! - [`assist`]: completions and signature help at a position.
//! - [`lifecycle`]: a file opened, saved or closed, told to the running servers that hold it.
//! - [`cargo`]: Rust's diagnostics from `cargo check`, run when asked (trusted checkouts).
//! - [`trust`]: which checkouts may run their own code, and how servers of the others are
//!   hardened.
//! - [`contain`]: every started program in its own process group, cgroup and environment
//!   mark, killed whole, with a watchdog for when this process dies.
//! - [`deadline`]: a code call's deadline, which every wait for a server inside it respects.
//! - `disk`: files changed on disk, reported to servers that do not watch them.

pub mod assist;
pub mod cargo;
pub mod client;
pub mod contain;
pub mod deadline;
mod disk;
mod error;
pub mod lifecycle;
pub mod nav;
pub mod pool;
pub mod refactor;
pub mod servers;
mod transport;
pub mod trust;
pub mod uri;

pub use assist::{Completion, Completions, Signature, Signatures};
pub use error::{Error, Result};
pub use lifecycle::Told;
pub use nav::{Answer, Call, Diag, Loc, Pos, Resolved, Span, Symbol, Target};
pub use pool::{Availability, Busy, Pool, PoolConfig, Running, Server};
pub use servers::{Installed, Language, Missing, Projects};
pub use trust::{Trust, TrustPolicy};
