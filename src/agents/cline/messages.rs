//! Cline's and Roo Code's `api_conversation_history.json` (and Cline's
//! newer session `messages.json`) as a carrier history: Anthropic
//! messages with members of their own, each message read as `import
//! --from anthropic` reads it once those members are taken off.
//!
//! | stored | what becomes of it |
//! |---|---|
//! | a message's `ts`, `metrics`, `modelInfo`, `id` (and Roo's `isSummary`, `condenseId`, `truncationId`, `isTruncationMarker`) | left out, with a note per kind: the extension's own, which it takes off before a request too |
//! | a block's `call_id`, `reasoning_details`, `summary`, a `signature` on a block other than `thinking` | left out, with a note per kind |
//! | `thinking` blocks with a signature | kept as the envelope's `anthropic_thinking` |
//! | `thinking` blocks without one, Roo's `reasoning` and `thoughtSignature` blocks | left out, with a note: no API takes unsigned reasoning back, and a thought signature needs the call it belongs to |
//! | Roo's messages a condensation or a sliding window hid (`condenseParent`, `truncationParent` naming a summary or marker the file holds) | left out, as Roo leaves them out of its requests |
//! | XML-era tool results: `[tool for '…'] Result:` text and a screenshot's `image` in a user message | the user's text and attachments, as the model saw them |
//! | Cline's `messages.json` (`version` 1): its `system_prompt` | a `system` record; the file's other members left out with a note |

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::apis::anthropic::read::message as read_message;
use crate::steps::imported::ImportError;

use super::super::build::{At, Build};

/// The members of a stored message the extensions add.
const MESSAGE_OWN: [&str; 12] = [
    "ts",
    "metrics",
    "modelInfo",
    "id",
    "isSummary",
    "condenseId",
    "condenseParent",
    "truncationId",
    "truncationParent",
    "isTruncationMarker",
    "reasoning_details",
    "reasoning_content",
];

/// The members of a block the extensions add.
const BLOCK_OWN: [&str; 3] = ["call_id", "reasoning_details", "summary"];

/// Why they are left out.
const OWN: &str = "the extension's own, which it takes off before a request too";

/// Read the stored messages, `messages` at `at`.
pub(super) fn messages(b: &mut Build<'_>, messages: &[Value], at: &At) -> Result<(), ImportError> {
    // Roo's hidden messages: those whose parent summary or marker is in
    // the file.
    let ids = |key: &str| -> HashSet<&str> {
        messages
            .iter()
            .filter_map(|m| m.get(key).and_then(Value::as_str))
            .collect()
    };
    let (summaries, markers) = (ids("condenseId"), ids("truncationId"));
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        let mat = at.index(m);
        let hidden_by = |key: &str, set: &HashSet<&str>| {
            message
                .get(key)
                .and_then(Value::as_str)
                .is_some_and(|p| set.contains(p))
        };
        if hidden_by("condenseParent", &summaries) || hidden_by("truncationParent", &markers) {
            b.aside(
                &mat,
                "hidden message",
                "a condensation or sliding window hid it, and Roo leaves it out of its requests",
            );
            continue;
        }
        one(b, m, message, &mat)?;
        b.find_payloads(message, &mat);
    }
    Ok(())
}

/// One message, its own members and blocks taken off, read as Anthropic's.
fn one(b: &mut Build<'_>, m: usize, message: &Value, at: &At) -> Result<(), ImportError> {
    let Some(map) = message.as_object() else {
        return Err(ImportError::at(&at.text(), "a message must be an object"));
    };
    let mut clean = Map::new();
    for (key, value) in map {
        if MESSAGE_OWN.contains(&key.as_str()) {
            b.aside(&at.member(key), &format!("`{key}` member"), OWN);
        } else {
            clean.insert(key.clone(), value.clone());
        }
    }
    // The blocks kept, by their index in the file.
    let mut kept = Vec::new();
    if let Some(Value::Array(blocks)) = clean.get_mut("content") {
        let cat = at.key("content");
        let mut out = Vec::with_capacity(blocks.len());
        for (i, mut block) in std::mem::take(blocks).into_iter().enumerate() {
            if let Some(block) = clean_block(b, &mut block, &cat.index(i)).then_some(block) {
                out.push(block);
                kept.push(i);
            }
        }
        *blocks = out;
    }
    let path = at.text();
    let value = Value::Object(clean);
    let mut part = crate::steps::imported::ImportedHistory::default();
    b.with(|store, options, _| read_message(m, &path, &value, store, options, &mut part))
        .map_err(|e| match e {
            ImportError::Invalid { at: p, what } => ImportError::Invalid {
                at: back(&p, &path, &kept),
                what,
            },
            other => other,
        })?;
    for note in &mut part.notes {
        note.text = back(&note.text, &path, &kept);
    }
    b.absorb(part);
    Ok(())
}

/// `text` with the block index after `PATH.content[` put back to the
/// file's.
fn back(text: &str, path: &str, kept: &[usize]) -> String {
    let head = format!("{path}.content[");
    let Some(rest) = text.strip_prefix(&head) else {
        return text.to_owned();
    };
    let Some((k, rest)) = rest.split_once(']') else {
        return text.to_owned();
    };
    match k.parse::<usize>().ok().and_then(|k| kept.get(k)) {
        Some(i) => format!("{head}{i}]{rest}"),
        None => text.to_owned(),
    }
}

/// A block with the extension's members taken off; `false` for one left
/// out whole.
fn clean_block(b: &mut Build<'_>, block: &mut Value, at: &At) -> bool {
    let Some(map) = block.as_object_mut() else {
        return true;
    };
    let kind = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    match kind.as_str() {
        "thinking"
            if map
                .get("signature")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty) =>
        {
            b.left(at, "unsigned thinking block", "no API takes reasoning without its signature back (the extension leaves it out too), and it is never sent as text");
            return false;
        }
        "reasoning" => {
            b.left(at, "reasoning block", "Roo's record of a model's reasoning: unsigned, or OpenAI's encrypted reasoning the carrier history keeps only as OpenAI's own items");
            return false;
        }
        "thoughtSignature" => {
            b.left(
                at,
                "thoughtSignature block",
                "a Gemini thought signature Roo keeps apart from the call it belongs to",
            );
            return false;
        }
        _ => {}
    }
    for key in BLOCK_OWN {
        if map.remove(key).is_some() {
            b.aside(&at.key(key), &format!("block's `{key}` member"), OWN);
        }
    }
    if kind != "thinking" && map.remove("signature").is_some() {
        b.aside(&at.key("signature"), "block's `signature` member", "a Gemini thought signature Cline keeps on a text or call block, taken off before an Anthropic request");
    }
    if kind == "tool_result" {
        if let Some(Value::Array(inner)) = map.get_mut("content") {
            let cat = at.key("content");
            for (i, block) in inner.iter_mut().enumerate() {
                if let Some(m) = block.as_object_mut() {
                    if m.remove("call_id").is_some() {
                        b.aside(
                            &cat.index(i).key("call_id"),
                            "block's `call_id` member",
                            OWN,
                        );
                    }
                }
            }
        }
    }
    true
}
