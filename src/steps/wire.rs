//! Pieces every API's wire types share: payloads written as base64 while
//! they are serialized (and read back as the text they are), JSON given
//! by the caller (schemas, typed tools) written with sorted keys, and
//! tool-call arguments kept as raw JSON text.
//!
//! Each API's own types live in its folder (`apis/anthropic/wire.rs`, …)
//! and serve both directions: they derive `Serialize` with one fixed field
//! order, the conversation (`messages`, `contents`, `input`) last, so what
//! changes least between turns comes first, and `Deserialize`, borrowing
//! every string from the body being read.

use std::borrow::Cow;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub(crate) use super::assembled::Payload;

/// Base64 text: a payload's, written while it is serialized, or the text
/// a body being read holds (borrowed from it).
#[derive(Clone, Debug)]
pub(crate) enum B64<'a> {
    Payload(Payload),
    Text(Cow<'a, str>),
}

impl Serialize for B64<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            B64::Payload(p) => p.serialize(s),
            B64::Text(text) => s.serialize_str(text),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for B64<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(B64::Text)
    }
}

impl<'a> B64<'a> {
    /// The text read from a body (`""` for a payload being written).
    pub(crate) fn text(&self) -> &str {
        match self {
            B64::Text(text) => text,
            B64::Payload(_) => "",
        }
    }
}

/// A URL: a payload's `data:` URL, written while it is serialized, or a
/// URL as text (one the provider fetches, or, read, whatever URL the body
/// holds, borrowed from it).
#[derive(Clone, Debug)]
pub(crate) enum Url<'a> {
    Payload(Payload),
    Text(Cow<'a, str>),
}

impl Serialize for Url<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Url::Payload(p) => p.serialize(s),
            Url::Text(text) => s.serialize_str(text),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Url<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(Url::Text)
    }
}

impl Url<'_> {
    /// The URL read from a body (`""` for a payload being written).
    pub(crate) fn text(&self) -> &str {
        match self {
            Url::Text(text) => text,
            Url::Payload(_) => "",
        }
    }
}

/// A string, borrowed from the body being read where it can be.
struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// A tagged item of an API's (a block, a part, an item) that the crate
/// knows, or any other object of that list kept as it is: a block the
/// history kept as the provider wrote it (a thinking block and its
/// signature) given back unchanged, or, read, a block of a type the crate
/// does not know.
///
/// Read, an object whose `type` is one of `T`'s must be `T` in full: a
/// known block of a broken shape is an error naming what broke, never
/// kept as unknown.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Open<T> {
    Known(T),
    Other(Map<String, Value>),
    /// Written back byte for byte (never read: a block replayed as the
    /// provider wrote it, such as a signed thinking block).
    Raw(Box<RawValue>),
}

impl<T> From<T> for Open<T> {
    fn from(known: T) -> Open<T> {
        Open::Known(known)
    }
}

/// The `type` tags of an enum of wire items.
pub(crate) trait Tagged {
    /// Every tag the enum reads.
    const TAGS: &'static [&'static str];
}

impl<'de, T: Deserialize<'de> + Tagged> Deserialize<'de> for Open<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        let known = map
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|tag| T::TAGS.contains(&tag));
        if !known {
            return Ok(Open::Other(map));
        }
        T::deserialize(Value::Object(map))
            .map(Open::Known)
            .map_err(de::Error::custom)
    }
}

/// The two roles of the APIs that keep system text apart from the
/// conversation (Anthropic, Bedrock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    User,
    Assistant,
}

/// Content that is a plain string, or a list of parts (Anthropic, OpenAI
/// Chat and Responses all take either).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum TextOr<'a, P> {
    Text(Cow<'a, str>),
    Parts(Vec<P>),
}

impl<'de: 'a, 'a, P: Deserialize<'de>> Deserialize<'de> for TextOr<'a, P> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextOrVisitor(std::marker::PhantomData))
    }
}

struct TextOrVisitor<P>(std::marker::PhantomData<P>);

impl<'de, P: Deserialize<'de>> Visitor<'de> for TextOrVisitor<P> {
    type Value = TextOr<'de, P>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("text or a list of blocks")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(TextOr::Text(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(TextOr::Text(Cow::Owned(v.to_owned())))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(TextOr::Parts(parts))
    }
}

