//! Strict `data:` URIs: `data:<type>;base64,<payload>` and nothing else.

use base64::Engine;

use super::error::MediaError;
use super::sniff::MediaType;

/// The canonical engine: standard alphabet, `=` padding required, no
/// whitespace, no stray bits in the last character.
pub(crate) const BASE64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The URL-safe alphabet (`-` and `_` for `+` and `/`), padded or not:
/// what Python's `base64.urlsafe_b64encode` and pydantic's
/// `ser_json_bytes="base64"` write.
const URL_SAFE: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

/// Decode a payload a reader met in another program's file: canonical
/// standard base64, or the URL-safe alphabet (told by a `-` or `_`; the
/// two alphabets mixed are refused, since one of them was meant and the
/// text is damaged). The bytes are written back in the standard form.
///
/// Line breaks are taken out first: base64 wrapped at 76 characters
/// (RFC 2045, Python's `base64.encodebytes`) is the same bytes.
pub(crate) fn decode_read(b64: &str) -> Result<Vec<u8>, base64::DecodeError> {
    let b64 = unwrapped(b64);
    let b64 = &*b64;
    if b64.bytes().any(|b| b == b'-' || b == b'_') {
        URL_SAFE.decode(b64)
    } else {
        BASE64.decode(b64)
    }
}

/// Whether `b64` is canonical standard base64: padded, no line breaks,
/// the unused bits of its last character zero — the text
/// [`decode_read`] writes back as it is, so a reader may keep it without
/// decoding and encoding it again.
pub(crate) fn is_canonical(b64: &str) -> bool {
    let b = b64.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let pad = b.iter().rev().take(2).take_while(|&&c| c == b'=').count();
    let body = &b[..b.len() - pad];
    let mut alphabet = true;
    // Without a branch a byte, so the loop runs on vectors.
    for chunk in body.chunks(64) {
        for &c in chunk {
            let letter = (c | 0x20).wrapping_sub(b'a') < 26;
            let digit = c.wrapping_sub(b'0') < 10;
            alphabet &= letter | digit | (c == b'+') | (c == b'/');
        }
        if !alphabet {
            return false;
        }
    }
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    match pad {
        2 => value(body[body.len() - 1]) & 0x0f == 0,
        1 => value(body[body.len() - 1]) & 0x03 == 0,
        _ => true,
    }
}

/// The first bytes canonical `b64` stands for, at least as many as
/// [`sniff`](super::sniff) reads (all of them when fewer).
pub(crate) fn head_of(b64: &str) -> Result<Vec<u8>, base64::DecodeError> {
    // 2048 characters are 1536 bytes; a multiple of 4 ends no quantum early.
    BASE64.decode(b64.get(..2048).unwrap_or(b64))
}

/// `b64` without its line breaks (CR and LF, wherever they are): base64
/// wrapped at 76 characters (RFC 2045, Python's `base64.encodebytes`) is
/// the same bytes.
fn unwrapped(b64: &str) -> std::borrow::Cow<'_, str> {
    if b64.bytes().any(|b| b == b'\n' || b == b'\r') {
        std::borrow::Cow::Owned(b64.replace(['\r', '\n'], ""))
    } else {
        std::borrow::Cow::Borrowed(b64)
    }
}

/// Whether `target` starts with the `data:` scheme (any case).
pub(crate) fn is_data_uri(target: &str) -> bool {
    target
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
}

/// Decode a `data:` URI.
///
/// ```text
/// data-uri = "data:" media-type ";base64," payload
/// ```
///
/// The media type must be one of [`MediaType`]'s (ASCII case-insensitive,
/// no parameters); `;base64` is required; the payload must be canonical
/// standard base64, line breaks aside (RFC 2045 wrapping), and is measured
/// against `max_len` before it is decoded.
pub(crate) fn decode_data_uri(
    uri: &str,
    max_len: usize,
) -> Result<(MediaType, Vec<u8>), MediaError> {
    if !is_data_uri(uri) {
        return Err(MediaError::BadDataUri("does not start with data:"));
    }
    let rest = &uri[5..];
    let comma = memchr::memchr(b',', rest.as_bytes())
        .ok_or(MediaError::BadDataUri("no comma before the payload"))?;
    let (header, payload) = (&rest[..comma], &rest[comma + 1..]);
    let mime = header
        .len()
        .checked_sub(7)
        .filter(|&at| header.is_char_boundary(at) && header[at..].eq_ignore_ascii_case(";base64"))
        .map(|at| &header[..at])
        .ok_or(MediaError::BadDataUri("not base64 (no ;base64)"))?;
    if mime.is_empty() {
        return Err(MediaError::BadDataUri("no media type"));
    }
    if mime.contains(';') {
        return Err(MediaError::BadDataUri(
            "media type parameters are not allowed",
        ));
    }
    let media_type =
        MediaType::from_mime(mime).ok_or_else(|| MediaError::DisallowedMediaType(shorten(mime)))?;
    if payload.len() > max_len {
        return Err(MediaError::DataUriTooLarge {
            len: payload.len(),
            cap: max_len,
        });
    }
    let payload = unwrapped(payload);
    if payload.is_empty() {
        return Err(MediaError::BadDataUri("empty payload"));
    }
    let bytes = BASE64
        .decode(&*payload)
        .map_err(|e| MediaError::BadBase64(e.to_string()))?;
    Ok((media_type, bytes))
}

