//! The native envelope an import writes for a tool result.
//!
//! ```json
//! {"tool_call_id": "…", "content": "…", "is_error": true, "…": …, "attachments": [...]}
//! ```
//!
//! `is_error` is written only when the tool reported an error (Anthropic's
//! `is_error`, Bedrock's `status: "error"`, MCP's `isError`); the members
//! between it and `attachments` are what the source held beyond these,
//! kept as JSON (extra members survive every rebuild byte for byte).

#[cfg(test)]
use crate::Attachment;

/// The member of the assistant envelope that keeps Anthropic's thinking
/// blocks, replayed to Anthropic alone.
pub const ANTHROPIC_THINKING: &str = "anthropic_thinking";

/// The member of the assistant envelope that keeps Gemini's thought
/// signatures, `{call id: signature}`, replayed to Gemini alone.
pub const GEMINI_SIGNATURES: &str = "gemini_thought_signatures";

/// The member of the assistant envelope that keeps Bedrock content blocks
/// of other kinds than text and tool use, each as the body wrote it; its
/// `reasoningContent` blocks are replayed to Bedrock alone.
pub const BEDROCK_BLOCKS: &str = "bedrock_blocks";

/// The member of the assistant envelope that keeps an Ollama message's
/// `thinking` (a JSON string), replayed to Ollama alone.
pub const OLLAMA_THINKING: &str = "ollama_thinking";

/// The member of the assistant envelope that keeps OpenAI Responses items
/// the envelope has no place for (`reasoning`, with its
/// `encrypted_content`; server tools' calls), replayed to Responses alone.
pub const OPENAI_ITEMS: &str = "openai_items";

/// The member of the assistant envelope that keeps Anthropic blocks other
/// than text, tool use and thinking (server tools and their results).
pub const ANTHROPIC_BLOCKS: &str = "anthropic_blocks";

/// The member of the assistant envelope that keeps Gemini parts other
/// than text and calls (thoughts, code, signed empty text).
pub const GEMINI_PARTS: &str = "gemini_parts";

/// The members of the assistant envelope that keep lists of entries as
/// another API wrote them, and what an entry of each is called.
pub(crate) const KEPT: [(&str, &str); 5] = [
    (ANTHROPIC_THINKING, "block"),
    (ANTHROPIC_BLOCKS, "block"),
    (GEMINI_PARTS, "part"),
    (BEDROCK_BLOCKS, "block"),
    (OPENAI_ITEMS, "item"),
];

/// A tool result on its way to being a native carrier: the public
/// [`ToolResult`](crate::history::ToolResult), whose fields the readers
/// fill.
pub(crate) type Envelope = crate::history::ToolResult;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carrier::{Carrier, Declaration};
    use crate::Role;

    #[test]
    fn an_envelope_reads_back_as_a_declared_carrier() {
        let mut e = Envelope {
            call_id: Some("c\"1".into()),
            is_error: true,
            extra: vec![("structuredContent".into(), "{\"a\":1}".into())],
            attachments: vec![Attachment::image("ab.png")],
            ..Envelope::default()
        };
        e.line("first");
        e.line("second");
        let text = e.render();
        let c = Carrier::read(Role::Tool, &text).unwrap();
        assert_eq!(c.body, "first\nsecond");
        assert_eq!(c.call_id.as_deref(), Some("c\"1"));
        assert!(
            matches!(&c.declaration, Declaration::Declared(a) if a == &[Attachment::image("ab.png")])
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["is_error"], true);
        assert_eq!(v["structuredContent"]["a"], 1);
    }

    #[test]
    fn a_kept_member_never_takes_a_name_twice() {
        let mut e = Envelope::default();
        e.keep("attachments", "1".into());
        e.keep("_attachments", "2".into());
        e.keep("is_error", "3".into());
        let v: serde_json::Value = serde_json::from_str(&e.render()).unwrap();
        assert_eq!(v["_attachments"], 1);
        assert_eq!(v["__attachments"], 2);
        assert_eq!(v["_is_error"], 3);
        assert_eq!(v["attachments"], serde_json::json!([]));
    }
}
