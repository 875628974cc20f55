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

use serde_json::Map;

use super::wire::{
    Block, Body, Bytes, CachePoint, Document, Extra, Image, InferenceConfig, JsonSchemaDefinition,
    Message, OutputConfig, OutputFormat, OutputStructure, Role, S3Location, Schema, ServiceTier,
    Thinking, Tool, ToolChoice, ToolConfig, ToolResultBlock, ToolSpec, ToolUse,
};
use crate::steps::compose::{
    attachment_label, cache_breakpoints, has_media, long_enough, record_end, slot_file_name,
    text_tokens, text_with_notes, with_callers, Alternating, Placement, OPENING_TEXT,
};
use crate::steps::context::Context;
use crate::steps::declare::Declarations;
use crate::steps::envelope::BEDROCK_BLOCKS;
use crate::steps::walk::{AssistantTurn, Media, Slot, ToolResult, Turn, UserCarrier};
use crate::steps::wire::{AsObject, Keyed, Payload, Sorted, B64};

/// The most `cachePoint` blocks a request carries: "up to 4 cache
/// checkpoints" for Claude
/// (<https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html>,
/// read 2026-12-05).
const MAX_POINTS: usize = 4;

/// Text of a tool result that has neither text nor media.
const NO_OUTPUT: &str = "(no output)";

/// A block's input tokens, estimated for the cached-prefix rule (as
/// Anthropic's writer counts them): text by [`text_tokens`], an image by
/// the model's count, a call's name and input as text, a tool result's
/// blocks; documents and kept blocks as none.
fn block_tokens(block: &Block<'_>, cx: &Context<'_>) -> u64 {
    match block {
        Block::Text(text) => text_tokens(text),
        Block::Image(Image {
            source:
                Bytes {
                    bytes: Some(B64::Payload(p)),
                    ..
                },
            ..
        }) => p.size().map_or(0, |(w, h)| cx.image_tokens(w, h)),
        Block::ToolUse(u) => text_tokens(&u.name).saturating_add(json_tokens(&u.input)),
        Block::ToolResult(r) => r
            .content
            .iter()
            .map(|item| match item {
                Keyed::Known(b) => block_tokens(b, cx),
                Keyed::Other(_) | Keyed::Raw(_) => 0,
            })
            .sum(),
        _ => 0,
    }
}

/// The input tokens of a value's JSON, counted as text.
fn json_tokens(value: &impl serde::Serialize) -> u64 {
    serde_json::to_string(value).map_or(0, |json| text_tokens(&json))
}

