//! An Anthropic Messages response, non-streamed or streamed, as one
//! assistant record.
//!
//! The body is <https://platform.claude.com/docs/en/api/messages> (read
//! 2026-12-01): `{"id", "type": "message", "role": "assistant", "content":
//! [blocks], "stop_reason", "stop_sequence", "usage"}`; an error is `{"type":
//! "error", "error": {"type", "message"}}`
//! (<https://platform.claude.com/docs/en/api/errors>, read 2026-12-01).
//!
//! | response | assistant envelope |
//! |---|---|
//! | `text` blocks | the text, joined by `\n` |
//! | `tool_use` blocks | `tool_calls`, `input` kept as its raw JSON text |
//! | `thinking` / `redacted_thinking` blocks | `anthropic_thinking`, as the body wrote them |
//! | other blocks (server tools, their results) | `anthropic_blocks`, as the body wrote them |
//! | `stop_reason` (`end_turn`, `tool_use`, `refusal`, …) | `stop_reason`, the provider's string |
//! | `stop_sequence` (when one ended the turn) | `stop_sequence` |
//! | `usage` | `usage`, the provider's object |
//!
//! Blocks and `usage` are read as raw JSON text: key order, number
//! spellings and escapes are kept; only white space between tokens is
//! dropped, so a pretty-printed body and a stream give the same record.
//! The stream reader is [`AnthropicStream`](super::stream::AnthropicStream).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::json::minify;
pub(crate) use crate::steps::response::Members;
use crate::steps::response::{assistant_turn, looks_like_sse, ResponseError, ResponseForm};

use super::read::{BLOCKS, THINKING};

/// The member that keeps the provider's stop reason.
pub const STOP_REASON: &str = "stop_reason";
/// The member that keeps which stop sequence ended the turn (Anthropic's
/// `stop_sequence`, when one did).
pub const STOP_SEQUENCE: &str = "stop_sequence";
/// The member that keeps the provider's token usage.
pub const USAGE: &str = "usage";

/// A response body, or the `message` of a stream's `message_start`.
#[derive(Deserialize)]
pub(crate) struct Message<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub error: Option<ErrorBody<'a>>,
    #[serde(borrow, default)]
    pub content: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    pub stop_reason: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub stop_sequence: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub usage: Option<&'a RawValue>,
}

/// `{"type", "message"}` of an error body or event.
#[derive(Deserialize)]
pub(crate) struct ErrorBody<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub message: Cow<'a, str>,
}

impl ErrorBody<'_> {
    pub fn into_error(self) -> ResponseError {
        ResponseError::Provider {
            kind: self.kind.into_owned(),
            message: self.message.into_owned(),
        }
    }
}

/// What every block is read as first: its type and the members the
/// record takes from it.
#[derive(Deserialize)]
pub(crate) struct BlockHead<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub input: Option<&'a RawValue>,
}

/// One block of the response, as the record takes it.
pub(crate) enum Part {
    Text(String),
    Call {
        id: String,
        name: String,
        input: String,
    },
    Thinking(String),
    Other(String),
}

/// The turn the parts, stop reason and usage make (all JSON text already
/// without white space). Both readers end here, so a stream and a body of
/// the same message give the same record.
pub(crate) fn turn(
    parts: Vec<Part>,
    stop_reason: Option<String>,
    stop_sequence: Option<String>,
    usage: Option<String>,
) -> Result<AssistantTurn, ResponseError> {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut others = Vec::new();
    for part in parts {
        match part {
            Part::Text(t) => text.push(t),
            Part::Call { id, name, input } => calls.push((id, name, input)),
            Part::Thinking(raw) => thinking.push(raw),
            Part::Other(raw) => others.push(raw),
        }
    }
    let members = [
        (THINKING, list(&thinking)),
        (BLOCKS, list(&others)),
        (STOP_REASON, stop_reason),
        (STOP_SEQUENCE, stop_sequence),
        (USAGE, usage),
    ];
    assistant_turn(text.join("\n"), calls, "the input of tool_use", members)
}

/// `[a,b,…]`, or nothing for no items.
fn list(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| format!("[{}]", items.join(",")))
}

/// A raw value that is not `null`, without white space.
pub(crate) fn present(raw: Option<&RawValue>) -> Option<String> {
    raw.map(RawValue::get).filter(|r| *r != "null").map(minify)
}

