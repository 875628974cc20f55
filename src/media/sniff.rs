//! Media types from magic bytes. A name or an extension is never consulted.

use std::fmt;

use serde::{Serialize, Serializer};

/// A media type the pipeline accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MediaType {
    /// `image/png`
    Png,
    /// `image/jpeg`
    Jpeg,
    /// `image/gif`
    Gif,
    /// `image/webp`
    Webp,
    /// `image/bmp` — accepted as input only: always re-encoded as PNG,
    /// since no provider takes BMP.
    Bmp,
    /// `application/pdf` — passed through as a document.
    Pdf,
}

impl MediaType {
    /// Every accepted type.
    pub const ALL: [MediaType; 6] = [
        MediaType::Png,
        MediaType::Jpeg,
        MediaType::Gif,
        MediaType::Webp,
        MediaType::Bmp,
        MediaType::Pdf,
    ];

    /// The MIME type: `image/png`, `application/pdf`, …
    ///
    /// ```
    /// use tool_carrier::media::MediaType;
    /// assert_eq!(MediaType::Jpeg.as_str(), "image/jpeg");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            MediaType::Png => "image/png",
            MediaType::Jpeg => "image/jpeg",
            MediaType::Gif => "image/gif",
            MediaType::Webp => "image/webp",
            MediaType::Bmp => "image/bmp",
            MediaType::Pdf => "application/pdf",
        }
    }

    /// The type named by an exact MIME type (ASCII case-insensitive, no
    /// parameters). `image/jpg` and other unofficial spellings are not
    /// accepted.
    ///
    /// ```
    /// use tool_carrier::media::MediaType;
    /// assert_eq!(MediaType::from_mime("IMAGE/PNG"), Some(MediaType::Png));
    /// assert_eq!(MediaType::from_mime("image/jpg"), None);
    /// ```
    pub fn from_mime(mime: &str) -> Option<MediaType> {
        MediaType::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(mime))
    }

    /// A short name: `PNG`, `JPEG`, `GIF`, `WEBP`, `BMP`, `PDF`.
    pub fn name(self) -> &'static str {
        match self {
            MediaType::Png => "PNG",
            MediaType::Jpeg => "JPEG",
            MediaType::Gif => "GIF",
            MediaType::Webp => "WEBP",
            MediaType::Bmp => "BMP",
            MediaType::Pdf => "PDF",
        }
    }

    /// Whether this is a raster image (everything but PDF).
    pub fn is_image(self) -> bool {
        self != MediaType::Pdf
    }
}

impl fmt::Display for MediaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for MediaType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What the first bytes of a payload say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniffed {
    /// A type the pipeline accepts.
    Media(MediaType),
    /// A format recognised but not supported: `TIFF`, `HEIC`, `AVIF`,
    /// `JPEG XL` or `SVG`.
    Unsupported(&'static str),
    /// Nothing recognised.
    Unknown,
}

impl fmt::Display for Sniffed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sniffed::Media(t) => f.write_str(t.as_str()),
            Sniffed::Unsupported(name) => f.write_str(name),
            Sniffed::Unknown => f.write_str("unrecognised bytes"),
        }
    }
}

/// The type of `bytes`, from their magic numbers.
///
/// Only the first few bytes are looked at (up to 1 KiB for SVG), so the cost
/// does not depend on the payload's length.
///
/// ```
/// use tool_carrier::media::{sniff, MediaType, Sniffed};
/// assert_eq!(sniff(b"%PDF-1.7\n..."), Sniffed::Media(MediaType::Pdf));
/// assert_eq!(sniff(b"II*\0\x08\0\0\0"), Sniffed::Unsupported("TIFF"));
/// assert_eq!(sniff(b"hello"), Sniffed::Unknown);
/// ```
pub fn sniff(bytes: &[u8]) -> Sniffed {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Sniffed::Media(MediaType::Png);
    }
    if bytes.starts_with(b"\xff\xd8\xff") {
        return Sniffed::Media(MediaType::Jpeg);
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Sniffed::Media(MediaType::Gif);
    }
    if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        return Sniffed::Media(MediaType::Webp);
    }
    if is_bmp(bytes) {
        return Sniffed::Media(MediaType::Bmp);
    }
    if bytes.starts_with(b"%PDF-") {
        return Sniffed::Media(MediaType::Pdf);
    }
    if [b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"]
        .iter()
        .any(|m| bytes.starts_with(*m))
    {
        return Sniffed::Unsupported("TIFF");
    }
    if bytes.starts_with(b"\xff\x0a") || bytes.starts_with(b"\0\0\0\x0cJXL \r\n\x87\n") {
        return Sniffed::Unsupported("JPEG XL");
    }
    if let Some(name) = iso_media_brand(bytes) {
        return Sniffed::Unsupported(name);
    }
    if is_svg(bytes) {
        return Sniffed::Unsupported("SVG");
    }
    Sniffed::Unknown
}

