//! OpenAI Chat Completions bodies (or their `messages` array) as carrier
//! histories; also what OpenAI-compatible servers take.
//!
//! | Chat Completions | carrier history |
//! |---|---|
//! | `system` / `developer` | a `system` message |
//! | `user` text | a `user` message |
//! | `user` `image_url` / `file` parts | stored (URLs and file ids kept), and declared as the user record's `attachments` (a file's `filename` its name) |
//! | `assistant` text and `tool_calls` | an assistant envelope (`arguments` kept as the text it was) |
//! | `tool` | a `tool` carrier: its text the body |
//! | legacy `function_call` of an `assistant` | one more call of its envelope, id `call_M_N` |
//! | legacy `function` | a `tool` carrier naming no call (the first call still unanswered takes it) |
//!
//! A body is read on the types the writer writes it with
//! ([`wire`](super::wire)): a part of a known type must have that type's
//! shape. Every message, part and tool call is first looked up in what
//! the pinned `openai` SDK lists ([`known`](super::known)): a kind it does
//! not list is refused (or, asked, left out with a note), and a member it
//! does not list is noted and not kept. A part the SDK lists that a
//! carrier history has no place for (a user's `input_audio`) is left out
//! with a note; none is written into the text. [`read_message`] reads
//! one message as [`from_openai_chat`] reads each of a body's; the history
//! reader of records spelled the Chat way
//! ([`read_records`](crate::provider::read_records)) uses it.
//!
//! **The media message `convert` writes after a batch** is read back into
//! the batch's results, by its fixed shape at its fixed position: the
//! `user` message right after the batch's last `tool` message (or after
//! the bridge message, [`BRIDGE`](crate::provider::BRIDGE), right there),
//! whose parts are, throughout, a label `Attachment of the NAME result
//! (call ID): KIND TARGET` naming a call of that batch and its tool, then
//! one `image_url` or `file` part. Each media part is declared on its
//! call's result, and the result's line `[KIND TARGET follows in the next
//! user message]` is taken out of its body. A message that does not match
//! exactly stays a user message; the text of none is searched.

use serde_json::Value;

use crate::facts::BRIDGE;
use crate::history::Record;
use crate::media::store::MediaStore;
use crate::AttachmentKind;

use super::known;
use super::wire::{Body, CallFunction, Content, Message, Part, Role};
use crate::media::{Holder, ProviderFile};
use crate::steps::audit::{audit, audit_one, label_in, ImportOptions, Inner, Shape, Walk};
use crate::steps::envelope::Envelope;
use crate::steps::imported::ImportError;
use crate::steps::imported::{
    assistant_envelope, attach, body_or_list, left_out, target, typed, url_payload, Batch, BodyOr,
    Call, ImportedHistory, Payload, UserText,
};
use crate::steps::known::List;
use crate::steps::wire::{Open, TextOr};

/// A body's lists as the reader reads them.
pub(crate) static SHAPE: Shape = Shape {
    sdk: known::SDK,
    members: &[("messages", &MESSAGES)],
    bare: &MESSAGES,
};

/// The messages, each read by its role.
pub(crate) static MESSAGES: Walk = Walk {
    list: &known::MESSAGE,
    noun: Some("message"),
    inner: &[
        Inner::at("developer", "content", &DEVELOPER),
        Inner::at("system", "content", &SYSTEM),
        Inner::at("user", "content", &USER),
        Inner::at("assistant", "content", &ASSISTANT),
        Inner::at("assistant", "tool_calls", &TOOL_CALLS),
        Inner::at("tool", "content", &TOOL),
        // The SDK lists text alone for a function reply; parts are read.
        Inner::at("function", "content", &TOOL),
    ],
    also: &[],
};

macro_rules! parts {
    ($($name:ident: $list:ident),*) => {$(
        static $name: Walk = Walk { list: &known::$list, noun: Some("part"), inner: &[], also: &[] };
    )*};
}

parts!(
    DEVELOPER: DEVELOPER_CONTENT,
    SYSTEM: SYSTEM_CONTENT,
    USER: USER_CONTENT,
    ASSISTANT: ASSISTANT_CONTENT
);

/// A tool message's parts: OpenAI's SDK lists text alone, but the
/// OpenAI-compatible servers that take media inside a tool message take a
/// user message's parts there (what `convert` writes for them), and the
/// reader reads both.
static TOOL_PARTS: List = List {
    name: "tool content",
    ..known::USER_CONTENT
};

