//! OpenAI Responses bodies (or their `input` items) as carrier histories.
//!
//! | Responses | carrier history |
//! |---|---|
//! | `instructions`, `system` / `developer` messages | a `system` message |
//! | `user` message (`input_text`, or a string) | a `user` message; `input_image` / `input_file` stored (URLs and file ids kept) and declared as its `attachments` |
//! | `assistant` message (`output_text`) and the `function_call` items after it | one assistant envelope |
//! | `function_call_output` | a `tool` carrier: `input_text` the body, `input_image` / `input_file` declared |
//! | `reasoning` and the other items the SDK lists | kept as the next assistant envelope's `openai_items` member, with a note |
//! | a part a message or result has no place for | left out, with a note |
//!
//! A body is read on the types the writer writes it with
//! ([`wire`](super::wire)): an item or a part of a known type must have
//! that type's shape (an error names the item). Every item and part is
//! first looked up in what the pinned `openai` SDK lists
//! ([`known`](super::known)): a kind it does not list is refused (or,
//! asked, kept as written with a note), and a member it does not list is
//! noted and not kept.

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use super::known;
use super::wire::{Body, Content, Input, Item, Part, Role};
use crate::media::{Holder, ProviderFile};
use crate::steps::audit::{audit, label_in, nested, ImportOptions, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, attach, body_or_list, left_out, target, url_payload, BodyOr, Call,
    ImportedHistory, Payload, UserText,
};
use crate::steps::known::List;
use crate::steps::wire::{Open, TextOr};

/// A body's lists as the reader reads them.
pub(crate) static SHAPE: Shape = Shape {
    sdk: known::SDK,
    members: &[("input", &INPUT)],
    bare: &INPUT,
};

static INPUT: Walk = Walk {
    list: &known::INPUT,
    noun: Some("item"),
    inner: &[
        Inner {
            tag: "message",
            when: Some(("role", "assistant")),
            path: "content",
            walk: &ASSISTANT,
        },
        Inner::at("message", "content", &MESSAGE),
        Inner::at("function_call_output", "output", &OUTPUT),
    ],
    also: &[],
};

static ASSISTANT: Walk = Walk::leaf(&known::ASSISTANT_MESSAGE_CONTENT, "part");

static MESSAGE: Walk = Walk::leaf(&known::INPUT_MESSAGE_CONTENT, "part");

static OUTPUT: Walk = Walk::leaf(&known::FUNCTION_CALL_OUTPUT_OUTPUT, "part");

/// What a tally counts a part of `list` as.
fn what(list: &List, part: &Open<Part<'_>>) -> String {
    label_in(
        list,
        "part",
        &serde_json::to_value(part).unwrap_or_default(),
    )
}

/// The member of the assistant envelope that keeps other items (written
/// back first in their turn when the history goes to Responses again).
pub use crate::steps::envelope::OPENAI_ITEMS as ITEMS;

