//! What a conversation prepared, found again by its source's stamp: a
//! warm turn neither reads nor hashes the screenshots of the turns before.
//!
//! A [`PreparedCache`](crate::media::PreparedCache) is keyed by the
//! source's bytes, so finding an entry still reads and hashes every file
//! on every turn (hundreds of MB in a long session). The memo is keyed by
//! the resolver's [`Stamp`] of the target (a local file's path, inode,
//! length and times) and the same preparation parameters, so a hit costs
//! one `stat`. Only successes are kept, and a source that changes gets a
//! new stamp, so it is resolved, checked and prepared again: what the memo
//! gives is what resolving would give.
//!
//! Entries not used by the last build are dropped at its end
//! ([`Memo::sweep`]), so the memo holds what the body holds.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::media::{Budget, CacheKey, MediaType, Policy, Prepared, Stamp};

/// What the memo knows of a source's bytes by its stamp: their SHA-256
/// (the uploads map's key), their sniffed type and an image's size.
pub(crate) type Known = ([u8; 32], Option<MediaType>, Option<(u32, u32)>);

/// The payloads prepared for a conversation, by stamp and parameters.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The build being made (counts up).
    build: u64,
    /// Each payload and the build that last used it.
    entries: HashMap<CacheKey, (u64, Arc<Prepared>)>,
    /// By stamp: what the bytes are, for the uploads map.
    hashes: HashMap<Vec<u8>, (u64, Known)>,
}

impl Memo {
    /// The key of preparing what `stamp` identifies, as `kind` (a document
    /// or an image), with these parameters.
    pub fn key(
        stamp: &Stamp,
        document: bool,
        policy: &Policy,
        budget: Budget,
        accepts: &[MediaType],
    ) -> CacheKey {
        let mut identity = b"stamp\0".to_vec();
        identity.push(u8::from(document));
        identity.extend_from_slice(stamp.as_bytes());
        CacheKey::new(&identity, None, policy, budget, accepts)
    }

    /// The payload kept under `key`, marked as used by this build.
    pub fn get(&self, key: &CacheKey) -> Option<Arc<Prepared>> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let build = inner.build;
        inner.entries.get_mut(key).map(|(used, p)| {
            *used = build;
            Arc::clone(p)
        })
    }

    /// Keep `prepared` under `key`; its JSON text is kept once written.
    pub fn put(&self, key: CacheKey, prepared: &Arc<Prepared>) {
        prepared.encoded.keep();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let build = inner.build;
        inner.entries.insert(key, (build, Arc::clone(prepared)));
    }

    /// What the memo knows of the bytes `stamp` stands for, if they were
    /// read under it before.
    pub fn hash_of(&self, stamp: &Stamp) -> Option<Known> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let build = inner.build;
        inner.hashes.get_mut(stamp.as_bytes()).map(|(used, known)| {
            *used = build;
            *known
        })
    }

    /// Remember what the bytes read under `stamp` are.
    pub fn put_hash(&self, stamp: &Stamp, known: Known) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let build = inner.build;
        inner
            .hashes
            .insert(stamp.as_bytes().to_vec(), (build, known));
    }

    /// Start a build: what it uses is marked from now on.
    pub fn begin(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.build += 1;
    }

    /// End a build: drop what it did not use.
    pub fn sweep(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let build = inner.build;
        inner.entries.retain(|_, (used, _)| *used == build);
        inner.hashes.retain(|_, (used, _)| *used == build);
    }

    /// How many payloads are kept.
    pub fn len(&self) -> usize {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.entries.len()
    }
}
