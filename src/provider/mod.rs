//! Provider request builders: a history with carriers to one request body
//! per provider.
//!
//! A history goes through one shared walk that pairs
//! each assistant's tool calls with their results and keeps the orderings
//! every API demands (results right after their calls; other messages that
//! sat between them move after the results). The declared attachments of
//! every carrier then go through the media pipeline with the provider's
//! byte budget; only declared attachments are ever resolved, a
//! body is text and is never scanned. Finally one module per provider
//! writes the request body:
//!
//! | provider | tool results with media |
//! |---|---|
//! | [`Provider::Anthropic`] | `tool_result` blocks holding `text`, `image`, `document` blocks |
//! | [`Provider::OpenAiChat`] | `tool` messages with text; the media in one `user` message after the batch |
//! | [`Provider::OpenAiResponses`] | `function_call_output` with `input_text` / `input_image` / `input_file` |
//! | [`Provider::Gemini`] | `functionResponse.parts[].inlineData` (Gemini 3) |
//! | [`Provider::Gemini2`] | a `user` content with `inlineData` parts after the responses |
//! | [`Provider::Bedrock`] | Converse `toolResult` content with `image` and `document` blocks |
//! | [`Provider::Ollama`] | `tool` messages with text; raw base64 `images` on a following `user` message |
//!
//! No attachment aborts a conversion (only a tool definition the provider
//! cannot be given does, [`BuildError`]): an attachment that cannot be sent (refused
//! by the media policy, over a cap, a kind or source the provider does not
//! take, vision turned off) becomes a short note in its tool result's text
//! naming the target and the reason, and is listed in [`Report::notes`].
//!
//! # Example
//!
//! ```
//! use tool_carrier::provider::{build_request, Options, Provider};
//!
//! let history = [
//!     ("user", r#"Show me the dashboard."#),
//!     ("assistant", r#"{"content":null,"tool_calls":[{"id":"call_1","name":"screenshot","arguments":"{}"}]}"#),
//!     ("tool", r#"{"tool_call_id":"call_1","content":"Saved.","attachments":[{"kind":"image","target":"https://example.com/a.png"}]}"#),
//! ];
//! let request = build_request(Provider::OpenAiChat, &history, &Options::new().with_model("gpt-5"))?;
//! let body = request.body.to_value();
//! let messages = body["messages"].as_array().unwrap();
//! assert_eq!(messages[2]["role"], "tool");
//! assert_eq!(messages[3]["role"], "user"); // the image, right after the batch
//! assert_eq!(messages[3]["content"][1]["image_url"]["url"], "https://example.com/a.png");
//! // No definitions were given: the called tool gets a minimal declaration,
//! // and the model is told not to call it.
//! assert_eq!(body["tools"][0]["function"]["name"], "screenshot");
//! assert_eq!(body["tool_choice"], "none");
//! assert_eq!(request.report.stubbed, ["screenshot"]);
//! # Ok::<(), tool_carrier::provider::BuildError>(())
//! ```
//!
//! # Limitations
//!
//! * Each body is written by typed structs with one fixed field order (the
//!   conversation last); JSON the caller gave (tool schemas, typed tools)
//!   is written with its keys sorted, so the same input gives the same
//!   bytes whatever serde_json features are enabled.
//! * Tool-call arguments are sent as the history wrote them, less
//!   insignificant white space: key order, number spellings and integers
//!   beyond 64 bits survive.
//! * Anthropic, Gemini and Bedrock take system text once, at the top: every
//!   system message is joined there, wherever it stood.
//! * Anthropic, Gemini and Bedrock require the first turn to be the user's:
//!   a history that opens with the assistant gets a `(conversation
//!   continues)` user turn first. Anthropic and Bedrock also get empty text
//!   left out (they refuse it), and consecutive turns of one role joined.
//! * Gemini 3 function calls get the documented placeholder thought
//!   signature, since a history written elsewhere has none to replay.
//! * Tool-use ids and tool names are rewritten to what each API allows
//!   (consistently in calls, results and declarations, never two into
//!   one), and every call gets an id of its own.
//! * A tool result whose call is not in the assistant turn just before it,
//!   or that answers a call already answered, is sent as a labelled user
//!   message; a call nobody answered gets a result saying so.
//! * Only images and PDFs are sent; audio and video attachments are notes.
//!   A declared `image` must be an image and a `document` a PDF.

