//! Anthropic Messages bodies (or their `messages` array) as carrier
//! histories.
//!
//! | Anthropic | carrier history |
//! |---|---|
//! | `system` (text or text blocks) | a `system` message |
//! | `user` text | a `user` message |
//! | `tool_result` blocks | one `tool` carrier each, in order, before the turn's text: text blocks the body, `image` / `document` blocks declared (base64 stored, URLs kept), `is_error` kept |
//! | `image` / `document` in the user's own turn | stored, and named in the user's text (`[image TARGET sent by the user]`), with a note |
//! | `assistant` text and `tool_use` | an assistant envelope (`input` as the arguments) |
//! | `thinking` / `redacted_thinking` blocks | kept, with their signatures, as the envelope's `anthropic_thinking` member |
//! | other blocks (server tools, search results, …) | kept as the envelope's `anthropic_blocks` member, or as text in a user turn, with a note |
//!
//! `cache_control` marks are the request's, not the conversation's: they
//! are left out.

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, attach, messages_of, str_of, target, text_of, url_payload, user_media,
    Call, ImportedHistory, Payload,
};

pub use crate::steps::envelope::ANTHROPIC_THINKING as THINKING;
/// The member of the assistant envelope that keeps other blocks.
pub const BLOCKS: &str = "anthropic_blocks";

/// Read an Anthropic Messages request body (or a bare `messages` array).
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Anthropic's shape.
pub fn from_anthropic(
    input: &Value,
    store: &mut dyn MediaStore,
) -> Result<ImportedHistory, ImportError> {
    let messages = messages_of(input, "messages")
        .ok_or_else(|| ImportError::at("$", "expected a Messages body or a list of messages"))?;
    let mut out = ImportedHistory::default();
    match input.get("system") {
        None | Some(Value::Null) => {}
        Some(system) => {
            let text = text_of(system);
            if !text.is_empty() {
                out.push("system", text.into_owned());
            }
        }
    }
    for (m, message) in messages.iter().enumerate() {
        let at = format!("$.messages[{m}]");
        let role = str_of(message, "role")
            .ok_or_else(|| ImportError::at(&at, "a message needs a role"))?;
        let content = message.get("content").unwrap_or(&Value::Null);
        match role {
            "user" => user(m, &at, content, store, &mut out)?,
            "assistant" => assistant(m, &at, content, &mut out)?,
            other => return Err(ImportError::at(&at, format!("unknown role {other:?}"))),
        }
    }
    Ok(out)
}

fn blocks<'v>(content: &'v Value, at: &str) -> Result<Vec<&'v Value>, ImportError> {
    match content {
        Value::Array(items) => Ok(items.iter().collect()),
        _ => Err(ImportError::at(
            &format!("{at}.content"),
            "expected text or a list of blocks",
        )),
    }
}

/// An `image` or `document` block's target.
fn media(
    block: &Value,
    at: &str,
    store: &mut dyn MediaStore,
) -> Result<(AttachmentKind, String), ImportError> {
    let kind = if str_of(block, "type") == Some("image") {
        AttachmentKind::Image
    } else {
        AttachmentKind::Document
    };
    let source = block.get("source").unwrap_or(&Value::Null);
    let sat = format!("{at}.source");
    let payload = match str_of(source, "type") {
        Some("base64") => Payload::Base64(
            str_of(source, "data")
                .ok_or_else(|| ImportError::at(&sat, "a base64 source needs data"))?,
        ),
        Some("url") => url_payload(
            str_of(source, "url")
                .ok_or_else(|| ImportError::at(&sat, "a url source needs a url"))?,
        ),
        other => {
            return Err(ImportError::at(
                &sat,
                format!(
                    "a source of type {} cannot be read back (base64 or url)",
                    other.unwrap_or("none")
                ),
            ))
        }
    };
    Ok((kind, target(payload, &sat, store)?))
}

fn user(
    m: usize,
    at: &str,
    content: &Value,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    if let Value::String(text) = content {
        out.push("user", text.clone());
        return Ok(());
    }
    let mut text = Vec::new();
    for (b, block) in blocks(content, at)?.into_iter().enumerate() {
        let bat = format!("{at}.content[{b}]");
        match str_of(block, "type") {
            Some("tool_result") => out.push("tool", tool_result(block, &bat, store)?),
            Some("text") => text.push(str_of(block, "text").unwrap_or("").to_owned()),
            Some("image" | "document") => {
                let (kind, target) = media(block, &bat, store)?;
                text.push(user_media(out, m, &bat, kind, &target));
            }
            _ => {
                out.note(
                    m,
                    format!("{bat}: a {} block is kept as text", type_name(block)),
                );
                text.push(block.to_string());
            }
        }
    }
    if !text.is_empty() {
        out.push("user", text.join("\n"));
    }
    Ok(())
}

fn type_name(block: &Value) -> String {
    str_of(block, "type").map_or("untyped".into(), |t| format!("{t:?}"))
}

