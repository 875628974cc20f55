//! Claude Code: its session transcripts, JSON Lines under
//! `~/.claude/projects/PROJECT/`, one line per content block of the
//! model's answer and one per tool result, each line wrapping an
//! Anthropic Messages `message` in fields of Claude Code's own.

pub(crate) mod read;

use serde_json::Value;

/// Where the format comes from. Claude Code publishes no source (its npm
/// package is a bundle): the reader follows the transcript readers that
/// are published and real transcripts others published, and its fixtures
/// are written from them.
pub(crate) const SOURCE: &str = "no published source; read from the published readers \
    anthropics/claude-agent-sdk-python e8bde601 (src/claude_agent_sdk/_internal/sessions.py), \
    daaain/claude-code-log (claude_code_log/models.py), ryoppippi/ccusage \
    (src/data-loader.ts), d-kimuson/claude-code-viewer 9367cf00 (its conversation \
    schema), and real transcripts of Claude Code 2.1.38 and 2.1.39 in \
    marot/spotter 8cc42b0b; a transcript the CLI itself wrote, npm \
    @anthropic-ai/claude-code 2.1.332, run headless against a stand-in for the API; \
    transcripts of Claude Code 1.0 to 2.1";

/// A transcript's first line: a conversation line (a `uuid` and a
/// `sessionId`), a summary (`leafUuid`), a file-history snapshot
/// (`messageId` and `snapshot`), or the prompt queue's record that opens
/// a headless session since 2.1 (`operation` and `sessionId`).
pub(crate) fn sniff(first: &Value) -> bool {
    let has = |k: &str| first.get(k).is_some();
    match first.get("type").and_then(Value::as_str) {
        Some("user" | "assistant" | "system") => {
            has("uuid") && has("sessionId") && first.get("parentUuid").is_some()
        }
        Some("summary") => has("leafUuid"),
        Some("file-history-snapshot") => has("messageId") && has("snapshot"),
        Some("queue-operation") => has("operation") && has("sessionId"),
        _ => false,
    }
}