/// `BM`, then a DIB header size that one of the BMP versions uses.
fn is_bmp(bytes: &[u8]) -> bool {
    if !bytes.starts_with(b"BM") || bytes.len() < 26 {
        return false;
    }
    let dib = u32::from_le_bytes([bytes[14], bytes[15], bytes[16], bytes[17]]);
    matches!(dib, 12 | 16 | 40 | 52 | 56 | 64 | 108 | 124)
}

/// HEIC or AVIF, from an ISO base media `ftyp` box's brands.
fn iso_media_brand(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() < 16 || &bytes[4..8] != b"ftyp" {
        return None;
    }
    let size = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let end = size.clamp(16, 256).min(bytes.len());
    // The major brand, then (after the minor version) the compatible brands.
    let brands = std::iter::once(&bytes[8..12]).chain(bytes[16..end].chunks_exact(4));
    let mut heif = false;
    for brand in brands {
        match brand {
            b"avif" | b"avis" => return Some("AVIF"),
            b"heic" | b"heix" | b"hevc" | b"hevx" | b"heim" | b"heis" | b"mif1" | b"msf1" => {
                heif = true
            }
            _ => {}
        }
    }
    heif.then_some("HEIC")
}

/// An XML text whose first element (within the first KiB) is `<svg`.
fn is_svg(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let head = &head[start..];
    if head.starts_with(b"<svg") {
        return true;
    }
    let prolog = [&b"<?xml"[..], b"<!--", b"<!DOCTYPE", b"<!doctype"];
    prolog.iter().any(|p| head.starts_with(p)) && memchr::memmem::find(head, b"<svg").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_supported_magic_is_recognised() {
        let mut bmp = b"BM".to_vec();
        bmp.resize(26, 0);
        bmp[14] = 40;
        let cases: [(&[u8], MediaType); 7] = [
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", MediaType::Png),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", MediaType::Jpeg),
            (b"GIF87a\x01\0\x01\0", MediaType::Gif),
            (b"GIF89a\x01\0\x01\0", MediaType::Gif),
            (b"RIFF\x24\0\0\0WEBPVP8 ", MediaType::Webp),
            (&bmp, MediaType::Bmp),
            (b"%PDF-1.4\n%\xe2\xe3", MediaType::Pdf),
        ];
        for (bytes, t) in cases {
            assert_eq!(sniff(bytes), Sniffed::Media(t), "{t}");
        }
    }

    #[test]
    fn unsupported_formats_are_named() {
        let cases: [(&[u8], &str); 9] = [
            (b"II*\0\x08\0\0\0", "TIFF"),
            (b"MM\0*\0\0\0\x08", "TIFF"),
            (b"\0\0\0\x18ftypheic\0\0\0\0mif1heic", "HEIC"),
            (b"\0\0\0\x18ftypmif1\0\0\0\0mif1heic", "HEIC"),
            (b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf", "AVIF"),
            (b"\0\0\0\x1cftypmif1\0\0\0\0mif1avif", "AVIF"),
            (b"\xff\x0a\xfa\x7f", "JPEG XL"),
            (b"  <svg xmlns='http://www.w3.org/2000/svg'/>", "SVG"),
            (b"\xef\xbb\xbf<?xml version='1.0'?>\n<svg/>", "SVG"),
        ];
        for (bytes, name) in cases {
            assert_eq!(sniff(bytes), Sniffed::Unsupported(name), "{name}");
        }
    }

    #[test]
    fn near_misses_are_unknown() {
        for bytes in [
            &b""[..],
            b"\x89PNG",
            b"\xff\xd8",
            b"GIF88a",
            b"RIFF\0\0\0\0WAVE",
            b"BM short",
            b"BMP is a format",
            b"%PDF",
            b"<?xml version='1.0'?><html/>",
            b"<html><svg/></html>",
            b"\0\0\0\x18ftypisom\0\0\0\0isommp41",
        ] {
            assert_eq!(sniff(bytes), Sniffed::Unknown, "{bytes:?}");
        }
    }

    #[test]
    fn mime_names_round_trip() {
        for t in MediaType::ALL {
            assert_eq!(MediaType::from_mime(t.as_str()), Some(t));
        }
        assert_eq!(MediaType::from_mime("image/png; charset=x"), None);
    }
}
