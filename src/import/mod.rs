//! Reading what agents already store into carrier histories.
//!
//! * [`from_mcp`]: an MCP `CallToolResult` as a native carrier.
//! * [`from_provider`] ([`from_anthropic`], [`from_openai_chat`],
//!   [`from_openai_responses`], [`from_gemini`], [`from_bedrock`],
//!   [`from_ollama`]): a request body (or its
//!   messages) as a carrier history ([`ImportedHistory`]).
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

use crate::facts::Provider;

mod mcp;
mod record;

pub use crate::apis::anthropic::read::{
    from_anthropic, BLOCKS as ANTHROPIC_BLOCKS, THINKING as ANTHROPIC_THINKING,
};
pub use crate::apis::bedrock::read::{from_bedrock, BLOCKS as BEDROCK_BLOCKS};
pub use crate::apis::gemini::read::{from_gemini, SIGNATURES as GEMINI_SIGNATURES};
pub use crate::apis::ollama::read::from_ollama;
pub use crate::apis::openai_chat::read::from_openai_chat;
pub use crate::apis::openai_responses::read::{from_openai_responses, ITEMS as OPENAI_ITEMS};
pub use crate::steps::envelope::IS_ERROR;
pub(crate) use crate::steps::imported::kind_of_mime;
pub use crate::steps::imported::{ImportError, ImportNote, Imported, ImportedHistory};
pub use mcp::from_mcp;
pub(crate) use record::{read_chat, spelling};
pub use record::{
    read_record, read_records, read_records_with, ReadRecordError, RecordMessage, Spelling,
};

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
    match provider {
        Provider::Anthropic => from_anthropic(input, store),
        Provider::OpenAiChat | Provider::OpenAiCompatible => from_openai_chat(input, store),
        Provider::OpenAiResponses => from_openai_responses(input, store),
        Provider::Gemini | Provider::Gemini2 => from_gemini(input, store),
        Provider::Bedrock => from_bedrock(input, store),
        Provider::Ollama => from_ollama(input, store),
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
    use serde_json::{json, Value};
    let function = |name: &Value, description: Option<&Value>, parameters: Option<&Value>| {
        let mut f = json!({"type": "function", "name": name, "parameters": parameters.cloned().unwrap_or(json!({"type": "object"}))});
        if let Some(d) = description {
            f["description"] = d.clone();
        }
        f
    };
    let mut tools = Vec::new();
    let mut left = Vec::new();
    let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
    match provider {
        Provider::Gemini | Provider::Gemini2 => {
            for tool in list(body.get("tools")) {
                match tool.get("functionDeclarations").and_then(Value::as_array) {
                    Some(decls) => tools.extend(decls.iter().map(|d| {
                        let parameters = d
                            .get("parametersJsonSchema")
                            .or_else(|| d.get("parameters"));
                        function(&d["name"], d.get("description"), parameters)
                    })),
                    None => left.push(tool.to_string()),
                }
            }
        }
        Provider::Bedrock => {
            for tool in list(body.pointer("/toolConfig/tools")) {
                match tool.get("toolSpec") {
                    Some(spec) => tools.push(function(
                        &spec["name"],
                        spec.get("description"),
                        spec.pointer("/inputSchema/json"),
                    )),
                    None => left.push(tool.to_string()),
                }
            }
        }
        _ => {
            for tool in list(body.get("tools")) {
                let one = Value::Array(vec![tool.clone()]).to_string();
                if crate::steps::tools::Tools::from_json(&one).is_ok() {
                    tools.push(tool);
                } else {
                    left.push(
                        tool.get("type")
                            .and_then(Value::as_str)
                            .map_or_else(|| tool.to_string(), str::to_owned),
                    );
                }
            }
        }
    }
    (tools, left)
}
