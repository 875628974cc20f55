//! An OpenAI Responses stream (`"stream": true`) read into the same
//! assistant record as the non-streamed body of that response.
//!
//! The events are <https://platform.openai.com/docs/api-reference/responses-streaming>
//! (read 2026-12-01), each a `data:` object with a `type`:
//! `response.created` (the response, its `output` empty), then per output
//! item `response.output_item.added`, its pieces
//! (`response.content_part.added/done`, `response.output_text.delta/done`,
//! `response.refusal.delta/done`,
//! `response.function_call_arguments.delta/done`,
//! `response.reasoning_summary_part.added/done`,
//! `response.reasoning_summary_text.delta/done`, …) and
//! `response.output_item.done` (the complete item), then one of
//! `response.completed`, `response.incomplete` (the final response: status,
//! `incomplete_details`, `usage`) or `response.failed`; an `error` event
//! ends the stream.
//!
//! Each item is read from its `response.output_item.done`, which holds the
//! complete item as the body has it: the pieces the deltas carried, joined,
//! and a reasoning item's `encrypted_content`, which the SDK documents as
//! complete only there (`ResponseReasoningItemParam`, `openai` 3.57.0). The
//! delta events are read as events (a broken one is an error) and add
//! nothing the done item lacks. Items are ordered by `output_index`; a
//! stream whose events carry none takes the final response's `output`.
//! Events of other types are skipped (new ones may be added). The stop
//! reason and `usage` come from the final response, as in a body
//! ([`response`](super::response)).
//!
//! A stream that ends before `response.completed` or
//! `response.incomplete`, or with an item added and never done, was cut:
//! [`ResponseError::Truncated`] names what it lacks. `response.failed` and
//! `error` are the provider's errors.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::apis::openai_chat::response::{present, ApiError, Reply};
use crate::history::AssistantTurn;
use crate::json::minify;
use crate::steps::response::{lacking, ResponseError};
use crate::steps::sse::{Events, SseEvent};

use super::response::{failure, item, stop_reason, ResponseObject};

/// Reads a Responses event stream as its bytes arrive:
/// pushed in pieces cut anywhere, then finished (through
/// [`Sse`](crate::steps::sse::Sse)).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::OpenAiResponses)?;
/// stream.push(b"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n")?;
/// stream.push(b"data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Hi\"}]}}\n\n")?;
/// stream.push(b"data: {\"type\":\"response.completed\",\"response\":{\"object\":\"response\",\"status\":\"completed\",\"output\":[]}}\n\n")?;
/// assert_eq!(stream.finish()?.to_json(), r#"{"content":"Hi","tool_calls":[],"stop_reason":"completed"}"#);
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
#[derive(Debug, Default)]
pub struct OpenAiResponsesStream {
    events: usize,
    created: bool,
    ended: bool,
    /// By `output_index`: the done item's JSON text, or `None` while open.
    items: BTreeMap<u64, Option<String>>,
    /// The final response's `output`, for a stream without item events.
    output: Vec<String>,
    stop_reason: Option<String>,
    usage: Option<String>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
    #[serde(default)]
    output_index: Option<u64>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    // An `error` event's own members.
    #[serde(borrow, default)]
    code: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    param: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

impl Events for OpenAiResponsesStream {
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
        if self.ended {
            return Ok(());
        }
        let response = |raw| parse_response(raw).map_err(|e| shape(kind, e));
        match kind {
            "response.created" | "response.in_progress" | "response.queued" => {
                response(event.response)?;
                self.created = true;
            }
            "response.output_item.added" | "response.output_item.done" => {
                let index = event
                    .output_index
                    .ok_or_else(|| shape(kind, "no `output_index`".into()))?;
                let raw = event
                    .item
                    .filter(|i| i.get().starts_with('{'))
                    .ok_or_else(|| shape(kind, "no `item` object".into()))?;
                if kind == "response.output_item.done" {
                    self.items.insert(index, Some(minify(raw.get())));
                } else if self.items.get(&index).is_some_and(Option::is_some) {
                    return Err(shape(kind, format!("output item {index} is already done")));
                } else {
                    self.items.insert(index, None);
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = response(event.response)?;
                self.stop_reason = stop_reason(&response)?;
                self.usage = present(response.usage);
                self.output = response
                    .output
                    .into_iter()
                    .flatten()
                    .map(|i| minify(i.get()))
                    .collect();
                self.ended = true;
            }
            "response.failed" => return Err(failure(response(event.response)?.error)),
            "error" => {
                // `{"type": "error", "code", "message", "param"}`, or the
                // error object nested as `error`.
                if let Some(error) = event.error.filter(|e| e.get().starts_with('{')) {
                    return Err(failure(Some(error)));
                }
                return Err(ApiError {
                    message: event.message,
                    kind: None,
                    code: event.code,
                    param: event.param,
                }
                .into_error());
            }
            // The pieces, and event types added later.
            _ => {}
        }
        Ok(())
    }

