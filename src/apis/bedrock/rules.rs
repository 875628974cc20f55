//! Amazon Bedrock Converse (`POST /model/{modelId}/converse`).

use std::collections::HashSet;

use crate::json::tree::Json as Value;

use crate::facts::ids::bedrock_family;
use crate::facts::Family;
use crate::steps::path::Path;
use crate::steps::rule::{array, at, fits, idx, rule, string, word, Out, Rule, Target};

const API: &str =
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html";
const MESSAGE: &str =
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html";
const READ: &str = "2026-12-01";

rule!(MESSAGE_COUNT, "bedrock/message-count", "a Converse request for a model id holds at least one message, and the conversation starts with a user message", API, Documented);
rule!(
    TOOL_CONFIG,
    "bedrock/tool-config",
    "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
    API,
    Observed
);
rule!(
    CHOICE_DECLARED,
    "bedrock/tool-choice-declared",
    "a toolChoice of one tool names a tool the request declares",
    API,
    Prudent
);
rule!(REQUEST_METADATA, "bedrock/request-metadata", "requestMetadata: 1 to 16 pairs, keys of 1 to 256 and values of 0 to 256 of the characters [a-zA-Z0-9 whitespace :_@$#=/+,-.]", "https://github.com/boto/botocore/blob/1.44.8/botocore/data/bedrock-runtime/2023-09-30/service-2.json (RequestMetadata)", Documented);
rule!(CALLS_DECLARED, "bedrock/calls-declared", "every toolUse names a tool of toolConfig (or, for Claude, of additionalModelRequestFields.tools)", API, Prudent);
rule!(
    NAMES,
    "bedrock/names-and-ids",
    "tool names match [a-zA-Z0-9_-]+ and toolUseIds [a-zA-Z0-9_.:-]+, each 1 to 64 characters",
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html",
    Documented
);
rule!(NAME_UNIQUE, "bedrock/tool-names-unique", "no tool name is declared twice, in toolConfig or beside it in additionalModelRequestFields.tools (Claude refuses a request whose tool names repeat)", API, Prudent);
rule!(
    ID_UNIQUE,
    "bedrock/tool-use-id-unique",
    "each toolUseId is used by one toolUse only (as Claude, behind Converse, demands)",
    API,
    Prudent
);
rule!(PAIRING, "bedrock/results-follow-calls", "each toolUse is answered by a toolResult in the next (user) message, and each toolResult answers a toolUse of the message before", "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html", Documented);
rule!(
    ALTERNATE,
    "bedrock/alternating-roles",
    "a conversation starts with a user message and alternates between user and assistant",
    API,
    Documented
);
rule!(MEDIA_COUNTS, "bedrock/media-counts", "up to 20 images (each at most 3.75 MB and 8000×8000 px) and 5 documents (each at most 4.5 MB); the page states it per message, the check counts the whole request (stricter)", MESSAGE, Documented);
rule!(MANY_MEDIA_SIZE, "bedrock/many-media-size", "on Bedrock, documents count with images toward Claude's \"more than 20\", over which each image is at most 2000×2000 px", "https://platform.claude.com/docs/en/build-with-claude/vision", Documented);
rule!(
    MEDIA_IN_USER,
    "bedrock/media-in-user-messages",
    "images and documents go in user messages only",
    MESSAGE,
    Documented
);
rule!(MEDIA_IN_RESULT, "bedrock/media-in-tool-result", "images and documents inside a toolResult are supported by Amazon Nova and Anthropic Claude 3 and later only", "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultContentBlock.html", Documented);
rule!(DOCUMENT_NAME, "bedrock/document-name", "a document name is 1 to 200 of letters, digits, single spaces, hyphens, parentheses and square brackets, and no two documents share one (\"Messages can't contain duplicate document names\")", "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html", Documented);
rule!(
    DOCUMENT_TEXT,
    "bedrock/document-needs-text",
    "content that holds a document block also holds a text block",
    MESSAGE,
    Documented
);
rule!(
    BLANK_TEXT,
    "bedrock/no-blank-text",
    "text blocks are not blank (\"The text field in the ContentBlock object is blank\")",
    API,
    Observed
);
rule!(
    REQUEST_SIZE,
    "bedrock/request-size",
    "a request to Claude on Bedrock is at most 20 MB",
    "https://platform.claude.com/docs/en/api/overview",
    Documented
);

