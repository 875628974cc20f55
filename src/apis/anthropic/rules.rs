//! Anthropic Messages (`POST /v1/messages`).

use std::collections::HashSet;

use crate::json::tree::Json as Value;

use crate::steps::path::Path;
use crate::steps::rule::{array, at, fits, idx, rule, string, word, Out, Rule, Target};

const TOOL_USE: &str =
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls";
const DEFINE: &str = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools";
const VISION: &str = "https://platform.claude.com/docs/en/build-with-claude/vision";
const READ: &str = "2026-12-01";

rule!(MESSAGE_COUNT, "anthropic/message-count", "a request holds at least one message (an empty list is refused with \"messages: at least one message is required\") and at most 100,000", "https://platform.claude.com/docs/en/api/messages (`messages`: \"There is a limit of 100,000 messages in a single request\")", Documented);
rule!(TOOLS_DECLARED, "anthropic/tools-declared", "Requests which include `tool_use` or `tool_result` blocks must define tools.", "https://platform.claude.com/docs/en/api/errors (a 400 invalid_request_error; the text as users quote it)", Observed);
rule!(RESULTS_FOLLOW, "anthropic/results-follow-calls", "each tool_use block must have a corresponding tool_result block in the next message, and the tool_result blocks come first in it", TOOL_USE, Documented);
rule!(
    RESULT_ANSWERS,
    "anthropic/result-answers-call",
    "each tool_result block must have a corresponding tool_use block in the previous message",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/troubleshooting-tool-use",
    Observed
);
rule!(
    TOOL_NAME,
    "anthropic/tool-name",
    "a tool's name must match ^[a-zA-Z0-9_-]{1,64}$, and names are unique",
    DEFINE,
    Documented
);
rule!(USE_ID, "anthropic/tool-use-id", "tool_use.id must match ^[a-zA-Z0-9_-]+$", "https://platform.claude.com/docs/en/api/messages/create (enforced; the pattern as the API's error quotes it)", Observed);
rule!(USE_ID_UNIQUE, "anthropic/tool-use-id-unique", "`tool_use` ids must be unique across the request", "https://platform.claude.com/docs/en/api/errors (a 400 invalid_request_error; the text as users quote it)", Observed);
rule!(INPUT_SCHEMA, "anthropic/input-schema", "a custom tool's input_schema has \"type\": \"object\" and no oneOf, allOf or anyOf at the top level", "https://platform.claude.com/docs/en/api/messages/create", Documented);
rule!(
    CALLED_DECLARED,
    "anthropic/calls-declared",
    "every tool_use names a tool the request defines",
    DEFINE,
    Prudent
);
rule!(
    IMAGE_COUNT,
    "anthropic/image-count",
    "up to 100 images per request for models with a 200k-token context window, 600 for the others",
    VISION,
    Documented
);
rule!(IMAGE_SIZE, "anthropic/image-size", "images at most 8000×8000 px; when a request holds more than 20 images, at most 2000×2000 px each", VISION, Documented);
rule!(
    IMAGE_BYTES,
    "anthropic/image-bytes",
    "each image at most 10 MB, measured on its base64 encoding; JPEG, PNG, GIF or WEBP",
    VISION,
    Documented
);
rule!(
    EMPTY_TEXT,
    "anthropic/no-empty-text",
    "text content blocks must contain non-whitespace text",
    "https://platform.claude.com/docs/en/build-with-claude/working-with-messages",
    Observed
);
rule!(
    REQUEST_SIZE,
    "anthropic/request-size",
    "a Messages request is at most 32 MB",
    "https://platform.claude.com/docs/en/api/overview",
    Documented
);

rule!(
    CACHE_MARKS,
    "anthropic/cache-breakpoints",
    "A maximum of 4 blocks with cache_control may be provided.",
    "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
    Documented
);

