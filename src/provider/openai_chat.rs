//! OpenAI Chat Completions.
//!
//! ```json
//! {"model": "…", "messages": [
//!   {"role": "assistant", "content": null, "tool_calls": [
//!     {"id": "call_1", "type": "function", "function": {"name": "…", "arguments": "{…}"}}]},
//!   {"role": "tool", "tool_call_id": "call_1",
//!    "content": "…\n[image shots/a.png follows in the next user message]"},
//!   {"role": "user", "content": [
//!     {"type": "text", "text": "Attachment of the screenshot result (call call_1): image shots/a.png"},
//!     {"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}},
//!     {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,…"}}]}]}
//! ```
//!
//! The API takes images in `user` messages only, so a `tool` message
//! carries text (with a note naming each attachment), and after the last
//! `tool` message of the batch — never between an assistant's calls and
//! their results — one `user` message carries the media, each labelled
//! with the tool and call it came from.
//!
//! Tool-call ids longer than the 40 characters the API takes are cut
//! (consistently, never merging two). `tools` declares every tool; with
//! only minimal declarations, `tool_choice` is `"none"`.

use serde_json::{json, Map, Value};

use super::declare::Declarations;
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{
    attachment_label, data_url_value, file_name, has_media, text_with_notes, Context, Placement,
};

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Value {
    let mut messages = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => messages.push(json!({"role": "system", "content": text})),
            Turn::User(text) => messages.push(json!({"role": "user", "content": text})),
            Turn::Assistant(a) => messages.push(assistant(a)),
            Turn::Results(results) => results_batch(results, &mut messages),
            Turn::Carrier(c) => messages.push(carrier(c)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), cx.model.into());
    body.insert("messages".into(), messages.into());
    declare(cx.declarations, &mut body);
    Value::Object(body)
}

/// `tools` as function tools, and `tool_choice` `"none"` when every tool
/// is a stand-in.
pub(crate) fn declare(declarations: &Declarations, body: &mut Map<String, Value>) {
    if declarations.is_empty() {
        return;
    }
    let tools: Vec<Value> = declarations
        .functions()
        .map(|(d, schema)| json!({"type": "function", "function": function(&d.name, d.description.as_deref(), schema)}))
        .collect();
    body.insert("tools".into(), tools.into());
    if declarations.choice_none {
        body.insert("tool_choice".into(), "none".into());
    }
}

/// `{"name", "description", "parameters"}`, the function object Chat
/// Completions, Responses and Ollama share.
pub(crate) fn function(
    name: &str,
    description: Option<&str>,
    schema: &Map<String, Value>,
) -> Map<String, Value> {
    let mut f = Map::new();
    f.insert("name".into(), name.into());
    if let Some(description) = description {
        f.insert("description".into(), description.into());
    }
    f.insert("parameters".into(), Value::Object(schema.clone()));
    f
}

fn assistant(turn: AssistantTurn<'_>) -> Value {
    if turn.calls.is_empty() {
        return json!({"role": "assistant", "content": turn.text.unwrap_or_default()});
    }
    let calls: Vec<Value> = turn
        .calls
        .iter()
        .map(|call| {
            json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments.to_json_string()},
            })
        })
        .collect();
    json!({"role": "assistant", "content": turn.text, "tool_calls": calls})
}

fn results_batch(results: Vec<ToolResult<'_>>, messages: &mut Vec<Value>) {
    let mut parts = Vec::new();
    let mut held = Vec::new();
    for result in results {
        let text = text_with_notes(&result.body, &result.slots, Placement::NextMessage);
        messages.push(json!({"role": "tool", "tool_call_id": result.call_id, "content": text}));
        if has_media(&result.slots) {
            held.push(result);
        }
    }
    for result in held {
        let (name, id) = (result.name, result.call_id);
        for slot in result.slots {
            if !matches!(slot.media, Media::Inline(_) | Media::Url(_)) {
                continue;
            }
            parts.push(json!({"type": "text", "text": attachment_label(&name, &id, &slot)}));
            parts.extend(media_part(slot));
        }
    }
    if !parts.is_empty() {
        messages.push(json!({"role": "user", "content": parts}));
    }
}

fn carrier(c: UserCarrier<'_>) -> Value {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    if !has_media(&c.slots) {
        return json!({"role": "user", "content": text});
    }
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(json!({"type": "text", "text": text}));
    }
    parts.extend(c.slots.into_iter().filter_map(media_part));
    json!({"role": "user", "content": parts})
}

/// An `image_url` or `file` part, for a slot sent as media.
fn media_part(slot: Slot<'_>) -> Option<Value> {
    match slot.media {
        Media::Inline(p) if p.is_document() => {
            let filename = file_name(&slot.target).unwrap_or("document.pdf");
            let mut part = json!({"type": "file", "file": {"filename": filename}});
            part["file"]["file_data"] = data_url_value(&p);
            Some(part)
        }
        Media::Inline(p) => {
            let mut part = json!({"type": "image_url", "image_url": {}});
            part["image_url"]["url"] = data_url_value(&p);
            Some(part)
        }
        // Only image URLs reach here: chat `file` parts take no URL.
        Media::Url(url) => Some(json!({"type": "image_url", "image_url": {"url": url}})),
        Media::Note(..) | Media::Pending => None,
    }
}
