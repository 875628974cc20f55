//! MCP tool results (`CallToolResult`,
//! <https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-result>,
//! read 2026-12-01) as native carriers.
//!
//! | MCP | carrier |
//! |---|---|
//! | `text` block | a line of the body |
//! | `image` / `audio` block (`data`, `mimeType`) | the bytes stored ([`MediaStore`]), declared `image` / `audio` |
//! | `resource` with `text` | `[resource URI]` and the text, in the body |
//! | `resource` with `blob` | the bytes stored, declared by their MIME type's kind |
//! | `resource_link` | declared by its URI when its `mimeType` names an image, audio, video or PDF; else `[resource link NAME: URI]` in the body |
//! | `isError: true` | `"is_error": true` ([`IS_ERROR`](super::IS_ERROR)) |
//! | `structuredContent`, `_meta`, other members | kept as members of the envelope (a name the envelope uses itself gets `_` in front); a string in `structuredContent` that repeats a payload of `content` becomes that payload's target |
//! | a block of another type | its JSON as a line of the body, with a note |
//!
//! ```
//! use serde_json::json;
//! use tool_carrier::import::from_mcp;
//! use tool_carrier::media::store::InlineStore;
//!
//! let result = json!({
//!     "content": [
//!         {"type": "text", "text": "Saved."},
//!         {"type": "image", "data": "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=", "mimeType": "image/gif"}
//!     ],
//!     "isError": false
//! });
//! let imported = from_mcp(Some("call_1"), &result, &mut InlineStore)?;
//! let envelope: serde_json::Value = serde_json::from_str(&imported.content).unwrap();
//! assert_eq!(envelope["content"], "Saved.");
//! assert_eq!(envelope["attachments"][0]["kind"], "image");
//! assert!(envelope["attachments"][0]["target"].as_str().unwrap().starts_with("data:image/gif;base64,"));
//! # Ok::<(), tool_carrier::import::ImportError>(())
//! ```

use serde_json::Value;

use crate::media::data_uri::BASE64;
use crate::media::store::MediaStore;
use crate::{Attachment, AttachmentKind};

use super::{kind_of_mime, ImportError, Imported};
use crate::steps::envelope::Envelope;

/// A native carrier's content from an MCP `CallToolResult` (JSON) answering
/// `call_id`; inline payloads go to `store`.
///
/// # Errors
/// [`ImportError`]: the result is not an object, `content` is not a list,
/// a block lacks what its type needs, a payload is not base64, or the
/// store fails.
pub fn from_mcp(
    call_id: Option<&str>,
    result: &Value,
    store: &mut dyn MediaStore,
) -> Result<Imported, ImportError> {
    let Value::Object(members) = result else {
        return Err(ImportError::at("$", "a CallToolResult is an object"));
    };
    let mut env = Envelope {
        call_id: call_id.map(str::to_owned),
        ..Envelope::default()
    };
    let mut notes = Vec::new();
    // The base64 text of each stored payload, and where it went.
    let mut payloads: Vec<(String, String)> = Vec::new();
    let blocks = match members.get("content") {
        None => &[][..],
        Some(Value::Array(blocks)) => &blocks[..],
        Some(_) => {
            return Err(ImportError::at(
                "$.content",
                "expected a list of content blocks",
            ))
        }
    };
    for (i, block) in blocks.iter().enumerate() {
        let at = format!("$.content[{i}]");
        let field = |name: &str| -> Result<&str, ImportError> {
            block.get(name).and_then(Value::as_str).ok_or_else(|| {
                ImportError::at(
                    &at,
                    format!("a {} block needs a string {name:?}", kind(block)),
                )
            })
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => env.line(field("text")?),
            Some(t @ ("image" | "audio")) => {
                let data = field("data")?;
                let target = store_payload(data, &at, store)?;
                let kind = if t == "image" {
                    AttachmentKind::Image
                } else {
                    AttachmentKind::Audio
                };
                payloads.push((data.to_owned(), target.clone()));
                env.attachments.push(Attachment::new(kind, target));
            }
            Some("resource") => {
                let resource = block.get("resource").unwrap_or(&Value::Null);
                let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
                if let Some(text) = resource.get("text").and_then(Value::as_str) {
                    env.line(&format!("[resource {uri}]"));
                    env.line(text);
                } else if let Some(blob) = resource.get("blob").and_then(Value::as_str) {
                    let mime = resource
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let target = store_payload(blob, &format!("{at}.resource"), store)?;
                    payloads.push((blob.to_owned(), target.clone()));
                    let kind = kind_of_mime(mime).unwrap_or(AttachmentKind::Document);
                    env.attachments.push(Attachment::new(kind, target));
                } else {
                    return Err(ImportError::at(
                        &format!("{at}.resource"),
                        "an embedded resource needs \"text\" or \"blob\"",
                    ));
                }
            }
            Some("resource_link") => {
                let uri = field("uri")?;
                let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("");
                match kind_of_mime(mime) {
                    Some(kind) if !uri.is_empty() => {
                        env.attachments.push(Attachment::new(kind, uri.to_owned()));
                    }
                    _ => {
                        let name = block.get("name").and_then(Value::as_str).unwrap_or(uri);
                        env.line(&format!("[resource link {name}: {uri}]"));
                    }
                }
            }
            _ => {
                env.line(&block.to_string());
                notes.push(format!("{at}: a {} block is kept as text", kind(block)));
            }
        }
    }
    for (name, value) in members {
        match name.as_str() {
            "content" => {}
            "isError" => match value {
                Value::Bool(b) => env.is_error = *b,
                _ => return Err(ImportError::at("$.isError", "expected true or false")),
            },
            "structuredContent" => {
                let mut value = value.clone();
                let folded = fold_payloads(&mut value, &payloads);
                if folded > 0 {
                    notes.push(format!(
                        "$.structuredContent: {folded} payload(s) repeated from content declared by their target"
                    ));
                }
                env.keep(name, value.to_string());
            }
            _ => env.keep(name, value.to_string()),
        }
    }
    Ok(Imported {
        content: env.render(),
        notes,
    })
}

