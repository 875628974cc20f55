//! What the crate knows of an API's request shape: its names, where its
//! requests go, its patterns for tool names and ids, what it can be told
//! about tools. Each API's folder holds its own (`apis/NAME/mod.rs`); the
//! facts that change with the provider's pages (models, limits, image
//! sizes, defaults) are data: [`crate::facts`].

use std::fmt;

use super::names::Pattern;
use super::params::Setting;
use crate::facts::Provider;

/// What the crate knows of one provider.
#[derive(Debug)]
pub struct Spec {
    /// The provider.
    pub provider: Provider,
    /// The command-line name: `anthropic`, `openai-chat`, …
    pub name: &'static str,
    /// The name used in notes: `Anthropic`, `OpenAI`, …
    pub display_name: &'static str,
    /// The HTTP method requests are sent with.
    pub method: &'static str,
    /// The URL, with `{model}` (and Bedrock's `{region}`) left to fill.
    pub url: &'static str,
    /// Whether the model is named in the body (else in the URL).
    pub model_in_body: bool,
    /// Whether a request replaying tool calls must declare the tools it
    /// calls (Ollama replays calls without declarations and cannot be told
    /// not to call, so minimal declarations would only invite calls).
    pub needs_declared_calls: bool,
    /// Whether the API can be told not to call any tool.
    pub choice_none: bool,
    pub(crate) names: Pattern,
    pub(crate) ids: Pattern,
    /// The generation settings the API takes for every model (the
    /// writer's module says where each goes).
    pub(crate) settings: &'static [Setting],
    /// Those it takes only for Claude models (Bedrock passes them through
    /// `additionalModelRequestFields`).
    pub(crate) claude_settings: &'static [Setting],
}

/// Where a request is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `POST`.
    pub method: &'static str,
    /// The URL, the model filled in.
    pub url: String,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.url)
    }
}

impl Spec {
    /// A spec for `provider` with its names, to be completed: `POST`, no
    /// URL, the model in the body, calls declared, a "none" tool choice,
    /// OpenAI's patterns for names and any id, no generation setting.
    pub(crate) const fn of(provider: Provider) -> Spec {
        Spec {
            provider,
            name: provider.name(),
            display_name: provider.display_name(),
            method: "POST",
            url: "",
            model_in_body: true,
            needs_declared_calls: true,
            choice_none: true,
            names: Pattern::TOOL_NAME,
            ids: Pattern::ANY_ID,
            settings: &[],
            claude_settings: &[],
        }
    }
}
