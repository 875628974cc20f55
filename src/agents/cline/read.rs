//! A stored Cline or Roo Code history, read whole: the plain list of
//! messages, or Cline's session file (version 1) around them
//! ([`messages`](super::messages)).

use std::io::BufRead;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::build::{read_document, At};

use super::messages;

/// Read a stored history.
///
/// # Errors
/// [`ImportError`] naming the path of what is not the extensions' shape,
/// or of a block the Anthropic reader refuses.
pub(crate) fn read(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    read_document(
        "Cline or Roo Code",
        input,
        store,
        options,
        |b, value| match value {
            Value::Array(messages) => messages::messages(b, messages, &At::root()),
            Value::Object(o) => {
                let version = o.get("version").and_then(Value::as_u64);
                if version != Some(1) {
                    return Err(ImportError::at(
                    "$.version",
                    format!(
                        "a stored history of version {}: this reader knows Cline's version 1 and the plain list of messages",
                        o.get("version").map_or("(none)".into(), Value::to_string)
                    ),
                ));
                }
                let root = At::root();
                for key in o.keys() {
                    if !matches!(key.as_str(), "messages" | "system_prompt" | "version") {
                        b.aside(
                            &root.member(key),
                            &format!("`{key}` member"),
                            "the session's own record (its id, times, agent), not sent to a model",
                        );
                    }
                }
                if let Some(system) = o.get("system_prompt").and_then(Value::as_str) {
                    b.kept("system prompt");
                    b.push("system", system.to_owned());
                }
                let messages = o.get("messages").and_then(Value::as_array).ok_or_else(|| {
                    ImportError::at("$.messages", "a session file's messages must be a list")
                })?;
                messages::messages(b, messages, &root.key("messages"))
            }
            _ => Err(ImportError::at(
                "$",
                "neither a list of stored messages nor a session file of Cline's",
            )),
        },
    )
}
