//! Leaving attachments out for a request's limits: the notes that say
//! so, and the rounding to the eviction step ([`Options::with_evict_step`]).
//!
//! [`Options::with_evict_step`]: crate::provider::Options::with_evict_step

use crate::carrier::AttachmentKind;
use crate::facts::Provider;

use super::compose::shown;
use super::options::Eviction;
use super::report::NoteReason;
use super::walk::{Media, Slot};

/// Leaving attachments out for a request's limits: the notes that say so,
/// and the rounding to the eviction step.
pub(super) struct Evict {
    pub provider: Provider,
    pub eviction: Eviction,
}

/// Whether a note says the attachment was left out for the request's
/// limits (the oldest go first), rather than for what it is.
pub(super) fn evicted(media: &Media) -> bool {
    matches!(
        media,
        Media::Note(
            NoteReason::OverCount
                | NoteReason::OverTotal
                | NoteReason::OverKeep
                | NoteReason::OverTokens,
            _
        )
    )
}

impl Evict {
    /// The note of an attachment past the N kept. With a step K (at most
    /// N, [`Options::check`]) between N − K + 1 and N are sent: the note
    /// says "at most", and stays the same from turn to turn, so it never
    /// breaks a prompt cache.
    pub(super) fn over_keep(&self, what: &str, shown: &str, n: usize) -> Media {
        let text = match self.eviction.step {
            1 => format!("[{what} {shown} omitted: only the {n} most recent {what}s are kept]"),
            k => format!(
                "[{what} {shown} omitted: at most the {n} most recent {what}s are kept, the oldest left out {k} at a time]"
            ),
        };
        Media::Note(NoteReason::OverKeep, text)
    }

    pub(super) fn over_tokens(&self, what: &str, shown: &str) -> Media {
        let budget = self.eviction.image_tokens.unwrap_or(0);
        Media::Note(
            NoteReason::OverTokens,
            format!(
                "[{what} {shown} omitted: the images of this request are kept within {budget} input tokens; the oldest are left out]"
            ),
        )
    }

    /// With an eviction step K > 1: once attachments of `kind` are left out
    /// for the request's limits, leave out a multiple of K of them, taking
    /// the oldest of those that would be sent. The newest-first pass has
    /// already left out the oldest; this only moves the boundary, so the
    /// request before it changes only when the multiple does.
    pub(super) fn round(&self, slots: &[&Slot<'_, ()>], media: &mut [Media], kind: AttachmentKind) {
        let k = self.eviction.step;
        let of_kind = |i: &usize| slots[*i].kind == kind;
        let indices: Vec<usize> = (0..slots.len()).filter(of_kind).collect();
        let out = indices.iter().filter(|&&i| evicted(&media[i])).count();
        if k <= 1 || out == 0 {
            return;
        }
        let Some(newest_out) = indices.iter().rev().copied().find(|&i| evicted(&media[i])) else {
            return;
        };
        let Media::Note(reason, _) = media[newest_out] else {
            return;
        };
        let more = out.div_ceil(k) * k - out;
        let sent = indices.iter().copied().filter(|&i| media[i].is_sent());
        for i in sent.take(more).collect::<Vec<_>>() {
            let (what, shown) = (slots[i].kind.as_str(), shown(slots[i]));
            media[i] = match reason {
                NoteReason::OverKeep => {
                    let n = match kind {
                        AttachmentKind::Document => self.eviction.keep_documents,
                        _ => self.eviction.keep_images,
                    };
                    self.over_keep(what, &shown, n.unwrap_or(0))
                }
                NoteReason::OverTokens => self.over_tokens(what, &shown),
                NoteReason::OverTotal => self.over_total(what, &shown),
                _ => Media::Note(
                    NoteReason::OverCount,
                    format!(
                        "[{what} {shown} omitted: {} {} request takes at most so many {what}s; the oldest are left out {k} at a time]",
                        article(self.provider.display_name()),
                        self.provider.display_name()
                    ),
                ),
            };
        }
    }

    pub(super) fn over_total(&self, what: &str, shown: &str) -> Media {
        Media::Note(NoteReason::OverTotal, format!(
            "[{what} {shown} omitted: the {} request size limit is reached; the oldest attachments are left out]",
            self.provider.display_name()
        ))
    }
}

/// `a` or `an`, as `name` is said (the providers' names start with their
/// letter's sound).
pub(super) fn article(name: &str) -> &'static str {
    if name.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    }
}

/// `1 image`, `2 images`.
pub(super) fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