rule!(CACHE_POINTS, "bedrock/cache-points", "cachePoint blocks only for models with prompt caching (the crate marks them for Claude), at most 4", "https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html", Documented);

rule!(
    CACHE_TTL,
    "bedrock/cache-ttl",
    "a cachePoint's ttl is 5m or 1h, and 1h only for Claude from 4.5 on (Claude Sonnet 4.5, Haiku 4.5 and Opus 4.5 first)",
    "https://aws.amazon.com/about-aws/whats-new/2026/01/amazon-bedrock-one-hour-duration-prompt-caching/",
    Documented
);

/// The Claude models on Bedrock whose cache checkpoints take no one-hour
/// `ttl` ([`CACHE_TTL`]): Bedrock added it on 2026-01-26 for "Claude
/// Sonnet 4.5, Claude Haiku 4.5, and Claude Opus 4.5" (read 2026-12-02,
/// and the CachePointBlock reference:
/// <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html>),
/// and later tables list it for each Claude since. These, from before,
/// keep the five-minute default. A closed list: no new model joins it.
const FIVE_MINUTE_CLAUDES: [&str; 9] = [
    "claude-3-haiku",
    "claude-3-sonnet",
    "claude-3-opus",
    "claude-3-5-haiku",
    "claude-3-5-sonnet",
    "claude-3-7-sonnet",
    "claude-sonnet-4",
    "claude-opus-4",
    "claude-opus-4-1",
];

/// Whether `model`, a Bedrock model id, names a Claude that keeps its
/// cache five minutes only (the id read as [`Facts::model`] reads it:
/// past its profile and vendor prefixes, up to a snapshot suffix).
///
/// [`Facts::model`]: crate::facts::Facts::model
pub(crate) fn five_minute_cache_only(model: &str) -> bool {
    FIVE_MINUTE_CLAUDES
        .iter()
        .any(|id| crate::facts::names_model(crate::facts::ids::ModelIds::Bedrock, model, id))
}

rule!(INFERENCE, "bedrock/inference-config", "inferenceConfig: maxTokens at least 1, temperature and topP from 0 to 1", "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html", Documented);
rule!(
    THINKING_BUDGET,
    "bedrock/thinking-budget",
    "Claude's thinking.budget_tokens is at least 1024 and less than the maximum tokens",
    "https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html",
    Documented
);

rule!(
    OUTPUT_CAP,
    "bedrock/max-tokens-cap",
    "`inferenceConfig.maxTokens` is at most the model's documented maximum output (each model's `max_output` in the facts, with the page it was read on)",
    "https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html",
    Documented
);

rule!(
    PDF_PAGES,
    "bedrock/pdf-pages",
    "Claude requires PDF documents to be a maximum of 100 pages per request (held for every model)",
    "https://docs.aws.amazon.com/bedrock/latest/userguide/inference-api-restrictions.html",
    Documented
);

rule!(
    MEMBERS,
    "bedrock/members",
    "every member of the body, and of the settings' objects in it, is one the official SDK's request types list (the API refuses an unknown parameter)",
    "https://pypi.org/project/botocore/ (the pinned service model's ConverseRequest)",
    Documented
);

rule!(
    OUTPUT_SCHEMA,
    "bedrock/output-schema",
    "outputConfig's jsonSchema.schema is a JSON object written as a string; each object in it sets additionalProperties to false; it uses no numeric constraints, no string lengths and no array constraint but a minItems of 0 or 1",
    "https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html; botocore 1.44.8's JsonSchemaDefinition (schema: a string)",
    Documented,
    "2026-12-06"
);