    /// The assistant turn, once the stream ended.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] naming what the stream lacks
    /// (`response.created`, an item's `response.output_item.done`,
    /// `response.completed`), a `function_call` whose arguments are not
    /// JSON, or the error a push returned.
    fn end(self, half_line: Option<String>) -> Result<AssistantTurn, ResponseError> {
        let mut missing = Vec::new();
        if !self.created {
            missing.push("response.created".to_owned());
        }
        for (index, done) in &self.items {
            if done.is_none() {
                missing.push(format!("response.output_item.done for output item {index}"));
            }
        }
        if !self.ended {
            missing.push("response.completed (or response.incomplete)".to_owned());
        }
        lacking(missing, half_line)?;
        let items: Vec<String> = if self.items.is_empty() {
            self.output
        } else {
            self.items.into_values().flatten().collect()
        };
        let mut reply = Reply::default();
        for (i, raw) in items.iter().enumerate() {
            item(&mut reply, raw).map_err(|reason| ResponseError::Shape {
                at: format!("output item {i}"),
                reason,
            })?;
        }
        reply.stop_reason = self.stop_reason;
        reply.usage = self.usage;
        reply.into_turn("function_call")
    }
}

impl OpenAiResponsesStream {}

/// An event's `response` object.
fn parse_response(raw: Option<&RawValue>) -> Result<ResponseObject<'_>, String> {
    let raw = raw.ok_or("no `response`")?;
    serde_json::from_str(raw.get()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::response::ResponseStream;
    use crate::steps::sse::Sse;

    fn read(text: &str) -> Result<AssistantTurn, ResponseError> {
        let mut s = Box::new(Sse::<OpenAiResponsesStream>::default());
        s.push(text.as_bytes())?;
        s.finish()
    }

    #[test]
    fn cut_streams_and_errors() {
        let err = |t: &str| read(t).unwrap_err().to_string();
        assert_eq!(
            err(""),
            "the stream ended early: it lacks response.created and response.completed (or response.incomplete)"
        );
        let created = "data: {\"type\":\"response.created\",\"response\":{\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n";
        let added = "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[]}}\n\n";
        assert_eq!(
            err(&format!("{created}{added}")),
            "the stream ended early: it lacks response.output_item.done for output item 0 and response.completed (or response.incomplete)"
        );
        assert_eq!(
            err(&format!("{created}data: {{\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down.\",\"param\":null,\"sequence_number\":1}}\n\n")),
            "the provider answered with an error: rate_limit_exceeded: Slow down."
        );
        assert_eq!(
            err(&format!("{created}data: {{\"type\":\"response.failed\",\"response\":{{\"object\":\"response\",\"status\":\"failed\",\"error\":{{\"code\":\"server_error\",\"message\":\"Oops.\"}},\"output\":[]}}}}\n\n")),
            "the provider answered with an error: server_error: Oops."
        );
        assert_eq!(
            err(&format!(
                "{created}data: {{\"type\":\"response.output_item.done\",\"item\":{{}}}}\n\n"
            )),
            "event 2 (response.output_item.done): no `output_index`"
        );
    }

    #[test]
    fn an_incomplete_response_and_output_from_the_final_event() {
        let stream = concat!(
            "data: {\"type\":\"response.created\",\"response\":{\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n",
            "data: {\"type\":\"response.incomplete\",\"response\":{\"object\":\"response\",\"status\":\"incomplete\",",
            "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},",
            "\"output\":[{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Half\"}]}],",
            "\"usage\":{\"input_tokens\":3,\"output_tokens\":16}}}\n\n",
        );
        assert_eq!(
            read(stream).unwrap().to_json(),
            r#"{"content":"Half","tool_calls":[],"stop_reason":"max_output_tokens","usage":{"input_tokens":3,"output_tokens":16}}"#
        );
    }
}