/// Build the body.
pub(crate) fn build(turns: Vec<Turn<'_>>, cx: &Context<'_>) -> Body<'static> {
    let mut b = Builder {
        names: HashSet::new(),
        media_in_results: cx.caps.media_in_tool_result,
    };
    let mut system = Vec::new();
    let mut system_marked = false;
    let mut messages = Alternating::new();
    for turn in turns {
        match turn {
            Turn::System(text, cache) => {
                system.extend(text_block(text));
                system_marked |= cache;
            }
            Turn::User(text, cache) => {
                messages.push_record(Role::User, text_block(&text).into_iter().collect(), cache)
            }
            Turn::Assistant(a) => {
                let cache = a.cache;
                messages.push_record(Role::Assistant, b.assistant(a), cache);
            }
            Turn::Results(results) => {
                let (blocks, marked) = b.results(results);
                messages.push_marked(Role::User, blocks, marked);
            }
            Turn::Carrier(c) => {
                let (blocks, marked) = b.carrier(c);
                messages.push_marked(Role::User, blocks, marked);
            }
        }
    }
    let opening = Block::Text(OPENING_TEXT.into());
    let (messages, caller) = messages.finish(Role::User, opening);
    // Caching: <https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html>
    // (read 2026-12-01): a cachePoint block caches everything before it;
    // Claude takes them in system, messages and tools, at most 4; a
    // checkpoint before the model's minimum "is not cached" (read
    // 2026-12-02), so none is placed there (`long_enough`). Every point
    // carries the TTL given: TTLs must not grow from tools to system to
    // messages, which one TTL keeps.
    let point = CachePoint::with_ttl(cx.cache_ttl());
    let (mut tool_config, extra) = declare(cx.declarations);
    // The caller's choice (`none` was refused before: Converse has none).
    if let Some(config) = tool_config.as_mut() {
        config.tool_choice = cx.tool_choice.as_ref().and_then(|choice| match choice {
            crate::steps::params::ToolChoice::Auto => Some(ToolChoice::Auto {}),
            crate::steps::params::ToolChoice::Required => Some(ToolChoice::Any {}),
            crate::steps::params::ToolChoice::Tool(name) => {
                Some(ToolChoice::Tool { name: name.clone() })
            }
            _ => None,
        });
    }
    // Tools come before the system text in the cached prefix.
    let before = tool_config
        .as_ref()
        .map_or(0, |c| json_tokens(&c.tools))
        .saturating_add(system.iter().map(|b| block_tokens(b, cx)).sum());
    let own = cache_breakpoints(&messages, Block::sends_media, cx.cache_breakpoints);
    let own = long_enough(&messages, own, before, cx.cache_min_tokens, |b| {
        block_tokens(b, cx)
    });
    let own_head = cx.cache_breakpoints && cx.cache_min_tokens.is_none_or(|min| before >= min);
    let (marks, head) = with_callers(
        &messages,
        (caller, system_marked),
        (own, own_head),
        MAX_POINTS,
        |_| true,
    );
    let messages = messages
        .into_iter()
        .enumerate()
        .map(|(i, (role, mut content))| {
            // After each marked block, from the last so the indices hold.
            for &(_, b) in marks.iter().rev().filter(|(m, _)| *m == i) {
                content.insert(b + 1, Block::CachePoint(point));
            }
            Message {
                role,
                content: known(content),
            }
        })
        .collect();
    if head {
        match tool_config.as_mut() {
            Some(config) if system.is_empty() => config.tools.push(Tool::CachePoint(point)),
            _ if !system.is_empty() => system.push(Block::CachePoint(point)),
            _ => {}
        }
    }
    // Generation settings: `inferenceConfig` {`maxTokens`, `temperature`,
    // `topP`, `stopSequences`}
    // (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html>,
    // read 2026-12-01); what Converse does not name goes, in the model's
    // own spelling, in `additionalModelRequestFields`: Claude's `top_k` and
    // `thinking` {"type": "enabled", "budget_tokens"}
    // (<https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html>
    // and <https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html>,
    // read 2026-12-01). Those two are refused before for other models.
    let p = cx.params;
    let inference_config = InferenceConfig {
        max_tokens: p.max_tokens,
        temperature: p.temperature,
        top_p: p.top_p,
        stop_sequences: p.stop.clone(),
    };
    let has_inference = p.max_tokens.is_some()
        || p.temperature.is_some()
        || p.top_p.is_some()
        || !p.stop.is_empty();
    let mut extra = extra;
    if p.top_k.is_some() || p.thinking_budget.is_some() {
        // Merged with the typed tools' fields, never a second object.
        let fields = extra.get_or_insert_with(Extra::default);
        fields.top_k = p.top_k;
        fields.thinking = p.thinking_budget.map(|budget_tokens| Thinking {
            kind: "enabled",
            budget_tokens,
        });
    }
    Body {
        system: known(system),
        tool_config,
        inference_config: has_inference.then_some(inference_config),
        additional_model_request_fields: extra,
        // `serviceTier: {"type"}` (botocore 1.44.8's ConverseRequest).
        service_tier: cx
            .params
            .service_tier
            .clone()
            .map(|kind| ServiceTier { kind }),
        // `requestMetadata` (botocore 1.44.8's `ConverseRequest`).
        request_metadata: p.metadata.clone(),
        output_config: p
            .response_format
            .as_ref()
            .and_then(|f| f.schema())
            .map(output_config),
        messages,
    }
}

/// `outputConfig` for a JSON Schema (structured outputs:
/// <https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html>,
/// read 2026-12-06). Converse has no JSON mode without a schema: the
/// settings check refused one before.
fn output_config(s: &crate::steps::params::OutputSchema) -> OutputConfig {
    // Keys sorted, as every caller's object the crate writes.
    let schema = serde_json::to_string(&crate::steps::wire::Sorted(s.schema.clone()))
        .expect("a JSON object serializes");
    OutputConfig {
        text_format: OutputFormat {
            kind: "json_schema",
            structure: OutputStructure {
                json_schema: JsonSchemaDefinition {
                    schema,
                    name: s.name.clone(),
                    description: s.description.clone(),
                },
            },
        },
    }
}

