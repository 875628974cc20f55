//! Gemini `generateContent` (v1beta), for Gemini 3 and 2.x models alike.

use std::collections::HashSet;

use crate::json::tree::Json as Value;

use crate::facts::ids::gemini_3_or_later;
use crate::steps::path::Path;
use crate::steps::rule::{array, at, idx, rule, string, Out, Rule, Target};

const CALLING: &str = "https://ai.google.dev/gemini-api/docs/function-calling";
const READ: &str = "2026-12-01";

rule!(CONTENTS, "gemini/contents-present", "`contents` is required and holds the conversation (an empty list is refused with \"contents is not specified\")", "https://ai.google.dev/api/generate-content#request-body", Documented);
rule!(RESPONSE_COUNT, "gemini/response-count", "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.", CALLING, Observed);
rule!(
    RESPONSE_MATCHES,
    "gemini/response-matches-call",
    "each functionResponse carries the name and id of a call of the turn before",
    CALLING,
    Documented
);
rule!(CALL_TURN_PLACE, "gemini/call-turn-follows-user", "Please ensure that function call turn comes immediately after a user turn or after a function response turn.", CALLING, Observed);
rule!(
    CALLS_DECLARED,
    "gemini/calls-declared",
    "a functionCall names a declared function",
    CALLING,
    Observed
);
rule!(
    CONFIG_NEEDS_TOOLS,
    "gemini/tool-config-needs-declarations",
    "toolConfig.functionCallingConfig is only valid with function declarations",
    "https://ai.google.dev/api/caching#ToolConfig",
    Observed
);
rule!(FUNCTION_NAME, "gemini/function-name", "function names start with a letter or an underscore, then a-z, A-Z, 0-9, underscores, dots, colons and dashes, at most 64", "https://ai.google.dev/api/caching#FunctionDeclaration", Documented);
rule!(ONE_SCHEMA, "gemini/one-parameters-schema", "a declaration has `parameters` or `parametersJsonSchema`, not both; beside a `$ref`, only `description` and `default`", "https://ai.google.dev/api/caching#FunctionDeclaration", Documented);
rule!(
    THOUGHT_SIGNATURE,
    "gemini/thought-signature",
    "on Gemini 3, the first function call part of each model turn carries a thoughtSignature",
    "https://ai.google.dev/gemini-api/docs/thought-signatures",
    Documented
);
rule!(NESTED_MEDIA, "gemini/media-in-function-response", "media inside functionResponse.parts only for Gemini 3 models, and only PNG, JPEG, WEBP, PDF or plain text", CALLING, Documented);
rule!(
    MIME,
    "gemini/inline-types",
    "inline images are PNG, JPEG, WEBP, HEIC or HEIF; documents PDF",
    "https://ai.google.dev/gemini-api/docs/image-understanding",
    Documented
);
rule!(
    INLINE_SIZE,
    "gemini/inline-size",
    "inline data up to 100 MB per request; an inline PDF up to 50 MB",
    "https://ai.google.dev/gemini-api/docs/file-input-methods",
    Documented
);
rule!(
    REQUEST_SIZE,
    "gemini/request-size",
    "a request with inline data is at most 100 MB",
    "https://ai.google.dev/gemini-api/docs/file-input-methods",
    Documented
);

rule!(
    SAMPLING,
    "gemini/sampling",
    "generationConfig: temperature from 0.0 to 2.0, topP from 0 to 1, at most 5 stopSequences",
    "https://ai.google.dev/api/generate-content#generationconfig",
    Documented
);
rule!(
    THINKING_ONE_WAY,
    "gemini/thinking-level-or-budget",
    "thinkingConfig takes thinkingLevel or the legacy thinkingBudget, not both in one request",
    "https://ai.google.dev/gemini-api/docs/thinking",
    Documented
);

rule!(
    OUTPUT_CAP,
    "gemini/max-output-tokens-cap",
    "`generationConfig.maxOutputTokens` is at most the model's documented output token limit (each model's `max_output` in the facts, with the page it was read on)",
    "https://ai.google.dev/gemini-api/docs/models",
    Documented
);

rule!(
    PDF_PAGES,
    "gemini/pdf-pages",
    "documents of up to 1000 pages",
    "https://ai.google.dev/gemini-api/docs/document-processing",
    Documented
);

rule!(
    MEMBERS,
    "gemini/members",
    "every member of the body, and of the settings' objects in it, is one the official SDK's request types list (the API refuses an unknown parameter)",
    "https://pypi.org/project/google-genai/ (the pinned SDK's Developer API request converter)",
    Documented
);

rule!(
    CHOICE_DECLARED,
    "gemini/allowed-functions-declared",
    "each of functionCallingConfig.allowedFunctionNames names a function the request declares",
    "https://ai.google.dev/api/caching#FunctionCallingConfig",
    Prudent
);

rule!(
    JSON_SCHEMA,
    "gemini/response-json-schema",
    "responseJsonSchema goes with responseMimeType application/json and without responseSchema (\"If set, `response_schema` must be omitted, but `response_mime_type` is required\")",
    "https://github.com/googleapis/python-genai/blob/v2.19.0/google/genai/types.py (GenerateContentConfig.response_json_schema)",
    Documented,
    "2026-12-06"
);

