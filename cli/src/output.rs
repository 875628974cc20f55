//! Writing a result to a path.
//!
//! A regular file (or a path that names nothing yet) is replaced
//! atomically: a temporary file beside it, synced, renamed over it, then
//! the folder synced so the rename itself survives a crash. An interrupted
//! run leaves the old file whole, and SIGINT or SIGTERM leaves no
//! temporary file ([`interrupt`]). A new file gets the mode the umask
//! gives (0666 less the umask); a replaced one keeps its mode and, where
//! the process may, its owner and group.
//!
//! Anything else (a device, a FIFO, a socket, a terminal) is written into
//! directly: renaming a file over it would replace the device with a
//! regular file and leave a FIFO's reader with nothing.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use tempfile::NamedTempFile;

use crate::interrupt;

/// Write `target` through `fill`: atomically for a regular file or a new
/// path, directly into anything else. On any error (from `fill`, the sync
/// or the rename) a regular `target` is left as it was and the temporary
/// file removed.
pub fn replace_atomically<T>(
    target: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    match fs::metadata(target) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            let mut writer =
                BufWriter::with_capacity(1 << 16, File::options().write(true).open(target)?);
            let value = fill(&mut writer)?;
            writer.flush()?;
            Ok(value)
        }
        _ => {
            let temp = Temp::beside(target)?;
            let (value, temp) = temp.fill(fill)?;
            temp.put_in_place(target, fs::metadata(target).ok().as_ref())?;
            Ok(value)
        }
    }
}

/// Standard output as a file of its own (its descriptor duplicated), for
/// a large result written once: Rust's standard output is line-buffered,
/// and writing 90 MB through it searches all of them for a line feed.
/// Whatever was written to standard output before must have been flushed.
pub fn stdout_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdout().as_fd().try_clone_to_owned()?))
}

/// A temporary file beside the path it will replace, registered for
/// removal on a signal.
pub struct Temp {
    file: NamedTempFile,
    registration: interrupt::Registration,
}

impl Temp {
    /// A new temporary file in `target`'s folder, created with the mode
    /// the umask gives a new file.
    pub fn beside(target: &Path) -> io::Result<Temp> {
        let dir = folder_of(target);
        let mut builder = tempfile::Builder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let (file, registration) =
            interrupt::create_temp(|| builder.tempfile_in(dir), |t| t.path())?;
        Ok(Temp { file, registration })
    }

    /// Write the content through `fill`, buffered; the file is flushed.
    pub fn fill<T>(
        self,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<T>,
    ) -> io::Result<(T, Temp)> {
        let Temp { file, registration } = self;
        let mut writer = BufWriter::with_capacity(1 << 16, file);
        let value = fill(&mut writer)?;
        let file = writer
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        Ok((value, Temp { file, registration }))
    }

    /// Give the file `like`'s mode, owner and group (those the process may
    /// set), sync it, rename it over `target` and sync the folder.
    pub fn put_in_place(self, target: &Path, like: Option<&fs::Metadata>) -> io::Result<()> {
        self.prepare(like)?;
        self.rename(target)
    }

    /// Everything [`put_in_place`](Temp::put_in_place) does before the
    /// rename.
    pub fn prepare(&self, like: Option<&fs::Metadata>) -> io::Result<()> {
        let file = self.file.as_file();
        if let Some(meta) = like {
            file.set_permissions(meta.permissions())?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                // Only root may give a file away; a user keeps owning it.
                let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()))
                    .or_else(|_| std::os::unix::fs::fchown(file, None, Some(meta.gid())));
            }
        }
        file.sync_all()
    }

    /// Rename the file over `target` and sync the folder.
    pub fn rename(self, target: &Path) -> io::Result<()> {
        let Temp { file, registration } = self;
        interrupt::settle(registration, || file.persist(target)).map_err(|e| e.error)?;
        sync_folder(folder_of(target))
    }
}

fn folder_of(target: &Path) -> &Path {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Make a rename in `dir` durable. Where a folder cannot be opened or
/// synced (not every platform or file system allows it), the rename
/// stands as the file system keeps it.
fn sync_folder(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    if let Ok(folder) = File::open(dir) {
        match folder.sync_all() {
            // EINVAL: a file system that does not sync folders.
            Err(e) if e.kind() != io::ErrorKind::InvalidInput => return Err(e),
            _ => {}
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        fs::write(&path, "old").unwrap();
        replace_atomically(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn a_write_failing_midway_leaves_the_original_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        fs::write(&path, "original bytes").unwrap();
        let err = replace_atomically(&path, |w| {
            w.write_all(&[b'x'; 200_000])?;
            Err::<(), _>(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(fs::read_to_string(&path).unwrap(), "original bytes");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temporary file removed"
        );
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        replace_atomically(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    /// A FIFO is written into, not replaced: its reader gets the bytes
    /// and it is still a FIFO afterwards.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_into_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        replace_atomically(&fifo, |w| w.write_all(b"through the pipe")).unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

/// Where a command that rewrites a file writes its result: standard
/// output, `-o OUT`, over FILE (`--in-place`), or nowhere (`--check`).
#[derive(Debug, clap::Args)]
pub struct Destination {
    /// Write the result here (atomically) instead of standard output.
    #[arg(short, long, value_name = "OUT", conflicts_with_all = ["in_place", "check"])]
    pub output: Option<std::path::PathBuf>,
    /// Replace FILE with the result, atomically, locked against an agent
    /// writing it.
    #[arg(long, conflicts_with = "check")]
    pub in_place: bool,
    /// Write nothing; exit 1 when something would change.
    #[arg(long)]
    pub check: bool,
}
