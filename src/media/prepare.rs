//! From sniffed bytes to what a provider gets: pass-through, or decode,
//! resize, re-encode and fit the budget.

use std::borrow::Cow;

use base64::Engine;
use serde::Serialize;

use super::budget::{base64_len, Budget};
use super::data_uri::BASE64;
use super::encode::encode;
use super::encoded::Encoded;
use super::error::MediaError;
use super::estimate::Estimates;
use super::header::read_header;
use super::pixels::Pixels;
use super::policy::Policy;
use super::resize::fit_within;
use super::sniff::{sniff, MediaType, Sniffed};
use super::whole::ensure_whole;
use super::workspace::Workspace;

/// JPEG quality for a re-encoded JPEG.
const JPEG_QUALITY: u8 = 85;
/// JPEG quality for an opaque WEBP written as JPEG.
const WEBP_AS_JPEG_QUALITY: u8 = 80;
/// Each budget step lowers JPEG quality by this much…
const QUALITY_STEP: u8 = 10;
/// …down to this, before the image is scaled down instead.
const MIN_QUALITY: u8 = 40;
/// Scaling down for the budget stops when the long side would go below this.
const MIN_SIDE: u32 = 16;

/// Type, size and pixel size of a payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MediaFacts {
    /// Its media type.
    pub media_type: MediaType,
    /// Its length in bytes.
    pub bytes: usize,
    /// Width in pixels, `None` for a PDF.
    pub width: Option<u32>,
    /// Height in pixels, `None` for a PDF.
    pub height: Option<u32>,
}

/// One encode that came out over the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FitStep {
    /// Width encoded.
    pub width: u32,
    /// Height encoded.
    pub height: u32,
    /// JPEG quality used, `None` for PNG and GIF.
    pub quality: Option<u8>,
    /// Bytes written.
    pub bytes: usize,
    /// Their length as the budget measures it.
    pub measured: usize,
}

/// [`Prepared::data_url`].
struct DataUrl<'a>(&'a Prepared);

impl std::fmt::Display for DataUrl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "data:{};base64,{}",
            self.0.media_type.as_str(),
            self.0.base64()
        )
    }
}

/// A payload ready for a provider request.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Prepared {
    /// What [`Prepared::bytes`] are: PNG, JPEG, GIF, WEBP or PDF.
    pub media_type: MediaType,
    /// The payload.
    pub bytes: Vec<u8>,
    /// Width in pixels as sent (after orientation), `None` for a PDF.
    pub width: Option<u32>,
    /// Height in pixels as sent, `None` for a PDF.
    pub height: Option<u32>,
    /// What came in.
    pub original: MediaFacts,
    /// Whether the pixel size changed (to fit [`Policy::max_dim`] or the
    /// budget).
    pub resized: bool,
    /// Whether the bytes were re-encoded (otherwise they are the input's,
    /// untouched but for a PNG's colour profile no decoder should inflate,
    /// taken out).
    pub reencoded: bool,
    /// Whether an animation was reduced to its first frame.
    pub first_frame_only: bool,
    /// The JPEG quality written, when this crate wrote a JPEG.
    pub quality: Option<u8>,
    /// Encodes that came out over the budget before this one, in order.
    pub fitting: Vec<FitStep>,
    /// The payload's JSON texts, kept once written where asked.
    pub(crate) encoded: Encoded,
}

impl Prepared {
    /// Whether this is a document (PDF) rather than an image.
    pub fn is_document(&self) -> bool {
        self.media_type == MediaType::Pdf
    }

    /// The payload's facts, as [`Prepared::original`] holds the input's.
    pub fn facts(&self) -> MediaFacts {
        MediaFacts {
            media_type: self.media_type,
            bytes: self.bytes.len(),
            width: self.width,
            height: self.height,
        }
    }

    /// Length of the payload's base64 text (padded, standard alphabet).
    pub fn base64_len(&self) -> usize {
        base64_len(self.bytes.len())
    }