/// Which form of Messages response `text` is: an event stream, or an
/// object whose `type` is `message` or `error` (a request body has none).
pub(crate) fn sniff(text: &str) -> Option<ResponseForm> {
    if looks_like_sse(text) {
        return Some(ResponseForm::Stream);
    }
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<Cow<'a, str>>,
    }
    let head: Head<'_> = serde_json::from_str(text).ok()?;
    matches!(head.kind.as_deref(), Some("message" | "error")).then_some(ResponseForm::Body)
}

/// Read a Messages response body (not streamed) as one assistant turn.
///
/// # Errors
/// [`ResponseError::Provider`] for an error body (its type and message),
/// [`ResponseError::Shape`] for text that is not a response.
pub fn from_anthropic_response(text: &str) -> Result<AssistantTurn, ResponseError> {
    let shape = |reason: String| ResponseError::Shape {
        at: "the response body".into(),
        reason,
    };
    let message: Message<'_> = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
    if let Some(error) = message.error {
        return Err(error.into_error());
    }
    match message.kind.as_deref() {
        Some("message") => {}
        Some(other) => return Err(shape(format!("a {other:?} object is not a message"))),
        None => return Err(shape("no \"type\": not a Messages response".into())),
    }
    let content = message
        .content
        .ok_or_else(|| shape("missing field `content`".into()))?;
    let parts = content
        .into_iter()
        .enumerate()
        .map(|(b, raw)| part(raw).map_err(|reason| shape(format!("content[{b}]: {reason}"))))
        .collect::<Result<Vec<Part>, ResponseError>>()?;
    turn(
        parts,
        present(message.stop_reason),
        present(message.stop_sequence),
        present(message.usage),
    )
}

/// A complete block of a body.
fn part(raw: &RawValue) -> Result<Part, String> {
    let head: BlockHead<'_> = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    Ok(match &*head.kind {
        "text" => Part::Text(head.text.ok_or("a text block without `text`")?.into_owned()),
        "tool_use" => Part::Call {
            id: head.id.ok_or("a tool_use block without `id`")?.into_owned(),
            name: head
                .name
                .ok_or("a tool_use block without `name`")?
                .into_owned(),
            input: head.input.map_or_else(|| "{}".into(), |i| minify(i.get())),
        },
        "thinking" | "redacted_thinking" => Part::Thinking(minify(raw.get())),
        _ => Part::Other(minify(raw.get())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_with_text_a_call_and_thinking() {
        let body = r#"{"id":"msg_1","type":"message","role":"assistant","content":[
            {"type":"thinking","thinking":"Let me look.","signature":"EqQBCgIYAhIM"},
            {"type":"text","text":"Looking."},
            {"type":"tool_use","id":"toolu_1","name":"shot","input":{"z": 1, "a": 123456789012345678901234567890}}],
            "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}"#;
        let turn = from_anthropic_response(body).unwrap();
        assert_eq!(
            turn.to_json(),
            concat!(
                r#"{"content":"Looking.","tool_calls":[{"id":"toolu_1","name":"shot","arguments":{"z":1,"a":123456789012345678901234567890}}],"#,
                r#""anthropic_thinking":[{"type":"thinking","thinking":"Let me look.","signature":"EqQBCgIYAhIM"}],"#,
                r#""stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}"#
            )
        );
    }

    #[test]
    fn a_refusal_keeps_its_stop_reason_and_other_blocks_are_kept() {
        let body = r#"{"type":"message","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}],"stop_reason":"refusal","usage":null}"#;
        let turn = from_anthropic_response(body).unwrap();
        assert_eq!(
            turn.members(),
            [
                (
                    BLOCKS.to_owned(),
                    r#"[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}]"#.to_owned()
                ),
                (STOP_REASON.to_owned(), r#""refusal""#.to_owned())
            ]
        );
    }

    #[test]
    fn errors_say_what_they_are() {
        let err = |t: &str| from_anthropic_response(t).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "the provider answered with an error: overloaded_error: Overloaded"
        );
        assert_eq!(
            err(r#"{"model":"m","messages":[]}"#),
            "the response body: no \"type\": not a Messages response"
        );
        assert_eq!(
            err(r#"{"type":"message","content":[{"type":"tool_use","name":"x"}]}"#),
            "the response body: content[0]: a tool_use block without `id`"
        );
        assert!(err("[").starts_with("the response body: EOF"));
    }
}