const CREATE: &str = "https://platform.claude.com/docs/en/api/messages/create";
const THINKING: &str = "https://platform.claude.com/docs/en/build-with-claude/extended-thinking";
rule!(
    TEMPERATURE,
    "anthropic/temperature",
    "temperature ranges from 0.0 to 1.0; top_p from 0 to 1",
    CREATE,
    Documented
);
rule!(
    MAX_TOKENS,
    "anthropic/max-tokens",
    "max_tokens is required and at least 1",
    CREATE,
    Documented
);
rule!(
    THINKING_BUDGET,
    "anthropic/thinking-budget",
    "thinking.budget_tokens must be at least 1024 and less than max_tokens",
    THINKING,
    Documented
);
rule!(THINKING_SAMPLING, "anthropic/thinking-sampling", "thinking is not compatible with temperature or top_k modifications; with thinking, top_p may be set between 0.95 and 1", THINKING, Documented);

/// The generation settings' ranges.
/// `output_config.format`: its schema's objects closed, none of the
/// constraints the grammar cannot hold, and no prefilled answer.
fn output_format(body: &Value, out: &mut Out) {
    use crate::steps::output_rules::{closed_objects, no_keywords, CONSTRAINTS};
    let Some(format) = body.get("output_config").and_then(|c| c.get("format")) else {
        return;
    };
    if let Some(schema) = format.get("schema") {
        let path = "$.output_config.format.schema";
        closed_objects(&OUTPUT_SCHEMA, schema, path, out);
        no_keywords(&OUTPUT_KEYWORDS, schema, path, CONSTRAINTS, out);
    }
    let messages = array(body, "messages");
    if messages
        .last()
        .is_some_and(|m| string(m, "role") == Some("assistant"))
    {
        out.push(
            &OUTPUT_PREFILL,
            idx("$.messages", messages.len() - 1),
            "the last message is the assistant's",
        );
    }
}

fn settings(body: &Value, out: &mut Out) {
    use crate::steps::rule::{in_range, number};
    in_range(&TEMPERATURE, body, "$", "temperature", (0.0, 1.0), out);
    in_range(&TEMPERATURE, body, "$", "top_p", (0.0, 1.0), out);
    let max_tokens = number(body, "max_tokens");
    if !max_tokens.is_some_and(|n| n >= 1.0) {
        out.push(&MAX_TOKENS, "$.max_tokens", "missing or below 1");
    }
    let Some(thinking) = body.get("thinking") else {
        return;
    };
    if string(thinking, "type") == Some("enabled") {
        let budget = number(thinking, "budget_tokens").unwrap_or(0.0);
        if budget < 1024.0 || max_tokens.is_some_and(|m| budget >= m) {
            out.push(
                &THINKING_BUDGET,
                "$.thinking.budget_tokens",
                format!("{budget} with max_tokens {}", max_tokens.unwrap_or(0.0)),
            );
        }
        for key in ["temperature", "top_k"] {
            if body.get(key).is_some() {
                out.push(&THINKING_SAMPLING, at("$", key), "set with thinking");
            }
        }
        in_range(&THINKING_SAMPLING, body, "$", "top_p", (0.95, 1.0), out);
    }
}

rule!(
    OUTPUT_CAP,
    "anthropic/max-tokens-cap",
    "`max_tokens` is at most the model's documented maximum output (each model's `max_output` in the facts, with the page it was read on)",
    "https://platform.claude.com/docs/en/about-claude/models/overview",
    Documented
);

rule!(
    PDF_PAGES,
    "anthropic/pdf-pages",
    "a request holds at most 600 PDF pages, 100 for models with a 200k-token context window (\"A maximum of 100 PDF pages may be provided\", as users quote the error)",
    "https://platform.claude.com/docs/en/build-with-claude/pdf-support",
    Documented
);

rule!(
    PDF_ENCRYPTED,
    "anthropic/pdf-not-encrypted",
    "Standard PDF (no passwords/encryption) (\"The PDF specified is password protected\", as users quote the error)",
    "https://platform.claude.com/docs/en/build-with-claude/pdf-support",
    Documented
);

