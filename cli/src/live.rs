//! Rewriting a history in place while an agent may be writing it.
//!
//! Agents migrate the histories they keep appending to, so `--in-place`
//! assumes the file is live:
//!
//! 1. It takes an exclusive advisory lock (`flock`) on the file, waiting
//!    (and saying so) while another holds one, then checks that the path
//!    still names the file it locked: a writer that replaced the file
//!    meanwhile makes it open and lock again.
//! 2. It reads only the bytes the file held once locked, so a record being
//!    appended meanwhile is never read half.
//! 3. Before renaming the result over the file, it checks that the file
//!    still has the length and modification time it had when locked, and
//!    that the path still names it. If not, the result is thrown away and
//!    the run fails ([`Changed`]): the file is left as it is, with every
//!    record written meanwhile.
//! 4. After the rename it looks at the old file once more, and again a
//!    moment later: bytes appended to it between the check and the rename
//!    are appended to the new file as written ([`Replaced::carried`]).
//!
//! A writer that opens the file for each record (with `O_APPEND`) and
//! takes no lock is protected so. A writer that takes the lock is made to
//! wait, but must, as this does, check after locking that the path still
//! names the file it opened; one that keeps its descriptor open across the
//! rename writes into the old file, which nothing reads again: that is not
//! supported.

use std::fs::{self, File, Metadata};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::output::Temp;

/// How many times the path may turn out to name another file after
/// locking before the run gives up.
const TRIES: usize = 5;

/// How long after the rename the old file is looked at again, for a
/// writer that opened it just before.
const SETTLE: Duration = Duration::from_millis(50);

/// A history locked for rewriting in place.
#[derive(Debug)]
pub struct Live {
    path: PathBuf,
    file: File,
    meta: Metadata,
    seen: Seen,
}

/// What identifies the file's content as it was when locked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    len: u64,
    modified: Option<SystemTime>,
    id: (u64, u64),
}

impl Seen {
    fn of(meta: &Metadata) -> Seen {
        Seen {
            len: meta.len(),
            modified: meta.modified().ok(),
            id: file_id(meta),
        }
    }
}

#[cfg(unix)]
fn file_id(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_id(_: &Metadata) -> (u64, u64) {
    (0, 0)
}

/// The file changed while it was rewritten: the result was not put in
/// place.
#[derive(Debug)]
pub struct Changed {
    before: u64,
    now: Option<u64>,
}

impl std::fmt::Display for Changed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let now = match self.now {
            Some(now) if now > self.before => format!("{} bytes were appended", now - self.before),
            Some(now) if now == self.before => "it was rewritten".into(),
            Some(now) => format!("it was cut from {} to {now} bytes", self.before),
            None => "another file was put at its path".into(),
        };
        write!(
            f,
            "the file changed while it was rewritten ({now}); run again when nothing writes to it"
        )
    }
}

impl std::error::Error for Changed {}

/// What putting the result in place did besides.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Replaced {
    /// Bytes appended to the old file during the rename, appended to the
    /// new one as they were written (not rewritten).
    pub carried: u64,
}

