//! Content-addressed media: where bytes that arrive inline (a `data:`
//! target, a base64 block of a provider's message, an MCP image) are put
//! so a history declares them by a short target instead of carrying them.
//!
//! Every file the crate writes is named the same way: the lowercase hex
//! SHA-256 of its bytes, a dot, and the extension of the type its bytes
//! sniff as (`png`, `jpg`, `gif`, `webp`, `bmp`, `pdf`; `bin` for anything
//! else). Identical bytes get one name, so they are stored once.
//!
//! ```
//! use tool_carrier::media::store::{file_name, InlineStore, MediaStore};
//!
//! let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
//! assert!(file_name(png).ends_with(".png"));
//! assert_eq!(file_name(png).len(), 64 + 4);
//! let mut inline = InlineStore;
//! assert_eq!(inline.put(b"%PDF-1.4\n")?.target, "data:application/pdf;base64,JVBERi0xLjQK");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::HashSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::data_uri::BASE64;
use super::sniff::{sniff, MediaType, Sniffed};
use super::Uploads;

/// The extension of the type `bytes` sniff as; `bin` for none.
pub fn extension(bytes: &[u8]) -> &'static str {
    match sniff(bytes) {
        Sniffed::Media(MediaType::Png) => "png",
        Sniffed::Media(MediaType::Jpeg) => "jpg",
        Sniffed::Media(MediaType::Gif) => "gif",
        Sniffed::Media(MediaType::Webp) => "webp",
        Sniffed::Media(MediaType::Bmp) => "bmp",
        Sniffed::Media(MediaType::Pdf) => "pdf",
        _ => "bin",
    }
}

/// The MIME type `bytes` sniff as; `application/octet-stream` for none.
pub fn mime(bytes: &[u8]) -> &'static str {
    match sniff(bytes) {
        Sniffed::Media(t) => t.as_str(),
        _ => "application/octet-stream",
    }
}

fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `HEX.EXT`: the name every file of these bytes gets.
pub fn file_name(bytes: &[u8]) -> String {
    format!("{}.{}", hex(&Uploads::hash(bytes)), extension(bytes))
}

/// Where some bytes went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The target to declare them by.
    pub target: String,
    /// Whether this call wrote them (else the same bytes were there).
    pub written: bool,
}

/// Why bytes could not be attached
/// ([`ToolResult::attach_bytes`](crate::history::ToolResult::attach_bytes)).
#[derive(Debug)]
#[non_exhaustive]
pub enum AttachError {
    /// The bytes are of no type the pipeline takes: what they sniff as.
    Type(String),
    /// The store failed.
    Store(io::Error),
    /// The file to attach could not be read.
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        error: io::Error,
    },
}

impl std::fmt::Display for AttachError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttachError::Type(what) => write!(
                f,
                "cannot attach {what}: an image (PNG, JPEG, GIF, WebP, BMP) or a PDF is needed"
            ),
            AttachError::Store(e) => write!(f, "storing the attachment: {e}"),
            AttachError::Read { path, error } => {
                write!(f, "reading the attachment {}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for AttachError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AttachError::Store(e) | AttachError::Read { error: e, .. } => Some(e),
            AttachError::Type(_) => None,
        }
    }
}

/// Somewhere to put media that arrived inline.
pub trait MediaStore {
    /// Store `bytes`, and say by which target to declare them.
    ///
    /// # Errors
    /// The store's I/O errors.
    fn put(&mut self, bytes: &[u8]) -> io::Result<Stored>;

    /// Store the bytes `b64` stands for, as [`MediaStore::put`] does. `b64`
    /// is canonical standard base64 (padded, no line breaks), as readers
    /// hand it over; the text is decoded here, unless the store declares
    /// payloads by that very text ([`InlineStore`]).
    ///
    /// # Errors
    /// The store's I/O errors, or `b64` that is not base64
    /// ([`io::ErrorKind::InvalidData`]).
    fn put_base64(&mut self, b64: &str) -> io::Result<Stored> {
        use base64::Engine;
        let bytes = BASE64
            .decode(b64)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        self.put(&bytes)
    }
}

/// Store the bytes a reader met as base64 text `b64` in another program's
/// file ([`decode_read`](super::data_uri::decode_read)'s forms): canonical
/// text is handed to [`MediaStore::put_base64`] as it is, any other form
/// decoded first. `Err` when it is not base64; `Ok(Err)` for the store's
/// errors.
pub(crate) fn put_read(
    store: &mut dyn MediaStore,
    b64: &str,
) -> Result<io::Result<Stored>, base64::DecodeError> {
    if super::data_uri::is_canonical(b64) {
        return Ok(store.put_base64(b64));
    }
    let bytes = super::data_uri::decode_read(b64)?;
    Ok(store.put(&bytes))
}

/// Files under one folder, declared by their name (a target relative to
/// the folder, so `convert --root DIR` resolves them). A file is written
/// to a temporary name in the folder and renamed into place, so a reader
/// never sees part of one, and conversions running at once may share the
/// folder.
#[derive(Debug)]
pub struct DirStore {
    dir: PathBuf,
    seen: HashSet<[u8; 32]>,
}

