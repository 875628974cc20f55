//! Writing a history's records from an agent: an assistant turn with its
//! tool calls, and a tool's result with its call id, text, attachments and
//! error flag, each as the envelope the grammar reads back.
//!
//! ```
//! use tool_carrier::history::{AssistantTurn, ToolResult};
//! use tool_carrier::Attachment;
//!
//! let turn = AssistantTurn::new("Taking a screenshot.")
//!     .call("call_1", "screenshot", r#"{"display":1}"#)?
//!     .call("call_2", "read_file", r#"{"path":"a.rs"}"#)?;
//! let result = ToolResult::new("call_2", "fn main() {}");
//! let shot = ToolResult::new("call_1", "Captured the screen.")
//!     .attach(Attachment::image("shots/1.png"));
//! // Each result names its call: the order of the records does not pair them.
//! let records = [turn.to_record(), result.to_record()?, shot.to_record()?];
//! assert!(records[2].contains(r#"\"tool_call_id\":\"call_1\""#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The assistant envelope is `{"content", "tool_calls": [{"id", "name",
//! "arguments"}]}`, the arguments written as the raw JSON text given (key
//! order and numbers of any size kept); a tool result is a declared native
//! carrier, `{"tool_call_id", "content", "is_error"?, …, "attachments"}`.

use std::fmt;

use serde_json::value::RawValue;

use crate::carrier::{RenderError, IS_ERROR};
use crate::json::push_json_str;
use crate::Attachment;

/// An assistant's turn: its text and the tools it calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssistantTurn {
    text: String,
    calls: Vec<ToolCall>,
    /// `(name, JSON text)`, written after `tool_calls`, in order.
    members: Vec<(String, String)>,
}

/// One tool call of an [`AssistantTurn`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's id, which its result names.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON text.
    pub arguments: String,
}

/// Arguments that are not one JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentsError {
    /// The call whose arguments they are.
    pub call_id: String,
    /// What serde_json said of them.
    pub reason: String,
}

impl fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the arguments of call {:?} are not JSON: {}",
            self.call_id, self.reason
        )
    }
}

impl std::error::Error for ArgumentsError {}

/// A member [`AssistantTurn::with_member`] cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberError {
    /// The member's name.
    pub name: String,
    /// Why: a name the envelope writes itself or one already set, or what
    /// serde_json said of the value.
    pub reason: String,
}

impl fmt::Display for MemberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "envelope member {:?}: {}", self.name, self.reason)
    }
}

impl std::error::Error for MemberError {}

impl AssistantTurn {
    /// A turn saying `text` (empty for none).
    pub fn new(text: impl Into<String>) -> AssistantTurn {
        AssistantTurn {
            text: text.into(),
            ..AssistantTurn::default()
        }
    }

    /// The turn with one more call; `arguments` is the JSON text of the
    /// arguments (`""` for none, written as `{}`).
    ///
    /// # Errors
    /// [`ArgumentsError`] when `arguments` is not one JSON value.
    pub fn call(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: &str,
    ) -> Result<AssistantTurn, ArgumentsError> {
        let id = id.into();
        let arguments = if arguments.trim().is_empty() {
            "{}".to_owned()
        } else {
            serde_json::from_str::<&RawValue>(arguments)
                .map_err(|e| ArgumentsError {
                    call_id: id.clone(),
                    reason: e.to_string(),
                })?
                .get()
                .to_owned()
        };
        self.calls.push(ToolCall {
            id,
            name: name.into(),
            arguments,
        });
        Ok(self)
    }

