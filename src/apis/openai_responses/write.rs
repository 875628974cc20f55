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

use serde::Serialize;

use crate::apis::openai_chat::wire::Function;
use crate::apis::openai_chat::write::functions;
use crate::steps::compose::{file_name, has_media, text_with_notes, Placement};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{DataUrl, TextOr, UrlOrData};

/// A Responses request body.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Body {
    model: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    input: Vec<Item>,
}

#[derive(Clone, Debug, Serialize)]
struct Tool {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    function: Function,
    strict: bool,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Item {
    Message {
        role: &'static str,
        content: Content,
    },
    FunctionCall {
        call_id: String,
        name: String,
        /// JSON text, as the API takes it.
        arguments: String,
    },
    FunctionCallOutput {
        call_id: String,
        output: Content,
    },
}

type Content = TextOr<'static, Part>;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type")]
enum Part {
    #[serde(rename = "input_text")]
    Text { text: String },
    #[serde(rename = "input_image")]
    Image {
        detail: &'static str,
        image_url: UrlOrData,
    },
    #[serde(rename = "input_file")]
    File {
        #[serde(skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        file_data: Option<DataUrl>,
        #[serde(skip_serializing_if = "Option::is_none")]
        file_url: Option<String>,
    },
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body {
    let mut input = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => input.push(message("system", text.to_owned())),
            Turn::User(text) => input.push(message("user", text.into_owned())),
            Turn::Assistant(a) => assistant(a, &mut input),
            Turn::Results(results) => input.extend(results.into_iter().map(output)),
            Turn::Carrier(c) => input.push(carrier(c)),
        }
    }
    let (tools, tool_choice) = declare(cx.declarations);
    Body {
        model: cx.model.to_owned(),
        tools,
        tool_choice,
        input,
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

fn message(role: &'static str, text: String) -> Item {
    Item::Message {
        role,
        content: TextOr::Text(text.into()),
    }
}

fn assistant(turn: AssistantTurn<'_>, input: &mut Vec<Item>) {
    if let Some(text) = turn.text {
        input.push(message("assistant", text.into_owned()));
    } else if turn.calls.is_empty() {
        input.push(message("assistant", String::new()));
    }
    for call in turn.calls {
        input.push(Item::FunctionCall {
            arguments: call.arguments.as_text().into_owned(),
            call_id: call.id,
            name: call.name,
        });
    }
}

/// The text, then the media; a plain string when there are no media.
fn content(text: String, slots: Vec<Slot<'_>>) -> Content {
    if !has_media(&slots) {
        return TextOr::Text(text.into());
    }
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(Part::Text { text });
    }
    parts.extend(slots.into_iter().filter_map(media_part));
    TextOr::Parts(parts)
}

fn output(result: ToolResult<'_>) -> Item {
    let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
    Item::FunctionCallOutput {
        call_id: result.call_id,
        output: content(text, result.slots),
    }
}

fn carrier(c: UserCarrier<'_>) -> Item {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    Item::Message {
        role: "user",
        content: content(text, c.slots),
    }
}

/// An `input_image` or `input_file` part, for a slot sent as media.
fn media_part(slot: Slot<'_>) -> Option<Part> {
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
    match slot.media {
        Media::Inline(p) if p.is_document() => {
            let filename = file_name(&slot.target).unwrap_or("document.pdf");
            Some(file(Some(filename.to_owned()), Some(DataUrl(p)), None))
        }
        Media::Inline(p) => Some(image(UrlOrData::Data(DataUrl(p)))),
        Media::Url(url) if is_document => Some(file(None, None, Some(url))),
        Media::Url(url) => Some(image(UrlOrData::Url(url))),
        Media::Note(..) => None,
    }
}
