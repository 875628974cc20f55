//! LangChain (`langchain-core`): messages saved as `messages_to_dict`
//! writes them (what its chat message histories store) or as `dumpd`
//! writes them (its serializer, what LangGraph's checkpoints hold).

pub(crate) mod read;

use std::io::BufRead;

use serde_json::Value;

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::build::{At, Build, Document};
use super::lines::Line;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "PyPI langchain-core 1.8.3: langchain_core/messages/base.py \
    (message_to_dict, messages_to_dict), ai.py (AIMessage, tool_calls, invalid_tool_calls), \
    tool.py (ToolMessage, status, artifact), human.py, system.py, content.py and \
    block_translators/ (the standard content blocks of 0.3 and 1), load/dump.py and \
    serializable.py (dumpd)";

/// A list of saved messages: `{type, data}` with a message type, or
/// `{lc, type: "constructor", id: [.., "…Message"], kwargs}`.
pub(crate) fn sniff(first: &Value) -> bool {
    first.as_array().is_some_and(|messages| {
        !messages.is_empty()
            && messages.iter().all(|m| {
                let dict = m.get("data").is_some_and(Value::is_object)
                    && m.get("type").and_then(Value::as_str).is_some();
                let dumped = m.get("lc").is_some()
                    && m.get("kwargs").is_some()
                    && m.get("id")
                        .and_then(Value::as_array)
                        .and_then(|id| id.last())
                        .and_then(Value::as_str)
                        .is_some_and(|c| c.contains("Message"));
                dict || dumped
            })
    })
}

/// Read saved messages.
///
/// # Errors
/// [`ImportError`] naming the path of what is not LangChain's.
pub(crate) fn read(
    input: &mut dyn BufRead,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let doc = Document::read(input)?;
    let line = Line {
        number: 1,
        start: 0,
        text: &doc.text,
    };
    let Some(messages) = doc.value.as_array() else {
        return Err(ImportError::at(
            "$",
            "not a list of LangChain's saved messages (messages_to_dict or dumpd)",
        ));
    };
    let mut b = Build::new("LangChain", store, options);
    for (m, message) in messages.iter().enumerate() {
        b.message(m);
        read::message(&mut b, message, &At::root().index(m))?;
    }
    Ok(b.finish(&line))
}
