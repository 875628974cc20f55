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

use super::wire::{
    sends_media, Block, Body, CacheControl, Content, Item, JsonOutputFormat, Marked, Message,
    Metadata, OutputConfig, Role, Source, Thinking, Tool, ToolChoice,
};
use crate::steps::compose::{
    cache_breakpoints, has_media, long_enough, record_end, text_tokens, text_with_notes,
    with_callers, Alternating, Placement, OPENING_TEXT,
};
use crate::steps::context::Context;
use crate::steps::declare::{Declarations, Input};
use crate::steps::envelope::ANTHROPIC_THINKING;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsObject, Open, Payload, Sorted, TextOr, B64};

/// A lone text block as a plain string, unless it is a breakpoint; each
/// block of `marked` (their indices) a breakpoint.
fn content(
    mut blocks: Vec<Item<'static>>,
    marked: &[usize],
    cache_control: CacheControl,
) -> TextOr<'static, Marked<Item<'static>>> {
    if marked.is_empty() {
        if let [Open::Known(Block::Text { .. })] = blocks.as_slice() {
            if let Some(Open::Known(Block::Text { text })) = blocks.pop() {
                return TextOr::Text(text);
            }
        }
    }
    TextOr::Parts(
        blocks
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                if marked.contains(&i) {
                    Marked::breakpoint(b, cache_control)
                } else {
                    Marked::plain(b)
                }
            })
            .collect(),
    )
}

/// The most `cache_control` marks a request carries: "You can define up
/// to 4 cache breakpoints"
/// (<https://platform.claude.com/docs/en/build-with-claude/prompt-caching>,
/// read 2026-12-05).
const MAX_MARKS: usize = 4;

/// A block's input tokens, estimated for the cached-prefix rule: text
/// by [`text_tokens`], an image sent inline by the model's count, a call's
/// name and arguments as text; documents, URLs and kept blocks as none.
fn block_tokens(item: &Item<'_>, cx: &Context<'_>) -> u64 {
    match item {
        Open::Known(Block::Text { text }) => text_tokens(text),
        Open::Known(Block::Image {
            source:
                Source::Base64 {
                    data: B64::Payload(p),
                    ..
                },
        }) => p.size().map_or(0, |(w, h)| cx.image_tokens(w, h)),
        Open::Known(Block::ToolUse { name, input, .. }) => {
            text_tokens(name).saturating_add(json_tokens(input))
        }
        Open::Known(Block::ToolResult {
            content: Some(content),
            ..
        }) => match content {
            TextOr::Text(text) => text_tokens(text),
            TextOr::Parts(items) => items.iter().map(|i| block_tokens(i, cx)).sum(),
        },
        _ => 0,
    }
}

