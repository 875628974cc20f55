//! Resolving a declared target to bytes or a URL reference.

use std::path::PathBuf;

use crate::roots::RootError;

use super::budget::Budget;
use super::cache::{CacheKey, PreparedCache};
use super::data_uri::{decode_data_uri, is_data_uri};
use super::error::MediaError;
use super::policy::Policy;
use super::prepare::{prepare, prepare_in, Prepared};
use super::read::{read_confined, read_confined_head};
use super::sniff::{sniff, MediaType, Sniffed};
use super::workspace::Workspace;

/// Turns a declared attachment target into a [`Source`].
///
/// The built-in [`DefaultResolver`] covers `data:` URIs, confined local
/// paths and `http(s)` URLs; a caller with its own storage (an object
/// store, a content-addressed cache…) implements this trait instead. A
/// closure `Fn(&str) -> Result<Source, MediaError>` is a resolver too.
///
/// ```
/// use tool_carrier::media::{Loaded, MediaError, Origin, Resolver, Source};
///
/// let cache = |target: &str| -> Result<Source, MediaError> {
///     match target {
///         "blob:1" => Ok(Source::Bytes(Loaded::new(b"%PDF-1.7".to_vec(), Origin::Other))),
///         _ => Err(MediaError::Refused { target: target.into(), reason: "not cached".into() }),
///     }
/// };
/// assert!(cache.resolve("blob:1").is_ok());
/// assert_eq!(cache.resolve("blob:2").unwrap_err().to_string(), "blob:2: not cached");
/// ```
pub trait Resolver {
    /// Resolve `target`, exactly as declared.
    ///
    /// # Errors
    /// A [`MediaError`] saying why the target cannot be used; the caller
    /// turns it into a note beside the tool result.
    fn resolve(&self, target: &str) -> Result<Source, MediaError>;

    /// What identifies the bytes `target` resolves to now without reading
    /// them, if anything does: a caller that holds what it prepared from
    /// the same stamp may use it again instead of resolving. `None` (the
    /// default) means the bytes must be resolved every time.
    ///
    /// A stamp must change whenever the bytes may have: the built-in
    /// resolver's is a local file's canonical path, device, inode, length
    /// and modification and change times.
    fn stamp(&self, target: &str) -> Option<Stamp> {
        let _ = target;
        None
    }

    /// At most the first `len` bytes of what `target` resolves to, where
    /// they can be read without the rest: the media step reads an image's
    /// size from them, so that one a token budget leaves out
    /// ([`Options::with_image_tokens`](crate::provider::Options::with_image_tokens))
    /// is never loaded. They must be the start of what
    /// [`Resolver::resolve`] gives for `target`, and `None` wherever
    /// resolving would fail. `None` (the default) means the resolver
    /// cannot tell: the image is loaded, and left out once its size is
    /// known. The request is the same either way.
    fn head(&self, target: &str, len: usize) -> Option<Vec<u8>> {
        let _ = (target, len);
        None
    }
}

/// What identifies a target's bytes without reading them
/// ([`Resolver::stamp`]): equal stamps promise equal bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stamp(Vec<u8>);

impl Stamp {
    /// A stamp from bytes that identify the source (a resolver's own
    /// encoding: a path and its metadata, a version id, …).
    pub fn new(identity: Vec<u8>) -> Stamp {
        Stamp(identity)
    }

    /// The identifying bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The stamp of a local file: its path and what changes when it is
    /// written (on Unix: device, inode, length, modification and change
    /// times; elsewhere length and modification time).
    fn of_file(path: &std::path::Path, metadata: &std::fs::Metadata) -> Stamp {
        let mut out = path.as_os_str().as_encoded_bytes().to_vec();
        out.push(0);
        let mut word = |n: i64| out.extend_from_slice(&n.to_le_bytes());
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            word(metadata.dev() as i64);
            word(metadata.ino() as i64);
            word(metadata.size() as i64);
            word(metadata.mtime());
            word(metadata.mtime_nsec());
            word(metadata.ctime());
            word(metadata.ctime_nsec());
        }
        #[cfg(not(unix))]
        {
            word(metadata.len() as i64);
            let modified = metadata
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            word(modified.map_or(-1, |d| d.as_nanos() as i64));
        }
        Stamp(out)
    }
}

impl<F> Resolver for F
where
    F: Fn(&str) -> Result<Source, MediaError>,
{
    fn resolve(&self, target: &str) -> Result<Source, MediaError> {
        self(target)
    }
}

/// What a target resolved to.
#[derive(Debug)]
pub enum Source {
    /// The bytes themselves.
    Bytes(Loaded),
    /// An `http(s)` URL, never fetched by the crate: a provider that takes
    /// the kind's URLs gets it as one; for the others it is fetched by the
    /// caller's [`UrlFetcher`](super::UrlFetcher) where one is given, else
    /// a note says why it was not sent.
    Url(String),
}