use std::collections::HashSet;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use crate::history::{Chunk, HistoryReader, RecordError};
use crate::media::{Budget, Policy, Resolver};

mod anthropic;
mod attach;
mod bedrock;
mod declare;
mod gemini;
pub mod model;
mod names;
mod ollama;
mod openai_chat;
mod openai_responses;
mod spec;
pub mod tools;
mod walk;
mod wire;

use attach::Limits;
use declare::Declarations;
pub use model::Family;
use names::Rename;
pub use spec::{Endpoint, Spec};
pub use tools::schema::{Pointer, SchemaError};
pub use tools::{Shape, Tool, Tools, ToolsError, ToolsErrorKind};
use walk::{Media, Slot, Turn};

/// A provider API a history can be converted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`POST /v1/responses`).
    OpenAiResponses,
    /// Gemini 3 `generateContent`: images nested in the function responses.
    Gemini,
    /// Gemini 2.x `generateContent`: images in a `user` content after the
    /// function responses.
    Gemini2,
    /// Amazon Bedrock Converse (`POST /model/{modelId}/converse`).
    Bedrock,
    /// Ollama chat (`POST /api/chat`).
    Ollama,
}

/// A provider name that is not one of [`Provider::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProvider(pub String);

impl fmt::Display for UnknownProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown provider {:?} (expected one of: {})",
            self.0,
            Provider::NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownProvider {}

impl Provider {
    /// Every provider, in the order of [`Provider::NAMES`].
    pub const ALL: [Provider; 7] = [
        Provider::Anthropic,
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Gemini,
        Provider::Gemini2,
        Provider::Bedrock,
        Provider::Ollama,
    ];

    /// The command-line names, in the order of [`Provider::ALL`] (read off
    /// the [`spec`] table).
    pub const NAMES: [&'static str; 7] = spec::names();

    /// Everything the crate knows of this provider that does not depend on
    /// the model: see [`Spec`].
    pub fn spec(self) -> &'static Spec {
        &spec::SPECS[self as usize]
    }

    /// The command-line name: `anthropic`, `openai-chat`, …
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Gemini2.name(), "gemini-2");
    /// assert_eq!("gemini-2".parse::<Provider>(), Ok(Provider::Gemini2));
    /// ```
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The model used when none is given.
    pub fn default_model(self) -> &'static str {
        self.spec().default_model
    }

    /// Whether the model is named inside the request body. Gemini and
    /// Bedrock name it in the URL instead ([`Provider::endpoint`]).
    pub fn model_in_body(self) -> bool {
        self.spec().model_in_body
    }

    /// Where the body is sent, for `model` (Bedrock's region is left as
    /// `{region}`).
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// let endpoint = Provider::Gemini.endpoint("gemini-3.8-flash");
    /// assert_eq!(endpoint.method, "POST");
    /// assert_eq!(
    ///     endpoint.to_string(),
    ///     "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-3.8-flash:generateContent"
    /// );
    /// ```
    pub fn endpoint(self, model: &str) -> Endpoint {
        let spec = self.spec();
        Endpoint {
            method: spec.method,
            url: spec.url.replace("{model}", model),
        }
    }

    /// The byte budget each attachment is prepared for.
    ///
    /// ```
    /// use tool_carrier::media::Budget;
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Anthropic.budget(), Budget::ANTHROPIC);
    /// assert_eq!(Provider::Bedrock.budget(), Budget::BEDROCK);
    /// ```
    pub fn budget(self) -> Budget {
        self.limits_for("").budget
    }

    /// The most images one request for `model` may carry; older ones are
    /// dropped first.
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Anthropic.max_images("claude-haiku-4-5"), 100);
    /// assert_eq!(Provider::Anthropic.max_images("claude-opus-4-7"), 600);
    /// assert_eq!(Provider::Bedrock.max_images("amazon.nova-pro-v1:0"), 20);
    /// ```
    pub fn max_images(self, model: &str) -> usize {
        self.limits_for(model).max_images
    }

    /// Name used in notes: `Anthropic`, `OpenAI`, `Gemini`, …
    fn display_name(self) -> &'static str {
        self.spec().display_name
    }

    /// What the provider accepts for `model`.
    fn limits_for(self, model: &str) -> &'static Limits {
        (self.spec().limits)(model)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Provider, UnknownProvider> {
        Provider::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProvider(s.to_owned()))
    }
}

