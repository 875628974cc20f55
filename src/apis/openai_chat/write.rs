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
//!
//! The same builder writes for OpenAI-compatible servers
//! ([`Provider::OpenAiCompatible`](crate::provider::Provider::OpenAiCompatible)), as
//! their [`Profile`](crate::provider::Profile) says: the media inside the `tool` messages where the
//! server takes them there; the [`BRIDGE`](crate::provider::BRIDGE) assistant message between a
//! `tool` message and a `user` message where the server refuses the one
//! right after the other; and, for a server without tools, each call as a
//! line of the assistant's text and each batch of results as one `user`
//! message (`[result of NAME (call ID)]` and the body, then the media).

use serde::Serialize;

use crate::facts::BRIDGE;
use crate::steps::compose::{attachment_label, file_name, has_media, text_with_notes, Placement};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{DataUrl, Sorted, TextOr, UrlOrData};

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
        content: Content,
    },
}

type Content = TextOr<'static, Part>;

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

/// How the body is shaped: OpenAI's own, or as a compatible server's
/// profile says.
#[derive(Clone, Copy)]
struct Shape {
    /// Media inside the `tool` messages.
    media_in_tool: bool,
    /// The bridge message between a `tool` and a `user` message.
    bridge: bool,
    /// `tools`, `tool_calls` and `tool` messages at all.
    tools: bool,
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body {
    let shape = match cx.profile {
        Some(p) => Shape {
            media_in_tool: cx.caps.media_in_tool_result,
            bridge: !p.user_after_tool,
            tools: p.tools,
        },
        None => Shape {
            media_in_tool: false,
            bridge: false,
            tools: true,
        },
    };
    let mut messages = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(text) => messages.push(Message::System {
                content: text.to_owned(),
            }),
            Turn::User(text) => messages.push(Message::User {
                content: TextOr::Text(text.into_owned().into()),
            }),
            Turn::Assistant(a) if shape.tools => messages.push(assistant(a)),
            Turn::Assistant(a) => messages.push(assistant_as_text(a)),
            Turn::Results(results) if !shape.tools => messages.push(results_as_user(results)),
            Turn::Results(results) => results_batch(results, shape, &mut messages),
            Turn::Carrier(c) => messages.push(carrier(c)),
        }
    }
    if shape.bridge {
        messages = bridged(messages);
    }
    let (tools, tool_choice) = if shape.tools {
        declare(cx.declarations)
    } else {
        (Vec::new(), None)
    };
    Body {
        model: cx.model.to_owned(),
        tools,
        tool_choice,
        messages,
    }
}

/// `messages` with the [`BRIDGE`] assistant message put between every
/// `tool` message and a `user` message right after it.
fn bridged(messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        if matches!(message, Message::User { .. })
            && matches!(out.last(), Some(Message::Tool { .. }))
        {
            out.push(Message::Assistant {
                content: Some(BRIDGE.to_owned()),
                tool_calls: Vec::new(),
            });
        }
        out.push(message);
    }
    out
}

/// An assistant turn for a server without tools: its text, then one line
/// per call.
fn assistant_as_text(turn: AssistantTurn<'_>) -> Message {
    let mut text = turn.text.map(|t| t.into_owned()).unwrap_or_default();
    for call in turn.calls {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!(
            "[called {} (call {}) with {}]",
            call.name,
            call.id,
            call.arguments.as_text()
        ));
    }
    Message::Assistant {
        content: Some(text),
        tool_calls: Vec::new(),
    }
}

/// A batch of results for a server without tools: one `user` message,
/// each result labelled, its media right after it.
fn results_as_user(results: Vec<ToolResult<'_>>) -> Message {
    let mut parts = Vec::new();
    for result in results {
        let body = text_with_notes(&result.body, &result.slots, Placement::Inside);
        parts.push(Part::Text {
            text: format!(
                "[result of {} (call {})]\n{body}",
                result.name, result.call_id
            ),
        });
        parts.extend(result.slots.into_iter().filter_map(media_part));
    }
    Message::User {
        content: TextOr::Parts(parts),
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

fn results_batch(results: Vec<ToolResult<'_>>, shape: Shape, messages: &mut Vec<Message>) {
    let mut parts = Vec::new();
    let mut held = Vec::new();
    for result in results {
        if shape.media_in_tool && has_media(&result.slots) {
            let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
            let mut content = Vec::new();
            if !text.is_empty() {
                content.push(Part::Text { text });
            }
            content.extend(result.slots.into_iter().filter_map(media_part));
            messages.push(Message::Tool {
                tool_call_id: result.call_id,
                content: TextOr::Parts(content),
            });
            continue;
        }
        let text = text_with_notes(&result.body, &result.slots, Placement::NextMessage);
        messages.push(Message::Tool {
            tool_call_id: result.call_id.clone(),
            content: TextOr::Text(text.into()),
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
            content: TextOr::Text(text.into()),
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
