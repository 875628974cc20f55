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

use serde::Serialize;

use super::declare::Declarations;
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::wire::{DataUrl, Sorted, TextOr, UrlOrData};
use super::{attachment_label, file_name, has_media, text_with_notes, Context, Placement};

/// A Chat Completions request body.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Body {
    model: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    messages: Vec<Message>,
}

/// `{"type": "function", "function": {…}}`, as Chat Completions and Ollama
/// declare tools.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Tool {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function,
}

/// `{"name", "description", "parameters"}`, the function object Chat
/// Completions, Responses and Ollama share.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Function {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parameters: Sorted,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum Message {
    System {
        content: String,
    },
    User {
        content: Content,
    },
    Assistant {
        /// `null` beside tool calls with no text.
        content: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

type Content = TextOr<Part>;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
    File { file: File },
}

#[derive(Clone, Debug, Serialize)]
struct ImageUrl {
    url: UrlOrData,
}

#[derive(Clone, Debug, Serialize)]
struct File {
    filename: String,
    file_data: DataUrl,
}

#[derive(Clone, Debug, Serialize)]
struct ToolCall {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction,
}

#[derive(Clone, Debug, Serialize)]
struct CallFunction {
    name: String,
    /// JSON text, as the API takes it.
    arguments: String,
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body {
    let mut messages = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => messages.push(Message::System {
                content: text.to_owned(),
            }),
            Turn::User(text) => messages.push(Message::User {
                content: TextOr::Text(text.into_owned()),
            }),
            Turn::Assistant(a) => messages.push(assistant(a)),
            Turn::Results(results) => results_batch(results, &mut messages),
            Turn::Carrier(c) => messages.push(carrier(c)),
        }
    }
    let (tools, tool_choice) = declare(cx.declarations);
    Body {
        model: cx.model.to_owned(),
        tools,
        tool_choice,
        messages,
    }
}

/// `tools` as function tools, and `tool_choice` `"none"` when every tool
/// is a stand-in.
pub(crate) fn declare(declarations: &Declarations) -> (Vec<Tool>, Option<&'static str>) {
    let tools = functions(declarations)
        .map(|function| Tool {
            kind: "function",
            function,
        })
        .collect();
    let choice = (!declarations.is_empty() && declarations.choice_none).then_some("none");
    (tools, choice)
}

/// Every declaration as a function object.
pub(crate) fn functions(declarations: &Declarations) -> impl Iterator<Item = Function> + '_ {
    declarations.functions().map(|(d, schema)| Function {
        name: d.name.clone(),
        description: d.description.clone(),
        parameters: Sorted(schema.clone()),
    })
}

fn assistant(turn: AssistantTurn<'_>) -> Message {
    if turn.calls.is_empty() {
        return Message::Assistant {
            content: Some(turn.text.map(|t| t.into_owned()).unwrap_or_default()),
            tool_calls: Vec::new(),
        };
    }
    let tool_calls = turn
        .calls
        .into_iter()
        .map(|call| ToolCall {
            id: call.id,
            kind: "function",
            function: CallFunction {
                name: call.name,
                arguments: call.arguments.as_text().into_owned(),
            },
        })
        .collect();
    Message::Assistant {
        content: turn.text.map(|t| t.into_owned()),
        tool_calls,
    }
}

fn results_batch(results: Vec<ToolResult<'_>>, messages: &mut Vec<Message>) {
    let mut parts = Vec::new();
    let mut held = Vec::new();
    for result in results {
        let text = text_with_notes(&result.body, &result.slots, Placement::NextMessage);
        messages.push(Message::Tool {
            tool_call_id: result.call_id.clone(),
            content: text,
        });
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
            parts.push(Part::Text {
                text: attachment_label(&name, &id, &slot),
            });
            parts.extend(media_part(slot));
        }
    }
    if !parts.is_empty() {
        messages.push(Message::User {
            content: TextOr::Parts(parts),
        });
    }
}

fn carrier(c: UserCarrier<'_>) -> Message {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    if !has_media(&c.slots) {
        return Message::User {
            content: TextOr::Text(text),
        };
    }
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(Part::Text { text });
    }
    parts.extend(c.slots.into_iter().filter_map(media_part));
    Message::User {
        content: TextOr::Parts(parts),
    }
}

/// An `image_url` or `file` part, for a slot sent as media.
fn media_part(slot: Slot<'_>) -> Option<Part> {
    match slot.media {
        Media::Inline(p) if p.is_document() => Some(Part::File {
            file: File {
                filename: file_name(&slot.target).unwrap_or("document.pdf").to_owned(),
                file_data: DataUrl(p),
            },
        }),
        Media::Inline(p) => Some(Part::ImageUrl {
            image_url: ImageUrl {
                url: UrlOrData::Data(DataUrl(p)),
            },
        }),
        // Only image URLs reach here: chat `file` parts take no URL.
        Media::Url(url) => Some(Part::ImageUrl {
            image_url: ImageUrl {
                url: UrlOrData::Url(url),
            },
        }),
        Media::Note(..) => None,
    }
}
