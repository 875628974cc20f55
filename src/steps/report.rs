//! What became of a history's attachments and tools in one request.

use std::fmt;

use super::tally::Tally;

/// One attachment that was not sent as media, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Index of the history message that declared it (0-based, as in
    /// `inspect`).
    pub index: usize,
    /// The target, as declared.
    pub target: String,
    /// Why it was not sent, for a program to act on.
    pub reason: NoteReason,
    /// The note written into the request in its place (what a model
    /// reads).
    pub text: String,
}

/// One entry an assistant message kept that was left out of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayNote {
    /// Index of the history message (0-based, as in `inspect`).
    pub index: usize,
    /// What it is (`thinking block`, `web_search_call item`).
    pub what: String,
    /// Whether it is a failure ([`Options::with_strict`](crate::provider::Options::with_strict)
    /// refuses the request): anything but another API's reasoning.
    pub failure: bool,
    /// Why it was left out.
    pub text: String,
}

/// Why an attachment became a note.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NoteReason {
    /// Vision is off ([`Options::with_vision`](crate::provider::Options::with_vision)).
    VisionOff,
    /// Audio and video attachments are not sent anywhere.
    KindNotSent,
    /// The provider takes no attachment of this kind or source here (no
    /// documents, no URLs).
    NotTaken,
    /// The declared kind and the bytes disagree (a PDF declared as an
    /// image, an image declared as a document).
    WrongKind,
    /// The request already holds as many images or documents as the
    /// provider takes; the oldest are left out.
    OverCount,
    /// The request size limit is reached; the oldest are left out.
    OverTotal,
    /// More images or documents than the caller keeps
    /// ([`Options::with_keep_images`](crate::provider::Options::with_keep_images));
    /// the oldest are left out.
    OverKeep,
    /// The request's PDF page limit is reached; the oldest documents are
    /// left out.
    OverPages,
    /// The caller's image-token budget is reached
    /// ([`Options::with_image_tokens`](crate::provider::Options::with_image_tokens));
    /// the oldest are left out.
    OverTokens,
    /// The target could not be resolved or prepared (the text says why).
    Media,
    /// An item of the declaration that is no attachment record: an unknown
    /// kind (case included), a target missing, empty or not a string.
    InvalidRecord,
}

impl NoteReason {
    /// Whether the attachment failed, as opposed to being left out by
    /// design: it could not be read or prepared, was outside the roots,
    /// corrupt, declared as the wrong kind, or of a kind the provider does
    /// not take. Vision turned off and the evictions a limit calls for
    /// (the caller's or the provider's) are not failures.
    /// [`Options::with_strict`](crate::provider::Options::with_strict) refuses a
    /// request with any failure.
    ///
    /// ```
    /// use tool_carrier::provider::NoteReason;
    /// assert!(NoteReason::Media.is_failure());
    /// assert!(!NoteReason::OverKeep.is_failure());
    /// ```
    pub fn is_failure(self) -> bool {
        match self {
            NoteReason::KindNotSent
            | NoteReason::NotTaken
            | NoteReason::WrongKind
            | NoteReason::Media
            | NoteReason::InvalidRecord => true,
            NoteReason::VisionOff
            | NoteReason::OverCount
            | NoteReason::OverTotal
            | NoteReason::OverPages
            | NoteReason::OverKeep
            | NoteReason::OverTokens => false,
        }
    }
}

/// What became of the declared attachments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Images sent inline (base64).
    pub images: usize,
    /// Documents (PDFs) sent inline (base64).
    pub documents: usize,
    /// Attachments sent as URL references.
    pub urls: usize,
    /// Attachments sent as references to files the provider holds
    /// (provider file targets, and media the uploads map names).
    pub files: usize,
    /// Attachments replaced by a note, in history order.
    pub notes: Vec<Note>,
    /// What assistant messages kept as an API wrote it (thinking,
    /// reasoning items, server tools' blocks, signatures) that was left
    /// out, in history order: written by another API, or of a kind or with
    /// a member this API does not take.
    pub replay_notes: Vec<ReplayNote>,
    /// What the history held, by kind (`call`, `result`, `image`,
    /// `reasoning item`), and what became of each: sent, noted (left out by
    /// design) or refused (failed).
    pub tally: Tally,
    /// The input tokens of the images sent inline, by the provider's own
    /// count of each as sent ([`Provider::image_tokens`](crate::provider::Provider::image_tokens));
    /// `None` where the provider documents no count and an image was
    /// sent. What a compactor can
    /// set against its context budget, in place of a fixed figure per
    /// image ([`Estimates::chars`](crate::media::Estimates::chars)).
    pub image_tokens: Option<u64>,
    /// How many tools the request declares.
    pub declared: usize,
    /// Tools the history calls that got a minimal declaration (no
    /// definition was given for them), in order of first call.
    pub stubbed: Vec<String>,
    /// Whether the request tells the model not to call any tool
    /// (`tool_choice` none or its equivalent; only when every tool is a
    /// minimal declaration).
    pub choice_none: bool,
    /// What was done to tool definitions to declare them: keywords left
    /// out of a schema, typed tools declared as functions, a beta header
    /// the request needs, and the like.
    pub tool_notes: Vec<String>,
    /// Settings given that have no effect on this API (an image detail
    /// level where the API has none, a cache TTL where it has none), one
    /// line each saying why.
    pub setting_notes: Vec<String>,
    /// Attachments sent though a limit could not be checked on them, one
    /// line each: a PDF whose page count cannot be read cheaply (its page
    /// tree sits in a compressed object stream) where the provider limits
    /// the pages of a request.
    pub caveats: Vec<String>,
}

impl Report {
    /// The notes of attachments that failed ([`NoteReason::is_failure`]),
    /// in history order.
    pub fn failures(&self) -> impl Iterator<Item = &Note> {
        self.notes.iter().filter(|n| n.reason.is_failure())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} image{}, {} document{}, {} URL{} sent; {} note{}",
            self.images,
            plural(self.images),
            self.documents,
            plural(self.documents),
            self.urls,
            plural(self.urls),
            self.notes.len(),
            plural(self.notes.len()),
        )?;
        if self.files > 0 {
            write!(
                f,
                "; {} provider file{} referred to",
                self.files,
                plural(self.files)
            )?;
        }
        Ok(())
    }
}