    /// Append the payload's base64 text (padded, standard alphabet, no line
    /// breaks) to `out`, encoding straight into it: no intermediate copy of
    /// the payload is made. The text needs no escaping inside a JSON string.
    ///
    /// ```
    /// use tool_carrier::media::{prepare, Budget, Policy};
    /// # fn main() -> Result<(), tool_carrier::media::MediaError> {
    /// let pdf = b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n";
    /// let prepared = prepare(pdf.to_vec(), &Policy::default(), Budget::ANTHROPIC)?;
    /// let mut out = String::from("\"data\":\"");
    /// prepared.write_base64(&mut out);
    /// assert!(out.starts_with("\"data\":\"JVBERi0xLjcK")); // %PDF-1.7\n
    /// assert_eq!(out.len(), 8 + prepared.base64_len());
    /// # Ok(()) }
    /// ```
    pub fn write_base64(&self, out: &mut String) {
        out.reserve(self.base64_len());
        BASE64.encode_string(&self.bytes, out);
    }

    /// The payload's base64 text as a [`Display`](std::fmt::Display) that
    /// encodes in small chunks as it is written: a serializer that streams
    /// (serde_json's `collect_str`) never holds the whole text.
    ///
    /// ```
    /// use tool_carrier::media::{prepare, Budget, Policy};
    /// # fn main() -> Result<(), tool_carrier::media::MediaError> {
    /// let pdf = b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n";
    /// let prepared = prepare(pdf.to_vec(), &Policy::default(), Budget::ANTHROPIC)?;
    /// let text = prepared.base64().to_string();
    /// assert!(text.starts_with("JVBERi0xLjcK") && text.len() == prepared.base64_len());
    /// assert_eq!(prepared.data_url().to_string(), format!("data:application/pdf;base64,{text}"));
    /// # Ok(()) }
    /// ```
    pub fn base64(&self) -> impl std::fmt::Display + '_ {
        base64::display::Base64Display::new(&self.bytes, &BASE64)
    }

    /// The payload as a `data:<type>;base64,<payload>` URL, displayed as
    /// [`Prepared::base64`] is.
    pub fn data_url(&self) -> impl std::fmt::Display + '_ {
        DataUrl(self)
    }

    /// Length of the payload's `data:<type>;base64,<payload>` URL.
    pub fn data_url_len(&self) -> usize {
        13 + self.media_type.as_str().len() + self.base64_len()
    }

    /// Append a `data:<type>;base64,<payload>` URL to `out` (for providers
    /// that take images as data URLs).
    pub fn write_data_url(&self, out: &mut String) {
        out.reserve(self.data_url_len());
        out.push_str("data:");
        out.push_str(self.media_type.as_str());
        out.push_str(";base64,");
        self.write_base64(out);
    }

    /// What this attachment costs: a fixed 4,800 characters for
    /// compaction, and token estimates from the size sent.
    pub fn estimates(&self) -> Estimates {
        Estimates::for_size(self.width.zip(self.height))
    }
}

