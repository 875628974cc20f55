//! LangChain's saved messages (`messages_to_dict`, and `dumpd` as
//! LangGraph's checkpoints hold them) as a carrier history.
//!
//! | LangChain | carrier history |
//! |---|---|
//! | `system` | a `system` record |
//! | `human` text and media blocks | a `user` record, the media its `attachments` |
//! | `ai` text and `tool_calls` (or, without them, its `tool_use` / `tool_call` content blocks) | an assistant envelope |
//! | `ai` `thinking` blocks with a signature, `redacted_thinking` | kept as the envelope's `anthropic_thinking` |
//! | unsigned `thinking` and `reasoning` blocks, `invalid_tool_calls`, other providers' blocks (a server tool's call and result) | left out, with a note |
//! | `tool` | a native carrier: text blocks the body, media blocks its attachments, failed where `status` is `error` |
//! | media blocks: `image_url` (a data URL or URL), the standard `image` / `file` / `audio` / `video` blocks of LangChain 0.3 (`source_type` `base64` / `url` / `id`) and 1 (`base64`, `url`, `file_id`), Anthropic's `image` / `document` (`source`) | stored or declared by URL; a provider's file id an error, as whose file it is is not said |
//! | `additional_kwargs`, `response_metadata`, `usage_metadata`, `artifact`, `id`, `name` | left out, with a note per kind: LangChain's own, which it does not send (a tool's `artifact` is the app's) |
//! | a message or block of a type LangChain does not write | an error naming it (`--keep-unknown`: left out, with a note) |

use serde_json::Value;

use crate::media::{Holder, ProviderFile};
use crate::steps::imported::{kind_of_inline, url_payload, ImportError, Payload, UserText};
use crate::AttachmentKind;

use super::super::build::{Answer, At, Build, Output};

const TYPES: [&str; 4] = ["system", "human", "ai", "tool"];
const MEDIA: [&str; 8] = [
    "image_url",
    "image",
    "file",
    "audio",
    "video",
    "document",
    "text-plain",
    "text",
];

/// Why LangChain's own members are left out.
const OWN: &str =
    "LangChain's own record (metadata, usage, ids), which it does not send to a model";

/// One saved message at `at`: `{type, data}` or `{lc, type:
/// "constructor", id, kwargs}`.
pub(super) fn message(b: &mut Build<'_>, v: &Value, at: &At) -> Result<(), ImportError> {
    let (kind, fields, fat) = if v.get("lc").is_some() {
        let class = v
            .get("id")
            .and_then(Value::as_array)
            .and_then(|id| id.last())
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ImportError::at(
                    &at.key("id").text(),
                    "a serialized message without its class",
                )
            })?;
        let kind = match class.trim_end_matches("Chunk") {
            "SystemMessage" => "system",
            "HumanMessage" => "human",
            "AIMessage" => "ai",
            "ToolMessage" => "tool",
            other => other,
        };
        (kind.to_owned(), v.get("kwargs"), at.key("kwargs"))
    } else {
        let kind = b.str(v, at, "type")?;
        let kind = match kind {
            "AIMessageChunk" => "ai",
            "HumanMessageChunk" => "human",
            "ToolMessageChunk" => "tool",
            "SystemMessageChunk" => "system",
            other => other,
        };
        (kind.to_owned(), v.get("data"), at.key("data"))
    };
    let Some(fields) = fields.filter(|f| f.is_object()) else {
        return Err(ImportError::at(
            &fat.text(),
            "a saved message without its fields",
        ));
    };
    for key in [
        "additional_kwargs",
        "response_metadata",
        "usage_metadata",
        "id",
        "name",
        "example",
        "artifact",
    ] {
        if fields.get(key).is_some_and(|v| !is_empty(v)) {
            b.aside(&fat.key(key), &format!("`{key}` member"), OWN);
        }
    }
    let content = fields.get("content").unwrap_or(&Value::Null);
    let cat = fat.key("content");
    match kind.as_str() {
        "system" => {
            b.kept("system message");
            let mut text = UserText::default();
            blocks(b, content, &cat, &mut |b, block, at, kind| match kind {
                "text" => {
                    text.text(b.str(block, at, "text")?);
                    Ok(true)
                }
                _ => Ok(false),
            })?;
            b.push("system", text.into_text());
        }
        "human" => {
            b.kept("human message");
            let mut user = UserText::default();
            blocks(b, content, &cat, &mut |b, block, at, kind| {
                if kind == "text" {
                    user.text(b.str(block, at, "text")?);
                    return Ok(true);
                }
                match media(b, block, at, kind)? {
                    Some((kind, target)) => {
                        user.attach(kind, target, block.get("filename").and_then(Value::as_str));
                        Ok(true)
                    }
                    None => Ok(false),
                }
            })?;
            b.push_user(user);
        }
        "tool" => {
            b.kept("tool message");
            let id = b.str(fields, &fat, "tool_call_id")?;
            let failed = fields.get("status").and_then(Value::as_str) == Some("error");
            let mut result = Output::new(id, failed);
            blocks(b, content, &cat, &mut |b, block, at, kind| {
                if kind == "text" {
                    result.text(b.str(block, at, "text")?);
                    return Ok(true);
                }
                match media(b, block, at, kind)? {
                    Some((kind, target)) => {
                        result.attach(kind, target, block.get("filename").and_then(Value::as_str));
                        Ok(true)
                    }
                    None => Ok(false),
                }
            })?;
            result.push_to(b);
        }
        "ai" => ai(b, fields, &fat)?,
        other => b.unknown(&at.key("type"), "message", other, &TYPES)?,
    }
    Ok(())
}

