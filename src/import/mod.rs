//! Reading what agents already store into carrier histories.
//!
//! * [`from_mcp`]: an MCP `CallToolResult` as a native carrier.
//!
//! Inline payloads (base64 images, blobs) go to a
//! [`MediaStore`](crate::media::store::MediaStore): files named by the
//! SHA-256 of their bytes under a folder
//! ([`DirStore`](crate::media::store::DirStore)), or `data:` targets
//! ([`InlineStore`](crate::media::store::InlineStore)). A tool's error flag
//! becomes the envelope member [`IS_ERROR`].

use std::fmt;
use std::io;

use crate::AttachmentKind;

mod envelope;
mod mcp;

pub use envelope::IS_ERROR;
pub use mcp::from_mcp;

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