/// Turn `bytes` into a payload that `budget` accepts.
///
/// * The type comes from the bytes ([`sniff`]).
/// * A PDF passes through unchanged if it fits the document cap and is
///   whole ([`check_whole`](super::check_whole): `%PDF-`, a version,
///   `startxref` and `%%EOF` at the end).
/// * A PNG, JPEG, GIF or WEBP within [`Policy::max_dim`] on both sides that
///   fits the image cap passes through unchanged if it is whole (its
///   structure walked to the end, PNG CRCs checked); its size is read from
///   the header, nothing is decoded.
/// * Otherwise the image is decoded within [`Policy::max_pixels`] and
///   [`Policy::max_alloc`], resized to fit `max_dim` (aspect kept,
///   Lanczos3), turned upright by its EXIF orientation, and encoded: PNG
///   and BMP as PNG, JPEG as JPEG (quality 85), GIF as GIF (first frame),
///   WEBP as JPEG (quality 80) when opaque or PNG when any pixel is
///   transparent.
/// * While the result is over the image cap, JPEG quality steps down by 10
///   to 40, then the image is scaled down, each attempt recorded in
///   [`Prepared::fitting`].
///
/// Takes the bytes by value so a pass-through moves them without a copy.
/// The same bytes, policy and budget always give the same output.
///
/// # Errors
/// [`MediaError::Empty`], [`MediaError::UnknownFormat`],
/// [`MediaError::UnsupportedFormat`] for what cannot be attached;
/// [`MediaError::Corrupt`] for a file cut off or damaged (a PDF or a
/// pass-through image by its structure, a decoded one by its structure or
/// its decoder); [`MediaError::BadHeader`], [`MediaError::TooManyPixels`],
/// [`MediaError::MemoryLimit`], [`MediaError::Decode`] for images that
/// cannot be decoded within the policy; [`MediaError::DocumentTooLarge`] and
/// [`MediaError::OverBudget`] when nothing fits the budget.
///
/// ```
/// use tool_carrier::media::{prepare, Budget, MediaError, Policy};
///
/// // A PNG header claiming 100000×100000 pixels: refused before decoding.
/// let mut bomb = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
/// bomb.extend_from_slice(&100_000u32.to_be_bytes());
/// bomb.extend_from_slice(&100_000u32.to_be_bytes());
/// bomb.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
/// let err = prepare(bomb, &Policy::default(), Budget::ANTHROPIC).unwrap_err();
/// assert!(matches!(err, MediaError::TooManyPixels { .. }));
///
/// let err = prepare(b"plain text".to_vec(), &Policy::default(), Budget::ANTHROPIC).unwrap_err();
/// assert!(matches!(err, MediaError::UnknownFormat));
///
/// // Fourteen bytes that start like a PDF: refused, never sent.
/// let err = prepare(b"%PDF-1.4 fake\n".to_vec(), &Policy::default(), Budget::ANTHROPIC).unwrap_err();
/// assert_eq!(err.to_string(), "corrupt or truncated PDF: no %%EOF at or after byte 0");
/// ```
pub fn prepare(bytes: Vec<u8>, policy: &Policy, budget: Budget) -> Result<Prepared, MediaError> {
    prepare_for(bytes, policy, budget, ANY_IMAGE)
}

/// Every image type [`prepare`] writes.
const ANY_IMAGE: &[MediaType] = &[
    MediaType::Png,
    MediaType::Jpeg,
    MediaType::Gif,
    MediaType::Webp,
];

/// [`prepare`] for a destination that takes only the image types in
/// `accepts` (Gemini refuses GIF; Ollama takes PNG and JPEG).
///
/// An image of another type never passes through: it is decoded and
/// written in the type the rules pick if accepted, else as PNG (or JPEG
/// when PNG is not accepted either). PDFs are not affected.
///
/// # Errors
/// As [`prepare`].
///
/// ```
/// use tool_carrier::media::{prepare_for, Budget, MediaType, Policy};
///
/// // A 1×1 GIF, for a destination that takes PNG and JPEG only.
/// let gif = b"GIF89a\x01\0\x01\0\x80\0\0\0\0\0\xff\xff\xff,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;";
/// let accepts = [MediaType::Png, MediaType::Jpeg];
/// let p = prepare_for(gif.to_vec(), &Policy::default(), Budget::UNLIMITED, &accepts).unwrap();
/// assert_eq!(p.media_type, MediaType::Png);
/// assert!(p.reencoded && !p.resized);
/// ```
pub fn prepare_for(
    bytes: Vec<u8>,
    policy: &Policy,
    budget: Budget,
    accepts: &[MediaType],
) -> Result<Prepared, MediaError> {
    prepare_in(bytes, policy, budget, accepts, &mut Workspace::default())
}

