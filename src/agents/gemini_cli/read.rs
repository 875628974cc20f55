//! A Gemini CLI recording or checkpoint as a carrier history.
//!
//! A recording's lines are applied as Gemini CLI applies them when it
//! resumes: a message record replaces the one of its `id` where that one
//! stood (a record is written again whenever it changes: its tokens, its
//! tool calls), `{"$rewindTo": ID}` drops that message and every later
//! one, `{"$set": {"messages": […]}}` replaces them all, and other `$set`
//! members and the header are the session's settings. What is left is
//! read as Gemini `contents` by `import --from gemini`'s reader:
//!
//! | record | what becomes of it |
//! |---|---|
//! | `user` | a user content (text and the user's `inlineData`, declared as their `attachments`) |
//! | `user`, text starting with `/` or `?` | left out: a command to Gemini CLI, never sent to the model |
//! | `user`, only the `functionResponse`s of the `gemini` record before it (Gemini CLI 0.44 on writes them twice) | left out: the record's `toolCalls` are read |
//! | `gemini` | a model content: its text (or its parts, thought signatures with them), a `functionCall` for each of its `toolCalls` |
//! | `toolCalls[].result` | a user content of the results after it; an `inlineData` part beside a `functionResponse` (Gemini CLI's form before Gemini 3) is that result's attachment |
//! | `gemini` `thoughts` | left out: Gemini CLI's summaries of the model's thinking, no part the model sent |
//! | `info`, `error`, `warning` | left out: Gemini CLI's own notices |
//!
//! A checkpoint (`{"history": [Content…]}`, or the bare list older
//! versions wrote) is read as Gemini `contents` as it is.

use std::collections::HashMap;
use std::io::BufRead;

use serde_json::{json, Value};

use crate::apis::gemini::read::read as read_contents;
use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory, PayloadSpan};

use super::super::left::Left;
use super::super::lines::{Line, Lines};
use super::super::payloads::{self, Step};
use super::super::segment::Segment;
use super::held::Held;

/// Read a Gemini CLI recording or checkpoint.
///
/// # Errors
/// [`ImportError`] naming the line (and the JSON path in it) of what is
/// not Gemini CLI's, or of a part the Gemini reader refuses.
pub(crate) fn read(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut lines = Lines::new(input);
    let mut out = ImportedHistory::default();
    let mut left = Left::default();
    let mut records = Records::default();
    let mut first = true;
    while let Some(line) = lines.next_line()? {
        let Ok(value) = serde_json::from_str::<Value>(line.text) else {
            if first {
                // One JSON document over many lines (a checkpoint, a
                // session before 0.39): its first line is no JSON alone.
                let (number, start, text) = lines.rest()?;
                let line = Line {
                    number,
                    start,
                    text: &text,
                };
                let value = line.value()?;
                return document(&line, value, store, options, out, left);
            }
            // As Gemini CLI does (a line cut short when it stopped).
            left.one(
                &mut out,
                "line that is no JSON",
                line.number,
                "Gemini CLI passes over it too (a line cut short when it stopped)",
            );
            continue;
        };
        first = false;
        records.line(&line, value, store, &mut out, &mut left)?;
    }
    records.read(store, options, &mut out, &mut left)?;
    left.finish(&mut out);
    Ok(out)
}

