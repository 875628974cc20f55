//! A Bedrock Converse response, non-streamed or streamed, as one assistant
//! record: the members [`read`](super::read) keeps for the same message.
//!
//! The body is <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html>
//! (read 2026-12-02; the shapes as botocore's service model for
//! `bedrock-runtime` 2023-09-30 names them, `ConverseResponse`):
//! `{"output": {"message": {"role": "assistant", "content": [blocks]}},
//! "stopReason", "usage", "metrics", "additionalModelResponseFields"?}`.
//! A block holds one member: `text`, `toolUse` `{"toolUseId", "name",
//! "input"}`, `reasoningContent` `{"reasoningText": {"text",
//! "signature"?}}` or `{"redactedContent": base64}`, or another kind. An
//! error is the REST error body `{"message"}` (its kind in the
//! `x-amzn-ErrorType` header, or a `__type` member), or, as an AWS SDK
//! reports it, `{"Error": {"Code", "Message"}}`.
//!
//! | response | assistant envelope |
//! |---|---|
//! | `text` blocks | the text, joined by `\n` (empty ones skipped) |
//! | `toolUse` blocks | `tool_calls`, `input` kept as its raw JSON text |
//! | other blocks (`reasoningContent`, citations, …) | `bedrock_blocks`, as the body wrote them |
//! | `stopReason` (`end_turn`, `tool_use`, `max_tokens`, …) | `stop_reason`, the provider's string |
//! | `usage` | `usage`, the provider's object |
//!
//! Blocks and `usage` are read as raw JSON text: key order, number
//! spellings and escapes are kept; only white space between tokens is
//! dropped. `metrics` (latency), `trace` and
//! `additionalModelResponseFields` are not kept. The stream reader is
//! [`BedrockStream`](super::stream::BedrockStream).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::json::minify;
use crate::steps::response::{
    assistant_turn, leading_trimmed, top_members, ResponseError, ResponseForm,
};

use super::read::BLOCKS;

/// The member that keeps the stop reason (`import::STOP_REASON`).
const STOP_REASON: &str = "stop_reason";
/// The member that keeps the token usage (`import::USAGE`).
const USAGE: &str = "usage";

/// A `ConverseResponse`, or an error body.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    #[serde(borrow, default)]
    output: Option<Output<'a>>,
    #[serde(borrow, default)]
    stop_reason: Option<&'a RawValue>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Output<'a> {
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Vec<&'a RawValue>,
}

/// The members of an error: the REST body's `message` (or `Message`) and
/// `__type`, or an SDK's `Error` `{"Code", "Message"}`.
#[derive(Deserialize, Default)]
pub(crate) struct ErrorBody<'a> {
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(rename = "Message", borrow, default)]
    message_title: Option<Cow<'a, str>>,
    #[serde(rename = "__type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "Error", borrow, default)]
    sdk: Option<SdkError<'a>>,
}

#[derive(Deserialize, Default)]
struct SdkError<'a> {
    #[serde(rename = "Code", borrow, default)]
    code: Option<Cow<'a, str>>,
    #[serde(rename = "Message", borrow, default)]
    message: Option<Cow<'a, str>>,
}

impl ErrorBody<'_> {
    /// The error these members say, if they say one.
    pub(crate) fn error(self) -> Option<ResponseError> {
        if let Some(sdk) = self.sdk {
            return Some(ResponseError::Provider {
                kind: sdk.code.map_or_else(|| "error".into(), Cow::into_owned),
                message: sdk.message.map(Cow::into_owned).unwrap_or_default(),
            });
        }
        let message = self.message.or(self.message_title)?;
        // `__type` may name the shape with its namespace
        // (`com.amazon.…#ValidationException`).
        let kind = self.kind.map_or_else(
            || "error".to_owned(),
            |k| k.rsplit('#').next().unwrap_or_default().to_owned(),
        );
        Some(ResponseError::Provider {
            kind,
            message: message.into_owned(),
        })
    }
}

/// What a block is read as first.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockHead<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use: Option<ToolUse<'a>>,
    #[serde(borrow, default)]
    cache_point: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolUse<'a> {
    #[serde(borrow)]
    tool_use_id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
}

