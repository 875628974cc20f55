//! The AI SDK's `ModelMessage[]` (what `result.response.messages` holds,
//! and what an app stores of it as JSON) as a carrier history.
//!
//! | `ModelMessage` | carrier history |
//! |---|---|
//! | `system` | a `system` record |
//! | `user` text, `image` and `file` parts | a `user` record, the images and files its `attachments` (a file's `filename` its name) |
//! | `assistant` `text` and `tool-call` parts | an assistant envelope (`input` the arguments); a call's Gemini `thoughtSignature` kept as the envelope's `gemini_thought_signatures` |
//! | `reasoning` parts | kept for the provider that signed them: Anthropic's `signature` (or `redactedData`) as the envelope's `anthropic_thinking`, OpenAI's `itemId` (and `reasoningEncryptedContent`) as a `reasoning` item of its `openai_items`; without either, left out with a note (no API takes unsigned reasoning back, and it is never made text) |
//! | `tool` `tool-result` parts | one native carrier each: `text`, `json` (its JSON text) and `content` outputs the body, `error-text` / `error-json` the same, failed; `execution-denied` a failed result saying so, with a note; a `content` output's images and files (`image-data`, `file-data`, `media`, `image-url`, `file-url`, `file`, a provider's file id or reference) its attachments |
//! | provider-executed calls and their results, the model's own files, `tool-approval-request` / `-response`, `custom` parts | left out, with a note: the carrier history has no place for them |
//! | `providerOptions`, members the SDK's types do not list | left out, with a note per kind |
//! | a part or output of a type the SDK does not write | an error naming it (`--keep-unknown`: left out, with a note) |

use serde_json::{json, Value};

use crate::steps::imported::{kind_of_inline, ImportError, UserText};

use super::super::build::{Answer, At, Build, Output};
use super::data::{held, target};

const ROLES: [&str; 4] = ["system", "user", "assistant", "tool"];
const USER_PARTS: [&str; 3] = ["text", "image", "file"];
const ASSISTANT_PARTS: [&str; 8] = [
    "text",
    "reasoning",
    "tool-call",
    "tool-result",
    "file",
    "reasoning-file",
    "tool-approval-request",
    "custom",
];
const TOOL_PARTS: [&str; 2] = ["tool-result", "tool-approval-response"];
const OUTPUTS: [&str; 6] = [
    "text",
    "json",
    "error-text",
    "error-json",
    "execution-denied",
    "content",
];
const CONTENT_ITEMS: [&str; 12] = [
    "text",
    "media",
    "image-data",
    "file-data",
    "image-url",
    "file-url",
    "file",
    "file-id",
    "image-file-id",
    "file-reference",
    "image-file-reference",
    "custom",
];

/// Why `providerOptions` is left out wherever it is not read.
pub(super) const OPTIONS: &str =
    "a request's options for one provider (cache marks and the like), not part of the conversation";

/// Read one `ModelMessage`, number `m`, at `at`.
pub(super) fn message(b: &mut Build<'_>, v: &Value, at: &At) -> Result<(), ImportError> {
    let role = b.str(v, at, "role")?;
    b.others(v, at, &["role", "content", "providerOptions"]);
    if v.get("providerOptions").is_some() {
        b.aside(
            &at.key("providerOptions"),
            "providerOptions member",
            OPTIONS,
        );
    }
    let content = v
        .get("content")
        .ok_or_else(|| ImportError::at(&at.key("content").text(), "missing"))?;
    let cat = at.key("content");
    match (role, content) {
        ("system", Value::String(text)) => {
            b.kept("system message");
            b.push("system", text.clone());
        }
        ("user" | "assistant", Value::String(text)) => {
            b.kept(&format!("{role} message"));
            b.push(role, text.clone());
        }
        ("user", Value::Array(parts)) => {
            b.kept("user message");
            let mut user = UserText::default();
            for (i, part) in parts.iter().enumerate() {
                user_part(b, part, &cat.index(i), &mut user)?;
            }
            b.push_user(user);
        }
        ("assistant", Value::Array(parts)) => {
            b.kept("assistant message");
            let mut answer = Answer::default();
            for (i, part) in parts.iter().enumerate() {
                assistant_part(b, part, &cat.index(i), &mut answer)?;
            }
            answer.push_to(b);
        }
        ("tool", Value::Array(parts)) => {
            b.kept("tool message");
            for (i, part) in parts.iter().enumerate() {
                tool_part(b, part, &cat.index(i))?;
            }
        }
        ("system" | "user" | "assistant" | "tool", _) => {
            return Err(ImportError::at(
                &cat.text(),
                format!(
                    "a {role} message's content must be {}",
                    match role {
                        "system" => "a string",
                        "tool" => "a list of parts",
                        _ => "a string or a list of parts",
                    }
                ),
            ))
        }
        (other, _) => b.unknown(&at.key("role"), "message", other, &ROLES)?,
    }
    Ok(())
}

