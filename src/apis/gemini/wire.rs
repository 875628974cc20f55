//! Gemini `generateContent` on the wire: one set of types, written by
//! [`write`](super::write) and read by [`read`](super::read).
//!
//! Reading borrows the strings outside parts from the body (a part is
//! read as an object first, to see its kind). Fields the reader has no
//! use for (`tools`, `toolConfig`, `generationConfig`, …) are not read, so
//! a body is never refused over them; a member left out or `null` is
//! absent (proto3 JSON). A part's kind is the member it holds
//! ([`Keyed`]): a part of a kind not named here (`fileData`,
//! `executableCode`, …) is kept as it is; one of a kind named here must
//! have that kind's shape.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::steps::wire::{or_default, AsObject, Keyed, Keys, Sorted, B64};

/// `generationConfig`.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerationConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_mime_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_json_schema: Option<crate::steps::wire::Sorted>,
}

/// `generationConfig.thinkingConfig`.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThinkingConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<&'static str>,
}

/// A `generateContent` request body.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Body<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<SystemInstruction<'a>>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tools<'a>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub generation_config: Option<GenerationConfig>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    #[serde(borrow)]
    pub contents: Vec<Content<'a>>,
}

/// Read, its `role` (if any) is not: it is the system's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SystemInstruction<'a> {
    #[serde(borrow, default, deserialize_with = "or_default")]
    pub parts: Vec<Item<'a>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tools<'a> {
    pub function_declarations: Vec<FunctionDeclaration<'a>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionDeclaration<'a> {
    pub name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Cow<'a, str>>,
    pub parameters_json_schema: Sorted,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolConfig {
    pub function_calling_config: FunctionCallingConfig,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionCallingConfig {
    pub mode: &'static str,
    /// The functions an `ANY` mode may call (a named tool's, alone).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_function_names: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    /// Also a content without a role.
    #[default]
    User,
    Model,
    /// Read, any other role (`function`, of older bodies): the user's.
    #[serde(other, skip_serializing)]
    Other,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Content<'a> {
    #[serde(default, deserialize_with = "or_default")]
    pub role: Role,
    #[serde(borrow)]
    pub parts: Vec<Item<'a>>,
}

/// A part the crate knows, or one kept as Gemini wrote it.
pub(crate) type Item<'a> = Keyed<Part<'a>>;

/// A part: one of `text`, `inlineData`, `fileData`, `functionCall` or
/// `functionResponse` (the API's `data`), and what marks it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Part<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<Blob<'a>>,
    /// A file uploaded with the Files API, by its URI.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<FileData<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse<'a>>,
    /// A thought (summary) of the model's, not its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<Cow<'a, str>>,
    /// Written on media parts, with a detail level given for Gemini 3
    /// (`crate::steps::detail`); read, not kept.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub media_resolution: Option<MediaResolution>,
    /// Read, the part's other members (`videoMetadata`, …), so a part
    /// kept is kept whole.
    #[serde(flatten, skip_serializing_if = "Map::is_empty")]
    pub rest: Map<String, Value>,
}

impl Keys for Part<'_> {
    const KEYS: &'static [&'static str] = &[
        "text",
        "inlineData",
        "fileData",
        "functionCall",
        "functionResponse",
    ];
}

impl<'a> Part<'a> {
    pub fn text(text: impl Into<Cow<'a, str>>) -> Item<'a> {
        Keyed::Known(Part {
            text: Some(text.into()),
            ..Part::default()
        })
    }

    pub fn inline_data(blob: Blob<'a>) -> Item<'a> {
        Keyed::Known(Part {
            inline_data: Some(blob),
            ..Part::default()
        })
    }

    pub fn file_data(file: FileData<'a>) -> Item<'a> {
        Keyed::Known(Part {
            file_data: Some(file),
            ..Part::default()
        })
    }

    pub fn function_call(call: FunctionCall<'a>, signature: Option<Cow<'a, str>>) -> Item<'a> {
        Keyed::Known(Part {
            function_call: Some(call),
            thought_signature: signature,
            ..Part::default()
        })
    }

    pub fn function_response(response: FunctionResponse<'a>) -> Item<'a> {
        Keyed::Known(Part {
            function_response: Some(response),
            ..Part::default()
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Blob<'a> {
    #[serde(borrow)]
    pub mime_type: Cow<'a, str>,
    #[serde(borrow)]
    pub data: B64<'a>,
}

/// A part's media resolution, `{"level": "MEDIA_RESOLUTION_…"}` (the
/// SDK's `PartMediaResolution`).
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct MediaResolution {
    pub level: &'static str,
}

/// A file the Files API holds: `{"mimeType", "fileUri"}` (both required
/// to send one: <https://ai.google.dev/api/caching#FileData>, read
/// 2026-12-02).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileData<'a> {
    #[serde(borrow)]
    pub mime_type: Cow<'a, str>,
    #[serde(borrow)]
    pub file_uri: Cow<'a, str>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct FunctionCall<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(default)]
    pub args: AsObject,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct FunctionResponse<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "or_default")]
    pub name: Cow<'a, str>,
    /// Read, `null` too is a response (`Some`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub response: Option<Response<'a>>,
    #[serde(
        borrow,
        default,
        deserialize_with = "or_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub parts: Vec<Item<'a>>,
}

/// A function's response: `{"output": text}`, or `{"error": text}` for a
/// failed call, as written; read, any other JSON (the API takes any
/// object) is kept whole.
///
/// The two keys are the API's own: "Use \"output\" key to specify function
/// output and \"error\" key to specify error details (if any). If
/// \"output\" and \"error\" keys are not specified, then whole
/// \"response\" is treated as function output."
/// (`FunctionResponse.response`,
/// <https://ai.google.dev/api/caching#FunctionResponse> and
/// <https://googleapis.github.io/python-genai/genai.html#genai.types.FunctionResponse>,
/// read 2026-12-02).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Response<'a> {
    Output(#[serde(borrow)] Output<'a>),
    Error(#[serde(borrow)] Failure<'a>),
    Other(Value),
}

/// `{"error": text}`: what a failed call reported.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Failure<'a> {
    #[serde(borrow)]
    pub error: Cow<'a, str>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Output<'a> {
    #[serde(borrow)]
    pub output: Cow<'a, str>,
}

/// A member that is there, `null` included.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}
