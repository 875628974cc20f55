//! Bounded decoding: pixel and allocation limits are checked before any
//! pixel buffer exists, so a decompression bomb costs a header read. An
//! image over the pixel limit is read reduced where its codec allows: a
//! PNG within [`REDUCIBLE`](super::reduce::REDUCIBLE) times the limit
//! ([`reduce`](super::reduce)), a JPEG within 64 times
//! ([`reduce_jpeg`](super::reduce_jpeg)). Every raster decoded holds its
//! room in the process's budget ([`memory`](super::memory)).

use std::io::Cursor;

use image::metadata::Orientation;
use image::{ColorType, DynamicImage, ImageDecoder, ImageError, ImageFormat, ImageReader, Limits};

use super::decoded::Decoded;
use super::error::MediaError;
use super::header::Header;
use super::memory::{decoded_bytes, reserve};
use super::policy::Policy;
use super::sniff::MediaType;
use super::whole::{ensure_whole, Damage};
use super::workspace::{image_from, Workspace};

/// Decode `bytes` (already sniffed as `media_type`, header already read)
/// within `policy`'s limits. An animated image gives its first frame.
///
/// # Errors
/// [`MediaError::TooManyPixels`] from the header, before a decoder exists;
/// [`MediaError::MemoryLimit`] when the output buffer or the decoder's own
/// buffers would exceed `max_alloc`; [`MediaError::Corrupt`] when the
/// bytes are not whole ([`check_whole`](super::check_whole), before a
/// decoder exists) or the decoder stops on them; [`MediaError::Decode`]
/// for what the decoder does not support.
pub(crate) fn decode(
    bytes: &[u8],
    media_type: MediaType,
    header: &Header,
    policy: &Policy,
    work: &mut Workspace,
) -> Result<Decoded, MediaError> {
    // Some decoders fill in what is missing (a JPEG cut off decodes with
    // grey rows): the structure is checked first.
    let pixels = u64::from(header.width) * u64::from(header.height);
    let reducible = policy.max_pixels().saturating_mul(super::reduce::REDUCIBLE);
    if media_type == MediaType::Png && pixels > policy.max_pixels() && pixels <= reducible {
        ensure_whole(bytes, media_type)?;
        let bytes = super::profile_bomb::without_profile_bomb(bytes);
        return super::reduce::decode_png_reduced(&bytes, header.width, header.height, policy);
    }
    if media_type == MediaType::Jpeg && pixels > policy.max_pixels() {
        ensure_whole(bytes, media_type)?;
        return super::reduce_jpeg::decode_jpeg_reduced(bytes, header.width, header.height, policy);
    }
    check_pixels(header.width, header.height, policy)?;
    ensure_whole(bytes, media_type)?;
    let format = match media_type {
        MediaType::Png => ImageFormat::Png,
        MediaType::Jpeg => ImageFormat::Jpeg,
        MediaType::Gif => ImageFormat::Gif,
        MediaType::Webp => ImageFormat::WebP,
        MediaType::Bmp => ImageFormat::Bmp,
        MediaType::Pdf => {
            return Err(MediaError::BadHeader {
                media_type,
                reason: "not a raster",
            })
        }
    };
    let max_alloc = policy.max_alloc();
    let fail = |e: ImageError| match e {
        ImageError::Limits(_) => MediaError::MemoryLimit { max_alloc },
        ImageError::Decoding(_) | ImageError::IoError(_) => MediaError::Corrupt {
            media_type,
            damage: Damage::Undecodable(e.to_string()),
        },
        other => MediaError::Decode {
            media_type,
            message: other.to_string(),
        },
    };
    let mut limits = Limits::default();
    limits.max_alloc = Some(max_alloc);
    let bytes = match media_type {
        MediaType::Png => super::profile_bomb::without_profile_bomb(bytes),
        _ => std::borrow::Cow::Borrowed(bytes),
    };
    let mut reader = ImageReader::with_format(Cursor::new(&*bytes), format);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(fail)?;
    // The decoder's own reading of the header is what it will allocate for.
    let (width, height) = decoder.dimensions();
    check_pixels(width, height, policy)?;
    if decoder.total_bytes() > max_alloc {
        return Err(MediaError::MemoryLimit { max_alloc });
    }
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let icc = decoder.icc_profile().ok().flatten();
    let room = reserve(decoded_bytes(width, height).max(to_usize(decoder.total_bytes())));
    let color = decoder.color_type();
    let image = match to_usize(decoder.total_bytes()) {
        // The 8-bit layouts into a kept buffer (`from_decoder` would make
        // a new one, zeroed, of the same length).
        len if matches!(
            color,
            ColorType::L8 | ColorType::La8 | ColorType::Rgb8 | ColorType::Rgba8
        ) =>
        {
            let mut buf = work.zeroed(len);
            if let Err(e) = decoder.read_image(&mut buf) {
                work.give(buf);
                return Err(fail(e));
            }
            image_from(width, height, color, buf).ok_or_else(|| MediaError::Decode {
                media_type,
                message: format!("{len} bytes are not {width}×{height} pixels of {color:?}"),
            })?
        }
        _ => DynamicImage::from_decoder(decoder).map_err(fail)?,
    };
    Ok(Decoded {
        image: to_8_bits(image),
        orientation,
        icc,
        room,
    })
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn check_pixels(width: u32, height: u32, policy: &Policy) -> Result<(), MediaError> {
    if u64::from(width) * u64::from(height) > policy.max_pixels() {
        return Err(MediaError::TooManyPixels {
            width,
            height,
            max_pixels: policy.max_pixels(),
        });
    }
    Ok(())
}

/// The same image with 8 bits per channel, keeping gray/colour and alpha.
fn to_8_bits(image: DynamicImage) -> DynamicImage {
    match image.color() {
        ColorType::L8 | ColorType::La8 | ColorType::Rgb8 | ColorType::Rgba8 => image,
        ColorType::L16 => DynamicImage::ImageLuma8(image.to_luma8()),
        ColorType::La16 => DynamicImage::ImageLumaA8(image.to_luma_alpha8()),
        c if c.has_alpha() => DynamicImage::ImageRgba8(image.to_rgba8()),
        _ => DynamicImage::ImageRgb8(image.to_rgb8()),
    }
}

/// Whether any pixel is not fully opaque.
pub(crate) fn uses_alpha(image: &DynamicImage) -> bool {
    match image {
        DynamicImage::ImageLumaA8(i) => i.as_raw().chunks_exact(2).any(|p| p[1] != u8::MAX),
        DynamicImage::ImageRgba8(i) => i.as_raw().chunks_exact(4).any(|p| p[3] != u8::MAX),
        other => other.color().has_alpha(),
    }
}

/// The same pixels without their alpha channel (for an image that has one
/// but uses it nowhere: smaller PNGs, less to encode), 8-bit layouts in a
/// buffer of `work`'s.
pub(crate) fn drop_alpha(image: &DynamicImage, work: &mut Workspace) -> DynamicImage {
    let (width, height) = (image.width(), image.height());
    let (raw, from, to, color) = match image {
        DynamicImage::ImageRgba8(i) => (i.as_raw(), 4, 3, ColorType::Rgb8),
        DynamicImage::ImageLumaA8(i) => (i.as_raw(), 2, 1, ColorType::L8),
        other if other.color().has_color() => return DynamicImage::ImageRgb8(other.to_rgb8()),
        other => return DynamicImage::ImageLuma8(other.to_luma8()),
    };
    let mut buf = work.take(raw.len() / from * to);
    for pixel in raw.chunks_exact(from) {
        buf.extend_from_slice(&pixel[..to]);
    }
    image_from(width, height, color, buf).expect("as many pixels as the image has")
}
