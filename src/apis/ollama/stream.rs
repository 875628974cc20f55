//! An Ollama `/api/chat` stream (`"stream": true`, the default) read into
//! the same assistant record as the non-streamed body of that message.
//!
//! The stream is newline-delimited JSON
//! (<https://docs.ollama.com/api/streaming>, read 2026-12-02): one chat
//! response object a line. The lines with `"done": false` are pieces:
//! their `message.content` and `message.thinking` are appended and their
//! `message.tool_calls` add up; the last line has `"done": true`, the
//! `done_reason` and the counts. An `{"error": "…"}` line ends the stream
//! with that error. A stream without its `done` line was cut; lines after
//! it are not read.

use serde_json::value::RawValue;

use crate::history::AssistantTurn;
use crate::steps::lines::{Line, LineSplitter};
use crate::steps::response::{lacking, ResponseError, ResponseStream};

use super::response::Reading;

/// Reads an Ollama chat stream as its bytes arrive:
/// [`push`](OllamaStream::push) them in pieces cut anywhere, then
/// [`finish`](OllamaStream::finish).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::Ollama)?;
/// stream.push(b"{\"message\": {\"role\": \"assistant\", \"content\": \"Hel\"}, \"done\": false}\n")?;
/// stream.push(b"{\"message\": {\"role\": \"assistant\", \"content\": \"lo\"}, \"done\": false}\n")?;
/// stream.push(b"{\"message\": {\"role\": \"assistant\", \"content\": \"\"}, \"done\": true, \"done_reason\": \"stop\"}\n")?;
/// assert_eq!(stream.finish()?.to_json(), r#"{"content":"Hello","tool_calls":[],"stop_reason":"stop"}"#);
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
#[derive(Debug, Default)]
pub struct OllamaStream {
    lines: LineSplitter,
    reading: Reading,
    /// The first error: every later call returns it again.
    failed: Option<ResponseError>,
}

impl OllamaStream {
    /// A reader at the start of a stream.
    pub fn new() -> OllamaStream {
        OllamaStream::default()
    }

    /// Take the next bytes of the stream.
    ///
    /// # Errors
    /// [`ResponseError`]: an error line, a line of a broken shape, or bytes
    /// that are not UTF-8. Once failed, every call fails the same.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = match self.lines.push(bytes) {
            Ok(lines) => lines.iter().try_for_each(|l| self.line(l)),
            Err(e) => Err(ResponseError::Stream(e.to_string())),
        };
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    fn line(&mut self, line: &Line) -> Result<(), ResponseError> {
        if self.reading.done {
            return Ok(());
        }
        self.reading
            .reply(&line.text, &format!("line {}", line.number))
    }

    /// End the stream: the assistant turn.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] when the line with `"done": true` (or
    /// the rest of the last line) is missing, or the error a push
    /// returned.
    pub fn finish(mut self) -> Result<AssistantTurn, ResponseError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let lines = std::mem::take(&mut self.lines);
        let mut cut = None;
        match lines.finish() {
            Err(e) => return Err(ResponseError::Stream(e.to_string())),
            // A last line without its line end stands when it is whole JSON.
            Ok(Some(line)) if serde_json::from_str::<&RawValue>(&line.text).is_ok() => {
                self.line(&line)?
            }
            Ok(Some(line)) if !self.reading.done => {
                cut = Some(format!("the rest of line {} {:?}", line.number, line.text));
            }
            Ok(_) => {}
        }
        let mut missing = Vec::new();
        if !self.reading.done {
            missing.push("the line with \"done\": true".to_owned());
        }
        missing.extend(cut);
        lacking(missing, None)?;
        self.reading.turn()
    }
}

impl ResponseStream for OllamaStream {
    fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError> {
        OllamaStream::push(self, bytes)
    }

    fn finish(self: Box<Self>) -> Result<AssistantTurn, ResponseError> {
        OllamaStream::finish(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = concat!(
        "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Two \"},\"done\":false}\n",
        "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"calls.\"},\"done\":false}\n",
        "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"a\",\"arguments\":{\"x\":1}}}]},\"done\":false}\n",
        "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"b\",\"arguments\":{}}}]},\"done\":false}\n",
        "{\"model\":\"qwen3\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":7,\"eval_count\":3}\n",
    );

    fn read(text: &str) -> Result<AssistantTurn, ResponseError> {
        let mut stream = OllamaStream::new();
        stream.push(text.as_bytes())?;
        stream.finish()
    }

    #[test]
    fn pieces_and_calls_add_up() {
        assert_eq!(
            read(LINES).unwrap().to_json(),
            concat!(
                r#"{"content":null,"tool_calls":[{"id":"call_0_0","name":"a","arguments":{"x":1}},{"id":"call_0_1","name":"b","arguments":{}}],"#,
                r#""ollama_thinking":"Two calls.","stop_reason":"stop","usage":{"prompt_eval_count":7,"eval_count":3}}"#
            )
        );
    }

    #[test]
    fn truncations_and_errors() {
        let last = LINES[..LINES.len() - 1].rfind('\n').unwrap() + 1;
        assert_eq!(
            read(&LINES[..last]).unwrap_err().to_string(),
            "the stream ended early: it lacks the line with \"done\": true"
        );
        let err = read(&LINES[..LINES.len() - 5]).unwrap_err().to_string();
        assert!(
            err.starts_with("the stream ended early: it lacks the line with \"done\": true and the rest of line 5 \"{"),
            "{err}"
        );
        let mut stream = OllamaStream::new();
        let err = stream
            .push(b"{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"an error was encountered while running the model\"}\n")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the provider answered with an error: error: an error was encountered while running the model"
        );
        assert_eq!(stream.finish().unwrap_err(), err);
        assert_eq!(
            read("{\"message\": 7}\n").unwrap_err().to_string(),
            "line 1: invalid type: integer `7`, expected struct ReplyMessage at line 1 column 13"
        );
    }
}
