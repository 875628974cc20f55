//! Bedrock Converse on the wire: one set of types, written by
//! [`write`](super::write) and read by [`read`](super::read).
//!
//! A content block is an object with one member named for its kind
//! (`{"text": …}`, `{"image": {…}}`); a block of a kind not named here
//! (reasoning, guard content, video, …) is kept as it is ([`Keyed`]).
//! Reading borrows strings from the body and leaves out what it has no use
//! for (`toolConfig`, Claude's own fields, inference settings).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::steps::wire::{AsObject, Keyed, Keys, Sorted, B64};

/// A Converse request body.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Body<'a> {
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<Keyed<Block<'a>>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub inference_config: Option<InferenceConfig>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub additional_model_request_fields: Option<Extra>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<ServiceTier>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub request_metadata: Option<BTreeMap<String, String>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
    #[serde(borrow)]
    pub messages: Vec<Message<'a>>,
}

/// `outputConfig`: the JSON Schema the answer follows, as
/// `{"textFormat": {"type": "json_schema", "structure": {"jsonSchema":
/// {"schema": "<the schema as a JSON string>", "name", "description"}}}}`
/// (botocore 1.44.8's `OutputConfig`, `OutputFormat`,
/// `JsonSchemaDefinition`: `schema` a string).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OutputConfig {
    pub text_format: OutputFormat,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct OutputFormat {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub structure: OutputStructure,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OutputStructure {
    pub json_schema: JsonSchemaDefinition,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonSchemaDefinition {
    pub schema: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// `serviceTier`: `{"type": …}`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ServiceTier {
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolConfig<'a> {
    pub tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

/// `toolChoice`, a union: `{"auto": {}}`, `{"any": {}}` or
/// `{"tool": {"name"}}` (botocore 1.44.8's `ToolChoice`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum ToolChoice {
    Auto {},
    Any {},
    Tool { name: String },
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Tool<'a> {
    ToolSpec(ToolSpec<'a>),
    CachePoint(CachePoint),
}

/// A prompt-cache checkpoint: everything before it is cached.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct CachePoint {
    #[serde(rename = "type", skip_deserializing)]
    kind: &'static str,
    /// `5m` or `1h`; left out, the default five minutes
    /// (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html>,
    /// read 2026-12-02).
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CachePoint {
    pub const DEFAULT: CachePoint = CachePoint {
        kind: "default",
        ttl: None,
    };

    /// A cache point with this TTL (`None`: the default).
    pub fn with_ttl(ttl: Option<&'static str>) -> CachePoint {
        CachePoint {
            ttl,
            ..CachePoint::DEFAULT
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolSpec<'a> {
    pub name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Cow<'a, str>>,
    pub input_schema: Schema,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct Schema {
    pub json: Sorted,
}

/// `inferenceConfig`: the settings every model takes.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InferenceConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
}

/// Claude's own fields, passed through by Converse: typed tools, the
/// betas they need, and the settings Converse does not name.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct Extra {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Sorted>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anthropic_beta: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
}

/// Claude's extended thinking with a token budget.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Thinking {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub budget_tokens: u32,
}

pub(crate) use crate::steps::wire::Role;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Message<'a> {
    pub role: Role,
    #[serde(borrow)]
    pub content: Vec<Keyed<Block<'a>>>,
}

/// A content block: an object with one member named for its kind.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Block<'a> {
    #[serde(borrow)]
    Text(Cow<'a, str>),
    #[serde(borrow)]
    Image(Image<'a>),
    #[serde(borrow)]
    Document(Document<'a>),
    #[serde(borrow)]
    ToolUse(ToolUse<'a>),
    #[serde(borrow)]
    ToolResult(ToolResultBlock<'a>),
    CachePoint(CachePoint),
    /// Read only: a tool result's JSON (`{"json": …}`).
    Json(Value),
    /// Written only, and never by serde: a block the history kept (a
    /// `reasoningContent` block with its signature), which the writer
    /// gives back byte for byte as [`Keyed::Raw`].
    #[serde(skip)]
    Kept(Box<RawValue>),
}

impl Keys for Block<'_> {
    const KEYS: &'static [&'static str] = &[
        "text",
        "image",
        "document",
        "toolUse",
        "toolResult",
        "cachePoint",
        "json",
    ];
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Image<'a> {
    #[serde(borrow)]
    pub format: Cow<'a, str>,
    #[serde(borrow)]
    pub source: Bytes<'a>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Document<'a> {
    #[serde(borrow)]
    pub format: Cow<'a, str>,
    #[serde(borrow, default)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub source: Bytes<'a>,
}

/// An image's or a document's source: its bytes as base64 text (the JSON
/// of the REST API), or the S3 object that holds them (`s3Location`, a
/// union member of `ImageSource` and `DocumentSource`:
/// <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageSource.html>,
/// read 2026-12-02). Read, one with neither is refused.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Bytes<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<B64<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub s3_location: Option<S3Location<'a>>,
}

impl<'a> Bytes<'a> {
    /// Base64 bytes.
    pub fn base64(bytes: B64<'a>) -> Bytes<'a> {
        Bytes {
            bytes: Some(bytes),
            s3_location: None,
        }
    }
}

/// `{"uri": "s3://…", "bucketOwner": "…"}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct S3Location<'a> {
    #[serde(borrow)]
    pub uri: Cow<'a, str>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub bucket_owner: Option<Cow<'a, str>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolUse<'a> {
    #[serde(borrow)]
    pub tool_use_id: Cow<'a, str>,
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(default)]
    pub input: AsObject,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolResultBlock<'a> {
    #[serde(borrow)]
    pub tool_use_id: Cow<'a, str>,
    #[serde(borrow, default)]
    pub content: Vec<Keyed<Block<'a>>>,
    /// `"error"` for a failed tool (Converse's `status`).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Cow<'a, str>>,
}

impl Block<'_> {
    pub fn is_text(&self) -> bool {
        matches!(self, Block::Text(_))
    }

    pub fn is_document(&self) -> bool {
        matches!(self, Block::Document(_))
    }

    /// Whether the block sends an image or a document (itself, or inside
    /// a tool result).
    pub fn sends_media(&self) -> bool {
        match self {
            Block::Image(_) | Block::Document(_) => true,
            Block::ToolResult(r) => r.content.iter().any(|item| match item {
                Keyed::Known(block) => block.sends_media(),
                Keyed::Other(_) | Keyed::Raw(_) => false,
            }),
            _ => false,
        }
    }
}
