//! Anthropic Messages bodies (or their `messages` array) as carrier
//! histories.
//!
//! | Anthropic | carrier history |
//! |---|---|
//! | `system` (text or text blocks) | a `system` message |
//! | `user` text | a `user` message |
//! | `tool_result` blocks | one `tool` carrier each, in order, before the turn's text: text blocks the body, `image` / `document` blocks declared (base64 stored, URLs kept), `is_error` kept; blocks of other kinds left out, with a note |
//! | `image` / `document` in the user's own turn | stored, and declared as the user record's `attachments` (a document's `title` its name) |
//! | `assistant` text and `tool_use` | an assistant envelope (`input` as the arguments) |
//! | `thinking` / `redacted_thinking` blocks | kept, with their signatures, as the envelope's `anthropic_thinking` member |
//! | other assistant blocks (server tools and their results, …) | kept as the envelope's `anthropic_blocks` member, with a note |
//! | other blocks of a user's turn (search results, …) | left out, with a note |
//!
//! Every block is first looked up in the kinds the pinned `anthropic` SDK
//! lists ([`known`](super::known)): a kind it does not list is refused
//! (or, asked, kept as written with a note), and a member it does not list
//! for a block is noted and not kept. `cache_control` marks are the
//! request's, not the conversation's: they are left out.

use std::borrow::Cow;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::AttachmentKind;

use super::known;
use super::wire::{Block, Body, Content, Item, Marked, Message, Role, Source};
use crate::media::{Holder, ProviderFile};
use crate::steps::audit::{audit, label_in, ImportOptions, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, attach, body_or_list, left_out, target, url_payload, BodyOr, Call,
    ImportedHistory, Payload, UserText,
};
use crate::steps::wire::{Open, TextOr};

pub use crate::steps::envelope::ANTHROPIC_BLOCKS as BLOCKS;
pub use crate::steps::envelope::ANTHROPIC_THINKING as THINKING;

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
        Inner::at("user", "content", &USER),
        Inner::at("assistant", "content", &ASSISTANT),
        Inner::at("system", "content", &SYSTEM),
    ],
    also: &[],
};

static USER: Walk = Walk {
    list: &known::USER_CONTENT,
    noun: Some("block"),
    inner: &[Inner::at("tool_result", "content", &TOOL_RESULT)],
    also: &[],
};

static ASSISTANT: Walk = Walk::leaf(&known::ASSISTANT_CONTENT, "block");

static TOOL_RESULT: Walk = Walk::leaf(&known::TOOL_RESULT_CONTENT, "block");

/// Read an Anthropic Messages request body (or a bare `messages` array),
/// as `options` say.
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Anthropic's shape,
/// or of a block of a kind the SDK does not list.
pub(crate) fn read(
    input: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    audit(input, &SHAPE, options, &mut out)?;
    let what = "a Messages body or a list of messages";
    let (system, messages) = match body_or_list::<Body<'_>, Message<'_>>(input, "messages", what)? {
        BodyOr::Body(body) => (body.system, body.messages),
        BodyOr::List(messages) => (None, messages),
    };
    if let Some(system) = system {
        let text = text_of(&system, "$.system", &mut out);
        if !text.is_empty() {
            out.push("system", text.into_owned());
        }
    }
    for (m, message) in messages.into_iter().enumerate() {
        one(m, &format!("$.messages[{m}]"), message, store, &mut out)?;
    }
    Ok(out)
}

/// Read one message, `value`, on its own (number `m` of its input, at
/// `at`), audited as a message of a body is: what an agent's transcript
/// holds a line at a time.
pub(crate) fn message(
    m: usize,
    at: &str,
    value: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    crate::steps::audit::audit_one(value, &MESSAGES, known::SDK, at, m, options, out)?;
    let message: Message<'_> = crate::steps::imported::typed(value).map_err(|e| e.under(at))?;
    one(m, at, message, store, out)
}

fn one(
    m: usize,
    at: &str,
    message: Message<'_>,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    out.kept(match message.role {
        Role::User => "user message",
        Role::Assistant => "assistant message",
        Role::System => "system message",
    });
    match (message.role, message.content) {
        (Role::User, TextOr::Text(text)) => out.push("user", text.into_owned()),
        (Role::User, TextOr::Parts(items)) => user(m, at, items, store, out)?,
        (Role::Assistant, TextOr::Text(text)) => out.push("assistant", text.into_owned()),
        (Role::Assistant, TextOr::Parts(items)) => assistant(m, at, items, out),
        (Role::System, content) => {
            let text = text_of(&content, &format!("{at}.content"), out).into_owned();
            out.push("system", text);
        }
    }
    Ok(())
}

/// What a tally counts `item` of `list` as.
fn what(list: &crate::steps::known::List, item: &Item<'_>) -> String {
    label_in(list, "block", &raw(item))
}

