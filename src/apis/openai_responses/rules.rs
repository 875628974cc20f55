//! OpenAI Responses (`POST /v1/responses`).

use std::collections::HashSet;

use crate::json::tree::Json as Value;

use crate::apis::openai_chat::format_rules::{self, FormatRules};
use crate::apis::openai_chat::rules::{declarations, Declarations};
use crate::steps::path::Path;
use crate::steps::rule::{array, at, fits, rule, string, word, Out, Rule, Target};

const FUNCTIONS: &str = "https://platform.openai.com/docs/guides/function-calling";
const READ: &str = "2026-12-01";

rule!(INPUT_PRESENT, "openai-responses/input-present", "a request that continues no stored response holds its conversation in `input`: an empty one asks the model about nothing", "https://platform.openai.com/docs/api-reference/responses/create (`input`)", Prudent);
rule!(
    OUTPUT_HAS_CALL,
    "openai-responses/output-has-call",
    "No tool call found for function call output with call_id …",
    FUNCTIONS,
    Observed
);
rule!(
    CALL_HAS_OUTPUT,
    "openai-responses/call-has-output",
    "No tool output found for function call …",
    FUNCTIONS,
    Observed
);
rule!(
    CHOICE_NEEDS_TOOLS,
    "openai-responses/tool-choice-needs-tools",
    "tool_choice names a tool or mode for the tools the request declares",
    "https://platform.openai.com/docs/api-reference/responses/create",
    Prudent
);
rule!(
    CHOICE_DECLARED,
    "openai-responses/tool-choice-declared",
    "a tool_choice naming a function names one the request declares",
    "https://platform.openai.com/docs/api-reference/responses/create",
    Prudent
);
rule!(
    METADATA,
    "openai-responses/metadata",
    "metadata: at most 16 pairs, keys of at most 64 characters, string values of at most 512",
    CREATE_PARAMS,
    Documented
);
rule!(
    SAFETY_IDENTIFIER,
    "openai-responses/safety-identifier",
    "safety_identifier: at most 128 characters",
    CREATE_PARAMS,
    Documented
);
/// Where the `openai` SDK types the request (3.57.0).
const CREATE_PARAMS: &str = "https://github.com/openai/openai-python/blob/v3.57.0/src/openai/types/responses/response_create_params.py";
rule!(
    CACHE_BREAKPOINT,
    "openai-responses/cache-breakpoint",
    "prompt_cache_breakpoint, {\"mode\": \"explicit\"}, only for the models that take explicit breakpoints (\"Supported for gpt-5.6 and later models\")",
    "https://github.com/openai/openai-python/blob/v3.57.0/src/openai/types/responses/response_create_params.py (PromptCacheOptions)",
    Documented
);
rule!(
    FUNCTION_NAME,
    "openai-responses/function-name",
    "function names are a-z, A-Z, 0-9, underscores and dashes, at most 64",
    "https://platform.openai.com/docs/api-reference/responses/create",
    Documented
);
rule!(
    CALL_ID,
    "openai-responses/call-id",
    "a call_id is at most 64 characters (string_above_max_length)",
    FUNCTIONS,
    Observed
);
rule!(
    ARRAY_ITEMS,
    "openai-responses/array-items",
    "an array schema in function parameters needs `items` (invalid_function_parameters)",
    FUNCTIONS,
    Observed
);
rule!(PARAMETERS_OBJECT, "openai-responses/parameters-object", "function parameters are a JSON Schema of type object, without oneOf, anyOf, allOf, enum, const or not at the top level", FUNCTIONS, Observed);
rule!(
    REQUEST_SIZE,
    "openai-responses/request-size",
    "up to 512 MB of payload per request",
    "https://platform.openai.com/docs/guides/images-vision",
    Documented
);

rule!(DATA_LENGTH, "openai-responses/data-length", "an input_image's image_url is at most 20,971,520 characters and an input_file's file_data at most 73,400,320 (maxLength in the API's OpenAPI description)", "https://github.com/openai/openai-python/blob/main/api_reference/openapi.transformed.yml (InputImageContentParamAutoParam, InputFileContentParam)", Documented);

/// `maxLength` of `input_image.image_url` and `input_file.file_data`.
pub(crate) const MAX_IMAGE_URL: usize = 20_971_520;
pub(crate) const MAX_FILE_DATA: usize = 73_400_320;

