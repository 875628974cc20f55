//! A declared attachment on its way through a builder: where and what it
//! was declared as, and (once the media step has decided) what it became.

use std::borrow::Cow;

use super::walk::Media;
use crate::carrier::{Attachment, AttachmentKind};

/// One declared attachment and what it became.
#[derive(Debug)]
pub(crate) struct Slot<'a, M = Media> {
    /// Index of the message that declared it.
    pub index: usize,
    /// What it was declared as.
    pub kind: AttachmentKind,
    /// Where it lives, as declared.
    pub target: Cow<'a, str>,
    /// Its original file name, as declared (a native record's `name`).
    pub name: Option<Cow<'a, str>>,
    /// What it became.
    pub media: M,
}

impl<'a> Slot<'a, ()> {
    /// The slot, holding what the media step decided for it.
    pub(crate) fn with(self, media: Media) -> Slot<'a> {
        Slot {
            index: self.index,
            kind: self.kind,
            target: self.target,
            name: self.name,
            media,
        }
    }
}

/// The slots of a carrier's declared attachments, from message `index`.
pub(crate) fn slots<'a>(index: usize, attachments: &[Attachment<'a>]) -> Vec<Slot<'a, ()>> {
    attachments
        .iter()
        .map(|a| Slot {
            index,
            kind: a.kind,
            target: a.target.clone(),
            name: a.name.clone(),
            media: (),
        })
        .collect()
}
