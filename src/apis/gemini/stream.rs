//! A Gemini `streamGenerateContent` stream read into the same assistant
//! record as the non-streamed body of that message.
//!
//! With `alt=sse` the stream is Server-Sent Events whose `data` is each a
//! `GenerateContentResponse` chunk
//! (<https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent>
//! and <https://ai.google.dev/gemini-api/docs/text-generation#streaming-responses>,
//! read 2026-12-02); without it, the same chunks come as one JSON array.
//! Both are read: the form is told by the first byte that is not white
//! space (`[` an array, `{` a single chunk, else events). An array is held
//! whole and read when the stream ends (a JSON array has no boundaries to
//! read at before); events are read as they complete.
//!
//! Chunks add up: text arrives in pieces, each appended to the text part
//! before it of the same kind (answer or thought); a function call
//! arrives whole in a chunk; a thought signature may arrive on a piece of
//! its own, even on an empty text part, and goes on the part it follows;
//! the last chunk has `finishReason` and the final `usageMetadata` (each
//! chunk's usage replaces the one before). A stream whose chunks carry no
//! `finishReason` was cut.

use crate::history::AssistantTurn;
use crate::steps::response::{lacking, ResponseError, ResponseStream};
use crate::steps::sse::{SseSplitter, SseTail};

use super::response::Reading;

/// Reads a Gemini stream as its bytes arrive:
/// [`push`](GeminiStream::push) them in pieces cut anywhere, then
/// [`finish`](GeminiStream::finish).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::Gemini)?;
/// stream.push(b"data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"Hel\"}]}}]}\r\n\r\n")?;
/// stream.push(b"data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"lo\"}]}, \"finishReason\": \"STOP\"}]}\r\n\r\n")?;
/// let turn = stream.finish()?;
/// assert_eq!(turn.text(), "Hello");
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
#[derive(Debug)]
pub struct GeminiStream {
    form: Form,
    sse: SseSplitter,
    /// The bytes of an array (or single chunk) form, or those seen before
    /// the form was told.
    held: Vec<u8>,
    events: usize,
    reading: Reading,
    /// The first error: every later call returns it again.
    failed: Option<ResponseError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// No byte but white space (or a byte order mark) yet.
    Untold,
    Events,
    /// A JSON array of chunks, or one chunk alone.
    Json,
}

impl Default for GeminiStream {
    fn default() -> GeminiStream {
        GeminiStream {
            form: Form::Untold,
            sse: SseSplitter::default(),
            held: Vec::new(),
            events: 0,
            reading: Reading::new(true),
            failed: None,
        }
    }
}

impl GeminiStream {
    /// A reader at the start of a stream.
    pub fn new() -> GeminiStream {
        GeminiStream::default()
    }

    /// Take the next bytes of the stream.
    ///
    /// # Errors
    /// [`ResponseError`]: an error chunk, a blocked prompt, a chunk of a
    /// broken shape, or bytes that are not UTF-8. Once failed, every call
    /// fails the same.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.take(bytes);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    fn take(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        match self.form {
            Form::Json => {
                self.held.extend_from_slice(bytes);
                Ok(())
            }
            Form::Events => self.events(bytes),
            Form::Untold => {
                self.held.extend_from_slice(bytes);
                let first = self
                    .held
                    .iter()
                    .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0xef | 0xbb | 0xbf));
                match first {
                    None => Ok(()),
                    Some(b'[' | b'{') => {
                        self.form = Form::Json;
                        Ok(())
                    }
                    Some(_) => {
                        self.form = Form::Events;
                        let held = std::mem::take(&mut self.held);
                        self.events(&held)
                    }
                }
            }
        }
    }

    fn events(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        let events = self
            .sse
            .push(bytes)
            .map_err(|e| ResponseError::Stream(e.to_string()))?;
        for event in events {
            self.event(&event.data)?;
        }
        Ok(())
    }

    fn event(&mut self, data: &str) -> Result<(), ResponseError> {
        self.events += 1;
        self.reading.chunk(data, &format!("event {}", self.events))
    }

    /// End the stream: the assistant turn.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] naming what the stream lacks (a chunk
    /// with `finishReason`, the rest of a line or of the array), or the
    /// error a push returned.
    pub fn finish(mut self) -> Result<AssistantTurn, ResponseError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let mut cut = None;
        match self.form {
            Form::Untold => {}
            Form::Json => self.json()?,
            Form::Events => {
                let sse = std::mem::take(&mut self.sse);
                match sse.finish() {
                    Err(e) => return Err(ResponseError::Stream(e.to_string())),
                    // Lines with no blank line after them: the event stands
                    // when its data is whole JSON; else it was cut.
                    Ok(SseTail::Partial(event)) => {
                        if serde_json::from_str::<&serde_json::value::RawValue>(&event.data).is_ok()
                        {
                            self.event(&event.data)?;
                        } else {
                            cut = Some(format!("the rest of the event {:?}", event.data));
                        }
                    }
                    Ok(SseTail::Line(line)) => {
                        cut = Some(format!("the rest of the line {line:?}"));
                    }
                    Ok(SseTail::Clean) => {}
                }
            }
        }
        let mut missing = Vec::new();
        if !self.reading.finished {
            missing.push("a chunk with finishReason".to_owned());
        }
        missing.extend(cut);
        lacking(missing, None)?;
        self.reading.turn()
    }

    /// The array (or single chunk) form, held whole: each chunk read.
    fn json(&mut self) -> Result<(), ResponseError> {
        let held = std::mem::take(&mut self.held);
        let text = String::from_utf8(held)
            .map_err(|_| ResponseError::Stream("the JSON chunks are not UTF-8".into()))?;
        let text = text.trim_start_matches('\u{feff}');
        if text.trim_start().starts_with('{') {
            return self.reading.chunk(text, "the only chunk");
        }
        let chunks: Vec<&serde_json::value::RawValue> =
            serde_json::from_str(text).map_err(|e| {
                if e.classify() == serde_json::error::Category::Eof {
                    ResponseError::Truncated {
                        missing: "a chunk with finishReason and the rest of the JSON array of chunks (its closing `]`)".into(),
                    }
                } else {
                    ResponseError::Shape {
                        at: "the JSON array of chunks".into(),
                        reason: e.to_string(),
                    }
                }
            })?;
        for (i, chunk) in chunks.into_iter().enumerate() {
            self.reading
                .chunk(chunk.get(), &format!("chunk {} of the array", i + 1))?;
        }
        Ok(())
    }
}