impl DirStore {
    /// A store in `dir`, which is created if it is missing.
    ///
    /// # Errors
    /// `dir` cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> io::Result<DirStore> {
        let dir = dir.into();
        fs::create_dir_all(&dir)?;
        Ok(DirStore {
            dir,
            seen: HashSet::new(),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl MediaStore for DirStore {
    fn put(&mut self, bytes: &[u8]) -> io::Result<Stored> {
        let d = Uploads::hash(bytes);
        let name = format!("{}.{}", hex(&d), extension(bytes));
        let path = self.dir.join(&name);
        let there = self.seen.contains(&d)
            || fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64);
        if !there {
            // Unique to this writer: the process, a count in it, and the
            // time (two processes sharing a folder may have one pid in
            // different containers).
            static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let tmp = self
                .dir
                .join(format!(".{name}.{}.{n}.{nanos}.tmp", std::process::id()));
            let write = || -> io::Result<()> {
                let mut f = fs::File::create(&tmp)?;
                f.write_all(bytes)?;
                f.sync_all()?;
                fs::rename(&tmp, &path)
            };
            if let Err(e) = write() {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        }
        self.seen.insert(d);
        Ok(Stored {
            target: name,
            written: !there,
        })
    }
}

/// No files: each payload is declared as a `data:` URL of its sniffed
/// type (what a history holds without a media folder).
#[derive(Clone, Copy, Debug, Default)]
pub struct InlineStore;

impl MediaStore for InlineStore {
    fn put(&mut self, bytes: &[u8]) -> io::Result<Stored> {
        use base64::Engine;
        Ok(Stored {
            target: format!("data:{};base64,{}", mime(bytes), BASE64.encode(bytes)),
            written: false,
        })
    }

    /// The text as it is, its type sniffed from its first bytes: the
    /// target [`InlineStore::put`] writes for the bytes it stands for,
    /// without decoding and encoding them again.
    fn put_base64(&mut self, b64: &str) -> io::Result<Stored> {
        let head = super::data_uri::head_of(b64)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        Ok(Stored {
            target: format!("data:{};base64,{b64}", mime(&head)),
            written: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use proptest::prelude::*;

    /// What `put_read` stores, the old way: decoded, then put.
    fn decoded_then_put(store: &mut dyn MediaStore, b64: &str) -> Option<String> {
        let bytes = super::super::data_uri::decode_read(b64).ok()?;
        Some(store.put(&bytes).unwrap().target)
    }

    proptest! {
        /// Base64 text kept as it is makes the target decoding and
        /// encoding it again made, whatever the text: canonical or not
        /// (wrapped, unpadded, URL-safe, damaged), for either store.
        #[test]
        fn text_kept_as_it_is_makes_the_same_target(
            bytes in prop::collection::vec(any::<u8>(), 0..3000),
            png in any::<bool>(),
            edit in prop::option::of((any::<prop::sample::Index>(), prop::sample::select(vec!['=', '-', '_', '\n', 'A', '!', 'B', 'Q']))),
            cut in 0usize..3,
        ) {
            let mut bytes = bytes;
            if png {
                bytes.splice(0..0, *b"\x89PNG\r\n\x1a\n");
            }
            let mut text = BASE64.encode(&bytes);
            if let Some((at, c)) = edit {
                if !text.is_empty() {
                    let at = at.index(text.len());
                    text.replace_range(at..at + 1, &c.to_string());
                }
            }
            text.truncate(text.len().saturating_sub(cut));
            let canonical = super::super::data_uri::is_canonical(&text);
            if canonical {
                prop_assert_eq!(BASE64.encode(BASE64.decode(&text).unwrap()), text.clone());
            }
            let dir = tempfile::tempdir().unwrap();
            let mut on_disk = DirStore::new(dir.path().join("m")).unwrap();
            for store in [&mut InlineStore as &mut dyn MediaStore, &mut on_disk] {
                let old = decoded_then_put(store, &text);
                let new = put_read(store, &text).ok().map(|s| s.unwrap().target);
                prop_assert_eq!(new, old);
            }
        }
    }

    #[test]
    fn canonical_is_padded_standard_base64_with_its_unused_bits_zero() {
        use super::super::data_uri::is_canonical;
        for good in ["QQ==", "QUI=", "QUJD", "+/+/"] {
            assert!(is_canonical(good), "{good}");
        }
        // Unused bits set, unpadded, URL-safe, wrapped, empty, too much padding.
        for bad in [
            "QR==",
            "QUJ=",
            "QQ",
            "-_-_",
            "QUJD\nQUJD",
            "",
            "Q===",
            "QU=D",
        ] {
            assert!(!is_canonical(bad), "{bad}");
        }
    }

    #[test]
    fn names_are_the_sha256_and_the_sniffed_extension() {
        // SHA-256("abc")
        assert_eq!(
            file_name(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.bin"
        );
        assert!(file_name(b"%PDF-1.7\n").ends_with(".pdf"));
        assert!(file_name(b"GIF89a\x01\x00\x01\x00").ends_with(".gif"));
    }

    #[test]
    fn the_same_bytes_are_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = DirStore::new(dir.path().join("media")).unwrap();
        let a = store.put(b"%PDF-1.4\nA").unwrap();
        let b = store.put(b"%PDF-1.4\nA").unwrap();
        assert!(a.written && !b.written);
        assert_eq!(a.target, b.target);
        assert_eq!(
            fs::read(store.dir().join(&a.target)).unwrap(),
            b"%PDF-1.4\nA"
        );
        // Another store on the same folder finds the file there.
        let mut again = DirStore::new(store.dir()).unwrap();
        assert!(!again.put(b"%PDF-1.4\nA").unwrap().written);
        let names: Vec<_> = fs::read_dir(store.dir()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }
}
