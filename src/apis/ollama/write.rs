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
//! the official client does. An assistant's thinking that the history kept
//! from an Ollama response ([`import::OLLAMA_THINKING`](crate::import::OLLAMA_THINKING))
//! goes back as its message's `thinking`.

use super::wire::{Body, CallFunction, Format, Message, Role, Sampling, ToolCall};
use crate::steps::compose::{attachment_label, has_media, text_with_notes, Placement};
use crate::steps::context::Context;
use crate::steps::params::Setting;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsObject, Payload, B64};

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
    let mut messages = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text, _) => messages.push(message(Role::System, text.to_owned())),
            Turn::User(text, _) => messages.push(message(Role::User, text.into_owned())),
            Turn::Assistant(a) => messages.push(assistant(a)),
            Turn::Results(results) => batch(results, &mut messages),
            Turn::Carrier(c) => messages.push(carrier(c)),
        }
    }
    // Ollama has no "none" tool choice: the declarations go as they are.
    let (tools, _) = crate::apis::openai_chat::write::declare(cx.declarations);
    // Generation settings: `options`, the model's parameters
    // (<https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion>
    // and <https://github.com/ollama/ollama/blob/main/docs/modelfile.md#valid-parameters-and-values>,
    // read 2026-12-01): `num_predict`, `temperature`, `top_p`, `top_k`,
    // `stop`, `seed`.
    let p = cx.params;
    // `stream` and `format` (structured outputs: "json" or a schema) are
    // the body's own members; the rest go in `options`.
    let sampling = p
        .given()
        .any(|s| !matches!(s, Setting::Stream | Setting::ResponseFormat));
    let options = sampling.then(|| Sampling {
        num_predict: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        top_k: p.top_k,
        stop: p.stop.clone(),
        seed: p.seed,
    });
    Body {
        model: cx.model.to_owned().into(),
        // Not streamed unless asked: the API streams by default.
        stream: p.stream.unwrap_or(false),
        options,
        format: p.response_format.as_ref().map(|f| match f.schema() {
            None => Format::Json("json"),
            Some(s) => Format::Schema(crate::steps::wire::Sorted(s.schema.clone())),
        }),
        tools,
        messages,
    }
}

fn message(role: Role, content: String) -> Message<'static> {
    Message {
        role,
        content: content.into(),
        images: Vec::new(),
        tool_calls: Vec::new(),
        thinking: None,
        tool_name: None,
        tool_call_id: None,
    }
}

fn assistant(turn: AssistantTurn<'_>) -> Message<'static> {
    let mut m = message(
        Role::Assistant,
        turn.text.map(|t| t.into_owned()).unwrap_or_default(),
    );
    // The thinking an Ollama response left in the history goes back on
    // its message, as the API documents a message's `thinking`.
    m.thinking = turn
        .ollama_thinking
        .filter(|t| !t.is_empty())
        .map(Into::into);
    m.tool_calls = turn
        .calls
        .into_iter()
        .map(|call| ToolCall {
            id: None,
            function: CallFunction {
                name: call.name.into(),
                arguments: AsObject(call.arguments),
            },
        })
        .collect();
    m
}

fn batch(results: Vec<ToolResult<'_>>, messages: &mut Vec<Message<'static>>) {
    let mut held = Vec::new();
    for result in results {
        let text = text_with_notes(&result.body, &result.slots, Placement::NextMessage);
        let mut m = message(Role::Tool, text);
        m.tool_name = Some(result.name.clone().into());
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
        let mut m = message(Role::User, labels.join("\n"));
        m.images = images;
        messages.push(m);
    }
}

fn carrier(c: UserCarrier<'_>) -> Message<'static> {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut m = message(Role::User, text);
    m.images = c.slots.into_iter().filter_map(image).collect();
    m
}

/// The raw base64 of an image sent inline.
fn image(slot: Slot<'_>) -> Option<B64<'static>> {
    match slot.media {
        Media::Inline(p) if !p.is_document() => Some(B64::Payload(Payload::base64(p))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(thinking: Option<&str>) -> AssistantTurn<'static> {
        AssistantTurn {
            text: Some("Done.".into()),
            ollama_thinking: thinking.map(str::to_owned),
            ..AssistantTurn::default()
        }
    }

    #[test]
    fn kept_thinking_goes_back_on_its_message_after_the_content() {
        let json = |t| serde_json::to_string(&assistant(turn(t))).unwrap();
        assert_eq!(
            json(Some("Two \"calls\".")),
            r#"{"role":"assistant","content":"Done.","thinking":"Two \"calls\"."}"#
        );
        assert_eq!(json(Some("")), r#"{"role":"assistant","content":"Done."}"#);
        assert_eq!(json(None), r#"{"role":"assistant","content":"Done."}"#);
    }
}
