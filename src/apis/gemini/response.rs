//! A Gemini `generateContent` response, non-streamed or streamed, as one
//! assistant record: the same record [`read`](super::read) gives for the
//! same model content in a request body.
//!
//! The body is a `GenerateContentResponse`
//! (<https://ai.google.dev/api/generate-content#generatecontentresponse>,
//! read 2026-12-02): `{"candidates": [{"content": {"role": "model",
//! "parts": [...]}, "finishReason", "finishMessage", "safetyRatings",
//! "index"}], "promptFeedback": {"blockReason", "blockReasonMessage"},
//! "usageMetadata", "modelVersion", "responseId"}`. A part holds `text`
//! (a thought summary when `thought` is true), a `functionCall` `{"id"?,
//! "name", "args"}`, or another kind, and may carry a `thoughtSignature`
//! (<https://ai.google.dev/gemini-api/docs/thought-signatures>, read
//! 2026-12-02). An error is `{"error": {"code", "message", "status"}}`
//! (<https://ai.google.dev/gemini-api/docs/troubleshooting>, read
//! 2026-12-02).
//!
//! | response | assistant envelope |
//! |---|---|
//! | `text` parts | the text, joined by `\n` (empty ones skipped) |
//! | `functionCall` parts | `tool_calls`, `args` kept as its raw JSON text; a call without an id gets `call_0_N` (N its part's position), as the request reader names them |
//! | a call's `thoughtSignature` | `gemini_thought_signatures`, `{call id: signature}` |
//! | thought parts (`thought: true`) | `gemini_parts`: `{"text", "thought": true, "thoughtSignature"?}` |
//! | a `thoughtSignature` on a text part | `gemini_parts`: `{"text": "", "thoughtSignature"}` (the form a stream gives it in) |
//! | parts of other kinds (code, its result, `inlineData`, …) | `gemini_parts`, as the request reader keeps them (keys sorted) |
//! | `finishReason` (`STOP`, `MAX_TOKENS`, `SAFETY`, …) | `stop_reason`, the provider's string |
//! | `usageMetadata` | `usage`, the provider's object |
//!
//! Only the first candidate (`index` 0) is read. A blocked prompt
//! (`promptFeedback.blockReason`, no candidate) is
//! [`ResponseError::Provider`] with the block reason as its kind: the model
//! said nothing to record. `finishMessage`, `safetyRatings`,
//! `modelVersion` and `responseId` are not kept. The stream reader is
//! [`GeminiStream`](super::stream::GeminiStream).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::history::AssistantTurn;
use crate::json::minify;
use crate::steps::response::{
    assistant_turn, leading_trimmed, looks_like_sse, top_members, ResponseError, ResponseForm,
};

use super::read::{signed_text, PARTS, SIGNATURES};
use super::wire::Item;

/// The member that keeps the finish reason (`import::STOP_REASON`).
const STOP_REASON: &str = "stop_reason";
/// The member that keeps the token usage (`import::USAGE`).
const USAGE: &str = "usage";
/// The placeholder signature written for calls from elsewhere: never the
/// model's, so never kept (as the request reader).
const PLACEHOLDER: &str = "skip_thought_signature_validator";

/// A `GenerateContentResponse`: a body, or one chunk of a stream.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk<'a> {
    #[serde(borrow, default)]
    candidates: Option<Vec<Candidate<'a>>>,
    #[serde(borrow, default)]
    prompt_feedback: Option<PromptFeedback<'a>>,
    #[serde(borrow, default)]
    usage_metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<ErrorBody<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(borrow, default)]
    content: Option<CandidateContent<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<&'a RawValue>,
    #[serde(default)]
    index: Option<u64>,
}

#[derive(Deserialize)]
struct CandidateContent<'a> {
    #[serde(borrow, default)]
    parts: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback<'a> {
    #[serde(borrow, default)]
    block_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    block_reason_message: Option<Cow<'a, str>>,
}

/// `{"code", "message", "status"}` of an error body or chunk.
#[derive(Deserialize)]
struct ErrorBody<'a> {
    #[serde(default)]
    code: Option<i64>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

impl ErrorBody<'_> {
    fn into_error(self) -> ResponseError {
        let kind = match (self.status, self.code) {
            (Some(status), _) => status.into_owned(),
            (None, Some(code)) => code.to_string(),
            (None, None) => "error".into(),
        };
        ResponseError::Provider {
            kind,
            message: self.message.map(Cow::into_owned).unwrap_or_default(),
        }
    }
}

