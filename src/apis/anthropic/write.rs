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

use serde::Serialize;

use crate::steps::compose::{
    cache_breakpoints, has_media, text_with_notes, Alternating, Placement, OPENING_TEXT,
};
use crate::steps::context::Context;
use crate::steps::declare::{Declarations, Input};
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsObject, Base64, Sorted, TextOr};

/// A Messages request body.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Body {
    model: String,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<TextOr<Marked<Block>>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Marked<Tool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
    messages: Vec<Message>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
enum Tool {
    /// A typed tool's definition, as given.
    Typed(Sorted),
    Custom {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        input_schema: Sorted,
    },
}

#[derive(Clone, Debug, Serialize)]
struct ToolChoice {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Clone, Debug, Serialize)]
struct Message {
    role: &'static str,
    content: TextOr<Marked<Block>>,
}

/// A tool result's content.
type Content = TextOr<Block>;

/// A block or a tool, maybe marked as a prompt-cache breakpoint.
#[derive(Clone, Debug, Serialize)]
struct Marked<T> {
    #[serde(flatten)]
    inner: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

impl<T> Marked<T> {
    fn plain(inner: T) -> Marked<T> {
        Marked {
            inner,
            cache_control: None,
        }
    }

    fn breakpoint(inner: T) -> Marked<T> {
        Marked {
            inner,
            cache_control: Some(CacheControl::EPHEMERAL),
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

impl CacheControl {
    /// The default (five-minute) cache.
    const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };
}

/// A lone text block as a plain string, unless it is a breakpoint.
fn content(mut blocks: Vec<Block>, breakpoint: bool) -> TextOr<Marked<Block>> {
    if !breakpoint {
        if let [Block::Text { .. }] = blocks.as_slice() {
            if let Some(Block::Text { text }) = blocks.pop() {
                return TextOr::Text(text);
            }
        }
    }
    let last = blocks.len().saturating_sub(1);
    TextOr::Parts(
        blocks
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                if breakpoint && i == last {
                    Marked::breakpoint(b)
                } else {
                    Marked::plain(b)
                }
            })
            .collect(),
    )
}

impl Block {
    /// Whether the block sends an image or a document (itself, or inside
    /// a tool result).
    fn sends_media(&self) -> bool {
        match self {
            Block::Image { .. } | Block::Document { .. } => true,
            Block::ToolResult {
                content: Some(TextOr::Parts(blocks)),
                ..
            } => blocks.iter().any(Block::sends_media),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    Image {
        source: Source,
    },
    Document {
        source: Source,
    },
    ToolUse {
        id: String,
        name: String,
        input: AsObject,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<Content>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    /// A block the history kept as Anthropic wrote it (a thinking block
    /// and its signature), given back unchanged.
    #[serde(untagged)]
    Replayed(serde_json::Map<String, serde_json::Value>),
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Source {
    Base64 {
        media_type: &'static str,
        data: Base64,
    },
    Url {
        url: String,
    },
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body {
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
    let opening = Block::Text {
        text: OPENING_TEXT.to_owned(),
    };
    let messages = messages.finish(opening);
    // Caching: <https://platform.claude.com/docs/en/build-with-claude/prompt-caching>
    // (read 2026-12-01): everything up to a marked block is cached; at
    // most 4 marks a request.
    let marks = cache_breakpoints(&messages, Block::sends_media, cx.cache_breakpoints);
    let messages = messages
        .into_iter()
        .enumerate()
        .map(|(i, (role, blocks))| Message {
            role,
            content: content(blocks, marks.contains(&i)),
        })
        .collect();
    let system: Vec<&str> = system
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect();
    let system = (!system.is_empty()).then(|| {
        let text = system.join("\n\n");
        if cx.cache_breakpoints {
            TextOr::Parts(vec![Marked::breakpoint(Block::Text { text })])
        } else {
            TextOr::Text(text)
        }
    });
    let (mut tools, tool_choice) = declare(cx.declarations);
    // Tools come before the system text in the cached prefix: the system
    // text's breakpoint covers both; without system text, the last tool.
    if cx.cache_breakpoints && system.is_none() {
        if let Some(last) = tools.last_mut() {
            last.cache_control = Some(CacheControl::EPHEMERAL);
        }
    }
    Body {
        model: cx.model.to_owned(),
        max_tokens: cx.max_tokens,
        system,
        tools,
        tool_choice,
        messages,
    }
}

/// `tools`, and `tool_choice` none when every tool is a stand-in.
fn declare(declarations: &Declarations) -> (Vec<Marked<Tool>>, Option<ToolChoice>) {
    let tools = declarations
        .tools
        .iter()
        .map(|d| match &d.input {
            Input::Typed { definition, .. } => Tool::Typed(Sorted(definition.clone())),
            Input::Schema(schema) => Tool::Custom {
                name: d.name.clone(),
                description: d.description.clone(),
                input_schema: Sorted(schema.clone()),
            },
        })
        .map(Marked::plain)
        .collect();
    let choice = (!declarations.is_empty() && declarations.choice_none)
        .then_some(ToolChoice { kind: "none" });
    (tools, choice)
}

/// A text block, or nothing for text that is empty or only white space
/// (Anthropic refuses both).
fn text_block(text: &str) -> Option<Block> {
    (!text.trim().is_empty()).then(|| Block::Text {
        text: text.to_owned(),
    })
}

fn assistant(turn: AssistantTurn<'_>) -> Vec<Block> {
    // Thinking blocks come first, as the model wrote them (signatures
    // included): https://platform.claude.com/docs/en/build-with-claude/extended-thinking
    // (read 2026-12-01), "Preserving thinking blocks".
    let mut blocks: Vec<Block> = turn.thinking.into_iter().map(Block::Replayed).collect();
    blocks.extend(turn.text.as_deref().and_then(text_block));
    blocks.extend(turn.calls.into_iter().map(|call| Block::ToolUse {
        id: call.id,
        name: call.name,
        input: AsObject(call.arguments),
    }));
    blocks
}

fn tool_result(result: ToolResult<'_>) -> Block {
    let text = text_with_notes(&result.body, &result.slots, Placement::Inside);
    let content = if has_media(&result.slots) {
        let mut content: Vec<Block> = text_block(&text).into_iter().collect();
        content.extend(media_blocks(result.slots));
        Some(TextOr::Parts(content))
    } else {
        (!text.trim().is_empty()).then_some(TextOr::Text(text))
    };
    Block::ToolResult {
        tool_use_id: result.call_id,
        content,
        is_error: result.is_error,
    }
}

fn carrier(c: UserCarrier<'_>) -> Vec<Block> {
    let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
    let mut blocks: Vec<Block> = text_block(&text).into_iter().collect();
    blocks.extend(media_blocks(c.slots));
    blocks
}

/// `image` and `document` blocks for the slots sent as media, in order.
fn media_blocks(slots: Vec<Slot<'_>>) -> impl Iterator<Item = Block> + '_ {
    slots.into_iter().filter_map(|slot| {
        let (document, source) = match slot.media {
            Media::Inline(p) => (
                p.is_document(),
                Source::Base64 {
                    media_type: p.media_type.as_str(),
                    data: Base64(p),
                },
            ),
            Media::Url(url) => (
                slot.kind == crate::AttachmentKind::Document,
                Source::Url { url },
            ),
            Media::Note(..) => return None,
        };
        Some(if document {
            Block::Document { source }
        } else {
            Block::Image { source }
        })
    })
}
