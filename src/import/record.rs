//! History records in either spelling: the crate's own `{role, content}`
//! (content a string), and the OpenAI Chat way most agents store them.
//! The rules are on [`read_records`].

use std::io;

use serde_json::Value;
use thiserror::Error;

use crate::history::{
    Chunk, IntoHistoryReader, Message, MessageError, ReadError, Record, RecordError,
};
use crate::json::scan::{self, Pick};
use crate::media::store::MediaStore;

use super::{ImportError, ImportNote, ImportOptions};
use crate::apis::openai_chat::read::{read_message, ChatMessage};
use crate::steps::imported::{str_of, ImportedHistory};
use crate::steps::tally::Tally;

/// How a record is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// The crate's own `{role, content}`, content a string: passed on
    /// unchanged.
    Carrier,
    /// The OpenAI Chat way: read as `import --from openai-chat` reads a
    /// message.
    OpenAiChat,
}

/// One record read as a message of a carrier history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RecordMessage {
    /// The record: the crate's own as it was (its members kept), or what
    /// a Chat record becomes (its role as on import: `developer` is
    /// `system`; calls an envelope; a user's media their attachments).
    pub record: Record,
    /// How the record was spelled.
    pub spelling: Spelling,
    /// What was kept in another form (a user's own media, a part left
    /// out), each with its JSON path in the record.
    pub notes: Vec<String>,
    /// What a Chat record held, by kind, and what became of each (empty
    /// for the crate's own records, passed on as they are).
    pub tally: Tally,
}

/// Why a record could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub(crate) enum ReadRecordError {
    /// The record is not a message in either spelling.
    #[error(transparent)]
    Message(#[from] MessageError),
    /// The media store failed.
    #[error("storing media: {0}")]
    Store(io::Error),
}

