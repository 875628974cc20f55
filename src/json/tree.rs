//! A JSON tree that borrows its strings from the text it was read from:
//! what the rules read a request body as.
//!
//! A body is mostly payloads (base64 text of megabytes) and many small
//! objects. `serde_json::Value` copies every string and holds each object
//! in a B-tree whose smallest node is some 600 bytes; a request of a
//! million short messages then takes gigabytes to check. Here a string
//! without escapes is a slice of the text, and an object is a vector of
//! its members in order: the tree of a body is a fraction of its size.
//!
//! Only what the rules ask of a body is here: members by key (the last of
//! repeated keys, as serde_json reads them), items, strings, and whether a
//! value is an object. Numbers keep their value as `f64`, which no rule
//! reads.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// A JSON value borrowing from its text where it can.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string, borrowed when it holds no escape.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Json<'a>>),
    /// An object, its members in order.
    Object(Object<'a>),
    /// A value nested deeper than [`DEPTH`]: skipped, not read. Only tool
    /// arguments and schemas nest so deep, and no rule looks that far in.
    Deep,
}

/// How deep the tree is read. serde_json refuses to build a value nested
/// more than 128 levels, but a body can hold tool arguments written
/// verbatim at any depth; past this, values are skipped, not refused.
pub(crate) const DEPTH: usize = 100;

/// A JSON object: its members in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Object<'a>(Vec<(Cow<'a, str>, Json<'a>)>);

static NULL: Json<'static> = Json::Null;

impl<'a> Json<'a> {
    /// Read JSON text, borrowing its strings.
    pub fn from_str(text: &'a str) -> Result<Json<'a>, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(text);
        let value = Json::deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }

    /// Read JSON text, borrowing its strings: in one pass of the crate's
    /// scanner ([`tree_and_alphabet`](super::scan::tree_and_alphabet))
    /// where it can, else as [`Json::from_str`] reads it (which then also
    /// says why the text is refused). Both give the same tree. With it,
    /// the ranges of `text` the scanner found to be base64 alphabet (none
    /// when serde_json read it). The strings of `vouched` are taken as
    /// their writer vouches for them.
    pub(crate) fn read_vouched(
        text: &'a str,
        vouched: &'a [super::scan::Vouched],
    ) -> Result<(Json<'a>, Vec<std::ops::Range<usize>>), serde_json::Error> {
        match super::scan::tree_and_alphabet(text, true, vouched) {
            Some(found) => Ok(found),
            None => Json::from_str(text).map(|tree| (tree, Vec::new())),
        }
    }

    /// A tree borrowing the strings of `value`.
    pub fn from_value(value: &'a Value) -> Json<'a> {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Json::String(Cow::Borrowed(s)),
            Value::Array(items) => Json::Array(items.iter().map(Json::from_value).collect()),
            Value::Object(map) => Json::Object(Object(
                map.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Json::from_value(v)))
                    .collect(),
            )),
        }
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(object) => object.get(key),
            _ => None,
        }
    }

    /// The text of a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items of an array.
    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }
}

impl<'a> std::ops::Index<&str> for Json<'a> {
    type Output = Json<'a>;

    /// The member `key`, or `null` (as `serde_json::Value` indexes).
    fn index(&self, key: &str) -> &Json<'a> {
        self.get(key).unwrap_or(&NULL)
    }
}

impl PartialEq<&str> for Json<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<str> for Json<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl<'a> From<Vec<(Cow<'a, str>, Json<'a>)>> for Object<'a> {
    /// The last of repeated keys kept, as serde_json reads an object.
    fn from(members: Vec<(Cow<'a, str>, Json<'a>)>) -> Object<'a> {
        Object(last_of_each(members))
    }
}

impl<'a> Object<'a> {
    /// The member `key`: the last one, where a key is repeated.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether the object has a member `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }
}

