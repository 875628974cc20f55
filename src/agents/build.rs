//! What the readers of an agent library's saved history share (the
//! Vercel AI SDK's messages, LangChain's, pydantic-ai's, Cline's): the
//! library's parts are read one by one into carrier records, each counted
//! as it is read and as what became of it (kept, kept in another form or
//! left out with a note, or refused), each media payload stored and its
//! place in the file said.
//!
//! Unlike the coding agents' transcripts, which hold a provider's own
//! messages and are read by the provider's reader, these libraries keep
//! messages of their own making: a reader names the library's part, at
//! its path in the file, in every error and note.

use std::io::{BufRead, Read};

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::envelope::{Envelope, ANTHROPIC_THINKING, GEMINI_SIGNATURES, OPENAI_ITEMS};
use crate::steps::imported::{
    assistant_envelope, attach, kind_of_inline, target, Call, ImportError, ImportedHistory,
    Payload, PayloadSpan, UserText,
};
use crate::AttachmentKind;

use super::lines::{Line, MAX_LINE};
use super::payloads::{path_text, Step};

/// A JSON path in the file being read, kept as steps so that a payload's
/// place can be found in the text.
#[derive(Clone, Debug, Default)]
pub(crate) struct At(Vec<Key>);

#[derive(Clone, Debug)]
enum Key {
    Name(std::borrow::Cow<'static, str>),
    Index(usize),
}

impl At {
    /// `$`.
    pub fn root() -> At {
        At(Vec::new())
    }

    /// The member `key` of the value here.
    pub fn key(&self, key: &'static str) -> At {
        self.with(Key::Name(key.into()))
    }

    /// The member `key` (a name read from the file) of the value here.
    pub fn member(&self, key: &str) -> At {
        self.with(Key::Name(key.to_owned().into()))
    }

    /// Entry `i` of the list here.
    pub fn index(&self, i: usize) -> At {
        self.with(Key::Index(i))
    }

    fn with(&self, key: Key) -> At {
        let mut keys = self.0.clone();
        keys.push(key);
        At(keys)
    }

    fn steps(&self) -> Vec<Step<'_>> {
        self.0
            .iter()
            .map(|k| match k {
                Key::Name(name) => Step::Key(name),
                Key::Index(i) => Step::Index(*i),
            })
            .collect()
    }

    /// `$.messages[3].content[1]`.
    pub fn text(&self) -> String {
        path_text(&self.steps())
    }
}

/// A whole JSON document: its text and value.
pub(crate) struct Document {
    pub text: String,
    pub value: Value,
}