rule!(
    MEMBERS,
    "anthropic/members",
    "every member of the body, and of the settings' objects in it, is one the official SDK's request types list (the API refuses an unknown parameter)",
    "https://pypi.org/project/anthropic/ (the pinned SDK's MessageCreateParams)",
    Documented
);

rule!(
    CHOICE_NEEDS_TOOLS,
    "anthropic/tool-choice-needs-tools",
    "tool_choice says how the model uses the tools the request declares (OpenAI answers 'tool_choice' is only allowed when 'tools' are specified)",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use (forcing tool use)",
    Prudent
);

rule!(
    CHOICE_DECLARED,
    "anthropic/tool-choice-declared",
    "a tool_choice of type tool names a tool the request declares",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use (forcing tool use)",
    Prudent
);

/// The structured outputs page (read 2026-12-06).
const STRUCTURED: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs";
rule!(
    OUTPUT_SCHEMA,
    "anthropic/output-schema",
    "each object in an output_config.format schema sets additionalProperties to false (\"must be set to false for objects\"; a schema without it is refused with a 400 too)",
    "https://platform.claude.com/docs/en/build-with-claude/structured-outputs; the 400 without it: https://github.com/veryfront/veryfront-code/issues/3918",
    Documented,
    "2026-12-06"
);
rule!(
    OUTPUT_KEYWORDS,
    "anthropic/output-schema-keywords",
    "an output_config.format schema uses no numeric constraints (minimum, maximum, multipleOf), no string lengths (minLength, maxLength) and no array constraint but a minItems of 0 or 1",
    STRUCTURED,
    Documented,
    "2026-12-06"
);
rule!(
    OUTPUT_PREFILL,
    "anthropic/output-format-prefill",
    "output_config.format does not go with a prefilled answer (\"Message Prefilling: Incompatible with JSON outputs\"): the last message is the user's",
    STRUCTURED,
    Documented,
    "2026-12-06"
);

pub(crate) static RULES: &[&Rule] = &[
    &OUTPUT_SCHEMA,
    &OUTPUT_KEYWORDS,
    &OUTPUT_PREFILL,
    &CHOICE_NEEDS_TOOLS,
    &CHOICE_DECLARED,
    &MEMBERS,
    &OUTPUT_CAP,
    &PDF_PAGES,
    &PDF_ENCRYPTED,
    &TEMPERATURE,
    &MAX_TOKENS,
    &THINKING_BUDGET,
    &THINKING_SAMPLING,
    &MESSAGE_COUNT,
    &TOOLS_DECLARED,
    &RESULTS_FOLLOW,
    &RESULT_ANSWERS,
    &TOOL_NAME,
    &USE_ID,
    &USE_ID_UNIQUE,
    &INPUT_SCHEMA,
    &CALLED_DECLARED,
    &IMAGE_COUNT,
    &IMAGE_SIZE,
    &IMAGE_BYTES,
    &EMPTY_TEXT,
    &REQUEST_SIZE,
    &CACHE_MARKS,
];

/// The blocks of a message's content (a string is one text block).
fn blocks<'v>(message: &'v Value<'_>) -> &'v [Value<'v>] {
    array(message, "content")
}