/// The input tokens of a value's JSON, counted as text.
fn json_tokens(value: &impl serde::Serialize) -> u64 {
    serde_json::to_string(value).map_or(0, |json| text_tokens(&json))
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
    let mut system: Vec<&str> = Vec::new();
    let mut system_marked = false;
    let mut messages = Alternating::new();
    for turn in turns {
        match turn {
            Turn::System(text, cache) => {
                system.push(text);
                system_marked |= cache;
            }
            Turn::User(text, cache) => {
                messages.push_record(Role::User, text_block(&text).into_iter().collect(), cache)
            }
            Turn::Assistant(a) => {
                let cache = a.cache;
                messages.push_record(Role::Assistant, assistant(a), cache);
            }
            Turn::Results(results) => {
                // A mark on a result, or on an attachment inside it, falls
                // on its `tool_result` block.
                let marked: Vec<usize> = results
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.cache || r.slots.iter().any(|s| s.cache))
                    .map(|(i, _)| i)
                    .collect();
                let blocks = results.into_iter().map(tool_result).collect();
                messages.push_marked(Role::User, blocks, marked);
            }
            Turn::Carrier(c) => {
                let (blocks, marked) = carrier(c);
                messages.push_marked(Role::User, blocks, marked);
            }
        }
    }
    let opening = Open::Known(Block::Text {
        text: OPENING_TEXT.into(),
    });
    let (messages, caller) = messages.finish(Role::User, opening);
    // Caching: <https://platform.claude.com/docs/en/build-with-claude/prompt-caching>
    // (read 2026-12-01): everything up to a marked block is cached; at
    // most 4 marks a request; none on a prefix shorter than the model's
    // minimum (`long_enough`). Every mark carries the TTL given: "cache
    // entries with longer TTL must appear before shorter TTLs"
    // (#mixing-different-ttls, read 2026-12-02) holds with one TTL.
    let cache_control = CacheControl::with_ttl(cx.cache_ttl());
    let system: Vec<&str> = system
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect();
    let system = system.join("\n\n");
    let (mut tools, tool_choice) = declare(
        cx.declarations,
        cx.tool_choice.as_ref(),
        cx.params.parallel_tool_calls,
    );
    // Tools come before the system text in the cached prefix.
    let before = json_tokens(&tools).saturating_add(text_tokens(&system));
    let long = |prefix: u64| cx.cache_min_tokens.is_none_or(|min| prefix >= min);
    let own = cache_breakpoints(&messages, sends_media, cx.cache_breakpoints);
    let own = long_enough(&messages, own, before, cx.cache_min_tokens, |b| {
        block_tokens(b, cx)
    });
    let own_head = cx.cache_breakpoints && long(before);
    // A kept block (thinking, as the model wrote it) takes no mark.
    let (marks, head) = with_callers(
        &messages,
        (caller, system_marked),
        (own, own_head),
        MAX_MARKS,
        |b| !matches!(b, Open::Raw(_)),
    );
    let messages = messages
        .into_iter()
        .enumerate()
        .map(|(i, (role, blocks))| {
            let marked: Vec<usize> = marks
                .iter()
                .filter(|(m, _)| *m == i)
                .map(|&(_, b)| b)
                .collect();
            Message {
                role,
                content: content(blocks, &marked, cache_control),
            }
        })
        .collect();
    let system = (!system.is_empty()).then(|| {
        if head {
            TextOr::Parts(vec![Marked::breakpoint(
                Block::Text {
                    text: system.into(),
                }
                .into(),
                cache_control,
            )])
        } else {
            TextOr::Text(system.into())
        }
    });
    // The system text's breakpoint covers the tools too; without system
    // text, the last tool.
    if head && system.is_none() {
        if let Some(last) = tools.last_mut() {
            last.cache_control = Some(cache_control);
        }
    }
    // Generation settings: <https://platform.claude.com/docs/en/api/messages/create>
    // (read 2026-12-01): `max_tokens` (required), `temperature`, `top_p`,
    // `top_k`, `stop_sequences` at the top level; a thinking budget is
    // `thinking: {"type": "enabled", "budget_tokens": n}`
    // (<https://platform.claude.com/docs/en/build-with-claude/extended-thinking>,
    // read 2026-12-01); an effort level is `thinking: {"type":
    // "adaptive"}` with `output_config: {"effort"}`
    // (<https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking>,
    // read 2026-12-02). Which model takes which was checked before.
    // Since #45, from the SDK's `MessageCreateParams` (`anthropic`
    // 2.14.0): `stream` and `service_tier`.
    let p = cx.params;
    let thinking = match (p.thinking_budget, p.reasoning_effort) {
        (Some(budget), _) => Some(Thinking {
            kind: "enabled",
            budget_tokens: Some(budget),
        }),
        (None, Some(_)) => Some(Thinking {
            kind: "adaptive",
            budget_tokens: None,
        }),
        (None, None) => None,
    };
    Body {
        model: cx.model.to_owned().into(),
        max_tokens: p.max_tokens.unwrap_or(cx.default_max_tokens),
        temperature: p.temperature,
        top_p: p.top_p,
        top_k: p.top_k,
        stop_sequences: p.stop.clone(),
        thinking,
        output_config: output_config(p),
        stream: p.stream,
        service_tier: p.service_tier.clone(),
        metadata: p.user.clone().map(|user_id| Metadata { user_id }),
        system,
        tools,
        tool_choice,
        messages,
    }
}

/// `output_config`: the effort level, and a JSON Schema as `format`
/// (structured outputs:
/// <https://platform.claude.com/docs/en/build-with-claude/structured-outputs>,
/// read 2026-12-06). Anthropic has no JSON mode without a schema: the
/// settings check refused one before.
fn output_config(p: &crate::steps::params::Params) -> Option<OutputConfig> {
    let format = p
        .response_format
        .as_ref()
        .and_then(|f| f.schema())
        .map(|s| JsonOutputFormat {
            kind: "json_schema",
            schema: Sorted(s.schema.clone()),
        });
    let effort = p.reasoning_effort.map(|e| e.name());
    (effort.is_some() || format.is_some()).then_some(OutputConfig { effort, format })
}