pub(crate) static RULES: &[&Rule] = &[
    &JSON_SCHEMA,
    &CHOICE_DECLARED,
    &MEMBERS,
    &OUTPUT_CAP,
    &PDF_PAGES,
    &SAMPLING,
    &THINKING_ONE_WAY,
    &CONTENTS,
    &RESPONSE_COUNT,
    &RESPONSE_MATCHES,
    &CALL_TURN_PLACE,
    &CALLS_DECLARED,
    &CONFIG_NEEDS_TOOLS,
    &FUNCTION_NAME,
    &ONE_SCHEMA,
    &THOUGHT_SIGNATURE,
    &NESTED_MEDIA,
    &MIME,
    &INLINE_SIZE,
    &REQUEST_SIZE,
];

fn name_ok(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().count() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

pub(crate) fn check(target: &Target<'_>, body: &Value, out: &mut Out) {
    crate::steps::rule::members_listed(&MEMBERS, super::SPEC.members, super::SPEC.also, body, out);
    crate::steps::rule::pdf_limits(&PDF_PAGES, None, target, body, out);
    crate::steps::rule::output_cap(
        &OUTPUT_CAP,
        target,
        body,
        &["generationConfig", "maxOutputTokens"],
        out,
    );
    if let Some(config) = body.get("generationConfig") {
        let base = "$.generationConfig";
        if config.get("responseJsonSchema").is_some() {
            if string(config, "responseMimeType") != Some("application/json") {
                out.push(
                    &JSON_SCHEMA,
                    at(base, "responseMimeType"),
                    "not application/json beside responseJsonSchema",
                );
            }
            if config.get("responseSchema").is_some() {
                out.push(
                    &JSON_SCHEMA,
                    at(base, "responseSchema"),
                    "beside responseJsonSchema",
                );
            }
        }
        crate::steps::rule::in_range(&SAMPLING, config, base, "temperature", (0.0, 2.0), out);
        crate::steps::rule::in_range(&SAMPLING, config, base, "topP", (0.0, 1.0), out);
        if array(config, "stopSequences").len() > 5 {
            out.push(
                &SAMPLING,
                format!("{base}.stopSequences"),
                "more than 5 sequences",
            );
        }
        let thinking = &config["thinkingConfig"];
        if thinking.get("thinkingLevel").is_some() && thinking.get("thinkingBudget").is_some() {
            out.push(
                &THINKING_ONE_WAY,
                format!("{base}.thinkingConfig"),
                "both given",
            );
        }
    }
    crate::steps::rule::message_count(&CONTENTS, body, "contents", usize::MAX, out);
    let mut declared = HashSet::new();
    for (t, tool) in array(body, "tools").iter().enumerate() {
        for (d, decl) in array(tool, "functionDeclarations").iter().enumerate() {
            let path = idx(&at(&idx("$.tools", t), "functionDeclarations"), d);
            let name = string(decl, "name").unwrap_or("");
            if !name_ok(name) {
                out.push(&FUNCTION_NAME, at(&path, "name"), format!("{name:?}"));
            }
            declared.insert(name);
            if decl.get("parameters").is_some() && decl.get("parametersJsonSchema").is_some() {
                out.push(
                    &ONE_SCHEMA,
                    path.clone(),
                    "both parameters and parametersJsonSchema",
                );
            }
            if let Some(schema) = decl.get("parametersJsonSchema") {
                ref_siblings(schema, &at(&path, "parametersJsonSchema"), out);
            }
        }
    }
    let calling = body
        .get("toolConfig")
        .and_then(|c| c.get("functionCallingConfig"));
    let allowed = calling.map_or(&[][..], |c| array(c, "allowedFunctionNames"));
    for (i, name) in allowed.iter().enumerate() {
        let name = name.as_str().unwrap_or_default();
        if !declared.contains(name) {
            out.push(
                &CHOICE_DECLARED,
                idx("$.toolConfig.functionCallingConfig.allowedFunctionNames", i),
                format!("{name:?} is not declared"),
            );
        }
    }
    if calling.is_some() && declared.is_empty() {
        out.push(
            &CONFIG_NEEDS_TOOLS,
            "$.toolConfig",
            "no function declarations",
        );
    }
    let modern = gemini_3_or_later(target.model);
    let contents = array(body, "contents");
    let mut inline_bytes = 0usize;
    let at_contents = Path::Root("$.contents");
    for (c, content) in contents.iter().enumerate() {
        let path = at_contents.index(c);
        let parts_at = path.key("parts");
        let parts = array(content, "parts");
        let calls: Vec<(&str, &str)> = parts
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .map(|f| {
                (
                    string(f, "name").unwrap_or(""),
                    string(f, "id").unwrap_or(""),
                )
            })
            .collect();
        for (p, part) in parts.iter().enumerate() {
            let ppath = parts_at.index(p);
            if let Some(data) = part.get("inlineData") {
                inline_bytes += inline(data, ppath.key("inlineData"), false, out);
            }
            if let Some(call) = part.get("functionCall") {
                let name = string(call, "name").unwrap_or("");
                if !declared.contains(name) {
                    out.push(
                        &CALLS_DECLARED,
                        ppath.key("functionCall.name"),
                        format!("{name:?}"),
                    );
                }
            }
            if let Some(response) = part.get("functionResponse") {
                let nested_at = ppath.key("functionResponse.parts");
                for (n, nested) in array(response, "parts").iter().enumerate() {
                    let npath = nested_at.index(n);
                    if !modern {
                        out.push(
                            &NESTED_MEDIA,
                            npath,
                            format!("{} is not a Gemini 3 model", target.model),
                        );
                    }
                    if let Some(data) = nested.get("inlineData") {
                        inline_bytes += inline(data, npath.key("inlineData"), true, out);
                    }
                }
            }
        }
        if calls.is_empty() {
            continue;
        }
        if modern
            && parts
                .iter()
                .find(|p| p.get("functionCall").is_some())
                .and_then(|p| p.get("thoughtSignature"))
                .is_none()
        {
            out.push(&THOUGHT_SIGNATURE, path, "the first function call has none");
        }
        let before_ok = c > 0 && string(&contents[c - 1], "role") == Some("user");
        if !before_ok {
            out.push(
                &CALL_TURN_PLACE,
                path,
                "no user turn or function responses before it",
            );
        }
        let next: Vec<&Value> = contents
            .get(c + 1)
            .map(|n| {
                array(n, "parts")
                    .iter()
                    .filter_map(|p| p.get("functionResponse"))
                    .collect()
            })
            .unwrap_or_default();
        if next.len() != calls.len() {
            out.push(
                &RESPONSE_COUNT,
                at_contents.index(c + 1),
                format!("{} calls, {} responses", calls.len(), next.len()),
            );
        }
        for response in next {
            let pair = (
                string(response, "name").unwrap_or(""),
                string(response, "id").unwrap_or(""),
            );
            if !calls.contains(&pair) {
                out.push(
                    &RESPONSE_MATCHES,
                    at_contents.index(c + 1),
                    format!("{pair:?} answers no call"),
                );
            }
        }
    }
    if inline_bytes > 100_000_000 {
        out.push(
            &INLINE_SIZE,
            "$.contents",
            format!("{inline_bytes} bytes inline"),
        );
    }
}

/// Check one `inlineData`; its decoded size.
fn inline(data: &Value, path: Path<'_>, nested: bool, out: &mut Out) -> usize {
    let mime = string(data, "mimeType").unwrap_or("");
    let allowed: &[&str] = if nested {
        &[
            "image/png",
            "image/jpeg",
            "image/webp",
            "application/pdf",
            "text/plain",
        ]
    } else {
        &[
            "image/png",
            "image/jpeg",
            "image/webp",
            "image/heic",
            "image/heif",
            "application/pdf",
        ]
    };
    if !allowed.contains(&mime) {
        let rule = if nested { &NESTED_MEDIA } else { &MIME };
        out.push(rule, path, mime.to_owned());
    }
    let size = string(data, "data")
        .and_then(crate::steps::rule::decoded_len)
        .unwrap_or(0);
    if mime == "application/pdf" && size > 50_000_000 {
        out.push(&INLINE_SIZE, path, format!("a PDF of {size} bytes"));
    }
    size
}

/// Beside a `$ref`, only `description` and `default`, in every schema
/// node (the values of the JSON Schema keywords that hold schemas; a
/// property merely named `$ref` is no reference).
fn ref_siblings(schema: &Value, path: &str, out: &mut Out) {
    let Value::Object(node) = schema else {
        return;
    };
    if node.contains_key("$ref") {
        for key in node.keys() {
            if !matches!(key, "$ref" | "description" | "default") {
                out.push(&ONE_SCHEMA, at(path, key), "beside a $ref");
            }
        }
    }
    for (key, value) in node {
        let here = at(path, key);
        match (key, value) {
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                Value::Object(map),
            ) => {
                for (name, s) in map {
                    ref_siblings(s, &at(&here, name), out);
                }
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems" | "items", Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    ref_siblings(s, &idx(&here, i), out);
                }
            }
            (
                "items"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "additionalItems",
                s @ Value::Object(_),
            ) => ref_siblings(s, &here, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_are_read_from_the_model_id() {
        for m in [
            "gemini-3.8-flash",
            "gemini-3-flash-preview",
            "models/gemini-3.1-pro-preview",
            "gemini-4-argon",
        ] {
            assert!(gemini_3_or_later(m), "{m}");
        }
        for m in [
            "gemini-2.5-flash-lite",
            "gemini-1.5-pro",
            "models/gemini-2.0-flash",
        ] {
            assert!(!gemini_3_or_later(m), "{m}");
        }
    }

    #[test]
    fn function_names_follow_the_pattern() {
        assert!(name_ok("_a.b:c-d"));
        assert!(!name_ok("1a"));
        assert!(!name_ok(""));
        assert!(!name_ok(&"a".repeat(65)));
    }
}