/// How a history is converted: the model, whether images are sent, and
/// how attachment targets are loaded.
///
/// By default: the provider's [`Provider::default_model`], vision on,
/// `max_tokens` 4096 (Anthropic requires it), the default media
/// [`Policy`] (no roots, so no local file is read) and the built-in
/// resolver for that policy.
///
/// ```
/// use tool_carrier::media::Policy;
/// use tool_carrier::provider::Options;
///
/// let options = Options::new()
///     .with_model("claude-opus-4-5")
///     .with_vision(false)
///     .with_policy(Policy::default().with_max_dim(1568));
/// assert!(!options.vision());
/// ```
pub struct Options {
    model: Option<String>,
    vision: bool,
    max_tokens: u32,
    policy: Policy,
    resolver: Option<Box<dyn Resolver + Send + Sync>>,
    tools: Option<Tools>,
    family: Option<Family>,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("model", &self.model)
            .field("vision", &self.vision)
            .field("max_tokens", &self.max_tokens)
            .field("policy", &self.policy)
            .field("tools", &self.tools)
            .field("family", &self.family)
            .field(
                "resolver",
                &self.resolver.as_ref().map_or("default", |_| "custom"),
            )
            .finish()
    }
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

impl Options {
    /// The defaults described on [`Options`].
    pub fn new() -> Options {
        Options {
            model: None,
            vision: true,
            max_tokens: 4096,
            policy: Policy::default(),
            resolver: None,
            tools: None,
            family: None,
        }
    }

    /// Declare these tools in the request, each the way the provider
    /// documents (see [`tools`]). Without them, every tool the history
    /// calls gets a minimal declaration, and the model is told not to
    /// call any where the API can say so ([`Report::stubbed`]).
    pub fn with_tools(self, tools: Tools) -> Options {
        Options {
            tools: Some(tools),
            ..self
        }
    }

    /// Say which family the model belongs to, for a model id the
    /// built-in table does not recognise (an application inference
    /// profile ARN, a custom model); see [`model`].
    pub fn with_family(self, family: Family) -> Options {
        Options {
            family: Some(family),
            ..self
        }
    }

    /// The tool definitions given, if any.
    pub fn tools(&self) -> Option<&Tools> {
        self.tools.as_ref()
    }

    /// Name this model in the request (or in its URL).
    pub fn with_model(self, model: impl Into<String>) -> Options {
        Options {
            model: Some(model.into()),
            ..self
        }
    }

    /// With `false`, no attachment is loaded or sent: each becomes a text
    /// note naming its target.
    pub fn with_vision(self, vision: bool) -> Options {
        Options { vision, ..self }
    }

    /// Anthropic's required `max_tokens` (other providers ignore it).
    pub fn with_max_tokens(self, max_tokens: u32) -> Options {
        Options { max_tokens, ..self }
    }

    /// Limits and roots for resolving and preparing attachments. The
    /// built-in resolver follows this policy unless
    /// [`Options::with_resolver`] replaces it.
    pub fn with_policy(self, policy: Policy) -> Options {
        Options { policy, ..self }
    }

    /// Load targets with this resolver instead of the built-in one. Its
    /// bytes are still sniffed and prepared under the policy. It must be
    /// `Send + Sync`, like everything `Options` holds, so options can be
    /// shared between threads and async tasks.
    pub fn with_resolver(self, resolver: impl Resolver + Send + Sync + 'static) -> Options {
        Options {
            resolver: Some(Box::new(resolver)),
            ..self
        }
    }

    /// The model for `provider`: the one given, or its default.
    pub fn model_for(&self, provider: Provider) -> &str {
        self.model
            .as_deref()
            .unwrap_or_else(|| provider.default_model())
    }

    /// Whether attachments are sent at all.
    pub fn vision(&self) -> bool {
        self.vision
    }

    /// Anthropic's `max_tokens`.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    /// The media policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}

/// One attachment that was not sent as media, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Index of the history message that declared it (0-based, as in
    /// `inspect`).
    pub index: usize,
    /// The target, as declared.
    pub target: String,
    /// Why it was not sent, for a program to act on.
    pub reason: NoteReason,
    /// The note written into the request in its place (what a model
    /// reads).
    pub text: String,
}

