//! Whether a file is whole: each format's structure walked from its
//! signature to the structure that closes it, without decoding a pixel.
//!
//! An image that already fits passes through undecoded, and a PDF is never
//! opened, so without this a PNG cut off half way or a 14-byte `%PDF-1.4
//! fake` would be sent, and the provider would refuse the whole request
//! (or show the model grey bands). The checks read containers only:
//!
//! * **PNG**: the signature, then every chunk (length, type, data, CRC-32)
//!   up to `IEND`; `IHDR` first and 13 bytes long, at least one `IDAT`.
//! * **JPEG**: `SOI`, the marker segments (each must fit), a frame header
//!   before the first scan, then the entropy-coded data (stuffed `FF00`
//!   bytes and `RSTn` markers skipped, segments between the scans of a
//!   progressive JPEG walked) up to `EOI`. Stray bytes between segments
//!   are skipped, as decoders skip them.
//! * **GIF**: header, logical screen descriptor, global colour table, then
//!   every block (extensions and image descriptors with their local colour
//!   tables and data sub-blocks) up to the trailer `0x3B`; at least one
//!   image.
//! * **WEBP**: the `RIFF` form's length fits the file, its type is `WEBP`,
//!   and the chunks inside it are complete, the first being `VP8 `, `VP8L`
//!   or `VP8X` (and a `VP8X` file holding image data).
//! * **PDF**: `%PDF-` and a version, `%%EOF` in the last 1024 bytes, and
//!   right before it `startxref`, an offset (lower than its own position)
//!   and line ends only.
//! * **BMP**: no structural check. The pipeline always re-encodes a BMP
//!   (no provider takes one), so its decoder reads every row, and a file it
//!   cannot read is refused as corrupt.
//!
//! What follows the closing structure (`IEND`, `EOI`, the trailer, the end
//! of the RIFF form, the last `%%EOF`) is not looked at: decoders ignore it,
//! and some writers put data there (phones append a video after a JPEG's
//! `EOI` in motion photos).
//!
//! The cost is one pass over the bytes for a PNG (the CRC-32s, with the
//! CPU's carry-less multiply where there is one) and a `memchr` for `0xFF`
//! over a JPEG's scan data; GIF, WEBP and PDF read their block headers or
//! their last kilobyte only.

use std::borrow::Cow;
use std::fmt;

use memchr::memmem;

use super::error::MediaError;
use super::sniff::MediaType;

/// How a file is not whole, and where: what [`check_whole`] found, and
/// the reason of a [`MediaError::Corrupt`](super::MediaError::Corrupt).
///
/// Offsets count bytes from the start of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Damage {
    /// `part`, which starts at byte `at`, runs past `end`: the end of the
    /// bytes, or of the RIFF form holding it.
    Truncated {
        /// The structure cut off: `IDAT chunk`, `SOS segment`, `image data`…
        part: Cow<'static, str>,
        /// Where it starts.
        at: usize,
        /// Where the bytes (or the RIFF form) end.
        end: usize,
    },
    /// No `part` was found where it must be: at or after byte `at`, up to
    /// the end of the bytes (or, for a PDF's `startxref`, up to `%%EOF`).
    Missing {
        /// The structure looked for: `IEND chunk`, `EOI marker`, `%%EOF`…
        part: &'static str,
        /// Where the search started.
        at: usize,
    },
    /// `part` at byte `at` holds what it cannot hold (a length below its
    /// minimum, an unknown block, a first chunk that is not `IHDR`).
    Malformed {
        /// The structure: `chunk length`, `block introducer`, `version`…
        part: &'static str,
        /// Where it is.
        at: usize,
    },
    /// A PNG chunk whose CRC-32 is not that of its type and data.
    CrcMismatch {
        /// The chunk's type (`IDAT`, …).
        chunk: [u8; 4],
        /// Where the chunk starts (its length field).
        at: usize,
    },
    /// The decoder stopped on the data (found when decoding an image to
    /// resize or re-encode it): its message.
    Undecodable(String),
}

impl Damage {
    /// The byte offset the damage was found at, when known (not for
    /// [`Damage::Undecodable`]).
    pub fn offset(&self) -> Option<usize> {
        match self {
            Damage::Truncated { at, .. }
            | Damage::Missing { at, .. }
            | Damage::Malformed { at, .. }
            | Damage::CrcMismatch { at, .. } => Some(*at),
            Damage::Undecodable(_) => None,
        }
    }
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Damage::Truncated { part, at, end } => {
                write!(f, "{part} at byte {at} is cut off at byte {end}")
            }
            Damage::Missing { part, at } => write!(f, "no {part} at or after byte {at}"),
            Damage::Malformed { part, at } => write!(f, "bad {part} at byte {at}"),
            Damage::CrcMismatch { chunk, at } => {
                write!(f, "{} chunk CRC mismatch at byte {at}", FourCc(chunk))
            }
            Damage::Undecodable(message) => write!(f, "the decoder stopped: {message}"),
        }
    }
}

