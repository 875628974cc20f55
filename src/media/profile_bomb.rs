//! A PNG's colour profile (`iCCP`) is compressed: one that inflates past
//! anything a profile is (a "profile bomb") would cost the decoder up to
//! the whole memory limit before a pixel is read. Such a chunk is taken out
//! before decoding (and before a PNG that fits is sent as it came); the
//! image's pixels are all that is prepared, and a real profile (a few
//! kilobytes to a few hundred) is kept. A profile that cannot be inflated
//! within the limit, bomb or damaged, goes: the decoder passes over it too.

use std::borrow::Cow;
use std::io::Cursor;

/// The largest profile kept: past any real one.
pub(crate) const MAX_PROFILE: usize = 16 << 20;

/// `bytes`, a PNG, with an `iCCP` chunk that inflates past
/// [`MAX_PROFILE`] taken out (borrowed as it came otherwise).
pub(crate) fn without_profile_bomb(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !chunks(bytes).any(|(kind, _)| kind == *b"iCCP") {
        return Cow::Borrowed(bytes);
    }
    // The decoder inflates the profile as it reads the header, within the
    // limit, and leaves a profile it could not inflate unset.
    let limits = png::Limits { bytes: MAX_PROFILE };
    let decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    let unread = match decoder.read_info() {
        Ok(reader) => reader.info().icc_profile.is_none(),
        Err(_) => false,
    };
    if !unread {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..8]);
    for (kind, chunk) in chunks(bytes) {
        if kind != *b"iCCP" {
            out.extend_from_slice(chunk);
        }
    }
    Cow::Owned(out)
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
    fn a_png_that_fits_is_sent_without_its_bomb() {
        use crate::media::{prepare, Budget, Policy};
        let bomb = png_with_profile(vec![0; 64 << 20]);
        let p = prepare(bomb.clone(), &Policy::default(), Budget::ANTHROPIC).unwrap();
        assert!(!p.reencoded);
        assert!(!chunks(&p.bytes).any(|(kind, _)| kind == *b"iCCP"));
        assert_eq!(
            p.bytes.len() + chunks(&bomb).find(|(k, _)| k == b"iCCP").unwrap().1.len(),
            bomb.len()
        );
        let real = png_with_profile(vec![7; 3144]);
        let p = prepare(real.clone(), &Policy::default(), Budget::ANTHROPIC).unwrap();
        assert_eq!(p.bytes, real);
    }
}
