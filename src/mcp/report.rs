//! What became of each image of a result: [`ImageReport`].

use std::fmt;

use crate::media::MediaFacts;

/// What became of one image.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// It already fitted the model and is left byte for byte as it was.
    Kept(MediaFacts),
    /// It already fitted, but its `mimeType` named another type than its
    /// bytes are: the bytes are kept, the type is corrected.
    Relabeled {
        /// The `mimeType` it came with.
        declared: String,
        /// What it is.
        facts: MediaFacts,
    },
    /// Resized or re-encoded (or both) for the model.
    Fitted {
        /// What came in.
        from: MediaFacts,
        /// What is sent.
        to: MediaFacts,
    },
    /// It could not be prepared (corrupt, truncated, of a type no model
    /// takes, not base64…): it is now a text content saying why.
    Replaced {
        /// Why, as the text content says it.
        reason: String,
    },
}

/// One image of a result and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageReport {
    /// The JSON-RPC id of the response it is in, as written, when it is in
    /// one.
    pub id: Option<String>,
    /// Where it is: `content[2]`, `content[0].resource`, `contents[1]`
    /// (with `[i].` in front inside a batch).
    pub at: String,
    /// What became of it.
    pub outcome: Outcome,
}

impl ImageReport {
    /// Whether the message changed for this image.
    pub fn changed(&self) -> bool {
        !matches!(self.outcome, Outcome::Kept(_))
    }
}

/// `2880×1800 PNG, 1234567 bytes`.
struct Facts<'a>(&'a MediaFacts);

impl fmt::Display for Facts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        if let (Some(w), Some(h)) = (m.width, m.height) {
            write!(f, "{w}×{h} ")?;
        }
        write!(f, "{}, {} bytes", m.media_type.name(), m.bytes)
    }
}

impl fmt::Display for ImageReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(id) = &self.id {
            write!(f, "id {id} ")?;
        }
        write!(f, "{}: ", self.at)?;
        match &self.outcome {
            Outcome::Kept(m) => write!(f, "{} kept", Facts(m)),
            Outcome::Relabeled { declared, facts } => {
                write!(f, "{} kept, mimeType {declared:?} corrected", Facts(facts))
            }
            Outcome::Fitted { from, to } => write!(f, "{} → {}", Facts(from), Facts(to)),
            Outcome::Replaced { reason } => write!(f, "replaced by a text: {reason}"),
        }
    }
}
