//! Gemini `generateContent`, both generations: writing, reading (request
//! bodies and responses), rules and facts.

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
    url: "https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent",
    model_in_body: false,
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
    ],
    ..Spec::of(Provider::Gemini)
};

/// The same API by its Gemini 2.x name, which keeps that generation's
/// defaults and placement.
pub(crate) const SPEC_2: Spec = Spec {
    provider: Provider::Gemini2,
    name: Provider::Gemini2.name(),
    ..SPEC
};
