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
//! | a JSON-RPC error response (`{"jsonrpc", "id", "error": {"code", "message"}}`) or a bare `error` object | a failed result: the error's message the body, `"is_error": true`, the error kept as the member `error` |
//! | a JSON-RPC response (`{"jsonrpc", "id", "result"}`) | its `result`, read as above |
//!
//! Every content block is first looked up in the kinds the pinned
//! `mcp-types` lists ([`known`]): a block of another kind is refused,
//! naming it and its path (or, asked, left out with a note).
//!
//! ```
//! use serde_json::json;
//! use tool_carrier::import::{from_mcp, ImportOptions};
//! use tool_carrier::media::store::InlineStore;
//!
//! let result = json!({
//!     "content": [
//!         {"type": "text", "text": "Saved."},
//!         {"type": "image", "data": "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=", "mimeType": "image/gif"}
//!     ],
//!     "isError": false
//! });
//! let imported = from_mcp(Some("call_1"), &result, &mut InlineStore, &ImportOptions::default())?;
//! let envelope: serde_json::Value = serde_json::from_str(&imported.content).unwrap();
//! assert_eq!(envelope["content"], "Saved.");
//! assert_eq!(envelope["attachments"][0]["kind"], "image");
//! assert!(envelope["attachments"][0]["target"].as_str().unwrap().starts_with("data:image/gif;base64,"));
//! # Ok::<(), tool_carrier::import::ImportError>(())
//! ```

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::{Attachment, AttachmentKind};

pub(crate) mod known;

