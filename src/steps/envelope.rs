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

use crate::json::push_json_str;
use crate::Attachment;

pub use crate::carrier::IS_ERROR;

/// The member of the assistant envelope that keeps Anthropic's thinking
/// blocks, replayed to Anthropic alone.
pub const ANTHROPIC_THINKING: &str = "anthropic_thinking";

/// The member of the assistant envelope that keeps Gemini's thought
/// signatures, `{call id: signature}`, replayed to Gemini alone.
pub const GEMINI_SIGNATURES: &str = "gemini_thought_signatures";

/// The members the envelope writes itself.
const RESERVED: [&str; 4] = ["tool_call_id", "content", IS_ERROR, "attachments"];

/// A tool result on its way to being a native carrier.
#[derive(Clone, Debug, Default)]
pub(crate) struct Envelope {
    pub call_id: Option<String>,
    pub body: String,
    pub is_error: bool,
    /// `(name, JSON text)`, in order.
    pub extra: Vec<(String, String)>,
    pub attachments: Vec<Attachment<'static>>,
}

impl Envelope {
    /// Add a line to the body.
    pub fn line(&mut self, text: &str) {
        if !self.body.is_empty() {
            self.body.push('\n');
        }
        self.body.push_str(text);
    }

    /// Keep a member of the source as `name` (JSON text): a name the
    /// envelope uses itself, or one already kept, gets `_` in front until
    /// it is free, so no member is written twice.
    pub fn keep(&mut self, name: &str, json: String) {
        let mut name = name.to_owned();
        while RESERVED.contains(&name.as_str()) || self.extra.iter().any(|(n, _)| *n == name) {
            name.insert(0, '_');
        }
        self.extra.push((name, json));
    }

    /// The envelope's JSON text.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.body.len() + 64);
        out.push('{');
        if let Some(id) = &self.call_id {
            out.push_str("\"tool_call_id\":");
            push_json_str(&mut out, id);
            out.push(',');
        }
        out.push_str("\"content\":");
        push_json_str(&mut out, &self.body);
        if self.is_error {
            out.push_str(",\"");
            out.push_str(IS_ERROR);
            out.push_str("\":true");
        }
        for (name, json) in &self.extra {
            out.push(',');
            push_json_str(&mut out, name);
            out.push(':');
            out.push_str(json);
        }
        out.push_str(",\"attachments\":[");
        for (i, a) in self.attachments.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"kind\":\"");
            out.push_str(a.kind.as_str());
            out.push_str("\",\"target\":");
            push_json_str(&mut out, &a.target);
            out.push('}');
        }
        out.push_str("]}");
        out
    }
}

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
