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
//!
//! **Kept items.** The items an assistant envelope kept
//! ([`OPENAI_ITEMS`](crate::import::OPENAI_ITEMS): `reasoning` with its
//! `encrypted_content`, server tools' calls) are written back first in
//! their turn, before its message and function calls, in the order kept and
//! as the envelope holds them, so a reasoning model's turn replays without
//! stored state (<https://platform.openai.com/docs/guides/reasoning>, read
//! 2026-12-01: "include these items in your input … for subsequent turns").
//! A member only an output item has and no input item takes is left out:
//! `created_by` (function, tool-search, shell, apply-patch and custom
//! tool outputs, compaction items; also on a shell call output's entries)
//! and a custom tool call output's `status` (the SDK's `ResponseInputItem`
//! types, `openai` 3.57.0). A reasoning item has none: it goes back byte
//! for byte.

use crate::apis::openai_chat::write::{functions, mode_or_name};
use crate::facts::Detail;
use crate::steps::compose::{has_media, slot_file_name, text_with_notes, Placement};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::envelope::OPENAI_ITEMS;
use crate::steps::response::Members;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsText, Open, Payload, TextOr, Url};
use serde_json::value::RawValue;

use super::wire::{Body, Choice, Content, Format, Input, Item, Part, Reasoning, Role, Text, Tool};
use crate::apis::openai_chat::wire::JsonSchema;

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
    let mut input = Vec::new();
    let system = if cx.caps.developer_role {
        Role::Developer
    } else {
        Role::System
    };
    // The caller's marks: an item, and which of its parts (`None`: the
    // last). The provider step left some only for a model that takes them.
    let mut marks: Vec<(usize, Option<usize>)> = Vec::new();
    for turn in turns {
        let cache = match turn {
            Turn::System(text, cache) => {
                input.push(message(system, text.to_owned()));
                cache
            }
            Turn::User(text, cache) => {
                input.push(message(Role::User, text.into_owned()));
                cache
            }
            Turn::Assistant(a) => {
                let cache = a.cache;
                assistant(a, &mut input);
                cache
            }
            Turn::Results(results) => {
                for result in results {
                    // A mark on an attachment inside falls on the output.
                    let cache = result.cache || result.slots.iter().any(|s| s.cache);
                    input.push(output(result));
                    if cache {
                        marks.push((input.len() - 1, None));
                    }
                }
                false
            }
            Turn::Carrier(c) => {
                let (item, parts) = carrier(c);
                input.push(item);
                marks.extend(parts.into_iter().map(|p| (input.len() - 1, p)));
                false
            }
        };
        if cache {
            marks.extend(input.len().checked_sub(1).map(|i| (i, None)));
        }
    }
    place(&mut input, marks);
    if let Some(detail) = cx.detail {
        with_detail(&mut input, detail);
    }
    let (tools, none) = declare(cx.declarations);
    let tool_choice = none.map(Choice::Mode).or_else(|| choice(cx));
    // Generation settings: <https://platform.openai.com/docs/api-reference/responses/create>
    // (read 2026-12-01): `max_output_tokens`, `temperature`, `top_p`,
    // `reasoning: {"effort": …}`, and the prompt cache's `prompt_cache_key`
    // and `prompt_cache_retention` (the SDK's `ResponseCreateParams`,
    // `openai` 3.57.0). Responses takes no `stop` or `seed`.
    // Since #45, from the same types: `stream`, `store`, `service_tier`,
    // `parallel_tool_calls`, `reasoning.summary`, `text.verbosity`,
    // `text.format` (structured outputs: a schema or JSON mode),
    // `tool_choice`, `metadata`, and the end user's id as
    // `safety_identifier` (`user` "is being replaced by it").
    let p = cx.params;
    Body {
        model: cx.model.to_owned().into(),
        instructions: None,
        max_output_tokens: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        reasoning: (p.reasoning_effort.is_some() || p.reasoning_summary.is_some()).then(|| {
            Reasoning {
                effort: p.reasoning_effort.map(|e| e.name()),
                summary: p.reasoning_summary.map(|s| s.name()),
            }
        }),
        prompt_cache_key: p.prompt_cache_key.clone(),
        prompt_cache_retention: p.prompt_cache_retention.map(|r| r.name()),
        text: text(p),
        stream: p.stream,
        store: p.store,
        service_tier: p.service_tier.clone(),
        parallel_tool_calls: p.parallel_tool_calls,
        safety_identifier: p.user.clone(),
        metadata: p.metadata.clone(),
        tools,
        tool_choice,
        input: TextOr::Parts(input),
    }
}