impl Document {
    /// Read all of `input` (at most the longest transcript line).
    ///
    /// # Errors
    /// [`ImportError`] for input that is too long, not UTF-8 or no JSON.
    pub fn read(input: &mut dyn BufRead) -> Result<Document, ImportError> {
        let mut bytes = Vec::new();
        input
            .take(MAX_LINE as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(ImportError::Read)?;
        if bytes.len() > MAX_LINE {
            return Err(ImportError::at(
                "$",
                format!("longer than the {MAX_LINE} bytes a saved history is read in"),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            ImportError::at("$", format!("not UTF-8: invalid byte at {at}"))
        })?;
        let value = serde_json::from_str(&text)
            .map_err(|e| ImportError::at("$", format!("not JSON: {e}")))?;
        Ok(Document { text, value })
    }
}

/// Read `input` whole as `library`'s file, its value given to `read`: the
/// history, each stored payload's place found in the text.
///
/// # Errors
/// [`Document::read`]'s, and `read`'s.
pub(crate) fn read_document(
    library: &'static str,
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
    read: impl FnOnce(&mut Build<'_>, &Value) -> Result<(), ImportError>,
) -> Result<ImportedHistory, ImportError> {
    let doc = Document::read(input)?;
    let mut b = Build::new(library, store, options);
    read(&mut b, &doc.value)?;
    let line = Line {
        number: 1,
        start: 0,
        text: &doc.text,
    };
    Ok(b.finish(&line))
}

/// Each message of `messages` (at `at`), a list (else an error saying it
/// is not `what`), given to `read` with its path.
///
/// # Errors
/// `read`'s.
pub(crate) fn each_message(
    b: &mut Build<'_>,
    messages: &Value,
    at: &At,
    what: &str,
    mut read: impl FnMut(&mut Build<'_>, &Value, &At) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let Some(list) = messages.as_array() else {
        return Err(ImportError::at(&at.text(), format!("not {what}")));
    };
    for (m, message) in list.iter().enumerate() {
        b.message(m);
        read(b, message, &at.index(m))?;
    }
    Ok(())
}

/// A history being built from a library's parts.
pub(crate) struct Build<'s> {
    store: &'s mut dyn MediaStore,
    options: &'s ImportOptions,
    /// What the library is called in errors (`the Vercel AI SDK`).
    library: &'static str,
    out: ImportedHistory,
    /// The input message being read (from 0), which notes name.
    message: usize,
    /// Where each stored payload's text stood.
    payloads: Vec<At>,
    /// What is left out wherever it stands (`providerOptions`), said once
    /// per kind: `(what, why, first message, first path, how many)`.
    asides: Vec<(String, &'static str, usize, String, usize)>,
}

impl<'s> Build<'s> {
    pub fn new(
        library: &'static str,
        store: &'s mut dyn MediaStore,
        options: &'s ImportOptions,
    ) -> Build<'s> {
        Build {
            store,
            options,
            library,
            out: ImportedHistory::default(),
            message: 0,
            payloads: Vec::new(),
            asides: Vec::new(),
        }
    }

    /// Input message `m` (from 0) is read next.
    pub fn message(&mut self, m: usize) {
        self.message = m;
    }

    /// One `what` read and kept as it came.
    pub fn kept(&mut self, what: &str) {
        self.out.tally.read(what, 1);
        self.out.kept(what);
    }

    /// One `what` at `at` read and left out, because `why`.
    pub fn left(&mut self, at: &At, what: &str, why: &str) {
        self.out.tally.read(what, 1);
        let a = crate::steps::known::article(what);
        let text = format!("{}: {a} {what} is left out: {why}", at.text());
        self.out.noted(self.message, what, text);
    }

    /// One `what` at `at` read and left out because `why`, where a file
    /// may hold many (a member on every part): counted each time, said
    /// once per kind, with how many and where the first stood.
    pub fn aside(&mut self, at: &At, what: &str, why: &'static str) {
        self.out.tally.read(what, 1);
        self.out.tally.noted(what);
        match self.asides.iter_mut().find(|a| a.0 == what) {
            Some(a) => a.4 += 1,
            None => {
                let first = (what.to_owned(), why, self.message, at.text(), 1);
                self.asides.push(first);
            }
        }
    }

    /// The members of `value` (at `at`) other than `known`: each left
    /// out, said once per name.
    pub fn others(&mut self, value: &Value, at: &At, known: &[&str]) {
        for key in value.as_object().into_iter().flat_map(|o| o.keys()) {
            if !known.contains(&key.as_str()) {
                let what = format!("`{key}` member");
                self.aside(
                    &at.member(key),
                    &what,
                    "a member the library's own types do not list",
                );
            }
        }
    }

    /// One `what` at `at` read and kept in another form: `how`.
    pub fn changed(&mut self, at: &At, what: &str, how: &str) {
        self.out.tally.read(what, 1);
        let a = crate::steps::known::article(what);
        let text = format!("{}: {a} {what} is kept in another form: {how}", at.text());
        self.out.noted(self.message, what, text);
    }

    /// A `what` of a type (`kind`) the reader was not written for, at
    /// `at`: an error naming the types it knows, or, with `--keep-unknown`,
    /// left out with a note. Never kept: what is not known is not sent.
    pub fn unknown(
        &mut self,
        at: &At,
        what: &str,
        kind: &str,
        known: &[&str],
    ) -> Result<(), ImportError> {
        if self.options.keep_unknown {
            let what = format!("{kind:?} {what}");
            self.left(
                at,
                &what,
                "a type this reader does not know (--keep-unknown)",
            );
            return Ok(());
        }
        Err(ImportError::at(
            &at.text(),
            format!(
                "a {what} of type {kind:?} is not one {} writes that this reader knows ({}); \
                 --keep-unknown leaves it out with a note",
                self.library,
                known.join(", ")
            ),
        ))
    }

    /// A `what` at `at` the carrier history cannot say faithfully
    /// (`why`): an error, or, with `--keep-unknown`, left out with a note.
    pub fn cannot(&mut self, at: &At, what: &str, why: &str) -> Result<(), ImportError> {
        if self.options.keep_unknown {
            self.left(at, what, &format!("{why} (--keep-unknown)"));
            return Ok(());
        }
        Err(ImportError::at(
            &at.text(),
            format!("{why}; --keep-unknown leaves the {what} out with a note"),
        ))
    }

    /// A member of `value` (at `at`) that must be a string.
    pub fn str<'v>(
        &self,
        value: &'v Value,
        at: &At,
        key: &'static str,
    ) -> Result<&'v str, ImportError> {
        value.get(key).and_then(Value::as_str).ok_or_else(|| {
            let what = match value.get(key) {
                None => "missing",
                Some(_) => "not a string",
            };
            ImportError::at(
                &at.key(key).text(),
                format!("{what}: a string was expected"),
            )
        })
    }

