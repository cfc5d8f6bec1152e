//! Times: typed once, where the forge's JSON is read, and strings again only where a tool
//! writes its output.
//!
//! GitHub gives UTC with a `Z` (`2024-01-01T00:00:00Z`); Forgejo and Gitea give the server's
//! offset (`2024-01-01T02:00:00+02:00`). Both are RFC 3339, and both become a
//! [`Timestamp`] (UTC), so that comparing two times compares instants, never spellings.

use chrono::{DateTime, SecondsFormat, Utc};

/// An instant a forge reported.
pub type Timestamp = DateTime<Utc>;

/// An RFC 3339 time, any offset, as UTC; `None` when it is not one.
pub fn parse_time(s: &str) -> Option<Timestamp> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// RFC 3339 in UTC as GitHub writes it: `Z`, whole seconds unless the time has a fraction.
pub fn format_time(t: &Timestamp) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Serde for a [`Timestamp`] as its RFC 3339 string (what the forges send, and what a
/// serialized domain type has always held).
pub mod rfc3339 {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use super::{Timestamp, format_time, parse_time};

    pub fn serialize<S: Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_time(t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let s = String::deserialize(d)?;
        parse_time(&s).ok_or_else(|| D::Error::custom(format!("not an RFC 3339 time: {s:?}")))
    }
}

/// Serde for an optional [`Timestamp`]: null, absent (with `#[serde(default)]`) and the empty
/// string are `None`; anything else must be an RFC 3339 time.
pub mod rfc3339_opt {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use super::{Timestamp, format_time, parse_time};

    pub fn serialize<S: Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&format_time(t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) if s.is_empty() => Ok(None),
            Some(s) => parse_time(&s)
                .map(Some)
                .ok_or_else(|| D::Error::custom(format!("not an RFC 3339 time: {s:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_the_same_instant() {
        let z = parse_time("2024-05-01T12:00:00Z").unwrap();
        let plus_two = parse_time("2024-05-01T14:00:00+02:00").unwrap();
        assert_eq!(z, plus_two);
        // As strings, the earlier instant sorts after the later one.
        let later = parse_time("2024-05-01T12:30:00Z").unwrap();
        assert!("2024-05-01T14:00:00+02:00" > "2024-05-01T12:30:00Z");
        assert!(plus_two < later);
    }

    #[test]
    fn renders_as_github_writes_it() {
        for s in ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.123Z"] {
            assert_eq!(format_time(&parse_time(s).unwrap()), s);
        }
        assert_eq!(
            format_time(&parse_time("2024-01-01T02:00:00+02:00").unwrap()),
            "2024-01-01T00:00:00Z"
        );
        assert_eq!(parse_time("yesterday"), None);
    }

    #[derive(Debug, serde::Deserialize)]
    struct Wire {
        #[serde(deserialize_with = "rfc3339::deserialize")]
        at: Timestamp,
        #[serde(default, deserialize_with = "rfc3339_opt::deserialize")]
        done: Option<Timestamp>,
    }

    #[test]
    fn wire_times_are_parsed_or_refused() {
        let w: Wire = serde_json::from_str(r#"{"at": "2024-05-01T14:00:00+02:00"}"#).unwrap();
        assert_eq!(format_time(&w.at), "2024-05-01T12:00:00Z");
        assert_eq!(w.done, None);
        let w: Wire =
            serde_json::from_str(r#"{"at": "2024-05-01T12:00:00Z", "done": null}"#).unwrap();
        assert_eq!(w.done, None);
        let w: Wire =
            serde_json::from_str(r#"{"at": "2024-05-01T12:00:00Z", "done": ""}"#).unwrap();
        assert_eq!(w.done, None);
        assert!(serde_json::from_str::<Wire>(r#"{"at": "soon"}"#).is_err());
        assert!(
            serde_json::from_str::<Wire>(r#"{"at": "2024-05-01T12:00:00Z", "done": "soon"}"#)
                .is_err()
        );
    }
}
