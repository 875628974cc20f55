//! Server-Sent Events, split incrementally: bytes go in as they arrive, in
//! pieces cut anywhere (inside a line, inside a UTF-8 character, between
//! the `\r` and `\n` of a line end), and whole events come out.
//!
//! The rules are the WHATWG HTML standard's event-stream interpretation,
//! <https://html.spec.whatwg.org/multipage/server-sent-events.html> (read
//! 2026-12-01), "Interpreting an event stream": a line ends at `\r\n`,
//! `\n` or `\r`; a line starting with `:` is a comment; `field: value`
//! loses one space after the colon; `data` lines are joined by `\n`; a
//! blank line dispatches the event. `id` and `retry` are read and dropped
//! (a response is read once, never resumed). A leading byte order mark is
//! skipped.

use std::fmt;

use crate::history::AssistantTurn;
use crate::steps::response::{ResponseError, ResponseStream};

/// One event: its name (`message` when the stream named none, as the
/// standard says) and its data lines joined by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event` field, or `message`.
    pub event: String,
    /// The `data` lines, joined by `\n`.
    pub data: String,
}

/// What a stream that stops early leaves behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SseTail {
    /// The stream ended at an event boundary (or held only comments).
    Clean,
    /// Fields were read for an event no blank line ended.
    Partial(SseEvent),
    /// The stream ended inside a line.
    Line(String),
}

/// Bytes that are not UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseError {
    /// The line's number, from 1.
    pub line: usize,
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} of the event stream is not UTF-8", self.line)
    }
}

impl std::error::Error for SseError {}

/// The splitter (`default()` is at the start of a stream). Feed it with [`push`](SseSplitter::push), end with
/// [`finish`](SseSplitter::finish).
#[derive(Debug, Default)]
pub struct SseSplitter {
    /// The bytes of the line not yet ended.
    line: Vec<u8>,
    /// The last byte pushed was a `\r` ending a line: a `\n` right after it
    /// belongs to that line end.
    after_cr: bool,
    /// Whether the first bytes have been seen (for the byte order mark).
    started: bool,
    lines: usize,
    event: Option<String>,
    data: Option<String>,
}

impl SseSplitter {
    /// Take `bytes`, returning the events they complete, in order.
    ///
    /// # Errors
    /// [`SseError`] for a line that is not UTF-8.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(at) = memchr::memchr2(b'\n', b'\r', rest) {
            self.line.extend_from_slice(&rest[..at]);
            if rest[at] == b'\r' {
                match rest.get(at + 1) {
                    Some(b'\n') => rest = &rest[at + 2..],
                    Some(_) => rest = &rest[at + 1..],
                    None => {
                        self.after_cr = true;
                        rest = &[];
                    }
                }
            } else {
                rest = &rest[at + 1..];
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_ended(&line)? {
                out.push(event);
            }
        }
        self.line.extend_from_slice(rest);
        Ok(out)
    }

    /// End the stream, saying what was left unfinished.
    ///
    /// # Errors
    /// [`SseError`] for a last line that is not UTF-8.
    pub fn finish(mut self) -> Result<SseTail, SseError> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.lines += 1;
            // A stream cut inside a character is cut short, not broken.
            let whole = match std::str::from_utf8(&line) {
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                _ => line.len(),
            };
            let text = self.text(&line[..whole])?;
            return Ok(SseTail::Line(text.to_owned()));
        }
        Ok(match (self.event.take(), self.data.take()) {
            (None, None) => SseTail::Clean,
            (event, data) => SseTail::Partial(SseEvent {
                event: event.unwrap_or_else(|| "message".into()),
                data: data.unwrap_or_default(),
            }),
        })
    }

    fn text<'l>(&mut self, line: &'l [u8]) -> Result<&'l str, SseError> {
        let mut line = line;
        if !self.started {
            self.started = true;
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        std::str::from_utf8(line).map_err(|_| SseError { line: self.lines })
    }

    fn line_ended(&mut self, line: &[u8]) -> Result<Option<SseEvent>, SseError> {
        self.lines += 1;
        let line = self.text(line)?;
        if line.is_empty() {
            let data = self.data.take();
            let event = self.event.take();
            // An event without data is not dispatched (the standard's rule).
            return Ok(data.map(|data| SseEvent {
                event: event.unwrap_or_else(|| "message".into()),
                data,
            }));
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
        Ok(None)
    }
}

/// What an API's SSE response reader does: read each event, and say what
/// the stream built once it ends. [`Sse`] feeds it.
pub(crate) trait Events: Default {
    /// Whether the data of a last event the stream cut off before its
    /// blank line is whole (then it is read).
    fn whole(data: &str) -> bool {
        whole_json(data)
    }

