//! An OpenAI Responses response, non-streamed or streamed, as one
//! assistant record.
//!
//! The body is the `response` object of
//! <https://platform.openai.com/docs/api-reference/responses/object> (read
//! 2026-12-01): `{"id", "object": "response", "status", "output": [items],
//! "incomplete_details", "error", "usage", …}`; an error answer is
//! `{"error": {"message", "type", "param", "code"}}`.
//!
//! | response | assistant envelope |
//! |---|---|
//! | `message` items: `output_text` parts | the text, joined by `\n` |
//! | `message` items: `refusal` parts | `refusal` (joined by `\n`), and the text too, on its own line |
//! | `function_call` items | `tool_calls`: its `call_id` (what the `function_call_output` answers) as the id, `name`, `arguments` (a JSON string: its text, which must be JSON) |
//! | `reasoning` items (with `encrypted_content`) and every other item (`web_search_call`, `file_search_call`, …) | `openai_items`, as the body wrote them, as the request reader keeps them ([`ITEMS`](super::read::ITEMS)); written back first in the turn for Responses |
//! | `status` and `incomplete_details` | `stop_reason`: `"completed"`, or for an `incomplete` response its `incomplete_details.reason` (`"max_output_tokens"`, `"content_filter"`, …; `"incomplete"` when none is given), or `"cancelled"` |
//! | `usage` | `usage`, the provider's object |
//!
//! The stop reason is the documented signal: Responses has no
//! `finish_reason`; `status` says whether the response completed, and
//! `incomplete_details.reason` why one stopped short. A call is not a stop
//! reason of its own (a turn with calls is `"completed"`, its calls say the
//! rest). A `failed` response is the provider's error (its `error`'s code
//! and message); one still `in_progress` or `queued` has no output yet and
//! is refused.
//!
//! Items and `usage` are read as raw JSON text: key order, number
//! spellings and escapes are kept; only white space between tokens is
//! dropped, so a pretty-printed body and a stream give the same record. A
//! message's `id`, `status` and parts of other types (`output_text`'s
//! `annotations` and `logprobs` with it), and a call's item `id` and
//! `status`, are not kept. The stream reader is
//! [`OpenAiResponsesStream`](super::stream::OpenAiResponsesStream).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::apis::openai_chat::response::{json_str, present, ApiError, Reply};
use crate::history::AssistantTurn;
use crate::json::minify;
use crate::steps::response::{looks_like_sse, ResponseError, ResponseForm};

/// A body, or the `response` of a stream's `response.*` event.
#[derive(Deserialize)]
pub(crate) struct ResponseObject<'a> {
    #[serde(borrow, default)]
    pub object: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub incomplete_details: Option<Incomplete<'a>>,
    #[serde(borrow, default)]
    pub output: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    pub usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
pub(crate) struct Incomplete<'a> {
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
}

/// What every item is read as first.
#[derive(Deserialize)]
struct ItemHead<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Vec<PartHead<'a>>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct PartHead<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    refusal: Option<Cow<'a, str>>,
}

/// Add one complete output item to `reply`.
pub(crate) fn item(reply: &mut Reply, raw: &str) -> Result<(), String> {
    let head: ItemHead<'_> = serde_json::from_str(raw).map_err(|e| e.to_string())?;
    match head.kind.as_deref() {
        Some("message") => {
            for (p, part) in head.content.into_iter().flatten().enumerate() {
                match part.kind.as_deref() {
                    Some("output_text") => reply.text.push(
                        part.text
                            .ok_or_else(|| format!("content[{p}]: an output_text without `text`"))?
                            .into_owned(),
                    ),
                    Some("refusal") => reply.refusal.push(
                        part.refusal
                            .ok_or_else(|| format!("content[{p}]: a refusal without `refusal`"))?
                            .into_owned(),
                    ),
                    _ => {}
                }
            }
        }
        Some("function_call") => {
            let call_id = head.call_id.ok_or("a function_call without `call_id`")?;
            let name = head.name.ok_or("a function_call without `name`")?;
            // A JSON string, as documented; any other value (as a server
            // may send) as its JSON text.
            let arguments = match head.arguments.map(RawValue::get) {
                None | Some("null") => String::new(),
                Some(raw) => serde_json::from_str::<String>(raw).unwrap_or_else(|_| minify(raw)),
            };
            reply
                .calls
                .push((call_id.into_owned(), name.into_owned(), arguments));
        }
        Some(_) => reply.items.push(minify(raw)),
        None => return Err("an item without `type`".into()),
    }
    Ok(())
}

