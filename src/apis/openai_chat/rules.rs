//! OpenAI Chat Completions (`POST /v1/chat/completions`).

use crate::json::tree::Json as Value;

use crate::steps::path::Path;
use crate::steps::rule::{
    array, at, calls_answered_at, data_url, fits, idx, rule, string, word, Out, Rule, Target,
};

const FUNCTIONS: &str = "https://platform.openai.com/docs/guides/function-calling";
const VISION: &str = "https://platform.openai.com/docs/guides/images-vision";
const READ: &str = "2026-12-01";

rule!(MESSAGE_COUNT, "openai-chat/message-count", "`messages` holds at least one message (an empty list is refused: \"[] is too short - 'messages'\")", "https://platform.openai.com/docs/api-reference/chat/create (`messages`, minItems 1 in the OpenAPI document)", Documented);
rule!(RESULTS_FOLLOW, "openai-chat/results-follow-calls", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.", FUNCTIONS, Observed);
rule!(
    TOOL_ANSWERS,
    "openai-chat/tool-answers-call",
    "messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
    FUNCTIONS,
    Observed
);
rule!(
    CHOICE_NEEDS_TOOLS,
    "openai-chat/tool-choice-needs-tools",
    "'tool_choice' is only allowed when 'tools' are specified",
    "https://platform.openai.com/docs/api-reference/chat/create",
    Observed
);
rule!(
    CHOICE_DECLARED,
    "openai-chat/tool-choice-declared",
    "a tool_choice naming a function names one the request declares",
    "https://platform.openai.com/docs/api-reference/chat/create",
    Prudent
);
rule!(
    METADATA,
    "openai-chat/metadata",
    "metadata: at most 16 pairs, keys of at most 64 characters, string values of at most 512",
    CREATE_PARAMS,
    Documented
);
rule!(
    SAFETY_IDENTIFIER,
    "openai-chat/safety-identifier",
    "safety_identifier: at most 128 characters",
    CREATE_PARAMS,
    Documented
);
rule!(
    FORMAT_NAME,
    "openai-chat/response-format-name",
    "a response format's name is a-z, A-Z, 0-9, underscores and dashes, at most 64",
    CREATE_PARAMS,
    Documented,
    "2026-12-06"
);
rule!(
    JSON_WORD,
    "openai-chat/json-mode-word",
    "JSON mode needs the word JSON in the messages: \"the API will throw an error if the string \"JSON\" does not appear somewhere in the context\"",
    STRUCTURED,
    Documented,
    "2026-12-06"
);
rule!(
    STRICT_SCHEMA,
    "openai-chat/strict-schema",
    "a strict response format's schema has an object root (not anyOf), additionalProperties: false and every property required on each object, at most 10 levels of nesting and 5000 properties",
    STRUCTURED,
    Documented,
    "2026-12-06"
);
/// OpenAI's structured outputs guide.
pub(crate) const STRUCTURED: &str = "https://platform.openai.com/docs/guides/structured-outputs";
/// Where the `openai` SDK types the request (3.57.0).
const CREATE_PARAMS: &str = "https://github.com/openai/openai-python/blob/v3.57.0/src/openai/types/chat/completion_create_params.py";
rule!(FUNCTION_NAME, "openai-chat/function-name", "function names are a-z, A-Z, 0-9, underscores and dashes, at most 64 (documented for `tools`; the same pattern is reported enforced on the history's `tool_calls`)", "https://platform.openai.com/docs/api-reference/chat/create", Documented);
rule!(CALL_ID, "openai-chat/tool-call-id", "a tool call id is at most 40 characters (\"string too long. Expected a string with maximum length 40\")", "https://community.openai.com/ (reports of the error, 2025-2026)", Observed);
rule!(
    ARRAY_ITEMS,
    "openai-chat/array-items",
    "an array schema in function parameters needs `items` (invalid_function_parameters)",
    FUNCTIONS,
    Observed
);
rule!(PARAMETERS_OBJECT, "openai-chat/parameters-object", "function parameters are a JSON Schema of type object, without oneOf, anyOf, allOf, enum, const or not at the top level", FUNCTIONS, Observed);
rule!(
    MEDIA_IN_USER,
    "openai-chat/media-in-user-messages",
    "image and file parts go in user messages only (tool messages take text)",
    VISION,
    Documented
);
rule!(
    IMAGES,
    "openai-chat/images",
    "up to 1500 images per request; PNG, JPEG, WEBP or non-animated GIF",
    VISION,
    Documented
);
rule!(
    FILES,
    "openai-chat/files",
    "file parts are PDFs, each under 50 MB and under 50 MB together",
    "https://platform.openai.com/docs/guides/pdf-files",
    Documented
);
rule!(
    REQUEST_SIZE,
    "openai-chat/request-size",
    "up to 512 MB of payload per request",
    VISION,
    Documented
);

rule!(
    SAMPLING,
    "openai-chat/sampling",
    "temperature is between 0 and 2; top_p between 0 and 1; stop holds up to 4 sequences",
    "https://platform.openai.com/docs/api-reference/chat/create",
    Documented
);

rule!(
    OUTPUT_CAP,
    "openai-chat/max-tokens-cap",
    "`max_completion_tokens` (and the older `max_tokens`) is at most the model's documented max output tokens (each model's `max_output` in the facts, with the page it was read on)",
    "https://developers.openai.com/api/docs/models",
    Documented
);

rule!(
    PDF_PAGES,
    "openai-chat/pdf-pages",
    "a request holds at most 100 PDF pages across its file inputs (the PDF guide as it stood in 2025; the current file-inputs guide states no page limit)",
    "https://platform.openai.com/docs/guides/pdf-files",
    Prudent
);

rule!(
    MEMBERS,
    "openai-chat/members",
    "every member of the body, and of the settings' objects in it, is one the official SDK's request types list (the API refuses an unknown parameter)",
    "https://pypi.org/project/openai/ (the pinned SDK's CompletionCreateParams)",
    Documented
);

rule!(
    PARALLEL_NEEDS_TOOLS,
    "openai-chat/parallel-needs-tools",
    "'parallel_tool_calls' is only allowed when 'tools' are specified",
    "https://github.com/Upsonic/Upsonic/issues/323 (the 400 invalid_request_error, quoted)",
    Observed
);
rule!(
    STREAM_OPTIONS,
    "openai-chat/stream-options-need-stream",
    "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    "https://github.com/BerriAI/litellm/issues/5803 (the 400 invalid_request_error, quoted)",
    Observed
);

pub(crate) static RULES: &[&Rule] = &[
    &PARALLEL_NEEDS_TOOLS,
    &STREAM_OPTIONS,
    &MEMBERS,
    &OUTPUT_CAP,
    &PDF_PAGES,
    &SAMPLING,
    &MESSAGE_COUNT,
    &RESULTS_FOLLOW,
    &TOOL_ANSWERS,
    &CHOICE_NEEDS_TOOLS,
    &CHOICE_DECLARED,
    &METADATA,
    &SAFETY_IDENTIFIER,
    &FORMAT_NAME,
    &JSON_WORD,
    &STRICT_SCHEMA,
    &FUNCTION_NAME,
    &CALL_ID,
    &ARRAY_ITEMS,
    &PARAMETERS_OBJECT,
    &MEDIA_IN_USER,
    &IMAGES,
    &FILES,
    &REQUEST_SIZE,
];

pub(crate) fn check(target: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::members_listed(&MEMBERS, super::SPEC.members, super::SPEC.also, body, out);
    crate::steps::rule::pdf_limits(&PDF_PAGES, None, target, body, out);
    for key in ["max_completion_tokens", "max_tokens"] {
        crate::steps::rule::output_cap(&OUTPUT_CAP, target, body, &[key], out);
    }
    crate::steps::rule::in_range(&SAMPLING, body, "$", "temperature", (0.0, 2.0), out);
    crate::steps::rule::in_range(&SAMPLING, body, "$", "top_p", (0.0, 1.0), out);
    if array(body, "stop").len() > 4 {
        out.push(&SAMPLING, "$.stop", "more than 4 sequences");
    }
    crate::steps::rule::message_count(&MESSAGE_COUNT, body, "messages", usize::MAX, out);
    metadata(body, (&METADATA, &SAFETY_IDENTIFIER), out);
    if let Some(format) = body.get("response_format") {
        super::format_rules::check(
            &super::format_rules::FormatRules {
                name: &FORMAT_NAME,
                json_word: &JSON_WORD,
                strict: &STRICT_SCHEMA,
            },
            (format, "$.response_format"),
            format
                .get("json_schema")
                .map(|named| (named, "$.response_format.json_schema".to_owned())),
            || super::format_rules::mentions_json(&body["messages"]),
            out,
        );
    }
    if body.get("parallel_tool_calls").is_some() && array(body, "tools").is_empty() {
        out.push(
            &PARALLEL_NEEDS_TOOLS,
            "$.parallel_tool_calls",
            "no tools are declared",
        );
    }
    if body.get("stream_options").is_some() && body.get("stream") != Some(&Value::Bool(true)) {
        out.push(
            &STREAM_OPTIONS,
            "$.stream_options",
            "the request is not streamed",
        );
    }
    let messages = array(body, "messages");
    declarations(
        body,
        "function",
        &Declarations {
            choice: &CHOICE_NEEDS_TOOLS,
            named: &CHOICE_DECLARED,
            name: &FUNCTION_NAME,
            items: &ARRAY_ITEMS,
            object: &PARAMETERS_OBJECT,
        },
        out,
    );
    let mut images = 0usize;
    let mut file_bytes = 0usize;
    let at_messages = Path::Root("$.messages");
    for (m, message) in messages.iter().enumerate() {
        let path = at_messages.index(m);
        let calls_at = path.key("tool_calls");
        let content_at = path.key("content");
        let role = string(message, "role").unwrap_or("");
        let calls = array(message, "tool_calls");
        for (c, call) in calls.iter().enumerate() {
            let cpath = calls_at.index(c);
            let id = string(call, "id").unwrap_or("");
            if id.chars().count() > 40 {
                out.push(
                    &CALL_ID,
                    cpath.key("id"),
                    format!("{} characters", id.chars().count()),
                );
            }
            let name = string(&call["function"], "name").unwrap_or("");
            if !fits(name, 64, word) {
                out.push(
                    &FUNCTION_NAME,
                    cpath.key("function.name"),
                    format!("{name:?}"),
                );
            }
        }
        pairing(messages, m, &PAIRING, out);
        for (p, part) in array(message, "content").iter().enumerate() {
            let ppath = content_at.index(p);
            match string(part, "type") {
                Some("image_url") => {
                    images += 1;
                    if role != "user" {
                        out.push(
                            &MEDIA_IN_USER,
                            ppath,
                            format!("an image in a {role} message"),
                        );
                    }
                    let url = part["image_url"]["url"].as_str().unwrap_or("");
                    if let Some((media_type, _)) = data_url(url) {
                        if !["image/png", "image/jpeg", "image/webp", "image/gif"]
                            .contains(&media_type)
                        {
                            out.push(&IMAGES, ppath, media_type.to_owned());
                        }
                    }
                }
                Some("file") => {
                    if role != "user" {
                        out.push(&MEDIA_IN_USER, ppath, format!("a file in a {role} message"));
                    }
                    let data = part["file"]["file_data"].as_str().unwrap_or("");
                    match data_url(data) {
                        Some(("application/pdf", b64)) => {
                            let size = crate::steps::rule::decoded_len(b64).unwrap_or(0);
                            file_bytes += size;
                            if size >= 50_000_000 {
                                out.push(&FILES, ppath, format!("{size} bytes"));
                            }
                        }
                        Some((other, _)) => out.push(&FILES, ppath, other.to_owned()),
                        None if part["file"].get("file_id").is_some() => {}
                        None => out.push(&FILES, ppath, "no file_data data URL"),
                    }
                }
                _ => {}
            }
        }
    }
    let max = target.facts.api(target.provider).limits.max_images;
    if max.is_some_and(|max| images as u64 > max) {
        out.push(&IMAGES, "$.messages", format!("{images} images"));
    }
    if file_bytes >= 50_000_000 {
        out.push(&FILES, "$.messages", format!("{file_bytes} bytes of files"));
    }
}

/// The rules of call/result pairing in the Chat Completions shape.
pub(crate) struct Pairing {
    pub results_follow: &'static Rule,
    pub tool_answers: &'static Rule,
}

const PAIRING: Pairing = Pairing {
    results_follow: &RESULTS_FOLLOW,
    tool_answers: &TOOL_ANSWERS,
};

/// Check the message at `m` for pairing: an assistant's calls are each
/// answered by the `tool` messages right after it, and a `tool` message
/// answers a call of the assistant message before its batch.
pub(crate) fn pairing(messages: &[Value], m: usize, rules: &Pairing, out: &mut Out) {
    let message = &messages[m];
    let at_messages = Path::Root("$.messages");
    let path = at_messages.index(m);
    let calls = array(message, "tool_calls");
    if !calls.is_empty() {
        // The very next messages must be tool messages answering each id.
        let answered: Vec<&str> = messages[m + 1..]
            .iter()
            .take_while(|n| string(n, "role") == Some("tool"))
            .filter_map(|n| string(n, "tool_call_id"))
            .collect();
        for call in calls {
            let id = string(call, "id").unwrap_or("");
            if !answered.contains(&id) {
                out.push(
                    rules.results_follow,
                    path,
                    format!("tool call {id:?} is not answered right after"),
                );
            }
        }
    }
    if string(message, "role") == Some("tool") {
        let id = string(message, "tool_call_id").unwrap_or("");
        let called = calls_answered_at(messages, m)
            .iter()
            .any(|c| string(c, "id") == Some(id));
        if !called {
            out.push(rules.tool_answers, path, format!("tool_call_id {id:?}"));
        }
    }
}

/// The rules OpenAI's two APIs share for function declarations, each API
/// its own copy.
pub(crate) struct Declarations {
    pub choice: &'static Rule,
    /// A choice naming a function names a declared one.
    pub named: &'static Rule,
    pub name: &'static Rule,
    pub items: &'static Rule,
    pub object: &'static Rule,
}

/// Check `body`'s `tools` and `tool_choice`: a choice only with tools, each
/// function's name, and its parameters' schema. `nested` names the member
/// that holds the function (`"function"` in Chat), or is empty when the
/// tool item is the function itself (Responses).
pub(crate) fn declarations(body: &Value, nested: &str, rules: &Declarations, out: &mut Out) {
    let tools = array(body, "tools");
    if body.get("tool_choice").is_some() && tools.is_empty() {
        out.push(rules.choice, "$.tool_choice", "no tools");
    }
    // `{"type": "function", "function": {"name"}}` in Chat, `{"type":
    // "function", "name"}` in Responses.
    let (named, path) = match body.get("tool_choice") {
        Some(choice) if nested.is_empty() => (choice.get("name"), "$.tool_choice.name".to_owned()),
        Some(choice) => (
            choice.get(nested).and_then(|f| f.get("name")),
            format!("$.tool_choice.{nested}.name"),
        ),
        None => (None, String::new()),
    };
    if let Some(name) = named.and_then(Value::as_str) {
        let declared = tools.iter().any(|tool| {
            let f = if nested.is_empty() {
                tool
            } else {
                &tool[nested]
            };
            string(f, "name") == Some(name)
        });
        if !declared {
            out.push(rules.named, path, format!("{name:?} is not declared"));
        }
    }
    for (i, tool) in tools.iter().enumerate() {
        let (path, f) = if nested.is_empty() {
            (idx("$.tools", i), tool)
        } else {
            (at(&idx("$.tools", i), nested), &tool[nested])
        };
        let name = string(f, "name").unwrap_or("");
        if !fits(name, 64, word) {
            out.push(rules.name, at(&path, "name"), format!("{name:?}"));
        }
        if let Some(p) = f.get("parameters") {
            schema_walk(
                p,
                &at(&path, "parameters"),
                true,
                rules.items,
                rules.object,
                out,
            );
        }
    }
}

/// The schema rules OpenAI applies to function parameters (Chat and
/// Responses alike): an object at the top, `items` on every array.
pub(crate) fn schema_walk(
    schema: &Value,
    path: &str,
    top: bool,
    items_rule: &'static Rule,
    object_rule: &'static Rule,
    out: &mut Out,
) {
    let Value::Object(node) = schema else {
        return;
    };
    if top && node.get("type").and_then(Value::as_str) != Some("object") {
        out.push(
            object_rule,
            path.to_owned(),
            "the top-level type is not \"object\"",
        );
    }
    if top {
        for keyword in ["oneOf", "anyOf", "allOf", "enum", "const", "not"] {
            if node.contains_key(keyword) {
                out.push(object_rule, at(path, keyword), "at the top level");
            }
        }
    }
    let is_array = match node.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    };
    if is_array && !node.contains_key("items") {
        out.push(items_rule, path.to_owned(), "an array without items");
    }
    for (key, value) in node {
        match (key, value) {
            ("properties" | "$defs" | "definitions" | "patternProperties", Value::Object(map)) => {
                for (name, s) in map {
                    schema_walk(
                        s,
                        &at(&at(path, key), name),
                        false,
                        items_rule,
                        object_rule,
                        out,
                    );
                }
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    schema_walk(
                        s,
                        &idx(&at(path, key), i),
                        false,
                        items_rule,
                        object_rule,
                        out,
                    );
                }
            }
            ("items" | "additionalProperties" | "not", s @ Value::Object(_)) => {
                schema_walk(s, &at(path, key), false, items_rule, object_rule, out);
            }
            _ => {}
        }
    }
}

/// OpenAI's `metadata` (at most 16 pairs, keys of at most 64 characters,
/// string values of at most 512) and `safety_identifier` (at most 128
/// characters), as its SDK's request types say them, Chat's and
/// Responses' alike.
pub(crate) fn metadata(body: &Value, (pairs, id): (&'static Rule, &'static Rule), out: &mut Out) {
    if let Some(Value::Object(metadata)) = body.get("metadata") {
        let count = metadata.keys().count();
        if count > 16 {
            out.push(pairs, "$.metadata", format!("{count} pairs"));
        }
        for (key, value) in metadata {
            let path = at("$.metadata", key);
            if key.chars().count() > 64 {
                out.push(pairs, path.clone(), "a key over 64 characters");
            }
            match value.as_str() {
                Some(text) if text.chars().count() > 512 => {
                    out.push(pairs, path, "a value over 512 characters")
                }
                Some(_) => {}
                None => out.push(pairs, path, "not a string"),
            }
        }
    }
    if let Some(text) = body.get("safety_identifier").and_then(Value::as_str) {
        if text.chars().count() > 128 {
            out.push(id, "$.safety_identifier", "over 128 characters");
        }
    }
}
