//! What `fit` writes around a payload in an agent's own file: the member
//! beside it that names its media type, and the text part that stands in
//! for its part when the part is left out. Both are found by the shape of
//! the part, as [`payloads`](super::payloads) finds the payload.
//!
//! | the part | what stands in for it |
//! |---|---|
//! | `"type": "input_image"` or `"input_file"` (OpenAI Responses: Codex, the Agents SDK) | `{"type": "input_text", "text": …}` |
//! | any other `"type"` (Anthropic: Claude Code, Cline; OpenAI Chat; the AI SDK's parts; LangChain's blocks) | `{"type": "text", "text": …}` |
//! | `"kind"` (pydantic-ai's `BinaryContent`, `ImageUrl`) | the text, as a string (its content lists take strings) |
//! | `inlineData` (Gemini: Gemini CLI) | `{"text": …}` |
//!
//! Any other part has no stand-in: what a file's format is not known to
//! take is not written into it.

use serde_json::Value;

/// The members, beside a payload, that name its media type: Anthropic's
/// and pydantic-ai's `media_type`, the AI SDK's `mediaType`, Gemini's
/// `mimeType`, LangChain's `mime_type`.
pub(crate) const MEDIA_TYPE_KEYS: [&str; 4] = ["media_type", "mediaType", "mimeType", "mime_type"];

/// The JSON text of the part that stands in for `part` saying `text`;
/// `None` when the part's shape is none of the table's.
pub(crate) fn stand_in(part: &Value, text: &str) -> Option<String> {
    let object = part.as_object()?;
    // Written by hand: the `type` member first, as the agents write it.
    let text = Value::String(text.to_owned());
    Some(match object.get("type").and_then(Value::as_str) {
        Some(kind) if kind.starts_with("input_") => {
            format!(r#"{{"type":"input_text","text":{text}}}"#)
        }
        Some(_) => format!(r#"{{"type":"text","text":{text}}}"#),
        None if object.get("kind").is_some_and(Value::is_string) => text.to_string(),
        None if object.contains_key("inlineData") => format!(r#"{{"text":{text}}}"#),
        None => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_shape_has_its_stand_in() {
        let t = "gone";
        let cases = [
            (
                json!({"type": "image", "source": {}}),
                r#"{"type":"text","text":"gone"}"#,
            ),
            (
                json!({"type": "input_image", "image_url": "data:"}),
                r#"{"type":"input_text","text":"gone"}"#,
            ),
            (
                json!({"type": "input_file", "file_data": "data:"}),
                r#"{"type":"input_text","text":"gone"}"#,
            ),
            (
                json!({"type": "image_url", "image_url": {}}),
                r#"{"type":"text","text":"gone"}"#,
            ),
            (
                json!({"type": "media", "data": "", "mediaType": "image/png"}),
                r#"{"type":"text","text":"gone"}"#,
            ),
            (json!({"kind": "binary", "data": ""}), r#""gone""#),
            (json!({"inlineData": {"data": ""}}), r#"{"text":"gone"}"#),
        ];
        for (part, want) in cases {
            assert_eq!(stand_in(&part, t).as_deref(), Some(want), "{part}");
        }
        for part in [
            json!({"data": ""}),
            json!("x"),
            json!({"type": 3}),
            json!({"part_kind": "user-prompt"}),
        ] {
            assert_eq!(stand_in(&part, t), None, "{part}");
        }
    }

    #[test]
    fn the_text_is_escaped() {
        let part = json!({"type": "image"});
        let got = stand_in(&part, "a \"quoted\"\nline").unwrap();
        let back: Value = serde_json::from_str(&got).unwrap();
        assert_eq!(back["text"], "a \"quoted\"\nline");
    }
}