/// Why an attachment became a note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NoteReason {
    /// Vision is off ([`Options::with_vision`]).
    VisionOff,
    /// Audio and video attachments are not sent anywhere.
    KindNotSent,
    /// The provider takes no attachment of this kind or source here (no
    /// documents, no URLs).
    NotTaken,
    /// The declared kind and the bytes disagree (a PDF declared as an
    /// image, an image declared as a document).
    WrongKind,
    /// The request already holds as many images or documents as the
    /// provider takes; the oldest are left out.
    OverCount,
    /// The request size limit is reached; the oldest are left out.
    OverTotal,
    /// The target could not be resolved or prepared (the text says why).
    Media,
}

/// What became of the declared attachments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Images sent inline (base64).
    pub images: usize,
    /// Documents (PDFs) sent inline (base64).
    pub documents: usize,
    /// Attachments sent as URL references.
    pub urls: usize,
    /// Attachments replaced by a note, in history order.
    pub notes: Vec<Note>,
    /// How many tools the request declares.
    pub declared: usize,
    /// Tools the history calls that got a minimal declaration (no
    /// definition was given for them), in order of first call.
    pub stubbed: Vec<String>,
    /// Whether the request tells the model not to call any tool
    /// (`tool_choice` none or its equivalent; only when every tool is a
    /// minimal declaration).
    pub choice_none: bool,
    /// What was done to tool definitions to declare them: keywords left
    /// out of a schema, typed tools declared as functions, a beta header
    /// the request needs, and the like.
    pub tool_notes: Vec<String>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} image{}, {} document{}, {} URL{} sent; {} note{}",
            self.images,
            plural(self.images),
            self.documents,
            plural(self.documents),
            self.urls,
            plural(self.urls),
            self.notes.len(),
            plural(self.notes.len()),
        )
    }
}

/// A request body for one provider, and what happened to the attachments.
#[derive(Clone, Debug)]
pub struct Request {
    /// The provider it is for.
    pub provider: Provider,
    /// The model it names (in the body, or in the URL for Gemini and
    /// Bedrock).
    pub model: String,
    /// The request body: serialize it (it implements [`Serialize`]), or
    /// see it as a [`Value`] with [`Body::to_value`].
    pub body: Body,
    /// HTTP headers the request needs besides authentication and the
    /// content type: `anthropic-beta` for the typed tools that need one.
    pub headers: Vec<(&'static str, String)>,
    /// What became of the declared attachments.
    pub report: Report,
}

impl Request {
    /// Where to send it: see [`Provider::endpoint`].
    pub fn endpoint(&self) -> Endpoint {
        self.provider.endpoint(&self.model)
    }

    /// Write the body as pretty-printed JSON and a final line feed.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_pretty<W: Write>(&self, mut w: W) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut w, &self.body)?;
        w.write_all(b"\n")
    }

    /// The body as compact JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.body).expect("a body always serializes")
    }

    /// Write the body as compact JSON (one line, no final line feed).
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_compact<W: Write>(&self, w: W) -> io::Result<()> {
        serde_json::to_writer(w, &self.body).map_err(io::Error::from)
    }
}

/// A request body, held as typed structs and written when serialized:
/// media payloads are encoded to base64 as they are written, so a body
/// holds each payload's bytes once and never its base64 text.
///
/// Serialize it with serde_json (`to_writer`, `to_writer_pretty`, …), or
/// see it as a [`Value`] with [`Body::to_value`].
#[derive(Clone, Debug)]
pub struct Body(Api);

#[derive(Clone, Debug)]
enum Api {
    Anthropic(anthropic::Body),
    OpenAiChat(openai_chat::Body),
    OpenAiResponses(openai_responses::Body),
    Gemini(gemini::Body),
    Bedrock(bedrock::Body),
    Ollama(ollama::Body),
}

impl Body {
    /// The body as a [`Value`] (every payload's base64 text written out,
    /// so this holds a copy of it).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a body always serializes")
    }
}

