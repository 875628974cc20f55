//! Where a conversion's attachments come from: the media policy and its
//! roots, a resolver of the caller's, media already uploaded, and a
//! fetcher for the URLs a provider takes no reference to.

use std::sync::Arc;

use crate::media::{Policy, Resolver, UrlFetcher};

use super::options::Options;

impl Options {
    /// Limits and roots for resolving and preparing attachments. The
    /// built-in resolver follows this policy unless
    /// [`Options::with_resolver`] replaces it.
    pub fn with_policy(mut self, policy: Policy) -> Options {
        self.policy = policy;
        self
    }

    /// Read local targets only inside these folders (the media policy's
    /// roots; by default there are none, so no local file is read).
    ///
    /// ```
    /// use tool_carrier::provider::Options;
    /// use tool_carrier::roots::Roots;
    /// let options = Options::new().with_roots(Roots::new(["."])?);
    /// assert_eq!(options.policy().roots().dirs().len(), 1);
    /// # Ok::<(), tool_carrier::roots::RootsError>(())
    /// ```
    pub fn with_roots(mut self, roots: crate::roots::Roots) -> Options {
        self.policy = self.policy.with_roots(roots);
        self
    }

    /// Load targets with this resolver instead of the built-in one. Its
    /// bytes are still sniffed and prepared under the policy. It must be
    /// `Send + Sync`, like everything `Options` holds, so options can be
    /// shared between threads and async tasks.
    pub fn with_resolver(mut self, resolver: impl Resolver + Send + Sync + 'static) -> Options {
        self.resolver = Some(Box::new(resolver));
        self
    }

    /// Media the caller already uploaded to providers: a local image or
    /// PDF whose bytes the map names a file of the request's provider for
    /// goes to that provider by reference (its file id, never read past
    /// hashing, decoded or resized: the caller uploaded what the model is
    /// to see), and inline to any other.
    ///
    /// ```
    /// use tool_carrier::media::{ProviderFile, Uploads};
    /// use tool_carrier::provider::Options;
    ///
    /// let file = ProviderFile::parse("anthropic-file:file_1").unwrap().unwrap();
    /// let uploads = Uploads::new().with(b"the bytes", file).unwrap();
    /// let options = Options::new().with_uploads(uploads);
    /// # let _ = options;
    /// ```
    pub fn with_uploads(mut self, uploads: crate::media::Uploads) -> Options {
        self.uploads = (!uploads.is_empty()).then(|| Arc::new(uploads));
        self
    }

    /// The uploads map given ([`Options::with_uploads`]), if any.
    pub fn uploads(&self) -> Option<&crate::media::Uploads> {
        self.uploads.as_deref()
    }

    /// Fetch `http(s)` targets with `fetcher` for a provider that takes
    /// no URL for the attachment's kind (Gemini, Bedrock, Ollama, OpenAI's
    /// documents, …); the bytes are then checked and fitted as a local
    /// file's are. Without one such a URL is a note; a provider that takes
    /// URLs is sent the URL either way. Nothing is fetched unless asked.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_carrier::media::MediaError;
    /// use tool_carrier::provider::{build_request, Options, Provider};
    ///
    /// let png = b"\x89PNG\r\n\x1a\n".to_vec(); // not a whole image
    /// let fetcher = move |url: &str| -> Result<Vec<u8>, MediaError> {
    ///     assert_eq!(url, "https://cdn.test/a.png");
    ///     Ok(png.clone())
    /// };
    /// let history = [
    ///     ("user", "Look."),
    ///     ("tool", r#"{"tool_call_id": "c1", "content": "shot", "attachments": [{"kind": "image", "target": "https://cdn.test/a.png"}]}"#),
    /// ];
    /// let options = Options::new().with_url_fetcher(Arc::new(fetcher));
    /// let request = build_request(Provider::Gemini, &history, &options).unwrap();
    /// // Fetched, then refused as a file's bytes would be: a note says why.
    /// assert!(request.report.notes[0].text.ends_with("not attached: malformed image/png header: first chunk is not IHDR]"));
    /// ```
    pub fn with_url_fetcher(mut self, fetcher: Arc<dyn UrlFetcher + Send + Sync>) -> Options {
        self.fetcher = Some(fetcher);
        self
    }

    /// The media policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}
