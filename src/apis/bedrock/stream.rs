//! A Bedrock ConverseStream read into the same assistant record as the
//! non-streamed body of that message.
//!
//! The events are <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html>
//! (read 2026-12-02; the names as botocore's service model for
//! `bedrock-runtime` 2023-09-30 gives `ConverseStreamOutput`), in their
//! JSON form as JSON Lines: one event a line, an object whose one member
//! names it, as the AWS SDKs hand each event over (the wire's binary
//! event-stream framing is the SDK's to undo):
//!
//! * `{"messageStart": {"role"}}`;
//! * `{"contentBlockStart": {"start": {"toolUse": {"toolUseId", "name"}},
//!   "contentBlockIndex"}}` (text and reasoning blocks start with their
//!   first delta);
//! * `{"contentBlockDelta": {"delta": …, "contentBlockIndex"}}`, the delta
//!   `{"text"}` (appended), `{"toolUse": {"input"}}` (the pieces,
//!   concatenated, are the input's JSON text) or `{"reasoningContent":
//!   {"text"} | {"signature"} | {"redactedContent"}}`;
//! * `{"contentBlockStop": {"contentBlockIndex"}}`;
//! * `{"messageStop": {"stopReason", "additionalModelResponseFields"?}}`;
//! * `{"metadata": {"usage", "metrics"}}`, after `messageStop`;
//! * the exceptions `internalServerException`,
//!   `modelStreamErrorException`, `validationException`,
//!   `throttlingException`, `serviceUnavailableException`: a
//!   [`ResponseError::Provider`] of that name.
//!
//! A reasoning block is written as the body writes one:
//! `{"reasoningContent": {"reasoningText": {"text", "signature"}}}`, or
//! `{"reasoningContent": {"redactedContent": base64}}`. Events of other
//! names, and deltas of other kinds (`citation`, …), are skipped: a
//! block's citations are not kept from a stream. A stream without
//! `messageStop` was cut; one cut after it lacks only the `metadata` event,
//! and so its record has no `usage`.

use std::borrow::Cow;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::json::{minify, push_json_str};
use crate::steps::lines::{Line, LineSplitter};
use crate::steps::response::{lacking, Members, ResponseError, ResponseStream};

use super::response::{present, turn, ErrorBody, Part, EVENTS};

/// Reads ConverseStream events, one JSON object a line, as their bytes
/// arrive: [`push`](BedrockStream::push) them in pieces cut anywhere, then
/// [`finish`](BedrockStream::finish).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::Bedrock)?;
/// stream.push(b"{\"messageStart\": {\"role\": \"assistant\"}}\n")?;
/// stream.push(b"{\"contentBlockDelta\": {\"delta\": {\"text\": \"Hi\"}, \"contentBlockIndex\": 0}}\n")?;
/// stream.push(b"{\"contentBlockStop\": {\"contentBlockIndex\": 0}}\n{\"messageStop\": {\"stopReason\": \"end_turn\"}}\n")?;
/// assert_eq!(stream.finish()?.to_json(), r#"{"content":"Hi","tool_calls":[],"stop_reason":"end_turn"}"#);
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
#[derive(Debug, Default)]
pub struct BedrockStream {
    lines: LineSplitter,
    started: bool,
    stopped: bool,
    blocks: Vec<Block>,
    stop_reason: Option<String>,
    usage: Option<String>,
    /// The first error: every later call returns it again.
    failed: Option<ResponseError>,
}

#[derive(Debug, Default)]
struct Block {
    /// `None` until the block's start or first delta says.
    kind: Option<Kind>,
    text: String,
    input: String,
    reasoning: Option<String>,
    signature: Option<String>,
    redacted: Vec<String>,
    open: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Text,
    Call { id: String, name: String },
    Reasoning,
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Call { .. } => "toolUse",
            Kind::Reasoning => "reasoningContent",
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event<'a> {
    #[serde(borrow, default)]
    message_start: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content_block_start: Option<BlockStart<'a>>,
    #[serde(borrow, default)]
    content_block_delta: Option<BlockDelta<'a>>,
    #[serde(default)]
    content_block_stop: Option<BlockStop>,
    #[serde(borrow, default)]
    message_stop: Option<MessageStop<'a>>,
    #[serde(borrow, default)]
    metadata: Option<Metadata<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockStart<'a> {
    #[serde(borrow)]
    start: &'a RawValue,
    content_block_index: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolUseStart<'a> {
    #[serde(borrow)]
    tool_use_id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockDelta<'a> {
    #[serde(borrow)]
    delta: Delta<'a>,
    content_block_index: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Delta<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use: Option<ToolUseDelta<'a>>,
    #[serde(borrow, default)]
    reasoning_content: Option<ReasoningDelta<'a>>,
}

