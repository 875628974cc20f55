//! OpenAI Chat Completions on the wire: one set of types, written by
//! [`write`](super::write) and read by [`read`](super::read).
//!
//! Reading borrows from the body the strings serde lets it (a message's
//! text, call ids; optional strings, and those of parts, are copied).
//! Fields the reader has no use for (the model, `tools`, `tool_choice`, a
//! part's `detail` or `filename`, a message's `name` or `refusal`) are not
//! read, so a body is never refused over them. A part of a type not named
//! here is kept as it is ([`Open`]).
//!
//! A message is one struct for every role, as the API's messages share
//! their members: each role writes the ones it has (`tool_call_id` only a
//! `tool` message, `tool_calls` only an assistant's), in the order the
//! role's own object would.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::steps::wire::{AsText, Open, Sorted, Tagged, TextOr, Url};

/// A Chat Completions request body.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Body<'a> {
    #[serde(skip_deserializing)]
    pub model: Cow<'a, str>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<&'static str>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_retention: Option<&'static str>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub verbosity: Option<&'static str>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub safety_identifier: Option<String>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Format>,
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Choice>,
    #[serde(borrow)]
    pub messages: Vec<Message<'a>>,
}

/// `response_format`: JSON mode, or a JSON Schema (the SDK's
/// `ResponseFormatJSONObject` and `ResponseFormatJSONSchema`, `openai`
/// 3.57.0).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Format {
    JsonObject,
    JsonSchema { json_schema: JsonSchema },
}

/// A named JSON Schema, as both OpenAI APIs spell it (Chat under
/// `json_schema`, Responses beside `type` in `text.format`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonSchema {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub schema: Sorted,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl JsonSchema {
    /// The caller's schema.
    pub(crate) fn of(s: &crate::steps::params::OutputSchema) -> JsonSchema {
        JsonSchema {
            name: s.name.clone(),
            description: s.description.clone(),
            schema: Sorted(s.schema.clone()),
            strict: s.strict,
        }
    }
}

/// `tool_choice`: a mode (`auto`, `none`, `required`), or the function the
/// model must call (the SDK's `ChatCompletionToolChoiceOptionParam`,
/// `openai` 3.57.0).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Choice {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        function: Named,
    },
}

/// `{"name"}`: the function a choice names.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Named {
    pub name: String,
}

/// `stream_options`: the usage asked for in the stream's last chunk.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StreamOptions {
    pub include_usage: bool,
}

/// `{"type": "function", "function": {…}}`, as Chat Completions and Ollama
/// declare tools.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Tool {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: Function,
}

/// `{"name", "description", "parameters"}`, the function object Chat
/// Completions, Responses and Ollama share.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Function {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parameters: Sorted,
}

/// A message's role: the four the writer writes, and `developer` (read
/// as `system`) and the legacy `function` (a reply to a `function_call`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
    Function,
}

impl Role {
    /// The role named `name`, if Chat has it.
    pub fn named(name: &str) -> Option<Role> {
        Role::deserialize(de::value::StrDeserializer::<de::value::Error>::new(name)).ok()
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Message<'a> {
    pub role: Role,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<Cow<'a, str>>,
    /// Written for every role: `null` only beside an assistant's calls.
    #[serde(borrow, default, deserialize_with = "content")]
    pub content: Option<Content<'a>>,
    #[serde(
        borrow,
        default,
        deserialize_with = "tool_calls",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub tool_calls: Vec<ToolCall<'a>>,
    /// The legacy single call of an assistant message: read, never written.
    #[serde(borrow, default, skip_serializing)]
    pub function_call: Option<CallFunction<'a>>,
    /// A participant's name: read (to be noted), never written.
    #[serde(borrow, default, skip_serializing)]
    pub name: Option<Cow<'a, str>>,
    /// An assistant's refusal: read, never written.
    #[serde(borrow, default, skip_serializing)]
    pub refusal: Option<Cow<'a, str>>,
    /// An earlier audio answer's reference: read (to be noted), never
    /// written.
    #[serde(default, skip_serializing)]
    pub audio: Option<serde_json::Value>,
}

impl<'a> Message<'a> {
    /// A message of `role` with `content`, and nothing else.
    pub fn new(role: Role, content: Option<Content<'a>>) -> Message<'a> {
        Message {
            role,
            tool_call_id: None,
            content,
            tool_calls: Vec::new(),
            function_call: None,
            name: None,
            refusal: None,
            audio: None,
        }
    }
}

pub(crate) type Content<'a> = TextOr<'a, Open<Part<'a>>>;

/// The visitor methods for the JSON types a field does not take: each
/// refuses with the sentence the reader has always given.
macro_rules! refuse_others {
    ($what:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(E::custom($what))
        }

        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(E::custom($what))
        }

        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(E::custom($what))
        }

        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(E::custom($what))
        }

        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(de::Error::custom($what))
        }
    };
}

