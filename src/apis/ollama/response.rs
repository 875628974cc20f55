//! An Ollama `/api/chat` response, non-streamed or streamed, as one
//! assistant record: the members [`read`](super::read) keeps for the same
//! message.
//!
//! The body is <https://docs.ollama.com/api/chat> (read 2026-12-02; the
//! fields as the official Python client's `ChatResponse` names them,
//! `ollama` 0.6.3): `{"model", "created_at", "message": {"role":
//! "assistant", "content", "thinking"?, "tool_calls"?: [{"function":
//! {"name", "arguments": {…}}}]}, "done": true, "done_reason",
//! "total_duration", "load_duration", "prompt_eval_count",
//! "prompt_eval_duration", "eval_count", "eval_duration"}`. Newer servers
//! may give a call an `id` and its function an `index`. An error is
//! `{"error": "…"}` (<https://docs.ollama.com/api/errors>, read
//! 2026-12-02).
//!
//! | response | assistant envelope |
//! |---|---|
//! | `message.content` | the text |
//! | `message.tool_calls` | `tool_calls`, `arguments` kept as their raw JSON text (a string's content, where a server sends one); a call without an id gets `call_0_N` (N its position), as the request reader names them |
//! | `message.thinking` | `ollama_thinking`, a string |
//! | `done_reason` (`stop`, `length`, …) | `stop_reason`, the provider's string |
//! | the counts and durations | `usage`: the object of `total_duration`, `load_duration`, `prompt_eval_count`, `prompt_eval_duration`, `eval_count`, `eval_duration` that the response has, in its order (Ollama has no `usage` object of its own) |
//!
//! The stream reader is [`OllamaStream`](super::stream::OllamaStream).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::json::{minify, push_json_str};
use crate::steps::response::{
    assistant_turn, leading_trimmed, top_members, Members, ResponseError, ResponseForm,
};

use super::read::THINKING;

/// The member that keeps the done reason (`import::STOP_REASON`).
const STOP_REASON: &str = "stop_reason";
/// The member that keeps the counts (`import::USAGE`).
const USAGE: &str = "usage";

/// The response's members that make `usage`, as the API documents them.
const COUNTS: [&str; 6] = [
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
];

/// A chat response, or one line of a stream.
#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(borrow, default)]
    message: Option<ReplyMessage<'a>>,
    #[serde(default)]
    done: Option<bool>,
    #[serde(borrow, default)]
    done_reason: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ReplyMessage<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<CallHead<'a>>>,
}

#[derive(Deserialize)]
struct CallHead<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: FunctionHead<'a>,
}

#[derive(Deserialize)]
struct FunctionHead<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The message read from a body, or gathered from a stream's lines. Both
/// readers end in [`Reading::turn`], so a stream and a body of the same
/// message give the same record.
#[derive(Debug, Default)]
pub(crate) struct Reading {
    text: String,
    thinking: String,
    /// `(id, name, arguments as JSON text)`.
    calls: Vec<(Option<String>, String, String)>,
    stop_reason: Option<String>,
    usage: Option<String>,
    /// Whether the line with `"done": true` was read.
    pub done: bool,
}

impl Reading {
    /// Take one response object (a body, a line), read at `at`: its text
    /// and thinking appended, its calls added, and, when it is the last,
    /// its done reason and counts.
    ///
    /// # Errors
    /// [`ResponseError::Provider`] for an error, [`ResponseError::Shape`]
    /// naming `at` for anything else wrong.
    pub fn reply(&mut self, text: &str, at: &str) -> Result<(), ResponseError> {
        let shape = |reason: String| ResponseError::Shape {
            at: at.to_owned(),
            reason,
        };
        let reply: Reply<'_> = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
        if let Some(error) = reply.error.filter(|e| e.get() != "null") {
            let message =
                serde_json::from_str::<String>(error.get()).unwrap_or_else(|_| minify(error.get()));
            return Err(ResponseError::Provider {
                kind: "error".into(),
                message,
            });
        }
        if let Some(message) = reply.message {
            self.text
                .push_str(message.content.as_deref().unwrap_or_default());
            self.thinking
                .push_str(message.thinking.as_deref().unwrap_or_default());
            for (c, call) in message.tool_calls.into_iter().flatten().enumerate() {
                let arguments = arguments(call.function.arguments).map_err(|reason| {
                    shape(format!(
                        "message.tool_calls[{c}].function.arguments: {reason}"
                    ))
                })?;
                self.calls.push((
                    call.id.filter(|id| !id.is_empty()).map(Cow::into_owned),
                    call.function.name.into_owned(),
                    arguments,
                ));
            }
        }
        if reply.done == Some(true) {
            self.done = true;
            self.stop_reason = present(reply.done_reason);
            let Members(members) = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
            let counts: Vec<_> = members
                .iter()
                .filter(|(name, value)| COUNTS.contains(&name.as_ref()) && value.get() != "null")
                .collect();
            if !counts.is_empty() {
                let mut usage = String::from("{");
                for (i, (name, value)) in counts.into_iter().enumerate() {
                    if i > 0 {
                        usage.push(',');
                    }
                    push_json_str(&mut usage, name);
                    usage.push(':');
                    usage.push_str(&minify(value.get()));
                }
                usage.push('}');
                self.usage = Some(usage);
            }
        }
        Ok(())
    }

