//! pydantic-ai: a run's messages as `ModelMessagesTypeAdapter` writes
//! them (`result.all_messages_json()`), the form its docs store a
//! conversation in.

pub(crate) mod read;

use std::io::BufRead;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::build::{At, Build, Document};
use super::lines::Line;

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

/// Read a saved list of messages.
///
/// # Errors
/// [`ImportError`] naming the path of what is not pydantic-ai's.
pub(crate) fn read(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let doc = Document::read(input)?;
    let line = Line {
        number: 1,
        start: 0,
        text: &doc.text,
    };
    let Some(messages) = doc.value.as_array() else {
        return Err(ImportError::at(
            "$",
            "not a list of pydantic-ai's messages (ModelMessagesTypeAdapter's JSON)",
        ));
    };
    let mut b = Build::new("pydantic-ai", store, options);
    let mut state = read::Request::new();
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        read::message(&mut b, message, &At::root().index(m), &mut state)?;
    }
    Ok(b.finish(&line))
}
