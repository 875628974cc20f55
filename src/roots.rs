//! Roots: the folders a history's local targets may come from.
//!
//! A target taken from a history is untrusted text. It may name a local
//! file only when, after every `..` and symbolic link is resolved, the file
//! lies inside one of the configured roots and is a regular file (never a
//! device such as `/dev/zero`, a FIFO or a folder). Relative targets resolve
//! against the first root.

use std::fmt;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a local target was refused.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RootError {
    /// No roots were configured, so no local target is allowed.
    #[error("no roots configured: local targets are not allowed")]
    NoRoots,
    /// The target is not a local path (`data:`, `http:` and the like).
    #[error("not a local path")]
    NotAPath,
    /// The path does not exist or cannot be resolved.
    #[error("cannot resolve: {0}")]
    Unresolvable(#[source] io::Error),
    /// The resolved path lies outside every root.
    #[error("outside every root")]
    OutsideRoots,
    /// The path exists but is not a regular file.
    #[error("not a regular file ({0})")]
    NotARegularFile(&'static str),
}

/// A folder [`Roots::new`] could not take as a root.
#[derive(Debug)]
pub struct RootsError {
    /// The folder as given.
    pub dir: PathBuf,
    /// Why.
    pub reason: RootsErrorReason,
}

impl fmt::Display for RootsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            RootsErrorReason::Unresolvable(e) => write!(f, "root {}: {e}", self.dir.display()),
            RootsErrorReason::NotAFolder => {
                write!(f, "root {} is not a folder", self.dir.display())
            }
        }
    }
}

impl std::error::Error for RootsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.reason {
            RootsErrorReason::Unresolvable(e) => Some(e),
            RootsErrorReason::NotAFolder => None,
        }
    }
}

/// Why a folder is no root.
#[derive(Debug)]
#[non_exhaustive]
pub enum RootsErrorReason {
    /// It does not exist or cannot be canonicalised.
    Unresolvable(io::Error),
    /// It is not a folder.
    NotAFolder,
}

/// The canonical folders local targets must stay inside.
#[derive(Clone, Default)]
pub struct Roots {
    dirs: Vec<PathBuf>,
}

impl fmt::Debug for Roots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.dirs).finish()
    }
}

/// A local target that passed the checks: where it is and what it is.
#[derive(Debug)]
pub struct ConfinedFile {
    /// The canonical path, inside a root.
    pub path: PathBuf,
    /// Its metadata (a regular file), read when it was checked.
    pub metadata: Metadata,
}

impl Roots {
    /// Canonicalise each folder.
    ///
    /// # Errors
    /// [`RootsError`] naming the first folder that does not resolve or is
    /// not a folder.
    ///
    /// ```
    /// use tool_carrier::roots::{Roots, RootsErrorReason};
    /// let err = Roots::new(["/no/such/folder"]).unwrap_err();
    /// assert!(matches!(err.reason, RootsErrorReason::Unresolvable(_)));
    /// assert!(err.to_string().starts_with("root /no/such/folder: "));
    /// ```
    pub fn new<I, P>(dirs: I) -> Result<Roots, RootsError>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut out = Vec::new();
        for dir in dirs {
            let dir = dir.as_ref();
            let fail = |reason| RootsError {
                dir: dir.to_owned(),
                reason,
            };
            let canonical = dir
                .canonicalize()
                .map_err(|e| fail(RootsErrorReason::Unresolvable(e)))?;
            if !canonical.is_dir() {
                return Err(fail(RootsErrorReason::NotAFolder));
            }
            out.push(canonical);
        }
        Ok(Roots { dirs: out })
    }

    /// The canonical root folders, first one first.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Whether no root is configured.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// Resolve `target` to a regular file inside a root.
    ///
    /// Nothing is opened: the file's type comes from its metadata, so a FIFO
    /// or a device is refused without blocking. (A caller that then opens
    /// the file should check the opened handle again; the file may change
    /// in between.)
    ///
    /// # Errors
    /// [`RootError`] saying which check failed.
    pub fn resolve(&self, target: &str) -> Result<ConfinedFile, RootError> {
        let first = self.dirs.first().ok_or(RootError::NoRoots)?;
        let raw = local_path(target).ok_or(RootError::NotAPath)?;
        let joined = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            first.join(raw)
        };
        let path = joined.canonicalize().map_err(RootError::Unresolvable)?;
        if !self.dirs.iter().any(|root| path.starts_with(root)) {
            return Err(RootError::OutsideRoots);
        }
        let metadata = std::fs::metadata(&path).map_err(RootError::Unresolvable)?;
        if !metadata.is_file() {
            return Err(RootError::NotARegularFile(file_type_name(&metadata)));
        }
        Ok(ConfinedFile { path, metadata })
    }
}

