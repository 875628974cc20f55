//! A message with some of its spans replaced: [`Rewrite`].

use std::borrow::Cow;
use std::io;
use std::ops::Range;

use super::report::ImageReport;

/// A span of the input and what replaces it.
pub(crate) type Edit = (Range<usize>, String);

/// A message (or result) as it is to be sent: the text it came as, with
/// the spans of the images that changed replaced. Every byte outside those
/// spans is the input's; a message where nothing changed is the input
/// itself.
#[derive(Clone, Debug)]
pub struct Rewrite<'a> {
    source: &'a str,
    /// Spans of `source` and their replacements, in order, disjoint.
    edits: Vec<Edit>,
    images: Vec<ImageReport>,
}

impl<'a> Rewrite<'a> {
    /// `source` unchanged.
    pub(crate) fn unchanged(source: &'a str) -> Rewrite<'a> {
        Rewrite {
            source,
            edits: Vec::new(),
            images: Vec::new(),
        }
    }

    /// `source` with `edits` (in order, disjoint), and what became of each
    /// image.
    pub(crate) fn new(source: &'a str, edits: Vec<Edit>, images: Vec<ImageReport>) -> Rewrite<'a> {
        debug_assert!(edits.windows(2).all(|w| w[0].0.end <= w[1].0.start));
        Rewrite {
            source,
            edits,
            images,
        }
    }

    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        !self.edits.is_empty()
    }

    /// Every image found, in order, and what became of it.
    pub fn images(&self) -> &[ImageReport] {
        &self.images
    }

    /// The length of the text in bytes.
    pub fn len(&self) -> usize {
        self.edits
            .iter()
            .fold(self.source.len(), |n, (span, with)| {
                n - span.len() + with.len()
            })
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Write the text to `out` piece by piece: the unchanged spans straight
    /// from the input, so the whole message is never copied.
    ///
    /// # Errors
    /// What `out` returns.
    pub fn write_to<W: io::Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let mut at = 0;
        for (span, with) in &self.edits {
            out.write_all(&self.source.as_bytes()[at..span.start])?;
            out.write_all(with.as_bytes())?;
            at = span.end;
        }
        out.write_all(&self.source.as_bytes()[at..])
    }

    /// The text: the input itself when nothing changed.
    pub fn text(&self) -> Cow<'a, str> {
        if self.edits.is_empty() {
            return Cow::Borrowed(self.source);
        }
        let mut out = String::with_capacity(self.len());
        let mut at = 0;
        for (span, with) in &self.edits {
            out.push_str(&self.source[at..span.start]);
            out.push_str(with);
            at = span.end;
        }
        out.push_str(&self.source[at..]);
        Cow::Owned(out)
    }
}
