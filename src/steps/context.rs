//! What every API's writer is given besides the turns.

use crate::facts::Profile;

use super::declare::Declarations;
use super::model::Capabilities;

/// What every builder needs besides the turns.
pub(crate) struct Context<'a> {
    pub model: &'a str,
    /// The generation settings given.
    pub params: &'a crate::steps::params::Params,
    /// `max_tokens` for an API that requires it when none is given: the
    /// model's documented output limit (its facts' `max_output`), at most
    /// 21,333 (the most sent without a stream), else 4096.
    pub default_max_tokens: u32,
    /// The tools to declare, named as the turns name them.
    pub declarations: &'a Declarations,
    /// What the model takes.
    pub caps: &'a Capabilities,
    /// Whether to mark prompt-cache breakpoints, where the model caches at
    /// marks ([`Capabilities::cache_marks`]).
    pub cache_breakpoints: bool,
    /// The image detail level to write, where the API takes one and a
    /// level was given ([`super::detail::decide`]).
    pub detail: Option<crate::facts::Detail>,
    /// The shortest prefix a cache mark caches for the model, in tokens
    /// (its facts' `cache_min_tokens`): marks on shorter prefixes are left
    /// out ([`super::compose::long_enough`]).
    pub cache_min_tokens: Option<u64>,
    /// How the model counts an image (its facts' sizing), for the prefix
    /// counts; Anthropic's formula where the facts have none.
    pub sizing: Option<crate::facts::Sizing>,
    /// The caller's `tool_choice`, a named tool by the name the request
    /// declares it under (checked against the declarations before).
    pub tool_choice: Option<crate::steps::params::ToolChoice>,
    /// The server's profile, for [`Provider::OpenAiCompatible`].
    pub profile: Option<&'a Profile>,
}

impl Context<'_> {
    /// An image's input tokens for the model ([`Context::sizing`]), for
    /// counting a cached prefix.
    pub fn image_tokens(&self, width: u32, height: u32) -> u64 {
        self.sizing.map_or_else(
            || crate::media::anthropic_tokens(width, height),
            |s| s.tokens(width, height),
        )
    }

    /// The cache TTL to write on every breakpoint (`Params::cache_ttl`).
    /// One TTL for the whole request keeps the documented order (a longer
    /// TTL's breakpoints before a shorter one's) whatever the placement.
    pub fn cache_ttl(&self) -> Option<&'static str> {
        self.params.cache_ttl.map(|t| t.name())
    }
}
