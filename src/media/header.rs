//! Image size from the header alone: no pixel is decoded, and the cost does
//! not grow with the file (a JPEG's markers are skipped by their lengths).

use super::error::MediaError;
use super::sniff::MediaType;

/// What a raster's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// Stored width in pixels (before any EXIF orientation).
    pub width: u32,
    /// Stored height in pixels.
    pub height: u32,
    /// More than one frame (animated GIF, animated WEBP, APNG).
    pub animated: bool,
}

/// Read the header of a raster of type `media_type`.
///
/// # Errors
/// [`MediaError::BadHeader`] when it is truncated or says zero pixels.
pub(crate) fn read_header(bytes: &[u8], media_type: MediaType) -> Result<Header, MediaError> {
    let bad = |reason| MediaError::BadHeader { media_type, reason };
    let header = match media_type {
        MediaType::Png => png(bytes),
        MediaType::Jpeg => jpeg(bytes),
        MediaType::Gif => gif(bytes),
        MediaType::Webp => webp(bytes),
        MediaType::Bmp => bmp(bytes),
        MediaType::Pdf => Err("not a raster"),
    }
    .map_err(bad)?;
    if header.width == 0 || header.height == 0 {
        return Err(bad("zero width or height"));
    }
    Ok(header)
}

/// The stored size of the raster `bytes` begin with (the whole of it, or
/// only its start), read from its header: `None` for a PDF, for bytes of
/// no type sniffed, and for a header cut off or saying zero pixels.
pub(crate) fn raster_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let media_type = match super::sniff::sniff(bytes) {
        super::sniff::Sniffed::Media(t) if t.is_image() => t,
        _ => return None,
    };
    read_header(bytes, media_type)
        .ok()
        .map(|h| (h.width, h.height))
}

type Parsed = Result<Header, &'static str>;

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 3)?;
    Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
}

const TRUNCATED: &str = "truncated";

/// PNG: signature, then `IHDR` (width, height big-endian). Animated when an
/// `acTL` chunk comes before the first `IDAT`.
fn png(b: &[u8]) -> Parsed {
    if b.get(12..16) != Some(b"IHDR") {
        return Err("first chunk is not IHDR");
    }
    let width = be32(b, 16).ok_or(TRUNCATED)?;
    let height = be32(b, 20).ok_or(TRUNCATED)?;
    let mut at = 8usize;
    let mut animated = false;
    while let (Some(len), Some(kind)) = (be32(b, at), b.get(at + 4..at + 8)) {
        match kind {
            b"acTL" => {
                animated = true;
                break;
            }
            b"IDAT" | b"IEND" => break,
            _ => {}
        }
        at = match at.checked_add(12 + len as usize) {
            Some(next) => next,
            None => break,
        };
    }
    Ok(Header {
        width,
        height,
        animated,
    })
}

/// JPEG: walk the markers after SOI, each skipped by its length, up to the
/// first start-of-frame (`SOFn`), which holds height then width.
fn jpeg(b: &[u8]) -> Parsed {
    let mut at = 2usize;
    loop {
        if *b.get(at).ok_or(TRUNCATED)? != 0xFF {
            return Err("expected a marker");
        }
        while b.get(at) == Some(&0xFF) {
            at += 1; // fill bytes
        }
        let marker = *b.get(at).ok_or(TRUNCATED)?;
        at += 1;
        match marker {
            // Markers without a length.
            0x01 | 0xD0..=0xD8 => continue,
            0xD9 | 0xDA => return Err("no frame header before the scan"),
            _ => {}
        }
        let len = be16(b, at).ok_or(TRUNCATED)? as usize;
        if len < 2 {
            return Err("segment length below 2");
        }
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            let height = be16(b, at + 3).ok_or(TRUNCATED)?;
            let width = be16(b, at + 5).ok_or(TRUNCATED)?;
            return Ok(Header {
                width,
                height,
                animated: false,
            });
        }
        at += len;
    }
}

/// GIF: the logical screen size; animated when a second image descriptor
/// follows the first (blocks are skipped by their sub-block lengths, nothing
/// is decompressed).
fn gif(b: &[u8]) -> Parsed {
    let width = le16(b, 6).ok_or(TRUNCATED)?;
    let height = le16(b, 8).ok_or(TRUNCATED)?;
    let flags = *b.get(10).ok_or(TRUNCATED)?;
    let mut at = 13 + color_table_len(flags);
    let mut frames = 0;
    let skip_sub_blocks = |mut at: usize| -> Option<usize> {
        loop {
            let n = *b.get(at)? as usize;
            at += 1 + n;
            if n == 0 {
                return Some(at);
            }
        }
    };
    while frames < 2 {
        let next = match b.get(at) {
            Some(0x21) => skip_sub_blocks(at + 2),
            Some(0x2C) => {
                frames += 1;
                b.get(at + 9)
                    .and_then(|&f| skip_sub_blocks(at + 10 + color_table_len(f) + 1))
            }
            _ => None, // trailer, junk or end of data
        };
        match next {
            Some(n) => at = n,
            None => break,
        }
    }
    Ok(Header {
        width,
        height,
        animated: frames >= 2,
    })
}

fn color_table_len(flags: u8) -> usize {
    if flags & 0x80 != 0 {
        3 << ((flags & 7) + 1)
    } else {
        0
    }
}