impl Live {
    /// Open and lock the file `path` names (through symbolic links).
    ///
    /// # Errors
    /// When it cannot be opened or locked, or kept being replaced.
    pub fn open(path: &Path) -> io::Result<Live> {
        for _ in 0..TRIES {
            let canonical = path.canonicalize()?;
            let file = File::open(&canonical)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    eprintln!(
                        "tool-carrier: waiting for {}: another program holds its lock",
                        path.display()
                    );
                    file.lock()?;
                }
                Err(fs::TryLockError::Error(e)) => return Err(e),
            }
            let meta = file.metadata()?;
            let seen = Seen::of(&meta);
            if fs::metadata(&canonical).is_ok_and(|now| file_id(&now) == seen.id) {
                return Ok(Live {
                    path: canonical,
                    file,
                    meta,
                    seen,
                });
            }
        }
        Err(io::Error::other(format!(
            "the file was replaced {TRIES} times while it was being locked"
        )))
    }

    /// The file's bytes as they were when locked, and no more.
    ///
    /// # Errors
    /// When the descriptor cannot be duplicated.
    pub fn reader(&self) -> io::Result<Box<dyn BufRead>> {
        let mut file = self.file.try_clone()?;
        file.seek(SeekFrom::Start(0))?;
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            file.take(self.seen.len),
        )))
    }

    /// Write the result through `fill` and put it in place of the file,
    /// keeping its mode and, where permitted, its owner.
    ///
    /// # Errors
    /// [`Changed`] (as an [`io::Error`] of kind `Other`) when the file
    /// changed meanwhile, and the errors of writing, syncing and renaming;
    /// the file is then left as it is.
    pub fn replace<T>(
        self,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> io::Result<(T, Replaced)> {
        let (value, temp) = Temp::beside(&self.path)?.fill(fill)?;
        temp.prepare(Some(&self.meta))?;
        self.unchanged()?;
        temp.rename(&self.path)?;
        let mut replaced = Replaced::default();
        let mut copied = self.seen.len;
        for pause in [Duration::ZERO, SETTLE] {
            std::thread::sleep(pause);
            let n = self.carry(copied)?;
            copied += n;
            replaced.carried += n;
        }
        Ok((value, replaced))
    }

    /// Whether the file is as it was when locked.
    fn unchanged(&self) -> io::Result<()> {
        let now = Seen::of(&self.file.metadata()?);
        let at_path = fs::metadata(&self.path).map(|m| file_id(&m)).ok();
        if now == self.seen && at_path == Some(self.seen.id) {
            return Ok(());
        }
        Err(io::Error::other(Changed {
            before: self.seen.len,
            now: (at_path == Some(self.seen.id)).then_some(now.len),
        }))
    }

    /// Append to the new file what the old one holds past `from`.
    fn carry(&self, from: u64) -> io::Result<u64> {
        let len = self.file.metadata()?.len();
        if len <= from {
            return Ok(0);
        }
        let mut old = self.file.try_clone()?;
        old.seek(SeekFrom::Start(from))?;
        let mut new = File::options().append(true).open(&self.path)?;
        let n = io::copy(&mut old.take(len - from), &mut new)?;
        new.sync_all()?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("h.jsonl");
        fs::write(&path, text).unwrap();
        path
    }

    fn read_all(live: &Live) -> String {
        let mut s = String::new();
        live.reader().unwrap().read_to_string(&mut s).unwrap();
        s
    }

    #[test]
    fn an_unchanged_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = history(dir.path(), "a\n");
        let live = Live::open(&path).unwrap();
        assert_eq!(read_all(&live), "a\n");
        let ((), replaced) = live.replace(|w| w.write_all(b"A\n")).unwrap();
        assert_eq!(replaced, Replaced::default());
        assert_eq!(fs::read_to_string(&path).unwrap(), "A\n");
    }

    /// Bytes appended after the lock are not read, and the result is not
    /// put in place: the file keeps them.
    #[test]
    fn a_file_appended_to_meanwhile_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = history(dir.path(), "a\n");
        let live = Live::open(&path).unwrap();
        let mut agent = File::options().append(true).open(&path).unwrap();
        agent.write_all(b"b\n").unwrap();
        assert_eq!(read_all(&live), "a\n", "only what was there when locked");
        let err = live.replace(|w| w.write_all(b"A\n")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the file changed while it was rewritten (2 bytes were appended); run again when nothing writes to it"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nb\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_replaced_meanwhile_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = history(dir.path(), "a\n");
        let live = Live::open(&path).unwrap();
        fs::write(dir.path().join("other"), "other\n").unwrap();
        fs::rename(dir.path().join("other"), &path).unwrap();
        let err = live.replace(|w| w.write_all(b"A\n")).unwrap_err();
        assert!(
            err.to_string().contains("another file was put at its path"),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "other\n");
    }

    /// A second lock waits for the first: two rewrites do not interleave.
    #[test]
    fn the_lock_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let path = history(dir.path(), "a\n");
        let live = Live::open(&path).unwrap();
        let other = File::open(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(fs::TryLockError::WouldBlock)
        ));
        drop(live);
        other.try_lock().unwrap();
    }

    /// What an agent appends to the old file after the check is carried
    /// into the new one.
    #[test]
    fn bytes_appended_to_the_old_file_are_carried_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = history(dir.path(), "a\n");
        let live = Live::open(&path).unwrap();
        // An agent that opened the file before the rename.
        let mut agent = File::options().append(true).open(&path).unwrap();
        let ((), temp) = Temp::beside(&live.path)
            .unwrap()
            .fill(|w| w.write_all(b"A\n"))
            .unwrap();
        live.unchanged().unwrap();
        temp.rename(&live.path).unwrap();
        agent.write_all(b"b\n").unwrap();
        assert_eq!(live.carry(live.seen.len).unwrap(), 2);
        assert_eq!(fs::read_to_string(&path).unwrap(), "A\nb\n");
    }
}
