//! Servers that speak Chat Completions, each as its profile says: the
//! rules a body is checked with against the profile. Bodies are written
//! by the Chat writer ([`super::openai_chat::write`]); the profiles are
//! facts (`facts.toml`).

pub(crate) mod rules;

use crate::facts::Provider;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::spec::Spec;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    // What depends on the server is its profile's (the facts'
    // [profiles]); this is the generic profile's URL.
    url: "http://localhost:8000/v1/chat/completions",
    needs_declared_calls: true,
    choice_none: true,
    names: Pattern::TOOL_NAME,
    ids: Pattern::OPENAI_ID,
    // Where each goes: `write.rs` (the Chat writer's for servers).
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        Stop,
        Seed,
        ReasoningEffort,
        Stream,
    ],
    // Where media go, and what one request may carry: the profile's.
    profiled: true,
    ..Spec::of(Provider::OpenAiCompatible)
};
