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
    /// The server's profile, for [`Provider::OpenAiCompatible`].
    pub profile: Option<&'a Profile>,
}