/// What a part is read as first.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartHead<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(borrow, default)]
    thought_signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function_call: Option<CallHead<'a>>,
}

#[derive(Deserialize)]
struct CallHead<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
}

/// One part of the model's content, as the record takes it.
#[derive(Debug)]
enum Part {
    Text {
        text: String,
        thought: bool,
        signature: Option<String>,
    },
    Call {
        id: Option<String>,
        name: String,
        args: String,
        signature: Option<String>,
    },
    /// A part of another kind, as the request reader keeps it.
    Other(Value),
}

/// The first candidate's parts, finish reason and usage, read from a body
/// or gathered from a stream's chunks. Both readers end in
/// [`Reading::turn`], so a stream and a body of the same message give the
/// same record.
#[derive(Debug, Default)]
pub(crate) struct Reading {
    parts: Vec<Part>,
    stop_reason: Option<String>,
    usage: Option<String>,
    /// Whether a candidate was read.
    pub candidate: bool,
    /// Whether a finish reason was read (a stream's last chunk has it).
    pub finished: bool,
    /// Whether text continues the text part before it of the same kind
    /// (a stream's pieces), or starts a part of its own (a body's parts).
    pieces: bool,
}

impl Reading {
    /// A reading of a body (`pieces` false) or of a stream's chunks.
    pub fn new(pieces: bool) -> Reading {
        Reading {
            pieces,
            ..Reading::default()
        }
    }

    /// Take one `GenerateContentResponse` (a body, a chunk), read at `at`.
    ///
    /// # Errors
    /// [`ResponseError::Provider`] for an error or a blocked prompt,
    /// [`ResponseError::Shape`] naming `at` for anything else wrong.
    pub fn chunk(&mut self, text: &str, at: &str) -> Result<(), ResponseError> {
        let shape = |reason: String| ResponseError::Shape {
            at: at.to_owned(),
            reason,
        };
        let chunk: Chunk<'_> = serde_json::from_str(text).map_err(|e| shape(e.to_string()))?;
        if let Some(error) = chunk.error {
            return Err(error.into_error());
        }
        if let Some(usage) = present(chunk.usage_metadata) {
            self.usage = Some(usage);
        }
        let found = chunk
            .candidates
            .into_iter()
            .flatten()
            .enumerate()
            .find(|(_, c)| c.index.unwrap_or(0) == 0);
        let Some((c, candidate)) = found else {
            let blocked = chunk.prompt_feedback.and_then(|f| {
                f.block_reason
                    .filter(|r| r != "BLOCKED_REASON_UNSPECIFIED")
                    .map(|r| (r, f.block_reason_message))
            });
            if let Some((reason, message)) = blocked {
                return Err(ResponseError::Provider {
                    kind: reason.into_owned(),
                    message: message.map_or_else(
                        || "the prompt was blocked (promptFeedback.blockReason): no candidate was returned".into(),
                        Cow::into_owned,
                    ),
                });
            }
            // A chunk of usage alone.
            return Ok(());
        };
        self.candidate = true;
        let parts = candidate.content.and_then(|c| c.parts).unwrap_or_default();
        for (p, raw) in parts.into_iter().enumerate() {
            self.part(raw)
                .map_err(|reason| shape(format!("candidates[{c}].content.parts[{p}]: {reason}")))?;
        }
        if let Some(reason) = present(candidate.finish_reason) {
            self.stop_reason = Some(reason);
            self.finished = true;
        }
        Ok(())
    }

