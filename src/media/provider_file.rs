//! Targets naming a file a provider already holds: what an agent uploaded
//! once (Anthropic's Files API, OpenAI's Files API, Gemini's Files API, an
//! S3 object Bedrock reads) and refers to by the provider's id from then on.
//!
//! ```text
//! provider file := HOLDER "-file:" [MEDIA-TYPE ";"] ID
//! HOLDER        := "anthropic" | "openai" | "gemini" | "bedrock"
//! MEDIA-TYPE    := type "/" subtype, lowercase letters, digits, ".", "+", "-"
//! ID            := anthropic: a Files API `file_id`   (file_011CNha8…)
//!                  openai:    a Files API file id     (file-6F2ksmvX…)
//!                  gemini:    a File's `uri`          (https://generativelanguage.googleapis.com/v1beta/files/abc)
//!                  bedrock:   [BUCKET-OWNER "@"] an S3 URI (s3://bucket/key; the owner 12 digits)
//! ```
//!
//! Gemini's `fileData` and Bedrock's image blocks need the media type
//! (`gemini-file:image/png;https://…`, `bedrock-file:image/png;s3://…`);
//! for a document it may be left out (`application/pdf`). The text before
//! the first `;` is a media type only when it is one (an ID holding a `:`
//! or no `/` never starts with one), so every ID reads back whole.
//!
//! No other target form starts so: a path would need a folder named like a
//! URI scheme, which the resolver refuses as one (`file:`, `data:`,
//! `http(s):` and content-hash names all differ), so these targets took no
//! meaning away.

use std::fmt;

/// Who holds a provider file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Holder {
    /// Anthropic's Files API (a `file_id`).
    Anthropic,
    /// OpenAI's Files API (a file id), for Chat and Responses alike.
    OpenAi,
    /// Gemini's Files API (a file's `uri`), for both generations.
    Gemini,
    /// An S3 object Bedrock reads (`s3Location`).
    Bedrock,
}

impl Holder {
    /// Every holder, in the order of [`Holder::prefix`]es documented.
    pub const ALL: [Holder; 4] = [
        Holder::Anthropic,
        Holder::OpenAi,
        Holder::Gemini,
        Holder::Bedrock,
    ];

    /// The target prefix: `anthropic-file:`, `openai-file:`,
    /// `gemini-file:`, `bedrock-file:`.
    pub fn prefix(self) -> &'static str {
        match self {
            Holder::Anthropic => "anthropic-file:",
            Holder::OpenAi => "openai-file:",
            Holder::Gemini => "gemini-file:",
            Holder::Bedrock => "bedrock-file:",
        }
    }

    /// The name said in notes: `Anthropic`, `OpenAI`, `Gemini`, `Bedrock`.
    pub fn display_name(self) -> &'static str {
        match self {
            Holder::Anthropic => "Anthropic",
            Holder::OpenAi => "OpenAI",
            Holder::Gemini => "Gemini",
            Holder::Bedrock => "Bedrock",
        }
    }
}

/// A file a provider holds, read from a target ([`ProviderFile::parse`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProviderFile {
    /// Who holds it.
    pub holder: Holder,
    /// The media type the target gave, if any.
    pub media_type: Option<String>,
    /// The provider's id: a file id, a file URI, an S3 URI.
    pub id: String,
    /// For Bedrock, the account that owns the bucket, if given.
    pub bucket_owner: Option<String>,
}

/// Why a target that names a provider file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProviderFileError {
    /// Nothing after the prefix (or after the media type).
    EmptyId,
    /// White space or a control character in the id.
    BadCharacter,
    /// A Gemini id that is no `https://` or `gs://` URI.
    NotAUri,
    /// A Bedrock id that is no `s3://bucket/…` URI.
    NotAnS3Uri,
    /// A Bedrock bucket owner that is not 12 digits.
    BadBucketOwner,
}

impl fmt::Display for ProviderFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderFileError::EmptyId => "the provider file id is empty",
            ProviderFileError::BadCharacter => {
                "the provider file id holds white space or a control character"
            }
            ProviderFileError::NotAUri => "a Gemini file is named by its https:// or gs:// URI",
            ProviderFileError::NotAnS3Uri => "a Bedrock file is named by an s3://bucket/key URI",
            ProviderFileError::BadBucketOwner => "a bucket owner is an account id of 12 digits",
        })
    }
}

impl std::error::Error for ProviderFileError {}

