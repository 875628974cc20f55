//! A JPEG with more pixels than the limit allows, decoded at a half, a
//! quarter or an eighth of its size by the codec's scaled inverse DCT (each
//! 8×8 block gives its 4×4, 2×2 or 1×1 directly, the full-size raster never
//! exists), so a large photo or scan is fitted rather than refused. One
//! that an eighth a side does not bring within the limit (64 times it)
//! stays refused, as does a CMYK one (its inks are no colours the rest of
//! the pipeline reads) and a lossless one (no DCT to scale). A progressive
//! one holds its coefficients at full size while it decodes: they are
//! counted against the allocation limit and the decoding budget.

use std::io::Cursor;

use image::metadata::Orientation;
use image::{DynamicImage, GrayImage, RgbImage};
use jpeg_decoder::{CodingProcess, PixelFormat};

use super::decoded::Decoded;
use super::error::MediaError;
use super::memory::{decoded_bytes, reserve};
use super::policy::Policy;
use super::sniff::MediaType;
use super::whole::Damage;

/// The scale (2, 4 or 8) a `width` × `height` JPEG is decoded at: the
/// first within the policy's pixel limit, if one is, or a smaller one that
/// still leaves its long side at least the size it is fitted to.
pub(crate) fn scale_for(width: u32, height: u32, policy: &Policy) -> Option<u32> {
    let within = |k: u32| {
        u64::from(width.div_ceil(k)) * u64::from(height.div_ceil(k)) <= policy.max_pixels()
    };
    let mut k = [2, 4, 8].into_iter().find(|&k| within(k))?;
    let (long, target) = (width.max(height), policy.long_edge_for(width, height));
    while k < 8 && long.div_ceil(k * 2) >= target {
        k *= 2;
    }
    Some(k)
}

/// Decode `bytes`, a JPEG of `width` × `height` over the policy's pixel
/// limit, at the scale [`scale_for`] gives.
///
/// # Errors
/// [`MediaError::TooManyPixels`] past an eighth a side;
/// [`MediaError::Decode`] for a CMYK one; [`MediaError::Corrupt`] where the
/// decoder stops; [`MediaError::MemoryLimit`] past `max_alloc`.
pub(crate) fn decode_jpeg_reduced(
    bytes: &[u8],
    width: u32,
    height: u32,
    policy: &Policy,
) -> Result<Decoded, MediaError> {
    let too_many = || MediaError::TooManyPixels {
        width,
        height,
        max_pixels: policy.max_pixels(),
    };
    let corrupt = |e: jpeg_decoder::Error| match e {
        jpeg_decoder::Error::Unsupported(_) => MediaError::Decode {
            media_type: MediaType::Jpeg,
            message: e.to_string(),
        },
        _ => MediaError::Corrupt {
            media_type: MediaType::Jpeg,
            damage: Damage::Undecodable(e.to_string()),
        },
    };
    let k = scale_for(width, height, policy).ok_or_else(too_many)?;
    let max_alloc = policy.max_alloc();
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    decoder.set_max_decoding_buffer_size(usize::try_from(max_alloc).unwrap_or(usize::MAX));
    decoder.read_info().map_err(corrupt)?;
    let info = decoder.info().ok_or_else(too_many)?;
    if (u32::from(info.width), u32::from(info.height)) != (width, height) {
        return Err(MediaError::Corrupt {
            media_type: MediaType::Jpeg,
            damage: Damage::Undecodable(format!(
                "the frame says {}x{}, the header {width}x{height}",
                info.width, info.height
            )),
        });
    }
    let channels: u64 = match info.pixel_format {
        PixelFormat::L8 => 1,
        PixelFormat::L16 => 2,
        PixelFormat::RGB24 => 3,
        PixelFormat::CMYK32 => {
            return Err(MediaError::Decode {
                media_type: MediaType::Jpeg,
                message: "a CMYK JPEG over the pixel limit is not read reduced".into(),
            })
        }
    };
    // A progressive JPEG's coefficients are held at full size whatever the
    // output (two bytes a sample, counted as if no channel were
    // subsampled); a lossless one has no DCT to scale.
    let coefficients = match info.coding_process {
        CodingProcess::DctSequential => 0,
        CodingProcess::DctProgressive => u64::from(width) * u64::from(height) * channels.min(3) * 2,
        CodingProcess::Lossless => return Err(too_many()),
    };
    if coefficients > max_alloc {
        return Err(MediaError::MemoryLimit { max_alloc });
    }
    let want = |side: u32| u16::try_from(side.div_ceil(k)).unwrap_or(u16::MAX);
    // The decoder takes the first scale that reaches the request on either
    // side: the short side is asked for no size it could reach, so the
    // long one decides.
    let request = if width >= height {
        (want(width), u16::MAX)
    } else {
        (u16::MAX, want(height))
    };
    let (w, h) = decoder.scale(request.0, request.1).map_err(corrupt)?;
    let (w, h) = (u32::from(w), u32::from(h));
    if u64::from(w) * u64::from(h) > policy.max_pixels() {
        return Err(too_many());
    }
    if u64::from(w) * u64::from(h) * channels > max_alloc {
        return Err(MediaError::MemoryLimit { max_alloc });
    }
    let coefficients = usize::try_from(coefficients).unwrap_or(usize::MAX);
    let room = reserve(decoded_bytes(w, h).saturating_add(coefficients));
    let pixels = decoder.decode().map_err(corrupt)?;
    let image = match info.pixel_format {
        PixelFormat::L8 => GrayImage::from_raw(w, h, pixels).map(DynamicImage::ImageLuma8),
        // Big-endian samples: the high byte is the 8-bit value.
        PixelFormat::L16 => GrayImage::from_raw(w, h, pixels.iter().step_by(2).copied().collect())
            .map(DynamicImage::ImageLuma8),
        _ => RgbImage::from_raw(w, h, pixels).map(DynamicImage::ImageRgb8),
    }
    .ok_or_else(|| MediaError::Corrupt {
        media_type: MediaType::Jpeg,
        damage: Damage::Undecodable(format!("fewer pixels than {w}x{h}")),
    })?;
    let orientation = decoder
        .exif_data()
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    Ok(Decoded {
        image,
        orientation,
        icc: decoder.icc_profile(),
        room,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_within_the_limit_and_no_smaller_than_the_fit() {
        let policy = |max_dim| Policy::default().with_max_dim(max_dim);
        let big = policy(20_000);
        assert_eq!(scale_for(10_000, 10_000, &big), Some(2));
        assert_eq!(scale_for(20_000, 10_000, &big), Some(2));
        assert_eq!(scale_for(20_001, 10_000, &big), Some(4));
        assert_eq!(scale_for(65_535, 65_535, &big), None);
        assert_eq!(scale_for(56_000, 56_000, &big), Some(8));
        // Fitted to 2000 px: 12000 / 4 = 3000 is the last at least 2000.
        assert_eq!(scale_for(12_000, 9_000, &policy(2000)), Some(4));
        assert_eq!(scale_for(16_000, 9_000, &policy(2000)), Some(8));
        assert_eq!(scale_for(12_000, 9_000, &policy(4000)), Some(2));
    }
}