    fn part(&mut self, raw: &RawValue) -> Result<(), String> {
        let head: PartHead<'_> = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        let signature = head
            .thought_signature
            .filter(|s| s != PLACEHOLDER)
            .map(Cow::into_owned);
        if let Some(call) = head.function_call {
            if head.text.is_some() {
                return Err("holds both `text` and `functionCall` (one kind to a part)".into());
            }
            self.parts.push(Part::Call {
                id: call.id.filter(|id| !id.is_empty()).map(Cow::into_owned),
                name: call.name.into_owned(),
                args: call.args.map_or_else(|| "{}".into(), |a| minify(a.get())),
                signature,
            });
            return Ok(());
        }
        if let Some(text) = head.text {
            let thought = head.thought == Some(true);
            if self.pieces {
                if let Some(Part::Text {
                    text: last,
                    thought: was,
                    signature: signed,
                }) = self.parts.last_mut()
                {
                    if *was == thought && !(signed.is_some() && signature.is_some()) {
                        last.push_str(&text);
                        if signature.is_some() {
                            *signed = signature;
                        }
                        return Ok(());
                    }
                }
            }
            self.parts.push(Part::Text {
                text: text.into_owned(),
                thought,
                signature,
            });
            return Ok(());
        }
        // Another kind: as the request reader keeps it (a known kind of a
        // broken shape is refused there, and here).
        let item: Item<'_> = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        let value = serde_json::to_value(&item).map_err(|e| e.to_string())?;
        self.parts.push(Part::Other(value));
        Ok(())
    }

    /// The assistant turn the parts, finish reason and usage make.
    ///
    /// # Errors
    /// [`ResponseError::Shape`] for a call's `args` that are not JSON.
    pub fn turn(self) -> Result<AssistantTurn, ResponseError> {
        let mut text = Vec::new();
        let mut calls = Vec::new();
        let mut signatures = Map::new();
        let mut kept = Vec::new();
        for (p, part) in self.parts.into_iter().enumerate() {
            match part {
                Part::Text {
                    text: t,
                    thought: false,
                    signature,
                } => {
                    if !t.is_empty() {
                        text.push(t);
                    }
                    kept.extend(signature.map(|s| signed_text(&s)));
                }
                Part::Text {
                    text: t,
                    thought: true,
                    signature,
                } => {
                    let mut part = Map::new();
                    part.insert("text".into(), Value::String(t));
                    part.insert("thought".into(), Value::Bool(true));
                    if let Some(s) = signature {
                        part.insert("thoughtSignature".into(), Value::String(s));
                    }
                    kept.push(Value::Object(part));
                }
                Part::Call {
                    id,
                    name,
                    args,
                    signature,
                } => {
                    let id = id.unwrap_or_else(|| format!("call_0_{p}"));
                    if let Some(s) = signature {
                        signatures.insert(id.clone(), Value::String(s));
                    }
                    calls.push((id, name, args));
                }
                Part::Other(value) => kept.push(value),
            }
        }
        let members = [
            (
                SIGNATURES,
                (!signatures.is_empty()).then(|| Value::Object(signatures).to_string()),
            ),
            (
                PARTS,
                (!kept.is_empty()).then(|| Value::Array(kept).to_string()),
            ),
            (STOP_REASON, self.stop_reason),
            (USAGE, self.usage),
        ];
        assistant_turn(text.join("\n"), calls, "the args of functionCall", members)
    }
}

/// A raw value that is not `null`, without white space.
fn present(raw: Option<&RawValue>) -> Option<String> {
    raw.map(RawValue::get).filter(|r| *r != "null").map(minify)
}

/// The members that tell a `GenerateContentResponse` from a request body
/// (which has `contents`).
const RESPONSE_MEMBERS: [&str; 6] = [
    "candidates",
    "promptFeedback",
    "usageMetadata",
    "modelVersion",
    "responseId",
    "error",
];

fn is_response(members: &[String]) -> bool {
    !members.iter().any(|m| m == "contents")
        && members
            .iter()
            .any(|m| RESPONSE_MEMBERS.contains(&m.as_str()))
}

/// Which form of `generateContent` response `text` is: an event stream
/// (`alt=sse`) or a JSON array of chunks (the stream without it), or a
/// response object (a request body has `contents` and none of
/// `candidates`, `promptFeedback`, `usageMetadata`, `modelVersion`,
/// `responseId`, `error`).
pub(crate) fn sniff(text: &str) -> Option<ResponseForm> {
    if looks_like_sse(text) {
        return Some(ResponseForm::Stream);
    }
    let start = leading_trimmed(text);
    if let Some(rest) = start.strip_prefix('[') {
        // The first chunk is enough (a stream cut later is still one).
        let first = serde_json::Deserializer::from_str(rest)
            .into_iter::<&RawValue>()
            .next()?
            .ok()?;
        let members = top_members(first.get())?;
        return is_response(&members).then_some(ResponseForm::Stream);
    }
    let members = top_members(start)?;
    is_response(&members).then_some(ResponseForm::Body)
}

