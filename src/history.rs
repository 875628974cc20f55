//! Reading histories: JSON Lines (one message a line, blank lines skipped)
//! or one JSON array of messages.
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
//!   [`SNIFF`] bytes. When those bytes hold a NUL byte, or a sequence
//!   that is not UTF-8 (a character cut by the [`SNIFF`] mark is not
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
use std::io::{self, BufRead, Read};
use std::ops::Range;

use serde::de::IgnoredAny;
use thiserror::Error;

use crate::json::diagnose::{self, Diagnosis};
use crate::json::scan::{self, Pick};

/// How a history file is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One message object a line; blank lines are skipped.
    JsonLines,
    /// One JSON array of message objects.
    JsonArray,
}

/// One message `{role, content}`; other members are left in the raw text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// The `role` member.
    pub role: Cow<'a, str>,
    /// The `content` member, decoded.
    pub content: Cow<'a, str>,
    /// Where the `content` string literal (quotes included) lies in the raw
    /// record text.
    pub content_span: Range<usize>,
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
    /// `role` or `content` appears twice: readers disagree on which wins.
    #[error("{0:?} appears twice, and readers disagree on which wins")]
    Duplicate(&'static str),
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
        const NAMES: [&str; 2] = ["role", "content"];
        let object = scan::pick(raw, NAMES).ok_or_else(|| why_not(raw))?;
        if let Some(i) = object.first_repeat(&[0, 1]) {
            return Err(MessageError::Duplicate(NAMES[i]));
        }
        let [role, content] = object.picks;
        let string = |pick: Pick<'a>, name| {
            let m = pick.one().ok_or(MessageError::Missing(name))?;
            match m.decoded {
                Some(text) => Ok((text, m.value)),
                None if raw.as_bytes()[m.value.start] == b'"' => {
                    Err(MessageError::Undecodable(name))
                }
                None => Err(MessageError::NotAString(name)),
            }
        };
        let (role, _) = string(role, "role")?;
        let (content, content_span) = string(content, "content")?;
        Ok(Message {
            role,
            content,
            content_span,
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

/// One record of a history: a message, or the reason it is not one.
#[derive(Debug)]
pub struct Record<'a> {
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
    Record(Record<'a>),
}

/// How many bytes of a JSON Lines input's first record
/// [`HistoryReader::new`] looks at to tell a history from binary data (see
/// the [module documentation](self)).
pub const SNIFF: usize = 8 << 10;

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

enum State {
    Lines {
        line: Vec<u8>,
        /// Whether the last record's `\n` is still to be handed out.
        pending_newline: bool,
    },
    /// A JSON array not read yet (it is read at the first chunk, within
    /// the limit then in force).
    ArrayUnread,
    Array {
        text: Vec<u8>,
        /// Record spans in `text`, or `None` when the array cannot be read.
        records: Option<Vec<Range<usize>>>,
        next: usize,
        at: usize,
    },
}

/// Splits a history into [`Chunk`]s, streaming JSON Lines.
///
/// Binary input and records longer than a limit are refused: see the
/// [module documentation](self).
///
/// # Example
/// ```
/// use tool_carrier::history::{Chunk, HistoryReader};
///
/// let input = "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"tool\"}\n";
/// let mut reader = HistoryReader::new(input.as_bytes()).unwrap();
/// let mut copy = Vec::new();
/// let mut errors = Vec::new();
/// while let Some(chunk) = reader.next_chunk().unwrap() {
///     match chunk {
///         Chunk::Verbatim(bytes) => copy.extend_from_slice(bytes),
///         Chunk::Record(r) => {
///             copy.extend_from_slice(r.raw);
///             if let Err(e) = r.message {
///                 errors.push(e.to_string());
///             }
///         }
///     }
/// }
/// assert_eq!(copy, input.as_bytes());
/// assert_eq!(errors, ["line 3: no \"content\" member"]);
/// ```
pub struct HistoryReader<R> {
    reader: io::Chain<io::Cursor<Vec<u8>>, R>,
    state: State,
    format: Format,
    index: usize,
    line: usize,
    consumed: u64,
    max_record: usize,
    /// The error that ended the reading, handed out again on every call.
    failed: Option<InputError>,
}

impl<R: BufRead> HistoryReader<R> {
    /// Look at the first non-blank byte to tell the format (`[` starts a
    /// JSON array); for JSON Lines, look at the first record to tell a
    /// history from binary data.
    ///
    /// # Errors
    /// I/O errors of the reader, and [`InputError::Binary`] (in an
    /// [`io::Error`] of kind `InvalidData`) for binary data.
    pub fn new(mut reader: R) -> io::Result<Self> {
        // Leading white space is taken off to find the first real byte and
        // handed back in front of the rest, so no byte is lost.
        let mut lead = Vec::new();
        let first = loop {
            let buf = fill(&mut reader)?;
            if buf.is_empty() {
                break None;
            }
            let blank = buf.iter().take_while(|&&b| json_ws(b)).count();
            lead.extend_from_slice(&buf[..blank]);
            let first = buf.get(blank).copied();
            reader.consume(blank);
            if first.is_some() {
                break first;
            }
        };
        let format = if first == Some(b'[') {
            Format::JsonArray
        } else {
            Format::JsonLines
        };
        let state = match format {
            Format::JsonLines => {
                let start = lead.len();
                let cut = sniff_first_record(&mut reader, &mut lead)?;
                if let Some(at) = binary_at(&lead[start..], cut) {
                    return Err(InputError::Binary {
                        at: (start + at) as u64,
                    }
                    .into());
                }
                State::Lines {
                    line: Vec::new(),
                    pending_newline: false,
                }
            }
            Format::JsonArray => State::ArrayUnread,
        };
        Ok(HistoryReader {
            reader: io::Cursor::new(lead).chain(reader),
            state,
            format,
            index: 0,
            line: 1,
            consumed: 0,
            max_record: DEFAULT_MAX_RECORD,
            failed: None,
        })
    }

    /// Refuse records longer than `bytes` (without the line feed) instead
    /// of [`DEFAULT_MAX_RECORD`]; for a JSON array, an array longer than
    /// that. At least 1.
    ///
    /// ```
    /// use tool_carrier::history::{HistoryReader, InputError};
    ///
    /// let input = "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"user\",\"content\":\"a long one\"}\n";
    /// let mut reader = HistoryReader::new(input.as_bytes()).unwrap().with_max_record(32);
    /// assert!(reader.next_chunk().unwrap().is_some());
    /// assert!(reader.next_chunk().unwrap().is_some()); // the first line feed
    /// let err = reader.next_chunk().unwrap_err();
    /// assert_eq!(
    ///     InputError::of(&err),
    ///     Some(&InputError::TooLong { index: 1, line: 2, limit: 32 })
    /// );
    /// assert_eq!(err.to_string(), "record 1 (line 2) is longer than the 32 bytes limit");
    /// ```
    #[must_use]
    pub fn with_max_record(mut self, bytes: usize) -> Self {
        self.max_record = bytes.max(1);
        self
    }

    /// The longest record this reader holds.
    pub fn max_record(&self) -> usize {
        self.max_record
    }

    /// The layout found by [`HistoryReader::new`].
    pub fn format(&self) -> Format {
        self.format
    }

    /// Input bytes handed out so far (for a progress bar).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The next chunk, or `None` at the end of the input.
    ///
    /// # Errors
    /// I/O errors of the reader, and [`InputError::TooLong`] or
    /// [`InputError::ArrayTooLong`] (in an [`io::Error`] of kind
    /// `InvalidData`) for a record longer than the limit, after which every
    /// call fails the same way. Records that are not messages are not
    /// errors here: they come as records whose `message` is `Err`.
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk<'_>>> {
        if let Some(e) = &self.failed {
            return Err(e.clone().into());
        }
        if let State::ArrayUnread = self.state {
            let limit = self.max_record;
            let mut text = Vec::new();
            (&mut self.reader)
                .take(limit as u64 + 1)
                .read_to_end(&mut text)?;
            if text.len() > limit {
                return Err(self.fail(InputError::ArrayTooLong { limit }));
            }
            let records = array_spans(&text);
            self.state = State::Array {
                text,
                records,
                next: 0,
                at: 0,
            };
        }
        match &mut self.state {
            State::Lines {
                line,
                pending_newline,
            } => {
                if std::mem::take(pending_newline) {
                    self.consumed += 1;
                    self.line += 1;
                    return Ok(Some(Chunk::Verbatim(b"\n")));
                }
                line.clear();
                if !read_line(&mut self.reader, line, self.max_record)? {
                    let e = InputError::TooLong {
                        index: self.index,
                        line: self.line,
                        limit: self.max_record,
                    };
                    line.clear();
                    self.failed = Some(e.clone());
                    return Err(e.into());
                }
                let n = line.len();
                if n == 0 {
                    return Ok(None);
                }
                let newline = line.last() == Some(&b'\n');
                let body_len = line.len() - usize::from(newline);
                if line[..body_len].iter().all(|&b| json_ws(b)) {
                    self.consumed += n as u64;
                    self.line += usize::from(newline);
                    return Ok(Some(Chunk::Verbatim(line)));
                }
                *pending_newline = newline;
                self.consumed += body_len as u64;
                let raw = &line[..body_len];
                let index = self.index;
                self.index += 1;
                Ok(Some(Chunk::Record(record(index, self.line, raw))))
            }
            State::ArrayUnread => unreachable!("read above"),
            State::Array {
                text,
                records,
                next,
                at,
            } => {
                let Some(spans) = records else {
                    // One record: the whole unreadable input.
                    if *at > 0 || text.is_empty() {
                        return Ok(None);
                    }
                    *at = text.len();
                    self.consumed = text.len() as u64;
                    self.index = 1;
                    let error = match std::str::from_utf8(text) {
                        Err(e) => MessageError::InvalidUtf8 {
                            valid_up_to: e.valid_up_to(),
                        },
                        Ok(s) => match serde_json::from_str::<IgnoredAny>(s) {
                            Err(e) => MessageError::Array(e.to_string()),
                            Ok(_) => MessageError::Array("not an array".into()),
                        },
                    };
                    return Ok(Some(Chunk::Record(Record {
                        index: 0,
                        line: 1,
                        raw: text,
                        message: Err(RecordError { line: 1, error }),
                    })));
                };
                let gap_end = spans.get(*next).map_or(text.len(), |r| r.start);
                if *at < gap_end {
                    let gap = &text[*at..gap_end];
                    self.line += memchr::memchr_iter(b'\n', gap).count();
                    self.consumed += gap.len() as u64;
                    *at = gap_end;
                    return Ok(Some(Chunk::Verbatim(gap)));
                }
                let Some(span) = spans.get(*next).cloned() else {
                    return Ok(None);
                };
                *next += 1;
                *at = span.end;
                let raw = &text[span];
                let line = self.line;
                self.line += memchr::memchr_iter(b'\n', raw).count();
                self.consumed += raw.len() as u64;
                let index = self.index;
                self.index += 1;
                Ok(Some(Chunk::Record(record(index, line, raw))))
            }
        }
    }

    /// Keep `e` as the end of the reading, and hand it out.
    fn fail(&mut self, e: InputError) -> io::Error {
        self.failed = Some(e.clone());
        e.into()
    }
}

/// What the functions that read a history take: any [`BufRead`], read with
/// the default limits, or a [`HistoryReader`] set up beforehand (for
/// another limit: [`HistoryReader::with_max_record`]).
///
/// ```
/// use tool_carrier::history::{read_history, HistoryReader, ReadError};
///
/// let input = "{\"role\":\"user\",\"content\":\"hello\"}\n";
/// assert!(read_history(input.as_bytes()).is_ok());
/// let strict = HistoryReader::new(input.as_bytes()).unwrap().with_max_record(16);
/// assert!(matches!(read_history(strict), Err(ReadError::Input(_))));
/// ```
pub trait IntoHistoryReader {
    /// The reader under the [`HistoryReader`].
    type Reader: BufRead;

    /// The [`HistoryReader`] to read through.
    ///
    /// # Errors
    /// As [`HistoryReader::new`].
    fn into_history_reader(self) -> io::Result<HistoryReader<Self::Reader>>;
}

impl<R: BufRead> IntoHistoryReader for R {
    type Reader = R;

    fn into_history_reader(self) -> io::Result<HistoryReader<R>> {
        HistoryReader::new(self)
    }
}

impl<R: BufRead> IntoHistoryReader for HistoryReader<R> {
    type Reader = R;

    fn into_history_reader(self) -> io::Result<HistoryReader<R>> {
        Ok(self)
    }
}

/// `fill_buf`, retried when interrupted.
fn fill<R: BufRead>(reader: &mut R) -> io::Result<&[u8]> {
    // Retried here and asked again below: a slice returned from inside the
    // loop would keep the reader borrowed for the retry.
    loop {
        match reader.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    reader.fill_buf()
}

/// Move the first record's first [`SNIFF`] bytes (to its line feed, which
/// stays in `reader`) from `reader` to the end of `out`. Whether the
/// record went on past them.
fn sniff_first_record<R: BufRead>(reader: &mut R, out: &mut Vec<u8>) -> io::Result<bool> {
    let mut taken = 0;
    while taken < SNIFF {
        let buf = fill(reader)?;
        if buf.is_empty() {
            return Ok(false);
        }
        let buf = &buf[..buf.len().min(SNIFF - taken)];
        let (n, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        out.extend_from_slice(&buf[..n]);
        reader.consume(n);
        taken += n;
        if end {
            return Ok(false);
        }
    }
    // The record goes on unless the line feed comes right after.
    Ok(fill(reader)?.first().is_some_and(|&b| b != b'\n'))
}

/// Where `head` (the start of a record; `cut` when the record goes on past
/// it) stops being text: its first NUL byte or byte that is not UTF-8.
fn binary_at(head: &[u8], cut: bool) -> Option<usize> {
    let nul = memchr::memchr(0, head);
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => None,
        // A character the cut splits is not counted.
        Err(e) if cut && e.error_len().is_none() => None,
        Err(e) => Some(e.valid_up_to()),
    };
    match (nul, utf8) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Read one line, its `\n` included, into `line` (empty at the end of the
/// input); `false` when the line is longer than `limit` bytes before its
/// `\n`, in which case reading stopped inside it and `line` holds at most
/// `limit` bytes. The buffer grows by doubling but never past the limit,
/// so it holds at most `limit + 1` bytes.
fn read_line<R: BufRead>(reader: &mut R, line: &mut Vec<u8>, limit: usize) -> io::Result<bool> {
    loop {
        let buf = fill(reader)?;
        if buf.is_empty() {
            return Ok(true);
        }
        let (body, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if body > limit - line.len() {
            return Ok(false);
        }
        let take = body + usize::from(end);
        let need = line.len() + take;
        if need > line.capacity() {
            let grown = need.max(line.capacity() * 2).min(limit.saturating_add(1));
            line.reserve_exact(grown.max(need) - line.len());
        }
        line.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if end {
            return Ok(true);
        }
    }
}

/// JSON's white space: space, tab, line feed, carriage return (not form
/// feed, which `u8::is_ascii_whitespace` also takes).
fn json_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn record(index: usize, line: usize, raw: &[u8]) -> Record<'_> {
    let message = match std::str::from_utf8(raw) {
        Ok(text) => Message::parse(text),
        Err(e) => Err(MessageError::InvalidUtf8 {
            valid_up_to: e.valid_up_to(),
        }),
    }
    .map_err(|error| RecordError { line, error });
    Record {
        index,
        line,
        raw,
        message,
    }
}

/// The spans of the elements of the JSON array `text`, or `None` when it is
/// not one readable array: the envelope's scanner, on the whole input.
fn array_spans(text: &[u8]) -> Option<Vec<Range<usize>>> {
    scan::array(std::str::from_utf8(text).ok()?)
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
/// `(role, content)` pairs.
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
/// use tool_carrier::history::read_history;
///
/// let input = "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
/// let messages = read_history(input.as_bytes()).unwrap();
/// assert_eq!(messages, [("user".into(), "hi".into()), ("assistant".into(), "hello".into())]);
/// let err = read_history("{\"role\":1}".as_bytes()).unwrap_err();
/// assert_eq!(err.to_string(), "1 record is not a message: line 1: \"role\" is not a string");
/// let err = read_history(&b"\0\0\0 IHDR"[..]).unwrap_err();
/// assert_eq!(err.to_string(), "not a JSON Lines history: binary data at byte 0");
/// ```
pub fn read_history(input: impl IntoHistoryReader) -> Result<Vec<(String, String)>, ReadError> {
    let mut reader = input.into_history_reader()?;
    let mut messages = Vec::new();
    let mut errors = Vec::new();
    while let Some(chunk) = reader.next_chunk()? {
        if let Chunk::Record(record) = chunk {
            match record.message {
                Ok(m) => messages.push((m.role.into_owned(), m.content.into_owned())),
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

#[cfg(test)]
mod tests {
    use super::*;

    type Seen = (usize, usize, Result<(String, String), String>);

    fn chunks(input: &[u8]) -> (Vec<u8>, Vec<Seen>) {
        let mut reader = HistoryReader::new(input).unwrap();
        let mut copy = Vec::new();
        let mut records = Vec::new();
        while let Some(chunk) = reader.next_chunk().unwrap() {
            match chunk {
                Chunk::Verbatim(b) => copy.extend_from_slice(b),
                Chunk::Record(r) => {
                    copy.extend_from_slice(r.raw);
                    let m = r
                        .message
                        .map(|m| (m.role.into_owned(), m.content.into_owned()))
                        .map_err(|e| e.to_string());
                    records.push((r.index, r.line, m));
                }
            }
        }
        (copy, records)
    }

    #[test]
    fn json_lines_round_trip_and_skip_blank_lines() {
        let input =
            b"\n{\"role\":\"user\",\"content\":\"a\"}\r\n  \n{\"role\":\"tool\",\"content\":\"b\"}";
        let (copy, recs) = chunks(input);
        assert_eq!(copy, input);
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0], (0, 2, Ok(("user".into(), "a".into()))));
        assert_eq!(recs[1], (1, 4, Ok(("tool".into(), "b".into()))));
    }

    #[test]
    fn json_array_round_trips_with_element_spans() {
        let input = b" [\n {\"role\":\"user\",\"content\":\"a\"},\n\n {\"role\":\"tool\",\n \"content\":\"b\"} ]\n";
        let (copy, recs) = chunks(input);
        assert_eq!(copy, input);
        assert_eq!(recs[0], (0, 2, Ok(("user".into(), "a".into()))));
        assert_eq!(recs[1], (1, 4, Ok(("tool".into(), "b".into()))));
    }

    #[test]
    fn bad_records_name_line_and_cause() {
        let input = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\n[1]\n{\"role\":1,\"content\":\"x\"}\n{\"role\":\"u\",\"content\":2}\n{\"content\":\"x\"}\n\xff\xfe\n{\"role\":\"u\",\"content\":\"a\",\"content\":\"b\"}\n";
        let (copy, recs) = chunks(input);
        assert_eq!(copy, input);
        let errors: Vec<_> = recs.iter().filter_map(|r| r.2.clone().err()).collect();
        assert_eq!(
            errors,
            [
                "line 2: invalid JSON at column 15: EOF while parsing a value",
                "line 3: expected a JSON object",
                "line 4: \"role\" is not a string",
                "line 5: \"content\" is not a string",
                "line 6: no \"role\" member",
                "line 7: invalid UTF-8 at byte 0",
                "line 8: \"content\" appears twice, and readers disagree on which wins",
            ]
        );
    }

    #[test]
    fn an_unreadable_array_is_one_bad_record_kept_whole() {
        let input = b"[{\"role\":\"user\",\"content\":\"a\"},";
        let (copy, recs) = chunks(input);
        assert_eq!(copy, input);
        assert_eq!(recs.len(), 1);
        assert!(recs[0]
            .2
            .as_ref()
            .unwrap_err()
            .starts_with("line 1: the JSON array cannot be read: EOF"));
    }

    #[test]
    fn empty_input_has_no_records() {
        for input in [&b""[..], b"\n\n", b"   "] {
            let (copy, recs) = chunks(input);
            assert_eq!(copy, input);
            assert!(recs.is_empty());
        }
        let (_, recs) = chunks(b"[]");
        assert!(recs.is_empty());
    }

    fn input_error(e: &io::Error) -> InputError {
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        InputError::of(e).cloned().expect("an InputError")
    }

    #[test]
    fn a_first_record_that_is_not_text_is_binary_at_its_first_bad_byte() {
        for (input, at) in [
            (&b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..], 0),
            (b"{\"role\":\"user\0\"}\n", 13),
            (b"\n \n{\"a\":\"\xff\"}\n", 9),
            (b"  \t{\"a\":\"\xc3\"}", 9),
            (b"PK\x03\x04\x14\0\x06", 5),
        ] {
            let err = HistoryReader::new(input).err().expect("refused");
            assert_eq!(input_error(&err), InputError::Binary { at }, "{input:?}");
            assert_eq!(
                err.to_string(),
                format!("not a JSON Lines history: binary data at byte {at}")
            );
        }
        assert!(matches!(
            read_history(&b"\0"[..]),
            Err(ReadError::Input(InputError::Binary { at: 0 }))
        ));
    }

    #[test]
    fn only_the_first_records_first_8_kib_are_sniffed() {
        // A character the window cuts is not binary data.
        let mut input = b"{\"role\":\"user\",\"content\":\"".to_vec();
        input.resize(SNIFF - 1, b'a');
        input.extend_from_slice("é\"}\n".as_bytes());
        let (copy, recs) = chunks(&input);
        assert_eq!(copy, input);
        assert!(recs[0].2.is_ok(), "{:?}", recs[0].2);
        // Bytes past the window of the first record, and later records,
        // are records that are not messages.
        let mut input = b"{\"role\":\"user\",\"content\":\"".to_vec();
        input.resize(SNIFF + 10, b'a');
        input.extend_from_slice(b"\0\"}\n\xff\xfe\n\0\n");
        let (copy, recs) = chunks(&input);
        assert_eq!(copy, input);
        assert_eq!(recs.len(), 3);
        assert!(recs.iter().all(|r| r.2.is_err()));
        // A JSON array is one bad record.
        let (_, recs) = chunks(b"[\0\xff]");
        assert_eq!(recs[0].2, Err("line 1: invalid UTF-8 at byte 2".into()));
    }

    /// A history whose second record is `len` bytes long, made as it is
    /// read, counting the bytes handed out.
    struct LongLine {
        head: Vec<u8>,
        len: u64,
        at: u64,
        buf: Vec<u8>,
        handed: u64,
    }

    impl LongLine {
        const FIRST: &'static [u8] = b"{\"role\":\"user\",\"content\":\"a\"}\n";

        fn new(len: u64) -> LongLine {
            let mut head = LongLine::FIRST.to_vec();
            head.extend_from_slice(b"{\"role\":\"user\",\"content\":\"");
            LongLine {
                head,
                len,
                at: 0,
                buf: Vec::new(),
                handed: 0,
            }
        }

        fn byte(&self, i: u64) -> Option<u8> {
            let head = self.head.len() as u64;
            let tail = b"\"}\n{\"role\":\"user\",\"content\":\"b\"}\n";
            // The long record ends with the tail's first two bytes.
            let x_end = LongLine::FIRST.len() as u64 + self.len - 2;
            if i < head {
                Some(self.head[i as usize])
            } else if i < x_end {
                Some(b'x')
            } else {
                tail.get((i - x_end) as usize).copied()
            }
        }
    }

    impl Read for LongLine {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = {
                let buf = self.fill_buf()?;
                let n = buf.len().min(out.len());
                out[..n].copy_from_slice(&buf[..n]);
                n
            };
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for LongLine {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if self.buf.is_empty() {
                self.buf = (self.at..self.at + 4096)
                    .map_while(|i| self.byte(i))
                    .collect();
            }
            Ok(&self.buf)
        }

        fn consume(&mut self, n: usize) {
            self.buf.drain(..n);
            self.at += n as u64;
            self.handed += n as u64;
        }
    }

    #[test]
    fn the_long_line_source_is_the_history_it_says() {
        let mut text = String::new();
        LongLine::new(100).read_to_string(&mut text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].len(), 100);
        assert!(Message::parse(lines[1]).is_ok());
    }

    #[test]
    fn a_record_longer_than_the_limit_stops_the_reader_inside_it() {
        let mut source = LongLine::new(100 << 20);
        let limit = 1024;
        let mut reader = HistoryReader::new(&mut source)
            .unwrap()
            .with_max_record(limit);
        assert!(matches!(reader.next_chunk(), Ok(Some(Chunk::Record(_)))));
        assert!(matches!(
            reader.next_chunk(),
            Ok(Some(Chunk::Verbatim(b"\n")))
        ));
        let err = reader.next_chunk().unwrap_err();
        let want = InputError::TooLong {
            index: 1,
            line: 2,
            limit,
        };
        assert_eq!(input_error(&err), want);
        assert_eq!(
            err.to_string(),
            "record 1 (line 2) is longer than the 1 KiB limit"
        );
        // The error is final.
        assert_eq!(input_error(&reader.next_chunk().unwrap_err()), want);
        drop(reader);
        // Reading stopped within the limit and one buffer of the source:
        // the rest of the 100 MB line was never asked for.
        let bound = (LongLine::FIRST.len() + limit + 4096) as u64;
        assert!(source.handed <= bound, "{} > {bound}", source.handed);
    }

    #[test]
    fn a_record_of_exactly_the_limit_is_read() {
        let read = |len: u64, limit: usize| {
            let mut reader = HistoryReader::new(LongLine::new(len))
                .unwrap()
                .with_max_record(limit);
            let mut records = 0;
            loop {
                match reader.next_chunk() {
                    Ok(None) => return Ok(records),
                    Ok(Some(Chunk::Record(r))) => {
                        assert!(r.message.is_ok());
                        records += 1;
                    }
                    Ok(Some(Chunk::Verbatim(_))) => {}
                    Err(e) => return Err(input_error(&e)),
                }
            }
        };
        assert_eq!(read(5000, 5000), Ok(3));
        assert_eq!(
            read(5001, 5000),
            Err(InputError::TooLong {
                index: 1,
                line: 2,
                limit: 5000
            })
        );
        // The default holds 512 MiB.
        assert_eq!(
            HistoryReader::new(&b""[..]).unwrap().max_record(),
            DEFAULT_MAX_RECORD
        );
    }

    #[test]
    fn a_json_array_is_held_to_the_limit_as_a_whole() {
        let input = b"[{\"role\":\"user\",\"content\":\"a\"}]";
        let mut reader = HistoryReader::new(&input[..])
            .unwrap()
            .with_max_record(input.len());
        while reader.next_chunk().unwrap().is_some() {}
        let mut reader = HistoryReader::new(&input[..])
            .unwrap()
            .with_max_record(input.len() - 1);
        let err = reader.next_chunk().unwrap_err();
        assert_eq!(
            input_error(&err),
            InputError::ArrayTooLong {
                limit: input.len() - 1
            }
        );
        let strict = HistoryReader::new(&input[..]).unwrap().with_max_record(8);
        assert_eq!(
            read_history(strict).unwrap_err().to_string(),
            "the JSON array is longer than the 8 bytes limit (an array is read whole)"
        );
    }

    #[test]
    fn sizes_are_said_in_the_largest_whole_unit() {
        assert_eq!(Size(512 << 20).to_string(), "512 MiB");
        assert_eq!(Size(1024).to_string(), "1 KiB");
        assert_eq!(Size(1536).to_string(), "1536 bytes");
        assert_eq!(Size(3 << 30).to_string(), "3072 MiB");
    }

    #[test]
    fn cause_texts_never_say_not_a_message() {
        let (_, recs) = chunks(b"[1]\n{\"role\":1}\n{}\n{\"role\":\"\\ud800\",\"content\":\"\"}\n");
        for (_, _, r) in recs {
            let e = r.unwrap_err();
            assert!(!e.contains("message"), "{e}");
        }
    }

    #[test]
    fn escaped_keys_count_as_role_and_content() {
        let (_, recs) = chunks(br#"{"r\u006fle":"user","c\u006fntent":"x"}"#);
        assert_eq!(recs[0].2, Ok(("user".into(), "x".into())));
    }
}