    /// The assistant turn the message makes.
    ///
    /// # Errors
    /// [`ResponseError::Shape`] for a call's arguments that are not JSON.
    pub fn turn(self) -> Result<AssistantTurn, ResponseError> {
        let calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(n, (id, name, arguments))| {
                (id.unwrap_or_else(|| format!("call_0_{n}")), name, arguments)
            });
        let thinking = (!self.thinking.is_empty()).then(|| {
            let mut json = String::new();
            push_json_str(&mut json, &self.thinking);
            json
        });
        let members = [
            (THINKING, thinking),
            (STOP_REASON, self.stop_reason),
            (USAGE, self.usage),
        ];
        assistant_turn(self.text, calls, "the arguments of tool call", members)
    }
}

/// A call's arguments as JSON text: an object (or any value) as it is
/// written, a string as the JSON text it holds (which must be JSON).
fn arguments(raw: Option<&RawValue>) -> Result<String, String> {
    let Some(raw) = raw.filter(|r| r.get() != "null") else {
        return Ok("{}".into());
    };
    if !raw.get().starts_with('"') {
        return Ok(minify(raw.get()));
    }
    let text: String = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    if text.trim().is_empty() {
        return Ok("{}".into());
    }
    let value: &RawValue =
        serde_json::from_str(&text).map_err(|e| format!("a string that is not JSON text: {e}"))?;
    Ok(minify(value.get()))
}

/// A raw value that is not `null`, without white space.
fn present(raw: Option<&RawValue>) -> Option<String> {
    raw.map(RawValue::get).filter(|r| *r != "null").map(minify)
}

/// Whether an object's members are a chat response's (or an error's): a
/// request has `messages` and none of `done`, `done_reason`, `error`.
fn is_reply(members: &[String]) -> bool {
    !members.iter().any(|m| m == "messages")
        && members
            .iter()
            .any(|m| matches!(m.as_str(), "done" | "done_reason" | "error"))
}

/// Which form of chat response `text` is: one response object (`done`
/// true, or an error) is a body; lines of them, or a first one with `done`
/// false, are a stream.
pub(crate) fn sniff(text: &str) -> Option<ResponseForm> {
    let start = leading_trimmed(text);
    if let Some(members) = top_members(start) {
        if !is_reply(&members) {
            return None;
        }
        #[derive(Deserialize)]
        struct Head {
            #[serde(default)]
            done: Option<bool>,
        }
        let piece = serde_json::from_str::<Head>(start).is_ok_and(|h| h.done == Some(false));
        return Some(if piece {
            ResponseForm::Stream
        } else {
            ResponseForm::Body
        });
    }
    let first = start.lines().next()?;
    is_reply(&top_members(first)?).then_some(ResponseForm::Stream)
}

