//! `Conversation`: an agent's records held across turns, each turn's
//! request built from what earlier turns prepared; and `ResponseReader`,
//! a provider's streamed answer read chunk by chunk into an assistant
//! turn.

use std::path::PathBuf;

use pyo3::prelude::*;
use serde_json::json;
use tool_carrier::history::{AssistantTurn, ToolResult};
use tool_carrier::import::{response_stream, ResponseStream};
use tool_carrier::{Attachment, AttachmentKind, Conversation};

use crate::convert::{options, NativeRequest};
use crate::errors::{build_error, provider, OptionsError, ResponseError};

/// An assistant turn as JSON: its text and its calls.
fn turn_json(turn: &AssistantTurn) -> String {
    let calls: Vec<serde_json::Value> = turn
        .calls()
        .iter()
        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
        .collect();
    json!({"text": turn.text(), "calls": calls}).to_string()
}

/// The records of one agent loop and the options its requests go with.
/// Not shared between threads: a second thread calling into it while one
/// is inside raises `RuntimeError` (Python's borrow check), never a race.
#[pyclass(module = "tool_carrier._native", name = "Conversation")]
pub(crate) struct NativeConversation {
    inner: Conversation,
}

#[pymethods]
impl NativeConversation {
    #[new]
    #[pyo3(signature = (provider_name, *, model=None, tools=None, roots=Vec::new(), params=None,
                        extra=None, strict=false, vision=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        provider_name: &str,
        model: Option<String>,
        tools: Option<String>,
        roots: Vec<PathBuf>,
        params: Option<String>,
        extra: Option<String>,
        strict: bool,
        vision: bool,
    ) -> PyResult<Self> {
        let provider = provider(provider_name)?;
        let options = options(
            model,
            tools.as_deref(),
            roots,
            params.as_deref(),
            extra.as_deref(),
            strict,
            vision,
        )?;
        Ok(NativeConversation {
            inner: Conversation::new(provider, options),
        })
    }

    /// Append a record as it is.
    fn push(&mut self, role: String, content: String) {
        self.inner.push(role, content);
    }

    /// Append a user message.
    fn push_user(&mut self, text: String) {
        self.inner.push_user(text);
    }

    /// Append a tool's result, paired with its call by id, with the
    /// attachments it declares (`(kind, target)`: `image`, `document`, …).
    #[pyo3(signature = (call_id, body, attachments=Vec::new(), failed=false))]
    fn push_result(
        &mut self,
        call_id: String,
        body: String,
        attachments: Vec<(String, String)>,
        failed: bool,
    ) -> PyResult<()> {
        let mut result = ToolResult::new(call_id, body);
        if failed {
            result = result.failed();
        }
        for (kind, target) in attachments {
            let kind = [
                AttachmentKind::Image,
                AttachmentKind::Document,
                AttachmentKind::Audio,
                AttachmentKind::Video,
            ]
            .into_iter()
            .find(|k| k.as_str() == kind)
            .ok_or_else(|| {
                OptionsError::new_err(format!(
                    "attachment kind {kind:?}: image, document, audio or video"
                ))
            })?;
            result = result.attach(Attachment::new(kind, target));
        }
        self.inner
            .push_result(&result)
            .map_err(|e| OptionsError::new_err(e.to_string()))
    }

    /// Read the provider's answer (a body, or a whole event stream),
    /// append it as the assistant's turn and give it as JSON.
    fn push_response(&mut self, text: &str) -> PyResult<String> {
        self.inner
            .push_response(text)
            .map(|turn| turn_json(&turn))
            .map_err(|e| ResponseError::new_err(e.to_string()))
    }

    /// Append an assistant turn read by a `ResponseReader`, as JSON.
    fn push_assistant(&mut self, turn: &str) -> PyResult<()> {
        let value: serde_json::Value =
            serde_json::from_str(turn).map_err(|e| OptionsError::new_err(e.to_string()))?;
        let mut assistant = AssistantTurn::new(value["text"].as_str().unwrap_or_default());
        for call in value["calls"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let text = |key: &str| call[key].as_str().unwrap_or_default().to_owned();
            assistant = assistant
                .call(text("id"), text("name"), &text("arguments"))
                .map_err(|e| OptionsError::new_err(e.to_string()))?;
        }
        self.inner.push_assistant(&assistant);
        Ok(())
    }

    /// The request for the records so far; the GIL is released while it
    /// is built.
    fn request(&self, py: Python<'_>) -> PyResult<NativeRequest> {
        let inner = &self.inner;
        py.detach(|| inner.request())
            .map(|request| NativeRequest::new(request, Vec::new()))
            .map_err(|e| build_error(py, e))
    }

    /// The records as JSON Lines.
    fn records_jsonl(&self) -> String {
        self.inner
            .records()
            .iter()
            .map(|r| r.to_json() + "\n")
            .collect()
    }

    /// Keep the first `len` records.
    fn truncate(&mut self, len: usize) {
        self.inner.truncate(len);
    }

    fn __len__(&self) -> usize {
        self.inner.records().len()
    }
}

/// A provider's streamed answer, read as its chunks arrive.
#[pyclass(module = "tool_carrier._native", name = "ResponseReader", unsendable)]
pub(crate) struct NativeResponseReader {
    stream: Option<Box<dyn ResponseStream>>,
}

#[pymethods]
impl NativeResponseReader {
    #[new]
    fn new(provider_name: &str) -> PyResult<Self> {
        let stream = response_stream(provider(provider_name)?)
            .map_err(|e| ResponseError::new_err(e.to_string()))?;
        Ok(NativeResponseReader {
            stream: Some(stream),
        })
    }

    /// Read one chunk of the stream's bytes (any split).
    fn push(&mut self, chunk: &[u8]) -> PyResult<()> {
        self.stream
            .as_mut()
            .ok_or_else(|| ResponseError::new_err("the stream was finished"))?
            .push(chunk)
            .map_err(|e| ResponseError::new_err(e.to_string()))
    }

    /// The assistant turn the stream held, as JSON; a stream cut short
    /// is an error.
    fn finish(&mut self) -> PyResult<String> {
        self.stream
            .take()
            .ok_or_else(|| ResponseError::new_err("the stream was finished"))?
            .finish()
            .map(|turn| turn_json(&turn))
            .map_err(|e| ResponseError::new_err(e.to_string()))
    }
}
