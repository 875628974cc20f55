//! Why a target was not turned into an attachment.

use std::error::Error;
use std::fmt;
use std::io;

use super::budget::Measure;
use super::file_uri::FileUriError;
use super::sniff::MediaType;
use super::whole::Damage;
use crate::roots::RootError;

/// Why a declared target could not be attached.
///
/// Every refusal is its own variant, and every message is short enough to
/// go in a note beside the tool result. Messages about local files name the
/// target as written in the history; messages about a `data:` URI never
/// repeat its payload.
#[derive(Debug)]
#[non_exhaustive]
pub enum MediaError {
    // ---- resolving a target ----
    /// The target was empty.
    EmptyTarget,
    /// A URI scheme other than `data`, `file`, `http` and `https`.
    UnsupportedScheme {
        /// The target as written.
        target: String,
        /// The scheme, lowercased.
        scheme: String,
    },
    /// A `file:` URI that names no local path (another host, a query, a
    /// bad escape).
    BadFileUri {
        /// The target as written.
        target: String,
        /// Why.
        why: FileUriError,
    },
    /// An `http(s)` URL that is not well formed (no host, spaces, control
    /// characters).
    BadUrl {
        /// The target as written.
        target: String,
    },
    /// A local path the roots refused: none are configured, it does not
    /// resolve, it lies outside every root, or it is no regular file (a
    /// folder, a FIFO, a device, …).
    Root {
        /// The target as written.
        target: String,
        /// Why, as [`Roots::resolve`](crate::roots::Roots::resolve) says.
        source: RootError,
    },
    /// The file was replaced between the check and the open.
    FileChanged {
        /// The target as written.
        target: String,
    },
    /// A file larger than the policy's cap; refused before reading it, or
    /// while reading if it grew.
    FileTooLarge {
        /// The target as written.
        target: String,
        /// Its size (or, if it grew while read, more than `cap`).
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// Opening or reading a file failed.
    Io {
        /// The target as written.
        target: String,
        /// The I/O error.
        source: io::Error,
    },
    /// A `data:` URI that does not follow `data:<type>;base64,<payload>`.
    BadDataUri(&'static str),
    /// A `data:` URI whose payload is not canonical standard base64.
    BadBase64(String),
    /// A `data:` URI whose media type is not in the allowlist.
    DisallowedMediaType(String),
    /// A `data:` URI whose encoded payload is longer than the cap; refused
    /// before decoding.
    DataUriTooLarge {
        /// The payload's length in characters.
        len: usize,
        /// The cap.
        cap: usize,
    },
    /// The declared media type and the bytes disagree.
    TypeMismatch {
        /// What the target declared.
        declared: MediaType,
        /// What the bytes are (`image/png`, `TIFF`, `unrecognised bytes`).
        found: String,
    },
    /// A resolver of the caller's refused the target.
    Refused {
        /// The target as written.
        target: String,
        /// Why.
        reason: String,
    },

    // ---- reading the bytes ----
    /// No bytes at all.
    Empty,
    /// A recognised format that is not supported (TIFF, HEIC, AVIF, SVG…).
    UnsupportedFormat(&'static str),
    /// Bytes of no recognised format.
    UnknownFormat,
    /// A header that cannot be read (truncated, zero size, …).
    BadHeader {
        /// The sniffed type.
        media_type: MediaType,
        /// What is wrong.
        reason: &'static str,
    },
    /// More pixels than the policy allows; refused before decoding.
    TooManyPixels {
        /// Width from the header.
        width: u32,
        /// Height from the header.
        height: u32,
        /// The limit.
        max_pixels: u64,
    },
    /// Decoding would allocate more than the policy allows.
    MemoryLimit {
        /// The limit.
        max_alloc: u64,
    },
    /// Bytes that are not a whole file of their type: cut off, a checksum
    /// that does not match, a structure missing or malformed (found by
    /// [`check_whole`](super::check_whole) before anything is sent), or
    /// data the decoder stopped on.
    Corrupt {
        /// The sniffed type.
        media_type: MediaType,
        /// What is wrong, and where.
        damage: Damage,
    },
    /// The decoder cannot read the data (a feature it does not support).
    Decode {
        /// The sniffed type.
        media_type: MediaType,
        /// The decoder's message.
        message: String,
    },
    /// The encoder failed (should not happen for decoded images).
    Encode {
        /// The output type.
        media_type: MediaType,
        /// The encoder's message.
        message: String,
    },
    /// The resizer failed (should not happen for decoded images).
    Resize(String),

    // ---- fitting the destination ----
    /// No re-encoding brought the image within the budget.
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
    DocumentTooLarge {
        /// Its size, measured as the budget measures.
        len: usize,
        /// The cap.
        cap: usize,
        /// How the cap is measured.
        measure: Measure,
    },
}

impl MediaError {
    /// The target the error is about, as written, when it names one.
    pub fn target(&self) -> Option<&str> {
        match self {
            MediaError::UnsupportedScheme { target, .. }
            | MediaError::BadUrl { target, .. }
            | MediaError::BadFileUri { target, .. }
            | MediaError::Root { target, .. }
            | MediaError::FileChanged { target, .. }
            | MediaError::FileTooLarge { target, .. }
            | MediaError::Io { target, .. }
            | MediaError::Refused { target, .. } => Some(target),
            _ => None,
        }
    }

    /// Why, without the target: what a note that already names the target
    /// says. [`MediaError`]'s `Display` is `target: reason` (or the reason
    /// alone for an error about no particular target).
    ///
    /// ```
    /// use tool_carrier::media::MediaError;
    /// use tool_carrier::roots::RootError;
    /// let e = MediaError::Root { target: "../x.png".into(), source: RootError::OutsideRoots };
    /// assert_eq!(e.to_string(), "../x.png: outside the allowed folders");
    /// assert_eq!(e.reason().to_string(), "outside the allowed folders");
    /// ```
    pub fn reason(&self) -> ErrorReason<'_> {
        ErrorReason(self)
    }
}

/// A [`MediaError`] without its target: see [`MediaError::reason`].
#[derive(Debug)]
pub struct ErrorReason<'a>(&'a MediaError);

impl fmt::Display for ErrorReason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            MediaError::EmptyTarget => f.write_str("empty target"),
            MediaError::UnsupportedScheme { scheme, .. } => write!(f, "scheme {scheme:?} is not supported"),
            MediaError::BadUrl { .. } => f.write_str("not a well-formed http(s) URL"),
            MediaError::BadFileUri { why, .. } => write!(f, "file: URI {why}"),
            // Worded for a note about a history's attachment; `RootError`'s
            // own text is worded for a caller of `Roots`.
            MediaError::Root { source, .. } => match source {
                RootError::NoRoots => f.write_str("local files are not allowed (no roots configured)"),
                RootError::OutsideRoots => f.write_str("outside the allowed folders"),
                other => other.fmt(f),
            },
            MediaError::FileChanged { .. } => f.write_str("the file changed while it was being opened"),
            MediaError::FileTooLarge { cap, size, .. } => write!(f, "{size} bytes is over the {cap}-byte file cap"),
            MediaError::Io { source, .. } => write!(f, "{source}"),
            MediaError::BadDataUri(v0) => write!(f, "data: URI: {v0}"),
            MediaError::BadBase64(v0) => write!(f, "data: URI: payload is not canonical base64 ({v0})"),
            MediaError::DisallowedMediaType(v0) => write!(f, "data: URI: media type {v0:?} is not allowed"),
            MediaError::DataUriTooLarge { cap, len, .. } => write!(f, "data: URI: {len} base64 characters is over the {cap}-character cap"),
            MediaError::TypeMismatch { declared, found, .. } => write!(f, "declared {declared} but the bytes are {found}"),
            MediaError::Refused { reason, .. } => write!(f, "{reason}"),
            MediaError::Empty => f.write_str("empty file"),
            MediaError::UnsupportedFormat(v0) => write!(f, "{v0} images are not supported"),
            MediaError::UnknownFormat => f.write_str("not a supported image or PDF (unrecognised bytes)"),
            MediaError::BadHeader { media_type, reason, .. } => write!(f, "malformed {media_type} header: {reason}"),
            MediaError::TooManyPixels { height, max_pixels, width, .. } => write!(f, "{width}×{height} is over the {max_pixels}-pixel limit"),
            MediaError::MemoryLimit { max_alloc, .. } => write!(f, "decoding would need more than the {max_alloc}-byte memory limit"),
            MediaError::Corrupt { media_type, damage } => write!(f, "corrupt or truncated {}: {damage}", media_type.name()),
            MediaError::Decode { media_type, message, .. } => write!(f, "cannot decode {media_type}: {message}"),
            MediaError::Encode { media_type, message, .. } => write!(f, "cannot encode {media_type}: {message}"),
            MediaError::Resize(v0) => write!(f, "cannot resize: {v0}"),
            MediaError::OverBudget { cap, height, len, measure, media_type, width, .. } => write!(f, "{media_type} does not fit the {cap}-byte {measure} budget even at {width}×{height} ({len} bytes)"),
            MediaError::DocumentTooLarge { cap, len, measure, .. } => write!(f, "PDF of {len} bytes ({measure}) is over the {cap}-byte document cap"),
        }
    }
}

impl fmt::Display for MediaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(target) = self.target() {
            write!(f, "{target}: ")?;
        }
        self.reason().fmt(f)
    }
}

impl Error for MediaError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            MediaError::Root { source, .. } => Some(source),
            MediaError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