/// Bytes a resolver loaded, with where they came from.
#[derive(Debug)]
#[non_exhaustive]
pub struct Loaded {
    /// The payload.
    pub bytes: Vec<u8>,
    /// Where it came from.
    pub origin: Origin,
    /// The media type the target declared (a `data:` URI's), checked
    /// against the bytes by [`Loaded::prepare`].
    pub declared: Option<MediaType>,
}

/// Where loaded bytes came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// A `data:` URI.
    DataUri,
    /// A local file, by its canonical path inside a root.
    File(PathBuf),
    /// An `http(s)` URL, fetched by the caller's
    /// [`UrlFetcher`](super::UrlFetcher).
    Url(String),
    /// A resolver of the caller's.
    Other,
}

impl Loaded {
    /// Bytes with no declared type.
    pub fn new(bytes: Vec<u8>, origin: Origin) -> Loaded {
        Loaded {
            bytes,
            origin,
            declared: None,
        }
    }

    /// The same bytes, declared to be `media_type`.
    pub fn with_declared(self, media_type: MediaType) -> Loaded {
        Loaded {
            declared: Some(media_type),
            ..self
        }
    }

    /// Check the declared type against the bytes, then [`prepare`] them.
    ///
    /// # Errors
    /// [`MediaError::TypeMismatch`] when the bytes are not what was
    /// declared; otherwise as [`prepare`].
    pub fn prepare(self, policy: &Policy, budget: Budget) -> Result<Prepared, MediaError> {
        check_declared(self.declared, &self.bytes)?;
        prepare(self.bytes, policy, budget)
    }

    /// Check the declared type against the bytes, then [`prepare_for`](super::prepare_for)
    /// them: for a destination that takes only the image types in
    /// `accepts`.
    ///
    /// # Errors
    /// As [`Loaded::prepare`].
    pub fn prepare_for(
        self,
        policy: &Policy,
        budget: Budget,
        accepts: &[MediaType],
    ) -> Result<Prepared, MediaError> {
        self.prepare_in(policy, budget, accepts, None, &mut Workspace::default())
    }
}

impl Loaded {
    /// [`Loaded::prepare_for`], through `cache`: the payload kept for the
    /// same bytes and parameters when there is one (byte for byte what
    /// preparing them again gives), else prepared now and kept.
    ///
    /// # Errors
    /// As [`Loaded::prepare`]; failures are not cached.
    pub fn prepare_cached(
        self,
        policy: &Policy,
        budget: Budget,
        accepts: &[MediaType],
        cache: &dyn PreparedCache,
    ) -> Result<Prepared, MediaError> {
        let work = &mut Workspace::default();
        self.prepare_in(policy, budget, accepts, Some(cache), work)
    }

    /// [`Loaded::prepare_cached`] with `cache`, else
    /// [`Loaded::prepare_for`]; the pixels worked on in `work`'s buffers.
    pub(crate) fn prepare_in(
        self,
        policy: &Policy,
        budget: Budget,
        accepts: &[MediaType],
        cache: Option<&dyn PreparedCache>,
        work: &mut Workspace,
    ) -> Result<Prepared, MediaError> {
        check_declared(self.declared, &self.bytes)?;
        let Some(cache) = cache else {
            return prepare_in(self.bytes, policy, budget, accepts, work);
        };
        let key = CacheKey::new(&self.bytes, self.declared, policy, budget, accepts);
        if let Some(hit) = cache.get(&key) {
            return Ok(hit);
        }
        let prepared = prepare_in(self.bytes, policy, budget, accepts, work)?;
        cache.put(&key, &prepared);
        Ok(prepared)
    }
}

fn check_declared(declared: Option<MediaType>, bytes: &[u8]) -> Result<(), MediaError> {
    match (declared, sniff(bytes)) {
        (None, _) => Ok(()),
        (Some(d), Sniffed::Media(found)) if d == found => Ok(()),
        (Some(declared), found) => Err(MediaError::TypeMismatch {
            declared,
            found: found.to_string(),
        }),
    }
}

/// The built-in resolver.
///
/// * `data:<type>;base64,<payload>` — strict (see [`MediaError::BadDataUri`]
///   and its neighbours), the payload length checked against
///   [`Policy::max_data_uri_len`] before decoding, and the declared type
///   checked against the bytes.
/// * `http://…`, `https://…` — returned as [`Source::Url`], never fetched.
/// * `file:///…`, `file://localhost/…` — the local path it names,
///   percent-decoded, confined like any path (below); another host refused
///   ([`MediaError::BadFileUri`]).
/// * any other `scheme:` — refused.
/// * anything else is a local path: it must resolve (every `..` and symbolic
///   link followed) to a regular file inside one of [`Policy::roots`]
///   (relative paths against the first root), no larger than
///   [`Policy::max_file_bytes`]. See [`Roots`](crate::roots::Roots).
///
/// ```
/// use tool_carrier::media::{DefaultResolver, MediaError, Policy, Resolver, Source};
///
/// let resolver = DefaultResolver::new(Policy::default());
/// assert!(matches!(resolver.resolve("https://example.com/a.png"), Ok(Source::Url(_))));
/// assert!(matches!(resolver.resolve("/etc/passwd"), Err(MediaError::Root { source: tool_carrier::roots::RootError::NoRoots, .. })));
/// // A `file:` URI is a local path, confined like one.
/// assert!(matches!(resolver.resolve("file:///etc/passwd"), Err(MediaError::Root { source: tool_carrier::roots::RootError::NoRoots, .. })));
/// assert!(matches!(resolver.resolve("file://server/a.png"), Err(MediaError::BadFileUri { .. })));
/// assert!(matches!(resolver.resolve("ftp://example.com/a.png"), Err(MediaError::UnsupportedScheme { .. })));
/// ```
#[derive(Clone, Debug, Default)]
pub struct DefaultResolver {
    policy: Policy,
}

