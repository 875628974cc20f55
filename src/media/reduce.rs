//! A PNG with more pixels than the limit allows, read at a reduced size:
//! its rows streamed from the decoder and averaged `k` × `k` into a raster
//! within the limit, so that a tall full-page screenshot (2880×24780) is
//! fitted rather than refused. Memory is one row of the source and the
//! reduced raster; what no reduction brings within reach (more than
//! [`REDUCIBLE`] times the limit) stays refused, as does an interlaced PNG
//! (its passes are not rows in order).

use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, GrayAlphaImage, GrayImage, RgbImage, RgbaImage};

use super::decoded::Decoded;
use super::error::MediaError;
use super::policy::Policy;
use super::sniff::MediaType;
use super::whole::Damage;

/// How many times the pixel limit a PNG may have and still be read
/// reduced: past it, the time to inflate it is the attack.
pub(crate) const REDUCIBLE: u64 = 16;

/// The factor a `width` × `height` image is reduced by: enough to be
/// within the policy's pixel limit, and as much more as still leaves its
/// long side at least the size it is fitted to (the resizer does the rest
/// from there: the result is the same size, give or take a pixel of
/// rounding).
pub(crate) fn factor(width: u32, height: u32, policy: &Policy) -> u32 {
    let mut k = 1u32;
    while u64::from(width.div_ceil(k)) * u64::from(height.div_ceil(k)) > policy.max_pixels() {
        k += 1;
    }
    let long = width.max(height);
    k.max(long / policy.long_edge_for(width, height).max(1))
}

/// Decode `bytes`, a PNG of `width` × `height` over the policy's pixel
/// limit, averaged down by [`factor`].
///
/// # Errors
/// [`MediaError::TooManyPixels`] for an interlaced one; [`MediaError::Corrupt`]
/// where the decoder stops; [`MediaError::MemoryLimit`] past `max_alloc`.
pub(crate) fn decode_png_reduced(
    bytes: &[u8],
    width: u32,
    height: u32,
    policy: &Policy,
) -> Result<Decoded, MediaError> {
    let corrupt = |e: png::DecodingError| MediaError::Corrupt {
        media_type: MediaType::Png,
        damage: Damage::Undecodable(e.to_string()),
    };
    let too_many = || MediaError::TooManyPixels {
        width,
        height,
        max_pixels: policy.max_pixels(),
    };
    let max_alloc = policy.max_alloc();
    let limits = png::Limits {
        bytes: usize::try_from(max_alloc).unwrap_or(usize::MAX),
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(corrupt)?;
    if reader.info().interlaced {
        return Err(too_many());
    }
    let (color, depth) = reader.output_color_type();
    if depth != png::BitDepth::Eight {
        return Err(too_many());
    }
    let channels = color.samples();
    let icc = reader.info().icc_profile.as_ref().map(|p| p.to_vec());
    let k = factor(width, height, policy);
    let (out_w, out_h) = (width.div_ceil(k), height.div_ceil(k));
    let out_len = out_w as usize * out_h as usize * channels;
    if out_len as u64 > max_alloc {
        return Err(MediaError::MemoryLimit { max_alloc });
    }
    let room = super::memory::reserve(super::memory::decoded_bytes(out_w, out_h));
    let mut out = vec![0u8; out_len];
    // The sums of the band of `k` rows being read (u64: a block of k × k
    // pixels may hold more than u32 counts under a policy of huge limits).
    let row_len = out_w as usize * channels;
    let mut sums = vec![0u64; row_len];
    let mut band_rows = 0u64;
    let mut y = 0u32;
    while let Some(row) = reader.next_row().map_err(corrupt)? {
        match channels {
            1 => add_row::<1>(row.data(), k, &mut sums),
            2 => add_row::<2>(row.data(), k, &mut sums),
            3 => add_row::<3>(row.data(), k, &mut sums),
            _ => add_row::<4>(row.data(), k, &mut sums),
        }
        y += 1;
        band_rows += 1;
        if y.is_multiple_of(k) || y == height {
            let oy = ((y - 1) / k) as usize;
            let target = &mut out[oy * row_len..(oy + 1) * row_len];
            let blocks = target
                .chunks_exact_mut(channels)
                .zip(sums.chunks_exact(channels));
            for (ox, (pixel, sum)) in blocks.enumerate() {
                let cols = u64::from((width - ox as u32 * k).min(k));
                let n = cols * band_rows;
                for (t, s) in pixel.iter_mut().zip(sum) {
                    *t = ((s + n / 2) / n) as u8;
                }
            }
            sums.fill(0);
            band_rows = 0;
        }
    }
    if y != height {
        return Err(MediaError::Corrupt {
            media_type: MediaType::Png,
            damage: Damage::Undecodable(format!("{y} of {height} rows")),
        });
    }
    let image = match color {
        png::ColorType::Grayscale => {
            GrayImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageLuma8)
        }
        png::ColorType::GrayscaleAlpha => {
            GrayAlphaImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageLumaA8)
        }
        png::ColorType::Rgb => RgbImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageRgb8),
        _ => RgbaImage::from_raw(out_w, out_h, out).map(DynamicImage::ImageRgba8),
    }
    .ok_or_else(too_many)?;
    Ok(Decoded {
        image,
        orientation: Orientation::NoTransforms,
        icc,
        room,
    })
}

