//! The media rules, one test per rule: pass-through, codecs, resize sizes,
//! orientation, bounded decoding, budgets, determinism, output writing.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use base64::Engine;
use image::{DynamicImage, GenericImageView, GrayImage, Luma};
use support::*;
use tool_carrier::media::{
    prepare, sniff, Budget, Damage, Measure, MediaError, MediaType, Policy, Prepared, Sniffed,
};

/// A small box keeps decoding and resizing quick in unoptimised test
/// builds; the rules do not depend on the number.
fn small_box() -> Policy {
    Policy::default().with_max_dim(200)
}

fn run(bytes: Vec<u8>, policy: &Policy) -> Prepared {
    prepare(bytes, policy, Budget::ANTHROPIC).unwrap()
}

fn assert_untouched(input: Vec<u8>, policy: &Policy, media_type: MediaType) {
    let p = run(input.clone(), policy);
    assert_eq!(p.media_type, media_type);
    assert!(!p.resized && !p.reencoded && p.fitting.is_empty());
    assert_eq!(
        p.bytes, input,
        "{media_type} must pass through byte for byte"
    );
    assert_eq!(p.original, p.facts());
}

// ---- pass-through ----

#[test]
fn small_png_jpeg_gif_webp_pass_through_byte_for_byte() {
    let img = photo(120, 80, 1);
    let policy = small_box();
    assert_untouched(png_rgb(&img), &policy, MediaType::Png);
    assert_untouched(jpeg(&img, 90), &policy, MediaType::Jpeg);
    assert_untouched(gif(120, 80, 1), &policy, MediaType::Gif);
    assert_untouched(
        webp(&DynamicImage::ImageRgb8(img)),
        &policy,
        MediaType::Webp,
    );
}

#[test]
fn pass_through_reads_the_size_from_the_header() {
    let p = run(jpeg(&photo(150, 90, 2), 80), &small_box());
    assert_eq!((p.width, p.height), (Some(150), Some(90)));
    assert_eq!(p.original.bytes, p.bytes.len());
}

#[test]
fn an_image_exactly_at_the_limit_passes_through() {
    let bytes = png_rgb(&photo(200, 200, 3));
    assert_untouched(bytes, &small_box(), MediaType::Png);
    // And at the default 2000 px.
    let flat = DynamicImage::ImageLuma8(GrayImage::from_pixel(2000, 2000, Luma([90])));
    assert_untouched(png(&flat), &Policy::default(), MediaType::Png);
}

#[test]
fn a_small_animated_gif_passes_through_still_animated() {
    let p = run(gif(60, 40, 3), &small_box());
    assert!(!p.reencoded && !p.first_frame_only);
}

#[test]
fn a_pdf_passes_through_as_a_document() {
    let pdf = b"%PDF-1.7\n1 0 obj<<>>endobj\nxref\n0 2\n0000000000 65535 f \n0000000009 00000 n \ntrailer<</Size 2>>\nstartxref\n27\n%%EOF\n".to_vec();
    let p = run(pdf.clone(), &Policy::default());
    assert!(p.is_document());
    assert_eq!(p.bytes, pdf);
    assert_eq!((p.width, p.height), (None, None));
    assert_eq!(p.estimates().anthropic_tokens, None);
    assert_eq!(p.estimates().chars, 4800);
}

#[test]
fn a_pdf_over_the_document_cap_is_refused() {
    let mut pdf = b"%PDF-1.7\n".to_vec();
    pdf.resize(4_500_001, b' ');
    let err = prepare(pdf, &Policy::default(), Budget::BEDROCK).unwrap_err();
    assert!(matches!(
        err,
        MediaError::DocumentTooLarge {
            len: 4_500_001,
            cap: 4_500_000,
            measure: Measure::Raw
        }
    ));
}

// ---- resize sizes ----

#[test]
fn landscape_is_resized_to_the_long_side() {
    let p = run(png_rgb(&photo(300, 150, 4)), &small_box());
    assert_eq!((p.width, p.height), (Some(200), Some(100)));
    assert!(p.resized && p.reencoded);
    assert_eq!(p.media_type, MediaType::Png);
    assert_eq!(load(&p.bytes).dimensions(), (200, 100));
    assert_eq!(p.original.width, Some(300));
}

#[test]
fn portrait_is_resized_to_the_long_side() {
    let p = run(jpeg(&photo(120, 360, 5), 90), &small_box());
    assert_eq!((p.width, p.height), (Some(67), Some(200)));
    assert_eq!(load(&p.bytes).dimensions(), (67, 200));
}

