//! Ollama `/api/chat` bodies (or their `messages` array) as carrier
//! histories.
//!
//! | Ollama | carrier history |
//! |---|---|
//! | `system`, `user` text | `system`, `user` messages |
//! | `assistant` `tool_calls` | an assistant envelope; calls without an id get `call_M_N` (message, position) |
//! | `assistant` `thinking` | kept as the envelope's `ollama_thinking` member (a string), written back when converting for Ollama |
//! | `tool` (`tool_name`) | a `tool` carrier answering the batch's next call of that tool |
//! | the `user` message after a batch whose text is one label a line (`Attachment of the NAME result (call ID): image TARGET`) and whose `images` are as many | folded back into the results |
//! | other `images` of a user | stored, and declared as the user record's `attachments` |
//! | `images` of an assistant or a system message | left out, with a note |
//!
//! Every message and call is first looked up in what the pinned `ollama`
//! SDK lists ([`known`](super::known)): a member it does not list is noted
//! and not kept, except a message's `tool_call_id` and a call's `id`, which
//! OpenAI-style clients of Ollama's API write and the reader keeps.

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use super::known;
use super::wire::{Body, Message, Role};
use crate::steps::audit::{audit, ImportOptions, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, body_or_list, label, left_out, target, Batch, BodyOr, Call,
    ImportedHistory, Payload, UserText,
};
use crate::steps::wire::B64;

/// A body's lists as the reader reads them.
pub(crate) static SHAPE: Shape = Shape {
    sdk: known::SDK,
    members: &[("messages", &MESSAGES)],
    bare: &MESSAGES,
};

static MESSAGES: Walk = Walk {
    list: &known::MESSAGE,
    noun: Some("message"),
    inner: &[Inner::at("", "tool_calls", &CALLS)],
    also: &["tool_call_id"],
};

static CALLS: Walk = Walk {
    list: &known::TOOL_CALL,
    noun: Some("tool call"),
    inner: &[],
    also: &["id"],
};

pub use crate::steps::envelope::OLLAMA_THINKING as THINKING;

/// Read an `/api/chat` request body (or a bare `messages` array), as `options` say.
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Ollama's shape.
pub(crate) fn read(
    input: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    audit(input, &SHAPE, options, &mut out)?;
    let what = "a chat body or a list of messages";
    let messages = match body_or_list::<Body<'_>, Message<'_>>(input, "messages", what)? {
        BodyOr::Body(body) => body.messages,
        BodyOr::List(messages) => messages,
    };
    let mut batch = Batch::default();
    for (m, message) in messages.iter().enumerate() {
        let at = format!("$.messages[{m}]");
        out.kept("message");
        let content: &str = &message.content;
        let images: Vec<&str> = message.images.iter().map(B64::text).collect();
        // A message's images are a list of base64 strings, not of parts:
        // counted here.
        out.tally.read("image", images.len());
        if message.role != Role::Assistant {
            for c in 0..message.tool_calls.len() {
                let cat = format!("{at}.tool_calls[{c}]");
                left_out(
                    &mut out,
                    m,
                    &cat,
                    "tool call",
                    "only an assistant's message calls tools",
                );
            }
        }
        if message.role == Role::Tool {
            out.tally.sent_n("image", images.len());
            let env = tool(&at, message, &images, &batch, store)?;
            batch
                .results
                .push((env.call_id.clone().unwrap_or_default(), env));
            continue;
        }
        if !batch.results.is_empty() {
            // Ollama's calls carry no ids, so the labels' ids are those the
            // history had: each is matched, in order, to the next result of
            // the tool it names.
            let lines: Vec<String> = relabel(content, &batch);
            let folded = message.role == Role::User
                && !images.is_empty()
                && lines.len() == images.len()
                && batch.fold(
                    lines
                        .iter()
                        .zip(&images)
                        .enumerate()
                        .map(|(i, (l, b))| {
                            (
                                l.as_str(),
                                AttachmentKind::Image,
                                Payload::Base64(b),
                                format!("{at}.images[{i}]"),
                            )
                        })
                        .collect(),
                    "follows in the next user message",
                    store,
                )?;
            batch.flush(&mut out);
            if folded {
                out.tally.sent_n("image", images.len());
                continue;
            }
        }
        if message.role != Role::User {
            for i in 0..images.len() {
                let iat = format!("{at}.images[{i}]");
                left_out(
                    &mut out,
                    m,
                    &iat,
                    "image",
                    "only a user's message carries images",
                );
            }
        }
        match message.role {
            Role::System => out.push("system", content.to_owned()),
            Role::User => {
                let mut text = UserText::default();
                text.text(content);
                for (i, b) in images.iter().enumerate() {
                    let iat = format!("{at}.images[{i}]");
                    let target = target(Payload::Base64(b), &iat, store)?;
                    text.media(&mut out, "image", AttachmentKind::Image, target, None);
                }
                out.messages.push(text.into_record());
            }
            Role::Assistant => {
                batch.calls.clear();
                let thinking = message.thinking.as_deref().filter(|t| !t.is_empty());
                let extra: Vec<(String, String)> = thinking
                    .map(|t| (THINKING.to_owned(), Value::String(t.to_owned()).to_string()))
                    .into_iter()
                    .collect();
                if message.tool_calls.is_empty() && extra.is_empty() {
                    out.push("assistant", content.to_owned());
                    continue;
                }
                let mut calls = Vec::new();
                for (n, call) in message.tool_calls.iter().enumerate() {
                    out.kept("tool call");
                    let id = call
                        .id
                        .as_deref()
                        .map_or_else(|| format!("call_{m}_{n}"), str::to_owned);
                    let name = call.function.name.clone().into_owned();
                    batch.calls.push((id.clone(), name.clone()));
                    calls.push(Call {
                        id,
                        name,
                        arguments: call.function.arguments.0.as_text().into_owned(),
                    });
                }
                out.push("assistant", assistant_envelope(content, &calls, &extra));
            }
            // Read above, into the batch.
            Role::Tool => {}
        }
    }
    batch.flush(&mut out);
    Ok(out)
}

