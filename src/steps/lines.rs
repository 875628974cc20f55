//! JSON Lines (newline-delimited JSON), split incrementally: bytes go in
//! as they arrive, in pieces cut anywhere (inside a line, inside a UTF-8
//! character, between a line's `\r` and its `\n`), and whole lines come
//! out, each with its number.
//!
//! The format is <https://jsonlines.org/> (read 2026-12-02): one JSON
//! value a line, UTF-8, lines ended by `\n` (a `\r` before it belongs to
//! the line end). Lines holding only white space are skipped (a blank line
//! between values is no value). A leading byte order mark is skipped.

use std::fmt;

/// One line: its number (from 1, blank lines counted) and its text
/// without the line end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// The line's number, from 1.
    pub number: usize,
    /// The text, without `\n` (or `\r\n`).
    pub text: String,
}

/// Bytes that are not UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LinesError {
    /// The line's number, from 1.
    pub line: usize,
}

impl fmt::Display for LinesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} is not UTF-8", self.line)
    }
}

/// The splitter (`default()` is at the start of a stream): feed it with
/// [`push`](LineSplitter::push), end with [`finish`](LineSplitter::finish).
#[derive(Debug, Default)]
pub(crate) struct LineSplitter {
    /// The bytes of the line not yet ended.
    line: Vec<u8>,
    /// Lines ended so far.
    lines: usize,
    /// Whether the first bytes have been seen (for the byte order mark).
    started: bool,
}

impl LineSplitter {
    /// Take `bytes`, returning the lines they end that are not blank, in
    /// order.
    ///
    /// # Errors
    /// [`LinesError`] for a line that is not UTF-8.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Line>, LinesError> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..at]);
            rest = &rest[at + 1..];
            self.lines += 1;
            let line = std::mem::take(&mut self.line);
            if let Some(line) = self.text(line)? {
                out.push(line);
            }
        }
        self.line.extend_from_slice(rest);
        Ok(out)
    }

    /// End the stream: the last line when no line end followed it (and it
    /// is not blank).
    ///
    /// # Errors
    /// [`LinesError`] for a last line that is not UTF-8.
    pub fn finish(mut self) -> Result<Option<Line>, LinesError> {
        if self.line.is_empty() {
            return Ok(None);
        }
        self.lines += 1;
        let line = std::mem::take(&mut self.line);
        self.text(line)
    }

    /// The ended line `bytes` as text, or `None` when it is blank.
    fn text(&mut self, mut bytes: Vec<u8>) -> Result<Option<Line>, LinesError> {
        if !self.started {
            self.started = true;
            if bytes.starts_with("\u{feff}".as_bytes()) {
                bytes.drain(..3);
            }
        }
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let text = String::from_utf8(bytes).map_err(|_| LinesError { line: self.lines })?;
        if text.trim().is_empty() {
            return Ok(None);
        }
        Ok(Some(Line {
            number: self.lines,
            text,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = "\u{feff}{\"a\":\"é\"}\r\n\n  \n{\"b\":2}\n{\"c\":3}";

    fn line(number: usize, text: &str) -> Line {
        Line {
            number,
            text: text.into(),
        }
    }

    #[test]
    fn lines_blank_lines_and_a_last_line_without_its_end() {
        let mut s = LineSplitter::default();
        let lines = s.push(STREAM.as_bytes()).unwrap();
        assert_eq!(lines, [line(1, "{\"a\":\"é\"}"), line(4, "{\"b\":2}")]);
        assert_eq!(s.finish().unwrap(), Some(line(5, "{\"c\":3}")));
    }

    #[test]
    fn every_split_point_gives_the_same_lines() {
        let bytes = STREAM.as_bytes();
        let mut whole = LineSplitter::default();
        let mut expected = whole.push(bytes).unwrap();
        expected.extend(whole.finish().unwrap());
        for i in 0..=bytes.len() {
            for j in i..=bytes.len() {
                let mut s = LineSplitter::default();
                let mut got = s.push(&bytes[..i]).unwrap();
                got.extend(s.push(&bytes[i..j]).unwrap());
                got.extend(s.push(&bytes[j..]).unwrap());
                got.extend(s.finish().unwrap());
                assert_eq!(got, expected, "split at {i} and {j}");
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_name_their_line() {
        let mut s = LineSplitter::default();
        assert_eq!(s.push(b"{}\n\"\xff\"\n"), Err(LinesError { line: 2 }));
        let mut s = LineSplitter::default();
        s.push(b"{}\n\xc3").unwrap();
        assert_eq!(s.finish(), Err(LinesError { line: 2 }));
    }
}
