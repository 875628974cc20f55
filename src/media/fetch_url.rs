//! Fetching an `http(s)` target, when the caller asks for it: the crate
//! itself never opens a connection. For a provider that takes no URL for
//! the attachment's kind, a conversion given a [`UrlFetcher`]
//! ([`Options::with_url_fetcher`](crate::provider::Options::with_url_fetcher))
//! has it fetch the bytes, which are then checked and fitted as a local
//! file's are (no larger than [`Policy::max_file_bytes`](super::Policy::max_file_bytes));
//! a provider that takes URLs is sent the URL, as without one.
//!
//! The command's fetcher (`convert --fetch-urls HOST,…`) reaches the hosts
//! it is given and no other, redirects included, within a size and a time
//! limit.

use super::error::MediaError;

/// Fetches an `http(s)` URL's bytes.
///
/// A closure `Fn(&str) -> Result<Vec<u8>, MediaError>` is one.
///
/// ```
/// use tool_carrier::media::{MediaError, UrlFetcher};
/// let fetcher = |url: &str| -> Result<Vec<u8>, MediaError> {
///     Err(MediaError::Refused { target: url.into(), reason: "offline".into() })
/// };
/// assert_eq!(fetcher.fetch("https://a.test/x.png").unwrap_err().to_string(), "https://a.test/x.png: offline");
/// ```
pub trait UrlFetcher {
    /// The bytes at `url`, as declared.
    ///
    /// # Errors
    /// A [`MediaError`] saying why not (a host not allowed, a status, a
    /// limit): it becomes a note beside the tool result.
    fn fetch(&self, url: &str) -> Result<Vec<u8>, MediaError>;
}

impl<F: Fn(&str) -> Result<Vec<u8>, MediaError>> UrlFetcher for F {
    fn fetch(&self, url: &str) -> Result<Vec<u8>, MediaError> {
        self(url)
    }
}
