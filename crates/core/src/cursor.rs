//! Opaque MCP pagination cursors. A cursor carries its own position (the server keeps no
//! state), is bound to the tool and the arguments it was issued for, and is tamper-evident:
//! an HMAC-SHA256 over all three, under a key the caller supplies. Agents must treat cursors
//! as opaque; anything that does not verify is a `user` error asking for a fresh first call.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::Sha256;

use crate::ErrorCode;
use crate::error::{Error, Result};

const VERSION: u8 = 1;
const MAC_LEN: usize = 16;

/// Server-chosen page sizes (seed 004, decision 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSize {
    /// Test failures: few items, each detailed.
    Failures,
    /// Comments: more items, each scannable.
    Comments,
    /// Commands: step by step.
    Commands,
}

impl PageSize {
    pub const fn get(self) -> usize {
        match self {
            PageSize::Failures => 10,
            PageSize::Comments => 20,
            PageSize::Commands => 5,
        }
    }
}

/// Encodes and verifies cursors under one secret key.
#[derive(Clone)]
pub struct CursorCodec {
    key: [u8; 32],
}

impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec { key: <redacted> }")
    }
}

impl CursorCodec {
    pub fn new(key: [u8; 32]) -> Self {
        CursorCodec { key }
    }

    /// A cursor for `position` that only `decode` with the same tool and arguments accepts.
    /// `args` are the tool's arguments; a `cursor` member in them is ignored.
    pub fn encode<P: Serialize>(&self, tool: &str, args: &Value, position: &P) -> String {
        let position = serde_json::to_vec(position).unwrap_or_default();
        let mac = self.mac(tool, args, &position);
        let mut bytes = Vec::with_capacity(1 + MAC_LEN + position.len());
        bytes.push(VERSION);
        bytes.extend_from_slice(&mac);
        bytes.extend_from_slice(&position);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The position a cursor carries, if it was issued by this key for this tool and these
    /// arguments.
    pub fn decode<P: DeserializeOwned>(&self, tool: &str, args: &Value, cursor: &str) -> Result<P> {
        let bad = |why: &str| {
            Error::user(format!("invalid cursor: {why}"))
                .with_code(ErrorCode::InvalidCursor)
                .with_detail("field", "cursor")
                .with_suggestion(format!(
                    "Cursors are opaque and only valid for the call that returned them. Call \
                     {tool} again without a cursor to start from the first page."
                ))
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor.trim())
            .map_err(|_| bad("it is not a cursor this server issued"))?;
        if bytes.len() < 1 + MAC_LEN || bytes[0] != VERSION {
            return Err(bad("it is not a cursor this server issued"));
        }
        let (mac, position) = bytes[1..].split_at(MAC_LEN);
        let want = self.mac(tool, args, position);
        // Constant-time comparison through the MAC API would need the full tag; our tag is a
        // truncation, so compare without early exit by hand.
        let diff = mac
            .iter()
            .zip(want.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if diff != 0 {
            return Err(bad(
                "it was issued for other arguments, another tool, or by another server key, or it was modified",
            ));
        }
        serde_json::from_slice(position).map_err(|_| bad("its position is from an older version"))
    }

    fn mac(&self, tool: &str, args: &Value, position: &[u8]) -> [u8; MAC_LEN] {
        let mut mac = <Hmac<Sha256>>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(tool.as_bytes());
        mac.update(&[0]);
        mac.update(canonical_args(args).as_bytes());
        mac.update(&[0]);
        mac.update(position);
        let full = mac.finalize().into_bytes();
        let mut out = [0u8; MAC_LEN];
        out.copy_from_slice(&full[..MAC_LEN]);
        out
    }
}

/// Arguments in a canonical form: keys sorted at every level, `cursor` and nulls removed at
/// the top (an omitted optional argument and an explicit `null` are the same call).
fn canonical_args(args: &Value) -> String {
    fn canon(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), canon(v)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(canon).collect()),
            other => other.clone(),
        }
    }
    let top = match args {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| k.as_str() != "cursor" && !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    };
    // serde_json may preserve insertion order (feature `preserve_order`), so sort explicitly
    // and serialize entry by entry.
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&map[k], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(&canon(&top), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Serialize, Deserialize, PartialEq, Clone)]
    struct Pos {
        offset: usize,
        after: u64,
    }

    fn codec() -> CursorCodec {
        CursorCodec::new([7; 32])
    }

    #[test]
    fn round_trip_and_binding() {
        let args = json!({"pr": "o/r#1", "sort": "by_file"});
        let pos = Pos {
            offset: 20,
            after: 99,
        };
        let c = codec().encode("find_unresolved_comments", &args, &pos);
        assert!(
            c.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        // The cursor itself and key order in the arguments do not matter.
        let same = json!({"sort": "by_file", "pr": "o/r#1", "cursor": c.clone()});
        assert_eq!(
            codec()
                .decode::<Pos>("find_unresolved_comments", &same, &c)
                .unwrap(),
            pos
        );

        let other_args = json!({"pr": "o/r#2", "sort": "by_file"});
        let err = codec()
            .decode::<Pos>("find_unresolved_comments", &other_args, &c)
            .unwrap_err();
        assert_eq!(err.category, crate::Category::User);
        assert_eq!(err.code, Some(ErrorCode::InvalidCursor));
        assert!(err.suggestion.unwrap().contains("without a cursor"));
        assert!(codec().decode::<Pos>("pr_comment_list", &args, &c).is_err());
        assert!(
            CursorCodec::new([8; 32])
                .decode::<Pos>("find_unresolved_comments", &args, &c)
                .is_err()
        );
        assert!(codec().decode::<Pos>("x", &args, "not a cursor!").is_err());
        assert!(codec().decode::<Pos>("x", &args, "").is_err());
    }

    #[test]
    fn null_and_missing_optionals_are_the_same_call() {
        let c = codec().encode("t", &json!({"pr": "o/r#1"}), &1u32);
        assert_eq!(
            codec()
                .decode::<u32>("t", &json!({"pr": "o/r#1", "sort": null}), &c)
                .unwrap(),
            1
        );
    }

    #[test]
    fn page_sizes_follow_the_seed() {
        assert_eq!(PageSize::Failures.get(), 10);
        assert_eq!(PageSize::Comments.get(), 20);
        assert_eq!(PageSize::Commands.get(), 5);
    }

    proptest! {
        #[test]
        fn any_single_byte_flip_is_rejected(offset in 0usize..10_000, after in any::<u64>(),
                                            idx in any::<prop::sample::Index>(), bit in 0u8..8) {
            let args = json!({"pr": "o/r#1"});
            let c = codec().encode("t", &args, &Pos { offset, after });
            let mut bytes = URL_SAFE_NO_PAD.decode(&c).unwrap();
            let i = idx.index(bytes.len());
            bytes[i] ^= 1 << bit;
            let tampered = URL_SAFE_NO_PAD.encode(&bytes);
            prop_assert!(codec().decode::<Pos>("t", &args, &tampered).is_err());
        }

        #[test]
        fn garbage_never_panics(s in "\\PC{0,200}") {
            let _ = codec().decode::<Pos>("t", &json!({}), &s);
        }
    }
}
