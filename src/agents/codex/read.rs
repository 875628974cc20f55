//! A Codex rollout as a carrier history.
//!
//! | line | what becomes of it |
//! |---|---|
//! | `response_item` | its payload read as a Responses input item by `import --from openai-responses`'s reader: messages (a user's `input_image` their `attachments`), `function_call` and `function_call_output` (an array output's `input_image` the result's attachment: `view_image`, MCP screenshots), `reasoning` and other items the Responses API takes kept for it |
//! | `custom_tool_call` (`apply_patch`) and its `custom_tool_call_output` | a function call whose one argument `input` is the text, and its result, so that every provider can take it |
//! | `local_shell_call` | a function call `local_shell`, its `action` the arguments |
//! | a message's `end_turn` and `phase` | left out: Codex's own marks |
//! | `ghost_snapshot` | left out: Codex's own undo snapshot |
//! | `compacted` | everything before it left out; its `replacement_history` read in its place, or, without one, its summary as a user message |
//! | `session_meta`, `turn_context`, `event_msg` | left out: the session's settings and Codex's own events (what the model saw is in the items) |
//! | lines of rollouts before Codex 0.33 (no envelope: bare items after a bare header) | read the same way |
//!
//! A turn's items (from one user message to the next) are held until the
//! next begins: a rollout of any size is read in the memory of its
//! largest turn.

use serde_json::{json, Value};

use crate::apis::openai_responses::read::read as read_items;
use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::calls;
use super::super::left::Left;
use super::super::lines::{Line, Lines};
use super::super::payloads::{self, Step};
use super::super::segment::Segment;

/// Read a Codex rollout.
///
/// # Errors
/// [`ImportError`] naming the line (and the JSON path in it) of what is
/// not a rollout line, or of an item the Responses reader refuses.
pub(crate) fn read(
    input: &mut dyn std::io::BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut lines = Lines::new(input);
    let mut reader = Reader {
        store,
        options,
        out: ImportedHistory::default(),
        turn: Segment::default(),
        turn_out: ImportedHistory::default(),
        left: Left::default(),
    };
    while let Some(line) = lines.next_line()? {
        let value = line.value()?;
        reader.line(&line, value)?;
    }
    reader.close()?;
    let mut out = reader.out;
    reader.left.finish(&mut out);
    Ok(out)
}

struct Reader<'a> {
    store: &'a mut dyn MediaStore,
    options: &'a ImportOptions,
    out: ImportedHistory,
    /// The turn's items, and what was counted of their lines.
    turn: Segment,
    turn_out: ImportedHistory,
    left: Left,
}