/// A media type as a whole type: the SDK lets a part name the top-level
/// type alone (`image`).
pub(super) fn whole(mime: &str) -> &str {
    match mime {
        "image" => "image/*",
        "audio" => "audio/*",
        "video" => "video/*",
        other => other,
    }
}

/// A part's `type`.
pub(super) fn kind<'v>(b: &Build<'_>, part: &'v Value, at: &At) -> Result<&'v str, ImportError> {
    b.str(part, at, "type")
}

/// `providerOptions` on a part that reads none of it.
fn options(b: &mut Build<'_>, part: &Value, at: &At) {
    if part.get("providerOptions").is_some() {
        b.aside(
            &at.key("providerOptions"),
            "providerOptions member",
            OPTIONS,
        );
    }
}

/// A `text` part, in a user or an assistant message: its text.
fn text_part<'v>(b: &mut Build<'_>, part: &'v Value, at: &At) -> Result<&'v str, ImportError> {
    b.others(part, at, &["type", "text", "providerOptions"]);
    options(b, part, at);
    b.kept("text part");
    b.str(part, at, "text")
}

fn user_part(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    user: &mut UserText,
) -> Result<(), ImportError> {
    let kind = kind(b, part, at)?;
    match kind {
        "text" => user.text(text_part(b, part, at)?),
        "image" | "file" => {
            let member = if kind == "image" { "image" } else { "data" };
            b.others(
                part,
                at,
                &["type", member, "mediaType", "filename", "providerOptions"],
            );
            options(b, part, at);
            let data = part
                .get(member)
                .ok_or_else(|| ImportError::at(&at.key(member).text(), "missing"))?;
            let target = target(b, data, &at.key(member))?;
            let mime = match part.get("mediaType").and_then(Value::as_str) {
                Some(mime) => whole(mime),
                None if kind == "image" => "image/*",
                None => {
                    return Err(ImportError::at(
                        &at.key("mediaType").text(),
                        "a file part without its media type",
                    ))
                }
            };
            let name = part.get("filename").and_then(Value::as_str);
            b.user_media(user, &format!("{kind} part"), mime, target, name);
        }
        other => b.unknown(at, "user message part", other, &USER_PARTS)?,
    }
    Ok(())
}

