//! The media step shared by every builder: each declared attachment of the
//! walk resolved, prepared for the provider's budget, or replaced by a note.
//!
//! Attachments are taken newest first, so when a provider's per-request
//! caps (image count, document count, total size) are reached it is the
//! oldest ones that are left out — and they are never loaded at all.
//!
//! Loading and preparing an attachment (read, decode, resize, encode) is
//! the slow part, and independent of every other attachment, so up to
//! [`Options::parallelism`] of them are prepared at once, on their own
//! threads: those the newest-first pass is about to reach, counting each
//! as kept. What each becomes is still decided in order, from the same
//! prepared bytes, so the request and its notes do not depend on how many
//! threads there are; when a request's limits leave out an attachment
//! prepared ahead, that work is dropped (at most `parallelism − 1`
//! attachments).

use std::borrow::Cow;
use std::sync::Arc;

use crate::carrier::AttachmentKind;
use crate::media::{
    check_whole, header::read_header, sniff, Budget, CacheKey, DefaultResolver, MediaType, Policy,
    Prepared, PreparedCache, ProviderFile, Resolver, Sniffed, Source, Uploads,
};

use super::evict::{article, counted, Evict};
use super::held::{holder_of, Held};
use super::memo::Memo;
use super::model::Capabilities;
use super::options::Eviction;
use super::walk::{Media, Slot, Turn};
use crate::facts::Facts;
use crate::facts::Provider;
use crate::steps::compose::shown;
use crate::steps::options::Options;
use crate::steps::report::{Note, NoteReason, Report};

/// What a provider accepts in one request.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    /// Each attachment is prepared for this budget.
    pub budget: Budget,
    /// Image types sent as they are; any other image is sent as PNG.
    pub image_types: Cow<'static, [MediaType]>,
    /// Whether PDFs can be sent.
    pub documents: bool,
    /// Whether images can be sent as `http(s)` URLs.
    pub image_urls: bool,
    /// Whether documents can be sent as `http(s)` URLs.
    pub document_urls: bool,
    /// Most images (inline or URL) in one request.
    pub max_images: usize,
    /// Most documents in one request.
    pub max_documents: usize,
    /// Most base64 characters of inline media in one request.
    pub max_total: usize,
    /// Largest width or height of an image.
    pub max_dim: u32,
    /// `(n, edge, documents)`: when a request holds more than `n` images
    /// (counted with its documents when `documents`), each fits `edge` ×
    /// `edge`.
    pub many_images: Option<(usize, u32, bool)>,
}

/// What has been kept so far, newest first.
#[derive(Clone, Default)]
struct Tally {
    images: usize,
    documents: usize,
    total: usize,
    tokens: u64,
    images_full: bool,
    documents_full: bool,
    total_full: bool,
    tokens_full: bool,
}

struct Step<'o> {
    facts: &'o Facts,
    provider: Provider,
    model: &'o str,
    limits: &'o Limits,
    vision: bool,
    /// Whether the model takes images (documents apart).
    images: bool,
    policy: &'o Policy,
    resolver: &'o (dyn Resolver + Sync),
    eviction: Eviction,
    cache: Option<&'o dyn PreparedCache>,
    memo: Option<&'o Memo>,
    /// What the provider takes of the files it holds, and the uploads map.
    held: Held<'o>,
    /// The detail level images are counted at.
    detail: crate::facts::Detail,
}

/// What [`Step::gate`] says of a slot.
enum Gate {
    /// It becomes this note, unloaded.
    Done(Media),
    /// It must be loaded ([`Step::fetch`]).
    Fetch { is_document: bool },
}

