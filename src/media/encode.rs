//! Encoders. Each is deterministic: the same pixels and settings give the
//! same bytes on every machine.
//!
//! * JPEG: `jpeg-encoder`, 4:2:0 chroma (averaged), standard Huffman tables,
//!   its portable code path (the SIMD one writes different bytes).
//! * PNG: `image`'s encoder, adaptive filters, fast deflate; or, when the
//!   image compresses well (screenshots, diagrams), rows unfiltered and
//!   libdeflate's level 2 ([`super::png_write`]).
//! * GIF: `image`'s encoder (NeuQuant palette, speed 10).

use image::codecs::gif::GifEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{DynamicImage, ImageEncoder};
use jpeg_encoder::{ChromaSubsamplingMethod, ColorType, Encoder, SamplingFactor};

use super::error::MediaError;
use super::png_write::{self, Layout};
use super::sniff::MediaType;
use super::workspace::{image_from, Workspace};

/// Encode `image` as `media_type` (PNG, JPEG or GIF), with `quality` for
/// JPEG and the ICC profile kept where its colour model still matches.
/// The image's buffer is written in and put back as it was: a PNG's rows
/// are given their filter bytes in place ([`png_write::unfiltered`]).
///
/// # Errors
/// [`MediaError::Encode`] should the encoder refuse (e.g. a JPEG wider than
/// 65535 px, which the policy already rules out).
pub(crate) fn encode(
    image: &mut DynamicImage,
    media_type: MediaType,
    quality: u8,
    icc: Option<&[u8]>,
    work: &mut Workspace,
) -> Result<Vec<u8>, MediaError> {
    let fail = |message: String| MediaError::Encode {
        media_type,
        message,
    };
    let gray = !image.color().has_color();
    let icc = icc.filter(|p| icc_matches(p, gray));
    match media_type {
        MediaType::Jpeg => jpeg(image, quality, icc, work).map_err(fail),
        MediaType::Png => png(image, icc, work).map_err(fail),
        MediaType::Gif => gif(image).map_err(|e| fail(e.to_string())),
        _ => Err(fail("not an output format".into())),
    }
}

fn jpeg(
    image: &DynamicImage,
    quality: u8,
    icc: Option<&[u8]>,
    work: &mut Workspace,
) -> Result<Vec<u8>, String> {
    let (w, h) = (image.width(), image.height());
    let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(format!("{w}×{h} is over JPEG's 65535-pixel side"));
    };
    let mut out = work.take((w as usize * h as usize) / 4);
    let written = jpeg_into(image, (w16, h16), quality, icc, &mut out).map(|()| out.to_vec());
    work.give(out);
    written
}

/// [`jpeg`], written into `out`.
fn jpeg_into(
    image: &DynamicImage,
    (w16, h16): (u16, u16),
    quality: u8,
    icc: Option<&[u8]>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut encoder = Encoder::new(out, quality);
    encoder.set_sampling_factor(SamplingFactor::R_4_2_0);
    encoder.set_chroma_subsampling_method(ChromaSubsamplingMethod::Average);
    // Optimised Huffman tables would save ~8 %, but for flat images they
    // produce tables that zune-jpeg (the decoder behind `image`) misreads;
    // the standard tables decode the same everywhere.
    if let Some(icc) = icc {
        // A profile too large for JPEG's segments is dropped, not fatal.
        let _ = encoder.add_icc_profile(icc);
    }
    let result = match image {
        DynamicImage::ImageLuma8(i) => encoder.encode(i.as_raw(), w16, h16, ColorType::Luma),
        DynamicImage::ImageRgb8(i) => encoder.encode(i.as_raw(), w16, h16, ColorType::Rgb),
        // Only opaque images are written as JPEG; the alpha bytes are skipped.
        DynamicImage::ImageRgba8(i) => encoder.encode(i.as_raw(), w16, h16, ColorType::Rgba),
        DynamicImage::ImageLumaA8(_) => {
            encoder.encode(image.to_luma8().as_raw(), w16, h16, ColorType::Luma)
        }
        other => encoder.encode(other.to_rgb8().as_raw(), w16, h16, ColorType::Rgb),
    };
    result.map_err(|e| e.to_string())
}