/// A whole-file session, or a checkpoint.
fn document(
    line: &Line<'_>,
    value: Value,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
    mut out: ImportedHistory,
    mut left: Left,
) -> Result<ImportedHistory, ImportError> {
    let history = match &value {
        Value::Array(_) => Some(("$", &value)),
        Value::Object(o) => o.get("history").map(|h| ("$.history", h)),
        _ => None,
    };
    if let Some((path, history)) = history {
        let mut part =
            read_contents(history, store, options).map_err(|e| e.under(&line.at(path)))?;
        for note in &mut part.notes {
            note.text = format!(
                "{}{}",
                line.at(path),
                note.text.strip_prefix('$').unwrap_or(&note.text)
            );
        }
        payloads::find(line, &[], &value, &mut part.payloads);
        out.absorb(part);
        left.finish(&mut out);
        return Ok(out);
    }
    let mut records = Records::default();
    records.header(line, &value, &mut out, &mut left)?;
    let Some(messages) = value.get("messages").and_then(Value::as_array) else {
        return Err(ImportError::at(
            &line.at("$"),
            "neither a recording (`messages`) nor a checkpoint (`history`) of Gemini CLI",
        ));
    };
    for (i, m) in messages.iter().enumerate() {
        let root = [Step::Key("messages"), Step::Index(i)];
        records.message(line, &format!("$.messages[{i}]"), m.clone(), &root, store)?;
    }
    records.read(store, options, &mut out, &mut left)?;
    left.finish(&mut out);
    Ok(out)
}

/// The session's messages as the lines so far leave them.
#[derive(Default)]
struct Records {
    list: Vec<Option<Record>>,
    by_id: HashMap<String, usize>,
    held: Held,
}

struct Record {
    line: usize,
    /// Its path in its line.
    path: String,
    /// Its JSON text (its media moved out): held as text, it takes about
    /// its size, where a `Value` takes several times that.
    text: Box<str>,
    payloads: Vec<PayloadSpan>,
}

impl Records {
    fn line(
        &mut self,
        line: &Line<'_>,
        value: Value,
        store: &mut dyn MediaStore,
        out: &mut ImportedHistory,
        left: &mut Left,
    ) -> Result<(), ImportError> {
        let n = line.number;
        if let Some(id) = value.get("$rewindTo").and_then(Value::as_str) {
            left.one(
                out,
                "$rewindTo line",
                n,
                "a rewind: the messages from the one it names on are dropped",
            );
            match self.by_id.get(id).copied() {
                Some(at) => self.list.truncate(at),
                // As Gemini CLI does: a rewind to no message drops them all.
                None => self.list.clear(),
            }
            self.by_id.retain(|_, at| *at < self.list.len());
            return Ok(());
        }
        if value.get("id").is_some_and(Value::is_string) {
            return self.message(line, "$", value, &[], store);
        }
        if let Some(set) = value.get("$set").filter(|s| s.is_object()) {
            left.one(
                out,
                "$set line",
                n,
                "the session's settings (a `messages` member replaces the messages)",
            );
            if let Some(messages) = set.get("messages").and_then(Value::as_array) {
                self.list.clear();
                self.by_id.clear();
                for (i, m) in messages.iter().enumerate() {
                    let path = format!("$.$set.messages[{i}]");
                    let root = [Step::Key("$set"), Step::Key("messages"), Step::Index(i)];
                    self.message(line, &path, m.clone(), &root, store)?;
                }
            }
            return Ok(());
        }
        self.header(line, &value, out, left)
    }

    fn header(
        &mut self,
        line: &Line<'_>,
        value: &Value,
        out: &mut ImportedHistory,
        left: &mut Left,
    ) -> Result<(), ImportError> {
        if value.get("sessionId").is_some_and(Value::is_string) {
            left.one(
                out,
                "session header",
                line.number,
                "the session's settings, no message",
            );
            return Ok(());
        }
        Err(ImportError::at(
            &line.at("$"),
            "not a line of a Gemini CLI recording: no `id`, `$set`, `$rewindTo` or `sessionId`",
        ))
    }

