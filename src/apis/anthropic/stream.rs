//! An Anthropic Messages stream (`"stream": true`) read into the same
//! assistant record as the non-streamed body of that message.
//!
//! The events are <https://platform.claude.com/docs/en/build-with-claude/streaming>
//! (read 2026-12-01): `message_start` (the message, its `content` empty),
//! then per block `content_block_start`, `content_block_delta`s and
//! `content_block_stop`, then `message_delta` (`stop_reason`,
//! `stop_sequence`, cumulative `usage`) and `message_stop`; `ping`s anywhere; an `error` event ends
//! the stream. Deltas: `text_delta` (text appended), `input_json_delta`
//! (the `partial_json` pieces, concatenated, are the `input`'s JSON text),
//! `thinking_delta` and `signature_delta`. Events of other types are
//! skipped, as the page asks ("new event types may be added").
//!
//! A block is written as its `content_block_start` had it, its members in
//! that order, with `text`, `thinking`, `signature` and `input` replaced by
//! what the deltas built (a member the start lacked is appended). The
//! `usage` is `message_start`'s, each member `message_delta`'s usage names
//! replaced by that (cumulative) value and new ones appended: the final
//! counts, as the non-streamed body gives them.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::json::{minify, push_json_str};
use crate::steps::response::{lacking, ResponseError};
use crate::steps::sse::{Events, SseEvent};

use super::response::{present, turn, BlockHead, ErrorBody, Members, Message, Part};

/// Reads an Anthropic event stream as its bytes arrive:
/// pushed in pieces cut anywhere, then finished (through
/// [`Sse`](crate::steps::sse::Sse)).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::Anthropic)?;
/// stream.push(b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"content\":[]}}\n\n")?;
/// stream.push(b"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")?;
/// stream.push(b"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n")?;
/// stream.push(b"data: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_stop\"}\n\n")?;
/// assert_eq!(stream.finish()?.to_json(), "Hi");
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
#[derive(Debug, Default)]
pub struct AnthropicStream {
    events: usize,
    started: bool,
    stopped: bool,
    blocks: Vec<Block>,
    /// `(name, JSON text)`, in order.
    usage: Vec<(String, String)>,
    stop_reason: Option<String>,
    stop_sequence: Option<String>,
}

#[derive(Debug)]
struct Block {
    kind: String,
    /// The start's members, `(name, JSON text)`, in order.
    members: Vec<(String, String)>,
    text: String,
    thinking: String,
    signature: Option<String>,
    json: String,
    open: bool,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(default)]
    index: Option<usize>,
    #[serde(borrow, default)]
    content_block: Option<&'a RawValue>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<ErrorBody<'a>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<&'a RawValue>,
    #[serde(borrow, default)]
    stop_sequence: Option<&'a RawValue>,
}

impl Events for AnthropicStream {
    fn event(&mut self, sse: &SseEvent) -> Result<(), ResponseError> {
        self.events += 1;
        let n = self.events;
        let shape = |kind: &str, reason: String| ResponseError::Shape {
            at: format!("event {n} ({kind})"),
            reason,
        };
        let event: Event<'_> =
            serde_json::from_str(&sse.data).map_err(|e| shape(&sse.event, e.to_string()))?;
        let kind = &*event.kind;
        if self.stopped && kind != "ping" {
            return Ok(());
        }
        match kind {
            "message_start" => {
                let raw = event
                    .message
                    .ok_or_else(|| shape(kind, "no `message`".into()))?;
                let message: Message<'_> =
                    serde_json::from_str(raw.get()).map_err(|e| shape(kind, e.to_string()))?;
                self.started = true;
                self.stop_reason = present(message.stop_reason).or(self.stop_reason.take());
                self.stop_sequence = present(message.stop_sequence).or(self.stop_sequence.take());
                self.merge_usage(message.usage)
                    .map_err(|e| shape(kind, e.to_string()))?;
            }
            "content_block_start" => {
                let index = event
                    .index
                    .ok_or_else(|| shape(kind, "no `index`".into()))?;
                if index != self.blocks.len() {
                    return Err(shape(
                        kind,
                        format!(
                            "block {index} starts where block {} was due",
                            self.blocks.len()
                        ),
                    ));
                }
                let raw = event
                    .content_block
                    .ok_or_else(|| shape(kind, "no `content_block`".into()))?;
                let block = Block::start(raw).map_err(|e| shape(kind, e))?;
                self.blocks.push(block);
            }
            "content_block_delta" | "content_block_stop" => {
                let index = event
                    .index
                    .ok_or_else(|| shape(kind, "no `index`".into()))?;
                let block = self
                    .blocks
                    .get_mut(index)
                    .filter(|b| b.open)
                    .ok_or_else(|| shape(kind, format!("block {index} is not open")))?;
                match event.delta {
                    _ if kind == "content_block_stop" => block.open = false,
                    Some(delta) => block.delta(delta).map_err(|e| shape(kind, e))?,
                    None => return Err(shape(kind, "no `delta`".into())),
                }
            }
            "message_delta" => {
                if let Some(delta) = event.delta {
                    if let Some(reason) = present(delta.stop_reason) {
                        self.stop_reason = Some(reason);
                    }
                    if let Some(sequence) = present(delta.stop_sequence) {
                        self.stop_sequence = Some(sequence);
                    }
                }
                self.merge_usage(event.usage)
                    .map_err(|e| shape(kind, e.to_string()))?;
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let error = event
                    .error
                    .ok_or_else(|| shape(kind, "no `error`".into()))?;
                return Err(error.into_error());
            }
            // `ping`, and event types added later.
            _ => {}
        }
        Ok(())
    }

