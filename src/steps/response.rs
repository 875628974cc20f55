//! What reading a provider's response (a body or an event stream) into an
//! assistant record can fail with, shared by every API that reads them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// A response that could not be read into an assistant record.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseError {
    /// The provider answered with an error (a body or a stream's `error`
    /// event): its error type and message.
    Provider {
        /// The provider's error type (`overloaded_error`, …).
        kind: String,
        /// The provider's message.
        message: String,
    },
    /// The text is not the response's shape: where, and what is wrong.
    Shape {
        /// What was being read (`the response body`, `event 3
        /// (content_block_delta)`, …).
        at: String,
        /// What serde_json or the reader said.
        reason: String,
    },
    /// The stream ended before the response did: what it still lacked.
    Truncated {
        /// What was missing (`message_stop`, `content_block_stop for block
        /// 1`, …).
        missing: String,
    },
    /// The event stream itself is broken (bytes that are not UTF-8).
    Stream(String),
    /// The API's responses are not read (yet).
    Unsupported {
        /// The provider's name.
        provider: &'static str,
    },
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseError::Provider { kind, message } => {
                write!(f, "the provider answered with an error: {kind}: {message}")
            }
            ResponseError::Shape { at, reason } => write!(f, "{at}: {reason}"),
            ResponseError::Truncated { missing } => {
                write!(f, "the stream ended early: it lacks {missing}")
            }
            ResponseError::Stream(reason) => write!(f, "the event stream is broken: {reason}"),
            ResponseError::Unsupported { provider } => {
                write!(
                    f,
                    "{provider} responses are not read yet (only request bodies are)"
                )
            }
        }
    }
}

impl std::error::Error for ResponseError {}

/// [`ResponseError::Truncated`] naming everything a stream still lacks,
/// and the line it stopped inside if it did; `Ok` when it lacks nothing.
pub(crate) fn lacking(
    missing: Vec<String>,
    half_line: Option<String>,
) -> Result<(), ResponseError> {
    if missing.is_empty() {
        return Ok(());
    }
    let mut missing = missing.join(" and ");
    if let Some(line) = half_line {
        missing.push_str(&format!(" (it stops inside the line {line:?})"));
    }
    Err(ResponseError::Truncated { missing })
}

/// A provider's event stream read as its bytes arrive, into one assistant
/// turn ([`import::response_stream`](crate::import::response_stream)).
pub trait ResponseStream {
    /// Take the next bytes, cut anywhere.
    ///
    /// # Errors
    /// [`ResponseError`]: an error event, or an event of a broken shape.
    fn push(&mut self, bytes: &[u8]) -> Result<(), ResponseError>;

    /// End the stream: the assistant turn.
    ///
    /// # Errors
    /// [`ResponseError::Truncated`] naming what the stream still lacks, or
    /// the error a push returned.
    fn finish(self: Box<Self>) -> Result<crate::history::AssistantTurn, ResponseError>;
}

/// Which form of response a text is ([`import::response_form`](crate::import::response_form)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseForm {
    /// A response body, not streamed (or an error body).
    Body,
    /// A streamed response: Server-Sent Events, or JSON Lines where the
    /// API streams them.
    Stream,
}

/// How an API reads its responses: one row member of the API table.
pub(crate) struct ResponseReader {
    /// A response body, not streamed.
    pub body: fn(&str) -> Result<crate::history::AssistantTurn, ResponseError>,
    /// A reader for an event stream.
    pub stream: fn() -> Box<dyn ResponseStream>,
    /// Which form of this API's response `text` is, told by its shape
    /// alone; `None` for anything else (a request body).
    pub sniff: fn(&str) -> Option<ResponseForm>,
}

/// The assistant turn a response reader read: its text, its calls (id,
/// name, arguments as JSON text) and the envelope members kept, each
/// given or `None`. `calls_are` names the calls in an error: `the input
/// of tool_use` gives `the input of tool_use "toolu_1"`.
///
/// # Errors
/// [`ResponseError::Shape`] for a call's arguments, or a member, that is
/// not JSON.
pub(crate) fn assistant_turn<I, N, A>(
    text: String,
    calls: impl IntoIterator<Item = (I, N, A)>,
    calls_are: &str,
    members: impl IntoIterator<Item = (&'static str, Option<String>)>,
) -> Result<crate::history::AssistantTurn, ResponseError>
where
    I: Into<String>,
    N: Into<String>,
    A: AsRef<str>,
{
    let mut out = crate::history::AssistantTurn::new(text);
    for (id, name, arguments) in calls {
        out = out
            .call(id, name, arguments.as_ref())
            .map_err(|e| ResponseError::Shape {
                at: format!("{calls_are} {:?}", e.call_id),
                reason: e.reason,
            })?;
    }
    for (name, json) in members {
        if let Some(json) = json {
            out = out
                .with_member(name, &json)
                .map_err(|e| ResponseError::Shape {
                    at: format!("the envelope's {name}"),
                    reason: e.reason,
                })?;
        }
    }
    Ok(out)
}

/// `text` from its first byte that is neither a byte order mark nor JSON
/// white space: where every reader's look at a response's form begins.
pub(crate) fn leading_trimmed(text: &str) -> &str {
    text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
}

/// Whether `text` starts (after white space) as Server-Sent Events do: a
/// field (`event:`, `data:`, `id:`) or a comment line.
pub(crate) fn looks_like_sse(text: &str) -> bool {
    let start = leading_trimmed(text);
    ["event:", "data:", "id:", ":"]
        .iter()
        .any(|field| start.starts_with(field))
}

/// The members of the JSON object `text` is (its first level only, every
/// value raw), or `None` when `text` is no JSON object.
pub(crate) fn top_members(text: &str) -> Option<Vec<String>> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let members: Members<'_> = serde_json::from_str(text).ok()?;
    Some(members.0.into_iter().map(|(k, _)| k.into_owned()).collect())
}

/// An object's members in the order written, each value raw.
pub(crate) struct Members<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}
