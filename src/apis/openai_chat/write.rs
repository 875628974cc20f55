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

use std::borrow::Cow;

use crate::facts::BRIDGE;
use crate::steps::compose::{
    attachment_label, has_media, slot_file_name, text_with_notes, Placement,
};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsText, Open, Payload, Sorted, TextOr, Url};

/// Ollama declares its tools as Chat does.
pub(crate) use super::wire::Tool;
use super::wire::{
    Body, CallFunction, Choice, File, Format, Function, ImageUrl, JsonSchema, Message, Named, Part,
    Role, StreamOptions, ToolCall,
};

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

/// A message's content, as written.
type Content = super::wire::Content<'static>;

/// A message's text content.
fn text(text: impl Into<Cow<'static, str>>) -> Option<Content> {
    Some(TextOr::Text(text.into()))
}

/// A message's content of parts.
fn parts(parts: Vec<Open<Part<'static>>>) -> Option<Content> {
    Some(TextOr::Parts(parts))
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
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
    // "With o1 models and newer, `developer` messages replace the previous
    // `system` messages" (the developer message, in
    // <https://platform.openai.com/docs/api-reference/chat/create>, read
    // 2026-12-01): so for a model the facts call a reasoning model.
    let system = if cx.caps.developer_role {
        Role::Developer
    } else {
        Role::System
    };
    let mut messages = Vec::new();
    for turn in turns {
        match turn {
            Turn::System(t, _) => messages.push(Message::new(system, text(t.to_owned()))),
            Turn::User(t, _) => messages.push(Message::new(Role::User, text(t.into_owned()))),
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
    if let Some(detail) = cx.detail {
        with_detail(&mut messages, detail);
    }
    let (tools, tool_choice) = if shape.tools {
        let (tools, none) = declare(cx.declarations);
        (tools, none.map(Choice::Mode).or_else(|| choice(cx)))
    } else {
        (Vec::new(), None)
    };
    // Generation settings: <https://platform.openai.com/docs/api-reference/chat/create>
    // (read 2026-12-01): `max_completion_tokens` (`max_tokens` is
    // deprecated there), `temperature`, `top_p`, `stop`, `seed`,
    // `reasoning_effort`; and the prompt cache's `prompt_cache_key` and
    // `prompt_cache_retention` (the SDK's `CompletionCreateParams`, `openai`
    // 3.57.0). A compatible server is written the same way:
    // no profile in the facts spells them otherwise.
    // Since #45, from the same types: `stream` (and, to OpenAI itself,
    // `stream_options.include_usage`, the usage in the last chunk: a
    // compatible server's profile does not say it takes stream options),
    // `store`, `service_tier`, `verbosity`, `parallel_tool_calls`,
    // `tool_choice`, `metadata`, and the end user's id as
    // `safety_identifier` (`user` "is being replaced by
    // `safety_identifier` and `prompt_cache_key`"), and `response_format`
    // (structured outputs: a schema or JSON mode).
    let p = cx.params;
    let openai = cx.profile.is_none();
    Body {
        model: cx.model.to_owned().into(),
        max_completion_tokens: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        stop: p.stop.clone(),
        seed: p.seed,
        reasoning_effort: p.reasoning_effort.map(|e| e.name()),
        prompt_cache_key: p.prompt_cache_key.clone(),
        prompt_cache_retention: p.prompt_cache_retention.map(|r| r.name()),
        stream: p.stream,
        stream_options: (openai && p.stream == Some(true)).then_some(StreamOptions {
            include_usage: true,
        }),
        store: p.store,
        service_tier: p.service_tier.clone(),
        verbosity: p.verbosity.map(|v| v.name()),
        parallel_tool_calls: p.parallel_tool_calls,
        safety_identifier: p.user.clone(),
        metadata: p.metadata.clone(),
        response_format: p.response_format.as_ref().map(|f| match f.schema() {
            None => Format::JsonObject,
            Some(s) => Format::JsonSchema {
                json_schema: JsonSchema::of(s),
            },
        }),
        tools,
        tool_choice,
        messages,
    }
}

/// The caller's `tool_choice`, as Chat spells it.
fn choice(cx: &Context<'_>) -> Option<Choice> {
    Some(match mode_or_name(cx)? {
        Ok(mode) => Choice::Mode(mode),
        Err(name) => Choice::Function {
            kind: "function",
            function: Named { name },
        },
    })
}

/// The caller's `tool_choice` as OpenAI's APIs take it: a mode (`auto`,
/// `none`, `required`), or the name of the function it must call (Chat
/// and Responses nest it differently).
pub(crate) fn mode_or_name(cx: &Context<'_>) -> Option<Result<&'static str, String>> {
    use crate::steps::params::ToolChoice;
    Some(match cx.tool_choice.as_ref()? {
        ToolChoice::Auto => Ok("auto"),
        ToolChoice::None => Ok("none"),
        ToolChoice::Required => Ok("required"),
        ToolChoice::Tool(name) => Err(name.clone()),
    })
}

/// `messages` with the [`BRIDGE`] assistant message put between every
/// `tool` message and a `user` message right after it.
fn bridged(messages: Vec<Message<'static>>) -> Vec<Message<'static>> {
    let mut out: Vec<Message<'static>> = Vec::with_capacity(messages.len());
    for message in messages {
        if message.role == Role::User && out.last().is_some_and(|m| m.role == Role::Tool) {
            out.push(Message::new(Role::Assistant, text(BRIDGE)));
        }
        out.push(message);
    }
    out
}

/// An assistant turn for a server without tools: its text, then one line
/// per call.
fn assistant_as_text(turn: AssistantTurn<'_>) -> Message<'static> {
    let mut t = turn.text.map(|t| t.into_owned()).unwrap_or_default();
    for call in turn.calls {
        if !t.is_empty() {
            t.push('\n');
        }
        t.push_str(&format!(
            "[called {} (call {}) with {}]",
            call.name,
            call.id,
            call.arguments.as_text()
        ));
    }
    Message::new(Role::Assistant, text(t))
}

/// A batch of results for a server without tools: one `user` message,
/// each result labelled, its media right after it.
fn results_as_user(results: Vec<ToolResult<'_>>) -> Message<'static> {
    let mut content = Vec::new();
    for result in results {
        let body = text_with_notes(&result.body, &result.slots, Placement::Inside);
        content.push(text_part(format!(
            "[result of {} (call {})]\n{body}",
            result.name, result.call_id
        )));
        content.extend(result.slots.into_iter().filter_map(media_part));
    }
    Message::new(Role::User, parts(content))
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

fn assistant(turn: AssistantTurn<'_>) -> Message<'static> {
    if turn.calls.is_empty() {
        return Message::new(
            Role::Assistant,
            text(turn.text.map(|t| t.into_owned()).unwrap_or_default()),
        );
    }
    let tool_calls = turn
        .calls
        .into_iter()
        .map(|call| ToolCall {
            id: call.id.into(),
            kind: "function",
            function: CallFunction {
                name: Some(call.name.into()),
                arguments: AsText(call.arguments),
            },
            custom: None,
            tag: None,
        })
        .collect();
    Message {
        tool_calls,
        ..Message::new(
            Role::Assistant,
            turn.text.map(|t| TextOr::Text(t.into_owned().into())),
        )
    }
}

/// A `tool` message answering the call `id`.
fn tool(id: String, content: Option<Content>) -> Message<'static> {
    Message {
        tool_call_id: Some(id.into()),
        ..Message::new(Role::Tool, content)
    }
}

fn results_batch(results: Vec<ToolResult<'_>>, shape: Shape, messages: &mut Vec<Message<'static>>) {
    let mut media = Vec::new();
    let mut held = Vec::new();
    for result in results {
        if shape.media_in_tool && has_media(&result.slots) {
            let t = text_with_notes(&result.body, &result.slots, Placement::Inside);
            let mut content = Vec::new();
            if !t.is_empty() {
                content.push(text_part(t));
            }
            content.extend(result.slots.into_iter().filter_map(media_part));
            messages.push(tool(result.call_id, parts(content)));
            continue;
        }
        let t = text_with_notes(&result.body, &result.slots, Placement::NextMessage);
        messages.push(tool(result.call_id.clone(), text(t)));
        if has_media(&result.slots) {
            held.push(result);
        }
    }
    for result in held {
        let (name, id) = (result.name, result.call_id);
        for slot in result.slots {
            if !slot.media.is_sent() {
                continue;
            }
            media.push(text_part(attachment_label(&name, &id, &slot)));
            media.extend(media_part(slot));
        }
    }
    if !media.is_empty() {
        messages.push(Message::new(Role::User, parts(media)));
    }
}

fn carrier(c: UserCarrier<'_>) -> Message<'static> {
    let t = text_with_notes(&c.text, &c.slots, Placement::Inside);
    if !has_media(&c.slots) {
        return Message::new(Role::User, text(t));
    }
    let mut content = Vec::new();
    if !t.is_empty() {
        content.push(text_part(t));
    }
    content.extend(c.slots.into_iter().filter_map(media_part));
    Message::new(Role::User, parts(content))
}

fn text_part(text: String) -> Open<Part<'static>> {
    Part::Text { text: text.into() }.into()
}

/// Every `image_url` part's `detail` set to `detail`
/// ([`crate::steps::detail`]; Chat Completions takes the same levels as
/// Responses, <https://developers.openai.com/api/docs/guides/images-vision#choose-an-image-detail-level>,
/// read 2026-12-02: "the same in both the Responses API and the Chat
/// Completions API").
fn with_detail(messages: &mut [Message<'static>], detail: crate::facts::Detail) {
    for message in messages {
        if let Some(TextOr::Parts(parts)) = &mut message.content {
            for part in parts {
                if let Open::Known(Part::ImageUrl { image_url }) = part {
                    image_url.detail = Some(detail.name());
                }
            }
        }
    }
}

/// An `image_url` or `file` part, for a slot sent as media.
fn media_part(slot: Slot<'_>) -> Option<Open<Part<'static>>> {
    let filename = slot_file_name(&slot).unwrap_or("document.pdf").to_owned();
    let part = match slot.media {
        Media::Inline(p) if p.is_document() => Part::File {
            file: File {
                filename: filename.into(),
                file_data: Some(Url::Payload(Payload::data_url(p))),
                file_id: None,
            },
        },
        // A document uploaded with the Files API, by its id (the step
        // sends no image by file id to Chat): `file.file_id`
        // (<https://platform.openai.com/docs/api-reference/chat/create>,
        // read 2026-12-02).
        Media::File(f) => Part::File {
            file: File {
                filename: "".into(),
                file_data: None,
                file_id: Some(f.id.clone().into()),
            },
        },
        Media::Inline(p) => Part::ImageUrl {
            image_url: ImageUrl {
                url: Url::Payload(Payload::data_url(p)),
                detail: None,
            },
        },
        // Only image URLs reach here: chat `file` parts take no URL.
        Media::Url(url) => Part::ImageUrl {
            image_url: ImageUrl {
                url: Url::Text(url.into()),
                detail: None,
            },
        },
        Media::Note(..) => return None,
    };
    Some(part.into())
}
