//! Anthropic Messages: writing, reading, rules and facts.

pub(crate) mod http;
pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::steps::replay::{any_model, as_kept, no_reasoning, Replay};

use crate::facts::{Family, Provider};
use crate::media::Holder;
use crate::steps::declare::TypedTools;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::spec::{Betas, Spec, ToolMedia};
use crate::steps::tools::schema::Dialect;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://api.anthropic.com/v1/messages",
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::TOOL_NAME,
    ids: Pattern::ANTHROPIC_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        TopK,
        Stop,
        ThinkingBudget,
        ReasoningEffort,
        CacheTtl,
        Stream,
        ParallelToolCalls,
        ServiceTier,
        ToolChoice,
        User,
        ResponseFormat,
    ],
    // As the SDK spells them (generated: `known.rs`).
    service_tiers: known::SERVICE_TIERS,
    holder: Some(Holder::Anthropic),
    // Every model on the Messages API is Claude.
    family: |_, _| Some(Family::Claude),
    // `tool_result` content takes text, image and document blocks
    // (its facts: `media_in_tool_result`).
    tool_media: ToolMedia::AsTheFactsSay,
    typed_tools: |_| TypedTools::AsThemselves,
    dialect: Dialect::JsonSchema,
    betas: Some(Betas {
        header: "anthropic-beta",
        files: FILES_BETA,
    }),
    members: Some((&known::REQUEST, known::SDK)),
    owned: &["model", "messages", "system", "tools", "tool_choice"],
    // Anthropic's SDKs dropped the sampling settings from their types;
    // the models before Opus 4.7 still take them (the facts' `sampling`).
    also: &[
        ("temperature", SAMPLING),
        ("top_p", SAMPLING),
        ("top_k", SAMPLING),
    ],
    // A JSON Schema only: no JSON mode (`output_config.format` /
    // `outputConfig.textFormat` take `json_schema` alone).
    json_mode: false,
    ..Spec::of(Provider::Anthropic)
};

/// Where the sampling settings are documented as taken by the models
/// before Claude Opus 4.7 (read 2026-12-05).
const SAMPLING: &str = "https://platform.claude.com/docs/en/about-claude/models/migration-guide";

/// The `anthropic-beta` value a request naming Files API files needs
/// (<https://docs.claude.com/en/api/files-create>, read 2026-12-02).
pub const FILES_BETA: &str = "files-api-2025-04-14";

/// What Anthropic is given back of what a history kept: its thinking
/// blocks, signatures and all, first in their turn
/// (<https://platform.claude.com/docs/en/build-with-claude/extended-thinking>,
/// "Preserving thinking blocks", read 2026-12-01).
pub(crate) static REPLAYS: &[Replay] = &[
    Replay {
        member: crate::steps::envelope::ANTHROPIC_THINKING,
        list: Some(&known::ASSISTANT_CONTENT),
        sdk: known::SDK,
        kinds: Some(&["redacted_thinking", "thinking"]),
        refuse: None,
        reasoning: |_, _| true,
        media: &[],
        normalize: as_kept,
        for_model: any_model,
    },
    Replay {
        member: crate::steps::envelope::ANTHROPIC_BLOCKS,
        list: Some(&known::ASSISTANT_CONTENT),
        sdk: known::SDK,
        kinds: None,
        refuse: Some(
            "server tools' blocks are not given back (the tools that wrote them are not declared)",
        ),
        reasoning: no_reasoning,
        media: &[],
        normalize: as_kept,
        for_model: any_model,
    },
];
