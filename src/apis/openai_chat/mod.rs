//! OpenAI Chat Completions: writing, reading, rules and facts.

pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::facts::Provider;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::spec::Spec;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://api.openai.com/v1/chat/completions",
    model_in_body: true,
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::TOOL_NAME,
    ids: Pattern::OPENAI_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        Stop,
        Seed,
        ReasoningEffort,
        PromptCacheKey,
        PromptCacheRetention,
    ],
    ..Spec::of(Provider::OpenAiChat)
};
