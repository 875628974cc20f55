//! One folder per provider API, holding everything the crate knows of it:
//! writing a request body (`write.rs`), reading one back into a history
//! (`read.rs`), the API's rules (`rules.rs`) and its facts
//! (`facts.toml`, compiled in by [`crate::facts`]). Each builds on the
//! shared steps ([`crate::steps`]) and names no other API but the one it
//! extends (Responses declares functions as Chat does; Ollama its tools;
//! OpenAI-compatible servers are written by the Chat writer).
//!
//! An API plugs in through one row of [`APIS`]: the layer above
//! (`provider`, `rules`, `import`) reaches each API only through it.

pub(crate) mod anthropic;
pub(crate) mod bedrock;
pub(crate) mod gemini;
pub(crate) mod ollama;
pub(crate) mod openai_chat;
pub(crate) mod openai_compatible;
pub(crate) mod openai_responses;
mod provider;

#[cfg(test)]
mod audit_tests;
#[cfg(test)]
mod rule_text_tests;

use serde_json::Value;

use crate::facts::{Family, Provider};
use crate::json::tree::Json;
use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::body::Body;
use crate::steps::context::Context;
use crate::steps::http::Http;
use crate::steps::imported::{function_tools, ImportError, ImportedHistory};
use crate::steps::replay::Replay;
use crate::steps::response::ResponseReader;
use crate::steps::rule::{Out, Rule, Target};
use crate::steps::spec::Spec;
use crate::steps::sse::Sse;
use crate::steps::walk::Turn;

/// What an API plugs in: one row of [`APIS`].
pub(crate) struct Api {
    /// The request's shape: names, endpoint, patterns.
    pub spec: &'static Spec,
    /// Write the request body for the turns.
    pub write: fn(Vec<Turn<'_>>, &Context<'_>) -> Body,
    /// Read a request body written for this API back into a history.
    pub read:
        fn(&Value, &mut dyn MediaStore, &ImportOptions) -> Result<ImportedHistory, ImportError>,
    /// What it is given back of what a history kept as an API wrote it.
    pub replays: &'static [Replay],
    /// A body's tool definitions, as function tools, and what is left out.
    pub tool_definitions: fn(&Value) -> (Vec<Value>, Vec<String>),
    /// Every rule the API's check knows.
    pub rules: &'static [&'static Rule],
    /// Check a body against the rules.
    pub check: fn(&Target<'_>, &Json<'_>, &mut Out),
    /// The rule that bounds the request's size, for this target, where one
    /// is documented (its limit is a fact: `request_bytes`).
    pub request_size: fn(&Target<'_>) -> Option<&'static Rule>,
    /// The rule that a body holds only the members the API's SDK lists,
    /// where the API has one: a gateway passes the members a client sent
    /// as they came (what the client's SDK chose), and checks the rest.
    pub members: Option<&'static Rule>,
    /// Read a response (a body, an event stream) into an assistant turn;
    /// `None` where the API's responses are not read yet.
    pub response: Option<ResponseReader>,
    /// What a gateway in front of it needs of it; `None` where the crate
    /// fits no body of its own shape in place.
    pub http: Option<&'static Http>,
}

/// The row of `provider`.
pub(crate) fn api(provider: Provider) -> &'static Api {
    &APIS[provider as usize]
}

