//! Gemini CLI: its chat recordings (`~/.gemini/tmp/PROJECT/chats/session-*.jsonl`,
//! and the whole-file `session-*.json` of versions before 0.39) and its
//! `/chat save` checkpoints (`checkpoint-TAG.json`), each holding Gemini
//! API `Content`s or records of Gemini CLI's own around them.

mod held;
pub(crate) mod read;

use serde_json::Value;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "google-gemini/gemini-cli at 5411f113 (2026-08-21, \
    @google/gemini-cli-core 0.56.0-nightly.20260806): \
    packages/core/src/services/chatRecordingService.ts and chatRecordingTypes.ts, \
    packages/core/src/core/logger.ts (checkpoints), \
    packages/core/src/utils/generateContentResponseUtilities.ts (tool results)";

/// A recording's first line (its header: `sessionId` and `projectHash`;
/// or a message record, a `$set` or a `$rewindTo` line), a whole-file
/// session (`sessionId` and `messages`), or a checkpoint (`history`, or
/// a bare list of contents).
pub(crate) fn sniff(first: &Value) -> bool {
    let has = |k: &str| first.get(k).is_some();
    match first {
        // A whole-file session: its messages are records with a `type`
        // (a session file of another program's holds `role`s).
        Value::Object(_) if has("sessionId") && (has("projectHash") || has("messages")) => first
            .get("messages")
            .and_then(Value::as_array)
            .and_then(|m| m.first())
            .is_none_or(|m| m.get("role").is_none()),
        Value::Object(_) if has("$set") || has("$rewindTo") => true,
        Value::Object(o) => {
            let record = has("id")
                && has("timestamp")
                && matches!(
                    first.get("type").and_then(Value::as_str),
                    Some("user" | "gemini" | "info" | "error" | "warning")
                );
            let checkpoint = o.len() <= 2
                && first.get("history").is_some_and(Value::is_array)
                && o.keys().all(|k| k == "history" || k == "authType");
            record || checkpoint
        }
        _ => false,
    }
}
