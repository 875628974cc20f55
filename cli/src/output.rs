//! Writing a result atomically: a temporary file beside the target, synced,
//! then renamed over it. An interrupted run leaves the old file whole, and
//! SIGINT or SIGTERM leaves no temporary file ([`interrupt`]).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use tempfile::NamedTempFile;

use crate::interrupt;

/// Write `target` through `fill`, atomically. On any error (from `fill`, the
/// sync or the rename) the temporary file is removed and `target` is left
/// as it was.
pub fn replace_atomically<T>(
    target: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<T>,
) -> io::Result<T> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (temp, registration) = interrupt::create_temp(|| NamedTempFile::new_in(dir), |t| t.path())?;
    let mut writer = BufWriter::with_capacity(1 << 16, temp);
    let value = fill(&mut writer)?;
    let temp = writer
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    if let Ok(meta) = fs::metadata(target) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.as_file().sync_all()?;
    interrupt::settle(registration, || temp.persist(target)).map_err(|e| e.error)?;
    Ok(value)
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
}