/// The stop reason for a response's `status` and `incomplete_details`
/// (see the module's documentation), as JSON text; a `failed` response is
/// its error.
pub(crate) fn stop_reason(response: &ResponseObject<'_>) -> Result<Option<String>, ResponseError> {
    let Some(status) = response.status.as_deref() else {
        return Ok(None);
    };
    let reason = match status {
        "failed" => return Err(failure(response.error)),
        "in_progress" | "queued" => {
            return Err(ResponseError::Shape {
                at: "the response".into(),
                reason: format!("its status is {status:?}: it has no output yet"),
            })
        }
        "incomplete" => response
            .incomplete_details
            .as_ref()
            .and_then(|d| d.reason.as_deref())
            .unwrap_or("incomplete"),
        other => other,
    };
    Ok(Some(json_str(reason)))
}

/// A failed response's error (`{"code", "message"}`).
pub(crate) fn failure(error: Option<&RawValue>) -> ResponseError {
    let error = error
        .filter(|e| e.get() != "null")
        .and_then(|e| serde_json::from_str::<ApiError<'_>>(e.get()).ok());
    match error {
        Some(error) => error.into_error(),
        None => ResponseError::Provider {
            kind: "failed".into(),
            message: "the response failed and gave no error".into(),
        },
    }
}

/// Which form of Responses response `text` is: an event stream, or an
/// object whose `object` is `response`, or holding an `error` object and no
/// `input` (a request body has neither).
pub(crate) fn sniff(text: &str) -> Option<ResponseForm> {
    if looks_like_sse(text) {
        return Some(ResponseForm::Stream);
    }
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        object: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        error: Option<&'a RawValue>,
        #[serde(borrow, default)]
        input: Option<&'a RawValue>,
    }
    let head: Head<'_> = serde_json::from_str(text).ok()?;
    let error = head.error.is_some_and(|e| e.get().starts_with('{'));
    (head.object.as_deref() == Some("response") || (error && head.input.is_none()))
        .then_some(ResponseForm::Body)
}

/// Read a Responses response body (not streamed) as one assistant turn.
///
/// # Errors
/// [`ResponseError::Provider`] for an error body or a `failed` response
/// (its type, code and message), [`ResponseError::Shape`] for text that is
/// not a response, a response still in progress, an item of a broken
/// shape, or a `function_call` whose arguments are not JSON (naming the
/// call).
pub fn from_openai_responses_response(text: &str) -> Result<AssistantTurn, ResponseError> {
    let shape = |reason: String| ResponseError::Shape {
        at: "the response body".into(),
        reason,
    };
    let body: ResponseObject<'_> = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
    match body.object.as_deref() {
        Some("response") => {}
        Some(other) => return Err(shape(format!("a {other:?} object is not a response"))),
        None => {
            return Err(match body.error.filter(|e| e.get() != "null") {
                Some(error) => failure(Some(error)),
                None => shape("no \"object\": not a Responses response".into()),
            })
        }
    }
    let stop_reason = stop_reason(&body)?;
    let mut reply = Reply::default();
    for (i, raw) in body.output.into_iter().flatten().enumerate() {
        item(&mut reply, raw.get()).map_err(|e| shape(format!("output[{i}]: {e}")))?;
    }
    reply.stop_reason = stop_reason;
    reply.usage = present(body.usage);
    reply.into_turn("function_call")
}

#[cfg(test)]
mod tests {
    use super::*;

    const REASONING: &str = r#"{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Look first."}],"encrypted_content":"gAAAAB=="}"#;

