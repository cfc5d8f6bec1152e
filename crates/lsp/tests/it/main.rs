//! The language-server layer's integration tests (a fake server in Python, and rust-analyzer),
//! linked as one test binary (`cargo test -p resolve-pr-lsp --test it`).

mod pool;
mod rust_analyzer;
