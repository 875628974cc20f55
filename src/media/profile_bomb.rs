//! A PNG's colour profile (`iCCP`) is compressed: one that inflates past
//! anything a profile is (a "profile bomb") would cost the decoder up to
//! the whole memory limit before a pixel is read. Such a chunk is taken out
//! before decoding (a PNG that fits is re-encoded without it, not sent as
//! it came); the
//! image's pixels are all that is prepared, and a real profile (a few
//! kilobytes to a few hundred) is kept. A profile that cannot be inflated
//! within the limit, bomb or damaged, goes: the decoder passes over it too.
//! (A chunk whose checksum fails is not looked at here: the file is
//! refused as damaged before.)

use std::borrow::Cow;
use std::io::{self, Read};

/// The largest profile kept: past any real one.
pub(crate) const MAX_PROFILE: usize = 16 << 20;

/// `bytes`, a PNG, with each `iCCP` chunk that inflates past
/// [`MAX_PROFILE`] taken out (borrowed as it came otherwise).
///
/// Each profile is inflated into a small buffer over and over, counting,
/// never held: a look costs the time to inflate up to 16 MiB (a bomb is
/// looked at up to three times on its way through) and a few tens of
/// kilobytes, on however many threads at once.
pub(crate) fn without_profile_bomb(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !chunks(bytes).any(|(kind, chunk)| kind == *b"iCCP" && is_bomb(chunk)) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..8]);
    for (kind, chunk) in chunks(bytes) {
        if kind != *b"iCCP" || !is_bomb(chunk) {
            out.extend_from_slice(chunk);
        }
    }
    Cow::Owned(out)
}

/// Whether `chunk`, a whole `iCCP` chunk (a name, a NUL, the compression
/// method, a zlib stream), inflates past [`MAX_PROFILE`] or not at all.
fn is_bomb(chunk: &[u8]) -> bool {
    let data = &chunk[8..chunk.len() - 4];
    let Some(name_end) = data.iter().position(|&b| b == 0) else {
        return true;
    };
    let Some(stream) = data.get(name_end + 2..) else {
        return true;
    };
    let limit = MAX_PROFILE as u64 + 1;
    let inflated = io::copy(
        &mut flate2::read::ZlibDecoder::new(stream).take(limit),
        &mut io::sink(),
    );
    !matches!(inflated, Ok(n) if n < limit)
}