#[derive(Deserialize)]
struct ToolUseDelta<'a> {
    #[serde(borrow)]
    input: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReasoningDelta<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    redacted_content: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockStop {
    content_block_index: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageStop<'a> {
    #[serde(borrow, default)]
    stop_reason: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Metadata<'a> {
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Exception<'a> {
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(default)]
    original_status_code: Option<i64>,
    #[serde(borrow, default)]
    original_message: Option<Cow<'a, str>>,
}

impl BedrockStream {
    /// A reader at the start of a stream.
    pub fn new() -> BedrockStream {
        BedrockStream::default()
    }

    /// Take the next bytes of the stream.
    ///
    /// # Errors
    /// [`ResponseError`]: an exception event, an event of a broken shape,
    /// or bytes that are not UTF-8. Once failed, every call fails the same.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = match self.lines.push(bytes) {
            Ok(lines) => lines.iter().try_for_each(|l| self.line(l)),
            Err(e) => Err(ResponseError::Stream(e.to_string())),
        };
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    /// End the stream: the assistant turn.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] naming what the stream lacks
    /// (`messageStart`, a block's `contentBlockStop`, `messageStop`, the
    /// rest of a line), or the error a push returned.
    pub fn finish(mut self) -> Result<AssistantTurn, ResponseError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let lines = std::mem::take(&mut self.lines);
        let mut cut = None;
        match lines.finish() {
            Err(e) => return Err(ResponseError::Stream(e.to_string())),
            // A last line without its line end stands when it is whole JSON.
            Ok(Some(line)) if serde_json::from_str::<&RawValue>(&line.text).is_ok() => {
                self.line(&line)?
            }
            Ok(Some(line)) => {
                cut = Some(format!("the rest of line {} {:?}", line.number, line.text))
            }
            Ok(None) => {}
        }
        let mut missing = Vec::new();
        if !self.started {
            missing.push("messageStart".to_owned());
        }
        for (b, block) in self.blocks.iter().enumerate() {
            if block.open {
                missing.push(format!("contentBlockStop for block {b}"));
            }
        }
        if !self.stopped {
            missing.push("messageStop".to_owned());
        }
        missing.extend(cut);
        lacking(missing, None)?;
        let parts = self
            .blocks
            .into_iter()
            .enumerate()
            .map(|(b, block)| {
                block.part().map_err(|reason| ResponseError::Shape {
                    at: format!("block {b}"),
                    reason,
                })
            })
            .collect::<Result<Vec<Part>, ResponseError>>()?;
        turn(parts, self.stop_reason, self.usage)
    }

    fn line(&mut self, line: &Line) -> Result<(), ResponseError> {
        let n = line.number;
        let Members(members) =
            serde_json::from_str(&line.text).map_err(|e| ResponseError::Shape {
                at: format!("line {n}"),
                reason: e.to_string(),
            })?;
        let Some((name, value)) = members
            .iter()
            .find(|(name, _)| EVENTS.contains(&name.as_ref()))
        else {
            // An error body where the events were due; else an event of a
            // name added later.
            let error = serde_json::from_str::<ErrorBody<'_>>(&line.text).ok();
            return match error.and_then(ErrorBody::error) {
                Some(e) => Err(e),
                None => Ok(()),
            };
        };
        let shape = |reason: String| ResponseError::Shape {
            at: format!("line {n} ({name})"),
            reason,
        };
        if name.ends_with("Exception") {
            let e: Exception<'_> =
                serde_json::from_str(value.get()).map_err(|e| shape(e.to_string()))?;
            let mut message = e.message.map(Cow::into_owned).unwrap_or_default();
            if let Some(code) = e.original_status_code {
                message.push_str(&format!(" (the model's status {code}"));
                if let Some(original) = e.original_message {
                    message.push_str(&format!(": {original}"));
                }
                message.push(')');
            }
            return Err(ResponseError::Provider {
                kind: name.clone().into_owned(),
                message,
            });
        }
        let event: Event<'_> =
            serde_json::from_str(&line.text).map_err(|e| shape(e.to_string()))?;
        self.event(event).map_err(shape)
    }

    fn event(&mut self, event: Event<'_>) -> Result<(), String> {
        if event.message_start.is_some() {
            self.started = true;
        }
        if let Some(start) = event.content_block_start {
            let index = start.content_block_index;
            let block = self.block(index)?;
            if block.kind.is_some() {
                return Err(format!("block {index} has started already"));
            }
            let Members(kinds) =
                serde_json::from_str(start.start.get()).map_err(|e| e.to_string())?;
            let Some((kind, raw)) = kinds.first() else {
                return Err("a start of no kind".into());
            };
            if kind != "toolUse" {
                return Err(format!("a {kind} block is not read from a stream"));
            }
            let tool: ToolUseStart<'_> =
                serde_json::from_str(raw.get()).map_err(|e| format!("toolUse: {e}"))?;
            block.kind = Some(Kind::Call {
                id: tool.tool_use_id.into_owned(),
                name: tool.name.into_owned(),
            });
        }
        if let Some(delta) = event.content_block_delta {
            let block = self.block(delta.content_block_index)?;
            block.delta(delta.delta)?;
        }
        if let Some(stop) = event.content_block_stop {
            let index = stop.content_block_index;
            let block = self
                .blocks
                .get_mut(index)
                .filter(|b| b.open)
                .ok_or_else(|| format!("block {index} is not open"))?;
            block.open = false;
        }
        if let Some(stop) = event.message_stop {
            self.stopped = true;
            self.stop_reason = present(stop.stop_reason).or(self.stop_reason.take());
        }
        if let Some(metadata) = event.metadata {
            if let Some(usage) = present(metadata.usage) {
                self.usage = Some(usage);
            }
        }
        Ok(())
    }

    /// The open block `index`, or a new one when it is the next.
    fn block(&mut self, index: usize) -> Result<&mut Block, String> {
        if index == self.blocks.len() {
            self.blocks.push(Block {
                open: true,
                ..Block::default()
            });
        }
        let due = self.blocks.len();
        match self.blocks.get_mut(index) {
            Some(block) if block.open => Ok(block),
            Some(_) => Err(format!("block {index} is not open")),
            None => Err(format!("block {index} starts where block {due} was due")),
        }
    }
}