impl<'o, 'a> IntoIterator for &'o Object<'a> {
    type Item = (&'o str, &'o Json<'a>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'o, (Cow<'a, str>, Json<'a>)>,
        fn(&'o (Cow<'a, str>, Json<'a>)) -> (&'o str, &'o Json<'a>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json<'de>, D::Error> {
        Node { depth: 0 }.deserialize(d)
    }
}

/// A value `depth` levels down.
#[derive(Clone, Copy)]
struct Node {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Node {
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        if self.depth >= DEPTH {
            // serde_json skips a value without recursing.
            d.deserialize_ignored_any(de::IgnoredAny)?;
            return Ok(Json::Deep);
        }
        d.deserialize_any(JsonVisitor { depth: self.depth })
    }
}

struct JsonVisitor {
    depth: usize,
}

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n as f64))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n as f64))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Json<'de>, E> {
        Ok(Json::Number(n))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let node = Node {
            depth: self.depth + 1,
        };
        while let Some(item) = seq.next_element_seed(node)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(0));
        let node = Node {
            depth: self.depth + 1,
        };
        while let Some(key) = map.next_key_seed(Key)? {
            members.push((key, map.next_value_seed(node)?));
        }
        Ok(Json::Object(Object(last_of_each(members))))
    }
}

/// An object key, borrowed when it holds no escape.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(s))
    }
}