static TOOL: Walk = Walk::leaf(&TOOL_PARTS, "part");

/// A call that leaves its `type` out (the SDK requires one; histories
/// agents keep often have none) is a function's.
static TOOL_CALL: List = List {
    untyped: &["function"],
    ..known::TOOL_CALL
};

static TOOL_CALLS: Walk = Walk {
    list: &TOOL_CALL,
    noun: Some("tool call"),
    inner: &[],
    also: &[],
};

/// The list a message of `role`'s content parts are of.
fn parts_of(role: Role) -> &'static List {
    match role {
        Role::Developer => &known::DEVELOPER_CONTENT,
        Role::System => &known::SYSTEM_CONTENT,
        Role::User => &known::USER_CONTENT,
        Role::Assistant => &known::ASSISTANT_CONTENT,
        // A function reply's content is text.
        Role::Tool | Role::Function => &TOOL_PARTS,
    }
}

/// What a tally counts a part as.
fn part_what(role: Role, part: &Open<Part<'_>>) -> String {
    label_in(
        parts_of(role),
        "part",
        &serde_json::to_value(part).unwrap_or_default(),
    )
}

/// What a tally counts a message of `role` as.
fn message_what(role: Role) -> &'static str {
    match role {
        Role::System => "system message",
        Role::Developer => "developer message",
        Role::User => "user message",
        Role::Assistant => "assistant message",
        Role::Tool => "tool message",
        Role::Function => "function message",
    }
}

/// Read a Chat Completions request body (or a bare `messages` array),
/// as `options` say.
///
/// # Errors
/// [`ImportError`] naming the JSON path of what is not Chat's shape.
pub(crate) fn read(
    input: &Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut out = ImportedHistory::default();
    audit(input, &SHAPE, options, &mut out)?;
    let what = "a Chat Completions body or a list of messages";
    let messages = match body_or_list::<Body<'_>, Message<'_>>(input, "messages", what)? {
        BodyOr::Body(body) => body.messages,
        BodyOr::List(messages) => messages,
    };
    let mut batch = Batch::default();
    let mut m = 0;
    while m < messages.len() {
        let message = &messages[m];
        if !matches!(message.role, Role::Tool | Role::Function) && !batch.results.is_empty() {
            // The batch ends here: its media message, if this is one.
            let mut next = m;
            if is_bridge(message) && messages.get(m + 1).is_some_and(|n| n.role == Role::User) {
                next = m + 1;
            }
            let folded = messages[next].role == Role::User
                && fold(
                    &messages[next],
                    &format!("$.messages[{next}]"),
                    &mut batch,
                    store,
                )?;
            batch.flush(&mut out);
            if next != m {
                // The bridge is convert's own: left out.
                bridge(m, &mut out);
            }
            if folded {
                // The media message is convert's own too: its media are
                // the batch's, its labels name them.
                let folded = &messages[next];
                out.kept(message_what(folded.role));
                if let Some(TextOr::Parts(parts)) = &folded.content {
                    for part in parts {
                        out.kept(&part_what(folded.role, part));
                    }
                }
                m = next + 1;
                continue;
            }
            if next != m {
                m = next;
                continue;
            }
        }
        let at = format!("$.messages[{m}]");
        match read_one(m, &at, message, store, &mut out, options)? {
            ChatMessage::Message(record) => {
                if record.role() == "assistant" {
                    batch.calls.clear();
                }
                out.messages.push(record);
            }
            ChatMessage::Calls(envelope, calls) => {
                batch.calls = calls;
                out.push("assistant", envelope);
            }
            ChatMessage::Result(id, env) => batch.results.push((id, env)),
        }
        m += 1;
    }
    batch.flush(&mut out);
    Ok(out)
}

/// The bridge message at `m`, convert's own, left out.
fn bridge(m: usize, out: &mut ImportedHistory) {
    out.noted(
        m,
        "assistant message",
        format!("$.messages[{m}]: the bridge message convert writes is left out"),
    );
}

/// What one Chat message reads as. The media message after a batch is
/// the caller's to fold: it needs the messages around it.
pub(crate) enum ChatMessage {
    /// A message of the history as it is: system text, a user's message
    /// (their media its attachments), an assistant's text without calls.
    Message(Record),
    /// An assistant turn with calls: its envelope, and each call's
    /// `(id, name)`.
    Calls(String, Vec<(String, String)>),
    /// A tool result: the call id it names (empty for none) and its
    /// envelope.
    Result(String, Envelope),
}

