//! Tool-result carriers in agent conversation histories.
//!
//! Agents store tool results in their history. Once tools return
//! screenshots or PDFs, the history needs a grammar saying where a round's
//! attachments live. This crate reads and writes that grammar:
//!
//! * [`carrier`] — the grammar: [`classify`] a message, open its carrier at
//!   the fixed position ([`CarrierParts`]), [`render_prompt_tool_carrier`] /
//!   [`render_native_tool_carrier`] new ones, [`rebuild_carrier`] existing
//!   ones without losing a byte.
//! * [`history`] — JSON Lines or JSON array histories, as records and the
//!   verbatim bytes between them.
//! * [`inspect`] — what `tool-carrier inspect` prints.
//! * [`migrate`] — upgrading legacy carriers to declared ones.
//! * [`roots`] — confining local targets to configured folders.
//!
//! With the feature `media` (on by default):
//!
//! * [`media`] — declared image targets to bytes a provider accepts.
//! * [`facts`] — what the crate knows of each provider and model (limits,
//!   image sizes, defaults, retirement dates) as dated data, with a
//!   user's file laid over it.
//! * [`provider`] — a history to one request body for each provider
//!   ([`provider::build_request`]), tool definitions declared the way each
//!   documents.
//! * [`rules`] — the rules each provider's API enforces that its SDK types
//!   cannot see, checked on a request body ([`rules::check`]).
//! * [`import`] — request bodies and MCP results back into carrier histories.
//!
//! Inside, each provider API is one folder (`src/apis/NAME/`: its writer,
//! reader, rules and facts), built on shared steps that name no API
//! (`src/steps/`); `provider`, `rules` and `import` reach the APIs through
//! one table. The README's "Where things are" lists the folders.
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
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "media")]
mod apis;
pub mod carrier;
#[cfg(feature = "media")]
pub mod facts;
pub mod history;
#[cfg(feature = "media")]
pub mod import;
pub mod inspect;
mod json;
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

pub use carrier::{
    classify, image_refs, is_prompt_tool_carrier, is_tool_result_carrier, marker_line,
    native_attachments, parse_marker_line, parse_native_tool_carrier, parse_prompt_tool_carrier,
    rebuild_carrier, render_native_attachments, render_native_tool_carrier,
    render_prompt_tool_carrier, Attachment, AttachmentKind, CarrierKind, CarrierParts,
    RebuildError, RenderError, TOOL_RESULTS_PREFIX,
};
pub use role::Role;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
