//! What a conversion may be told: model, limits, vision, media policy and
//! resolver, tool definitions.

use std::fmt;

use crate::media::{Policy, Resolver};

use super::tools::Tools;
use super::{Family, Provider};

/// How a history is converted: the model, whether images are sent, and
/// how attachment targets are loaded.
///
/// By default: the provider's [`Provider::default_model`], vision on,
/// `max_tokens` 4096 (Anthropic requires it), the default media
/// [`Policy`] (no roots, so no local file is read) and the built-in
/// resolver for that policy.
///
/// ```
/// use tool_carrier::media::Policy;
/// use tool_carrier::provider::Options;
///
/// let options = Options::new()
///     .with_model("claude-opus-4-5")
///     .with_vision(false)
///     .with_policy(Policy::default().with_max_dim(1568));
/// assert!(!options.vision());
/// ```
pub struct Options {
    model: Option<String>,
    pub(super) vision: bool,
    pub(super) max_tokens: u32,
    pub(super) policy: Policy,
    pub(super) resolver: Option<Box<dyn Resolver + Send + Sync>>,
    pub(super) tools: Option<Tools>,
    pub(super) family: Option<Family>,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("model", &self.model)
            .field("vision", &self.vision)
            .field("max_tokens", &self.max_tokens)
            .field("policy", &self.policy)
            .field("tools", &self.tools)
            .field("family", &self.family)
            .field(
                "resolver",
                &self.resolver.as_ref().map_or("default", |_| "custom"),
            )
            .finish()
    }
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

impl Options {
    /// The defaults described on [`Options`].
    pub fn new() -> Options {
        Options {
            model: None,
            vision: true,
            max_tokens: 4096,
            policy: Policy::default(),
            resolver: None,
            tools: None,
            family: None,
        }
    }

    /// Declare these tools in the request, each the way the provider
    /// documents (see [`tools`](super::tools)). Without them, every tool the history
    /// calls gets a minimal declaration, and the model is told not to
    /// call any where the API can say so ([`Report::stubbed`](super::Report::stubbed)).
    pub fn with_tools(self, tools: Tools) -> Options {
        Options {
            tools: Some(tools),
            ..self
        }
    }

    /// Say which family the model belongs to, for a model id the
    /// built-in table does not recognise (an application inference
    /// profile ARN, a custom model); see [`model`](super::model).
    pub fn with_family(self, family: Family) -> Options {
        Options {
            family: Some(family),
            ..self
        }
    }

    /// The tool definitions given, if any.
    pub fn tools(&self) -> Option<&Tools> {
        self.tools.as_ref()
    }

    /// Name this model in the request (or in its URL).
    pub fn with_model(self, model: impl Into<String>) -> Options {
        Options {
            model: Some(model.into()),
            ..self
        }
    }

    /// With `false`, no attachment is loaded or sent: each becomes a text
    /// note naming its target.
    pub fn with_vision(self, vision: bool) -> Options {
        Options { vision, ..self }
    }

    /// Anthropic's required `max_tokens` (other providers ignore it).
    pub fn with_max_tokens(self, max_tokens: u32) -> Options {
        Options { max_tokens, ..self }
    }

    /// Limits and roots for resolving and preparing attachments. The
    /// built-in resolver follows this policy unless
    /// [`Options::with_resolver`] replaces it.
    pub fn with_policy(self, policy: Policy) -> Options {
        Options { policy, ..self }
    }

    /// Load targets with this resolver instead of the built-in one. Its
    /// bytes are still sniffed and prepared under the policy. It must be
    /// `Send + Sync`, like everything `Options` holds, so options can be
    /// shared between threads and async tasks.
    pub fn with_resolver(self, resolver: impl Resolver + Send + Sync + 'static) -> Options {
        Options {
            resolver: Some(Box::new(resolver)),
            ..self
        }
    }

    /// The model for `provider`: the one given, or its default.
    pub fn model_for(&self, provider: Provider) -> &str {
        self.model
            .as_deref()
            .unwrap_or_else(|| provider.default_model())
    }

    /// Whether attachments are sent at all.
    pub fn vision(&self) -> bool {
        self.vision
    }

    /// Anthropic's `max_tokens`.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    /// The media policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}
