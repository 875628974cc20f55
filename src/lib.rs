//! Tool-result carriers in agent conversation histories.
//!
//! Agents store tool results in their history. Once tools return
//! screenshots or PDFs, the history needs a grammar saying where a round's
//! attachments live; this crate reads and writes that grammar, and turns a
//! history into the request body each provider API accepts, its images
//! prepared and every documented rule checked before a byte leaves.
//!
//! # The core
//!
//! Read a history, convert it, and keep the loop going:
//!
//! ```
//! # #[cfg(feature = "media")] {
//! use tool_carrier::history;
//! use tool_carrier::provider::{build_request, Options, Provider};
//! use tool_carrier::Conversation;
//!
//! // A history: JSON Lines (or one JSON array) of {role, content} records.
//! let text = concat!(
//!     r#"{"role":"user","content":"Open the dashboard."}"#, "\n",
//!     r#"{"role":"assistant","content":"{\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"name\":\"screenshot\",\"arguments\":\"{}\"}]}"}"#, "\n",
//!     r#"{"role":"tool","content":"{\"tool_call_id\":\"c1\",\"content\":\"Saved.\",\"attachments\":[{\"kind\":\"image\",\"target\":\"https://example.com/a.png\"}]}"}"#, "\n",
//! );
//! let records = history::read(text.as_bytes())?;
//!
//! // One request body, checked against the API's rules already.
//! let request = build_request(Provider::Anthropic, &records, &Options::new())?;
//! assert_eq!(request.report.urls, 1); // sent as a URL, as the API takes it
//! let body: &str = request.json();
//! # assert!(body.contains("https://example.com/a.png"));
//!
//! // The loop: each turn's request built from what earlier turns prepared.
//! let mut conversation = Conversation::new(Provider::Anthropic, Options::new()).with_records(records);
//! conversation.push_user("And the settings page?");
//! let next = conversation.request()?;
//! assert_eq!(next.report.urls, 1);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `build_request` reads files and decodes, resizes and encodes images on
//! the calling thread: in async code, call it inside
//! `tokio::task::spawn_blocking` (or your runtime's equivalent). Image work
//! in a debug build of your crate is many times slower than in release
//! unless dependencies are optimised (see the README's "Embedding").
//!
//! # Where things are
//!
//! * The grammar, at the root: [`classify`] a message, open its carrier at
//!   the fixed position ([`CarrierParts`], [`Carrier`]),
//!   [`render_prompt_tool_carrier`] / [`render_native_tool_carrier`] new
//!   ones, [`rebuild_carrier`] existing ones without losing a byte.
//! * [`history`] — reading histories ([`history::read`],
//!   [`history::HistoryReader`]) and writing an agent's records
//!   ([`history::AssistantTurn`], [`history::ToolResult`],
//!   [`history::UserMessage`]).
//! * [`inspect`] and [`migrate`] — what `tool-carrier inspect` prints;
//!   upgrading legacy carriers to declared ones.
//! * [`roots`] — confining local targets to configured folders.
//!
//! With the feature `media` (on by default):
//!
//! * [`provider`] — a history to one request body for each provider
//!   ([`provider::build_request`], [`provider::Options`]), tool definitions
//!   declared the way each documents ([`provider::Tools`]).
//! * [`Conversation`] — an agent's records held across turns.
//! * [`import`] — request bodies, responses, agents' saved sessions and MCP
//!   results back into carrier histories.
//! * [`media`] — declared targets to bytes a provider accepts
//!   ([`media::prepare`], [`media::Policy`], the stores).
//! * [`facts`] — what the crate knows of each provider and model (limits,
//!   image sizes, defaults, retirement dates) as dated data, with a user's
//!   file laid over it.
//! * [`rules`] — the rules each provider's API enforces that its SDK types
//!   cannot see, checked on a request body ([`rules::check`]).
//! * [`mcp`] — MCP tool results with their images prepared for a model,
//!   every other byte as the server wrote it.
//!
//! Inside, each provider API is one folder (`src/apis/NAME/`: its request
//! shape, its wire types, which its writer and reader share, its rules and
//! facts), built on shared steps that name no API (`src/steps/`);
//! `provider`, `rules` and `import` reach the APIs through one table. The
//! README's "Where things are" lists the folders.
//!
//! # The grammar
//!
//! A tool result becomes history in one of two carrier shapes:
//!
//! * **native** — a `role = "tool"` message whose content is a JSON object
//!   with the verbatim tool output under `content` (the *body*) and an
//!   `attachments` array beside it (the *declaration*, `[]` for none);
//! * **prompt** — a `role = "user"` message whose line 1 is
//!   [`TOOL_RESULTS_PREFIX`], line 2 `[Tool attachments: N]`, then exactly N
//!   marker lines, then the body.
//!
//! The position is fixed, so the parser never searches body text and never
//! has to trust it: a marker-looking line inside a body is body. A carrier
//! without the array / the count line is *legacy*: zero attachments, body
//! untouched.
//!
//! Reading borrows from the input ([`CarrierParts`] holds `Cow`s that are
//! borrowed wherever no JSON escape forces a copy); writing
//! ([`render_prompt_tool_carrier`], [`render_native_tool_carrier`],
//! [`rebuild_carrier`]) owns and is total: what cannot be written so that it
//! reads back the same is refused with a [`RenderError`].
//!
//! # A tour
//!
//! ```
//! use tool_carrier::{classify, rebuild_carrier, Attachment, CarrierKind};
//!
//! // A prompt-mode carrier: the count line says one attachment, so the
//! // second marker-looking line is body text written by the tool.
//! let content = "[Tool results]\n[Tool attachments: 1]\n[IMAGE:shots/a.png]\n[IMAGE:/etc/passwd]\n";
//! let parts = classify("user", content).unwrap();
//! assert_eq!(parts.kind, CarrierKind::Prompt);
//! assert_eq!(parts.image_refs().collect::<Vec<_>>(), ["shots/a.png"]);
//! assert_eq!(parts.body, "[IMAGE:/etc/passwd]\n");
//!
//! // A legacy tool result: no attachments array, so nothing is declared.
//! let legacy = r#"{"tool_call_id":"c1","content":"done"}"#;
//! let parts = classify("tool", legacy).unwrap();
//! assert!(!parts.declared);
//!
//! // Declare a screenshot; every other byte of the envelope stays.
//! let declared = rebuild_carrier("tool", legacy, &parts, &[Attachment::image("shots/b.png")]).unwrap();
//! assert_eq!(declared, r#"{"tool_call_id":"c1","content":"done","attachments":[{"kind":"image","target":"shots/b.png"}]}"#);
//! ```
//! # One tool round
//!
//! The model called a tool; the tool answered with a screenshot held in
//! memory. Append the call and the result (paired by id), then build the
//! next request:
//!
//! ```
//! # #[cfg(feature = "media")] {
//! use tool_carrier::history::{AssistantTurn, ToolResult};
//! use tool_carrier::media::{store::DirStore, Policy};
//! use tool_carrier::provider::{build_request, Options, Provider};
//! use tool_carrier::roots::Roots;
//! # let media = std::env::temp_dir().join(format!("tool-carrier-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&media)?;
//! # let png: &[u8] = &[137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 240, 31, 0, 5, 0, 1, 255, 137, 153, 61, 29, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130];
//!
//! let mut history = vec![("user".to_owned(), "What is on screen?".to_owned())];
//! let call = AssistantTurn::new("").call("toolu_1", "screenshot", "{}")?;
//! history.push(("assistant".into(), call.to_json()));
//! // The bytes are stored once, named by their hash, and declared.
//! let mut store = DirStore::new(&media)?;
//! let result = ToolResult::new("toolu_1", "Captured.").attach_bytes(png, &mut store)?;
//! history.push(("tool".into(), result.to_json()?));
//!
//! let policy = Policy::default().with_roots(Roots::new([&media])?);
//! let request = build_request(Provider::Anthropic, &history, &Options::new().with_policy(policy))?;
//! assert_eq!(request.report.images, 1);
//! let body: &str = request.json(); // checked against the API's rules already
//! # assert!(body.contains("toolu_1"));
//! # std::fs::remove_dir_all(&media)?;
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "media")]
mod agents;
#[cfg(feature = "media")]
mod apis;
mod carrier;
#[cfg(feature = "media")]
mod conversation;
#[cfg(feature = "media")]
pub mod facts;
#[cfg(feature = "media")]
pub mod fit;
#[cfg(feature = "media")]
pub mod gateway;
pub mod history;
#[cfg(feature = "media")]
pub mod import;
pub mod inspect;
mod json;
#[cfg(feature = "media")]
pub mod mcp;
#[cfg(feature = "media")]
pub mod media;
pub mod migrate;
#[cfg(feature = "media")]
pub mod provider;
mod role;
pub mod roots;
#[cfg(feature = "media")]
pub mod rules;
#[cfg(feature = "media")]
mod steps;

/// The fast native scan's serde_json twin, for differential fuzzing only.
#[cfg(fuzzing)]
#[doc(hidden)]
pub use carrier::parse_native_tool_carrier_reference;
pub use carrier::{
    classify, image_refs, is_prompt_tool_carrier, is_tool_result_carrier, marker_line,
    native_attachments, parse_marker_line, parse_native_tool_carrier, parse_prompt_tool_carrier,
    rebuild_carrier, render_native_attachments, render_native_tool_carrier,
    render_prompt_tool_carrier, Attachment, AttachmentKind, Carrier, CarrierKind, CarrierParts,
    Declaration, Legacy, RebuildError, Rejected, RenderError, IS_ERROR, TOOL_RESULTS_PREFIX,
};
#[cfg(feature = "media")]
pub use conversation::Conversation;
pub use role::Role;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