/// Read an `/api/chat` response body (`"stream": false`) as one assistant
/// turn.
///
/// ```
/// use tool_carrier::import::from_response;
/// use tool_carrier::provider::Provider;
///
/// let body = r#"{"model": "qwen3", "message": {"role": "assistant", "content": "",
///     "tool_calls": [{"function": {"name": "shot", "arguments": {"page": 2}}}]},
///     "done": true, "done_reason": "stop", "prompt_eval_count": 9, "eval_count": 4}"#;
/// let turn = from_response(Provider::Ollama, body)?;
/// assert_eq!(
///     turn.to_json(),
///     r#"{"content":null,"tool_calls":[{"id":"call_0_0","name":"shot","arguments":{"page":2}}],"stop_reason":"stop","usage":{"prompt_eval_count":9,"eval_count":4}}"#
/// );
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
///
/// # Errors
/// [`ResponseError::Provider`] for an error body (its message),
/// [`ResponseError::Shape`] for text that is not a whole response.
pub fn from_ollama_response(text: &str) -> Result<AssistantTurn, ResponseError> {
    let at = "the response body";
    let shape = |reason: &str| ResponseError::Shape {
        at: at.into(),
        reason: reason.into(),
    };
    let mut reading = Reading::default();
    reading.reply(text, at)?;
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        message: Option<&'a RawValue>,
        #[serde(default)]
        done: Option<bool>,
    }
    let head: Head<'_> = serde_json::from_str(text).map_err(|e| shape(&e.to_string()))?;
    if head.message.is_none() {
        return Err(shape("no `message`: not a chat response"));
    }
    if head.done == Some(false) {
        return Err(shape(
            "`done` is false: one line of a stream, not a whole response",
        ));
    }
    reading.turn()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_calls_and_counts() {
        let body = r#"{"model": "qwen3", "created_at": "2026-12-02T10:00:00Z",
            "message": {"role": "assistant", "content": "Checking.", "thinking": "The user wants two.",
              "tool_calls": [
                {"id": "call_a", "function": {"index": 0, "name": "a", "arguments": {"z": 1, "big": 123456789012345678901234567890}}},
                {"function": {"name": "b", "arguments": "{\"x\": [1, 2]}"}}]},
            "done": true, "done_reason": "stop", "total_duration": 100, "load_duration": 5,
            "prompt_eval_count": 20, "prompt_eval_duration": 30, "eval_count": 10, "eval_duration": 60}"#;
        assert_eq!(
            from_ollama_response(body).unwrap().to_json(),
            concat!(
                r#"{"content":"Checking.","tool_calls":[{"id":"call_a","name":"a","arguments":{"z":1,"big":123456789012345678901234567890}},"#,
                r#"{"id":"call_0_1","name":"b","arguments":{"x":[1,2]}}],"ollama_thinking":"The user wants two.","stop_reason":"stop","#,
                r#""usage":{"total_duration":100,"load_duration":5,"prompt_eval_count":20,"prompt_eval_duration":30,"eval_count":10,"eval_duration":60}}"#
            )
        );
    }

    #[test]
    fn errors_say_what_they_are() {
        let err = |t: &str| from_ollama_response(t).unwrap_err().to_string();
        assert_eq!(
            err(r#"{"error": "model \"llama9\" not found, try pulling it first"}"#),
            "the provider answered with an error: error: model \"llama9\" not found, try pulling it first"
        );
        assert_eq!(
            err(r#"{"model": "m", "messages": []}"#),
            "the response body: no `message`: not a chat response"
        );
        assert_eq!(
            err(r#"{"message": {"role": "assistant", "content": "Hel"}, "done": false}"#),
            "the response body: `done` is false: one line of a stream, not a whole response"
        );
        assert_eq!(
            err(r#"{"message": {"tool_calls": [{"function": {"name": "a", "arguments": "{\"x\""}}]}, "done": true}"#),
            "the response body: message.tool_calls[0].function.arguments: a string that is not JSON text: EOF while parsing an object at line 1 column 4"
        );
    }

    #[test]
    fn sniff_tells_responses_from_requests() {
        assert_eq!(
            sniff(r#"{"message": {}, "done": true}"#),
            Some(ResponseForm::Body)
        );
        assert_eq!(sniff(r#"{"error": "no"}"#), Some(ResponseForm::Body));
        assert_eq!(
            sniff(r#"{"message": {}, "done": false}"#),
            Some(ResponseForm::Stream)
        );
        assert_eq!(
            sniff("{\"message\": {}, \"done\": false}\n{\"message\": {}, \"done\": true}\n"),
            Some(ResponseForm::Stream)
        );
        assert_eq!(sniff(r#"{"model": "m", "messages": []}"#), None);
        assert_eq!(sniff(r#"[{"role": "user", "content": "x"}]"#), None);
    }
}
