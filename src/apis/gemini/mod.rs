//! Gemini `generateContent`, both generations: writing, reading (request
//! bodies and responses), rules and facts.

pub(crate) mod http;
pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::steps::replay::{any_model, as_kept, Replay};

use crate::facts::ids::gemini_3_or_later;
use crate::facts::Provider;
use crate::media::Holder;
use crate::steps::held::needs_media_type;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::spec::{Spec, ToolMedia};
use crate::steps::tools::schema::Dialect;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent",
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::GEMINI_NAME,
    ids: Pattern::ANY_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        TopK,
        Stop,
        Seed,
        ReasoningEffort,
        ThinkingBudget,
        Stream,
        Store,
        ServiceTier,
        ToolChoice,
        ResponseFormat,
    ],
    // As the SDK spells them (generated: `known.rs`).
    service_tiers: known::SERVICE_TIERS,
    // Streamed as server-sent events
    // (<https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent>,
    // read 2026-12-05).
    stream_url: Some(
        "https://generativelanguage.googleapis.com/v1beta/models/{model}:streamGenerateContent?alt=sse",
    ),
    holder: Some(Holder::Gemini),
    // `fileData` needs its `mimeType`.
    refuses_file: |file, is_document, _| match file.media_type_for(is_document) {
        Some(_) => None,
        None => Some(needs_media_type(SPEC.display_name, file)),
    },
    // In `functionResponse` parts for Gemini 3 and later (their facts).
    tool_media: ToolMedia::AsTheFactsSay,
    dialect: Dialect::Gemini,
    // Gemini 3 takes `thinkingLevel`; 2.x only a budget.
    refuses_setting: |ask| {
        (ask.params.reasoning_effort.is_some() && !gemini_3_or_later(ask.model)).then(|| {
            (
                ReasoningEffort,
                format!("{} takes a thinking budget, not a level", ask.model),
            )
        })
    },
    members: Some((&known::REQUEST, known::SDK)),
    owned: &["contents", "systemInstruction", "tools", "toolConfig"],
    ..Spec::of(Provider::Gemini)
};

/// The same API by its Gemini 2.x name, which keeps that generation's
/// defaults and placement.
pub(crate) const SPEC_2: Spec = Spec {
    provider: Provider::Gemini2,
    // The name for Gemini 2.x placement whatever the model.
    tool_media: ToolMedia::After,
    ..SPEC
};

/// What Gemini is given back of what a history kept: the thought
/// signatures of its calls. Its other kept parts (thoughts, code) are not
/// written back.
pub(crate) static REPLAYS: &[Replay] = &[
    Replay {
        member: crate::steps::envelope::GEMINI_SIGNATURES,
        list: None,
        sdk: known::SDK,
        kinds: None,
        refuse: None,
        reasoning: |_, _| true,
        media: &[],
        normalize: as_kept,
        // Gemini 3 validates the signatures of its calls; 2.x takes none
        // (<https://ai.google.dev/gemini-api/docs/thought-signatures>).
        for_model: crate::facts::ids::gemini_3_or_later,
    },
    Replay {
        member: crate::steps::envelope::GEMINI_PARTS,
        list: Some(&known::PART),
        sdk: known::SDK,
        kinds: None,
        refuse: Some("kept parts (thoughts, code and its results) are not written back"),
        reasoning: |_, part| {
            part.get("thought") == Some(&serde_json::Value::Bool(true))
                || (part.get("thoughtSignature").is_some()
                    && part.get("text").and_then(serde_json::Value::as_str) == Some(""))
        },
        media: &[],
        normalize: as_kept,
        for_model: any_model,
    },
];
