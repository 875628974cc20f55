//! Resizing: the target size, and the resampling itself.
//!
//! The resampler is `fast_image_resize` with a Lanczos3 convolution: on a
//! 12-megapixel photo it is an order of magnitude faster than `image`'s own
//! `resize` with the same filter, builds no float copy of the image, and
//! gives the same bytes whichever SIMD extension the CPU has. Its filter is
//! [`lanczos3`], whose sines are a polynomial: the resampler weighs every
//! output pixel's taps afresh at each call, and an image resampled a band
//! of rows at a time calls it once a band.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{Filter, FilterType, PixelType, ResizeAlg, ResizeOptions};
use image::{ColorType, DynamicImage};

use super::bands::{Bands, Step, BAND};
use super::error::MediaError;
use super::workspace::{image_from, Workspace};

/// The size of a `width` × `height` image scaled down, aspect kept, to fit a
/// `max_dim` × `max_dim` box (the long side becomes `max_dim`, the short
/// side is rounded to nearest and at least 1). An image that already fits
/// keeps its size; nothing is ever scaled up.
///
/// ```
/// use tool_carrier::media::fit_within;
/// assert_eq!(fit_within(4000, 3000, 2000), (2000, 1500));
/// assert_eq!(fit_within(3000, 4001, 2000), (1500, 2000));
/// assert_eq!(fit_within(2000, 2000, 2000), (2000, 2000));
/// assert_eq!(fit_within(100_000, 10, 2000), (2000, 1));
/// ```
pub fn fit_within(width: u32, height: u32, max_dim: u32) -> (u32, u32) {
    let max_dim = max_dim.max(1);
    if width <= max_dim && height <= max_dim {
        return (width, height);
    }
    let (long, short) = (width.max(height), width.min(height));
    let scaled = (u64::from(short) * u64::from(max_dim) + u64::from(long) / 2) / u64::from(long);
    let scaled = u32::try_from(scaled).unwrap_or(max_dim).clamp(1, max_dim);
    if width >= height {
        (max_dim, scaled)
    } else {
        (scaled, max_dim)
    }
}

/// `image` resampled to `width` × `height` with Lanczos3. With
/// `transparent`, colour is premultiplied by alpha while filtering, so
/// transparent pixels do not bleed their colour into their neighbours, in
/// one call of the resampler. An image without transparency skips that
/// work and is resampled across, then down a band of rows at a time
/// ([`across`], [`down`], [`Bands`]): the steps an image read by rows
/// takes ([`rows`](super::rows)), so an opaque image gives the same pixels
/// whichever way it was read. The pixels are written into a buffer of
/// `work`'s, with room for a filter byte a row.
///
/// # Errors
/// [`MediaError::Resize`] for a pixel layout the resizer does not take.
pub(crate) fn resize(
    image: &DynamicImage,
    width: u32,
    height: u32,
    transparent: bool,
    work: &mut Workspace,
) -> Result<DynamicImage, MediaError> {
    let pixel = pixel_type(image.color())?;
    let len = |w: u32, h: u32| w as usize * h as usize * pixel.size();
    let no_image = || MediaError::Resize(format!("no {width}×{height} image"));
    // Every pixel of `out` (and of `wide`) is written by the resampler;
    // `out` has room for a filter byte a row, for the encoder.
    let mut out = work.overwritten(len(width, height) + height as usize);
    out.truncate(len(width, height));
    if transparent {
        let mut out = image_from(width, height, image.color(), out).ok_or_else(no_image)?;
        let options = ResizeOptions::new().resize_alg(lanczos()).use_alpha(true);
        work.resizer()
            .resize(image, &mut out, &options)
            .map_err(|e| MediaError::Resize(e.to_string()))?;
        return Ok(out);
    }
    let (from_width, from_height) = (image.width(), image.height());
    let pixels = image.as_bytes();
    let resampled = if height == from_height {
        across(pixels, from_width, &mut out, width, height, pixel, work)
    } else {
        let mut wide = work.overwritten(len(width, from_height));
        let row = len(width, 1);
        let mut resampled = across(
            pixels,
            from_width,
            &mut wide,
            width,
            from_height,
            pixel,
            work,
        );
        // By the steps an image read by rows takes, from the same rows.
        for step in Bands::new(from_height, height, BAND).steps() {
            let window = &wide[step.first as usize * row..step.read as usize * row];
            resampled = resampled.and_then(|()| down(window, width, &step, &mut out, pixel, work));
        }
        work.give(wide);
        resampled
    };
    match resampled {
        Ok(()) => image_from(width, height, image.color(), out).ok_or_else(no_image),
        Err(e) => {
            work.give(out);
            Err(e)
        }
    }
}

