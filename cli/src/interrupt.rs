//! Temporary files removed when SIGINT or SIGTERM ends a run.
//!
//! The command writes files through temporary files beside them: a result
//! replacing its target (`migrate --in-place`, `-o`, `--externalize`), an
//! entry of `convert --cache-dir`, a media file of `--externalize DIR` or
//! `import --media-dir DIR`. Dropping a temporary file removes it, but a
//! signal ends the process without running destructors, which used to
//! leave a hidden file as large as the history beside it.
//!
//! So each temporary file is registered here while it exists, and a thread
//! waiting for SIGINT and SIGTERM removes every registered file, then ends
//! the process with the conventional status: 130 after SIGINT, 143 after
//! SIGTERM. The registry's lock is held while a temporary file is created
//! and registered, and while it is renamed into place and unregistered
//! ([`settle`]), so after a signal either the rename happened or the
//! temporary file is gone.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// What is removed on a signal.
struct Registry {
    next: u64,
    /// Temporary files, by registration.
    files: Vec<(u64, PathBuf)>,
    /// Media folders whose temporary files this process writes, by
    /// registration.
    store_dirs: Vec<(u64, PathBuf)>,
}

/// What the first signal does instead of ending the process, when a
/// command that stops gracefully has said so ([`on_first_signal`]).
type Handler = Box<dyn Fn(i32) + Send>;
static FIRST: Mutex<Option<Handler>> = Mutex::new(None);

/// Have the first SIGINT or SIGTERM call `handler` (with the signal)
/// rather than end the process: a server drains what it has begun. A
/// second signal ends the process as any signal does without it.
#[cfg(feature = "http")]
pub fn on_first_signal(handler: impl Fn(i32) + Send + 'static) {
    *FIRST.lock().unwrap_or_else(PoisonError::into_inner) = Some(Box::new(handler));
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    files: Vec::new(),
    store_dirs: Vec::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Registry {
    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    fn remove(&mut self, id: u64) {
        self.files.retain(|(i, _)| *i != id);
        self.store_dirs.retain(|(i, _)| *i != id);
    }

    /// Remove every registered temporary file; errors (a file already
    /// renamed or removed) are skipped.
    fn clean(&self) {
        for (_, path) in &self.files {
            let _ = fs::remove_file(path);
        }
        for (_, dir) in &self.store_dirs {
            let Ok(entries) = fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if is_own_store_temp(&entry.file_name().to_string_lossy(), std::process::id()) {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }
}

/// Whether `name` is a temporary file that `DirStore` of process `pid`
/// writes before renaming it into place: `.NAME.PID.COUNT.NANOS.tmp`.
fn is_own_store_temp(name: &str, pid: u32) -> bool {
    let Some(inner) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let mut parts = inner.rsplit('.');
    let (Some(nanos), Some(count), Some(owner)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(nanos) && digits(count) && owner == pid.to_string() && parts.next().is_some()
}

/// A registration: while it lives, what it names is removed on a signal.
#[must_use = "dropping the registration unregisters at once"]
pub struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        registry().remove(self.0);
    }
}

/// Create a temporary file with `create` and register the path `path_of`
/// reads from it, with no moment between the two when a signal would
/// leave the file behind.
pub fn create_temp<T>(
    create: impl FnOnce() -> io::Result<T>,
    path_of: impl FnOnce(&T) -> &Path,
) -> io::Result<(T, Registration)> {
    let mut registry = registry();
    let temp = create()?;
    let id = registry.id();
    registry.files.push((id, path_of(&temp).to_owned()));
    Ok((temp, Registration(id)))
}

/// Run `finish` (the rename that puts a registered temporary file in
/// place) with no signal cleaning up meanwhile, and unregister the file.
pub fn settle<T>(registration: Registration, finish: impl FnOnce() -> T) -> T {
    let mut registry = registry();
    let value = finish();
    registry.remove(registration.0);
    drop(registry);
    value
}

/// Register a media folder a `DirStore` of this process writes into: its
/// temporary files are removed on a signal.
pub fn store_dir(dir: &Path) -> Registration {
    let mut registry = registry();
    let id = registry.id();
    registry.store_dirs.push((id, dir.to_owned()));
    Registration(id)
}

/// Start the thread that waits for SIGINT and SIGTERM, cleans up and ends
/// the process. Without it (or when it cannot start) the signals end the
/// process as they always do.
pub fn install() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::iterator::Signals;

        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("interrupt".into())
            .spawn(move || {
                for signal in signals.forever() {
                    // Taken when the signal comes: a command registers its
                    // handler once it runs, after this thread started.
                    let first = FIRST.lock().unwrap_or_else(PoisonError::into_inner).take();
                    if let Some(handler) = first {
                        handler(signal);
                        continue;
                    }
                    // Held to the end: nothing is created or renamed after
                    // the clean-up.
                    let registry = registry();
                    registry.clean();
                    std::process::exit(128 + signal);
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_temporary_names_are_recognised_by_their_owner() {
        let name = ".3a7bd3e2.png.4242.7.1767225600123456789.tmp";
        assert!(is_own_store_temp(name, 4242));
        assert!(!is_own_store_temp(name, 4243));
        assert!(!is_own_store_temp("3a7bd3e2.png", 4242));
        assert!(!is_own_store_temp(".4242.7.1.tmp", 4242), "no name");
        assert!(!is_own_store_temp(".a.png.4242.x.1.tmp", 4242));
        assert!(!is_own_store_temp(".a.png.4242.7.1.tmp.bak", 4242));
    }

    fn registered(path: &Path) -> bool {
        registry().files.iter().any(|(_, p)| p == path)
    }

    #[test]
    fn a_temporary_file_is_registered_until_settled_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let new = || tempfile::NamedTempFile::new_in(dir.path());
        let (temp, registration) = create_temp(new, |t| t.path()).unwrap();
        let path = temp.path().to_owned();
        assert!(registered(&path));
        let target = dir.path().join("done");
        settle(registration, || temp.persist(&target)).unwrap();
        assert!(!registered(&path));
        let (temp, registration) = create_temp(new, |t| t.path()).unwrap();
        let path = temp.path().to_owned();
        drop(registration);
        assert!(!registered(&path));
        let store = store_dir(dir.path());
        assert!(registry().store_dirs.iter().any(|(i, _)| *i == store.0));
    }

    #[test]
    fn cleaning_removes_temporary_files_and_this_process_store_temporaries() {
        // A registry of its own: the global one holds other tests' files.
        let dir = tempfile::tempdir().unwrap();
        let temp = dir.path().join(".tmpABC");
        fs::write(&temp, b"x").unwrap();
        let store = dir.path().join("media");
        fs::create_dir(&store).unwrap();
        let own = store.join(format!(".ab.png.{}.0.1.tmp", std::process::id()));
        let other = store.join(".ab.png.1.0.1.tmp");
        let done = store.join("ab.png");
        for f in [&own, &other, &done] {
            fs::write(f, b"x").unwrap();
        }
        let registry = Registry {
            next: 2,
            files: vec![(1, temp.clone()), (2, dir.path().join("gone"))],
            store_dirs: vec![(3, store.clone())],
        };
        registry.clean();
        assert!(!temp.exists());
        assert!(!own.exists());
        assert!(other.exists(), "another process's file stays");
        assert!(done.exists(), "a finished media file stays");
    }
}