/// Whether a member holds nothing (`{}`, `[]`, `null`).
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// What reads one block: `true` for one it read.
type Each<'e> = dyn FnMut(&mut Build<'_>, &Value, &At, &str) -> Result<bool, ImportError> + 'e;

/// The blocks of `content` (text, or a list of strings and blocks), each
/// given to `each` with its type: `true` for one it read, `false` for
/// one it has no place for (an error naming the type, or left out with
/// `--keep-unknown`).
fn blocks(
    b: &mut Build<'_>,
    content: &Value,
    at: &At,
    each: &mut Each<'_>,
) -> Result<(), ImportError> {
    match content {
        Value::String(text) => {
            let block = serde_json::json!({"type": "text", "text": text});
            each(b, &block, at, "text")?;
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let iat = at.index(i);
                // `dumpd` wraps a dict holding an `lc` key so.
                let item = item.get("__lc_escaped__").unwrap_or(item);
                let (block, kind) = match item {
                    Value::String(text) => (
                        serde_json::json!({"type": "text", "text": text}),
                        "text".to_owned(),
                    ),
                    other => (other.clone(), b.str(other, &iat, "type")?.to_owned()),
                };
                if each(b, &block, &iat, &kind)? {
                    b.kept(&format!("{kind} block"));
                } else {
                    b.unknown(&iat, "content block", &kind, &MEDIA)?;
                }
            }
        }
        Value::Null => {}
        _ => {
            return Err(ImportError::at(
                &at.text(),
                "content must be text or a list of blocks",
            ))
        }
    }
    Ok(())
}