use super::{kind_of_mime, ImportError, ImportOptions, Imported};
use crate::steps::audit::{audit, label_in, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportedHistory;

/// A result's lists as the reader reads them: its content blocks. A
/// result may hold members of any name (MCP's `Result` allows them): they
/// are kept as the envelope's.
static SHAPE: Shape = Shape {
    sdk: known::SDK,
    members: &[("content", &CONTENT)],
    bare: &CONTENT,
};

static CONTENT: Walk = Walk {
    list: &known::CONTENT,
    noun: Some("content block"),
    inner: &[Inner::at("resource", "resource", &RESOURCE)],
    also: &[],
};

static RESOURCE: Walk = Walk {
    list: &known::RESOURCE,
    noun: None,
    inner: &[],
    also: &[],
};

/// A native carrier's content from an MCP `CallToolResult` (JSON) answering
/// `call_id`; inline payloads go to `store`. With
/// [`ImportOptions::keep_unknown`], a content block of a kind the MCP types
/// do not list is left out with a note instead of refusing the result.
///
/// ```
/// use serde_json::json;
/// use tool_carrier::import::{from_mcp, ImportOptions};
/// use tool_carrier::media::store::InlineStore;
///
/// // What a server answers for a call it cannot serve: a failed result.
/// let answer = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Unknown tool: shot"}});
/// let imported = from_mcp(Some("call_1"), &answer, &mut InlineStore, &ImportOptions::new())?;
/// let envelope: serde_json::Value = serde_json::from_str(&imported.content).unwrap();
/// assert_eq!(envelope["content"], "Unknown tool: shot");
/// assert_eq!(envelope["is_error"], true);
/// assert_eq!(envelope["error"]["code"], -32602);
/// # Ok::<(), tool_carrier::import::ImportError>(())
/// ```
///
/// # Errors
/// [`ImportError`]: the result is not an object, `content` is not a list,
/// a block lacks what its type needs, a payload is not base64, or the
/// store fails.
pub fn from_mcp(
    call_id: Option<&str>,
    result: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let Value::Object(members) = result else {
        return Err(ImportError::at("$", "a CallToolResult is an object"));
    };
    let mut env = Envelope {
        call_id: call_id.map(str::to_owned),
        ..Envelope::default()
    };
    let mut notes = Vec::new();
    // A JSON-RPC response: its result, or its error.
    if members.contains_key("jsonrpc") {
        if let Some(inner) = members.get("result") {
            return from_mcp(call_id, inner, store, options);
        }
    }
    if let Some(error) = members
        .get("error")
        .filter(|_| !members.contains_key("content"))
    {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .ok_or_else(|| ImportError::at("$.error", "an error needs a string \"message\""))?;
        env.line(message);
        env.is_error = true;
        env.keep("error", error.to_string());
        let mut tally = crate::steps::tally::Tally::default();
        tally.read("error response", 1);
        tally.sent("error response");
        return Ok(Imported {
            content: env.render(),
            notes,
            tally,
        });
    }
    let mut read = ImportedHistory::default();
    audit(result, &SHAPE, options, &mut read)?;
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
        let what = label_in(&known::CONTENT, "content block", block);
        let field = |name: &str| -> Result<&str, ImportError> {
            block.get(name).and_then(Value::as_str).ok_or_else(|| {
                ImportError::at(
                    &at,
                    format!("a {} block needs a string {name:?}", kind(block)),
                )
            })
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                read.kept(&what);
                env.line(field("text")?);
            }
            Some(t @ ("image" | "audio")) => {
                read.kept(&what);
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
                read.kept(&what);
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
                read.kept(&what);
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
            // Only with --keep-unknown: the audit refuses it otherwise.
            _ => {
                read.tally.noted(&what);
                notes.push(format!(
                    "{at}: a {} block is left out: no kind the {} types list",
                    kind(block),
                    known::SDK
                ));
            }
        }
    }
    notes.extend(read.notes.into_iter().map(|n| n.text));
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
        tally: read.tally,
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
    let stored = crate::media::store::put_read(store, data)
        .map_err(|e| ImportError::at(at, format!("the payload is not base64: {e}")))?;
    Ok(stored.map_err(ImportError::Store)?.target)
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
        let imported = from_mcp(
            Some("c1"),
            &result,
            &mut InlineStore,
            &ImportOptions::default(),
        )
        .unwrap();
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
                {"type": "resource_link", "uri": "https://x/readme", "name": "readme"}
            ],
            "isError": true,
            "_meta": {"k": "v"}
        }));
        assert_eq!(
            e["content"],
            "one\n[resource file:///n.txt]\nnotes\n[resource link readme: https://x/readme]"
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
    fn a_block_of_a_kind_the_types_do_not_list_is_refused_or_left_out_as_asked() {
        let result =
            json!({"content": [{"type": "text", "text": "one"}, {"type": "future", "x": 1}]});
        let err = from_mcp(None, &result, &mut InlineStore, &ImportOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "$.content[1]: a \"future\" content block is not a kind the mcp-types 2.3.0 types list \
             for content (they list audio, image, resource, resource_link, text); --keep-unknown keeps it as a note"
        );
        let options = ImportOptions::new().with_keep_unknown(true);
        let imported = from_mcp(None, &result, &mut InlineStore, &options).unwrap();
        let e: Value = serde_json::from_str(&imported.content).unwrap();
        assert_eq!(e["content"], "one", "never written into the body");
        assert_eq!(
            imported.notes,
            ["$.content[1]: a \"future\" block is left out: no kind the mcp-types 2.3.0 types list"]
        );
        assert!(imported.tally.is_balanced());
        assert_eq!(
            imported.tally.summary("kept").to_string(),
            "read 1 text content block, 1 future content block: kept 1 text content block; noted 1 future content block"
        );
    }

    #[test]
    fn a_json_rpc_error_is_a_failed_result_whose_body_is_its_message() {
        for answer in [
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool"}}),
            json!({"error": {"code": -32602, "message": "Unknown tool"}}),
        ] {
            let e = envelope(answer);
            assert_eq!(e["content"], "Unknown tool");
            assert_eq!(e["is_error"], true);
            assert_eq!(e["error"]["code"], -32602);
            assert_eq!(e["attachments"], json!([]));
        }
        // A response wrapping a result is the result.
        let e = envelope(
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}),
        );
        assert_eq!(
            (e["content"].as_str(), e.get("is_error")),
            (Some("ok"), None)
        );
        let err = from_mcp(
            None,
            &json!({"error": {"code": 1}}),
            &mut InlineStore,
            &ImportOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "$.error: an error needs a string \"message\""
        );
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
            from_mcp(None, &v, &mut InlineStore, &ImportOptions::default())
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