/// [`prepare_for`], its pixels worked on in `work`'s buffers.
pub(crate) fn prepare_in(
    bytes: Vec<u8>,
    policy: &Policy,
    budget: Budget,
    accepts: &[MediaType],
    work: &mut Workspace,
) -> Result<Prepared, MediaError> {
    if bytes.is_empty() {
        return Err(MediaError::Empty);
    }
    let media_type = match sniff(&bytes) {
        Sniffed::Media(t) => t,
        Sniffed::Unsupported(name) => return Err(MediaError::UnsupportedFormat(name)),
        Sniffed::Unknown => return Err(MediaError::UnknownFormat),
    };
    if media_type == MediaType::Pdf {
        if !budget.fits_document(bytes.len()) {
            return Err(MediaError::DocumentTooLarge {
                len: budget.measured_len(bytes.len()),
                cap: budget.document_cap(),
                measure: budget.measure(),
            });
        }
        ensure_whole(&bytes, media_type)?;
        return Ok(untouched(media_type, bytes, None));
    }
    let header = read_header(&bytes, media_type)?;
    let size = Some((header.width, header.height));
    let max_dim = policy.long_edge_for(header.width, header.height);
    let within = header.width <= max_dim && header.height <= max_dim;
    if within && accepts.contains(&media_type) && budget.fits_image(bytes.len()) {
        // Never decoded: what a provider would refuse is refused here. A
        // PNG whose colour profile no decoder should inflate is not sent
        // as it came: it is re-encoded below, without it.
        ensure_whole(&bytes, media_type)?;
        let bomb = media_type == MediaType::Png
            && matches!(
                super::profile_bomb::without_profile_bomb(&bytes),
                Cow::Owned(_)
            );
        if !bomb {
            return Ok(untouched(media_type, bytes, size));
        }
    }
    let original = MediaFacts {
        media_type,
        bytes: bytes.len(),
        width: Some(header.width),
        height: Some(header.height),
    };
    let mut pixels = Pixels::decode(&bytes, media_type, &header, policy, !within, work)?;
    let (output, quality) = match media_type {
        MediaType::Jpeg => (MediaType::Jpeg, Some(JPEG_QUALITY)),
        MediaType::Webp if !pixels.transparent => (MediaType::Jpeg, Some(WEBP_AS_JPEG_QUALITY)),
        MediaType::Gif => (MediaType::Gif, None),
        _ => (MediaType::Png, None),
    };
    let (output, quality) = if accepts.contains(&output) {
        (output, quality)
    } else if accepts.contains(&MediaType::Png) {
        (MediaType::Png, None)
    } else {
        (MediaType::Jpeg, Some(JPEG_QUALITY))
    };
    let fitted = fit(&mut pixels, output, quality, max_dim, budget, work);
    pixels.let_go(work);
    // Room for the next image's payload (freed, it would move the
    // allocator's threshold for a separate mapping above payloads' size,
    // and they would land in arenas that keep what the body frees).
    work.give(bytes);
    let fitted = fitted?;
    // Against the stored size: a raster read reduced was resized too.
    let full = (header.width, header.height);
    Ok(Prepared {
        media_type: output,
        width: Some(fitted.image_size.0),
        height: Some(fitted.image_size.1),
        bytes: fitted.bytes,
        original,
        resized: fitted.stored_size != full,
        reencoded: true,
        first_frame_only: header.animated,
        quality: fitted.quality,
        fitting: fitted.steps,
        encoded: Encoded::default(),
    })
}

fn untouched(media_type: MediaType, bytes: Vec<u8>, size: Option<(u32, u32)>) -> Prepared {
    let facts = MediaFacts {
        media_type,
        bytes: bytes.len(),
        width: size.map(|s| s.0),
        height: size.map(|s| s.1),
    };
    Prepared {
        media_type,
        bytes,
        width: facts.width,
        height: facts.height,
        original: facts,
        resized: false,
        reencoded: false,
        first_frame_only: false,
        quality: None,
        fitting: Vec::new(),
        encoded: Encoded::default(),
    }
}

