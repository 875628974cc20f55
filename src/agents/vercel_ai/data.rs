//! The forms the AI SDK's media data take once its messages are written
//! as JSON (`JSON.stringify` of `ModelMessage[]`): a string (base64, a
//! `data:` URL or a URL), a `URL` (its text), a `Uint8Array` (an object of
//! byte numbers by index), a Node `Buffer` (`{"type": "Buffer", "data":
//! [...]}`), a provider's file reference (`{"openai": "file-…"}`), and
//! since `ai` 7 `FileData` (`{"type": "data" | "url" | "reference" |
//! "text", …}`).

use serde_json::Value;

use crate::media::{Holder, ProviderFile};
use crate::steps::imported::{url_payload, ImportError, Payload};

use super::super::build::{At, Build};

/// The provider names the AI SDK keys a file reference by, and whose
/// files the crate declares.
const HOLDERS: [(&str, Holder); 4] = [
    ("anthropic", Holder::Anthropic),
    ("openai", Holder::OpenAi),
    ("google", Holder::Gemini),
    ("amazon-bedrock", Holder::Bedrock),
];

/// The target of the data `value` at `at` (the member the part holds it
/// in): stored bytes, a URL, or a provider's file.
pub(super) fn target(build: &mut Build<'_>, value: &Value, at: &At) -> Result<String, ImportError> {
    match value {
        Value::String(s) => {
            // As the SDK tells them: what parses as a URL is one.
            let payload = if s.contains(':') {
                url_payload(s)
            } else {
                Payload::Base64(s)
            };
            build.store(payload, at, Some(at.clone()))
        }
        Value::Object(o) => match o.get("type").and_then(Value::as_str) {
            Some("data") => match o.get("data") {
                Some(data) => target(build, data, &at.key("data")),
                None => Err(ImportError::at(&at.text(), "file data without its `data`")),
            },
            Some("url") => {
                let url = build.str(value, at, "url")?;
                build.store(Payload::Url(url), at, None)
            }
            Some("text") => {
                let text = build.str(value, at, "text")?;
                build.store_bytes(text.as_bytes())
            }
            Some("reference") => match o.get("reference") {
                Some(reference) => held(build, reference, &at.key("reference")),
                None => Err(ImportError::at(&at.text(), "a file reference without its `reference`")),
            },
            Some("Buffer") => bytes(build, o.get("data"), &at.key("data")),
            Some(other) => Err(ImportError::at(
                &at.key("type").text(),
                format!("file data of type {other:?}, which this reader does not know (data, url, text, reference)"),
            )),
            None if o.keys().all(|k| k.parse::<usize>().is_ok()) && !o.is_empty() => {
                let mut numbered: Vec<(usize, &Value)> =
                    o.iter().map(|(k, v)| (k.parse().unwrap_or(0), v)).collect();
                numbered.sort_by_key(|(k, _)| *k);
                if numbered.iter().enumerate().any(|(i, (k, _))| i != *k) {
                    return Err(ImportError::at(&at.text(), "a byte array with gaps in its indices"));
                }
                let list: Vec<Value> = numbered.into_iter().map(|(_, v)| v.clone()).collect();
                bytes(build, Some(&Value::Array(list)), at)
            }
            None => held(build, value, at),
        },
        _ => Err(ImportError::at(
            &at.text(),
            "media data must be a string, a byte array or a file reference",
        )),
    }
}

/// A list of byte numbers, stored.
fn bytes(build: &mut Build<'_>, list: Option<&Value>, at: &At) -> Result<String, ImportError> {
    let bytes: Option<Vec<u8>> = list.and_then(Value::as_array).and_then(|l| {
        l.iter()
            .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
            .collect()
    });
    match bytes {
        Some(bytes) => build.store_bytes(&bytes),
        None => Err(ImportError::at(
            &at.text(),
            "a byte array holding something other than bytes (0 to 255)",
        )),
    }
}

/// A provider's file (`{"openai": "file-…"}`), of the first provider
/// whose files the crate declares (a reference may name the file as
/// several providers hold it).
pub(super) fn held(b: &mut Build<'_>, reference: &Value, at: &At) -> Result<String, ImportError> {
    let found: Vec<(Holder, &str)> = reference
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let holder = HOLDERS.iter().find(|(name, _)| name == k)?.1;
            Some((holder, v.as_str()?))
        })
        .collect();
    match found[..] {
        [] => Err(ImportError::at(
            &at.text(),
            format!(
                "a file reference names no file of a provider the crate declares files of ({})",
                HOLDERS.map(|(n, _)| n).join(", ")
            ),
        )),
        [(holder, id), ref others @ ..] => {
            for _ in others {
                b.aside(
                    at,
                    "other provider's file id",
                    "an attachment names one file: the reference's first provider's is kept",
                );
            }
            b.store(Payload::Held(ProviderFile::new(holder, id)), at, None)
        }
    }
}
