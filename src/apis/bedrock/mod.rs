//! Amazon Bedrock Converse: writing, reading, rules and facts.

pub(crate) mod read;
pub(crate) mod rules;
pub(crate) mod wire;
pub(crate) mod write;

use crate::facts::Provider;
use crate::steps::names::Pattern;
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
    ..Spec::of(Provider::Bedrock)
};
