//! OpenAI Responses bodies (or their `input` items) as carrier histories.
//!
//! | Responses | carrier history |
//! |---|---|
//! | `instructions`, `system` / `developer` messages | a `system` message |
//! | `user` message (`input_text`, or a string) | a `user` message; `input_image` / `input_file` stored and named in the text, with a note |
//! | `assistant` message (`output_text`) and the `function_call` items after it | one assistant envelope |
//! | `function_call_output` | a `tool` carrier: `input_text` the body, `input_image` / `input_file` declared |
//! | `reasoning` and other items | kept as the next assistant envelope's `openai_items` member, with a note |

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, messages_of, str_of, target, url_payload, user_media, Call,
    ImportedHistory, Payload,
};

/// The member of the assistant envelope that keeps other items.
pub const ITEMS: &str = "openai_items";

/// Read a Responses request body (or a bare `input` list).
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not the Responses shape.
pub fn from_openai_responses(
    input: &Value,
    store: &mut dyn MediaStore,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    if let Some(text) = input.get("instructions").and_then(Value::as_str) {
        out.push("system", text.to_owned());
    }
    if let Some(text) = input.get("input").and_then(Value::as_str) {
        out.push("user", text.to_owned());
        return Ok(out);
    }
    let items = messages_of(input, "input").ok_or_else(|| {
        ImportError::at("$", "expected a Responses body or a list of input items")
    })?;
    // The assistant turn being gathered: its text, calls and kept items.
    let mut text = String::new();
    let mut calls: Vec<Call> = Vec::new();
    let mut kept: Vec<Value> = Vec::new();
    let mut open = false;
    let close = |text: &mut String,
                 calls: &mut Vec<Call>,
                 kept: &mut Vec<Value>,
                 open: &mut bool,
                 out: &mut ImportedHistory| {
        if !*open {
            return;
        }
        *open = false;
        let extra: Vec<(String, String)> = if kept.is_empty() {
            Vec::new()
        } else {
            vec![(
                ITEMS.to_owned(),
                Value::Array(std::mem::take(kept)).to_string(),
            )]
        };
        if calls.is_empty() && extra.is_empty() {
            out.push("assistant", std::mem::take(text));
        } else {
            out.push("assistant", assistant_envelope(text, calls, &extra));
            text.clear();
            calls.clear();
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("$.input[{i}]");
        let kind = str_of(item, "type").unwrap_or(if item.get("role").is_some() {
            "message"
        } else {
            ""
        });
        match kind {
            "message" => {
                let role = str_of(item, "role")
                    .ok_or_else(|| ImportError::at(&at, "a message needs a role"))?;
                if role == "assistant" {
                    if open && !calls.is_empty() {
                        close(&mut text, &mut calls, &mut kept, &mut open, &mut out);
                    }
                    open = true;
                    let t = message_text(item, &at, i, store, &mut out)?;
                    if !text.is_empty() && !t.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&t);
                    continue;
                }
                close(&mut text, &mut calls, &mut kept, &mut open, &mut out);
                let t = message_text(item, &at, i, store, &mut out)?;
                match role {
                    "system" | "developer" => out.push("system", t),
                    "user" => out.push("user", t),
                    other => return Err(ImportError::at(&at, format!("unknown role {other:?}"))),
                }
            }
            "function_call" => {
                open = true;
                let arguments = match item.get("arguments") {
                    Some(Value::String(s)) => Value::String(s.clone()).to_string(),
                    Some(v) => v.to_string(),
                    None => "{}".into(),
                };
                calls.push(Call {
                    id: str_of(item, "call_id")
                        .ok_or_else(|| ImportError::at(&at, "a function_call needs a call_id"))?
                        .to_owned(),
                    name: str_of(item, "name")
                        .ok_or_else(|| ImportError::at(&at, "a function_call needs a name"))?
                        .to_owned(),
                    arguments,
                });
            }
            "function_call_output" => {
                close(&mut text, &mut calls, &mut kept, &mut open, &mut out);
                out.push("tool", output(item, &at, store)?);
            }
            _ => {
                out.note(
                    i,
                    format!(
                        "{at}: a {kind:?} item is kept as the next assistant envelope's {ITEMS}"
                    ),
                );
                kept.push(item.clone());
                open = true;
            }
        }
    }
    close(&mut text, &mut calls, &mut kept, &mut open, &mut out);
    Ok(out)
}

