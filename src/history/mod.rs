//! Reading histories: JSON Lines (one message a line, blank lines skipped)
//! or one JSON array of messages.
//!
//! # Record shapes
//!
//! Every record is an object with a string `role` and a string `content`;
//! where a round's attachments live is fixed by the grammar:
//!
//! | record | where its attachments are |
//! |---|---|
//! | `{"role":"tool","content":"{\"tool_call_id\":…,\"content\":…,\"attachments\":[…]}"}` — the native carrier | the envelope's `attachments`, inside `content` |
//! | `{"role":"user","content":"[Tool results]\n[Tool attachments: N]\n[IMAGE:…]…"}` — the prompt carrier | its N marker lines, at the top of `content` |
//! | `{"role":"user","content":"…","attachments":[…]}` — a user's own | the record's `attachments` member, beside `content` ([`Record`]) |
//! | `{"role":"assistant","content":"{\"content\":…,\"tool_calls\":[…]}"}` — the calls | none |
//!
//! Any record may carry `"cache": true` (once; `true` or `false`, else the
//! record is no message), and so may an attachment object: the caller's
//! prompt-cache mark, a breakpoint after that record's (or attachment's)
//! content where the request's API caches at marks
//! ([`AsRecord::cache`]).
//!
//! The attachment objects are the same in the envelope and the record
//! (`{"kind", "target", "name"?}`). Text never declares anything: a
//! `content` holding what looks like either member is text.
//!
//! [`HistoryReader`] splits a history into [`Chunk`]s: the records, and the
//! verbatim bytes between them (line feeds, blank lines, array punctuation).
//! Writing every chunk back in order gives the input byte for byte, which is
//! what lets migration change one string value and nothing else.
//!
//! JSON Lines are streamed a line at a time, so memory does not grow with
//! the history; a JSON array is read whole (see the README's limitations).
//!
//! Two inputs are refused rather than read record by record, each with an
//! [`InputError`] carried by an [`io::Error`] of kind
//! [`InvalidData`](io::ErrorKind::InvalidData):
//!
//! * **Binary data.** Before handing out anything, [`HistoryReader::new`]
//!   looks at the first record of a JSON Lines input: its first line that
//!   is not blank, up to the line feed and at most its first
//!   8 KiB. When those bytes hold a NUL byte, or a sequence
//!   that is not UTF-8 (a character cut by the 8 KiB mark is not
//!   counted), the input is no history: [`InputError::Binary`] names the
//!   input offset of the first such byte. JSON text never holds a raw NUL,
//!   and a first record that is not text means a file of another kind (an
//!   image, an archive, random bytes), where a report of every line would
//!   be noise. Later records that are not text are records that are not
//!   messages, as before, so one damaged line in a history does not stop
//!   it from being read. (A JSON array is read whole and is one bad record
//!   when it is not text.)
//! * **A record longer than the limit** ([`DEFAULT_MAX_RECORD`], or
//!   [`HistoryReader::with_max_record`]). The reader stops reading the
//!   line once it holds more than the limit and fails with
//!   [`InputError::TooLong`]; it does not skip to the next line, because a
//!   record cannot be handed back without its bytes and a copy missing a
//!   record would be a history changed. The error is final: every later
//!   call fails the same way. Memory stays within the limit and one buffer
//!   of the underlying reader. A JSON array, which is read whole, is held
//!   to the same limit as a whole ([`InputError::ArrayTooLong`]).

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::ops::Range;

use thiserror::Error;

use crate::json::diagnose::{self, Diagnosis};
use crate::json::scan;

/// How a history file is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One message object a line; blank lines are skipped.
    JsonLines,
    /// One JSON array of message objects.
    JsonArray,
}

/// One message `{role, content}`, read in place: the other members are
/// spans of the raw text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// The `role` member.
    pub role: Cow<'a, str>,
    /// The `content` member, decoded.
    pub content: Cow<'a, str>,
    /// Where the `content` string literal (quotes included) lies in the raw
    /// record text.
    pub content_span: Range<usize>,
    /// Where a user record's `attachments` array lies in the raw text (see
    /// [`Record`]).
    pub attachments: Option<Range<usize>>,
    /// Every other member: its name, and where its value lies in the raw
    /// text, in order.
    pub members: Vec<(Cow<'a, str>, Range<usize>)>,
}

