//! What a conversion may be told: model, limits, vision, media policy and
//! resolver, tool definitions.

use std::fmt;

use std::sync::Arc;

use crate::facts::Facts;
use crate::media::{Policy, PreparedCache, Resolver, UrlFetcher};

use super::params::Params;
use super::tools::Tools;
use crate::facts::{Detail, Family, Profile, Provider};

/// How a history is converted: the model, whether images are sent, and
/// how attachment targets are loaded.
///
/// By default: the provider's [`Provider::default_model`], vision on,
/// no generation setting ([`Params`]; Anthropic, which requires
/// `max_tokens`, is sent the model's output limit), the default media
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
    pub(crate) vision: bool,
    pub(crate) params: Params,
    pub(crate) extra: super::extra::Extra,
    pub(crate) policy: Policy,
    pub(crate) resolver: Option<Box<dyn Resolver + Send + Sync>>,
    pub(crate) fetcher: Option<Arc<dyn UrlFetcher + Send + Sync>>,
    pub(crate) tools: Option<Tools>,
    pub(crate) family: Option<Family>,
    pub(crate) eviction: Eviction,
    pub(crate) cache_breakpoints: bool,
    pub(crate) fit_to_model: bool,
    pub(crate) say_scale: bool,
    pub(crate) cache: Option<std::sync::Arc<dyn PreparedCache>>,
    /// A conversation's payloads by stamp ([`Conversation`](crate::conversation::Conversation)).
    pub(crate) memo: Option<std::sync::Arc<super::memo::Memo>>,
    pub(crate) profile: Option<Profile>,
    pub(crate) strict: bool,
    /// Most attachments prepared at once; `None` for one per core.
    pub(crate) parallelism: Option<std::num::NonZeroUsize>,
    pub(crate) detail: Option<Detail>,
    /// Media already uploaded to providers ([`Options::with_uploads`]).
    pub(crate) uploads: Option<Arc<crate::media::Uploads>>,
    facts: Option<Arc<Facts>>,
}

/// Options that contradict each other ([`Options::check`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// An eviction step larger than the number of images (or documents)
    /// kept: one step would leave out more than are kept, and none might
    /// be sent while the notes say N are.
    #[error("an eviction step of {step} is larger than the {keep} {what}s kept: the step leaves {what}s out {step} at a time, so it can be at most {keep}")]
    StepOverKeep {
        /// The step ([`Options::with_evict_step`]).
        step: usize,
        /// How many are kept ([`Options::with_keep_images`] or
        /// [`Options::with_keep_documents`]).
        keep: usize,
        /// `image` or `document`.
        what: &'static str,
    },
    /// `max_tokens` of 0: no provider answers with nothing.
    #[error("max_tokens must be at least 1")]
    ZeroMaxTokens,
}

