//! OpenAI Chat Completions bodies (or their `messages` array) as carrier
//! histories; also what OpenAI-compatible servers take.
//!
//! | Chat Completions | carrier history |
//! |---|---|
//! | `system` / `developer` | a `system` message |
//! | `user` text | a `user` message |
//! | `user` `image_url` / `file` parts | stored, and named in the user's text, with a note |
//! | `assistant` text and `tool_calls` | an assistant envelope (`arguments` kept as the text it was) |
//! | `tool` | a `tool` carrier: its text the body |
//!
//! **The media message `convert` writes after a batch** is read back into
//! the batch's results, by its fixed shape at its fixed position: the
//! `user` message right after the batch's last `tool` message (or after
//! the bridge message, [`BRIDGE`](crate::provider::BRIDGE), right there),
//! whose parts are, throughout, a label `Attachment of the NAME result
//! (call ID): KIND TARGET` naming a call of that batch and its tool, then
//! one `image_url` or `file` part. Each media part is declared on its
//! call's result, and the result's line `[KIND TARGET follows in the next
//! user message]` is taken out of its body. A message that does not match
//! exactly stays a user message; the text of none is searched.

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::provider::BRIDGE;
use crate::AttachmentKind;

use super::envelope::Envelope;
use super::history::{
    assistant_envelope, messages_of, str_of, target, text_of, url_payload, user_media, Batch, Call,
    ImportedHistory, Payload,
};
use super::ImportError;

/// Read a Chat Completions request body (or a bare `messages` array).
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Chat's shape.
pub fn from_openai_chat(
    input: &Value,
    store: &mut dyn MediaStore,
) -> Result<ImportedHistory, ImportError> {
    let messages = messages_of(input, "messages").ok_or_else(|| {
        ImportError::at(
            "$",
            "expected a Chat Completions body or a list of messages",
        )
    })?;
    let mut out = ImportedHistory::default();
    let mut batch = Batch::default();
    let mut m = 0;
    while m < messages.len() {
        let message = &messages[m];
        let at = format!("$.messages[{m}]");
        let role = str_of(message, "role")
            .ok_or_else(|| ImportError::at(&at, "a message needs a role"))?;
        let content = message.get("content").unwrap_or(&Value::Null);
        if role != "tool" && !batch.results.is_empty() {
            // The batch ends here: its media message, if this is one.
            let mut next = m;
            if role == "assistant"
                && is_bridge(message)
                && messages
                    .get(m + 1)
                    .is_some_and(|n| str_of(n, "role") == Some("user"))
            {
                next = m + 1;
            }
            let folded = str_of(&messages[next], "role") == Some("user")
                && fold(
                    &messages[next],
                    &format!("$.messages[{next}]"),
                    &mut batch,
                    store,
                )?;
            batch.flush(&mut out);
            if folded {
                m = next + 1;
                continue;
            }
            if next != m {
                // The bridge is convert's own: left out.
                m = next;
                continue;
            }
        }
        match role {
            "system" | "developer" => out.push("system", text_of(content).into_owned()),
            "user" => user(m, &at, content, store, &mut out)?,
            "assistant" => {
                batch.calls.clear();
                let text = text_of(content).into_owned();
                let tool_calls = message.get("tool_calls").and_then(Value::as_array);
                match tool_calls {
                    Some(list) if !list.is_empty() => {
                        let mut parsed = Vec::new();
                        for (c, call) in list.iter().enumerate() {
                            let cat = format!("{at}.tool_calls[{c}]");
                            let f = call.get("function").unwrap_or(&Value::Null);
                            let id = str_of(call, "id")
                                .ok_or_else(|| ImportError::at(&cat, "a tool call needs an id"))?;
                            let name = str_of(f, "name").ok_or_else(|| {
                                ImportError::at(&cat, "a tool call needs function.name")
                            })?;
                            let arguments = match f.get("arguments") {
                                Some(Value::String(s)) => Value::String(s.clone()).to_string(),
                                Some(v) => v.to_string(),
                                None => "{}".into(),
                            };
                            batch.calls.push((id.to_owned(), name.to_owned()));
                            parsed.push(Call {
                                id: id.to_owned(),
                                name: name.to_owned(),
                                arguments,
                            });
                        }
                        out.push("assistant", assistant_envelope(&text, &parsed, &[]));
                    }
                    _ => out.push("assistant", text),
                }
            }
            "tool" => {
                let id = str_of(message, "tool_call_id").unwrap_or("");
                let mut env = Envelope {
                    call_id: (!id.is_empty()).then(|| id.to_owned()),
                    ..Envelope::default()
                };
                match content {
                    // Media inside a tool message (what convert writes for
                    // servers that take it there) is declared on it.
                    Value::Array(parts) => {
                        for (p, part) in parts.iter().enumerate() {
                            let pat = format!("{at}.content[{p}]");
                            match media_part(part, &pat)? {
                                Some((kind, payload)) => {
                                    let target = target(payload, &pat, store)?;
                                    env.attachments.push(crate::Attachment::new(kind, target));
                                }
                                None => env.line(str_of(part, "text").unwrap_or(&part.to_string())),
                            }
                        }
                    }
                    other => env.line(&text_of(other)),
                }
                batch.results.push((id.to_owned(), env));
            }
            other => return Err(ImportError::at(&at, format!("unknown role {other:?}"))),
        }
        m += 1;
    }
    batch.flush(&mut out);
    Ok(out)
}

fn is_bridge(message: &Value) -> bool {
    message.get("content") == Some(&Value::String(BRIDGE.to_owned()))
        && message
            .get("tool_calls")
            .is_none_or(|c| c.as_array().is_some_and(Vec::is_empty))
}

