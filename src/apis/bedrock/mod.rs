//! Amazon Bedrock Converse: writing, reading (request bodies and
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
use crate::steps::spec::Spec;

/// What the crate knows of the API's request shape.
pub(crate) const SPEC: Spec = Spec {
    method: "POST",
    url: "https://bedrock-runtime.{region}.amazonaws.com/model/{model}/converse",
    model_in_body: false,
    needs_declared_calls: true,
    // Converse's toolChoice is auto, any or tool.
    choice_none: false,
    names: Pattern::TOOL_NAME,
    ids: Pattern::BEDROCK_ID,
    // Where each goes, with its source: `write.rs`.
    settings: &[MaxTokens, Temperature, TopP, Stop],
    // Through `additionalModelRequestFields`, as Claude spells them.
    claude_settings: &[TopK, ThinkingBudget, CacheTtl],
    ..Spec::of(Provider::Bedrock)
};

/// What Bedrock is given back of what a history kept: its reasoning
/// blocks, first in their message: Claude's extended thinking with tool
/// use needs the turn's thinking, unchanged, before its text and tool use
/// (<https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html>,
/// read 2026-12-02). Its other kept blocks are no model's input.
pub(crate) static REPLAYS: &[Replay] = &[Replay {
    member: crate::steps::envelope::BEDROCK_BLOCKS,
    list: Some(&known::CONTENT),
    sdk: known::SDK,
    kinds: Some(&["reasoningContent"]),
    refuse: None,
    reasoning: |tag, _| tag == "reasoningContent",
    media: &[],
    normalize: as_kept,
    for_model: any_model,
}];