    /// The turn with one more envelope member beyond its text and calls,
    /// written after `tool_calls` as the JSON text given (kept byte for
    /// byte): what a provider said of the turn that the history keeps, as
    /// `anthropic_thinking` from an imported request, or
    /// `stop_reason` and `usage` from a response.
    ///
    /// ```
    /// use tool_carrier::history::AssistantTurn;
    ///
    /// let turn = AssistantTurn::new("Done.").with_member("stop_reason", r#""end_turn""#)?;
    /// assert_eq!(turn.to_json(), r#"{"content":"Done.","tool_calls":[],"stop_reason":"end_turn"}"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`MemberError`] when `json` is not one JSON value, or `name` is
    /// `content`, `tool_calls` or a member already set.
    pub fn with_member(
        mut self,
        name: impl Into<String>,
        json: &str,
    ) -> Result<AssistantTurn, MemberError> {
        let name = name.into();
        let error = |reason: String| MemberError {
            name: name.clone(),
            reason,
        };
        if name == "content" || name == "tool_calls" {
            return Err(error("the envelope writes it itself".into()));
        }
        if self.members.iter().any(|(n, _)| *n == name) {
            return Err(error("already set".into()));
        }
        let raw = serde_json::from_str::<&RawValue>(json)
            .map_err(|e| error(e.to_string()))?
            .get()
            .to_owned();
        self.members.push((name, raw));
        Ok(self)
    }

    /// The calls, in order.
    pub fn calls(&self) -> &[ToolCall] {
        &self.calls
    }

    /// The text (empty for none).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The members beyond text and calls, `(name, JSON text)`, in order.
    pub fn members(&self) -> &[(String, String)] {
        &self.members
    }

    /// The envelope: the text alone when there are no calls and no other
    /// members, else `{"content", "tool_calls", members…}`.
    pub fn to_json(&self) -> String {
        if self.calls.is_empty() && self.members.is_empty() {
            return self.text.clone();
        }
        envelope(&self.text, &self.calls, &self.members)
    }

    /// The history record, one JSON Lines line without its line feed:
    /// `{"role":"assistant","content":…}`.
    pub fn to_record(&self) -> String {
        record("assistant", &self.to_json())
    }
}

/// A tool's result: the call it answers, its text, its attachments and
/// whether the tool failed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolResult {
    pub(crate) call_id: Option<String>,
    pub(crate) body: String,
    pub(crate) is_error: bool,
    /// `(name, JSON text)`, in order.
    pub(crate) extra: Vec<(String, String)>,
    pub(crate) attachments: Vec<Attachment<'static>>,
}

/// The members the envelope writes itself.
#[cfg(feature = "media")]
const RESERVED: [&str; 4] = ["tool_call_id", "content", IS_ERROR, "attachments"];

impl ToolResult {
    /// The result of call `call_id`, saying `body`.
    pub fn new(call_id: impl Into<String>, body: impl Into<String>) -> ToolResult {
        ToolResult {
            call_id: Some(call_id.into()),
            body: body.into(),
            ..ToolResult::default()
        }
    }

    /// The result marked as the tool's failure (`"is_error": true`, which
    /// Anthropic and Bedrock are sent as their own flag).
    pub fn failed(mut self) -> ToolResult {
        self.is_error = true;
        self
    }

    /// The result with one more attachment.
    pub fn attach(mut self, attachment: Attachment<'_>) -> ToolResult {
        self.attachments.push(attachment.into_owned());
        self
    }

    /// The result with `bytes` attached: stored through `store` (a
    /// [`DirStore`](crate::media::store::DirStore) names them by their hash,
    /// so one screenshot is one file however often it is attached) and
    /// declared by the kind their bytes sniff as (an image, a PDF as a
    /// document).
    ///
    /// # Errors
    /// [`AttachError`](crate::media::store::AttachError): bytes of no type
    /// the pipeline takes (nothing is stored), or the store's I/O error.
    #[cfg(feature = "media")]
    pub fn attach_bytes(
        self,
        bytes: &[u8],
        store: &mut dyn crate::media::store::MediaStore,
    ) -> Result<ToolResult, crate::media::store::AttachError> {
        let (kind, target) = stored(bytes, store)?;
        Ok(self.attach(Attachment::new(kind, target)))
    }

    /// The attachments, in order.
    pub fn attachments(&self) -> &[Attachment<'static>] {
        &self.attachments
    }

    /// Add a line to the body.
    #[cfg(feature = "media")]
    pub(crate) fn line(&mut self, text: &str) {
        if !self.body.is_empty() {
            self.body.push('\n');
        }
        self.body.push_str(text);
    }