/// If `message` is the media message of the batch (its parts, throughout,
/// a label then an `image_url` or `file` part), fold it back.
fn fold(
    message: &Value,
    at: &str,
    batch: &mut Batch,
    store: &mut dyn MediaStore,
) -> Result<bool, ImportError> {
    let Some(parts) = message.get("content").and_then(Value::as_array) else {
        return Ok(false);
    };
    if !parts.len().is_multiple_of(2) {
        return Ok(false);
    }
    let mut pairs = Vec::new();
    for (i, pair) in parts.chunks(2).enumerate() {
        let Some(text) = (str_of(&pair[0], "type") == Some("text"))
            .then(|| str_of(&pair[0], "text"))
            .flatten()
        else {
            return Ok(false);
        };
        let (kind, payload) = match str_of(&pair[1], "type") {
            Some("image_url") => {
                let url = pair[1]["image_url"]["url"]
                    .as_str()
                    .or_else(|| pair[1]["image_url"].as_str());
                let Some(url) = url else { return Ok(false) };
                (AttachmentKind::Image, url_payload(url))
            }
            Some("file") => match str_of(&pair[1]["file"], "file_data") {
                Some(data) => (AttachmentKind::Document, Payload::DataUrl(data)),
                None => return Ok(false),
            },
            _ => return Ok(false),
        };
        pairs.push((text, kind, payload, format!("{at}.content[{}]", 2 * i + 1)));
    }
    batch.fold(pairs, "follows in the next user message", store)
}

/// An `image_url` or `file` part's kind and payload; `None` for another
/// part.
fn media_part<'v>(
    part: &'v Value,
    at: &str,
) -> Result<Option<(AttachmentKind, Payload<'v>)>, ImportError> {
    match str_of(part, "type") {
        Some("image_url") => {
            let url = part["image_url"]["url"]
                .as_str()
                .or_else(|| part["image_url"].as_str())
                .ok_or_else(|| ImportError::at(at, "an image_url part needs a url"))?;
            Ok(Some((AttachmentKind::Image, url_payload(url))))
        }
        Some("file") => {
            let data = str_of(&part["file"], "file_data").ok_or_else(|| {
                ImportError::at(
                    at,
                    "a file part needs file_data (a file_id cannot be read back)",
                )
            })?;
            Ok(Some((AttachmentKind::Document, Payload::DataUrl(data))))
        }
        _ => Ok(None),
    }
}

fn user(
    m: usize,
    at: &str,
    content: &Value,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let Value::Array(parts) = content else {
        out.push("user", text_of(content).into_owned());
        return Ok(());
    };
    let mut text = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        let pat = format!("{at}.content[{p}]");
        if str_of(part, "type") == Some("text") {
            text.push(str_of(part, "text").unwrap_or("").to_owned());
            continue;
        }
        match media_part(part, &pat)? {
            Some((kind, payload)) => {
                let target = target(payload, &pat, store)?;
                text.push(user_media(out, m, &pat, kind, &target));
            }
            _ => {
                out.note(m, format!("{pat}: a part of another type is kept as text"));
                text.push(part.to_string());
            }
        }
    }
    out.push("user", text.join("\n"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    fn batch(media_message: Value) -> Value {
        json!([
            {"role": "user", "content": "Look."},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "shot", "arguments": "{\"p\":1}"}}]},
            {"role": "tool", "tool_call_id": "call_a", "content": "saved\n[image a.png follows in the next user message]"},
            media_message,
            {"role": "user", "content": "Next?"}
        ])
    }

    fn media_message() -> Value {
        json!({"role": "user", "content": [
            {"type": "text", "text": "Attachment of the shot result (call call_a): image a.png"},
            {"type": "image_url", "image_url": {"url": format!("data:image/gif;base64,{GIF}")}}]})
    }

    #[test]
    fn the_media_message_is_folded_back_into_its_result() {
        let h = from_openai_chat(&batch(media_message()), &mut InlineStore).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "user"]);
        let t: Value = serde_json::from_str(&h.messages[2].1).unwrap();
        assert_eq!(t["content"], "saved");
        assert_eq!(
            t["attachments"][0]["target"],
            format!("data:image/gif;base64,{GIF}")
        );
        let a: Value = serde_json::from_str(&h.messages[1].1).unwrap();
        assert_eq!(a["tool_calls"][0]["arguments"], "{\"p\":1}");
        assert!(h.notes.is_empty());
    }

    #[test]
    fn after_a_bridge_too_and_nothing_that_does_not_match_exactly() {
        let mut with_bridge = batch(media_message());
        with_bridge
            .as_array_mut()
            .unwrap()
            .insert(3, json!({"role": "assistant", "content": BRIDGE}));
        let h = from_openai_chat(&with_bridge, &mut InlineStore).unwrap();
        assert_eq!(h.messages.len(), 4);
        // A bridge before a plain user message is left out as well.
        let plain = json!([
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "ok"},
            {"role": "assistant", "content": BRIDGE},
            {"role": "user", "content": "Next?"}
        ]);
        let h = from_openai_chat(&plain, &mut InlineStore).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roles, ["assistant", "tool", "user"]);
        // Another call id, another tool name, an extra part: a user message.
        for edit in [
            (
                "Attachment of the shot result (call call_z): image a.png",
                2,
            ),
            (
                "Attachment of the read result (call call_a): image a.png",
                2,
            ),
            ("Here is a.png", 2),
        ] {
            let mut m = media_message();
            m["content"][0]["text"] = edit.0.into();
            let h = from_openai_chat(&batch(m), &mut InlineStore).unwrap();
            assert_eq!(h.messages.len(), 5, "{}", edit.0);
            let t: Value = serde_json::from_str(&h.messages[2].1).unwrap();
            assert_eq!(t["attachments"], json!([]));
            assert_eq!(h.notes.len(), 1);
        }
    }
}
