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
//! | legacy `function_call` of an `assistant` | one more call of its envelope, id `call_M_N` |
//! | legacy `function` | a `tool` carrier naming no call (the first call still unanswered takes it) |
//!
//! [`read_message`] reads one message; [`from_openai_chat`] reads a body
//! with it, and so does the history reader of records spelled the Chat way
//! ([`read_records`](crate::provider::read_records)).
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

use crate::facts::BRIDGE;
use crate::media::store::MediaStore;
use crate::AttachmentKind;

use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, messages_of, str_of, target, text_of, url_payload, user_media, Batch, Call,
    ImportedHistory, Payload,
};

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
        if !matches!(role, "tool" | "function") && !batch.results.is_empty() {
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
        match read_message(m, &at, role, message, store, &mut out)? {
            ChatMessage::Message(role, content) => {
                if role == "assistant" {
                    batch.calls.clear();
                }
                out.push(role, content);
            }
            ChatMessage::Calls(envelope, calls) => {
                batch.calls = calls;
                out.push("assistant", envelope);
            }
            ChatMessage::Result(id, env) => batch.results.push((id, env)),
        }
        m += 1;
    }
    batch.flush(&mut out);
    Ok(out)
}

/// What one Chat message reads as. The media message after a batch is
/// the caller's to fold: it needs the messages around it.
pub(crate) enum ChatMessage {
    /// A message of the history as it is: system text, a user's message,
    /// an assistant's text without calls.
    Message(&'static str, String),
    /// An assistant turn with calls: its envelope, and each call's
    /// `(id, name)`.
    Calls(String, Vec<(String, String)>),
    /// A tool result: the call id it names (empty for none) and its
    /// envelope.
    Result(String, Envelope),
}

/// Read the Chat message `message` (number `m`, at the JSON path `at`,
/// with the role `role`), its media put in `store`. A user's own media is
/// noted in `notes`.
///
/// A legacy `function_call` of an assistant is a call like the others
/// (its id `call_M_N`: the message's number, then the call's); a legacy `function`
/// message is a result naming no call, which the walk pairs with the
/// first call still unanswered.
///
/// # Errors
/// [`ImportError`] at the JSON path of what is not Chat's shape: a
/// `content` that is neither text, null nor a list of parts, `tool_calls`
/// that is not a list, a call without an id or a name, an unknown role.
pub(crate) fn read_message(
    m: usize,
    at: &str,
    role: &str,
    message: &Value,
    store: &mut dyn MediaStore,
    notes: &mut ImportedHistory,
) -> Result<ChatMessage, ImportError> {
    let content = match message.get("content") {
        None | Some(Value::Null) => &Value::Null,
        Some(content @ (Value::String(_) | Value::Array(_))) => content,
        Some(_) => {
            return Err(ImportError::at(
                &format!("{at}.content"),
                "content is neither text, null nor a list of parts",
            ))
        }
    };
    match role {
        "system" | "developer" => Ok(ChatMessage::Message(
            "system",
            text_of(content).into_owned(),
        )),
        "user" => Ok(ChatMessage::Message(
            "user",
            user(m, at, content, store, notes)?,
        )),
        "assistant" => assistant(m, at, message, content),
        "tool" | "function" => {
            let id = match role {
                "tool" => str_of(message, "tool_call_id").unwrap_or(""),
                _ => "",
            };
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
            Ok(ChatMessage::Result(id.to_owned(), env))
        }
        other => Err(ImportError::at(at, format!("unknown role {other:?}"))),
    }
}

/// An assistant message: an envelope when it has calls (`tool_calls`,
/// or the legacy `function_call`), else its text.
fn assistant(
    m: usize,
    at: &str,
    message: &Value,
    content: &Value,
) -> Result<ChatMessage, ImportError> {
    let text = text_of(content).into_owned();
    let list: &[Value] = match message.get("tool_calls") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(ImportError::at(
                &format!("{at}.tool_calls"),
                "tool_calls is not a list",
            ))
        }
    };
    let legacy = match message.get("function_call") {
        None | Some(Value::Null) => None,
        Some(f @ Value::Object(_)) => Some(f),
        Some(_) => {
            return Err(ImportError::at(
                &format!("{at}.function_call"),
                "function_call is not an object",
            ))
        }
    };
    if list.is_empty() && legacy.is_none() {
        return Ok(ChatMessage::Message("assistant", text));
    }
    let arguments = |f: &Value| match f.get("arguments") {
        Some(Value::String(s)) => Value::String(s.clone()).to_string(),
        Some(v) => v.to_string(),
        None => "{}".into(),
    };
    let mut parsed = Vec::new();
    for (c, call) in list.iter().enumerate() {
        let cat = format!("{at}.tool_calls[{c}]");
        let f = call.get("function").unwrap_or(&Value::Null);
        let id =
            str_of(call, "id").ok_or_else(|| ImportError::at(&cat, "a tool call needs an id"))?;
        let name = str_of(f, "name")
            .ok_or_else(|| ImportError::at(&cat, "a tool call needs function.name"))?;
        parsed.push(Call {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments: arguments(f),
        });
    }
    if let Some(f) = legacy {
        let name = str_of(f, "name").ok_or_else(|| {
            ImportError::at(
                &format!("{at}.function_call"),
                "a function call needs a name",
            )
        })?;
        parsed.push(Call {
            id: format!("call_{m}_{}", list.len()),
            name: name.to_owned(),
            arguments: arguments(f),
        });
    }
    let calls = parsed
        .iter()
        .map(|c| (c.id.clone(), c.name.clone()))
        .collect();
    Ok(ChatMessage::Calls(
        assistant_envelope(&text, &parsed, &[]),
        calls,
    ))
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

/// A user's message: its text, with each of its own media stored and
/// named in it (and noted).
fn user(
    m: usize,
    at: &str,
    content: &Value,
    store: &mut dyn MediaStore,
    notes: &mut ImportedHistory,
) -> Result<String, ImportError> {
    let Value::Array(parts) = content else {
        return Ok(text_of(content).into_owned());
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
                text.push(user_media(notes, m, &pat, kind, &target));
            }
            _ => {
                notes.note(m, format!("{pat}: a part of another type is kept as text"));
                text.push(part.to_string());
            }
        }
    }
    Ok(text.join("\n"))
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