/// Add `row`, pixels of `C` samples, to `sums`, block by block of `k`
/// pixels (each block summed in registers, then added once).
fn add_row<const C: usize>(row: &[u8], k: u32, sums: &mut [u64]) {
    let blocks = row.chunks(k as usize * C).zip(sums.chunks_exact_mut(C));
    for (block, sum) in blocks {
        let mut acc = [0u64; C];
        for pixel in block.chunks_exact(C) {
            for c in 0..C {
                acc[c] += u64::from(pixel[c]);
            }
        }
        for (s, a) in sum.iter_mut().zip(acc) {
            *s += a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_is_the_least_that_fits() {
        let limit = |n| Policy::default().with_max_pixels(n);
        // Twice the limit, and twelve times the 2000 px it is fitted to.
        assert_eq!(factor(2880, 24780, &limit(50_000_000)), 12);
        assert_eq!(
            factor(2880, 24780, &limit(50_000_000).with_max_dim(8000)),
            3
        );
        assert_eq!(
            factor(2880, 24780, &limit(50_000_000).with_max_dim(20000)),
            2
        );
        assert_eq!(factor(100, 100, &limit(10_000)), 1);
        assert_eq!(factor(101, 100, &limit(10_000)), 2);
        assert_eq!(factor(7, 3, &limit(1)), 7);
    }

    #[test]
    fn a_tall_png_is_read_averaged_down() {
        // 30 × 90, left half black, right half white, in bands of 3 rows.
        let (w, h) = (30u32, 90u32);
        let mut raw = Vec::new();
        for _ in 0..h {
            for x in 0..w {
                raw.extend_from_slice(if x < 15 { &[0, 0, 0] } else { &[255, 255, 255] });
            }
        }
        let mut png = Vec::new();
        image::RgbImage::from_raw(w, h, raw)
            .unwrap()
            .write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let policy = Policy::default().with_max_pixels(400);
        let decoded = decode_png_reduced(&png, w, h, &policy).unwrap();
        // k = 3: 10 × 30 = 300 pixels.
        let image = decoded.image.to_rgb8();
        assert_eq!(image.dimensions(), (10, 30));
        assert_eq!(image.get_pixel(0, 0).0, [0, 0, 0]);
        assert_eq!(image.get_pixel(9, 29).0, [255, 255, 255]);
        // Cut short: the rows it lacks are said.
        let e = decode_png_reduced(&png[..png.len() / 2], w, h, &policy).err();
        assert!(matches!(e, Some(MediaError::Corrupt { .. })), "{e:?}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Whatever the size and the limit, the raster is within the limit,
        /// `ceil(w / k)` by `ceil(h / k)`, and one colour stays that colour
        /// (edge blocks of fewer pixels included).
        #[test]
        fn a_reduced_raster_is_within_the_limit_and_keeps_a_flat_colour(
            w in 1u32..70,
            h in 1u32..70,
            limit in 1u64..600,
            colour in proptest::prelude::any::<[u8; 4]>(),
        ) {
            let image = image::RgbaImage::from_pixel(w, h, image::Rgba(colour));
            let mut png = Vec::new();
            image.write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
            let policy = Policy::default().with_max_pixels(limit);
            let decoded = decode_png_reduced(&png, w, h, &policy).unwrap();
            let k = factor(w, h, &policy);
            let out = decoded.image.to_rgba8();
            proptest::prop_assert_eq!(out.dimensions(), (w.div_ceil(k), h.div_ceil(k)));
            proptest::prop_assert!(u64::from(out.width()) * u64::from(out.height()) <= limit);
            proptest::prop_assert!(out.pixels().all(|p| p.0 == colour));
        }
    }
}