#[test]
fn one_pixel_over_the_limit_is_resized() {
    let p = run(png_rgb(&photo(201, 100, 6)), &small_box());
    assert_eq!((p.width, p.height), (Some(200), Some(100)));
    assert!(p.resized);
}

#[test]
fn default_policy_resizes_to_2000() {
    let flat = DynamicImage::ImageLuma8(GrayImage::from_pixel(2400, 1200, Luma([90])));
    let p = run(png(&flat), &Policy::default());
    assert_eq!((p.width, p.height), (Some(2000), Some(1000)));
}

// ---- codec rules ----

#[test]
fn png_stays_png() {
    let p = run(png_rgb(&photo(400, 300, 7)), &small_box());
    assert_eq!(p.media_type, MediaType::Png);
    assert_eq!(sniff(&p.bytes), Sniffed::Media(MediaType::Png));
}

#[test]
fn jpeg_stays_jpeg_at_quality_85() {
    let p = run(jpeg(&photo(400, 300, 8), 95), &small_box());
    assert_eq!(p.media_type, MediaType::Jpeg);
    assert_eq!(p.quality, Some(85));
    assert_eq!(sniff(&p.bytes), Sniffed::Media(MediaType::Jpeg));
}

#[test]
fn gif_stays_gif_and_an_animation_keeps_its_first_frame() {
    let p = run(gif(300, 100, 3), &small_box());
    assert_eq!(p.media_type, MediaType::Gif);
    assert!(p.first_frame_only);
    let still = run(gif(300, 100, 1), &small_box());
    assert!(!still.first_frame_only);
    assert_eq!((still.width, still.height), (Some(200), Some(67)));
}

#[test]
fn bmp_always_becomes_png_even_when_small() {
    let img = photo(50, 40, 9);
    let p = run(bmp(&img), &small_box());
    assert_eq!(p.media_type, MediaType::Png);
    assert!(p.reencoded && !p.resized);
    assert_eq!(load(&p.bytes).to_rgb8(), img, "lossless");
}

#[test]
fn opaque_webp_becomes_jpeg_at_quality_80() {
    let p = run(
        webp(&DynamicImage::ImageRgb8(photo(300, 200, 10))),
        &small_box(),
    );
    assert_eq!(p.media_type, MediaType::Jpeg);
    assert_eq!(p.quality, Some(80));
    // Declared alpha that is fully opaque still counts as opaque.
    let rgba = DynamicImage::ImageRgb8(photo(300, 200, 10)).to_rgba8();
    let p = run(webp(&DynamicImage::ImageRgba8(rgba)), &small_box());
    assert_eq!(p.media_type, MediaType::Jpeg);
}

#[test]
fn webp_with_transparency_becomes_png() {
    let p = run(
        webp(&DynamicImage::ImageRgba8(with_alpha(300, 200))),
        &small_box(),
    );
    assert_eq!(p.media_type, MediaType::Png);
    let out = load(&p.bytes).to_rgba8();
    assert_eq!(out.get_pixel(10, 10)[3], 0, "transparent side kept");
    assert_eq!(out.get_pixel(190, 10)[3], 255);
}

#[test]
fn an_alpha_channel_no_pixel_uses_is_dropped() {
    let rgba = DynamicImage::ImageRgb8(photo(300, 200, 20)).to_rgba8();
    let p = run(png(&DynamicImage::ImageRgba8(rgba)), &small_box());
    assert_eq!(load(&p.bytes).color(), image::ColorType::Rgb8);
    let p = run(
        png(&DynamicImage::ImageRgba8(with_alpha(300, 200))),
        &small_box(),
    );
    assert_eq!(load(&p.bytes).color(), image::ColorType::Rgba8);
}

#[test]
fn sixteen_bit_png_is_written_with_eight_bits() {
    let p = run(png16(300, 100), &small_box());
    assert_eq!(load(&p.bytes).color(), image::ColorType::Rgb8);
}

#[test]
fn grayscale_jpeg_stays_grayscale() {
    let gray = GrayImage::from_fn(300, 300, |x, y| Luma([((x + y) % 256) as u8]));
    let p = run(jpeg_gray(&gray, 90), &small_box());
    assert_eq!(load(&p.bytes).color(), image::ColorType::L8);
}