struct Fitted {
    bytes: Vec<u8>,
    /// Size before orientation (compare with the decoded size).
    stored_size: (u32, u32),
    /// Size as sent.
    image_size: (u32, u32),
    quality: Option<u8>,
    steps: Vec<FitStep>,
}

/// Encode at the largest size within `max_dim`, then step quality down and
/// scale down until the result fits `budget`.
fn fit(
    pixels: &mut Pixels<'_>,
    output: MediaType,
    mut quality: Option<u8>,
    max_dim: u32,
    budget: Budget,
    work: &mut Workspace,
) -> Result<Fitted, MediaError> {
    let (w, h) = pixels.size;
    let mut size = fit_within(w, h, max_dim);
    let mut frame = pixels.render(size, work)?;
    let mut steps = Vec::new();
    loop {
        let image = frame.image_mut();
        let (width, height) = (image.width(), image.height());
        let encoded = encode(
            image,
            output,
            quality.unwrap_or(JPEG_QUALITY),
            pixels.icc.as_deref(),
            work,
        );
        let bytes = match encoded {
            Ok(bytes) => bytes,
            Err(e) => {
                pixels.done(frame, work);
                return Err(e);
            }
        };
        let measured = budget.measured_len(bytes.len());
        let step = FitStep {
            width,
            height,
            quality,
            bytes: bytes.len(),
            measured,
        };
        if measured <= budget.image_cap() {
            pixels.done(frame, work);
            // Written in a buffer of the workspace's, which may be larger:
            // a payload kept for the rest of a conversion holds its length.
            let mut bytes = bytes;
            bytes.shrink_to_fit();
            return Ok(Fitted {
                bytes,
                stored_size: size,
                image_size: (width, height),
                quality,
                steps,
            });
        }
        steps.push(step);
        work.give(bytes);
        if let Some(q) = quality.filter(|&q| q >= MIN_QUALITY + QUALITY_STEP) {
            quality = Some(q - QUALITY_STEP);
            continue;
        }
        // Encoded size roughly follows the pixel count: aim a little below
        // the cap, shrinking by at least 10 % and at most 75 % a side.
        let ratio = budget.image_cap() as f64 / measured as f64;
        let factor = (ratio.sqrt() * 0.9).clamp(0.25, 0.9);
        let long = f64::from(size.0.max(size.1)) * factor;
        let long = long as u32;
        pixels.done(frame, work);
        if long < MIN_SIDE {
            return Err(MediaError::OverBudget {
                media_type: output,
                len: measured,
                cap: budget.image_cap(),
                measure: budget.measure(),
                width,
                height,
            });
        }
        size = fit_within(w, h, long);
        frame = pixels.render(size, work)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::budget::Measure;
    use image::{DynamicImage, ImageFormat, Rgb, Rgba};

    fn encoded(image: DynamicImage, format: ImageFormat) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        image.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    /// Noisy pixels, so a tight budget makes the encoder step down.
    fn grain(x: u32, y: u32) -> u8 {
        let mut v = (x * 7919 + y * 104_729) ^ 0x5bd1_e995;
        v ^= v >> 13;
        v = v.wrapping_mul(0x5bd1_e995);
        (v >> 7) as u8
    }

    /// Images down every path of `prepare`: resized, their idle alpha
    /// dropped, transparent, gray, JPEG stepping its quality down, PNG and
    /// JPEG scaled down for a budget (decoded again), and one over it.
    fn cases() -> Vec<(Vec<u8>, Policy, Budget)> {
        let small = Policy::default().with_max_dim(96);
        let wide = Policy::default();
        let rgb = DynamicImage::ImageRgb8(image::RgbImage::from_fn(300, 200, |x, y| {
            Rgb([(x % 256) as u8, (y % 256) as u8, grain(x, y) / 8])
        }));
        let idle = DynamicImage::ImageRgba8(image::RgbaImage::from_fn(200, 100, |x, y| {
            Rgba([grain(x, y), 40, (x + y) as u8, 255])
        }));
        let clear = DynamicImage::ImageRgba8(image::RgbaImage::from_fn(150, 150, |x, y| {
            Rgba([200, grain(x, y), 10, (x * 2) as u8])
        }));
        let gray_alpha =
            DynamicImage::ImageLumaA8(image::GrayAlphaImage::from_fn(50, 40, |x, y| {
                image::LumaA([grain(x, y), 255])
            }));
        let photo = DynamicImage::ImageRgb8(image::RgbImage::from_fn(400, 300, |x, y| {
            Rgb([grain(x, y), grain(y, x), grain(x + 1, y)])
        }));
        let raw = |cap| Budget::new(cap, Measure::Raw);
        vec![
            (
                encoded(rgb.clone(), ImageFormat::Png),
                small.clone(),
                Budget::UNLIMITED,
            ),
            (
                encoded(idle.clone(), ImageFormat::Png),
                small.clone(),
                Budget::UNLIMITED,
            ),
            (
                encoded(clear, ImageFormat::Png),
                small.clone(),
                Budget::UNLIMITED,
            ),
            (
                encoded(gray_alpha, ImageFormat::Png),
                wide.clone(),
                Budget::UNLIMITED,
            ),
            (
                encoded(idle, ImageFormat::Bmp),
                wide.clone(),
                Budget::UNLIMITED,
            ),
            (
                encoded(photo.clone(), ImageFormat::Jpeg),
                wide.clone(),
                raw(60_000),
            ),
            (
                encoded(photo.clone(), ImageFormat::Jpeg),
                wide.clone(),
                raw(9_000),
            ),
            (
                encoded(photo.clone(), ImageFormat::Png),
                wide.clone(),
                raw(40_000),
            ),
            (encoded(photo, ImageFormat::Png), wide.clone(), raw(10)),
            (encoded(rgb, ImageFormat::Png), wide.clone(), raw(30_000)),
        ]
    }

    fn same(a: &Result<Prepared, MediaError>, b: &Result<Prepared, MediaError>) -> bool {
        match (a, b) {
            (Ok(a), Ok(b)) => {
                (
                    a.facts(),
                    &a.bytes,
                    a.original,
                    a.resized,
                    a.quality,
                    &a.fitting,
                ) == (
                    b.facts(),
                    &b.bytes,
                    b.original,
                    b.resized,
                    b.quality,
                    &b.fitting,
                )
            }
            (Err(a), Err(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }

    #[test]
    fn one_workspace_gives_each_image_what_a_fresh_one_gives() {
        let cases = cases();
        let fresh: Vec<_> = cases
            .iter()
            .map(|(bytes, policy, budget)| prepare_for(bytes.clone(), policy, *budget, ANY_IMAGE))
            .collect();
        // Every path is taken.
        let ok = |i: usize| fresh[i].as_ref().unwrap();
        assert!(ok(0).resized && ok(1).resized && ok(2).resized);
        assert!(!ok(4).resized && ok(4).reencoded);
        assert!(ok(5).quality < Some(JPEG_QUALITY) && !ok(5).resized);
        assert!(ok(6).resized && ok(7).resized && !ok(7).fitting.is_empty());
        assert!(matches!(fresh[8], Err(MediaError::OverBudget { .. })));
        // In several orders, one workspace for all.
        let n = cases.len();
        for order in [
            (0..n).collect::<Vec<_>>(),
            (0..n).rev().collect(),
            (0..n).map(|i| (i * 3 + 1) % n).collect(),
        ] {
            let mut work = Workspace::default();
            for i in order {
                let (bytes, policy, budget) = &cases[i];
                let again = prepare_in(bytes.clone(), policy, *budget, ANY_IMAGE, &mut work);
                assert!(same(&fresh[i], &again), "case {i}");
            }
        }
    }
}
