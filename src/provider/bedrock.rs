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
//! * Only Claude (3 and later) and Nova take images and documents inside
//!   `toolResult`; for any other model ([`crate::provider::model`]) they
//!   follow the batch's `toolResult` blocks in the same `user` message
//!   (Converse needs alternating roles), each labelled with its call.
//! * `toolConfig.tools` declares every tool; Converse has no "none" tool
//!   choice, so minimal declarations are all it can send.
//! * Tool-use ids are made to match `[a-zA-Z0-9_.:-]{1,64}` and tool names
//!   `[a-zA-Z0-9_-]{1,64}`; document names use the characters Converse
//!   allows and are unique in the request.
//! * Converse refuses blank text, so empty text blocks are left out and an
//!   empty tool result says `(no output)`. URL targets are notes (Converse
//!   takes bytes or S3 locations only). The model is named in the URL.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::declare::Declarations;
use super::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use super::{
    attachment_label, base64_value, file_name, has_media, text_with_notes, Alternating, Context,
    Placement, OPENING_TEXT,
};

/// Text of a tool result that has neither text nor media.
const NO_OUTPUT: &str = "(no output)";

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Value {
    let mut b = Builder {
        names: HashSet::new(),
        media_in_results: cx.facts.media_in_tool_result,
    };
    let mut system = Vec::new();
    let mut messages = Alternating::new();
    for turn in turns {
        match turn {
            Turn::System(text) => system.extend(text_block(text)),
            Turn::User(text) => messages.push("user", text_block(&text).into_iter().collect()),
            Turn::Assistant(a) => messages.push("assistant", b.assistant(a)),
            Turn::Results(results) => messages.push("user", b.results(results)),
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
    declare(cx.declarations, &mut body);
    Value::Object(body)
}

/// `toolConfig.tools[].toolSpec`. Claude's typed tools go, as they are,
/// only in `additionalModelRequestFields.tools` with the `anthropic_beta`
/// they need (the path Converse integrations use for computer use; AWS
/// documents it for InvokeModel): never in both lists, which would give
/// Claude one name twice. `toolConfig` needs at least one tool, so when
/// every tool is typed it holds [`PLACEHOLDER`].
fn declare(declarations: &Declarations, body: &mut Map<String, Value>) {
    if declarations.is_empty() {
        return;
    }
    let spec = |name: &str, description: Option<&str>, schema: &Map<String, Value>| {
        let mut spec = Map::new();
        spec.insert("name".into(), name.into());
        if let Some(description) = description.filter(|s| !s.trim().is_empty()) {
            spec.insert("description".into(), description.into());
        }
        spec.insert("inputSchema".into(), json!({ "json": schema }));
        json!({ "toolSpec": spec })
    };
    let mut tools: Vec<Value> = declarations
        .functions()
        .map(|(d, schema)| spec(&d.name, d.description.as_deref(), schema))
        .collect();
    if tools.is_empty() {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        tools.push(spec(PLACEHOLDER, Some(PLACEHOLDER_DESCRIPTION), &schema));
    }
    body.insert("toolConfig".into(), json!({ "tools": tools }));
    let typed: Vec<Value> = declarations.typed().cloned().map(Value::Object).collect();
    if !typed.is_empty() {
        let mut extra = Map::new();
        extra.insert("tools".into(), typed.into());
        let betas = declarations.betas();
        if !betas.is_empty() {
            extra.insert("anthropic_beta".into(), betas.into());
        }
        body.insert("additionalModelRequestFields".into(), Value::Object(extra));
    }
}

/// The tool `toolConfig` holds when every declared tool is a typed one
/// (Converse wants at least one there).
pub(crate) const PLACEHOLDER: &str = "no_other_tools";
const PLACEHOLDER_DESCRIPTION: &str =
    "Not a tool: Converse needs one declaration here; the tools are declared as Claude's own.";

/// Put a text block first when `content` has none: a tool result may not
/// be empty, and content holding a document must hold text.
fn ensure_text(content: &mut Vec<Value>, text: &str) {
    if !content.iter().any(|b| b.get("text").is_some()) {
        content.insert(0, json!({ "text": text }));
    }
}

/// A text block, or nothing for text that is empty or only white space
/// (Converse refuses both as blank).
fn text_block(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({ "text": text }))
}

struct Builder {
    /// Document names used so far (they must differ).
    names: HashSet<String>,
    /// Whether the model takes images and documents inside `toolResult`
    /// (else they follow the results in the same user message).
    media_in_results: bool,
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
                "toolUseId": call.id,
                "name": call.name,
                "input": call.arguments.to_object(),
            }}));
        }
        blocks
    }

    /// A batch of results: `toolResult` blocks, then (for a model that
    /// takes no media inside them) each result's media as blocks of the
    /// same message, labelled with the call they came from.
    fn results(&mut self, results: Vec<ToolResult<'_>>) -> Vec<Value> {
        let placement = if self.media_in_results {
            Placement::Inside
        } else {
            Placement::AfterResults
        };
        let mut blocks = Vec::with_capacity(results.len());
        let mut held = Vec::new();
        for result in results {
            let text = text_with_notes(&result.body, &result.slots, placement);
            let mut content: Vec<Value> = text_block(&text).into_iter().collect();
            let id = result.call_id;
            if placement == Placement::Inside {
                content.extend(self.media_blocks(result.slots));
            } else if has_media(&result.slots) {
                held.push((result.name, id.clone(), result.slots));
            }
            if content.is_empty() || content.iter().any(|b| b.get("document").is_some()) {
                ensure_text(&mut content, NO_OUTPUT);
            }
            blocks.push(json!({"toolResult": {"toolUseId": id, "content": content}}));
        }
        for (name, id, slots) in held {
            for slot in slots {
                if matches!(slot.media, Media::Inline(_)) {
                    blocks.push(json!({"text": attachment_label(&name, &id, &slot)}));
                    blocks.extend(self.media_blocks(vec![slot]));
                }
            }
        }
        blocks
    }

    fn carrier(&mut self, c: UserCarrier<'_>) -> Vec<Value> {
        let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
        let mut blocks: Vec<Value> = text_block(&text).into_iter().collect();
        blocks.extend(self.media_blocks(c.slots));
        if blocks.iter().any(|b| b.get("document").is_some()) {
            ensure_text(&mut blocks, NO_OUTPUT);
        }
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
        // Converse compares the names without regard to case.
        let mut unique = name.clone();
        let mut n = 2;
        while self.names.contains(&unique.to_lowercase()) {
            unique = format!("{name} ({n})");
            n += 1;
        }
        self.names.insert(unique.to_lowercase());
        unique
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_names_use_allowed_characters_and_are_unique() {
        let mut b = Builder {
            names: HashSet::new(),
            media_in_results: true,
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
        assert_eq!(b.document_name("a/Report.pdf"), "Report");
        assert_eq!(b.document_name("b/report.pdf"), "report (2)");
    }
}