impl ProviderFile {
    /// The file `id` of `holder`, with no media type or bucket owner.
    ///
    /// ```
    /// use tool_carrier::media::{Holder, ProviderFile};
    /// assert_eq!(ProviderFile::new(Holder::OpenAi, "file-1").target(), "openai-file:file-1");
    /// ```
    pub fn new(holder: Holder, id: impl Into<String>) -> ProviderFile {
        ProviderFile {
            holder,
            media_type: None,
            id: id.into(),
            bucket_owner: None,
        }
    }

    /// Read `target`: `None` when it names no provider file (it starts
    /// with none of the prefixes, compared without regard to case);
    /// `Some(Err)` when it does but the rest is not a valid id.
    ///
    /// ```
    /// use tool_carrier::media::{Holder, ProviderFile};
    ///
    /// let f = ProviderFile::parse("anthropic-file:file_011CNha8iCJcU1wXNR6q4V8w").unwrap().unwrap();
    /// assert_eq!((f.holder, f.id.as_str()), (Holder::Anthropic, "file_011CNha8iCJcU1wXNR6q4V8w"));
    /// let g = ProviderFile::parse("gemini-file:image/png;https://generativelanguage.googleapis.com/v1beta/files/abc").unwrap().unwrap();
    /// assert_eq!(g.media_type.as_deref(), Some("image/png"));
    /// let b = ProviderFile::parse("bedrock-file:123456789012@s3://shots/a.png").unwrap().unwrap();
    /// assert_eq!(b.bucket_owner.as_deref(), Some("123456789012"));
    /// assert!(ProviderFile::parse("shots/a.png").is_none());
    /// assert!(ProviderFile::parse("openai-file:").unwrap().is_err());
    /// ```
    pub fn parse(target: &str) -> Option<Result<ProviderFile, ProviderFileError>> {
        let holder = Holder::ALL.into_iter().find(|h| {
            target
                .get(..h.prefix().len())
                .is_some_and(|p| p.eq_ignore_ascii_case(h.prefix()))
        })?;
        Some(Self::read(holder, &target[holder.prefix().len()..]))
    }

    fn read(holder: Holder, rest: &str) -> Result<ProviderFile, ProviderFileError> {
        let (media_type, id) = match rest.split_once(';') {
            Some((head, id)) if is_media_type(head) => (Some(head.to_ascii_lowercase()), id),
            _ => (None, rest),
        };
        if id.is_empty() {
            return Err(ProviderFileError::EmptyId);
        }
        if id.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ProviderFileError::BadCharacter);
        }
        let mut file = ProviderFile {
            holder,
            media_type,
            id: id.to_owned(),
            bucket_owner: None,
        };
        match holder {
            Holder::Anthropic | Holder::OpenAi => {}
            Holder::Gemini => {
                let lower = id.to_ascii_lowercase();
                if !(lower.starts_with("https://") || lower.starts_with("gs://")) {
                    return Err(ProviderFileError::NotAUri);
                }
            }
            Holder::Bedrock => {
                let (owner, uri) = match id.split_once('@') {
                    Some((owner, uri)) if !owner.contains('/') => (Some(owner), uri),
                    _ => (None, id),
                };
                if let Some(owner) = owner {
                    if owner.len() != 12 || !owner.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(ProviderFileError::BadBucketOwner);
                    }
                }
                if !is_s3_uri(uri) {
                    return Err(ProviderFileError::NotAnS3Uri);
                }
                file.id = uri.to_owned();
                file.bucket_owner = owner.map(str::to_owned);
            }
        }
        Ok(file)
    }

    /// The target naming this file, as [`ProviderFile::parse`] reads it.
    ///
    /// ```
    /// use tool_carrier::media::{Holder, ProviderFile};
    ///
    /// let t = "bedrock-file:application/pdf;123456789012@s3://docs/q3.pdf";
    /// assert_eq!(ProviderFile::parse(t).unwrap().unwrap().target(), t);
    /// ```
    pub fn target(&self) -> String {
        let mut out = String::from(self.holder.prefix());
        if let Some(t) = &self.media_type {
            out.push_str(t);
            out.push(';');
        }
        if let Some(owner) = &self.bucket_owner {
            out.push_str(owner);
            out.push('@');
        }
        out.push_str(&self.id);
        out
    }

    /// The media type, or `application/pdf` for a document that gave
    /// none; `None` for an image that gave none.
    pub fn media_type_for(&self, document: bool) -> Option<&str> {
        match &self.media_type {
            Some(t) => Some(t),
            None if document => Some("application/pdf"),
            None => None,
        }
    }
}

/// `type/subtype` of lowercase letters, digits, `.`, `+`, `-` (either
/// case accepted).
fn is_media_type(s: &str) -> bool {
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
    };
    s.split_once('/')
        .is_some_and(|(t, sub)| token(t) && token(sub))
}

