//! What `tool-carrier inspect` prints: every record of a history,
//! classified and opened at its fixed position.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use crate::carrier::{checked_records, Attachment, Carrier, Rejected};
use crate::history::{Chunk, IntoHistoryReader, RawRecord};
use crate::{classify, CarrierParts};

/// One line of `inspect --json` output.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum InspectLine<'a> {
    /// A message: `{"index","role","carrier"}` (`carrier` null for a
    /// message that is not a carrier), and `"attachments"` for a user's
    /// record that declares their own.
    Message {
        /// Position among the records, from 0.
        index: usize,
        /// The message's role.
        role: Cow<'a, str>,
        /// The opened carrier, if the message is one.
        carrier: Option<CarrierParts<'a>>,
        /// The user's own attachments: the record's `attachments` member
        /// (never its text).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment<'a>>,
        /// The items of a declaration (a native carrier's, or a user
        /// record's `attachments`) that declare no attachment (the grammar
        /// skips them, so neither `carrier` nor `attachments` shows them;
        /// `convert` makes each a failed attachment): their place in the
        /// array and why. Not written by [`write_json`].
        #[serde(skip)]
        rejected: Vec<(usize, Rejected)>,
    },
    /// A record that is not a message: `{"index","error"}`.
    Error {
        /// Position among the records, from 0.
        index: usize,
        /// The line it starts on and the cause.
        error: String,
    },
}

impl<'a> InspectLine<'a> {
    /// Classify one record. A record spelled the OpenAI Chat way is shown
    /// as the message it reads as (feature `media`, as
    /// `import::read_records` reads it): an assistant's calls are an
    /// assistant message, never a carrier; a `tool` record is the native
    /// carrier it becomes, its media declared.
    pub fn of(record: &'a RawRecord<'a>) -> InspectLine<'a> {
        #[cfg(feature = "media")]
        if let Some(line) = chat(record) {
            return line;
        }
        match &record.message {
            Ok(m) => {
                let mut rejected = rejected(&m.role, &m.content);
                let mut attachments = Vec::new();
                if let Some(span) = m.attachments.clone() {
                    // A message's record is UTF-8.
                    let raw = std::str::from_utf8(record.raw).unwrap_or_default();
                    split(checked_records(&raw[span]), &mut attachments, &mut rejected);
                }
                InspectLine::Message {
                    index: record.index,
                    role: Cow::Borrowed(&m.role),
                    carrier: classify(&m.role, &m.content),
                    attachments,
                    rejected,
                }
            }
            Err(e) => InspectLine::Error {
                index: record.index,
                error: e.to_string(),
            },
        }
    }
}

/// A declaration's items, split into the attachments they declare and the
/// places and reasons of those that declare none.
fn split<'a>(
    items: Vec<Result<Attachment<'a>, Rejected>>,
    attachments: &mut Vec<Attachment<'a>>,
    rejected: &mut Vec<(usize, Rejected)>,
) {
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Ok(a) => attachments.push(a),
            Err(why) => rejected.push((i, why)),
        }
    }
}

/// The items of a `tool` message's declaration that declare no attachment.
fn rejected(role: &str, content: &str) -> Vec<(usize, Rejected)> {
    if role != "tool" {
        return Vec::new();
    }
    let carrier = Carrier::native(content);
    if carrier.skipped == 0 {
        return Vec::new();
    }
    carrier
        .items(content)
        .into_iter()
        .enumerate()
        .filter_map(|(i, item)| item.err().map(|why| (i, why)))
        .collect()
}

