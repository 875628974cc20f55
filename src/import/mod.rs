//! Reading what agents already store into carrier histories.
//!
//! * [`from_mcp`]: an MCP `CallToolResult` as a native carrier.
//! * [`from_provider`] ([`from_anthropic`], [`from_openai_chat`],
//!   [`from_openai_responses`], [`from_gemini`], [`from_bedrock`],
//!   [`from_ollama`]): a request body (or its
//!   messages) as a carrier history ([`ImportedHistory`]).
//! * [`from_response`] ([`from_anthropic_response`],
//!   [`from_gemini_response`], [`from_bedrock_response`],
//!   [`from_ollama_response`], [`from_openai_chat_response`],
//!   [`from_openai_responses_response`]) and [`response_stream`]
//!   ([`AnthropicStream`], [`GeminiStream`], [`BedrockStream`],
//!   [`OllamaStream`], [`OpenAiChatStream`], [`OpenAiResponsesStream`]): a
//!   provider's response, the body or its stream, as one assistant turn
//!   ([`AssistantTurn`](crate::history::AssistantTurn)) keeping the stop
//!   reason and usage as envelope members.
//! * [`read_records`] ([`read_record`], [`read_records_with`]): a history
//!   whose records are `{role, content}` or spelled the OpenAI Chat way
//!   (`tool_calls`, `tool_call_id`, content parts), each Chat record read
//!   as [`from_openai_chat`] reads a message.
//!
//! Inline payloads (base64 images, blobs) go to a
//! [`MediaStore`](crate::media::store::MediaStore): files named by the
//! SHA-256 of their bytes under a folder
//! ([`DirStore`](crate::media::store::DirStore)), or `data:` targets
//! ([`InlineStore`](crate::media::store::InlineStore)). A tool's error flag
//! becomes the envelope member [`IS_ERROR`].

use crate::apis::api;
use crate::facts::Provider;

mod mcp;
#[cfg(test)]
pub(crate) use mcp::known as mcp_known;
mod auto;
mod record;

pub use crate::agents::{Agent, UnknownAgent};
pub use crate::apis::anthropic::read::{
    from_anthropic, BLOCKS as ANTHROPIC_BLOCKS, THINKING as ANTHROPIC_THINKING,
};
pub use crate::apis::anthropic::response::{
    from_anthropic_response, STOP_REASON, STOP_SEQUENCE, USAGE,
};
pub use crate::apis::anthropic::stream::AnthropicStream;
pub use crate::apis::bedrock::read::{from_bedrock, BLOCKS as BEDROCK_BLOCKS};
pub use crate::apis::bedrock::response::from_bedrock_response;
pub use crate::apis::bedrock::stream::BedrockStream;
pub use crate::apis::gemini::read::{
    from_gemini, PARTS as GEMINI_PARTS, SIGNATURES as GEMINI_SIGNATURES,
};
pub use crate::apis::gemini::response::from_gemini_response;
pub use crate::apis::gemini::stream::GeminiStream;
pub use crate::apis::ollama::read::{from_ollama, THINKING as OLLAMA_THINKING};
pub use crate::apis::ollama::response::from_ollama_response;
pub use crate::apis::ollama::stream::OllamaStream;
pub use crate::apis::openai_chat::read::from_openai_chat;
pub use crate::apis::openai_chat::response::{from_openai_chat_response, REFUSAL};
pub use crate::apis::openai_chat::stream::OpenAiChatStream;
pub use crate::apis::openai_responses::read::{from_openai_responses, ITEMS as OPENAI_ITEMS};
pub use crate::apis::openai_responses::response::from_openai_responses_response;
pub use crate::apis::openai_responses::stream::OpenAiResponsesStream;
pub use crate::steps::audit::ImportOptions;
pub use crate::steps::envelope::IS_ERROR;
pub(crate) use crate::steps::imported::kind_of_mime;
pub use crate::steps::imported::{ImportError, ImportNote, Imported, ImportedHistory, PayloadSpan};
pub use crate::steps::response::{ResponseError, ResponseForm, ResponseStream};
pub use auto::{read_auto, AutoError, AutoRead, Detected};
pub use mcp::{from_mcp, from_mcp_with};
pub(crate) use record::{read_chat, spelling};
pub use record::{
    read_record, read_records, read_records_with, ReadRecordError, RecordMessage, Spelling,
};

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

/// The providers whose bodies can be read back ([`from_provider`]).
pub const PROVIDERS: [Provider; 8] = Provider::ALL;

/// Read a request body written for `provider` (or its bare list of
/// messages, items or contents) as a carrier history: [`from_anthropic`],
/// [`from_openai_chat`] (also for OpenAI-compatible servers),
/// [`from_openai_responses`], [`from_gemini`] (both names),
/// [`from_bedrock`] or [`from_ollama`].
///
/// # Errors
/// As the reader.
pub fn from_provider(
    provider: Provider,
    input: &serde_json::Value,
    store: &mut dyn crate::media::store::MediaStore,
) -> Result<ImportedHistory, ImportError> {
    from_provider_with(provider, input, store, &ImportOptions::default())
}

/// [`from_provider`], as `options` say: with
/// [`ImportOptions::keep_unknown`], a block, part or item of a kind the
/// provider's pinned SDK does not list is kept as written, with a note,
/// instead of refusing the input.
///
/// ```
/// use serde_json::json;
/// use tool_carrier::import::{from_provider, from_provider_with, ImportOptions};
/// use tool_carrier::media::store::InlineStore;
/// use tool_carrier::provider::Provider;
///
/// // A Vercel AI SDK message is no Chat message: its part is refused…
/// let body = json!([{"role": "assistant", "content": [
///     {"type": "tool-call", "toolCallId": "c1", "toolName": "shot", "input": {}}]}]);
/// let err = from_provider(Provider::OpenAiChat, &body, &mut InlineStore).unwrap_err();
/// assert!(err.to_string().starts_with("$[0].content[0]: a \"tool-call\" part is not a kind the openai"));
/// // …or, asked, kept out of the text with a note, and counted.
/// let options = ImportOptions::new().with_keep_unknown(true);
/// let h = from_provider_with(Provider::OpenAiChat, &body, &mut InlineStore, &options)?;
/// assert_eq!(h.messages[0].content(), "");
/// assert_eq!(h.tally.get("tool-call part").map(|c| (c.read, c.noted)), Some((1, 1)));
/// # Ok::<(), tool_carrier::import::ImportError>(())
/// ```
///
/// # Errors
/// As the reader.
pub fn from_provider_with(
    provider: Provider,
    input: &serde_json::Value,
    store: &mut dyn crate::media::store::MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    (api(provider).read)(input, store, options)
}

/// Read a response body (not streamed) of `provider` as one assistant
/// turn: [`from_anthropic_response`], [`from_openai_chat_response`] (also
/// for OpenAI-compatible servers), [`from_openai_responses_response`],
/// [`from_gemini_response`] (both names), [`from_bedrock_response`] or
/// [`from_ollama_response`].
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

/// A reader for a stream of `provider` ([`AnthropicStream`],
/// [`OpenAiChatStream`] (also for OpenAI-compatible servers),
/// [`OpenAiResponsesStream`], [`GeminiStream`], [`BedrockStream`],
/// [`OllamaStream`]).
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