/// A media block of `kind`: its attachment's kind and target; `None` for
/// a block that holds no media.
fn media(
    b: &mut Build<'_>,
    block: &Value,
    at: &At,
    kind: &str,
) -> Result<Option<(AttachmentKind, String)>, ImportError> {
    let by_kind = match kind {
        "image_url" | "image" => AttachmentKind::Image,
        "audio" => AttachmentKind::Audio,
        "video" => AttachmentKind::Video,
        "file" | "document" | "text-plain" => AttachmentKind::Document,
        _ => return Ok(None),
    };
    let mime = block
        .get("mime_type")
        .or_else(|| block.pointer("/source/media_type"))
        .and_then(Value::as_str);
    let attachment = mime.map_or(by_kind, kind_of_inline);
    let str_at = |key: &'static str| {
        block
            .get(key)
            .and_then(Value::as_str)
            .map(|s| (s, at.key(key)))
    };
    // Where the payload is, and what it is.
    let (payload, pat) = if kind == "image_url" {
        let (url, uat) = match block.get("image_url") {
            Some(Value::String(url)) => (url.as_str(), at.key("image_url")),
            Some(o) => (
                o.get("url").and_then(Value::as_str).unwrap_or_default(),
                at.key("image_url").key("url"),
            ),
            None => ("", at.key("image_url")),
        };
        (url_payload(url), uat)
    } else if let Some(source) = block.get("source").filter(|s| s.is_object()) {
        // Anthropic's own block.
        let sat = at.key("source");
        match source.get("type").and_then(Value::as_str) {
            Some("base64") => (
                Payload::Base64(
                    source
                        .get("data")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
                sat.key("data"),
            ),
            Some("url") => (
                url_payload(
                    source
                        .get("url")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
                sat.key("url"),
            ),
            // Anthropic's Files API: its own block names its holder.
            Some("file") => match source.get("file_id").and_then(Value::as_str) {
                Some(id) => (Payload::Held(ProviderFile::new(Holder::Anthropic, id)), sat),
                None => {
                    return Err(ImportError::at(
                        &sat.text(),
                        "a file source without its file_id",
                    ))
                }
            },
            _ => {
                return b
                    .cannot(
                        at,
                        &format!("{kind} block"),
                        "a media source other than base64, a URL or Anthropic's file",
                    )
                    .map(|()| None)
            }
        }
    } else if let Some((data, dat)) = str_at("base64") {
        (Payload::Base64(data), dat)
    } else if let (Some("base64"), Some((data, dat))) = (
        block.get("source_type").and_then(Value::as_str),
        str_at("data"),
    ) {
        (Payload::Base64(data), dat)
    } else if let Some((url, uat)) = str_at("url") {
        (url_payload(url), uat)
    } else if let Some(text) = block.get("text").and_then(Value::as_str) {
        // A text file: 0.3's `source_type` `text`, 1's `text-plain`.
        let target = b.store_bytes(text.as_bytes())?;
        let mime = mime.unwrap_or("text/plain");
        return Ok(Some((kind_of_inline(mime), target)));
    } else if block.get("file_id").is_some()
        || block.get("source_type").and_then(Value::as_str) == Some("id")
    {
        let why = "a provider's file id that says not whose file it is";
        return b.cannot(at, &format!("{kind} block"), why).map(|()| None);
    } else {
        let a = crate::steps::known::article(kind);
        return Err(ImportError::at(
            &at.text(),
            format!("{a} {kind} block without its data or URL"),
        ));
    };
    let target = b.store(payload, &pat, Some(pat.clone()))?;
    Ok(Some((attachment, target)))
}

/// An AI message: its text, calls and signed thinking.
fn ai(b: &mut Build<'_>, fields: &Value, at: &At) -> Result<(), ImportError> {
    b.kept("ai message");
    let mut answer = Answer::default();
    let calls = fields
        .get("tool_calls")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty());
    let mut block_calls = Vec::new();
    let cat = at.key("content");
    blocks(
        b,
        fields.get("content").unwrap_or(&Value::Null),
        &cat,
        &mut |b, block, bat, kind| {
            let str_of = |k: &str| block.get(k).and_then(Value::as_str);
            match kind {
                "text" => answer.text(b.str(block, bat, "text")?),
                "thinking" => match str_of("signature").filter(|s| !s.is_empty()) {
                    Some(signature) => {
                        answer.thinking(str_of("thinking").unwrap_or_default(), signature)
                    }
                    None => {
                        b.left(bat, "unsigned thinking block", "no API takes reasoning without its signature back, and it is never sent as text");
                        return Ok(true);
                    }
                },
                "redacted_thinking" => answer.redacted(str_of("data").unwrap_or_default()),
                // LangChain 1's standard block: Anthropic's thinking keeps
                // its signature among the `extras`.
                "reasoning" => match block.pointer("/extras/signature").and_then(Value::as_str) {
                    Some(signature) if !signature.is_empty() => {
                        answer.thinking(str_of("reasoning").unwrap_or_default(), signature);
                    }
                    _ => {
                        b.left(bat, "reasoning block", "reasoning no provider signed, which no API takes back, and is never sent as text");
                        return Ok(true);
                    }
                },
                // The calls are `tool_calls`; the blocks say the same.
                "tool_use" | "tool_call" => block_calls.push((block.clone(), bat.clone())),
                "server_tool_use"
                | "web_search_tool_result"
                | "code_execution_tool_result"
                | "web_fetch_tool_result" => {
                    b.left(
                        bat,
                        &format!("{kind} block"),
                        "a tool the provider ran itself, which the carrier history does not hold",
                    );
                    return Ok(true);
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
    )?;
    match calls {
        Some(calls) => {
            let tat = at.key("tool_calls");
            for (i, call) in calls.iter().enumerate() {
                let cat = tat.index(i);
                let id = b.str(call, &cat, "id")?;
                let name = b.str(call, &cat, "name")?;
                let args = call.get("args").cloned().unwrap_or(serde_json::json!({}));
                b.kept("tool call");
                answer.call(id, name, args.to_string());
            }
        }
        None => {
            for (block, bat) in block_calls {
                let id = b.str(&block, &bat, "id")?;
                let name = b.str(&block, &bat, "name")?;
                let args = block
                    .get("input")
                    .or_else(|| block.get("args"))
                    .cloned()
                    .unwrap_or(serde_json::json!({}));
                b.kept("tool call");
                answer.call(id, name, args.to_string());
            }
        }
    }
    if let Some(invalid) = fields.get("invalid_tool_calls").and_then(Value::as_array) {
        let iat = at.key("invalid_tool_calls");
        for i in 0..invalid.len() {
            b.left(
                &iat.index(i),
                "invalid tool call",
                "a call whose arguments were no JSON, which no API takes back",
            );
        }
    }
    answer.push_to(b);
    Ok(())
}