/// One block of the response, as the record takes it.
#[derive(Debug)]
pub(crate) enum Part {
    Text(String),
    Call {
        id: String,
        name: String,
        input: String,
    },
    /// Any other block, as JSON text without white space.
    Other(String),
}

/// The turn the parts, stop reason and usage make (all JSON text already
/// without white space). Both readers end here, so a stream and a body of
/// the same message give the same record.
pub(crate) fn turn(
    parts: Vec<Part>,
    stop_reason: Option<String>,
    usage: Option<String>,
) -> Result<AssistantTurn, ResponseError> {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut others = Vec::new();
    for part in parts {
        match part {
            Part::Text(t) if t.is_empty() => {}
            Part::Text(t) => text.push(t),
            Part::Call { id, name, input } => calls.push((id, name, input)),
            Part::Other(raw) => others.push(raw),
        }
    }
    let others = (!others.is_empty()).then(|| format!("[{}]", others.join(",")));
    let members = [(BLOCKS, others), (STOP_REASON, stop_reason), (USAGE, usage)];
    assistant_turn(text.join("\n"), calls, "the input of toolUse", members)
}

/// A raw value that is not `null`, without white space.
pub(crate) fn present(raw: Option<&RawValue>) -> Option<String> {
    raw.map(RawValue::get).filter(|r| *r != "null").map(minify)
}

/// The members of a ConverseStream event line (the event's name), the
/// exceptions among them.
pub(crate) const EVENTS: [&str; 11] = [
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
];

/// Which form of Converse response `text` is: a body (`output` or
/// `stopReason`, or an error's `message`, `__type` or `Error`; a request
/// has `messages`), or ConverseStream events as JSON Lines (a first line
/// whose member is an event's name).
pub(crate) fn sniff(text: &str) -> Option<ResponseForm> {
    let start = leading_trimmed(text);
    // An event is an object of one member, the event's name.
    let named = |m: &String| EVENTS.contains(&m.as_str());
    let is_event = |members: &[String]| matches!(members, [m] if named(m));
    if let Some(members) = top_members(start) {
        if is_event(&members) {
            return Some(ResponseForm::Stream);
        }
        // An event's name beside other members (another API's
        // `metadata`): no Converse body has one.
        if members.iter().any(named) {
            return None;
        }
        let body = [
            "output",
            "stopReason",
            "message",
            "Message",
            "__type",
            "Error",
        ];
        let is_body = !members.iter().any(|m| m == "messages")
            && members.iter().any(|m| body.contains(&m.as_str()));
        return is_body.then_some(ResponseForm::Body);
    }
    let first = start.lines().next()?;
    is_event(&top_members(first)?).then_some(ResponseForm::Stream)
}

/// Read a Converse response body (not streamed) as one assistant turn.
///
/// ```
/// use tool_carrier::import::from_response;
/// use tool_carrier::provider::Provider;
///
/// let body = r#"{"output": {"message": {"role": "assistant", "content": [
///     {"toolUse": {"toolUseId": "tooluse_1", "name": "shot", "input": {"page": 2}}}]}},
///     "stopReason": "tool_use", "usage": {"inputTokens": 9, "outputTokens": 4, "totalTokens": 13},
///     "metrics": {"latencyMs": 120}}"#;
/// let turn = from_response(Provider::Bedrock, body)?;
/// assert_eq!(
///     turn.to_json(),
///     r#"{"content":null,"tool_calls":[{"id":"tooluse_1","name":"shot","arguments":{"page":2}}],"stop_reason":"tool_use","usage":{"inputTokens":9,"outputTokens":4,"totalTokens":13}}"#
/// );
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
///
/// # Errors
/// [`ResponseError::Provider`] for an error body (its type and message),
/// [`ResponseError::Shape`] for text that is not a response.
pub fn from_bedrock_response(text: &str) -> Result<AssistantTurn, ResponseError> {
    let shape = |reason: String| ResponseError::Shape {
        at: "the response body".into(),
        reason,
    };
    let body: Body<'_> = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
    let message = match (body.output, body.stop_reason) {
        (Some(Output { message: Some(m) }), _) => m,
        (output, stop_reason) => {
            let error = serde_json::from_str::<ErrorBody<'_>>(text).ok();
            if let Some(error) = error.and_then(ErrorBody::error) {
                return Err(error);
            }
            return Err(shape(match (output, stop_reason) {
                (None, None) => "no `output`: not a Converse response".into(),
                _ => "no `output.message`".into(),
            }));
        }
    };
    let parts = message
        .content
        .into_iter()
        .enumerate()
        .filter_map(|(b, raw)| {
            part(raw)
                .map_err(|reason| shape(format!("output.message.content[{b}]: {reason}")))
                .transpose()
        })
        .collect::<Result<Vec<Part>, ResponseError>>()?;
    turn(parts, present(body.stop_reason), present(body.usage))
}

