//! Ollama `/api/chat` bodies (or their `messages` array) as carrier
//! histories.
//!
//! | Ollama | carrier history |
//! |---|---|
//! | `system`, `user` text | `system`, `user` messages |
//! | `assistant` `tool_calls` | an assistant envelope; calls without an id get `call_M_N` (message, position) |
//! | `tool` (`tool_name`) | a `tool` carrier answering the batch's next call of that tool |
//! | the `user` message after a batch whose text is one label a line (`Attachment of the NAME result (call ID): image TARGET`) and whose `images` are as many | folded back into the results |
//! | other `images` of a user | stored and named in the text, with a note |

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, label, messages_of, str_of, target, user_media, Batch, Call,
    ImportedHistory, Payload,
};

/// Read an `/api/chat` request body (or a bare `messages` array).
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Ollama's shape.
pub fn from_ollama(
    input: &Value,
    store: &mut dyn MediaStore,
) -> Result<ImportedHistory, ImportError> {
    let messages = messages_of(input, "messages")
        .ok_or_else(|| ImportError::at("$", "expected a chat body or a list of messages"))?;
    let mut out = ImportedHistory::default();
    let mut batch = Batch::default();
    for (m, message) in messages.iter().enumerate() {
        let at = format!("$.messages[{m}]");
        let role = str_of(message, "role")
            .ok_or_else(|| ImportError::at(&at, "a message needs a role"))?;
        let content = str_of(message, "content").unwrap_or("");
        let images: Vec<&str> = message
            .get("images")
            .and_then(Value::as_array)
            .map(|i| i.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if role == "tool" {
            let name = str_of(message, "tool_name").unwrap_or("");
            // The batch's first call of this tool not answered yet.
            let answered = |id: &str| batch.results.iter().any(|(r, _)| r == id);
            let id = str_of(message, "tool_call_id")
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
                call_id: (!id.is_empty()).then(|| id.clone()),
                ..Envelope::default()
            };
            env.line(content);
            // Images on a tool message itself are its own.
            for (i, b) in images.iter().enumerate() {
                let iat = format!("{at}.images[{i}]");
                let target = target(Payload::Base64(b), &iat, store)?;
                env.attachments
                    .push(crate::Attachment::new(AttachmentKind::Image, target));
            }
            batch.results.push((id, env));
            continue;
        }
        if !batch.results.is_empty() {
            // Ollama's calls carry no ids, so the labels' ids are those the
            // history had: each is matched, in order, to the next result of
            // the tool it names.
            let lines: Vec<String> = relabel(content, &batch);
            let folded = role == "user"
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
                continue;
            }
        }
        match role {
            "system" => out.push("system", content.to_owned()),
            "user" => {
                let mut text = content.to_owned();
                for (i, b) in images.iter().enumerate() {
                    let iat = format!("{at}.images[{i}]");
                    let target = target(Payload::Base64(b), &iat, store)?;
                    let line = user_media(&mut out, m, &iat, AttachmentKind::Image, &target);
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&line);
                }
                out.push("user", text);
            }
            "assistant" => {
                batch.calls.clear();
                let calls = message.get("tool_calls").and_then(Value::as_array);
                match calls {
                    Some(list) if !list.is_empty() => {
                        let mut parsed = Vec::new();
                        for (n, call) in list.iter().enumerate() {
                            let f = call.get("function").unwrap_or(&Value::Null);
                            let name = str_of(f, "name").ok_or_else(|| {
                                ImportError::at(
                                    &format!("{at}.tool_calls[{n}]"),
                                    "a tool call needs function.name",
                                )
                            })?;
                            let id = str_of(call, "id")
                                .map_or_else(|| format!("call_{m}_{n}"), str::to_owned);
                            batch.calls.push((id.clone(), name.to_owned()));
                            parsed.push(Call {
                                id,
                                name: name.to_owned(),
                                arguments: f.get("arguments").map_or("{}".into(), Value::to_string),
                            });
                        }
                        out.push("assistant", assistant_envelope(content, &parsed, &[]));
                    }
                    _ => out.push("assistant", content.to_owned()),
                }
            }
            other => return Err(ImportError::at(&at, format!("unknown role {other:?}"))),
        }
    }
    batch.flush(&mut out);
    Ok(out)
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