/// `tools`, and `tool_choice`: none when every tool is a stand-in; else
/// the caller's (`auto`, `none`, `any` for required, `tool` with its
/// `name`: the SDK's `ToolChoiceParam`, `anthropic` 2.14.0), `auto` when
/// only `parallel_tool_calls` is given, with `disable_parallel_tool_use`
/// beside any but `none` (which has no such member); with tools or
/// without (the rules refuse a choice without tools).
fn declare(
    declarations: &Declarations,
    choice: Option<&crate::steps::params::ToolChoice>,
    parallel: Option<bool>,
) -> (Vec<Marked<Tool<'static>>>, Option<ToolChoice>) {
    use crate::steps::params::ToolChoice as Choice;
    let tools = declarations
        .tools
        .iter()
        .map(|d| match &d.input {
            Input::Typed { definition, .. } => Tool::Typed(Sorted(definition.clone())),
            Input::Schema(schema) => Tool::Custom {
                name: d.name.clone().into(),
                description: d.description.clone().map(Into::into),
                input_schema: Sorted(schema.clone()),
            },
        })
        .map(Marked::plain)
        .collect();
    let none = ToolChoice {
        kind: "none",
        name: None,
        disable_parallel_tool_use: None,
    };
    let with = |kind, name| ToolChoice {
        kind,
        name,
        disable_parallel_tool_use: parallel.map(|p| !p),
    };
    let choice = match choice {
        // No call can be made: whether several could is moot.
        _ if !declarations.is_empty() && declarations.choice_none => Some(none),
        Some(Choice::None) => Some(none),
        Some(Choice::Auto) => Some(with("auto", None)),
        Some(Choice::Required) => Some(with("any", None)),
        Some(Choice::Tool(name)) => Some(with("tool", Some(name.clone()))),
        None => parallel.map(|_| with("auto", None)),
    };
    (tools, choice)
}

/// A text block, or nothing for text that is empty or only white space
/// (Anthropic refuses both).
fn text_block(text: &str) -> Option<Item<'static>> {
    (!text.trim().is_empty()).then(|| {
        Open::Known(Block::Text {
            text: text.to_owned().into(),
        })
    })
}

fn assistant(mut turn: AssistantTurn<'_>) -> Vec<Item<'static>> {
    // Thinking blocks come first, as the model wrote them (signatures
    // included): https://platform.claude.com/docs/en/build-with-claude/extended-thinking
    // (read 2026-12-01), "Preserving thinking blocks".
    let mut blocks: Vec<Item<'static>> = turn
        .take(ANTHROPIC_THINKING)
        .into_iter()
        .map(Open::Raw)
        .collect();
    blocks.extend(turn.text.as_deref().and_then(text_block));
    blocks.extend(turn.calls.into_iter().map(|call| {
        Open::Known(Block::ToolUse {
            id: call.id.into(),
            name: call.name.into(),
            input: AsObject(call.arguments),
        })
    }));
    blocks
}

fn tool_result(result: ToolResult<'_>) -> Item<'static> {
    let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
    let content = if has_media(&result.slots) {
        let mut content: Vec<Item<'static>> = text_block(&text).into_iter().collect();
        content.extend(media_blocks(result.slots));
        Some(TextOr::Parts(content))
    } else {
        (!text.trim().is_empty()).then(|| Content::Text(text.into()))
    };
    Open::Known(Block::ToolResult {
        tool_use_id: result.call_id.into(),
        content,
        is_error: result.is_error,
    })
}

/// A carrier's blocks, and those the caller marks: its last for a mark on
/// the record; an attachment's own block for a mark on an attachment sent
/// as media, the text holding its note for one that is not.
fn carrier(c: UserCarrier<'_>) -> (Vec<Item<'static>>, Vec<usize>) {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut blocks: Vec<Item<'static>> = text_block(&text).into_iter().collect();
    let mut marked = Vec::new();
    let mut next = blocks.len();
    for slot in &c.slots {
        let sent = slot.media.is_sent();
        if slot.cache {
            // A note lives in the text block, the first when there is one.
            marked.push(if sent { next } else { 0 });
        }
        next += usize::from(sent);
    }
    blocks.extend(media_blocks(c.slots));
    marked.extend(record_end(blocks.len(), c.cache));
    (blocks, marked)
}

/// A document's `title`: its declared file name, control characters made
/// spaces and cut to 255 characters (the longest file name common file
/// systems hold); none when no name was declared. The API takes an
/// optional string `title` on a `document` block
/// (<https://platform.claude.com/docs/en/build-with-claude/citations>,
/// read 2026-12-02).
fn document_title(name: Option<&str>) -> Option<std::borrow::Cow<'static, str>> {
    let name = name?.trim();
    let title: String = name
        .chars()
        .take(255)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    (!title.is_empty()).then_some(std::borrow::Cow::Owned(title))
}

/// `image` and `document` blocks for the slots sent as media, in order.
fn media_blocks(slots: Vec<Slot<'_>>) -> impl Iterator<Item = Item<'static>> + '_ {
    slots.into_iter().filter_map(|slot| {
        let title = document_title(slot.name.as_deref());
        let (document, source) = match slot.media {
            Media::Inline(p) => (
                p.is_document(),
                Source::Base64 {
                    media_type: p.media_type.as_str().into(),
                    data: B64::Payload(Payload::base64(p)),
                },
            ),
            Media::Url(url) => (
                slot.kind == crate::AttachmentKind::Document,
                Source::Url { url: url.into() },
            ),
            Media::File(file) => (
                slot.kind == crate::AttachmentKind::Document,
                Source::File {
                    file_id: file.id.clone().into(),
                },
            ),
            Media::Note(..) => return None,
        };
        Some(Open::Known(if document {
            Block::Document { source, title }
        } else {
            Block::Image { source }
        }))
    })
}
