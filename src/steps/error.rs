//! Why a request could not be built.

use thiserror::Error;

use crate::facts::Provider;

use super::options::OptionsError;
use super::report::{Note, ReplayNote};
use super::rule::{Rule, Violation};
use super::tools::schema::SchemaError;

/// Why a request could not be built.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The options contradict each other.
    #[error("contradictory options: {0}")]
    Options(#[from] OptionsError),
    /// An extra member ([`Options::with_extra`](crate::provider::Options::with_extra))
    /// in a member the crate writes from the history, or over a value it
    /// writes.
    #[error("{0}")]
    Extra(#[from] super::extra::ExtraError),
    /// With [`Options::with_strict`](crate::provider::Options::with_strict): declared attachments failed (each
    /// note says which and why).
    #[error("{} declared attachment{} failed: {}", .0.len(), if .0.len() == 1 { "" } else { "s" }, failures(.0))]
    Attachments(Vec<Note>),
    /// A message of a role the history does not have (roles are compared
    /// exactly: `Assistant` is not `assistant`) holds tool calls or a tool
    /// result, which would go as a user's text.
    #[error("message {index} has the role {role:?}, which is none of system, developer, user, assistant, tool (roles are compared exactly), yet holds {what}: give it its role")]
    Role {
        /// The message, from 0.
        index: usize,
        /// Its role, as written.
        role: String,
        /// What it holds: `tool calls`, `a tool result`.
        what: &'static str,
    },
    /// With [`Options::with_strict`](crate::provider::Options::with_strict):
    /// entries an assistant message kept were left out (each note says
    /// which and why): another API's server tool calls, or entries of a
    /// kind or with a member the API does not take.
    #[error("{} kept entr{} left out: {}", .0.len(), if .0.len() == 1 { "y was" } else { "ies were" }, .0.iter().map(|n| format!("message {}: {}", n.index, n.text)).collect::<Vec<_>>().join("; "))]
    Replayed(Vec<ReplayNote>),
    /// The request is over the provider's size limit even with every
    /// inline attachment left out: its text alone is too large, and only
    /// compacting the history helps.
    #[error("the {provider} request is {size} bytes with every inline attachment left out, {} over its limit of {limit} ({}: {}); compact the history", size - limit, rule.id, rule.source)]
    TooLarge {
        /// The provider.
        provider: Provider,
        /// The body's size, in bytes, with nothing left to leave out.
        size: usize,
        /// The limit.
        limit: usize,
        /// The rule.
        rule: &'static Rule,
    },
    /// A generation setting ([`Params`](crate::provider::Params)) the
    /// provider's API, or the model, does not take: it is neither left
    /// out nor sent to be refused.
    #[error("{api} does not take the setting {setting}{}", if why.is_empty() { String::new() } else { format!(" ({why})") })]
    Unsupported {
        /// The setting's key (`top_k`, `seed`, …).
        setting: &'static str,
        /// The API's display name.
        api: &'static str,
        /// Why, where it depends on the model.
        why: String,
    },
    /// A `max_tokens` over the model's documented output limit: the API
    /// refuses it.
    #[error("max_tokens {given} is over the {cap}-token output limit of {model}{}", page.as_ref().map(|s| format!(" ({s})")).unwrap_or_default())]
    OutputTokens {
        /// The `max_tokens` given.
        given: u32,
        /// The model's documented limit.
        cap: u64,
        /// The model, by its name where the facts give one.
        model: String,
        /// Where the limit was read, and when.
        page: Option<String>,
    },
    /// An image detail level ([`Options::with_detail`](crate::provider::Options::with_detail))
    /// the model's facts do not list.
    #[error("{model} on {api} does not take image detail {detail}: {}", if levels.is_empty() { "the facts list no detail levels for it (only auto is sent to a model they do not describe)".to_owned() } else { format!("it takes {}", levels.join(", ")) })]
    Detail {
        /// The level given.
        detail: crate::facts::Detail,
        /// The model.
        model: String,
        /// The API's name (`openai-chat`, …).
        api: &'static str,
        /// The levels the model's facts list (none for a model they do
        /// not describe).
        levels: Vec<String>,
    },
    /// The caller's `tool_choice` cannot be sent as given: no tools are
    /// declared, only stand-ins for the tools the history calls are, it
    /// names a tool no definition names, or it says `none` beside
    /// `parallel_tool_calls`.
    #[error("tool_choice {choice}: {problem}")]
    ToolChoice {
        /// The choice given.
        choice: super::choice::ToolChoice,
        /// Why it cannot be sent.
        problem: String,
    },
    /// The body breaks a rule of the provider's API: it would be refused.
    /// A history with nothing to send (empty, or system text alone) gets
    /// here; any other case would be a fault of this crate's builders,
    /// and this says where.
    #[error("the body would be refused: {violation}{}", if *more > 0 { format!(" (and {more} more)") } else { String::new() })]
    Refused {
        /// The first rule broken, with the JSON path in the body.
        violation: Violation,
        /// How many more were found.
        more: usize,
    },
    /// An Anthropic typed tool with no documented input schema, for a
    /// provider that takes only function declarations.
    #[error("tool {tool}: Anthropic's {tool_type} cannot be declared for {provider}: Anthropic documents no input schema for it, and {provider} does not take Anthropic's typed tools")]
    NoDeclaration {
        /// The tool's name.
        tool: String,
        /// Its Anthropic `type`.
        tool_type: String,
        /// The provider.
        provider: Provider,
    },
    /// An Anthropic typed tool under another name than the one its type
    /// fixes (Anthropic refuses it, and its calls carry the fixed name).
    #[error("tool {tool}: Anthropic's {tool_type} is always named {expected:?}")]
    TypedName {
        /// The name given.
        tool: String,
        /// Its Anthropic `type`.
        tool_type: String,
        /// The name the type fixes.
        expected: &'static str,
    },
    /// An input schema the provider cannot be given.
    #[error("tool {tool}: {error}")]
    Schema {
        /// The tool's name.
        tool: String,
        /// What is wrong with its schema.
        error: SchemaError,
    },
}

/// The notes, one after another, for an error message.
fn failures(notes: &[Note]) -> String {
    notes
        .iter()
        .map(|n| format!("message {}: {}", n.index, n.text))
        .collect::<Vec<_>>()
        .join("; ")
}
