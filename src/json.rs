//! Small serde_json helpers shared by the envelope reader, the envelope
//! editor and the history reader: strings that borrow when they can, and
//! the members of a JSON object with the byte span of each value.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// A JSON string, borrowed from the input unless an escape forced a copy.
///
/// (`Cow<str>` itself always deserializes owned.)
pub(crate) struct CowStr<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// Any JSON value, kept only when it is a string.
pub(crate) struct MaybeStr<'a>(pub Option<Cow<'a, str>>);

impl<'de> Deserialize<'de> for MaybeStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(MaybeStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(MaybeStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeStr(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// One member of a JSON object: its decoded key and the byte range of its
/// value (without surrounding white space) in the object's source text.
#[derive(Debug)]
pub(crate) struct Member<'a> {
    pub key: Cow<'a, str>,
    pub value: Range<usize>,
}

/// The members of the JSON object `src`, in source order, duplicates kept.
/// `None` when `src` is not exactly one JSON object (white space around it
/// allowed).
pub(crate) fn object_members(src: &str) -> Option<Vec<Member<'_>>> {
    struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);
    impl<'de> Deserialize<'de> for Members<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Members<'de>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut out = Vec::new();
                    while let Some(CowStr(key)) = map.next_key::<CowStr<'de>>()? {
                        let raw: &'de RawValue = map.next_value()?;
                        out.push((key, raw));
                    }
                    Ok(Members(out))
                }
            }
            d.deserialize_map(V)
        }
    }

    let Members(raw) = serde_json::from_str(src).ok()?;
    let base = src.as_ptr() as usize;
    let members = raw
        .into_iter()
        .map(|(key, value)| {
            // A borrowed RawValue is a slice of `src`; its address gives its span.
            let text = value.get();
            let start = text.as_ptr() as usize - base;
            debug_assert!(start + text.len() <= src.len());
            Member {
                key,
                value: start..start + text.len(),
            }
        })
        .collect();
    Some(members)
}

/// Decode a JSON string literal (quotes included), borrowing when it holds
/// no escape. `None` when `raw` is not a string literal.
pub(crate) fn decode_str(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.starts_with('"') {
        return None;
    }
    serde_json::from_str::<CowStr>(raw).ok().map(|s| s.0)
}

/// Append `s` to `out` as a JSON string literal, escaped as serde_json
/// escapes: `\"`, `\\`, the short control escapes, `\u00XX` for the other
/// control characters, everything else verbatim.
pub(crate) fn push_json_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        // `i` is at an ASCII byte, so both slices end on char boundaries.
        out.push_str(&s[start..i]);
        if short.is_empty() {
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        } else {
            out.push_str(short);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_source_spans() {
        let src = r#" { "a" : 1 , "b":"x\"y",  "a":[ 1 ,2] } "#;
        let m = object_members(src).unwrap();
        let seen: Vec<_> = m
            .iter()
            .map(|m| (m.key.as_ref(), &src[m.value.clone()]))
            .collect();
        assert_eq!(seen, [("a", "1"), ("b", r#""x\"y""#), ("a", "[ 1 ,2]")]);
    }

    #[test]
    fn escaped_keys_are_decoded() {
        let m = object_members(r#"{"cont\u0065nt":1}"#).unwrap();
        assert_eq!(m[0].key, "content");
    }

    #[test]
    fn non_objects_have_no_members() {
        for src in ["", "[]", "1", "\"s\"", "{", "{} {}", "{\"a\":}"] {
            assert!(object_members(src).is_none(), "{src}");
        }
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        assert!(matches!(decode_str("\"abc\""), Some(Cow::Borrowed("abc"))));
        assert!(matches!(decode_str(r#""a\nb""#), Some(Cow::Owned(s)) if s == "a\nb"));
        assert!(decode_str("12").is_none());
    }

    #[test]
    fn push_json_str_escapes() {
        let mut s = String::from("x=");
        push_json_str(&mut s, "a\"\n\u{1}é");
        assert_eq!(s, r#"x="a\"\n\u0001é""#);
        for probe in [
            "",
            "plain",
            "\u{0}\u{8}\u{c}\u{1f}\u{7f} \"\\ é 😀",
            "\n\r\t/",
        ] {
            let mut mine = String::new();
            push_json_str(&mut mine, probe);
            assert_eq!(mine, serde_json::to_string(probe).unwrap(), "{probe:?}");
        }
    }
}
