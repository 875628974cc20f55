//! The OpenAI Agents SDK for Python: a session's items (Responses input
//! items), one JSON object a line as its SQLite, SQLAlchemy and Redis
//! sessions keep them; with the `sqlite` feature, a `SQLiteSession`'s
//! database file itself ([`db`]).

#[cfg(feature = "sqlite")]
pub(crate) mod db;
pub(crate) mod read;

use serde_json::Value;

/// Where the format comes from.
pub(crate) const SOURCE: &str = "PyPI openai-agents 0.24.0 (with openai 3.60.0): \
    agents/memory/sqlite_session.py (tables agent_sessions, agent_messages; message_data = \
    json.dumps(item)), agents/memory/session.py, agents/items.py (TResponseInputItem, \
    run_item_to_input_item), agents/run_internal/tool_actions.py (computer_call_output), \
    agents/models/fake_id.py and chatcmpl_converter.py (__fake_id__, provider_data), \
    agents/extensions/memory/ (sqlalchemy_session.py, redis_session.py, encrypt_session.py)";

/// Never by shape: a session's items are Responses input items, which
/// `--from openai-responses` reads as well; `--from openai-agents` is
/// asked for by name (it also makes computer calls' screenshots images).
pub(crate) fn sniff(first: &Value) -> bool {
    let _ = first;
    false
}