#[test]
fn an_rgb_icc_profile_is_kept_when_re_encoding() {
    use image::codecs::png::PngEncoder;
    use image::{ImageDecoder, ImageEncoder};
    // A stand-in profile: only its header's colour space is looked at.
    let mut icc = vec![0u8; 128];
    icc[16..20].copy_from_slice(b"RGB ");
    let img = photo(300, 200, 21);
    let mut bytes = Vec::new();
    let mut enc = PngEncoder::new(&mut bytes);
    enc.set_icc_profile(icc.clone()).unwrap();
    enc.write_image(img.as_raw(), 300, 200, image::ExtendedColorType::Rgb8)
        .unwrap();
    let p = run(bytes, &small_box());
    assert!(p.reencoded);
    let mut dec = image::codecs::png::PngDecoder::new(std::io::Cursor::new(&p.bytes)).unwrap();
    assert_eq!(dec.icc_profile().unwrap(), Some(icc));
}

// ---- orientation ----

#[test]
fn exif_rotation_is_applied_when_re_encoding() {
    // Stored 300×200 with the marker top-left; orientation 6 = turn 90°
    // clockwise to view, so the marker ends up top-right of a 200×300.
    let bytes = jpeg_oriented(&marked(300, 200, 60), 6);
    let p = run(bytes, &small_box());
    assert_eq!((p.width, p.height), (Some(133), Some(200)));
    let out = load(&p.bytes).to_rgb8();
    assert_eq!(out.dimensions(), (133, 200));
    let red = |x, y| {
        let px = out.get_pixel(x, y);
        px[0] > 200 && px[2] < 60
    };
    assert!(red(128, 4), "marker top-right");
    assert!(!red(4, 4) && !red(4, 195) && !red(128, 195));
}

#[test]
fn exif_rotation_is_applied_without_resizing_too() {
    // Over budget but within the box: re-encoded, so turned upright.
    // Orientation 8 = turn 90° counter-clockwise to view: the marker goes
    // bottom-left.
    let bytes = jpeg_oriented(&marked(120, 80, 30), 8);
    let budget = Budget::new(bytes.len() - 1, Measure::Raw);
    let p = prepare(bytes, &small_box(), budget).unwrap();
    assert_eq!((p.width, p.height), (Some(80), Some(120)));
    assert!(!p.resized && p.reencoded);
    let out = load(&p.bytes).to_rgb8();
    assert!(out.get_pixel(4, 116)[0] > 200 && out.get_pixel(4, 4)[0] < 60);
}

// ---- bounded decoding ----

fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend_from_slice(&width.to_be_bytes());
    b.extend_from_slice(&height.to_be_bytes());
    b.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

#[test]
fn a_decompression_bomb_header_is_refused_before_decoding() {
    let start = Instant::now();
    let err = prepare(
        png_header(100_000, 100_000),
        &Policy::default(),
        Budget::ANTHROPIC,
    )
    .unwrap_err();
    assert!(matches!(
        err,
        MediaError::TooManyPixels {
            width: 100_000,
            height: 100_000,
            ..
        }
    ));
    assert!(start.elapsed() < Duration::from_secs(1));
}

#[test]
fn a_real_bomb_is_refused_by_the_pixel_limit() {
    // 4200×4200 of one colour compresses to a few kB: more than sixteen
    // times the limit, which no reduction while decoding is tried for.
    let flat = DynamicImage::ImageLuma8(GrayImage::new(4200, 4200));
    let bytes = png(&flat);
    assert!(bytes.len() < 100_000);
    let policy = Policy::default().with_max_pixels(1_000_000);
    let err = prepare(bytes, &policy, Budget::ANTHROPIC).unwrap_err();
    assert!(matches!(err, MediaError::TooManyPixels { .. }), "{err}");
}

#[test]
fn a_tall_png_over_the_pixel_limit_is_read_reduced_and_fitted() {
    // A full-page screenshot's shape, twice the limit: averaged down
    // while its rows are read, then fitted as any other.
    let tall = png_rgb(&screenshot(500, 4000, 3));
    let policy = small_box().with_max_pixels(1_000_000);
    let p = prepare(tall, &policy, Budget::ANTHROPIC).unwrap();
    assert!(p.reencoded && p.resized);
    assert_eq!(
        (p.original.width, p.original.height),
        (Some(500), Some(4000))
    );
    let (w, h) = (p.width.unwrap(), p.height.unwrap());
    assert_eq!(h, policy.max_dim(), "{w}×{h}");
    assert_eq!(w, (policy.max_dim() + 4) / 8, "{w}×{h}");
}

