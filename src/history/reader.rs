//! [`HistoryReader`]: a history split into records and the bytes between
//! them, streamed a line at a time (JSON Lines) or read whole (an array).

use std::io::{self, BufRead, Read};
use std::ops::Range;

use serde::de::IgnoredAny;

use crate::json::scan;

use super::{
    Chunk, Format, InputError, Message, MessageError, RawRecord, RecordError, DEFAULT_MAX_RECORD,
    SNIFF,
};

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
/// [module documentation](crate::history).
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
        /// UTF-8's byte order mark, which JSON text may not begin with
        /// (RFC 8259, section 8.1).
        const BOM: &[u8] = b"\xEF\xBB\xBF";
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
            if buf[blank..].starts_with(BOM) {
                return Err(InputError::ByteOrderMark {
                    at: lead.len() as u64,
                }
                .into());
            }
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
                    return Ok(Some(Chunk::Record(RawRecord {
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
/// use tool_carrier::history::{self, HistoryReader, ReadError};
///
/// let input = "{\"role\":\"user\",\"content\":\"hello\"}\n";
/// assert!(history::read(input.as_bytes()).is_ok());
/// let strict = HistoryReader::new(input.as_bytes()).unwrap().with_max_record(16);
/// assert!(matches!(history::read(strict), Err(ReadError::Input(_))));
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
fn fill<R: BufRead + ?Sized>(reader: &mut R) -> io::Result<&[u8]> {
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
pub(crate) fn read_line<R: BufRead + ?Sized>(
    reader: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<bool> {
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

fn record(index: usize, line: usize, raw: &[u8]) -> RawRecord<'_> {
    let message = match std::str::from_utf8(raw) {
        Ok(text) => Message::parse(text),
        Err(e) => Err(MessageError::InvalidUtf8 {
            valid_up_to: e.valid_up_to(),
        }),
    }
    .map_err(|error| RecordError { line, error });
    RawRecord {
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