/// A chunk type as text: printable ASCII kept, anything else as `?`.
struct FourCc<'a>(&'a [u8; 4]);

impl fmt::Display for FourCc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.0 {
            let c = if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '?'
            };
            fmt::Write::write_char(f, c)?;
        }
        Ok(())
    }
}

fn chunk_part(kind: &[u8; 4]) -> Cow<'static, str> {
    Cow::Owned(format!("{} chunk", FourCc(kind)))
}

fn truncated(part: &'static str, at: usize, end: usize) -> Damage {
    Damage::Truncated {
        part: Cow::Borrowed(part),
        at,
        end,
    }
}

fn missing(part: &'static str, at: usize) -> Damage {
    Damage::Missing { part, at }
}

fn malformed(part: &'static str, at: usize) -> Damage {
    Damage::Malformed { part, at }
}

/// Check that `bytes` are a whole file of type `media_type` (see the
/// module documentation for what each check reads). Bytes of another type
/// fail at their first structure; a BMP always passes, its decoder being
/// its check.
///
/// Never panics, and reads nothing past the end of `bytes`.
///
/// # Errors
/// The first [`Damage`] found.
///
/// ```
/// use tool_carrier::media::{check_whole, Damage, MediaType};
///
/// let err = check_whole(b"%PDF-1.4 fake\n", MediaType::Pdf).unwrap_err();
/// assert_eq!(err, Damage::Missing { part: "%%EOF", at: 0 });
/// assert_eq!(err.to_string(), "no %%EOF at or after byte 0");
///
/// let pdf = b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer <<>>\nstartxref\n9\n%%EOF\n";
/// assert!(check_whole(pdf, MediaType::Pdf).is_ok());
/// ```
pub fn check_whole(bytes: &[u8], media_type: MediaType) -> Result<(), Damage> {
    match media_type {
        MediaType::Png => png(bytes),
        MediaType::Jpeg => jpeg(bytes),
        MediaType::Gif => gif(bytes),
        MediaType::Webp => webp(bytes),
        MediaType::Bmp => Ok(()),
        MediaType::Pdf => pdf(bytes),
    }
}

