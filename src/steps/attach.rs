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
//! attachments). A token budget is decided from each image's header,
//! read before loading where the resolver gives a file's first bytes: an
//! image past it is neither loaded nor prepared ahead, and the request is
//! the one deciding after loading gives. What needs no loading (a file
//! the provider holds, an earlier turn's payload) is found on the calling
//! thread and takes no thread of its own (`fetch.rs`).

use std::sync::Arc;

use crate::carrier::AttachmentKind;
use crate::media::{DefaultResolver, Policy, Prepared, PreparedCache, Resolver, UrlFetcher};

use super::evict::{article, counted, Evict};
use super::held::Held;
use super::memo::Memo;
use super::model::{Capabilities, Limits};
use super::options::Eviction;
use super::walk::{Media, Slot, Turn};
use crate::facts::Facts;
use crate::facts::Provider;
use crate::steps::compose::shown;
use crate::steps::options::Options;
use crate::steps::report::{Note, NoteReason, Report};

/// What has been kept so far, newest first.
#[derive(Clone, Default)]
pub(super) struct Tally {
    images: usize,
    documents: usize,
    total: usize,
    tokens: u64,
    pages: usize,
    images_full: bool,
    documents_full: bool,
    total_full: bool,
    tokens_full: bool,
    pages_full: bool,
}

pub(super) struct Step<'o> {
    pub(super) facts: &'o Facts,
    pub(super) provider: Provider,
    pub(super) model: &'o str,
    pub(super) limits: &'o Limits,
    pub(super) vision: bool,
    /// Whether the model takes images (documents apart).
    pub(super) images: bool,
    pub(super) policy: &'o Policy,
    pub(super) resolver: &'o (dyn Resolver + Sync),
    /// Fetches the URLs a provider takes no reference to, where given.
    pub(super) fetcher: Option<&'o (dyn UrlFetcher + Send + Sync)>,
    pub(super) eviction: Eviction,
    pub(super) cache: Option<&'o dyn PreparedCache>,
    pub(super) memo: Option<&'o Memo>,
    /// What the provider takes of the files it holds, and the uploads map.
    pub(super) held: Held<'o>,
    /// The detail level images are counted at.
    pub(super) detail: crate::facts::Detail,
    /// Buffers the images are prepared in, kept from one to the next.
    pub(super) work: Workspaces,
}

/// What [`Step::gate`] says of a slot.
enum Gate {
    /// It becomes this note, unloaded.
    Done(Media),
    /// It must be looked up or loaded ([`Step::look`], [`Step::load`]).
    Fetch { is_document: bool },
}

use super::fetch::{Fetched, Look, Pending};
use crate::media::workspace::Workspaces;

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
    let limits = &caps.limits;
    let count = |kind| slots.iter().filter(|s| s.kind == kind).count();
    let keep = |n: usize, keep: Option<usize>| keep.map_or(n, |k| k.min(n));
    let images = keep(count(AttachmentKind::Image), options.eviction.keep_images);
    let documents = keep(
        count(AttachmentKind::Document),
        options.eviction.keep_documents,
    );
    let policy = policy_for(options, provider, model, limits, images, documents);
    let detail = options.detail_at(provider, model);
    let policy = &policy;
    let step = Step {
        provider,
        model,
        limits,
        vision: options.vision,
        images: caps.vision,
        policy,
        resolver,
        fetcher: options.fetcher.as_deref(),
        facts: options.facts(),
        eviction: options.eviction,
        cache: options.cache.as_deref(),
        memo: options.memo.as_deref(),
        held: Held::new(provider.spec(), model, options),
        detail,
        work: Workspaces::default(),
    };
    let mut media = step.decide_all(&slots, || options.parallelism());
    media.reverse();
    for kind in [AttachmentKind::Image, AttachmentKind::Document] {
        step.evict().round(&slots, &mut media, kind);
    }
    media
}

