//! Shared by the simulator's tests: an HTTP client that works however Cargo unifies reqwest's
//! features. In a workspace build the forge crate switches reqwest to rustls without a
//! built-in crypto provider, so one must be installed before a client is built.

#![allow(dead_code)] // each test file uses a different part

pub fn install_crypto() {
    // Already installed (by another test in this process) is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub fn client() -> reqwest::Client {
    install_crypto();
    reqwest::Client::new()
}
