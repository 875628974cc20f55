//! Reviving a dead session in the agent's own file: each image payload
//! its reader found fitted for a provider, the oldest beyond what one
//! request may carry replaced by a text saying what was there, and every
//! other byte left as it was.
//!
//! One screenshot over a provider's limit (5 MB, 8000 px, 2000 px in a
//! request of many images, the image count) kills a session: the agent
//! replays its history on every turn, and every turn is refused.
//! [`fit`] rewrites what the agent replays, in the agent's own format:
//!
//! 1. The file is read by its format's reader (an agent's transcript, or a
//!    provider's request body), which says where each payload it stored
//!    stands: a base64 string or a `data:` URL. Every payload stored must
//!    be found again at its path, or nothing is written.
//! 2. The newest first, as a conversion for the provider would: an image
//!    or PDF the provider takes as it is stays as it is; one over its
//!    limits, or larger than the model's processing size, is resized and
//!    re-encoded and written back in the same form (the same base64
//!    alphabet and padding, or a `data:` URL), with the member beside it
//!    naming its media type (`media_type`, `mediaType`, `mimeType`,
//!    `mime_type`) changed when its type does; the oldest beyond the
//!    provider's image count (or [`Options::with_keep_images`]) or its
//!    total of inline media, and any it cannot read, have their part
//!    replaced by a text part of the same format saying what was there.
//!    Payloads that are neither images nor PDFs are left as they are.
//! 3. Before the result is returned it is checked: read again by the same
//!    reader, fitting it again changes nothing,
//!    and the request built from it for the provider is one the crate's
//!    rules pass with no attachment failing.
//!
//! Running it on its own result changes nothing. The command's `fit`
//! adds locking and atomic replacement for files an agent is writing.
//!
//! ```
//! use tool_carrier::fit::fit;
//! use tool_carrier::provider::{Options, Provider};
//!
//! let transcript = std::fs::read("examples/claude-code-session.jsonl")?;
//! let fitted = fit(&transcript, None, Provider::Anthropic, &Options::new())?;
//! let report = fitted.report();
//! assert_eq!(report.format.from_name(), "claude-code");
//! assert_eq!((report.fitted(), report.left_out()), (1, 0));
//! let out = fitted.to_vec();
//! // Fitted once, fitted for good.
//! let again = fit(&out, None, Provider::Anthropic, &Options::new())?;
//! assert!(!again.report().changes());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Options::with_keep_images`]: crate::provider::Options::with_keep_images

mod plan;
mod read;
mod report;

use std::io::{self, Write};
use std::ops::Range;

use crate::agents::stand_in::stand_in;
use crate::facts::Provider;
use crate::import::Detected;
use crate::media::scale::Scale;
use crate::provider::{build_request, Options};

pub use report::{FitAction, FitItem, FitReport};

/// Why a file cannot be fitted. Nothing is written then.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The file is not UTF-8 text (a byte offset of the first bad byte).
    #[error("not text: the bytes at offset {0} are not UTF-8")]
    NotText(usize),
    /// The file is not read by the reader of its format.
    #[error("{0}")]
    Read(String),
    /// A format whose files are not fitted.
    #[error("{0} is not fitted: fit rewrites agents' transcripts and request bodies")]
    Unsupported(Detected),
    /// The reader stored payloads whose places in the text are not all
    /// known.
    #[error("{format}: {stored} payloads were read but {located} found in the text; nothing is rewritten where not every payload is found")]
    Unlocated {
        /// What the file was read as.
        format: Detected,
        /// Payloads the reader stored.
        stored: usize,
        /// Payloads whose place is known.
        located: usize,
    },
    /// A payload that cannot be rewritten.
    #[error("line {line} {path}: {why}")]
    Payload {
        /// The line (from 1) where the JSON value holding it begins.
        line: usize,
        /// Its JSON path.
        path: String,
        /// Why.
        why: String,
    },
    /// The options contradict each other.
    #[error("{0}")]
    Options(#[from] crate::provider::OptionsError),
    /// The result failed its own check (a bug): it is not returned.
    #[error("the fitted file failed its check: {0}")]
    Check(String),
}