/// The items of a list, borrowing from the body.
fn items<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<T>, A::Error> {
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
    while let Some(item) = seq.next_element()? {
        items.push(item);
    }
    Ok(items)
}

/// A message's `content`: text, a list of parts, or null (absent, the
/// field's default).
fn content<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Content<'a>>, D::Error> {
    struct ContentVisitor;

    impl<'de> Visitor<'de> for ContentVisitor {
        type Value = Option<Content<'de>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("text, null or a list of parts")
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(TextOr::Text(Cow::Borrowed(v))))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(TextOr::Text(Cow::Owned(v.to_owned()))))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            items(seq).map(|parts| Some(TextOr::Parts(parts)))
        }

        refuse_others!("content is neither text, null nor a list of parts");
    }

    d.deserialize_any(ContentVisitor)
}

/// An assistant's `tool_calls`: a list, or null for none.
fn tool_calls<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolCall<'a>>, D::Error> {
    struct CallsVisitor;

    const NOT_A_LIST: &str = "tool_calls is not a list";

    impl<'de> Visitor<'de> for CallsVisitor {
        type Value = Vec<ToolCall<'de>>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of calls, or null")
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(E::custom(NOT_A_LIST))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            items(seq)
        }

        refuse_others!(NOT_A_LIST);
    }

    d.deserialize_any(CallsVisitor)
}

/// A part of a message's content: text, an image or a file (a PDF).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Part<'a> {
    Text {
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    ImageUrl {
        #[serde(borrow, deserialize_with = "image_url")]
        image_url: ImageUrl<'a>,
    },
    File {
        #[serde(borrow)]
        file: File<'a>,
    },
}

impl Tagged for Part<'_> {
    const TAGS: &'static [&'static str] = &["text", "image_url", "file"];
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ImageUrl<'a> {
    #[serde(borrow)]
    pub url: Url<'a>,
    /// Written only when a level is given (`Options::with_detail`); the
    /// API assumes `auto` without it. Read, not kept.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub detail: Option<&'static str>,
}

/// `image_url`: `{"url": …}`, or the URL alone (an older form, still read).
fn image_url<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<ImageUrl<'a>, D::Error> {
    struct ImageUrlVisitor;

    impl<'de> Visitor<'de> for ImageUrlVisitor {
        type Value = ImageUrl<'de>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object with a url, or a url")
        }

        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(ImageUrl {
                url: Url::Text(Cow::Borrowed(v)),
                detail: None,
            })
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(ImageUrl {
                url: Url::Text(Cow::Owned(v.to_owned())),
                detail: None,
            })
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            ImageUrl::deserialize(de::value::MapAccessDeserializer::new(map))
        }
    }

    d.deserialize_any(ImageUrlVisitor)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct File<'a> {
    /// Read back as the attachment's name (empty when absent).
    #[serde(borrow, default, skip_serializing_if = "str::is_empty")]
    pub filename: Cow<'a, str>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<Url<'a>>,
    /// A file uploaded with the Files API.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<Cow<'a, str>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ToolCall<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(rename = "type", skip_deserializing)]
    pub kind: &'static str,
    /// Read, a call without one is a function without a name, which the
    /// reader refuses.
    #[serde(borrow, default)]
    pub function: CallFunction<'a>,
    /// A custom tool's call (`type: "custom"`): read, never written.
    #[serde(borrow, default, skip_serializing)]
    pub custom: Option<CustomCall<'a>>,
    /// The call's `type`, as read (`None` when absent): written as
    /// [`ToolCall::kind`].
    #[serde(rename = "type", borrow, default, skip_serializing)]
    pub tag: Option<Cow<'a, str>>,
}

/// A custom tool's call: its name and its free-form input.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct CustomCall<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow, default)]
    pub input: Cow<'a, str>,
}

/// A call's function, and the legacy `function_call` of an assistant.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct CallFunction<'a> {
    /// Always written; read, `None` when the body has none, which the
    /// reader refuses naming the call.
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    /// JSON text, as the API takes it; read, as the body held it.
    #[serde(default)]
    pub arguments: AsText,
}
