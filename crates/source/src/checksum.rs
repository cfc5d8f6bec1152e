use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// `sha256:<64 lowercase hex digits>` of `bytes`: a file's checksum in a plan.
pub fn checksum(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_are_sha256_in_lowercase_hex_with_their_prefix() {
        // The digest of the empty input is the well-known e3b0c442… value.
        assert_eq!(
            checksum(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(checksum(b"a"), checksum(b"b"));
    }
}
