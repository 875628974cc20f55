//! An OpenAI Chat Completions response, non-streamed or streamed, as one
//! assistant record; also what OpenAI-compatible servers answer.
//!
//! The body is the `chat.completion` object of
//! <https://platform.openai.com/docs/api-reference/chat/object> (read
//! 2026-12-01): `{"id", "object": "chat.completion", "choices": [{"index",
//! "message": {"role", "content", "refusal", "tool_calls": [{"id", "type":
//! "function", "function": {"name", "arguments"}}]}, "finish_reason"}],
//! "usage"}`; an error is `{"error": {"message", "type", "param", "code"}}`
//! (<https://platform.openai.com/docs/guides/error-codes>, read
//! 2026-12-01).
//!
//! | response | assistant envelope |
//! |---|---|
//! | `message.content` | the text |
//! | `message.refusal` | `refusal` (the string), and the text too (after the content, on its own line), so every provider is shown what the model said |
//! | `message.tool_calls` (`type` `function`) | `tool_calls`: `id`, `function.name`, `function.arguments` (a JSON string: its text, which must be JSON) |
//! | `finish_reason` (`stop`, `length`, `tool_calls`, `content_filter`) | `stop_reason`, the provider's string |
//! | `usage` | `usage`, the provider's object |
//!
//! **Only choice 0 makes the record.** A body asked with `n` > 1 holds
//! more choices: the one whose `index` is 0 is read and the others are
//! left out (a record is one assistant turn; a stream's chunks for other
//! choices are skipped the same way). A body without choice 0 is refused.
//! `logprobs`, `annotations` and `audio` are not kept. The legacy single
//! `function_call` and tool calls of another `type` (`custom`) are refused
//! (the record's calls take JSON arguments), so no call goes missing.
//!
//! `usage` is read as raw JSON text (key order, number spellings kept;
//! only white space dropped), so a pretty-printed body and its stream give
//! the same record. The stream reader is
//! [`OpenAiChatStream`](super::stream::OpenAiChatStream).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::json::{minify, push_json_str};
use crate::steps::envelope::OPENAI_ITEMS;
use crate::steps::response::{assistant_turn, looks_like_sse, ResponseError, ResponseForm};

/// The member that keeps the model's refusal (Chat's `refusal`, the
/// Responses `refusal` parts joined).
pub const REFUSAL: &str = "refusal";
/// The member that keeps the provider's stop reason (as Anthropic's
/// reader names it).
const STOP_REASON: &str = "stop_reason";
/// The member that keeps the provider's token usage.
const USAGE: &str = "usage";

/// What an OpenAI response said, gathered by a reader (Chat's or
/// Responses', a body's or a stream's) and made into one record by
/// [`Reply::into_turn`]: both forms of a response end here, so they give
/// the same record.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    /// The texts, in order (joined by `\n`).
    pub text: Vec<String>,
    /// The refusals, in order.
    pub refusal: Vec<String>,
    /// The calls: id, name, arguments as JSON text.
    pub calls: Vec<(String, String, String)>,
    /// Kept items (Responses), each its JSON text without white space.
    pub items: Vec<String>,
    /// The stop reason, JSON text.
    pub stop_reason: Option<String>,
    /// The usage, JSON text without white space.
    pub usage: Option<String>,
}

impl Reply {
    /// The record. `calls` names the calls in an error (`tool call`,
    /// `function_call`).
    pub fn into_turn(self, calls: &str) -> Result<AssistantTurn, ResponseError> {
        let mut text: Vec<&str> = self.text.iter().map(String::as_str).collect();
        let refusal = self.refusal.join("\n");
        if !refusal.is_empty() {
            text.push(&refusal);
        }
        text.retain(|t| !t.is_empty());
        let items = (!self.items.is_empty()).then(|| format!("[{}]", self.items.join(",")));
        let members = [
            (OPENAI_ITEMS, items),
            (REFUSAL, (!refusal.is_empty()).then(|| json_str(&refusal))),
            (STOP_REASON, self.stop_reason),
            (USAGE, self.usage),
        ];
        let calls_are = format!("the arguments of {calls}");
        assistant_turn(text.join("\n"), self.calls, &calls_are, members)
    }
}

/// `text` as a JSON string.
pub(crate) fn json_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_json_str(&mut out, text);
    out
}

/// A raw value that is not `null`, without white space.
pub(crate) fn present(raw: Option<&RawValue>) -> Option<String> {
    raw.map(RawValue::get).filter(|r| *r != "null").map(minify)
}

/// OpenAI's error object: `{"message", "type", "param", "code"}` (any of
/// them may be missing or `null`; a compatible server's `code` may be a
/// number).
#[derive(Debug, Deserialize)]
pub(crate) struct ApiError<'a> {
    #[serde(borrow, default)]
    pub message: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub code: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub param: Option<&'a RawValue>,
}

