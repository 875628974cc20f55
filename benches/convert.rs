//! Converting a history of 30 screenshot rounds (2880×1800 PNGs, drawn
//! like a desktop) for Anthropic: cold (every screenshot prepared) against
//! warm (every prepared screenshot taken from a `MemoryCache`), in the same
//! run. An agent converts its history again before every model call; the
//! warm figure is what each call after the first costs.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use image::{Rgb, RgbImage};
use tool_carrier::media::{MemoryCache, Policy};
use tool_carrier::provider::{build_request, Options, Provider};
use tool_carrier::roots::Roots;

/// A desktop-like screenshot: a title bar, a sidebar, rows of "text".
fn screen(n: u32) -> RgbImage {
    let (w, h) = (2880, 1800);
    let mut img = RgbImage::from_fn(w, h, |x, y| match (x, y) {
        (_, 0..56) => Rgb([40, 44, 52]),
        (0..576, _) => Rgb([33, 37, 43]),
        _ => Rgb([250, 250, 250]),
    });
    let mut seed = 0x9e37_79b9_u32 ^ n.wrapping_mul(0x85eb_ca6b);
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for row in (76..h - 20).step_by(28) {
        let mut x = 600;
        while x + 120 < w {
            let word = 12 + next() % 90;
            for y in row..row + 14 {
                for dx in 0..word {
                    if next() % 3 != 0 {
                        img.put_pixel(x + dx, y, Rgb([(n * 7 % 80) as u8, 40, 60]));
                    }
                }
            }
            x += word + 10;
        }
    }
    img
}

fn bench(c: &mut Criterion) {
    let dir = tempfile_dir();
    let mut history = vec![("system".to_owned(), "You operate a desktop.".to_owned())];
    for n in 0..30u32 {
        let name = format!("shot-{n:02}.png");
        screen(n).save(dir.join(&name)).unwrap();
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
