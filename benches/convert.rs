//! Converting a history of 30 screenshot rounds (2880×1800 PNGs, drawn
//! like a desktop) for Anthropic: cold (every screenshot prepared) against
//! warm (every prepared screenshot taken from a `MemoryCache`), in the same
//! run. An agent converts its history again before every model call; the
//! warm figure is what each call after the first costs. Beside them, the
//! two parts of the self-check every conversion now ends with (writing the
//! body once, the API's rules on that text), so its share of a warm
//! conversion is read off one run.

#[path = "../tests/media_support/mod.rs"]
mod support;

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use tool_carrier::media::{MemoryCache, Policy};
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::roots::Roots;
use tool_carrier::rules::{check_json, Target};

fn bench(c: &mut Criterion) {
    let dir = tempfile_dir();
    let mut history = vec![("system".to_owned(), "You operate a desktop.".to_owned())];
    for n in 0..30u32 {
        let name = format!("shot-{n:02}.png");
        support::screenshot(2880, 1800, u64::from(n))
            .save(dir.join(&name))
            .unwrap();
        let call = format!(
            r#"{{"content":null,"tool_calls":[{{"id":"c{n}","name":"screenshot","arguments":"{{}}"}}]}}"#
        );
        let result = format!(
            r#"{{"tool_call_id":"c{n}","content":"Took a screenshot.","attachments":[{{"kind":"image","target":"{name}"}}]}}"#
        );
        history.push(("assistant".to_owned(), call));
        history.push(("tool".to_owned(), result));
    }
    let policy = Policy::default().with_roots(Roots::new([&dir]).unwrap());
    let cold = Options::new().with_policy(policy.clone());
    let cache = Arc::new(MemoryCache::new(1 << 30));
    let warm = Options::new().with_policy(policy).with_cache(cache);
    // Fill the cache once; every measured warm run finds every image.
    let filled = build_request(Provider::Anthropic, &history, &warm).unwrap();
    assert_eq!(
        filled.to_json(),
        build_request(Provider::Anthropic, &history, &cold)
            .unwrap()
            .to_json()
    );

    let mut g = c.benchmark_group("convert_30_screenshots");
    g.sample_size(10);
    g.bench_function("baseline/cold", |b| {
        b.iter(|| build_request(Provider::Anthropic, &history, &cold).unwrap())
    });
    g.bench_function("crate/warm", |b| {
        b.iter(|| build_request(Provider::Anthropic, &history, &warm).unwrap())
    });
    // What the self-check inside every warm conversion costs: writing the
    // body's JSON once, and every rule of the API on it.
    let json = filled.json().to_owned();
    g.bench_function("self-check/serialize", |b| {
        b.iter(|| filled.body.to_json().len())
    });
    g.bench_function("self-check/rules", |b| {
        b.iter(|| {
            let broken = check_json(&Target::of(&filled), &json).unwrap();
            assert!(broken.is_empty());
        })
    });
    g.finish();
}

/// A folder under target/ for the screenshots (kept between runs).
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-convert");
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

criterion_group!(benches, bench);
criterion_main!(benches);
