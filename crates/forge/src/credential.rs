//! Whose credentials a call uses. The server's own ([`Credential::Server`]: the config file,
//! the environment, `gh auth token`) serve the stdio server and the CLI; a caller's own token
//! ([`Credential::Token`]) will serve each user of a shared HTTP server. Caches that hold what
//! a forge answered are keyed by [`CredentialKey`], which names a token only by a fingerprint.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::config::Secret;

/// The credentials a call reaches its forge with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Credential {
    /// The server's own: the token the config file or the environment gives the PR's host,
    /// else (GitHub) `gh auth token`.
    #[default]
    Server,
    /// The caller's token, sent to whatever forge the PR's host is, and nothing of the
    /// server's: no config token, no environment variable, no `gh auth token`.
    Token(Secret),
}

impl Credential {
    /// What caches key by for this credential; never the token itself.
    pub fn key(&self) -> CredentialKey {
        match self {
            Credential::Server => CredentialKey::Server,
            Credential::Token(secret) => {
                let digest = Sha256::digest(secret.expose().as_bytes());
                let mut hex = String::with_capacity(64);
                for byte in digest {
                    hex.push_str(&format!("{byte:02x}"));
                }
                CredentialKey::Token(Fingerprint(hex))
            }
        }
    }
}

/// A credential as a cache key: the server's, or a token's SHA-256 fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CredentialKey {
    Server,
    Token(Fingerprint),
}

impl fmt::Display for CredentialKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CredentialKey::Server => f.write_str("server"),
            CredentialKey::Token(fp) => write!(f, "token {}", fp.0),
        }
    }
}

/// The lowercase hex SHA-256 of a token.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(String);

impl Fingerprint {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_tokens_by_fingerprint_only() {
        let token = "ghp_very_secret_value";
        let key = Credential::Token(Secret::new(token)).key();
        for shown in [format!("{key:?}"), key.to_string()] {
            assert!(!shown.contains(token), "{shown}");
        }
        assert_eq!(key, Credential::Token(Secret::new(token)).key());
        assert_ne!(key, Credential::Token(Secret::new("another")).key());
        assert_ne!(key, Credential::Server.key());
        let debug = format!("{:?}", Credential::Token(Secret::new(token)));
        assert!(!debug.contains(token), "{debug}");
    }
}