/// A slot loaded and prepared, not yet counted ([`Step::fetch`]).
enum Fetched<'m> {
    /// Prepared (or taken from the memo), with the memo entry to keep it
    /// under when it was prepared now.
    Prepared(Arc<Prepared>, Option<(&'m Memo, CacheKey)>),
    /// An `http(s)` URL the provider takes.
    Url(String),
    /// A note: it cannot be sent.
    Note(Media),
    /// A file the provider holds: named so, or found in the uploads map.
    File(ProviderFile),
}

/// Decide, for every slot of `turns` in order, what it becomes for
/// `provider`: media resolved and prepared, or a note.
pub(crate) fn decide(
    turns: &[Turn<'_, ()>],
    provider: Provider,
    model: &str,
    caps: &Capabilities,
    options: &Options,
) -> Vec<Media> {
    let default_resolver;
    let resolver: &(dyn Resolver + Sync) = match &options.resolver {
        Some(r) => r.as_ref(),
        None => {
            default_resolver = DefaultResolver::new(options.policy.clone());
            &default_resolver
        }
    };
    let slots: Vec<&Slot<'_, ()>> = turns.iter().flat_map(Turn::slots).collect();
    // The largest side an image may have here: the provider's limit, and
    // a smaller one when the request holds many images.
    let limits = &caps.limits;
    let declared = slots
        .iter()
        .filter(|s| s.kind == AttachmentKind::Image)
        .count();
    let images = options
        .eviction
        .keep_images
        .map_or(declared, |n| n.min(declared));
    let documents = slots
        .iter()
        .filter(|s| s.kind == AttachmentKind::Document)
        .count();
    let documents = options
        .eviction
        .keep_documents
        .map_or(documents, |n| n.min(documents));
    let edge = match limits.many_images {
        Some((n, edge, with_documents))
            if images + if with_documents { documents } else { 0 } > n =>
        {
            edge.min(limits.max_dim)
        }
        _ => limits.max_dim,
    };
    let mut policy = options.policy.clone();
    if policy.max_dim() > edge {
        policy = policy.with_max_dim(edge);
    }
    // Send what the model sees: no more pixels than it processes.
    let detail = options.detail_at(provider, model);
    if options.fit_to_model && policy.view().is_none() {
        if let Some(view) = options.facts().view_at(provider, model, detail) {
            policy = policy.with_view(view);
        }
    }
    let policy = &policy;
    let step = Step {
        provider,
        model,
        limits,
        vision: options.vision,
        images: caps.vision,
        policy,
        resolver,
        facts: options.facts(),
        eviction: options.eviction,
        cache: options.cache.as_deref(),
        memo: options.memo.as_deref(),
        held: Held::new(provider, model, options),
        detail,
    };
    let mut media = step.decide_all(&slots, options.parallelism());
    media.reverse();
    for kind in [AttachmentKind::Image, AttachmentKind::Document] {
        step.evict().round(&slots, &mut media, kind);
    }
    media
}

/// List what became of each slot of `turns` (`media`, in slot order) in
/// `report`.
pub(crate) fn report(
    turns: &[Turn<'_, ()>],
    media: &[Media],
    facts: &Facts,
    provider: Provider,
    model: &str,
    detail: crate::facts::Detail,
    report: &mut Report,
) {
    let slots = turns.iter().flat_map(Turn::slots);
    report.image_tokens = media
        .iter()
        .filter_map(|m| match m {
            Media::Inline(p) if !p.is_document() => p.width.zip(p.height),
            _ => None,
        })
        .map(|(w, h)| facts.image_tokens_at(provider, model, detail, w, h))
        .sum();
    for (slot, media) in slots.zip(media) {
        match media {
            Media::Inline(p) if p.is_document() => report.documents += 1,
            Media::Inline(_) => report.images += 1,
            Media::Url(_) => report.urls += 1,
            Media::File(_) => report.files += 1,
            Media::Note(reason, text) => report.notes.push(Note {
                index: slot.index,
                target: slot.target.clone().into_owned(),
                reason: *reason,
                text: text.clone(),
            }),
        }
    }
}

/// `turns` with each slot holding what was decided for it.
pub(crate) fn apply<'a>(turns: Vec<Turn<'a, ()>>, media: Vec<Media>) -> Vec<Turn<'a>> {
    let mut media = media.into_iter();
    turns
        .into_iter()
        .map(|turn| turn.with_media(&mut media))
        .collect()
}

/// Leave out the oldest attachments sent inline until the request is at
/// least `over` bytes smaller (each payload's base64 text less the note
/// written in its place), then round to the eviction step. `false` when
/// nothing inline is left to leave out.
pub(crate) fn shrink(
    turns: &[Turn<'_, ()>],
    media: &mut [Media],
    mut over: usize,
    provider: Provider,
    options: &Options,
) -> bool {
    let slots: Vec<&Slot<'_, ()>> = turns.iter().flat_map(Turn::slots).collect();
    let evict = Evict {
        provider,
        eviction: options.eviction,
    };
    let mut any = false;
    for (slot, m) in slots.iter().zip(media.iter_mut()) {
        if over == 0 {
            break;
        }
        let Media::Inline(p) = m else {
            continue;
        };
        let freed = p.base64_len();
        let note = evict.over_total(slot.kind.as_str(), &shown(slot));
        let Media::Note(_, text) = &note else {
            unreachable!("over_total is a note")
        };
        // The note, JSON-escaped at worst, and the line feed before it.
        let added = text.len() * 2 + 1;
        over = over.saturating_sub(freed.saturating_sub(added));
        *m = note;
        any = true;
    }
    for kind in [AttachmentKind::Image, AttachmentKind::Document] {
        evict.round(&slots, media, kind);
    }
    any
}

impl<'o> Step<'o> {
    /// What each of `slots` becomes, newest first, preparing up to
    /// `workers` attachments at once.
    fn decide_all(&self, slots: &[&Slot<'_, ()>], workers: usize) -> Vec<Media> {
        let mut tally = Tally::default();
        let order: Vec<usize> = (0..slots.len()).rev().collect();
        let mut ahead: Vec<Option<Fetched<'o>>> = (0..slots.len()).map(|_| None).collect();
        let mut media = Vec::with_capacity(slots.len());
        for (pos, &i) in order.iter().enumerate() {
            let is_document = match self.gate(slots[i], &mut tally) {
                Gate::Done(m) => {
                    // Prepared ahead for nothing: a limit was reached.
                    ahead[i] = None;
                    media.push(m);
                    continue;
                }
                Gate::Fetch { is_document } => is_document,
            };
            let fetched = match ahead[i].take() {
                Some(f) => f,
                None => {
                    // This one, and the next ones the pass would fetch if
                    // each before them were kept.
                    let mut batch = vec![(i, is_document)];
                    let mut guess = tally.clone();
                    guess.count(is_document);
                    for &j in &order[pos + 1..] {
                        if batch.len() >= workers {
                            break;
                        }
                        if let Gate::Fetch { is_document } = self.gate(slots[j], &mut guess) {
                            guess.count(is_document);
                            batch.push((j, is_document));
                        }
                    }
                    let mut results = self.fetch_all(slots, &batch).into_iter();
                    let first = results.next().expect("one result per slot");
                    for ((j, _), f) in batch[1..].iter().zip(results) {
                        ahead[*j] = Some(f);
                    }
                    first
                }
            };
            media.push(self.finish(fetched, slots[i], &mut tally, is_document));
        }
        media
    }

    /// [`Step::fetch`] for each of `batch`, in its order: the first on this
    /// thread, each other on a thread of its own.
    fn fetch_all(&self, slots: &[&Slot<'_, ()>], batch: &[(usize, bool)]) -> Vec<Fetched<'o>> {
        let Some((&(first, first_doc), rest)) = batch.split_first() else {
            return Vec::new();
        };
        if rest.is_empty() {
            return vec![self.fetch(slots[first], first_doc)];
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = rest
                .iter()
                .map(|&(j, is_document)| {
                    let slot = slots[j];
                    scope.spawn(move || self.fetch(slot, is_document))
                })
                .collect();
            let mut out = Vec::with_capacity(batch.len());
            out.push(self.fetch(slots[first], first_doc));
            for handle in handles {
                out.push(
                    handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                );
            }
            out
        })
    }

    /// What `slot` becomes without loading it (a note: not sendable, or
    /// past a limit `tally` has reached), or that it must be loaded.
    fn gate(&self, slot: &Slot<'_, ()>, tally: &mut Tally) -> Gate {
        let what = slot.kind.as_str();
        let shown = shown(slot);
        let provider = self.provider.display_name();
        let is_document = match slot.kind {
            AttachmentKind::Image => false,
            AttachmentKind::Document => true,
            AttachmentKind::Audio | AttachmentKind::Video => {
                return Gate::Done(Media::Note(
                    NoteReason::KindNotSent,
                    format!("[{what} {shown} not sent: {what} attachments are not supported]"),
                ))
            }
        };
        if !self.vision {
            return Gate::Done(Media::Note(
                NoteReason::VisionOff,
                format!("[{what} {shown} omitted: this model cannot view attachments]"),
            ));
        }
        if !self.images && !is_document {
            return Gate::Done(Media::Note(
                NoteReason::VisionOff,
                format!("[{what} {shown} omitted: this model cannot view images]"),
            ));
        }
        if is_document && !self.limits.documents {
            return Gate::Done(Media::Note(
                NoteReason::NotTaken,
                format!("[{what} {shown} not attached: {provider} takes no documents here]"),
            ));
        }
        if tally.total_full {
            return Gate::Done(self.evict().over_total(what, &shown));
        }
        let keep = if is_document {
            self.eviction.keep_documents
        } else {
            self.eviction.keep_images
        };
        let kept = if is_document {
            tally.documents
        } else {
            tally.images
        };
        if let Some(n) = keep.filter(|&n| kept >= n) {
            return Gate::Done(self.evict().over_keep(what, &shown, n));
        }
        if !is_document && tally.tokens_full {
            return Gate::Done(self.evict().over_tokens(what, &shown));
        }
        if is_document && (tally.documents_full || tally.documents >= self.limits.max_documents) {
            tally.documents_full = true;
            return Gate::Done(Media::Note(NoteReason::OverCount, format!(
                "[{what} {shown} omitted: {} {provider} request takes at most {}; the oldest are left out]",
                article(provider),
                counted(self.limits.max_documents, "document"),
            )));
        }
        if !is_document && (tally.images_full || tally.images >= self.limits.max_images) {
            tally.images_full = true;
            return Gate::Done(Media::Note(NoteReason::OverCount, format!(
                "[{what} {shown} omitted: {} {provider} request takes at most {}; the oldest are left out]",
                article(provider),
                counted(self.limits.max_images, "image"),
            )));
        }
        Gate::Fetch { is_document }
    }

    /// Load and prepare `slot` (or find it in the conversation's memo):
    /// no tally is read or changed, so any number of slots can be fetched
    /// at once.
    fn fetch(&self, slot: &Slot<'_, ()>, is_document: bool) -> Fetched<'o> {
        let what = slot.kind.as_str();
        let shown = shown(slot);
        let provider = self.provider.display_name();
        let not_attached = |why: NoteReason, reason: &dyn std::fmt::Display| {
            Fetched::Note(Media::Note(
                why,
                format!("[{what} {shown} not attached: {reason}]"),
            ))
        };
        let (budget, types) = (self.limits.budget, &*self.limits.image_types);
        let held = match ProviderFile::parse(&slot.target) {
            Some(Err(e)) => return not_attached(NoteReason::Media, &e),
            Some(Ok(file)) => Some(file),
            None => None,
        };
        let mut early = None;
        if let Some(file) = held {
            if holder_of(self.provider) == Some(file.holder) {
                return match self.held.refuses(&file, is_document) {
                    Some(why) => not_attached(NoteReason::NotTaken, &why),
                    None => Fetched::File(file),
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
                            return Fetched::File(file);
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
            return Fetched::Prepared(kept, None);
        }
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
                if !takes {
                    return not_attached(
                        NoteReason::NotTaken,
                        &format!("{provider} does not take {what} URLs here"),
                    );
                }
                return Fetched::Url(url);
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
            let size = sniffed
                .filter(|t| t.is_image())
                .and_then(|t| read_header(&loaded.bytes, t).ok())
                .map(|h| (h.width, h.height));
            if let (Some(memo), Some(stamp)) = (self.memo, &stamp) {
                memo.put_hash(stamp, (hash, sniffed, size));
            }
            if let Some(file) = self.by_reference(&hash, sniffed, size, is_document) {
                return Fetched::File(file);
            }
        }
        let prepared = match self.cache {
            Some(cache) => loaded.prepare_cached(self.policy, budget, types, cache),
            None => loaded.prepare_for(self.policy, budget, types),
        };
        match prepared {
            Ok(p) => Fetched::Prepared(Arc::new(p), memo),
            Err(e) => not_attached(NoteReason::Media, &e.reason()),
        }
    }

    /// What a fetched slot becomes, in order: kept in the memo, then in
    /// the request unless its limits are reached.
    fn finish(
        &self,
        fetched: Fetched<'o>,
        slot: &Slot<'_, ()>,
        tally: &mut Tally,
        is_document: bool,
    ) -> Media {
        match fetched {
            Fetched::Note(note) => note,
            Fetched::File(file) => {
                tally.count(is_document);
                Media::File(Arc::new(file))
            }
            Fetched::Url(url) => {
                tally.count(is_document);
                Media::Url(url)
            }
            Fetched::Prepared(prepared, memo) => {
                if let Some((memo, key)) = memo {
                    memo.put(key, &prepared);
                }
                let what = slot.kind.as_str();
                let shown = shown(slot);
                self.take(prepared, tally, what, &shown, is_document)
            }
        }
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

    /// `prepared` goes in the request, unless the request's limits are
    /// reached: counted, or a note.
    fn take(
        &self,
        prepared: Arc<Prepared>,
        tally: &mut Tally,
        what: &str,
        shown: &str,
        is_document: bool,
    ) -> Media {
        let size = prepared.base64_len();
        if tally.total.saturating_add(size) > self.limits.max_total {
            tally.total_full = true;
            return self.evict().over_total(what, shown);
        }
        if let (Some(budget), Some(w), Some(h)) = (
            self.eviction.image_tokens.filter(|_| !is_document),
            prepared.width,
            prepared.height,
        ) {
            let tokens = self.image_tokens(w, h);
            if tally.tokens.saturating_add(tokens) > budget {
                tally.tokens_full = true;
                return self.evict().over_tokens(what, shown);
            }
            tally.tokens += tokens;
        }
        tally.total += size;
        tally.count(is_document);
        Media::Inline(prepared)
    }

    fn evict(&self) -> Evict {
        Evict {
            provider: self.provider,
            eviction: self.eviction,
        }
    }

    /// An image's input tokens for this provider and model; Anthropic's
    /// formula where the provider documents none.
    fn image_tokens(&self, width: u32, height: u32) -> u64 {
        self.facts
            .image_tokens_at(self.provider, self.model, self.detail, width, height)
            .unwrap_or_else(|| crate::media::anthropic_tokens(width, height))
    }
}

impl Tally {
    fn count(&mut self, is_document: bool) {
        if is_document {
            self.documents += 1;
        } else {
            self.images += 1;
        }
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
