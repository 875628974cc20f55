//! pydantic-ai's messages (`ModelMessagesTypeAdapter.dump_json`) as a
//! carrier history.
//!
//! | pydantic-ai | carrier history |
//! |---|---|
//! | a request's `instructions` | a `system` record, where they first appear or change |
//! | `system-prompt` parts | a `system` record |
//! | `user-prompt` parts | a `user` record: text, `text-content`, and the media (`binary` data, base64 of either alphabet; `image-url`, `document-url`, `audio-url`, `video-url`; an `uploaded-file` of a provider) its `attachments` |
//! | `tool-return` parts | one native carrier each, before the request's user parts: text as it is, media (a `binary` or URL item, alone or in a list) attachments, other JSON its text; failed where the `outcome` is `failed` or `retried` |
//! | `retry-prompt` parts (pydantic-ai 1) | a failed result of the call they name; without one (and `retry-feedback` parts), the user's text, as pydantic-ai sends them |
//! | `text` and `tool-call` parts | an assistant envelope (`args` an object, JSON text, or none) |
//! | `thinking` parts | kept for the provider that signed them: Anthropic's as the envelope's `anthropic_thinking`, OpenAI's (an `rs_` id, the encrypted content its `signature`) as a `reasoning` item of its `openai_items`; others left out, with a note |
//! | `builtin-tool-call` / `-return`, `file` and `compaction` parts of a response | left out, with a note: the provider's own, which the carrier history has no place for |
//! | `cache-point` items, a part's or message's other members (`timestamp`, `usage`, `run_id`, …) | left out, with a note per kind |
//! | a part or item of a kind pydantic-ai does not write | an error naming it (`--keep-unknown`: left out, with a note) |

use serde_json::Value;

use crate::media::{Holder, ProviderFile};
use crate::steps::imported::{kind_of_inline, ImportError, Payload, UserText};
use crate::AttachmentKind;

use super::super::build::{Answer, At, Build, Output};

const REQUEST_PARTS: [&str; 5] = [
    "system-prompt",
    "user-prompt",
    "tool-return",
    "retry-prompt",
    "retry-feedback",
];
const RESPONSE_PARTS: [&str; 6] = [
    "text",
    "thinking",
    "tool-call",
    "builtin-tool-call",
    "builtin-tool-return",
    "file",
];
const ITEMS: [&str; 9] = [
    "binary",
    "image-url",
    "document-url",
    "audio-url",
    "video-url",
    "uploaded-file",
    "text-content",
    "cache-point",
    "a string",
];

/// Why a message's or part's bookkeeping is left out.
const BOOKKEEPING: &str =
    "pydantic-ai's own record of the run (times, usage, ids), not sent to a model";

/// A request being read: its tool results, then its user's parts.
pub(super) struct Request {
    results: Vec<Output>,
    user: UserText,
    /// The instructions last written as a system record.
    pub instructions: Option<String>,
}

impl Request {
    pub fn new() -> Request {
        Request {
            results: Vec::new(),
            user: UserText::default(),
            instructions: None,
        }
    }
}

/// Read one message, at `at`.
pub(super) fn message(
    b: &mut Build<'_>,
    v: &Value,
    at: &At,
    state: &mut Request,
) -> Result<(), ImportError> {
    let kind = b.str(v, at, "kind")?;
    let parts = v.get("parts").and_then(Value::as_array).ok_or_else(|| {
        ImportError::at(&at.key("parts").text(), "a message's parts must be a list")
    })?;
    let pat = at.key("parts");
    match kind {
        "request" => {
            b.kept("request");
            for key in v.as_object().into_iter().flat_map(|o| o.keys()) {
                if !matches!(key.as_str(), "parts" | "kind" | "instructions") {
                    b.aside(&at.member(key), &format!("`{key}` member"), BOOKKEEPING);
                }
            }
            for (i, part) in parts.iter().enumerate() {
                request_part(b, part, &pat.index(i), state)?;
            }
            // After the request's system prompts, as pydantic-ai joins them.
            if let Some(text) = v.get("instructions").and_then(Value::as_str) {
                if state.instructions.as_deref() == Some(text) {
                    let why = "the instructions of the request before, said once";
                    b.aside(
                        &at.key("instructions"),
                        "repeated `instructions` member",
                        why,
                    );
                } else {
                    b.kept("instructions");
                    b.push("system", text.to_owned());
                    state.instructions = Some(text.to_owned());
                }
            }
            for result in std::mem::take(&mut state.results) {
                result.push_to(b);
            }
            b.push_user(std::mem::take(&mut state.user));
        }
        "response" => {
            b.kept("response");
            for key in v.as_object().into_iter().flat_map(|o| o.keys()) {
                if !matches!(key.as_str(), "parts" | "kind") {
                    b.aside(&at.member(key), &format!("`{key}` member"), BOOKKEEPING);
                }
            }
            let mut answer = Answer::default();
            for (i, part) in parts.iter().enumerate() {
                response_part(b, part, &pat.index(i), &mut answer)?;
            }
            answer.push_to(b);
        }
        other => b.unknown(&at.key("kind"), "message", other, &["request", "response"])?,
    }
    Ok(())
}

