//! What the code tools compose over a checkout: which files, which symbol, which server.
//!
//! This crate does **not** write files (only `edit` does) and has no tool contracts (those
//! are `tools`').

pub mod find_replace;
pub mod go_imports;
pub mod imports;
pub mod js_paths;
pub mod leftovers;
pub mod manifests;
pub mod placeholder;
pub mod python_move;
pub mod rust_crate_move;
pub mod rust_move;
pub mod target;
pub mod ts_inline;
pub mod ts_move;
pub mod verify;
