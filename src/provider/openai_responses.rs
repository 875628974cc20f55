//! OpenAI Responses.
//!
//! ```json
//! {"model": "…", "input": [
//!   {"type": "message", "role": "user", "content": "…"},
//!   {"type": "function_call", "call_id": "call_1", "name": "…", "arguments": "{…}"},
//!   {"type": "function_call_output", "call_id": "call_1", "output": [
//!     {"type": "input_text", "text": "…"},
//!     {"type": "input_image", "image_url": "data:image/png;base64,…", "detail": "auto"},
//!     {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,…"}]}]}
//! ```
//!
//! A function call output without media has a string `output`. Messages
//! keep their place and role (`system`, `user`, `assistant`); a prompt-mode
//! carrier is a `user` message with `input_text` / `input_image` /
//! `input_file` content. `http(s)` targets become `image_url` / `file_url`.

use serde_json::{json, Map, Value};

use super::declare::Declarations;
use super::openai_chat::function;
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{data_url_value, file_name, has_media, text_with_notes, Context, Placement};

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Value {
    let mut input = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => input.push(message("system", text.into())),
            Turn::User(text) => input.push(message("user", text.as_ref().into())),
            Turn::Assistant(a) => assistant(a, &mut input),
            Turn::Results(results) => input.extend(results.into_iter().map(output)),
            Turn::Carrier(c) => input.push(carrier(c)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), cx.model.into());
    body.insert("input".into(), input.into());
    declare(cx.declarations, &mut body);
    Value::Object(body)
}

/// Function tools (`strict` off: the schemas are the caller's, not
/// written for strict mode), and `tool_choice` `"none"` when every tool is
/// a stand-in.
fn declare(declarations: &Declarations, body: &mut Map<String, Value>) {
    if declarations.is_empty() {
        return;
    }
    let tools: Vec<Value> = declarations
        .functions()
        .map(|(d, schema)| {
            let mut tool = function(&d.name, d.description.as_deref(), schema);
            tool.insert("type".into(), "function".into());
            tool.insert("strict".into(), false.into());
            Value::Object(tool)
        })
        .collect();
    body.insert("tools".into(), tools.into());
    if declarations.choice_none {
        body.insert("tool_choice".into(), "none".into());
    }
}

fn message(role: &str, content: Value) -> Value {
    json!({"type": "message", "role": role, "content": content})
}

fn assistant(turn: AssistantTurn<'_>, input: &mut Vec<Value>) {
    if let Some(text) = &turn.text {
        input.push(message("assistant", text.as_ref().into()));
    } else if turn.calls.is_empty() {
        input.push(message("assistant", "".into()));
    }
    for call in turn.calls {
        input.push(json!({
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments.to_json_string(),
        }));
    }
}

fn output(result: ToolResult<'_>) -> Value {
    let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
    let output = if has_media(&result.slots) {
        let mut items = Vec::new();
        if !text.is_empty() {
            items.push(json!({"type": "input_text", "text": text}));
        }
        items.extend(result.slots.into_iter().filter_map(media_item));
        Value::Array(items)
    } else {
        text.into()
    };
    json!({"type": "function_call_output", "call_id": result.call_id, "output": output})
}

fn carrier(c: UserCarrier<'_>) -> Value {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    if !has_media(&c.slots) {
        return message("user", text.into());
    }
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "input_text", "text": text}));
    }
    content.extend(c.slots.into_iter().filter_map(media_item));
    message("user", Value::Array(content))
}

/// An `input_image` or `input_file` item, for a slot sent as media.
fn media_item(slot: Slot<'_>) -> Option<Value> {
    let is_document = slot.kind == crate::AttachmentKind::Document;
    match slot.media {
        Media::Inline(p) if p.is_document() => {
            let filename = file_name(&slot.target).unwrap_or("document.pdf");
            let mut item = json!({"type": "input_file", "filename": filename});
            item["file_data"] = data_url_value(&p);
            Some(item)
        }
        Media::Inline(p) => {
            let mut item = json!({"type": "input_image", "detail": "auto"});
            item["image_url"] = data_url_value(&p);
            Some(item)
        }
        Media::Url(url) if is_document => Some(json!({"type": "input_file", "file_url": url})),
        Media::Url(url) => Some(json!({"type": "input_image", "image_url": url, "detail": "auto"})),
        Media::Note(..) | Media::Pending => None,
    }
}