    /// A message record (at `path` in its line, `root` as member steps).
    fn message(
        &mut self,
        line: &Line<'_>,
        path: &str,
        mut value: Value,
        root: &[Step<'_>],
        store: &mut dyn MediaStore,
    ) -> Result<(), ImportError> {
        let Some(id) = value.get("id").and_then(Value::as_str).map(str::to_owned) else {
            return Err(ImportError::at(
                &line.at(path),
                "a message record without an `id`",
            ));
        };
        let mut spans = Vec::new();
        payloads::find(line, root, &value, &mut spans);
        // Where the reader stores media (a user's content, a call's
        // result), they go to the store now; a model's own parts are
        // kept as they are, so theirs stay.
        let held = &mut self.held;
        let mut take = |v: Option<&mut Value>| match v {
            Some(v) => held.take(v, store).map_err(ImportError::Store),
            None => Ok(()),
        };
        match value.get("type").and_then(Value::as_str) {
            Some("user") => take(value.get_mut("content"))?,
            Some("gemini") => {
                let calls = value.get_mut("toolCalls").and_then(Value::as_array_mut);
                for call in calls.into_iter().flatten() {
                    take(call.get_mut("result"))?;
                }
            }
            _ => {}
        }
        let record = Record {
            line: line.number,
            path: path.to_owned(),
            text: value.to_string().into_boxed_str(),
            payloads: spans,
        };
        match self.by_id.get(&id) {
            Some(&at) => self.list[at] = Some(record),
            None => {
                self.by_id.insert(id, self.list.len());
                self.list.push(Some(record));
            }
        }
        Ok(())
    }

    /// Read what is left, in order.
    fn read(
        self,
        store: &mut dyn MediaStore,
        options: &ImportOptions,
        out: &mut ImportedHistory,
        left: &mut Left,
    ) -> Result<(), ImportError> {
        let Records { list, mut held, .. } = self;
        let mut store = held.store(store);
        let store: &mut dyn MediaStore = &mut store;
        let mut segment = Segment::default();
        let mut answered: Vec<String> = Vec::new();
        for record in list.into_iter().flatten() {
            let (n, path) = (record.line, record.path.as_str());
            let v: Value = serde_json::from_str(&record.text).expect("a record's own JSON text");
            let at = |p: &str| format!("line {n}: {path}{p}");
            match v.get("type").and_then(Value::as_str) {
                Some("user") => {
                    let parts = parts_of(v.get("content"), &at("$.content"))?;
                    if command(&parts) {
                        left.one(
                            out,
                            "command record",
                            n,
                            "a command to Gemini CLI, never sent to the model",
                        );
                        continue;
                    }
                    if repeats(&parts, &answered) {
                        left.one(out, "repeated results record", n, "it repeats the toolCalls results of the gemini record before it, which are read");
                        continue;
                    }
                    // A prompt: what came before it is a whole run of turns.
                    segment.read(read_contents, "contents", store, options, out)?;
                    answered.clear();
                    let origins = (0..parts.len())
                        .map(|i| format!("{path}.content[{i}]"))
                        .collect();
                    segment.push_parts(json!({"role": "user", "parts": parts}), n, path, origins);
                }
                Some("gemini") => {
                    answered = gemini(&mut segment, &record, &v, out, left)?;
                }
                Some(kind @ ("info" | "error" | "warning")) => {
                    left.one(
                        out,
                        &format!("{kind} record"),
                        n,
                        "Gemini CLI's own notice, never sent to the model",
                    );
                }
                Some(other) => {
                    return Err(ImportError::at(
                        &at(".type"),
                        format!(
                            "a record of type {other:?}, which this reader was not written for"
                        ),
                    ))
                }
                None => {
                    return Err(ImportError::at(
                        &at(""),
                        "a message record without a `type`",
                    ))
                }
            }
            out.payloads.extend(record.payloads);
        }
        segment.read(read_contents, "contents", store, options, out)?;
        for target in held.unused() {
            out.note(
                0,
                format!(
                    "{target}: written from a record a later line replaced or \
                     dropped; no record names it"
                ),
            );
        }
        Ok(())
    }
}

/// A content (`PartListUnion`) as a list of parts.
fn parts_of(content: Option<&Value>, at: &str) -> Result<Vec<Value>, ImportError> {
    let text = |s: &str| json!({"text": s});
    match content {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) if s.is_empty() => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![text(s)]),
        Some(Value::Array(items)) => Ok(items
            .iter()
            .map(|p| match p {
                Value::String(s) => text(s),
                other => other.clone(),
            })
            .collect()),
        Some(part @ Value::Object(_)) => Ok(vec![part.clone()]),
        Some(_) => Err(ImportError::at(
            at,
            "a content is text, a part or a list of them",
        )),
    }
}