fn assistant_part(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    answer: &mut Answer,
) -> Result<(), ImportError> {
    let kind = kind(b, part, at)?;
    match kind {
        "text" => answer.text(text_part(b, part, at)?),
        "reasoning" => {
            b.others(part, at, &["type", "text", "providerOptions"]);
            reasoning(b, part, at, "providerOptions", answer)?;
        }
        "tool-call" if part.get("providerExecuted") == Some(&Value::Bool(true)) => b.left(
            at,
            "provider-executed tool-call part",
            "the provider ran the tool itself; such calls and their results are the provider's, which the carrier history does not hold",
        ),
        "tool-call" => {
            b.others(part, at, &["type", "toolCallId", "toolName", "input", "providerOptions", "providerExecuted"]);
            let id = b.str(part, at, "toolCallId")?;
            let name = b.str(part, at, "toolName")?;
            let input = part.get("input").cloned().unwrap_or(json!({}));
            let input = match input {
                // Written by a model that streamed it as text.
                Value::String(text) => text,
                other => other.to_string(),
            };
            let given = part.get("providerOptions");
            let signature = given.and_then(|o| o.pointer("/google/thoughtSignature")).and_then(Value::as_str);
            match signature {
                Some(signature) => answer.gemini_signature(id, signature),
                None => options(b, part, at),
            }
            b.kept("tool-call part");
            answer.call(id, name, input);
        }
        "tool-result" => b.left(
            at,
            "assistant's tool-result part",
            "the result of a call the provider ran itself, which the carrier history does not hold",
        ),
        "file" | "reasoning-file" => b.left(
            at,
            &format!("assistant's {kind} part"),
            "a file the model made: an assistant record holds text and calls",
        ),
        "tool-approval-request" => b.left(
            at,
            "tool-approval-request part",
            "the app asking its user to approve a call; the answer is the tool message's",
        ),
        "custom" => b.left(
            at,
            &format!("{kind} part"),
            "one provider's own content, which the carrier history has no place for",
        ),
        other => b.unknown(at, "assistant message part", other, &ASSISTANT_PARTS)?,
    }
    Ok(())
}

/// A `reasoning` part: kept for the provider that signed it (its
/// signature in `member`: `providerOptions`, or a `UIMessage`'s
/// `providerMetadata`).
pub(super) fn reasoning(
    b: &mut Build<'_>,
    part: &Value,
    at: &At,
    member: &'static str,
    answer: &mut Answer,
) -> Result<(), ImportError> {
    let text = b.str(part, at, "text")?;
    let o = part.get(member);
    let get = |p: &str| o.and_then(|o| o.pointer(p)).and_then(Value::as_str);
    if let Some(signature) = get("/anthropic/signature") {
        answer.thinking(text, signature);
    } else if let Some(data) = get("/anthropic/redactedData") {
        answer.redacted(data);
    } else if let Some(id) = get("/openai/itemId").or_else(|| get("/azure/itemId")) {
        let encrypted = get("/openai/reasoningEncryptedContent")
            .or_else(|| get("/azure/reasoningEncryptedContent"));
        answer.openai_reasoning(id, text, encrypted);
    } else {
        if o.is_some() {
            b.aside(&at.key(member), &format!("{member} member"), OPTIONS);
        }
        b.left(
            at,
            "reasoning part",
            "no provider signed it (no Anthropic signature, no OpenAI item id), so no API takes it back, and reasoning is never sent as text",
        );
        return Ok(());
    }
    b.kept("reasoning part");
    Ok(())
}

fn tool_part(b: &mut Build<'_>, part: &Value, at: &At) -> Result<(), ImportError> {
    let kind = kind(b, part, at)?;
    match kind {
        "tool-result" => {
            b.others(
                part,
                at,
                &[
                    "type",
                    "toolCallId",
                    "toolName",
                    "output",
                    "providerOptions",
                ],
            );
            options(b, part, at);
            let id = b.str(part, at, "toolCallId")?;
            b.str(part, at, "toolName")?;
            let output = part
                .get("output")
                .ok_or_else(|| ImportError::at(&at.key("output").text(), "missing"))?;
            b.kept("tool-result part");
            let result = self::output(b, id, output, &at.key("output"))?;
            result.push_to(b);
        }
        "tool-approval-response" => b.left(
            at,
            "tool-approval-response part",
            "the user's answer to the app's approval request, not the model's conversation",
        ),
        other => b.unknown(at, "tool message part", other, &TOOL_PARTS)?,
    }
    Ok(())
}

