//! Loading one attachment for the media step: what it becomes where no
//! loading is needed (a file the provider holds, an earlier turn's
//! payload, a hash an earlier turn learnt), else read and prepared. No
//! tally is read or changed here, so any number of slots can be loaded at
//! once ([`Step::load`] runs on threads of its own).

use std::sync::Arc;

use crate::media::{
    check_whole, header::raster_size, sniff, CacheKey, Loaded, MediaType, Origin, Prepared,
    ProviderFile, Sniffed, Source, Uploads,
};

use super::attach::Step;
use super::memo::Memo;
use super::walk::{Media, Slot};
use crate::steps::compose::shown;
use crate::steps::report::NoteReason;

/// A slot decided without loading or loaded and prepared, not yet
/// counted ([`Step::look`], [`Step::load`]).
pub(super) enum Fetched<'m> {
    /// Prepared (or taken from the memo), with the memo entry to keep it
    /// under when it was prepared now.
    Prepared(Arc<Prepared>, Option<(&'m Memo, CacheKey)>),
    /// An `http(s)` URL the provider takes.
    Url(String),
    /// A note: it cannot be sent.
    Note(Media),
    /// A note: an image whose header gave its stored size (width, height)
    /// could not be prepared. A token budget may leave it out by that size
    /// before the note is said ([`Step::unread_tokens`]).
    Unprepared(Media, (u32, u32)),
    /// A file the provider holds: named so, or found in the uploads map.
    File(ProviderFile),
}

/// What [`Step::look`] found: the slot decided, or what loading it needs.
pub(super) enum Look<'m> {
    Done(Fetched<'m>),
    Load(Pending<'m>),
}

/// What [`Step::load`] takes over from [`Step::look`]: the bytes of
/// another provider's file a resolver already gave, the source's stamp,
/// and the memo entry to keep the result under.
pub(super) struct Pending<'m> {
    early: Option<crate::media::Loaded>,
    stamp: Option<crate::media::Stamp>,
    memo: Option<(&'m Memo, CacheKey)>,
}

/// How much of a file's start is read for its header: most hold it in
/// their first kilobytes; a JPEG's frame header may follow a large EXIF or
/// colour profile segment.
const HEADS: [usize; 2] = [64 << 10, 1 << 20];

/// A note saying `slot` is not attached, and why.
fn not_attached(
    slot: &Slot<'_, ()>,
    why: NoteReason,
    reason: &dyn std::fmt::Display,
) -> Fetched<'static> {
    Fetched::Note(note(slot, why, reason))
}

fn note(slot: &Slot<'_, ()>, why: NoteReason, reason: &dyn std::fmt::Display) -> Media {
    Media::Note(
        why,
        format!(
            "[{} {} not attached: {reason}]",
            slot.kind.as_str(),
            shown(slot)
        ),
    )
}

impl<'o> Step<'o> {
    /// What `slot` becomes where that needs no loading (a file the
    /// provider holds, a memo entry, a hash the memo knows), else what
    /// [`Step::load`] needs: no tally is read or changed.
    pub(super) fn look(&self, slot: &Slot<'_, ()>, is_document: bool) -> Look<'o> {
        let provider = self.provider.display_name();
        let not_attached = |why: NoteReason, reason: &dyn std::fmt::Display| {
            Look::Done(not_attached(slot, why, reason))
        };
        let (budget, types) = (self.limits.budget, &*self.limits.image_types);
        let held = match ProviderFile::parse(&slot.target) {
            Some(Err(e)) => return not_attached(NoteReason::Media, &e),
            Some(Ok(file)) => Some(file),
            None => None,
        };
        let mut early = None;
        if let Some(file) = held {
            if self.provider.spec().holder == Some(file.holder) {
                return match self.held.refuses(&file, is_document) {
                    Some(why) => not_attached(NoteReason::NotTaken, &why),
                    None => Look::Done(Fetched::File(file)),
                };
            }
            // Another provider's file: only a resolver of the caller's
            // that has its bytes can send it (inline), resolved once.
            match self.resolver.resolve(&slot.target) {
                Ok(Source::Bytes(bytes)) => early = Some(bytes),
                _ => {
                    return not_attached(
                        NoteReason::NotTaken,
                        &format!(
                            "it is a file {} holds, which {provider} cannot read",
                            file.holder.display_name()
                        ),
                    )
                }
            }
        }
        // A conversation's memo: a source whose stamp is unchanged is
        // neither read nor prepared again. With an uploads map, the memo
        // knows the bytes' hash by the stamp, so the map is asked again
        // every turn (it may have grown) without reading the file; a
        // source whose hash is not known yet is read to learn it.
        let stamp = self.memo.and_then(|_| self.resolver.stamp(&slot.target));
        let mut known = true;
        if let (Some(memo), Some(stamp)) = (self.memo, &stamp) {
            if self.held.uploads.is_some() {
                match memo.hash_of(stamp) {
                    Some((hash, sniffed, size)) => {
                        if let Some(why) = wrong_kind(is_document, sniffed) {
                            return not_attached(NoteReason::WrongKind, &why);
                        }
                        if let Some(file) = self.by_reference(&hash, sniffed, size, is_document) {
                            return Look::Done(Fetched::File(file));
                        }
                    }
                    None => known = false,
                }
            }
        }
        let memo = self.memo.zip(stamp.as_ref()).map(|(memo, stamp)| {
            (
                memo,
                Memo::key(stamp, is_document, self.policy, budget, types),
            )
        });
        if let Some(kept) = memo
            .as_ref()
            .filter(|_| known)
            .and_then(|(memo, key)| memo.get(key))
        {
            return Look::Done(Fetched::Prepared(kept, None));
        }
        Look::Load(Pending { early, stamp, memo })
    }

    /// Load and prepare `slot`, as [`Step::look`] left it: no tally is
    /// read or changed, so any number of slots can be loaded at once.
    pub(super) fn load(
        &self,
        slot: &Slot<'_, ()>,
        is_document: bool,
        pending: Pending<'o>,
    ) -> Fetched<'o> {
        let Pending { early, stamp, memo } = pending;
        let what = slot.kind.as_str();
        let provider = self.provider.display_name();
        let not_attached =
            |why: NoteReason, reason: &dyn std::fmt::Display| not_attached(slot, why, reason);
        let (budget, types) = (self.limits.budget, &*self.limits.image_types);
        let resolved = match early {
            Some(bytes) => Ok(Source::Bytes(bytes)),
            None => self.resolver.resolve(&slot.target),
        };
        let loaded = match resolved {
            Ok(Source::Url(url)) => {
                let takes = if is_document {
                    self.limits.document_urls
                } else {
                    self.limits.image_urls
                };
                if takes {
                    return Fetched::Url(url);
                }
                let Some(fetcher) = self.fetcher else {
                    return not_attached(
                        NoteReason::NotTaken,
                        &format!("{provider} does not take {what} URLs here"),
                    );
                };
                // Fetched on the caller's say, then held to a file's limit.
                let cap = self.policy.max_file_bytes();
                match fetcher.fetch(&url) {
                    Ok(bytes) if bytes.len() as u64 > cap => {
                        return not_attached(
                            NoteReason::Media,
                            &format!("fetched {} bytes, over the {cap}-byte limit", bytes.len()),
                        )
                    }
                    Ok(bytes) => Loaded::new(bytes, Origin::Url(url)),
                    Err(e) => return not_attached(NoteReason::Media, &e.reason()),
                }
            }
            Ok(Source::Bytes(loaded)) => loaded,
            Err(e) => return not_attached(NoteReason::Media, &e.reason()),
        };
        let sniffed = match sniff(&loaded.bytes) {
            Sniffed::Media(t) => Some(t),
            _ => None,
        };
        if let Some(why) = wrong_kind(is_document, sniffed) {
            return not_attached(NoteReason::WrongKind, &why);
        }
        // Bytes that are not whole are never sent, by reference either:
        // they go on to be prepared, which says why (and checks them there
        // when there is no map).
        if self.held.uploads.is_some()
            && sniffed.is_some_and(|t| check_whole(&loaded.bytes, t).is_ok())
        {
            let hash = Uploads::hash(&loaded.bytes);
            let size = raster_size(&loaded.bytes);
            if let (Some(memo), Some(stamp)) = (self.memo, &stamp) {
                memo.put_hash(stamp, (hash, sniffed, size));
            }
            if let Some(file) = self.by_reference(&hash, sniffed, size, is_document) {
                return Fetched::File(file);
            }
            // Not uploaded: what an earlier turn prepared from the same
            // stamp still serves.
            if let Some(kept) = memo.as_ref().and_then(|(memo, key)| memo.get(key)) {
                return Fetched::Prepared(kept, None);
            }
        }
        // Read only where a token budget may count a failure.
        let budgeted = !is_document && self.eviction.image_tokens.is_some();
        let size = budgeted.then(|| raster_size(&loaded.bytes)).flatten();
        let prepared = self
            .work
            .with(|work| loaded.prepare_in(self.policy, budget, types, self.cache, work));
        match (prepared, size) {
            (Ok(p), _) => Fetched::Prepared(Arc::new(p), memo),
            (Err(e), None) => not_attached(NoteReason::Media, &e.reason()),
            (Err(e), Some(size)) => {
                Fetched::Unprepared(note(slot, NoteReason::Media, &e.reason()), size)
            }
        }
    }

    /// The input tokens an image of `slot` that [`Step::look`] left to
    /// load counts against the token budget, from its header alone (the
    /// bytes of another provider's file already resolved, else the first
    /// bytes the resolver gives without the rest); `None` with no budget,
    /// for a document, where an uploads map may yet send the image by
    /// reference (such an image is not counted), and where the header
    /// cannot be read so. What the loaded image counts is then decided
    /// from the same header ([`Step::counted`]).
    pub(super) fn unread_tokens(
        &self,
        slot: &Slot<'_, ()>,
        is_document: bool,
        pending: &Pending<'o>,
    ) -> Option<u64> {
        if is_document || self.eviction.image_tokens.is_none() || self.held.uploads.is_some() {
            return None;
        }
        if let Some(early) = &pending.early {
            return raster_size(&early.bytes).map(|size| self.counted(size));
        }
        for len in HEADS {
            let head = self.resolver.head(&slot.target, len)?;
            if let Some(size) = raster_size(&head) {
                return Some(self.counted(size));
            }
            if head.len() < len {
                return None;
            }
        }
        None
    }

    /// The file the uploads map names for bytes of SHA-256 `hash`, when
    /// this provider can take it as it is: an image goes by reference
    /// only within the policy's largest side (`size` read from its
    /// header), since the provider would see those very pixels and the
    /// crate fits every image it sends within it (Anthropic refuses
    /// images over 2000 px in a request of more than 20); a larger one is
    /// prepared and sent inline instead.
    fn by_reference(
        &self,
        hash: &[u8; 32],
        sniffed: Option<MediaType>,
        size: Option<(u32, u32)>,
        is_document: bool,
    ) -> Option<ProviderFile> {
        let edge = self.policy.max_dim();
        let fits = is_document || size.is_some_and(|(w, h)| w <= edge && h <= edge);
        self.held
            .uploaded(hash, sniffed, is_document)
            .filter(|_| fits)
    }
}

/// Why bytes of type `sniffed` cannot go as the kind declared: a PDF
/// declared as an image, an image declared as a document.
fn wrong_kind(is_document: bool, sniffed: Option<MediaType>) -> Option<String> {
    match (is_document, sniffed?) {
        (false, MediaType::Pdf) => Some("it is a PDF; declare it as a document".to_owned()),
        (true, t) if t.is_image() => Some(format!("it is an image ({t}), not a PDF")),
        _ => None,
    }
}