/// Whether a user's parts are a command to Gemini CLI (its first text).
fn command(parts: &[Value]) -> bool {
    let first = parts
        .iter()
        .find_map(|p| p.get("text").and_then(Value::as_str));
    first.is_some_and(|t| t.starts_with('/') || t.starts_with('?'))
}

/// Whether a user's parts are only responses to calls in `answered`
/// (and media beside them).
fn repeats(parts: &[Value], answered: &[String]) -> bool {
    let mut any = false;
    for p in parts {
        if let Some(r) = p.get("functionResponse") {
            match r.get("id").and_then(Value::as_str) {
                Some(id) if answered.iter().any(|a| a == id) => any = true,
                _ => return false,
            }
        } else if p.get("inlineData").is_none() {
            return false;
        }
    }
    any
}

/// A `gemini` record: its model content and its results, pushed on
/// `segment`; the ids of the calls it answered.
fn gemini(
    segment: &mut Segment,
    record: &Record,
    v: &Value,
    out: &mut ImportedHistory,
    left: &mut Left,
) -> Result<Vec<String>, ImportError> {
    let (n, path) = (record.line, record.path.as_str());
    let mut parts = parts_of(v.get("content"), &format!("line {n}: {path}.content"))?;
    let mut origins: Vec<String> = (0..parts.len())
        .map(|i| format!("{path}.content[{i}]"))
        .collect();
    if let Some(thoughts) = v.get("thoughts").and_then(Value::as_array) {
        for _ in thoughts {
            left.one(
                out,
                "thought summary",
                n,
                "Gemini CLI's summary of the model's thinking, no part the model sent",
            );
        }
    }
    let calls = match v.get("toolCalls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(calls)) => calls.as_slice(),
        Some(_) => {
            return Err(ImportError::at(
                &format!("line {n}: {path}.toolCalls"),
                "not a list of tool calls",
            ))
        }
    };
    let mut results = Vec::new();
    let mut result_origins = Vec::new();
    let mut ids = Vec::new();
    for (c, call) in calls.iter().enumerate() {
        let cat = format!("{path}.toolCalls[{c}]");
        let (Some(id), Some(name)) = (
            call.get("id").and_then(Value::as_str),
            call.get("name").and_then(Value::as_str),
        ) else {
            return Err(ImportError::at(
                &format!("line {n}: {cat}"),
                "a tool call needs an `id` and a `name`",
            ));
        };
        ids.push(id.to_owned());
        let written = parts
            .iter()
            .any(|p| p.pointer("/functionCall/id").and_then(Value::as_str) == Some(id));
        if !written {
            let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
            parts.push(json!({"functionCall": {"id": id, "name": name, "args": args}}));
            origins.push(cat.clone());
        }
        let result = parts_of(call.get("result"), &format!("line {n}: {cat}.result"))?;
        for (r, part) in result.into_iter().enumerate() {
            let rat = format!("{cat}.result[{r}]");
            // Media beside a response (before Gemini 3) is the response's.
            let beside = part.get("inlineData").is_some()
                && results
                    .last()
                    .is_some_and(|p: &Value| p.get("functionResponse").is_some());
            if beside {
                let last = results.last_mut().expect("checked");
                let response = last.get_mut("functionResponse").expect("checked");
                match response.get_mut("parts").and_then(Value::as_array_mut) {
                    Some(list) => list.push(part),
                    None => response["parts"] = json!([part]),
                }
                continue;
            }
            results.push(part);
            result_origins.push(rat);
        }
    }
    if !parts.is_empty() {
        segment.push_parts(json!({"role": "model", "parts": parts}), n, path, origins);
    }
    if !results.is_empty() {
        segment.push_parts(
            json!({"role": "user", "parts": results}),
            n,
            path,
            result_origins,
        );
    }
    Ok(ids)
}
