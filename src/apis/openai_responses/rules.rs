//! OpenAI Responses (`POST /v1/responses`).

use std::collections::HashSet;

use crate::json::tree::Json as Value;

use crate::apis::openai_chat::rules::{declarations, Declarations};
use crate::steps::rule::{array, at, fits, idx, string, word, Basis, Out, Rule, Target};

const FUNCTIONS: &str = "https://platform.openai.com/docs/guides/function-calling";
const READ: &str = "2026-12-01";

pub(crate) static INPUT_PRESENT: Rule = Rule {
    id: "openai-responses/input-present",
    says: "a request that continues no stored response holds its conversation in `input`: an empty one asks the model about nothing",
    source: "https://platform.openai.com/docs/api-reference/responses/create (`input`)",
    read: READ,
    basis: Basis::Prudent,
};
pub(crate) static OUTPUT_HAS_CALL: Rule = Rule {
    id: "openai-responses/output-has-call",
    says: "No tool call found for function call output with call_id …",
    source: FUNCTIONS,
    read: READ,
    basis: Basis::Observed,
};
pub(crate) static CALL_HAS_OUTPUT: Rule = Rule {
    id: "openai-responses/call-has-output",
    says: "No tool output found for function call …",
    source: FUNCTIONS,
    read: READ,
    basis: Basis::Observed,
};
pub(crate) static CHOICE_NEEDS_TOOLS: Rule = Rule {
    id: "openai-responses/tool-choice-needs-tools",
    says: "tool_choice names a tool or mode for the tools the request declares",
    source: "https://platform.openai.com/docs/api-reference/responses/create",
    read: READ,
    basis: Basis::Prudent,
};
pub(crate) static FUNCTION_NAME: Rule = Rule {
    id: "openai-responses/function-name",
    says: "function names are a-z, A-Z, 0-9, underscores and dashes, at most 64",
    source: "https://platform.openai.com/docs/api-reference/responses/create",
    read: READ,
    basis: Basis::Documented,
};
pub(crate) static CALL_ID: Rule = Rule {
    id: "openai-responses/call-id",
    says: "a call_id is at most 64 characters (string_above_max_length)",
    source: FUNCTIONS,
    read: READ,
    basis: Basis::Observed,
};
pub(crate) static ARRAY_ITEMS: Rule = Rule {
    id: "openai-responses/array-items",
    says: "an array schema in function parameters needs `items` (invalid_function_parameters)",
    source: FUNCTIONS,
    read: READ,
    basis: Basis::Observed,
};
pub(crate) static PARAMETERS_OBJECT: Rule = Rule {
    id: "openai-responses/parameters-object",
    says: "function parameters are a JSON Schema of type object, without oneOf, anyOf, allOf, enum, const or not at the top level",
    source: FUNCTIONS,
    read: READ,
    basis: Basis::Observed,
};
pub(crate) static REQUEST_SIZE: Rule = Rule {
    id: "openai-responses/request-size",
    says: "up to 512 MB of payload per request",
    source: "https://platform.openai.com/docs/guides/images-vision",
    read: READ,
    basis: Basis::Documented,
};

pub(crate) static DATA_LENGTH: Rule = Rule {
    id: "openai-responses/data-length",
    says: "an input_image's image_url is at most 20,971,520 characters and an input_file's file_data at most 73,400,320 (maxLength in the API's OpenAPI description)",
    source: "https://github.com/openai/openai-python/blob/main/api_reference/openapi.transformed.yml (InputImageContentParamAutoParam, InputFileContentParam)",
    read: READ,
    basis: Basis::Documented,
};

/// `maxLength` of `input_image.image_url` and `input_file.file_data`.
pub(crate) const MAX_IMAGE_URL: usize = 20_971_520;
pub(crate) const MAX_FILE_DATA: usize = 73_400_320;

pub(crate) static RULES: &[&Rule] = &[
    &INPUT_PRESENT,
    &OUTPUT_HAS_CALL,
    &CALL_HAS_OUTPUT,
    &CHOICE_NEEDS_TOOLS,
    &FUNCTION_NAME,
    &CALL_ID,
    &ARRAY_ITEMS,
    &PARAMETERS_OBJECT,
    &REQUEST_SIZE,
    &DATA_LENGTH,
];

/// The parts of an input item (a message's `content`, a function call
/// output's `output`) that carry inline data longer than the API takes.
fn data_lengths(item: &Value, path: &str, out: &mut Out) {
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
                    at(&idx(&at(path, key), p), field),
                    format!("{len} characters, over {max}"),
                );
            }
        }
    }
}

pub(crate) fn check(_: &Target<'_>, body: &Value, out: &mut Out) {
    if body.get("previous_response_id").is_none() {
        crate::steps::rule::message_count(&INPUT_PRESENT, body, "input", usize::MAX, out);
    }
    let input = array(body, "input");
    declarations(
        body,
        "",
        &Declarations {
            choice: &CHOICE_NEEDS_TOOLS,
            name: &FUNCTION_NAME,
            items: &ARRAY_ITEMS,
            object: &PARAMETERS_OBJECT,
        },
        out,
    );
    let mut calls = HashSet::new();
    let mut outputs = HashSet::new();
    for (i, item) in input.iter().enumerate() {
        let path = idx("$.input", i);
        data_lengths(item, &path, out);
        let id = string(item, "call_id").unwrap_or("");
        match string(item, "type") {
            Some("function_call") => {
                calls.insert(id);
                if id.chars().count() > 64 {
                    out.push(
                        &CALL_ID,
                        at(&path, "call_id"),
                        format!("{} characters", id.chars().count()),
                    );
                }
                let name = string(item, "name").unwrap_or("");
                if !fits(name, 64, word) {
                    out.push(&FUNCTION_NAME, at(&path, "name"), format!("{name:?}"));
                }
            }
            Some("function_call_output") => {
                if !calls.contains(id) {
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
                    idx("$.input", i),
                    format!("call_id {id:?}"),
                );
            }
        }
    }
}
