//! Amazon Bedrock Converse (the JSON body of `POST /model/{modelId}/converse`).
//!
//! ```json
//! {"system": [{"text": "…"}],
//!  "messages": [
//!    {"role": "assistant", "content": [
//!      {"text": "…"},
//!      {"toolUse": {"toolUseId": "call_1", "name": "…", "input": {…}}}]},
//!    {"role": "user", "content": [
//!      {"toolResult": {"toolUseId": "call_1", "content": [
//!        {"text": "…"},
//!        {"image": {"format": "png", "source": {"bytes": "<base64>"}}},
//!        {"document": {"format": "pdf", "name": "incident-42", "source": {"bytes": "<base64>"}}}]}}]}]}
//! ```
//!
//! * Blobs travel as base64 in JSON (the AWS SDKs encode raw bytes so).
//! * Roles alternate and the first message is the user's, as Converse
//!   requires; system messages are joined into the top-level `system`.
//! * Tool-use ids are made to match `[a-zA-Z0-9_.:-]{1,64}` and tool names
//!   `[a-zA-Z0-9_-]{1,64}`; document names use the characters Converse
//!   allows and are unique in the request.
//! * Converse refuses blank text, so empty text blocks are left out and an
//!   empty tool result says `(no output)`. URL targets are notes (Converse
//!   takes bytes or S3 locations only). The model is named in the URL.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{
    base64_value, file_name, sanitize, text_with_notes, word_char, Alternating, Context, Ids,
    OPENING_TEXT,
};

/// Text of a tool result that has neither text nor media.
const NO_OUTPUT: &str = "(no output)";

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, _cx: &Context<'_>) -> Value {
    let mut b = Builder {
        ids: Ids::new(id_char, 64),
        names: HashSet::new(),
    };
    let mut system = Vec::new();
    let mut messages = Alternating::new();
    for turn in turns {
        match turn {
            Turn::System(text) => system.extend(text_block(text)),
            Turn::User(text) => messages.push("user", text_block(&text).into_iter().collect()),
            Turn::Assistant(a) => messages.push("assistant", b.assistant(a)),
            Turn::Results(results) => messages.push(
                "user",
                results.into_iter().map(|r| b.tool_result(r)).collect(),
            ),
            Turn::Carrier(c) => messages.push("user", b.carrier(c)),
        }
    }
    let messages: Vec<Value> = messages
        .finish(json!({"text": OPENING_TEXT}))
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut body = Map::new();
    if !system.is_empty() {
        body.insert("system".into(), system.into());
    }
    body.insert("messages".into(), messages.into());
    Value::Object(body)
}

/// `[a-zA-Z0-9_.:-]`: Converse tool-use ids.
fn id_char(c: char) -> bool {
    word_char(c) || c == '.' || c == ':'
}

fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"text": text}))
}

struct Builder {
    ids: Ids,
    /// Document names used so far (they must differ).
    names: HashSet<String>,
}

impl Builder {
    fn assistant(&mut self, turn: AssistantTurn<'_>) -> Vec<Value> {
        let mut blocks: Vec<Value> = turn
            .text
            .as_deref()
            .and_then(text_block)
            .into_iter()
            .collect();
        for call in turn.calls {
            blocks.push(json!({"toolUse": {
                "toolUseId": self.ids.get(&call.id),
                "name": sanitize(&call.name, word_char, 64, "tool"),
                "input": call.arguments.to_object(),
            }}));
        }
        blocks
    }

    fn tool_result(&mut self, result: ToolResult<'_>) -> Value {
        let text = text_with_notes(&result.body, &result.slots, false);
        let mut content: Vec<Value> = text_block(&text).into_iter().collect();
        content.extend(self.media_blocks(result.slots));
        if content.is_empty() {
            content.push(json!({"text": NO_OUTPUT}));
        }
        json!({"toolResult": {"toolUseId": self.ids.get(&result.call_id), "content": content}})
    }

    fn carrier(&mut self, c: UserCarrier<'_>) -> Vec<Value> {
        let text = text_with_notes(&c.text, &c.slots, false);
        let mut blocks: Vec<Value> = text_block(&text).into_iter().collect();
        blocks.extend(self.media_blocks(c.slots));
        blocks
    }

    fn media_blocks(&mut self, slots: Vec<Slot<'_>>) -> Vec<Value> {
        let mut blocks = Vec::new();
        for slot in slots {
            let Media::Inline(p) = slot.media else {
                continue;
            };
            let (kind, mut block) = if p.is_document() {
                let name = self.document_name(&slot.target);
                ("document", json!({"format": "pdf", "name": name}))
            } else {
                // png, jpeg, gif, webp: the subtype of the media type.
                let format = p.media_type.as_str().trim_start_matches("image/");
                ("image", json!({"format": format}))
            };
            block["source"] = json!({});
            block["source"]["bytes"] = base64_value(&p);
            let mut wrapper = Map::new();
            wrapper.insert(kind.into(), block);
            blocks.push(Value::Object(wrapper));
        }
        blocks
    }

    /// A document name from the target's file name, in the characters
    /// Converse allows (letters, digits, single spaces, hyphens,
    /// parentheses, square brackets), at most 200, unique in the request.
    fn document_name(&mut self, target: &str) -> String {
        let stem = file_name(target)
            .map(|n| n.rsplit_once('.').map_or(n, |(stem, _)| stem))
            .unwrap_or("");
        let mut name = String::new();
        for c in stem.chars() {
            let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') {
                c
            } else if c.is_whitespace() {
                ' '
            } else {
                '-'
            };
            if c == ' ' && (name.is_empty() || name.ends_with(' ')) {
                continue;
            }
            name.push(c);
        }
        let mut name: String = name.trim_end().chars().take(190).collect();
        if name.trim().is_empty() {
            name = "document".into();
        }
        let name = name.trim_end().to_owned();
        let mut unique = name.clone();
        let mut n = 2;
        while self.names.contains(&unique) {
            unique = format!("{name} ({n})");
            n += 1;
        }
        self.names.insert(unique.clone());
        unique
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_names_use_allowed_characters_and_are_unique() {
        let mut b = Builder {
            ids: Ids::new(id_char, 64),
            names: HashSet::new(),
        };
        assert_eq!(b.document_name("reports/incident-42.pdf"), "incident-42");
        assert_eq!(b.document_name("other/incident-42.pdf"), "incident-42 (2)");
        assert_eq!(b.document_name("q3_report.v2.pdf"), "q3-report-v2");
        assert_eq!(b.document_name("a  b c.pdf"), "a b c");
        assert_eq!(
            b.document_name("data:application/pdf;base64,AA"),
            "document"
        );
        assert_eq!(b.document_name("über.pdf"), "-ber");
    }
}
