//! The process's cache of prepared media: a bounded in-memory
//! [`MemoryCache`] every conversion of the process shares, so an agent's
//! next turn does not decode and resize the screenshots its last turn
//! prepared. Keyed by the media's bytes and what they were prepared for,
//! so providers and models never see each other's entries.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use tool_carrier::media::MemoryCache;

/// 64 MB of prepared payloads by default: the 30 screenshots of a long
/// computer-use session fitted for Claude take about 21 MB.
const DEFAULT_BYTES: usize = 64 << 20;

/// The limit, and the cache made for it on first use.
struct Shared {
    limit: usize,
    cache: Option<Arc<MemoryCache>>,
}

static SHARED: Mutex<Shared> = Mutex::new(Shared {
    limit: DEFAULT_BYTES,
    cache: None,
});

fn lock() -> std::sync::MutexGuard<'static, Shared> {
    // Nothing is left half-done under this lock: go on after a panic.
    SHARED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The cache conversions use, `None` when it is turned off.
pub(crate) fn shared() -> Option<Arc<MemoryCache>> {
    let mut shared = lock();
    let limit = shared.limit;
    (limit > 0).then(|| {
        Arc::clone(
            shared
                .cache
                .get_or_insert_with(|| Arc::new(MemoryCache::new(limit))),
        )
    })
}

/// Hold at most `max_bytes` of prepared media (0 turns the cache off);
/// what it held is dropped.
#[pyfunction]
pub(crate) fn set_cache_limit(max_bytes: usize) {
    let mut shared = lock();
    shared.limit = max_bytes;
    shared.cache = None;
}
