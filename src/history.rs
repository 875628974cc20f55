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

use std::borrow::Cow;
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
    #[error("not a message: expected a JSON object")]
    NotAnObject,
    /// A required member is absent.
    #[error("not a message: no {0:?} member")]
    Missing(&'static str),
    /// A member that must be a string is not.
    #[error("not a message: {0:?} is not a string")]
    NotAString(&'static str),
    /// A `role` or `content` string holds an escape that is no character
    /// (a lone surrogate).
    #[error("not a message: {0:?} holds a lone surrogate escape")]
    Undecodable(&'static str),
    /// `role` or `content` appears twice: readers disagree on which wins.
    #[error("ambiguous message: {0:?} appears twice")]
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

enum State {
    Lines {
        line: Vec<u8>,
        /// Whether the last record's `\n` is still to be handed out.
        pending_newline: bool,
    },
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
/// assert_eq!(errors, ["line 3: not a message: no \"content\" member"]);
/// ```
pub struct HistoryReader<R> {
    reader: io::Chain<io::Cursor<Vec<u8>>, R>,
    state: State,
    format: Format,
    index: usize,
    line: usize,
    consumed: u64,
}

impl<R: BufRead> HistoryReader<R> {
    /// Look at the first non-blank byte to tell the format (`[` starts a
    /// JSON array), reading a JSON array whole.
    ///
    /// # Errors
    /// I/O errors of the reader.
    pub fn new(mut reader: R) -> io::Result<Self> {
        // Leading white space is taken off to find the first real byte and
        // handed back in front of the rest, so no byte is lost.
        let mut lead = Vec::new();
        let first = loop {
            let buf = reader.fill_buf()?;
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
        let mut reader = io::Cursor::new(lead).chain(reader);
        let state = match format {
            Format::JsonLines => State::Lines {
                line: Vec::new(),
                pending_newline: false,
            },
            Format::JsonArray => {
                let mut text = Vec::new();
                reader.read_to_end(&mut text)?;
                let records = array_spans(&text);
                State::Array {
                    text,
                    records,
                    next: 0,
                    at: 0,
                }
            }
        };
        Ok(HistoryReader {
            reader,
            state,
            format,
            index: 0,
            line: 1,
            consumed: 0,
        })
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
    /// I/O errors of the reader. Records that are not messages are not
    /// errors here: they come as records whose `message` is `Err`.
    pub fn next_chunk(&mut self) -> io::Result<Option<Chunk<'_>>> {
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
                let n = self.reader.read_until(b'\n', line)?;
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
    Io(#[from] io::Error),
    /// Some records are not messages; nothing is converted from a partial
    /// history. Each error names its line and cause.
    #[error("{}", records_message(.0))]
    Records(Vec<RecordError>),
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
/// [`ReadError::Io`] from the reader; [`ReadError::Records`] listing every
/// record that is not a message.
///
/// # Example
/// ```
/// use tool_carrier::history::read_history;
///
/// let input = "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
/// let messages = read_history(input.as_bytes()).unwrap();
/// assert_eq!(messages, [("user".into(), "hi".into()), ("assistant".into(), "hello".into())]);
/// let err = read_history("{\"role\":1}".as_bytes()).unwrap_err();
/// assert_eq!(err.to_string(), "1 record is not a message: line 1: not a message: \"role\" is not a string");
/// ```
pub fn read_history<R: BufRead>(reader: R) -> Result<Vec<(String, String)>, ReadError> {
    let mut reader = HistoryReader::new(reader)?;
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
                "line 3: not a message: expected a JSON object",
                "line 4: not a message: \"role\" is not a string",
                "line 5: not a message: \"content\" is not a string",
                "line 6: not a message: no \"role\" member",
                "line 7: invalid UTF-8 at byte 0",
                "line 8: ambiguous message: \"content\" appears twice",
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

    #[test]
    fn escaped_keys_count_as_role_and_content() {
        let (_, recs) = chunks(br#"{"r\u006fle":"user","c\u006fntent":"x"}"#);
        assert_eq!(recs[0].2, Ok(("user".into(), "x".into())));
    }
}