/// Read a `generateContent` response body (not streamed) as one assistant
/// turn.
///
/// ```
/// use tool_carrier::import::from_response;
/// use tool_carrier::provider::Provider;
///
/// let body = r#"{"candidates": [{"content": {"role": "model", "parts": [
///     {"functionCall": {"name": "shot", "args": {"page": 2}}, "thoughtSignature": "c2ln"}]},
///     "finishReason": "STOP"}]}"#;
/// let turn = from_response(Provider::Gemini, body)?;
/// assert_eq!(
///     turn.to_json(),
///     r#"{"content":null,"tool_calls":[{"id":"call_0_0","name":"shot","arguments":{"page":2}}],"gemini_thought_signatures":{"call_0_0":"c2ln"},"stop_reason":"STOP"}"#
/// );
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
///
/// # Errors
/// [`ResponseError::Provider`] for an error body (its status and message)
/// or a blocked prompt (its block reason), [`ResponseError::Shape`] for
/// text that is not a response.
pub fn from_gemini_response(text: &str) -> Result<AssistantTurn, ResponseError> {
    let at = "the response body";
    let mut reading = Reading::new(false);
    reading.chunk(text, at)?;
    if !reading.candidate {
        return Err(ResponseError::Shape {
            at: at.into(),
            reason: "no `candidates`: not a generateContent response".into(),
        });
    }
    reading.turn()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thoughts_signatures_and_other_parts_are_kept_as_the_request_reader_keeps_them() {
        let body = r#"{"candidates": [{"content": {"role": "model", "parts": [
            {"text": "Planning.", "thought": true},
            {"text": "Here it is."},
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            {"text": "", "thoughtSignature": "dGV4dA=="}]},
            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 12}}"#;
        let turn = from_gemini_response(body).unwrap();
        assert_eq!(
            turn.to_json(),
            concat!(
                r#"{"content":"Here it is.","tool_calls":[],"gemini_parts":["#,
                r#"{"text":"Planning.","thought":true},"#,
                r#"{"executableCode":{"code":"print(1)","language":"PYTHON"}},"#,
                r#"{"text":"","thoughtSignature":"dGV4dA=="}],"#,
                r#""stop_reason":"STOP","usage":{"promptTokenCount":9,"totalTokenCount":12}}"#
            )
        );
    }

    #[test]
    fn errors_and_blocked_prompts_say_what_they_are() {
        let err = |t: &str| from_gemini_response(t).unwrap_err().to_string();
        assert_eq!(
            err(
                r#"{"error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED"}}"#
            ),
            "the provider answered with an error: RESOURCE_EXHAUSTED: Resource exhausted."
        );
        assert_eq!(
            err(r#"{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 8}}"#),
            "the provider answered with an error: SAFETY: the prompt was blocked (promptFeedback.blockReason): no candidate was returned"
        );
        assert_eq!(
            err(r#"{"contents": [{"parts": [{"text": "Hi"}]}]}"#),
            "the response body: no `candidates`: not a generateContent response"
        );
        assert_eq!(
            err(r#"{"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}"#),
            "the response body: candidates[0].content.parts[0]: missing field `name` at line 1 column 29"
        );
        assert_eq!(
            err(
                r#"{"candidates": [{"content": {"parts": [{"inlineData": {"mimeType": "image/png"}}]}}]}"#
            ),
            "the response body: candidates[0].content.parts[0]: inlineData: missing field `data`"
        );
    }

    #[test]
    fn sniff_tells_responses_from_requests() {
        assert_eq!(sniff(r#"{"candidates": []}"#), Some(ResponseForm::Body));
        assert_eq!(
            sniff(r#"{"error": {"code": 400}}"#),
            Some(ResponseForm::Body)
        );
        assert_eq!(sniff("data: {}\n\n"), Some(ResponseForm::Stream));
        assert_eq!(
            sniff(
                "[{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}]}}]},\n{\"cand"
            ),
            Some(ResponseForm::Stream)
        );
        assert_eq!(sniff(r#"{"contents": [], "usageMetadata": {}}"#), None);
        assert_eq!(sniff(r#"[{"role": "user", "parts": []}]"#), None);
        assert_eq!(sniff("not json"), None);
    }
}
