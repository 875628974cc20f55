//! Properties over many inputs: nothing panics on hostile bytes or
//! targets, sizes always fit, and resizing gives the same bytes on every
//! SIMD path.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod support;

use std::sync::OnceLock;

use image::DynamicImage;
use proptest::prelude::*;
use support::*;
use tool_carrier::media::{fit_within, prepare, Budget, DefaultResolver, Policy, Resolver};

fn tight() -> Policy {
    Policy::default()
        .with_max_dim(64)
        .with_max_pixels(1 << 16)
        .with_max_alloc(1 << 20)
}

/// Small valid images of every input type, to corrupt.
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(make_seeds)
}

fn make_seeds() -> Vec<Vec<u8>> {
    let img = photo(80, 40, 7);
    vec![
        png_rgb(&img),
        jpeg(&img, 80),
        jpeg_oriented(&img, 6),
        gif(80, 40, 2),
        bmp(&img),
        webp(&DynamicImage::ImageRgb8(img.clone())),
        webp(&DynamicImage::ImageRgba8(with_alpha(80, 40))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn prepare_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = prepare(bytes, &tight(), Budget::new(4096, tool_carrier::media::Measure::Base64));
    }

    #[test]
    fn prepare_never_panics_on_corrupted_images(
        which in 0usize..7,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = seeds()[which].clone();
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        let keep = cut.index(bytes.len() + 1).max(bytes.len() / 2);
        bytes.truncate(keep);
        if let Ok(p) = prepare(bytes, &tight(), Budget::ANTHROPIC) {
            prop_assert!(p.width.unwrap_or(0) <= 64 || !p.reencoded);
        }
    }

    #[test]
    fn resolving_never_panics(target in "\\PC{0,80}") {
        let _ = DefaultResolver::default().resolve(&target);
        let _ = DefaultResolver::default().resolve(&format!("data:{target}"));
        let _ = DefaultResolver::default().resolve(&format!("data:image/png;base64,{target}"));
    }

    #[test]
    fn fitted_sizes_stay_in_the_box_and_keep_the_aspect(
        w in 1u32..100_000, h in 1u32..100_000, max in 1u32..5000,
    ) {
        let (fw, fh) = fit_within(w, h, max);
        prop_assert!(fw >= 1 && fh >= 1 && fw <= max && fh <= max);
        if w <= max && h <= max {
            prop_assert_eq!((fw, fh), (w, h));
        } else {
            prop_assert_eq!(fw.max(fh), max);
            // The short side is the exact one rounded to nearest (or 1).
            let (long, short) = (w.max(h) as f64, w.min(h) as f64);
            let exact = short * max as f64 / long;
            prop_assert!((fw.min(fh) as f64 - exact.max(1.0)).abs() <= 0.5 + 1e-9);
        }
    }
}

/// The resizer picks SIMD code at run time; its output must not depend on
/// which, or two machines would send different bytes for the same image.
#[test]
fn resizing_gives_the_same_bytes_on_every_cpu_path() {
    use fast_image_resize::{CpuExtensions, FilterType, ResizeAlg, ResizeOptions, Resizer};
    let src_rgb = DynamicImage::ImageRgb8(photo(301, 203, 8));
    let src_rgba = DynamicImage::ImageRgba8(with_alpha(301, 203));
    let src_gray = DynamicImage::ImageLuma8(src_rgb.to_luma8());
    #[allow(unused_mut)]
    let mut paths = vec![CpuExtensions::None];
    #[cfg(target_arch = "x86_64")]
    paths.extend([CpuExtensions::Sse4_1, CpuExtensions::Avx2]);
    let paths: Vec<_> = paths.into_iter().filter(|p| p.is_supported()).collect();
    for src in [&src_rgb, &src_rgba, &src_gray] {
        let mut outputs = Vec::new();
        for &path in &paths {
            let mut resizer = Resizer::new();
            // SAFETY: only extensions the CPU reports are selected.
            unsafe { resizer.set_cpu_extensions(path) };
            let mut dst = DynamicImage::new(120, 81, src.color());
            let options =
                ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3));
            resizer.resize(src, &mut dst, &options).unwrap();
            outputs.push(dst.into_bytes());
        }
        assert!(
            outputs.windows(2).all(|w| w[0] == w[1]),
            "{:?} differs across {paths:?}",
            src.color()
        );
    }
}

proptest! {
    /// The long edge chosen for a model's view is the largest at which the
    /// fitted image keeps every cap, and never more than the image or the
    /// policy allows.
    #[test]
    fn the_view_edge_is_the_largest_that_fits(
        w in 1u32..6000,
        h in 1u32..6000,
        long in 64u32..3000,
        short in prop::option::of(64u32..1000),
        pixels in prop::option::of(10_000u64..4_000_000),
        patches in prop::option::of(16u64..12_000),
    ) {
        let mut view = tool_carrier::media::View::new(long);
        if let Some(s) = short { view = view.with_max_short_edge(s); }
        if let Some(p) = pixels { view = view.with_max_pixels(p); }
        if let Some(p) = patches { view = view.with_max_patches(p); }
        let policy = Policy::default().with_view(view);
        let edge = policy.long_edge_for(w, h);
        let fits = |e: u32| {
            let (fw, fh) = fit_within(w, h, e);
            fw.max(fh) <= long.min(Policy::DEFAULT_MAX_DIM)
                && short.is_none_or(|s| fw.min(fh) <= s)
                && pixels.is_none_or(|p| u64::from(fw) * u64::from(fh) <= p)
                && patches.is_none_or(|p| u64::from(fw.div_ceil(32)) * u64::from(fh.div_ceil(32)) <= p)
        };
        prop_assert!(edge >= 1 && edge <= w.max(h));
        prop_assert!(fits(edge) || edge == 1, "{}×{} at {}", w, h, edge);
        let upper = w.max(h).min(long).min(Policy::DEFAULT_MAX_DIM);
        prop_assert!(edge == upper || !fits(edge + 1), "{}×{}: {} is not the largest", w, h, edge);
    }
}
