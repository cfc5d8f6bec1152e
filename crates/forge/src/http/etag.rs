//! The ETag cache: every GET is revalidated with the validators of its last answer, and a 304
//! is served from here.

use std::collections::HashMap;
use std::hash::RandomState;
use std::sync::Mutex;

use bytes::Bytes;
use reqwest::header::{ETAG, HeaderMap, HeaderValue, LAST_MODIFIED};

/// A GET answer kept for revalidation.
#[derive(Debug, Clone)]
pub(super) struct CachedEntry {
    pub(super) etag: Option<HeaderValue>,
    pub(super) last_modified: Option<HeaderValue>,
    pub(super) headers: HeaderMap,
    pub(super) body: Bytes,
    last_used: u64,
}

/// ETag cache keyed by (URL, token identity), always revalidated.
///
/// Why not `http-cache-reqwest`: its stable 0.16 line (reqwest 0.12) does not send a
/// conditional request in its always-revalidate mode and answers any revalidation status
/// other than 200/304 (401, 404, 429, 5xx) with the stale body, which would hide rate limits
/// and revoked access from our retry and error logic; the 1.0 line that fixes this is an
/// alpha and needs Rust 1.89 (the workspace supports 1.88). GitHub marks answers
/// `private, max-age=60`, and serving them fresh for 60 s would hide a comment just created,
/// so every read goes to the forge with `If-None-Match`; a 304 costs no rate limit.
pub(super) struct EtagCache {
    entries: Mutex<HashMap<(u64, String), CachedEntry>>,
    capacity: usize,
    clock: std::sync::atomic::AtomicU64,
    pub(super) hasher: RandomState,
}

impl EtagCache {
    pub(super) fn new(capacity: usize) -> Self {
        EtagCache {
            entries: Mutex::new(HashMap::new()),
            capacity,
            clock: std::sync::atomic::AtomicU64::new(0),
            hasher: RandomState::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, String), CachedEntry>> {
        // A poisoned lock means a panic elsewhere mid-update; the map is still usable.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn tick(&self) -> u64 {
        self.clock
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn get(&self, identity: u64, url: &str) -> Option<CachedEntry> {
        let tick = self.tick();
        let mut entries = self.lock();
        let entry = entries.get_mut(&(identity, url.to_owned()))?;
        entry.last_used = tick;
        Some(entry.clone())
    }

    pub(super) fn put(&self, identity: u64, url: &str, headers: &HeaderMap, body: &Bytes) {
        let etag = headers.get(ETAG).cloned();
        let last_modified = headers.get(LAST_MODIFIED).cloned();
        let key = (identity, url.to_owned());
        let mut entries = self.lock();
        if etag.is_none() && last_modified.is_none() {
            // Nothing to revalidate with; an old entry would only go stale.
            entries.remove(&key);
            return;
        }
        if entries.len() >= self.capacity
            && !entries.contains_key(&key)
            && let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone())
        {
            entries.remove(&oldest);
        }
        let last_used = self.tick();
        entries.insert(
            key,
            CachedEntry {
                etag,
                last_modified,
                headers: headers.clone(),
                body: body.clone(),
                last_used,
            },
        );
    }

    pub(super) fn invalidate_prefix(&self, url: &str) {
        let base = url.split('?').next().unwrap_or(url);
        self.lock()
            .retain(|(_, cached), _| !cached.starts_with(base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn cache_keys_include_the_token_and_evict_oldest() {
        let cache = EtagCache::new(2);
        let h = headers(&[("etag", "\"a\"")]);
        cache.put(1, "u1", &h, &Bytes::from_static(b"one"));
        assert!(cache.get(2, "u1").is_none());
        assert!(cache.get(1, "u1").is_some());
        cache.put(1, "u2", &h, &Bytes::from_static(b"two"));
        assert!(
            cache.get(1, "u1").is_some(),
            "touching u1 makes u2 the oldest"
        );
        cache.put(1, "u3", &h, &Bytes::from_static(b"three"));
        assert!(
            cache.get(1, "u2").is_none(),
            "least recently used goes first"
        );
        assert!(cache.get(1, "u1").is_some());
        cache.invalidate_prefix("u1?x");
        assert!(cache.get(1, "u1").is_none());
        cache.put(
            1,
            "u4",
            &HeaderMap::new(),
            &Bytes::from_static(b"no validator"),
        );
        assert!(cache.get(1, "u4").is_none());
    }
}