impl Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Api::Anthropic(body) => body.serialize(s),
            Api::OpenAiChat(body) => body.serialize(s),
            Api::OpenAiResponses(body) => body.serialize(s),
            Api::Gemini(body) => body.serialize(s),
            Api::Bedrock(body) => body.serialize(s),
            Api::Ollama(body) => body.serialize(s),
        }
    }
}

/// Why a history could not be read for conversion.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Reading the input failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Some records are not messages; nothing is converted from a partial
    /// history. Each error names its line and cause.
    #[error("{}", records_message(.0))]
    Records(Vec<RecordError>),
}

fn records_message(errors: &[RecordError]) -> String {
    match errors {
        [] => "no records are wrong".to_owned(),
        [one] => format!("1 record is not a message: {one}"),
        [first, ..] => format!(
            "{} records are not messages (the first: {first})",
            errors.len()
        ),
    }
}

/// Read a history (JSON Lines or one JSON array of messages) into
/// `(role, content)` pairs.
///
/// # Errors
/// [`ReadError::Io`] from the reader; [`ReadError::Records`] listing every
/// record that is not a message.
///
/// # Example
/// ```
/// use tool_carrier::provider::read_history;
///
/// let input = "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"assistant\",\"content\":\"hello\"}\n";
/// let messages = read_history(input.as_bytes()).unwrap();
/// assert_eq!(messages, [("user".into(), "hi".into()), ("assistant".into(), "hello".into())]);
/// let err = read_history("{\"role\":1}".as_bytes()).unwrap_err();
/// assert_eq!(err.to_string(), "1 record is not a message: line 1: not a message: \"role\" is not a string");
/// ```
pub fn read_history<R: BufRead>(reader: R) -> Result<Vec<(String, String)>, ReadError> {
    let mut reader = HistoryReader::new(reader)?;
    let mut messages = Vec::new();
    let mut errors = Vec::new();
    while let Some(chunk) = reader.next_chunk()? {
        if let Chunk::Record(record) = chunk {
            match record.message {
                Ok(m) => messages.push((m.role.into_owned(), m.content.into_owned())),
                Err(e) => errors.push(e),
            }
        }
    }
    if errors.is_empty() {
        Ok(messages)
    } else {
        Err(ReadError::Records(errors))
    }
}

/// Build `provider`'s request body from a history of `(role, content)`
/// messages.
///
/// An attachment that cannot be sent becomes a note (see the
/// [module docs](self)), and every message of the history is represented.
/// The same history, options and files give the same body.
///
/// # Errors
/// Only the tool definitions can make it fail: a definition the provider
/// cannot be given ([`BuildError`] names the tool and why). Without
/// [`Options::with_tools`] it always succeeds.
///
/// # Example
/// ```
/// use tool_carrier::provider::{build_request, Options, Provider};
///
/// let history = [
///     ("system", "Be brief."),
///     ("user", "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/no/roots/a.png]\nSaved a.png"),
/// ];
/// let request = build_request(Provider::Anthropic, &history, &Options::new())?;
/// let body = request.body.to_value();
/// assert_eq!(body["system"], "Be brief.");
/// let text = body["messages"][0]["content"].as_str().unwrap();
/// assert!(text.ends_with("[image /no/roots/a.png not attached: local files are not allowed (no roots configured)]"));
/// assert_eq!(request.report.notes.len(), 1);
/// # Ok::<(), tool_carrier::provider::BuildError>(())
/// ```
pub fn build_request<R, C>(
    provider: Provider,
    messages: &[(R, C)],
    options: &Options,
) -> Result<Request, BuildError>
where
    R: AsRef<str>,
    C: AsRef<str>,
{
    let model = options.model_for(provider).to_owned();
    let facts = model::Facts::of(provider, &model, options.family);
    let mut report = Report::default();
    let mut turns = attach::attach(walk::walk(messages), provider, &facts, options, &mut report);
    let called = called_names(&turns);
    let called: Vec<&str> = called.iter().map(String::as_str).collect();
    let spec = provider.spec();
    let mut names = Rename::new(spec.names);
    let declarations = declare::declare(
        options.tools.as_ref(),
        &called,
        provider,
        facts.typed_tools,
        &mut names,
        &mut report,
    )?;
    names::rewrite(&mut turns, &mut Rename::new(spec.ids), &mut names);
    report.declared = declarations.tools.len();
    report.choice_none = declarations.choice_none && spec.choice_none;
    let cx = Context {
        model: &model,
        max_tokens: options.max_tokens,
        declarations: &declarations,
        facts: &facts,
    };
    let body = Body(match provider {
        Provider::Anthropic => Api::Anthropic(anthropic::build(turns, &cx)),
        Provider::OpenAiChat => Api::OpenAiChat(openai_chat::build(turns, &cx)),
        Provider::OpenAiResponses => Api::OpenAiResponses(openai_responses::build(turns, &cx)),
        Provider::Gemini | Provider::Gemini2 => Api::Gemini(gemini::build(turns, &cx)),
        Provider::Bedrock => Api::Bedrock(bedrock::build(turns, &cx)),
        Provider::Ollama => Api::Ollama(ollama::build(turns, &cx)),
    });
    let betas = declarations.betas();
    let headers = if provider == Provider::Anthropic && !betas.is_empty() {
        vec![("anthropic-beta", betas.join(","))]
    } else {
        Vec::new()
    };
    Ok(Request {
        provider,
        model,
        body,
        headers,
        report,
    })
}

