//! Reading what agents already store into carrier histories.
//!
//! * [`from_mcp`]: an MCP `CallToolResult` as a native carrier.
//! * [`from_provider`] ([`from_anthropic`], [`from_openai_chat`],
//!   [`from_openai_responses`], [`from_gemini`], [`from_bedrock`],
//!   [`from_ollama`]): a request body (or its
//!   messages) as a carrier history ([`ImportedHistory`]).
//!
//! Inline payloads (base64 images, blobs) go to a
//! [`MediaStore`](crate::media::store::MediaStore): files named by the
//! SHA-256 of their bytes under a folder
//! ([`DirStore`](crate::media::store::DirStore)), or `data:` targets
//! ([`InlineStore`](crate::media::store::InlineStore)). A tool's error flag
//! becomes the envelope member [`IS_ERROR`].

use std::fmt;
use std::io;

use crate::provider::Provider;
use crate::AttachmentKind;

mod anthropic;
mod bedrock;
mod envelope;
mod gemini;
mod history;
mod mcp;
mod ollama;
mod openai_chat;
mod openai_responses;

pub use anthropic::{from_anthropic, BLOCKS as ANTHROPIC_BLOCKS, THINKING as ANTHROPIC_THINKING};
pub use bedrock::{from_bedrock, BLOCKS as BEDROCK_BLOCKS};
pub use envelope::IS_ERROR;
pub use gemini::from_gemini;
pub use history::{ImportNote, ImportedHistory};
pub use mcp::from_mcp;
pub use ollama::from_ollama;
pub use openai_chat::from_openai_chat;
pub use openai_responses::{from_openai_responses, ITEMS as OPENAI_ITEMS};

/// A carrier's content made by an import, and what was noticed on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// The message content: a native envelope.
    pub content: String,
    /// What was kept in another form than it came (each a sentence, with
    /// the JSON path it concerns).
    pub notes: Vec<String>,
}

/// Why something could not be imported.
#[derive(Debug)]
#[non_exhaustive]
pub enum ImportError {
    /// The input is not what the format says, at a JSON path.
    Invalid {
        /// Where (`$.content[2]`).
        at: String,
        /// What is wrong.
        what: String,
    },
    /// The media store failed.
    Store(io::Error),
}

impl ImportError {
    pub(crate) fn at(at: &str, what: impl Into<String>) -> ImportError {
        ImportError::Invalid {
            at: at.to_owned(),
            what: what.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Invalid { at, what } => write!(f, "{at}: {what}"),
            ImportError::Store(e) => write!(f, "storing media: {e}"),
        }
    }
}

impl std::error::Error for ImportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImportError::Store(e) => Some(e),
            ImportError::Invalid { .. } => None,
        }
    }
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
    match provider {
        Provider::Anthropic => from_anthropic(input, store),
        Provider::OpenAiChat | Provider::OpenAiCompatible => from_openai_chat(input, store),
        Provider::OpenAiResponses => from_openai_responses(input, store),
        Provider::Gemini | Provider::Gemini2 => from_gemini(input, store),
        Provider::Bedrock => from_bedrock(input, store),
        Provider::Ollama => from_ollama(input, store),
    }
}

/// The attachment kind a MIME type declares: images, audio, video, PDFs.
pub(crate) fn kind_of_mime(mime: &str) -> Option<AttachmentKind> {
    let mime = mime.trim().to_ascii_lowercase();
    if mime.starts_with("image/") {
        Some(AttachmentKind::Image)
    } else if mime.starts_with("audio/") {
        Some(AttachmentKind::Audio)
    } else if mime.starts_with("video/") {
        Some(AttachmentKind::Video)
    } else if mime == "application/pdf" {
        Some(AttachmentKind::Document)
    } else {
        None
    }
}