/// A part's members other than `known`, left out as bookkeeping.
fn rest(b: &mut Build<'_>, part: &Value, at: &At, known: &[&str]) {
    for key in part.as_object().into_iter().flat_map(|o| o.keys()) {
        if !known.contains(&key.as_str()) && key != "part_kind" {
            b.aside(&at.member(key), &format!("`{key}` member"), BOOKKEEPING);
        }
    }
}

fn request_part(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    state: &mut Request,
) -> Result<(), ImportError> {
    let kind = b.str(part, at, "part_kind")?;
    let what = format!("{kind} part");
    match kind {
        "system-prompt" => {
            rest(b, part, at, &["content"]);
            b.kept(&what);
            b.push("system", b.str(part, at, "content")?.to_owned());
        }
        "user-prompt" => {
            rest(b, part, at, &["content"]);
            b.kept(&what);
            match part.get("content") {
                Some(Value::String(text)) => state.user.text(text),
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        user_item(b, item, &at.key("content").index(i), &mut state.user)?;
                    }
                }
                _ => {
                    return Err(ImportError::at(
                        &at.key("content").text(),
                        "a user prompt's content must be text or a list",
                    ))
                }
            }
        }
        "tool-return" | "retry-prompt" if !part.get("tool_name").is_some_and(Value::is_null) => {
            rest(
                b,
                part,
                at,
                &["tool_name", "content", "tool_call_id", "outcome"],
            );
            let id = b.str(part, at, "tool_call_id")?;
            let outcome = part
                .get("outcome")
                .and_then(Value::as_str)
                .unwrap_or("success");
            let failed = kind == "retry-prompt" || matches!(outcome, "failed" | "retried");
            let mut result = Output::new(id, failed);
            let content = part.get("content").unwrap_or(&Value::Null);
            tool_content(b, content, &at.key("content"), &mut result)?;
            b.kept(&what);
            state.results.push(result);
        }
        "retry-prompt" | "retry-feedback" => {
            rest(b, part, at, &["content", "tool_name", "tool_call_id"]);
            let text = match part.get("content") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            state.user.text(&text);
            b.changed(
                at,
                &what,
                "the user's text, as pydantic-ai sends a retry that answers no call",
            );
        }
        other => b.unknown(at, "request part", other, &REQUEST_PARTS)?,
    }
    Ok(())
}

/// A media item (`binary`, a URL, an uploaded file), as `(kind, target,
/// name)`; `None` for anything else.
fn media(
    b: &mut Build<'_>,
    item: &Value,
    at: &At,
) -> Result<Option<(AttachmentKind, String)>, ImportError> {
    let Some(kind) = item.get("kind").and_then(Value::as_str) else {
        return Ok(None);
    };
    let found = match kind {
        "binary" => {
            rest(b, item, at, &["data", "media_type", "kind"]);
            let mime = b.str(item, at, "media_type")?;
            let data = b.str(item, at, "data")?;
            let target = b.store(Payload::Base64(data), &at.key("data"), Some(at.key("data")))?;
            (kind_of_inline(mime), target)
        }
        "image-url" | "document-url" | "audio-url" | "video-url" => {
            rest(b, item, at, &["url", "media_type", "kind"]);
            let url = b.str(item, at, "url")?;
            let by_kind = match kind {
                "image-url" => AttachmentKind::Image,
                "audio-url" => AttachmentKind::Audio,
                "video-url" => AttachmentKind::Video,
                _ => AttachmentKind::Document,
            };
            let target = b.store(
                crate::steps::imported::url_payload(url),
                &at.key("url"),
                Some(at.key("url")),
            )?;
            (by_kind, target)
        }
        "uploaded-file" => {
            rest(
                b,
                item,
                at,
                &["file_id", "provider_name", "media_type", "kind"],
            );
            let id = b.str(item, at, "file_id")?;
            let provider = b.str(item, at, "provider_name")?;
            let holder = match provider {
                "anthropic" => Holder::Anthropic,
                "openai" => Holder::OpenAi,
                p if p.starts_with("google") => Holder::Gemini,
                "bedrock" => Holder::Bedrock,
                other => {
                    let why = format!(
                        "a file of {other:?}, whose files the carrier history does not declare"
                    );
                    b.cannot(at, "uploaded-file item", &why)?;
                    return Ok(Some((AttachmentKind::Document, String::new())));
                }
            };
            let mime = item
                .get("media_type")
                .and_then(Value::as_str)
                .unwrap_or("application/octet-stream");
            let target = b.store(Payload::Held(ProviderFile::new(holder, id)), at, None)?;
            (kind_of_inline(mime), target)
        }
        _ => return Ok(None),
    };
    b.kept(&format!("{kind} item"));
    Ok(Some(found))
}

