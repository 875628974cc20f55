//! Resizing a 12-megapixel photo (4000×3000) to fit 2000×2000, side by side:
//!
//! * `resize/*` — the resampling step alone, on pixels decoded from a JPEG
//!   (RGB) and from a PNG (RGBA, opaque): `fast_image_resize` Lanczos3 (what
//!   the pipeline uses; `_opaque` without the alpha premultiplication the
//!   pipeline skips for opaque images) against `image`'s
//!   `DynamicImage::resize` Lanczos3.
//! * `pipeline/*` — bytes in, bytes out: [`prepare`] (no byte budget, so
//!   both sides do the same work) against the plain `image` route (decode,
//!   `resize`, `image`'s own encoder).
//! * `header/*` — the size of a 12 MP JPEG that needs no resizing: the
//!   pipeline's header read (through [`prepare`]'s pass-through) against
//!   `ImageReader::into_dimensions`.
//!
//! The images are generated here, not read from files.

#[path = "../tests/media_support/mod.rs"]
mod support;

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{DynamicImage, ImageEncoder, ImageFormat, ImageReader};
use tool_carrier::media::{fit_within, prepare, Budget, Policy};

const W: u32 = 4000;
const H: u32 = 3000;

struct Inputs {
    jpeg: Vec<u8>,
    png: Vec<u8>,
    from_jpeg: DynamicImage,
    from_png: DynamicImage,
}

fn inputs() -> Inputs {
    let rgb = support::photo(W, H, 42);
    let jpeg = support::jpeg(&rgb, 92);
    let rgba = DynamicImage::ImageRgba8(DynamicImage::ImageRgb8(rgb).to_rgba8());
    let png = support::png(&rgba);
    Inputs {
        from_jpeg: image::load_from_memory(&jpeg).unwrap(),
        from_png: image::load_from_memory(&png).unwrap(),
        jpeg,
        png,
    }
}

/// `premultiply`: weigh colour by alpha while filtering (needed only when
/// some pixel is transparent; the pipeline skips it for opaque images).
fn fir(src: &DynamicImage, premultiply: bool) -> DynamicImage {
    let (w, h) = fit_within(src.width(), src.height(), 2000);
    let mut dst = DynamicImage::new(w, h, src.color());
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3))
        .use_alpha(premultiply);
    Resizer::new().resize(src, &mut dst, &options).unwrap();
    dst
}

fn image_resize(src: &DynamicImage) -> DynamicImage {
    src.resize(2000, 2000, image::imageops::FilterType::Lanczos3)
}

/// The plain `image` route: decode, resize, encode with `image`'s encoders
/// (JPEG at quality 85, PNG at its default compression).
fn image_pipeline(bytes: &[u8], format: ImageFormat) -> Vec<u8> {
    let decoded = image::load_from_memory_with_format(bytes, format).unwrap();
    let small = image_resize(&decoded);
    let mut out = Vec::new();
    let (w, h, color) = (small.width(), small.height(), small.color().into());
    match format {
        ImageFormat::Jpeg => JpegEncoder::new_with_quality(&mut out, 85)
            .write_image(small.as_bytes(), w, h, color)
            .unwrap(),
        _ => PngEncoder::new(&mut out)
            .write_image(small.as_bytes(), w, h, color)
            .unwrap(),
    }
    out
}

fn benches(c: &mut Criterion) {
    let inputs = inputs();
    let policy = Policy::default();

    let mut group = c.benchmark_group("resize");
    group.throughput(Throughput::Elements(u64::from(W * H)));
    for (name, src) in [
        ("rgb8_from_jpeg", &inputs.from_jpeg),
        ("rgba8_from_png", &inputs.from_png),
    ] {
        group.bench_function(format!("{name}/fast_image_resize_lanczos3"), |b| {
            b.iter(|| fir(black_box(src), true))
        });
        if src.color().has_alpha() {
            group.bench_function(format!("{name}/fast_image_resize_lanczos3_opaque"), |b| {
                b.iter(|| fir(black_box(src), false))
            });
        }
        group.bench_function(format!("{name}/image_resize_lanczos3"), |b| {
            b.iter(|| image_resize(black_box(src)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("pipeline");
    for (name, bytes, format) in [
        ("jpeg_12mp", &inputs.jpeg, ImageFormat::Jpeg),
        ("png_12mp", &inputs.png, ImageFormat::Png),
    ] {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("{name}/prepare"), |b| {
            b.iter_batched(
                || bytes.clone(),
                |bytes| prepare(bytes, &policy, Budget::UNLIMITED).unwrap(),
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("{name}/image_decode_resize_encode"), |b| {
            b.iter(|| image_pipeline(black_box(bytes), format))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("header");
    let roomy = Policy::default().with_max_dim(W);
    group.bench_function("jpeg_12mp/prepare_pass_through", |b| {
        b.iter_batched(
            || inputs.jpeg.clone(),
            |bytes| prepare(bytes, &roomy, Budget::UNLIMITED).unwrap(),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("jpeg_12mp/image_into_dimensions", |b| {
        b.iter(|| {
            ImageReader::with_format(Cursor::new(black_box(&inputs.jpeg)), ImageFormat::Jpeg)
                .into_dimensions()
                .unwrap()
        })
    });
    group.finish();
}

criterion_group! {
    name = resize;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    targets = benches
}
criterion_main!(resize);
