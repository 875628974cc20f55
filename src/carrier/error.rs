//! Why a carrier could not be written.

use thiserror::Error;

use super::{CarrierKind, Legacy};

/// An attachment list that cannot be written so that it reads back the same.
///
/// Rendering refuses instead of writing a carrier that would silently read
/// back as legacy or lose an attachment.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RenderError {
    /// A target must be a non-empty string (an empty one is not a record).
    #[error("attachment {index}: empty target")]
    EmptyTarget {
        /// Position of the attachment in the list, from 0.
        index: usize,
    },
    /// A marker line ends at the first `\n`, so a prompt-mode target cannot
    /// hold one.
    #[error("attachment {index}: target holds a line feed, which a marker line cannot carry")]
    LineFeedInTarget {
        /// Position of the attachment in the list, from 0.
        index: usize,
    },
    /// A marker line has no room for a cache mark: mark the record
    /// instead, or write a native carrier.
    #[error(
        "attachment {index}: a marker line cannot carry a cache mark (mark the message instead)"
    )]
    CacheInMarker {
        /// Position of the attachment in the list, from 0.
        index: usize,
    },
}

/// Why [`rebuild_carrier`](super::rebuild_carrier) refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RebuildError {
    /// The message is not a tool-result carrier at all.
    #[error("a {role:?} message with this content is not a tool-result carrier")]
    NotACarrier {
        /// The role that was given.
        role: String,
    },
    /// The parts describe another shape than the role holds.
    #[error("a {role:?} message cannot hold a {} carrier", kind.as_str())]
    KindMismatch {
        /// The role that was given.
        role: String,
        /// The shape the parts describe.
        kind: CarrierKind,
    },
    /// A native carrier whose content is no envelope to edit: not a JSON
    /// object, no string `content` member, or a duplicated member.
    #[error("native content is not an envelope that can be edited: {reason}")]
    NotAnEnvelope {
        /// What is wrong with it.
        reason: Legacy,
    },
    /// A legacy prompt carrier whose line 1 is not exactly
    /// `[Tool results]` (indented, CRLF, trailing text): rebuilding it would
    /// write the prefix twice.
    #[error("legacy prompt carrier whose first line is not exactly \"[Tool results]\"; rebuilding would duplicate the prefix")]
    InexactPrefix,
    /// The new attachment list cannot be written.
    #[error(transparent)]
    Render(#[from] RenderError),
}