fn png(
    image: &mut DynamicImage,
    icc: Option<&[u8]>,
    work: &mut Workspace,
) -> Result<Vec<u8>, String> {
    // The fast compressor barely finds long matches: fine for photographic
    // pixels (deflate level 2 saves ~2 % there, at several times the
    // time), but screenshots and diagrams come out 1.2–3.5× larger than
    // they need to, and unfiltered rows compress best for their flat
    // colours and repeated runs. Which kind an image is, a trial on a band
    // of its rows tells: the thorough settings go over the whole image
    // only when they save a tenth on the band, and the fast ones then only
    // if the thorough bytes are not below what the band says the fast
    // settings would write.
    // (Chosen by measurement against `vipsthumbnail --size 2000x2000`:
    // docs/performance.md, "PNG bytes". On a 2000×1250 screenshot with a
    // photo panel libdeflate's level 2 writes 1.03× vips's bytes in 36 ms,
    // where miniz_oxide took 64 ms for 1.00× at its level 2 and 35 ms for
    // 1.16× at its level 1; libdeflate's level 1 writes 1.30×.)
    let band = band_trial(image, work)?;
    if band.thorough * 10 < band.fast * 9 {
        let expect = band.whole(band.thorough, image);
        let whole = png_with(image, icc, Settings::Thorough, expect, work)?;
        // What the fast settings would write, from the band: when the
        // thorough bytes are below it, encoding the fast way as well
        // would nearly never win.
        if whole.len() < band.whole(band.fast, image) {
            return Ok(whole);
        }
        let fast = png_with(image, icc, Settings::Fast, 0, work)?;
        // The other one goes back to the workspace.
        let (kept, other) = if whole.len() < fast.len() {
            (whole, fast)
        } else {
            (fast, whole)
        };
        work.give(other);
        return Ok(kept);
    }
    png_with(image, icc, Settings::Fast, 0, work)
}

/// The two ways a PNG is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Settings {
    /// Photographic pixels: `image`'s fast compressor, filters chosen per
    /// row.
    Fast,
    /// Screenshots and diagrams: rows unfiltered, libdeflate level 2 (for
    /// 8-bit samples; deeper ones through `image`'s encoder at deflate
    /// level 2).
    Thorough,
}

/// libdeflate's level for [`Settings::Thorough`].
const THOROUGH_LEVEL: i32 = 2;

/// What [`Settings::Fast`] and [`Settings::Thorough`] write for a band of
/// an image's rows.
struct Band {
    /// Rows in the band.
    rows: u32,
    /// Bytes written with [`Settings::Fast`].
    fast: usize,
    /// Bytes written with [`Settings::Thorough`].
    thorough: usize,
}

impl Band {
    /// What `bytes` for the band come to for all of `image`'s rows.
    fn whole(&self, bytes: usize, image: &DynamicImage) -> usize {
        let whole = bytes as u64 * u64::from(image.height()) / u64::from(self.rows);
        usize::try_from(whole).unwrap_or(usize::MAX)
    }
}

/// [`Band`] for the middle sixteenth of the rows (at least 64).
fn band_trial(image: &DynamicImage, work: &mut Workspace) -> Result<Band, String> {
    let (w, h) = (image.width(), image.height());
    let rows = (h / 16).max(64).min(h);
    let mut band = image.crop_imm(0, (h - rows) / 2, w, rows);
    let mut len = |settings| {
        let written = png_with(&mut band, None, settings, 0, work)?;
        let len = written.len();
        work.give(written);
        Ok::<_, String>(len)
    };
    Ok(Band {
        rows: rows.max(1),
        fast: len(Settings::Fast)?,
        thorough: len(Settings::Thorough)?,
    })
}

/// `image` written with `settings`; `expect`, the bytes thought to come
/// out, 0 when not known ([`png_write::unfiltered`]).
fn png_with(
    image: &mut DynamicImage,
    icc: Option<&[u8]>,
    settings: Settings,
    expect: usize,
    work: &mut Workspace,
) -> Result<Vec<u8>, String> {
    let size = (image.width(), image.height());
    let layout = match image {
        DynamicImage::ImageLuma8(_) => Some(Layout::L8),
        DynamicImage::ImageLumaA8(_) => Some(Layout::LA8),
        DynamicImage::ImageRgb8(_) => Some(Layout::RGB8),
        DynamicImage::ImageRgba8(_) => Some(Layout::RGBA8),
        _ => None,
    };
    let (compression, filter) = match (settings, layout) {
        (Settings::Thorough, Some(layout)) => {
            return in_place(image, |pixels| {
                png_write::unfiltered(pixels, size, layout, icc, THOROUGH_LEVEL, expect, work)
            })
        }
        (Settings::Thorough, None) => (CompressionType::Level(2), FilterType::NoFilter),
        (Settings::Fast, _) => (CompressionType::Fast, FilterType::Adaptive),
    };
    let mut out = work.take(image.as_bytes().len() / 2);
    let mut encoder = PngEncoder::new_with_quality(&mut out, compression, filter);
    if let Some(icc) = icc {
        // A profile the encoder cannot embed is dropped, not fatal.
        let _ = encoder.set_icc_profile(icc.to_vec());
    }
    let written = encoder
        .write_image(image.as_bytes(), size.0, size.1, image.color().into())
        .map(|()| out.to_vec())
        .map_err(|e| e.to_string());
    work.give(out);
    written
}