    /// A media payload at `at` (its text at `text_at`, for a base64 or
    /// `data:` payload): stored, and its target.
    pub fn store(
        &mut self,
        payload: Payload<'_>,
        at: &At,
        text_at: Option<At>,
    ) -> Result<String, ImportError> {
        let stored = matches!(payload, Payload::Base64(_) | Payload::DataUrl(_));
        let target = target(payload, &at.text(), self.store)?;
        if let (true, Some(text_at)) = (stored, text_at) {
            self.payloads.push(text_at);
        }
        Ok(target)
    }

    /// Bytes the file held in another form than text (a byte array):
    /// stored, and their target.
    pub fn store_bytes(&mut self, bytes: &[u8]) -> Result<String, ImportError> {
        Ok(self.store.put(bytes).map_err(ImportError::Store)?.target)
    }

    /// Run `f` with the store, the options and the history so far: a
    /// provider's reader reading a part of the file.
    pub fn with<T>(
        &mut self,
        f: impl FnOnce(&mut dyn MediaStore, &ImportOptions, &mut ImportedHistory) -> T,
    ) -> T {
        f(self.store, self.options, &mut self.out)
    }

    /// Where the payloads of `value` (at `at`), a provider's message
    /// another reader reads, stand.
    pub fn find_payloads(&mut self, value: &Value, at: &At) {
        for steps in super::payloads::paths(value) {
            let mut path = at.clone();
            for step in steps {
                path = match step {
                    Step::Key(k) => path.member(k),
                    Step::Index(i) => path.index(i),
                };
            }
            self.payloads.push(path);
        }
    }

    /// Append what another reader read.
    pub fn absorb(&mut self, part: ImportedHistory) {
        self.out.absorb(part);
    }

    /// Push a finished record.
    pub fn push(&mut self, role: &str, content: String) {
        self.out.push(role, content);
    }

    /// Push a user's own message, unless it holds nothing.
    pub fn push_user(&mut self, user: UserText) {
        user.push_to(&mut self.out);
    }

    /// The user's own media: counted as kept and declared.
    pub fn user_media(
        &mut self,
        user: &mut UserText,
        what: &str,
        mime: &str,
        target: String,
        name: Option<&str>,
    ) {
        self.out.tally.read(what, 1);
        user.media(&mut self.out, what, kind_of_inline(mime), target, name);
    }

    /// The history, each stored payload's place found in `doc`'s text
    /// (`line` its first line, from 1).
    pub fn finish(mut self, line: &Line<'_>) -> ImportedHistory {
        for (what, why, message, first, n) in std::mem::take(&mut self.asides) {
            let a = crate::steps::known::article(&what);
            let text = if n == 1 {
                format!("{first}: {a} {what} is left out: {why}")
            } else {
                format!("{n} {what}s (the first at {first}) are left out: {why}")
            };
            self.out.note(message, text);
        }
        for at in &self.payloads {
            if let Some(span) = crate::json::scan::locate(line.text, &at.steps()) {
                // Without the quotes.
                let span = span.start + 1..span.end - 1;
                self.out.payloads.push(PayloadSpan {
                    line: line.number,
                    path: at.text(),
                    span: line.start + span.start as u64..line.start + span.end as u64,
                });
            }
        }
        self.out
    }
}