/// `text`: the verbosity, and the caller's `response_format` as
/// `format`.
fn text(p: &crate::steps::params::Params) -> Option<Text> {
    let format = p.response_format.as_ref().map(|f| match f.schema() {
        None => Format::JsonObject,
        Some(s) => Format::JsonSchema(JsonSchema::of(s)),
    });
    let verbosity = p.verbosity.map(|v| v.name());
    (verbosity.is_some() || format.is_some()).then_some(Text { verbosity, format })
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

/// The caller's `tool_choice`, as Responses spells it.
fn choice(cx: &Context<'_>) -> Option<Choice> {
    Some(match mode_or_name(cx)? {
        Ok(mode) => Choice::Mode(mode),
        Err(name) => Choice::Function {
            kind: "function",
            name,
        },
    })
}

fn message(role: Role, text: String) -> Input<'static> {
    Item::Message {
        role,
        content: TextOr::Text(text.into()),
    }
    .into()
}

fn assistant(mut turn: AssistantTurn<'_>, input: &mut Vec<Input<'static>>) {
    input.extend(
        turn.take(OPENAI_ITEMS)
            .into_iter()
            .map(|item| Input(Open::Raw(item))),
    );
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

/// A kept item as an input item: the same bytes, less the members only an
/// output item has (see the module's documentation). The replay step
/// applies it (the API table's row says so) before it checks the item.
pub(crate) fn as_input(item: Box<RawValue>) -> Box<RawValue> {
    const OUTPUT_ONLY: &str = "created_by";
    let Ok(Members(members)) = serde_json::from_str::<Members<'_>>(item.get()) else {
        return item;
    };
    let kind = members
        .iter()
        .find(|(k, _)| k == "type")
        .and_then(|(_, v)| serde_json::from_str::<&str>(v.get()).ok());
    let left_out = |key: &str| {
        key == OUTPUT_ONLY || (key == "status" && kind == Some("custom_tool_call_output"))
    };
    // A shell call output's entries carry `created_by` too.
    let entries = |value: &RawValue| -> Option<String> {
        if kind != Some("shell_call_output") {
            return None;
        }
        let entries: Vec<&RawValue> = serde_json::from_str(value.get()).ok()?;
        let mut changed = false;
        let entries: Vec<String> = entries
            .into_iter()
            .map(|e| match serde_json::from_str::<Members<'_>>(e.get()) {
                Ok(Members(m)) if m.iter().any(|(k, _)| k == OUTPUT_ONLY) => {
                    changed = true;
                    object(
                        m.iter()
                            .filter(|(k, _)| k != OUTPUT_ONLY)
                            .map(|(k, v)| (&**k, *v)),
                    )
                }
                _ => e.get().to_owned(),
            })
            .collect();
        changed.then(|| format!("[{}]", entries.join(",")))
    };
    let output = members
        .iter()
        .find(|(k, _)| k == "output")
        .and_then(|(_, v)| entries(v));
    if output.is_none() && !members.iter().any(|(k, _)| left_out(k)) {
        return item;
    }
    let output = output.and_then(|o| RawValue::from_string(o).ok());
    let kept = members.iter().filter(|(k, _)| !left_out(k)).map(|(k, v)| {
        let v: &RawValue = match (&**k, &output) {
            ("output", Some(o)) => o,
            _ => v,
        };
        (&**k, v)
    });
    RawValue::from_string(object(kept)).unwrap_or(item)
}

/// `{"key":value,…}`, each value as its raw text.
fn object<'v>(members: impl Iterator<Item = (&'v str, &'v RawValue)>) -> String {
    let mut out = String::from("{");
    for (i, (key, value)) in members.enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::json::push_json_str(&mut out, key);
        out.push(':');
        out.push_str(value.get());
    }
    out.push('}');
    out
}

