//! A transcript's JSON Lines, a line at a time: each with its number and
//! where it starts in the input, so that a reader can say where a payload
//! stood ([`PayloadSpan`](crate::steps::imported::PayloadSpan)).

use std::io::BufRead;

use serde_json::Value;

use crate::steps::imported::ImportError;

/// The longest line read (a transcript line holds a whole tool result,
/// screenshots and all), as a history's longest record.
pub(crate) const MAX_LINE: usize = crate::history::DEFAULT_MAX_RECORD;

/// One line of JSON text.
pub(crate) struct Line<'a> {
    /// From 1.
    pub number: usize,
    /// The offset of its first byte in the input.
    pub start: u64,
    /// Its text, without the line feed.
    pub text: &'a str,
}

impl Line<'_> {
    /// The line's JSON value.
    ///
    /// # Errors
    /// [`ImportError::Invalid`] naming the line, for text that is no JSON.
    pub fn value(&self) -> Result<Value, ImportError> {
        serde_json::from_str(self.text).map_err(|e| {
            ImportError::at(&format!("line {}", self.number), format!("not JSON: {e}"))
        })
    }

    /// Where `path` (a JSON path from `$`) is read in this line.
    pub fn at(&self, path: &str) -> String {
        format!("line {}: {path}", self.number)
    }
}

/// The lines of `reader`, blank ones passed over.
pub(crate) struct Lines<'r> {
    reader: &'r mut dyn BufRead,
    buf: Vec<u8>,
    number: usize,
    offset: u64,
    limit: usize,
}

impl<'r> Lines<'r> {
    pub fn new(reader: &'r mut dyn BufRead) -> Lines<'r> {
        Lines::with_limit(reader, MAX_LINE)
    }

    pub fn with_limit(reader: &'r mut dyn BufRead, limit: usize) -> Lines<'r> {
        Lines {
            reader,
            buf: Vec::new(),
            number: 0,
            offset: 0,
            limit: limit.max(1),
        }
    }

    /// The next line that is not blank, or `None` at the end.
    ///
    /// # Errors
    /// [`ImportError::Read`] from the reader; [`ImportError::Invalid`] for
    /// a line longer than the limit, one that is not UTF-8, or a byte
    /// order mark.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, ImportError> {
        loop {
            self.buf.clear();
            let whole = crate::history::read_line(&mut *self.reader, &mut self.buf, self.limit)
                .map_err(ImportError::Read)?;
            self.number += 1;
            let at = format!("line {}", self.number);
            if !whole {
                return Err(ImportError::at(
                    &at,
                    format!("longer than the {} bytes limit", self.limit),
                ));
            }
            if self.buf.is_empty() {
                return Ok(None);
            }
            let start = self.offset;
            self.offset += self.buf.len() as u64;
            if start == 0 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                return Err(ImportError::at(
                    &at,
                    "the input starts with a UTF-8 byte order mark, which JSON does not allow",
                ));
            }
            let text = std::str::from_utf8(&self.buf).map_err(|e| {
                ImportError::at(
                    &at,
                    format!(
                        "not UTF-8: invalid byte at {}",
                        start + e.valid_up_to() as u64
                    ),
                )
            })?;
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            // The borrow checker wants the text taken again from `buf`.
            let len = text.len();
            let text = std::str::from_utf8(&self.buf[..len]).expect("checked above");
            return Ok(Some(Line {
                number: self.number,
                start,
                text,
            }));
        }
    }
}

impl Lines<'_> {
    /// The line last handed out, as the input had it, and everything after
    /// it: one JSON document over many lines. `(its line number, where it
    /// starts, the text)`.
    ///
    /// # Errors
    /// As [`Lines::next_line`], for the whole text.
    pub fn rest(&mut self) -> Result<(usize, u64, String), ImportError> {
        use std::io::Read;
        let start = self.offset - self.buf.len() as u64;
        let mut text = std::mem::take(&mut self.buf);
        let room = (self.limit as u64).saturating_sub(text.len() as u64);
        (&mut *self.reader)
            .take(room + 1)
            .read_to_end(&mut text)
            .map_err(ImportError::Read)?;
        let at = format!("line {}", self.number);
        if text.len() > self.limit {
            return Err(ImportError::at(
                &at,
                format!("a document longer than the {} bytes limit", self.limit),
            ));
        }
        let text = String::from_utf8(text).map_err(|e| {
            ImportError::at(
                &at,
                format!(
                    "not UTF-8: invalid byte at {}",
                    start + e.utf8_error().valid_up_to() as u64
                ),
            )
        })?;
        Ok((self.number, start, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], limit: usize) -> Result<Vec<(usize, u64, String)>, String> {
        let mut reader = input;
        let mut lines = Lines::with_limit(&mut reader, limit);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().map_err(|e| e.to_string())? {
            out.push((line.number, line.start, line.text.to_owned()));
        }
        Ok(out)
    }

    #[test]
    fn lines_keep_their_numbers_and_offsets() {
        let got = all(b"{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}", 100).unwrap();
        assert_eq!(
            got,
            [
                (1, 0, "{\"a\":1}".to_owned()),
                (4, 13, "{\"b\":2}".to_owned()),
                (5, 22, "{\"c\":3}".to_owned()),
            ]
        );
    }

    #[test]
    fn the_rest_is_the_last_line_as_it_was_and_what_follows() {
        let input = b"\n{\r\n  \"a\": 1\r\n\n}\n";
        let mut reader = &input[..];
        let mut lines = Lines::with_limit(&mut reader, 100);
        assert_eq!(lines.next_line().unwrap().unwrap().text, "{");
        let (number, start, text) = lines.rest().unwrap();
        assert_eq!((number, start), (2, 1));
        assert_eq!(text.as_bytes(), &input[1..]);
        let mut reader = &input[..];
        let mut lines = Lines::with_limit(&mut reader, 8);
        lines.next_line().unwrap();
        assert_eq!(
            lines.rest().unwrap_err().to_string(),
            "line 2: a document longer than the 8 bytes limit"
        );
    }

    #[test]
    fn bad_lines_are_errors_naming_them() {
        assert_eq!(
            all(b"{}\n{\"a\": \"0123456789\"}\n", 10).unwrap_err(),
            "line 2: longer than the 10 bytes limit"
        );
        assert_eq!(
            all(b"{}\n{\"a\":\"\xff\"}\n", 100).unwrap_err(),
            "line 2: not UTF-8: invalid byte at 9"
        );
        assert_eq!(
            all(b"\xEF\xBB\xBF{}\n", 100).unwrap_err(),
            "line 1: the input starts with a UTF-8 byte order mark, which JSON does not allow"
        );
    }
}