/// The text of `system`: a string, or its text blocks joined by lines.
fn text_of<'a>(
    system: &'a TextOr<'a, Marked<Item<'a>>>,
    at: &str,
    out: &mut ImportedHistory,
) -> Cow<'a, str> {
    match system {
        TextOr::Text(text) => Cow::Borrowed(text),
        TextOr::Parts(items) => {
            let mut text = Vec::new();
            for (b, item) in items.iter().enumerate() {
                match &item.inner {
                    Open::Known(Block::Text { text: t }) => {
                        out.kept("text block");
                        text.push(&**t);
                    }
                    other => left_out(
                        out,
                        0,
                        &format!("{at}[{b}]"),
                        &what(&known::SYSTEM, other),
                        "system text holds text alone",
                    ),
                }
            }
            Cow::Owned(text.join("\n"))
        }
    }
}

/// An `image` or `document` block's target.
fn media(
    document: bool,
    source: Source<'_>,
    at: &str,
    store: &mut dyn MediaStore,
) -> Result<(AttachmentKind, String), ImportError> {
    let kind = if document {
        AttachmentKind::Document
    } else {
        AttachmentKind::Image
    };
    let sat = format!("{at}.source");
    let payload = match &source {
        Source::Base64 { data, .. } => Payload::Base64(data.text()),
        Source::Url { url } => url_payload(url),
        // Kept as the provider file it is.
        Source::File { file_id } => Payload::Held(ProviderFile::new(Holder::Anthropic, &**file_id)),
    };
    Ok((kind, target(payload, &sat, store)?))
}

/// An item as JSON, as the body had it (`cache_control` left out).
fn raw(item: &Item<'_>) -> Value {
    let mut value = serde_json::to_value(item).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut value {
        m.remove("cache_control");
    }
    value
}

fn user(
    m: usize,
    at: &str,
    items: Vec<Marked<Item<'_>>>,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<(), ImportError> {
    let mut text = UserText::default();
    for (b, item) in items.into_iter().enumerate() {
        let bat = format!("{at}.content[{b}]");
        match item.inner {
            Open::Known(Block::ToolResult {
                tool_use_id,
                content,
                is_error,
            }) => {
                out.kept("tool_result block");
                let result = tool_result(m, &tool_use_id, content, is_error, &bat, store, out)?;
                out.push("tool", result);
            }
            Open::Known(Block::Text { text: t }) => {
                out.kept("text block");
                text.text(&t);
            }
            Open::Known(Block::Image { source }) => {
                let (kind, target) = media(false, source, &bat, store)?;
                text.media(out, "image block", kind, target, None);
            }
            Open::Known(Block::Document { source, title, .. }) => {
                let (kind, target) = media(true, source, &bat, store)?;
                text.media(out, "document block", kind, target, title.as_deref());
            }
            other => left_out(
                out,
                m,
                &bat,
                &what(&known::USER_CONTENT, &other),
                "a user message holds text and its own media",
            ),
        }
    }
    text.push_to(out);
    Ok(())
}

fn tool_result(
    m: usize,
    id: &str,
    content: Option<Content<'_>>,
    is_error: bool,
    at: &str,
    store: &mut dyn MediaStore,
    out: &mut ImportedHistory,
) -> Result<String, ImportError> {
    let mut env = Envelope {
        call_id: Some(id.to_owned()),
        is_error,
        ..Envelope::default()
    };
    match content {
        None => {}
        Some(TextOr::Text(text)) => env.line(&text),
        Some(TextOr::Parts(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let iat = format!("{at}.content[{i}]");
                match item {
                    Open::Known(Block::Text { text }) => {
                        out.kept("text block");
                        env.line(&text);
                    }
                    Open::Known(Block::Image { source }) => {
                        out.kept("image block");
                        let (kind, target) = media(false, source, &iat, store)?;
                        attach(&mut env, kind, target, None);
                    }
                    Open::Known(Block::Document { source, title }) => {
                        out.kept("document block");
                        let (kind, target) = media(true, source, &iat, store)?;
                        attach(&mut env, kind, target, title.as_deref());
                    }
                    other => left_out(
                        out,
                        m,
                        &iat,
                        &what(&known::TOOL_RESULT_CONTENT, &other),
                        "a tool result holds text and attachments",
                    ),
                }
            }
        }
    }
    Ok(env.render())
}