/// The policy a request of `images` images and `documents` documents for
/// `model` at `provider` prepares its images with: the options' own, its
/// largest side the provider's limit (a smaller one when the request
/// holds many images) and, unless the options say not to, no more pixels
/// than the model processes.
pub(crate) fn policy_for(
    options: &Options,
    provider: Provider,
    model: &str,
    limits: &Limits,
    images: usize,
    documents: usize,
) -> Policy {
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
    policy
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

/// Where the request's PDF pages are limited, a line in `report` for each
/// document sent whose page count could not be read: its pages went
/// unchecked.
pub(crate) fn caveats(
    turns: &[Turn<'_, ()>],
    media: &[Media],
    provider: Provider,
    limits: &Limits,
    report: &mut Report,
) {
    let max = limits.max_pages;
    if max == usize::MAX {
        return;
    }
    let provider = provider.display_name();
    for (slot, media) in turns.iter().flat_map(Turn::slots).zip(media) {
        if let Media::Inline(p) = media {
            if p.is_document() && crate::media::pdf_info(&p.bytes).pages.is_none() {
                report.caveats.push(format!(
                    "message {}: document {} sent, its page count unread (its page tree is compressed): {} {provider} request takes at most {max} PDF pages",
                    slot.index,
                    shown(slot),
                    article(provider),
                ));
            }
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
    /// `workers()` attachments at once (asked only when some must be
    /// loaded).
    fn decide_all(&self, slots: &[&Slot<'_, ()>], workers: impl FnOnce() -> usize) -> Vec<Media> {
        let mut workers = Some(workers);
        let mut width = 0;
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
                None => match self.look(slots[i], is_document) {
                    Look::Done(f) => f,
                    Look::Load(first) => {
                        // Past the token budget by its header: never loaded.
                        let unread = self.unread_tokens(slots[i], is_document, &first);
                        if unread.is_some_and(|t| self.crosses(&mut tally, t)) {
                            let slot = slots[i];
                            media.push(self.evict().over_tokens(slot.kind.as_str(), &shown(slot)));
                            continue;
                        }
                        if let Some(ask) = workers.take() {
                            width = ask().max(1);
                        }
                        // This one, and the next ones the pass would load
                        // if each before them were kept; those found
                        // without loading are decided here, on this thread.
                        let mut batch = vec![(i, is_document, first)];
                        let mut guess = tally.clone();
                        guess.count(is_document);
                        guess.tokens += unread.unwrap_or(0);
                        for &j in &order[pos + 1..] {
                            if batch.len() >= width {
                                break;
                            }
                            if let Gate::Fetch { is_document } = self.gate(slots[j], &mut guess) {
                                guess.count(is_document);
                                match self.look(slots[j], is_document) {
                                    Look::Done(f) => ahead[j] = Some(f),
                                    Look::Load(p) => {
                                        let t = self.unread_tokens(slots[j], is_document, &p);
                                        if t.is_some_and(|t| self.crosses(&mut guess, t)) {
                                            continue;
                                        }
                                        guess.tokens += t.unwrap_or(0);
                                        batch.push((j, is_document, p));
                                    }
                                }
                            }
                        }
                        let mut results = self.load_all(slots, batch);
                        let first = results.remove(0).1;
                        for (j, f) in results {
                            ahead[j] = Some(f);
                        }
                        first
                    }
                },
            };
            media.push(self.finish(fetched, slots[i], &mut tally, is_document));
        }
        media
    }

    /// [`Step::load`] for each of `batch`, in its order: the first on this
    /// thread, each other on a thread of its own.
    fn load_all(
        &self,
        slots: &[&Slot<'_, ()>],
        mut batch: Vec<(usize, bool, Pending<'o>)>,
    ) -> Vec<(usize, Fetched<'o>)> {
        let (first, first_doc, first_pending) = batch.remove(0);
        if batch.is_empty() {
            return vec![(first, self.load(slots[first], first_doc, first_pending))];
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .into_iter()
                .map(|(j, is_document, pending)| {
                    let slot = slots[j];
                    (
                        j,
                        scope.spawn(move || self.load(slot, is_document, pending)),
                    )
                })
                .collect();
            let mut out = Vec::with_capacity(handles.len() + 1);
            out.push((first, self.load(slots[first], first_doc, first_pending)));
            for (j, handle) in handles {
                out.push((
                    j,
                    handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                ));
            }
            out
        })
    }

    /// What `slot` becomes without loading it (a note: not sendable, or
    /// past a limit `tally` has reached), or that it must be loaded.
    fn gate(&self, slot: &Slot<'_, ()>, tally: &mut Tally) -> Gate {
        if let Some(why) = &slot.rejected {
            return Gate::Done(Media::Note(
                NoteReason::InvalidRecord,
                format!("[attachment record {} not attached: {why}]", slot.target),
            ));
        }
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
            Fetched::Unprepared(note, size) => {
                if self.crosses(tally, self.counted(size)) {
                    self.evict().over_tokens(slot.kind.as_str(), &shown(slot))
                } else {
                    note
                }
            }
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
        if prepared.is_document() {
            if let Some(note) = self.pdf_gate(&prepared, tally, what, shown) {
                return note;
            }
        }
        // The budget first: what it leaves out, it leaves out by the
        // header before loading where it can.
        let tokens = self.sent_tokens(&prepared).filter(|_| !is_document);
        if tokens.is_some_and(|t| self.crosses(tally, t)) {
            return self.evict().over_tokens(what, shown);
        }
        if tally.total.saturating_add(size) > self.limits.max_total {
            tally.total_full = true;
            return self.evict().over_total(what, shown);
        }
        tally.tokens += tokens.unwrap_or(0);
        tally.total += size;
        tally.count(is_document);
        Media::Inline(prepared)
    }

    /// What the provider says of a PDF beyond its bytes: encrypted ones
    /// refused where it refuses them; the pages of every document kept
    /// within the request's page limit, newest first (a count that cannot
    /// be read is let through: [`report`] notes it). Counts the pages of
    /// one that passes.
    fn pdf_gate(
        &self,
        prepared: &Prepared,
        tally: &mut Tally,
        what: &str,
        shown: &str,
    ) -> Option<Media> {
        let provider = self.provider.display_name();
        let info = crate::media::pdf_info(&prepared.bytes);
        if info.encrypted && self.limits.refuses_encrypted {
            return Some(Media::Note(
                NoteReason::NotTaken,
                format!("[{what} {shown} not attached: it is encrypted (password-protected), and {provider} refuses encrypted PDFs]"),
            ));
        }
        let max = self.limits.max_pages;
        let pages = info
            .pages
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
        if tally.pages_full || tally.pages.saturating_add(pages) > max {
            tally.pages_full = true;
            return Some(Media::Note(NoteReason::OverPages, format!(
                "[{what} {shown} omitted: {} {provider} request takes at most {max} PDF pages, and this one has {pages} with {} kept; the oldest are left out]",
                article(provider),
                tally.pages,
            )));
        }
        tally.pages += pages;
        None
    }

    fn evict(&self) -> Evict {
        Evict {
            provider: self.provider,
            eviction: self.eviction,
        }
    }

    /// Whether `tokens` more would take `tally` past the token budget (if
    /// any): if so, it is full.
    pub(super) fn crosses(&self, tally: &mut Tally, tokens: u64) -> bool {
        let over = self
            .eviction
            .image_tokens
            .is_some_and(|budget| tally.tokens.saturating_add(tokens) > budget);
        tally.tokens_full |= over;
        over
    }

    /// What an image of stored size `size` counts against the token
    /// budget: its tokens at the size the policy fits it to (the model's
    /// view, the provider's edge), known from its header before it is
    /// loaded. An image then made smaller for a byte cap still counts so.
    pub(super) fn counted(&self, (width, height): (u32, u32)) -> u64 {
        let edge = self.policy.long_edge_for(width, height);
        let (width, height) = crate::media::fit_within(width, height, edge);
        self.image_tokens(width, height)
    }

    /// What a prepared image counts against the token budget: as its
    /// header says ([`Step::counted`]) or as sent, whichever is more (a
    /// read reduced may land a pixel over); `None` with no budget, or
    /// for a document.
    fn sent_tokens(&self, prepared: &Prepared) -> Option<u64> {
        self.eviction.image_tokens?;
        let sent = self.image_tokens(prepared.width?, prepared.height?);
        let stored = prepared.original.width.zip(prepared.original.height);
        Some(stored.map_or(sent, |size| sent.max(self.counted(size))))
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
