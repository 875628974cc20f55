//! Codex CLI: its session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`),
//! one `{timestamp, type, payload}` line per item, the model's own items
//! OpenAI Responses items.

pub(crate) mod read;

use serde_json::Value;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "openai/codex at 4e30281a (2026-04-25): \
    codex-rs/protocol/src/protocol.rs (RolloutLine, RolloutItem, SessionMeta, CompactedItem), \
    codex-rs/protocol/src/models.rs (ResponseItem, FunctionCallOutputPayload), \
    codex-rs/rollout/src/recorder.rs and policy.rs, \
    codex-rs/core/src/tools/handlers/view_image.rs";

/// The line kinds a rollout's envelope tags.
const KINDS: [&str; 5] = [
    "session_meta",
    "response_item",
    "compacted",
    "turn_context",
    "event_msg",
];

/// A rollout's first line: an enveloped item (`timestamp`, a known
/// `type`, a `payload`), or the bare session header of rollouts before
/// Codex 0.33 (`id` and `timestamp`, no `type`).
pub(crate) fn sniff(first: &Value) -> bool {
    let has = |k: &str| first.get(k).is_some();
    let kind = first.get("type").and_then(Value::as_str);
    match kind {
        Some(kind) => has("timestamp") && has("payload") && KINDS.contains(&kind),
        None => {
            has("id")
                && has("timestamp")
                && first.as_object().is_some_and(|o| {
                    o.keys()
                        .all(|k| matches!(k.as_str(), "id" | "timestamp" | "instructions" | "git"))
                })
        }
    }
}
