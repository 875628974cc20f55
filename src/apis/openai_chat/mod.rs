//! OpenAI Chat Completions: writing, reading, rules and facts.

pub(crate) mod format_rules;
pub(crate) mod http;
pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::facts::Provider;
use crate::media::Holder;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::params::{Retention, Setting};
use crate::steps::spec::{SettingAsk, Spec, ToolMedia};

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://api.openai.com/v1/chat/completions",
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
        Stream,
        Store,
        ParallelToolCalls,
        ServiceTier,
        Verbosity,
        ToolChoice,
        User,
        Metadata,
        ResponseFormat,
    ],
    // As the SDK spells them (generated: `known.rs`).
    service_tiers: known::SERVICE_TIERS,
    holder: Some(Holder::OpenAi),
    // The image part is a URL only; the `file` part takes a file id, for
    // documents (<https://platform.openai.com/docs/api-reference/chat/create>,
    // read 2026-12-02).
    refuses_file: |_, is_document, _| {
        (!is_document).then(|| "OpenAI Chat takes no image by file id (Responses does)".to_owned())
    },
    // `tool` messages take text: the media go after the batch.
    tool_media: ToolMedia::After,
    refuses_setting,
    members: Some((&known::REQUEST, known::SDK)),
    owned: &[
        "model",
        "messages",
        "tools",
        "tool_choice",
        "functions",
        "function_call",
    ],
    ..Spec::of(Provider::OpenAiChat)
};

/// "For `gpt-5.5`, `gpt-5.5-pro`, and future models, only `24h` is
/// supported" (`prompt_cache_retention`, the SDK's request types, `openai`
/// 3.57.0): an `in_memory` retention for GPT-5.5, GPT-5.5 pro and the
/// models after them (GPT-5.6, GPT-6) is refused.
pub(crate) fn refuses_setting(ask: &SettingAsk<'_>) -> Option<(Setting, String)> {
    let later = ["gpt-5.5", "gpt-5.6", "gpt-6"].iter().any(|p| {
        ask.model
            .strip_prefix(p)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
    });
    (later && ask.params.prompt_cache_retention == Some(Retention::InMemory)).then(|| {
        (
            PromptCacheRetention,
            format!("{} takes prompt_cache_retention 24h only", ask.model),
        )
    })
}