/// Read a Responses request body (or a bare `input` list), as `options` say.
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not the Responses shape.
pub(crate) fn read(
    input: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    audit(input, &SHAPE, options, &mut out)?;
    let what = "a Responses body or a list of input items";
    let items = match body_or_list::<Body<'_>, Input<'_>>(input, "input", what)? {
        BodyOr::List(items) => items,
        BodyOr::Body(body) => {
            if let Some(text) = body.instructions {
                out.push("system", text.into_owned());
            }
            match body.input {
                TextOr::Text(text) => {
                    out.push("user", text.into_owned());
                    return Ok(out);
                }
                TextOr::Parts(items) => items,
            }
        }
    };
    let mut turn = Gathered::default();
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("$.input[{i}]");
        match item.0 {
            Open::Known(Item::Message {
                role: Role::Assistant,
                content,
            }) => {
                out.kept("message item");
                if turn.open && !turn.calls.is_empty() {
                    turn.close(&mut out);
                }
                turn.open = true;
                let list = &known::ASSISTANT_MESSAGE_CONTENT;
                let t = message_text(&content, list, &at, i, store, &mut out, false)?.into_text();
                if !turn.text.is_empty() && !t.is_empty() {
                    turn.text.push('\n');
                }
                turn.text.push_str(&t);
            }
            Open::Known(Item::Message { role, content }) => {
                out.kept("message item");
                turn.close(&mut out);
                let list = &known::INPUT_MESSAGE_CONTENT;
                let user = role == Role::User;
                let t = message_text(&content, list, &at, i, store, &mut out, user)?;
                match role {
                    Role::User => out.messages.push(t.into_record()),
                    _ => out.push("system", t.into_text()),
                }
            }
            Open::Known(Item::FunctionCall {
                call_id,
                name,
                arguments,
            }) => {
                out.kept("function_call item");
                turn.open = true;
                turn.calls.push(Call {
                    id: call_id.into_owned(),
                    name: name.into_owned(),
                    arguments: arguments.json().into_owned(),
                });
            }
            Open::Known(Item::FunctionCallOutput { call_id, output }) => {
                out.kept("function_call_output item");
                turn.close(&mut out);
                let result = self::output(i, &call_id, &output, &at, store, &mut out)?;
                out.push("tool", result);
            }
            Open::Other(item) => {
                let mut item = Value::Object(item);
                let what = label_in(&known::INPUT, "item", &item);
                // What the audit counted inside it is kept with it.
                for inner in nested(&INPUT, &item) {
                    out.kept_as_written(&known::INPUT, &item, &inner);
                }
                known::INPUT.listed_only(&mut item);
                out.kept_as_written(&known::INPUT, &item, &what);
                out.note(
                    i,
                    format!(
                        "{at}: {} {what} is kept as the next assistant envelope's {ITEMS}",
                        crate::steps::known::article(&what)
                    ),
                );
                turn.kept.push(item);
                turn.open = true;
            }
            // Reading gives no raw items.
            Open::Raw(_) => {}
        }
    }
    turn.close(&mut out);
    Ok(out)
}

/// The assistant turn being gathered: its text, calls and kept items.
#[derive(Default)]
struct Gathered {
    text: String,
    calls: Vec<Call>,
    kept: Vec<Value>,
    /// Whether anything of the turn was read.
    open: bool,
}

impl Gathered {
    /// Write the turn, if one was read, and start the next.
    fn close(&mut self, out: &mut ImportedHistory) {
        if !self.open {
            return;
        }
        self.open = false;
        let extra: Vec<(String, String)> = if self.kept.is_empty() {
            Vec::new()
        } else {
            vec![(
                ITEMS.to_owned(),
                Value::Array(std::mem::take(&mut self.kept)).to_string(),
            )]
        };
        if self.calls.is_empty() && extra.is_empty() {
            out.push("assistant", std::mem::take(&mut self.text));
        } else {
            out.push(
                "assistant",
                assistant_envelope(&self.text, &self.calls, &extra),
            );
            self.text.clear();
            self.calls.clear();
        }
    }
}

/// A part's text: an `input_text` part's, or an `output_text` one's.
fn part_text<'p>(part: &'p Open<Part<'_>>) -> Option<&'p str> {
    match part {
        Open::Known(Part::Text { text, .. }) => Some(text),
        Open::Known(_) | Open::Raw(_) => None,
        Open::Other(part) if part.get("type").and_then(Value::as_str) == Some("output_text") => {
            part.get("text").and_then(Value::as_str)
        }
        Open::Other(_) => None,
    }
}

/// An `input_file` part's `filename`, when it has one.
fn part_name<'p>(part: &'p Open<Part<'_>>) -> Option<&'p str> {
    match part {
        Open::Known(Part::File {
            filename: Some(name),
            ..
        }) => Some(&**name).filter(|n| !n.is_empty()),
        _ => None,
    }
}

/// Whether a part is an `input_image` or an `input_file`.
fn part_is_media(part: &Open<Part<'_>>) -> bool {
    matches!(part, Open::Known(Part::Image { .. } | Part::File { .. }))
}