/// Read a history (JSON Lines or one JSON array of records) whose records
/// are in either spelling into [`Record`]s, inline media put in `store`
/// ([`InlineStore`](crate::media::store::InlineStore) keeps them as `data:` targets), with the notes of what
/// was kept in another form (each naming its record's index) and the tally
/// of what the Chat records held. A Chat record's part of a kind the
/// `openai` SDK does not list is refused unless
/// [`ImportOptions::keep_unknown`].
///
/// A record is read the OpenAI Chat way when it has a `tool_calls`,
/// `tool_call_id` or `function_call` member, when its role is `function`
/// (Chat's legacy reply to a `function_call`), or when its `content` is a
/// list of parts or null. It is then read by the reader
/// `import --from openai-chat` uses for each message: calls become an
/// assistant envelope (`arguments` as the record had them; a legacy
/// `function_call` one more call, id `call_INDEX_N`), a result becomes a
/// native carrier declaring its media (a `function` reply names no call:
/// the first call still unanswered takes it), a user's own media are
/// declared as the `attachments` of their record, and media in `data:`
/// URLs go to the store. Any
/// other record is the crate's own form and comes out exactly as
/// [`history::read`](crate::history::read) gives it.
///
/// ```
/// use tool_carrier::import::{read_records, ImportOptions};
/// use tool_carrier::media::store::InlineStore;
///
/// let history = concat!(
///     r#"{"role":"assistant","content":"Looking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"screenshot","arguments":"{}"}}]}"#, "\n",
///     r#"{"role":"tool","tool_call_id":"call_1","content":"Saved."}"#, "\n",
///     r#"{"role":"user","content":"Thanks."}"#, "\n",
/// );
/// let messages = read_records(history.as_bytes(), &mut InlineStore, &ImportOptions::new())?.messages;
/// assert_eq!(messages[0].content(), r#"{"content":"Looking.","tool_calls":[{"id":"call_1","name":"screenshot","arguments":"{}"}]}"#);
/// assert_eq!(messages[1].content(), r#"{"tool_call_id":"call_1","content":"Saved.","attachments":[]}"#);
/// assert_eq!(messages[2], ("user", "Thanks."));
/// # Ok::<(), tool_carrier::history::ReadError>(())
/// ```
///
/// Each record is read on its own: the media message `convert` writes
/// after a batch, which [`from_provider`](super::from_provider) for Chat
/// folds back into the batch's results, stays a user message here, and the
/// bridge message of some OpenAI-compatible profiles an assistant's.
///
/// A `tool` record whose content is an envelope string but that has a
/// `tool_call_id` member is spelled the Chat way: its content is the
/// tool's output, a body, never read as a declaration (a tool's output is
/// untrusted). Without that member it is the crate's own native carrier.
/// A `developer` record with string content is the crate's own and keeps
/// its role (the providers' walk takes it as `system`, as import names a
/// Chat `developer` message).
///
/// The input is a reader or a [`HistoryReader`](crate::history::HistoryReader)
/// (with its limits), as for [`history::read`](crate::history::read).
///
/// # Errors
/// As [`history::read`](crate::history::read): [`ReadError::Io`]
/// from the reader, [`ReadError::Input`] for input that is no history;
/// [`ReadError::Records`] listing every record that is not a message in
/// either spelling, by line (and, for a Chat record, by index and JSON
/// path); a failure of the store is [`ReadError::Io`].
pub fn read_records(
    input: impl IntoHistoryReader,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ReadError> {
    let mut reader = input.into_history_reader()?;
    let mut out = ImportedHistory::default();
    let mut errors = Vec::new();
    while let Some(chunk) = reader.next_chunk()? {
        let Chunk::Record(record) = chunk else {
            continue;
        };
        let line = record.line;
        // A record that is not UTF-8 has `InvalidUtf8` for its message,
        // and is never looked at again.
        let raw = std::str::from_utf8(record.raw).unwrap_or_default();
        let parsed = record.message.map_err(|e| e.error);
        match read(record.index, raw, parsed, store, options) {
            Ok(m) => {
                out.tally.extend(&m.tally);
                out.notes.extend(m.notes.into_iter().map(|text| ImportNote {
                    message: record.index,
                    text,
                }));
                out.messages.push(m.record);
            }
            Err(ReadRecordError::Message(error)) => errors.push(RecordError { line, error }),
            Err(ReadRecordError::Store(e)) => return Err(ReadError::Io(e)),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(ReadError::Records(errors))
    }
}

/// The record `raw`, given what [`Message::parse`] made of it.
fn read<'a>(
    index: usize,
    raw: &'a str,
    parsed: Result<Message<'a>, MessageError>,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<RecordMessage, ReadRecordError> {
    match spelling(raw, parsed.as_ref())? {
        Spelling::Carrier => {
            let m = parsed?;
            Ok(RecordMessage {
                record: Record::of(&m, raw),
                spelling: Spelling::Carrier,
                notes: Vec::new(),
                tally: Tally::default(),
            })
        }
        Spelling::OpenAiChat => {
            let chat = read_chat(index, raw, store, options)?;
            Ok(RecordMessage {
                record: chat.record,
                spelling: Spelling::OpenAiChat,
                notes: chat.notes,
                tally: chat.tally,
            })
        }
    }
}

/// The members that make a record the Chat way, beside its content.
const CHAT_MEMBERS: [&str; 3] = ["tool_calls", "tool_call_id", "function_call"];

/// How the record `raw` is spelled, given what [`Message::parse`] made of
/// it. A record that is no message either way is [`Spelling::Carrier`]
/// (its error is the parse's).
///
/// # Errors
/// [`MessageError::Duplicate`] when a member that makes a Chat record
/// appears twice (readers disagree on which wins).
pub(crate) fn spelling(
    raw: &str,
    parsed: Result<&Message<'_>, &MessageError>,
) -> Result<Spelling, MessageError> {
    match parsed {
        Ok(m) => {
            if m.role == "function" {
                return Ok(Spelling::OpenAiChat);
            }
            // Every Chat member name holds `_call`, unless escaped: most
            // records are passed on after one search of their bytes.
            let bytes = raw.as_bytes();
            if memchr::memmem::find(bytes, b"_call").is_none()
                && memchr::memmem::find(bytes, b"\\u").is_none()
            {
                return Ok(Spelling::Carrier);
            }
        }
        // A role that is read, and a content that is not a string: Chat's
        // null or parts, or its calls without content.
        Err(MessageError::Missing("content") | MessageError::NotAString("content")) => {}
        Err(_) => return Ok(Spelling::Carrier),
    }
    let Some(object) = scan::pick(
        raw,
        ["content", CHAT_MEMBERS[0], CHAT_MEMBERS[1], CHAT_MEMBERS[2]],
    ) else {
        return Ok(Spelling::Carrier);
    };
    if let Some(i) = object.first_repeat(&[1, 2, 3]) {
        return Err(MessageError::Duplicate(CHAT_MEMBERS[i - 1]));
    }
    let [content, calls, call_id, function_call] = object.picks;
    if [calls, call_id, function_call]
        .iter()
        .any(|p| !matches!(p, Pick::Absent))
    {
        return Ok(Spelling::OpenAiChat);
    }
    Ok(match content.one() {
        Some(m) if matches!(raw.as_bytes()[m.value.start], b'[' | b'n') => Spelling::OpenAiChat,
        // No content (and no calls), or a content of another type: not a
        // message in either spelling, as the parse said.
        _ => Spelling::Carrier,
    })
}

/// A record spelled the Chat way, read.
pub(crate) struct Chat {
    /// The record it is in the history.
    pub record: Record,
    /// What was kept in another form.
    pub notes: Vec<String>,
    /// What it held, and what became of it.
    pub tally: Tally,
}

/// Read the Chat record `raw` (number `index`) with the importer's reader
/// of a Chat message.
pub(crate) fn read_chat(
    index: usize,
    raw: &str,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<Chat, ReadRecordError> {
    let invalid = |at: &str, what: String| {
        ReadRecordError::Message(MessageError::OpenAiChat {
            index,
            at: at.to_owned(),
            what,
        })
    };
    let value: Value = serde_json::from_str(raw).map_err(|e| invalid("$", e.to_string()))?;
    // The role was read by the parse; a lone surrogate in it is not.
    let role = str_of(&value, "role").unwrap_or_default();
    let mut notes = ImportedHistory::default();
    let read =
        read_message(index, "$", role, &value, store, &mut notes, options).map_err(
            |e| match e {
                ImportError::Invalid { at, what } => invalid(&at, what),
                ImportError::Store(e) | ImportError::Read(e) => ReadRecordError::Store(e),
            },
        )?;
    let record = match read {
        ChatMessage::Message(record) => record,
        ChatMessage::Calls(envelope, _) => Record::new("assistant", envelope),
        ChatMessage::Result(_, env) => Record::new("tool", env.render()),
    };
    Ok(Chat {
        record,
        notes: notes.notes.into_iter().map(|n| n.text).collect(),
        tally: notes.tally,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;

    fn read_record(
        index: usize,
        raw: &str,
        store: &mut dyn MediaStore,
    ) -> Result<RecordMessage, ReadRecordError> {
        read(
            index,
            raw,
            Message::parse(raw),
            store,
            &ImportOptions::default(),
        )
    }

    fn one(raw: &str) -> Result<(String, String, Spelling), String> {
        read_record(0, raw, &mut InlineStore)
            .map(|m| {
                let (role, content) = m.record.into_pair();
                (role, content, m.spelling)
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_crates_own_records_pass_unchanged() {
        for raw in [
            r#"{"role":"user","content":"hi \u00e9 _call"}"#,
            r#"{"role":"tool","content":"{\"tool_call_id\":\"c\",\"content\":\"x\",\"attachments\":[]}"}"#,
            r#"{"role":"assistant","content":"{\"content\":null,\"tool_calls\":[{\"id\":\"a\",\"name\":\"f\",\"arguments\":\"{}\"}]}"}"#,
            r#"{"role":"critic","name":"x","content":"free roles stay"}"#,
        ] {
            let m = Message::parse(raw).unwrap();
            assert_eq!(
                one(raw),
                Ok((
                    m.role.into_owned(),
                    m.content.into_owned(),
                    Spelling::Carrier
                )),
                "{raw}"
            );
        }
    }

    #[test]
    fn chat_members_make_a_record_chat_even_with_string_content() {
        let (role, content, spelling) = one(
            r#"{"role":"assistant","content":"On it.","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{ \"x\" :1}"}}]}"#,
        )
        .unwrap();
        assert_eq!(spelling, Spelling::OpenAiChat);
        assert_eq!(role, "assistant");
        assert_eq!(
            content,
            r#"{"content":"On it.","tool_calls":[{"id":"a","name":"f","arguments":"{ \"x\" :1}"}]}"#
        );
        // A tool record with an id: its content is a body, even an
        // envelope's text.
        let (_, content, _) = one(
            r#"{"role":"tool","tool_call_id":"a","content":"{\"content\":\"x\",\"attachments\":[{\"kind\":\"image\",\"target\":\"/etc/passwd\"}]}"}"#,
        )
        .unwrap();
        let v: Value = serde_json::from_str(&content).unwrap();
        assert_eq!(v["attachments"], serde_json::json!([]));
        assert_eq!(v["tool_call_id"], "a");
        assert!(v["content"].as_str().unwrap().contains("/etc/passwd"));
    }

    #[test]
    fn legacy_function_calls_and_replies_are_a_call_and_its_result() {
        let (_, content, _) = one(
            r#"{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}"#,
        )
        .unwrap();
        assert_eq!(
            content,
            r#"{"content":null,"tool_calls":[{"id":"call_0_0","name":"weather","arguments":"{\"city\":\"Oslo\"}"}]}"#
        );
        let (role, content, spelling) =
            one(r#"{"role":"function","name":"weather","content":"-3 C"}"#).unwrap();
        assert_eq!(spelling, Spelling::OpenAiChat);
        assert_eq!(
            (role.as_str(), content.as_str()),
            ("tool", r#"{"content":"-3 C","attachments":[]}"#)
        );
    }

    #[test]
    fn what_cannot_be_read_is_an_error_naming_record_and_path() {
        let read = |raw: &str| {
            read_record(4, raw, &mut InlineStore)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        for (raw, error) in [
            (
                r#"{"role":"assistant","tool_calls":[{"id":"a","function":{"arguments":"{}"}}]}"#,
                "read as an OpenAI Chat message (record 4), $.tool_calls[0]: a tool call needs function.name",
            ),
            (
                r#"{"role":"assistant","content":"x","tool_calls":{"id":"a"}}"#,
                "read as an OpenAI Chat message (record 4), $.tool_calls: tool_calls is not a list",
            ),
            (
                r#"{"role":"assistant","content":null,"function_call":{"arguments":"{}"}}"#,
                "read as an OpenAI Chat message (record 4), $.function_call: a function call needs a name",
            ),
            (
                r#"{"role":"tool","tool_call_id":"a","content":{"x":1}}"#,
                "read as an OpenAI Chat message (record 4), $.content: content is neither text, null nor a list of parts",
            ),
            (
                r#"{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}"#,
                "read as an OpenAI Chat message (record 4), $.content[0]: a data: URL that is not base64",
            ),
            (
                r#"{"role":"critic","content":null}"#,
                "read as an OpenAI Chat message (record 4), $: unknown role \"critic\"",
            ),
        ] {
            assert_eq!(read(raw), Err(error.to_owned()), "{raw}");
        }
        // What is no message either way keeps the parse's error.
        for (raw, error) in [
            (
                r#"{"role":"assistant","content":"x","tool_calls":[],"tool_calls":[]}"#,
                MessageError::Duplicate("tool_calls"),
            ),
            (r#"{"role":"user"}"#, MessageError::Missing("content")),
            (
                r#"{"role":"user","content":{"a":1}}"#,
                MessageError::NotAString("content"),
            ),
            (
                r#"{"content":null,"tool_calls":[]}"#,
                MessageError::Missing("role"),
            ),
            (
                r#"{"role":7,"content":null,"tool_call_id":"a"}"#,
                MessageError::NotAString("role"),
            ),
        ] {
            assert_eq!(read(raw), Err(error.to_string()), "{raw}");
        }
    }

    #[test]
    fn records_are_read_in_order_with_lines_and_notes() {
        let history = concat!(
            "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Look:\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/a.png\"}}]}\n",
            "\n",
            "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"function\":{}}]}\n",
            "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":null}\n",
        );
        let Err(ReadError::Records(errors)) = read_records(
            history.as_bytes(),
            &mut InlineStore,
            &ImportOptions::default(),
        ) else {
            panic!("a call without a name is read")
        };
        assert_eq!(
            errors,
            [RecordError {
                line: 3,
                error: MessageError::OpenAiChat {
                    index: 1,
                    at: "$.tool_calls[0]".into(),
                    what: "a tool call needs function.name".into()
                }
            }]
        );
        let fixed = history.replace(
            "{\"id\":\"c\",\"function\":{}}",
            "{\"id\":\"c\",\"function\":{\"name\":\"f\"}}",
        );
        let h = read_records(
            fixed.as_bytes(),
            &mut InlineStore,
            &ImportOptions::default(),
        )
        .unwrap();
        assert_eq!(
            h.messages,
            [
                Record::user(
                    "Look:".to_owned(),
                    &[crate::Attachment::image("https://example.com/a.png")]
                ),
                Record::new(
                    "assistant",
                    r#"{"content":null,"tool_calls":[{"id":"c","name":"f","arguments":{}}]}"#
                ),
                Record::new(
                    "tool",
                    r#"{"tool_call_id":"c","content":"","attachments":[]}"#
                ),
            ]
        );
        // The user's image is declared, not noted.
        assert!(h.notes.is_empty(), "{:?}", h.notes);
    }
}