/// `toolConfig.tools[].toolSpec`. Claude's typed tools go, as they are,
/// only in `additionalModelRequestFields.tools` with the `anthropic_beta`
/// they need (the path Converse integrations use for computer use; AWS
/// documents it for InvokeModel): never in both lists, which would give
/// Claude one name twice. `toolConfig` needs at least one tool, so when
/// every tool is typed it holds [`PLACEHOLDER`].
/// Blocks the crate wrote, as a list that may also hold others (a kept
/// block is written as it was).
fn known(blocks: Vec<Block<'static>>) -> Vec<Keyed<Block<'static>>> {
    blocks
        .into_iter()
        .map(|block| match block {
            Block::Kept(raw) => Keyed::Raw(raw),
            block => Keyed::Known(block),
        })
        .collect()
}

fn declare(declarations: &Declarations) -> (Option<ToolConfig<'static>>, Option<Extra>) {
    if declarations.is_empty() {
        return (None, None);
    }
    let spec = |name: &str, description: Option<&str>, schema: Map<_, _>| {
        Tool::ToolSpec(ToolSpec {
            name: name.to_owned().into(),
            description: description
                .filter(|s| !s.trim().is_empty())
                .map(|s| s.to_owned().into()),
            input_schema: Schema {
                json: Sorted(schema),
            },
        })
    };
    let mut tools: Vec<Tool<'static>> = declarations
        .functions()
        .map(|(d, schema)| spec(&d.name, d.description.as_deref(), schema.clone()))
        .collect();
    if tools.is_empty() {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        tools.push(spec(PLACEHOLDER, Some(PLACEHOLDER_DESCRIPTION), schema));
    }
    let typed: Vec<Sorted> = declarations.typed().cloned().map(Sorted).collect();
    let extra = (!typed.is_empty()).then(|| Extra {
        tools: typed,
        anthropic_beta: declarations.betas(),
        ..Extra::default()
    });
    (
        Some(ToolConfig {
            tools,
            tool_choice: None,
        }),
        extra,
    )
}

/// The tool `toolConfig` holds when every declared tool is a typed one
/// (Converse wants at least one there).
pub(crate) const PLACEHOLDER: &str = "no_other_tools";
const PLACEHOLDER_DESCRIPTION: &str =
    "Not a tool: Converse needs one declaration here; the tools are declared as Claude's own.";

/// Put a text block first when `content` has none: a tool result may not
/// be empty, and content holding a document must hold text.
fn ensure_text(content: &mut Vec<Block<'static>>, text: &str) {
    if !content.iter().any(Block::is_text) {
        content.insert(0, Block::Text(text.to_owned().into()));
    }
}

/// A text block, or nothing for text that is empty or only white space
/// (Converse refuses both as blank).
fn text_block(text: &str) -> Option<Block<'static>> {
    (!text.trim().is_empty()).then(|| Block::Text(text.to_owned().into()))
}

struct Builder {
    /// Document names used so far (they must differ).
    names: HashSet<String>,
    /// Whether the model takes images and documents inside `toolResult`
    /// (else they follow the results in the same user message).
    media_in_results: bool,
}

