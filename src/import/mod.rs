//! Reading what agents already store into carrier histories. One entry
//! per kind of input, each taking the format it reads:
//!
//! * [`from_provider`]: a request body written for a [`Provider`] (or its
//!   messages) as a carrier history ([`ImportedHistory`]).
//! * [`from_response`], [`response_stream`] and [`read_response`]: a
//!   provider's response, the body or its stream, as one assistant turn
//!   ([`AssistantTurn`](crate::history::AssistantTurn)) keeping the stop
//!   reason and usage as envelope members.
//! * [`from_agent`]: an agent's or agent library's saved session, by the
//!   agents table ([`Agent`]).
//! * [`from_mcp`]: an MCP `CallToolResult` as a native carrier.
//! * [`read_records`]: a history whose records are `{role, content}` or
//!   spelled the OpenAI Chat way (`tool_calls`, `tool_call_id`, content
//!   parts), each Chat record read as a Chat request's message is.
//! * [`read_auto`]: any of these, told apart by their first bytes.
//!
//! Inline payloads (base64 images, blobs) go to a
//! [`MediaStore`](crate::media::store::MediaStore): files named by the
//! SHA-256 of their bytes under a folder
//! ([`DirStore`](crate::media::store::DirStore)), or `data:` targets
//! ([`InlineStore`](crate::media::store::InlineStore)). A tool's error flag
//! becomes the envelope member [`IS_ERROR`](crate::IS_ERROR).

use crate::apis::api;
use crate::facts::Provider;

mod mcp;
#[cfg(test)]
pub(crate) use mcp::known as mcp_known;
mod auto;
mod record;

pub use crate::agents::{Agent, UnknownAgent};
pub use crate::steps::audit::ImportOptions;
pub(crate) use crate::steps::imported::kind_of_mime;
pub use crate::steps::imported::{ImportError, ImportNote, Imported, ImportedHistory, PayloadSpan};
pub use crate::steps::response::{ResponseError, ResponseForm, ResponseStream};
pub use auto::{read_auto, AutoError, AutoRead, Detected};
pub use mcp::from_mcp;
pub use record::read_records;
pub(crate) use record::{read_chat, spelling};
pub(crate) use record::{ReadRecordError, Spelling};

/// Read an agent's transcript, a line (or a turn) at a time, as a
/// carrier history, saying where each media payload it keeps stood in the
/// input ([`ImportedHistory::payloads`]).
///
/// ```
/// use tool_carrier::import::{from_agent, Agent, ImportOptions};
/// use tool_carrier::media::store::InlineStore;
///
/// let transcript = concat!(
///     r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","version":"2.0.14","isSidechain":false,"message":{"role":"user","content":"Look at the page."}}"#, "\n",
///     r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","version":"2.0.14","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"It is blank."}]}}"#, "\n",
/// );
/// let h = from_agent(Agent::ClaudeCode, &mut transcript.as_bytes(), &mut InlineStore, &ImportOptions::new())?;
/// assert_eq!(h.messages[0], ("user", "Look at the page."));
/// assert_eq!(h.messages[1], ("assistant", "It is blank."));
/// # Ok::<(), tool_carrier::import::ImportError>(())
/// ```
///
/// # Errors
/// [`ImportError`] naming the line (and the JSON path in it) of what the
/// agent's reader does not read; [`ImportError::Read`] from `input`.
pub fn from_agent(
    agent: Agent,
    input: &mut dyn std::io::BufRead,
    store: &mut dyn crate::media::store::MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    (crate::agents::row(agent).read)(input, store, options)
}

/// Read session `session` (the only one, when `None`) of the database
/// file at `path` that `agent` keeps ([`Agent::keeps_database`]: the
/// OpenAI Agents SDK's `SQLiteSession`), opened read-only: its rows as
/// the agent's reader reads them a line at a time.
///
/// # Errors
/// [`ImportError::Read`] when the agent keeps no database, the file is no
/// database of the agent's, names no such session, or holds several and
/// `session` is `None`; a row's item as the reader's.
#[cfg(feature = "sqlite")]
pub fn from_agent_db(
    agent: Agent,
    path: &std::path::Path,
    session: Option<&str>,
    store: &mut dyn crate::media::store::MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let Some((_, read)) = crate::agents::DATABASES.iter().find(|(a, _)| *a == agent) else {
        return Err(ImportError::Read(std::io::Error::other(format!(
            "{} keeps no database file",
            agent.title()
        ))));
    };
    read(path, session, store, options)
}

/// Whether `head` (a file's first bytes) begins a SQLite database.
pub fn is_sqlite(head: &[u8]) -> bool {
    head.starts_with(b"SQLite format 3\0")
}