/// At most 64 characters of untrusted text, control characters escaped by
/// the `{:?}` that prints it.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(64) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_1X1: &str = "iVBORw0KGgo=";

    fn err(uri: &str) -> MediaError {
        decode_data_uri(uri, 1 << 20).unwrap_err()
    }

    #[test]
    fn a_read_payload_may_be_url_safe_but_not_mixed() {
        // 0xfb 0xff: `+/8=` in the standard alphabet, `-_8=` URL-safe.
        assert_eq!(decode_read("+/8=").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_read("-_8=").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_read("-_8").unwrap(), [0xfb, 0xff]);
        assert!(decode_read("+_8=").is_err());
        assert!(decode_read("-/8=").is_err());
        // The standard form stays canonical.
        assert!(decode_read("+/8").is_err());
        assert_eq!(decode_read(PNG_1X1).unwrap(), b"\x89PNG\r\n\x1a\n");
        // Wrapped as RFC 2045 (and Python's `encodebytes`) writes it.
        assert_eq!(
            decode_read("iVBO\r\nRw0K\nGgo=\n").unwrap(),
            b"\x89PNG\r\n\x1a\n"
        );
        assert!(decode_read("iVBO Rw0KGgo=").is_err());
    }

    #[test]
    fn strict_form_decodes() {
        let (t, bytes) = decode_data_uri(&format!("data:image/png;base64,{PNG_1X1}"), 100).unwrap();
        assert_eq!(t, MediaType::Png);
        assert_eq!(bytes, b"\x89PNG\r\n\x1a\n");
        let (t, _) = decode_data_uri(&format!("DATA:Image/PNG;BASE64,{PNG_1X1}"), 100).unwrap();
        assert_eq!(t, MediaType::Png);
    }

    #[test]
    fn malformed_headers_are_refused() {
        for uri in [
            "data:image/png,iVBORw0KGgo=",
            "data:image/png;base64",
            "data:;base64,iVBORw0KGgo=",
            "data:image/png;charset=utf-8;base64,iVBORw0KGgo=",
            "data:image/png;base64,",
            "data:image/png;base6é,AAAA",
        ] {
            assert!(matches!(err(uri), MediaError::BadDataUri(_)), "{uri}");
        }
    }

    #[test]
    fn media_types_outside_the_allowlist_are_refused() {
        for uri in [
            "data:image/svg+xml;base64,PHN2Zy8+",
            "data:text/html;base64,PGgxPg==",
            "data:image/jpg;base64,/9j/",
        ] {
            assert!(
                matches!(err(uri), MediaError::DisallowedMediaType(_)),
                "{uri}"
            );
        }
        let long = format!("data:{};base64,AAAA", "x".repeat(500));
        let MediaError::DisallowedMediaType(shown) = err(&long) else {
            panic!()
        };
        assert!(shown.chars().count() <= 65);
    }

    #[test]
    fn a_payload_wrapped_in_lines_is_the_same_bytes() {
        let flat = format!("data:image/png;base64,{PNG_1X1}");
        let wrapped: String = PNG_1X1
            .as_bytes()
            .chunks(4)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join("\r\n");
        let wrapped = format!("data:image/png;base64,{wrapped}\n");
        assert_ne!(flat, wrapped);
        assert_eq!(
            decode_data_uri(&wrapped, 1 << 20).unwrap(),
            decode_data_uri(&flat, 1 << 20).unwrap()
        );
        assert!(matches!(
            err("data:image/png;base64,\r\n"),
            MediaError::BadDataUri("empty payload")
        ));
    }

    #[test]
    fn non_canonical_base64_is_refused() {
        for payload in [
            "iVBORw0KGgo",   // padding missing
            "iVBORw0KGgp=",  // stray bits in the last character
            "iVBORw0K Ggo=", // whitespace
            "iVBORw0K\tGgo=",
            "iVBORw0K-_o=",   // URL-safe alphabet
            "iVBORw0KGgo%3D", // percent-encoding
            "iVBORw0KGgo==",
        ] {
            let uri = format!("data:image/png;base64,{payload}");
            assert!(matches!(err(&uri), MediaError::BadBase64(_)), "{payload}");
        }
    }

    #[test]
    fn the_cap_is_checked_on_the_encoded_length_before_decoding() {
        // Not even valid base64: the length check comes first.
        let uri = format!("data:image/png;base64,{}", "!".repeat(101));
        assert!(matches!(
            decode_data_uri(&uri, 100),
            Err(MediaError::DataUriTooLarge { len: 101, cap: 100 })
        ));
    }
}
