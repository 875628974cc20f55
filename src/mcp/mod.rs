//! MCP tool results fitted for a model: each image a server returns,
//! prepared by the media pipeline for the model that will read it, every
//! other byte of the message as the server wrote it.
//!
//! What is read is the Model Context Protocol as its specification states
//! it (revisions 2025-06-18, 2025-11-25 and 2026-07-28,
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio>,
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool-result>,
//! <https://modelcontextprotocol.io/specification/2026-07-28/server/resources>,
//! read 2026-12-02):
//!
//! * a `tools/call` result (`CallToolResult`): each `image` content block
//!   (`data`: base64, `mimeType`), and each embedded `resource` block whose
//!   `blob` has an image `mimeType`;
//! * a `resources/read` result (`ReadResourceResult`): each item of
//!   `contents` with a `blob` and an image `mimeType`;
//! * a `tasks/result` result (2025-11-25), which is the `CallToolResult`
//!   of a tool call run as a task.
//!
//! A result whose `resultType` (2026-07-28) is other than `"complete"` is
//! left alone: an `input_required` result carries the server's own
//! requests, and images in sampling requests are not the proxy's to touch.
//!
//! What happens to each image is [`fit`](fit_result)'s rules: prepared for
//! the [`FitOptions`]' model (its processing size, the API's byte cap and
//! image types), the object rewritten only where the image changed, and an
//! image that cannot be prepared replaced by a text content naming why. A
//! message with no image, or whose images all fit as they are, is
//! returned as the very text it came as.
//!
//! * [`fit_result`] prepares one result (its JSON text);
//! * [`fit_message`] one JSON-RPC message known to answer a [`Method`];
//! * [`Calls`] remembers which of the host's requests each of the
//!   server's responses answers, and [`Plan`]s a message's images without
//!   decoding them, so a proxy can hand only the messages that hold images
//!   to a worker ([`Plan::prepare`]) and write the result piece by piece
//!   ([`Rewrite::write_to`]).
//!
//! ```
//! use tool_carrier::facts::Facts;
//! use tool_carrier::mcp::{Calls, FitOptions};
//! use tool_carrier::provider::Provider;
//!
//! let options = FitOptions::new(Facts::builtin(), Provider::Anthropic, Some("claude-haiku-4-5"));
//! let mut calls = Calls::new();
//! calls.from_host(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"note"}}"#);
//! let response = r#"{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"ok"}]}}"#;
//! let plan = calls.from_server(response);
//! assert!(plan.is_empty());
//! let sent = plan.prepare(response, &options);
//! assert!(!sent.changed());
//! assert_eq!(sent.text(), response);
//! ```
//!
//! # Limitations
//!
//! * `structuredContent` is not looked at: a server that repeats an image's
//!   base64 there sends it to the host as it was.
//! * Images in `prompts/get` results, in notifications and in the 2026-07-28
//!   tasks extension's results are not prepared.
//! * Audio is never changed.

mod calls;
mod fit;
pub mod http;
mod message;
mod options;
mod plan;
mod report;
mod rewrite;
mod scale;

pub use calls::{Calls, RequestId};
pub use fit::fit_result;
pub use message::{fit_message, Method};
pub use options::FitOptions;
pub use plan::Plan;
pub use report::{ImageReport, Outcome};
pub use rewrite::Rewrite;
pub use scale::SCALE_META;