/// A block's type, for messages.
fn kind(block: &Value) -> String {
    match block.get("type").and_then(Value::as_str) {
        Some(t) => format!("{t:?}"),
        None => "untyped".into(),
    }
}

fn store_payload(data: &str, at: &str, store: &mut dyn MediaStore) -> Result<String, ImportError> {
    use base64::Engine;
    let bytes = BASE64
        .decode(data)
        .map_err(|e| ImportError::at(at, format!("the payload is not base64: {e}")))?;
    Ok(store.put(&bytes).map_err(ImportError::Store)?.target)
}

/// Replace every string of `value` equal to a stored payload's base64 text
/// by its target; how many were replaced.
fn fold_payloads(value: &mut Value, payloads: &[(String, String)]) -> usize {
    match value {
        Value::String(s) => match payloads.iter().find(|(data, _)| data == s) {
            Some((_, target)) => {
                *s = target.clone();
                1
            }
            None => 0,
        },
        Value::Array(items) => items.iter_mut().map(|v| fold_payloads(v, payloads)).sum(),
        Value::Object(map) => map.values_mut().map(|v| fold_payloads(v, payloads)).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    fn envelope(result: Value) -> Value {
        let imported = from_mcp(Some("c1"), &result, &mut InlineStore).unwrap();
        serde_json::from_str(&imported.content).unwrap()
    }

    #[test]
    fn every_block_type_has_its_place() {
        let e = envelope(json!({
            "content": [
                {"type": "text", "text": "one"},
                {"type": "image", "data": GIF, "mimeType": "image/gif"},
                {"type": "resource", "resource": {"uri": "file:///n.txt", "mimeType": "text/plain", "text": "notes"}},
                {"type": "resource", "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBERi0xLjQK"}},
                {"type": "resource_link", "uri": "https://x/a.png", "name": "a", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "https://x/readme", "name": "readme"},
                {"type": "future", "x": 1}
            ],
            "isError": true,
            "_meta": {"k": "v"}
        }));
        assert_eq!(
            e["content"],
            "one\n[resource file:///n.txt]\nnotes\n[resource link readme: https://x/readme]\n{\"type\":\"future\",\"x\":1}"
        );
        assert_eq!(e["is_error"], true);
        assert_eq!(e["_meta"]["k"], "v");
        let kinds: Vec<&str> = e["attachments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["image", "document", "image"]);
        assert_eq!(
            e["attachments"][1]["target"],
            "data:application/pdf;base64,JVBERi0xLjQK"
        );
        assert_eq!(e["attachments"][2]["target"], "https://x/a.png");
    }

    #[test]
    fn structured_content_does_not_repeat_a_payload() {
        let e = envelope(json!({
            "content": [{"type": "image", "data": GIF, "mimeType": "image/gif"}],
            "structuredContent": {"shot": GIF, "size": 1}
        }));
        assert_eq!(
            e["structuredContent"]["shot"],
            e["attachments"][0]["target"]
        );
        assert_eq!(e["structuredContent"]["size"], 1);
    }

    #[test]
    fn bad_results_are_clear_errors() {
        let err = |v: Value| {
            from_mcp(None, &v, &mut InlineStore)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err(json!([])), "$: a CallToolResult is an object");
        assert_eq!(
            err(json!({"content": {}})),
            "$.content: expected a list of content blocks"
        );
        assert_eq!(
            err(json!({"content": [{"type": "image", "mimeType": "image/png"}]})),
            "$.content[0]: a \"image\" block needs a string \"data\""
        );
        assert!(err(
            json!({"content": [{"type": "image", "data": "%%", "mimeType": "image/png"}]})
        )
        .starts_with("$.content[0]: the payload is not base64"));
        assert_eq!(
            err(json!({"isError": "yes"})),
            "$.isError: expected true or false"
        );
    }
}