/// A record spelled the OpenAI Chat way, read as `convert` reads it
/// (inline media as `data:` targets); `None` for the crate's own records.
#[cfg(feature = "media")]
fn chat(record: &RawRecord<'_>) -> Option<InspectLine<'static>> {
    use crate::history::RecordError;
    use crate::import::{read_chat, spelling, ReadRecordError, Spelling};

    let error = |error| InspectLine::Error {
        index: record.index,
        error: RecordError {
            line: record.line,
            error,
        }
        .to_string(),
    };
    let raw = std::str::from_utf8(record.raw).ok()?;
    let record_index = record.index;
    match spelling(raw, record.message.as_ref().map_err(|e| &e.error)) {
        Ok(Spelling::Carrier) => None,
        Err(e) => Some(error(e)),
        Ok(Spelling::OpenAiChat) => {
            Some(
                match read_chat(
                    record.index,
                    raw,
                    &mut crate::media::store::InlineStore,
                    &crate::import::ImportOptions::default(),
                ) {
                    Ok(m) => {
                        let record = &m.record;
                        let mut attachments = Vec::new();
                        let mut rejected = Vec::new();
                        split(record.declared(), &mut attachments, &mut rejected);
                        InspectLine::Message {
                            index: record_index,
                            role: Cow::Owned(record.role().to_owned()),
                            carrier: classify(record.role(), record.content())
                                .map(CarrierParts::into_owned),
                            attachments: attachments
                                .into_iter()
                                .map(Attachment::into_owned)
                                .collect(),
                            rejected,
                        }
                    }
                    Err(ReadRecordError::Message(e)) => error(e),
                    // The inline store writes nothing.
                    Err(ReadRecordError::Store(e)) => InspectLine::Error {
                        index: record.index,
                        error: format!("line {}: storing media: {e}", record.line),
                    },
                },
            )
        }
    }
}

/// Counts of an inspection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InspectSummary {
    /// Records read.
    pub records: usize,
    /// Records that are not messages.
    pub errors: usize,
    /// Carriers, declared and legacy.
    pub carriers: usize,
    /// Legacy carriers.
    pub legacy: usize,
}

impl InspectSummary {
    fn count(&mut self, line: &InspectLine<'_>) {
        self.records += 1;
        match line {
            InspectLine::Error { .. } => self.errors += 1,
            InspectLine::Message {
                carrier: Some(c), ..
            } => {
                self.carriers += 1;
                self.legacy += usize::from(!c.declared);
            }
            InspectLine::Message { carrier: None, .. } => {}
        }
    }
}

/// Write one JSON object a record (JSON Lines) for the history in `input`
/// (a `BufRead`, or a [`HistoryReader`](crate::history::HistoryReader) set
/// up with its limits). `progress` is called with the input bytes consumed
/// so far.
///
/// # Errors
/// I/O errors of `input` or `output`, and the reader's refusals
/// ([`InputError`](crate::history::InputError)). Records that are not
/// messages are written as `{"index","error"}` lines and counted, not
/// returned.
///
/// # Example
/// ```
/// let history = "{\"role\":\"user\",\"content\":\"[Tool results]\\n[Tool attachments: 0]\\nok\"}\n";
/// let mut out = Vec::new();
/// let summary = tool_carrier::inspect::write_json(history.as_bytes(), &mut out, |_| {}).unwrap();
/// assert_eq!(summary.carriers, 1);
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "{\"index\":0,\"role\":\"user\",\"carrier\":{\"kind\":\"prompt\",\"declared\":true,\"attachments\":[],\"body\":\"ok\"}}\n",
/// );
/// ```
pub fn write_json<W: Write>(
    input: impl IntoHistoryReader,
    mut output: W,
    mut progress: impl FnMut(u64),
) -> io::Result<InspectSummary> {
    let summary = for_each_line(input, &mut progress, |line| {
        serde_json::to_writer(&mut output, &line)?;
        output.write_all(b"\n")
    })?;
    output.flush()?;
    Ok(summary)
}

/// Call `each` with every record of the history in `input`, classified,
/// and count what was seen; `progress` is called with the input bytes
/// consumed so far. [`write_json`] is this with one JSON object a line;
/// the command's table is another writer on top of it.
///
/// # Errors
/// I/O errors of `input`, the reader's refusals
/// ([`InputError`](crate::history::InputError)), and whatever `each`
/// returns.
///
/// # Example
/// ```
/// let history = "{\"role\":\"user\",\"content\":\"hi\"}\nnot json\n";
/// let mut roles = Vec::new();
/// let summary = tool_carrier::inspect::for_each_line(history.as_bytes(), |_| {}, |line| {
///     if let tool_carrier::inspect::InspectLine::Message { role, .. } = line {
///         roles.push(role.to_string());
///     }
///     Ok(())
/// })?;
/// assert_eq!(roles, ["user"]);
/// assert_eq!((summary.records, summary.errors), (2, 1));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn for_each_line(
    input: impl IntoHistoryReader,
    mut progress: impl FnMut(u64),
    mut each: impl FnMut(&InspectLine<'_>) -> io::Result<()>,
) -> io::Result<InspectSummary> {
    let mut summary = InspectSummary::default();
    for_each_record(input, &mut progress, |record| {
        let line = InspectLine::of(record);
        summary.count(&line);
        each(&line)
    })?;
    Ok(summary)
}