    /// Keep a member of the source as `name` (JSON text): a name the
    /// envelope uses itself, or one already kept, gets `_` in front until
    /// it is free, so no member is written twice.
    #[cfg(feature = "media")]
    pub(crate) fn keep(&mut self, name: &str, json: String) {
        let mut name = name.to_owned();
        while RESERVED.contains(&name.as_str()) || self.extra.iter().any(|(n, _)| *n == name) {
            name.insert(0, '_');
        }
        self.extra.push((name, json));
    }

    /// The envelope's JSON text.
    ///
    /// # Errors
    /// [`RenderError::EmptyTarget`] for an attachment without a target.
    pub fn to_json(&self) -> Result<String, RenderError> {
        if let Some(index) = self.attachments.iter().position(|a| a.target.is_empty()) {
            return Err(RenderError::EmptyTarget { index });
        }
        Ok(self.render())
    }

    /// The history record, one JSON Lines line without its line feed:
    /// `{"role":"tool","content":…}`.
    ///
    /// # Errors
    /// As [`ToolResult::to_json`].
    pub fn to_record(&self) -> Result<String, RenderError> {
        self.to_json().map(|json| record("tool", &json))
    }

    /// The envelope's JSON text, its targets not checked.
    pub(crate) fn render(&self) -> String {
        let mut out = String::with_capacity(self.body.len() + 64);
        out.push('{');
        if let Some(id) = &self.call_id {
            out.push_str("\"tool_call_id\":");
            push_json_str(&mut out, id);
            out.push(',');
        }
        out.push_str("\"content\":");
        push_json_str(&mut out, &self.body);
        if self.is_error {
            out.push_str(",\"");
            out.push_str(IS_ERROR);
            out.push_str("\":true");
        }
        push_members(&mut out, &self.extra);
        out.push_str(",\"attachments\":");
        crate::carrier::push_attachment_array(&mut out, &self.attachments);
        out.push('}');
        out
    }
}

/// A user's own message: their text and what they attached to it (a
/// pasted screenshot, a PDF), written as a user [`Record`](super::Record)
/// with an `attachments` member beside its `content`.
///
/// ```
/// use tool_carrier::history::UserMessage;
/// use tool_carrier::Attachment;
///
/// let record = UserMessage::new("Why does the build fail?")
///     .attach(Attachment::image("pasted/1.png"))
///     .to_record()?;
/// assert_eq!(
///     record.to_json(),
///     r#"{"role":"user","content":"Why does the build fail?","attachments":[{"kind":"image","target":"pasted/1.png"}]}"#
/// );
/// # Ok::<(), tool_carrier::RenderError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserMessage {
    text: String,
    attachments: Vec<Attachment<'static>>,
}

impl UserMessage {
    /// A user's message saying `text`.
    pub fn new(text: impl Into<String>) -> UserMessage {
        UserMessage {
            text: text.into(),
            attachments: Vec::new(),
        }
    }

    /// The message with one more attachment.
    pub fn attach(mut self, attachment: Attachment<'_>) -> UserMessage {
        self.attachments.push(attachment.into_owned());
        self
    }