/// Read a request body written for `provider` (or its bare list of
/// messages, items or contents) as a carrier history, inline payloads put
/// in `store`. Every provider's bodies are read ([`Provider::ALL`]); an
/// OpenAI-compatible server's as Chat Completions. With
/// [`ImportOptions::keep_unknown`], a block, part or item of a kind the
/// provider's pinned SDK does not list is kept out of the text with a note,
/// instead of refusing the input.
///
/// ```
/// use serde_json::json;
/// use tool_carrier::import::{from_provider, ImportOptions};
/// use tool_carrier::media::store::InlineStore;
/// use tool_carrier::provider::Provider;
///
/// // A Vercel AI SDK message is no Chat message: its part is refused…
/// let body = json!([{"role": "assistant", "content": [
///     {"type": "tool-call", "toolCallId": "c1", "toolName": "shot", "input": {}}]}]);
/// let strict = ImportOptions::new();
/// let err = from_provider(Provider::OpenAiChat, &body, &mut InlineStore, &strict).unwrap_err();
/// assert!(err.to_string().starts_with("$[0].content[0]: a \"tool-call\" part is not a kind the openai"));
/// // …or, asked, kept out of the text with a note, and counted.
/// let options = ImportOptions::new().with_keep_unknown(true);
/// let h = from_provider(Provider::OpenAiChat, &body, &mut InlineStore, &options)?;
/// assert_eq!(h.messages[0].content(), "");
/// assert_eq!(h.tally.get("tool-call part").map(|c| (c.read, c.noted)), Some((1, 1)));
/// # Ok::<(), tool_carrier::import::ImportError>(())
/// ```
///
/// # Errors
/// As the provider's reader: [`ImportError`] names the JSON path.
pub fn from_provider(
    provider: Provider,
    input: &serde_json::Value,
    store: &mut dyn crate::media::store::MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    (api(provider).read)(input, store, options)
}

/// Read a response body (not streamed) of `provider` as one assistant
/// turn (an OpenAI-compatible server's as Chat Completions).
///
/// # Errors
/// [`ResponseError::Unsupported`] for a provider whose responses are not
/// read yet; else as the reader.
pub fn from_response(
    provider: Provider,
    text: &str,
) -> Result<crate::history::AssistantTurn, ResponseError> {
    match &api(provider).response {
        Some(reader) => (reader.body)(text),
        None => Err(ResponseError::Unsupported {
            provider: provider.name(),
        }),
    }
}

/// A reader for a stream of `provider`, fed as the bytes arrive (an
/// OpenAI-compatible server's as Chat Completions).
///
/// ```
/// use tool_carrier::import::response_stream;
/// use tool_carrier::provider::Provider;
///
/// let mut stream = response_stream(Provider::Anthropic)?;
/// stream.push(b"data: {\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"content\":[]}}\n\n")?;
/// let err = stream.finish().unwrap_err();
/// assert_eq!(err.to_string(), "the stream ended early: it lacks message_stop");
/// # Ok::<(), tool_carrier::import::ResponseError>(())
/// ```
///
/// # Errors
/// [`ResponseError::Unsupported`] for a provider whose responses are not
/// read yet.
pub fn response_stream(provider: Provider) -> Result<Box<dyn ResponseStream>, ResponseError> {
    match &api(provider).response {
        Some(reader) => Ok((reader.stream)()),
        None => Err(ResponseError::Unsupported {
            provider: provider.name(),
        }),
    }
}

/// Which form of `provider`'s response `text` is, told by its shape (each
/// API's reader says how; a request body is neither): `None` for a
/// request body, or for a provider whose responses are not read yet.
///
/// ```
/// use tool_carrier::import::{response_form, ResponseForm};
/// use tool_carrier::provider::Provider;
///
/// let body = r#"{"type":"message","content":[]}"#;
/// assert_eq!(response_form(Provider::Anthropic, body), Some(ResponseForm::Body));
/// assert_eq!(response_form(Provider::Anthropic, "event: ping\n"), Some(ResponseForm::Stream));
/// assert_eq!(response_form(Provider::Anthropic, r#"{"model":"m","messages":[]}"#), None);
/// ```
pub fn response_form(provider: Provider, text: &str) -> Option<ResponseForm> {
    api(provider)
        .response
        .as_ref()
        .and_then(|r| (r.sniff)(text))
}

/// Read a whole response of `provider`, in the form `form` (a body, or an
/// entire stream held in memory), as one assistant turn.
///
/// # Errors
/// As [`from_response`] or the stream's reader.
pub fn read_response(
    provider: Provider,
    form: ResponseForm,
    text: &str,
) -> Result<crate::history::AssistantTurn, ResponseError> {
    match form {
        ResponseForm::Body => from_response(provider, text),
        ResponseForm::Stream => {
            // What `response_form` looked past: an indented first field
            // would be read as a field of another name, its event lost.
            let text = crate::steps::response::leading_trimmed(text);
            let mut stream = response_stream(provider)?;
            stream.push(text.as_bytes())?;
            stream.finish()
        }
    }
}

/// The tool definitions of a body written for `provider`, as a list
/// [`Tools::from_json`](crate::provider::Tools::from_json) reads: the
/// function tools of every shape (Gemini's `functionDeclarations` and
/// Bedrock's `toolSpec`s as function objects), and the names (or JSON) of
/// the entries that are no function tool (a provider's built-in tools),
/// left out.
///
/// ```
/// use serde_json::json;
/// use tool_carrier::import::tool_definitions;
/// use tool_carrier::provider::{Provider, Tools};
///
/// let body = json!({"tools": [{"functionDeclarations": [{"name": "shot", "parameters": {"type": "object"}}]}]});
/// let (tools, left) = tool_definitions(Provider::Gemini, &body);
/// assert!(left.is_empty());
/// assert_eq!(Tools::from_json(&serde_json::Value::Array(tools).to_string()).unwrap().len(), 1);
/// ```
pub fn tool_definitions(
    provider: Provider,
    body: &serde_json::Value,
) -> (Vec<serde_json::Value>, Vec<String>) {
    (api(provider).tool_definitions)(body)
}