impl Block {
    /// Mark the block as of `kind`: the first delta (or the start) says;
    /// a delta of another kind is refused.
    fn be(&mut self, kind: Kind) -> Result<(), String> {
        match &self.kind {
            None => {
                self.kind = Some(kind);
                Ok(())
            }
            Some(k) if std::mem::discriminant(k) == std::mem::discriminant(&kind) => Ok(()),
            Some(k) => Err(format!("a {} delta in a {} block", kind.name(), k.name())),
        }
    }

    fn delta(&mut self, delta: Delta<'_>) -> Result<(), String> {
        if let Some(text) = delta.text {
            self.be(Kind::Text)?;
            self.text.push_str(&text);
        }
        if let Some(tool) = delta.tool_use {
            match &self.kind {
                Some(Kind::Call { .. }) => self.input.push_str(&tool.input),
                _ => return Err("a toolUse delta in a block no toolUse start opened".into()),
            }
        }
        if let Some(r) = delta.reasoning_content {
            self.be(Kind::Reasoning)?;
            if let Some(text) = r.text {
                self.reasoning
                    .get_or_insert_with(String::new)
                    .push_str(&text);
            }
            if let Some(signature) = r.signature {
                self.signature
                    .get_or_insert_with(String::new)
                    .push_str(&signature);
            }
            self.redacted
                .extend(r.redacted_content.map(Cow::into_owned));
        }
        Ok(())
    }

    fn part(self) -> Result<Part, String> {
        Ok(match self.kind {
            None | Some(Kind::Text) => Part::Text(self.text),
            Some(Kind::Call { id, name }) => Part::Call {
                id,
                name,
                input: if self.input.trim().is_empty() {
                    "{}".into()
                } else {
                    minify(&self.input)
                },
            },
            Some(Kind::Reasoning) => {
                let mut out = String::from("{\"reasoningContent\":{");
                match (self.reasoning, self.signature, redacted(self.redacted)?) {
                    (None, None, Some(bytes)) => {
                        out.push_str("\"redactedContent\":");
                        push_json_str(&mut out, &bytes);
                    }
                    (_, _, Some(_)) => {
                        return Err("reasoning text and redactedContent in one block".into())
                    }
                    (text, signature, None) => {
                        out.push_str("\"reasoningText\":{\"text\":");
                        push_json_str(&mut out, text.as_deref().unwrap_or_default());
                        if let Some(signature) = signature {
                            out.push_str(",\"signature\":");
                            push_json_str(&mut out, &signature);
                        }
                        out.push('}');
                    }
                }
                out.push_str("}}");
                Part::Other(out)
            }
        })
    }
}

/// The redacted content the pieces make, as base64: a single piece as it
/// came; several, their bytes joined.
fn redacted(pieces: Vec<String>) -> Result<Option<String>, String> {
    let engine = base64::engine::general_purpose::STANDARD;
    match pieces.len() {
        0 => Ok(None),
        1 => Ok(pieces.into_iter().next()),
        _ => {
            let mut bytes = Vec::new();
            for piece in &pieces {
                bytes.extend(
                    engine
                        .decode(piece)
                        .map_err(|e| format!("redactedContent is not base64: {e}"))?,
                );
            }
            Ok(Some(engine.encode(bytes)))
        }
    }
}