/// How many attachments a request keeps, and how the oldest go: see
/// [`Options::with_keep_images`], [`Options::with_keep_documents`],
/// [`Options::with_image_tokens`] and [`Options::with_evict_step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Eviction {
    pub keep_images: Option<usize>,
    pub keep_documents: Option<usize>,
    pub image_tokens: Option<u64>,
    pub step: usize,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("model", &self.model)
            .field("vision", &self.vision)
            .field("params", &self.params)
            .field("policy", &self.policy)
            .field("tools", &self.tools)
            .field("family", &self.family)
            .field("eviction", &self.eviction)
            .field("cache_breakpoints", &self.cache_breakpoints)
            .field("fit_to_model", &self.fit_to_model)
            .field("say_scale", &self.say_scale)
            .field("cache", &self.cache.as_ref().map(|_| "given"))
            .field("memo", &self.memo.as_ref().map(|m| m.len()))
            .field("profile", &self.profile.as_ref().map(|p| &p.name))
            .field("strict", &self.strict)
            .field("parallelism", &self.parallelism)
            .field("detail", &self.detail)
            .field("uploads", &self.uploads.as_ref().map(|u| u.len()))
            .field(
                "facts",
                &self.facts.as_ref().map_or("built-in", |_| "given"),
            )
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
            params: Params::new(),
            extra: super::extra::Extra::new(),
            policy: Policy::default(),
            resolver: None,
            fetcher: None,
            tools: None,
            family: None,
            eviction: Eviction {
                keep_images: None,
                keep_documents: None,
                image_tokens: None,
                step: 1,
            },
            cache_breakpoints: true,
            fit_to_model: true,
            say_scale: false,
            cache: None,
            memo: None,
            profile: None,
            strict: false,
            parallelism: None,
            detail: None,
            uploads: None,
            facts: None,
        }
    }

    /// Read models, limits, image sizes and defaults from `facts` (the
    /// built-in data with a user's file laid over it,
    /// [`Facts::layered`]) instead of the built-in data alone.
    ///
    /// ```
    /// use tool_carrier::facts::{Facts, Syntax};
    /// use tool_carrier::provider::{Options, Provider};
    /// let facts = Facts::builtin().layered(
    ///     "[apis.anthropic]\ndefault_model = \"claude-opus-5\"\n",
    ///     Syntax::Toml,
    ///     "mine.toml",
    /// )?;
    /// let options = Options::new().with_facts(facts);
    /// assert_eq!(options.model_for(Provider::Anthropic), "claude-opus-5");
    /// # Ok::<(), tool_carrier::facts::FactsError>(())
    /// ```
    pub fn with_facts(self, facts: impl Into<Arc<Facts>>) -> Options {
        Options {
            facts: Some(facts.into()),
            ..self
        }
    }

    /// The facts conversions read: [`Options::with_facts`]'s, or the
    /// built-in ones.
    pub fn facts(&self) -> &Facts {
        self.facts.as_deref().unwrap_or_else(|| Facts::builtin())
    }

    /// Refuse the request, with [`BuildError::Attachments`](crate::provider::BuildError::Attachments),
    /// when any declared attachment failed
    /// ([`NoteReason::is_failure`](crate::provider::NoteReason::is_failure)) instead
    /// of sending a note in its place. Off by default.
    pub fn with_strict(self, strict: bool) -> Options {
        Options { strict, ..self }
    }

    /// Send images at this detail level: OpenAI's `detail` (Chat
    /// Completions and Responses), Gemini 3's per-part media resolution
    /// (`low`, `high`, and `original` as its `ultra_high`). Images are
    /// fitted and their tokens counted at that level, as the provider
    /// documents for the model. A level the model's facts do not list
    /// refuses the request ([`BuildError::Detail`](crate::provider::BuildError::Detail));
    /// an API with no such setting (Anthropic, Bedrock, Ollama,
    /// OpenAI-compatible servers, Gemini 2.x) is sent none, and
    /// [`Report::setting_notes`](crate::provider::Report::setting_notes) says
    /// so. Without it, Responses is sent `auto`, the others nothing.
    ///
    /// ```
    /// use tool_carrier::provider::{build_request, Options, Provider};
    /// use tool_carrier::facts::Detail;
    /// let history = [("user", "Look. [IMAGE:shot.png]")];
    /// let options = Options::new().with_model("gpt-5.4").with_detail(Detail::Low);
    /// let request = build_request(Provider::OpenAiResponses, &history, &options)?;
    /// assert!(request.report.setting_notes.is_empty());
    /// let refused = Options::new().with_model("gpt-5.2").with_detail(Detail::Original);
    /// assert!(build_request(Provider::OpenAiChat, &history, &refused).is_err());
    /// let anthropic = build_request(Provider::Anthropic, &history, &options.with_model("claude-sonnet-4-6"))?;
    /// assert_eq!(anthropic.report.setting_notes.len(), 1);
    /// # Ok::<(), tool_carrier::provider::BuildError>(())
    /// ```
    pub fn with_detail(self, detail: Detail) -> Options {
        Options {
            detail: Some(detail),
            ..self
        }
    }

    /// The detail level given with [`Options::with_detail`].
    pub fn detail(&self) -> Option<Detail> {
        self.detail
    }

    /// The detail level images are fitted and counted at for `model` at
    /// `provider`: the one given where the API takes it, else `auto`.
    pub(crate) fn detail_at(&self, provider: Provider, model: &str) -> Detail {
        self.detail
            .filter(|_| crate::facts::takes_detail(self.facts(), provider, model))
            .unwrap_or(Detail::Auto)
    }

    /// The model family given with [`Options::with_family`].
    pub fn family(&self) -> Option<Family> {
        self.family
    }

    /// Whether these options contradict each other; [`build_request`](crate::provider::build_request)
    /// refuses them with [`BuildError::Options`](crate::provider::BuildError::Options).
    ///
    /// # Errors
    /// The first contradiction found.
    ///
    /// ```
    /// use tool_carrier::provider::{Options, OptionsError};
    /// let options = Options::new().with_keep_images(2).with_evict_step(5);
    /// assert_eq!(
    ///     options.check(),
    ///     Err(OptionsError::StepOverKeep { step: 5, keep: 2, what: "image" })
    /// );
    /// assert_eq!(Options::new().with_keep_images(5).with_evict_step(5).check(), Ok(()));
    /// ```
    pub fn check(&self) -> Result<(), OptionsError> {
        let step = self.eviction.step;
        for (keep, what) in [
            (self.eviction.keep_images, "image"),
            (self.eviction.keep_documents, "document"),
        ] {
            if let Some(keep) = keep.filter(|&n| n >= 1 && step > n) {
                return Err(OptionsError::StepOverKeep { step, keep, what });
            }
        }
        if self.params.max_tokens == Some(0) {
            return Err(OptionsError::ZeroMaxTokens);
        }
        Ok(())
    }

    /// Keep prepared images in `cache` and take them from it: an agent
    /// that converts its history before every call prepares each
    /// screenshot once ([`MemoryCache`](crate::media::MemoryCache) for one
    /// process; a cache of the caller's for more). What comes from the
    /// cache is byte for byte what preparing again would give.
    pub fn with_cache(self, cache: std::sync::Arc<dyn PreparedCache>) -> Options {
        Options {
            cache: Some(cache),
            ..self
        }
    }

    /// Prepare at most `n` of a request's attachments at once, each on its
    /// own thread (0 is taken as 1). By default as many as the machine
    /// has cores ([`std::thread::available_parallelism`]). The request is
    /// byte for byte the same whatever `n` is, and so is every note: each
    /// attachment is still decided in order, newest first, and at most
    /// `n − 1` attachments beyond a request's limits are prepared in vain.
    ///
    /// ```
    /// use tool_carrier::provider::Options;
    /// let one_at_a_time = Options::new().with_parallelism(1);
    /// assert_eq!(one_at_a_time.parallelism(), 1);
    /// assert!(Options::new().parallelism() >= 1);
    /// ```
    pub fn with_parallelism(self, n: usize) -> Options {
        Options {
            parallelism: Some(
                std::num::NonZeroUsize::new(n).unwrap_or(std::num::NonZeroUsize::MIN),
            ),
            ..self
        }
    }

    /// How many attachments are prepared at once
    /// ([`Options::with_parallelism`]).
    pub fn parallelism(&self) -> usize {
        self.parallelism
            .or_else(|| std::thread::available_parallelism().ok())
            .map_or(1, std::num::NonZeroUsize::get)
    }

    /// Whether to fit each image to the size the provider documents its
    /// model processes images at ([`Provider::view`]): on by default, so
    /// no image is sent larger than the model sees it. A policy that
    /// carries its own [`View`](crate::media::View) keeps it; with `false`
    /// only the policy's [`max_dim`](crate::media::Policy::max_dim) and the
    /// provider's hard limits apply.
    pub fn with_fit_to_model(self, on: bool) -> Options {
        Options {
            fit_to_model: on,
            ..self
        }
    }

    /// Have [`fit`](crate::fit::fit) (and so the
    /// [`Gateway`](crate::gateway::Gateway)) write a text part after each
    /// image it makes smaller, saying its scale for the model ("scaled
    /// from 2880×1800 to 1389×868: multiply coordinates by 2.073"), so a
    /// computer-use model can give coordinates on the original screen.
    /// Off by default; a conversion ([`build_request`](crate::provider::build_request))
    /// does not say it.
    pub fn with_say_scale(self, on: bool) -> Options {
        Options {
            say_scale: on,
            ..self
        }
    }

    /// Whether [`Options::with_say_scale`] is on.
    pub fn says_scale(&self) -> bool {
        self.say_scale
    }

    /// Whether to mark prompt-cache breakpoints where the API caches only
    /// at marks (Anthropic's `cache_control`, Bedrock's `cachePoint` for
    /// Claude models): on by default. OpenAI and Gemini cache prefixes on
    /// their own and get no marks.
    pub fn with_cache_breakpoints(self, on: bool) -> Options {
        Options {
            cache_breakpoints: on,
            ..self
        }
    }

    /// Keep the prompt-cache breakpoints' prefix for `ttl` where the API
    /// takes a TTL: Anthropic's `cache_control.ttl` and, for Claude,
    /// Bedrock's `cachePoint.ttl`; every breakpoint of the request gets
    /// the same TTL. The same as [`Params::cache_ttl`] (it is kept with the
    /// other settings, and [`Options::with_params`] replaces it); another
    /// API refuses it ([`BuildError::Unsupported`](crate::provider::BuildError::Unsupported)),
    /// and so does Bedrock an hour for a Claude before 4.5.
    ///
    /// ```
    /// use tool_carrier::provider::{build_request, CacheTtl, Options, Provider};
    /// let options = Options::new().with_cache_ttl(CacheTtl::OneHour);
    /// let request = build_request(Provider::Anthropic, &[("system", "Be brief."), ("user", "hi")], &options)?;
    /// assert_eq!(request.body.to_value()["messages"][0]["content"][0]["cache_control"]["ttl"], "1h");
    /// assert!(build_request(Provider::OpenAiChat, &[("user", "hi")], &options).is_err());
    /// # Ok::<(), tool_carrier::provider::BuildError>(())
    /// ```
    pub fn with_cache_ttl(mut self, ttl: crate::steps::params::CacheTtl) -> Options {
        self.params.cache_ttl = Some(ttl);
        self
    }

    /// Send at most the `n` most recent images; older ones become notes
    /// ("only the n most recent images are kept"). Documents are counted
    /// apart ([`Options::with_keep_documents`]).
    pub fn with_keep_images(mut self, n: usize) -> Options {
        self.eviction.keep_images = Some(n);
        self
    }

    /// Send at most the `n` most recent documents.
    pub fn with_keep_documents(mut self, n: usize) -> Options {
        self.eviction.keep_documents = Some(n);
        self
    }

    /// Send images whose estimated input tokens, for the provider and
    /// model, add up to at most `tokens`; the oldest go first. Each image
    /// counts [`Provider::image_tokens`] at the size its header fits to
    /// (the model's view, the provider's largest side), read before the
    /// image is loaded where the resolver gives a file's first bytes
    /// ([`Resolver::head`](crate::media::Resolver::head)): an image left
    /// out is then never decoded. One a byte cap then makes smaller still
    /// counts at that size; one sent larger (an image over the pixel
    /// limit, read reduced, may land a pixel over) counts as sent. Images
    /// sent as URLs or by reference to a provider's file are not counted.
    /// Where the provider documents no formula, Anthropic's (28-pixel
    /// patches) stands in.
    pub fn with_image_tokens(mut self, tokens: u64) -> Options {
        self.eviction.image_tokens = Some(tokens);
        self
    }

    /// Once any limit leaves images (or documents) out, leave them out `k`
    /// at a time, oldest first: between N − k + 1 and N are sent, and as a
    /// conversation grows a turn at a time the request changes before its
    /// last message only at the turns where a step is taken, which keeps
    /// a provider's prompt cache. `k` = 1 (the default) keeps exactly the
    /// N newest; 0 counts as 1.
    pub fn with_evict_step(mut self, k: usize) -> Options {
        self.eviction.step = k.max(1);
        self
    }

    /// Declare these tools in the request, each the way the provider
    /// documents (see [`Tools`](crate::provider::Tools)). Without them, every tool the history
    /// calls gets a minimal declaration, and the model is told not to
    /// call any where the API can say so ([`Report::stubbed`](crate::provider::Report::stubbed)).
    pub fn with_tools(self, tools: Tools) -> Options {
        Options {
            tools: Some(tools),
            ..self
        }
    }

    /// Say which family the model belongs to, for a model id the
    /// built-in table does not recognise (an application inference
    /// profile ARN, a custom model).
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

    /// The most tokens the answer may hold: [`Params::max_tokens`], sent
    /// by every API in its own spelling. Without it only Anthropic, which
    /// requires it, is sent one: the model's documented output limit, at
    /// most 21,333 (Anthropic's SDKs refuse more without a stream), else
    /// 4096.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Options {
        self.params.max_tokens = Some(max_tokens);
        self
    }

    /// Generation settings ([`Params`]), each placed where the API
    /// documents it; one the API does not take refuses the request
    /// ([`BuildError::Unsupported`](crate::provider::BuildError::Unsupported)).
    /// Replaces any given before, `max_tokens` included.
    ///
    /// ```
    /// use tool_carrier::provider::{build_request, Effort, Options, Params, Provider};
    /// let params = Params::new().with_temperature(0.3).with_stop(["END"]);
    /// let options = Options::new().with_model("claude-sonnet-4-6").with_params(params);
    /// let request = build_request(Provider::Anthropic, &[("user", "hi")], &options)?;
    /// let body = request.body.to_value();
    /// assert_eq!(body["temperature"], 0.3);
    /// assert_eq!(body["stop_sequences"][0], "END");
    /// // The default model refuses sampling settings; it takes an effort.
    /// let options = Options::new().with_params(Params::new().with_reasoning_effort(Effort::Low));
    /// let request = build_request(Provider::Anthropic, &[("user", "hi")], &options)?;
    /// assert_eq!(request.body.to_value()["output_config"]["effort"], "low");
    /// # Ok::<(), tool_carrier::provider::BuildError>(())
    /// ```
    pub fn with_params(self, params: Params) -> Options {
        Options { params, ..self }
    }

    /// Members added to the body as given, for a setting the crate does
    /// not model (the OpenAI SDK's `extra_body`): merged into what the crate
    /// writes, never over a value it writes nor into the members it writes
    /// from the history, tools and model, and then checked with the body by
    /// the API's rules, its SDK's member tables among them.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_carrier::provider::{build_request, Extra, Options, Provider};
    /// let extra = Extra::new().with("metadata.user_id", json!("u-7"))?;
    /// let options = Options::new().with_model("claude-sonnet-5").with_extra(extra);
    /// let request = build_request(Provider::Anthropic, &[("user", "Hi.")], &options).unwrap();
    /// assert_eq!(request.body.to_value()["metadata"]["user_id"], "u-7");
    /// let typo = Extra::new().with("metadata.userid", json!("u-7"))?;
    /// let options = Options::new().with_model("claude-sonnet-5").with_extra(typo);
    /// let err = build_request(Provider::Anthropic, &[("user", "Hi.")], &options).unwrap_err();
    /// assert!(err.to_string().contains("anthropic/members at $.metadata: `userid`"), "{err}");
    /// # Ok::<(), tool_carrier::provider::ExtraError>(())
    /// ```
    pub fn with_extra(self, extra: super::extra::Extra) -> Options {
        Options { extra, ..self }
    }

    /// The generation settings given.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// These options for `model`, without a resolver: what fitting a
    /// request that names its own model needs (its payloads are inline,
    /// no target is resolved).
    pub(crate) fn inline_for(&self, model: String) -> Options {
        Options {
            model: Some(model),
            vision: self.vision,
            params: self.params.clone(),
            // The body fitted is the caller's own: nothing is added to it.
            extra: super::extra::Extra::new(),
            policy: self.policy.clone(),
            resolver: None,
            fetcher: None,
            tools: self.tools.clone(),
            family: self.family,
            eviction: self.eviction,
            cache_breakpoints: self.cache_breakpoints,
            fit_to_model: self.fit_to_model,
            say_scale: self.say_scale,
            cache: self.cache.clone(),
            memo: self.memo.clone(),
            profile: self.profile.clone(),
            strict: self.strict,
            parallelism: self.parallelism,
            detail: self.detail,
            uploads: self.uploads.clone(),
            facts: self.facts.clone(),
        }
    }

    /// The model for `provider`: the one given, or its default.
    pub fn model_for(&self, provider: Provider) -> &str {
        if let Some(model) = &self.model {
            return model;
        }
        match &self.profile {
            Some(p) if provider.spec().profiled => &p.default_model,
            _ => self.facts().default_model(provider),
        }
    }

    /// The OpenAI-compatible server's profile
    /// ([`Provider::OpenAiCompatible`]; other providers ignore it). By
    /// default [`Profile::generic`].
    ///
    /// ```
    /// use tool_carrier::provider::{Options, Provider};
    /// use tool_carrier::facts::Profile;
    /// let options = Options::new().with_profile(Profile::builtin("deepseek")?);
    /// assert_eq!(options.profile().name, "deepseek");
    /// assert!(options.profile().vision);
    /// assert_eq!(options.model_for(Provider::OpenAiCompatible), "deepseek-flash");
    /// # Ok::<(), tool_carrier::facts::UnknownProfile>(())
    /// ```
    pub fn with_profile(self, profile: Profile) -> Options {
        Options {
            profile: Some(profile),
            ..self
        }
    }

    /// The profile [`Options::with_profile`] set, or the generic one.
    pub fn profile(&self) -> &Profile {
        static GENERIC: std::sync::OnceLock<Profile> = std::sync::OnceLock::new();
        self.profile
            .as_ref()
            .unwrap_or_else(|| GENERIC.get_or_init(Profile::generic))
    }

    /// Whether attachments are sent at all.
    pub fn vision(&self) -> bool {
        self.vision
    }

    /// The `max_tokens` given, if any ([`Options::with_max_tokens`]).
    pub fn max_tokens(&self) -> Option<u32> {
        self.params.max_tokens
    }
}