/// Read the Chat message `message` (number `m`, at the JSON path `at`,
/// with the role `role`), its media put in `store`. A user's own media is
/// noted in `notes`.
///
/// A legacy `function_call` of an assistant is a call like the others
/// (its id `call_M_N`: the message's number, then the call's); a legacy `function`
/// message is a result naming no call, which the walk pairs with the
/// first call still unanswered.
///
/// # Errors
/// [`ImportError`] at the JSON path of what is not Chat's shape: an
/// unknown role, a `content` that is neither text, null nor a list of
/// parts, `tool_calls` that is not a list, a call without an id or a
/// name, a part of a known type whose shape is not that type's.
pub(crate) fn read_message(
    m: usize,
    at: &str,
    role: &str,
    message: &Value,
    store: &mut dyn MediaStore,
    notes: &mut ImportedHistory,
    options: &ImportOptions,
) -> Result<ChatMessage, ImportError> {
    if Role::named(role).is_none() {
        return Err(ImportError::at(at, format!("unknown role {role:?}")));
    }
    // The SDK's types require `content` of every message but an
    // assistant's (and a legacy function reply's); the API refuses one
    // without it. Read as empty, a message of another shape (the AI SDK's
    // `parts`) would lose all it says.
    if message.get("content").is_none() && !matches!(role, "assistant" | "function") {
        if !options.keep_unknown {
            return Err(ImportError::at(
                at,
                format!(
                    "a {role} message without content: the Chat API requires it \
                     (--keep-unknown reads it as empty)"
                ),
            ));
        }
        notes.note(
            m,
            format!("{at}: a {role} message without content (the Chat API requires it) is read as empty"),
        );
    }
    audit_one(message, &MESSAGES, known::SDK, at, m, options, notes)?;
    let message: Message<'_> = typed(message).map_err(|e| match e {
        // The paths of `typed` start at the message, `$`.
        ImportError::Invalid { at: path, what } => ImportError::Invalid {
            at: format!("{at}{}", path.strip_prefix('$').unwrap_or(&path)),
            what,
        },
        other => other,
    })?;
    read_one(m, at, &message, store, notes, options)
}

/// [`read_message`], of a message read.
fn read_one(
    m: usize,
    at: &str,
    message: &Message<'_>,
    store: &mut dyn MediaStore,
    notes: &mut ImportedHistory,
    options: &ImportOptions,
) -> Result<ChatMessage, ImportError> {
    let content = message.content.as_ref();
    notes.kept(message_what(message.role));
    // A function reply's name is its function's (the walk pairs it with
    // the call); any other is a participant's.
    if let Some(name) = message
        .name
        .as_ref()
        .filter(|_| message.role != Role::Function)
    {
        notes.note(
            m,
            format!("{at}.name: the participant's name {name:?} is not kept"),
        );
    }
    match message.role {
        Role::System | Role::Developer => Ok(ChatMessage::Message(Record::new(
            "system",
            text_of(m, at, message.role, content, notes),
        ))),
        Role::User => Ok(ChatMessage::Message(user(m, at, content, store, notes)?)),
        Role::Assistant => assistant(m, at, message, notes),
        Role::Tool | Role::Function => {
            let id = match message.role {
                // The API refuses a tool message without the member; read
                // as a reply to nothing, a carrier history given as a body
                // had its envelopes sent as result text. (An empty id is
                // read as before: a result that names no call.)
                Role::Tool => match message.tool_call_id.as_deref() {
                    Some(id) => id,
                    None if options.keep_unknown => {
                        notes.note(
                            m,
                            format!(
                                "{at}: a tool message without a tool_call_id member \
                                 (the Chat API requires one) is read as a result \
                                 that names no call"
                            ),
                        );
                        ""
                    }
                    None => {
                        return Err(ImportError::at(
                            at,
                            "a tool message without a tool_call_id member: the Chat API \
                             requires one (--keep-unknown reads it as a result that names no call)",
                        ))
                    }
                },
                _ => "",
            };
            let mut env = Envelope {
                call_id: (!id.is_empty()).then(|| id.to_owned()),
                ..Envelope::default()
            };
            match content {
                // Media inside a tool message (what convert writes for
                // servers that take it there) is declared on it.
                Some(TextOr::Parts(parts)) => {
                    for (p, part) in parts.iter().enumerate() {
                        let pat = format!("{at}.content[{p}]");
                        let what = part_what(message.role, part);
                        match (media(part), part) {
                            (Some((kind, payload)), _) => {
                                notes.kept(&what);
                                let target = target(payload, &pat, store)?;
                                attach(&mut env, kind, target, part_name(part));
                            }
                            (None, Open::Known(Part::Text { text })) => {
                                notes.kept(&what);
                                env.line(text);
                            }
                            _ => left_out(
                                notes,
                                m,
                                &pat,
                                &what,
                                "a tool result holds text and attachments",
                            ),
                        }
                    }
                }
                other => env.line(&text_of(m, at, message.role, other, notes)),
            }
            Ok(ChatMessage::Result(id.to_owned(), env))
        }
    }
}

