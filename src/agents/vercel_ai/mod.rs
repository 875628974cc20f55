//! The Vercel AI SDK (npm `ai`): the messages an app keeps of a
//! conversation, as JSON: `ModelMessage[]` (what `response.messages`
//! holds, and what the SDK sends), or `UIMessage[]` (what `useChat`
//! holds and the SDK's guide stores).

mod data;
mod model;
pub(crate) mod read;
mod ui;

use serde_json::Value;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "npm ai 7.0.173 with @ai-sdk/provider-utils 5.0.81 and \
    @ai-sdk/provider 4.0.x: provider-utils dist/index.d.ts (ModelMessage, TextPart, ImagePart, \
    FilePart, ReasoningPart, ReasoningFilePart, CustomPart, ToolCallPart, ToolResultPart, \
    ToolResultOutput, ToolApprovalRequest/Response, DataContent, FileData), \
    ai dist/index.d.ts (UIMessage and its parts); earlier ai 5 and 6 forms (`media` output items) \
    read alike";

/// What errors call it.
pub(crate) const LIBRARY: &str = "the Vercel AI SDK";

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