/// An `input_image` or `input_file` part's kind and target; `None` for
/// another part.
fn part_target(
    part: &Open<Part<'_>>,
    at: &str,
    store: &mut dyn MediaStore,
) -> Result<Option<(AttachmentKind, String)>, ImportError> {
    let (kind, payload) = match part {
        Open::Known(Part::Image {
            image_url, file_id, ..
        }) => match (image_url, file_id) {
            (Some(url), _) => (AttachmentKind::Image, url_payload(url.text())),
            // Kept as the provider file it is.
            (None, Some(id)) => (
                AttachmentKind::Image,
                Payload::Held(ProviderFile::new(Holder::OpenAi, &**id)),
            ),
            (None, None) => (
                AttachmentKind::Image,
                Payload::Missing("an input_image needs image_url or file_id"),
            ),
        },
        Open::Known(Part::File {
            file_data,
            file_url,
            file_id,
            ..
        }) => {
            let payload = match (file_data, file_url, file_id) {
                (Some(data), _, _) => Payload::DataUrl(data.text()),
                (None, Some(url), _) => Payload::Url(url),
                (None, None, Some(id)) => Payload::Held(ProviderFile::new(Holder::OpenAi, &**id)),
                (None, None, None) => {
                    Payload::Missing("an input_file needs file_data, file_url or file_id")
                }
            };
            (AttachmentKind::Document, payload)
        }
        _ => return Ok(None),
    };
    Ok(Some((kind, target(payload, at, store)?)))
}

/// A message's text and, for a user's (`own_media`), the media they
/// attached; media in another's message has no place in a history and is
/// left out, with a note.
fn message_text(
    content: &Content<'_>,
    list: &List,
    at: &str,
    i: usize,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
    own_media: bool,
) -> Result<UserText, ImportError> {
    let mut text = UserText::default();
    let parts = match content {
        TextOr::Text(t) => {
            text.text(t);
            return Ok(text);
        }
        TextOr::Parts(parts) => parts,
    };
    for (p, part) in parts.iter().enumerate() {
        let pat = format!("{at}.content[{p}]");
        let what = what(list, part);
        if let Some(t) = part_text(part) {
            out.kept(&what);
            text.text(t);
        } else if !own_media && part_is_media(part) {
            left_out(
                out,
                i,
                &pat,
                &what,
                "only a user's own message declares media",
            );
        } else if let Some((kind, target)) = part_target(part, &pat, store)? {
            let name = part_name(part);
            text.media(out, &what, kind, target, name);
        } else if let (Open::Other(map), "refusal part") = (part, what.as_str()) {
            out.noted(
                i,
                &what,
                format!("{pat}: a refusal part is kept as the turn's text"),
            );
            text.text(map.get("refusal").and_then(Value::as_str).unwrap_or(""));
        } else {
            left_out(
                out,
                i,
                &pat,
                &what,
                "a message holds text and its own images and files",
            );
        }
    }
    Ok(text)
}

