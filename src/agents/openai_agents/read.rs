//! An OpenAI Agents SDK session's items, one per line (the
//! `message_data` column of its SQLite, SQLAlchemy or Redis session, in
//! order) as a carrier history.
//!
//! | item | what becomes of it |
//! |---|---|
//! | messages, `function_call`, `function_call_output`, `reasoning`, hosted tools' items | read by `import --from openai-responses`'s reader: a user's `input_image` / `input_file` their `attachments`, an array output's images and files the result's, reasoning and the hosted tools' items kept as the envelope's `openai_items` |
//! | `computer_call` and its `computer_call_output` | a function call `computer` (its actions the arguments) and its result, the screenshot the result's image, so that every provider sees it |
//! | `custom_tool_call`, `local_shell_call` and their outputs | a function call and its result, as Codex's |
//! | `provider_data`, the placeholder id `__fake_id__` | left out, with a note: what the SDK keeps of a model other than OpenAI's, which no API takes back |
//! | an encrypted row (`EncryptedSession`'s `__enc__` envelope) | an error: it is read once the SDK has decrypted it |
//!
//! A turn's items (from one user message to the next) are held until the
//! next begins: a session of any length is read in the memory of its
//! largest turn.

use serde_json::Value;

use crate::apis::openai_responses::read::read as read_items;
use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::calls;
use super::super::left::Left;
use super::super::lines::{Line, Lines};
use super::super::payloads;
use super::super::segment::Segment;

/// The id the SDK gives the items of a model other than OpenAI's.
const FAKE_ID: &str = "__fake_id__";

/// Read a session's items, one JSON object a line.
///
/// # Errors
/// [`ImportError`] naming the line (and the JSON path in it) of what is
/// not an item, or of an item the Responses reader refuses.
pub(crate) fn read(
    input: &mut dyn std::io::BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let mut lines = Lines::new(input);
    let mut items = Items::new(store, options);
    while let Some(line) = lines.next_line()? {
        let value = line.value()?;
        items.line(&line, value)?;
    }
    items.finish()
}

/// Items being read a turn at a time.
pub(crate) struct Items<'a> {
    store: &'a mut dyn MediaStore,
    options: &'a ImportOptions,
    out: ImportedHistory,
    turn: Segment,
    turn_out: ImportedHistory,
    left: Left,
}

impl<'a> Items<'a> {
    pub fn new(store: &'a mut dyn MediaStore, options: &'a ImportOptions) -> Items<'a> {
        Items {
            store,
            options,
            out: ImportedHistory::default(),
            turn: Segment::default(),
            turn_out: ImportedHistory::default(),
            left: Left::default(),
        }
    }

    /// The item `item` on `line`.
    pub fn line(&mut self, line: &Line<'_>, mut item: Value) -> Result<(), ImportError> {
        let n = line.number;
        let Some(map) = item.as_object_mut() else {
            return Err(ImportError::at(
                &line.at("$"),
                "not an item: an object was expected",
            ));
        };
        if map.contains_key("__enc__") {
            return Err(ImportError::at(
                &line.at("$"),
                "an item the SDK's EncryptedSession encrypted: read the session through it \
                 (get_items) and import what it returns",
            ));
        }
        if map.remove("provider_data").is_some() {
            self.left.one(
                &mut self.turn_out,
                "provider_data member",
                n,
                "what the SDK keeps of a model other than OpenAI's (a thought signature, thinking blocks), which no Responses item holds",
            );
        }
        if map.get("id").and_then(Value::as_str) == Some(FAKE_ID) {
            map.remove("id");
            self.left.one(
                &mut self.turn_out,
                "placeholder id",
                n,
                "the SDK's `__fake_id__` for an item a model other than OpenAI's made, which no API knows",
            );
        }
        let kind = map.get("type").and_then(Value::as_str).map(str::to_owned);
        let role = map.get("role").and_then(Value::as_str);
        let is_user = role == Some("user") && matches!(kind.as_deref(), None | Some("message"));
        if is_user {
            self.close()?;
        }
        payloads::find(line, &[], &item, &mut self.turn_out.payloads);
        let item = match kind.as_deref() {
            Some(kind) if calls::KINDS.contains(&kind) => {
                let what = format!("{kind} item");
                self.left
                    .changed(&mut self.turn_out, &what, n, calls::how(kind));
                calls::as_function(kind, &item, &line.at("$"))?
            }
            _ => item,
        };
        self.turn.push(item, n, "$");
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

    /// The history.
    pub fn finish(mut self) -> Result<ImportedHistory, ImportError> {
        self.close()?;
        let mut out = self.out;
        self.left.finish(&mut out);
        Ok(out)
    }
}
