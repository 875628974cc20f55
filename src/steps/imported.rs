//! What the provider-format imports share: the history they build, the
//! assistant envelope, media payloads and the input's shapes.

use serde_json::Value;

use crate::history::Record;
use crate::media::data_uri::is_data_uri;
use crate::media::store::MediaStore;
use crate::AttachmentKind;

use std::fmt;
use std::io;

use super::compose::label_name;
use super::envelope::Envelope;
use super::tally::Tally;

/// A carrier history read from another format, and what did not come
/// across as it was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportedHistory {
    /// The records: tool calls as assistant envelopes, tool results as
    /// declared native carriers, a user's own media as the `attachments`
    /// of their record.
    pub messages: Vec<Record>,
    /// One note per thing kept in another form, with the input message it
    /// concerns.
    pub notes: Vec<ImportNote>,
    /// What was read, by kind (`tool_use block`, `user message`), and what
    /// became of each: kept as it came, noted, or refused.
    pub tally: Tally,
    /// Where each media payload the history keeps stood in the input, for
    /// a reader that reads bytes (an agent's transcript); empty for one
    /// that reads a parsed body.
    pub payloads: Vec<PayloadSpan>,
}

/// Where a media payload stood in the input: the text of its JSON string
/// (base64, or a `data:` URL), between the quotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayloadSpan {
    /// The input's line (from 1) where the JSON value holding it begins:
    /// its own line in JSON Lines, the first line of a whole document.
    pub line: usize,
    /// Its JSON path in that value (`$.message.content[0].source.data`).
    pub path: String,
    /// Its bytes in the whole input, from the first after the opening
    /// quote to the closing quote.
    pub span: std::ops::Range<u64>,
}

/// Something an import kept in another form than it came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportNote {
    /// The input message, from 0.
    pub message: usize,
    /// What happened.
    pub text: String,
}

impl ImportedHistory {
    /// The history as JSON Lines: a record a line
    /// ([`Record::to_json`]).
    pub fn to_json_lines(&self) -> String {
        let mut out = String::new();
        for record in &self.messages {
            record.push_json(&mut out);
            out.push('\n');
        }
        out
    }

