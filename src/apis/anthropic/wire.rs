//! Anthropic Messages on the wire: one set of types, written by
//! [`write`](super::write) and read by [`read`](super::read).
//!
//! Reading borrows every string from the body. Fields the reader has no
//! use for (the model, `max_tokens`, `tools`, `tool_choice`) are not read,
//! so a body is never refused over them; `cache_control` marks are the
//! request's, not the conversation's, and are not read. A block of a type
//! not named here is kept as it is ([`Open`]).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::steps::wire::{AsObject, Open, Sorted, Tagged, TextOr, B64};

/// A Messages request body.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Body<'a> {
    #[serde(skip_deserializing)]
    pub model: Cow<'a, str>,
    #[serde(skip_deserializing)]
    pub max_tokens: u32,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u32>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub system: Option<TextOr<'a, Marked<Item<'a>>>>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Marked<Tool<'a>>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(borrow)]
    pub messages: Vec<Message<'a>>,
}

/// Extended thinking: with a token budget (`enabled`), or `adaptive`.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Thinking {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<u32>,
}

/// `metadata`: the end user's opaque id (the SDK's `MetadataParam`,
/// `anthropic` 2.14.0, has no other member).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Metadata {
    pub user_id: String,
}

/// `output_config`: how much effort the model spends, and the JSON
/// Schema its answer follows (the SDK's `OutputConfigParam`, `anthropic`
/// 2.14.0).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct OutputConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<JsonOutputFormat>,
}

/// `output_config.format`: `{"type": "json_schema", "schema": {…}}` (the
/// SDK's `JSONOutputFormatParam`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonOutputFormat {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub schema: crate::steps::wire::Sorted,
}

#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Tool<'a> {
    /// A typed tool's definition, as given.
    Typed(Sorted),
    Custom {
        name: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<Cow<'a, str>>,
        input_schema: Sorted,
    },
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct ToolChoice {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The tool a `tool` choice names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_parallel_tool_use: Option<bool>,
}

/// Who says a message. Besides the user and the assistant, a `system`
/// message may stand among the others: a text the operator adds mid-way
/// (the `anthropic` 2.14.0 SDK's `SystemMessageParam`, text or text
/// blocks; Claude Code sends them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    User,
    Assistant,
    System,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Message<'a> {
    pub role: Role,
    #[serde(borrow)]
    pub content: TextOr<'a, Marked<Item<'a>>>,
}

/// A tool result's content.
pub(crate) type Content<'a> = TextOr<'a, Item<'a>>;

/// A block or a tool, maybe marked as a prompt-cache breakpoint.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Marked<T> {
    #[serde(flatten)]
    pub inner: T,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// Unmarked, the item is written as itself (not flattened into a map, so
/// a raw block goes out byte for byte); marked, with `cache_control` after
/// its members.
impl<T: Serialize> Serialize for Marked<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct With<'a, T> {
            #[serde(flatten)]
            inner: &'a T,
            cache_control: &'a CacheControl,
        }
        match &self.cache_control {
            None => self.inner.serialize(s),
            Some(cache_control) => With {
                inner: &self.inner,
                cache_control,
            }
            .serialize(s),
        }
    }
}

impl<T> Marked<T> {
    pub fn plain(inner: T) -> Marked<T> {
        Marked {
            inner,
            cache_control: None,
        }
    }

    pub fn breakpoint(inner: T, cache_control: CacheControl) -> Marked<T> {
        Marked {
            inner,
            cache_control: Some(cache_control),
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
    /// `5m` or `1h`; left out, the default five minutes.
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CacheControl {
    /// The default (five-minute) cache.
    pub const EPHEMERAL: CacheControl = CacheControl {
        kind: "ephemeral",
        ttl: None,
    };

    /// The ephemeral cache with this TTL (`None`: the default).
    pub fn with_ttl(ttl: Option<&'static str>) -> CacheControl {
        CacheControl {
            ttl,
            ..CacheControl::EPHEMERAL
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Block<'a> {
    Text {
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    Image {
        #[serde(borrow)]
        source: Source<'a>,
    },
    Document {
        #[serde(borrow)]
        source: Source<'a>,
        /// The document's title: the attachment's declared file name.
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        title: Option<Cow<'a, str>>,
    },
    ToolUse {
        #[serde(borrow)]
        id: Cow<'a, str>,
        #[serde(borrow)]
        name: Cow<'a, str>,
        #[serde(default)]
        input: AsObject,
    },
    ToolResult {
        #[serde(borrow)]
        tool_use_id: Cow<'a, str>,
        #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
        content: Option<Content<'a>>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl Tagged for Block<'_> {
    const TAGS: &'static [&'static str] = &["text", "image", "document", "tool_use", "tool_result"];
}

/// A block the crate knows, or one kept as Anthropic wrote it.
pub(crate) type Item<'a> = Open<Block<'a>>;

/// Whether the item sends an image or a document (itself, or inside a
/// tool result).
pub(crate) fn sends_media(item: &Item<'_>) -> bool {
    match item {
        Open::Known(Block::Image { .. } | Block::Document { .. }) => true,
        Open::Known(Block::ToolResult {
            content: Some(TextOr::Parts(items)),
            ..
        }) => items.iter().any(sends_media),
        _ => false,
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Source<'a> {
    Base64 {
        #[serde(borrow)]
        media_type: Cow<'a, str>,
        #[serde(borrow)]
        data: B64<'a>,
    },
    Url {
        #[serde(borrow)]
        url: Cow<'a, str>,
    },
    /// A file uploaded with the Files API (beta `files-api-2025-04-14`).
    File {
        #[serde(borrow)]
        file_id: Cow<'a, str>,
    },
}
