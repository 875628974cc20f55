//! Bedrock Converse bodies (or their `messages` array) as carrier
//! histories. Bytes are read as the JSON of the REST API carries them
//! (base64 text).
//!
//! | Converse | carrier history |
//! |---|---|
//! | `system` text blocks | a `system` message |
//! | `toolResult` | a `tool` carrier: `text` and `json` blocks the body, `image` / `document` bytes declared, `status: "error"` kept as `is_error` |
//! | the labelled images after the results (what `convert` writes for models that take none inside a `toolResult`) | folded back into their results, by the fixed shape of [`openai_chat`](crate::provider::from_openai_chat)'s media message |
//! | other `user` text and media | a `user` message; media stored and named in the text, with a note |
//! | `assistant` text and `toolUse` | an assistant envelope |
//! | `cachePoint` | left out (the request's, not the conversation's) |
//! | other blocks (reasoning, …) | kept as the envelope's `bedrock_blocks` member, with a note |

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, function_tool, label, list, messages_of, str_of, target, user_media, Batch,
    Call, ImportedHistory, Payload,
};

/// The member of the assistant envelope that keeps other blocks.
pub const BLOCKS: &str = "bedrock_blocks";

/// Read a Converse request body (or a bare `messages` array).
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Converse's shape.
pub fn from_bedrock(
    input: &Value,
    store: &mut dyn MediaStore,
) -> Result<ImportedHistory, ImportError> {
    let messages = messages_of(input, "messages")
        .ok_or_else(|| ImportError::at("$", "expected a Converse body or a list of messages"))?;
    let mut out = ImportedHistory::default();
    if let Some(system) = input.get("system").and_then(Value::as_array) {
        let text: Vec<&str> = system.iter().filter_map(|b| str_of(b, "text")).collect();
        if !text.is_empty() {
            out.push("system", text.join("\n"));
        }
    }
    let mut batch = Batch::default();
    for (m, message) in messages.iter().enumerate() {
        let at = format!("$.messages[{m}]");
        let role = str_of(message, "role")
            .ok_or_else(|| ImportError::at(&at, "a message needs a role"))?;
        let blocks = message
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                ImportError::at(&format!("{at}.content"), "expected a list of blocks")
            })?;
        match role {
            "assistant" => {
                batch.calls.clear();
                let mut text = Vec::new();
                let mut calls = Vec::new();
                let mut others = Vec::new();
                for (b, block) in blocks.iter().enumerate() {
                    let bat = format!("{at}.content[{b}]");
                    if let Some(t) = str_of(block, "text") {
                        text.push(t);
                    } else if let Some(u) = block.get("toolUse") {
                        let id = str_of(u, "toolUseId")
                            .ok_or_else(|| ImportError::at(&bat, "a toolUse needs a toolUseId"))?;
                        let name = str_of(u, "name")
                            .ok_or_else(|| ImportError::at(&bat, "a toolUse needs a name"))?;
                        batch.calls.push((id.to_owned(), name.to_owned()));
                        calls.push(Call {
                            id: id.to_owned(),
                            name: name.to_owned(),
                            arguments: u.get("input").map_or("{}".into(), Value::to_string),
                        });
                    } else if block.get("cachePoint").is_none() {
                        out.note(
                            m,
                            format!(
                                "{bat}: a block of another kind is kept as the envelope's {BLOCKS}"
                            ),
                        );
                        others.push(block.clone());
                    }
                }
                let text = text.join("\n");
                if calls.is_empty() && others.is_empty() {
                    out.push("assistant", text);
                } else {
                    let extra = if others.is_empty() {
                        Vec::new()
                    } else {
                        vec![(BLOCKS.to_owned(), Value::Array(others).to_string())]
                    };
                    out.push("assistant", assistant_envelope(&text, &calls, &extra));
                }
            }
            "user" => user(m, &at, blocks, &mut batch, store, &mut out)?,
            other => return Err(ImportError::at(&at, format!("unknown role {other:?}"))),
        }
    }
    batch.flush(&mut out);
    Ok(out)
}

