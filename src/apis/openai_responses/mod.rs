//! OpenAI Responses: writing, reading, rules and facts.

pub(crate) mod http;
pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::steps::replay::{any_model, Replay};

use crate::facts::Provider;
use crate::media::Holder;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::spec::{Spec, ToolMedia};

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://api.openai.com/v1/responses",
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::TOOL_NAME,
    ids: Pattern::RESPONSES_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        ReasoningEffort,
        PromptCacheKey,
        PromptCacheRetention,
        Stream,
        Store,
        ParallelToolCalls,
        ServiceTier,
        Verbosity,
        ReasoningSummary,
        ToolChoice,
        User,
        Metadata,
        ResponseFormat,
    ],
    // As the SDK spells them (generated: `known.rs`).
    service_tiers: known::SERVICE_TIERS,
    holder: Some(Holder::OpenAi),
    // `function_call_output` takes `input_image` and `input_file`.
    tool_media: ToolMedia::Inside,
    // The same retention rule as Chat's.
    refuses_setting: super::openai_chat::refuses_setting,
    members: Some((&known::REQUEST, known::SDK)),
    owned: &["model", "input", "instructions", "tools", "tool_choice"],
    // `prompt_cache_breakpoint` on `input_text`, `input_image` and
    // `input_file` (GPT-5.6 and later: `write.rs`).
    cache_parts: true,
    ..Spec::of(Provider::OpenAiResponses)
};

/// What Responses is given back of what a history kept: every item it
/// lists, first in its turn (reasoning with its `encrypted_content`, for
/// stateless replay), a computer call's screenshot fitted.
pub(crate) static REPLAYS: &[Replay] = &[Replay {
    member: crate::steps::envelope::OPENAI_ITEMS,
    list: Some(&known::INPUT),
    sdk: known::SDK,
    kinds: None,
    refuse: None,
    reasoning: |tag, _| tag == "reasoning",
    media: &[("computer_call_output", "/output/image_url")],
    // An item read from a response carries members only output items
    // have: left out before it is checked.
    normalize: write::as_input,
    for_model: any_model,
}];