/// The resampler's layout for an 8-bit colour type.
fn pixel_type(color: ColorType) -> Result<PixelType, MediaError> {
    match color {
        ColorType::L8 => Ok(PixelType::U8),
        ColorType::La8 => Ok(PixelType::U8x2),
        ColorType::Rgb8 => Ok(PixelType::U8x3),
        ColorType::Rgba8 => Ok(PixelType::U8x4),
        other => Err(MediaError::Resize(format!("no 8-bit layout for {other:?}"))),
    }
}

/// `rows` rows of `from` (`from_width` pixels of `pixel` each) resampled
/// across to `to_width` pixels, into `to`. Each row is resampled alone, so
/// a band of rows gives the rows the whole image gives.
pub(crate) fn across(
    from: &[u8],
    from_width: u32,
    to: &mut [u8],
    to_width: u32,
    rows: u32,
    pixel: PixelType,
    work: &mut Workspace,
) -> Result<(), MediaError> {
    let len = |w: u32| w as usize * rows as usize * pixel.size();
    let (from, to) = (&from[..len(from_width)], &mut to[..len(to_width)]);
    if from_width == to_width {
        to.copy_from_slice(from);
        return Ok(());
    }
    let fail = |e: &dyn std::fmt::Display| MediaError::Resize(e.to_string());
    let source = ImageRef::new(from_width, rows, from, pixel).map_err(|e| fail(&e))?;
    let mut target = Image::from_slice_u8(to_width, rows, to, pixel).map_err(|e| fail(&e))?;
    let options = ResizeOptions::new().resize_alg(lanczos()).use_alpha(false);
    work.resizer()
        .resize(&source, &mut target, &options)
        .map_err(|e| fail(&e))
}

/// The rows out of `step` of the pass down ([`Bands`]), from `window`,
/// the source rows the step holds (`width` pixels of `pixel` each), into
/// their place in `to`, the whole image out.
pub(crate) fn down(
    window: &[u8],
    width: u32,
    step: &Step,
    to: &mut [u8],
    pixel: PixelType,
    work: &mut Workspace,
) -> Result<(), MediaError> {
    if step.out.is_empty() {
        return Ok(());
    }
    let row = width as usize * pixel.size();
    let rows = step.read - step.first;
    let fail = |e: &dyn std::fmt::Display| MediaError::Resize(e.to_string());
    let source =
        ImageRef::new(width, rows, &window[..rows as usize * row], pixel).map_err(|e| fail(&e))?;
    let out = &mut to[step.out.start as usize * row..step.out.end as usize * row];
    let mut target =
        Image::from_slice_u8(width, step.out.len() as u32, out, pixel).map_err(|e| fail(&e))?;
    let (top, height) = step.crop;
    let options = ResizeOptions::new()
        .resize_alg(lanczos())
        .use_alpha(false)
        .crop(0.0, top, f64::from(width), height);
    work.resizer()
        .resize(&source, &mut target, &options)
        .map_err(|e| fail(&e))
}

/// The resampler's convolution with [`lanczos3`].
fn lanczos() -> ResizeAlg {
    let filter = Filter::new("Lanczos3", lanczos3, 3.0).expect("a finite, positive support");
    ResizeAlg::Convolution(FilterType::Custom(filter))
}

