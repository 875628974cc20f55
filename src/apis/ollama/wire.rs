//! Ollama `/api/chat` on the wire: one set of types, written by
//! [`write`](super::write) and read by [`read`](super::read).
//!
//! Reading borrows every string from the body. Fields the reader has no
//! use for (the model, `stream`, `tools`, `options`, …) are not read, so a body is never refused over them; a
//! member left out or `null` is absent.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::apis::openai_chat::write::Tool;
use crate::steps::wire::{or_default, AsObject, B64};

/// An `/api/chat` request body.
/// `options`: the model's sampling parameters.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct Sampling {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_predict: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Body<'a> {
    #[serde(skip_deserializing)]
    pub model: Cow<'a, str>,
    #[serde(skip_deserializing)]
    pub stream: bool,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub options: Option<Sampling>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    #[serde(borrow)]
    pub messages: Vec<Message<'a>>,
}

/// `format`: `"json"`, or a JSON Schema the answer follows (`ChatRequest`'s
/// `Format`, a raw JSON value: ollama v0.33.0-rc2, `api/types.go`).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Format {
    Json(&'static str),
    Schema(crate::steps::wire::Sorted),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Message<'a> {
    pub role: Role,
    /// Left out when empty, as the official client does.
    #[serde(
        borrow,
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "str::is_empty"
    )]
    pub content: Cow<'a, str>,
    /// An assistant's thinking (a thinking model's, with `think`), after its
    /// content as the official client orders them:
    /// <https://docs.ollama.com/api/chat> (read 2026-12-02).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Cow<'a, str>>,
    /// Raw base64, no `data:` prefix.
    #[serde(
        borrow,
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub images: Vec<B64<'a>>,
    #[serde(
        borrow,
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tool_calls: Vec<ToolCall<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<Cow<'a, str>>,
    /// Read only: not Ollama's, taken where a history has it.
    #[serde(borrow, default, skip_serializing)]
    pub tool_call_id: Option<Cow<'a, str>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ToolCall<'a> {
    /// Read only: not Ollama's, taken where a history has it.
    #[serde(borrow, default, skip_serializing)]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub function: CallFunction<'a>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CallFunction<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(default)]
    pub arguments: AsObject,
}
