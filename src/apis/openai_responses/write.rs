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
//! System text goes as `developer` messages for a reasoning model when the
//! API's facts say so (`reasoning_developer_role`; they do not for
//! Responses, whose reference ranks `system` and `developer` alike).

use crate::apis::openai_chat::write::functions;
use crate::steps::compose::{file_name, has_media, text_with_notes, Placement};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsText, Open, TextOr, Url};

use super::wire::{Body, Content, Input, Item, Part, Reasoning, Role, Tool};

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
    let mut input = Vec::new();
    let system = if cx.caps.developer_role {
        Role::Developer
    } else {
        Role::System
    };
    for turn in turns {
        match turn {
            Turn::System(text) => input.push(message(system, text.to_owned())),
            Turn::User(text) => input.push(message(Role::User, text.into_owned())),
            Turn::Assistant(a) => assistant(a, &mut input),
            Turn::Results(results) => input.extend(results.into_iter().map(output)),
            Turn::Carrier(c) => input.push(carrier(c)),
        }
    }
    let (tools, tool_choice) = declare(cx.declarations);
    // Generation settings: <https://platform.openai.com/docs/api-reference/responses/create>
    // (read 2026-12-01): `max_output_tokens`, `temperature`, `top_p`,
    // `reasoning: {"effort": …}`. Responses takes no `stop` or `seed`.
    let p = cx.params;
    Body {
        model: cx.model.to_owned().into(),
        instructions: None,
        max_output_tokens: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        reasoning: p.reasoning_effort.map(|e| Reasoning { effort: e.name() }),
        tools,
        tool_choice,
        input: TextOr::Parts(input),
    }
}

/// Function tools (`strict` off: the schemas are the caller's, not
/// written for strict mode), and `tool_choice` `"none"` when every tool is
/// a stand-in.
fn declare(declarations: &Declarations) -> (Vec<Tool>, Option<&'static str>) {
    let tools = functions(declarations)
        .map(|function| Tool {
            kind: "function",
            function,
            strict: false,
        })
        .collect();
    let choice = (!declarations.is_empty() && declarations.choice_none).then_some("none");
    (tools, choice)
}

fn message(role: Role, text: String) -> Input<'static> {
    Item::Message {
        role,
        content: TextOr::Text(text.into()),
    }
    .into()
}

fn assistant(turn: AssistantTurn<'_>, input: &mut Vec<Input<'static>>) {
    if let Some(text) = turn.text {
        input.push(message(Role::Assistant, text.into_owned()));
    } else if turn.calls.is_empty() {
        input.push(message(Role::Assistant, String::new()));
    }
    for call in turn.calls {
        input.push(
            Item::FunctionCall {
                call_id: call.id.into(),
                name: call.name.into(),
                arguments: AsText(call.arguments),
            }
            .into(),
        );
    }
}

/// The text, then the media; a plain string when there are no media.
fn content(text: String, slots: Vec<Slot<'_>>) -> Content<'static> {
    if !has_media(&slots) {
        return TextOr::Text(text.into());
    }
    let mut parts: Vec<Open<Part<'static>>> = Vec::new();
    if !text.is_empty() {
        parts.push(Part::Text { text: text.into() }.into());
    }
    parts.extend(slots.into_iter().filter_map(media_part));
    TextOr::Parts(parts)
}

fn output(result: ToolResult<'_>) -> Input<'static> {
    let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
    Item::FunctionCallOutput {
        call_id: result.call_id.into(),
        output: content(text, result.slots),
    }
    .into()
}

fn carrier(c: UserCarrier<'_>) -> Input<'static> {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    Item::Message {
        role: Role::User,
        content: content(text, c.slots),
    }
    .into()
}

/// An `input_image` or `input_file` part, for a slot sent as media.
fn media_part(slot: Slot<'_>) -> Option<Open<Part<'static>>> {
    let is_document = slot.kind == crate::AttachmentKind::Document;
    let file = |filename, file_data, file_url| Part::File {
        filename,
        file_data,
        file_url,
    };
    let image = |image_url| Part::Image {
        detail: "auto",
        image_url,
    };
    let part = match slot.media {
        Media::Inline(p) if p.is_document() => {
            let filename = file_name(&slot.target).unwrap_or("document.pdf");
            file(
                Some(filename.to_owned().into()),
                Some(Url::Payload(p)),
                None,
            )
        }
        Media::Inline(p) => image(Url::Payload(p)),
        Media::Url(url) if is_document => file(None, None, Some(url.into())),
        Media::Url(url) => image(Url::Text(url.into())),
        Media::Note(..) => return None,
    };
    Some(part.into())
}
