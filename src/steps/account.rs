//! The accounting of a conversion: what the walk read of a history
//! (calls, results, attachments by kind) and what became of each, beside
//! what the replay step counts of the entries assistant turns kept.

use super::tally::Tally;
use super::walk::{Media, Turn};
use crate::carrier::AttachmentKind;

/// What a tally counts an attachment of `kind` as.
pub(crate) fn attachment(kind: AttachmentKind) -> &'static str {
    match kind {
        AttachmentKind::Image => "image",
        AttachmentKind::Document => "document",
        AttachmentKind::Audio => "audio attachment",
        AttachmentKind::Video => "video attachment",
    }
}

/// Count into `tally` the calls, results and attachments of `turns`, each
/// attachment's fate as `media` (in slot order) says: sent inline, by URL
/// or by file id; noted when left out by design (a limit, vision off);
/// refused when it failed.
pub(crate) fn account(turns: &[Turn<'_, ()>], media: &[Media], tally: &mut Tally) {
    for turn in turns {
        match turn {
            Turn::Assistant(a) => {
                tally.read("call", a.calls.len());
                tally.sent_n("call", a.calls.len());
            }
            Turn::Results(results) => {
                let read = results.iter().filter(|r| r.index.is_some()).count();
                tally.read("result", read);
                tally.sent_n("result", read);
            }
            // A result no call claims goes as a user's text, labelled.
            Turn::Carrier(c) if c.unclaimed => {
                tally.read("result", 1);
                tally.noted("result");
            }
            Turn::Carrier(_) | Turn::System(..) | Turn::User(..) => {}
        }
    }
    let slots = turns.iter().flat_map(Turn::slots);
    for (slot, media) in slots.zip(media) {
        let what = match slot.rejected {
            Some(_) => "attachment record",
            None => attachment(slot.kind),
        };
        tally.read(what, 1);
        match media {
            Media::Note(reason, _) if reason.is_failure() => tally.refused(what),
            Media::Note(..) => tally.noted(what),
            Media::Inline(_) | Media::Url(_) | Media::File(_) => tally.sent(what),
        }
    }
}
