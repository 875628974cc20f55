//! A declared attachment on its way through a builder: where and what it
//! was declared as, and (once the media step has decided) what it became.

use std::borrow::Cow;

use super::walk::Media;
use crate::carrier::{Attachment, AttachmentKind, Carrier, Rejected};

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
    /// Why the declaration's item declares no attachment, for an item the
    /// grammar skips (its `target` is then its place, `attachments[N]`,
    /// and its kind is no more than a placeholder): a failed attachment.
    pub rejected: Option<Rejected>,
    /// Whether the caller marks it as the end of a prefix to cache.
    pub cache: bool,
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
            rejected: self.rejected,
            cache: self.cache,
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
            rejected: None,
            cache: a.cache,
            media: (),
        })
        .collect()
}

/// The slots of a carrier opened from `content`, from message `index`:
/// its declared attachments and, in their places, the items of its
/// declaration that declare none.
pub(crate) fn carrier_slots<'a>(
    index: usize,
    carrier: &Carrier<'a>,
    content: &'a str,
) -> Vec<Slot<'a, ()>> {
    if carrier.skipped == 0 {
        return slots(index, carrier.attachments());
    }
    item_slots(index, carrier.items(content))
}

/// The slots of a declaration's items, from message `index`: each item's
/// attachment or, in its place, why it declares none.
pub(crate) fn item_slots<'a>(
    index: usize,
    items: Vec<Result<Attachment<'a>, Rejected>>,
) -> Vec<Slot<'a, ()>> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Ok(a) => Slot {
                index,
                kind: a.kind,
                target: a.target,
                name: a.name,
                rejected: None,
                cache: a.cache,
                media: (),
            },
            Err(why) => Slot {
                index,
                kind: AttachmentKind::Image,
                target: Cow::Owned(format!("attachments[{i}]")),
                name: None,
                rejected: Some(why),
                cache: false,
                media: (),
            },
        })
        .collect()
}
