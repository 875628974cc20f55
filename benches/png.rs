//! PNG re-encoding, side by side in one run: what [`prepare`] writes (the
//! fast compressor, or deflate level 4 over unfiltered rows when a trial
//! on a band of the image says it pays) against two fixed settings: the
//! fast compressor with adaptive filters (the pipeline's setting before the
//! band trial) and `image`'s default (level 6, adaptive filters).
//!
//! The sources are uncompressed BMPs already at 2000 px, so every side
//! decodes the same way and none resizes: what differs is the encoder.
//! Before timing, the bytes each side writes are printed, with their ratio
//! to what `prepare` writes.

#[path = "../tests/media_support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, ImageFormat};
use tool_carrier::media::{prepare, Budget, MediaType, Policy};

const FIXED: [(&str, CompressionType, FilterType); 2] = [
    ("fast_adaptive", CompressionType::Fast, FilterType::Adaptive),
    (
        "default_adaptive",
        CompressionType::Default,
        FilterType::Adaptive,
    ),
];

fn fixed(bmp: &[u8], compression: CompressionType, filter: FilterType) -> Vec<u8> {
    let image = image::load_from_memory_with_format(bmp, ImageFormat::Bmp).unwrap();
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, compression, filter)
        .write_image(
            image.as_bytes(),
            image.width(),
            image.height(),
            image.color().into(),
        )
        .unwrap();
    out
}

fn crate_png(bmp: Vec<u8>) -> Vec<u8> {
    let prepared = prepare(bmp, &Policy::default(), Budget::UNLIMITED).unwrap();
    assert_eq!(prepared.media_type, MediaType::Png);
    prepared.bytes
}

fn benches(c: &mut Criterion) {
    let sources = [
        (
            "screenshot",
            support::bmp(&support::screenshot(2000, 1250, 0)),
        ),
        ("photo", support::bmp(&support::photo(2000, 1500, 42))),
    ];
    for (name, bmp) in &sources {
        let ours = crate_png(bmp.clone()).len();
        eprintln!("png/{name}: prepare writes {ours} bytes");
        for (setting, compression, filter) in FIXED {
            let theirs = fixed(bmp, compression, filter).len();
            eprintln!(
                "png/{name}: {setting} writes {theirs} bytes ({:.2}× prepare)",
                theirs as f64 / ours as f64
            );
        }
    }
    let mut group = c.benchmark_group("png");
    group.sample_size(20);
    for (name, bmp) in &sources {
        group.bench_function(format!("{name}/prepare"), |b| {
            b.iter_batched(|| bmp.clone(), crate_png, BatchSize::LargeInput)
        });
        for (setting, compression, filter) in FIXED {
            group.bench_function(format!("{name}/{setting}"), |b| {
                b.iter(|| fixed(black_box(bmp), compression, filter))
            });
        }
    }
    group.finish();
}

criterion_group!(png, benches);
criterion_main!(png);
