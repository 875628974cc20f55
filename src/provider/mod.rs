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
//! Nothing aborts a conversion: an attachment that cannot be sent (refused
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
//! let request = build_request(Provider::OpenAiChat, &history, &Options::new().with_model("gpt-5"));
//! let messages = request.body["messages"].as_array().unwrap();
//! assert_eq!(messages[2]["role"], "tool");
//! assert_eq!(messages[3]["role"], "user"); // the image, right after the batch
//! assert_eq!(messages[3]["content"][1]["image_url"]["url"], "https://example.com/a.png");
//! ```
//!
//! # Limitations
//!
//! * Output objects have their keys in sorted order (the same bytes for the
//!   same input, whatever serde_json features are enabled).
//! * Tool-call arguments are re-serialised: key order and number spellings
//!   of an object may change; integers beyond 64 bits become floats.
//! * Anthropic, Gemini and Bedrock take system text once, at the top: every
//!   system message is joined there, wherever it stood.
//! * Anthropic, Gemini and Bedrock require the first turn to be the user's:
//!   a history that opens with the assistant gets a `(conversation
//!   continues)` user turn first. Anthropic and Bedrock also get empty text
//!   left out (they refuse it), and consecutive turns of one role joined.
//! * Gemini 3 function calls get the documented placeholder thought
//!   signature, since a history written elsewhere has none to replay.
//! * Tool-use ids and tool names are rewritten to the characters Anthropic
//!   and Bedrock allow (consistently, and never two ids into one).
//! * A tool result whose call is not in the assistant turn just before it,
//!   or that answers a call already answered, is sent as a labelled user
//!   message; a call nobody answered gets a result saying so.
//! * Only images and PDFs are sent; audio and video attachments are notes.
//!   A declared `image` must be an image and a `document` a PDF.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, BufRead, Write};
use std::str::FromStr;

use serde_json::Value;
use thiserror::Error;

use crate::history::{Chunk, HistoryReader, RecordError};
use crate::media::{Budget, Measure, MediaType, Policy, Prepared, Resolver};

mod anthropic;
mod attach;
mod bedrock;
mod gemini;
mod ollama;
mod openai_chat;
mod openai_responses;
mod walk;

