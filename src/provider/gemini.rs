//! Gemini `generateContent`: media nested in function responses for the
//! models that take them (Gemini 3 and later, provider `gemini`), else in
//! a `user` content after the responses (`gemini-2`, and older models).
//!
//! ```json
//! {"systemInstruction": {"parts": [{"text": "…"}]},
//!  "contents": [
//!    {"role": "model", "parts": [
//!      {"functionCall": {"id": "call_1", "name": "…", "args": {…}},
//!       "thoughtSignature": "skip_thought_signature_validator"}]},
//!    {"role": "user", "parts": [
//!      {"functionResponse": {"id": "call_1", "name": "…", "response": {"output": "…"},
//!        "parts": [{"inlineData": {"mimeType": "image/png", "data": "…"}}]}}]}]}
//! ```
//!
//! * Gemini 3 nests a result's media in `functionResponse.parts`. Its
//!   function-call parts carry a thought signature; a history from
//!   elsewhere has none to replay, so the first call of each model turn
//!   gets the placeholder value the API documents for that case.
//! * Gemini 2.x takes no media in a function response: the responses
//!   carry text (with a note naming each attachment) and one `user`
//!   content after them holds the media, each labelled with its call.
//! * Consecutive model contents join, and a history that opens with the
//!   model gets a short user content first.
//! * The response object is `{"output": text}`. Gemini refuses GIF, so a
//!   GIF arrives here already converted to PNG. The model is named in the
//!   URL, not in the body.

use serde_json::{json, Map, Value};

use super::declare::Declarations;
use super::model::gemini_3_or_later;
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{
    attachment_label, base64_value, has_media, text_with_notes, Context, Placement, OPENING_TEXT,
};

/// Where a function response's media go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nesting {
    /// In `functionResponse.parts` (Gemini 3).
    InResponse,
    /// In a `user` content after the responses (Gemini 2.x).
    FollowingContent,
}

/// The thought signature Gemini 3 accepts for function calls that it did
/// not produce itself (histories written elsewhere).
const FOREIGN_THOUGHT_SIGNATURE: &str = "skip_thought_signature_validator";

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Value {
    let nesting = if cx.facts.media_in_tool_result {
        Nesting::InResponse
    } else {
        Nesting::FollowingContent
    };
    let signed = gemini_3_or_later(cx.model);
    let mut system: Vec<&str> = Vec::new();
    let mut contents = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => system.push(text),
            Turn::User(text) => push(
                &mut contents,
                "user",
                text_part(&text).into_iter().collect(),
            ),
            Turn::Assistant(a) => push(&mut contents, "model", model_parts(a, signed)),
            Turn::Results(results) => responses(results, nesting, &mut contents),
            Turn::Carrier(c) => push(&mut contents, "user", carrier(c)),
        }
    }
    if contents.first().is_some_and(|c| c["role"] != "user") {
        contents.insert(
            0,
            json!({"role": "user", "parts": [{"text": OPENING_TEXT}]}),
        );
    }
    let mut body = Map::new();
    let system: Vec<&str> = system.into_iter().filter(|s| !s.is_empty()).collect();
    if !system.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system.join("\n\n")}]}),
        );
    }
    body.insert("contents".into(), contents.into());
    declare(cx.declarations, &mut body);
    Value::Object(body)
}

/// `tools[].functionDeclarations` with `parametersJsonSchema`, and
/// function calling mode `NONE` when every tool is a stand-in.
fn declare(declarations: &Declarations, body: &mut Map<String, Value>) {
    if declarations.is_empty() {
        return;
    }
    let functions: Vec<Value> = declarations
        .functions()
        .map(|(d, schema)| {
            let mut f = Map::new();
            f.insert("name".into(), d.name.as_str().into());
            if let Some(description) = &d.description {
                f.insert("description".into(), description.as_str().into());
            }
            f.insert("parametersJsonSchema".into(), Value::Object(schema.clone()));
            Value::Object(f)
        })
        .collect();
    body.insert("tools".into(), json!([{"functionDeclarations": functions}]));
    if declarations.choice_none {
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": {"mode": "NONE"}}),
        );
    }
}

/// Add a content. Consecutive model contents join (a model turn with
/// function calls must follow a user turn or the function responses).
fn push(contents: &mut Vec<Value>, role: &str, parts: Vec<Value>) {
    if parts.is_empty() {
        return;
    }
    if role == "model" {
        if let Some(last) = contents.last_mut().filter(|c| c["role"] == "model") {
            if let Some(existing) = last["parts"].as_array_mut() {
                existing.extend(parts);
                return;
            }
        }
    }
    contents.push(json!({"role": role, "parts": parts}));
}

fn text_part(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"text": text}))
}

fn model_parts(turn: AssistantTurn<'_>, signed: bool) -> Vec<Value> {
    let mut parts: Vec<Value> = turn
        .text
        .as_deref()
        .and_then(text_part)
        .into_iter()
        .collect();
    for (n, call) in turn.calls.into_iter().enumerate() {
        let mut part = json!({
            "functionCall": {"id": call.id, "name": call.name, "args": call.arguments.to_object()},
        });
        if n == 0 && signed {
            part["thoughtSignature"] = FOREIGN_THOUGHT_SIGNATURE.into();
        }
        parts.push(part);
    }
    parts
}

fn responses(results: Vec<ToolResult<'_>>, nesting: Nesting, contents: &mut Vec<Value>) {
    let moved = nesting == Nesting::FollowingContent;
    let mut parts = Vec::new();
    let mut held = Vec::new();
    for result in results {
        let text = text_with_notes(
            &result.body,
            &result.slots,
            if moved {
                Placement::NextMessage
            } else {
                Placement::Inside
            },
        );
        let mut response = json!({
            "id": result.call_id,
            "name": result.name,
            "response": {"output": text},
        });
        if has_media(&result.slots) {
            if moved {
                held.push(result);
            } else {
                let nested: Vec<Value> = result.slots.into_iter().filter_map(inline_data).collect();
                response["parts"] = nested.into();
            }
        }
        parts.push(json!({"functionResponse": response}));
    }
    push(contents, "user", parts);
    let mut following = Vec::new();
    for result in held {
        for slot in result.slots {
            if matches!(slot.media, Media::Inline(_)) {
                following
                    .push(json!({"text": attachment_label(&result.name, &result.call_id, &slot)}));
                following.extend(inline_data(slot));
            }
        }
    }
    push(contents, "user", following);
}

fn carrier(c: UserCarrier<'_>) -> Vec<Value> {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut parts: Vec<Value> = text_part(&text).into_iter().collect();
    parts.extend(c.slots.into_iter().filter_map(inline_data));
    parts
}

/// An `inlineData` part (the same shape nested in a function response and
/// in a content). Gemini takes no URL targets, so only inline media occur.
fn inline_data(slot: Slot<'_>) -> Option<Value> {
    match slot.media {
        Media::Inline(p) => {
            let mut part = json!({"inlineData": {"mimeType": p.media_type.as_str()}});
            part["inlineData"]["data"] = base64_value(&p);
            Some(part)
        }
        Media::Url(_) | Media::Note(..) | Media::Pending => None,
    }
}
