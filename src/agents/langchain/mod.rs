//! LangChain (`langchain-core`): messages saved as `messages_to_dict`
//! writes them (what its chat message histories store) or as `dumpd`
//! writes them (its serializer, what LangGraph's checkpoints hold).

mod message;
pub(crate) mod read;

use serde_json::Value;

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
