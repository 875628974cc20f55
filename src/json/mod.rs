//! JSON helpers shared by the envelope reader, the envelope editor and the
//! history reader: the members of a JSON object with the byte span of each
//! value ([`scan`]), and string literals written the way serde_json writes
//! them.

#[cfg(feature = "media")]
pub(crate) mod alphabet;
pub(crate) mod diagnose;
pub(crate) mod scan;
#[cfg(feature = "media")]
pub(crate) mod tree;

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

/// Whether every number of the JSON text `raw` is one serde_json reads
/// (as `f64` at worst): `1e999999` is valid JSON that serde_json refuses
/// ("number out of range"), so a body holding it raw could not be read
/// back by the rules' check. Scanning (as `RawValue` does) does not see it.
#[cfg(feature = "media")]
pub(crate) fn numbers_fit(raw: &str) -> bool {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

    struct Walk;
    impl<'de> Deserialize<'de> for Walk {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Walk, D::Error> {
            d.deserialize_any(Walk)
        }
    }
    impl<'de> Visitor<'de> for Walk {
        type Value = Walk;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<Walk, E> {
            Ok(Walk)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Walk, E> {
            Ok(Walk)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Walk, E> {
            Ok(Walk)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Walk, E> {
            Ok(Walk)
        }
        fn visit_str<E>(self, _: &str) -> Result<Walk, E> {
            Ok(Walk)
        }
        fn visit_unit<E>(self) -> Result<Walk, E> {
            Ok(Walk)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Walk, A::Error> {
            while seq.next_element::<Walk>()?.is_some() {}
            Ok(Walk)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Walk, A::Error> {
            while map.next_entry::<serde::de::IgnoredAny, Walk>()?.is_some() {}
            Ok(Walk)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    Walk::deserialize(&mut de).and_then(|_| de.end()).is_ok()
}

/// Valid JSON text without its insignificant white space: every other
/// byte (key order, number spellings, escapes) as written. (Tool-call
/// arguments, sent by the provider writers.)
#[cfg(feature = "media")]
pub(crate) fn minify(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in raw.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    #[cfg(feature = "media")]
    fn minify_drops_only_white_space_outside_strings() {
        let raw = " { \"b\" : [ 1 , 2.50e3 ] ,\n\t\"a\" : \" x \\\" y \" , \"n\":123456789012345678901234567890 } ";
        assert_eq!(
            minify(raw),
            r#"{"b":[1,2.50e3],"a":" x \" y ","n":123456789012345678901234567890}"#
        );
        assert_eq!(minify(r#""a\\" "#), r#""a\\""#);
    }

    #[test]
    fn members_keep_source_spans() {
        let src = r#" { "a" : 1 , "b":"x\"y",  "a":[ 1 ,2] } "#;
        let m = scan::object(src, &[]).unwrap();
        let seen: Vec<_> = m
            .iter()
            .map(|m| (m.key.as_ref(), &src[m.value.clone()]))
            .collect();
        assert_eq!(seen, [("a", "1"), ("b", r#""x\"y""#), ("a", "[ 1 ,2]")]);
    }

    #[test]
    fn escaped_keys_are_decoded() {
        let m = scan::object(r#"{"cont\u0065nt":1}"#, &[]).unwrap();
        assert_eq!(m[0].key, "content");
    }

    #[test]
    fn non_objects_have_no_members() {
        for src in ["", "[]", "1", "\"s\"", "{", "{} {}", "{\"a\":}"] {
            assert!(scan::object(src, &[]).is_none(), "{src}");
        }
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        let m = scan::object(r#"{"a":"abc","b":"a\nb","c":1}"#, &["a", "b", "c"]).unwrap();
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
