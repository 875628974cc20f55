//! Responses items of OpenAI's own tools (a custom tool's call, a local
//! shell call, a computer call, and their outputs), as the function call
//! or output every provider takes: what Codex and the OpenAI Agents SDK
//! keep of them, read alike.
//!
//! | item | becomes |
//! |---|---|
//! | `custom_tool_call` | a function call whose one argument `input` is its text |
//! | `local_shell_call` | a function call `local_shell`, its `action` the arguments |
//! | `computer_call` | a function call `computer`, its `action` (or `actions`) and `pending_safety_checks` the arguments |
//! | `custom_tool_call_output`, `local_shell_call_output` | the function call's output |
//! | `computer_call_output` | the function call's output, its screenshot (`image_url`, or a `file_id`) an `input_image` of it |

use serde_json::{json, Map, Value};

use crate::steps::imported::ImportError;

/// The item kinds read here.
pub(crate) const KINDS: [&str; 6] = [
    "custom_tool_call",
    "local_shell_call",
    "computer_call",
    "custom_tool_call_output",
    "local_shell_call_output",
    "computer_call_output",
];

/// How `kind` is kept, for a note.
pub(crate) fn how(kind: &str) -> &'static str {
    match kind {
        "custom_tool_call" => "written as a function call whose one argument `input` is its text",
        "local_shell_call" => {
            "written as a function call `local_shell` whose arguments are its action"
        }
        "computer_call" => "written as a function call `computer` whose arguments are its actions",
        "computer_call_output" => "written as the function call's output, the screenshot its image",
        _ => "written as the function call's output",
    }
}

/// `item`, of one of [`KINDS`], as a function call or output; `at` the
/// item's path in the errors.
///
/// # Errors
/// An item without the `call_id` its call and output are paired by.
pub(crate) fn as_function(kind: &str, item: &Value, at: &str) -> Result<Value, ImportError> {
    let str_of = |k: &str| item.get(k).and_then(Value::as_str);
    let Some(call_id) = str_of("call_id") else {
        return Err(ImportError::at(
            &format!("{at}.call_id"),
            format!("a {kind} item without a call_id"),
        ));
    };
    let mut f = Map::new();
    if kind.ends_with("_output") {
        let output = match (kind, item.get("output")) {
            ("computer_call_output", Some(shot)) => {
                let mut image = json!({"type": "input_image", "detail": "auto"});
                match (shot.get("image_url"), shot.get("file_id")) {
                    (Some(url), _) if url.as_str().is_some_and(|u| !u.is_empty()) => {
                        image["image_url"] = url.clone();
                    }
                    (_, Some(id)) if id.is_string() => image["file_id"] = id.clone(),
                    _ => return Err(ImportError::at(
                        &format!("{at}.output"),
                        "a computer_call_output without its screenshot (an image_url or a file_id)",
                    )),
                }
                json!([image])
            }
            (_, Some(output)) => output.clone(),
            (_, None) => json!(""),
        };
        f.insert("type".into(), json!("function_call_output"));
        f.insert("call_id".into(), json!(call_id));
        f.insert("output".into(), output);
        return Ok(Value::Object(f));
    }
    let (name, arguments) = match kind {
        "custom_tool_call" => (
            str_of("name").unwrap_or("custom_tool"),
            json!({"input": str_of("input").unwrap_or_default()}),
        ),
        "local_shell_call" => (
            "local_shell",
            item.get("action").cloned().unwrap_or(json!({})),
        ),
        _ => {
            let mut args = Map::new();
            for key in ["action", "actions", "pending_safety_checks"] {
                if let Some(v) = item.get(key) {
                    args.insert(key.into(), v.clone());
                }
            }
            ("computer", Value::Object(args))
        }
    };
    f.insert("type".into(), json!("function_call"));
    f.insert("call_id".into(), json!(call_id));
    f.insert("name".into(), json!(name));
    f.insert("arguments".into(), json!(arguments.to_string()));
    Ok(Value::Object(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_becomes_a_function_call_or_output() {
        let call = as_function(
            "computer_call",
            &json!({"type": "computer_call", "id": "cu_1", "call_id": "c1",
                "actions": [{"type": "screenshot"}], "pending_safety_checks": [], "status": "completed"}),
            "$",
        )
        .unwrap();
        assert_eq!(call["name"], "computer");
        assert_eq!(
            call["arguments"],
            r#"{"actions":[{"type":"screenshot"}],"pending_safety_checks":[]}"#
        );
        let out = as_function(
            "computer_call_output",
            &json!({"type": "computer_call_output", "call_id": "c1",
                "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"},
                "acknowledged_safety_checks": null}),
            "$",
        )
        .unwrap();
        assert_eq!(
            out,
            json!({"type": "function_call_output", "call_id": "c1", "output": [
                {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,AAAA"}]})
        );
        let shell = as_function(
            "local_shell_call_output",
            &json!({"type": "local_shell_call_output", "call_id": "s1", "output": "hi\n"}),
            "$",
        )
        .unwrap();
        assert_eq!(shell["output"], "hi\n");
        let custom = as_function(
            "custom_tool_call",
            &json!({"type": "custom_tool_call", "call_id": "t1", "name": "grep", "input": "TODO"}),
            "$",
        )
        .unwrap();
        assert_eq!(custom["arguments"], r#"{"input":"TODO"}"#);
        let e = as_function(
            "computer_call_output",
            &json!({"call_id": "c1", "output": {"image_url": ""}}),
            "$.x",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.x.output: a computer_call_output without its screenshot (an image_url or a file_id)"
        );
        let e = as_function("custom_tool_call", &json!({}), "line 3: $").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: $.call_id: a custom_tool_call item without a call_id"
        );
    }
}