impl Builder {
    fn assistant(&mut self, mut turn: AssistantTurn<'_>) -> Vec<Block<'static>> {
        // The reasoning blocks a Bedrock response left in the history come
        // first, each as the model wrote it (its signature with it):
        // Claude's extended thinking with tool use needs the thinking block
        // of the turn, unchanged, before its text and tool use
        // (<https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html>,
        // read 2026-12-02, and the ReasoningContentBlock of
        // <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html>).
        // The replay step left only those (the API table's row says so).
        let mut blocks: Vec<Block<'static>> = turn
            .take(BEDROCK_BLOCKS)
            .into_iter()
            .map(Block::Kept)
            .collect();
        blocks.extend(turn.text.as_deref().and_then(text_block));
        blocks.extend(turn.calls.into_iter().map(|call| {
            Block::ToolUse(ToolUse {
                tool_use_id: call.id.into(),
                name: call.name.into(),
                input: AsObject(call.arguments),
            })
        }));
        blocks
    }

    /// A batch of results: `toolResult` blocks, then (for a model that
    /// takes no media inside them) each result's media as blocks of the
    /// same message, labelled with the call they came from; and the blocks
    /// the caller marks: a marked result's `toolResult`, a marked
    /// attachment's own block where it follows the results, else the
    /// `toolResult` holding it or its note.
    fn results(&mut self, results: Vec<ToolResult<'_>>) -> (Vec<Block<'static>>, Vec<usize>) {
        let placement = if self.media_in_results {
            Placement::Inside
        } else {
            Placement::AfterResults
        };
        let mut blocks = Vec::with_capacity(results.len());
        let mut marked = Vec::new();
        let mut held = Vec::new();
        for result in results {
            let text = text_with_notes(&result.body, &result.slots, placement);
            let mut content: Vec<Block<'static>> = text_block(&text).into_iter().collect();
            let id = result.call_id;
            let follows = |s: &Slot<'_>| {
                placement == Placement::AfterResults
                    && matches!(s.media, Media::Inline(_) | Media::File(_))
            };
            if result.cache || result.slots.iter().any(|s| s.cache && !follows(s)) {
                marked.push(blocks.len());
            }
            if placement == Placement::Inside {
                content.extend(self.media_blocks(result.slots));
            } else if has_media(&result.slots) {
                held.push((result.name, id.clone(), result.slots));
            }
            if content.is_empty() || content.iter().any(Block::is_document) {
                ensure_text(&mut content, NO_OUTPUT);
            }
            blocks.push(Block::ToolResult(ToolResultBlock {
                tool_use_id: id.into(),
                content: known(content),
                status: result.is_error.then_some("error".into()),
            }));
        }
        for (name, id, slots) in held {
            for slot in slots {
                if matches!(slot.media, Media::Inline(_) | Media::File(_)) {
                    let cache = slot.cache;
                    blocks.push(Block::Text(attachment_label(&name, &id, &slot).into()));
                    blocks.extend(self.media_blocks(vec![slot]));
                    if cache {
                        marked.push(blocks.len() - 1);
                    }
                }
            }
        }
        (blocks, marked)
    }

    /// A carrier's blocks, and those the caller marks: its last for a mark
    /// on the record, the last block so far after an attachment marked
    /// (its own, or the text holding its note).
    fn carrier(&mut self, c: UserCarrier<'_>) -> (Vec<Block<'static>>, Vec<usize>) {
        let text = text_with_notes(&c.text, &c.slots, Placement::Inside);
        let mut blocks: Vec<Block<'static>> = text_block(&text).into_iter().collect();
        let mut marked = Vec::new();
        for slot in c.slots {
            let cache = slot.cache;
            blocks.extend(self.media_blocks(vec![slot]));
            if cache {
                marked.extend(blocks.len().checked_sub(1));
            }
        }
        if blocks.iter().any(Block::is_document) && !blocks.iter().any(Block::is_text) {
            ensure_text(&mut blocks, NO_OUTPUT);
            marked.iter_mut().for_each(|i| *i += 1);
        }
        marked.extend(record_end(blocks.len(), c.cache));
        (blocks, marked)
    }

