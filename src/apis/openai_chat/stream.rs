//! An OpenAI Chat Completions stream (`"stream": true`) read into the same
//! assistant record as the non-streamed body of that completion.
//!
//! The events are <https://platform.openai.com/docs/api-reference/chat-streaming>
//! (read 2026-12-01): `data: {…}` lines, each a `chat.completion.chunk`
//! whose `choices[].delta` holds the next piece (`content`, `refusal`,
//! `tool_calls` pieces), `finish_reason` set on the last chunk of a choice,
//! then, when the request set `stream_options.include_usage`, one chunk
//! with empty `choices` and the `usage`; `data: [DONE]` ends the stream.
//! A `data:` holding an `error` object is the provider's error.
//!
//! Text and refusal are the deltas joined. A tool call is gathered by its
//! `index`: the first piece names its `id`, `type` and `function.name`,
//! the `function.arguments` pieces are joined (an `id` or name sent again
//! unchanged, as some compatible servers do, is not doubled). Chunks of
//! choices other than 0 are skipped (only choice 0 makes the record). A
//! stream that ends without `[DONE]`, or without choice 0's
//! `finish_reason`, was cut: [`ResponseError::Truncated`] names what it
//! lacks.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::steps::response::{lacking, ResponseError};
use crate::steps::sse::{whole_json, Events, SseEvent};

use super::response::{function_only, present, ApiError, Call, Reply, LEGACY_CALL};

/// Reads a Chat Completions event stream as its bytes arrive:
/// pushed in pieces cut anywhere, then finished (through
/// [`Sse`](crate::steps::sse::Sse)).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::OpenAiChat)?;
/// stream.push(b"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"}}]}\n\n")?;
/// stream.push(b"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")?;
/// assert_eq!(stream.finish()?.to_json(), r#"{"content":"Hi","tool_calls":[],"stop_reason":"stop"}"#);
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
#[derive(Debug, Default)]
pub struct OpenAiChatStream {
    events: usize,
    done: bool,
    content: String,
    refusal: String,
    /// By `index`.
    calls: BTreeMap<u64, Gathered>,
    finish_reason: Option<String>,
    usage: Option<String>,
}

#[derive(Debug, Default)]
struct Gathered {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    choices: Option<Vec<ChunkChoice<'a>>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ChunkChoice<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    refusal: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<Call<'a>>>,
    #[serde(borrow, default)]
    function_call: Option<&'a RawValue>,
}

impl Events for OpenAiChatStream {
    fn whole(data: &str) -> bool {
        data == "[DONE]" || whole_json(data)
    }

    fn event(&mut self, sse: &SseEvent) -> Result<(), ResponseError> {
        self.events += 1;
        if self.done {
            return Ok(());
        }
        if sse.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let n = self.events;
        let shape = |reason: String| ResponseError::Shape {
            at: format!("event {n}"),
            reason,
        };
        let chunk: Chunk<'_> = serde_json::from_str(&sse.data).map_err(|e| shape(e.to_string()))?;
        if let Some(error) = chunk.error.filter(|e| e.get() != "null") {
            let error: ApiError<'_> =
                serde_json::from_str(error.get()).map_err(|e| shape(format!("error: {e}")))?;
            return Err(error.into_error());
        }
        for (c, choice) in chunk.choices.into_iter().flatten().enumerate() {
            if choice.index.unwrap_or(c as u64) != 0 {
                continue;
            }
            if let Some(reason) = present(choice.finish_reason) {
                self.finish_reason = Some(reason);
            }
            let Some(delta) = choice.delta else {
                continue;
            };
            if delta.function_call.is_some_and(|f| f.get() != "null") {
                return Err(shape(LEGACY_CALL.into()));
            }
            self.content
                .push_str(delta.content.as_deref().unwrap_or(""));
            self.refusal
                .push_str(delta.refusal.as_deref().unwrap_or(""));
            for call in delta.tool_calls.into_iter().flatten() {
                self.call(call).map_err(&shape)?;
            }
        }
        if let Some(usage) = present(chunk.usage) {
            self.usage = Some(usage);
        }
        Ok(())
    }