/// The tool names the history calls, in order of first call.
fn called_names(turns: &[Turn<'_>]) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for turn in turns {
        if let Turn::Assistant(a) = turn {
            for call in &a.calls {
                if seen.insert(call.name.as_str()) {
                    out.push(call.name.clone());
                }
            }
        }
    }
    out
}

/// Why a request could not be built.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// An Anthropic typed tool with no documented input schema, for a
    /// provider that takes only function declarations.
    #[error("tool {tool}: Anthropic's {tool_type} cannot be declared for {provider}: Anthropic documents no input schema for it, and {provider} does not take Anthropic's typed tools")]
    NoDeclaration {
        /// The tool's name.
        tool: String,
        /// Its Anthropic `type`.
        tool_type: String,
        /// The provider.
        provider: Provider,
    },
    /// An Anthropic typed tool under another name than the one its type
    /// fixes (Anthropic refuses it, and its calls carry the fixed name).
    #[error("tool {tool}: Anthropic's {tool_type} is always named {expected:?}")]
    TypedName {
        /// The name given.
        tool: String,
        /// Its Anthropic `type`.
        tool_type: String,
        /// The name the type fixes.
        expected: &'static str,
    },
    /// An input schema the provider cannot be given.
    #[error("tool {tool}: {error}")]
    Schema {
        /// The tool's name.
        tool: String,
        /// What is wrong with its schema.
        error: SchemaError,
    },
}

/// Why a history could not be converted.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The history could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The request could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Read a history from `reader` and build `provider`'s request body:
/// [`read_history`], then [`build_request`].
///
/// # Errors
/// As [`read_history`] and [`build_request`].
///
/// # Example
/// ```
/// use tool_carrier::provider::{convert, Options, Provider};
///
/// let history = r#"{"role":"user","content":"Hello."}"#;
/// let request = convert(Provider::Ollama, history.as_bytes(), &Options::new().with_vision(false))?;
/// let mut out = Vec::new();
/// request.write_compact(&mut out)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     r#"{"model":"qwen3-vl","stream":false,"messages":[{"role":"user","content":"Hello."}]}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert<R: BufRead>(
    provider: Provider,
    reader: R,
    options: &Options,
) -> Result<Request, ConvertError> {
    let messages = read_history(reader)?;
    Ok(build_request(provider, &messages, options)?)
}

/// What every builder needs besides the turns.
pub(crate) struct Context<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    /// The tools to declare, named as the turns name them.
    pub declarations: &'a Declarations,
    /// What the model takes.
    pub facts: &'a model::Facts,
}

// ---- helpers shared by the builders ----

/// Where a builder puts the media of a tool result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Inside the result (or the carrier) itself.
    Inside,
    /// In a `user` message after the batch of results.
    NextMessage,
    /// In the same `user` message, after the batch's result blocks.
    AfterResults,
}