rule!(
    SAMPLING,
    "openai-responses/sampling",
    "temperature is between 0 and 2; top_p between 0 and 1",
    "https://platform.openai.com/docs/api-reference/responses/create",
    Documented
);

rule!(
    OUTPUT_CAP,
    "openai-responses/max-output-tokens-cap",
    "`max_output_tokens` is at most the model's documented max output tokens (each model's `max_output` in the facts, with the page it was read on)",
    "https://developers.openai.com/api/docs/models",
    Documented
);

rule!(
    PDF_PAGES,
    "openai-responses/pdf-pages",
    "a request holds at most 100 PDF pages across its file inputs (the PDF guide as it stood in 2025; the current file-inputs guide states no page limit)",
    "https://platform.openai.com/docs/guides/pdf-files",
    Prudent
);

rule!(
    MEMBERS,
    "openai-responses/members",
    "every member of the body, and of the settings' objects in it, is one the official SDK's request types list (the API refuses an unknown parameter)",
    "https://pypi.org/project/openai/ (the pinned SDK's ResponseCreateParams)",
    Documented
);

rule!(
    PARALLEL_NEEDS_TOOLS,
    "openai-responses/parallel-needs-tools",
    "parallel_tool_calls goes with declared tools (Chat Completions answers 'parallel_tool_calls' is only allowed when 'tools' are specified)",
    "https://github.com/Upsonic/Upsonic/issues/323 (Chat's 400, quoted)",
    Prudent
);

rule!(
    FORMAT_NAME,
    "openai-responses/response-format-name",
    "a text format's name is a-z, A-Z, 0-9, underscores and dashes, at most 64",
    CREATE_PARAMS,
    Documented,
    "2026-12-06"
);
rule!(
    JSON_WORD,
    "openai-responses/json-mode-word",
    "JSON mode needs the word JSON in the instructions or input: \"the API will throw an error if the string \"JSON\" does not appear somewhere in the context\"",
    crate::apis::openai_chat::rules::STRUCTURED,
    Documented,
    "2026-12-06"
);
rule!(
    STRICT_SCHEMA,
    "openai-responses/strict-schema",
    "a strict text format's schema has an object root (not anyOf), additionalProperties: false and every property required on each object, at most 10 levels of nesting and 5000 properties",
    crate::apis::openai_chat::rules::STRUCTURED,
    Documented,
    "2026-12-06"
);

pub(crate) static RULES: &[&Rule] = &[
    &FORMAT_NAME,
    &JSON_WORD,
    &STRICT_SCHEMA,
    &PARALLEL_NEEDS_TOOLS,
    &MEMBERS,
    &OUTPUT_CAP,
    &PDF_PAGES,
    &SAMPLING,
    &INPUT_PRESENT,
    &OUTPUT_HAS_CALL,
    &CALL_HAS_OUTPUT,
    &CHOICE_NEEDS_TOOLS,
    &CHOICE_DECLARED,
    &METADATA,
    &SAFETY_IDENTIFIER,
    &CACHE_BREAKPOINT,
    &FUNCTION_NAME,
    &CALL_ID,
    &ARRAY_ITEMS,
    &PARAMETERS_OBJECT,
    &REQUEST_SIZE,
    &DATA_LENGTH,
];

/// The parts of an input item (a message's `content`, a function call
/// output's `output`) that carry inline data longer than the API takes.
fn data_lengths(item: &Value, path: Path<'_>, out: &mut Out) {
    for key in ["content", "output"] {
        for (p, part) in array(item, key).iter().enumerate() {
            let (field, max) = match string(part, "type") {
                Some("input_image") => ("image_url", MAX_IMAGE_URL),
                Some("input_file") => ("file_data", MAX_FILE_DATA),
                _ => continue,
            };
            let len = string(part, field).map_or(0, str::len);
            if len > max {
                out.push(
                    &DATA_LENGTH,
                    path.key(key).index(p).key(field),
                    format!("{len} characters, over {max}"),
                );
            }
        }
    }
}