use attach::Limits;
use walk::{Media, Slot};

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
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown provider {0:?} (expected one of: anthropic, openai-chat, openai-responses, gemini, gemini-2, bedrock, ollama)")]
pub struct UnknownProvider(pub String);

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

    /// The command-line names, in the order of [`Provider::ALL`].
    pub const NAMES: [&'static str; 7] = [
        "anthropic",
        "openai-chat",
        "openai-responses",
        "gemini",
        "gemini-2",
        "bedrock",
        "ollama",
    ];

    /// The command-line name: `anthropic`, `openai-chat`, …
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(Provider::Gemini2.name(), "gemini-2");
    /// assert_eq!("gemini-2".parse::<Provider>(), Ok(Provider::Gemini2));
    /// ```
    pub fn name(self) -> &'static str {
        Provider::NAMES[self as usize]
    }

    /// The model used when none is given.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::Anthropic => "claude-sonnet-4-5",
            Provider::OpenAiChat | Provider::OpenAiResponses => "gpt-5",
            Provider::Gemini => "gemini-3-pro-preview",
            Provider::Gemini2 => "gemini-2.5-flash",
            Provider::Bedrock => "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            Provider::Ollama => "qwen3-vl",
        }
    }

    /// Whether the model is named inside the request body. Gemini and
    /// Bedrock name it in the URL instead ([`Provider::endpoint`]).
    pub fn model_in_body(self) -> bool {
        !matches!(
            self,
            Provider::Gemini | Provider::Gemini2 | Provider::Bedrock
        )
    }

    /// Where the body is sent, for `model`: the method and URL (Bedrock's
    /// region is left as `{region}`).
    ///
    /// ```
    /// use tool_carrier::provider::Provider;
    /// assert_eq!(
    ///     Provider::Gemini.endpoint("gemini-3-pro-preview"),
    ///     "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:generateContent"
    /// );
    /// ```
    pub fn endpoint(self, model: &str) -> String {
        match self {
            Provider::Anthropic => "POST https://api.anthropic.com/v1/messages".into(),
            Provider::OpenAiChat => "POST https://api.openai.com/v1/chat/completions".into(),
            Provider::OpenAiResponses => "POST https://api.openai.com/v1/responses".into(),
            Provider::Gemini | Provider::Gemini2 => format!(
                "POST https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent"
            ),
            Provider::Bedrock => {
                format!("POST https://bedrock-runtime.{{region}}.amazonaws.com/model/{model}/converse")
            }
            Provider::Ollama => "POST http://localhost:11434/api/chat".into(),
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
        self.limits().budget
    }

    /// The most images one request may carry; older ones are dropped first.
    pub fn max_images(self) -> usize {
        self.limits().max_images
    }

    /// Name used in notes: `Anthropic`, `OpenAI`, `Gemini`, …
    fn display_name(self) -> &'static str {
        match self {
            Provider::Anthropic => "Anthropic",
            Provider::OpenAiChat | Provider::OpenAiResponses => "OpenAI",
            Provider::Gemini | Provider::Gemini2 => "Gemini",
            Provider::Bedrock => "Bedrock",
            Provider::Ollama => "Ollama",
        }
    }

    /// What the provider accepts. Each figure is the provider's documented
    /// limit, or says why there is none.
    fn limits(self) -> &'static Limits {
        // Gemini: inline data counts against the 20 MB request limit (larger
        // files go through the Files API); keep 1 MB for the text. Measured
        // on the base64 text, which is what travels.
        const GEMINI_BUDGET: Budget = Budget::new(19_000_000, Measure::Base64);
        // Ollama documents no size limits; the OpenAI figures are a sane
        // bound for a local model's context.
        const OLLAMA_BUDGET: Budget = Budget::OPENAI;
        const ALL_RASTERS: &[MediaType] = &[
            MediaType::Png,
            MediaType::Jpeg,
            MediaType::Gif,
            MediaType::Webp,
        ];
        static ANTHROPIC: Limits = Limits {
            // 5 MB per image on the base64 text (Budget::ANTHROPIC).
            budget: Budget::ANTHROPIC,
            image_types: ALL_RASTERS,
            documents: true,
            image_urls: true,
            document_urls: true,
            // "Up to 100 images per API request."
            max_images: 100,
            max_documents: usize::MAX,
            // 32 MB per Messages request; 2 MB kept for the text.
            max_total: 30_000_000,
        };
        static OPENAI_CHAT: Limits = Limits {
            budget: Budget::OPENAI,
            // PNG, JPEG, WEBP and non-animated GIF: a GIF is sent as PNG,
            // so an animation cannot slip through.
            image_types: &[MediaType::Png, MediaType::Jpeg, MediaType::Webp],
            documents: true,
            image_urls: true,
            // Chat `file` parts take `file_data` or `file_id`, not URLs.
            document_urls: false,
            // "Up to 500 individual image inputs per request."
            max_images: 500,
            max_documents: usize::MAX,
            // "Up to 50 MB total payload size per request"; 5 MB kept.
            max_total: 45_000_000,
        };
        static OPENAI_RESPONSES: Limits = Limits {
            // `input_file` takes a `file_url`.
            document_urls: true,
            ..OPENAI_CHAT
        };
        static GEMINI: Limits = Limits {
            budget: GEMINI_BUDGET,
            // PNG, JPEG, WEBP, HEIC, HEIF: no GIF, so a GIF is sent as PNG.
            image_types: &[MediaType::Png, MediaType::Jpeg, MediaType::Webp],
            documents: true,
            // `fileData` takes Files API URIs, not arbitrary URLs.
            image_urls: false,
            document_urls: false,
            // Up to 3,000 images per prompt (the lower of the published
            // figures for 2.x and 3 models).
            max_images: 3000,
            max_documents: usize::MAX,
            max_total: 19_000_000,
        };
        static BEDROCK: Limits = Limits {
            // 3.75 MB per image, 4.5 MB per document, raw (Budget::BEDROCK).
            budget: Budget::BEDROCK,
            image_types: ALL_RASTERS,
            documents: true,
            // Converse sources are bytes or S3 locations only.
            image_urls: false,
            document_urls: false,
            // "You can include up to 20 images" and "up to five documents".
            max_images: 20,
            max_documents: 5,
            max_total: usize::MAX,
        };
        static OLLAMA: Limits = Limits {
            budget: OLLAMA_BUDGET,
            // Vision models in Ollama are documented with PNG and JPEG;
            // anything else is sent as PNG.
            image_types: &[MediaType::Png, MediaType::Jpeg],
            documents: false,
            image_urls: false,
            document_urls: false,
            max_images: usize::MAX,
            max_documents: 0,
            max_total: usize::MAX,
        };
        match self {
            Provider::Anthropic => &ANTHROPIC,
            Provider::OpenAiChat => &OPENAI_CHAT,
            Provider::OpenAiResponses => &OPENAI_RESPONSES,
            Provider::Gemini | Provider::Gemini2 => &GEMINI,
            Provider::Bedrock => &BEDROCK,
            Provider::Ollama => &OLLAMA,
        }
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
    resolver: Option<Box<dyn Resolver>>,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("model", &self.model)
            .field("vision", &self.vision)
            .field("max_tokens", &self.max_tokens)
            .field("policy", &self.policy)
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
        }
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
    /// bytes are still sniffed and prepared under the policy.
    pub fn with_resolver(self, resolver: impl Resolver + 'static) -> Options {
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
    /// The note written into the request in its place.
    pub text: String,
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
    /// The request body.
    pub body: Value,
    /// What became of the declared attachments.
    pub report: Report,
}