/// WEBP: the first chunk is `VP8 ` (lossy), `VP8L` (lossless) or `VP8X`
/// (extended: canvas size and an animation flag).
fn webp(b: &[u8]) -> Parsed {
    let still = |width, height| Header {
        width,
        height,
        animated: false,
    };
    match b.get(12..16).ok_or(TRUNCATED)? {
        b"VP8 " => {
            if b.get(23..26) != Some(&[0x9d, 0x01, 0x2a]) {
                return Err("missing VP8 start code");
            }
            let width = le16(b, 26).ok_or(TRUNCATED)? & 0x3fff;
            let height = le16(b, 28).ok_or(TRUNCATED)? & 0x3fff;
            Ok(still(width, height))
        }
        b"VP8L" => {
            if b.get(20) != Some(&0x2f) {
                return Err("missing VP8L signature");
            }
            let bits = le32(b, 21).ok_or(TRUNCATED)?;
            Ok(still((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
        }
        b"VP8X" => {
            let flags = *b.get(20).ok_or(TRUNCATED)?;
            let width = le24(b, 24).ok_or(TRUNCATED)? + 1;
            let height = le24(b, 27).ok_or(TRUNCATED)? + 1;
            Ok(Header {
                width,
                height,
                animated: flags & 0x02 != 0,
            })
        }
        _ => Err("unknown first chunk"),
    }
}

/// BMP: the DIB header; OS/2 core headers hold 16-bit sizes, the others
/// signed 32-bit ones (a negative height means top-down rows).
fn bmp(b: &[u8]) -> Parsed {
    let dib = le32(b, 14).ok_or(TRUNCATED)?;
    let (width, height) = if dib == 12 {
        (le16(b, 18).ok_or(TRUNCATED)?, le16(b, 20).ok_or(TRUNCATED)?)
    } else {
        let w = le32(b, 18).ok_or(TRUNCATED)? as i32;
        let h = le32(b, 22).ok_or(TRUNCATED)? as i32;
        if w < 0 {
            return Err("negative width");
        }
        (w.unsigned_abs(), h.unsigned_abs())
    };
    Ok(Header {
        width,
        height,
        animated: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(bytes: &[u8], t: MediaType) -> (u32, u32) {
        let h = read_header(bytes, t).unwrap();
        (h.width, h.height)
    }

    #[test]
    fn png_size_is_in_ihdr() {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend_from_slice(&100_000u32.to_be_bytes());
        b.extend_from_slice(&7u32.to_be_bytes());
        assert_eq!(dims(&b, MediaType::Png), (100_000, 7));
        b.truncate(22);
        assert!(read_header(&b, MediaType::Png).is_err());
    }

    #[test]
    fn jpeg_markers_are_skipped_by_length() {
        let mut b = vec![0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x06, 1, 2, 3, 4];
        b.extend_from_slice(&[0xFF, 0xFF, 0xC2, 0x00, 0x11, 8, 0x05, 0xDC, 0x07, 0xD0]);
        assert_eq!(dims(&b, MediaType::Jpeg), (2000, 1500));
        let no_frame = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02];
        assert!(read_header(&no_frame, MediaType::Jpeg).is_err());
        let bad_len = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01];
        assert!(read_header(&bad_len, MediaType::Jpeg).is_err());
        let zero_height = [0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0, 0, 0, 10];
        assert!(read_header(&zero_height, MediaType::Jpeg).is_err());
    }

    #[test]
    fn webp_chunks_give_the_size() {
        let mut lossy = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\x9d\x01\x2a".to_vec();
        lossy.extend_from_slice(&[0xD0, 0x07, 0xDC, 0x05]);
        assert_eq!(dims(&lossy, MediaType::Webp), (2000, 1500));
        let mut lossless = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        let bits: u32 = 2999 | 1999 << 14;
        lossless.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(dims(&lossless, MediaType::Webp), (3000, 2000));
        let mut ext = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\x02\0\0\0".to_vec();
        ext.extend_from_slice(&[0x0F, 0x27, 0x00, 0x09, 0x00, 0x00]);
        let h = read_header(&ext, MediaType::Webp).unwrap();
        assert_eq!((h.width, h.height, h.animated), (10_000, 10, true));
    }

    #[test]
    fn bmp_heights_may_be_negative() {
        let mut b = vec![0u8; 26];
        b[..2].copy_from_slice(b"BM");
        b[14] = 40;
        b[18..22].copy_from_slice(&640i32.to_le_bytes());
        b[22..26].copy_from_slice(&(-480i32).to_le_bytes());
        assert_eq!(dims(&b, MediaType::Bmp), (640, 480));
    }

    #[test]
    fn gif_frames_are_counted_without_decompressing() {
        let mut b = b"GIF89a\x02\0\x03\0\x81\0\0".to_vec();
        b.extend_from_slice(&[0u8; 12]); // 4-colour global table
        let frame = [0x2C, 0, 0, 0, 0, 2, 0, 3, 0, 0, 2, 2, 0x44, 0x01, 0];
        b.extend_from_slice(&frame);
        let one = read_header(&[&b[..], &[0x3B]].concat(), MediaType::Gif).unwrap();
        assert_eq!((one.width, one.height, one.animated), (2, 3, false));
        b.extend_from_slice(&[0x21, 0xF9, 4, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&frame);
        assert!(read_header(&b, MediaType::Gif).unwrap().animated);
    }

    #[test]
    fn no_header_parser_panics_on_prefixes() {
        let samples: [(&[u8], MediaType); 4] = [
            (
                b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01",
                MediaType::Png,
            ),
            (b"\xff\xd8\xff\xc0\0\x11\x08\0\x01\0\x01", MediaType::Jpeg),
            (b"GIF89a\x01\0\x01\0\x80\0\0", MediaType::Gif),
            (
                b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\x02\0\0\0\0\0\0\0\0\0",
                MediaType::Webp,
            ),
        ];
        for (bytes, t) in samples {
            for n in 0..=bytes.len() {
                let _ = read_header(&bytes[..n], t);
            }
        }
    }
}