/// The text of a content of a message of `role` (number `m`, at `at`):
/// itself, or its `text` parts by lines; an assistant's `refusal` parts
/// are its text too, and any other part is left out with a note.
fn text_of(
    m: usize,
    at: &str,
    role: Role,
    content: Option<&Content<'_>>,
    out: &mut ImportedHistory,
) -> String {
    let parts = match content {
        None => return String::new(),
        Some(TextOr::Text(text)) => return text.clone().into_owned(),
        Some(TextOr::Parts(parts)) => parts,
    };
    let mut text = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        let what = part_what(role, part);
        match part {
            Open::Known(Part::Text { text: t }) => {
                out.kept(&what);
                text.push(t.to_string());
            }
            Open::Other(map) if role == Role::Assistant && what == "refusal part" => {
                let refusal = map.get("refusal").and_then(Value::as_str).unwrap_or("");
                out.noted(
                    m,
                    &what,
                    format!("{at}.content[{p}]: a refusal part is kept as the turn's text"),
                );
                text.push(refusal.to_owned());
            }
            _ => left_out(
                out,
                m,
                &format!("{at}.content[{p}]"),
                &what,
                "this message holds text alone",
            ),
        }
    }
    text.join("\n")
}

/// An assistant message: an envelope when it has calls (`tool_calls`,
/// or the legacy `function_call`), else its text.
fn assistant(
    m: usize,
    at: &str,
    message: &Message<'_>,
    out: &mut ImportedHistory,
) -> Result<ChatMessage, ImportError> {
    let mut text = text_of(m, at, Role::Assistant, message.content.as_ref(), out);
    if let Some(refusal) = message.refusal.as_deref().filter(|r| !r.is_empty()) {
        out.note(
            m,
            format!("{at}.refusal: the refusal is kept as the turn's text"),
        );
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(refusal);
    }
    if message.audio.is_some() {
        out.note(
            m,
            format!("{at}.audio: the reference to an earlier audio answer is not kept"),
        );
    }
    if message.tool_calls.is_empty() && message.function_call.is_none() {
        return Ok(ChatMessage::Message(Record::new("assistant", text)));
    }
    let call = |id: String, f: &CallFunction<'_>, at: String, what: &str| {
        let name = f
            .name
            .as_deref()
            .ok_or_else(|| ImportError::at(&at, what))?;
        Ok::<_, ImportError>(Call {
            id,
            name: name.to_owned(),
            arguments: f.arguments.json().into_owned(),
        })
    };
    let mut parsed = Vec::new();
    for (c, tool_call) in message.tool_calls.iter().enumerate() {
        let cat = format!("{at}.tool_calls[{c}]");
        if let Some(custom) = &tool_call.custom {
            // A custom tool takes free text: read as a function of one
            // `input` argument, so every API can be given it.
            out.noted(
                m,
                "custom tool call",
                format!("{cat}: a custom tool's call is read as a function call with its text as the `input` argument"),
            );
            parsed.push(Call {
                id: tool_call.id.clone().into_owned(),
                name: custom.name.clone().into_owned(),
                arguments: serde_json::json!({"input": custom.input}).to_string(),
            });
            continue;
        }
        // A call of a kind the SDK does not list (read as --keep-unknown
        // asks) is read as a function's: noted.
        match tool_call.tag.as_deref() {
            None | Some("function") => out.kept("function tool call"),
            Some(other) => out.noted(
                m,
                // As the audit counted it.
                &label_in(
                    &TOOL_CALL,
                    "tool call",
                    &serde_json::json!({ "type": other }),
                ),
                format!("{cat}: a {other:?} tool call is read as a function's"),
            ),
        }
        parsed.push(call(
            tool_call.id.clone().into_owned(),
            &tool_call.function,
            cat,
            "a tool call needs function.name",
        )?);
    }
    if let Some(f) = &message.function_call {
        parsed.push(call(
            format!("call_{m}_{}", message.tool_calls.len()),
            f,
            format!("{at}.function_call"),
            "a function call needs a name",
        )?);
    }
    let calls = parsed
        .iter()
        .map(|c| (c.id.clone(), c.name.clone()))
        .collect();
    Ok(ChatMessage::Calls(
        assistant_envelope(&text, &parsed, &[]),
        calls,
    ))
}