fn for_each_record(
    input: impl IntoHistoryReader,
    progress: &mut impl FnMut(u64),
    mut each: impl FnMut(&RawRecord<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = input.into_history_reader()?;
    let mut last_report = 0;
    while let Some(chunk) = reader.next_chunk()? {
        if let Chunk::Record(record) = chunk {
            each(&record)?;
        }
        let consumed = reader.consumed();
        if consumed - last_report >= 1 << 20 {
            last_report = consumed;
            progress(consumed);
        }
    }
    progress(reader.consumed());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `inspect --json` of `history`: (records, errors, carriers, legacy)
    /// and the lines written.
    fn json_lines(history: &str) -> ((usize, usize, usize, usize), Vec<String>) {
        let mut out = Vec::new();
        let s = write_json(history.as_bytes(), &mut out, |_| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        (
            (s.records, s.errors, s.carriers, s.legacy),
            text.lines().map(str::to_owned).collect(),
        )
    }

    #[test]
    fn each_record_is_one_line_of_the_documented_shape() {
        let history = concat!(
            "{\"role\":\"tool\",\"content\":\"{\\\"content\\\":\\\"a\\\\n\\\\u0001\\u00e9\\\",\\\"attachments\\\":[{\\\"kind\\\":\\\"image\\\",\\\"target\\\":\\\"/s \\\\\\\"q\\\\\\\".png\\\"}]}\"}\n",
            "{\"role\":\"user\",\"content\":\"[Tool results]\\nold\"}\n",
            "{\"role\":\"r\\u00f4le\",\"content\":\"hi\"}\n",
            "not json\n",
        );
        let (counts, lines) = json_lines(history);
        assert_eq!(counts, (4, 1, 2, 1));
        assert_eq!(
            lines,
            [
                r#"{"index":0,"role":"tool","carrier":{"kind":"native","declared":true,"attachments":[{"kind":"image","target":"/s \"q\".png"}],"body":"a\n\u0001é"}}"#,
                r#"{"index":1,"role":"user","carrier":{"kind":"prompt","declared":false,"attachments":[],"body":"[Tool results]\nold"}}"#,
                r#"{"index":2,"role":"rôle","carrier":null}"#,
                r#"{"index":3,"error":"line 4: invalid JSON at column 2: expected ident"}"#,
            ]
        );
    }

    #[cfg(feature = "media")]
    #[test]
    fn records_spelled_the_chat_way_are_shown_as_convert_reads_them() {
        let history = concat!(
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}}]}"#,
            "\n",
            r#"{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"Saved."},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}"#,
            "\n",
            r#"{"role":"tool","tool_call_id":"c2","content":"plain"}"#,
            "\n",
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c3","function":{}}]}"#,
            "\n",
        );
        let (counts, lines) = json_lines(history);
        assert_eq!(counts, (4, 1, 2, 0));
        assert_eq!(
            lines[..3],
            [
                r#"{"index":0,"role":"assistant","carrier":null}"#,
                r#"{"index":1,"role":"tool","carrier":{"kind":"native","declared":true,"attachments":[{"kind":"image","target":"https://example.com/a.png"}],"body":"Saved."}}"#,
                r#"{"index":2,"role":"tool","carrier":{"kind":"native","declared":true,"attachments":[],"body":"plain"}}"#,
            ]
        );
        let error = crate::history::RecordError {
            line: 4,
            error: crate::history::MessageError::OpenAiChat {
                index: 3,
                at: "$.tool_calls[0]".into(),
                what: "a tool call needs function.name".into(),
            },
        };
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&lines[3]).unwrap(),
            serde_json::json!({"index": 3, "error": error.to_string()})
        );
    }
}
