//! OpenAI Responses on the wire: one set of types, written by
//! [`write`](super::write) and read by [`read`](super::read).
//!
//! Fields the reader has no use for (the model, `tools`, `tool_choice`, an
//! image's `detail`, a file's `filename`, an item's `id` or `status`) are
//! not read, so a body is never refused over them. An item or a part of a
//! type not named here (`reasoning`, with its `encrypted_content`, and the
//! others) is kept as it is ([`Open`]). Items and parts are read from a
//! copy (as [`Open`] reads them), so their strings are copied.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::apis::openai_chat::wire::{Function, JsonSchema};
use crate::steps::wire::{AsText, Open, Tagged, TextOr, Url};

/// `reasoning: {"effort": …}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Reasoning {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'static str>,
}

/// `text`: the answer's verbosity and format (the SDK's
/// `ResponseTextConfigParam`, `openai` 3.57.0).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Text {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verbosity: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
}

/// `text.format`: JSON mode, or a JSON Schema with its name beside its
/// `type` (the SDK's `ResponseFormatTextConfigParam`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Format {
    JsonObject,
    JsonSchema(JsonSchema),
}

/// `tool_choice`: a mode (`auto`, `none`, `required`), or the function
/// the model must call (the SDK's `ToolChoiceFunctionParam`, `openai`
/// 3.57.0).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Choice {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        name: String,
    },
}

/// A Responses request body.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Body<'a> {
    #[serde(skip_deserializing)]
    pub model: Cow<'a, str>,
    /// The system text given apart from the input (the writer gives it as
    /// `system` messages, in their place).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Cow<'a, str>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_retention: Option<&'static str>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub safety_identifier: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Choice>,
    /// A list of items, or (read) text: one user message.
    #[serde(borrow)]
    pub input: TextOr<'a, Input<'a>>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Tool {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(flatten)]
    pub function: Function,
    pub strict: bool,
}

/// An input item: one the crate knows, or any other kept as it is. A
/// message may leave its `type` out, as the API allows.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub(crate) struct Input<'a>(pub Open<Item<'a>>);

impl<'a> From<Item<'a>> for Input<'a> {
    fn from(item: Item<'a>) -> Input<'a> {
        Input(Open::Known(item))
    }
}

impl<'de> Deserialize<'de> for Input<'_> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut item = Map::<String, Value>::deserialize(d)?;
        if !item.get("type").is_some_and(Value::is_string) && item.contains_key("role") {
            item.insert("type".to_owned(), Value::from("message"));
        }
        Open::deserialize(Value::Object(item))
            .map(Input)
            .map_err(de::Error::custom)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    System,
    /// Read as `system`.
    Developer,
    User,
    Assistant,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Item<'a> {
    Message {
        role: Role,
        #[serde(borrow)]
        content: Content<'a>,
    },
    FunctionCall {
        #[serde(borrow)]
        call_id: Cow<'a, str>,
        #[serde(borrow)]
        name: Cow<'a, str>,
        /// JSON text, as the API takes it; read, as the body held it.
        #[serde(default)]
        arguments: AsText,
    },
    FunctionCallOutput {
        #[serde(borrow)]
        call_id: Cow<'a, str>,
        #[serde(borrow)]
        output: Content<'a>,
    },
}

impl Tagged for Item<'_> {
    const TAGS: &'static [&'static str] = &["message", "function_call", "function_call_output"];
}

pub(crate) type Content<'a> = TextOr<'a, Open<Part<'a>>>;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum Part<'a> {
    #[serde(rename = "input_text")]
    Text {
        #[serde(borrow)]
        text: Cow<'a, str>,
        /// Written only (read, it is the request's, not the history's).
        #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
        prompt_cache_breakpoint: Option<Breakpoint>,
    },
    #[serde(rename = "input_image")]
    Image {
        #[serde(skip_deserializing)]
        detail: &'static str,
        /// Absent when the image goes by `file_id`.
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        image_url: Option<Url<'a>>,
        /// A file uploaded with the Files API.
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        file_id: Option<Cow<'a, str>>,
        #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
        prompt_cache_breakpoint: Option<Breakpoint>,
    },
    /// Read, one with none of `file_data`, `file_url` and `file_id` is
    /// refused by the reader.
    #[serde(rename = "input_file")]
    File {
        /// Read back as the attachment's name.
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        filename: Option<Cow<'a, str>>,
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        file_data: Option<Url<'a>>,
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        file_url: Option<Cow<'a, str>>,
        /// A file uploaded with the Files API.
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        file_id: Option<Cow<'a, str>>,
        #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
        prompt_cache_breakpoint: Option<Breakpoint>,
    },
}

/// `{"mode": "explicit"}`: the end of a prefix to cache, on a content part
/// (the SDK's `PromptCacheBreakpoint`, `openai` 3.57.0; its `ttl` is left
/// to the request's).
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Breakpoint {
    pub mode: &'static str,
}

impl Breakpoint {
    pub(crate) const EXPLICIT: Breakpoint = Breakpoint { mode: "explicit" };
}

impl Part<'_> {
    /// Mark the part as the end of a prefix to cache.
    pub(crate) fn mark(&mut self) {
        let (Part::Text {
            prompt_cache_breakpoint,
            ..
        }
        | Part::Image {
            prompt_cache_breakpoint,
            ..
        }
        | Part::File {
            prompt_cache_breakpoint,
            ..
        }) = self;
        *prompt_cache_breakpoint = Some(Breakpoint::EXPLICIT);
    }
}

impl Tagged for Part<'_> {
    const TAGS: &'static [&'static str] = &["input_text", "input_image", "input_file"];
}
