//! What the crate knows of an API's request shape: its names, where its
//! requests go, its patterns for tool names and ids, what it can be told
//! about tools. Each API's folder holds its own (`apis/NAME/mod.rs`); the
//! facts that change with the provider's pages (models, limits, image
//! sizes, defaults) are data: [`crate::facts`].

use std::fmt;

use super::declare::TypedTools;
use super::members::Members;
use super::names::Pattern;
use super::params::{Params, Setting};
use super::tools::schema::Dialect;
use crate::facts::{Family, Provider};
use crate::media::{Holder, ProviderFile};

/// What the crate knows of one provider.
#[derive(Debug)]
pub struct Spec {
    /// The provider.
    pub provider: Provider,
    /// The name used in notes: `Anthropic`, `OpenAI`, …
    pub display_name: &'static str,
    /// The HTTP method requests are sent with.
    pub method: &'static str,
    /// The URL, with `{model}` (and Bedrock's `{region}`) left to fill.
    pub url: &'static str,
    /// Whether a request replaying tool calls must declare the tools it
    /// calls (Ollama replays calls without declarations and cannot be told
    /// not to call, so minimal declarations would only invite calls).
    pub needs_declared_calls: bool,
    /// Whether the API can be told not to call any tool.
    pub choice_none: bool,
    pub(crate) names: Pattern,
    pub(crate) ids: Pattern,
    /// The generation settings the API takes for every model (the
    /// writer's module says where each goes).
    pub(crate) settings: &'static [Setting],
    /// Those it takes only for Claude models (Bedrock passes them through
    /// `additionalModelRequestFields`).
    pub(crate) claude_settings: &'static [Setting],
    /// The holder of the provider files a request may name; `None` where
    /// the API reads none.
    pub(crate) holder: Option<Holder>,
    /// Why the API cannot take a file of its own holder as it is named (a
    /// document when the flag says so) for a model of the family; `None`
    /// when it can.
    pub(crate) refuses_file: fn(&ProviderFile, bool, Option<Family>) -> Option<String>,
    /// The family whose request shape a model takes here, from its id and
    /// the family the options give; `None` where the shape does not vary
    /// with the model's family.
    pub(crate) family: fn(&str, Option<Family>) -> Option<Family>,
    /// Where a tool result's media may go.
    pub(crate) tool_media: ToolMedia,
    /// How Anthropic's typed tools are declared, for a model of the family.
    pub(crate) typed_tools: fn(Option<Family>) -> TypedTools,
    /// The JSON Schema dialect of its tool declarations.
    pub(crate) dialect: Dialect,
    /// Whether the API is any server a profile describes
    /// ([`crate::facts::Profile`]): its limits and default model are the
    /// profile's, not the facts'.
    pub(crate) profiled: bool,
    /// The header a request names its betas in, and the beta that naming
    /// files by id needs; `None` where betas go in no header.
    pub(crate) betas: Option<Betas>,
    /// A setting the API refuses for the model beyond what it takes
    /// ([`Spec::settings`]), and why.
    pub(crate) refuses_setting: fn(&SettingAsk<'_>) -> Option<(Setting, String)>,
    /// The members its body may hold, as its SDK's request types list
    /// them, and the SDK; `None` where no SDK's types are read (an
    /// OpenAI-compatible server takes what its profile says).
    pub(crate) members: Option<(&'static Members, &'static str)>,
    /// Members the crate writes that the SDK's types no longer list, each
    /// with where the API documents it (Anthropic's sampling settings,
    /// which older models still take).
    pub(crate) also: &'static [(&'static str, &'static str)],
    /// Whether the writer puts a caller's cache marks on content parts as
    /// explicit breakpoints, for the models whose facts say they take them
    /// ([`crate::facts::Traits::cache_breakpoints`]); Claude's marks are
    /// apart ([`crate::steps::model::Capabilities::cache_marks`]).
    pub(crate) cache_parts: bool,
    /// The service tiers the API takes ([`Params::service_tier`]), as it
    /// spells them (its SDK's literal); a tier not listed is refused.
    pub(crate) service_tiers: &'static [&'static str],
    /// Whether the API takes JSON mode (`response_format: "json"`, any
    /// JSON object without a schema); where not, a schema only.
    pub(crate) json_mode: bool,
    /// The URL a streamed request goes to where the API streams at
    /// another URL than [`Spec::url`] (Gemini, Bedrock); `None` where the
    /// body says so.
    pub(crate) stream_url: Option<&'static str>,
    /// The members the crate writes from the history, the tools, the tool
    /// choice and the model: extra members
    /// ([`crate::provider::Options::with_extra`]) may not touch them.
    pub(crate) owned: &'static [&'static str],
}

/// Where an API's betas go ([`Spec::betas`]).
#[derive(Debug)]
pub(crate) struct Betas {
    /// The header's name.
    pub header: &'static str,
    /// The beta a request naming provider files needs.
    pub files: &'static str,
}

/// What [`Spec::refuses_setting`] is asked about.
pub(crate) struct SettingAsk<'a> {
    /// The model's id.
    pub model: &'a str,
    /// The family whose request shape the model takes ([`Spec::family`]).
    pub family: Option<Family>,
    /// The settings given.
    pub params: &'a Params,
    /// Whether the request places cache marks.
    pub cache_breakpoints: bool,
}

/// Where an API lets a tool result's images and documents go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToolMedia {
    /// Inside the tool result, for every model.
    Inside,
    /// After the results, for every model.
    After,
    /// As the model's facts say (`media_in_tool_result`; after where
    /// they say nothing).
    AsTheFactsSay,
}

/// Where a request is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `POST`.
    pub method: &'static str,
    /// The URL, the model filled in.
    pub url: String,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.url)
    }
}

impl Spec {
    /// A spec for `provider` with its names, to be completed: `POST`, no
    /// URL, the model in the body, calls declared, a "none" tool choice,
    /// OpenAI's patterns for names and any id, no generation setting.
    pub(crate) const fn of(provider: Provider) -> Spec {
        Spec {
            provider,
            display_name: provider.display_name(),
            method: "POST",
            url: "",
            needs_declared_calls: true,
            choice_none: true,
            names: Pattern::TOOL_NAME,
            ids: Pattern::ANY_ID,
            settings: &[],
            claude_settings: &[],
            holder: None,
            refuses_file: takes_every_file,
            family: no_family,
            tool_media: ToolMedia::After,
            typed_tools: as_functions,
            dialect: Dialect::OpenAi,
            profiled: false,
            betas: None,
            refuses_setting: |_| None,
            service_tiers: &[],
            json_mode: true,
            stream_url: None,
            members: None,
            also: &[],
            owned: &[],
            cache_parts: false,
        }
    }
}

/// [`Spec::refuses_file`] of an API that takes every file of its holder.
fn takes_every_file(_: &ProviderFile, _: bool, _: Option<Family>) -> Option<String> {
    None
}

/// [`Spec::family`] of an API whose shape is the same for every model.
fn no_family(_: &str, _: Option<Family>) -> Option<Family> {
    None
}

/// [`Spec::typed_tools`] of an API that declares every tool as a function.
fn as_functions(_: Option<Family>) -> TypedTools {
    TypedTools::AsFunctions
}