/// A file fitted: its bytes as they were, the edits, and the report.
/// Nothing is copied until it is written.
pub struct Fitted<'a> {
    input: &'a [u8],
    /// Spans of the input and what replaces each, in order, apart.
    edits: Vec<(Range<usize>, String)>,
    report: FitReport,
}

impl std::fmt::Debug for Fitted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fitted")
            .field("input_len", &self.input.len())
            .field("edits", &self.edits.len())
            .field("report", &self.report)
            .finish()
    }
}

impl<'a> Fitted<'a> {
    /// What became of each payload.
    pub fn report(&self) -> &FitReport {
        &self.report
    }

    /// The fitted file's length in bytes.
    pub fn len(&self) -> usize {
        self.edits.iter().fold(self.input.len(), |n, (span, text)| {
            n - span.len() + text.len()
        })
    }

    /// Whether the fitted file is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Write the fitted file to `out`.
    ///
    /// # Errors
    /// `out`'s.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut at = 0;
        for (span, text) in &self.edits {
            out.write_all(&self.input[at..span.start])?;
            out.write_all(text.as_bytes())?;
            at = span.end;
        }
        out.write_all(&self.input[at..])
    }

    /// The report, the edits dropped.
    pub(crate) fn into_report(self) -> FitReport {
        self.report
    }

    /// The fitted file: the input itself, not copied, when nothing
    /// changed.
    pub fn bytes(&self) -> std::borrow::Cow<'a, [u8]> {
        if self.edits.is_empty() {
            std::borrow::Cow::Borrowed(self.input)
        } else {
            std::borrow::Cow::Owned(self.to_vec())
        }
    }

    /// The fitted file.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        self.write_to(&mut out).expect("writing to memory");
        out
    }
}

/// Fit `input`, read as `from` (by its shape when `None`), for a request
/// to `provider` with `options` (the model, [`Options::with_keep_images`],
/// the media policy). See the [module docs](self).
///
/// # Errors
/// [`FitError`]: the input is no file of a format fitted, a payload
/// cannot be found or rewritten, or the result fails its check.
pub fn fit<'a>(
    input: &'a [u8],
    from: Option<Detected>,
    provider: Provider,
    options: &Options,
) -> Result<Fitted<'a>, FitError> {
    options.check()?;
    if crate::import::is_sqlite(input) {
        return Err(FitError::Read(
            "a SQLite database: fit rewrites text files, not databases".into(),
        ));
    }
    let text = std::str::from_utf8(input).map_err(|e| FitError::NotText(e.valid_up_to()))?;
    let read = read::read(text, from, false)?;
    let plan = plan::decide(text, &read.payloads, provider, options)?;
    let mut edits = Vec::new();
    let mut items = Vec::with_capacity(plan.items.len());
    for (p, (before, action, fitted)) in read.payloads.iter().zip(plan.items) {
        match (&action, fitted) {
            (FitAction::Fitted(after), Some((form, prepared))) => {
                let mut inner = vec![(p.span.clone(), form.write(&prepared))];
                let changed = before.is_some_and(|b| b.media_type != after.media_type);
                if let (true, Some(span)) = (changed, &p.media_type) {
                    inner.push((span.clone(), after.media_type.as_str().to_owned()));
                }
                let scale = before.as_ref().and_then(|b| Scale::of(b, after));
                match scale.filter(|_| options.says_scale()) {
                    Some(scale) => {
                        let why = |why: &str| FitError::Payload {
                            line: p.line,
                            path: p.path.clone(),
                            why: format!("its scale is to be said, but {why}"),
                        };
                        let (part, shape) = p
                            .part
                            .as_ref()
                            .ok_or_else(|| why("no array holds its part"))?;
                        let said = stand_in(shape, &scale.text()).ok_or_else(|| {
                            why(&format!(
                                "no text part is known for a part of shape {shape}"
                            ))
                        })?;
                        let (within, beyond): (Vec<_>, Vec<_>) = inner
                            .into_iter()
                            .partition(|(s, _)| part.start <= s.start && s.end <= part.end);
                        edits.extend(beyond);
                        edits.push((part.clone(), said_beside(text, part, within, &said)));
                    }
                    None => edits.extend(inner),
                }
            }
            (FitAction::LeftOut(why), _) => {
                let what = before
                    .as_ref()
                    .map_or_else(|| "a payload".to_owned(), report::what_was_there);
                let text = format!("[{what} was here; left out by tool-carrier fit: {why}]");
                let (span, shape) = p.part.as_ref().ok_or_else(|| FitError::Payload {
                    line: p.line,
                    path: p.path.clone(),
                    why: format!("it must be left out ({why}), but no array holds its part"),
                })?;
                let json = stand_in(shape, &text).ok_or_else(|| FitError::Payload {
                    line: p.line,
                    path: p.path.clone(),
                    why: format!(
                        "it must be left out ({why}), but no text part is known for a part of shape {shape}"
                    ),
                })?;
                edits.push((span.clone(), json));
            }
            _ => {}
        }
        items.push(FitItem {
            line: p.line,
            path: p.path.clone(),
            before,
            action,
        });
    }
    let fitted = Fitted {
        input,
        edits: apart(edits),
        report: FitReport {
            format: read.format,
            provider,
            model: plan.model,
            items,
        },
    };
    if fitted.report.changes() {
        check(&fitted, provider, options)?;
    }
    Ok(fitted)
}

