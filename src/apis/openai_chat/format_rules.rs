//! What OpenAI holds a response format to, Chat's `response_format` and
//! Responses' `text.format` alike
//! (<https://platform.openai.com/docs/guides/structured-outputs>, read
//! 2026-12-06; the name's pattern from the `openai` SDK's
//! `ResponseFormatJSONSchema`, 3.57.0). Each API names its own rules.

use crate::json::tree::Json as Value;
use crate::steps::output_rules::{all_required, bounded_root, closed_objects};
use crate::steps::rule::{at, fits, string, word, Out, Rule};

/// The rules one API checks a response format by.
pub(crate) struct FormatRules {
    /// The schema's name: a-z, A-Z, 0-9, `_` and `-`, at most 64.
    pub name: &'static Rule,
    /// JSON mode needs the word "JSON" in the messages.
    pub json_word: &'static Rule,
    /// A strict schema's shape.
    pub strict: &'static Rule,
}

/// Check a response format: `format` at `path` (its `type`), the object
/// holding the schema's `name`, `schema` and `strict` (`json_schema` in
/// Chat, the format itself in Responses) at `named`, and whether the
/// request's messages mention JSON.
pub(crate) fn check(
    rules: &FormatRules,
    (format, path): (&Value, &str),
    named: Option<(&Value, String)>,
    mentions_json: impl FnOnce() -> bool,
    out: &mut Out,
) {
    match string(format, "type") {
        Some("json_object") if !mentions_json() => out.push(
            rules.json_word,
            at(path, "type"),
            "JSON mode, and no message mentions JSON",
        ),
        Some("json_schema") => {
            let Some((named, path)) = named else {
                return;
            };
            if let Some(name) = string(named, "name") {
                if !fits(name, 64, word) {
                    out.push(rules.name, at(&path, "name"), format!("{name:?}"));
                }
            }
            if let (Some(Value::Bool(true)), Some(schema)) =
                (named.get("strict"), named.get("schema"))
            {
                let schema_path = at(&path, "schema");
                bounded_root(rules.strict, schema, &schema_path, (10, 5000), out);
                closed_objects(rules.strict, schema, &schema_path, out);
                all_required(rules.strict, schema, &schema_path, out);
            }
        }
        _ => {}
    }
}

/// Whether any text the model reads says "json", in any case: the
/// strings of `text`, `content`, `instructions`, `input` and `output`
/// members at any depth (never media's data or URLs).
pub(crate) fn mentions_json(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(object) => {
                for (key, member) in object {
                    match (key, member) {
                        (
                            "text" | "content" | "instructions" | "input" | "output",
                            Value::String(text),
                        ) if says_json(text) => return true,
                        (_, Value::Array(_) | Value::Object(_)) => stack.push(member),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether `text` holds "json" in any case.
pub(crate) fn says_json(text: &str) -> bool {
    text.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_in_text_only() {
        let yes = |text: &str| mentions_json(&Value::from_str(text).unwrap());
        assert!(yes(
            r#"{"messages":[{"role":"user","content":"Answer in Json."}]}"#
        ));
        assert!(yes(
            r#"{"input":[{"content":[{"type":"input_text","text":"a JSON list"}]}]}"#
        ));
        assert!(yes(r#"{"instructions":"json only"}"#));
        assert!(!yes(
            r#"{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,jsonjson"}}]}]}"#
        ));
        assert!(!yes(
            r#"{"messages":[{"role":"user","content":"Answer."}],"model":"json"}"#
        ));
    }
}
