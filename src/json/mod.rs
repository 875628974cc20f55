//! JSON helpers shared by the envelope reader, the envelope editor and the
//! history reader: serde strings that borrow when they can, the members of
//! a JSON object with the byte span of each value ([`scan`]), and string
//! literals written the way serde_json writes them.

pub(crate) mod scan;

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

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

pub(crate) use scan::object as object_members;

/// Append `s` to `out` as a JSON string literal, escaped as serde_json
/// escapes: `\"`, `\\`, the short control escapes, `\u00XX` for the other
/// control characters, everything else verbatim.
pub(crate) fn push_json_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(found) = scan::find_special(&bytes[start..]) {
        let i = start + found;
        // `i` is at an ASCII byte, so both slices end on char boundaries.
        out.push_str(&s[start..i]);
        let b = bytes[i];
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 0xf)] as char);
            }
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
        let m = object_members(src, &[]).unwrap();
        let seen: Vec<_> = m
            .iter()
            .map(|m| (m.key.as_ref(), &src[m.value.clone()]))
            .collect();
        assert_eq!(seen, [("a", "1"), ("b", r#""x\"y""#), ("a", "[ 1 ,2]")]);
    }

    #[test]
    fn escaped_keys_are_decoded() {
        let m = object_members(r#"{"cont\u0065nt":1}"#, &[]).unwrap();
        assert_eq!(m[0].key, "content");
    }

    #[test]
    fn non_objects_have_no_members() {
        for src in ["", "[]", "1", "\"s\"", "{", "{} {}", "{\"a\":}"] {
            assert!(object_members(src, &[]).is_none(), "{src}");
        }
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        let m = object_members(r#"{"a":"abc","b":"a\nb","c":1}"#, &["a", "b", "c"]).unwrap();
        assert!(matches!(m[0].decoded, Some(Cow::Borrowed("abc"))));
        assert!(matches!(&m[1].decoded, Some(Cow::Owned(s)) if s == "a\nb"));
        assert!(m[2].decoded.is_none());
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