    fn media_blocks(&mut self, slots: Vec<Slot<'_>>) -> Vec<Block<'static>> {
        let mut blocks = Vec::new();
        for slot in slots {
            let file = slot_file_name(&slot).map(str::to_owned);
            let document = slot.kind == crate::AttachmentKind::Document;
            let (document, media_type, source) = match slot.media {
                Media::Inline(p) => (
                    p.is_document(),
                    p.media_type.as_str().to_owned(),
                    Bytes::base64(B64::Payload(Payload::base64(p))),
                ),
                // An S3 object: the step sends none whose media type it
                // does not know.
                Media::File(f) => match f.media_type_for(document) {
                    Some(t) => (
                        document,
                        t.to_owned(),
                        Bytes {
                            bytes: None,
                            s3_location: Some(S3Location {
                                uri: f.id.clone().into(),
                                bucket_owner: f.bucket_owner.clone().map(Into::into),
                            }),
                        },
                    ),
                    None => continue,
                },
                Media::Url(_) | Media::Note(..) => continue,
            };
            blocks.push(if document {
                Block::Document(Document {
                    format: "pdf".into(),
                    name: self.document_name(file.as_deref()).into(),
                    source,
                })
            } else {
                // png, jpeg, gif, webp: the subtype of the media type.
                let format = media_type.trim_start_matches("image/").to_owned();
                Block::Image(Image {
                    format: format.into(),
                    source,
                })
            });
        }
        blocks
    }

    /// A document name from the attachment's file name (its declared name,
    /// else the target's), in the characters Converse allows: letters,
    /// digits, single spaces, hyphens, parentheses, square brackets, 1 to
    /// 200 characters, unique in the request. The extension is left out,
    /// and so is a content hash (a stored file's name), which says nothing.
    /// Rule: `DocumentBlock.name`,
    /// <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html>
    /// (read 2026-12-02).
    fn document_name(&mut self, file: Option<&str>) -> String {
        let stem = file
            .map(|n| n.rsplit_once('.').map_or(n, |(stem, _)| stem))
            .filter(|stem| !crate::steps::compose::is_content_hash(stem))
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
    use crate::steps::walk::{Call, Kept};
    use crate::steps::wire::Arguments;

    fn raw(json: &str) -> Box<serde_json::value::RawValue> {
        serde_json::value::RawValue::from_string(json.to_owned()).unwrap()
    }

    #[test]
    fn kept_reasoning_blocks_go_first_as_they_were() {
        let reasoning =
            r#"{"reasoningContent":{"reasoningText":{"text":"Hm.","signature":"c2ln"}}}"#;
        let redacted = r#"{"reasoningContent":{"redactedContent":"AAEC"}}"#;
        let turn = AssistantTurn {
            text: Some("Done.".into()),
            calls: vec![Call {
                id: "tooluse_1".into(),
                name: "f".into(),
                arguments: Arguments::from_raw(r#"{"b":1,"a":123456789012345678901234567890}"#),
                signature: None,
            }],
            // What the replay step left (it leaves out what Bedrock is not
            // given back: `steps::replay`'s tests).
            kept: [reasoning, redacted]
                .into_iter()
                .map(|r| Kept {
                    member: BEDROCK_BLOCKS,
                    raw: raw(r),
                })
                .collect(),
            ..AssistantTurn::default()
        };
        let mut b = Builder {
            names: HashSet::new(),
            media_in_results: true,
        };
        let blocks = known(b.assistant(turn));
        assert_eq!(
            serde_json::to_string(&blocks).unwrap(),
            format!(
                r#"[{reasoning},{redacted},{{"text":"Done."}},{{"toolUse":{{"toolUseId":"tooluse_1","name":"f","input":{{"b":1,"a":123456789012345678901234567890}}}}}}]"#
            )
        );
    }

    #[test]
    fn document_names_use_allowed_characters_and_are_unique() {
        let mut b = Builder {
            names: HashSet::new(),
            media_in_results: true,
        };
        // The file names given: a declared name, else the target's base
        // name (slot_file_name), none for a data: URI or a hash.
        let mut name = |file: Option<&str>| b.document_name(file);
        assert_eq!(name(Some("incident-42.pdf")), "incident-42");
        assert_eq!(name(Some("incident-42.pdf")), "incident-42 (2)");
        assert_eq!(name(Some("q3_report.v2.pdf")), "q3-report-v2");
        // No two white-space characters in a row.
        assert_eq!(name(Some("a  b\t\tc.pdf")), "a b c");
        assert_eq!(name(None), "document");
        assert_eq!(name(Some("über.pdf")), "-ber");
        assert_eq!(name(Some("Report.pdf")), "Report");
        assert_eq!(name(Some("report.pdf")), "report (2)");
        let hash = "11a6ea67a4b0c2d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7ae31.pdf";
        assert_eq!(name(Some(hash)), "document (2)");
        assert_eq!(
            name(Some("Q3 report — final  (v2) [draft].pdf")),
            "Q3 report - final (v2) [draft]"
        );
        // At most 200 characters, the suffix included.
        let long = name(Some(&format!("{}.pdf", "x".repeat(300))));
        assert!(long.chars().count() <= 200 && !long.is_empty());
    }
}
