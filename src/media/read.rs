//! Bounded reads of regular files.
//!
//! A file is read only when it is a regular file no larger than the cap:
//! the type and size come from metadata before anything is opened, the file
//! is opened without blocking (a FIFO swapped in meanwhile cannot hang the
//! open), the opened handle is checked again, and at most `cap + 1` bytes are
//! read, so a file that grows cannot make the read unbounded.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::Path;

use crate::roots::{file_type_name, ConfinedFile, RootError};

use super::error::MediaError;

/// Read the regular file at `path` (as given: not confined to any root;
/// symbolic links are followed), refusing it when it is larger than `cap`
/// bytes.
///
/// This is how paths given on the command line are read. Targets taken from
/// a history go through a [`Resolver`](super::Resolver) instead, which
/// confines them to the policy's roots.
///
/// # Errors
/// [`MediaError::Root`] when it does not resolve
/// ([`RootError::Unresolvable`]) or is a folder, FIFO, device or socket
/// ([`RootError::NotARegularFile`], refused without opening it),
/// [`MediaError::FileTooLarge`] when its size
/// (or what it grew to while read) is over `cap`, [`MediaError::Io`] when
/// reading fails.
///
/// ```
/// use tool_carrier::media::{read_regular_file, MediaError};
/// use tool_carrier::roots::RootError;
/// # #[cfg(unix)] {
/// let err = read_regular_file("/dev/zero".as_ref(), 1024).unwrap_err();
/// assert!(matches!(err, MediaError::Root { source: RootError::NotARegularFile("a device"), .. }));
/// # }
/// ```
pub fn read_regular_file(path: &Path, cap: u64) -> Result<Vec<u8>, MediaError> {
    let target = || path.display().to_string();
    let metadata = std::fs::metadata(path).map_err(|e| MediaError::Root {
        target: target(),
        source: RootError::Unresolvable(e),
    })?;
    check(&target(), &metadata, cap)?;
    let file = open(path, false).map_err(|source| MediaError::Io {
        target: target(),
        source,
    })?;
    read_open(&target(), file, cap, None)
}

/// Read a file that [`Roots::resolve`](crate::roots::Roots::resolve)
/// accepted, making sure the file opened is the one that was checked.
pub(crate) fn read_confined(
    target: &str,
    confined: &ConfinedFile,
    cap: u64,
) -> Result<Vec<u8>, MediaError> {
    let file = open_confined(target, confined, cap)?;
    read_open(target, file, cap, Some(&confined.metadata))
}

/// At most the first `len` bytes of a file [`read_confined`] would read,
/// refused as it would refuse the whole (what it is, its size, a file
/// swapped in after the check).
pub(crate) fn read_confined_head(
    target: &str,
    confined: &ConfinedFile,
    cap: u64,
    len: usize,
) -> Result<Vec<u8>, MediaError> {
    let file = open_confined(target, confined, cap)?;
    let metadata = checked_again(target, &file, cap, Some(&confined.metadata))?;
    let expected = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
    let mut head = Vec::with_capacity(expected.min(len));
    file.take(len as u64)
        .read_to_end(&mut head)
        .map_err(|source| MediaError::Io {
            target: target.to_owned(),
            source,
        })?;
    Ok(head)
}

/// The checked file opened: refused, unopened, when its metadata says it
/// is no regular file or is over `cap`.
fn open_confined(target: &str, confined: &ConfinedFile, cap: u64) -> Result<File, MediaError> {
    check(target, &confined.metadata, cap)?;
    open(&confined.path, true).map_err(|source| MediaError::Io {
        target: target.to_owned(),
        source,
    })
}

/// Type and size from metadata, before anything is opened.
fn check(target: &str, metadata: &Metadata, cap: u64) -> Result<(), MediaError> {
    if !metadata.is_file() {
        return Err(MediaError::Root {
            target: target.to_owned(),
            source: RootError::NotARegularFile(file_type_name(metadata)),
        });
    }
    if metadata.len() > cap {
        return Err(MediaError::FileTooLarge {
            target: target.to_owned(),
            size: metadata.len(),
            cap,
        });
    }
    Ok(())
}

/// Open for reading without blocking; with `no_follow`, a symbolic link put
/// in place of the checked file is refused rather than followed.
fn open(path: &Path, no_follow: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK;
        if no_follow {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    #[cfg(not(unix))]
    let _ = no_follow;
    options.open(path)
}

/// Check the open handle again (type, size and, for a confined file, that
/// it is the same file), then read at most `cap + 1` bytes.
fn read_open(
    target: &str,
    mut file: File,
    cap: u64,
    checked: Option<&Metadata>,
) -> Result<Vec<u8>, MediaError> {
    let io = |source| MediaError::Io {
        target: target.to_owned(),
        source,
    };
    let metadata = checked_again(target, &file, cap, checked)?;
    let expected = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
    let mut bytes = Vec::with_capacity(expected.saturating_add(1));
    file.by_ref()
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(MediaError::FileTooLarge {
            target: target.to_owned(),
            size: bytes.len() as u64,
            cap,
        });
    }
    Ok(bytes)
}

/// The open handle's metadata, checked as the path's was and, for a
/// confined file, that it is the file checked.
fn checked_again(
    target: &str,
    file: &File,
    cap: u64,
    checked: Option<&Metadata>,
) -> Result<Metadata, MediaError> {
    let metadata = file.metadata().map_err(|source| MediaError::Io {
        target: target.to_owned(),
        source,
    })?;
    check(target, &metadata, cap)?;
    if let Some(checked) = checked {
        if !same_file(checked, &metadata) {
            return Err(MediaError::FileChanged {
                target: target.to_owned(),
            });
        }
    }
    Ok(metadata)
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    true
}