/// The text, then the media; a plain string when there are no media.
fn content(text: String, slots: Vec<Slot<'_>>) -> Content<'static> {
    if !has_media(&slots) {
        return TextOr::Text(text.into());
    }
    let mut parts: Vec<Open<Part<'static>>> = Vec::new();
    if !text.is_empty() {
        parts.push(
            Part::Text {
                text: text.into(),
                prompt_cache_breakpoint: None,
            }
            .into(),
        );
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

/// A carrier's message, and the parts the caller marks (`None`: the
/// last): an attachment's own part, or the text holding its note.
fn carrier(c: UserCarrier<'_>) -> (Input<'static>, Vec<Option<usize>>) {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut marked = Vec::new();
    if has_media(&c.slots) {
        let mut next = usize::from(!text.is_empty());
        for slot in &c.slots {
            let sent = slot.media.is_sent();
            if slot.cache {
                marked.push(Some(if sent { next } else { 0 }));
            }
            next += usize::from(sent);
        }
    } else if c.slots.iter().any(|s| s.cache) {
        marked.push(None);
    }
    if c.cache {
        marked.push(None);
    }
    let item = Item::Message {
        role: Role::User,
        content: content(text, c.slots),
    }
    .into();
    (item, marked)
}

/// Each of the caller's marks as a `prompt_cache_breakpoint` on its part,
/// a plain string made an `input_text` part to carry it. An item that
/// takes none (an assistant's message, a function call, a kept item: the
/// SDK types breakpoints on input parts only) passes its mark to the
/// nearest item before it that does, which ends a prefix of the one
/// asked for.
fn place(input: &mut [Input<'static>], marks: Vec<(usize, Option<usize>)>) {
    let takes = |item: &Input<'_>| match &item.0 {
        Open::Known(Item::Message { role, .. }) => *role != Role::Assistant,
        Open::Known(Item::FunctionCallOutput { .. }) => true,
        _ => false,
    };
    for (item, part) in marks {
        let Some(at) = (0..=item).rev().find(|&i| takes(&input[i])) else {
            continue;
        };
        let part = part.filter(|_| at == item);
        let content = match &mut input[at].0 {
            Open::Known(Item::Message { content, .. })
            | Open::Known(Item::FunctionCallOutput {
                output: content, ..
            }) => content,
            _ => continue,
        };
        if let TextOr::Text(text) = content {
            let text = std::mem::take(text);
            *content = TextOr::Parts(vec![Part::Text {
                text,
                prompt_cache_breakpoint: None,
            }
            .into()]);
        }
        let TextOr::Parts(parts) = content else {
            continue;
        };
        let end = part.map_or(parts.len(), |p| (p + 1).min(parts.len()));
        let known = parts[..end].iter_mut().rev().find_map(|p| match p {
            Open::Known(p) => Some(p),
            _ => None,
        });
        if let Some(p) = known {
            p.mark();
        }
    }
}

/// Every `input_image` part's `detail` set to `detail`
/// ([`crate::steps::detail`]); without a level given, parts keep `auto`.
fn with_detail(input: &mut [Input<'static>], detail: Detail) {
    for item in input {
        let content = match &mut item.0 {
            Open::Known(Item::Message { content, .. }) => content,
            Open::Known(Item::FunctionCallOutput { output, .. }) => output,
            _ => continue,
        };
        if let TextOr::Parts(parts) = content {
            for part in parts {
                if let Open::Known(Part::Image { detail: d, .. }) = part {
                    *d = detail.name();
                }
            }
        }
    }
}

/// An `input_image` or `input_file` part, for a slot sent as media.
fn media_part(slot: Slot<'_>) -> Option<Open<Part<'static>>> {
    let filename = slot_file_name(&slot).unwrap_or("document.pdf").to_owned();
    let is_document = slot.kind == crate::AttachmentKind::Document;
    let file = |filename, file_data, file_url, file_id| Part::File {
        filename,
        file_data,
        file_url,
        file_id,
        prompt_cache_breakpoint: None,
    };
    let image = |image_url, file_id| Part::Image {
        detail: "auto",
        image_url,
        file_id,
        prompt_cache_breakpoint: None,
    };
    let part = match slot.media {
        Media::Inline(p) if p.is_document() => file(
            Some(filename.into()),
            Some(Url::Payload(Payload::data_url(p))),
            None,
            None,
        ),
        Media::Inline(p) => image(Some(Url::Payload(Payload::data_url(p))), None),
        Media::Url(url) if is_document => file(None, None, Some(url.into()), None),
        Media::Url(url) => image(Some(Url::Text(url.into())), None),
        // A file uploaded with the Files API, by its id: `input_file` and
        // `input_image` both take a `file_id`
        // (<https://platform.openai.com/docs/api-reference/responses/create>,
        // read 2026-12-02).
        Media::File(f) if is_document => file(None, None, None, Some(f.id.clone().into())),
        Media::File(f) => image(None, Some(f.id.clone().into())),
        Media::Note(..) => return None,
    };
    Some(part.into())
}