    #[test]
    fn a_body_with_reasoning_text_and_a_call() {
        let body = format!(
            r#"{{"id":"resp_1","object":"response","status":"completed","error":null,"incomplete_details":null,
            "output":[{REASONING},
              {{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{{"type":"output_text","text":"Looking.","annotations":[]}}]}},
              {{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"shot","arguments":"{{\"display\": 1}}"}}],
            "usage":{{"input_tokens":10,"output_tokens":5,"total_tokens":15}}}}"#
        );
        let turn = from_openai_responses_response(&body).unwrap();
        assert_eq!(
            turn.to_json(),
            format!(
                concat!(
                    r#"{{"content":"Looking.","tool_calls":[{{"id":"call_1","name":"shot","arguments":{{"display": 1}}}}],"#,
                    r#""openai_items":[{}],"stop_reason":"completed","usage":{{"input_tokens":10,"output_tokens":5,"total_tokens":15}}}}"#
                ),
                REASONING
            )
        );
    }

    #[test]
    fn the_stop_reason_is_status_and_incomplete_details() {
        let stop = |status: &str, details: &str| {
            let body = format!(
                r#"{{"object":"response","status":"{status}","incomplete_details":{details},"output":[]}}"#
            );
            from_openai_responses_response(&body).map(|t| t.members()[0].1.clone())
        };
        assert_eq!(stop("completed", "null").unwrap(), r#""completed""#);
        assert_eq!(
            stop("incomplete", r#"{"reason":"max_output_tokens"}"#).unwrap(),
            r#""max_output_tokens""#
        );
        assert_eq!(
            stop("incomplete", r#"{"reason":"content_filter"}"#).unwrap(),
            r#""content_filter""#
        );
        assert_eq!(stop("incomplete", "null").unwrap(), r#""incomplete""#);
        assert_eq!(stop("cancelled", "null").unwrap(), r#""cancelled""#);
        assert_eq!(
            stop("in_progress", "null").unwrap_err().to_string(),
            "the response: its status is \"in_progress\": it has no output yet"
        );
    }

    #[test]
    fn errors_say_what_they_are() {
        let err = |t: &str| from_openai_responses_response(t).unwrap_err().to_string();
        assert_eq!(
            err(
                r#"{"object":"response","status":"failed","error":{"code":"server_error","message":"Something went wrong."},"output":[]}"#
            ),
            "the provider answered with an error: server_error: Something went wrong."
        );
        assert_eq!(
            err(r#"{"error":{"message":"Invalid 'input[0]'.","type":"invalid_request_error","param":"input[0]","code":null}}"#),
            "the provider answered with an error: invalid_request_error: Invalid 'input[0]'. (param: input[0])"
        );
        assert_eq!(
            err(r#"{"model":"m","input":[]}"#),
            "the response body: no \"object\": not a Responses response"
        );
        assert_eq!(
            err(
                r#"{"object":"response","status":"completed","output":[{"type":"function_call","name":"f"}]}"#
            ),
            "the response body: output[0]: a function_call without `call_id`"
        );
        assert_eq!(
            err(r#"{"object":"response","status":"completed","output":[{"type":"function_call","call_id":"call_7","name":"f","arguments":"{"}]}"#),
            "the arguments of function_call \"call_7\": EOF while parsing an object at line 1 column 1"
        );
    }

    #[test]
    fn refusals_and_sniffing() {
        let body = r#"{"object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]}]}"#;
        assert_eq!(
            from_openai_responses_response(body).unwrap().to_json(),
            r#"{"content":"I can't help with that.","tool_calls":[],"refusal":"I can't help with that.","stop_reason":"completed"}"#
        );
        assert_eq!(sniff(body), Some(ResponseForm::Body));
        assert_eq!(
            sniff("event: response.created\n"),
            Some(ResponseForm::Stream)
        );
        assert_eq!(
            sniff(r#"{"error":{"message":"x"}}"#),
            Some(ResponseForm::Body)
        );
        assert_eq!(sniff(r#"{"model":"m","input":"Hi."}"#), None);
        assert_eq!(sniff(r#"[{"role":"user","content":"Hi."}]"#), None);
    }
}