#[test]
fn a_jpeg_over_the_pixel_limit_is_decoded_at_a_smaller_scale_and_fitted() {
    // A large scan's shape, twice the limit: decoded at half size by the
    // codec, then fitted as any other, upright from its EXIF.
    let policy = small_box().with_max_pixels(1_000_000);
    let p = run(jpeg(&photo(500, 4000, 4), 90), &policy);
    assert!(p.reencoded && p.resized);
    assert_eq!(p.media_type, MediaType::Jpeg);
    assert_eq!((p.width, p.height), (Some(25), Some(200)));
    assert_eq!(
        (p.original.width, p.original.height),
        (Some(500), Some(4000))
    );
    let turned = run(jpeg_oriented(&photo(500, 4000, 4), 6), &policy);
    assert_eq!((turned.width, turned.height), (Some(200), Some(25)));
    let gray = run(
        jpeg_gray(&DynamicImage::ImageRgb8(photo(500, 4000, 4)).to_luma8(), 90),
        &policy,
    );
    assert_eq!((gray.width, gray.height), (Some(25), Some(200)));
    // An eighth a side is as far as the codec goes: 1000×1000 is 64 times
    // 15 625, and 125×125 is still over 15 000.
    let err = prepare(
        jpeg(&photo(1000, 1000, 5), 90),
        &small_box().with_max_pixels(15_000),
        Budget::ANTHROPIC,
    )
    .unwrap_err();
    assert!(matches!(err, MediaError::TooManyPixels { .. }), "{err}");
    let p = run(
        jpeg(&photo(1000, 1000, 5), 90),
        &small_box().with_max_pixels(15_625),
    );
    assert_eq!((p.width, p.height), (Some(125), Some(125)));
    // Progressive: its coefficients are held at full size (500 × 4000 × 3
    // samples of two bytes, 12 MB), within the allocation limit or not.
    let mut progressive = Vec::new();
    let mut enc = jpeg_encoder::Encoder::new(&mut progressive, 90);
    enc.set_progressive(true);
    enc.encode(
        photo(500, 4000, 4).as_raw(),
        500,
        4000,
        jpeg_encoder::ColorType::Rgb,
    )
    .unwrap();
    let p = run(progressive.clone(), &policy);
    assert_eq!((p.width, p.height), (Some(25), Some(200)));
    let err = prepare(
        progressive,
        &policy.clone().with_max_alloc(8 << 20),
        Budget::ANTHROPIC,
    )
    .unwrap_err();
    assert!(matches!(err, MediaError::MemoryLimit { .. }), "{err}");
    // Cut short: still refused as damaged, before any decoder runs.
    let mut cut = jpeg(&photo(500, 4000, 4), 90);
    cut.truncate(cut.len() / 2);
    let err = prepare(cut, &policy, Budget::ANTHROPIC).unwrap_err();
    assert!(matches!(err, MediaError::Corrupt { .. }), "{err}");
}

#[test]
fn the_allocation_limit_is_enforced() {
    let bytes = png_rgb(&photo(300, 300, 11));
    let policy = small_box().with_max_alloc(100_000);
    let err = prepare(bytes, &policy, Budget::ANTHROPIC).unwrap_err();
    assert!(
        matches!(err, MediaError::MemoryLimit { max_alloc: 100_000 }),
        "{err}"
    );
}

#[test]
fn a_truncated_image_to_resize_is_corrupt_or_truncated() {
    let mut bytes = png_rgb(&photo(300, 300, 12));
    bytes.truncate(bytes.len() / 2);
    let err = prepare(bytes, &small_box(), Budget::ANTHROPIC).unwrap_err();
    assert!(
        matches!(
            err,
            MediaError::Corrupt {
                media_type: MediaType::Png,
                damage: Damage::Truncated { .. },
            }
        ),
        "{err}"
    );
    assert!(err.to_string().starts_with("corrupt or truncated PNG: "));
}

// ---- what cannot be attached ----

#[test]
fn unknown_unsupported_and_empty_bytes_are_refused() {
    let p = Policy::default();
    let b = Budget::ANTHROPIC;
    assert!(matches!(prepare(vec![], &p, b), Err(MediaError::Empty)));
    assert!(matches!(
        prepare(b"just text".to_vec(), &p, b),
        Err(MediaError::UnknownFormat)
    ));
    assert!(matches!(
        prepare(b"II*\0\x08\0\0\0rest".to_vec(), &p, b),
        Err(MediaError::UnsupportedFormat("TIFF"))
    ));
    assert!(matches!(
        prepare(b"<svg xmlns='http://www.w3.org/2000/svg'/>".to_vec(), &p, b),
        Err(MediaError::UnsupportedFormat("SVG"))
    ));
    let err = prepare(b"\x89PNG\r\n\x1a\n\0\0".to_vec(), &p, b).unwrap_err();
    assert!(matches!(err, MediaError::BadHeader { .. }), "{err}");
}