/// The chunks after the signature, each with its type and its whole bytes
/// (length, type, data, CRC); stops where the structure does not hold.
fn chunks(bytes: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    let mut at = 8.min(bytes.len());
    std::iter::from_fn(move || {
        let head = bytes.get(at..at + 8)?;
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let end = at.checked_add(12)?.checked_add(len)?;
        let chunk = bytes.get(at..end)?;
        at = end;
        Some(([head[4], head[5], head[6], head[7]], chunk))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4×4 PNG with `profile` as its colour profile.
    fn png_with_profile(profile: Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut info = png::Info::with_size(4, 4);
        info.color_type = png::ColorType::Rgb;
        info.bit_depth = png::BitDepth::Eight;
        info.icc_profile = Some(Cow::Owned(profile));
        let encoder = png::Encoder::with_info(&mut out, info).unwrap();
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[200; 48]).unwrap();
        writer.finish().unwrap();
        out
    }

    #[test]
    fn a_bomb_is_taken_out_and_a_real_profile_kept() {
        let real = png_with_profile(vec![7; 3144]);
        assert!(matches!(without_profile_bomb(&real), Cow::Borrowed(_)));
        // Inflates to 64 MiB from a few tens of kilobytes.
        let bomb = png_with_profile(vec![0; 64 << 20]);
        assert!(bomb.len() < 200_000, "{}", bomb.len());
        let cleaned = without_profile_bomb(&bomb);
        assert!(!chunks(&cleaned).any(|(kind, _)| kind == *b"iCCP"));
        // The rest is as it was, chunk for chunk.
        let kept: Vec<_> = chunks(&bomb).filter(|(k, _)| k != b"iCCP").collect();
        assert_eq!(chunks(&cleaned).collect::<Vec<_>>(), kept);
        let image = image::load_from_memory(&cleaned).unwrap();
        assert_eq!((image.width(), image.height()), (4, 4));
        // Not a PNG's structure: left to the decoder to refuse.
        assert!(matches!(
            without_profile_bomb(b"\x89PNG\r\n\x1a\nxx"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_png_that_fits_is_sent_re_encoded_without_its_bomb() {
        use crate::media::{prepare, Budget, MediaError, Policy};
        let bomb = png_with_profile(vec![0; 64 << 20]);
        let p = prepare(bomb, &Policy::default(), Budget::ANTHROPIC).unwrap();
        assert!(p.reencoded && !p.resized);
        assert!(!chunks(&p.bytes).any(|(kind, _)| kind == *b"iCCP"));
        assert_eq!((p.width, p.height), (Some(4), Some(4)));
        let real = png_with_profile(vec![7; 3144]);
        let p = prepare(real.clone(), &Policy::default(), Budget::ANTHROPIC).unwrap();
        assert_eq!(p.bytes, real);
        // A profile whose checksum fails is damage, not a bomb: refused
        // as before, not repaired.
        let mut damaged = real;
        let at = chunks(&damaged)
            .scan(8, |at, (kind, chunk)| {
                let start = *at;
                *at += chunk.len();
                Some((kind, start + chunk.len() - 1))
            })
            .find(|(kind, _)| kind == b"iCCP")
            .unwrap()
            .1;
        damaged[at] ^= 0xff;
        let err = prepare(damaged, &Policy::default(), Budget::ANTHROPIC).unwrap_err();
        assert!(matches!(err, MediaError::Corrupt { .. }), "{err}");
    }

    #[test]
    fn no_compressed_chunk_is_inflated_beyond_the_memory_limit() {
        use crate::media::{prepare, Budget, Policy};
        // Each chunk inflates to 64 MiB (the profile's zlib stream serves
        // as the texts' too); the image is decoded (over the 32 px box)
        // within a 4 MiB allocation limit all the same.
        let mut out = Vec::new();
        let mut info = png::Info::with_size(64, 64);
        info.color_type = png::ColorType::Rgb;
        info.bit_depth = png::BitDepth::Eight;
        info.icc_profile = Some(Cow::Owned(vec![0; 64 << 20]));
        let encoder = png::Encoder::with_info(&mut out, info).unwrap();
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[90; 64 * 64 * 3]).unwrap();
        writer.finish().unwrap();
        let (_, iccp) = chunks(&out).find(|(k, _)| k == b"iCCP").unwrap();
        let data = &iccp[8..iccp.len() - 4];
        let name_end = data.iter().position(|&b| b == 0).unwrap();
        let stream = data[name_end + 2..].to_vec();
        let chunk = |kind: &[u8; 4], body: Vec<u8>| {
            let mut c = (body.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(&body);
            let mut crc = crc32fast::Hasher::new();
            crc.update(kind);
            crc.update(&body);
            c.extend_from_slice(&crc.finalize().to_be_bytes());
            c
        };
        let ztxt = chunk(b"zTXt", [b"Comment\0\0".as_slice(), &stream].concat());
        let itxt = chunk(
            b"iTXt",
            [b"Description\0\x01\0\0\0".as_slice(), &stream].concat(),
        );
        let after_header = 8 + 25;
        let out = [&out[..after_header], &ztxt, &itxt, &out[after_header..]].concat();
        assert!(out.len() < 1 << 20, "{}", out.len());
        let policy = Policy::default().with_max_dim(32).with_max_alloc(4 << 20);
        let p = prepare(out, &policy, Budget::ANTHROPIC).unwrap();
        assert!(p.reencoded && p.resized);
        assert_eq!((p.width, p.height), (Some(32), Some(32)));
    }
}