/// The path a target names, or `None` for a URI (`scheme:` with a scheme of
/// two or more letters; a one-letter scheme is a Windows drive).
fn local_path(target: &str) -> Option<&Path> {
    if target.is_empty() || target.contains('\0') {
        return None;
    }
    if let Some(colon) = target.find(':') {
        let scheme = &target[..colon];
        let looks_like_scheme = scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if looks_like_scheme {
            return None;
        }
    }
    Some(Path::new(target))
}

/// What a non-regular file is, in words: `a folder`, `a FIFO`, `a device`, …
pub(crate) fn file_type_name(metadata: &Metadata) -> &'static str {
    let t = metadata.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("inside")).unwrap();
        std::fs::write(dir.path().join("inside/a.png"), b"x").unwrap();
        std::fs::write(dir.path().join("secret"), b"s").unwrap();
        let roots = Roots::new([dir.path().join("inside")]).unwrap();
        (dir, roots)
    }

    #[test]
    fn relative_targets_resolve_against_the_first_root() {
        let (_d, roots) = setup();
        let f = roots.resolve("a.png").unwrap();
        assert!(f.path.ends_with("inside/a.png"));
    }

    #[test]
    fn absolute_targets_inside_a_root_pass() {
        let (d, roots) = setup();
        let abs = d.path().join("inside/a.png");
        assert!(roots.resolve(abs.to_str().unwrap()).is_ok());
    }

    #[test]
    fn dot_dot_cannot_escape() {
        let (_d, roots) = setup();
        assert!(matches!(
            roots.resolve("../secret"),
            Err(RootError::OutsideRoots)
        ));
    }

    #[test]
    fn absolute_paths_outside_are_refused() {
        let (d, roots) = setup();
        let out = d.path().join("secret");
        assert!(matches!(
            roots.resolve(out.to_str().unwrap()),
            Err(RootError::OutsideRoots)
        ));
        assert!(matches!(
            roots.resolve("/etc/passwd"),
            Err(RootError::OutsideRoots)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_cannot_escape() {
        let (d, roots) = setup();
        std::os::unix::fs::symlink(d.path().join("secret"), d.path().join("inside/link")).unwrap();
        assert!(matches!(
            roots.resolve("link"),
            Err(RootError::OutsideRoots)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_folders_are_refused_without_opening() {
        let (d, _) = setup();
        let roots = Roots::new([d.path(), Path::new("/dev")]).unwrap();
        let fifo = d.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        assert!(matches!(
            roots.resolve("fifo"),
            Err(RootError::NotARegularFile("a FIFO"))
        ));
        assert!(matches!(
            roots.resolve("/dev/zero"),
            Err(RootError::NotARegularFile("a device"))
        ));
        assert!(matches!(
            roots.resolve("inside"),
            Err(RootError::NotARegularFile("a folder"))
        ));
    }

    #[test]
    fn uris_and_missing_roots_are_refused() {
        let (_d, roots) = setup();
        for t in [
            "data:image/png;base64,AA",
            "http://x/a.png",
            "file:///etc/passwd",
            "",
        ] {
            assert!(matches!(roots.resolve(t), Err(RootError::NotAPath)), "{t}");
        }
        assert!(matches!(
            Roots::default().resolve("a.png"),
            Err(RootError::NoRoots)
        ));
        assert!(matches!(
            roots.resolve("missing.png"),
            Err(RootError::Unresolvable(_))
        ));
    }
}