/// A whole block of a body (`None` for a cache point, which is the
/// request's, as the request reader leaves it out).
fn part(raw: &RawValue) -> Result<Option<Part>, String> {
    let head: BlockHead<'_> = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    Ok(Some(match (head.text, head.tool_use) {
        (Some(_), Some(_)) => {
            return Err("holds both `text` and `toolUse` (one kind to a block)".into())
        }
        (Some(text), None) => Part::Text(text.into_owned()),
        (None, Some(call)) => Part::Call {
            id: call.tool_use_id.into_owned(),
            name: call.name.into_owned(),
            input: call.input.map_or_else(|| "{}".into(), |i| minify(i.get())),
        },
        (None, None) if head.cache_point.is_some() => return Ok(None),
        (None, None) => Part::Other(minify(raw.get())),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_is_kept_as_the_body_wrote_it() {
        let body = r#"{"output": {"message": {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Check it.", "signature": "ErcBCkgIBxABGAIiQ"}}},
            {"text": "Checking."},
            {"toolUse": {"toolUseId": "tooluse_a", "name": "check", "input": {"z": 1, "a": 123456789012345678901234567890}}}]}},
            "stopReason": "tool_use", "usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}, "metrics": {"latencyMs": 9}}"#;
        assert_eq!(
            from_bedrock_response(body).unwrap().to_json(),
            concat!(
                r#"{"content":"Checking.","tool_calls":[{"id":"tooluse_a","name":"check","arguments":{"z":1,"a":123456789012345678901234567890}}],"#,
                r#""bedrock_blocks":[{"reasoningContent":{"reasoningText":{"text":"Check it.","signature":"ErcBCkgIBxABGAIiQ"}}}],"#,
                r#""stop_reason":"tool_use","usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5}}"#
            )
        );
    }

    #[test]
    fn errors_say_what_they_are() {
        let err = |t: &str| from_bedrock_response(t).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"message": "Too many requests, please wait before trying again."}"#),
            "the provider answered with an error: error: Too many requests, please wait before trying again."
        );
        assert_eq!(
            err(
                r#"{"__type": "com.amazon.coral.validate#ValidationException", "message": "Malformed input request."}"#
            ),
            "the provider answered with an error: ValidationException: Malformed input request."
        );
        assert_eq!(
            err(r#"{"Error": {"Code": "AccessDeniedException", "Message": "No access."}}"#),
            "the provider answered with an error: AccessDeniedException: No access."
        );
        assert_eq!(
            err(r#"{"messages": []}"#),
            "the response body: no `output`: not a Converse response"
        );
        assert_eq!(
            err(r#"{"output": {"message": {"content": [{"toolUse": {"name": "x"}}]}}}"#),
            "the response body: output.message.content[0]: missing field `toolUseId` at line 1 column 25"
        );
    }

    #[test]
    fn sniff_tells_responses_from_requests() {
        assert_eq!(sniff(r#"{"output": {}}"#), Some(ResponseForm::Body));
        assert_eq!(sniff(r#"{"message": "Denied."}"#), Some(ResponseForm::Body));
        assert_eq!(
            sniff("{\"messageStart\": {\"role\": \"assistant\"}}\n{\"contentBlockDelta\""),
            Some(ResponseForm::Stream)
        );
        assert_eq!(
            sniff(r#"{"throttlingException": {"message": "Slow down."}}"#),
            Some(ResponseForm::Stream)
        );
        assert_eq!(sniff(r#"{"messages": [], "system": []}"#), None);
        // Another API's request with its `metadata` is no stream event.
        assert_eq!(
            sniff(r#"{"model": "m", "metadata": {"user_id": "u"}, "messages": []}"#),
            None
        );
        assert_eq!(sniff(r#"[{"role": "user", "content": []}]"#), None);
    }
}
