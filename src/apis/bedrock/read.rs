//! Bedrock Converse bodies (or their `messages` array) as carrier
//! histories. Bytes are read as the JSON of the REST API carries them
//! (base64 text).
//!
//! | Converse | carrier history |
//! |---|---|
//! | `system` text blocks | a `system` message |
//! | `toolResult` | a `tool` carrier: `text` and `json` blocks the body, `image` / `document` bytes declared, `status: "error"` kept as `is_error` |
//! | the labelled images after the results (what `convert` writes for models that take none inside a `toolResult`) | folded back into their results, by the fixed shape of [`openai_chat`](crate::provider::from_openai_chat)'s media message |
//! | other `user` text and media | a `user` message; media stored and declared as its `attachments` (a document's name its name) |
//! | `assistant` text and `toolUse` | an assistant envelope |
//! | `cachePoint` | left out (the request's, not the conversation's), with a note |
//! | other assistant blocks (reasoning, …) | kept as the envelope's `bedrock_blocks` member, with a note |
//! | other blocks of a user's turn or a result | left out, with a note |
//!
//! Every block is first looked up in what the pinned `botocore` service
//! model lists ([`known`](super::known)): a kind it does not list is
//! refused (or, asked, kept with a note), and a member it does not list
//! is noted and not kept.

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use super::known;
use super::wire::{Block, Body, Message, Role};
use crate::media::{Holder, ProviderFile};
use crate::steps::audit::{audit, label_in, ImportOptions, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, attach, body_or_list, function_tool, label, left_out, list, target, Batch,
    BodyOr, Call, ImportedHistory, Payload, UserText,
};
use crate::steps::known::List;
use crate::steps::wire::Keyed;

pub use crate::steps::envelope::BEDROCK_BLOCKS as BLOCKS;

/// A body's lists as the reader reads them.
pub(crate) static SHAPE: Shape = Shape {
    sdk: known::SDK,
    members: &[("system", &SYSTEM), ("messages", &MESSAGES)],
    bare: &MESSAGES,
};

static SYSTEM: Walk = Walk::leaf(&known::SYSTEM, "block");

static MESSAGES: Walk = Walk {
    list: &known::MESSAGE,
    noun: Some("message"),
    inner: &[
        Inner {
            tag: "",
            when: Some(("role", "assistant")),
            path: "content",
            walk: &ASSISTANT,
        },
        Inner::at("", "content", &CONTENT),
    ],
    also: &[],
};

/// A user's blocks: a result's content is read.
static CONTENT: Walk = Walk {
    list: &known::CONTENT,
    noun: Some("block"),
    inner: &[Inner::at("toolResult", "toolResult.content", &RESULT)],
    also: &[],
};

/// An assistant's blocks: what is no text or call is kept whole.
static ASSISTANT: Walk = Walk::leaf(&known::CONTENT, "block");

static RESULT: Walk = Walk::leaf(&known::TOOL_RESULT_CONTENT, "block");

/// What a tally counts a block of `list` as.
fn what(list: &List, block: &Keyed<Block<'_>>) -> String {
    label_in(list, "block", &as_json(block))
}

/// A `cachePoint`, the request's: left out, with a note.
fn cache_point(out: &mut ImportedHistory, m: usize, at: &str) {
    left_out(
        out,
        m,
        at,
        "cachePoint block",
        "it marks the request, not the conversation",
    );
}

/// Read a Converse request body (or a bare `messages` array), as `options` say.
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Converse's shape.
pub(crate) fn read(
    input: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    audit(input, &SHAPE, options, &mut out)?;
    let what = "a Converse body or a list of messages";
    let (system, messages) = match body_or_list::<Body<'_>, Message<'_>>(input, "messages", what)? {
        BodyOr::Body(body) => (body.system, body.messages),
        BodyOr::List(messages) => (Vec::new(), messages),
    };
    let mut text = Vec::new();
    for (b, block) in system.iter().enumerate() {
        let at = format!("$.system[{b}]");
        match block {
            Keyed::Known(Block::Text(t)) => {
                out.kept("text block");
                text.push(&**t);
            }
            Keyed::Known(Block::CachePoint(_)) => cache_point(&mut out, 0, &at),
            other => left_out(
                &mut out,
                0,
                &at,
                &self::what(&known::SYSTEM, other),
                "system text holds text alone",
            ),
        }
    }
    if !text.is_empty() {
        out.push("system", text.join("\n"));
    }
    let mut batch = Batch::default();
    for (m, message) in messages.into_iter().enumerate() {
        let at = format!("$.messages[{m}]");
        out.kept("message");
        match message.role {
            Role::Assistant => {
                batch.calls.clear();
                assistant(m, &at, message.content, &mut batch, &mut out);
            }
            Role::User => user(m, &at, message.content, &mut batch, store, &mut out)?,
        }
    }
    batch.flush(&mut out);
    Ok(out)
}

