//! Pieces every API's wire types share: payloads written as base64 while
//! they are serialized, JSON given by the caller (schemas, typed tools)
//! written with sorted keys, and tool-call arguments kept as raw JSON text.
//!
//! Each API's own types live beside its builder (`anthropic.rs`, …); every
//! struct there derives `Serialize` with one fixed field order, the
//! conversation (`messages`, `contents`, `input`) last, so what changes
//! least between turns comes first.

use std::borrow::Cow;
use std::sync::Arc;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::media::Prepared;

/// A payload written as its base64 text.
#[derive(Clone, Debug)]
pub(crate) struct Base64(pub Arc<Prepared>);

impl Serialize for Base64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0.base64())
    }
}

/// A payload written as a `data:` URL.
#[derive(Clone, Debug)]
pub(crate) struct DataUrl(pub Arc<Prepared>);

impl Serialize for DataUrl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0.data_url())
    }
}

/// A URL the provider fetches, or a payload sent inline as a `data:` URL
/// (the two forms OpenAI's `image_url` takes).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum UrlOrData {
    Url(String),
    Data(DataUrl),
}

/// Content that is a plain string, or a list of parts (OpenAI Chat and
/// Responses both take either).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum TextOr<P> {
    Text(String),
    Parts(Vec<P>),
}

/// A JSON object given by the caller, written with its keys sorted at
/// every level: the same bytes whichever serde_json features the crates of
/// a build switch on.
#[derive(Clone, Debug)]
pub(crate) struct Sorted(pub Map<String, Value>);

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

impl Serialize for AsObject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.as_object().serialize(s)
    }
}
