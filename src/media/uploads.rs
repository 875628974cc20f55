//! The uploads map: which local media an agent already uploaded, and under
//! which provider ids, so a request refers to the provider's copy instead
//! of carrying the bytes.
//!
//! A JSON object: each key the lowercase hex SHA-256 of a file's bytes (the
//! content hash the crate's media stores name files by), each value a list
//! of [provider file targets](super::ProviderFile), at most one per holder:
//!
//! ```json
//! {"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08": [
//!    "anthropic-file:file_011CNha8iCJcU1wXNR6q4V8w",
//!    "openai-file:file-6F2ksmvXxt4VdoqmHRw6kL",
//!    "gemini-file:image/png;https://generativelanguage.googleapis.com/v1beta/files/abc",
//!    "bedrock-file:image/png;s3://shots/a.png"]}
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use sha2::{Digest, Sha256};

use super::provider_file::{Holder, ProviderFile, ProviderFileError};

/// Content hash → the provider files holding those bytes.
///
/// ```
/// use tool_carrier::media::{Holder, Uploads};
///
/// let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"; // SHA-256 of "test"
/// let uploads = Uploads::from_json(&format!(r#"{{"{hash}": ["anthropic-file:file_1"]}}"#))?;
/// assert_eq!(uploads.find(b"test", Holder::Anthropic).unwrap().id, "file_1");
/// assert!(uploads.find(b"test", Holder::OpenAi).is_none());
/// assert!(uploads.find(b"other", Holder::Anthropic).is_none());
/// # Ok::<(), tool_carrier::media::UploadsError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uploads {
    by_hash: HashMap<[u8; 32], Vec<ProviderFile>>,
}

/// Why an uploads map cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UploadsError {
    /// Not JSON, or not an object of string lists: serde_json's message.
    Shape(String),
    /// A key that is not 64 hex digits.
    BadHash {
        /// The key.
        key: String,
    },
    /// A value that is no provider file target.
    NotAProviderFile {
        /// The key it is listed under.
        key: String,
        /// The value.
        target: String,
    },
    /// A provider file target that is not valid.
    BadProviderFile {
        /// The key it is listed under.
        key: String,
        /// The value.
        target: String,
        /// Why.
        reason: ProviderFileError,
    },
    /// Two files of one holder for the same bytes.
    TwoForOneHolder {
        /// The key.
        key: String,
        /// `Anthropic`, `OpenAI`, …
        holder: &'static str,
    },
}

impl fmt::Display for UploadsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UploadsError::Shape(e) => write!(
                f,
                "an uploads map is a JSON object of content hash to a list of provider file targets: {e}"
            ),
            UploadsError::BadHash { key } => write!(
                f,
                "{key:?}: a key is the SHA-256 of the file's bytes, 64 hex digits"
            ),
            UploadsError::NotAProviderFile { key, target } => write!(
                f,
                "{key}: {target:?} is no provider file (anthropic-file:, openai-file:, gemini-file:, bedrock-file:)"
            ),
            UploadsError::BadProviderFile {
                key,
                target,
                reason,
            } => write!(f, "{key}: {target:?}: {reason}"),
            UploadsError::TwoForOneHolder { key, holder } => {
                write!(f, "{key}: two {holder} files for the same bytes")
            }
        }
    }
}

impl std::error::Error for UploadsError {}

impl Uploads {
    /// An empty map.
    pub fn new() -> Uploads {
        Uploads::default()
    }

    /// Read the JSON form (see the module).
    ///
    /// # Errors
    /// An [`UploadsError`] naming the key and value at fault.
    pub fn from_json(text: &str) -> Result<Uploads, UploadsError> {
        // In key order, so the first fault named is the same every run.
        let raw: BTreeMap<String, Vec<String>> =
            serde_json::from_str(text).map_err(|e| UploadsError::Shape(e.to_string()))?;
        let mut uploads = Uploads::new();
        for (key, targets) in &raw {
            let hash = parse_hash(key).ok_or_else(|| UploadsError::BadHash { key: key.clone() })?;
            for target in targets {
                let file = match ProviderFile::parse(target) {
                    None => {
                        return Err(UploadsError::NotAProviderFile {
                            key: key.clone(),
                            target: target.clone(),
                        })
                    }
                    Some(Err(reason)) => {
                        return Err(UploadsError::BadProviderFile {
                            key: key.clone(),
                            target: target.clone(),
                            reason,
                        })
                    }
                    Some(Ok(file)) => file,
                };
                uploads
                    .insert(hash, file)
                    .map_err(|holder| UploadsError::TwoForOneHolder {
                        key: key.clone(),
                        holder: holder.display_name(),
                    })?;
            }
        }
        Ok(uploads)
    }