impl ApiError<'_> {
    /// The error: its type and code (`invalid_request_error
    /// (model_not_found)`), its message and the parameter it names.
    pub fn into_error(self) -> ResponseError {
        let text = |raw: Option<&RawValue>| -> Option<String> {
            let raw = raw?.get();
            match serde_json::from_str::<String>(raw) {
                Ok(s) => Some(s),
                Err(_) => (raw != "null").then(|| minify(raw)),
            }
            .filter(|s| !s.is_empty())
        };
        let kind = self.kind.map(Cow::into_owned).filter(|k| !k.is_empty());
        let kind = match (kind, text(self.code)) {
            (Some(kind), Some(code)) if kind != code => format!("{kind} ({code})"),
            (Some(kind), _) => kind,
            (None, Some(code)) => code,
            (None, None) => "error".to_owned(),
        };
        let mut message = self.message.map(Cow::into_owned).unwrap_or_default();
        if let Some(param) = text(self.param) {
            message.push_str(&format!(" (param: {param})"));
        }
        ResponseError::Provider { kind, message }
    }
}

/// A body: a `chat.completion`, or an error.
#[derive(Deserialize)]
struct Completion<'a> {
    #[serde(borrow, default)]
    object: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    choices: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: Option<u64>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    refusal: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<Call<'a>>>,
    #[serde(borrow, default)]
    function_call: Option<&'a RawValue>,
}

/// A call of a body's message, or a piece of one in a stream's delta.
#[derive(Deserialize)]
pub(crate) struct Call<'a> {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub function: Option<Function<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct Function<'a> {
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub arguments: Option<Cow<'a, str>>,
}

/// Refuse a call of another type than `function`.
pub(crate) fn function_only(kind: Option<&str>) -> Result<(), String> {
    match kind {
        None | Some("function") => Ok(()),
        Some(other) => Err(format!(
            "a {other:?} tool call is not read (only function calls are)"
        )),
    }
}

/// The legacy single call, refused.
pub(crate) const LEGACY_CALL: &str =
    "a legacy function_call is not read (the request named `functions`, not `tools`)";

/// Which form of Chat Completions response `text` is: an event stream, or
/// an object with `choices`, whose `object` is `chat.completion`, or
/// holding an `error` object (a request body has none of them).
pub(crate) fn sniff(text: &str) -> Option<ResponseForm> {
    if looks_like_sse(text) {
        return Some(ResponseForm::Stream);
    }
    let head: Completion<'_> = serde_json::from_str(text).ok()?;
    let error = head.error.is_some_and(|e| e.get().starts_with('{'));
    (error || head.choices.is_some() || head.object.as_deref() == Some("chat.completion"))
        .then_some(ResponseForm::Body)
}