impl Request {
    /// Where to send it: see [`Provider::endpoint`].
    pub fn endpoint(&self) -> String {
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

    /// Write the body as compact JSON (one line, no final line feed).
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_compact<W: Write>(&self, w: W) -> io::Result<()> {
        serde_json::to_writer(w, &self.body).map_err(io::Error::from)
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
/// Never fails: an attachment that cannot be sent becomes a note (see the
/// [module docs](self)), and every message of the history is represented.
/// The same history, options and files give the same body.
///
/// # Example
/// ```
/// use tool_carrier::provider::{build_request, Options, Provider};
///
/// let history = [
///     ("system", "Be brief."),
///     ("user", "[Tool results]\n[Tool attachments: 1]\n[IMAGE:/no/roots/a.png]\nSaved a.png"),
/// ];
/// let request = build_request(Provider::Anthropic, &history, &Options::new());
/// assert_eq!(request.body["system"], "Be brief.");
/// let text = request.body["messages"][0]["content"].as_str().unwrap();
/// assert!(text.ends_with("[image /no/roots/a.png not attached: local files are not allowed (no roots configured)]"));
/// assert_eq!(request.report.notes.len(), 1);
/// ```
pub fn build_request<R, C>(provider: Provider, messages: &[(R, C)], options: &Options) -> Request
where
    R: AsRef<str>,
    C: AsRef<str>,
{
    let mut turns = walk::walk(messages);
    let mut report = Report::default();
    attach::attach(&mut turns, provider, options, &mut report);
    let model = options.model_for(provider).to_owned();
    let cx = Context {
        model: &model,
        max_tokens: options.max_tokens,
    };
    let mut body = match provider {
        Provider::Anthropic => anthropic::build(turns, &cx),
        Provider::OpenAiChat => openai_chat::build(turns, &cx),
        Provider::OpenAiResponses => openai_responses::build(turns, &cx),
        Provider::Gemini => gemini::build(turns, &cx, gemini::Nesting::InResponse),
        Provider::Gemini2 => gemini::build(turns, &cx, gemini::Nesting::FollowingContent),
        Provider::Bedrock => bedrock::build(turns, &cx),
        Provider::Ollama => ollama::build(turns, &cx),
    };
    body.sort_all_objects();
    Request {
        provider,
        model,
        body,
        report,
    }
}

/// Read a history from `reader` and build `provider`'s request body:
/// [`read_history`], then [`build_request`].
///
/// # Errors
/// As [`read_history`].
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
///     r#"{"messages":[{"content":"Hello.","role":"user"}],"model":"qwen3-vl","stream":false}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert<R: BufRead>(
    provider: Provider,
    reader: R,
    options: &Options,
) -> Result<Request, ReadError> {
    let messages = read_history(reader)?;
    Ok(build_request(provider, &messages, options))
}

/// What every builder needs besides the turns.
pub(crate) struct Context<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
}

// ---- helpers shared by the builders ----

/// The text of a tool result or carrier: the body, then one line per
/// attachment that became a note, then (for builders that move media out
/// of the tool result) one line per attachment sent elsewhere.
pub(crate) fn text_with_notes(body: &str, slots: &[Slot<'_>], moved: bool) -> String {
    let mut text = String::from(body);
    for slot in slots {
        let line = match &slot.media {
            Media::Note(note) => note.clone(),
            Media::Inline(_) | Media::Url(_) if moved => format!(
                "[{} {} follows in the next user message]",
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

/// A payload's base64 as a JSON string, encoded straight into the string
/// the body keeps (`json!` would copy it once more).
pub(crate) fn base64_value(prepared: &Prepared) -> Value {
    let mut text = String::new();
    prepared.write_base64(&mut text);
    Value::String(text)
}

/// A payload as a `data:` URL JSON string, encoded straight into it.
pub(crate) fn data_url_value(prepared: &Prepared) -> Value {
    let mut text = String::new();
    prepared.write_data_url(&mut text);
    Value::String(text)
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

/// Tool-use ids made to fit a provider's pattern, consistently: the same
/// original id always maps to the same output, and two different ids never
/// map to the same one.
pub(crate) struct Ids {
    allowed: fn(char) -> bool,
    max_len: usize,
    map: HashMap<String, String>,
    used: HashSet<String>,
}

impl Ids {
    pub(crate) fn new(allowed: fn(char) -> bool, max_len: usize) -> Ids {
        Ids {
            allowed,
            max_len,
            map: HashMap::new(),
            used: HashSet::new(),
        }
    }

    pub(crate) fn get(&mut self, original: &str) -> String {
        if let Some(id) = self.map.get(original) {
            return id.clone();
        }
        let mut id = sanitize(original, self.allowed, self.max_len, "call");
        if self.used.contains(&id) {
            let mut n = 2usize;
            loop {
                let suffix = format!("_{n}");
                let keep = self.max_len.saturating_sub(suffix.len());
                let base: String = id.chars().take(keep).collect();
                let candidate = format!("{base}{suffix}");
                if !self.used.contains(&candidate) {
                    id = candidate;
                    break;
                }
                n += 1;
            }
        }
        self.used.insert(id.clone());
        self.map.insert(original.to_owned(), id.clone());
        id
    }
}

/// `s` with every character `allowed` refuses replaced by `_`, cut to
/// `max_len` characters; `fallback` when empty.
pub(crate) fn sanitize(
    s: &str,
    allowed: fn(char) -> bool,
    max_len: usize,
    fallback: &str,
) -> String {
    let out: String = s
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .take(max_len)
        .collect();
    if out.is_empty() {
        fallback.to_owned()
    } else {
        out
    }
}

/// `[A-Za-z0-9_-]`: Anthropic's tool-use ids, and tool names everywhere.
pub(crate) fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Messages for APIs whose roles must alternate (Anthropic, Bedrock):
/// content pushed for the role of the last message joins it.
pub(crate) struct Alternating {
    messages: Vec<(&'static str, Vec<Value>)>,
}

impl Alternating {
    pub(crate) fn new() -> Alternating {
        Alternating {
            messages: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, role: &'static str, blocks: Vec<Value>) {
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
    pub(crate) fn finish(mut self, opening: Value) -> Vec<(&'static str, Vec<Value>)> {
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
    fn ids_stay_consistent_and_distinct() {
        let mut ids = Ids::new(word_char, 8);
        assert_eq!(ids.get("call.1"), "call_1");
        assert_eq!(ids.get("call_1"), "call_1_2");
        assert_eq!(ids.get("call.1"), "call_1");
        assert_eq!(ids.get(""), "call");
        assert_eq!(ids.get("abcdefghijk"), "abcdefgh");
        assert_eq!(ids.get("abcdefghXYZ"), "abcdef_2");
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