/// Why a record is not a message.
///
/// Each text says the cause only, never "not a message" itself: whoever
/// shows it says what it is the cause of (`record 3 (line 4): not a
/// message: …`), once.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MessageError {
    /// The record is not valid UTF-8.
    #[error("invalid UTF-8 at byte {valid_up_to}")]
    InvalidUtf8 {
        /// Bytes of the record that are valid UTF-8.
        valid_up_to: usize,
    },
    /// The record is not valid JSON.
    #[error("invalid JSON at column {column}: {message}")]
    Json {
        /// 1-based column in the record's line.
        column: usize,
        /// What serde_json said.
        message: String,
    },
    /// Valid JSON, but not an object.
    #[error("expected a JSON object")]
    NotAnObject,
    /// A required member is absent.
    #[error("no {0:?} member")]
    Missing(&'static str),
    /// A member that must be a string is not.
    #[error("{0:?} is not a string")]
    NotAString(&'static str),
    /// A `role` or `content` string holds an escape that is no character
    /// (a lone surrogate).
    #[error("{0:?} holds a lone surrogate escape")]
    Undecodable(&'static str),
    /// `role`, `content` or `attachments` appears twice: readers disagree
    /// on which wins.
    #[error("{0:?} appears twice, and readers disagree on which wins")]
    Duplicate(&'static str),
    /// A member that must be an array is not.
    #[error("{0:?} is not an array")]
    NotAnArray(&'static str),
    /// A member that must be `true` or `false` is not.
    #[error("{0:?} is not true or false")]
    NotABoolean(&'static str),
    /// An `attachments` member on a record that is not a user's: a tool's
    /// attachments are declared inside its carrier, and no other role has
    /// any.
    #[error("an \"attachments\" member belongs to a user's record, not to a {0:?} record (a tool result declares its attachments inside its content)")]
    AttachmentsOutsideUser(String),
    /// An object without a `role` holding a provider request body's
    /// conversation member (`messages`, `contents`, `input`): a body, not
    /// a history's record.
    #[error("a provider's request body, not a message (it has {0:?}): read it as the provider it was written for (convert --from PROVIDER, import --from PROVIDER)")]
    RequestBody(&'static str),
    /// The whole JSON array could not be read, so it has no records.
    #[error("the JSON array cannot be read: {0}")]
    Array(String),
    /// A record spelled the OpenAI Chat way (`tool_calls`, `tool_call_id`,
    /// content parts or null) that cannot be read as a Chat message (see
    /// `import::read_records`, feature `media`).
    #[error("read as an OpenAI Chat message (record {index}), {at}: {what}")]
    OpenAiChat {
        /// Position among the records, from 0.
        index: usize,
        /// Where in the record, as a JSON path (`$.tool_calls[0]`).
        at: String,
        /// What is wrong.
        what: String,
    },
}

impl<'a> Message<'a> {
    /// Read one message object.
    ///
    /// # Errors
    /// [`MessageError`] saying why `raw` is not a message.
    ///
    /// # Example
    /// ```
    /// use tool_carrier::history::Message;
    ///
    /// let raw = r#"{"role":"tool","id":7,"content":"{\"content\":\"x\"}"}"#;
    /// let m = Message::parse(raw).unwrap();
    /// assert_eq!((m.role.as_ref(), m.content.as_ref()), ("tool", r#"{"content":"x"}"#));
    /// assert_eq!(&raw[m.content_span.clone()], r#""{\"content\":\"x\"}""#);
    /// ```
    pub fn parse(raw: &'a str) -> Result<Message<'a>, MessageError> {
        let all = scan::object(raw, &["role", "content"]).ok_or_else(|| why_not(raw))?;
        let (mut role, mut content, mut attachments) = (None, None, None);
        let mut members = Vec::new();
        for m in all {
            let (slot, name) = match m.key.as_ref() {
                "role" => (&mut role, "role"),
                "content" => (&mut content, "content"),
                "attachments" => (&mut attachments, "attachments"),
                _ => {
                    members.push((m.key, m.value));
                    continue;
                }
            };
            if slot.replace(m).is_some() {
                return Err(MessageError::Duplicate(name));
            }
        }
        let string = |member: Option<scan::Member<'a>>, name| {
            let m = member.ok_or(MessageError::Missing(name))?;
            match m.decoded {
                Some(text) => Ok((text, m.value)),
                None if raw.as_bytes()[m.value.start] == b'"' => {
                    Err(MessageError::Undecodable(name))
                }
                None => Err(MessageError::NotAString(name)),
            }
        };
        if role.is_none() {
            // The rare path: say what it is when it is a request body.
            const BODIES: [&str; 3] = ["messages", "contents", "input"];
            if let Some((name, _)) = members.iter().find(|(n, _)| BODIES.contains(&n.as_ref())) {
                let i = BODIES
                    .iter()
                    .position(|b| b == name)
                    .expect("found among them");
                return Err(MessageError::RequestBody(BODIES[i]));
            }
        }
        let (role, _) = string(role, "role")?;
        let (content, content_span) = string(content, "content")?;
        let attachments = match attachments {
            None => None,
            Some(_) if role != "user" => {
                return Err(MessageError::AttachmentsOutsideUser(role.into_owned()))
            }
            Some(m) if raw.as_bytes()[m.value.start] != b'[' => {
                return Err(MessageError::NotAnArray("attachments"))
            }
            Some(m) => Some(m.value),
        };
        // `cache` marks the record as the end of a prefix to cache: once,
        // and `true` or `false` (a record of another spelling would be a
        // mark one reader sees and another does not).
        let mut caches = members.iter().filter(|(name, _)| name == "cache");
        if let Some((_, span)) = caches.next() {
            if caches.next().is_some() {
                return Err(MessageError::Duplicate("cache"));
            }
            if !matches!(&raw[span.clone()], "true" | "false") {
                return Err(MessageError::NotABoolean("cache"));
            }
        }
        Ok(Message {
            role,
            content,
            content_span,
            attachments,
            members,
        })
    }
}

/// Why `raw` is not one JSON object, in serde_json's words and at its
/// column (the rare path, so the scan on the hot path need not track
/// positions).
fn why_not(raw: &str) -> MessageError {
    match diagnose::object(raw) {
        Diagnosis::NotAnObject => MessageError::NotAnObject,
        Diagnosis::Invalid { column, what, .. } => MessageError::Json {
            column,
            message: what.to_owned(),
        },
        // The scan and the diagnosis agree on what is valid (both are
        // tested against serde_json); should they ever not, say so rather
        // than guess.
        Diagnosis::Valid => MessageError::Json {
            column: 1,
            message: "not read the same by every JSON reader".into(),
        },
    }
}

/// A record that is not a message, with the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {error}")]
pub struct RecordError {
    /// 1-based line of the input where the record starts.
    pub line: usize,
    /// Why it is not a message.
    pub error: MessageError,
}

/// One record of a history as read, in place: its bytes, and the message
/// they hold or the reason they hold none.
#[derive(Debug)]
pub struct RawRecord<'a> {
    /// Position among the records, from 0 (blank lines are not records).
    pub index: usize,
    /// 1-based line of the input where the record starts.
    pub line: usize,
    /// The record's bytes, verbatim (a JSON Lines record without its `\n`).
    pub raw: &'a [u8],
    /// The message, or why the record is not one.
    pub message: Result<Message<'a>, RecordError>,
}

/// A piece of a history: a record or the bytes between records.
#[derive(Debug)]
pub enum Chunk<'a> {
    /// Bytes that belong to no record: line feeds, blank lines, white space
    /// and punctuation of a JSON array.
    Verbatim(&'a [u8]),
    /// One record.
    Record(RawRecord<'a>),
}

/// How many bytes of a JSON Lines input's first record
/// [`HistoryReader::new`] looks at to tell a history from binary data (see
/// the [module documentation](self)).
pub(crate) const SNIFF: usize = 8 << 10;

/// The longest record a [`HistoryReader`] holds unless told otherwise
/// ([`HistoryReader::with_max_record`]): 512 MiB.
pub const DEFAULT_MAX_RECORD: usize = 512 << 20;

/// Why a reader refused its input, carried by the [`io::Error`] (of kind
/// [`InvalidData`](io::ErrorKind::InvalidData)) that [`HistoryReader`] and
/// the functions reading through it return: see the [module
/// documentation](self). [`InputError::of`] gets it back.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum InputError {
    /// The first record of a JSON Lines input holds a NUL byte or bytes
    /// that are not UTF-8.
    #[error("not a JSON Lines history: binary data at byte {at}")]
    Binary {
        /// Offset in the input of the first such byte, from 0.
        at: u64,
    },
    /// The input starts with a UTF-8 byte order mark (`EF BB BF`), which
    /// JSON text may not begin with (RFC 8259, section 8.1).
    #[error("the input starts with a UTF-8 byte order mark (bytes EF BB BF at byte {at}), which JSON does not allow: save it without one")]
    ByteOrderMark {
        /// Offset of the mark, from 0 (after leading white space).
        at: u64,
    },
    /// One record is longer than the limit; reading stopped inside it.
    #[error("record {index} (line {line}) is longer than the {} limit", Size(*.limit))]
    TooLong {
        /// Position among the records, from 0.
        index: usize,
        /// 1-based line where the record starts.
        line: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// A JSON array, which is read whole, is longer than the limit.
    #[error("the JSON array is longer than the {} limit (an array is read whole)", Size(*.limit))]
    ArrayTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
}

impl InputError {
    /// The [`InputError`] an I/O error from a reader carries, if it is one.
    ///
    /// ```
    /// use tool_carrier::history::{HistoryReader, InputError};
    ///
    /// let err = HistoryReader::new(&b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..]).err().unwrap();
    /// assert_eq!(InputError::of(&err), Some(&InputError::Binary { at: 0 }));
    /// assert_eq!(err.to_string(), "not a JSON Lines history: binary data at byte 0");
    /// ```
    pub fn of(error: &io::Error) -> Option<&InputError> {
        error.get_ref()?.downcast_ref()
    }
}

impl From<InputError> for io::Error {
    fn from(e: InputError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }
}

/// A size in the largest binary unit it is a whole number of.
struct Size(usize);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
            write!(f, "{} MiB", n >> 20)
        } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
            write!(f, "{} KiB", n >> 10)
        } else {
            write!(f, "{n} bytes")
        }
    }
}

/// Why a history could not be read for conversion.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the input failed.
    #[error("{0}")]
    Io(#[source] io::Error),
    /// The input is no history, or holds a record longer than the limit:
    /// nothing more was read.
    #[error("{0}")]
    Input(InputError),
    /// Some records are not messages; nothing is converted from a partial
    /// history. Each error names its line and cause.
    #[error("{}", records_message(.0))]
    Records(Vec<RecordError>),
}

/// An I/O error is [`ReadError::Input`] when it carries an [`InputError`].
impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        match InputError::of(&e) {
            Some(input) => ReadError::Input(input.clone()),
            None => ReadError::Io(e),
        }
    }
}