/// Read a Chat Completions response body (not streamed) as one assistant
/// turn: choice 0's message (see the module's documentation).
///
/// # Errors
/// [`ResponseError::Provider`] for an error body (its type, code and
/// message), [`ResponseError::Shape`] for text that is not a response or
/// without choice 0, a call of another type than `function`, or
/// arguments that are not JSON (naming the call).
pub fn from_openai_chat_response(text: &str) -> Result<AssistantTurn, ResponseError> {
    let shape = |reason: String| ResponseError::Shape {
        at: "the response body".into(),
        reason,
    };
    let body: Completion<'_> = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
    if let Some(error) = body.error.filter(|e| e.get() != "null") {
        let error: ApiError<'_> =
            serde_json::from_str(error.get()).map_err(|e| shape(format!("error: {e}")))?;
        return Err(error.into_error());
    }
    match body.object.as_deref() {
        None | Some("chat.completion") => {}
        Some(other) => {
            return Err(shape(format!(
                "a {other:?} object is not a chat.completion"
            )))
        }
    }
    let choices = body
        .choices
        .ok_or_else(|| shape("no `choices`: not a Chat Completions response".into()))?;
    let mut found = None;
    for (c, raw) in choices.into_iter().enumerate() {
        let choice: Choice<'_> =
            serde_json::from_str(raw.get()).map_err(|e| shape(format!("choices[{c}]: {e}")))?;
        if choice.index.unwrap_or(c as u64) == 0 {
            found = Some((c, choice));
            break;
        }
    }
    let (c, choice) = found.ok_or_else(|| shape("no choice 0".into()))?;
    let at = format!("choices[{c}].message");
    let message = choice
        .message
        .ok_or_else(|| shape(format!("choices[{c}] has no `message`")))?;
    if message.function_call.is_some_and(|f| f.get() != "null") {
        return Err(shape(format!("{at}: {LEGACY_CALL}")));
    }
    let mut reply = Reply::default();
    reply.text.extend(message.content.map(Cow::into_owned));
    reply.refusal.extend(message.refusal.map(Cow::into_owned));
    for (k, call) in message.tool_calls.into_iter().flatten().enumerate() {
        let at = format!("{at}.tool_calls[{k}]");
        function_only(call.kind.as_deref()).map_err(|e| shape(format!("{at}: {e}")))?;
        let id = call
            .id
            .ok_or_else(|| shape(format!("{at}: a call without `id`")))?;
        let function = call
            .function
            .ok_or_else(|| shape(format!("{at}: a call without `function`")))?;
        let name = function
            .name
            .ok_or_else(|| shape(format!("{at}: a call without `function.name`")))?;
        reply.calls.push((
            id.into_owned(),
            name.into_owned(),
            function.arguments.map(Cow::into_owned).unwrap_or_default(),
        ));
    }
    reply.stop_reason = present(choice.finish_reason);
    reply.usage = present(body.usage);
    reply.into_turn("call")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_with_text_and_calls() {
        let body = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,
            "message":{"role":"assistant","content":"Looking.","refusal":null,"tool_calls":[
              {"id":"call_1","type":"function","function":{"name":"shot","arguments":"{\"z\": 1, \"a\": 123456789012345678901234567890}"}}]},
            "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}"#;
        let turn = from_openai_chat_response(body).unwrap();
        assert_eq!(
            turn.to_json(),
            concat!(
                r#"{"content":"Looking.","tool_calls":[{"id":"call_1","name":"shot","arguments":{"z": 1, "a": 123456789012345678901234567890}}],"#,
                r#""stop_reason":"tool_calls","usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}"#
            )
        );
    }

    #[test]
    fn a_refusal_is_kept_and_shown() {
        let body = r#"{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}"#;
        let turn = from_openai_chat_response(body).unwrap();
        assert_eq!(
            turn.to_json(),
            r#"{"content":"I can't help with that.","tool_calls":[],"refusal":"I can't help with that.","stop_reason":"stop"}"#
        );
    }

    #[test]
    fn only_choice_zero_makes_the_record() {
        let body = r#"{"object":"chat.completion","choices":[
            {"index":1,"message":{"role":"assistant","content":"Second."},"finish_reason":"stop"},
            {"index":0,"message":{"role":"assistant","content":"First."},"finish_reason":"length"}]}"#;
        let turn = from_openai_chat_response(body).unwrap();
        assert_eq!(
            turn.to_json(),
            r#"{"content":"First.","tool_calls":[],"stop_reason":"length"}"#
        );
        let err = from_openai_chat_response(r#"{"object":"chat.completion","choices":[]}"#);
        assert_eq!(
            err.unwrap_err().to_string(),
            "the response body: no choice 0"
        );
    }

    #[test]
    fn errors_say_what_they_are() {
        let err = |t: &str| from_openai_chat_response(t).unwrap_err().to_string();
        assert_eq!(
            err(
                r#"{"error":{"message":"The model `gpt-9` does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}"#
            ),
            "the provider answered with an error: invalid_request_error (model_not_found): \
             The model `gpt-9` does not exist (param: model)"
        );
        assert_eq!(
            err(r#"{"error":{"message":"Rate limited","code":429}}"#),
            "the provider answered with an error: 429: Rate limited"
        );
        assert_eq!(
            err(r#"{"model":"m","messages":[]}"#),
            "the response body: no `choices`: not a Chat Completions response"
        );
        assert_eq!(
            err(
                r#"{"choices":[{"index":0,"message":{"tool_calls":[{"id":"c","type":"custom","custom":{"name":"x","input":"y"}}]}}]}"#
            ),
            "the response body: choices[0].message.tool_calls[0]: a \"custom\" tool call is not read (only function calls are)"
        );
        assert_eq!(
            err(
                r#"{"choices":[{"index":0,"message":{"tool_calls":[{"id":"call_9","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}"#
            ),
            "the arguments of call \"call_9\": EOF while parsing a value at line 1 column 5"
        );
        assert_eq!(
            err(
                r#"{"choices":[{"index":0,"message":{"function_call":{"name":"f","arguments":"{}"}}}]}"#
            ),
            format!("the response body: choices[0].message: {LEGACY_CALL}")
        );
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff("data: {}\n\n"), Some(ResponseForm::Stream));
        assert_eq!(
            sniff(r#"{"object":"chat.completion","choices":[]}"#),
            Some(ResponseForm::Body)
        );
        assert_eq!(
            sniff(r#"{"error":{"message":"x"}}"#),
            Some(ResponseForm::Body)
        );
        assert_eq!(sniff(r#"{"model":"m","messages":[]}"#), None);
        assert_eq!(sniff(r#"[{"role":"user","content":"x"}]"#), None);
    }
}