impl ResponseStream for BedrockStream {
    fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        BedrockStream::push(self, bytes)
    }

    fn finish(self: Box<Self>) -> Result<AssistantTurn, ResponseError> {
        BedrockStream::finish(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<AssistantTurn, ResponseError> {
        let mut stream = BedrockStream::new();
        stream.push(text.as_bytes())?;
        stream.finish()
    }

    const REASONING: &str = concat!(
        "{\"messageStart\": {\"role\": \"assistant\"}}\n",
        "{\"contentBlockDelta\": {\"delta\": {\"reasoningContent\": {\"text\": \"Chec\"}}, \"contentBlockIndex\": 0}}\n",
        "{\"contentBlockDelta\": {\"delta\": {\"reasoningContent\": {\"text\": \"k it.\"}}, \"contentBlockIndex\": 0}}\n",
        "{\"contentBlockDelta\": {\"delta\": {\"reasoningContent\": {\"signature\": \"ErcBCkgIBxABGAIiQ\"}}, \"contentBlockIndex\": 0}}\n",
        "{\"contentBlockStop\": {\"contentBlockIndex\": 0}}\n",
        "{\"contentBlockDelta\": {\"delta\": {\"reasoningContent\": {\"redactedContent\": \"AAEC\"}}, \"contentBlockIndex\": 1}}\n",
        "{\"contentBlockDelta\": {\"delta\": {\"reasoningContent\": {\"redactedContent\": \"AwQ=\"}}, \"contentBlockIndex\": 1}}\n",
        "{\"contentBlockStop\": {\"contentBlockIndex\": 1}}\n",
        "{\"messageStop\": {\"stopReason\": \"end_turn\"}}\n",
    );

    #[test]
    fn reasoning_blocks_are_written_as_the_body_writes_them() {
        let turn = read(REASONING).unwrap();
        assert_eq!(
            turn.to_json(),
            concat!(
                r#"{"content":null,"tool_calls":[],"bedrock_blocks":["#,
                r#"{"reasoningContent":{"reasoningText":{"text":"Check it.","signature":"ErcBCkgIBxABGAIiQ"}}},"#,
                r#"{"reasoningContent":{"redactedContent":"AAECAwQ="}}],"stop_reason":"end_turn"}"#
            )
        );
    }

    #[test]
    fn broken_events_name_their_line() {
        let err = |t: &str| read(t).unwrap_err().to_string();
        assert_eq!(
            err("{\"messageStart\": {}}\n{\"contentBlockDelta\": {\"delta\": {\"text\": \"a\"}, \"contentBlockIndex\": 1}}\n"),
            "line 2 (contentBlockDelta): block 1 starts where block 0 was due"
        );
        assert_eq!(
            err("{\"contentBlockDelta\": {\"delta\": {\"toolUse\": {\"input\": \"{\"}}, \"contentBlockIndex\": 0}}\n"),
            "line 1 (contentBlockDelta): a toolUse delta in a block no toolUse start opened"
        );
        assert_eq!(
            err(
                "{\"contentBlockStart\": {\"start\": {\"image\": {}}, \"contentBlockIndex\": 0}}\n"
            ),
            "line 1 (contentBlockStart): a image block is not read from a stream"
        );
        assert_eq!(
            err("{\"message\": }\n"),
            "line 1: expected value at line 1 column 13"
        );
        assert_eq!(
            err("{\"modelStreamErrorException\": {\"message\": \"Model failed.\", \"originalStatusCode\": 424, \"originalMessage\": \"bad\"}}\n"),
            "the provider answered with an error: modelStreamErrorException: Model failed. (the model's status 424: bad)"
        );
        assert_eq!(
            err("{\"message\": \"The security token included in the request is invalid.\"}"),
            "the provider answered with an error: error: The security token included in the request is invalid."
        );
    }

    #[test]
    fn truncations_say_what_is_missing() {
        let err = |t: &str| read(t).unwrap_err().to_string();
        assert_eq!(
            err(""),
            "the stream ended early: it lacks messageStart and messageStop"
        );
        let cut = REASONING
            .find("{\"contentBlockStop\": {\"contentBlockIndex\": 1}}")
            .unwrap();
        assert_eq!(
            err(&REASONING[..cut]),
            "the stream ended early: it lacks contentBlockStop for block 1 and messageStop"
        );
        assert_eq!(
            err(&REASONING[..REASONING.len() - 3]),
            "the stream ended early: it lacks messageStop and the rest of line 9 \"{\\\"messageStop\\\": {\\\"stopReason\\\": \\\"end_turn\\\"\""
        );
        // The last line's end alone missing: the line stands.
        assert_eq!(
            read(&REASONING[..REASONING.len() - 1]).unwrap(),
            read(REASONING).unwrap()
        );
    }
}