fn is_bridge(message: &Message<'_>) -> bool {
    message.role == Role::Assistant
        && matches!(&message.content, Some(TextOr::Text(text)) if text == BRIDGE)
        && message.tool_calls.is_empty()
}

/// If `message` is the media message of the batch (its parts, throughout,
/// a label then an `image_url` or `file` part), fold it back.
fn fold(
    message: &Message<'_>,
    at: &str,
    batch: &mut Batch,
    store: &mut dyn MediaStore,
) -> Result<bool, ImportError> {
    let Some(TextOr::Parts(parts)) = &message.content else {
        return Ok(false);
    };
    if !parts.len().is_multiple_of(2) {
        return Ok(false);
    }
    let mut pairs = Vec::new();
    for (i, pair) in parts.chunks(2).enumerate() {
        let Open::Known(Part::Text { text }) = &pair[0] else {
            return Ok(false);
        };
        let Some((kind, payload)) = media(&pair[1]) else {
            return Ok(false);
        };
        pairs.push((
            &**text,
            kind,
            payload,
            format!("{at}.content[{}]", 2 * i + 1),
        ));
    }
    batch.fold(pairs, "follows in the next user message", store)
}

/// An `image_url` or `file` part's kind and payload; `None` for another
/// part.
fn media<'p>(part: &'p Open<Part<'_>>) -> Option<(AttachmentKind, Payload<'p>)> {
    match part {
        Open::Known(Part::ImageUrl { image_url }) => {
            Some((AttachmentKind::Image, url_payload(image_url.url.text())))
        }
        Open::Known(Part::File { file }) => Some((
            AttachmentKind::Document,
            match (&file.file_data, &file.file_id) {
                (Some(data), _) => Payload::DataUrl(data.text()),
                // Kept as the provider file it is.
                (None, Some(id)) => Payload::Held(ProviderFile::new(Holder::OpenAi, &**id)),
                (None, None) => Payload::Missing("a file part needs file_data or file_id"),
            },
        )),
        _ => None,
    }
}

/// A `file` part's `filename`, when it has one.
fn part_name<'p>(part: &'p Open<Part<'_>>) -> Option<&'p str> {
    match part {
        Open::Known(Part::File { file }) => Some(&*file.filename).filter(|n| !n.is_empty()),
        _ => None,
    }
}

/// A user's message: its text, and its own media stored and declared as
/// the record's attachments.
fn user(
    m: usize,
    at: &str,
    content: Option<&Content<'_>>,
    store: &mut dyn MediaStore,
    notes: &mut ImportedHistory,
) -> Result<Record, ImportError> {
    let Some(TextOr::Parts(parts)) = content else {
        return Ok(Record::new(
            "user",
            text_of(m, at, Role::User, content, notes),
        ));
    };
    let mut text = UserText::default();
    for (p, part) in parts.iter().enumerate() {
        let pat = format!("{at}.content[{p}]");
        let what = part_what(Role::User, part);
        if let Open::Known(Part::Text { text: t }) = part {
            notes.kept(&what);
            text.text(t);
            continue;
        }
        match media(part) {
            Some((kind, payload)) => {
                let target = target(payload, &pat, store)?;
                text.media(notes, &what, kind, target, part_name(part));
            }
            None => left_out(
                notes,
                m,
                &pat,
                &what,
                "a user message holds text and its own images and files",
            ),
        }
    }
    Ok(text.into_record())
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