fn records_message(errors: &[RecordError]) -> String {
    match errors {
        [] => "no records are wrong".to_owned(),
        [one] => format!("1 record is not a message: {one}"),
        [first, ..] => format!(
            "{} records are not messages (the first: {first})",
            errors.len()
        ),
    }
}

/// Read a history (JSON Lines or one JSON array of messages) into
/// [`Record`]s.
///
/// Only the crate's own records are messages here (`content` a string);
/// `import::read_records` (feature `media`) also reads records spelled the
/// OpenAI Chat way (`tool_calls`, `tool_call_id`, content parts or null).
///
/// # Errors
/// [`ReadError::Io`] from the reader; [`ReadError::Input`] for binary data
/// or a record longer than the limit (reading stops there);
/// [`ReadError::Records`] listing every record that is not a message.
///
/// # Example
/// ```
/// use tool_carrier::history;
///
/// let input = "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
/// let messages = history::read(input.as_bytes()).unwrap();
/// assert_eq!(messages, [("user", "hi"), ("assistant", "hello")]);
/// let err = history::read("{\"role\":1}".as_bytes()).unwrap_err();
/// assert_eq!(err.to_string(), "1 record is not a message: line 1: \"role\" is not a string");
/// let err = history::read(&b"\0\0\0 IHDR"[..]).unwrap_err();
/// assert_eq!(err.to_string(), "not a JSON Lines history: binary data at byte 0");
/// ```
pub fn read(input: impl IntoHistoryReader) -> Result<Vec<Record>, ReadError> {
    let mut reader = input.into_history_reader()?;
    let mut messages = Vec::new();
    let mut errors = Vec::new();
    while let Some(chunk) = reader.next_chunk()? {
        if let Chunk::Record(record) = chunk {
            match record.message {
                Ok(m) => messages.push(Record::of(&m, raw_text(record.raw))),
                Err(e) => errors.push(e),
            }
        }
    }
    if errors.is_empty() {
        Ok(messages)
    } else {
        Err(ReadError::Records(errors))
    }
}

/// The text of a record that parsed as a message (so it is UTF-8).
fn raw_text(raw: &[u8]) -> &str {
    std::str::from_utf8(raw).expect("a record that is a message is UTF-8")
}

mod reader;
mod record;
mod write;

#[cfg(feature = "media")]
pub(crate) use reader::read_line;
pub use reader::{HistoryReader, IntoHistoryReader};
pub use record::{AsRecord, Record};
#[cfg(feature = "media")]
pub(crate) use write::envelope;
pub use write::{ArgumentsError, AssistantTurn, MemberError, ToolCall, ToolResult, UserMessage};

#[cfg(test)]
mod tests;