/// A JSON object given by the caller, written with its keys sorted at
/// every level: the same bytes whichever serde_json features the crates of
/// a build switch on.
#[derive(Clone, Debug)]
pub(crate) struct Sorted(pub Map<String, Value>);

impl<'de> Deserialize<'de> for Sorted {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Map::deserialize(d).map(Sorted)
    }
}

impl Serialize for Sorted {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SortedMap(&self.0).serialize(s)
    }
}

struct SortedMap<'a>(&'a Map<String, Value>);

impl Serialize for SortedMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(&String, &Value)> = self.0.iter().collect();
        entries.sort_unstable_by_key(|(k, _)| k.as_str());
        let mut map = s.serialize_map(Some(entries.len()))?;
        for (k, v) in entries {
            map.serialize_entry(k, &SortedValue(v))?;
        }
        map.end()
    }
}

struct SortedValue<'a>(&'a Value);

impl Serialize for SortedValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => SortedMap(map).serialize(s),
            Value::Array(items) => s.collect_seq(items.iter().map(SortedValue)),
            other => other.serialize(s),
        }
    }
}

/// Tool-call arguments as the history gave them: the text of a JSON
/// string (OpenAI's form), or any other JSON value as raw text, so key
/// order and numbers of any size survive.
#[derive(Clone, Debug)]
pub(crate) enum Arguments {
    /// A JSON string, decoded: usually JSON text itself.
    Text(String),
    /// Any other value (an object, usually), as compact raw JSON.
    Json(Box<RawValue>),
    /// No `arguments` member, or `null`.
    None,
}

impl Arguments {
    /// From the raw JSON text of an `arguments` value that is not a string.
    pub(crate) fn from_raw(raw: &str) -> Arguments {
        if raw == "null" {
            return Arguments::None;
        }
        // JSON with a number serde_json cannot read (`1e999999`) would make
        // a body the rules' check cannot read back: sent as text instead.
        if !crate::json::numbers_fit(raw) {
            return Arguments::Text(raw.to_owned());
        }
        match RawValue::from_string(crate::json::minify(raw)) {
            Ok(raw) => Arguments::Json(raw),
            // The scanner checked it is JSON; should serde_json disagree,
            // keep the text rather than lose it.
            Err(_) => Arguments::Text(raw.to_owned()),
        }
    }

    /// As a JSON string (OpenAI): a string stays verbatim, except that
    /// blank text is `{}`; a value is its raw text.
    pub(crate) fn as_text(&self) -> Cow<'_, str> {
        match self {
            Arguments::Text(s) if s.trim().is_empty() => Cow::Borrowed("{}"),
            Arguments::Text(s) => Cow::Borrowed(s),
            Arguments::Json(raw) => Cow::Borrowed(raw.get()),
            Arguments::None => Cow::Borrowed("{}"),
        }
    }

    /// As an object (Anthropic, Gemini, Bedrock, Ollama): a string that
    /// holds an object is that object, raw; blank text is `{}`; anything
    /// else is kept whole under `"arguments"`, so nothing is lost.
    pub(crate) fn as_object(&self) -> ArgumentsObject<'_> {
        match self {
            Arguments::Text(s) if s.trim().is_empty() => ArgumentsObject::Empty,
            Arguments::Text(s) => match object_text(s) {
                Some(raw) => ArgumentsObject::Raw(raw),
                None => ArgumentsObject::Wrapped(Wrapped::Text(s)),
            },
            Arguments::Json(raw) if raw.get().starts_with('{') => {
                ArgumentsObject::Raw(Cow::Borrowed(raw))
            }
            Arguments::Json(raw) => ArgumentsObject::Wrapped(Wrapped::Json(raw)),
            Arguments::None => ArgumentsObject::Empty,
        }
    }
}

/// `s` as raw JSON when it is exactly one JSON object (white space around
/// it allowed) that serde_json reads as one.
fn object_text(s: &str) -> Option<Cow<'static, RawValue>> {
    // serde_json's reading, which also refuses escapes that are no
    // character anywhere inside (as the `Value` these arguments once went
    // through did).
    serde_json::from_str::<Map<String, Value>>(s).ok()?;
    RawValue::from_string(crate::json::minify(s))
        .ok()
        .map(Cow::Owned)
}