fn output(
    i: usize,
    call_id: &str,
    output: &Content<'_>,
    at: &str,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<String, ImportError> {
    let mut env = Envelope {
        call_id: Some(call_id.to_owned()),
        ..Envelope::default()
    };
    match output {
        TextOr::Text(text) => env.line(text),
        TextOr::Parts(parts) => {
            for (p, part) in parts.iter().enumerate() {
                let pat = format!("{at}.output[{p}]");
                let what = what(&known::FUNCTION_CALL_OUTPUT_OUTPUT, part);
                if let Some(t) = part_text(part) {
                    out.kept(&what);
                    env.line(t);
                } else if let Some((kind, target)) = part_target(part, &pat, store)? {
                    out.kept(&what);
                    attach(&mut env, kind, target, part_name(part));
                } else {
                    left_out(
                        out,
                        i,
                        &pat,
                        &what,
                        "a tool result holds text and attachments",
                    );
                }
            }
        }
    }
    Ok(env.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn function_call_output_with_an_input_image() {
        let body = json!({
            "model": "gpt-5",
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Look."}]},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Taking it."}]},
                {"type": "function_call", "call_id": "call_1", "name": "shot", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": [
                    {"type": "input_text", "text": "saved"},
                    {"type": "input_image", "image_url": format!("data:image/gif;base64,{GIF}"), "detail": "auto"}]}
            ]
        });
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool"]);
        let a: Value = serde_json::from_str(h.messages[2].content()).unwrap();
        assert_eq!(a["content"], "Taking it.");
        assert_eq!(a["tool_calls"][0]["id"], "call_1");
        assert_eq!(a[ITEMS][0]["id"], "rs_1");
        let t: Value = serde_json::from_str(h.messages[3].content()).unwrap();
        assert_eq!(t["content"], "saved");
        assert_eq!(t["attachments"][0]["kind"], "image");
        assert_eq!(h.notes.len(), 1);
    }

    #[test]
    fn what_responses_allows_is_read_as_before() {
        let h = read(
            &json!({"model": "gpt-5", "instructions": "Be brief.", "input": "Hi."}),
            &mut InlineStore,
            &ImportOptions::default(),
        )
        .unwrap();
        assert_eq!(
            h.messages,
            [
                ("system".to_owned(), "Be brief.".to_owned()),
                ("user".to_owned(), "Hi.".to_owned())
            ]
        );
        let reasoning =
            json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"});
        let body = json!([
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [
                {"type": "input_text", "text": "Look"},
                {"type": "input_image", "image_url": "https://x/a.png", "detail": "high"}]},
            reasoning,
            {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": "On it.", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "status": "completed", "call_id": "c1",
             "name": "f", "arguments": {"a": 1}},
            {"type": "function_call_output", "call_id": "c1", "status": "completed", "output": [
                {"type": "input_text", "text": "ok"},
                {"type": "input_file", "file_url": "https://x/a.pdf"}]}
        ]);
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool"]);
        assert_eq!(
            h.messages[1].to_json(),
            r#"{"role":"user","content":"Look","attachments":[{"kind":"image","target":"https://x/a.png"}]}"#
        );
        let a: Value = serde_json::from_str(h.messages[2].content()).unwrap();
        assert_eq!(a["content"], "On it.");
        assert_eq!(
            a["tool_calls"],
            json!([{"id": "c1", "name": "f", "arguments": {"a": 1}}])
        );
        assert_eq!(a[ITEMS], json!([reasoning]));
        let t: Value = serde_json::from_str(h.messages[3].content()).unwrap();
        assert_eq!(t["content"], "ok");
        assert_eq!(t["attachments"][0]["target"], "https://x/a.pdf");
        // The reasoning item kept (the user's image is declared).
        assert_eq!(h.notes.len(), 1, "{:?}", h.notes);
        assert!(h.tally.is_balanced(), "{:?}", h.tally);
        // An output part inside a result is no part the SDK lists there.
        let mut bad = body.clone();
        bad[5]["output"][1] = json!({"type": "output_text", "text": "also"});
        let err = read(&bad, &mut InlineStore, &ImportOptions::default()).unwrap_err();
        assert!(err.to_string().starts_with(
            "$[5].output[1]: a \"output_text\" part is not a kind the openai 3.57.0 types list for function_call_output output"
        ), "{err}");
    }

    #[test]
    fn bad_shapes_name_their_path() {
        let err = |v: Value| {
            read(&v, &mut InlineStore, &ImportOptions::default())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!(1)),
            "$: expected a Responses body or a list of input items"
        );
        assert_eq!(
            err(json!({"model": "m"})),
            "$: expected a Responses body or a list of input items: no `input` member"
        );
        assert_eq!(
            err(json!({"input": [{"role": "critic", "content": "x"}]})),
            "$.input[0]: unknown variant `critic`, expected one of \
             `system`, `developer`, `user`, `assistant`"
        );
        assert_eq!(
            err(json!([{"type": "function_call", "name": "f"}])),
            "$[0]: missing field `call_id`"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": 7}])),
            "$[0]: invalid type: integer `7`, expected text or a list of blocks"
        );
        assert_eq!(
            err(
                json!([{"role": "user", "content": [{"type": "input_file", "filename": "a.pdf"}]}])
            ),
            "$.input[0].content[0]: an input_file needs file_data, file_url or file_id"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": [{"type": "input_image", "detail": "auto"}]}])),
            "$.input[0].content[0]: an input_image needs image_url or file_id"
        );
        assert_eq!(
            err(
                json!([{"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png,abc"}]}])
            ),
            "$.input[0].content[0]: a data: URL that is not base64"
        );
        // A known part of a broken shape is refused, not kept as unknown
        // (the path is the item's: a known item is read whole).
        assert_eq!(
            err(
                json!([{"type": "function_call_output", "call_id": "c", "output": [{"type": "input_text"}]}])
            ),
            "$[0]: missing field `text`"
        );
    }
}