    /// [`to_json_lines`](Self::to_json_lines), written to `out` a record
    /// at a time: a long history is not copied into one string first.
    ///
    /// ```
    /// use tool_carrier::import::{from_provider, ImportOptions};
    /// use tool_carrier::media::store::InlineStore;
    /// use tool_carrier::provider::Provider;
    ///
    /// let body = serde_json::json!([{"role": "user", "content": "hi"}]);
    /// let history = from_provider(Provider::OpenAiChat, &body, &mut InlineStore, &ImportOptions::new())?;
    /// let mut out = Vec::new();
    /// history.write_json_lines(&mut out)?;
    /// assert_eq!(String::from_utf8(out)?, history.to_json_lines());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// `out`'s.
    pub fn write_json_lines(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut line = String::new();
        for record in &self.messages {
            line.clear();
            record.push_json(&mut line);
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// Append what `other` read after what this one did.
    pub(crate) fn absorb(&mut self, other: ImportedHistory) {
        self.messages.extend(other.messages);
        self.notes.extend(other.notes);
        self.tally.extend(&other.tally);
        self.payloads.extend(other.payloads);
    }

    pub(crate) fn push(&mut self, role: &str, content: String) {
        self.messages.push(Record::new(role, content));
    }

    pub(crate) fn note(&mut self, message: usize, text: impl Into<String>) {
        self.notes.push(ImportNote {
            message,
            text: text.into(),
        });
    }

    /// One `what` kept as it came.
    pub(crate) fn kept(&mut self, what: &str) {
        self.tally.sent(what);
    }

    /// One `what`, an entry of `list` kept as written: kept, when the list
    /// has its kind; else (read as `--keep-unknown` asks) noted.
    pub(crate) fn kept_as_written(&mut self, list: &super::known::List, entry: &Value, what: &str) {
        if list.kind_of(entry).is_ok() {
            self.tally.sent(what);
        } else {
            self.tally.noted(what);
        }
    }

    /// One `what` kept in another form, or left out, with a note.
    pub(crate) fn noted(&mut self, message: usize, what: &str, text: impl Into<String>) {
        self.tally.noted(what);
        self.note(message, text);
    }
}

/// One tool call of an assistant envelope (its arguments the JSON text
/// the source held: an object, or the string).
pub(crate) use crate::history::ToolCall as Call;

pub(crate) use crate::history::envelope as assistant_envelope;

/// A request body, or a bare list of what it holds (its messages, items
/// or contents).
pub(crate) enum BodyOr<B, L> {
    Body(B),
    List(Vec<L>),
}

/// `input` as a body (an object holding `key`) or a bare list, read as the
/// API's wire types; anything else is an error saying it expected `what`.
pub(crate) fn body_or_list<'v, B, L>(
    input: &'v Value,
    key: &str,
    what: &str,
) -> Result<BodyOr<B, L>, ImportError>
where
    B: serde::Deserialize<'v>,
    L: serde::Deserialize<'v>,
{
    match input {
        Value::Array(_) => typed(input).map(BodyOr::List),
        Value::Object(body) if body.contains_key(key) => typed(input).map(BodyOr::Body),
        Value::Object(_) => Err(ImportError::at(
            "$",
            format!("expected {what}: no `{key}` member"),
        )),
        _ => Err(ImportError::at("$", format!("expected {what}"))),
    }
}

/// `input` read as an API's wire type `T`, borrowing its strings; an
/// error names the JSON path where the shape broke.
pub(crate) fn typed<'v, T: serde::Deserialize<'v>>(input: &'v Value) -> Result<T, ImportError> {
    serde_path_to_error::deserialize(input).map_err(|e| {
        let path = e.path().to_string();
        let at = match path.as_str() {
            "." => "$".to_owned(),
            p if p.starts_with('[') => format!("${p}"),
            p => format!("$.{p}"),
        };
        ImportError::at(&at, e.into_inner().to_string())
    })
}

/// Where a payload comes from.
pub(crate) enum Payload<'v> {
    /// Base64 text of the bytes.
    Base64(&'v str),
    /// A `data:` URL.
    DataUrl(&'v str),
    /// An `http(s)` (or other) URL, declared as it is.
    Url(&'v str),
    /// A provider file, declared by its target (`openai-file:…`).
    Held(crate::media::ProviderFile),
    /// None where the part needs one: refused, saying what was needed.
    Missing(&'static str),
}

/// The target to declare a payload by: its bytes stored, or the URL.
pub(crate) fn target(
    payload: Payload<'_>,
    at: &str,
    store: &mut dyn MediaStore,
) -> Result<String, ImportError> {
    let b64 = match payload {
        Payload::Url(url) => return Ok(url.to_owned()),
        Payload::Held(file) => return Ok(file.target()),
        Payload::Missing(what) => return Err(ImportError::at(at, what)),
        Payload::Base64(b64) => b64,
        Payload::DataUrl(url) => url
            .split_once(',')
            .filter(|(head, _)| is_data_uri(head) && head.ends_with(";base64"))
            .map(|(_, data)| data)
            .ok_or_else(|| ImportError::at(at, "a data: URL that is not base64"))?,
    };
    let stored = crate::media::store::put_read(store, b64)
        .map_err(|e| ImportError::at(at, format!("the payload is not base64: {e}")))?;
    Ok(stored.map_err(ImportError::Store)?.target)
}

/// An image URL or data URL as a payload.
pub(crate) fn url_payload(url: &str) -> Payload<'_> {
    if is_data_uri(url) {
        Payload::DataUrl(url)
    } else {
        Payload::Url(url)
    }
}

/// A string member.
pub(crate) fn str_of<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// A user's own message as an import reads it: its text, a part at a
/// time, and the user's own media, declared as the record's
/// `attachments` (a member of the record, not of its text).
#[derive(Debug, Default)]
pub(crate) struct UserText {
    /// The pieces so far, joined by line feeds.
    text: String,
    pieces: usize,
    attachments: Vec<crate::Attachment<'static>>,
}

impl UserText {
    /// One more piece of text (pieces are joined by line feeds).
    pub(crate) fn text(&mut self, text: &str) {
        if self.pieces > 0 {
            self.text.push('\n');
        }
        self.text.push_str(text);
        self.pieces += 1;
    }

    /// One of the user's own media (`what`), stored at `target`: declared,
    /// and counted as kept.
    pub(crate) fn media(
        &mut self,
        out: &mut ImportedHistory,
        what: &str,
        kind: AttachmentKind,
        target: String,
        name: Option<&str>,
    ) {
        out.kept(what);
        self.attach(kind, target, name);
    }

    /// One of the user's own media, stored at `target`, declared (counted
    /// by the caller).
    pub(crate) fn attach(&mut self, kind: AttachmentKind, target: String, name: Option<&str>) {
        let attachment = crate::Attachment::new(kind, target);
        self.attachments.push(match name.filter(|n| !n.is_empty()) {
            Some(name) => attachment.with_name(name.to_owned()),
            None => attachment,
        });
    }

    /// Whether it holds neither text nor media.
    pub(crate) fn is_empty(&self) -> bool {
        self.pieces == 0 && self.attachments.is_empty()
    }

    /// The user's record.
    pub(crate) fn into_record(self) -> Record {
        Record::user(self.text, &self.attachments)
    }

    /// The text alone, for a message that declares no media.
    pub(crate) fn into_text(self) -> String {
        debug_assert!(self.attachments.is_empty());
        self.text
    }

    /// Append the user's record to `out`, unless it holds nothing.
    pub(crate) fn push_to(self, out: &mut ImportedHistory) {
        if !self.is_empty() {
            out.messages.push(self.into_record());
        }
    }
}

/// An entry (`what`, at `at`) a carrier history has no place for: left
/// out, saying why, and counted as noted.
pub(crate) fn left_out(out: &mut ImportedHistory, message: usize, at: &str, what: &str, why: &str) {
    let a = super::known::article(what);
    out.noted(
        message,
        what,
        format!("{at}: {a} {what} is left out: {why}"),
    );
}

/// Add a tool result's attachment to an envelope, with the file name the
/// provider body gave it, if any.
pub(crate) fn attach(env: &mut Envelope, kind: AttachmentKind, target: String, name: Option<&str>) {
    let attachment = crate::Attachment::new(kind, target);
    env.attachments.push(match name {
        Some(name) => attachment.with_name(name.to_owned()),
        None => attachment,
    });
}

/// `Attachment of the NAME result (call ID): KIND TARGET`, read as
/// `convert` writes it: `(name, id, kind, shown target)`.
pub(crate) fn label(text: &str) -> Option<(&str, &str, AttachmentKind, &str)> {
    let rest = text.strip_prefix("Attachment of the ")?;
    let (name, rest) = rest.split_once(" result (call ")?;
    let (id, rest) = rest.split_once("): ")?;
    let (kind, shown) = rest.split_once(' ')?;
    Some((name, id, AttachmentKind::from_name(kind)?, shown))
}

/// The results of one assistant turn's calls, held until the batch ends
/// so that the media message `convert` writes after it can be folded back.
#[derive(Default)]
pub(crate) struct Batch {
    /// The turn's calls: `(id, name)`.
    pub calls: Vec<(String, String)>,
    /// Each result: its call id and its envelope.
    pub results: Vec<(String, Envelope)>,
}

impl Batch {
    /// Declare each `(label, kind of the media part, payload)` on the
    /// result its label names, taking the result's line `[KIND TARGET
    /// {follows}]` out of its body — all of them, or nothing when any
    /// label does not name a call of this batch and its tool, or its kind
    /// is not the media part's.
    pub fn fold(
        &mut self,
        pairs: Vec<(&str, AttachmentKind, Payload<'_>, String)>,
        follows: &str,
        store: &mut dyn MediaStore,
    ) -> Result<bool, ImportError> {
        if pairs.is_empty() {
            return Ok(false);
        }
        // Check everything on copies of the bodies before changing one.
        let mut bodies: Vec<Option<String>> = vec![None; self.results.len()];
        let mut plan = Vec::new();
        for (text, kind, payload, at) in pairs {
            let Some((name, id, labelled, shown)) = label(text) else {
                return Ok(false);
            };
            if labelled != kind || !self.calls.iter().any(|(c, n)| c == id && n == name) {
                return Ok(false);
            }
            let Some(r) = self.results.iter().position(|(rid, _)| rid == id) else {
                return Ok(false);
            };
            let body = bodies[r].get_or_insert_with(|| self.results[r].1.body.clone());
            // The result must say that this very medium follows.
            if !remove_line(body, &format!("[{} {shown} {follows}]", kind.as_str())) {
                return Ok(false);
            }
            plan.push((r, kind, payload, at, shown));
        }
        for (r, kind, payload, at, shown) in plan {
            let target = target(payload, &at, store)?;
            // The label named the attachment by a name of its own when it
            // shows something other than the target would: keep it. Not
            // a type alone (`unnamed GIF` for bytes stored as another
            // type) nor a label cut short (`…`), which name nothing.
            let name = shown != label_name(None, &target)
                && !shown.starts_with("unnamed ")
                && !shown.ends_with('…');
            let attachment = crate::Attachment::new(kind, target);
            self.results[r].1.attachments.push(if name {
                attachment.with_name(shown.to_owned())
            } else {
                attachment
            });
        }
        for (r, body) in bodies.into_iter().enumerate() {
            if let Some(body) = body {
                self.results[r].1.body = body;
            }
        }
        Ok(true)
    }

    /// Write the results, and start a new batch.
    pub fn flush(&mut self, out: &mut ImportedHistory) {
        for (_, env) in self.results.drain(..) {
            out.push("tool", env.render());
        }
    }
}

/// Take the last occurrence of `line` (a whole line among the body's last
/// lines, which are `convert`'s notes) out of `body`; whether it was there.
pub(crate) fn remove_line(body: &mut String, line: &str) -> bool {
    let Some(cut) = body.rfind(line) else {
        return false;
    };
    let after = &body[cut + line.len()..];
    let whole =
        (cut == 0 || body[..cut].ends_with('\n')) && (after.is_empty() || after.starts_with('\n'));
    let notes_after = after
        .split('\n')
        .all(|l| l.is_empty() || (l.starts_with('[') && l.ends_with(']')));
    if !(whole && notes_after) {
        return false;
    }
    // The line and the line feed before it (or, first, the one after).
    let (start, end) = if cut > 0 {
        (cut - 1, cut + line.len())
    } else {
        (0, (line.len() + 1).min(body.len()))
    };
    body.replace_range(start..end, "");
    true
}

/// The kind of inline data by its MIME type: an image, audio or video by
/// theirs, anything else a document.
pub(crate) fn kind_of_inline(mime: &str) -> AttachmentKind {
    kind_of_mime(mime).unwrap_or(AttachmentKind::Document)
}

/// A carrier's content made by an import, and what was noticed on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// The message content: a native envelope.
    pub content: String,
    /// What was kept in another form than it came (each a sentence, with
    /// the JSON path it concerns).
    pub notes: Vec<String>,
    /// What was read, by kind (`image content block`), and what became
    /// of each.
    pub tally: Tally,
}

/// Why something could not be imported.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// The input is not what the format says, at a JSON path.
    Invalid {
        /// Where (`$.content[2]`).
        at: String,
        /// What is wrong.
        what: String,
    },
    /// The media store failed.
    Store(io::Error),
    /// Reading the input failed.
    Read(io::Error),
}

impl ImportError {
    pub(crate) fn at(at: &str, what: impl Into<String>) -> ImportError {
        ImportError::Invalid {
            at: at.to_owned(),
            what: what.into(),
        }
    }

    /// The error with its path (from `$`) put under `prefix`: a part read
    /// on its own, inside a larger input.
    pub(crate) fn under(self, prefix: &str) -> ImportError {
        match self {
            ImportError::Invalid { at, what } => ImportError::Invalid {
                at: match at.strip_prefix('$') {
                    Some(rest) => format!("{prefix}{rest}"),
                    None => at,
                },
                what,
            },
            other => other,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Invalid { at, what } => write!(f, "{at}: {what}"),
            ImportError::Store(e) => write!(f, "storing media: {e}"),
            ImportError::Read(e) => write!(f, "reading the input: {e}"),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::Store(e) | ImportError::Read(e) => Some(e),
            ImportError::Invalid { .. } => None,
        }
    }
}

/// The attachment kind a MIME type declares: images, audio, video, PDFs.
pub(crate) fn kind_of_mime(mime: &str) -> Option<AttachmentKind> {
    let mime = mime.trim().to_ascii_lowercase();
    if mime.starts_with("image/") {
        Some(AttachmentKind::Image)
    } else if mime.starts_with("audio/") {
        Some(AttachmentKind::Audio)
    } else if mime.starts_with("video/") {
        Some(AttachmentKind::Video)
    } else if mime == "application/pdf" {
        Some(AttachmentKind::Document)
    } else {
        None
    }
}

/// A function tool in the form [`Tools::from_json`](crate::provider::Tools::from_json)
/// reads, from its name, description and parameters schema (an object
/// schema when there is none).
pub(crate) fn function_tool(
    name: &Value,
    description: Option<&Value>,
    parameters: Option<&Value>,
) -> Value {
    let mut f = serde_json::json!({
        "type": "function",
        "name": name,
        "parameters": parameters.cloned().unwrap_or(serde_json::json!({"type": "object"})),
    });
    if let Some(d) = description {
        f["description"] = d.clone();
    }
    f
}

/// The entries of `value`, an array, or none.
pub(crate) fn list(value: Option<&Value>) -> Vec<Value> {
    value.and_then(Value::as_array).cloned().unwrap_or_default()
}

/// The tool definitions of a body whose `tools` are already in a shape
/// [`Tools::from_json`](crate::provider::Tools::from_json) reads (Anthropic,
/// OpenAI, Ollama): each entry it takes, and the `type` (or JSON) of each
/// it does not.
pub(crate) fn function_tools(body: &Value) -> (Vec<Value>, Vec<String>) {
    let mut tools = Vec::new();
    let mut left = Vec::new();
    for tool in list(body.get("tools")) {
        let one = Value::Array(vec![tool.clone()]).to_string();
        if super::tools::Tools::from_json(&one).is_ok() {
            tools.push(tool);
        } else {
            left.push(
                tool.get("type")
                    .and_then(Value::as_str)
                    .map_or_else(|| tool.to_string(), str::to_owned),
            );
        }
    }
    (tools, left)
}
