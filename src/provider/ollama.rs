//! Ollama chat (`POST /api/chat`).
//!
//! ```json
//! {"model": "…", "stream": false, "messages": [
//!   {"role": "assistant", "tool_calls": [{"function": {"name": "…", "arguments": {…}}}]},
//!   {"role": "tool", "tool_name": "…", "content": "…\n[image shots/a.png follows in the next user message]"},
//!   {"role": "user", "content": "Attachment of the … result (call call_1): image shots/a.png",
//!    "images": ["<raw base64>"]}]}
//! ```
//!
//! A `tool` message carries text only, named by its tool; the images of a
//! batch follow on one `user` message as raw base64 (no `data:` prefix),
//! its text listing where each came from, in order. Ollama takes no
//! documents or URLs (those are notes), and images other than PNG and JPEG
//! arrive here already converted to PNG. Empty `content` is left out, as
//! the official client does.

use serde_json::{json, Map, Value};

use super::openai_chat::function;
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{attachment_label, base64_value, has_media, text_with_notes, Context, Placement};

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Value {
    let mut messages = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => messages.push(message("system", text)),
            Turn::User(text) => messages.push(message("user", &text)),
            Turn::Assistant(a) => messages.push(assistant(a)),
            Turn::Results(results) => batch(results, &mut messages),
            Turn::Carrier(c) => messages.push(carrier(c)),
        }
    }
    let mut body = json!({"model": cx.model, "stream": false, "messages": messages});
    if !cx.declarations.is_empty() {
        let tools: Vec<Value> = cx
            .declarations
            .functions()
            .map(|(d, schema)| json!({"type": "function", "function": function(&d.name, d.description.as_deref(), schema)}))
            .collect();
        body["tools"] = tools.into();
    }
    body
}

fn message(role: &str, content: &str) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), role.into());
    if !content.is_empty() {
        m.insert("content".into(), content.into());
    }
    Value::Object(m)
}

fn assistant(turn: AssistantTurn<'_>) -> Value {
    let mut m = message("assistant", turn.text.as_deref().unwrap_or(""));
    if !turn.calls.is_empty() {
        let calls: Vec<Value> = turn
            .calls
            .into_iter()
            .map(|call| {
                json!({"function": {"name": call.name, "arguments": call.arguments.to_object()}})
            })
            .collect();
        m["tool_calls"] = calls.into();
    }
    m
}

fn batch(results: Vec<ToolResult<'_>>, messages: &mut Vec<Value>) {
    let mut held = Vec::new();
    for result in results {
        let text = text_with_notes(&result.body, &result.slots, Placement::NextMessage);
        let mut m = message("tool", &text);
        m["tool_name"] = result.name.as_str().into();
        messages.push(m);
        if has_media(&result.slots) {
            held.push(result);
        }
    }
    let mut labels = Vec::new();
    let mut images = Vec::new();
    for result in held {
        for slot in result.slots {
            if matches!(slot.media, Media::Inline(_)) {
                labels.push(attachment_label(&result.name, &result.call_id, &slot));
                images.extend(image(slot));
            }
        }
    }
    if !images.is_empty() {
        let mut m = message("user", &labels.join("\n"));
        m["images"] = images.into();
        messages.push(m);
    }
}

fn carrier(c: UserCarrier<'_>) -> Value {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut m = message("user", &text);
    let images: Vec<Value> = c.slots.into_iter().filter_map(image).collect();
    if !images.is_empty() {
        m["images"] = images.into();
    }
    m
}

/// The raw base64 of an image sent inline.
fn image(slot: Slot<'_>) -> Option<Value> {
    match slot.media {
        Media::Inline(p) if !p.is_document() => Some(base64_value(&p)),
        _ => None,
    }
}