pub(crate) static RULES: &[&Rule] = &[
    &OUTPUT_SCHEMA,
    &CHOICE_DECLARED,
    &REQUEST_METADATA,
    &MEMBERS,
    &OUTPUT_CAP,
    &PDF_PAGES,
    &INFERENCE,
    &THINKING_BUDGET,
    &MESSAGE_COUNT,
    &TOOL_CONFIG,
    &CALLS_DECLARED,
    &NAMES,
    &NAME_UNIQUE,
    &ID_UNIQUE,
    &PAIRING,
    &ALTERNATE,
    &MEDIA_COUNTS,
    &MANY_MEDIA_SIZE,
    &MEDIA_IN_USER,
    &MEDIA_IN_RESULT,
    &DOCUMENT_NAME,
    &DOCUMENT_TEXT,
    &BLANK_TEXT,
    &REQUEST_SIZE,
    &CACHE_POINTS,
    &CACHE_TTL,
];

/// `outputConfig.textFormat.structure.jsonSchema.schema`: a JSON object
/// in a string, held to what the grammar can follow.
fn output_schema(body: &Value, out: &mut Out) {
    use crate::steps::output_rules::{closed_objects, no_keywords, CONSTRAINTS};
    let path = "$.outputConfig.textFormat.structure.jsonSchema.schema";
    let Some(schema) = body
        .get("outputConfig")
        .and_then(|c| c.get("textFormat"))
        .and_then(|f| f.get("structure"))
        .and_then(|s| s.get("jsonSchema"))
        .and_then(|j| j.get("schema"))
    else {
        return;
    };
    let Some(text) = schema.as_str() else {
        out.push(&OUTPUT_SCHEMA, path, "not a string");
        return;
    };
    match Value::from_str(text) {
        Ok(schema @ Value::Object(_)) => {
            closed_objects(&OUTPUT_SCHEMA, &schema, path, out);
            no_keywords(&OUTPUT_SCHEMA, &schema, path, CONSTRAINTS, out);
        }
        _ => out.push(&OUTPUT_SCHEMA, path, "not a JSON object"),
    }
}

fn id_char(c: char) -> bool {
    word(c) || c == '.' || c == ':'
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '(' | ')' | '[' | ']')
}

struct Tally<'b> {
    /// Bedrock's limits, as the facts state them.
    limits: &'b crate::facts::Limits,
    images: usize,
    documents: usize,
    /// Each image's path and size, for the many-media rule.
    sizes: Vec<(String, u32, u32)>,
    names: HashSet<String>,
    media_in_results: bool,
    role: &'b str,
}