pub(crate) fn check(target: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::members_listed(&MEMBERS, super::SPEC.members, super::SPEC.also, body, out);
    crate::steps::rule::pdf_limits(&PDF_PAGES, Some(&PDF_ENCRYPTED), target, body, out);
    crate::steps::rule::output_cap(&OUTPUT_CAP, target, body, &["max_tokens"], out);
    settings(body, out);
    output_format(body, out);
    if let Some(name) = body
        .get("tool_choice")
        .filter(|c| string(c, "type") == Some("tool"))
        .and_then(|c| string(c, "name"))
    {
        if !array(body, "tools")
            .iter()
            .any(|t| string(t, "name") == Some(name))
        {
            out.push(
                &CHOICE_DECLARED,
                "$.tool_choice.name",
                format!("{name:?} is not declared"),
            );
        }
    }
    if body.get("tool_choice").is_some() && array(body, "tools").is_empty() {
        out.push(
            &CHOICE_NEEDS_TOOLS,
            "$.tool_choice",
            "no tools are declared",
        );
    }
    crate::steps::rule::message_count(&MESSAGE_COUNT, body, "messages", 100_000, out);
    let mut marks = Vec::new();
    crate::steps::rule::members_named(body, "cache_control", crate::steps::path::ROOT, &mut marks);
    if marks.len() > 4 {
        out.push(
            &CACHE_MARKS,
            marks[4].0.clone(),
            format!("{} breakpoints", marks.len()),
        );
    }
    let messages = array(body, "messages");
    let tools = array(body, "tools");
    let mut declared = HashSet::new();
    for (i, tool) in tools.iter().enumerate() {
        let path = idx("$.tools", i);
        let Some(name) = string(tool, "name") else {
            continue; // a toolset: its members are named by the toolset
        };
        let custom = matches!(string(tool, "type"), None | Some("custom"));
        if custom && !fits(name, 64, word) {
            out.push(&TOOL_NAME, at(&path, "name"), format!("{name:?}"));
        }
        if !declared.insert(name) {
            out.push(
                &TOOL_NAME,
                at(&path, "name"),
                format!("{name:?} is declared twice"),
            );
        }
        if custom {
            let schema = tool.get("input_schema");
            if schema.and_then(|s| s.get("type")).and_then(Value::as_str) != Some("object") {
                out.push(
                    &INPUT_SCHEMA,
                    at(&path, "input_schema"),
                    "no \"type\": \"object\"",
                );
            }
            for keyword in ["oneOf", "allOf", "anyOf"] {
                if schema.and_then(|s| s.get(keyword)).is_some() {
                    out.push(
                        &INPUT_SCHEMA,
                        at(&path, "input_schema"),
                        format!("{keyword} at the top level"),
                    );
                }
            }
        }
    }
    let toolset = tools.iter().any(|t| t.get("name").is_none());
    let mut has_tool_blocks = false;
    let mut images = Vec::new();
    let mut use_ids = HashSet::new();
    let at_messages = Path::Root("$.messages");
    for (m, message) in messages.iter().enumerate() {
        let path = at_messages.index(m);
        let content = path.key("content");
        if message
            .get("content")
            .and_then(Value::as_str)
            .is_some_and(|t| t.trim().is_empty())
        {
            out.push(&EMPTY_TEXT, content, "blank string content");
        }
        let uses: Vec<&str> = blocks(message)
            .iter()
            .filter(|b| string(b, "type") == Some("tool_use"))
            .filter_map(|b| string(b, "id"))
            .collect();
        for (b, block) in blocks(message).iter().enumerate() {
            let bpath = content.index(b);
            walk_block(block, bpath, &mut images, out);
            match string(block, "type") {
                Some("tool_use") => {
                    has_tool_blocks = true;
                    let id = string(block, "id").unwrap_or("");
                    if !fits(id, usize::MAX, word) {
                        out.push(&USE_ID, bpath.key("id"), format!("{id:?}"));
                    }
                    if !use_ids.insert(id) {
                        out.push(&USE_ID_UNIQUE, bpath.key("id"), format!("{id:?} again"));
                    }
                    let name = string(block, "name").unwrap_or("");
                    if !tools.is_empty() && !declared.contains(name) && !toolset {
                        out.push(
                            &CALLED_DECLARED,
                            bpath.key("name"),
                            format!("{name:?} is not in tools"),
                        );
                    }
                }
                Some("tool_result") => has_tool_blocks = true,
                _ => {}
            }
        }
        // Pairing with the next message.
        if !uses.is_empty() {
            let next = messages.get(m + 1);
            let answered: Vec<&str> = next
                .map(|n| {
                    blocks(n)
                        .iter()
                        .take_while(|b| string(b, "type") == Some("tool_result"))
                        .filter_map(|b| string(b, "tool_use_id"))
                        .collect()
                })
                .unwrap_or_default();
            let missing: Vec<&&str> = uses.iter().filter(|id| !answered.contains(id)).collect();
            if !missing.is_empty() || next.and_then(|n| string(n, "role")) != Some("user") {
                out.push(
                    &RESULTS_FOLLOW,
                    path,
                    format!("tool_use ids {missing:?} are not answered at the start of the next message"),
                );
            }
        }
        let previous: Vec<&str> = m
            .checked_sub(1)
            .map(|p| {
                blocks(&messages[p])
                    .iter()
                    .filter(|b| string(b, "type") == Some("tool_use"))
                    .filter_map(|b| string(b, "id"))
                    .collect()
            })
            .unwrap_or_default();
        for (b, block) in blocks(message).iter().enumerate() {
            if string(block, "type") == Some("tool_result") {
                let id = string(block, "tool_use_id").unwrap_or("");
                if !previous.contains(&id) {
                    out.push(
                        &RESULT_ANSWERS,
                        content.index(b),
                        format!("tool_use_id {id:?} answers no tool_use of the previous message"),
                    );
                }
            }
        }
    }
    if has_tool_blocks && tools.is_empty() {
        out.push(
            &TOOLS_DECLARED,
            "$",
            "tool_use or tool_result blocks, and no tools",
        );
    }
    let max = target.facts.max_images(target.provider, target.model);
    if images.len() > max {
        out.push(
            &IMAGE_COUNT,
            "$.messages",
            format!("{} images, over {max} for {}", images.len(), target.model),
        );
    }
    let limits = &target.facts.api(target.provider).limits;
    let edge = match limits.many_images {
        Some(many) if images.len() as u64 > many.over => many.max_dim,
        _ => limits.max_dim.unwrap_or(u32::MAX),
    };
    for (path, w, h) in &images {
        if *w > edge || *h > edge {
            out.push(
                &IMAGE_SIZE,
                path.clone(),
                format!("{w}×{h} in a request of {} images", images.len()),
            );
        }
    }
}

