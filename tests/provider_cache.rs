//! Prepared images reused between conversions: a warm cache gives the same
//! bytes as no cache, and prepares nothing again.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use support::{build_lines, calls, line, png, result, Fixture};
use tool_carrier::media::{CacheKey, MemoryCache, Prepared, PreparedCache};
use tool_carrier::provider::Provider;

/// A memory cache that counts its hits and stores.
#[derive(Debug)]
struct Counting {
    inner: MemoryCache,
    hits: AtomicUsize,
    puts: AtomicUsize,
}

impl PreparedCache for Counting {
    fn get(&self, key: &CacheKey) -> Option<Prepared> {
        let hit = self.inner.get(key);
        if hit.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        hit
    }

    fn put(&self, key: &CacheKey, prepared: &Prepared) {
        self.puts.fetch_add(1, Ordering::Relaxed);
        self.inner.put(key, prepared);
    }
}

#[test]
fn a_warm_cache_gives_the_same_bytes_and_prepares_nothing_again() {
    let fixture = Fixture::new();
    // Wide enough that every provider that fits to its model re-encodes.
    for i in 0..4u8 {
        fixture.add(&format!("wide-{i}.png"), &png(1700, 40, i));
    }
    let mut history = line("user", "Shots.");
    for i in 0..4 {
        let id = format!("c{i}");
        history += &calls(&[(&id, "shot")]);
        history += &result(&id, "ok", &[&format!("wide-{i}.png")]);
    }
    for provider in Provider::ALL {
        let cache = Arc::new(Counting {
            inner: MemoryCache::new(64 << 20),
            hits: AtomicUsize::new(0),
            puts: AtomicUsize::new(0),
        });
        let fresh = build_lines(provider, &history, &fixture.options()).to_json();
        let cached = fixture.options().with_cache(cache.clone());
        let cold = build_lines(provider, &history, &cached).to_json();
        let warm = build_lines(provider, &history, &cached).to_json();
        assert_eq!(cold, fresh, "{provider}");
        assert_eq!(warm, fresh, "{provider}");
        assert_eq!(cache.puts.load(Ordering::Relaxed), 4, "{provider}");
        assert_eq!(cache.hits.load(Ordering::Relaxed), 4, "{provider}");
    }
}

#[test]
fn what_changes_the_output_changes_the_key() {
    let fixture = Fixture::new();
    fixture.add("wide.png", &png(1700, 40, 9));
    let history = [
        line("user", "Shot."),
        calls(&[("c1", "shot")]),
        result("c1", "ok", &["wide.png"]),
    ]
    .concat();
    let cache = Arc::new(MemoryCache::new(64 << 20));
    let options = fixture.options().with_cache(cache.clone());
    // Claude fits to 1568 px, Gemini only to the 2000 px ceiling: two
    // entries for one source, each what its provider gets without a cache.
    for provider in [Provider::Anthropic, Provider::Gemini, Provider::Anthropic] {
        let fresh = build_lines(provider, &history, &fixture.options()).to_json();
        assert_eq!(build_lines(provider, &history, &options).to_json(), fresh);
    }
    assert_eq!(cache.len(), 2);
}
