//! Why a target was not turned into an attachment.

use std::io;

use thiserror::Error;

use super::budget::Measure;
use super::sniff::MediaType;

/// Why a declared target could not be attached.
///
/// Every refusal is its own variant, and every message is short enough to
/// go in a note beside the tool result. Messages about local files name the
/// target as written in the history; messages about a `data:` URI never
/// repeat its payload.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MediaError {
    // ---- resolving a target ----
    /// The target was empty.
    #[error("empty target")]
    EmptyTarget,
    /// A URI scheme other than `data`, `http` and `https`.
    #[error("{target}: scheme {scheme:?} is not supported")]
    UnsupportedScheme {
        /// The target as written.
        target: String,
        /// The scheme, lowercased.
        scheme: String,
    },
    /// An `http(s)` URL that is not well formed (no host, spaces, control
    /// characters).
    #[error("{target}: not a well-formed http(s) URL")]
    BadUrl {
        /// The target as written.
        target: String,
    },
    /// A local path, but no roots are configured.
    #[error("{target}: local files are not allowed (no roots configured)")]
    NoRoots {
        /// The target as written.
        target: String,
    },
    /// A local path that does not exist or cannot be resolved.
    #[error("{target}: cannot resolve: {source}")]
    NotFound {
        /// The target as written.
        target: String,
        /// The I/O error.
        source: io::Error,
    },
    /// A local path that resolves outside every root.
    #[error("{target}: outside the allowed folders")]
    OutsideRoots {
        /// The target as written.
        target: String,
    },
    /// A path that is not a regular file: a folder, a FIFO, a device, …
    #[error("{target}: not a regular file ({kind})")]
    NotARegularFile {
        /// The target as written.
        target: String,
        /// What it is instead: `a folder`, `a FIFO`, `a device`, …
        kind: &'static str,
    },
    /// The file was replaced between the check and the open.
    #[error("{target}: the file changed while it was being opened")]
    FileChanged {
        /// The target as written.
        target: String,
    },
    /// A file larger than the policy's cap; refused before reading it, or
    /// while reading if it grew.
    #[error("{target}: {size} bytes is over the {cap}-byte file cap")]
    FileTooLarge {
        /// The target as written.
        target: String,
        /// Its size (or, if it grew while read, more than `cap`).
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// Opening or reading a file failed.
    #[error("{target}: {source}")]
    Io {
        /// The target as written.
        target: String,
        /// The I/O error.
        source: io::Error,
    },
    /// A `data:` URI that does not follow `data:<type>;base64,<payload>`.
    #[error("data: URI: {0}")]
    BadDataUri(&'static str),
    /// A `data:` URI whose payload is not canonical standard base64.
    #[error("data: URI: payload is not canonical base64 ({0})")]
    BadBase64(String),
    /// A `data:` URI whose media type is not in the allowlist.
    #[error("data: URI: media type {0:?} is not allowed")]
    DisallowedMediaType(String),
    /// A `data:` URI whose encoded payload is longer than the cap; refused
    /// before decoding.
    #[error("data: URI: {len} base64 characters is over the {cap}-character cap")]
    DataUriTooLarge {
        /// The payload's length in characters.
        len: usize,
        /// The cap.
        cap: usize,
    },
    /// The declared media type and the bytes disagree.
    #[error("declared {declared} but the bytes are {found}")]
    TypeMismatch {
        /// What the target declared.
        declared: MediaType,
        /// What the bytes are (`image/png`, `TIFF`, `unrecognised bytes`).
        found: String,
    },
    /// A resolver of the caller's refused the target.
    #[error("{target}: {reason}")]
    Refused {
        /// The target as written.
        target: String,
        /// Why.
        reason: String,
    },

    // ---- reading the bytes ----
    /// No bytes at all.
    #[error("empty file")]
    Empty,
    /// A recognised format that is not supported (TIFF, HEIC, AVIF, SVG…).
    #[error("{0} images are not supported")]
    UnsupportedFormat(&'static str),
    /// Bytes of no recognised format.
    #[error("not a supported image or PDF (unrecognised bytes)")]
    UnknownFormat,
    /// A header that cannot be read (truncated, zero size, …).
    #[error("malformed {media_type} header: {reason}")]
    BadHeader {
        /// The sniffed type.
        media_type: MediaType,
        /// What is wrong.
        reason: &'static str,
    },
    /// More pixels than the policy allows; refused before decoding.
    #[error("{width}×{height} is over the {max_pixels}-pixel limit")]
    TooManyPixels {
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// The limit.
        max_pixels: u64,
    },
    /// Decoding would allocate more than the policy allows.
    #[error("decoding would need more than the {max_alloc}-byte memory limit")]
    MemoryLimit {
        /// The limit.
        max_alloc: u64,
    },
    /// The decoder refused the data.
    #[error("cannot decode {media_type}: {message}")]
    Decode {
        /// The sniffed type.
        media_type: MediaType,
        /// The decoder's message.
        message: String,
    },
    /// The encoder failed (should not happen for decoded images).
    #[error("cannot encode {media_type}: {message}")]
    Encode {
        /// The output type.
        media_type: MediaType,
        /// The encoder's message.
        message: String,
    },
    /// The resizer failed (should not happen for decoded images).
    #[error("cannot resize: {0}")]
    Resize(String),

    // ---- fitting the destination ----
    /// No re-encoding brought the image within the budget.
    #[error("{media_type} does not fit the {cap}-byte {measure} budget even at {width}×{height} ({len} bytes)")]
    OverBudget {
        /// The output type.
        media_type: MediaType,
        /// Size of the smallest attempt, measured as the budget measures.
        len: usize,
        /// The cap.
        cap: usize,
        /// How the cap is measured.
        measure: Measure,
        /// Width of the smallest attempt.
        width: u32,
        /// Height of the smallest attempt.
        height: u32,
    },
    /// A PDF over the budget's document cap (documents are never altered).
    #[error("PDF of {len} bytes ({measure}) is over the {cap}-byte document cap")]
    DocumentTooLarge {
        /// Its size, measured as the budget measures.
        len: usize,
        /// The cap.
        cap: usize,
        /// How the cap is measured.
        measure: Measure,
    },
}
