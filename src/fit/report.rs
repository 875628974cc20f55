//! What `fit` did to each payload of the file, and the count.

use std::fmt;

use crate::facts::Provider;
use crate::import::Detected;
use crate::media::{MediaFacts, MediaType};

/// What became of one payload.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FitAction {
    /// Left as it was: the provider takes it as it is.
    Kept,
    /// Neither an image nor a PDF: left as it was, untouched.
    NotMedia,
    /// Written again: resized or re-encoded, to these facts.
    Fitted(MediaFacts),
    /// Its part replaced by a text saying what was there, because of this.
    LeftOut(String),
}

/// One payload of the file and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FitItem {
    /// The line (from 1) where the JSON value holding it begins.
    pub line: usize,
    /// Its JSON path in that value.
    pub path: String,
    /// What it was, when it is an image or a PDF.
    pub before: Option<MediaFacts>,
    /// What became of it.
    pub action: FitAction,
}

/// What [`fit`](super::fit) did: each payload the reader stored, in file
/// order, and what became of it. Every payload read is one item, so the
/// counts add up to the payloads read.
#[derive(Clone, Debug)]
pub struct FitReport {
    /// What the file was read as.
    pub format: Detected,
    /// The provider fitted for.
    pub provider: Provider,
    /// The model fitted for.
    pub model: String,
    /// Each payload, in file order.
    pub items: Vec<FitItem>,
}

impl FitReport {
    /// How many payloads came to `action`'s kind (its text aside).
    fn count(&self, f: impl Fn(&FitAction) -> bool) -> usize {
        self.items.iter().filter(|i| f(&i.action)).count()
    }

    /// Payloads left as they were (not media included).
    pub fn kept(&self) -> usize {
        self.count(|a| matches!(a, FitAction::Kept | FitAction::NotMedia))
    }

    /// Payloads written again, fitted.
    pub fn fitted(&self) -> usize {
        self.count(|a| matches!(a, FitAction::Fitted(_)))
    }

    /// Payloads whose part was replaced by a text.
    pub fn left_out(&self) -> usize {
        self.count(|a| matches!(a, FitAction::LeftOut(_)))
    }

    /// Whether anything in the file changes.
    pub fn changes(&self) -> bool {
        self.fitted() + self.left_out() > 0
    }
}

/// `PNG 2880×1800, 5.8 MB`.
pub(super) struct Facts<'a>(pub &'a MediaFacts);

impl fmt::Display for Facts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        f.write_str(m.media_type.name())?;
        if let (Some(w), Some(h)) = (m.width, m.height) {
            write!(f, " {w}×{h}")?;
        }
        write!(f, ", {}", bytes(m.bytes))
    }
}

fn bytes(n: usize) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1} kB", n as f64 / 1e3),
        n => format!("{n} B"),
    }
}

/// What a stand-in says was there: `a PNG image (2880×1800, 5.8 MB)`.
pub(super) fn what_was_there(facts: &MediaFacts) -> String {
    let what = if facts.media_type == MediaType::Pdf {
        "document"
    } else {
        "image"
    };
    let mut out = format!("a {} {what} (", facts.media_type.name());
    if let (Some(w), Some(h)) = (facts.width, facts.height) {
        out.push_str(&format!("{w}×{h}, "));
    }
    out.push_str(&bytes(facts.bytes));
    out.push(')');
    out
}

impl fmt::Display for FitReport {
    /// A line for each payload changed, then the count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            let at = format!("line {} {}", item.line, item.path);
            match (&item.action, &item.before) {
                (FitAction::Fitted(after), Some(before)) => {
                    writeln!(f, "{at}: {} → {}", Facts(before), Facts(after))?;
                }
                (FitAction::LeftOut(why), Some(before)) => {
                    writeln!(f, "{at}: {} left out: {why}", Facts(before))?;
                }
                _ => {}
            }
        }
        let n = self.items.len();
        writeln!(
            f,
            "{n} payload{} of {} for {} {}: {} fitted, {} left out, {} kept as they were",
            if n == 1 { "" } else { "s" },
            self.format,
            self.provider,
            self.model,
            self.fitted(),
            self.left_out(),
            self.kept()
        )
    }
}