fn assistant(
    m: usize,
    at: &str,
    blocks: Vec<Keyed<Block<'_>>>,
    batch: &mut Batch,
    out: &mut ImportedHistory,
) {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut others = Vec::new();
    for (b, block) in blocks.into_iter().enumerate() {
        let bat = format!("{at}.content[{b}]");
        let what = what(&known::CONTENT, &block);
        match block {
            Keyed::Known(Block::Text(t)) => {
                out.kept(&what);
                text.push(t);
            }
            Keyed::Known(Block::ToolUse(u)) => {
                out.kept(&what);
                batch.calls.push((
                    u.tool_use_id.clone().into_owned(),
                    u.name.clone().into_owned(),
                ));
                calls.push(Call {
                    id: u.tool_use_id.into_owned(),
                    name: u.name.into_owned(),
                    arguments: u.input.0.as_text().into_owned(),
                });
            }
            Keyed::Known(Block::CachePoint(_)) => cache_point(out, m, &bat),
            other => {
                let mut block = as_json(&other);
                known::CONTENT.listed_only(&mut block);
                out.kept_as_written(&known::CONTENT, &block, &what);
                out.note(
                    m,
                    format!(
                        "{bat}: {} {what} is kept as the envelope's {BLOCKS}",
                        crate::steps::known::article(&what)
                    ),
                );
                others.push(block);
            }
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

/// A block as the JSON it was.
fn as_json(block: &Keyed<Block<'_>>) -> Value {
    serde_json::to_value(block).unwrap_or(Value::Null)
}

/// An `image` or `document` block's kind and payload: its bytes, or the S3
/// object it names, kept as the provider file it is.
fn media<'b>(block: &'b Keyed<Block<'_>>) -> Option<(AttachmentKind, Payload<'b>)> {
    let (kind, format, source) = match block {
        Keyed::Known(Block::Image(i)) => (AttachmentKind::Image, &i.format, &i.source),
        Keyed::Known(Block::Document(d)) => (AttachmentKind::Document, &d.format, &d.source),
        _ => return None,
    };
    let payload = match (&source.bytes, &source.s3_location) {
        (Some(bytes), _) => Payload::Base64(bytes.text()),
        (None, Some(s3)) => {
            // The S3 object's media type, which the target keeps: the
            // format is the subtype (`pdf` for a PDF).
            let family = match kind {
                AttachmentKind::Image => "image",
                _ => "application",
            };
            Payload::Held(ProviderFile {
                media_type: Some(format!("{family}/{}", format.trim().to_ascii_lowercase())),
                bucket_owner: s3.bucket_owner.as_deref().map(str::to_owned),
                ..ProviderFile::new(Holder::Bedrock, &*s3.uri)
            })
        }
        (None, None) => Payload::Missing("a source needs bytes or s3Location"),
    };
    Some((kind, payload))
}

/// A `document` block's `name` as a file name: the name, and the format
/// as its extension when it does not end so already (Converse names
/// documents without one).
fn document_name(block: &Keyed<Block<'_>>) -> Option<String> {
    let Keyed::Known(Block::Document(d)) = block else {
        return None;
    };
    let name = d.name.trim();
    if name.is_empty() {
        return None;
    }
    let ext = d.format.trim().to_ascii_lowercase();
    let has = name.to_ascii_lowercase().ends_with(&format!(".{ext}"));
    Some(if has || ext.is_empty() {
        name.to_owned()
    } else {
        format!("{name}.{ext}")
    })
}

fn user(
    m: usize,
    at: &str,
    blocks: Vec<Keyed<Block<'_>>>,
    batch: &mut Batch,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    // Blocks before the last result are the user's; only those after it
    // may be the labelled media (its fixed position).
    let last = blocks
        .iter()
        .rposition(|b| matches!(b, Keyed::Known(Block::ToolResult(_))));
    let mut before = Vec::new();
    let mut rest = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        let bat = format!("{at}.content[{b}]");
        let r = match block {
            Keyed::Known(Block::ToolResult(r)) => {
                out.kept("toolResult block");
                r
            }
            Keyed::Known(Block::CachePoint(_)) => {
                cache_point(out, m, &bat);
                continue;
            }
            _ if last.is_some_and(|l| b < l) => {
                before.push((b, block));
                continue;
            }
            _ => {
                rest.push((b, block));
                continue;
            }
        };
        let mut env = Envelope {
            call_id: Some(r.tool_use_id.clone().into_owned()),
            is_error: r.status.as_deref() == Some("error"),
            ..Envelope::default()
        };
        for (i, item) in r.content.iter().enumerate() {
            let iat = format!("{bat}.toolResult.content[{i}]");
            let what = what(&known::TOOL_RESULT_CONTENT, item);
            match item {
                Keyed::Known(Block::Text(t)) => {
                    out.kept(&what);
                    env.line(t);
                }
                Keyed::Known(Block::Json(j)) => {
                    out.kept(&what);
                    env.line(&j.to_string());
                }
                _ => match media(item) {
                    Some((kind, payload)) => {
                        out.kept(&what);
                        let target = target(payload, &iat, store)?;
                        attach(&mut env, kind, target, document_name(item).as_deref());
                    }
                    None => left_out(
                        out,
                        m,
                        &iat,
                        &what,
                        "a tool result holds text and attachments",
                    ),
                },
            }
        }
        batch
            .results
            .push((r.tool_use_id.clone().into_owned(), env));
    }
    // The labelled media after the results: label, media, label, media…,
    // then whatever the user said next (Converse joins the two turns).
    let mut lead = 0;
    let mut pairs = Vec::new();
    if !batch.results.is_empty() {
        while lead + 1 < rest.len() {
            let (_, text) = rest[lead];
            let (c, block) = rest[lead + 1];
            let Some(text) = (match text {
                Keyed::Known(Block::Text(t)) if label(t).is_some() => Some(&**t),
                _ => None,
            }) else {
                break;
            };
            let Some((kind, payload)) = media(block) else {
                break;
            };
            pairs.push((text, kind, payload, format!("{at}.content[{c}]")));
            lead += 2;
        }
    }
    let folded = !pairs.is_empty() && batch.fold(pairs, "follows after the tool results", store)?;
    batch.flush(out);
    if folded {
        for &(_, block) in &rest[..lead] {
            out.kept(&what(&known::CONTENT, block));
        }
    }
    let rest = if folded { &rest[lead..] } else { &rest[..] };
    let rest: Vec<(usize, &Keyed<Block<'_>>)> =
        before.into_iter().chain(rest.iter().copied()).collect();
    if rest.is_empty() {
        return Ok(());
    }
    let mut text = UserText::default();
    for &(b, block) in &rest {
        let bat = format!("{at}.content[{b}]");
        let what = what(&known::CONTENT, block);
        if let Keyed::Known(Block::Text(t)) = block {
            out.kept(&what);
            text.text(t);
        } else if let Some((kind, payload)) = media(block) {
            let target = target(payload, &bat, store)?;
            text.media(out, &what, kind, target, document_name(block).as_deref());
        } else {
            left_out(
                out,
                m,
                &bat,
                &what,
                "a user message holds text and its own media",
            );
        }
    }
    out.messages.push(text.into_record());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    fn err(v: Value) -> String {
        read(&v, &mut InlineStore, &ImportOptions::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_shapes_name_their_path() {
        assert_eq!(
            err(json!("x")),
            "$: expected a Converse body or a list of messages"
        );
        assert_eq!(
            err(json!({"messages": [{"role": "user"}]})),
            "$.messages[0]: missing field `content`"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": [{"toolResult": {"content": []}}]}])),
            "$[0].content[0]: toolResult: missing field `toolUseId`"
        );
        // A known block of a broken shape is refused, not kept as unknown:
        // a source needs its bytes or an S3 location.
        assert_eq!(
            err(json!([{"role": "user", "content": [
                {"image": {"format": "png", "source": {}}}]}])),
            "$.messages[0].content[0]: a source needs bytes or s3Location"
        );
    }

    #[test]
    fn unknown_blocks_are_kept_as_they_were() {
        let body = json!({"messages": [
            {"role": "assistant", "content": [
                {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "sig"}}},
                {"text": "Done."},
                {"cachePoint": {"type": "default"}}]}]});
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let a: Value = serde_json::from_str(h.messages[0].content()).unwrap();
        assert_eq!(a["content"], "Done.");
        assert_eq!(
            a[BLOCKS][0]["reasoningContent"]["reasoningText"]["signature"],
            "sig"
        );
        assert_eq!(
            h.notes.len(),
            2,
            "the reasoning block kept, the cache point left out"
        );
    }
}
