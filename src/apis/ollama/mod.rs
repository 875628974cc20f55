//! Ollama's own chat API: writing, reading (request bodies and
//! responses), rules and facts.

pub(crate) mod known;
pub(crate) mod read;
pub(crate) mod response;
pub(crate) mod rules;
pub(crate) mod stream;
pub(crate) mod wire;
pub(crate) mod write;

use crate::steps::replay::{any_model, as_kept, Replay};

use crate::facts::Provider;
use crate::steps::names::Pattern;
use crate::steps::params::Setting::*;
use crate::steps::spec::{Spec, ToolMedia};
use crate::steps::tools::schema::Dialect;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "http://localhost:11434/api/chat",
    // Ollama replays calls without declarations and cannot be told
    // not to call, so minimal declarations would only invite calls.
    needs_declared_calls: false,
    choice_none: false,
    names: Pattern::ANY,
    ids: Pattern::ANY_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[
        MaxTokens,
        Temperature,
        TopP,
        TopK,
        Stop,
        Seed,
        Stream,
        ResponseFormat,
    ],
    // `tool` messages take text; images go on a `user` message after.
    tool_media: ToolMedia::After,
    dialect: Dialect::Ollama,
    members: Some((&known::REQUEST, known::SDK)),
    owned: &["model", "messages", "tools"],
    ..Spec::of(Provider::Ollama)
};

/// What Ollama is given back of what a history kept: a message's
/// thinking text.
pub(crate) static REPLAYS: &[Replay] = &[Replay {
    member: crate::steps::envelope::OLLAMA_THINKING,
    list: None,
    sdk: known::SDK,
    kinds: None,
    refuse: None,
    reasoning: |_, _| true,
    media: &[],
    normalize: as_kept,
    for_model: any_model,
}];
