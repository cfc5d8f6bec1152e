//! The syntax crate's integration tests, one module per area, linked as one test binary
//! (`cargo test -p resolve-pr-syntax --test it`; one module: `-- robust::`).

mod ecma;
mod go;
mod idents;
mod language;
mod python;
mod robust;
mod rust;