/// The part at `part` of `src` with its `inner` edits (each within it)
/// made, then `said` after it in the same array.
fn said_beside(
    src: &str,
    part: &Range<usize>,
    inner: Vec<(Range<usize>, String)>,
    said: &str,
) -> String {
    let mut out = String::with_capacity(part.len() + said.len() + 1);
    let mut at = part.start;
    for (span, with) in apart(inner) {
        out.push_str(&src[at..span.start]);
        out.push_str(&with);
        at = span.end;
    }
    out.push_str(&src[at..part.end]);
    out.push(',');
    out.push_str(said);
    out
}

/// `edits` in order, an edit inside another's span (a payload inside a
/// part replaced) dropped, one of the same span kept once.
fn apart(mut edits: Vec<(Range<usize>, String)>) -> Vec<(Range<usize>, String)> {
    edits.sort_by_key(|(span, _)| (span.start, std::cmp::Reverse(span.end)));
    let mut out: Vec<(Range<usize>, String)> = Vec::with_capacity(edits.len());
    for edit in edits {
        match out.last() {
            Some((last, _)) if edit.0.start < last.end => {}
            _ => out.push(edit),
        }
    }
    out
}

/// The fitted file read again: by the same reader, nothing left to fit,
/// and a request for `provider` the rules pass with none of its payloads
/// failing.
fn check(fitted: &Fitted<'_>, provider: Provider, options: &Options) -> Result<(), FitError> {
    let out = fitted.to_vec();
    let text = std::str::from_utf8(&out).map_err(|e| FitError::Check(e.to_string()))?;
    let read = read::read(text, Some(fitted.report.format), true)
        .map_err(|e| FitError::Check(format!("it does not read back: {e}")))?;
    let plan = plan::decide(text, &read.payloads, provider, options)
        .map_err(|e| FitError::Check(e.to_string()))?;
    if let Some((p, (_, action, _))) = read
        .payloads
        .iter()
        .zip(&plan.items)
        .find(|(_, (_, a, _))| matches!(a, FitAction::Fitted(_) | FitAction::LeftOut(_)))
    {
        return Err(FitError::Check(format!(
            "fitting it again would change line {} {}: {action:?}",
            p.line, p.path
        )));
    }
    let request = build_request(provider, &read.history.messages, options)
        .map_err(|e| FitError::Check(format!("its request would be refused: {e}")))?;
    // A payload of the file is declared by its `data:` URL here; what
    // else fails (a URL, a file reference) is not the file's payloads.
    let ours = |n: &&crate::provider::Note| n.target.starts_with("data:");
    if let Some(note) = request.report.failures().find(ours) {
        return Err(FitError::Check(format!(
            "an attachment of its request fails: {}",
            note.text
        )));
    }
    Ok(())
}