/// `s3://BUCKET` or `s3://BUCKET/KEY`, at most 1024 characters, the bucket as Converse's
/// `S3Location.uri` pattern has it: `s3://[a-z0-9][\.\-a-z0-9]{1,61}[a-z0-9](/.*)?`
/// (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_S3Location.html>,
/// read 2026-12-02).
fn is_s3_uri(uri: &str) -> bool {
    let Some(rest) = uri.strip_prefix("s3://").filter(|_| uri.len() <= 1024) else {
        return false;
    };
    let bucket = rest.split('/').next().unwrap_or("");
    let b = bucket.as_bytes();
    (3..=63).contains(&b.len())
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'.' || c == b'-')
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(t: &str) -> ProviderFile {
        ProviderFile::parse(t).unwrap().unwrap()
    }

    #[test]
    fn every_holder_reads_back_its_own_target() {
        for t in [
            "anthropic-file:file_011CNha8iCJcU1wXNR6q4V8w",
            "openai-file:file-6F2ksmvXxt4VdoqmHRw6kL",
            "openai-file:image/png;file-6F2ksmvXxt4VdoqmHRw6kL",
            "gemini-file:image/png;https://generativelanguage.googleapis.com/v1beta/files/abc",
            "gemini-file:application/pdf;gs://bucket/a;b.pdf",
            "bedrock-file:image/jpeg;s3://my-bucket/shots/a.jpg",
            "bedrock-file:s3://my-bucket/a;b@c.pdf",
            "bedrock-file:application/pdf;123456789012@s3://docs/q3.pdf",
        ] {
            assert_eq!(ok(t).target(), t);
        }
    }

    #[test]
    fn an_id_that_looks_like_a_media_type_stays_whole() {
        // The text before `;` is a media type only when it is one.
        let f = ok("gemini-file:https://x/files/a;b");
        assert_eq!((f.media_type, f.id.as_str()), (None, "https://x/files/a;b"));
        let f = ok("bedrock-file:s3://bucket/image/png;x");
        assert_eq!(f.id, "s3://bucket/image/png;x");
        assert_eq!(f.media_type_for(true), Some("application/pdf"));
        assert_eq!(f.media_type_for(false), None);
    }

    #[test]
    fn other_targets_name_no_provider_file() {
        for t in [
            "shots/a.png",
            "file:///a.png",
            "data:image/png;base64,AA",
            "https://example.com/a.png",
            "anthropic-files:x",
            "anthropic:file_1",
        ] {
            assert!(ProviderFile::parse(t).is_none(), "{t}");
        }
        assert_eq!(ok("ANTHROPIC-FILE:f").holder, Holder::Anthropic);
    }

    #[test]
    fn bad_ids_say_why() {
        let err = |t: &str| ProviderFile::parse(t).unwrap().unwrap_err();
        assert_eq!(err("openai-file:"), ProviderFileError::EmptyId);
        assert_eq!(err("openai-file:image/png;"), ProviderFileError::EmptyId);
        assert_eq!(
            err("anthropic-file:file 1"),
            ProviderFileError::BadCharacter
        );
        assert_eq!(err("gemini-file:files/abc"), ProviderFileError::NotAUri);
        assert_eq!(
            err("bedrock-file:https://x/a"),
            ProviderFileError::NotAnS3Uri
        );
        assert_eq!(
            err("bedrock-file:s3://Bad_Bucket/a"),
            ProviderFileError::NotAnS3Uri
        );
        assert_eq!(err("bedrock-file:s3://ab/a"), ProviderFileError::NotAnS3Uri);
        assert_eq!(
            err("bedrock-file:1234@s3://bucket/a"),
            ProviderFileError::BadBucketOwner
        );
    }

    proptest::proptest! {
        /// Any text: no panic; a provider file read from it writes back a
        /// target that reads as the same file.
        #[test]
        fn what_parses_reads_back_the_same(
            holder in proptest::sample::select(&Holder::ALL[..]),
            rest in "(image/png;|application/pdf;)?([0-9]{12}@)?(s3://[a-z0-9.-]{0,8}/|https://|gs://)?[ -~]{0,24}",
        ) {
            let target = format!("{}{rest}", holder.prefix());
            if let Some(Ok(file)) = ProviderFile::parse(&target) {
                let again = ProviderFile::parse(&file.target()).unwrap().unwrap();
                proptest::prop_assert_eq!(again, file);
            }
        }

        #[test]
        fn any_text_parses_without_panic(text in "\\PC{0,40}") {
            let _ = ProviderFile::parse(&text);
        }
    }
}