impl ResponseStream for GeminiStream {
    fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        GeminiStream::push(self, bytes)
    }

    fn finish(self: Box<Self>) -> Result<AssistantTurn, ResponseError> {
        GeminiStream::finish(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHUNKS: [&str; 3] = [
        r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me", "thought": true}]}}]}"#,
        r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": " look.", "thought": true}, {"text": "Done"}]}}]}"#,
        r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": "c2ln"}]}, "finishReason": "STOP"}], "usageMetadata": {"totalTokenCount": 3}}"#,
    ];

    fn events() -> String {
        CHUNKS
            .iter()
            .map(|c| format!("data: {c}\r\n\r\n"))
            .collect()
    }

    fn read(text: &str) -> Result<AssistantTurn, ResponseError> {
        let mut stream = GeminiStream::new();
        stream.push(text.as_bytes())?;
        stream.finish()
    }

    #[test]
    fn pieces_add_up_and_a_late_signature_goes_on_its_part() {
        let turn = read(&events()).unwrap();
        assert_eq!(
            turn.to_json(),
            concat!(
                r#"{"content":"Done","tool_calls":[],"gemini_parts":[{"text":"Let me look.","thought":true},"#,
                r#"{"text":"","thoughtSignature":"c2ln"}],"stop_reason":"STOP","usage":{"totalTokenCount":3}}"#
            )
        );
    }

    #[test]
    fn the_array_form_reads_as_the_events() {
        let array = format!("\n[{}]", CHUNKS.join(",\r\n"));
        assert_eq!(read(&array).unwrap(), read(&events()).unwrap());
        let cut = &array[..array.len() - 1];
        assert_eq!(
            read(cut).unwrap_err().to_string(),
            "the stream ended early: it lacks a chunk with finishReason and the rest of the JSON array of chunks (its closing `]`)"
        );
        assert_eq!(
            read("[{\"candidates\": 7}]").unwrap_err().to_string(),
            "chunk 1 of the array: invalid type: integer `7`, expected a sequence at line 1 column 16"
        );
    }

    #[test]
    fn truncations_and_errors() {
        let text = events();
        let last = text.rfind("data:").unwrap();
        assert_eq!(
            read(&text[..last]).unwrap_err().to_string(),
            "the stream ended early: it lacks a chunk with finishReason"
        );
        let err = read(&text[..text.len() - 10]).unwrap_err().to_string();
        assert!(
            err.starts_with("the stream ended early: it lacks a chunk with finishReason and the rest of the line \"data: "),
            "{err}"
        );
        assert_eq!(
            read("").unwrap_err().to_string(),
            "the stream ended early: it lacks a chunk with finishReason"
        );
        let error = "data: {\"error\": {\"code\": 503, \"message\": \"The model is overloaded.\", \"status\": \"UNAVAILABLE\"}}\n\n";
        let mut stream = GeminiStream::new();
        let err = stream.push(error.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the provider answered with an error: UNAVAILABLE: The model is overloaded."
        );
        assert_eq!(stream.push(b"data: {}\n\n").unwrap_err(), err);
        assert_eq!(stream.finish().unwrap_err(), err);
        assert_eq!(
            read("data: {\"candidates\": {}}\n\n")
                .unwrap_err()
                .to_string(),
            "event 1: invalid type: map, expected a sequence at line 1 column 15"
        );
    }
}