/// A `tool` message as a result: answering its `tool_call_id`, else the
/// batch's first call of its tool (of any, without `tool_name`) not
/// answered yet; its own images declared.
fn tool(
    at: &str,
    message: &Message<'_>,
    images: &[&str],
    batch: &Batch,
    store: &mut dyn MediaStore,
) -> Result<Envelope, ImportError> {
    let name = message.tool_name.as_deref().unwrap_or("");
    let answered = |id: &str| batch.results.iter().any(|(r, _)| r == id);
    let id = message
        .tool_call_id
        .as_deref()
        .map(str::to_owned)
        .or_else(|| {
            batch
                .calls
                .iter()
                .find(|(id, n)| (name.is_empty() || n == name) && !answered(id))
                .map(|(id, _)| id.clone())
        })
        .unwrap_or_default();
    let mut env = Envelope {
        call_id: (!id.is_empty()).then_some(id),
        ..Envelope::default()
    };
    env.line(&message.content);
    for (i, b) in images.iter().enumerate() {
        let iat = format!("{at}.images[{i}]");
        let target = target(Payload::Base64(b), &iat, store)?;
        env.attachments
            .push(crate::Attachment::new(AttachmentKind::Image, target));
    }
    Ok(env)
}

/// The lines of `content`, each label's call id replaced by the id of the
/// batch's result it stands for: the result of that id, if there is one;
/// else the first result of the tool it names whose body says that this
/// medium follows, not taken by another id. Lines that are no label stay as
/// they are (and the fold then fails).
fn relabel(content: &str, batch: &Batch) -> Vec<String> {
    let mut map: Vec<(String, String)> = Vec::new();
    content
        .split('\n')
        .map(|line| {
            let Some((name, id, kind, shown)) = label(line) else {
                return line.to_owned();
            };
            let note = format!(
                "[{} {shown} follows in the next user message]",
                kind.as_str()
            );
            let mapped = if batch.results.iter().any(|(rid, _)| rid == id) {
                Some(id.to_owned())
            } else if let Some((_, to)) = map.iter().find(|(from, _)| from == id) {
                Some(to.clone())
            } else {
                let found = batch
                    .results
                    .iter()
                    .find(|(rid, env)| {
                        batch.calls.iter().any(|(c, n)| c == rid && n == name)
                            && !map.iter().any(|(_, to)| to == rid)
                            && env.body.split('\n').any(|l| l == note)
                    })
                    .map(|(rid, _)| rid.clone());
                if let Some(to) = &found {
                    map.push((id.to_owned(), to.clone()));
                }
                found
            };
            match mapped {
                Some(to) => line.replacen(&format!("(call {id})"), &format!("(call {to})"), 1),
                None => line.to_owned(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn a_batch_and_its_images_message_fold_back() {
        let body = json!({
            "model": "qwen3-vl", "stream": false, "options": {"num_ctx": 8192}, "think": true,
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "assistant", "thinking": "hm", "content": null, "tool_calls": [
                    {"function": {"index": 0, "name": "shot", "arguments": {"page": "a"}}}]},
                {"role": "tool", "tool_name": "shot",
                 "content": "saved\n[image a.png follows in the next user message]"},
                {"role": "user", "content": "Attachment of the shot result (call c9): image a.png",
                 "images": [GIF]},
                {"role": "user", "content": "And?", "images": [GIF]}
            ]
        });
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["system", "assistant", "tool", "user"]);
        let a: Value = serde_json::from_str(h.messages[1].content()).unwrap();
        assert_eq!(
            a["tool_calls"][0],
            json!({"id": "call_1_0", "name": "shot", "arguments": {"page": "a"}})
        );
        let t: Value = serde_json::from_str(h.messages[2].content()).unwrap();
        assert_eq!(
            (t["tool_call_id"].as_str(), t["content"].as_str()),
            (Some("call_1_0"), Some("saved"))
        );
        assert_eq!(
            t["attachments"][0]["target"],
            format!("data:image/gif;base64,{GIF}")
        );
        assert_eq!(h.messages[3].content(), "And?");
        assert_eq!(
            h.messages[3].attachments(),
            [crate::Attachment::image(format!(
                "data:image/gif;base64,{GIF}"
            ))]
        );
        assert!(h.notes.is_empty(), "{:?}", h.notes);
    }

    #[test]
    fn bad_shapes_name_their_path() {
        let err = |v: Value| {
            read(&v, &mut InlineStore, &ImportOptions::default())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!({"contents": []})),
            "$: expected a chat body or a list of messages: no `messages` member"
        );
        assert_eq!(err(json!([{"content": "x"}])), "$[0]: missing field `role`");
        assert_eq!(
            err(json!({"messages": [{"role": "critic", "content": "x"}]})),
            "$.messages[0].role: unknown variant `critic`, expected one of `system`, `user`, `assistant`, `tool`"
        );
        assert_eq!(
            err(json!([{"role": "assistant", "tool_calls": [{"function": {"arguments": {}}}]}])),
            "$[0].tool_calls[0].function: missing field `name`"
        );
        // Content of another shape is refused, not read as empty.
        assert_eq!(
            err(json!([{"role": "user", "content": [{"type": "text", "text": "x"}]}])),
            "$[0].content: invalid type: sequence, expected a string"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": "x", "images": [GIF, 7]}])),
            "$[0].images[1]: invalid type: integer `7`, expected a string"
        );
    }
}