/// The Lanczos kernel with three lobes: `sinc(x) · sinc(x / 3)` within
/// ±3, zero outside, as `fast_image_resize`'s own, within 10⁻¹³. With
/// `s = sin(πx/3)`, `sin(πx) = 3s − 4s³`, so the kernel is
/// `3s²(3 − 4s²) / (πx)²`: one sine, squared, for two.
fn lanczos3(x: f64) -> f64 {
    if !(-3.0..3.0).contains(&x) {
        return 0.0;
    }
    if x == 0.0 {
        return 1.0;
    }
    let s2 = sin_pi_squared(x / 3.0);
    let pi_x = std::f64::consts::PI * x;
    3.0 * s2 * (3.0 - 4.0 * s2) / (pi_x * pi_x)
}

/// `sin²(πt)` for `|t| < 16`. The square has period 1 and is even, so it
/// is `sin²(πa)` with `a = |t − k| ≤ ½`; past ¼ it is `1 − sin²(π(½ − a))`.
/// So the sine is only needed within ±π/4, where its Taylor series to the
/// 15th power is within `(π/4)¹⁷ / 17!`, 5·10⁻¹⁷.
fn sin_pi_squared(t: f64) -> f64 {
    /// `(-1)ⁿ / (2n + 1)!` for n = 1 to 7.
    const TERMS: [f64; 7] = [
        -0.166_666_666_666_666_66,
        0.008_333_333_333_333_333,
        -0.000_198_412_698_412_698_4,
        2.755_731_922_398_589_3e-6,
        -2.505_210_838_544_172e-8,
        1.605_904_383_682_161_3e-10,
        -7.647_163_731_819_816e-13,
    ];
    // The nearest integer by truncation, shifted to be positive (rounding
    // is a call to a library).
    let k = (t + 16.5) as i64 - 16;
    let a = (t - k as f64).abs();
    let (b, folded) = if a > 0.25 {
        (0.5 - a, true)
    } else {
        (a, false)
    };
    let y = b * std::f64::consts::PI;
    let y2 = y * y;
    let series = TERMS.iter().rev().fold(0.0, |acc, term| (acc + term) * y2);
    let s = y + y * series;
    if folded {
        1.0 - s * s
    } else {
        s * s
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `fast_image_resize`'s Lanczos3, with the library's sine.
    fn lanczos3_exact(x: f64) -> f64 {
        let sinc = |x: f64| {
            if x == 0.0 {
                1.0
            } else {
                (x * std::f64::consts::PI).sin() / (x * std::f64::consts::PI)
            }
        };
        if (-3.0..3.0).contains(&x) {
            sinc(x) * sinc(x / 3.0)
        } else {
            0.0
        }
    }

    #[test]
    fn the_kernel_is_lanczos3_within_a_ten_trillionth() {
        let mut worst: f64 = 0.0;
        for i in -400_000..=400_000 {
            let x = f64::from(i) / 100_000.0 + 1e-7;
            worst = worst.max((lanczos3(x) - lanczos3_exact(x)).abs());
        }
        assert!(worst < 1e-13, "{worst}");
        for x in [0.0, 1.0, -2.0, 3.0, -3.0, 4.5] {
            assert!(
                (lanczos3(x) - lanczos3_exact(x).round()).abs() < 1e-15,
                "{x}"
            );
        }
        assert!((sin_pi_squared(0.5) - 1.0).abs() < 1e-15);
        assert!((sin_pi_squared(-2.5) - 1.0).abs() < 1e-15);
        assert!(sin_pi_squared(1.0) < 1e-30);
    }

    /// Edges, gradients and noise, so every filter tap counts.
    pub(in crate::media) fn sample(x: u32, y: u32, c: u32) -> u8 {
        let mut v = (x * 7919 + y * 104_729 + c * 31) ^ 0x5bd1_e995;
        v ^= v >> 13;
        v = v.wrapping_mul(0x5bd1_e995);
        match (x / 97 + y / 61) % 3 {
            0 => (v >> 7) as u8,
            1 => ((x + y * 2 + c * 50) % 256) as u8,
            _ if (x / 5 + y / 7).is_multiple_of(2) => 20,
            _ => 235,
        }
    }

    #[test]
    fn across_then_down_is_as_near_exact_resampling_as_one_call() {
        let image: DynamicImage = image::RgbImage::from_fn(1440, 900, |x, y| {
            image::Rgb([0, 1, 2].map(|c| sample(x, y, c)))
        })
        .into();
        let mut work = Workspace::default();
        let ours = resize(&image, 1000, 625, false, &mut work).unwrap();
        let mut theirs = DynamicImage::new(1000, 625, ColorType::Rgb8);
        let options = ResizeOptions::new()
            .resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3))
            .use_alpha(false);
        fast_image_resize::Resizer::new()
            .resize(&image, &mut theirs, &options)
            .unwrap();
        // Both against the resampling in floating point, rounded and
        // clamped once at the end: each pass of an 8-bit resampler clamps
        // the overshoot of Lanczos's negative lobes at sharp edges, so the
        // two orders differ there (on this image's 5-pixel checks, 1.5 % of
        // samples by more than 2 levels, at most 28); they are as close to
        // it.
        let exact = reference(&image, 1000, 625);
        let error = |image: &DynamicImage| {
            let sum: f64 = (image.as_bytes().iter().zip(&exact))
                .map(|(a, b)| (f64::from(*a) - b).abs())
                .sum();
            sum / exact.len() as f64
        };
        let (ours, theirs) = (error(&ours), error(&theirs));
        assert!(
            ours < 0.5 && ours <= theirs * 1.05,
            "{ours} against {theirs}"
        );
    }

    /// Lanczos3 weights for each output position, from `from` samples to
    /// `to`, normalised, as the resampler places them.
    fn weights(from: u32, to: u32) -> Vec<(usize, Vec<f64>)> {
        let scale = f64::from(from) / f64::from(to);
        let support = 3.0 * scale.max(1.0);
        (0..to)
            .map(|o| {
                let center = (f64::from(o) + 0.5) * scale;
                let lo = (center - support).floor().max(0.0) as usize;
                let hi = ((center + support).ceil() as usize).min(from as usize);
                let w: Vec<f64> = (lo..hi)
                    .map(|i| lanczos3_exact((i as f64 + 0.5 - center) / scale.max(1.0)))
                    .collect();
                let sum: f64 = w.iter().sum();
                (lo, w.iter().map(|v| v / sum).collect())
            })
            .collect()
    }

    /// `image` (RGB) resampled to `width` × `height` in floating point.
    fn reference(image: &DynamicImage, width: u32, height: u32) -> Vec<f64> {
        let (w0, h0) = (image.width() as usize, image.height() as usize);
        let px = image.as_bytes();
        let hw = weights(w0 as u32, width);
        let vw = weights(h0 as u32, height);
        let mut wide = vec![0.0; width as usize * h0 * 3];
        for y in 0..h0 {
            for (x, (lo, w)) in hw.iter().enumerate() {
                for c in 0..3 {
                    wide[(y * width as usize + x) * 3 + c] = w
                        .iter()
                        .enumerate()
                        .map(|(k, wk)| wk * f64::from(px[(y * w0 + lo + k) * 3 + c]))
                        .sum();
                }
            }
        }
        let mut out = vec![0.0; width as usize * height as usize * 3];
        for (y, (lo, w)) in vw.iter().enumerate() {
            for x in 0..width as usize {
                for c in 0..3 {
                    let v: f64 = w
                        .iter()
                        .enumerate()
                        .map(|(k, wk)| wk * wide[((lo + k) * width as usize + x) * 3 + c])
                        .sum();
                    out[(y * width as usize + x) * 3 + c] = v.round().clamp(0.0, 255.0);
                }
            }
        }
        out
    }
}