/// Every `prompt_cache_breakpoint` is `{"mode": "explicit"}`, for a model
/// whose facts say it takes one.
fn breakpoints(target: &Target<'_>, body: &Value, out: &mut Out) {
    let mut found = Vec::new();
    crate::steps::rule::members_named(
        body,
        "prompt_cache_breakpoint",
        crate::steps::path::ROOT,
        &mut found,
    );
    if found.is_empty() {
        return;
    }
    let family = target.family.map(crate::facts::Family::facts_name);
    let takes = target
        .facts
        .traits(target.provider, target.model, family)
        .cache_breakpoints
        == Some(true);
    for (path, point) in found {
        if !takes {
            out.push(&CACHE_BREAKPOINT, path, format!("for {}", target.model));
        } else if string(point, "mode") != Some("explicit") {
            out.push(&CACHE_BREAKPOINT, at(&path, "mode"), "not \"explicit\"");
        }
    }
}

pub(crate) fn check(target: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::members_listed(&MEMBERS, super::SPEC.members, super::SPEC.also, body, out);
    breakpoints(target, body, out);
    crate::apis::openai_chat::rules::metadata(body, (&METADATA, &SAFETY_IDENTIFIER), out);
    if let Some(format) = body.get("text").and_then(|t| t.get("format")) {
        let rules = FormatRules {
            name: &FORMAT_NAME,
            json_word: &JSON_WORD,
            strict: &STRICT_SCHEMA,
        };
        let named = Some((format, "$.text.format".to_owned()));
        // The instructions and the input, a string or items.
        let mentions_json = || {
            ["instructions", "input"]
                .iter()
                .filter_map(|key| body.get(key))
                .any(|v| {
                    v.as_str()
                        .map_or_else(|| format_rules::mentions_json(v), format_rules::says_json)
                })
        };
        format_rules::check(&rules, (format, "$.text.format"), named, mentions_json, out);
    }
    crate::steps::rule::pdf_limits(&PDF_PAGES, None, target, body, out);
    crate::steps::rule::output_cap(&OUTPUT_CAP, target, body, &["max_output_tokens"], out);
    if body.get("parallel_tool_calls").is_some() && array(body, "tools").is_empty() {
        out.push(
            &PARALLEL_NEEDS_TOOLS,
            "$.parallel_tool_calls",
            "no tools are declared",
        );
    }
    crate::steps::rule::in_range(&SAMPLING, body, "$", "temperature", (0.0, 2.0), out);
    crate::steps::rule::in_range(&SAMPLING, body, "$", "top_p", (0.0, 1.0), out);
    // A request continuing a stored response (or conversation) holds only
    // the new items: the calls its outputs answer are the stored ones.
    let continues =
        body.get("previous_response_id").is_some() || body.get("conversation").is_some();
    // `input` is a list of items or one text, the user's message
    // (<https://platform.openai.com/docs/api-reference/responses/create>,
    // `input`: "Text, image, or file inputs", string or array; read
    // 2026-12-05).
    let text = body
        .get("input")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty());
    if !continues && !text {
        crate::steps::rule::message_count(&INPUT_PRESENT, body, "input", usize::MAX, out);
    }
    let input = array(body, "input");
    declarations(
        body,
        "",
        &Declarations {
            choice: &CHOICE_NEEDS_TOOLS,
            named: &CHOICE_DECLARED,
            name: &FUNCTION_NAME,
            items: &ARRAY_ITEMS,
            object: &PARAMETERS_OBJECT,
        },
        out,
    );
    let mut calls = HashSet::new();
    let mut outputs = HashSet::new();
    let at_input = Path::Root("$.input");
    for (i, item) in input.iter().enumerate() {
        let path = at_input.index(i);
        data_lengths(item, path, out);
        let id = string(item, "call_id").unwrap_or("");
        match string(item, "type") {
            Some("function_call") => {
                calls.insert(id);
                if id.chars().count() > 64 {
                    out.push(
                        &CALL_ID,
                        path.key("call_id"),
                        format!("{} characters", id.chars().count()),
                    );
                }
                let name = string(item, "name").unwrap_or("");
                if !fits(name, 64, word) {
                    out.push(&FUNCTION_NAME, path.key("name"), format!("{name:?}"));
                }
            }
            Some("function_call_output") => {
                if !calls.contains(id) && !continues {
                    out.push(&OUTPUT_HAS_CALL, path, format!("call_id {id:?}"));
                }
                outputs.insert(id);
            }
            _ => {}
        }
    }
    for (i, item) in input.iter().enumerate() {
        if string(item, "type") == Some("function_call") {
            let id = string(item, "call_id").unwrap_or("");
            if !outputs.contains(id) {
                out.push(
                    &CALL_HAS_OUTPUT,
                    at_input.index(i),
                    format!("call_id {id:?}"),
                );
            }
        }
    }
}