pub(crate) fn check(target: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::members_listed(&MEMBERS, super::SPEC.members, super::SPEC.also, body, out);
    output_schema(body, out);
    crate::steps::rule::pdf_limits(&PDF_PAGES, None, target, body, out);
    crate::steps::rule::output_cap(
        &OUTPUT_CAP,
        target,
        body,
        &["inferenceConfig", "maxTokens"],
        out,
    );
    let config = &body["inferenceConfig"];
    let max_tokens = crate::steps::rule::number(config, "maxTokens");
    if max_tokens.is_some_and(|n| n < 1.0) {
        out.push(&INFERENCE, "$.inferenceConfig.maxTokens", "below 1");
    }
    for key in ["temperature", "topP"] {
        crate::steps::rule::in_range(
            &INFERENCE,
            config,
            "$.inferenceConfig",
            key,
            (0.0, 1.0),
            out,
        );
    }
    let thinking = &body["additionalModelRequestFields"]["thinking"];
    if let Some(budget) = crate::steps::rule::number(thinking, "budget_tokens") {
        if budget < 1024.0 || max_tokens.is_some_and(|m| budget >= m) {
            out.push(
                &THINKING_BUDGET,
                "$.additionalModelRequestFields.thinking.budget_tokens",
                format!("{budget}"),
            );
        }
    }
    crate::steps::rule::message_count(&MESSAGE_COUNT, body, "messages", usize::MAX, out);
    let family = target.family.or_else(|| bedrock_family(target.model));
    let mut points = Vec::new();
    crate::steps::rule::members_named(body, "cachePoint", crate::steps::path::ROOT, &mut points);
    if let Some((path, _)) = points.first() {
        if !matches!(family, Some(Family::Claude | Family::Nova)) {
            out.push(
                &CACHE_POINTS,
                path.clone(),
                "a model without prompt caching",
            );
        }
    }
    // A one-hour TTL for a Claude from 4.5 on; the crate writes none for
    // any other model.
    let hour = matches!(family, Some(Family::Claude)) && !five_minute_cache_only(target.model);
    for (path, point) in &points {
        let Some(ttl) = point.get("ttl") else {
            continue;
        };
        match ttl.as_str() {
            Some("5m") => {}
            Some("1h") if hour => {}
            Some(other) => out.push(
                &CACHE_TTL,
                format!("{path}.ttl"),
                format!("{other:?} for {}", target.model),
            ),
            None => out.push(&CACHE_TTL, format!("{path}.ttl"), "not a string"),
        }
    }
    if points.len() > 4 {
        out.push(
            &CACHE_POINTS,
            points[4].0.clone(),
            format!("{} cache points", points.len()),
        );
    }
    let config = body.get("toolConfig");
    let mut declared = HashSet::new();
    for (t, tool) in config
        .map_or(&[][..], |c| array(c, "tools"))
        .iter()
        .enumerate()
    {
        if let Some(name) = tool.get("toolSpec").and_then(|s| string(s, "name")) {
            if !fits(name, 64, word) {
                out.push(
                    &NAMES,
                    at(&idx("$.toolConfig.tools", t), "toolSpec.name"),
                    format!("{name:?}"),
                );
            }
            if !declared.insert(name) {
                out.push(
                    &NAME_UNIQUE,
                    at(&idx("$.toolConfig.tools", t), "toolSpec.name"),
                    format!("{name:?} again"),
                );
            }
        }
    }
    let extra_tools = body
        .get("additionalModelRequestFields")
        .map_or(&[][..], |e| array(e, "tools"));
    for (t, tool) in extra_tools.iter().enumerate() {
        let Some(name) = string(tool, "name") else {
            continue;
        };
        if declared.contains(name) {
            out.push(
                &NAME_UNIQUE,
                idx("$.additionalModelRequestFields.tools", t),
                format!("{name:?} is in toolConfig too"),
            );
        }
        // Only Claude reads the extra fields' tools.
        if family == Some(Family::Claude) {
            declared.insert(name);
        }
    }
    let chosen = config
        .and_then(|c| c.get("toolChoice"))
        .and_then(|c| c.get("tool"))
        .and_then(|t| string(t, "name"));
    if let Some(name) = chosen.filter(|n| !declared.contains(n)) {
        out.push(
            &CHOICE_DECLARED,
            "$.toolConfig.toolChoice.tool.name",
            format!("{name:?} is not declared"),
        );
    }
    request_metadata(body, out);
    let messages = array(body, "messages");
    if messages.first().and_then(|m| string(m, "role")) != Some("user") {
        out.push(
            &ALTERNATE,
            "$.messages[0]",
            "the first message is not the user's",
        );
    }
    let limits = &target.facts.api(target.provider).limits;
    let mut tally = Tally {
        limits,
        images: 0,
        documents: 0,
        sizes: Vec::new(),
        names: HashSet::new(),
        media_in_results: matches!(family, Some(Family::Claude | Family::Nova)),
        role: "",
    };
    let mut tool_blocks = false;
    let mut use_ids = HashSet::new();
    let at_messages = Path::Root("$.messages");
    for (m, message) in messages.iter().enumerate() {
        let path = at_messages.index(m);
        let content_at = path.key("content");
        let role = string(message, "role").unwrap_or("");
        if m > 0 && string(&messages[m - 1], "role") == Some(role) {
            out.push(&ALTERNATE, path, format!("two {role} messages in a row"));
        }
        tally.role = role;
        let content = array(message, "content");
        content_rules(content, content_at, false, &mut tally, out);
        let uses: Vec<&str> = content
            .iter()
            .filter_map(|b| b.get("toolUse"))
            .filter_map(|u| string(u, "toolUseId"))
            .collect();
        for (b, block) in content.iter().enumerate() {
            let bpath = content_at.index(b);
            if let Some(tool_use) = block.get("toolUse") {
                tool_blocks = true;
                let id = string(tool_use, "toolUseId").unwrap_or("");
                let name = string(tool_use, "name").unwrap_or("");
                if !fits(id, 64, id_char) {
                    out.push(&NAMES, bpath.key("toolUse.toolUseId"), format!("{id:?}"));
                }
                if !use_ids.insert(id) {
                    out.push(
                        &ID_UNIQUE,
                        bpath.key("toolUse.toolUseId"),
                        format!("{id:?} again"),
                    );
                }
                if !fits(name, 64, word) {
                    out.push(&NAMES, bpath.key("toolUse.name"), format!("{name:?}"));
                }
                if !declared.contains(name) {
                    out.push(
                        &CALLS_DECLARED,
                        bpath.key("toolUse.name"),
                        format!("{name:?}"),
                    );
                }
            }
            if let Some(result) = block.get("toolResult") {
                tool_blocks = true;
                let id = string(result, "toolUseId").unwrap_or("");
                let asked = m.checked_sub(1).is_some_and(|p| {
                    array(&messages[p], "content")
                        .iter()
                        .filter_map(|b| b.get("toolUse"))
                        .any(|u| string(u, "toolUseId") == Some(id))
                });
                if !asked {
                    out.push(
                        &PAIRING,
                        bpath,
                        format!("toolResult {id:?} answers no toolUse of the message before"),
                    );
                }
                content_rules(
                    array(result, "content"),
                    bpath.key("toolResult.content"),
                    true,
                    &mut tally,
                    out,
                );
            }
        }
        if !uses.is_empty() {
            let answered: Vec<&str> = messages
                .get(m + 1)
                .map(|n| {
                    array(n, "content")
                        .iter()
                        .filter_map(|b| b.get("toolResult"))
                        .filter_map(|r| string(r, "toolUseId"))
                        .collect()
                })
                .unwrap_or_default();
            for id in uses {
                if !answered.contains(&id) {
                    out.push(
                        &PAIRING,
                        path,
                        format!("toolUse {id:?} is not answered in the next message"),
                    );
                }
            }
        }
    }
    if tool_blocks && config.is_none_or(|c| array(c, "tools").is_empty()) {
        out.push(
            &TOOL_CONFIG,
            "$",
            "toolUse or toolResult blocks, and no toolConfig tools",
        );
    }
    let media = tally.images
        + if limits.many_images.is_some_and(|m| m.documents) {
            tally.documents
        } else {
            0
        };
    if let Some(many) = limits.many_images.filter(|m| media as u64 > m.over) {
        if family == Some(Family::Claude) {
            for (path, w, h) in &tally.sizes {
                if *w > many.max_dim || *h > many.max_dim {
                    out.push(
                        &MANY_MEDIA_SIZE,
                        path.clone(),
                        format!("{w}×{h} in a request of {media} images and documents"),
                    );
                }
            }
        }
    }
    if over(tally.images, limits.max_images) || over(tally.documents, limits.max_documents) {
        out.push(
            &MEDIA_COUNTS,
            "$.messages",
            format!("{} images and {} documents", tally.images, tally.documents),
        );
    }
}