fn tool_result(block: &Value, at: &str, store: &mut dyn MediaStore) -> Result<String, ImportError> {
    let id = str_of(block, "tool_use_id")
        .ok_or_else(|| ImportError::at(at, "a tool_result needs a tool_use_id"))?;
    let mut env = Envelope {
        call_id: Some(id.to_owned()),
        is_error: block.get("is_error") == Some(&Value::Bool(true)),
        ..Envelope::default()
    };
    match block.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => env.line(s),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let iat = format!("{at}.content[{i}]");
                match str_of(item, "type") {
                    Some("text") => env.line(str_of(item, "text").unwrap_or("")),
                    Some("image" | "document") => {
                        let (kind, target) = media(item, &iat, store)?;
                        attach(&mut env, kind, target);
                    }
                    _ => env.line(&item.to_string()),
                }
            }
        }
        Some(_) => {
            return Err(ImportError::at(
                &format!("{at}.content"),
                "expected text or a list of blocks",
            ))
        }
    }
    Ok(env.render())
}

fn assistant(
    m: usize,
    at: &str,
    content: &Value,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    if let Value::String(text) = content {
        out.push("assistant", text.clone());
        return Ok(());
    }
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut others = Vec::new();
    for (b, block) in blocks(content, at)?.into_iter().enumerate() {
        let bat = format!("{at}.content[{b}]");
        match str_of(block, "type") {
            Some("text") => text.push(str_of(block, "text").unwrap_or("")),
            Some("tool_use") => calls.push(Call {
                id: str_of(block, "id")
                    .ok_or_else(|| ImportError::at(&bat, "a tool_use needs an id"))?
                    .to_owned(),
                name: str_of(block, "name")
                    .ok_or_else(|| ImportError::at(&bat, "a tool_use needs a name"))?
                    .to_owned(),
                arguments: block.get("input").map_or("{}".into(), Value::to_string),
            }),
            Some("thinking" | "redacted_thinking") => thinking.push(without_cache_control(block)),
            _ => {
                out.note(
                    m,
                    format!(
                        "{bat}: a {} block is kept as the envelope's {BLOCKS}",
                        type_name(block)
                    ),
                );
                others.push(without_cache_control(block));
            }
        }
    }
    let text = text.join("\n");
    if calls.is_empty() && thinking.is_empty() && others.is_empty() {
        out.push("assistant", text);
        return Ok(());
    }
    let mut extra = Vec::new();
    if !thinking.is_empty() {
        extra.push((THINKING.to_owned(), Value::Array(thinking).to_string()));
    }
    if !others.is_empty() {
        extra.push((BLOCKS.to_owned(), Value::Array(others).to_string()));
    }
    out.push("assistant", assistant_envelope(&text, &calls, &extra));
    Ok(())
}

fn without_cache_control(block: &Value) -> Value {
    let mut block = block.clone();
    if let Value::Object(m) = &mut block {
        m.remove("cache_control");
    }
    block
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn a_conversation_with_tool_result_images() {
        let body = json!({
            "model": "claude-sonnet-5",
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": "Look."},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig"},
                    {"type": "text", "text": "Taking it."},
                    {"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {"page": "a"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": [
                        {"type": "text", "text": "saved"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": GIF}}]},
                    {"type": "text", "text": "And?"},
                    {"type": "image", "source": {"type": "url", "url": "https://x/u.png"}}]}
            ]
        });
        let h = from_anthropic(&body, &mut InlineStore).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
        assert_eq!(h.messages[0].1, "Be brief.");
        let a: Value = serde_json::from_str(&h.messages[2].1).unwrap();
        assert_eq!(a["content"], "Taking it.");
        assert_eq!(
            a["tool_calls"][0],
            json!({"id": "toolu_1", "name": "shot", "arguments": {"page": "a"}})
        );
        assert_eq!(a[THINKING][0]["signature"], "sig");
        let t: Value = serde_json::from_str(&h.messages[3].1).unwrap();
        assert_eq!(
            (
                t["tool_call_id"].as_str(),
                t["content"].as_str(),
                t["is_error"].as_bool()
            ),
            (Some("toolu_1"), Some("saved"), Some(true))
        );
        assert_eq!(
            t["attachments"][0]["target"],
            format!("data:image/gif;base64,{GIF}")
        );
        assert_eq!(
            h.messages[4].1,
            "And?\n[image https://x/u.png sent by the user]"
        );
        assert_eq!(h.notes.len(), 1);
    }

    #[test]
    fn bad_shapes_name_their_path() {
        let err = |v: Value| {
            from_anthropic(&v, &mut InlineStore)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!(1)),
            "$: expected a Messages body or a list of messages"
        );
        assert_eq!(
            err(json!([{"content": "x"}])),
            "$.messages[0]: a message needs a role"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": [{"type": "tool_result"}]}])),
            "$.messages[0].content[0]: a tool_result needs a tool_use_id"
        );
        assert!(err(json!([{"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "f"}}]}]))
            .contains("a source of type file cannot be read back"));
    }
}