fn user_item(
    b: &mut Build<'_>,
    item: &Value,
    at: &At,
    user: &mut UserText,
) -> Result<(), ImportError> {
    if let Some(text) = item.as_str() {
        b.kept("text item");
        user.text(text);
        return Ok(());
    }
    if let Some((kind, target)) = media(b, item, at)? {
        if !target.is_empty() {
            user.attach(kind, target, None);
        }
        return Ok(());
    }
    match item.get("kind").and_then(Value::as_str) {
        Some("text-content") => {
            rest(b, item, at, &["content", "kind"]);
            b.kept("text-content item");
            user.text(b.str(item, at, "content")?);
        }
        Some("cache-point") => b.aside(
            at,
            "cache-point item",
            "a request's cache mark, not part of the conversation",
        ),
        Some(other) => b.unknown(at, "user prompt item", other, &ITEMS)?,
        None => b.unknown(at, "user prompt item", "(no kind)", &ITEMS)?,
    }
    Ok(())
}

/// A tool return's `content`: text, a media item, a list of both, or
/// other JSON (its text).
fn tool_content(
    b: &mut Build<'_>,
    content: &Value,
    at: &At,
    result: &mut Output,
) -> Result<(), ImportError> {
    match content {
        Value::String(text) => result.text(text),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let iat = at.index(i);
                match item {
                    Value::String(text) => result.text(text),
                    _ => match media(b, item, &iat)? {
                        Some((kind, target)) if !target.is_empty() => {
                            result.attach(kind, target, None)
                        }
                        Some(_) => {}
                        None => result.text(&item.to_string()),
                    },
                }
            }
        }
        Value::Null => {}
        other => match media(b, other, at)? {
            Some((kind, target)) if !target.is_empty() => result.attach(kind, target, None),
            Some(_) => {}
            None => result.text(&other.to_string()),
        },
    }
    Ok(())
}

fn response_part(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    answer: &mut Answer,
) -> Result<(), ImportError> {
    let kind = b.str(part, at, "part_kind")?;
    let what = format!("{kind} part");
    match kind {
        "text" => {
            rest(b, part, at, &["content"]);
            b.kept(&what);
            answer.text(b.str(part, at, "content")?);
        }
        "tool-call" => {
            rest(b, part, at, &["tool_name", "args", "tool_call_id"]);
            let id = b.str(part, at, "tool_call_id")?;
            let name = b.str(part, at, "tool_name")?;
            let args = match part.get("args") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                Some(Value::Object(o)) => Value::Object(o.clone()).to_string(),
                _ => "{}".to_owned(),
            };
            b.kept(&what);
            answer.call(id, name, args);
        }
        "thinking" => thinking(b, part, at, answer)?,
        "builtin-tool-call" | "builtin-tool-return" | "file" | "compaction" => b.left(
            at,
            &what,
            "the provider's own (a tool it ran, a file it made, its compaction), which the carrier history has no place for",
        ),
        other => b.unknown(at, "response part", other, &RESPONSE_PARTS)?,
    }
    Ok(())
}

/// A `thinking` part: kept for the provider that signed it.
fn thinking(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    answer: &mut Answer,
) -> Result<(), ImportError> {
    rest(
        b,
        part,
        at,
        &["content", "signature", "provider_name", "id"],
    );
    let text = b.str(part, at, "content")?;
    let get = |k: &str| part.get(k).and_then(Value::as_str);
    match (get("provider_name"), get("signature"), get("id")) {
        (Some("anthropic"), Some(signature), _) => answer.thinking(text, signature),
        (Some(p), encrypted, Some(id)) if p.starts_with("openai") && id.starts_with("rs_") => {
            answer.openai_reasoning(id, text, encrypted);
        }
        _ => {
            b.left(
                at,
                "thinking part",
                "no provider whose reasoning is taken back signed it (Anthropic's signature, OpenAI's reasoning item), and reasoning is never sent as text",
            );
            return Ok(());
        }
    }
    b.kept("thinking part");
    Ok(())
}
