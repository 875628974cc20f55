//! `convert --cache-dir DIR`: prepared images kept on disk between runs.
//!
//! Each entry is one file named by its key (`DIR/ab/abcd…`), holding
//! [`encode_entry`]'s bytes. Files are written to a temporary name in the
//! same folder and renamed into place, so a reader sees a whole entry or
//! none, and conversions running at once can share the folder (two that
//! write one key write the same bytes). An entry is used only whole: one
//! whose payload has not the length and hash its head gives (cut short by
//! a full disk, a copy, a crash of the file system) is prepared again from
//! its source and replaced, and counted ([`DiskCache::damaged`]) for the
//! report. SIGINT or SIGTERM leaves no
//! temporary file (the command's `interrupt` module). When the folder
//! holds more than its bound, the entries used longest ago go.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use tool_carrier::media::{decode_entry, encode_entry, CacheKey, Prepared, PreparedCache};

use crate::interrupt;

/// A folder of prepared images, at most `max_bytes` in all.
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
    damaged: AtomicUsize,
}

impl DiskCache {
    /// Use (and create) `dir`.
    ///
    /// # Errors
    /// When the folder cannot be created.
    pub fn new(dir: &Path, max_bytes: u64) -> std::io::Result<DiskCache> {
        fs::create_dir_all(dir)?;
        Ok(DiskCache {
            dir: dir.to_owned(),
            max_bytes,
            damaged: AtomicUsize::new(0),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many entries this run found that were not whole (or not of
    /// this version), and so prepared again.
    pub fn damaged(&self) -> usize {
        self.damaged.load(Ordering::Relaxed)
    }

    fn path(&self, key: &CacheKey) -> PathBuf {
        let hex = key.to_hex();
        self.dir.join(&hex[..2]).join(hex)
    }

    /// Remove the entries used longest ago until the folder is within its
    /// bound. Errors (a file another run removed first) are skipped.
    fn prune(&self) {
        let mut files: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let Ok(shards) = fs::read_dir(&self.dir) else {
            return;
        };
        for shard in shards.flatten() {
            let Ok(entries) = fs::read_dir(shard.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(meta) = entry.metadata() else { continue };
                if meta.is_file() {
                    let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    files.push((used, meta.len(), entry.path()));
                }
            }
        }
        let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
        if total <= self.max_bytes {
            return;
        }
        files.sort();
        for (_, len, path) in files {
            if total <= self.max_bytes {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(len);
            }
        }
    }
}

impl PreparedCache for DiskCache {
    fn get(&self, key: &CacheKey) -> Option<Prepared> {
        let path = self.path(key);
        let bytes = fs::read(&path).ok()?;
        let Ok(prepared) = decode_entry(&bytes) else {
            // Not whole: a miss, so the caller prepares it again and
            // `put` renames the new entry over this one.
            self.damaged.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        // Mark it used, for pruning; a failure only makes it older.
        if let Ok(file) = fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        Some(prepared)
    }

    fn put(&self, key: &CacheKey, prepared: &Prepared) {
        let path = self.path(key);
        let Some(shard) = path.parent() else { return };
        if fs::create_dir_all(shard).is_err() {
            return;
        }
        let Ok((mut file, registration)) =
            interrupt::create_temp(|| tempfile::NamedTempFile::new_in(shard), |t| t.path())
        else {
            return;
        };
        if file.write_all(&encode_entry(prepared)).is_err() || file.flush().is_err() {
            return;
        }
        if interrupt::settle(registration, || file.persist(&path)).is_ok() {
            self.prune();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_carrier::media::{prepare, Budget, Policy};

    #[test]
    fn entries_are_kept_found_and_pruned_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let pdf = |n: u8| {
            let mut bytes = b"%PDF-1.7\n".to_vec();
            bytes.extend(std::iter::repeat_n(b'x', 1000));
            bytes.push(n);
            // A whole PDF ends so (the pipeline refuses any other).
            bytes.extend_from_slice(b"\nstartxref\n9\n%%EOF\n");
            bytes
        };
        let policy = Policy::default();
        let key = |n: u8| CacheKey::new(&pdf(n), None, &policy, Budget::ANTHROPIC, &[]);
        let prepared = |n: u8| prepare(pdf(n), &policy, Budget::ANTHROPIC).unwrap();
        let cache = DiskCache::new(dir.path(), 2500).unwrap();
        assert!(cache.get(&key(1)).is_none());
        cache.put(&key(1), &prepared(1));
        assert_eq!(cache.get(&key(1)).unwrap().bytes, pdf(1));
        // A torn file is a miss.
        fs::write(cache.path(&key(2)).parent().unwrap().join("junk"), b"x").ok();
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache.put(&key(2), &prepared(2));
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache.put(&key(3), &prepared(3));
        // Three entries of ~1.2 kB do not fit 2.5 kB: the oldest went.
        assert!(cache.get(&key(1)).is_none());
        assert!(cache.get(&key(3)).is_some());
    }
}