/// [`check_whole`], failing with the pipeline's error
/// ([`MediaError::Corrupt`]).
pub(crate) fn ensure_whole(bytes: &[u8], media_type: MediaType) -> Result<(), MediaError> {
    check_whole(bytes, media_type).map_err(|damage| MediaError::Corrupt { media_type, damage })
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

// ---- PNG ----

const PNG_SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

fn png(b: &[u8]) -> Result<(), Damage> {
    if !b.starts_with(PNG_SIGNATURE) {
        return Err(if PNG_SIGNATURE.starts_with(b) {
            truncated("signature", 0, b.len())
        } else {
            malformed("signature", 0)
        });
    }
    let mut at = PNG_SIGNATURE.len();
    let mut seen_idat = false;
    loop {
        if at == b.len() {
            let part = if at == PNG_SIGNATURE.len() {
                "IHDR chunk"
            } else {
                "IEND chunk"
            };
            return Err(missing(part, at));
        }
        let (Some(len), Some(kind)) = (be32(b, at), b.get(at + 4..at + 8)) else {
            return Err(truncated("chunk header", at, b.len()));
        };
        let kind: [u8; 4] = kind.try_into().unwrap_or_default();
        if len > 0x7FFF_FFFF {
            return Err(malformed("chunk length", at));
        }
        if !kind.iter().all(u8::is_ascii_alphabetic) {
            return Err(malformed("chunk type", at + 4));
        }
        let first = at == PNG_SIGNATURE.len();
        if first && &kind != b"IHDR" {
            return Err(malformed("first chunk (not IHDR)", at));
        }
        if first && len != 13 {
            return Err(malformed("IHDR length", at));
        }
        let end = (len as usize)
            .checked_add(at + 12)
            .filter(|&end| end <= b.len())
            .ok_or_else(|| Damage::Truncated {
                part: chunk_part(&kind),
                at,
                end: b.len(),
            })?;
        let stored = be32(b, end - 4).unwrap_or_default();
        if crc32fast::hash(&b[at + 4..end - 4]) != stored {
            return Err(Damage::CrcMismatch { chunk: kind, at });
        }
        match &kind {
            b"IDAT" => seen_idat = true,
            b"IEND" if !seen_idat => return Err(missing("IDAT chunk", PNG_SIGNATURE.len())),
            b"IEND" => return Ok(()),
            _ => {}
        }
        at = end;
    }
}

// ---- JPEG ----

fn jpeg(b: &[u8]) -> Result<(), Damage> {
    if !b.starts_with(&[0xFF, 0xD8]) {
        return Err(if b.len() < 2 && b.first().is_none_or(|&x| x == 0xFF) {
            truncated("SOI marker", 0, b.len())
        } else {
            malformed("SOI marker", 0)
        });
    }
    let mut at = 2usize;
    let mut frame = false;
    let mut scans = false;
    loop {
        // A marker: 0xFF, any fill bytes 0xFF, then its code. Bytes before
        // it that are no marker are skipped, as decoders skip them (libjpeg
        // warns of "extraneous bytes before marker" and reads on).
        let Some(ff) = memchr::memchr(0xFF, &b[at..]) else {
            let part = if scans { "EOI marker" } else { "SOS segment" };
            return Err(missing(part, at));
        };
        let start = at + ff;
        at = start;
        while b.get(at) == Some(&0xFF) {
            at += 1;
        }
        let Some(&code) = b.get(at) else {
            return Err(truncated("marker", start, b.len()));
        };
        at += 1;
        match code {
            0xD9 if scans => return Ok(()),
            0xD9 => return Err(malformed("EOI marker before any scan", start)),
            0xD8 => return Err(malformed("second SOI marker", start)),
            // A stuffed zero or a restart marker out of a scan, and TEM:
            // nothing to skip.
            0x00 | 0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let part = segment_name(code);
        let Some(len) = b
            .get(at..at + 2)
            .map(|l| usize::from(u16::from_be_bytes([l[0], l[1]])))
        else {
            return Err(truncated(part, start, b.len()));
        };
        if len < 2 {
            return Err(malformed("segment length", at));
        }
        let end = at + len;
        if end > b.len() {
            return Err(truncated(part, start, b.len()));
        }
        at = end;
        match code {
            0xC0..=0xCF if !matches!(code, 0xC4 | 0xC8 | 0xCC) => frame = true,
            0xDA if !frame => return Err(malformed("SOS segment before any frame header", start)),
            0xDA => {
                scans = true;
                at = entropy_data_end(b, at)?;
            }
            _ => {}
        }
    }
}

/// Where the entropy-coded data starting at `from` ends: at the first
/// 0xFF that starts a marker other than `RSTn` (0xFF00 is a stuffed data
/// byte; fill bytes 0xFF may come before a marker's code).
fn entropy_data_end(b: &[u8], from: usize) -> Result<usize, Damage> {
    let mut at = from;
    loop {
        let Some(ff) = memchr::memchr(0xFF, &b[at..]) else {
            return Err(missing("EOI marker", from));
        };
        let marker = at + ff;
        let mut code = marker + 1;
        while b.get(code) == Some(&0xFF) {
            code += 1;
        }
        match b.get(code) {
            None => return Err(missing("EOI marker", from)),
            Some(0x00 | 0xD0..=0xD7) => at = code + 1,
            Some(_) => return Ok(code - 1),
        }
    }
}

fn segment_name(code: u8) -> &'static str {
    match code {
        0xC4 => "DHT segment",
        0xC0..=0xCF if !matches!(code, 0xC8 | 0xCC) => "SOF segment",
        0xDA => "SOS segment",
        0xDB => "DQT segment",
        0xDD => "DRI segment",
        0xE0..=0xEF => "APP segment",
        0xFE => "COM segment",
        _ => "marker segment",
    }
}

// ---- GIF ----

fn gif(b: &[u8]) -> Result<(), Damage> {
    if b.len() < 6 {
        return Err(if b"GIF89a".starts_with(b) || b"GIF87a".starts_with(b) {
            truncated("header", 0, b.len())
        } else {
            malformed("header", 0)
        });
    }
    if &b[..6] != b"GIF87a" && &b[..6] != b"GIF89a" {
        return Err(malformed("header", 0));
    }
    let Some(&flags) = b.get(10).filter(|_| b.len() >= 13) else {
        return Err(truncated("logical screen descriptor", 6, b.len()));
    };
    let mut at = 13 + color_table_len(flags);
    if at > b.len() {
        return Err(truncated("global colour table", 13, b.len()));
    }
    let blocks = at;
    let mut images = 0usize;
    loop {
        let start = at;
        match b.get(at) {
            None => return Err(missing("trailer (0x3B)", at)),
            Some(0x3B) if images == 0 => return Err(missing("image descriptor", blocks)),
            Some(0x3B) => return Ok(()),
            Some(0x21) => {
                if b.get(at + 1).is_none() {
                    return Err(truncated("extension", start, b.len()));
                }
                at = sub_blocks(b, at + 2, "extension", start)?;
            }
            Some(0x2C) => {
                let Some(&flags) = b.get(at + 9) else {
                    return Err(truncated("image descriptor", start, b.len()));
                };
                at += 10;
                let table = at;
                at += color_table_len(flags);
                if at > b.len() {
                    return Err(truncated("local colour table", table, b.len()));
                }
                // The LZW minimum code size, then the data sub-blocks.
                if b.get(at).is_none() {
                    return Err(truncated("image data", at, b.len()));
                }
                at = sub_blocks(b, at + 1, "image data", at)?;
                images += 1;
            }
            Some(_) => return Err(malformed("block introducer", at)),
        }
    }
}

/// Skip data sub-blocks (a length byte, then that many bytes) up to the
/// empty one that ends them; where the next block starts.
fn sub_blocks(b: &[u8], mut at: usize, part: &'static str, start: usize) -> Result<usize, Damage> {
    loop {
        let Some(&n) = b.get(at) else {
            return Err(truncated(part, start, b.len()));
        };
        at += 1 + usize::from(n);
        if n == 0 {
            return Ok(at);
        }
    }
}

fn color_table_len(flags: u8) -> usize {
    if flags & 0x80 != 0 {
        3 << ((flags & 7) + 1)
    } else {
        0
    }
}

// ---- WEBP ----

fn webp(b: &[u8]) -> Result<(), Damage> {
    if b.len() < 12 {
        return Err(truncated("RIFF header", 0, b.len()));
    }
    if &b[..4] != b"RIFF" {
        return Err(malformed("RIFF header", 0));
    }
    if &b[8..12] != b"WEBP" {
        return Err(malformed("RIFF form type (not WEBP)", 8));
    }
    let size = le32(b, 4).unwrap_or_default() as usize;
    if size < 4 {
        return Err(malformed("RIFF size", 4));
    }
    let end = size
        .checked_add(8)
        .filter(|&end| end <= b.len())
        .ok_or_else(|| truncated("RIFF form", 0, b.len()))?;
    let mut at = 12usize;
    let mut first: Option<[u8; 4]> = None;
    let mut image_data = false;
    while at < end {
        if at + 8 > end {
            return Err(truncated("chunk header", at, end));
        }
        let kind: [u8; 4] = b[at..at + 4].try_into().unwrap_or_default();
        let len = le32(b, at + 4).unwrap_or_default() as usize;
        let data_end = len
            .checked_add(at + 8)
            .filter(|&e| e <= end)
            .ok_or_else(|| Damage::Truncated {
                part: chunk_part(&kind),
                at,
                end,
            })?;
        if first.is_none() {
            if !matches!(&kind, b"VP8 " | b"VP8L" | b"VP8X") {
                return Err(malformed("first chunk (not VP8, VP8L or VP8X)", at));
            }
            first = Some(kind);
        }
        if matches!(&kind, b"VP8 " | b"VP8L" | b"ANMF") {
            image_data = true;
        }
        // Chunks are padded to an even length; a pad byte missing after
        // the last one is tolerated.
        at = data_end + (len & 1);
    }
    if !image_data {
        return Err(missing("image data chunk", 12));
    }
    Ok(())
}

// ---- PDF ----

/// How far from the end `%%EOF` may be (what readers such as Acrobat
/// accept) and how far before `%%EOF` `startxref` is looked for.
const PDF_TAIL: usize = 1024;

fn pdf(b: &[u8]) -> Result<(), Damage> {
    if !b.starts_with(b"%PDF-") {
        return Err(malformed("header (not %PDF-)", 0));
    }
    let version = b.get(5..8);
    let version_ok =
        version.is_some_and(|v| v[0].is_ascii_digit() && v[1] == b'.' && v[2].is_ascii_digit());
    if !version_ok {
        return Err(malformed("version", 5));
    }
    let tail = b.len().saturating_sub(PDF_TAIL);
    let eof = memmem::rfind(&b[tail..], b"%%EOF")
        .map(|i| tail + i)
        .ok_or(missing("%%EOF", tail))?;
    let before = eof.saturating_sub(PDF_TAIL);
    let startxref = memmem::rfind(&b[before..eof], b"startxref")
        .map(|i| before + i)
        .ok_or(missing("startxref", before))?;
    // `startxref`, an end of line, the offset of the last cross-reference
    // section (which comes before), an end of line, `%%EOF`.
    let between = &b[startxref + 9..eof];
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'\x0C' | b'\0');
    let digits_at = between.iter().position(|c| !is_space(c));
    let offset = digits_at.and_then(|d| {
        let rest = &between[d..];
        let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if d == 0 || n == 0 || n > 19 || !rest[n..].iter().all(is_space) {
            return None;
        }
        std::str::from_utf8(&rest[..n]).ok()?.parse::<usize>().ok()
    });
    match offset {
        Some(offset) if offset < startxref => Ok(()),
        _ => Err(malformed("startxref offset", startxref)),
    }
}

#[cfg(test)]
#[path = "whole_tests.rs"]
mod tests;
