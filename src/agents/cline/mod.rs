//! Cline and Roo Code, the VS Code extensions: a task's
//! `api_conversation_history.json` (`globalStorage/…/tasks/ID/`), Anthropic
//! messages with members of the extension's own; and Cline's session
//! `messages.json` (`~/.cline/data/sessions/ID/`), its version 1.

mod messages;
pub(crate) mod read;

use serde_json::Value;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "cline/cline at e1bdeeff (v3.89.2, 2026-06-11): \
    apps/vscode/src/shared/messages/content.ts (ClineStorageMessage, its blocks, \
    convertClineStorageToAnthropicMessage, cleanContentBlock), core/storage/disk.ts, \
    core/task/index.ts and ToolResultUtils.ts; at a22fc10a (v3.17.0) src/core/task/index.ts \
    (XML-era results); at 21cb8d25 (v4.1.13, 2026-08-22) \
    sdk/packages/core/docs/messages-contract-v1.md and src/services/session-data.ts; \
    RooCodeInc/Roo-Code at cb836567 (v3.52.1, 2026-04-14): src/core/task-persistence/apiMessages.ts \
    (ApiMessage), src/core/task/Task.ts, src/core/condense/index.ts (getEffectiveApiHistory), \
    src/core/context-management/index.ts";

/// What a message or block of the extensions holds that Anthropic's do
/// not.
const OWN: [&str; 8] = [
    "ts",
    "modelInfo",
    "metrics",
    "isSummary",
    "condenseParent",
    "truncationParent",
    "isTruncationMarker",
    "condenseId",
];

/// Stored messages with a member of the extensions' own, or a session
/// file of Cline's (`version` and `messages`, and its `sessionId`).
pub(crate) fn sniff(first: &Value) -> bool {
    if let Some(o) = first.as_object() {
        return o.get("version").is_some()
            && o.get("sessionId").is_some()
            && o.get("messages").is_some_and(Value::is_array);
    }
    first.as_array().is_some_and(|messages| {
        messages.iter().any(|m| {
            let own = OWN.iter().any(|k| m.get(*k).is_some());
            let blocks = m
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            m.get("role").is_some()
                && (own
                    || blocks.into_iter().any(|b| {
                        b.get("call_id").is_some() || b.get("reasoning_details").is_some()
                    }))
        })
    })
}