/// Whether `n` is over a cap (none: never).
fn over(n: usize, cap: Option<u64>) -> bool {
    cap.is_some_and(|cap| n as u64 > cap)
}

fn content_rules(
    content: &[Value],
    path: Path<'_>,
    in_result: bool,
    tally: &mut Tally<'_>,
    out: &mut Out,
) {
    let has_text = content.iter().any(|b| b.get("text").is_some());
    for (b, block) in content.iter().enumerate() {
        let bpath = path.index(b);
        if let Some(text) = block.get("text").and_then(Value::as_str) {
            if text.trim().is_empty() {
                out.push(&BLANK_TEXT, bpath, "blank text");
            }
        }
        let kind = if block.get("image").is_some() {
            "image"
        } else if block.get("document").is_some() {
            "document"
        } else {
            continue;
        };
        if tally.role != "user" {
            out.push(
                &MEDIA_IN_USER,
                bpath,
                format!("an {kind} in a {} message", tally.role),
            );
        }
        if in_result && !tally.media_in_results {
            out.push(
                &MEDIA_IN_RESULT,
                bpath,
                format!(
                    "an {kind} inside a toolResult for a model that is neither Claude nor Nova"
                ),
            );
        }
        let inner = &block[kind];
        let bytes = inner["source"]["bytes"].as_str();
        let size = bytes.and_then(crate::steps::rule::decoded_len).unwrap_or(0);
        if kind == "image" {
            tally.images += 1;
            let dims = bytes.and_then(crate::steps::rule::image_b64);
            if let Some(d) = &dims {
                tally.sizes.push((bpath.to_string(), d.width, d.height));
            }
            let edge = tally.limits.max_dim.unwrap_or(u32::MAX);
            if over(size, tally.limits.image_bytes)
                || dims
                    .as_ref()
                    .is_some_and(|d| d.width > edge || d.height > edge)
            {
                out.push(&MEDIA_COUNTS, bpath, format!("an image of {size} bytes"));
            }
        } else {
            tally.documents += 1;
            if over(
                size,
                tally.limits.document_bytes.or(tally.limits.image_bytes),
            ) {
                out.push(&MEDIA_COUNTS, bpath, format!("a document of {size} bytes"));
            }
            if !has_text {
                out.push(&DOCUMENT_TEXT, bpath, "no text block beside it");
            }
            let name = string(inner, "name").unwrap_or("");
            let shape_ok =
                fits(name, 200, name_char) && !name.contains("  ") && name.trim() == name;
            if !shape_ok || !tally.names.insert(name.to_lowercase()) {
                out.push(
                    &DOCUMENT_NAME,
                    bpath.key("document.name"),
                    format!("{name:?}"),
                );
            }
        }
    }
}