impl Reader<'_> {
    fn line(&mut self, line: &Line<'_>, mut v: Value) -> Result<(), ImportError> {
        let n = line.number;
        let Some(kind) = v.get("type").and_then(Value::as_str).map(str::to_owned) else {
            if v.get("record_type").is_some() {
                self.left.one(
                    &mut self.out,
                    "state line",
                    n,
                    "Codex's own record, no item",
                );
                return Ok(());
            }
            if v.get("id").is_some() && v.get("timestamp").is_some() {
                self.left.one(
                    &mut self.out,
                    "session header",
                    n,
                    "the session's settings, no item",
                );
                return Ok(());
            }
            return Err(ImportError::at(
                &line.at("$"),
                "no `type`: not a line of a Codex rollout",
            ));
        };
        // Rollouts before 0.33 hold bare items, without the envelope.
        let (item, root): (Value, &[Step<'_>]) = match kind.as_str() {
            "response_item" => match v.get_mut("payload").map(Value::take) {
                Some(item @ Value::Object(_)) => (item, &[Step::Key("payload")]),
                _ => {
                    return Err(ImportError::at(
                        &line.at("$.payload"),
                        "a response_item line without an item object",
                    ))
                }
            },
            "compacted" => return self.compacted(line, &v),
            "session_meta" | "turn_context" | "event_msg" => {
                let version = v.pointer("/payload/cli_version").and_then(Value::as_str);
                if let (Some(version), "session_meta") = (version, kind.as_str()) {
                    let keep = self.options.keep_unknown;
                    let path = "$.payload.cli_version";
                    super::super::version::check(line, path, "Codex", version, &MAJORS, keep)?;
                }
                let why = match kind.as_str() {
                    "session_meta" => "the session's settings, no item",
                    "turn_context" => "a turn's settings (model, sandbox, instructions), no item",
                    _ => "Codex's own event: what the model saw is in the items",
                };
                self.left
                    .one(&mut self.out, &format!("{kind} line"), n, why);
                return Ok(());
            }
            _ if v.get("payload").is_some() => {
                return Err(ImportError::at(
                    &line.at("$.type"),
                    format!("a line of type {kind:?}, which this reader was not written for"),
                ))
            }
            _ => (v, &[]),
        };
        let path = if root.is_empty() { "$" } else { "$.payload" };
        payloads::find(line, root, &item, &mut self.turn_out.payloads);
        self.item(line, path, item)
    }

    /// One item, at `path` in its line.
    fn item(&mut self, line: &Line<'_>, path: &str, mut item: Value) -> Result<(), ImportError> {
        let n = line.number;
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match kind.as_str() {
            "ghost_snapshot" => {
                self.left.one(
                    &mut self.turn_out,
                    "ghost_snapshot item",
                    n,
                    "Codex's own undo snapshot, never sent to the model",
                );
                return Ok(());
            }
            "message" => {
                if let Some(m) = item.as_object_mut() {
                    for mark in ["end_turn", "phase"] {
                        if m.remove(mark).is_some() {
                            self.left.one(
                                &mut self.turn_out,
                                &format!("{mark} member"),
                                n,
                                "Codex's own mark on a message",
                            );
                        }
                    }
                }
                if item.get("role").and_then(Value::as_str) == Some("user") {
                    self.close()?;
                }
            }
            "custom_tool_call" | "local_shell_call" | "custom_tool_call_output" => {
                let at = line.at(path);
                item = calls::as_function(&kind, &item, &at)?;
                let what = format!("{kind} item");
                self.left
                    .changed(&mut self.turn_out, &what, line.number, calls::how(&kind));
            }
            _ => {}
        }
        self.turn.push(item, n, path);
        Ok(())
    }

    /// Read the turn so far.
    fn close(&mut self) -> Result<(), ImportError> {
        self.turn
            .read(read_items, "input", self.store, self.options, &mut self.out)?;
        let counted = std::mem::take(&mut self.turn_out);
        self.out.absorb(counted);
        Ok(())
    }

    /// A compaction: what came before is left out; what replaced it read.
    fn compacted(&mut self, line: &Line<'_>, v: &Value) -> Result<(), ImportError> {
        let n = line.number;
        self.close()?;
        let mut before = std::mem::take(&mut self.out);
        let records = before.messages.len();
        before.tally.all_left_out();
        before.messages.clear();
        before.payloads.clear();
        self.out = before;
        self.left.one(
            &mut self.out,
            "compacted line",
            n,
            "a compaction: what came before it is out of the conversation",
        );
        let payload = v.get("payload").unwrap_or(&Value::Null);
        let replaced = payload.get("replacement_history").and_then(Value::as_array);
        self.out.note(
            n - 1,
            format!(
                "line {n}: a compaction: the {records} records before it are left out, \
                 as Codex sends {} in their place",
                if replaced.is_some() {
                    "its replacement history"
                } else {
                    "its summary"
                }
            ),
        );
        match replaced {
            Some(items) => {
                let root = [Step::Key("payload"), Step::Key("replacement_history")];
                payloads::find(
                    line,
                    &root,
                    &Value::Array(items.clone()),
                    &mut self.turn_out.payloads,
                );
                for (i, item) in items.iter().enumerate() {
                    let path = format!("$.payload.replacement_history[{i}]");
                    self.item(line, &path, item.clone())?;
                }
            }
            None => {
                let summary = payload
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let item = json!({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": summary}]});
                self.item(line, "$.payload.message", item)?;
            }
        }
        Ok(())
    }
}

/// The Codex releases whose rollouts the reader was written for: 0.x
/// (the envelope since 0.33, bare items before it).
const MAJORS: std::ops::RangeInclusive<u64> = 0..=0;