impl DefaultResolver {
    /// A resolver applying `policy`.
    pub fn new(policy: Policy) -> DefaultResolver {
        DefaultResolver { policy }
    }

    /// The policy it applies.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}

impl Resolver for DefaultResolver {
    fn resolve(&self, target: &str) -> Result<Source, MediaError> {
        if target.is_empty() {
            return Err(MediaError::EmptyTarget);
        }
        if is_data_uri(target) {
            let (declared, bytes) = decode_data_uri(target, self.policy.max_data_uri_len())?;
            check_declared(Some(declared), &bytes)?;
            return Ok(Source::Bytes(Loaded {
                bytes,
                origin: Origin::DataUri,
                declared: Some(declared),
            }));
        }
        let path = match local_path(target)? {
            Local::Path(path) => path,
            Local::Url => return Ok(Source::Url(target.to_owned())),
        };
        let confined = self
            .policy
            .roots()
            .resolve(&path)
            .map_err(|e| root_error(target, e))?;
        let bytes = read_confined(target, &confined, self.policy.max_file_bytes())?;
        Ok(Source::Bytes(Loaded::new(
            bytes,
            Origin::File(confined.path),
        )))
    }

    /// A local file's [`Stamp`]; `None` for `data:` and URL targets, and
    /// for a path that does not resolve inside the roots (resolving says
    /// why).
    fn stamp(&self, target: &str) -> Option<Stamp> {
        if target.is_empty() || is_data_uri(target) {
            return None;
        }
        let Ok(Local::Path(path)) = local_path(target) else {
            return None;
        };
        let confined = self.policy.roots().resolve(&path).ok()?;
        confined
            .metadata
            .is_file()
            .then(|| Stamp::of_file(&confined.path, &confined.metadata))
    }

    /// The first `len` bytes of a local file, checked as resolving it
    /// checks the whole; `None` for `data:` and URL targets (a `data:`
    /// URI's payload is checked whole before any of it is used).
    fn head(&self, target: &str, len: usize) -> Option<Vec<u8>> {
        if target.is_empty() || is_data_uri(target) {
            return None;
        }
        let Ok(Local::Path(path)) = local_path(target) else {
            return None;
        };
        let confined = self.policy.roots().resolve(&path).ok()?;
        read_confined_head(target, &confined, self.policy.max_file_bytes(), len).ok()
    }
}

/// What a target that is no `data:` URI names.
enum Local<'a> {
    /// A local path: the target itself, or what its `file:` URI names.
    Path(std::borrow::Cow<'a, str>),
    /// A well-formed `http(s)` URL.
    Url,
}

/// Tell a local path (plain, or a `file:` URI) from a URL, refusing any
/// other scheme.
fn local_path(target: &str) -> Result<Local<'_>, MediaError> {
    let Some(scheme) = uri_scheme(target) else {
        return Ok(Local::Path(target.into()));
    };
    if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
        return check_url(target, scheme.len()).map(|()| Local::Url);
    }
    if scheme.eq_ignore_ascii_case("file") {
        return super::file_uri::path_of(target)
            .map(|path| Local::Path(path.into()))
            .map_err(|why| MediaError::BadFileUri {
                target: target.to_owned(),
                why,
            });
    }
    Err(MediaError::UnsupportedScheme {
        target: target.to_owned(),
        scheme: scheme.to_ascii_lowercase(),
    })
}

/// The scheme of a URI (two or more characters, so `C:\x` stays a path).
fn uri_scheme(target: &str) -> Option<&str> {
    let colon = target.find(':')?;
    let scheme = &target[..colon];
    let ok = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then_some(scheme)
}

/// `scheme://host…` with a non-empty host and no spaces or control
/// characters anywhere.
fn check_url(target: &str, scheme_len: usize) -> Result<(), MediaError> {
    let rest = &target[scheme_len + 1..];
    let host_ok = rest
        .strip_prefix("//")
        .and_then(|r| r.split(['/', '?', '#']).next())
        .is_some_and(|authority| !authority.is_empty() && !authority.starts_with(':'));
    let clean = !target.chars().any(|c| c.is_whitespace() || c.is_control());
    if host_ok && clean {
        Ok(())
    } else {
        Err(MediaError::BadUrl {
            target: target.to_owned(),
        })
    }
}

fn root_error(target: &str, source: RootError) -> MediaError {
    MediaError::Root {
        target: target.to_owned(),
        source,
    }
}