/// `members` with only the last of each repeated key, as serde_json keeps
/// it: a walk over the members then sees what a `Value` would hold.
fn last_of_each<'a>(mut members: Vec<(Cow<'a, str>, Json<'a>)>) -> Vec<(Cow<'a, str>, Json<'a>)> {
    const SMALL: usize = 16;
    let repeated = if members.len() <= SMALL {
        (1..members.len()).any(|i| members[..i].iter().any(|(k, _)| *k == members[i].0))
    } else {
        let mut seen = std::collections::HashSet::with_capacity(members.len());
        !members.iter().all(|(k, _)| seen.insert(k.as_ref()))
    };
    if repeated {
        let mut seen = std::collections::HashSet::new();
        members.reverse();
        members.retain(|(k, _)| seen.insert(k.clone()));
        members.reverse();
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner's tree is serde_json's, or it leaves the text to it.
    fn same_tree(text: &str) {
        let scanned = crate::json::scan::tree_and_alphabet(text, false, &[]).map(|(t, _)| t);
        let serde = Json::from_str(text);
        let noted = crate::json::scan::tree_and_alphabet(text, true, &[]);
        assert_eq!(noted.map(|(t, _)| t), scanned, "{text}");
        match (&scanned, &serde) {
            (Some(a), Ok(b)) => assert_eq!(a, b, "{text}"),
            (Some(a), Err(e)) => panic!("{text}: scanned {a:?}, serde_json says {e}"),
            (None, _) => {}
        }
        assert_eq!(
            Json::read_vouched(text, &[]).ok().map(|(t, _)| t),
            serde.ok(),
            "{text}"
        );
    }

    #[test]
    fn vouched_strings_read_as_the_scan_reads_them() {
        use crate::json::scan::{Vouched, ALPHABET_RUN};
        use std::ops::Range;
        let b64 = format!("{}AB==", "QUJD".repeat(ALPHABET_RUN / 4 + 10));
        let url = format!("data:image/png;base64,{b64}");
        let text = format!(r#"{{"a":"{b64}","t":"x","u":["{url}"],"z":"{b64}"}}"#);
        let at = |s: &str, nth: usize| text.match_indices(s).nth(nth).unwrap().0;
        let (a, u) = (at(&b64, 0), at(&url, 0));
        let z = text.rfind(&b64).unwrap();
        let all = [
            Vouched {
                text: a..a + b64.len(),
                base64: a,
            },
            Vouched {
                text: u..u + url.len(),
                base64: u + 22,
            },
            Vouched {
                text: z..z + b64.len(),
                base64: z,
            },
        ];
        fn read<'a>(text: &'a str, vouched: &'a [Vouched]) -> (Json<'a>, Vec<Range<usize>>) {
            Json::read_vouched(text, vouched).unwrap()
        }
        let read = |vouched| read(&text, vouched);
        let (plain, runs) = read(&[]);
        // The same tree; each vouched string's base64 is a run, whole but
        // for its padding (the scan notes whole 64-byte blocks of it).
        let alphabet = |r: &Range<usize>| {
            text[r.clone()]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        };
        let (tree, noted) = read(&all);
        assert!(tree == plain);
        let whole: Vec<_> = all.iter().map(|v| v.base64..v.text.end - 2).collect();
        assert_eq!(noted, whole);
        assert!(runs.iter().chain(&noted).all(alphabet));
        assert!(runs
            .iter()
            .all(|r| whole.iter().any(|w| w.start <= r.start && r.end <= w.end)));
        for some in [&all[1..], &all[..1], &all[2..]] {
            let (tree, noted) = read(some);
            assert!(tree == plain);
            assert!(some
                .iter()
                .all(|v| noted.contains(&(v.base64..v.text.end - 2))));
        }
        // A span that is not a string's text is not taken: the same again.
        let off = [
            Vouched {
                text: a + 1..a + b64.len(),
                base64: a + 1,
            },
            all[2].clone(),
        ];
        let (tree, noted) = read(&off);
        assert!(tree == plain && noted == read(&all[2..]).1);
        let short = [Vouched {
            text: a..a + 8,
            base64: a,
        }];
        let (tree, noted) = read(&short);
        assert!(tree == plain && noted == runs);
    }

    #[test]
    fn the_scanned_tree_is_serde_jsons() {
        for text in [
            r#"{"a":"plain","b":"esc\naped\u00e9","c":[1,-0,2.5e3,true,null,{"d":"x"}],"a":7}"#,
            r#" [ ] "#,
            r#"{}"#,
            r#""\ud800""#,
            r#""\ud83d\ude00""#,
            r#"1e400"#,
            r#"123456789012345678901234567890"#,
            r#"{"a":1,}"#,
            r#"[1 2]"#,
            "\"raw\ncontrol\"",
            r#"{"k":"v"} x"#,
            r#"{"x":{"y":[{"z":"QUJD"}]},"x":null}"#,
            "",
        ] {
            same_tree(text);
        }
        let deep = format!("{}1{}", "[".repeat(150), "]".repeat(150));
        same_tree(&deep);
        let just = format!("{}1{}", "[".repeat(99), "]".repeat(99));
        assert!(crate::json::scan::tree_and_alphabet(&just, false, &[]).is_some());
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let text = r#"{"a":"plain","b":"esc\naped","c":[1,true,null,{"d":"x"}]}"#;
        let json = Json::from_str(text).unwrap();
        assert!(matches!(
            json.get("a"),
            Some(Json::String(Cow::Borrowed("plain")))
        ));
        assert!(matches!(json.get("b"), Some(Json::String(Cow::Owned(s))) if s == "esc\naped"));
        assert_eq!(json["c"].as_array().unwrap().len(), 4);
        assert_eq!(json["c"].as_array().unwrap()[3]["d"], "x");
        assert_eq!(json["missing"], Json::Null);
    }

    #[test]
    fn a_repeated_key_reads_as_serde_json_reads_it() {
        let text = r#"{"k":1,"k":"last"}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(value["k"], "last");
        let tree = Json::from_str(text).unwrap();
        assert_eq!(tree["k"], "last");
        let Json::Object(object) = &tree else {
            panic!("an object")
        };
        assert_eq!(object.keys().collect::<Vec<_>>(), ["k"]);
        let many: String = (0..40).map(|i| format!("\"k{}\":{i},", i % 20)).collect();
        let text = format!("{{{many}\"z\":0}}");
        let many = Json::from_str(&text).unwrap();
        let Json::Object(object) = &many else {
            panic!("an object")
        };
        assert_eq!(object.keys().count(), 21);
        assert_eq!(many["k3"], Json::Number(23.0));
    }

    #[test]
    fn values_nested_past_the_depth_are_skipped_not_refused() {
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(500), "]".repeat(500));
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        let tree = Json::from_str(&deep).unwrap();
        let mut node = &tree["a"];
        let mut levels = 1;
        while let Json::Array(items) = node {
            node = &items[0];
            levels += 1;
        }
        assert_eq!((node, levels), (&Json::Deep, DEPTH));
        assert!(
            Json::from_str(&format!("{}1{}", "[".repeat(500), "]]".repeat(250) + "]")).is_err()
        );
    }

    #[test]
    fn trailing_text_and_bad_json_are_errors() {
        assert!(Json::from_str("{} x").is_err());
        assert!(Json::from_str("{").is_err());
        assert!(Json::from_str(" [1] ").is_ok());
    }

    #[test]
    fn a_value_is_the_same_tree_as_its_text() {
        // Keys in sorted order: a `Value`'s map holds them sorted.
        let text = r#"{"e":{},"x":[{"y":"z\"q"},2.5,-3,false]}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(Json::from_value(&value), Json::from_str(text).unwrap());
    }
}