/// A `tool-result`'s `output`, at `at`.
fn output(b: &mut Build<'_>, id: &str, out: &Value, at: &At) -> Result<Output, ImportError> {
    let kind = kind(b, out, at)?;
    let mut result = Output::new(id, false);
    let what = format!("{kind} output");
    match kind {
        "text" | "error-text" => {
            b.others(out, at, &["type", "value", "providerOptions"]);
            result.text(b.str(out, at, "value")?);
        }
        "json" | "error-json" => {
            b.others(out, at, &["type", "value", "providerOptions"]);
            let value = out.get("value").unwrap_or(&Value::Null);
            result.text(&value.to_string());
        }
        "execution-denied" => {
            b.others(out, at, &["type", "reason", "providerOptions"]);
            options(b, out, at);
            let why = out.get("reason").and_then(Value::as_str);
            result.failed();
            result.text(&match why {
                Some(why) => format!("The tool's execution was denied: {why}"),
                None => "The tool's execution was denied.".to_owned(),
            });
            b.changed(
                at,
                &what,
                "a failed result saying the execution was denied (and why, if said)",
            );
            return Ok(result);
        }
        "content" => {
            b.others(out, at, &["type", "value", "providerOptions"]);
            let items = out.get("value").and_then(Value::as_array).ok_or_else(|| {
                ImportError::at(
                    &at.key("value").text(),
                    "a content output's value must be a list",
                )
            })?;
            for (i, item) in items.iter().enumerate() {
                content_item(b, item, &at.key("value").index(i), &mut result)?;
            }
        }
        other => {
            b.unknown(at, "tool output", other, &OUTPUTS)?;
            return Ok(result);
        }
    }
    if kind.starts_with("error-") {
        result.failed();
    }
    options(b, out, at);
    b.kept(&what);
    Ok(result)
}

/// One item of a `content` output.
fn content_item(
    b: &mut Build<'_>,
    item: &Value,
    at: &At,
    result: &mut Output,
) -> Result<(), ImportError> {
    let kind = kind(b, item, at)?;
    let known: &[&str] = match kind {
        "text" => &["type", "text", "providerOptions"],
        "media" | "image-data" | "file-data" => {
            &["type", "data", "mediaType", "filename", "providerOptions"]
        }
        "image-url" | "file-url" => &["type", "url", "mediaType", "providerOptions"],
        "file" => &["type", "data", "mediaType", "filename", "providerOptions"],
        "file-id" | "image-file-id" => &["type", "fileId", "providerOptions"],
        "file-reference" | "image-file-reference" => {
            &["type", "providerReference", "providerOptions"]
        }
        "custom" => {
            b.left(
                at,
                "custom content item",
                "one provider's own content, which the carrier history has no place for",
            );
            return Ok(());
        }
        other => return b.unknown(at, "tool output content item", other, &CONTENT_ITEMS),
    };
    b.others(item, at, known);
    options(b, item, at);
    let what = format!("{kind} item");
    if kind == "text" {
        b.kept(&what);
        result.text(b.str(item, at, "text")?);
        return Ok(());
    }
    let image = kind.starts_with("image-");
    let (target, mime) = match kind {
        "media" | "image-data" | "file-data" | "file" => {
            let data = item
                .get("data")
                .ok_or_else(|| ImportError::at(&at.key("data").text(), "missing"))?;
            let target = target(b, data, &at.key("data"))?;
            (target, Some(b.str(item, at, "mediaType")?))
        }
        "image-url" | "file-url" => {
            let url = b.str(item, at, "url")?;
            let target = b.store(crate::steps::imported::Payload::Url(url), at, None)?;
            (target, item.get("mediaType").and_then(Value::as_str))
        }
        "file-id" | "image-file-id" => match item.get("fileId") {
            Some(Value::String(_)) => {
                let why = "a file id that names no provider (the SDK hands it to whichever the app calls), \
                    so whose file it is cannot be said";
                return b.cannot(&at.key("fileId"), &what, why);
            }
            id => (
                held(b, id.unwrap_or(&Value::Null), &at.key("fileId"))?,
                None,
            ),
        },
        _ => {
            let reference = item.get("providerReference").unwrap_or(&Value::Null);
            (held(b, reference, &at.key("providerReference"))?, None)
        }
    };
    let attachment = match (mime, image) {
        (Some(mime), _) => kind_of_inline(whole(mime)),
        (None, true) => crate::AttachmentKind::Image,
        (None, false) => crate::AttachmentKind::Document,
    };
    b.kept(&what);
    let name = item.get("filename").and_then(Value::as_str);
    result.attach(attachment, target, name);
    Ok(())
}