/// `write` given the bytes of an 8-bit `image` to work in, which it
/// leaves as it found them; the image is whole again after.
fn in_place(
    image: &mut DynamicImage,
    write: impl FnOnce(&mut Vec<u8>) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let (width, height, color) = (image.width(), image.height(), image.color());
    let taken = std::mem::replace(image, DynamicImage::new(0, 0, color));
    let mut pixels = match taken {
        DynamicImage::ImageLuma8(i) => i.into_raw(),
        DynamicImage::ImageLumaA8(i) => i.into_raw(),
        DynamicImage::ImageRgb8(i) => i.into_raw(),
        DynamicImage::ImageRgba8(i) => i.into_raw(),
        other => {
            *image = other;
            return Err(format!("no 8-bit layout for {color:?}"));
        }
    };
    let written = write(&mut pixels);
    *image = image_from(width, height, color, pixels)
        .ok_or_else(|| format!("the {width}×{height} pixels were not given back whole"))?;
    written
}

fn gif(image: &DynamicImage) -> image::ImageResult<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut encoder = GifEncoder::new_with_speed(&mut out, 10);
        let rgba = image.to_rgba8();
        encoder.encode(
            rgba.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgba8,
        )?;
    }
    Ok(out)
}

/// Whether an ICC profile describes the colour model being written: `GRAY`
/// for gray output, `RGB ` for colour (a CMYK profile from a CMYK JPEG, now
/// converted to RGB, must not be carried over).
fn icc_matches(profile: &[u8], gray: bool) -> bool {
    let space = profile.get(16..20);
    if gray {
        space == Some(b"GRAY")
    } else {
        space == Some(b"RGB ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};

    /// Flat panels with short runs of "text": what screenshots look like.
    fn screenshot(width: u32, height: u32) -> DynamicImage {
        DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
            let ink = (y % 28) < 14 && (x * 7 + y * 3) % 23 < 9 && x > width / 5;
            match (x < width / 5, ink) {
                (true, _) => Rgb([33, 37, 43]),
                (false, true) => Rgb([20, 40, 60]),
                (false, false) => Rgb([250, 250, 250]),
            }
        }))
    }

    /// Gradients under per-pixel grain: what photographs look like.
    fn photo(width: u32, height: u32) -> DynamicImage {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let grain = (state & 15) as u32;
            Rgb([
                (x * 200 / width + grain) as u8,
                (y * 200 / height + grain) as u8,
                ((x + y) * 100 / (width + height) + grain) as u8,
            ])
        }))
    }

    fn pixels(png: &[u8]) -> Vec<u8> {
        image::load_from_memory(png).unwrap().into_bytes()
    }

    #[test]
    fn a_screenshot_is_written_the_thorough_way_and_a_photo_the_fast_way() {
        let mut shot = screenshot(600, 400);
        let written = png(&mut shot, None, &mut Workspace::default()).unwrap();
        assert_eq!(
            written,
            png_with(
                &mut shot,
                None,
                Settings::Thorough,
                0,
                &mut Workspace::default()
            )
            .unwrap()
        );
        assert!(
            written.len() * 10
                < png_with(
                    &mut shot,
                    None,
                    Settings::Fast,
                    0,
                    &mut Workspace::default()
                )
                .unwrap()
                .len()
                    * 9
        );
        assert_eq!(pixels(&written), shot.as_bytes());

        let mut photo = photo(600, 400);
        let written = png(&mut photo, None, &mut Workspace::default()).unwrap();
        assert_eq!(
            written,
            png_with(
                &mut photo,
                None,
                Settings::Fast,
                0,
                &mut Workspace::default()
            )
            .unwrap()
        );
        assert_eq!(pixels(&written), photo.as_bytes());
    }

    #[test]
    fn the_band_stands_for_the_middle_rows() {
        let shot = screenshot(300, 2000);
        let band = band_trial(&shot, &mut Workspace::default()).unwrap();
        assert_eq!(band.rows, 125);
        assert!(band.thorough * 10 < band.fast * 9);
        // A short image is tried whole.
        let short = band_trial(&screenshot(300, 40), &mut Workspace::default()).unwrap();
        assert_eq!(short.rows, 40);
    }
}
