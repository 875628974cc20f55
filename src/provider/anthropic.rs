//! Anthropic Messages.
//!
//! ```json
//! {"model": "…", "max_tokens": 4096, "system": "…",
//!  "messages": [
//!    {"role": "assistant", "content": [{"type": "text", "text": "…"},
//!                                      {"type": "tool_use", "id": "…", "name": "…", "input": {…}}]},
//!    {"role": "user", "content": [
//!      {"type": "tool_result", "tool_use_id": "…", "content": [
//!        {"type": "text", "text": "…"},
//!        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "…"}},
//!        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "…"}}]},
//!      {"type": "text", "text": "a user message that followed"}]}]}
//! ```
//!
//! * System messages are joined into the top-level `system`.
//! * Roles alternate: consecutive content for one role joins one message,
//!   so a batch of tool results is one `user` message whose `tool_result`
//!   blocks come first; a result without media has a string `content`.
//! * `http(s)` targets become `url` sources.
//! * Empty text blocks are left out (the API refuses them); tool-use ids
//!   are made to match `[A-Za-z0-9_-]+` and names `[A-Za-z0-9_-]{1,64}`.
//! * `tools` declares every tool (typed tools as given); with only
//!   minimal declarations, `tool_choice` is `{"type": "none"}`.

use serde_json::{json, Map, Value};

use super::declare::{Declarations, Input};
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{
    base64_value, has_media, text_with_notes, Alternating, Context, Placement, OPENING_TEXT,
};

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Value {
    let mut system: Vec<&str> = Vec::new();
    let mut messages = Alternating::new();
    for turn in turns {
        match turn {
            Turn::System(text) => system.push(text),
            Turn::User(text) => messages.push("user", text_block(&text).into_iter().collect()),
            Turn::Assistant(a) => messages.push("assistant", assistant(a)),
            Turn::Results(results) => {
                messages.push("user", results.into_iter().map(tool_result).collect())
            }
            Turn::Carrier(c) => messages.push("user", carrier(c)),
        }
    }
    let messages: Vec<Value> = messages
        .finish(json!({"type": "text", "text": OPENING_TEXT}))
        .into_iter()
        .map(|(role, blocks)| json!({"role": role, "content": content(blocks)}))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), cx.model.into());
    body.insert("max_tokens".into(), cx.max_tokens.into());
    let system: Vec<&str> = system
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect();
    if !system.is_empty() {
        body.insert("system".into(), system.join("\n\n").into());
    }
    body.insert("messages".into(), messages.into());
    declare(cx.declarations, &mut body);
    Value::Object(body)
}

/// `tools`, and `tool_choice` none when every tool is a stand-in.
fn declare(declarations: &Declarations, body: &mut Map<String, Value>) {
    if declarations.is_empty() {
        return;
    }
    let tools: Vec<Value> = declarations
        .tools
        .iter()
        .map(|d| match &d.input {
            Input::Typed { definition, .. } => Value::Object(definition.clone()),
            Input::Schema(schema) => {
                let mut tool = Map::new();
                tool.insert("name".into(), d.name.as_str().into());
                if let Some(description) = &d.description {
                    tool.insert("description".into(), description.as_str().into());
                }
                tool.insert("input_schema".into(), Value::Object(schema.clone()));
                Value::Object(tool)
            }
        })
        .collect();
    body.insert("tools".into(), tools.into());
    if declarations.choice_none {
        body.insert("tool_choice".into(), json!({"type": "none"}));
    }
}

/// A lone text block is sent as a plain string.
fn content(mut blocks: Vec<Value>) -> Value {
    if blocks.len() == 1 && blocks[0]["type"] == "text" {
        return blocks.swap_remove(0)["text"].take();
    }
    Value::Array(blocks)
}

/// A text block, or nothing for text that is empty or only white space
/// (Anthropic refuses both).
fn text_block(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn assistant(turn: AssistantTurn<'_>) -> Vec<Value> {
    let mut blocks: Vec<Value> = turn
        .text
        .as_deref()
        .and_then(text_block)
        .into_iter()
        .collect();
    for call in turn.calls {
        blocks.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": call.arguments.to_object(),
        }));
    }
    blocks
}

fn tool_result(result: ToolResult<'_>) -> Value {
    let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
    let mut block = json!({"type": "tool_result", "tool_use_id": result.call_id});
    if has_media(&result.slots) {
        let mut content: Vec<Value> = text_block(&text).into_iter().collect();
        content.extend(media_blocks(result.slots));
        block["content"] = content.into();
    } else if !text.trim().is_empty() {
        block["content"] = text.into();
    }
    block
}

fn carrier(c: UserCarrier<'_>) -> Vec<Value> {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut blocks: Vec<Value> = text_block(&text).into_iter().collect();
    blocks.extend(media_blocks(c.slots));
    blocks
}

/// `image` and `document` blocks for the slots sent as media, in order.
fn media_blocks<'a>(slots: Vec<Slot<'a>>) -> impl Iterator<Item = Value> + 'a {
    slots.into_iter().filter_map(|slot| match slot.media {
        Media::Inline(p) => {
            let kind = if p.is_document() { "document" } else { "image" };
            let mut block = json!({
                "type": kind,
                "source": {"type": "base64", "media_type": p.media_type.as_str()},
            });
            block["source"]["data"] = base64_value(&p);
            Some(block)
        }
        Media::Url(url) => {
            let kind = if slot.kind == crate::AttachmentKind::Document {
                "document"
            } else {
                "image"
            };
            Some(json!({"type": kind, "source": {"type": "url", "url": url}}))
        }
        Media::Note(..) | Media::Pending => None,
    })
}
