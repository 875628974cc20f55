//! Encoders. Each is deterministic: the same pixels and settings give the
//! same bytes on every machine.
//!
//! * JPEG: `jpeg-encoder`, 4:2:0 chroma (averaged), standard Huffman tables,
//!   its portable code path (the SIMD one writes different bytes).
//! * PNG: `image`'s encoder, adaptive filters; fast deflate, or deflate
//!   level 2 when the image compresses well (screenshots, diagrams).
//! * GIF: `image`'s encoder (NeuQuant palette, speed 10).

use image::codecs::gif::GifEncoder;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{DynamicImage, ImageEncoder};
use jpeg_encoder::{ChromaSubsamplingMethod, ColorType, Encoder, SamplingFactor};

use super::error::MediaError;
use super::sniff::MediaType;

/// Encode `image` as `media_type` (PNG, JPEG or GIF), with `quality` for
/// JPEG and the ICC profile kept where its colour model still matches.
///
/// # Errors
/// [`MediaError::Encode`] should the encoder refuse (e.g. a JPEG wider than
/// 65535 px, which the policy already rules out).
pub(crate) fn encode(
    image: &DynamicImage,
    media_type: MediaType,
    quality: u8,
    icc: Option<&[u8]>,
) -> Result<Vec<u8>, MediaError> {
    let fail = |message: String| MediaError::Encode {
        media_type,
        message,
    };
    let gray = !image.color().has_color();
    let icc = icc.filter(|p| icc_matches(p, gray));
    match media_type {
        MediaType::Jpeg => jpeg(image, quality, icc).map_err(fail),
        MediaType::Png => png(image, icc).map_err(|e| fail(e.to_string())),
        MediaType::Gif => gif(image).map_err(|e| fail(e.to_string())),
        _ => Err(fail("not an output format".into())),
    }
}

fn jpeg(image: &DynamicImage, quality: u8, icc: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let (w, h) = (image.width(), image.height());
    let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(format!("{w}×{h} is over JPEG's 65535-pixel side"));
    };
    let mut out = Vec::with_capacity((w as usize * h as usize) / 4);
    let mut encoder = Encoder::new(&mut out, quality);
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
    result.map_err(|e| e.to_string())?;
    Ok(out)
}

fn png(image: &DynamicImage, icc: Option<&[u8]>) -> image::ImageResult<Vec<u8>> {
    let fast = png_with(image, icc, FAST)?;
    // The fast compressor barely finds long matches: fine for photographic
    // pixels (deflate level 2 saves ~2 % there, at nine times the time),
    // but screenshots and diagrams come out 1.2–3.5× larger than they need
    // to, and unfiltered rows compress best for their flat colours and
    // repeated runs. Which kind an image is, a trial on a band of its rows
    // tells: the thorough settings go over the whole image only when they
    // save a tenth on the band. (Chosen by measurement against
    // `vipsthumbnail --size 2000x2000`: docs/performance.md, "PNG bytes".
    // On a 2000×1250 screenshot miniz_oxide's level 2 writes 1.3 % more
    // than its level 4 in half the time; zlib-rs at level 4 is as fast
    // but writes 9 % more.)
    if thorough_pays(image)? {
        let thorough = png_with(image, icc, THOROUGH)?;
        if thorough.len() < fast.len() {
            return Ok(thorough);
        }
    }
    Ok(fast)
}

/// Photographic pixels: the fast compressor, filters chosen per row.
const FAST: (CompressionType, FilterType) = (CompressionType::Fast, FilterType::Adaptive);
/// Screenshots and diagrams: deflate level 2, rows unfiltered.
const THOROUGH: (CompressionType, FilterType) = (CompressionType::Level(2), FilterType::NoFilter);

/// Whether [`THOROUGH`] writes the middle sixteenth of the rows (at least
/// 64) at least a tenth smaller than [`FAST`] does.
fn thorough_pays(image: &DynamicImage) -> image::ImageResult<bool> {
    let (w, h) = (image.width(), image.height());
    let rows = (h / 16).max(64).min(h);
    let band = image.crop_imm(0, (h - rows) / 2, w, rows);
    let fast = png_with(&band, None, FAST)?.len();
    let thorough = png_with(&band, None, THOROUGH)?.len();
    Ok(thorough * 10 < fast * 9)
}

fn png_with(
    image: &DynamicImage,
    icc: Option<&[u8]>,
    (compression, filter): (CompressionType, FilterType),
) -> image::ImageResult<Vec<u8>> {
    let mut out = Vec::new();
    let mut encoder = PngEncoder::new_with_quality(&mut out, compression, filter);
    if let Some(icc) = icc {
        // A profile the encoder cannot embed is dropped, not fatal.
        let _ = encoder.set_icc_profile(icc.to_vec());
    }
    encoder.write_image(
        image.as_bytes(),
        image.width(),
        image.height(),
        image.color().into(),
    )?;
    Ok(out)
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
