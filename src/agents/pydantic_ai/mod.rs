//! pydantic-ai: a run's messages as `ModelMessagesTypeAdapter` writes
//! them (`result.all_messages_json()`), the form its docs store a
//! conversation in.

mod parts;
pub(crate) mod read;

use serde_json::Value;

/// Where the format comes from.
pub(crate) const SOURCE: &str =
    "PyPI pydantic-ai-slim 2.68.0 (and 1.107.10) with pydantic 2.14.4: \
    pydantic_ai/messages.py (ModelRequest, ModelResponse, SystemPromptPart, UserPromptPart, \
    ToolReturnPart and its outcome, RetryPromptPart, RetryFeedbackPart, TextPart, ThinkingPart, \
    ToolCallPart, BinaryContent, FileUrl kinds, UploadedFile, ModelMessagesTypeAdapter with \
    ser_json_bytes='base64': URL-safe base64), models/anthropic and models/openai (what a \
    thinking signature is, which outcomes are errors)";

/// A list of pydantic-ai messages: objects of `kind` `request` or
/// `response`, with `parts` whose entries name a `part_kind`.
pub(crate) fn sniff(first: &Value) -> bool {
    first.as_array().is_some_and(|messages| {
        !messages.is_empty()
            && messages.iter().all(|m| {
                matches!(
                    m.get("kind").and_then(Value::as_str),
                    Some("request" | "response")
                ) && m
                    .get("parts")
                    .and_then(Value::as_array)
                    .is_some_and(|parts| parts.iter().all(|p| p.get("part_kind").is_some()))
            })
    })
}