    /// The message with the file at `path` attached, declared by its path
    /// and by the kind its first bytes sniff as (an image, a PDF as a
    /// document). The file is read again when a request is built, under
    /// that conversion's roots.
    ///
    /// # Errors
    /// [`AttachError::Read`](crate::media::store::AttachError::Read) when
    /// the file cannot be read or its path is not UTF-8 (a target is text);
    /// [`AttachError::Type`](crate::media::store::AttachError::Type) for a
    /// file of no type the pipeline takes.
    #[cfg(feature = "media")]
    pub fn attach_path(
        self,
        path: impl AsRef<std::path::Path>,
    ) -> Result<UserMessage, crate::media::store::AttachError> {
        use crate::media::store::AttachError;
        use std::io::Read;
        let path = path.as_ref();
        let read = |error| AttachError::Read {
            path: path.to_owned(),
            error,
        };
        let target = path.to_str().ok_or_else(|| {
            read(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the path is not UTF-8",
            ))
        })?;
        let mut head = Vec::with_capacity(64);
        std::fs::File::open(path)
            .and_then(|f| f.take(64).read_to_end(&mut head))
            .map_err(read)?;
        let kind = attachment_kind(&head)?;
        Ok(self.attach(Attachment::new(kind, target.to_owned())))
    }

    /// The message with `bytes` attached: stored through `store` and
    /// declared by the kind they sniff as, as
    /// [`ToolResult::attach_bytes`] does.
    ///
    /// # Errors
    /// As [`ToolResult::attach_bytes`].
    #[cfg(feature = "media")]
    pub fn attach_bytes(
        self,
        bytes: &[u8],
        store: &mut dyn crate::media::store::MediaStore,
    ) -> Result<UserMessage, crate::media::store::AttachError> {
        let (kind, target) = stored(bytes, store)?;
        Ok(self.attach(Attachment::new(kind, target)))
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The attachments, in order.
    pub fn attachments(&self) -> &[Attachment<'static>] {
        &self.attachments
    }

    /// The history record.
    ///
    /// # Errors
    /// [`RenderError::EmptyTarget`] for an attachment without a target.
    pub fn to_record(&self) -> Result<super::Record, RenderError> {
        if let Some(index) = self.attachments.iter().position(|a| a.target.is_empty()) {
            return Err(RenderError::EmptyTarget { index });
        }
        Ok(super::Record::user(self.text.clone(), &self.attachments))
    }
}

/// The kind of attachment bytes starting with `head` are declared as.
#[cfg(feature = "media")]
fn attachment_kind(head: &[u8]) -> Result<crate::AttachmentKind, crate::media::store::AttachError> {
    use crate::media::{sniff, MediaType, Sniffed};
    match sniff(head) {
        Sniffed::Media(MediaType::Pdf) => Ok(crate::AttachmentKind::Document),
        Sniffed::Media(_) => Ok(crate::AttachmentKind::Image),
        other => Err(crate::media::store::AttachError::Type(other.to_string())),
    }
}

/// `bytes` stored through `store`: the kind they are declared as, and
/// their target.
#[cfg(feature = "media")]
fn stored(
    bytes: &[u8],
    store: &mut dyn crate::media::store::MediaStore,
) -> Result<(crate::AttachmentKind, String), crate::media::store::AttachError> {
    let kind = attachment_kind(bytes)?;
    let stored = store
        .put(bytes)
        .map_err(crate::media::store::AttachError::Store)?;
    Ok((kind, stored.target))
}

/// `{"content": text|null, "tool_calls": [...], extra…}`.
pub(crate) fn envelope(text: &str, calls: &[ToolCall], extra: &[(String, String)]) -> String {
    let mut out = String::from("{\"content\":");
    if text.is_empty() {
        out.push_str("null");
    } else {
        push_json_str(&mut out, text);
    }
    out.push_str(",\"tool_calls\":[");
    for (i, c) in calls.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"id\":");
        push_json_str(&mut out, &c.id);
        out.push_str(",\"name\":");
        push_json_str(&mut out, &c.name);
        out.push_str(",\"arguments\":");
        out.push_str(&c.arguments);
        out.push('}');
    }
    out.push(']');
    push_members(&mut out, extra);
    out.push('}');
    out
}

/// `,"name":json` for each member.
pub(super) fn push_members(out: &mut String, members: &[(String, String)]) {
    for (name, json) in members {
        out.push(',');
        push_json_str(out, name);
        out.push(':');
        out.push_str(json);
    }
}

/// `{"role":ROLE,"content":CONTENT}`.
fn record(role: &str, content: &str) -> String {
    let mut out = String::with_capacity(content.len() + content.len() / 8 + 32);
    out.push_str("{\"role\":");
    push_json_str(&mut out, role);
    out.push_str(",\"content\":");
    push_json_str(&mut out, content);
    out.push('}');
    out
}