fn none(_: &Target<'_>) -> Option<&'static Rule> {
    None
}

/// The rows, in the order of [`Provider::ALL`].
pub(crate) static APIS: [Api; Provider::COUNT] = [
    Api {
        spec: &anthropic::SPEC,
        write: |turns, cx| Body::new(anthropic::write::build(turns, cx)),
        read: anthropic::read::read,
        replays: anthropic::REPLAYS,
        tool_definitions: function_tools,
        rules: anthropic::rules::RULES,
        check: anthropic::rules::check,
        members: Some(&anthropic::rules::MEMBERS),
        request_size: |_| Some(&anthropic::rules::REQUEST_SIZE),
        response: Some(ResponseReader {
            body: anthropic::response::from_anthropic_response,
            stream: || Box::<Sse<anthropic::stream::AnthropicStream>>::default(),
            sniff: anthropic::response::sniff,
        }),
        http: Some(&anthropic::http::HTTP),
    },
    Api {
        spec: &openai_chat::SPEC,
        write: |turns, cx| Body::new(openai_chat::write::build(turns, cx)),
        read: openai_chat::read::read,
        replays: &[],
        tool_definitions: function_tools,
        rules: openai_chat::rules::RULES,
        check: openai_chat::rules::check,
        members: Some(&openai_chat::rules::MEMBERS),
        request_size: |_| Some(&openai_chat::rules::REQUEST_SIZE),
        response: Some(ResponseReader {
            body: openai_chat::response::from_openai_chat_response,
            stream: || Box::<Sse<openai_chat::stream::OpenAiChatStream>>::default(),
            sniff: openai_chat::response::sniff,
        }),
        http: Some(&openai_chat::http::HTTP),
    },
    Api {
        spec: &openai_responses::SPEC,
        write: |turns, cx| Body::new(openai_responses::write::build(turns, cx)),
        read: openai_responses::read::read,
        replays: openai_responses::REPLAYS,
        tool_definitions: function_tools,
        rules: openai_responses::rules::RULES,
        check: openai_responses::rules::check,
        members: Some(&openai_responses::rules::MEMBERS),
        request_size: |_| Some(&openai_responses::rules::REQUEST_SIZE),
        response: Some(ResponseReader {
            body: openai_responses::response::from_openai_responses_response,
            stream: || Box::<Sse<openai_responses::stream::OpenAiResponsesStream>>::default(),
            sniff: openai_responses::response::sniff,
        }),
        http: Some(&openai_responses::http::HTTP),
    },
    GEMINI,
    // The same API; the name keeps Gemini 2.x placement (the writer reads
    // it from the context).
    Api {
        spec: &gemini::SPEC_2,
        // One gateway serves both: a request's model says which rules.
        http: None,
        ..GEMINI
    },
    Api {
        spec: &bedrock::SPEC,
        write: |turns, cx| Body::new(bedrock::write::build(turns, cx)),
        read: bedrock::read::read,
        replays: bedrock::REPLAYS,
        tool_definitions: bedrock::read::tool_definitions,
        rules: bedrock::rules::RULES,
        check: bedrock::rules::check,
        members: Some(&bedrock::rules::MEMBERS),
        // Documented for Claude; Bedrock states none for the others.
        request_size: |target| {
            let family = target
                .family
                .or_else(|| crate::facts::ids::bedrock_family(target.model));
            (family == Some(Family::Claude)).then_some(&bedrock::rules::REQUEST_SIZE)
        },
        response: Some(ResponseReader {
            body: bedrock::response::from_bedrock_response,
            stream: || Box::new(bedrock::stream::BedrockStream::new()),
            sniff: bedrock::response::sniff,
        }),
        http: None,
    },
    Api {
        spec: &ollama::SPEC,
        write: |turns, cx| Body::new(ollama::write::build(turns, cx)),
        read: ollama::read::read,
        replays: ollama::REPLAYS,
        tool_definitions: function_tools,
        rules: ollama::rules::RULES,
        check: ollama::rules::check,
        members: Some(&ollama::rules::MEMBERS),
        // Servers state no body size of their own.
        request_size: none,
        response: Some(ResponseReader {
            body: ollama::response::from_ollama_response,
            stream: || Box::new(ollama::stream::OllamaStream::new()),
            sniff: ollama::response::sniff,
        }),
        http: None,
    },
    Api {
        spec: &openai_compatible::SPEC,
        // Chat Completions, as the profile in the context says.
        write: |turns, cx| Body::new(openai_chat::write::build(turns, cx)),
        read: openai_chat::read::read,
        replays: &[],
        tool_definitions: function_tools,
        rules: openai_compatible::rules::RULES,
        check: openai_compatible::rules::check,
        members: None,
        request_size: none,
        // A compatible server answers as Chat Completions does.
        response: Some(ResponseReader {
            body: openai_chat::response::from_openai_chat_response,
            stream: || Box::<Sse<openai_chat::stream::OpenAiChatStream>>::default(),
            sniff: openai_chat::response::sniff,
        }),
        http: None,
    },
];

const GEMINI: Api = Api {
    spec: &gemini::SPEC,
    write: |turns, cx| Body::new(gemini::write::build(turns, cx)),
    read: gemini::read::read,
    replays: gemini::REPLAYS,
    tool_definitions: gemini::read::tool_definitions,
    rules: gemini::rules::RULES,
    check: gemini::rules::check,
    members: Some(&gemini::rules::MEMBERS),
    request_size: |_| Some(&gemini::rules::REQUEST_SIZE),
    response: Some(ResponseReader {
        body: gemini::response::from_gemini_response,
        stream: || Box::new(gemini::stream::GeminiStream::new()),
        sniff: gemini::response::sniff,
    }),
    http: Some(&gemini::http::HTTP),
};