/// A part's image or file target.
fn part_target(
    part: &Value,
    at: &str,
    store: &mut dyn MediaStore,
) -> Result<Option<(AttachmentKind, String)>, ImportError> {
    match str_of(part, "type") {
        Some("input_image") => {
            let url = str_of(part, "image_url").ok_or_else(|| {
                ImportError::at(
                    at,
                    "an input_image needs an image_url (a file_id cannot be read back)",
                )
            })?;
            Ok(Some((
                AttachmentKind::Image,
                target(url_payload(url), at, store)?,
            )))
        }
        Some("input_file") => {
            let payload = match (str_of(part, "file_data"), str_of(part, "file_url")) {
                (Some(data), _) => Payload::DataUrl(data),
                (None, Some(url)) => Payload::Url(url),
                _ => {
                    return Err(ImportError::at(
                        at,
                        "an input_file needs file_data or file_url",
                    ))
                }
            };
            Ok(Some((
                AttachmentKind::Document,
                target(payload, at, store)?,
            )))
        }
        _ => Ok(None),
    }
}

fn message_text(
    item: &Value,
    at: &str,
    i: usize,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<String, ImportError> {
    match item.get("content") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => {
            let mut text = Vec::new();
            for (p, part) in parts.iter().enumerate() {
                let pat = format!("{at}.content[{p}]");
                if let Some(t) = str_of(part, "text") {
                    text.push(t.to_owned());
                } else if let Some((kind, target)) = part_target(part, &pat, store)? {
                    text.push(user_media(out, i, &pat, kind, &target));
                } else {
                    out.note(i, format!("{pat}: a part of another type is kept as text"));
                    text.push(part.to_string());
                }
            }
            Ok(text.join("\n"))
        }
        _ => Ok(String::new()),
    }
}

fn output(item: &Value, at: &str, store: &mut dyn MediaStore) -> Result<String, ImportError> {
    let id = str_of(item, "call_id")
        .ok_or_else(|| ImportError::at(at, "a function_call_output needs a call_id"))?;
    let mut env = Envelope {
        call_id: Some(id.to_owned()),
        ..Envelope::default()
    };
    match item.get("output") {
        Some(Value::String(s)) => env.line(s),
        Some(Value::Array(parts)) => {
            for (p, part) in parts.iter().enumerate() {
                let pat = format!("{at}.output[{p}]");
                if let Some(t) = str_of(part, "text") {
                    env.line(t);
                } else if let Some((kind, target)) = part_target(part, &pat, store)? {
                    env.attachments.push(crate::Attachment::new(kind, target));
                } else {
                    env.line(&part.to_string());
                }
            }
        }
        _ => {}
    }
    Ok(env.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn function_call_output_with_an_input_image() {
        let body = json!({
            "model": "gpt-5",
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Look."}]},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Taking it."}]},
                {"type": "function_call", "call_id": "call_1", "name": "shot", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": [
                    {"type": "input_text", "text": "saved"},
                    {"type": "input_image", "image_url": format!("data:image/gif;base64,{GIF}"), "detail": "auto"}]}
            ]
        });
        let h = from_openai_responses(&body, &mut InlineStore).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool"]);
        let a: Value = serde_json::from_str(&h.messages[2].1).unwrap();
        assert_eq!(a["content"], "Taking it.");
        assert_eq!(a["tool_calls"][0]["id"], "call_1");
        assert_eq!(a[ITEMS][0]["id"], "rs_1");
        let t: Value = serde_json::from_str(&h.messages[3].1).unwrap();
        assert_eq!(t["content"], "saved");
        assert_eq!(t["attachments"][0]["kind"], "image");
        assert_eq!(h.notes.len(), 1);
    }
}