    /// Read one event.
    fn event(&mut self, event: &SseEvent) -> Result<(), ResponseError>;

    /// The assistant turn, once the stream ended; `half_line` is the line
    /// it stopped inside, if it did (for the error naming what it lacks).
    fn end(self, half_line: Option<String>) -> Result<AssistantTurn, ResponseError>;
}

/// An SSE response reader: the splitter and the first failure, which
/// every later call returns again, around an API's reading of its events.
#[derive(Debug, Default)]
pub(crate) struct Sse<T> {
    sse: SseSplitter,
    failed: Option<ResponseError>,
    events: T,
}

impl<T: Events> ResponseStream for Sse<T> {
    fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = match self.sse.push(bytes) {
            Ok(events) => events.iter().try_for_each(|e| self.events.event(e)),
            Err(e) => Err(ResponseError::Stream(e.to_string())),
        };
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    /// The failure a push met, else the last event if it was whole (whole
    /// lines with no blank line after them, as a file whose last blank
    /// line was dropped ends), then the API's end of the stream.
    fn finish(self: Box<Self>) -> Result<AssistantTurn, ResponseError> {
        let Sse {
            sse,
            failed,
            mut events,
        } = *self;
        if let Some(e) = failed {
            return Err(e);
        }
        let half_line = match sse.finish() {
            Err(e) => return Err(ResponseError::Stream(e.to_string())),
            Ok(SseTail::Partial(event)) => {
                if T::whole(&event.data) {
                    events.event(&event)?;
                }
                None
            }
            Ok(SseTail::Line(line)) => Some(line),
            Ok(SseTail::Clean) => None,
        };
        events.end(half_line)
    }
}

/// Whether an event's data is one whole JSON value.
pub(crate) fn whole_json(data: &str) -> bool {
    serde_json::from_str::<&serde_json::value::RawValue>(data).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = "\u{feff}: hello\r\nevent: a\r\ndata: é1\r\ndata:two\r\n\r\n\
                          data: plain\n\nevent: b\rdata: {\"x\": \"ü\"}\r\r";

    fn whole(bytes: &[u8]) -> Vec<SseEvent> {
        let mut s = SseSplitter::default();
        let events = s.push(bytes).unwrap();
        assert_eq!(s.finish().unwrap(), SseTail::Clean);
        events
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_lines_and_comments() {
        assert_eq!(
            whole(STREAM.as_bytes()),
            [
                ev("a", "é1\ntwo"),
                ev("message", "plain"),
                ev("b", "{\"x\": \"ü\"}")
            ]
        );
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let bytes = STREAM.as_bytes();
        let expected = whole(bytes);
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let mut s = SseSplitter::default();
                let mut got = s.push(&bytes[..i]).unwrap();
                got.extend(s.push(&bytes[i..j]).unwrap());
                got.extend(s.push(&bytes[j..]).unwrap());
                assert_eq!(got, expected, "split at {i} and {j}");
                assert_eq!(s.finish().unwrap(), SseTail::Clean);
            }
        }
    }

    #[test]
    fn a_byte_at_a_time() {
        let mut s = SseSplitter::default();
        let mut got = Vec::new();
        for b in STREAM.as_bytes() {
            got.extend(s.push(std::slice::from_ref(b)).unwrap());
        }
        assert_eq!(got, whole(STREAM.as_bytes()));
    }

    #[test]
    fn a_trailing_partial_event_or_line_is_reported() {
        let mut s = SseSplitter::default();
        assert!(s.push(b"event: x\ndata: 1\n").unwrap().is_empty());
        assert_eq!(s.finish().unwrap(), SseTail::Partial(ev("x", "1")));
        let mut s = SseSplitter::default();
        s.push(b"data: 1\n\ndata: {\"a").unwrap();
        assert_eq!(s.finish().unwrap(), SseTail::Line("data: {\"a".into()));
        // Cut inside a character: cut short, not broken.
        let mut s = SseSplitter::default();
        s.push("data: caf\u{e9}".as_bytes().split_last().unwrap().1)
            .unwrap();
        assert_eq!(s.finish().unwrap(), SseTail::Line("data: caf".into()));
        let mut s = SseSplitter::default();
        s.push(b"data: \xff!").unwrap();
        assert_eq!(s.finish(), Err(SseError { line: 1 }));
    }

    #[test]
    fn bytes_that_are_not_utf8_name_their_line() {
        let mut s = SseSplitter::default();
        assert_eq!(s.push(b"data: 1\ndata: \xff\n"), Err(SseError { line: 2 }));
    }
}
