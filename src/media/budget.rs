//! Byte caps per destination, and how each is measured.

use std::fmt;

use serde::Serialize;

/// What a [`Budget`]'s caps are measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// The length of the base64 text (Anthropic's image limit).
    Base64,
    /// The length of the raw bytes (Bedrock's image limit).
    Raw,
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Measure::Base64 => "base64",
            Measure::Raw => "raw",
        })
    }
}

/// The largest attachment a destination accepts.
///
/// An image over [`Budget::image_cap`] is re-encoded smaller until it fits;
/// a PDF over [`Budget::document_cap`] is refused (documents are never
/// altered). Both caps are measured the same way ([`Budget::measure`]).
///
/// ```
/// use tool_carrier::media::{Budget, Measure};
/// let b = Budget::ANTHROPIC;
/// assert_eq!(b.measure(), Measure::Base64);
/// assert_eq!(b.measured_len(3), 4); // 3 raw bytes are 4 base64 characters
/// assert!(b.fits_image(3 * 1024 * 1024));
/// assert!(!b.fits_image(4 * 1024 * 1024)); // 5 592 408 base64 characters
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    image_cap: usize,
    document_cap: usize,
    measure: Measure,
}

impl Budget {
    /// Anthropic Messages: 5 MiB per image measured on the base64 text.
    /// The Claude API itself takes 10 MB since mid-2026; Bedrock and
    /// Google Cloud still take 5 MB (`image exceeds 5 MB maximum: N bytes >
    /// 5242880 bytes`), and 5 MiB is kept so one body is accepted on every
    /// platform (<https://platform.claude.com/docs/en/build-with-claude/vision>,
    /// read 2026-12-01). PDFs up to 32 MB of base64 (the request limit, so
    /// leave room).
    pub const ANTHROPIC: Budget = Budget {
        image_cap: 5 * 1024 * 1024,
        document_cap: 32_000_000,
        measure: Measure::Base64,
    };

    /// Bedrock Converse: 3.75 MB per image and 4.5 MB per document, on the
    /// raw bytes (decimal megabytes, the smaller reading of the limit).
    pub const BEDROCK: Budget = Budget {
        image_cap: 3_750_000,
        document_cap: 4_500_000,
        measure: Measure::Raw,
    };

    /// OpenAI (Chat and Responses): 20 MB per image (the figure the vision
    /// guide gave until 2026-04; it now states none, and keeps a bound)
    /// and under 50 MB per file, raw
    /// (<https://platform.openai.com/docs/guides/pdf-files>, read 2026-12-01).
    pub const OPENAI: Budget = Budget {
        image_cap: 20_000_000,
        document_cap: 49_999_999,
        measure: Measure::Raw,
    };

    /// No cap at all.
    pub const UNLIMITED: Budget = Budget {
        image_cap: usize::MAX,
        document_cap: usize::MAX,
        measure: Measure::Raw,
    };

    /// A budget of `cap` for images and documents alike, measured by
    /// `measure`.
    pub const fn new(cap: usize, measure: Measure) -> Budget {
        Budget {
            image_cap: cap,
            document_cap: cap,
            measure,
        }
    }

    /// The same budget with a different cap for documents (PDFs).
    pub const fn with_document_cap(self, cap: usize) -> Budget {
        Budget {
            document_cap: cap,
            ..self
        }
    }

    /// The cap for one image.
    pub const fn image_cap(&self) -> usize {
        self.image_cap
    }

    /// The cap for one document.
    pub const fn document_cap(&self) -> usize {
        self.document_cap
    }

    /// How the caps are measured.
    pub const fn measure(&self) -> Measure {
        self.measure
    }

    /// The length a payload of `raw_len` bytes counts as.
    pub const fn measured_len(&self, raw_len: usize) -> usize {
        match self.measure {
            Measure::Raw => raw_len,
            Measure::Base64 => base64_len(raw_len),
        }
    }

    /// Whether an image of `raw_len` bytes fits.
    pub const fn fits_image(&self, raw_len: usize) -> bool {
        self.measured_len(raw_len) <= self.image_cap
    }

    /// Whether a document of `raw_len` bytes fits.
    pub const fn fits_document(&self, raw_len: usize) -> bool {
        self.measured_len(raw_len) <= self.document_cap
    }
}

/// Length of the padded standard base64 text for `raw_len` bytes
/// (saturating at `usize::MAX`).
pub(crate) const fn base64_len(raw_len: usize) -> usize {
    let groups = raw_len.div_ceil(3);
    groups.saturating_mul(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_length_is_four_per_started_group() {
        for (raw, b64) in [(0, 0), (1, 4), (2, 4), (3, 4), (4, 8), (6, 8), (7, 12)] {
            assert_eq!(base64_len(raw), b64, "{raw}");
        }
        assert_eq!(base64_len(usize::MAX), usize::MAX);
    }

    #[test]
    fn anthropic_cap_is_on_the_base64_text() {
        let cap = Budget::ANTHROPIC.image_cap();
        assert_eq!(cap, 5_242_880);
        assert!(Budget::ANTHROPIC.fits_image(cap / 4 * 3));
        assert!(!Budget::ANTHROPIC.fits_image(cap / 4 * 3 + 1));
    }

    #[test]
    fn bedrock_cap_is_on_raw_bytes() {
        assert!(Budget::BEDROCK.fits_image(3_750_000));
        assert!(!Budget::BEDROCK.fits_image(3_750_001));
        assert!(Budget::BEDROCK.fits_document(4_500_000));
    }
}