/// An assistant's turn being gathered: its text, calls, and the reasoning
/// kept for the provider that wrote it.
#[derive(Default)]
pub(crate) struct Answer {
    text: Vec<String>,
    pub calls: Vec<Call>,
    /// Anthropic `thinking` blocks, with their signatures.
    thinking: Vec<Value>,
    /// OpenAI Responses items (`reasoning`).
    openai: Vec<Value>,
    /// Gemini thought signatures by call id.
    gemini: serde_json::Map<String, Value>,
}

impl Answer {
    pub fn text(&mut self, text: &str) {
        self.text.push(text.to_owned());
    }

    pub fn call(&mut self, id: &str, name: &str, arguments: String) {
        self.calls.push(Call {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments,
        });
    }

    /// Anthropic's `thinking` block, signed.
    pub fn thinking(&mut self, thinking: &str, signature: &str) {
        self.thinking.push(serde_json::json!({
            "type": "thinking", "thinking": thinking, "signature": signature,
        }));
    }

    /// Anthropic's `redacted_thinking` block.
    pub fn redacted(&mut self, data: &str) {
        self.thinking
            .push(serde_json::json!({"type": "redacted_thinking", "data": data}));
    }

    /// A summary part of OpenAI's reasoning item `id`: a new item, or one
    /// more summary of the item the part before began (the AI SDK keeps
    /// each summary part as a part of its own).
    pub fn openai_reasoning(&mut self, id: &str, summary: &str, encrypted: Option<&str>) {
        let same = self.openai.last_mut().filter(|last| {
            last.get("type").and_then(Value::as_str) == Some("reasoning")
                && last.get("id").and_then(Value::as_str) == Some(id)
        });
        let item = match same {
            Some(item) => item,
            None => {
                self.openai
                    .push(serde_json::json!({"type": "reasoning", "id": id, "summary": []}));
                self.openai.last_mut().expect("just pushed")
            }
        };
        if !summary.is_empty() {
            if let Some(list) = item["summary"].as_array_mut() {
                list.push(serde_json::json!({"type": "summary_text", "text": summary}));
            }
        }
        if let Some(encrypted) = encrypted {
            item["encrypted_content"] = Value::from(encrypted);
        }
    }

    /// A Gemini thought signature of call `id`.
    pub fn gemini_signature(&mut self, id: &str, signature: &str) {
        self.gemini.insert(id.to_owned(), Value::from(signature));
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
            && self.calls.is_empty()
            && self.thinking.is_empty()
            && self.openai.is_empty()
    }

    /// The record: plain text, or an envelope.
    pub fn push_to(self, build: &mut Build<'_>) {
        if self.is_empty() {
            return;
        }
        let text = self.text.join("\n");
        let mut extra = Vec::new();
        for (name, items) in [
            (ANTHROPIC_THINKING, self.thinking),
            (OPENAI_ITEMS, self.openai),
        ] {
            if !items.is_empty() {
                extra.push((name.to_owned(), Value::Array(items).to_string()));
            }
        }
        if !self.gemini.is_empty() {
            extra.push((
                GEMINI_SIGNATURES.to_owned(),
                Value::Object(self.gemini).to_string(),
            ));
        }
        if self.calls.is_empty() && extra.is_empty() {
            build.push("assistant", text);
        } else {
            build.push("assistant", assistant_envelope(&text, &self.calls, &extra));
        }
    }
}

/// A tool's result being gathered.
pub(crate) struct Output {
    env: Envelope,
}

impl Output {
    pub fn new(call_id: &str, is_error: bool) -> Output {
        Output {
            env: Envelope {
                call_id: Some(call_id.to_owned()),
                is_error,
                ..Envelope::default()
            },
        }
    }

    pub fn failed(&mut self) {
        self.env.is_error = true;
    }

    pub fn text(&mut self, text: &str) {
        self.env.line(text);
    }

    pub fn attach(&mut self, kind: AttachmentKind, target: String, name: Option<&str>) {
        attach(&mut self.env, kind, target, name);
    }

    pub fn push_to(self, build: &mut Build<'_>) {
        build.push("tool", self.env.render());
    }
}
