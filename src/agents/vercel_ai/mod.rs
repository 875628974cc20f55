//! The Vercel AI SDK (npm `ai`): the messages an app keeps of a
//! conversation, as JSON: `ModelMessage[]` (what `response.messages`
//! holds, and what the SDK sends), or `UIMessage[]` (what `useChat`
//! holds and the SDK's guide stores).

mod data;
pub(crate) mod read;
mod ui;

use std::io::BufRead;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::build::{At, Build, Document};
use super::lines::Line;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "npm ai 7.0.173 with @ai-sdk/provider-utils 5.0.81 and \
    @ai-sdk/provider 4.0.x: provider-utils dist/index.d.ts (ModelMessage, TextPart, ImagePart, \
    FilePart, ReasoningPart, ReasoningFilePart, CustomPart, ToolCallPart, ToolResultPart, \
    ToolResultOutput, ToolApprovalRequest/Response, DataContent, FileData), \
    ai dist/index.d.ts (UIMessage and its parts); earlier ai 5 and 6 forms (`media` output items) \
    read alike";

/// What errors call it.
const LIBRARY: &str = "the Vercel AI SDK";

/// A list of `ModelMessage`s with a part no provider's body has (a
/// `tool-call`, a `toolCallId`, a `mediaType`), or of `UIMessage`s
/// (`id`, `role`, `parts`).
pub(crate) fn sniff(first: &Value) -> bool {
    let Some(messages) = first.as_array() else {
        return false;
    };
    messages.iter().any(|m| {
        let ui = m.get("id").is_some()
            && m.get("role").is_some()
            && m.get("parts").is_some_and(Value::is_array);
        let parts = m
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        ui || (m.get("role").is_some()
            && parts.into_iter().any(|p| {
                p.get("toolCallId").is_some()
                    || p.get("mediaType").is_some()
                    || matches!(
                        p.get("type").and_then(Value::as_str),
                        Some(
                            "tool-call"
                                | "tool-result"
                                | "reasoning"
                                | "tool-approval-request"
                                | "tool-approval-response"
                        )
                    )
            }))
    })
}

/// Read a saved `ModelMessage[]` or `UIMessage[]`.
///
/// # Errors
/// [`ImportError`] naming the path of what is not the SDK's.
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
    let mut b = Build::new(LIBRARY, store, options);
    let Some(messages) = doc.value.as_array() else {
        return Err(ImportError::at(
            "$",
            "not a list of the Vercel AI SDK's messages (ModelMessage[] or UIMessage[])",
        ));
    };
    let ui = messages.first().is_some_and(|m| m.get("parts").is_some());
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        let at = At::root().index(m);
        if ui {
            ui::message(&mut b, message, &at)?;
        } else {
            read::message(&mut b, message, &at)?;
        }
    }
    Ok(b.finish(&line))
}