// ---- budgets ----

#[test]
fn a_png_over_the_budget_is_scaled_down_until_it_fits() {
    let bytes = png_rgb(&noise_rgb(180, 180, 13)); // ~97 kB, incompressible
    let budget = Budget::new(40_000, Measure::Raw);
    let p = prepare(bytes, &small_box(), budget).unwrap();
    assert_eq!(p.media_type, MediaType::Png);
    assert!(p.bytes.len() <= 40_000);
    assert!(p.resized && !p.fitting.is_empty());
    assert!(p.fitting.iter().all(|s| s.measured > 40_000));
    assert!(p.width.unwrap() < 180);
}

#[test]
fn a_jpeg_over_the_budget_steps_quality_down_before_scaling() {
    let bytes = jpeg(&noise_rgb(200, 200, 14), 95);
    let budget = Budget::new(12_000, Measure::Base64);
    let p = prepare(bytes, &small_box(), budget).unwrap();
    assert!(p.base64_len() <= 12_000);
    let qualities: Vec<_> = p.fitting.iter().map(|s| s.quality).collect();
    assert_eq!(
        &qualities[..5],
        [Some(85), Some(75), Some(65), Some(55), Some(45)]
    );
    assert_eq!(p.fitting[..5].iter().map(|s| s.width).max(), Some(200));
    assert_eq!(p.quality, Some(45));
    assert!(p.resized, "noise needs scaling too");
}

#[test]
fn the_anthropic_cap_counts_base64_and_bedrock_counts_raw_bytes() {
    // ~30 kB of noise: 40 kB of base64.
    let bytes = png_rgb(&noise_rgb(100, 100, 15));
    let raw = bytes.len();
    let b64 = raw.div_ceil(3) * 4;
    let on_raw = prepare(bytes.clone(), &small_box(), Budget::new(raw, Measure::Raw)).unwrap();
    assert!(!on_raw.reencoded, "fits on raw bytes");
    let on_b64 = prepare(bytes, &small_box(), Budget::new(b64 - 1, Measure::Base64)).unwrap();
    assert!(on_b64.reencoded && on_b64.base64_len() < b64);
}

#[test]
fn a_budget_nothing_fits_is_an_error_not_a_bad_request() {
    let bytes = png_rgb(&photo(100, 100, 16));
    let err = prepare(bytes, &small_box(), Budget::new(50, Measure::Raw)).unwrap_err();
    assert!(
        matches!(err, MediaError::OverBudget { cap: 50, .. }),
        "{err}"
    );
}

// ---- output ----

#[test]
fn identical_input_gives_identical_output() {
    let bytes = jpeg(&photo(500, 300, 17), 92);
    let a = run(bytes.clone(), &small_box());
    let b = run(bytes, &small_box());
    assert!(a.reencoded);
    assert_eq!(a.bytes, b.bytes);
    let png_in = png_rgb(&photo(500, 300, 17));
    assert_eq!(
        run(png_in.clone(), &small_box()).bytes,
        run(png_in, &small_box()).bytes
    );
}

#[test]
fn base64_is_appended_to_the_callers_buffer() {
    let p = run(jpeg(&photo(300, 200, 18), 90), &small_box());
    let mut out = String::from("{\"data\":\"");
    p.write_base64(&mut out);
    let b64 = &out[9..];
    assert_eq!(b64.len(), p.base64_len());
    let engine = base64::engine::general_purpose::STANDARD;
    assert_eq!(engine.decode(b64).unwrap(), p.bytes);
    let mut url = String::new();
    p.write_data_url(&mut url);
    assert!(url.starts_with("data:image/jpeg;base64,"));
    assert!(url.ends_with(b64));
}

#[test]
fn estimates_follow_the_size_sent() {
    let p = run(png_rgb(&photo(400, 300, 19)), &small_box());
    let e = p.estimates();
    assert_eq!(e.chars, 4800);
    // Claude's visual tokens: ⌈200 / 28⌉ × ⌈150 / 28⌉.
    assert_eq!(e.anthropic_tokens, Some(8 * 6));
    assert_eq!(e.openai_tokens, Some(85 + 170));
}
