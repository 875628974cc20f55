//! What checking that a file is whole costs beside preparing it, in one
//! run, on a 2880×1800 screenshot (a Retina display's) made by the shared
//! generator of `tests/media_support`:
//!
//! * `png/check_whole` — the PNG's chunks walked and every CRC-32 checked;
//! * `png/prepare` — the whole pipeline with the default policy: the check,
//!   decoding, resizing to 2000 px and writing a PNG again;
//! * `jpeg/check_whole`, `jpeg/prepare` — the same for the screenshot as a
//!   JPEG (quality 90): the scan data searched for markers, then the
//!   pipeline writing a JPEG.
//!
//! Before timing, the sizes of both files are printed.

#[path = "../tests/media_support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tool_carrier::media::{check_whole, prepare, Budget, MediaType, Policy};

fn benches(c: &mut Criterion) {
    let shot = support::screenshot(2880, 1800, 3);
    let files = [
        ("png", MediaType::Png, support::png_rgb(&shot)),
        ("jpeg", MediaType::Jpeg, support::jpeg(&shot, 90)),
    ];
    let policy = Policy::default();
    for (name, t, bytes) in &files {
        println!("{name}: 2880×1800, {} bytes", bytes.len());
        check_whole(bytes, *t).unwrap();
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("check_whole", |b| {
            b.iter(|| check_whole(black_box(bytes), *t).unwrap())
        });
        group.bench_function("prepare", |b| {
            b.iter_batched(
                || bytes.clone(),
                |bytes| prepare(bytes, &policy, Budget::ANTHROPIC).unwrap(),
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

criterion_group! {
    name = whole;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(whole);