    /// The assistant turn, once the stream ended.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] naming what the stream lacks
    /// (`message_stop`, a block's `content_block_stop`), or the error a
    /// push returned.
    fn end(self, half_line: Option<String>) -> Result<AssistantTurn, ResponseError> {
        let mut missing = Vec::new();
        if !self.started {
            missing.push("message_start".to_owned());
        }
        for (b, block) in self.blocks.iter().enumerate() {
            if block.open {
                missing.push(format!("content_block_stop for block {b}"));
            }
        }
        if !self.stopped {
            missing.push("message_stop".to_owned());
        }
        lacking(missing, half_line)?;
        let usage = (!self.usage.is_empty()).then(|| object(&self.usage));
        let parts = self.blocks.into_iter().map(Block::part).collect();
        turn(parts, self.stop_reason, self.stop_sequence, usage)
    }
}

impl AnthropicStream {
    fn merge_usage(&mut self, raw: Option<&RawValue>) -> Result<(), serde_json::Error> {
        let Some(raw) = raw.filter(|r| r.get() != "null") else {
            return Ok(());
        };
        let Members(members) = serde_json::from_str(raw.get())?;
        for (name, value) in members {
            set(&mut self.usage, &name, minify(value.get()));
        }
        Ok(())
    }
}

/// Set member `name` to `json`: in its place, or appended.
fn set(members: &mut Vec<(String, String)>, name: &str, json: String) {
    match members.iter_mut().find(|(n, _)| n == name) {
        Some(member) => member.1 = json,
        None => members.push((name.to_owned(), json)),
    }
}

/// `{"name":json,…}`.
fn object(members: &[(String, String)]) -> String {
    let mut out = String::from("{");
    for (i, (name, json)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_str(&mut out, name);
        out.push(':');
        out.push_str(json);
    }
    out.push('}');
    out
}

fn json_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_json_str(&mut out, text);
    out
}

impl Block {
    fn start(raw: &RawValue) -> Result<Block, String> {
        let head: BlockHead<'_> = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        if head.kind == "tool_use" {
            head.id.as_ref().ok_or("a tool_use block without `id`")?;
            head.name
                .as_ref()
                .ok_or("a tool_use block without `name`")?;
        }
        let Members(members) = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        let members = members
            .into_iter()
            .map(|(n, v)| (n.into_owned(), minify(v.get())))
            .collect();
        Ok(Block {
            kind: head.kind.into_owned(),
            members,
            text: head.text.map(Cow::into_owned).unwrap_or_default(),
            thinking: head.thinking.map(Cow::into_owned).unwrap_or_default(),
            signature: None,
            json: String::new(),
            open: true,
        })
    }

    fn delta(&mut self, delta: Delta<'_>) -> Result<(), String> {
        let kind = delta.kind.as_deref().unwrap_or("untyped");
        let piece = match kind {
            "text_delta" => delta.text.map(|t| self.text.push_str(&t)),
            "input_json_delta" => delta.partial_json.map(|t| self.json.push_str(&t)),
            "thinking_delta" => delta.thinking.map(|t| self.thinking.push_str(&t)),
            "signature_delta" => delta.signature.map(|t| {
                self.signature.get_or_insert_with(String::new).push_str(&t);
            }),
            // Delta types added later.
            _ => Some(()),
        };
        piece.ok_or_else(|| format!("a {kind} without its text"))
    }

    fn part(mut self) -> Part {
        let text = std::mem::take(&mut self.text);
        let member = |name: &str| {
            self.members
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        let input = if self.json.trim().is_empty() {
            member("input").unwrap_or_else(|| "{}".into())
        } else {
            minify(&self.json)
        };
        match self.kind.as_str() {
            "text" => return Part::Text(text),
            "tool_use" => {
                let string = |name: &str| {
                    member(name)
                        .and_then(|v| serde_json::from_str::<String>(&v).ok())
                        .unwrap_or_default()
                };
                return Part::Call {
                    id: string("id"),
                    name: string("name"),
                    input,
                };
            }
            _ => {}
        }
        if self.kind == "thinking" {
            set(&mut self.members, "thinking", json_str(&self.thinking));
        }
        if let Some(signature) = &self.signature {
            set(&mut self.members, "signature", json_str(signature));
        }
        if !self.json.trim().is_empty() {
            set(&mut self.members, "input", input);
        }
        let raw = object(&self.members);
        if matches!(self.kind.as_str(), "thinking" | "redacted_thinking") {
            Part::Thinking(raw)
        } else {
            Part::Other(raw)
        }
    }
}
