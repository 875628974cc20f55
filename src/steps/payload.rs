//! A payload's base64 as the rules read it: its decoded length measured
//! without decoding it, the alphabet a body's scan already vouched for,
//! and an image's type and size from the start of its bytes.

use base64::Engine;

use crate::media::{sniff, MediaType, Sniffed};

/// Decoded base64 (standard alphabet, padded), or `None`.
#[cfg(test)]
pub(crate) fn decode(b64: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(b64).ok()
}

/// The length `b64` decodes to, or `None` where [`decode`] would refuse
/// it (standard alphabet, padded, no stray bits after the last byte):
/// checked in one pass over the text, without decoding it, since a body's
/// payloads are most of its bytes and the rules need only their size.
pub(crate) fn decoded_len(b64: &str) -> Option<usize> {
    let b = b64.as_bytes();
    if !b.len().is_multiple_of(4) {
        return None;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    let data = &b[..b.len() - pad];
    if pad > 2 || !all_base64_known(data) {
        return None;
    }
    // With padding, the last symbol's low bits carry nothing and must be 0.
    if let (Some(&last), 1 | 2) = (data.last(), pad) {
        let value = match last {
            b'A'..=b'Z' => last - b'A',
            b'a'..=b'z' => last - b'a' + 26,
            b'0'..=b'9' => last - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        let unused = if pad == 1 { 0b11 } else { 0b1111 };
        if value & unused != 0 {
            return None;
        }
    }
    Some(b.len() / 4 * 3 - pad)
}

/// A body's text being checked ([`with_alphabet_known`]): where it is and
/// the ranges of it already known to be base64 alphabet.
struct Known {
    /// The text's address.
    base: usize,
    /// Its length.
    len: usize,
    /// Byte ranges of it, in order.
    runs: Vec<std::ops::Range<usize>>,
}

std::thread_local! {
    static KNOWN: std::cell::RefCell<Option<Known>> = const { std::cell::RefCell::new(None) };
}

/// Run `check` with the ranges of `text` in `alphabet` known to be base64
/// alphabet (found by the scan that read the body), so that
/// [`decoded_len`] tests only the rest of a payload: the body's bytes are
/// then read once, not twice. Outside `check` nothing is known.
pub(crate) fn with_alphabet_known<T>(
    text: &str,
    alphabet: Vec<std::ops::Range<usize>>,
    check: impl FnOnce() -> T,
) -> T {
    struct Forget;
    impl Drop for Forget {
        fn drop(&mut self) {
            KNOWN.with(|k| *k.borrow_mut() = None);
        }
    }
    KNOWN.with(|k| {
        *k.borrow_mut() = Some(Known {
            base: text.as_ptr() as usize,
            len: text.len(),
            runs: alphabet,
        })
    });
    let _forget = Forget;
    check()
}

/// [`all_base64`] on `data`, skipping the part of it inside a range known
/// to be alphabet ([`with_alphabet_known`]).
fn all_base64_known(data: &[u8]) -> bool {
    let known = KNOWN.with(|k| {
        let k = k.borrow();
        let Known { base, len, runs } = k.as_ref()?;
        let at = (data.as_ptr() as usize).checked_sub(*base)?;
        let end = at.checked_add(data.len()).filter(|&e| e <= *len)?;
        // The run that starts last before `end`, if it overlaps.
        let i = runs.partition_point(|r| r.start < end).checked_sub(1)?;
        let r = &runs[i];
        let (from, to) = (r.start.max(at), r.end.min(end));
        (from < to).then(|| (from - at, to - at))
    });
    match known {
        Some((from, to)) => all_base64(&data[..from]) && all_base64(&data[to..]),
        None => all_base64(data),
    }
}

/// Whether every byte is of the standard base64 alphabet. Payloads are
/// most of a body's bytes: the test has no branch a byte, so it runs at
/// vector speed (a test a byte with an early exit ran at a byte a
/// nanosecond and was most of a warm conversion's self-check).
pub(crate) fn all_base64(data: &[u8]) -> bool {
    fn valid(c: u8) -> bool {
        let letter = (c | 0x20).wrapping_sub(b'a') < 26;
        let digit = c.wrapping_sub(b'0') < 10;
        letter | digit | (c == b'+') | (c == b'/')
    }
    data.chunks(256)
        .all(|chunk| chunk.iter().fold(true, |ok, &c| ok & valid(c)))
}

/// What the inline image `b64` is, reading its header from the decoded
/// start of the payload: its first 768 bytes, where every header but a
/// JPEG's after metadata lies, then its first 48 KiB, and the whole
/// payload only where the header lies further in; `None` when the text is
/// not base64 or the bytes are no image.
pub(crate) fn image_b64(b64: &str) -> Option<Image> {
    // Lengths of base64 text, each a whole number of 4-character groups.
    const HEADS: [usize; 2] = [1024, 64 * 1024];
    decoded_len(b64)?;
    let engine = &base64::engine::general_purpose::STANDARD;
    for head in HEADS {
        if b64.len() <= head {
            break;
        }
        if let Some(found) = image(&engine.decode(&b64[..head]).ok()?) {
            return Some(found);
        }
    }
    image(&engine.decode(b64).ok()?)
}

/// The base64 part of a `data:` URL and its media type.
pub(crate) fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    Some((media_type, data))
}

/// What an inline image is: its type by its bytes and its dimensions.
pub(crate) struct Image {
    pub(crate) media_type: MediaType,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// Read an image's type and size from its bytes (header only).
pub(crate) fn image(bytes: &[u8]) -> Option<Image> {
    let Sniffed::Media(media_type) = sniff(bytes) else {
        return None;
    };
    if !media_type.is_image() {
        return None;
    }
    let header = crate::media::header::read_header(bytes, media_type).ok()?;
    Some(Image {
        media_type,
        width: header.width,
        height: header.height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JPEG whose frame header (`width` × `height`) follows `pad` bytes
    /// of APP1 segments.
    fn jpeg_after(pad: usize, width: u16, height: u16) -> Vec<u8> {
        let mut jpeg = vec![0xFF, 0xD8];
        let mut left = pad;
        while left > 0 {
            let n = left.min(65_000);
            jpeg.extend([0xFF, 0xE1]);
            jpeg.extend(u16::try_from(n + 2).unwrap().to_be_bytes());
            jpeg.extend(std::iter::repeat_n(0x5A, n));
            left -= n;
        }
        jpeg.extend([0xFF, 0xC0, 0x00, 0x11, 8]);
        jpeg.extend(height.to_be_bytes());
        jpeg.extend(width.to_be_bytes());
        jpeg.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
        jpeg
    }

    proptest::proptest! {
        /// An image's size is read from the start of its payload however
        /// far in its header lies (within the first 768 bytes, the first
        /// 48 KiB, or past both), and is the size the whole payload gives.
        #[test]
        fn an_image_is_sized_however_far_in_its_header_lies(
            pad in proptest::prop_oneof![0usize..1_000, 0usize..200_000],
            width in 1u16..,
            height in 1u16..,
        ) {
            let jpeg = jpeg_after(pad, width, height);
            let b64 = base64::engine::general_purpose::STANDARD.encode(&jpeg);
            let sized = image_b64(&b64).map(|i| (i.media_type, i.width, i.height));
            let whole = image(&jpeg).map(|i| (i.media_type, i.width, i.height));
            proptest::prop_assert_eq!(sized, whole);
            proptest::prop_assert_eq!(sized, Some((MediaType::Jpeg, u32::from(width), u32::from(height))));
        }
    }

    proptest::proptest! {
        /// `decoded_len` accepts exactly what the decoder accepts, and
        /// gives its length, without decoding.
        #[test]
        fn decoded_len_agrees_with_the_decoder(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64), cut in 0usize..90, junk in 0u8..128) {
            let text = base64::engine::general_purpose::STANDARD.encode(&bytes);
            proptest::prop_assert_eq!(decoded_len(&text), Some(bytes.len()));
            let mut broken = text.clone().into_bytes();
            if !broken.is_empty() {
                let at = cut % broken.len();
                broken[at] = junk;
            }
            broken.truncate(cut.max(broken.len() / 2));
            let broken = String::from_utf8_lossy(&broken).into_owned();
            proptest::prop_assert_eq!(decoded_len(&broken), decode(&broken).map(|b| b.len()));
        }
    }

    #[test]
    fn payloads_known_to_be_alphabet_are_measured_as_when_read_again() {
        use base64::Engine;
        let engine = base64::engine::general_purpose::STANDARD;
        let bytes: Vec<u8> = (0..30_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let good = engine.encode(&bytes);
        let mut bad = good.clone();
        bad.replace_range(20_000..20_001, "!");
        let mut late = good.clone();
        late.replace_range(good.len() - 3..good.len() - 2, "=");
        let text = format!(
            r#"{{"a":"{good}","b":"data:image/png;base64,{good}","c":"{bad}","d":"{late}"}}"#
        );
        let (tree, known) = crate::json::tree::Json::read_vouched(&text, &[]).unwrap();
        // The good payloads are found alphabet almost whole; the bad one
        // only after its stray byte.
        assert!(known.len() >= 3, "{known:?}");
        let strings: Vec<&str> = ["a", "b", "c", "d"]
            .iter()
            .map(|k| tree[*k].as_str().unwrap())
            .collect();
        let measure = |s: &str| {
            (
                decoded_len(s),
                data_url(s).and_then(|(_, b64)| decoded_len(b64)),
            )
        };
        let outside: Vec<_> = strings.iter().map(|s| measure(s)).collect();
        let inside: Vec<_> = with_alphabet_known(&text, known.clone(), || {
            strings.iter().map(|s| measure(s)).collect()
        });
        assert_eq!(inside, outside);
        assert_eq!(outside[0].0, Some(bytes.len()));
        assert_eq!(outside[1].1, Some(bytes.len()));
        assert_eq!((outside[2].0, outside[3].0), (None, None));
        // A copy of a known payload elsewhere in memory is tested whole.
        let mut copy = good.clone();
        copy.replace_range(9_000..9_001, "*");
        assert_eq!(
            with_alphabet_known(&text, known.clone(), || decoded_len(&copy)),
            None
        );
    }

    #[test]
    fn the_alphabet_is_exactly_the_standard_one() {
        for c in 0..=255u8 {
            let expected = c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
            assert_eq!(all_base64(&[c]), expected, "{c}");
        }
    }

    #[test]
    fn stray_bits_after_the_last_byte_are_refused_as_the_decoder_does() {
        for text in ["QQ==", "QR==", "QUE=", "QUF=", "", "QUFB", "Q===", "QQ=A"] {
            assert_eq!(decoded_len(text), decode(text).map(|b| b.len()), "{text}");
        }
    }

    #[test]
    fn data_urls_are_split() {
        assert_eq!(
            data_url("data:image/png;base64,AAAA"),
            Some(("image/png", "AAAA"))
        );
        assert_eq!(data_url("https://x/a.png"), None);
        assert_eq!(data_url("data:image/png,AAAA"), None);
    }
}