    /// The assistant turn, once the stream ended.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] naming what the stream lacks (choice
    /// 0's `finish_reason`, `data: [DONE]`), a call whose arguments are not
    /// JSON, or the error a push returned.
    fn end(self, half_line: Option<String>) -> Result<AssistantTurn, ResponseError> {
        let mut missing = Vec::new();
        if self.finish_reason.is_none() {
            missing.push("finish_reason for choice 0".to_owned());
        }
        if !self.done {
            missing.push("data: [DONE]".to_owned());
        }
        lacking(missing, half_line)?;
        let reply = Reply {
            text: vec![self.content],
            refusal: vec![self.refusal],
            calls: self
                .calls
                .into_values()
                .map(|c| (c.id, c.name, c.arguments))
                .collect(),
            items: Vec::new(),
            stop_reason: self.finish_reason,
            usage: self.usage,
        };
        reply.into_turn("call")
    }
}

impl OpenAiChatStream {
    /// Take one call piece. A piece without `index` (some compatible
    /// servers) continues the last call, or starts the next one when it
    /// names an id of its own.
    fn call(&mut self, piece: Call<'_>) -> Result<(), String> {
        function_only(piece.kind.as_deref())?;
        let last = self.calls.keys().next_back().copied();
        let index = match (piece.index, last) {
            (Some(index), _) => index,
            (None, None) => 0,
            (None, Some(last)) => {
                let new_id = piece
                    .id
                    .as_deref()
                    .is_some_and(|id| !id.is_empty() && self.calls[&last].id != id);
                if new_id {
                    last + 1
                } else {
                    last
                }
            }
        };
        let call = self.calls.entry(index).or_default();
        if let Some(id) = piece.id.as_deref() {
            grow(&mut call.id, id);
        }
        if let Some(function) = piece.function {
            if let Some(name) = function.name.as_deref() {
                grow(&mut call.name, name);
            }
            call.arguments
                .push_str(function.arguments.as_deref().unwrap_or(""));
        }
        Ok(())
    }
}

/// `piece` appended to `field`, unless it repeats `field` whole.
fn grow(field: &mut String, piece: &str) {
    if field != piece {
        field.push_str(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::response::ResponseStream;
    use crate::steps::sse::Sse;

    fn read(text: &str) -> Result<AssistantTurn, ResponseError> {
        let mut s = Box::new(Sse::<OpenAiChatStream>::default());
        s.push(text.as_bytes())?;
        s.finish()
    }

    const CALLS: &str = concat!(
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"shot\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"x\\\":\"}}]}}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other choice\"}}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]}}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn calls_are_gathered_by_index() {
        assert_eq!(
            read(CALLS).unwrap().to_json(),
            concat!(
                r#"{"content":null,"tool_calls":[{"id":"call_a","name":"shot","arguments":{"x":1}},{"id":"call_b","name":"read","arguments":{}}],"#,
                r#""stop_reason":"tool_calls","usage":{"prompt_tokens":5,"completion_tokens":2}}"#
            )
        );
    }

    #[test]
    fn pieces_without_an_index_and_repeated_ids() {
        let stream = concat!(
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"arguments\":\":1}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"c2\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n",
        );
        let turn = read(stream).unwrap();
        let calls: Vec<(&str, &str, &str)> = turn
            .calls()
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, [("c1", "f", r#"{"a":1}"#), ("c2", "g", "{}")]);
    }

    #[test]
    fn cut_streams_and_errors() {
        let err = |t: &str| read(t).unwrap_err().to_string();
        let done = CALLS.find("data: [DONE]").unwrap();
        assert_eq!(
            err(&CALLS[..done]),
            "the stream ended early: it lacks data: [DONE]"
        );
        let finish = CALLS.find("data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish").unwrap();
        assert_eq!(
            err(&CALLS[..finish]),
            "the stream ended early: it lacks finish_reason for choice 0 and data: [DONE]"
        );
        assert_eq!(
            err("data: [DONE]\n\n"),
            "the stream ended early: it lacks finish_reason for choice 0"
        );
        assert_eq!(
            err("data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"server_error\",\"code\":null}}\n\n"),
            "the provider answered with an error: server_error: Overloaded"
        );
        let bad = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_x\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
        assert_eq!(
            err(bad),
            "the arguments of call \"call_x\": EOF while parsing a value at line 1 column 5"
        );
        assert_eq!(err("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"type\":\"custom\"}]}}]}\n\n"),
            "event 1: a \"custom\" tool call is not read (only function calls are)");
    }
}