/// An `image` or `document` block's kind and payload.
fn media<'v>(
    block: &'v Value,
    at: &str,
) -> Result<Option<(AttachmentKind, Payload<'v>)>, ImportError> {
    let (kind, inner) = match (block.get("image"), block.get("document")) {
        (Some(i), _) => (AttachmentKind::Image, i),
        (None, Some(d)) => (AttachmentKind::Document, d),
        _ => return Ok(None),
    };
    let bytes = inner["source"]["bytes"].as_str().ok_or_else(|| {
        ImportError::at(at, "only bytes sources can be read back (not s3Location)")
    })?;
    Ok(Some((kind, Payload::Base64(bytes))))
}

fn user(
    m: usize,
    at: &str,
    blocks: &[Value],
    batch: &mut Batch,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    // Blocks before the last result are the user's; only those after it
    // may be the labelled media (its fixed position).
    let last = blocks.iter().rposition(|b| b.get("toolResult").is_some());
    let mut before = Vec::new();
    let mut rest = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let bat = format!("{at}.content[{b}]");
        let Some(r) = block.get("toolResult") else {
            if block.get("cachePoint").is_none() {
                if last.is_some_and(|l| b < l) {
                    before.push((b, block));
                } else {
                    rest.push((b, block));
                }
            }
            continue;
        };
        let id = str_of(r, "toolUseId")
            .ok_or_else(|| ImportError::at(&bat, "a toolResult needs a toolUseId"))?;
        let mut env = Envelope {
            call_id: Some(id.to_owned()),
            is_error: str_of(r, "status") == Some("error"),
            ..Envelope::default()
        };
        for (i, item) in r
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let iat = format!("{bat}.toolResult.content[{i}]");
            if let Some(t) = str_of(item, "text") {
                env.line(t);
            } else if let Some(j) = item.get("json") {
                env.line(&j.to_string());
            } else if let Some((kind, payload)) = media(item, &iat)? {
                env.attachments
                    .push(crate::Attachment::new(kind, target(payload, &iat, store)?));
            } else {
                env.line(&item.to_string());
            }
        }
        batch.results.push((id.to_owned(), env));
    }
    // The labelled media after the results: label, media, label, media…,
    // then whatever the user said next (Converse joins the two turns).
    let mut lead = 0;
    let mut pairs = Vec::new();
    if !batch.results.is_empty() {
        while lead + 1 < rest.len() {
            let (_, text) = rest[lead];
            let (c, block) = rest[lead + 1];
            let Some(text) = str_of(text, "text").filter(|t| label(t).is_some()) else {
                break;
            };
            let Ok(Some((kind, payload))) = media(block, &format!("{at}.content[{c}]")) else {
                break;
            };
            pairs.push((text, kind, payload, format!("{at}.content[{c}]")));
            lead += 2;
        }
    }
    let folded = !pairs.is_empty() && batch.fold(pairs, "follows after the tool results", store)?;
    batch.flush(out);
    let rest = if folded { &rest[lead..] } else { &rest[..] };
    let rest: Vec<(usize, &Value)> = before.into_iter().chain(rest.iter().copied()).collect();
    if rest.is_empty() {
        return Ok(());
    }
    let mut text = Vec::new();
    for &(b, block) in &rest {
        let bat = format!("{at}.content[{b}]");
        if let Some(t) = str_of(block, "text") {
            text.push(t.to_owned());
        } else if let Some((kind, payload)) = media(block, &bat)? {
            let target = target(payload, &bat, store)?;
            text.push(user_media(out, m, &bat, kind, &target));
        } else {
            out.note(m, format!("{bat}: a block of another kind is kept as text"));
            text.push(block.to_string());
        }
    }
    out.push("user", text.join("\n"));
    Ok(())
}

/// The `toolSpec`s of a body, as function tools; other entries (a
/// `cachePoint`, a system tool) are left out, as JSON.
pub(crate) fn tool_definitions(body: &Value) -> (Vec<Value>, Vec<String>) {
    let mut tools = Vec::new();
    let mut left = Vec::new();
    for tool in list(body.pointer("/toolConfig/tools")) {
        match tool.get("toolSpec") {
            Some(spec) => tools.push(function_tool(
                &spec["name"],
                spec.get("description"),
                spec.pointer("/inputSchema/json"),
            )),
            None => left.push(tool.to_string()),
        }
    }
    (tools, left)
}