/// `requestMetadata`: 1 to 16 pairs, each key 1 to 256 and each value 0 to
/// 256 characters of `[a-zA-Z0-9\s:_@$#=/+,-.]` (botocore 1.44.8's
/// `RequestMetadata`, `RequestMetadataKeyString` and
/// `RequestMetadataValueString`).
fn request_metadata(body: &Value, out: &mut Out) {
    let Some(Value::Object(metadata)) = body.get("requestMetadata") else {
        return;
    };
    let allowed =
        |c: char| c.is_ascii_alphanumeric() || c.is_whitespace() || ":_@$#=/+,-.".contains(c);
    let count = metadata.keys().count();
    if !(1..=16).contains(&count) {
        out.push(
            &REQUEST_METADATA,
            "$.requestMetadata",
            format!("{count} pairs"),
        );
    }
    for (key, value) in metadata {
        let path = at("$.requestMetadata", key);
        let len = key.chars().count();
        if !(1..=256).contains(&len) || !key.chars().all(allowed) {
            out.push(&REQUEST_METADATA, path.clone(), format!("the key {key:?}"));
        }
        match value.as_str() {
            Some(text) if text.chars().count() <= 256 && text.chars().all(allowed) => {}
            _ => out.push(
                &REQUEST_METADATA,
                path,
                "the value is no string of at most 256 allowed characters",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::five_minute_cache_only;

    #[test]
    fn the_claudes_before_4_5_keep_five_minutes_by_their_bedrock_ids() {
        for id in [
            "anthropic.claude-3-haiku-20240307-v1:0",
            "anthropic.claude-3-sonnet-20240229-v1:0",
            "anthropic.claude-3-opus-20240229-v1:0",
            "anthropic.claude-3-5-sonnet-20240620-v1:0",
            "anthropic.claude-3-5-sonnet-20241022-v2:0",
            "us.anthropic.claude-3-5-haiku-20241022-v1:0",
            "anthropic.claude-3-7-sonnet-20250219-v1:0",
            "us.anthropic.claude-sonnet-4-20250514-v1:0",
            "anthropic.claude-opus-4-20250514-v1:0",
            "eu.anthropic.claude-opus-4-1-20250805-v1:0",
        ] {
            assert!(five_minute_cache_only(id), "{id}");
        }
        for id in [
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "global.anthropic.claude-haiku-4-5-20251001-v1:0",
            "anthropic.claude-opus-4-5-20251101-v1:0",
            "anthropic.claude-opus-4-6-v1",
            "us.anthropic.claude-sonnet-4-6",
            "anthropic.claude-opus-4-7",
            "us.anthropic.claude-sonnet-5",
            "amazon.nova-pro-v1:0",
        ] {
            assert!(!five_minute_cache_only(id), "{id}");
        }
    }
}