/// Check a content block and the blocks nested in a tool result; note
/// each base64 image with its size.
fn walk_block(block: &Value, path: Path<'_>, images: &mut Vec<(String, u32, u32)>, out: &mut Out) {
    match string(block, "type") {
        Some("text") if string(block, "text").is_some_and(|t| t.trim().is_empty()) => {
            out.push(&EMPTY_TEXT, path, "blank text block");
        }
        Some("image") => {
            let Some(source) = block.get("source") else {
                return;
            };
            if string(source, "type") != Some("base64") {
                images.push((path.to_string(), 0, 0));
                return;
            }
            let data = string(source, "data").unwrap_or("");
            if data.len() > 10_000_000 {
                out.push(
                    &IMAGE_BYTES,
                    path.key("source"),
                    format!("{} base64 characters", data.len()),
                );
            }
            match crate::steps::rule::image_b64(data) {
                Some(img) => {
                    if Some(img.media_type.as_str()) != string(source, "media_type") {
                        out.push(
                            &IMAGE_BYTES,
                            path.key("source"),
                            format!(
                                "the bytes are {}, not {:?}",
                                img.media_type,
                                string(source, "media_type")
                            ),
                        );
                    }
                    images.push((path.to_string(), img.width, img.height));
                }
                None => out.push(
                    &IMAGE_BYTES,
                    path.key("source"),
                    "not a readable JPEG, PNG, GIF or WEBP",
                ),
            }
        }
        Some("tool_result") => {
            if block
                .get("content")
                .and_then(Value::as_str)
                .is_some_and(|t| t.trim().is_empty())
            {
                out.push(&EMPTY_TEXT, path.key("content"), "blank string content");
            }
            let content = path.key("content");
            for (i, inner) in array(block, "content").iter().enumerate() {
                walk_block(inner, content.index(i), images, out);
            }
        }
        _ => {}
    }
}