fn assistant(m: usize, at: &str, items: Vec<Marked<Item<'_>>>, out: &mut ImportedHistory) {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    let mut thinking = Vec::new();
    let mut others = Vec::new();
    for (b, item) in items.into_iter().enumerate() {
        match item.inner {
            Open::Known(Block::Text { text: t }) => {
                out.kept("text block");
                text.push(t);
            }
            Open::Known(Block::ToolUse { id, name, input }) => {
                out.kept("tool_use block");
                calls.push(Call {
                    id: id.into_owned(),
                    name: name.into_owned(),
                    arguments: input.0.as_text().into_owned(),
                });
            }
            other => {
                let mut block = raw(&other);
                let what = label_in(&known::ASSISTANT_CONTENT, "block", &block);
                known::ASSISTANT_CONTENT.listed_only(&mut block);
                if matches!(
                    block.get("type").and_then(Value::as_str),
                    Some("thinking" | "redacted_thinking")
                ) {
                    // Kept as the model wrote it, for Anthropic again.
                    out.kept(&what);
                    thinking.push(block);
                    continue;
                }
                out.kept_as_written(&known::ASSISTANT_CONTENT, &block, &what);
                out.note(
                    m,
                    format!(
                        "{at}.content[{b}]: {} {what} is kept as the envelope's {BLOCKS}",
                        crate::steps::known::article(&what)
                    ),
                );
                others.push(block);
            }
        }
    }
    let text = text.join("\n");
    if calls.is_empty() && thinking.is_empty() && others.is_empty() {
        out.push("assistant", text);
        return;
    }
    let mut extra = Vec::new();
    if !thinking.is_empty() {
        extra.push((THINKING.to_owned(), Value::Array(thinking).to_string()));
    }
    if !others.is_empty() {
        extra.push((BLOCKS.to_owned(), Value::Array(others).to_string()));
    }
    out.push("assistant", assistant_envelope(&text, &calls, &extra));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;
    use serde_json::json;

    const GIF: &str = "R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=";

    #[test]
    fn a_system_message_among_the_messages_is_a_system_record() {
        // As Claude Code sends them (SDK 2.14's `SystemMessageParam`).
        let body = json!({"model": "claude-sonnet-5", "max_tokens": 8, "messages": [
            {"role": "user", "content": "Hi."},
            {"role": "system", "content": [{"type": "text", "text": "Mind the date."}, {"type": "text", "text": "Be brief."}]},
            {"role": "system", "content": "Plain."},
            {"role": "assistant", "content": "Hello."}
        ]});
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["user", "system", "system", "assistant"]);
        assert_eq!(h.messages[1].content(), "Mind the date.\nBe brief.");
        let odd = json!({"messages": [{"role": "system", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": GIF}}]}]});
        assert!(
            read(&odd, &mut InlineStore, &ImportOptions::default()).is_err(),
            "a system message holds text blocks alone"
        );
    }

    #[test]
    fn a_conversation_with_tool_result_images() {
        let body = json!({
            "model": "claude-sonnet-5",
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": "Look."},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "sig"},
                    {"type": "text", "text": "Taking it."},
                    {"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {"page": "a"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": [
                        {"type": "text", "text": "saved"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": GIF}}]},
                    {"type": "text", "text": "And?"},
                    {"type": "image", "source": {"type": "url", "url": "https://x/u.png"}}]}
            ]
        });
        let h = read(&body, &mut InlineStore, &ImportOptions::default()).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "user"]);
        assert_eq!(h.messages[0].content(), "Be brief.");
        let a: Value = serde_json::from_str(h.messages[2].content()).unwrap();
        assert_eq!(a["content"], "Taking it.");
        assert_eq!(
            a["tool_calls"][0],
            json!({"id": "toolu_1", "name": "shot", "arguments": {"page": "a"}})
        );
        assert_eq!(a[THINKING][0]["signature"], "sig");
        let t: Value = serde_json::from_str(h.messages[3].content()).unwrap();
        assert_eq!(
            (
                t["tool_call_id"].as_str(),
                t["content"].as_str(),
                t["is_error"].as_bool()
            ),
            (Some("toolu_1"), Some("saved"), Some(true))
        );
        assert_eq!(
            t["attachments"][0]["target"],
            format!("data:image/gif;base64,{GIF}")
        );
        // The user's own image: the record's attachment, not its text.
        assert_eq!(
            h.messages[4].to_json(),
            r#"{"role":"user","content":"And?","attachments":[{"kind":"image","target":"https://x/u.png"}]}"#
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
            err(json!(1)),
            "$: expected a Messages body or a list of messages"
        );
        assert_eq!(err(json!([{"content": "x"}])), "$[0]: missing field `role`");
        assert_eq!(
            err(json!({"messages": [{"role": "tool", "content": "x"}]})),
            "$.messages[0].role: unknown variant `tool`, expected one of `user`, `assistant`, `system`"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": [{"type": "tool_result"}]}])),
            "$[0].content[0]: missing field `tool_use_id`"
        );
        assert_eq!(
            err(json!([{"role": "user", "content": 7}])),
            "$[0].content: invalid type: integer `7`, expected text or a list of blocks"
        );
        // A known block of a broken shape is refused, not kept as unknown.
        assert_eq!(
            err(
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "files", "file_id": "f"}}]}])
            ),
            "$[0].content[0]: unknown variant `files`, expected one of `base64`, `url`, `file`"
        );
    }
}