/// The text of a tool result or carrier: the body, then one line per
/// attachment that became a note, then (for builders that move media out
/// of the tool result) one line per attachment sent elsewhere.
pub(crate) fn text_with_notes(body: &str, slots: &[Slot<'_>], placement: Placement) -> String {
    let mut text = String::from(body);
    for slot in slots {
        let line = match (&slot.media, placement) {
            (Media::Note(_, note), _) => note.clone(),
            (Media::Inline(_) | Media::Url(_), Placement::NextMessage) => format!(
                "[{} {} follows in the next user message]",
                slot.kind.as_str(),
                display_target(&slot.target)
            ),
            (Media::Inline(_) | Media::Url(_), Placement::AfterResults) => format!(
                "[{} {} follows after the tool results]",
                slot.kind.as_str(),
                display_target(&slot.target)
            ),
            _ => continue,
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&line);
    }
    text
}

/// The label put before an attachment moved out of its tool result (into
/// a following user message), so the model knows where it came from.
pub(crate) fn attachment_label(name: &str, call_id: &str, slot: &Slot<'_>) -> String {
    format!(
        "Attachment of the {name} result (call {call_id}): {} {}",
        slot.kind.as_str(),
        display_target(&slot.target)
    )
}

/// Whether any slot will be sent as media (inline or by URL).
pub(crate) fn has_media(slots: &[Slot<'_>]) -> bool {
    slots
        .iter()
        .any(|s| matches!(s.media, Media::Inline(_) | Media::Url(_)))
}

/// A target as shown in notes and labels: a `data:` URI by its type and
/// length, anything long cut short, control characters replaced.
pub(crate) fn display_target(target: &str) -> String {
    const MAX: usize = 160;
    if target
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        let head = target[5..].split([';', ',']).next().unwrap_or("");
        let head: String = head.chars().take(40).collect();
        return format!("data:{head}… ({} characters)", target.len());
    }
    let mut out: String = target
        .chars()
        .take(MAX)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if target.chars().nth(MAX).is_some() {
        out.push('…');
    }
    out
}

/// The last path segment of a target (for file names): `a.pdf` for
/// `docs/a.pdf` or `https://x/a.pdf?v=1`; `None` for a `data:` URI.
pub(crate) fn file_name(target: &str) -> Option<&str> {
    if target
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        return None;
    }
    let path = target.split(['?', '#']).next().unwrap_or(target);
    path.rsplit(['/', '\\'])
        .next()
        .filter(|s| !s.is_empty() && !s.chars().any(char::is_control))
}

/// Messages for APIs whose roles must alternate (Anthropic, Bedrock):
/// content pushed for the role of the last message joins it.
pub(crate) struct Alternating<B> {
    messages: Vec<(&'static str, Vec<B>)>,
}

impl<B> Alternating<B> {
    pub(crate) fn new() -> Self {
        Alternating {
            messages: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, role: &'static str, blocks: Vec<B>) {
        if blocks.is_empty() {
            return;
        }
        match self.messages.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => self.messages.push((role, blocks)),
        }
    }

    /// The messages, a `user` one holding `opening` put first when the
    /// history starts with the assistant (both APIs require a user turn
    /// first).
    pub(crate) fn finish(mut self, opening: B) -> Vec<(&'static str, Vec<B>)> {
        if self
            .messages
            .first()
            .is_some_and(|(role, _)| *role != "user")
        {
            self.messages.insert(0, ("user", vec![opening]));
        }
        self.messages
    }
}

/// Text of the user turn put first when a history opens with the assistant.
pub(crate) const OPENING_TEXT: &str = "(conversation continues)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_names_round_trip() {
        for p in Provider::ALL {
            assert_eq!(p.name().parse::<Provider>(), Ok(p));
            assert_eq!(p.to_string(), p.name());
        }
        assert!("openai".parse::<Provider>().is_err());
        assert!("Anthropic".parse::<Provider>().is_err());
    }

    #[test]
    fn options_and_requests_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Options>();
        send_sync::<Request>();
        send_sync::<Tools>();
        send_sync::<BuildError>();
    }

    #[test]
    fn data_uris_are_shown_by_type_and_length() {
        let t = format!("data:image/png;base64,{}", "A".repeat(1000));
        assert_eq!(display_target(&t), "data:image/png… (1022 characters)");
        assert_eq!(display_target("a\nb"), "a b");
        assert_eq!(file_name("https://x/y/a.pdf?x=1"), Some("a.pdf"));
        assert_eq!(file_name("reports/"), None);
        assert_eq!(file_name("data:application/pdf;base64,AA"), None);
    }
}