    /// Record that the bytes of SHA-256 `hash` are held as `file`.
    ///
    /// # Errors
    /// The holder, when the map already names a file of the same holder
    /// for these bytes.
    pub fn insert(&mut self, hash: [u8; 32], file: ProviderFile) -> Result<(), Holder> {
        let files = self.by_hash.entry(hash).or_default();
        if files.iter().any(|f| f.holder == file.holder) {
            return Err(file.holder);
        }
        files.push(file);
        Ok(())
    }

    /// The same map, with `file` recorded for `bytes` (hashed here).
    ///
    /// # Errors
    /// As [`Uploads::insert`].
    pub fn with(mut self, bytes: &[u8], file: ProviderFile) -> Result<Uploads, Holder> {
        self.insert(Uploads::hash(bytes), file)?;
        Ok(self)
    }

    /// The file of `holder` holding `bytes`, if the map names one.
    pub fn find(&self, bytes: &[u8], holder: Holder) -> Option<&ProviderFile> {
        if self.by_hash.is_empty() {
            return None;
        }
        self.find_hash(&Uploads::hash(bytes), holder)
    }

    /// The file of `holder` holding the bytes of SHA-256 `hash`, if the
    /// map names one.
    pub fn find_hash(&self, hash: &[u8; 32], holder: Holder) -> Option<&ProviderFile> {
        self.by_hash.get(hash)?.iter().find(|f| f.holder == holder)
    }

    /// The key the map knows `bytes` by: their SHA-256.
    pub fn hash(bytes: &[u8]) -> [u8; 32] {
        Sha256::digest(bytes).into()
    }

    /// Whether the map names any file of `holder`.
    pub fn has(&self, holder: Holder) -> bool {
        self.by_hash
            .values()
            .any(|files| files.iter().any(|f| f.holder == holder))
    }

    /// How many contents the map names.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether the map names none.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

/// 64 hex digits as 32 bytes; each character a digit on its own (a
/// pair read as a number would let `+f` through).
fn parse_hash(key: &str) -> Option<[u8; 32]> {
    let key = key.as_bytes();
    if key.len() != 64 {
        return None;
    }
    let nibble = |c: u8| {
        char::from(c)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(key.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn a_map_names_files_per_holder() {
        let u = Uploads::from_json(&format!(
            r#"{{"{TEST}": ["anthropic-file:file_1", "bedrock-file:image/png;s3://shots/a.png"]}}"#
        ))
        .unwrap();
        assert_eq!(u.len(), 1);
        assert!(u.has(Holder::Bedrock) && !u.has(Holder::Gemini));
        let b = u.find(b"test", Holder::Bedrock).unwrap();
        assert_eq!(b.id, "s3://shots/a.png");
        // Upper-case hex reads the same.
        let upper = Uploads::from_json(&format!(
            r#"{{"{}": ["openai-file:file-1"]}}"#,
            TEST.to_uppercase()
        ))
        .unwrap();
        assert!(upper.find(b"test", Holder::OpenAi).is_some());
    }

    #[test]
    fn a_bad_map_says_where() {
        let err = |t: &str| Uploads::from_json(t).unwrap_err().to_string();
        assert!(err("[1]").starts_with("an uploads map is a JSON object"));
        assert!(err(r#"{"a": "anthropic-file:x"}"#).starts_with("an uploads map is"));
        assert_eq!(
            err(r#"{"abc": []}"#),
            r#""abc": a key is the SHA-256 of the file's bytes, 64 hex digits"#
        );
        // 64 characters, but signs are not digits.
        let signed = "+0".repeat(32);
        assert_eq!(
            err(&format!(r#"{{"{signed}": []}}"#)),
            format!(r#""{signed}": a key is the SHA-256 of the file's bytes, 64 hex digits"#)
        );
        // Upper-case digits are digits.
        let upper = TEST.to_ascii_uppercase();
        assert_eq!(
            Uploads::from_json(&format!(r#"{{"{upper}": ["openai-file:file-1"]}}"#))
                .unwrap()
                .find(b"test", Holder::OpenAi)
                .map(ProviderFile::target),
            Some("openai-file:file-1".to_owned())
        );
        assert_eq!(
            err(&format!(r#"{{"{TEST}": ["shots/a.png"]}}"#)),
            format!(
                r#"{TEST}: "shots/a.png" is no provider file (anthropic-file:, openai-file:, gemini-file:, bedrock-file:)"#
            )
        );
        assert_eq!(
            err(&format!(r#"{{"{TEST}": ["gemini-file:files/a"]}}"#)),
            format!(
                r#"{TEST}: "gemini-file:files/a": a Gemini file is named by its https:// or gs:// URI"#
            )
        );
        assert_eq!(
            err(&format!(
                r#"{{"{TEST}": ["openai-file:file-1", "openai-file:file-2"]}}"#
            )),
            format!("{TEST}: two OpenAI files for the same bytes")
        );
    }
}