/// [`Arguments::as_object`].
pub(crate) enum ArgumentsObject<'a> {
    Empty,
    Raw(Cow<'a, RawValue>),
    Wrapped(Wrapped<'a>),
}

pub(crate) enum Wrapped<'a> {
    Text(&'a str),
    Json(&'a RawValue),
}

impl Serialize for ArgumentsObject<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ArgumentsObject::Empty => s.serialize_map(Some(0))?.end(),
            ArgumentsObject::Raw(raw) => raw.serialize(s),
            ArgumentsObject::Wrapped(inner) => {
                let mut map = s.serialize_map(Some(1))?;
                match inner {
                    Wrapped::Text(text) => map.serialize_entry("arguments", text)?,
                    Wrapped::Json(raw) => map.serialize_entry("arguments", raw)?,
                }
                map.end()
            }
        }
    }
}

/// A call's arguments, written as an object ([`Arguments::as_object`]).
#[derive(Clone, Debug)]
pub(crate) struct AsObject(pub Arguments);

/// Read back, a call's `input` (any JSON) is kept as its compact text.
impl<'de> Deserialize<'de> for AsObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        RawValue::from_string(value.to_string())
            .map(|raw| AsObject(Arguments::Json(raw)))
            .map_err(de::Error::custom)
    }
}

impl Default for AsObject {
    fn default() -> AsObject {
        AsObject(Arguments::None)
    }
}

impl Serialize for AsObject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.as_object().serialize(s)
    }
}

/// A call's arguments, written as a JSON string ([`Arguments::as_text`],
/// OpenAI's form). Read back, a string is kept as the text it is, and any
/// other value (an object, as some servers send) as its compact JSON.
#[derive(Clone, Debug)]
pub(crate) struct AsText(pub Arguments);

impl<'de> Deserialize<'de> for AsText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(text) => Ok(AsText(Arguments::Text(text))),
            value => RawValue::from_string(value.to_string())
                .map(|raw| AsText(Arguments::Json(raw)))
                .map_err(de::Error::custom),
        }
    }
}

impl Default for AsText {
    fn default() -> AsText {
        AsText(Arguments::None)
    }
}

impl Serialize for AsText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.as_text())
    }
}

impl AsText {
    /// The arguments as the JSON text a body held them: a string as a
    /// JSON string, a value as its compact JSON, none as `{}`.
    pub(crate) fn json(&self) -> Cow<'_, str> {
        match &self.0 {
            Arguments::Text(text) => Cow::Owned(Value::String(text.clone()).to_string()),
            Arguments::Json(raw) => Cow::Borrowed(raw.get()),
            Arguments::None => Cow::Borrowed("{}"),
        }
    }
}

/// An item of a list whose kind is the one member it holds, not a `type`
/// tag (Gemini's parts: `text`, `inlineData`, …; Bedrock's blocks:
/// `text`, `image`, `toolUse`, …): one the crate knows, or
/// any other object kept as it is.
///
/// Read, an object holding one of `T`'s members (not `null`) must be `T`
/// in full, the member named in the error, and hold no other of them: a
/// known item of a broken shape is an error, never kept as unknown.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Keyed<T> {
    Known(T),
    Other(Map<String, Value>),
    /// Written back byte for byte (never read: an item replayed as the
    /// provider wrote it, such as Bedrock's signed reasoning block).
    Raw(Box<RawValue>),
}

/// The members that tell the kinds of a [`Keyed`] item apart.
pub(crate) trait Keys {
    /// Every member the type reads as a kind.
    const KEYS: &'static [&'static str];
}

impl<'de, T: Deserialize<'de> + Keys> Deserialize<'de> for Keyed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        let mut held = T::KEYS
            .iter()
            .filter(|k| map.get(**k).is_some_and(|v| !v.is_null()));
        let Some(first) = held.next() else {
            return Ok(Keyed::Other(map));
        };
        if let Some(second) = held.next() {
            return Err(de::Error::custom(format_args!(
                "holds both `{first}` and `{second}` (one kind to an item)"
            )));
        }
        serde_path_to_error::deserialize(Value::Object(map))
            .map(Keyed::Known)
            .map_err(de::Error::custom)
    }
}

/// Read, a member that may be left out or `null` (its absence, as in
/// proto3 JSON): `#[serde(default, deserialize_with = "or_default")]`.
pub(crate) fn or_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
    d: D,
) -> Result<T, D::Error> {
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}
